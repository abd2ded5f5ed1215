#include "cpu/riscv_cpu.h"

#include "core/simulation.h"
#include "core/text.h"
#include "core/timeline.h"
#include "core/waveform.h"
#include "cpu/core_activity.h"
#include "cpu/instruction_trace.h"

#include <cmath>
#include <sstream>

namespace npuvp {

using sc_core::sc_time;

RiscvCpu::RiscvCpu(sc_core::sc_module_name name, std::uint64_t default_hart_id, sc_time default_quantum,
                   bool default_stop_at_events, bool default_allow_misaligned)
    : sc_module(name),
      socket("socket"),
      hart_id(child_name(*this, "hart_id"), default_hart_id, "", "value of mhartid"),
      clock(child_name(*this, "clock"), 1e9, "Hz", "core clock frequency"),
      reset_pc(child_name(*this, "reset_pc"), 0x1000, "address", "pc after reset (the boot ROM)"),
      allow_misaligned(child_name(*this, "allow_misaligned"), default_allow_misaligned, "",
                       "perform misaligned loads/stores (as QEMU virt) instead of trapping (AMOs and LR/SC always trap)"),
      pmp_entries(child_name(*this, "pmp.entries"), 16, "",
                  "physical memory protection entries: 0, 16 (as QEMU virt) or 64"),
      pmp_granularity(child_name(*this, "pmp.granularity"), 4, "bytes",
                      "smallest PMP region, a power of two (4: as QEMU virt)"),
      semihosting(child_name(*this, "semihosting.enable"), true, "",
                  "serve RISC-V semihosting calls (the slli/ebreak/srai sequence)"),
      dmi(child_name(*this, "dmi"), true, "", "use direct memory interface pointers for fetch and data"),
      quantum(child_name(*this, "quantum"), default_quantum, "time",
              "this core's temporal-decoupling quantum (0 = sim.quantum)"),
      stop_at_events(child_name(*this, "stop_at_events"), default_stop_at_events, "",
                     "end a batch at the next event anybody scheduled (exact timer/device timing); false: run to "
                     "the quantum boundary"),
      cpi_alu(child_name(*this, "cpi.alu"), 1, "cycles", "integer ALU, lui/auipc"),
      cpi_multiply(child_name(*this, "cpi.multiply"), 3, "cycles", "mul, mulh*, mulw"),
      cpi_divide(child_name(*this, "cpi.divide"), 20, "cycles", "div*, rem*"),
      cpi_load(child_name(*this, "cpi.load"), 1, "cycles", "loads, before memory latency"),
      cpi_store(child_name(*this, "cpi.store"), 1, "cycles", "stores, before memory latency"),
      cpi_branch(child_name(*this, "cpi.branch"), 1, "cycles", "conditional branch, not taken"),
      cpi_jump(child_name(*this, "cpi.jump"), 2, "cycles", "jal, jalr"),
      cpi_csr(child_name(*this, "cpi.csr"), 2, "cycles", "CSR instructions"),
      cpi_atomic(child_name(*this, "cpi.atomic"), 4, "cycles", "LR/SC and AMOs, before memory latency"),
      cpi_fence(child_name(*this, "cpi.fence"), 1, "cycles", "fence, fence.i"),
      cpi_system(child_name(*this, "cpi.system"), 2, "cycles", "ecall, ebreak, mret, wfi"),
      cpi_custom(child_name(*this, "cpi.custom"), 1, "cycles", "extension instructions (issue cost)"),
      branch_taken_penalty(child_name(*this, "branch_taken_penalty"), 2, "cycles",
                           "extra cycles of a taken branch"),
      semihosting_service_(child_name(*this, "semihosting")) {
  socket.register_invalidate_direct_mem_ptr(this, &RiscvCpu::invalidate_direct_mem_ptr);
  hart_ = std::make_unique<Hart>(hart_id, *this);

  period_ps_ = clock_period_ps(clock);
  period_ = sc_time(static_cast<double>(period_ps_), sc_core::SC_PS);

  CycleModel model;
  const Parameter<std::uint64_t>* cpis[] = {&cpi_alu, &cpi_multiply, &cpi_divide, &cpi_load,
                                             &cpi_store, &cpi_branch, &cpi_jump, &cpi_csr,
                                             &cpi_atomic, &cpi_fence, &cpi_system, &cpi_custom};
  for (int i = 0; i < static_cast<int>(InstructionClass::kCount); ++i) {
    std::uint64_t value = *cpis[i];
    if (value < 1 || value > 255) throw ConfigError(cpis[i]->name() + " must be between 1 and 255 cycles");
    model.cpi[i] = static_cast<std::uint8_t>(value);
  }
  if (branch_taken_penalty.get() > 255) throw ConfigError(branch_taken_penalty.name() + " must be at most 255");
  // An instruction address: even (the C extension's 2-byte alignment), or the first fetch traps
  // with a cause the hart can never otherwise raise.
  if (reset_pc.get() & 1) {
    std::ostringstream text;
    text << reset_pc.name() << " = 0x" << std::hex << reset_pc.get() << ": an instruction address must be even";
    throw ConfigError(text.str());
  }
  model.branch_taken_penalty = static_cast<std::uint8_t>(branch_taken_penalty.get());
  hart_->set_cycle_model(model);
  hart_->set_allow_misaligned(allow_misaligned);
  if (!hart_->configure_pmp(static_cast<unsigned>(pmp_entries.get()), pmp_granularity.get()))
    throw ConfigError("parameters '" + pmp_entries.name() + "' (" + std::to_string(pmp_entries.get()) + ") and '" +
                      pmp_granularity.name() + "' (" + std::to_string(pmp_granularity.get()) +
                      "): entries must be 0, 16 or 64 and the granularity a power of two of at least 4 bytes");
  hart_->set_fatal_handler([this](const std::string& message) {
    account_retired();
    simulation().fail(ExitStatus::kGuestError, std::string(this->name()) + ": " + message);
  });

  payload_.set_streaming_width(8);
  payload_.set_byte_enable_ptr(nullptr);

  Hart* hart = hart_.get();
  auto add = [this](Statistic* statistic) { statistics_.emplace_back(statistic); };
  auto stat = [&](const char* local, const char* unit, const char* doc, std::function<double()> value) {
    add(new DerivedStatistic(child_name(*this, local), unit, doc, std::move(value), true));
  };
  stat("instructions", "", "instructions retired", [hart] { return hart->retired(); });
  stat("cycles", "cycles", "cycles elapsed (busy + idle)", [hart] { return hart->cycles(); });
  stat("idle_cycles", "cycles", "cycles asleep in WFI", [hart] { return hart->idle_cycles(); });
  stat("exceptions", "", "synchronous traps taken", [hart] { return hart->exceptions(); });
  stat("interrupts", "", "interrupts taken", [hart] { return hart->interrupts_taken(); });
  stat("bus_accesses", "", "loads/stores/fetches that went through b_transport (not DMI)",
       [hart] { return hart->bus_accesses(); });
  stat("decoded_instructions", "", "instructions decoded into the cache", [hart] { return hart->decoded_instructions(); });
  stat("code_invalidations", "", "decoded instructions dropped by stores to code",
       [hart] { return hart->code_invalidations(); });
  stat("batches", "", "interpreter batches (synchronisation points)", [this] { return batches_; });
  stat("dmi_grants", "", "DMI regions granted", [this] { return dmi_grants_; });
  add(new DerivedStatistic(child_name(*this, "ipc"), "", "instructions per busy cycle", [hart] {
    std::uint64_t busy = hart->cycles() - hart->idle_cycles();
    return busy ? static_cast<double>(hart->retired()) / busy : 0.0;
  }));

  SC_HAS_PROCESS(RiscvCpu);
  SC_THREAD(run);
}

RiscvCpu::~RiscvCpu() {
  if (activity_) {
    activity_->finish(hart_->cycles());
    hart_->set_activity_observer(nullptr);
  }
}

void RiscvCpu::start_activity_trace() {
  Timeline& timeline = Timeline::instance();
  if (!timeline.enabled() || held_in_reset_ || stall_service_) return;
  activity_ = std::make_shared<CoreActivity>(name(), period_ps_, hart_->cycles());
  hart_->set_activity_observer(activity_.get());
  // The last slice ends where the core's time is when the trace closes (a
  // core destroyed earlier has finished its slices in its destructor).
  std::weak_ptr<CoreActivity> activity = activity_;
  Hart* hart = hart_.get();
  timeline.on_close([activity, hart] {
    if (auto alive = activity.lock()) alive->finish(hart->cycles());
  });
}

void RiscvCpu::set_time_source(std::function<std::uint64_t(const sc_time&)> source) {
  std::uint64_t period_ps = period_ps_;
  hart_->set_time_source([source = std::move(source), period_ps](std::uint64_t cycles) {
    return source(sc_time(static_cast<double>(cycles * period_ps), sc_core::SC_PS));
  });
}

namespace {
// Semihosting reads its parameter blocks through the hart's debug path.
class HartMemory : public GuestMemory {
 public:
  explicit HartMemory(Hart& hart) : hart_(hart) {}
  bool read(std::uint64_t address, void* data, std::size_t length) override {
    return hart_.debug_read(address, data, length);
  }
  bool write(std::uint64_t address, const void* data, std::size_t length) override {
    return hart_.debug_write(address, data, length);
  }

 private:
  Hart& hart_;
};
}  // namespace

bool RiscvCpu::serve_semihosting(Hart& hart) {
  HartMemory memory(hart);
  auto result = semihosting_service_.call(hart.x[10], hart.x[11], memory, sc_core::sc_time_stamp() + local_time());
  hart.x[10] = result.value;
  if (result.exit) {
    simulation().request_exit(result.exit_code, result.exit_reason);
    hart.request_break();
  }
  return true;
}

void RiscvCpu::start_of_simulation() {
  hart_->reset(start_pc_.value_or(reset_pc));
  if (semihosting) hart_->set_semihosting([this](Hart& hart) { return serve_semihosting(hart); });
  hart_->set_tracer(InstructionTrace::instance().tracer_for(name(), *hart_, period_ps_));  // --itrace
  start_activity_trace();
}

void RiscvCpu::set_interrupt(unsigned line, bool level) {
  hart_->set_interrupt_pending(line, level);
  if (level) wake_event_.notify(sc_core::SC_ZERO_TIME);
}

// Invariant: cycles * period == SystemC time + the local time offset.
sc_time RiscvCpu::local_time() const {
  sc_time now = sc_core::sc_time_stamp();
  sc_time own(static_cast<double>(hart_->cycles() * period_ps_), sc_core::SC_PS);
  return own > now ? own - now : sc_core::SC_ZERO_TIME;
}

std::uint64_t RiscvCpu::cycles_at(const sc_time& time) const {
  std::uint64_t ps = time.value() / sc_time(1, sc_core::SC_PS).value();
  return (ps + period_ps_ - 1) / period_ps_;
}

void RiscvCpu::run() {
  if (held_in_reset_) return;
  quantum_keeper_.own_quantum = quantum;
  quantum_keeper_.reset();
  auto& control = simulation();
  if (debugger_) debugger_->core_started(*this, debugger_id_);
  for (;;) {
    if (stall_requested_) stall();
    if (control.finished()) return;
    quantum_keeper_.set(local_time());
    if (quantum_keeper_.need_sync()) quantum_keeper_.sync();
    // Run to the quantum boundary, but stop at the next event anybody else
    // has scheduled (e.g. a timer deadline), so its effect is seen on time.
    sc_time now = sc_core::sc_time_stamp();
    sc_time quantum_end = quantum_keeper_.next_sync_point();
    sc_time pending = sc_core::sc_time_to_pending_activity();
    bool event_first = stop_at_events && now + pending < quantum_end;
    std::uint64_t limit = cycles_at(event_first ? now + pending : quantum_end);
    if (limit <= hart_->cycles()) {
      // That event is due at or before our local time: let it happen first.
      if (local_time() > sc_core::SC_ZERO_TIME) {
        quantum_keeper_.sync();
        continue;
      }
      bool now_busy = sc_core::sc_pending_activity_at_current_time();
      if (event_first && !now_busy) {
        sc_core::wait(pending);  // due within this cycle
        continue;
      }
      if (now_busy && now != last_delta_yield_) {  // let this time step's other processes run once
        last_delta_yield_ = now;
        sc_core::wait(sc_core::SC_ZERO_TIME);
        continue;
      }
      // Other cores keep this time step busy (they yield to us as we did to
      // them), or the quantum is zero: run to the quantum boundary, at least
      // one instruction, rather than trade delta cycles.
      limit = std::max(cycles_at(quantum_end), hart_->cycles() + 1);
    }
    std::uint64_t remaining = control.instructions_remaining();
    if (limit - hart_->cycles() > remaining) limit = hart_->cycles() + std::max<std::uint64_t>(remaining, 1);
    if (single_step_) limit = hart_->cycles() + 1;  // every instruction costs at least a cycle

    hart_->run(limit);
    ++batches_;
    account_retired();
    if (debugger_) debugger_->batch_ended(*this, debugger_id_);
    if ((batches_ & 63) == 0) control.check_wall_time(name());
    if (control.finished()) return;  // sc_stop() is pending: sc_start returns after this delta
    if (hart_->waiting_for_interrupt()) sleep_until_interrupt();
  }
}

void RiscvCpu::stall() {
  stall_requested_ = false;
  quantum_keeper_.set(local_time());
  quantum_keeper_.sync();
  if (stall_service_) stall_service_();
  std::uint64_t now_cycles = cycles_at(sc_core::sc_time_stamp());
  if (now_cycles > hart_->cycles()) {
    stall_cycles_ += now_cycles - hart_->cycles();
    hart_->add_cycles(now_cycles - hart_->cycles());
  }
  quantum_keeper_.reset();
}

void RiscvCpu::record_sleeping(bool asleep) {
  Waveform& waveform = Waveform::instance();
  if (!waveform.enabled()) return;
  if (waveform_sleeping_ == -2) waveform_sleeping_ = waveform.signal(std::string(name()) + ".wfi", 1);
  waveform.change(waveform_sleeping_, sc_core::sc_time_stamp(), asleep);
}

void RiscvCpu::account_retired() {
  std::uint64_t retired = hart_->retired();
  std::uint64_t delta = retired - retired_accounted_;
  retired_accounted_ = retired;
  simulation().note_time(sc_core::sc_time_stamp() + local_time());
  simulation().account_instructions(delta, name());
}

void RiscvCpu::sleep_until_interrupt() {
  quantum_keeper_.set(local_time());
  quantum_keeper_.sync();
  sleeping_ = true;
  record_sleeping(true);
  if (activity_) activity_->sleep(hart_->cycles());
  while (!hart_->wake_condition()) sc_core::wait(wake_event_);
  sleeping_ = false;
  record_sleeping(false);
  // mcycle keeps counting while the core sleeps: catch up with SystemC time.
  std::uint64_t now_cycles = cycles_at(sc_core::sc_time_stamp());
  if (now_cycles > hart_->cycles()) hart_->add_idle_cycles(now_cycles - hart_->cycles());
  if (activity_) activity_->wake(hart_->cycles());
  hart_->wake();
  quantum_keeper_.reset();
}

bool RiscvCpu::bus_access(Access access, std::uint64_t address, void* data, unsigned size,
                          std::uint64_t& cycles) {
  payload_.set_command(access == Access::kWrite ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  payload_.set_address(address);
  payload_.set_data_ptr(static_cast<unsigned char*>(data));
  payload_.set_data_length(size);
  payload_.set_streaming_width(size);
  payload_.set_dmi_allowed(false);
  payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_time delay = local_time();
  socket->b_transport(payload_, delay);
  std::uint64_t done = cycles_at(sc_core::sc_time_stamp() + delay);
  cycles = done > hart_->cycles() ? done - hart_->cycles() : 0;
  bool ok = payload_.is_response_ok();
  if (ok && dmi && payload_.is_dmi_allowed()) request_dmi(address);
  // A device access may end the run or schedule an event (e.g. a new timer
  // deadline) before the batch's horizon: end the batch so the loop looks.
  hart_->request_break();
  return ok;
}

bool RiscvCpu::debug_access(bool write, std::uint64_t address, void* data, std::size_t size) {
  tlm::tlm_generic_payload payload;
  payload.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  payload.set_address(address);
  payload.set_data_ptr(static_cast<unsigned char*>(data));
  payload.set_data_length(static_cast<unsigned>(size));
  payload.set_streaming_width(static_cast<unsigned>(size));
  return socket->transport_dbg(payload) == size;
}

void RiscvCpu::request_dmi(std::uint64_t address) {
  tlm::tlm_generic_payload payload;
  tlm::tlm_dmi grant;
  payload.set_command(tlm::TLM_READ_COMMAND);
  payload.set_address(address);
  if (!socket->get_direct_mem_ptr(payload, grant)) return;
  MemoryWindow window;
  window.start = grant.get_start_address();
  window.size = grant.get_end_address() - grant.get_start_address() + 1;
  window.host = grant.get_dmi_ptr();
  window.readable = grant.is_read_allowed();
  window.writable = grant.is_write_allowed();
  window.read_cycles = static_cast<std::uint32_t>(cycles_at(grant.get_read_latency()));
  window.write_cycles = static_cast<std::uint32_t>(cycles_at(grant.get_write_latency()));
  hart_->add_window(window);
  ++dmi_grants_;
}

void RiscvCpu::invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) {
  ++dmi_invalidations_;
  hart_->invalidate_windows(start, end);
}

}  // namespace npuvp
