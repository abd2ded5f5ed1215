// A RISC-V hart (RV64IMAFDC + Zicsr + Zifencei, M and U modes): architectural
// state and the interpreter. It knows nothing of SystemC: memory it cannot
// reach through its direct-memory windows goes to a BusInterface, which the
// SystemC wrapper (RiscvCpu) implements with TLM-2.0. Unit tests drive a Hart
// directly.
#pragma once

#include "cpu/debug_triggers.h"
#include "cpu/decoder.h"
#include "cpu/instruction.h"
#include "cpu/pmp.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace npuvp {

class IsaExtension;
class HartTracer;

// Trap causes (mcause values without the interrupt bit).
enum class TrapCause : std::uint64_t {
  kInstructionMisaligned = 0,
  kInstructionAccessFault = 1,
  kIllegalInstruction = 2,
  kBreakpoint = 3,
  kLoadMisaligned = 4,
  kLoadAccessFault = 5,
  kStoreMisaligned = 6,
  kStoreAccessFault = 7,
  kEcallFromU = 8,
  kEcallFromM = 11,
};
enum class InterruptCause : std::uint64_t {
  kMachineSoftware = 3,
  kMachineTimer = 7,
  kMachineExternal = 11,
};
std::string trap_cause_name(std::uint64_t mcause);

enum class Privilege : std::uint8_t { kUser = 0, kMachine = 3 };

// A host-memory window granted by DMI: guest [start, start+size) is at host.
struct MemoryWindow {
  std::uint64_t start = 0;
  std::uint64_t size = 0;
  std::uint8_t* host = nullptr;
  bool readable = false, writable = false;
  std::uint32_t read_cycles = 0, write_cycles = 0;  // latency per access
  // Fast-path bound: offsets below this fit any access of up to 8 bytes.
  std::uint64_t fast_limit = 0;
};

// The slow path to memory (MMIO, DMI set-up). Latencies are returned in cycles.
class BusInterface {
 public:
  virtual ~BusInterface() = default;
  enum class Access { kFetch, kRead, kWrite };
  // Returns false on a bus error (access fault).
  virtual bool bus_access(Access access, std::uint64_t address, void* data, unsigned size,
                          std::uint64_t& cycles) = 0;
  // Side-effect-free access for debuggers, loaders and semihosting.
  virtual bool debug_access(bool write, std::uint64_t address, void* data, std::size_t size) = 0;
};

// A data cache in front of part of the address space (the mesh cluster's
// coherent private L1s; models/coherence/). Loads, stores and atomics in its
// range go to it instead of the memory windows and the bus. Instruction
// fetches there read its coherent value (debug_access) when an instruction is
// decoded, so code written by any hart is seen after fence.i. Calls come
// from the hart's own thread and may block in simulated time (a miss waits
// for the protocol): `cycles` returns how long the access took, counted from
// the hart's current cycle (Hart::cycles()). Data really lives in the cache:
// a read returns what the line holds.
class DataCache {
 public:
  virtual ~DataCache() = default;
  // Aligned accesses of 1, 2, 4 or 8 bytes. False only on an access fault
  // (the address is not backed by memory); the hart then traps.
  virtual bool read(std::uint64_t address, void* data, unsigned size, std::uint64_t& cycles) = 0;
  virtual bool write(std::uint64_t address, const void* data, unsigned size, std::uint64_t& cycles) = 0;
  // Before an atomic read-modify-write or a store-conditional: makes the line
  // writable in this cache, so that the read and the write that follow hit
  // without blocking (no other core can step in between them).
  virtual bool make_writable(std::uint64_t address, std::uint64_t& cycles) = 0;
  // A synchronisation instruction retired: a fence, an AMO, an LR or an SC.
  // Protocols that self-invalidate (NSI) act here; MESI does nothing.
  enum class Sync { kFence, kAtomic, kLoadReserved, kStoreConditional };
  virtual void synchronise(Sync kind, std::uint64_t& cycles) = 0;
  // The coherent value of memory (the owner's copy, else the LLC's, else
  // memory's), without timing or state changes; for debuggers, loaders and
  // semihosting. A write updates every copy.
  virtual bool debug_access(bool write, std::uint64_t address, void* data, std::size_t size) = 0;
};

// Told of the hart's trap entries and trap returns (mret): rare events, never
// one per instruction. The CPU activity timeline (--trace) draws trap handlers
// and interrupts from them (cpu/core_activity.h).
class HartActivityObserver {
 public:
  virtual ~HartActivityObserver() = default;
  // `cycles`: the hart's cycle count at the event.
  virtual void trap_entered(std::uint64_t mcause, std::uint64_t epc, std::uint64_t cycles) = 0;
  virtual void trap_returned(std::uint64_t cycles) = 0;
};

// Cycles per instruction class, plus the extra cost of a taken branch.
struct CycleModel {
  std::uint8_t cpi[static_cast<int>(InstructionClass::kCount)] = {1, 3, 20, 1, 1, 1, 2, 2, 4, 1, 2, 1};
  std::uint8_t branch_taken_penalty = 2;
};

class Hart {
 public:
  Hart(std::uint64_t hart_id, BusInterface& bus);
  ~Hart();
  Hart(const Hart&) = delete;
  Hart& operator=(const Hart&) = delete;

  // --- configuration (before running) ---
  void add_extension(IsaExtension& extension);
  void set_cycle_model(const CycleModel& model);
  void set_allow_misaligned(bool allow) { allow_misaligned_ = allow; }
  // PMP entries (0, 16 or 64) and granularity (bytes, a power of two >= 4);
  // false for other values. Without a call: no entries (pmp* CSRs read zero).
  bool configure_pmp(unsigned entries, std::uint64_t granularity_bytes);
  void set_activity_observer(HartActivityObserver* observer) { activity_ = observer; }
  void set_semihosting(std::function<bool(Hart&)> handler) { semihosting_ = std::move(handler); }
  // Source of the `time` CSR (mtime of the platform's timer) given the
  // hart's cycle count.
  void set_time_source(std::function<std::uint64_t(std::uint64_t cycles)> source) {
    time_source_ = std::move(source);
  }
  // Called (and expected not to return) when the hart cannot continue, e.g. a
  // trap whose handler itself faults before retiring an instruction.
  void set_fatal_handler(std::function<void(const std::string&)> handler) {
    fatal_handler_ = std::move(handler);
  }
  // Names addresses in messages ("main+0x10").
  // Called when an instruction is decoded (first execution of its slot, or
  // after the slot was invalidated); returns extra fetch cycles. An
  // instruction-cache model hooks in here (see invalidate_decoded_range).
  void set_fetch_observer(std::function<std::uint64_t(std::uint64_t address)> observer) {
    fetch_observer_ = std::move(observer);
  }
  // Called on every synchronous exception before the trap is taken; when it
  // returns true the exception is consumed by the core's owner (e.g. an AI
  // Core stops its kernel): no trap is taken and the batch ends.
  void set_exception_hook(std::function<bool(std::uint64_t cause, std::uint64_t tval)> hook) {
    exception_hook_ = std::move(hook);
  }
  void set_symbolizer(std::function<std::string(std::uint64_t)> symbolizer) {
    symbolizer_ = std::move(symbolizer);
  }
  const std::function<std::string(std::uint64_t)>& symbolizer() const { return symbolizer_; }
  // --itrace (instruction_trace.h): with a tracer, batches run a traced copy
  // of the interpreter loop; without one (null), nothing is checked per instruction.
  void set_tracer(HartTracer* tracer) { tracer_ = tracer; }
  void reset(std::uint64_t pc);
  // Data accesses to [start, start + size) go to `cache` (see DataCache).
  // Memory windows overlapping that range still serve instruction fetches.
  void set_data_cache(DataCache* cache, std::uint64_t start, std::uint64_t size) {
    data_cache_ = cache;
    data_cache_start_ = start;
    data_cache_size_ = size;
  }
  bool data_cached(std::uint64_t address) const { return data_cache_ && address - data_cache_start_ < data_cache_size_; }

  // --- memory windows (DMI) ---
  void add_window(const MemoryWindow& window);
  // Drops windows overlapping [start, end] and (after the current
  // instruction) every decoded instruction.
  void invalidate_windows(std::uint64_t start, std::uint64_t end);
  void flush_decode_cache();
  // Drops decoded instructions in [start, start + size) once the current
  // instruction has finished: they are fetched (and observed) again.
  void invalidate_decoded_range(std::uint64_t start, std::uint64_t size);
  BusInterface& bus() { return bus_; }

  // --- running ---
  // Executes until the cycle count reaches `cycle_limit`, or earlier when
  // something needs the caller (WFI, a stop request, a pending bus-side event).
  void run(std::uint64_t cycle_limit);
  // Makes run() return after the current instruction, even when that
  // instruction also left a service pending (run() would otherwise serve it
  // and carry on with the batch, losing the request).
  void request_break() {
    break_requested_ = true;
    budget_ = 0;
  }
  // Level of a mip bit driven by a device (MSIP, MTIP, MEIP).
  void set_interrupt_pending(unsigned bit, bool level);
  bool waiting_for_interrupt() const { return waiting_for_interrupt_; }
  // Whether an enabled interrupt would wake the hart from WFI (ignores mstatus.MIE).
  bool wake_condition() const { return (mip_ & mie_) != 0; }
  void wake() { waiting_for_interrupt_ = false; }
  // Adds idle cycles (time spent asleep in WFI), so mcycle tracks time.
  void add_idle_cycles(std::uint64_t cycles);

  // --- state, for instruction semantics, extensions, debuggers and tests ---
  std::uint64_t x[33] = {};  // x[0] stays 0; x[32] is where writes to x0 go
  std::uint64_t pc = 0;
  // (The f registers, f[32], are declared after the interpreter's hot state.)
  Privilege privilege() const { return privilege_; }
  std::uint64_t hart_id() const { return hart_id_; }
  std::uint64_t cycles() const { return cycles_; }
  std::uint64_t retired() const { return executed_ - exceptions_; }
  std::uint64_t exceptions() const { return exceptions_; }
  std::uint64_t interrupts_taken() const { return interrupts_; }
  std::uint64_t idle_cycles() const { return idle_cycles_; }
  std::uint64_t bus_accesses() const { return bus_accesses_; }
  std::uint64_t decoded_instructions() const { return decoded_count_; }
  std::uint64_t code_invalidations() const { return code_invalidations_; }
  std::uint64_t mip() const { return mip_; }
  std::uint64_t mstatus() const { return mstatus_; }
  std::uint64_t mepc() const { return mepc_; }
  std::uint64_t mcause() const { return mcause_; }
  std::uint64_t mtval() const { return mtval_; }
  std::uint64_t mtvec() const { return mtvec_; }
  std::uint64_t misa() const { return misa_; }
  // Floating-point state: fcsr = frm << 5 | fflags.
  static constexpr std::uint64_t kMstatusFs = 3ull << 13, kMstatusSd = 1ull << 63;
  unsigned fflags() const { return fflags_; }
  unsigned frm() const { return frm_; }
  // mstatus.FS != Off: F/D instructions and the fflags/frm/fcsr CSRs are legal.
  bool fp_enabled() const { return (mstatus_ & kMstatusFs) != 0; }
  // An instruction wrote an f register or fcsr: FS = Dirty (and SD).
  void set_fp_dirty() { mstatus_ |= kMstatusFs | kMstatusSd; }
  void accrue_fflags(unsigned flags) {
    if (flags) {
      fflags_ |= flags;
      set_fp_dirty();
    }
  }
  const Decoder& decoder() const { return decoder_; }
  std::string describe(std::uint64_t address) const;  // "0x80000010 <main+0x4>"

  // CSR access as the instruction would do it at the current privilege;
  // false when the access is illegal.
  bool csr_read(std::uint16_t csr, std::uint64_t& value);
  bool csr_write(std::uint16_t csr, std::uint64_t value);

  // Trap entry. Instruction semantics call raise_exception and return.
  void raise_exception(TrapCause cause, std::uint64_t tval);
  void raise_illegal_instruction(const DecodedInstruction& instruction) {
    raise_exception(TrapCause::kIllegalInstruction, instruction.raw);
  }

  // Data access with the full semantics (alignment, DMI fast path, bus slow
  // path, access faults). On failure the trap has been raised; return false.
  // `fault` is the cause raised when nothing answers (AMOs report store faults).
  template <typename T>
  bool load(std::uint64_t address, T& value, TrapCause fault = TrapCause::kLoadAccessFault);
  template <typename T> bool store(std::uint64_t address, T value);
  // Memory reads/writes for debuggers and services (no traps, no timing).
  bool debug_read(std::uint64_t address, void* data, std::size_t size);
  bool debug_write(std::uint64_t address, const void* data, std::size_t size);

  // Instruction semantics helpers.
  void add_cycles(std::uint64_t cycles) { cycles_ += cycles; }
  std::uint8_t branch_taken_penalty() const { return cycle_model_.branch_taken_penalty; }
  // Load-reserved / store-conditional reservation (one per hart).
  void set_reservation(std::uint64_t address) { reservation_ = address; reservation_valid_ = true; }
  bool take_reservation(std::uint64_t address) {
    bool ok = reservation_valid_ && reservation_ == address;
    reservation_valid_ = false;
    return ok;
  }
  void clear_reservation() { reservation_valid_ = false; }
  // Whether a reservation is held on an address in [start, start + size): a
  // data cache that loses that line calls clear_reservation().
  bool reservation_in(std::uint64_t start, std::uint64_t size) const {
    return reservation_valid_ && reservation_ - start < size;
  }
  // Atomics and store-conditionals call this before their read and write: a
  // cached line is made writable first (DataCache::make_writable). False when
  // the trap has been raised.
  bool prepare_atomic(std::uint64_t address) {
    return !data_cached(address) || prepare_atomic_slow(address);
  }
  // A synchronisation instruction retired (DataCache::synchronise).
  void synchronise(DataCache::Sync kind) {
    if (data_cache_) synchronise_slow(kind);
  }
  void execute_mret(const DecodedInstruction& instruction);
  void execute_wfi(const DecodedInstruction& instruction);
  bool may_be_semihosting_call(const DecodedInstruction& d) const;
  void execute_ebreak(const DecodedInstruction& instruction);
  void execute_fence_i(const DecodedInstruction& instruction);

  // --- debugger support (GdbServer). Nothing here is looked at per
  // instruction: a breakpoint replaces its decoded slot's execute function,
  // and while watchpoints exist every data access takes the slow path. ---
  enum class DebugStop : std::uint8_t { kNone, kSoftwareBreakpoint, kHardwareBreakpoint, kWatchWrite, kWatchRead, kWatchAccess };
  enum class Watch : std::uint8_t { kWrite = 1, kRead = 2, kAccess = 3 };  // bit 0 write, bit 1 read
  // Set while stopped (they take effect before the next instruction).
  void insert_breakpoint(std::uint64_t address, bool hardware);
  bool remove_breakpoint(std::uint64_t address);
  void insert_watchpoint(std::uint64_t address, std::uint64_t size, Watch kind);
  bool remove_watchpoint(std::uint64_t address, std::uint64_t size, Watch kind);
  void remove_debug_points();
  // Why run() returned early: a breakpoint at pc (not executed) or a watched
  // access by the instruction at pc (not executed: it runs again on resume).
  DebugStop debug_stop() const { return debug_stop_; }
  std::uint64_t debug_stop_address() const { return debug_stop_address_; }
  // Clears the stop; the instruction at pc then runs once without stopping
  // on its own breakpoint or watchpoint.
  void resume_from_debug_stop();
  // Instructions executed, including those that trapped.
  std::uint64_t executed() const { return executed_; }
  // CSR access for debuggers: as in machine mode, fcsr/fflags/frm even while mstatus.FS is Off.
  bool debug_csr_read(std::uint16_t csr, std::uint64_t& value);
  bool debug_csr_write(std::uint16_t csr, std::uint64_t value);

 private:
  static constexpr unsigned kPageBits = 12;
  static constexpr std::uint64_t kPageSize = 1ull << kPageBits;
  static constexpr unsigned kSlotsPerPage = kPageSize / 2;
  // Decoded instructions of one 4 KiB page, one slot per 2-byte position.
  struct DecodedPage {
    DecodedInstruction slots[kSlotsPerPage];
  };
  static constexpr unsigned kCodeFilterBits = 16;

  DecodedInstruction* decoded_at(std::uint64_t address) {
    std::uint64_t page = address >> kPageBits;
    if (page == current_page_number_) return &current_page_->slots[(address & (kPageSize - 1)) >> 1];
    return decoded_at_slow(address);
  }
  DecodedInstruction* decoded_at_slow(std::uint64_t address);
  static void decode_on_first_use(Hart& hart, const DecodedInstruction& instruction);
  static DecodedInstruction undecoded_slot();  // decodes itself when first executed
  // The execute function of a slot holding a breakpoint.
  static void execute_breakpoint(Hart& hart, const DecodedInstruction& instruction);
  // The execute function of a slot watched by an execute trigger (Sdtrig).
  static void execute_trigger(Hart& hart, const DecodedInstruction& instruction);
  void install_trigger(DecodedInstruction& slot, std::uint64_t address);
  // Recomputes which accesses need checks (PMP for the current privilege,
  // data triggers, watchpoints); the fast paths are off while any is needed.
  void update_access_checks();
  // Watchpoints, data triggers and PMP for a data access; false when the
  // access must not happen (a stop, or the trap has been raised).
  bool data_access_permitted(std::uint64_t address, unsigned size, bool write, TrapCause fault);
  // The interpreter loop while instruction fetches need PMP checks.
  void run_fetch_checked_batch();
  bool fetch_permitted(std::uint64_t address) {
    return pmp_.allows(address, 2, PhysicalMemoryProtection::kExecute, privilege_ == Privilege::kUser);
  }
  void install_breakpoint(DecodedInstruction& slot, std::uint64_t address);
  // A data access to a watched range: records the stop; true = abort the instruction.
  bool watch_hit(std::uint64_t address, unsigned size, bool write);
  bool resuming_at_pc() const { return pc == resume_pc_ && executed_ == resume_executed_; }
  // Marks a page in the store filter: stores there may rewrite decoded code.
  void flag_code_page(std::uint64_t page_number);
  void decode_into(DecodedInstruction& slot, std::uint64_t address);
  // On failure, `fault_address` is the halfword that could not be fetched.
  bool fetch_raw(std::uint64_t address, std::uint32_t& raw, unsigned& length, std::uint64_t& fault_address);
  void note_store(std::uint64_t address);
  void invalidate_code_pages();
  void service_pending();
  void run_traced_batch();  // instruction_trace.cpp
  void take_interrupt_if_pending();
  void enter_trap(std::uint64_t mcause, std::uint64_t tval);
  std::string describe_trap(std::uint64_t mcause, std::uint64_t epc, std::uint64_t tval);
  std::uint64_t counter_value(int which) const;
  void set_counter(int which, std::uint64_t value);

  bool prepare_atomic_slow(std::uint64_t address);
  void synchronise_slow(DataCache::Sync kind);
  template <typename T> bool load_slow(std::uint64_t address, T& value, TrapCause fault);
  template <typename T> bool store_slow(std::uint64_t address, T value);
  const MemoryWindow* find_window(std::uint64_t address, bool write);
  bool overlaps_data_cache(const MemoryWindow& window) const {
    return data_cache_ && window.start < data_cache_start_ + data_cache_size_ &&
           data_cache_start_ < window.start + window.size;
  }

  // Hot state first.
  std::uint64_t cycles_ = 0;
  std::uint64_t budget_ = 0;
  bool break_requested_ = false;  // request_break() since run() began
  std::uint64_t executed_ = 0;
  std::uint64_t current_page_number_ = ~0ull;
  DecodedPage* current_page_ = nullptr;
  MemoryWindow read_window_, write_window_;
  std::vector<std::uint64_t> code_filter_;
  bool allow_misaligned_ = false;
  // Data accesses need the checks of data_access_permitted (only the slow
  // path looks: no fast-path window is kept while this is set).
  bool data_checks_ = false;
  bool pmp_fetch_checks_ = false, pmp_data_checks_ = false;

 public:
  // F/D registers. A single-precision value is NaN-boxed: it sits in the low
  // 32 bits with the upper 32 bits all ones (isa_float.cpp). Declared here so
  // that they do not push the hot state away from x and pc.
  std::uint64_t f[32] = {};

 private:

  // Architectural state.
  std::uint64_t hart_id_;
  Privilege privilege_ = Privilege::kMachine;
  std::uint64_t misa_ = 0, mstatus_ = 0, mtvec_ = 0, mscratch_ = 0, mepc_ = 0, mcause_ = 0,
                mtval_ = 0, mie_ = 0, mip_ = 0, mcounteren_ = 0, mcountinhibit_ = 0;
  // mcycle/minstret = raw count + offset (writes move the offset); frozen while inhibited.
  std::uint64_t counter_offset_[2] = {0, 0}, counter_frozen_[2] = {0, 0};
  // A value written to mcycle/minstret, set again once the writing
  // instruction has been counted: the write replaces its increment.
  std::uint64_t counter_written_[2] = {0, 0};
  bool counter_write_pending_[2] = {false, false};
  std::uint8_t fflags_ = 0, frm_ = 0;
  std::uint64_t reservation_ = 0;
  bool reservation_valid_ = false;
  bool waiting_for_interrupt_ = false;
  bool pending_service_ = false;

  // Statistics.
  std::uint64_t exceptions_ = 0, interrupts_ = 0, idle_cycles_ = 0, bus_accesses_ = 0,
                decoded_count_ = 0, code_invalidations_ = 0;

  // Recursive-trap detection: where the last trap went and what it was.
  std::uint64_t last_trap_target_ = ~0ull, last_trap_retired_ = 0, last_trap_cause_ = 0,
                last_trap_epc_ = 0, last_trap_tval_ = 0;

  BusInterface& bus_;
  DataCache* data_cache_ = nullptr;
  std::uint64_t data_cache_start_ = 0, data_cache_size_ = 0;
  Decoder decoder_;
  CycleModel cycle_model_;
  std::vector<IsaExtension*> extensions_;
  std::vector<MemoryWindow> windows_;
  std::unordered_map<std::uint64_t, std::unique_ptr<DecodedPage>> pages_;
  DecodedInstruction uncached_;  // for code outside any window (fetched each time)
  bool pending_code_invalidation_ = false;
  bool flush_requested_ = false;
  std::vector<std::uint64_t> stale_pages_;
  std::function<bool(Hart&)> semihosting_;
  std::function<std::uint64_t(std::uint64_t)> time_source_;
  std::function<void(const std::string&)> fatal_handler_;
  std::function<std::uint64_t(std::uint64_t)> fetch_observer_;
  std::function<bool(std::uint64_t, std::uint64_t)> exception_hook_;
  std::function<std::string(std::uint64_t)> symbolizer_;
  HartTracer* tracer_ = nullptr;
  HartActivityObserver* activity_ = nullptr;
  PhysicalMemoryProtection pmp_;
  DebugTriggers triggers_;
  std::unordered_map<std::uint64_t, DecodedInstruction> triggered_slots_;  // the instructions under execute triggers

  // Debugger state (GdbServer).
  struct Breakpoint {
    DecodedInstruction original;  // the slot as decoded, run when stepping past
    bool hardware;
  };
  struct Watchpoint {
    std::uint64_t start, size;
    Watch kind;
  };
  std::unordered_map<std::uint64_t, Breakpoint> breakpoints_;
  std::vector<Watchpoint> watchpoints_;
  DebugStop debug_stop_ = DebugStop::kNone;
  std::uint64_t debug_stop_address_ = 0;
  std::uint64_t resume_pc_ = ~0ull, resume_executed_ = ~0ull;
};

// ---- inline fast paths ----

template <typename T>
inline bool Hart::load(std::uint64_t address, T& value, TrapCause fault) {
  std::uint64_t offset = address - read_window_.start;
  if (__builtin_expect(offset < read_window_.fast_limit && (address & (sizeof(T) - 1)) == 0, 1)) {
    std::memcpy(&value, read_window_.host + offset, sizeof(T));
    cycles_ += read_window_.read_cycles;
    return true;
  }
  return load_slow(address, value, fault);
}

template <typename T>
inline bool Hart::store(std::uint64_t address, T value) {
  std::uint64_t offset = address - write_window_.start;
  if (__builtin_expect(offset < write_window_.fast_limit && (address & (sizeof(T) - 1)) == 0, 1)) {
    std::memcpy(write_window_.host + offset, &value, sizeof(T));
    cycles_ += write_window_.write_cycles;
    std::uint64_t page = address >> kPageBits;
    if (__builtin_expect((code_filter_[(page >> 6) & ((1u << (kCodeFilterBits - 6)) - 1)] >> (page & 63)) & 1, 0))
      note_store(address);
    return true;
  }
  return store_slow(address, value);
}

}  // namespace npuvp
