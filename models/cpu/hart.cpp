#include "cpu/hart.h"

#include "cpu/extension.h"
#include "cpu/instruction_trace.h"
#include "core/text.h"

#include <algorithm>
#include <sstream>

namespace npuvp {

namespace {
constexpr std::uint64_t kMstatusMie = 1ull << 3, kMstatusMpie = 1ull << 7, kMstatusMpp = 3ull << 11,
                        kMstatusMprv = 1ull << 17, kMstatusTw = 1ull << 21;
constexpr std::uint64_t kInterruptBit = 1ull << 63;
// RISC-V semihosting brackets its ebreak with these two hints.
constexpr std::uint32_t kSemihostingPrologue = 0x01f01013;  // slli x0, x0, 0x1f
constexpr std::uint32_t kSemihostingEpilogue = 0x40705013;  // srai x0, x0, 7
}  // namespace

std::string trap_cause_name(std::uint64_t mcause) {
  if (mcause & kInterruptBit) {
    switch (mcause & ~kInterruptBit) {
      case 3: return "machine software interrupt";
      case 7: return "machine timer interrupt";
      case 11: return "machine external interrupt";
      default: return "interrupt " + std::to_string(mcause & ~kInterruptBit);
    }
  }
  static const char* const kNames[] = {"instruction address misaligned", "instruction access fault",
                                       "illegal instruction", "breakpoint", "load address misaligned",
                                       "load access fault", "store/AMO address misaligned",
                                       "store/AMO access fault", "environment call from U-mode",
                                       "environment call from S-mode", "reserved",
                                       "environment call from M-mode"};
  return mcause < 12 ? kNames[mcause] : "exception " + std::to_string(mcause);
}

Hart::Hart(std::uint64_t hart_id, BusInterface& bus)
    : code_filter_(1u << (kCodeFilterBits - 6), 0), hart_id_(hart_id), bus_(bus) {
  // MXL = 64-bit; I, M, A, F, D, C and U.
  misa_ = (2ull << 62) | (1u << ('I' - 'A')) | (1u << ('M' - 'A')) | (1u << ('A' - 'A')) |
          (1u << ('F' - 'A')) | (1u << ('D' - 'A')) | (1u << ('C' - 'A')) | (1u << ('U' - 'A'));
  reset(0);
}

Hart::~Hart() = default;

void Hart::add_extension(IsaExtension& extension) {
  decoder_.add(extension, extension.instructions());
  extensions_.push_back(&extension);
  if (char letter = extension.misa_letter()) misa_ |= 1u << (letter - 'A');
  flush_decode_cache();
}

bool Hart::configure_pmp(unsigned entries, std::uint64_t granularity_bytes) {
  if (!pmp_.configure(entries, granularity_bytes)) return false;
  update_access_checks();
  return true;
}

void Hart::set_cycle_model(const CycleModel& model) {
  cycle_model_ = model;
  flush_decode_cache();  // costs are baked into decoded instructions
}

void Hart::reset(std::uint64_t reset_pc) {
  std::fill(std::begin(x), std::end(x), 0);
  std::fill(std::begin(f), std::end(f), 0);
  fflags_ = frm_ = 0;
  pc = reset_pc;
  privilege_ = Privilege::kMachine;
  mstatus_ = 2ull << 32;  // UXL = 64-bit; FS = Off: software enables the FPU
  mtvec_ = mscratch_ = mepc_ = mcause_ = mtval_ = mie_ = mcounteren_ = mcountinhibit_ = 0;
  reservation_valid_ = false;
  waiting_for_interrupt_ = false;
  counter_write_pending_[0] = counter_write_pending_[1] = false;
  last_trap_target_ = ~0ull;
  pmp_.reset();
  triggers_.reset();
  if (!triggered_slots_.empty()) flush_requested_ = pending_service_ = true;  // drop execute-trigger trampolines
  update_access_checks();
  for (auto* extension : extensions_) extension->reset(*this);
}

// ---------------------------------------------------------------- windows

void Hart::add_window(const MemoryWindow& window) {
  MemoryWindow entry = window;
  entry.fast_limit = entry.size >= 8 ? entry.size - 7 : 0;
  for (auto& existing : windows_) {
    if (existing.start == entry.start && existing.size == entry.size) {
      existing = entry;
      return;
    }
  }
  windows_.push_back(entry);
}

void Hart::invalidate_windows(std::uint64_t start, std::uint64_t end) {
  windows_.erase(std::remove_if(windows_.begin(), windows_.end(),
                                [&](const MemoryWindow& w) { return w.start <= end && start <= w.start + w.size - 1; }),
                 windows_.end());
  read_window_ = write_window_ = MemoryWindow{};
  // Decoded code came from those windows. The current instruction may be in
  // a decoded page, so the pages go once it has finished.
  flush_requested_ = true;
  pending_service_ = true;
  budget_ = 0;
}

const MemoryWindow* Hart::find_window(std::uint64_t address, bool write) {
  for (const auto& window : windows_) {
    if (address - window.start < window.size && (write ? window.writable : window.readable)) return &window;
  }
  return nullptr;
}

// ---------------------------------------------------------------- decoding

void Hart::flush_decode_cache() {
  pages_.clear();
  std::fill(code_filter_.begin(), code_filter_.end(), 0);
  current_page_number_ = ~0ull;
  current_page_ = nullptr;
  stale_pages_.clear();
  pending_code_invalidation_ = false;
  triggered_slots_.clear();
}

DecodedInstruction Hart::undecoded_slot() {
  DecodedInstruction slot{};
  slot.execute = decode_on_first_use;
  slot.rd = 32;
  return slot;
}

void Hart::decode_on_first_use(Hart& hart, const DecodedInstruction& instruction) {
  auto& slot = const_cast<DecodedInstruction&>(instruction);
  hart.decode_into(slot, hart.pc);
  slot.execute(hart, slot);
}

namespace {
// mtval is the part of the instruction that could not be fetched (kept in imm).
void raise_fetch_fault(Hart& hart, const DecodedInstruction& instruction) {
  hart.raise_exception(TrapCause::kInstructionAccessFault, static_cast<std::uint64_t>(instruction.imm));
}
void raise_illegal(Hart& hart, const DecodedInstruction& instruction) {
  hart.raise_illegal_instruction(instruction);
}
}  // namespace

bool Hart::fetch_raw(std::uint64_t address, std::uint32_t& raw, unsigned& length, std::uint64_t& fault_address) {
  auto fetch_half = [&](std::uint64_t at, std::uint16_t& half) {
    bool ok = true;
    if (const MemoryWindow* window = find_window(at, false); window && at - window->start + 2 <= window->size) {
      std::memcpy(&half, window->host + (at - window->start), 2);
    } else {
      std::uint64_t cycles = 0;
      ++bus_accesses_;
      ok = bus_.bus_access(BusInterface::Access::kFetch, at, &half, 2, cycles);  // may grant DMI
      cycles_ += cycles;
    }
    // Code in the data cache's range may have been written by a store still
    // held in some L1 (this hart's or another's): after fence.i the fetch
    // must see that coherent value, not memory's stale copy. The fetch above
    // still sets the timing and the DMI window (decoded pages are kept for
    // windows only). Decoding is rare (once per slot until invalidated).
    if (ok && data_cached(at)) data_cache_->debug_access(false, at, &half, 2);
    return ok;
  };
  std::uint16_t low = 0, high = 0;
  fault_address = address;
  if (!fetch_half(address, low)) return false;
  if ((low & 3) != 3) {
    raw = low;
    length = 2;
    return true;
  }
  fault_address = address + 2;
  if (!fetch_half(address + 2, high)) return false;
  raw = low | (static_cast<std::uint32_t>(high) << 16);
  length = 4;
  return true;
}

void Hart::decode_into(DecodedInstruction& slot, std::uint64_t address) {
  std::uint32_t raw = 0;
  unsigned length = 0;
  std::uint64_t fault_address = 0;
  ++decoded_count_;
  if (!fetch_raw(address, raw, length, fault_address)) {
    slot = DecodedInstruction{};
    slot.execute = raise_fetch_fault;
    slot.imm = static_cast<std::int64_t>(fault_address);
    slot.rd = 32;
    slot.length = 2;
    slot.cost = 1;
    return;
  }
  if (fetch_observer_) cycles_ += fetch_observer_(address);
  if (!decoder_.decode(raw, slot)) slot.execute = raise_illegal;
  slot.cost = slot.spec ? cycle_model_.cpi[static_cast<int>(slot.spec->cls)] : 1;
  // An instruction straddling into the next page: stores there must be seen too.
  if (length == 4 && (address & (kPageSize - 1)) == kPageSize - 2) flag_code_page((address >> kPageBits) + 1);
  if (triggers_.any_execute()) install_trigger(slot, address);
  if (!breakpoints_.empty()) install_breakpoint(slot, address);
}

void Hart::flag_code_page(std::uint64_t page_number) {
  code_filter_[(page_number >> 6) & (code_filter_.size() - 1)] |= 1ull << (page_number & 63);
}

DecodedInstruction* Hart::decoded_at_slow(std::uint64_t address) {
  std::uint64_t page_number = address >> kPageBits;
  auto found = pages_.find(page_number);
  if (found == pages_.end()) {
    // Only code in a direct-memory window is cached: its bytes cannot change
    // behind our back without a store we see or a DMI invalidation.
    const MemoryWindow* window = find_window(address, false);
    if (!window) {
      decode_into(uncached_, address);
      return &uncached_;
    }
    auto page = std::make_unique<DecodedPage>();
    std::fill(std::begin(page->slots), std::end(page->slots), undecoded_slot());
    found = pages_.emplace(page_number, std::move(page)).first;
    flag_code_page(page_number);
  }
  current_page_number_ = page_number;
  current_page_ = found->second.get();
  return &current_page_->slots[(address & (kPageSize - 1)) >> 1];
}

// A store hit a page that holds decoded instructions. Slots are reset after
// the current instruction (it may be the one being overwritten).
void Hart::note_store(std::uint64_t address) {
  std::uint64_t page = address >> kPageBits;
  // Decoded code on this page, or an instruction straddling in from the previous one.
  bool hits_code = pages_.count(page) || ((address & (kPageSize - 1)) < 2 && pages_.count(page - 1));
  if (!hits_code) return;  // filter false positive
  stale_pages_.push_back(address);
  pending_code_invalidation_ = true;
  pending_service_ = true;
  budget_ = 0;
}

void Hart::invalidate_decoded_range(std::uint64_t start, std::uint64_t size) {
  for (std::uint64_t address = start; address < start + size; address += 8) stale_pages_.push_back(address);
  pending_code_invalidation_ = true;
  pending_service_ = true;
  budget_ = 0;
}

void Hart::invalidate_code_pages() {
  const DecodedInstruction blank = undecoded_slot();
  for (std::uint64_t address : stale_pages_) {
    // A store of up to 8 bytes may overlap instructions starting up to 2 bytes before it.
    for (std::uint64_t at = (address & ~1ull) - 2; at < address + 8; at += 2) {
      auto page = pages_.find(at >> kPageBits);
      if (page == pages_.end()) continue;
      DecodedInstruction& slot = page->second->slots[(at & (kPageSize - 1)) >> 1];
      if (slot.execute != decode_on_first_use) {
        slot = blank;
        ++code_invalidations_;
      }
    }
  }
  stale_pages_.clear();
  pending_code_invalidation_ = false;
}

// ---------------------------------------------------------------- running

void Hart::run(std::uint64_t cycle_limit) {
  break_requested_ = false;
  for (;;) {
    if (pending_service_) service_pending();
    if (waiting_for_interrupt_ || cycles_ >= cycle_limit || debug_stop_ != DebugStop::kNone) return;
    budget_ = cycle_limit;
    // Once per batch: PMP-checked fetches (U-mode, or locked entries; traces
    // too), or --itrace.
    if (__builtin_expect(pmp_fetch_checks_, 0)) run_fetch_checked_batch();
    else if (__builtin_expect(tracer_ != nullptr, 0)) run_traced_batch();
    // The interpreter loop: no SystemC calls, no allocation.
    while (cycles_ < budget_) {
      DecodedInstruction* instruction = decoded_at(pc);
      instruction->execute(*this, *instruction);
      cycles_ += instruction->cost;
      ++executed_;
    }
    // A break request from outside, or a debugger stop: the caller decides.
    // A pending service (e.g. an instruction-cache eviction invalidating
    // decoded code) waits for the next run() when a break was requested too.
    if (break_requested_ || !pending_service_ || debug_stop_ != DebugStop::kNone) return;
  }
}

void Hart::run_fetch_checked_batch() {
  while (cycles_ < budget_) {
    DecodedInstruction* instruction = decoded_at(pc);
    std::uint64_t denied = ~0ull;  // the halfword whose fetch PMP refuses
    if (!fetch_permitted(pc)) {
      denied = pc;
    } else {
      if (instruction->execute == decode_on_first_use) decode_into(*instruction, pc);  // for its length
      if (instruction->length == 4 && !fetch_permitted(pc + 2)) denied = pc + 2;
    }
    if (denied != ~0ull) {
      raise_exception(TrapCause::kInstructionAccessFault, denied);  // --itrace shows the trap
      cycles_ += 1;
      ++executed_;
      continue;
    }
    // --itrace as in run_traced_batch (instruction_trace.cpp).
    HartTracer* tracer = tracer_ && tracer_->active() && tracer_->selects(pc) ? tracer_ : nullptr;
    if (tracer) {
      if (instruction->execute == decode_on_first_use) decode_into(*instruction, pc);
      tracer->begin(*this, *instruction, pc, cycles_);
    }
    const std::uint64_t executed_before = executed_, exceptions_before = exceptions_;
    instruction->execute(*this, *instruction);
    cycles_ += instruction->cost;
    ++executed_;
    // A debugger stop abandons the instruction (it runs again on resume).
    if (tracer && executed_ != executed_before) tracer->end(*this, exceptions_ != exceptions_before);
  }
}

void Hart::update_access_checks() {
  const bool user = privilege_ == Privilege::kUser;
  // mstatus.MPRV: loads and stores of M-mode use MPP's privilege.
  const bool data_user = user || ((mstatus_ & kMstatusMprv) && (mstatus_ & kMstatusMpp) == 0);
  pmp_fetch_checks_ = pmp_.checks(user);
  pmp_data_checks_ = pmp_.checks(data_user);
  data_checks_ = !watchpoints_.empty() || triggers_.any_data() || pmp_data_checks_;
  if (data_checks_) read_window_ = write_window_ = MemoryWindow{};
}

bool Hart::data_access_permitted(std::uint64_t address, unsigned size, bool write, TrapCause fault) {
  if (!watchpoints_.empty() && watch_hit(address, size, write)) return false;
  if (triggers_.any_data() && triggers_.fire_data(address, size, write, privilege_ == Privilege::kUser) >= 0) {
    raise_exception(TrapCause::kBreakpoint, address);
    return false;
  }
  if (pmp_data_checks_) {
    const bool user = privilege_ == Privilege::kUser || ((mstatus_ & kMstatusMprv) && (mstatus_ & kMstatusMpp) == 0);
    if (!pmp_.allows(address, size, write ? PhysicalMemoryProtection::kWrite : PhysicalMemoryProtection::kRead, user)) {
      raise_exception(fault, address);
      return false;
    }
  }
  return true;
}

void Hart::service_pending() {
  pending_service_ = false;
  for (int which = 0; which < 2; ++which) {
    if (counter_write_pending_[which]) {
      counter_write_pending_[which] = false;
      set_counter(which, counter_written_[which]);
    }
  }
  if (flush_requested_) {
    flush_requested_ = false;
    flush_decode_cache();
  }
  if (pending_code_invalidation_) invalidate_code_pages();
  take_interrupt_if_pending();
}

void Hart::set_interrupt_pending(unsigned bit, bool level) {
  std::uint64_t mask = 1ull << bit;
  mip_ = level ? (mip_ | mask) : (mip_ & ~mask);
  pending_service_ = true;
  budget_ = 0;
}

void Hart::take_interrupt_if_pending() {
  std::uint64_t pending = mip_ & mie_;
  if (!pending) return;
  waiting_for_interrupt_ = false;  // WFI wakes even when interrupts are globally disabled
  bool enabled = privilege_ == Privilege::kUser || (mstatus_ & kMstatusMie);
  if (!enabled) return;
  // Priority order of the privileged spec: MEI, MSI, MTI.
  for (unsigned bit : {11u, 3u, 7u}) {
    if (pending & (1ull << bit)) {
      ++interrupts_;
      enter_trap(kInterruptBit | bit, 0);
      return;
    }
  }
}

void Hart::add_idle_cycles(std::uint64_t cycles) {
  cycles_ += cycles;
  idle_cycles_ += cycles;
}

// ---------------------------------------------------------------- traps

std::string Hart::describe(std::uint64_t address) const {
  std::string text = hex(address);
  if (symbolizer_) {
    std::string symbol = symbolizer_(address);
    if (!symbol.empty()) text += " <" + symbol + ">";
  }
  return text;
}

std::string Hart::describe_trap(std::uint64_t cause, std::uint64_t epc, std::uint64_t tval) {
  std::ostringstream text;
  text << trap_cause_name(cause) << " at pc=" << describe(epc);
  if (cause == static_cast<std::uint64_t>(TrapCause::kIllegalInstruction)) {
    std::string mnemonic = decoder_.disassemble(static_cast<std::uint32_t>(tval), epc);
    text << ": instruction " << hex(tval, Decoder::is_compressed(static_cast<std::uint32_t>(tval)) ? 4 : 8)
         << " (" << (mnemonic == "unknown" ? "not a valid instruction" : mnemonic) << ")";
  } else if (!(cause & kInterruptBit) && cause != static_cast<std::uint64_t>(TrapCause::kEcallFromM) &&
             cause != static_cast<std::uint64_t>(TrapCause::kEcallFromU)) {
    text << ", mtval=" << hex(tval);
  }
  return text.str();
}

void Hart::raise_exception(TrapCause cause, std::uint64_t tval) {
  if (exception_hook_ && exception_hook_(static_cast<std::uint64_t>(cause), tval)) {
    if (tracer_) tracer_->trap(static_cast<std::uint64_t>(cause), pc, tval, pc, false, cycles_);
    ++exceptions_;
    budget_ = 0;
    return;
  }
  enter_trap(static_cast<std::uint64_t>(cause), tval);
  ++exceptions_;
}

void Hart::enter_trap(std::uint64_t cause, std::uint64_t tval) {
  bool interrupt = cause & kInterruptBit;
  // A fault on the handler's first instruction would trap to the same place
  // forever (e.g. mtvec still at its reset value, pointing at no memory).
  if (!interrupt && pc == last_trap_target_ && retired() == last_trap_retired_) {
    std::string message = "trap handler at mtvec=" + hex(mtvec_) + " cannot run (" +
                          describe_trap(cause, pc, tval) + ") while handling: " +
                          describe_trap(last_trap_cause_, last_trap_epc_, last_trap_tval_);
    if (fatal_handler_) fatal_handler_(message);
  }
  last_trap_cause_ = cause;
  last_trap_epc_ = pc;
  last_trap_tval_ = tval;
  mepc_ = pc;
  mcause_ = cause;
  mtval_ = tval;
  mstatus_ = (mstatus_ & ~(kMstatusMpie | kMstatusMie | kMstatusMpp)) |
             ((mstatus_ & kMstatusMie) ? kMstatusMpie : 0) |
             (static_cast<std::uint64_t>(privilege_) << 11);
  privilege_ = Privilege::kMachine;
  std::uint64_t target = mtvec_ & ~3ull;
  if (interrupt && (mtvec_ & 3) == 1) target += 4 * (cause & ~kInterruptBit);
  if (tracer_) tracer_->trap(cause, mepc_, tval, target, true, cycles_);
  if (activity_) activity_->trap_entered(cause, mepc_, cycles_);
  pc = target;
  last_trap_target_ = target;
  last_trap_retired_ = retired();
  reservation_valid_ = false;
  update_access_checks();  // now in M-mode
}

void Hart::execute_mret(const DecodedInstruction& d) {
  if (privilege_ != Privilege::kMachine) return raise_illegal_instruction(d);
  auto previous = static_cast<Privilege>((mstatus_ & kMstatusMpp) >> 11);
  mstatus_ = (mstatus_ & ~(kMstatusMie | kMstatusMpp)) | ((mstatus_ & kMstatusMpie) ? kMstatusMie : 0) |
             kMstatusMpie;  // MPP becomes U, the least-privileged mode
  if (previous != Privilege::kMachine) mstatus_ &= ~kMstatusMprv;
  privilege_ = previous;
  pc = mepc_;
  if (activity_) activity_->trap_returned(cycles_);
  update_access_checks();  // U-mode: PMP checks fetches (the batch ends here)
  pending_service_ = true;  // re-enabled interrupts may be pending
  budget_ = 0;
}

void Hart::execute_wfi(const DecodedInstruction& d) {
  if (privilege_ == Privilege::kUser && (mstatus_ & kMstatusTw)) return raise_illegal_instruction(d);
  pc += d.length;
  if (mip_ & mie_) return;  // would wake at once
  waiting_for_interrupt_ = true;
  budget_ = 0;
}

// A semihosting call is served from M-mode only, its three instructions within one 4 KiB page
// (the RISC-V semihosting specification; QEMU's default): from U-mode the sequence is a plain
// breakpoint, so a user program cannot print through, or end, the simulation.
bool Hart::may_be_semihosting_call(const DecodedInstruction& d) const {
  constexpr std::uint64_t kPage = 4096;
  return semihosting_ && d.length == 4 && privilege_ == Privilege::kMachine && pc >= 4 &&
         (pc - 4) / kPage == (pc + 7) / kPage;
}

void Hart::execute_ebreak(const DecodedInstruction& d) {
  if (may_be_semihosting_call(d)) {
    std::uint32_t before = 0, after = 0;
    if (debug_read(pc - 4, &before, 4) && debug_read(pc + 4, &after, 4) && before == kSemihostingPrologue &&
        after == kSemihostingEpilogue) {
      if (semihosting_(*this)) {
        pc += 4;
        return;
      }
    }
  }
  raise_exception(TrapCause::kBreakpoint, pc);
}

void Hart::execute_fence_i(const DecodedInstruction& d) {
  pc += d.length;
  // Drop every decoded instruction once this one has finished.
  flush_requested_ = true;
  pending_service_ = true;
  budget_ = 0;
}

// ---------------------------------------------------------------- memory slow paths

bool Hart::debug_read(std::uint64_t address, void* data, std::size_t size) {
  if (size == 0) return true;
  if (data_cached(address)) return data_cache_->debug_access(false, address, data, size);
  if (const MemoryWindow* window = find_window(address, false); window && address - window->start + size <= window->size) {
    std::memcpy(data, window->host + (address - window->start), size);
    return true;
  }
  return bus_.debug_access(false, address, data, size);
}

bool Hart::debug_write(std::uint64_t address, const void* data, std::size_t size) {
  if (size == 0) return true;
  bool ok;
  if (data_cached(address)) {
    ok = data_cache_->debug_access(true, address, const_cast<void*>(data), size);
  } else if (const MemoryWindow* window = find_window(address, true); window && address - window->start + size <= window->size) {
    std::memcpy(window->host + (address - window->start), data, size);
    ok = true;
  } else {
    ok = bus_.debug_access(true, address, const_cast<void*>(data), size);
  }
  if (ok)
    for (std::size_t offset = 0; offset < size; offset += 8) note_store(address + offset);
  return ok;
}

// ---------------------------------------------------------------- debugger support

void Hart::insert_breakpoint(std::uint64_t address, bool hardware) {
  breakpoints_[address] = Breakpoint{DecodedInstruction{}, hardware};
  invalidate_decoded_range(address, 2);  // re-decoded (into the trampoline) on next use
}

bool Hart::remove_breakpoint(std::uint64_t address) {
  if (!breakpoints_.erase(address)) return false;
  invalidate_decoded_range(address, 2);
  return true;
}

void Hart::install_breakpoint(DecodedInstruction& slot, std::uint64_t address) {
  auto found = breakpoints_.find(address);
  if (found == breakpoints_.end()) return;
  found->second.original = slot;
  slot.execute = execute_breakpoint;  // keeps the cost: stepping past runs the original
}

void Hart::install_trigger(DecodedInstruction& slot, std::uint64_t address) {
  if (!triggers_.execute_address_watched(address)) return;
  triggered_slots_[address] = slot;
  slot.execute = execute_trigger;  // keeps length and cost
}

void Hart::execute_trigger(Hart& hart, const DecodedInstruction& instruction) {
  auto found = hart.triggered_slots_.find(hart.pc);
  if (found == hart.triggered_slots_.end()) {  // triggers changed, slot not yet re-decoded
    auto& slot = const_cast<DecodedInstruction&>(instruction);
    hart.decode_into(slot, hart.pc);
    slot.execute(hart, slot);
    return;
  }
  // Timing "before": the instruction does not execute; mtval = its address.
  if (hart.triggers_.fire_execute(hart.pc, hart.privilege_ == Privilege::kUser) >= 0) {
    hart.raise_exception(TrapCause::kBreakpoint, hart.pc);
    return;
  }
  const DecodedInstruction original = found->second;
  original.execute(hart, original);
}

void Hart::execute_breakpoint(Hart& hart, const DecodedInstruction& instruction) {
  auto found = hart.breakpoints_.find(hart.pc);
  if (found == hart.breakpoints_.end()) {  // removed, slot not yet re-decoded
    auto& slot = const_cast<DecodedInstruction&>(instruction);
    hart.decode_into(slot, hart.pc);
    slot.execute(hart, slot);
    return;
  }
  if (hart.resuming_at_pc()) {
    const DecodedInstruction original = found->second.original;
    original.execute(hart, original);
    return;
  }
  // Stop before the instruction: the interpreter loop counts it, undo that.
  hart.cycles_ -= instruction.cost;
  --hart.executed_;
  hart.debug_stop_ = found->second.hardware ? DebugStop::kHardwareBreakpoint : DebugStop::kSoftwareBreakpoint;
  hart.debug_stop_address_ = hart.pc;
  hart.budget_ = 0;
}

void Hart::insert_watchpoint(std::uint64_t address, std::uint64_t size, Watch kind) {
  watchpoints_.push_back(Watchpoint{address, size == 0 ? 1 : size, kind});
  update_access_checks();  // no fast path from now on
}

bool Hart::remove_watchpoint(std::uint64_t address, std::uint64_t size, Watch kind) {
  for (auto it = watchpoints_.begin(); it != watchpoints_.end(); ++it) {
    if (it->start == address && it->size == (size == 0 ? 1 : size) && it->kind == kind) {
      watchpoints_.erase(it);
      update_access_checks();
      return true;  // the fast path comes back with the next slow access
    }
  }
  return false;
}

void Hart::remove_debug_points() {
  std::vector<std::uint64_t> addresses;
  for (const auto& [address, breakpoint] : breakpoints_) addresses.push_back(address);
  for (std::uint64_t address : addresses) remove_breakpoint(address);
  watchpoints_.clear();
  update_access_checks();
  debug_stop_ = DebugStop::kNone;
}

bool Hart::watch_hit(std::uint64_t address, unsigned size, bool write) {
  if (resuming_at_pc()) return false;
  for (const auto& watch : watchpoints_) {
    if (!(address < watch.start + watch.size && watch.start < address + size)) continue;
    if (!(static_cast<unsigned>(watch.kind) & (write ? 1u : 2u))) continue;
    debug_stop_ = watch.kind == Watch::kAccess ? DebugStop::kWatchAccess
                  : write                      ? DebugStop::kWatchWrite
                                               : DebugStop::kWatchRead;
    debug_stop_address_ = std::max(address, watch.start);  // inside the watched range, as gdb checks
    // The instruction is abandoned before its access (pc stays): undo the
    // interpreter loop's count of it; it runs again on resume.
    --executed_;
    budget_ = 0;
    return true;
  }
  return false;
}

void Hart::resume_from_debug_stop() {
  debug_stop_ = DebugStop::kNone;
  resume_pc_ = pc;
  resume_executed_ = executed_;
}

bool Hart::debug_csr_read(std::uint16_t csr, std::uint64_t& value) {
  if (csr == 0x001 || csr == 0x002 || csr == 0x003) {  // fflags, frm, fcsr
    value = csr == 0x001 ? fflags_ : csr == 0x002 ? frm_ : (frm_ << 5) | fflags_;
    return true;
  }
  Privilege saved = privilege_;
  privilege_ = Privilege::kMachine;
  bool ok = csr_read(csr, value);
  privilege_ = saved;
  return ok;
}

bool Hart::debug_csr_write(std::uint16_t csr, std::uint64_t value) {
  if (csr == 0x001 || csr == 0x002 || csr == 0x003) {
    if (csr != 0x002) fflags_ = value & 0x1f;
    if (csr != 0x001) frm_ = (csr == 0x002 ? value : value >> 5) & 7;
    return true;
  }
  Privilege saved = privilege_;
  privilege_ = Privilege::kMachine;
  bool ok = csr_write(csr, value);
  privilege_ = saved;
  return ok;
}

bool Hart::prepare_atomic_slow(std::uint64_t address) {
  std::uint64_t cycles = 0;
  if (!data_cache_->make_writable(address, cycles)) {
    raise_exception(TrapCause::kStoreAccessFault, address);
    return false;
  }
  cycles_ += cycles;
  return true;
}

void Hart::synchronise_slow(DataCache::Sync kind) {
  std::uint64_t cycles = 0;
  data_cache_->synchronise(kind, cycles);
  cycles_ += cycles;
}

template <typename T>
bool Hart::load_slow(std::uint64_t address, T& value, TrapCause fault) {
  if (__builtin_expect(data_checks_, 0) && !data_access_permitted(address, sizeof(T), false, fault)) return false;
  if (address & (sizeof(T) - 1)) {
    if (!allow_misaligned_) {
      raise_exception(fault == TrapCause::kStoreAccessFault ? TrapCause::kStoreMisaligned : TrapCause::kLoadMisaligned,
                      address);
      return false;
    }
    // Misaligned accesses done byte by byte, as a trap-and-emulate handler would.
    std::uint8_t bytes[sizeof(T)];
    for (unsigned i = 0; i < sizeof(T); ++i)
      if (!load(address + i, bytes[i], fault)) return false;
    std::memcpy(&value, bytes, sizeof(T));
    return true;
  }
  if (data_cached(address)) {
    std::uint64_t cycles = 0;
    if (!data_cache_->read(address, &value, sizeof(T), cycles)) {
      raise_exception(fault, address);
      return false;
    }
    cycles_ += cycles;
    return true;
  }
  if (const MemoryWindow* window = find_window(address, false); window && address - window->start + sizeof(T) <= window->size) {
    // A window that overlaps the data cache's range serves this access but
    // never the fast path (which would bypass the cache).
    // Nor while accesses need checks (watchpoints, data triggers, PMP).
    if (!overlaps_data_cache(*window) && !data_checks_) read_window_ = *window;
    std::memcpy(&value, window->host + (address - window->start), sizeof(T));
    cycles_ += window->read_cycles;
    return true;
  }
  std::uint64_t cycles = 0;
  ++bus_accesses_;
  if (!bus_.bus_access(BusInterface::Access::kRead, address, &value, sizeof(T), cycles)) {
    raise_exception(fault, address);
    return false;
  }
  cycles_ += cycles;
  return true;
}

template <typename T>
bool Hart::store_slow(std::uint64_t address, T value) {
  if (__builtin_expect(data_checks_, 0) && !data_access_permitted(address, sizeof(T), true, TrapCause::kStoreAccessFault))
    return false;
  if (address & (sizeof(T) - 1)) {
    if (!allow_misaligned_) {
      raise_exception(TrapCause::kStoreMisaligned, address);
      return false;
    }
    std::uint8_t bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    for (unsigned i = 0; i < sizeof(T); ++i)
      if (!store(address + i, bytes[i])) return false;
    return true;
  }
  if (data_cached(address)) {
    std::uint64_t cycles = 0;
    if (!data_cache_->write(address, &value, sizeof(T), cycles)) {
      raise_exception(TrapCause::kStoreAccessFault, address);
      return false;
    }
    cycles_ += cycles;
    note_store(address);
    return true;
  }
  if (const MemoryWindow* window = find_window(address, true); window && address - window->start + sizeof(T) <= window->size) {
    if (!overlaps_data_cache(*window) && !data_checks_) write_window_ = *window;
    std::memcpy(window->host + (address - window->start), &value, sizeof(T));
    cycles_ += window->write_cycles;
    note_store(address);
    return true;
  }
  std::uint64_t cycles = 0;
  ++bus_accesses_;
  if (!bus_.bus_access(BusInterface::Access::kWrite, address, &value, sizeof(T), cycles)) {
    raise_exception(TrapCause::kStoreAccessFault, address);
    return false;
  }
  cycles_ += cycles;
  note_store(address);
  return true;
}

template bool Hart::load_slow(std::uint64_t, std::int8_t&, TrapCause);
template bool Hart::load_slow(std::uint64_t, std::uint8_t&, TrapCause);
template bool Hart::load_slow(std::uint64_t, std::int16_t&, TrapCause);
template bool Hart::load_slow(std::uint64_t, std::uint16_t&, TrapCause);
template bool Hart::load_slow(std::uint64_t, std::int32_t&, TrapCause);
template bool Hart::load_slow(std::uint64_t, std::uint32_t&, TrapCause);
template bool Hart::load_slow(std::uint64_t, std::int64_t&, TrapCause);
template bool Hart::load_slow(std::uint64_t, std::uint64_t&, TrapCause);
template bool Hart::store_slow(std::uint64_t, std::uint8_t);
template bool Hart::store_slow(std::uint64_t, std::uint16_t);
template bool Hart::store_slow(std::uint64_t, std::uint32_t);
template bool Hart::store_slow(std::uint64_t, std::uint64_t);

}  // namespace npuvp
