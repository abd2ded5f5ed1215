// RiscvCpu: the SystemC/TLM-2.0 face of a Hart. It owns the initiator socket,
// turns DMI grants into the hart's memory windows, runs the hart in batches
// under temporal decoupling (tlm_quantumkeeper), sleeps in WFI until an
// interrupt, and reports statistics. One implementation for every core role;
// roles differ by parameters and plugged-in IsaExtensions.
#pragma once

#include "core/interrupt.h"
#include "core/parameters.h"
#include "core/statistics.h"
#include "cpu/hart.h"
#include "cpu/semihosting.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace npuvp {

class CoreActivity;
class RiscvCpu;

// A debugger attached to cores (GdbServer). The core calls it from its own
// thread at its synchronisation points only, never per instruction; the
// debugger may block there (the whole simulation then waits).
class CoreDebugger {
 public:
  virtual ~CoreDebugger() = default;
  // Before the core's first instruction.
  virtual void core_started(RiscvCpu& cpu, unsigned id) = 0;
  // After each batch of instructions: a breakpoint or watchpoint stop
  // (Hart::debug_stop), a finished single step, or an interrupt from the user.
  virtual void batch_ended(RiscvCpu& cpu, unsigned id) = 0;
};

class RiscvCpu : public sc_core::sc_module, public InterruptTarget, public BusInterface {
 public:
  tlm_utils::simple_initiator_socket<RiscvCpu> socket;

  Parameter<std::uint64_t> hart_id;
  Parameter<double> clock;
  Parameter<std::uint64_t> reset_pc;
  Parameter<bool> allow_misaligned;
  // Physical memory protection: implemented entries (0, 16 or 64) and granularity.
  Parameter<std::uint64_t> pmp_entries, pmp_granularity;
  Parameter<bool> semihosting;
  Parameter<bool> dmi;
  // Temporal decoupling of this core: its own quantum (0: sim.quantum), and
  // whether a batch ends at the next event anybody scheduled (exact timer and
  // device timing) or runs to the quantum boundary (many cores exchanging
  // frequent events, e.g. the mesh cluster, docs/cluster.md).
  Parameter<sc_core::sc_time> quantum;
  Parameter<bool> stop_at_events;
  // Cycle model: cycles per instruction of each class (docs/cpu.md, "Cycle model").
  Parameter<std::uint64_t> cpi_alu, cpi_multiply, cpi_divide, cpi_load, cpi_store, cpi_branch, cpi_jump,
      cpi_csr, cpi_atomic, cpi_fence, cpi_system, cpi_custom, branch_taken_penalty;

  // `default_hart_id` is the default of the `hart_id` parameter (the platform
  // numbers the mesh cluster's harts 0..15); a configured value overrides it.
  // `default_quantum` and `default_stop_at_events` likewise for the platform.
  // `default_allow_misaligned`: QEMU virt performs misaligned loads and stores
  // (the host CPU and the cluster harts do too); the AI Cores' scalar units trap.
  explicit RiscvCpu(sc_core::sc_module_name name, std::uint64_t default_hart_id = 0,
                    sc_core::sc_time default_quantum = sc_core::SC_ZERO_TIME, bool default_stop_at_events = true,
                    bool default_allow_misaligned = true);
  ~RiscvCpu() override;

  Hart& hart() { return *hart_; }
  const Hart& hart() const { return *hart_; }
  sc_core::sc_time cycle_time() const { return period_; }

  // Wiring done by the platform before simulation.
  void add_extension(IsaExtension& extension) { hart_->add_extension(extension); }
  void set_time_source(std::function<std::uint64_t(const sc_core::sc_time&)> source);
  void set_symbolizer(std::function<std::string(std::uint64_t)> symbolizer) {
    hart_->set_symbolizer(std::move(symbolizer));
  }

  // InterruptTarget: `line` is the mip bit (3 MSIP, 7 MTIP, 11 MEIP).
  void set_interrupt(unsigned line, bool level) override;

  // Start at `pc` instead of the reset_pc parameter (a core that boots its
  // own image directly, without the boot ROM). Before simulation only.
  void set_start_pc(std::uint64_t pc) { start_pc_ = pc; }
  // Keep the core in reset for the whole run (a core with nothing to run);
  // release() undoes it before simulation.
  void hold_in_reset() { held_in_reset_ = true; }
  void release() { held_in_reset_ = false; }
  bool held_in_reset() const { return held_in_reset_; }

  // For diagnostics when the simulation runs out of events.
  bool sleeping() const { return sleeping_; }

  // Replaces the default reaction to an unrecoverable guest state (fail the
  // whole simulation), e.g. for a core whose owner reports kernel faults.
  void set_fatal_handler(std::function<void(const std::string&)> handler) {
    hart_->set_fatal_handler(std::move(handler));
  }
  // Blocking in SystemC time on behalf of a plugged-in unit (e.g. an AI Core
  // whose scalar unit waits for a pipe, a flag or its next task): after
  // request_stall(), the current batch ends, local time is synchronised and
  // `service` runs in this core's thread, where it may wait(). Afterwards the
  // core's cycle count catches up with SystemC time (counted as stall cycles).
  void set_stall_service(std::function<void()> service) { stall_service_ = std::move(service); }
  void request_stall() {
    stall_requested_ = true;
    hart_->request_break();
  }
  std::uint64_t stall_cycles() const { return stall_cycles_; }

  // Debugging (before simulation): `debugger` is told about this core's
  // stops as core `id`. While single-stepping, batches are one instruction.
  void set_debugger(CoreDebugger* debugger, unsigned id) {
    debugger_ = debugger;
    debugger_id_ = id;
  }
  void set_single_step(bool on) { single_step_ = on; }

 private:
  class QuantumKeeper : public tlm_utils::tlm_quantumkeeper {
   public:
    sc_core::sc_time next_sync_point() const { return m_next_sync_point; }
    sc_core::sc_time own_quantum = sc_core::SC_ZERO_TIME;  // 0: the global quantum

   protected:
    sc_core::sc_time compute_local_quantum() override {
      if (own_quantum == sc_core::SC_ZERO_TIME) return tlm_utils::tlm_quantumkeeper::compute_local_quantum();
      const sc_core::sc_time now = sc_core::sc_time_stamp();
      return own_quantum - sc_core::sc_time::from_value(now.value() % own_quantum.value());
    }
  };

  void start_of_simulation() override;
  void run();
  void sleep_until_interrupt();
  // --vcd: signal <name>.wfi is 1 while the core sleeps in WFI.
  void record_sleeping(bool asleep);
  int waveform_sleeping_ = -2;  // -2: not asked yet, -1: not selected
  // Reports instructions retired since the last call to the run limits.
  void account_retired();
  sc_core::sc_time local_time() const;
  std::uint64_t cycles_at(const sc_core::sc_time& time) const;
  bool bus_access(Access access, std::uint64_t address, void* data, unsigned size, std::uint64_t& cycles) override;
  bool debug_access(bool write, std::uint64_t address, void* data, std::size_t size) override;
  void request_dmi(std::uint64_t address);
  void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end);

  std::unique_ptr<Hart> hart_;
  sc_core::sc_time period_;
  std::uint64_t period_ps_ = 1000;
  QuantumKeeper quantum_keeper_;
  sc_core::sc_event wake_event_;
  tlm::tlm_generic_payload payload_;  // reused: no allocation per access
  bool sleeping_ = false;
  bool stall_requested_ = false;
  std::optional<std::uint64_t> start_pc_;
  bool held_in_reset_ = false;
  sc_core::sc_time last_delta_yield_ = sc_core::sc_max_time();
  std::function<void()> stall_service_;
  std::uint64_t stall_cycles_ = 0;
  CoreDebugger* debugger_ = nullptr;
  unsigned debugger_id_ = 0;
  bool single_step_ = false;
  void stall();
  std::uint64_t retired_accounted_ = 0;
  std::uint64_t batches_ = 0, dmi_grants_ = 0, dmi_invalidations_ = 0;
  bool serve_semihosting(Hart& hart);
  Semihosting semihosting_service_;
  std::vector<std::unique_ptr<Statistic>> statistics_;
  // --trace: running / trap handler / WFI of a core without a stall service
  // (the AI Cores' scalar units have their pipes' rows instead).
  std::shared_ptr<CoreActivity> activity_;
  void start_activity_trace();
};

}  // namespace npuvp
