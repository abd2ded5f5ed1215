// AiCore: one Da Vinci-style AI Core (docs/ai-core.md).
//
// The scalar unit is our RISC-V ISS (RiscvCpu) with the Xdavinci extension. It
// runs the kernel in order; every Xdavinci data instruction is issued, with
// its register values captured, into the FIFO queue of its pipe (MTE1, MTE2,
// MTE3, M = Cube, V = Vector). Each pipe is a SystemC process that executes
// its queue in order: the execution unit computes real results on the local
// buffers and says how many cycles the instruction occupies the pipe. Pipes
// run concurrently and synchronise only through event flags
// (set_flag / wait_flag), pipe barriers and end_kernel, as in the source
// ([davinci] §5.3, docs/references.md): a wait blocks only the waiting pipe
// (docs/ai-core.md, "Event flags").
//
// Bus interface: one initiator socket to the ring carries the scalar unit's
// instruction-cache fills and data accesses and the MTE's global-memory
// transfers. Control registers (a small target window) start task blocks and
// report status; done and error interrupt lines tell the task scheduler.
#pragma once

#include "core/interrupt.h"
#include "core/parameters.h"
#include "core/statistics.h"
#include "cpu/riscv_cpu.h"
#include "npu/cube_unit.h"
#include "mem/instruction_cache.h"
#include "npu/mte_unit.h"
#include "npu/npu_types.h"
#include "npu/vector_unit.h"
#include "npu/xdavinci_extension.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <array>
#include <map>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace npuvp {

class AiCore : public sc_core::sc_module, private XdavinciBackend, private GlobalMemoryPort {
 public:
  // Bus interface unit: everything the core reads or writes outside itself.
  tlm_utils::simple_initiator_socket<AiCore> bus;
  // Control registers (kControlSize bytes), see docs/ai-core.md.
  tlm_utils::simple_target_socket<AiCore> control;
  InterruptLine done_interrupt;   // level: a task block ended normally (cleared by IRQ_CLEAR)
  InterruptLine error_interrupt;  // level: a task block faulted (cleared by IRQ_CLEAR)

  static constexpr std::uint64_t kControlSize = 0x1000;
  // Control register offsets (64-bit registers).
  enum ControlRegister : std::uint64_t {
    kRegEntry = 0x00, kRegArgs = 0x08, kRegBlockIdx = 0x10, kRegBlockDim = 0x18, kRegStart = 0x20,
    kRegStatus = 0x28, kRegFaultPc = 0x30, kRegCycles = 0x38, kRegIrqClear = 0x40, kRegCoreId = 0x48,
    // Timestamps of the current or last task block, in cycles of the timestamp clock since
    // time 0 (set_timestamp_clock): when it started (the START write's time) and when it
    // ended (end_kernel or the fault; 0 from the START write until then). Read-only.
    kRegBlockStartCycle = 0x50, kRegBlockEndCycle = 0x58,
  };
  // STATUS bits; bits 15:8 hold the KernelFaultCause of the last block.
  static constexpr std::uint64_t kStatusRunning = 1, kStatusDone = 2, kStatusFault = 4;
  static constexpr unsigned kStatusCauseShift = 8;
  static constexpr std::uint64_t kStatusCauseMask = 0xff;
  // IRQ_CLEAR bits.
  static constexpr std::uint64_t kIrqClearDone = 1, kIrqClearError = 2;
  // START bits.
  static constexpr std::uint64_t kStartGo = 1, kStartKeepInstructionCache = 2;
  // Private window of the scalar unit: its stack memory and a view of UB.
  static constexpr std::uint64_t kLocalMemoryBase = 0x1'0000'0000ull;
  static constexpr std::uint64_t kUbWindowBase = 0x1'0100'0000ull;

  Parameter<std::uint64_t> l1_size, l0a_size, l0b_size, l0c_size, ub_size, local_memory_size;
  Parameter<std::uint64_t> queue_depth, flag_counter_max;
  Parameter<std::uint64_t> cube_cycles_per_fractal, cube_startup;
  Parameter<std::uint64_t> vector_startup, vector_cycles_per_repeat, vector_complex_cycles_per_repeat,
      vector_cc_to_ub_bandwidth;
  Parameter<std::uint64_t> mte1_latency, mte1_bandwidth, mte2_latency, mte2_bandwidth, mte3_latency,
      mte3_bandwidth, mte_max_transaction, mte_max_outstanding;
  Parameter<std::uint64_t> local_memory_latency, icache_size, icache_line, icache_ways;

  RiscvCpu scalar;

  AiCore(sc_core::sc_module_name name, unsigned core_id);
  ~AiCore() override;

  unsigned core_id() const { return core_id_; }

  // The clock BLOCK_START_CYCLE and BLOCK_END_CYCLE count (default: this core's own). The
  // platform gives every AI Core the task scheduler's, so that the stamps of all cores and
  // the scheduler's cycle counter are one time base whatever the cores' clocks.
  void set_timestamp_clock(const sc_core::sc_time& period);

  // Starts a task block (what a write of 1 to START does). Returns false when
  // the core is still running one.
  struct Launch {
    std::uint64_t entry = 0, args = 0, block_idx = 0, block_dim = 1;
    // Start with the instruction cache (and decoded instructions) of the previous block
    // instead of cold: software asserts the code they hold was not written since (START bit 1).
    bool keep_instruction_cache = false;
  };
  // Starts a task block `delay` after the current SystemC time (the START
  // write's time under temporal decoupling). False while one runs or is pending.
  bool launch(const Launch& launch, const sc_core::sc_time& delay = sc_core::SC_ZERO_TIME);

  struct Outcome {
    bool running = false, done = false, faulted = false;
    KernelFaultCause cause = KernelFaultCause::kNone;
    std::uint64_t fault_pc = 0;
    std::string message;          // one line: what and where
    std::uint64_t kernel_cycles = 0;  // of the last task block
    // The last (or current) task block's timestamps (BLOCK_START_CYCLE, BLOCK_END_CYCLE).
    std::uint64_t start_timestamp = 0, end_timestamp = 0;
    std::uint64_t kernels = 0;        // task blocks finished (done or faulted)
  };
  const Outcome& outcome() const { return outcome_; }
  // Called (in simulation) whenever a task block ends, normally or not.
  void on_block_end(std::function<void(AiCore&)> callback) { block_end_callbacks_.push_back(std::move(callback)); }
  // Called (in simulation) when a task block starts, after current_launch() took its values.
  void on_block_start(std::function<void(AiCore&)> callback) { block_start_callbacks_.push_back(std::move(callback)); }
  // The running (or last) task block's launch values.
  const Launch& current_launch() const { return current_; }

  // Cumulative work since elaboration; a profiler takes differences around a
  // task block to attribute work to the launch that asked for it.
  struct Activity {
    std::uint64_t macs = 0;             // useful multiply-accumulates (cube.macs)
    double peak_mac_cycles = 0;         // cycles those MACs would take at the Cube's peak
    std::uint64_t cube_busy_cycles = 0; // cube.busy_cycles
    std::uint64_t gm_read_bytes = 0;    // MTE2: GM -> L1 and GM -> UB
    std::uint64_t gm_write_bytes = 0;   // MTE3: UB -> GM
  };
  Activity activity() const;

  // Backdoor for tests and scenario checks.
  LocalBuffers& buffers() { return *buffers_; }
  void set_symbolizer(std::function<std::string(std::uint64_t)> symbolizer);

 private:
  struct QueuedInstruction {
    NpuInstruction instruction;
    std::uint64_t issue_cycle = 0;
  };
  struct PipeState {
    xdavinci::Pipe pipe{};
    std::vector<QueuedInstruction> ring;  // bounded FIFO, capacity = queue_depth
    std::size_t head = 0, count = 0;
    bool executing = false;
    bool waiting_flag = false;  // head is a wait_flag whose flag is zero
    sc_core::sc_event wake;      // something was pushed
    // Statistics.
    std::uint64_t instructions = 0, busy_cycles = 0, flag_wait_cycles = 0, bus_stall_cycles = 0;
    int timeline_track = -1;  // --trace: this pipe's row, created on first use
    int waveform_busy = -2, waveform_waiting = -2, waveform_depth = -2;  // --vcd signals (-2: not asked yet, -1: not selected)
    QueuedInstruction& front() { return ring[head]; }
  };
  enum class ScalarWait { kNone, kLaunch, kIssue, kFlag, kBarrier, kEndKernel };

  // XdavinciBackend
  void issue(Hart& hart, xdavinci::Op op, const std::uint64_t registers[4]) override;
  bool read_special(std::uint16_t csr, std::uint64_t& value) override;
  // GlobalMemoryPort
  std::uint64_t transfer(bool write, std::uint64_t address, std::uint8_t* data, std::uint32_t length,
                         std::uint64_t issue_cycle) override;

  void start_of_simulation() override;
  void scalar_stall_service();
  void start_block();
  void finish_block();
  void run_pipe(unsigned index);
  void push(PipeState& pipe, const NpuInstruction& instruction);
  bool pipes_drained(xdavinci::Pipe which) const;
  std::uint64_t& flag(unsigned src, unsigned dst, unsigned event) { return flags_[(src * 8 + dst) * 8 + event]; }
  bool check_sync_operands(unsigned src, unsigned dst, unsigned event, std::uint64_t pc, bool flag_op);
  void fault(KernelFaultCause cause, std::uint64_t pc, const std::string& message);
  void check_deadlock();
  void block_scalar(ScalarWait wait, xdavinci::Pipe pipe);
  bool scalar_can_proceed();
  std::string describe_sync(const NpuInstruction& instruction) const;
  std::string describe_pc(std::uint64_t pc) const;
  std::uint64_t now_cycles() const;
  std::uint64_t timestamp_at(const sc_core::sc_time& time) const;
  void add_path_bytes(const NpuInstruction& instruction, std::uint64_t bytes);

  // Scalar-side TLM: local memory, UB window, else the bus.
  tlm_utils::simple_target_socket<AiCore> scalar_port_;
  void scalar_b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  bool scalar_get_dmi(tlm::tlm_generic_payload& payload, tlm::tlm_dmi& dmi);
  unsigned int scalar_debug(tlm::tlm_generic_payload& payload);
  void bus_invalidate_dmi(sc_dt::uint64 start, sc_dt::uint64 end);
  std::uint8_t* local_pointer(std::uint64_t address, std::uint64_t length, std::uint64_t& window_start,
                              std::uint64_t& window_size);
  // Control registers.
  void control_b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  unsigned int control_debug(tlm::tlm_generic_payload& payload);
  bool control_read(std::uint64_t offset, std::uint64_t& value) const;
  bool control_write(std::uint64_t offset, std::uint64_t value, const sc_core::sc_time& delay);

  unsigned core_id_;
  XdavinciExtension extension_;
  std::unique_ptr<LocalBuffers> buffers_;
  std::vector<std::uint8_t> local_memory_;
  std::unique_ptr<CubeUnit> cube_;
  std::unique_ptr<VectorUnit> vector_;
  std::unique_ptr<MteUnit> mte_;
  std::unique_ptr<InstructionCache> icache_;
  sc_core::sc_time period_;
  std::uint64_t period_ps_ = 1000;
  std::uint64_t timestamp_period_ps_ = 1000;  // the clock of the block timestamps

  std::array<PipeState, 5> pipes_;  // indexed by pipe number - 1 (V, M, MTE1, MTE2, MTE3)
  PipeState& pipe_state(xdavinci::Pipe pipe) { return pipes_[static_cast<unsigned>(pipe) - 1]; }
  std::vector<std::uint64_t> flags_;  // (src, dst, event) counters
  sc_core::sc_event flag_event_, drained_event_, space_event_, scalar_wake_, start_event_, abort_event_;

  // Scalar unit state.
  ScalarWait scalar_wait_ = ScalarWait::kLaunch;
  ScalarWait scalar_blocked_on_ = ScalarWait::kNone;  // what the scalar unit is blocked in
  xdavinci::Pipe blocked_pipe_ = xdavinci::Pipe::kS;
  NpuInstruction pending_;  // the instruction the scalar unit is issuing or waiting on
  std::uint64_t vector_mask_[2] = {~0ull, ~0ull};
  std::uint64_t fmatrix_ = 0, cmpmask_ = 0;
  std::uint64_t generation_ = 0;  // task-block number: pipes drop work of an aborted block

  // Control and status.
  Launch next_launch_, current_;
  bool start_pending_ = false;
  sc_core::sc_time start_at_;  // when the pending block starts
  std::uint64_t block_start_cycle_ = 0;
  sc_core::sc_time block_start_time_;
  int block_track_ = -1;  // --trace: the task blocks' row
  int dispatch_track_ = -1;  // --trace: this core's row of the task scheduler's dispatches
  bool dispatched_by_register_ = false;  // the block was started by a START write (the task scheduler)
  int pipe_track(PipeState& pipe);
  // --vcd: records `value` for the pipe's signal `what` now (creating it on first use).
  void waveform_pipe(PipeState& pipe, int& signal, const char* what, std::uint64_t value, unsigned width = 1);
  static constexpr unsigned kQueueDepthBits = 13;  // queue_depth is at most 4096
  // --vcd: records the event-flag counter (src, dst, event) now.
  void waveform_flag(unsigned src, unsigned dst, unsigned event);
  std::vector<int> flag_signals_;  // per counter: -2 not asked yet, -1 not selected
  Outcome outcome_;
  std::vector<std::function<void(AiCore&)>> block_end_callbacks_, block_start_callbacks_;
  std::function<std::string(std::uint64_t)> symbolizer_;

  tlm::tlm_generic_payload bus_payload_;  // reused for MTE transfers

  // Statistics.
  std::uint64_t scalar_queue_full_cycles_ = 0, scalar_flag_wait_cycles_ = 0, scalar_barrier_cycles_ = 0;
  std::uint64_t kernel_cycles_total_ = 0, macs_ = 0, blocks_done_ = 0, blocks_faulted_ = 0;
  std::uint64_t icache_fill_cycles_ = 0, warm_starts_ = 0;
  double peak_mac_cycles_ = 0;  // cycles the useful MACs would take at the Cube's peak
  std::array<std::uint64_t, 7> path_bytes_{};  // by DataPath
  std::vector<std::unique_ptr<Statistic>> statistics_;
};

}  // namespace npuvp
