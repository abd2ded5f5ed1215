#include "npu/ai_core.h"

#include "core/simulation.h"
#include "core/text.h"
#include "core/timeline.h"
#include "core/waveform.h"

#include <algorithm>
#include <iostream>

namespace npuvp {

using namespace xdavinci;
using sc_core::sc_time;

namespace {
// Bytes moved per data path, for statistics.
enum DataPath : unsigned { kGmToL1, kGmToUb, kUbToGm, kUbToL1, kL1ToL0A, kL1ToL0B, kL0CToUb, kPathCount };
const char* const kPathNames[kPathCount] = {"gm_to_l1", "gm_to_ub", "ub_to_gm", "ub_to_l1",
                                            "l1_to_l0a", "l1_to_l0b", "l0c_to_ub"};
int data_path(Op op) {
  switch (op) {
    case Op::kCopyGmToCbuf:
    case Op::kCopyGmToCbufNd2nz: return kGmToL1;
    case Op::kCopyGmToUbuf: return kGmToUb;
    case Op::kCopyUbufToGm: return kUbToGm;
    case Op::kCopyUbufToCbuf: return kUbToL1;
    case Op::kLoadCbufToCa:
    case Op::kImg2colCbufToCa: return kL1ToL0A;
    case Op::kLoadCbufToCb: return kL1ToL0B;
    case Op::kCopyMatrixCcToUbuf: return kL0CToUb;
    default: return -1;
  }
}
constexpr Pipe kQueuedPipes[5] = {Pipe::kV, Pipe::kM, Pipe::kMte1, Pipe::kMte2, Pipe::kMte3};
}  // namespace

AiCore::AiCore(sc_core::sc_module_name name, unsigned core_id)
    : sc_module(name),
      bus("bus"),
      control("control"),
      l1_size(child_name(*this, "l1_size"), 1 << 20, "bytes", "L1 buffer (input buffer)"),
      l0a_size(child_name(*this, "l0a_size"), 64 << 10, "bytes", "L0A buffer (Cube left operand)"),
      l0b_size(child_name(*this, "l0b_size"), 64 << 10, "bytes", "L0B buffer (Cube right operand)"),
      l0c_size(child_name(*this, "l0c_size"), 256 << 10, "bytes", "L0C buffer (accumulator results)"),
      ub_size(child_name(*this, "ub_size"), 256 << 10, "bytes", "Unified Buffer (output buffer)"),
      local_memory_size(child_name(*this, "local_memory_size"), 64 << 10, "bytes",
                        "scalar unit's private memory (stack) at 0x1_0000_0000"),
      queue_depth(child_name(*this, "queue_depth"), 16, "instructions",
                  "depth of each pipe's instruction queue; the scalar unit stalls when it is full"),
      flag_counter_max(child_name(*this, "flag_counter_max"), 15, "",
                       "largest value of an event-flag counter; a set_flag beyond it is a kernel fault"),
      cube_cycles_per_fractal(child_name(*this, "cube.cycles_per_fractal"), 2, "cycles",
                              "cycles per 16x16x16 f16 (16x32x16 s8) fractal step"),
      cube_startup(child_name(*this, "cube.startup"), 16, "cycles", "Cube pipeline fill per mmad"),
      vector_startup(child_name(*this, "vector.startup"), 8, "cycles", "Vector pipeline fill per instruction"),
      vector_cycles_per_repeat(child_name(*this, "vector.cycles_per_repeat"), 1, "cycles",
                               "cycles per 256-byte repeat (add, mul, compare, select, conversions, ...)"),
      vector_complex_cycles_per_repeat(child_name(*this, "vector.complex_cycles_per_repeat"), 4, "cycles",
                                       "cycles per repeat of div, exp, ln, sqrt, rsqrt, reciprocal"),
      vector_cc_to_ub_bandwidth(child_name(*this, "vector.cc_to_ub_bandwidth"), 128, "bytes/cycle",
                                "L0C -> UB bandwidth (bytes read from L0C)"),
      mte1_latency(child_name(*this, "mte1.latency"), 8, "cycles", "L1 -> L0A/L0B path latency"),
      mte1_bandwidth(child_name(*this, "mte1.bandwidth"), 256, "bytes/cycle", "L1 -> L0A/L0B bandwidth"),
      mte2_latency(child_name(*this, "mte2.latency"), 16, "cycles", "GM -> L1/UB path latency (before the bus)"),
      mte2_bandwidth(child_name(*this, "mte2.bandwidth"), 64, "bytes/cycle", "GM -> L1/UB issue bandwidth"),
      mte3_latency(child_name(*this, "mte3.latency"), 16, "cycles", "UB -> GM/L1 path latency"),
      mte3_bandwidth(child_name(*this, "mte3.bandwidth"), 64, "bytes/cycle", "UB -> GM/L1 bandwidth"),
      mte_max_transaction(child_name(*this, "mte.max_transaction"), 512, "bytes",
                          "largest bus transaction the MTE issues"),
      mte_max_outstanding(child_name(*this, "mte.max_outstanding"), 32, "transactions",
                          "bus transactions of one MTE instruction in flight at once (the next waits for the "
                          "completion of the one this many before it; 0 = no limit)"),
      local_memory_latency(child_name(*this, "local_memory_latency"), 1, "cycles",
                           "scalar access to its private memory and the UB window"),
      icache_size(child_name(*this, "icache.size"), 32 << 10, "bytes", "scalar instruction cache"),
      icache_line(child_name(*this, "icache.line"), 64, "bytes", "instruction-cache line (one fill over the ring)"),
      icache_ways(child_name(*this, "icache.ways"), 4, "", "instruction-cache associativity"),
      scalar("scalar", 0, sc_core::SC_ZERO_TIME, true, /*default_allow_misaligned=*/false),
      scalar_port_("scalar_port"),
      core_id_(core_id),
      extension_(*this),
      flags_(8 * 8 * 8, 0) {
  auto positive = [](const Parameter<std::uint64_t>& parameter) {
    if (parameter.get() == 0) throw ConfigError(parameter.name() + " must be positive");
  };
  for (auto* parameter : {&l1_size, &l0a_size, &l0b_size, &l0c_size, &ub_size, &local_memory_size, &queue_depth,
                          &flag_counter_max, &cube_cycles_per_fractal, &vector_cycles_per_repeat,
                          &vector_complex_cycles_per_repeat, &vector_cc_to_ub_bandwidth, &mte1_bandwidth,
                          &mte2_bandwidth, &mte3_bandwidth, &mte_max_transaction})
    positive(*parameter);
  if (ub_size.get() > 0x100'0000 || local_memory_size.get() > 0x100'0000)
    throw ConfigError(this->name() + std::string(": ub_size and local_memory_size must be at most 16 MiB"));
  if (queue_depth.get() > 4096) throw ConfigError(queue_depth.name() + " must be at most 4096");
  if (mte_max_outstanding.get() > MteUnit::kMaxOutstandingLimit)
    throw ConfigError(mte_max_outstanding.name() + " must be at most " + std::to_string(MteUnit::kMaxOutstandingLimit));

  buffers_ = std::make_unique<LocalBuffers>(l1_size, l0a_size, l0b_size, l0c_size, ub_size);
  local_memory_.assign(local_memory_size, 0);
  cube_ = std::make_unique<CubeUnit>(*buffers_, CubeTiming{cube_cycles_per_fractal, cube_startup});
  vector_ = std::make_unique<VectorUnit>(
      *buffers_, VectorTiming{vector_startup, vector_cycles_per_repeat, vector_complex_cycles_per_repeat,
                              vector_cc_to_ub_bandwidth});
  MteTiming mte_timing;
  mte_timing.mte1 = {mte1_latency, mte1_bandwidth};
  mte_timing.mte2 = {mte2_latency, mte2_bandwidth};
  mte_timing.mte3 = {mte3_latency, mte3_bandwidth};
  mte_timing.max_transaction_bytes = mte_max_transaction;
  mte_timing.max_outstanding = mte_max_outstanding;
  mte_ = std::make_unique<MteUnit>(*buffers_, static_cast<GlobalMemoryPort&>(*this), mte_timing);
  if (icache_line.get() > 256) throw ConfigError(icache_line.name() + " must be at most 256 bytes");
  try {
    icache_ = std::make_unique<InstructionCache>(icache_size, icache_line, icache_ways);
  } catch (const std::invalid_argument& error) {
    throw ConfigError(this->name() + std::string(".icache: ") + error.what());
  }

  for (unsigned i = 0; i < 5; ++i) {
    pipes_[i].pipe = kQueuedPipes[i];
    pipes_[i].ring.resize(queue_depth);
  }

  period_ = scalar.cycle_time();
  period_ps_ = static_cast<std::uint64_t>(period_.value() / sc_time(1, sc_core::SC_PS).value());
  timestamp_period_ps_ = period_ps_;

  // The scalar unit: Xdavinci, its private window, faults become kernel faults.
  scalar.add_extension(extension_);
  scalar.socket.bind(scalar_port_);
  scalar_port_.register_b_transport(this, &AiCore::scalar_b_transport);
  scalar_port_.register_get_direct_mem_ptr(this, &AiCore::scalar_get_dmi);
  scalar_port_.register_transport_dbg(this, &AiCore::scalar_debug);
  bus.register_invalidate_direct_mem_ptr(this, &AiCore::bus_invalidate_dmi);
  control.register_b_transport(this, &AiCore::control_b_transport);
  control.register_transport_dbg(this, &AiCore::control_debug);
  scalar.set_stall_service([this] { scalar_stall_service(); });
  scalar.set_fatal_handler([this](const std::string& message) {
    fault(KernelFaultCause::kScalarTrap, scalar.hart().pc, message);
  });
  scalar.hart().set_exception_hook([this](std::uint64_t cause, std::uint64_t tval) {
    Hart& hart = scalar.hart();
    fault(KernelFaultCause::kScalarTrap, hart.pc,
          trap_cause_name(cause) + " (mtval " + hex(tval) + ")");
    return true;
  });
  scalar.hart().set_fetch_observer([this](std::uint64_t address) -> std::uint64_t {
    std::uint64_t evicted = 0;
    if (address >= kLocalMemoryBase || icache_->access(address, evicted)) return 0;
    if (evicted != InstructionCache::kInvalid) scalar.hart().invalidate_decoded_range(evicted, icache_->line_size());
    // The fill is a real read over the ring: its latency is the miss penalty.
    std::uint8_t line[256];
    std::uint64_t cycles = 0;
    std::uint64_t size = std::min<std::uint64_t>(icache_->line_size(), sizeof line);
    scalar.hart().bus().bus_access(BusInterface::Access::kFetch, icache_->line_of(address), line,
                                   static_cast<unsigned>(size), cycles);
    icache_fill_cycles_ += cycles;
    return cycles;
  });

  bus_payload_.set_byte_enable_ptr(nullptr);

  // Statistics.
  auto add = [this](const std::string& local, const char* unit, const std::string& doc,
                    std::function<double()> value, bool integral = true) {
    statistics_.emplace_back(new DerivedStatistic(child_name(*this, local), unit, doc, std::move(value), integral));
  };
  for (auto& pipe : pipes_) {
    std::string prefix = pipe_short_name(pipe.pipe);
    PipeState* state = &pipe;
    add(prefix + ".instructions", "", "instructions executed by the pipe", [state] { return state->instructions; });
    add(prefix + ".busy_cycles", "cycles", "cycles executing instructions", [state] { return state->busy_cycles; });
    add(prefix + ".stall.flag_wait_cycles", "cycles", "cycles blocked at a wait_flag",
        [state] { return state->flag_wait_cycles; });
    if (pipe.pipe == Pipe::kMte2 || pipe.pipe == Pipe::kMte3)
      add(prefix + ".stall.bus_cycles", "cycles", "cycles beyond the path's own time, waiting for the bus",
          [state] { return state->bus_stall_cycles; });
    add(prefix + ".utilization", "", "busy cycles / kernel cycles", [this, state] {
      return kernel_cycles_total_ ? static_cast<double>(state->busy_cycles) / kernel_cycles_total_ : 0.0;
    }, false);
  }
  add("scalar.stall.queue_full_cycles", "cycles", "scalar unit waiting for space in a pipe queue",
      [this] { return scalar_queue_full_cycles_; });
  add("scalar.stall.flag_wait_cycles", "cycles", "scalar unit blocked at wait_flag(..., PIPE_S, ...)",
      [this] { return scalar_flag_wait_cycles_; });
  add("scalar.stall.barrier_cycles", "cycles", "scalar unit waiting in pipe_barrier / end_kernel",
      [this] { return scalar_barrier_cycles_; });
  add("scalar.stall.icache_cycles", "cycles", "instruction-cache fills over the ring", [this] { return icache_fill_cycles_; });
  add("icache.hits", "", "instruction-cache hits (per decoded instruction)", [this] { return icache_->hits(); });
  add("icache.misses", "", "instruction-cache misses (line fills)", [this] { return icache_->misses(); });
  for (unsigned path = 0; path < kPathCount; ++path)
    add(std::string("bytes.") + kPathNames[path], "bytes", std::string("bytes moved on the ") + kPathNames[path] + " path",
        [this, path] { return path_bytes_[path]; });
  add("cube.macs", "", "useful multiply-accumulates (M*K*N summed over mmad)", [this] { return macs_; });
  add("icache.warm_starts", "", "task blocks started with the previous block's instruction cache (START keep bit)",
      [this] { return warm_starts_; });
  add("cube.mac_utilization", "", "useful MACs / (kernel cycles x peak MACs per cycle of their type)", [this] {
    return kernel_cycles_total_ ? peak_mac_cycles_ / kernel_cycles_total_ : 0.0;
  }, false);
  add("kernel_cycles", "cycles", "cycles from START to the end of each task block, summed",
      [this] { return kernel_cycles_total_; });
  add("blocks_done", "", "task blocks that ended with end_kernel", [this] { return blocks_done_; });
  add("blocks_faulted", "", "task blocks stopped by a kernel fault", [this] { return blocks_faulted_; });

  for (unsigned i = 0; i < 5; ++i)
    sc_core::sc_spawn([this, i] { run_pipe(i); }, sc_core::sc_gen_unique_name("pipe"));
}

AiCore::~AiCore() = default;

void AiCore::set_symbolizer(std::function<std::string(std::uint64_t)> symbolizer) {
  symbolizer_ = symbolizer;
  scalar.set_symbolizer(std::move(symbolizer));
}

void AiCore::start_of_simulation() {
  // The scalar unit sleeps until the first START.
  scalar_wait_ = ScalarWait::kLaunch;
  scalar.request_stall();
}

std::uint64_t AiCore::now_cycles() const {
  std::uint64_t ps = sc_core::sc_time_stamp().value() / sc_time(1, sc_core::SC_PS).value();
  return (ps + period_ps_ - 1) / period_ps_;
}

void AiCore::set_timestamp_clock(const sc_time& period) {
  const auto ps = static_cast<std::uint64_t>(period.value() / sc_time(1, sc_core::SC_PS).value());
  if (ps == 0) throw ConfigError(std::string(name()) + ": the timestamp clock's period must be at least 1 ps");
  timestamp_period_ps_ = ps;
}

// Cycles of the timestamp clock at `time`, rounded up as a core's cycle counter counts
// (RiscvCpu::cycles_at): the task scheduler's `cycle` CSR reads the same number at that time.
std::uint64_t AiCore::timestamp_at(const sc_time& time) const {
  const std::uint64_t ps = time.value() / sc_time(1, sc_core::SC_PS).value();
  return (ps + timestamp_period_ps_ - 1) / timestamp_period_ps_;
}

std::string AiCore::describe_pc(std::uint64_t pc) const {
  return scalar.hart().describe(pc);
}

// ---------------------------------------------------------------- launch

bool AiCore::launch(const Launch& launch, const sc_time& delay) {
  if (outcome_.running || start_pending_) return false;
  next_launch_ = launch;
  dispatched_by_register_ = false;  // control_write sets it for a START write
  start_pending_ = true;
  start_at_ = sc_core::sc_time_stamp() + delay;
  outcome_.running = true;
  outcome_.done = outcome_.faulted = false;
  outcome_.start_timestamp = timestamp_at(start_at_);  // the block starts at the START write's time
  outcome_.end_timestamp = 0;
  start_event_.notify(delay);
  return true;
}

void AiCore::start_block() {
  current_ = next_launch_;
  start_pending_ = false;
  ++generation_;
  std::fill(flags_.begin(), flags_.end(), 0);
  if (Waveform::instance().enabled())
    for (int signal : flag_signals_)
      if (signal >= 0) Waveform::instance().change(signal, sc_core::sc_time_stamp(), 0);
  for (auto& pipe : pipes_) {
    pipe.head = pipe.count = 0;
    waveform_pipe(pipe, pipe.waveform_depth, "queue_depth", 0, kQueueDepthBits);
  }
  vector_mask_[0] = vector_mask_[1] = ~0ull;
  fmatrix_ = cmpmask_ = 0;
  outcome_.cause = KernelFaultCause::kNone;
  outcome_.fault_pc = 0;
  outcome_.message.clear();
  // A new task may come with new code: start from a cold instruction cache, unless the
  // starter vouches that the code was not written since (START's keep bit).
  Hart& hart = scalar.hart();
  if (current_.keep_instruction_cache) {
    ++warm_starts_;
  } else {
    icache_->invalidate_all();
    hart.flush_decode_cache();
  }
  hart.reset(current_.entry);
  hart.x[2] = kLocalMemoryBase + local_memory_.size();  // sp
  hart.x[10] = current_.args;
  hart.x[11] = current_.block_idx;
  hart.x[12] = current_.block_dim;
  block_start_cycle_ = now_cycles();
  block_start_time_ = sc_core::sc_time_stamp();
  for (auto& callback : block_start_callbacks_) callback(*this);
}

AiCore::Activity AiCore::activity() const {
  Activity activity;
  activity.macs = macs_;
  activity.peak_mac_cycles = peak_mac_cycles_;
  activity.cube_busy_cycles = pipes_[static_cast<unsigned>(xdavinci::Pipe::kM) - 1].busy_cycles;
  activity.gm_read_bytes = path_bytes_[kGmToL1] + path_bytes_[kGmToUb];
  activity.gm_write_bytes = path_bytes_[kUbToGm];
  return activity;
}

void AiCore::waveform_pipe(PipeState& pipe, int& signal, const char* what, std::uint64_t value, unsigned width) {
  Waveform& waveform = Waveform::instance();
  if (!waveform.enabled()) return;
  if (signal == -2)
    signal = waveform.signal(std::string(name()) + ".pipe." + pipe_short_name(pipe.pipe) + "." + what, width);
  waveform.change(signal, sc_core::sc_time_stamp(), value);
}

void AiCore::waveform_flag(unsigned src, unsigned dst, unsigned event) {
  Waveform& waveform = Waveform::instance();
  if (!waveform.enabled()) return;
  if (flag_signals_.empty()) flag_signals_.assign(flags_.size(), -2);
  int& signal = flag_signals_[(src * 8 + dst) * 8 + event];
  if (signal == -2)
    signal = waveform.signal(std::string(name()) + ".flag." + pipe_short_name(static_cast<Pipe>(src)) + "_to_" +
                                 pipe_short_name(static_cast<Pipe>(dst)) + ".event" + std::to_string(event),
                             4);
  waveform.change(signal, sc_core::sc_time_stamp(), flag(src, dst, event));
}

int AiCore::pipe_track(PipeState& pipe) {
  if (pipe.timeline_track < 0) {
    static const char* const kRows[] = {"scalar (S)", "V (Vector)", "M (Cube)", "MTE1 (L1 -> L0A/L0B)",
                                        "MTE2 (GM -> L1/UB)", "MTE3 (UB -> GM)", "all"};
    const unsigned index = static_cast<unsigned>(pipe.pipe);
    pipe.timeline_track = Timeline::instance().track(name(), index < 7 ? kRows[index] : pipe_name(pipe.pipe));
  }
  return pipe.timeline_track;
}

void AiCore::finish_block() {
  outcome_.running = false;
  outcome_.kernel_cycles = now_cycles() - block_start_cycle_;
  outcome_.end_timestamp = timestamp_at(sc_core::sc_time_stamp());
  kernel_cycles_total_ += outcome_.kernel_cycles;
  ++outcome_.kernels;
  if (outcome_.faulted) {
    ++blocks_faulted_;
    error_interrupt.set(true);
  } else {
    outcome_.done = true;
    ++blocks_done_;
    done_interrupt.set(true);
  }
  Timeline& timeline = Timeline::instance();
  if (timeline.enabled()) {
    if (block_track_ < 0) block_track_ = timeline.track(name(), "task blocks");
    const std::string block = "block " + std::to_string(current_.block_idx) + "/" + std::to_string(current_.block_dim);
    timeline.slice(block_track_, block, block_start_time_, sc_core::sc_time_stamp(),
                   {{"entry", Timeline::hex(current_.entry)},
                    {"cycles", std::to_string(outcome_.kernel_cycles)},
                    {"outcome", Timeline::quoted(outcome_.faulted ? "fault: " + outcome_.message : "done")}});
    if (dispatched_by_register_) {
      // The task scheduler's view: from its START write to the done/error
      // interrupt this raises, with an arrow to the block on this core.
      if (dispatch_track_ < 0) dispatch_track_ = timeline.track("task scheduler", name());
      const char* status = outcome_.faulted ? "error" : "done";
      timeline.slice(dispatch_track_, block, start_at_, sc_core::sc_time_stamp(),
                     {{"core", Timeline::quoted(name())},
                      {"block_idx", std::to_string(current_.block_idx)},
                      {"block_dim", std::to_string(current_.block_dim)},
                      {"entry", Timeline::hex(current_.entry)},
                      {"args", Timeline::hex(current_.args)},
                      {"status", Timeline::quoted(status)}});
      timeline.instant(dispatch_track_, std::string(status) + " irq", sc_core::sc_time_stamp(),
                       {{"core", Timeline::quoted(name())}, {"block_idx", std::to_string(current_.block_idx)}});
      timeline.flow("dispatch", dispatch_track_, start_at_, block_track_, block_start_time_);
    }
  }
  for (auto& callback : block_end_callbacks_) callback(*this);
}

void AiCore::fault(KernelFaultCause cause, std::uint64_t pc, const std::string& message) {
  if (!outcome_.running || outcome_.faulted) return;
  outcome_.faulted = true;
  outcome_.cause = cause;
  outcome_.fault_pc = pc;
  outcome_.message = std::string(name()) + ": kernel fault (" + kernel_fault_cause_name(cause) + ") at pc " +
                     describe_pc(pc) + ": " + message;
  std::cerr << "npuvp: " << outcome_.message << "\n";
  // Drop everything queued; pipes notice the new generation and stop.
  ++generation_;
  for (auto& pipe : pipes_) {
    pipe.head = pipe.count = 0;
    pipe.waiting_flag = false;
    waveform_pipe(pipe, pipe.waveform_depth, "queue_depth", 0, kQueueDepthBits);
  }
  space_event_.notify();
  flag_event_.notify();
  abort_event_.notify();
  scalar_wait_ = ScalarWait::kLaunch;
  scalar.request_stall();
  scalar_wake_.notify();
  finish_block();
}

// ---------------------------------------------------------------- scalar side

bool AiCore::read_special(std::uint16_t csr, std::uint64_t& value) {
  switch (csr) {
    case kCsrCoreId: value = core_id_; return true;
    case kCsrBlockIdx: value = current_.block_idx; return true;
    case kCsrBlockDim: value = current_.block_dim; return true;
    case kCsrStatus:
      value = (outcome_.running ? kStatusRunning : 0) | (static_cast<std::uint64_t>(outcome_.cause) << kStatusCauseShift);
      return true;
    default: return false;
  }
}

bool AiCore::check_sync_operands(unsigned src, unsigned dst, unsigned event, std::uint64_t pc, bool flag_op) {
  auto valid = [](unsigned pipe) { return pipe < kPipeCount; };
  std::string problem;
  if (flag_op) {
    if (!valid(src) || !valid(dst)) problem = "unknown pipe";
    else if (src == dst) problem = "source and destination pipe are the same";
  } else if (!valid(src) && src != static_cast<unsigned>(Pipe::kAll)) {
    problem = "unknown pipe " + std::to_string(src);
  }
  if (problem.empty()) return true;
  fault(KernelFaultCause::kInvalidParameter, pc, problem + " (src " + std::to_string(src) + ", dst " +
                                                     std::to_string(dst) + ", event " + std::to_string(event) + ")");
  return false;
}

void AiCore::issue(Hart& hart, Op op, const std::uint64_t registers[4]) {
  const std::uint64_t pc = hart.pc - 4;  // the extension already moved past it
  if (!outcome_.running) return;
  NpuInstruction instruction;
  instruction.op = op;
  instruction.xd = registers[0];
  instruction.xn = registers[1];
  instruction.xm = registers[2];
  instruction.xt = registers[3];
  instruction.pc = pc;
  switch (op) {
    case Op::kSetVectorMask:
      vector_mask_[0] = registers[1];
      vector_mask_[1] = registers[2];
      return;
    case Op::kSetFmatrix: fmatrix_ = registers[1]; return;
    case Op::kSetCmpmask: cmpmask_ = registers[1]; return;
    case Op::kSetFlag:
    case Op::kWaitFlag: {
      unsigned src = sync::src_pipe.get(instruction.xt), dst = sync::dst_pipe.get(instruction.xt),
               event = sync::event.get(instruction.xt);
      if (!check_sync_operands(src, dst, event, pc, true)) return;
      break;
    }
    case Op::kPipeBarrier:
      if (!check_sync_operands(sync::src_pipe.get(instruction.xt), 0, 0, pc, false)) return;
      break;
    default: break;
  }
  instruction.vector_mask[0] = vector_mask_[0];
  instruction.vector_mask[1] = vector_mask_[1];
  instruction.fmatrix = fmatrix_;
  instruction.cmpmask = cmpmask_;
  pending_ = instruction;
  switch (op) {
    case Op::kSetFlag:
    case Op::kWaitFlag: {
      Pipe src = static_cast<Pipe>(sync::src_pipe.get(instruction.xt));
      Pipe dst = static_cast<Pipe>(sync::dst_pipe.get(instruction.xt));
      Pipe executes_on = op == Op::kSetFlag ? src : dst;
      scalar_wait_ = executes_on == Pipe::kS ? ScalarWait::kFlag : ScalarWait::kIssue;
      break;
    }
    case Op::kPipeBarrier: scalar_wait_ = ScalarWait::kBarrier; break;
    case Op::kEndKernel: scalar_wait_ = ScalarWait::kEndKernel; break;
    default: scalar_wait_ = ScalarWait::kIssue; break;
  }
  // Issue happens at the core's own time: end the batch and synchronise.
  scalar.request_stall();
}

// Runs in the scalar unit's thread, time synchronised. Waits as the pending
// action requires; returns when the scalar unit may continue.
void AiCore::scalar_stall_service() {
  const std::uint64_t generation = generation_;
  const sc_time started = sc_core::sc_time_stamp();
  auto cycles_since = [&](const sc_time& from) {
    return static_cast<std::uint64_t>((sc_core::sc_time_stamp() - from) / period_);
  };
  auto aborted = [&] { return generation_ != generation || scalar_wait_ == ScalarWait::kLaunch; };
  ScalarWait wait = scalar_wait_;
  scalar_wait_ = ScalarWait::kNone;
  switch (wait) {
    case ScalarWait::kNone: return;
    case ScalarWait::kLaunch:
      while (!start_pending_) sc_core::wait(start_event_);
      if (start_at_ > sc_core::sc_time_stamp()) sc_core::wait(start_at_ - sc_core::sc_time_stamp());
      start_block();
      return;
    case ScalarWait::kIssue: {
      Pipe pipe_id = pending_.op == Op::kSetFlag   ? static_cast<Pipe>(sync::src_pipe.get(pending_.xt))
                     : pending_.op == Op::kWaitFlag ? static_cast<Pipe>(sync::dst_pipe.get(pending_.xt))
                                                    : spec_of(pending_.op).pipe;
      PipeState& pipe = pipe_state(pipe_id);
      if (pipe.count == pipe.ring.size()) {
        block_scalar(ScalarWait::kIssue, pipe_id);
        while (!aborted() && pipe.count == pipe.ring.size()) sc_core::wait(space_event_ | scalar_wake_);
        scalar_blocked_on_ = ScalarWait::kNone;
        scalar_queue_full_cycles_ += cycles_since(started);
      }
      if (aborted()) break;
      push(pipe, pending_);
      return;
    }
    case ScalarWait::kFlag: {
      unsigned src = sync::src_pipe.get(pending_.xt), dst = sync::dst_pipe.get(pending_.xt),
               event = sync::event.get(pending_.xt);
      std::uint64_t& counter = flag(src, dst, event);
      if (pending_.op == Op::kSetFlag) {  // set by the scalar unit itself
        if (counter >= flag_counter_max) {
          fault(KernelFaultCause::kFlagOverflow, pending_.pc, describe_sync(pending_) + " overflows its counter");
          break;
        }
        ++counter;
        waveform_flag(src, dst, event);
        flag_event_.notify();
        return;
      }
      block_scalar(ScalarWait::kFlag, Pipe::kS);
      while (!aborted() && counter == 0) sc_core::wait(flag_event_ | scalar_wake_);
      scalar_blocked_on_ = ScalarWait::kNone;
      scalar_flag_wait_cycles_ += cycles_since(started);
      if (aborted()) break;
      --counter;
      waveform_flag(src, dst, event);
      return;
    }
    case ScalarWait::kBarrier:
    case ScalarWait::kEndKernel: {
      Pipe which = wait == ScalarWait::kEndKernel ? Pipe::kAll : static_cast<Pipe>(sync::src_pipe.get(pending_.xt));
      if (!pipes_drained(which)) {
        block_scalar(wait, which);
        while (!aborted() && !pipes_drained(which)) sc_core::wait(drained_event_ | scalar_wake_);
        scalar_blocked_on_ = ScalarWait::kNone;
        scalar_barrier_cycles_ += cycles_since(started);
      }
      if (aborted()) break;
      if (wait == ScalarWait::kEndKernel) {
        finish_block();
        scalar_wait_ = ScalarWait::kLaunch;
        scalar.request_stall();
      }
      return;
    }
  }
  // The block was aborted by a fault while we waited: sleep until the next START.
  scalar_wait_ = ScalarWait::kLaunch;
  scalar.request_stall();
}

void AiCore::block_scalar(ScalarWait wait, Pipe pipe) {
  scalar_blocked_on_ = wait;
  blocked_pipe_ = pipe;
  check_deadlock();
}

bool AiCore::pipes_drained(Pipe which) const {
  for (const auto& pipe : pipes_)
    if ((which == Pipe::kAll || pipe.pipe == which) && (pipe.count || pipe.executing)) return false;
  return true;
}

void AiCore::push(PipeState& pipe, const NpuInstruction& instruction) {
  QueuedInstruction& slot = pipe.ring[(pipe.head + pipe.count) % pipe.ring.size()];
  slot.instruction = instruction;
  slot.issue_cycle = now_cycles();
  ++pipe.count;
  waveform_pipe(pipe, pipe.waveform_depth, "queue_depth", pipe.count, kQueueDepthBits);
  pipe.wake.notify();
}

std::string AiCore::describe_sync(const NpuInstruction& instruction) const {
  return std::string(spec_of(instruction.op).intrinsic) + "(" +
         pipe_name(static_cast<Pipe>(sync::src_pipe.get(instruction.xt))) + ", " +
         pipe_name(static_cast<Pipe>(sync::dst_pipe.get(instruction.xt))) + ", EVENT_ID" +
         std::to_string(sync::event.get(instruction.xt)) + ")";
}

// Nothing can move when the scalar unit is blocked on a condition that does
// not hold, no pipe is executing, and every pipe is empty or blocked at a
// wait_flag whose flag is zero: only an executing instruction or the scalar
// unit could ever set a flag, free a queue slot or drain a pipe.
bool AiCore::scalar_can_proceed() {
  switch (scalar_blocked_on_) {
    case ScalarWait::kIssue: return pipe_state(blocked_pipe_).count < pipe_state(blocked_pipe_).ring.size();
    case ScalarWait::kFlag:
      return flag(sync::src_pipe.get(pending_.xt), sync::dst_pipe.get(pending_.xt), sync::event.get(pending_.xt)) != 0;
    case ScalarWait::kBarrier:
    case ScalarWait::kEndKernel: return pipes_drained(blocked_pipe_);
    default: return true;
  }
}

void AiCore::check_deadlock() {
  if (!outcome_.running || scalar_blocked_on_ == ScalarWait::kNone || scalar_can_proceed()) return;
  const NpuInstruction* blocked_wait = nullptr;
  for (auto& pipe : pipes_) {
    if (pipe.executing) return;
    if (!pipe.count) continue;
    const NpuInstruction& head = pipe.front().instruction;
    if (head.op != Op::kWaitFlag || !pipe.waiting_flag ||
        flag(sync::src_pipe.get(head.xt), sync::dst_pipe.get(head.xt), sync::event.get(head.xt)) != 0)
      return;
    if (!blocked_wait) blocked_wait = &head;
  }
  std::string scalar_state = std::string(spec_of(pending_.op).intrinsic) + " at " + describe_pc(pending_.pc);
  std::string message;
  if (blocked_wait)
    message = describe_sync(*blocked_wait) + " at " + describe_pc(blocked_wait->pc) +
              " can never be satisfied; the scalar unit waits in " + scalar_state;
  else if (pending_.op == Op::kWaitFlag)
    message = describe_sync(pending_) + " on the scalar unit can never be satisfied: every pipe is idle";
  else
    message = "the scalar unit waits in " + scalar_state + " but nothing can progress";
  fault(KernelFaultCause::kDeadlock, blocked_wait ? blocked_wait->pc : pending_.pc, message);
}

// ---------------------------------------------------------------- pipes

void AiCore::run_pipe(unsigned index) {
  PipeState& pipe = pipes_[index];
  for (;;) {
    while (pipe.count == 0) sc_core::wait(pipe.wake);
    const std::uint64_t generation = generation_;
    const NpuInstruction instruction = pipe.front().instruction;
    auto pop = [&] {
      pipe.head = (pipe.head + 1) % pipe.ring.size();
      --pipe.count;
      waveform_pipe(pipe, pipe.waveform_depth, "queue_depth", pipe.count, kQueueDepthBits);
      space_event_.notify();
      if (pipe.count == 0) {
        drained_event_.notify();
        check_deadlock();  // the last runnable pipe may just have gone idle
      }
    };
    if (instruction.op == Op::kWaitFlag) {
      std::uint64_t& counter = flag(sync::src_pipe.get(instruction.xt), sync::dst_pipe.get(instruction.xt),
                                    sync::event.get(instruction.xt));
      if (counter == 0) {
        const sc_time started = sc_core::sc_time_stamp();
        pipe.waiting_flag = true;
        waveform_pipe(pipe, pipe.waveform_waiting, "waiting_flag", 1);
        check_deadlock();
        while (generation == generation_ && counter == 0) sc_core::wait(flag_event_);
        pipe.waiting_flag = false;
        waveform_pipe(pipe, pipe.waveform_waiting, "waiting_flag", 0);
        pipe.flag_wait_cycles += static_cast<std::uint64_t>((sc_core::sc_time_stamp() - started) / period_);
        if (Timeline::instance().enabled())
          Timeline::instance().slice(pipe_track(pipe), "wait_flag", started, sc_core::sc_time_stamp(),
                                     {{"flag", Timeline::quoted(describe_sync(instruction))},
                                      {"pc", Timeline::hex(instruction.pc)}});
        if (generation != generation_) continue;
      }
      --counter;
      waveform_flag(sync::src_pipe.get(instruction.xt), sync::dst_pipe.get(instruction.xt), sync::event.get(instruction.xt));
      pop();
      continue;
    }
    if (instruction.op == Op::kSetFlag) {
      std::uint64_t& counter = flag(sync::src_pipe.get(instruction.xt), sync::dst_pipe.get(instruction.xt),
                                    sync::event.get(instruction.xt));
      if (counter >= flag_counter_max) {
        fault(KernelFaultCause::kFlagOverflow, instruction.pc, describe_sync(instruction) + " overflows its counter");
        continue;
      }
      ++counter;
      waveform_flag(sync::src_pipe.get(instruction.xt), sync::dst_pipe.get(instruction.xt), sync::event.get(instruction.xt));
      flag_event_.notify();
      pop();
      continue;
    }
    // A data instruction: compute now, occupy the pipe for its cycles.
    pipe.executing = true;
    UnitResult result;
    std::uint64_t start = now_cycles();
    try {
      switch (pipe.pipe) {
        case Pipe::kM: result = cube_->execute(instruction); break;
        case Pipe::kV: result = vector_->execute(instruction); break;
        default: result = mte_->execute(instruction, start); break;
      }
    } catch (const KernelFault& error) {
      pipe.executing = false;
      // Name the instruction unless the unit's message already starts with it.
      std::string what = error.what(), op = spec_of(instruction.op).intrinsic;
      fault(error.cause(), instruction.pc, what.rfind(op, 0) == 0 ? what : op + ": " + what);
      continue;
    }
    if (pipe.pipe == Pipe::kMte2 || pipe.pipe == Pipe::kMte3) {
      const MtePath& path = pipe.pipe == Pipe::kMte2 ? MtePath{mte2_latency, mte2_bandwidth}
                                                     : MtePath{mte3_latency, mte3_bandwidth};
      std::uint64_t own = path.latency_cycles + (result.bytes + path.bytes_per_cycle - 1) / path.bytes_per_cycle;
      if (result.cycles > own) pipe.bus_stall_cycles += result.cycles - own;
    }
    // A fault aborts the instruction's remaining time, so a core restarted
    // after a fault does not wait for work that no longer exists.
    const sc_time began = sc_core::sc_time_stamp();
    waveform_pipe(pipe, pipe.waveform_busy, "busy", 1);
    sc_core::wait(period_ * static_cast<double>(result.cycles), abort_event_);
    waveform_pipe(pipe, pipe.waveform_busy, "busy", 0);
    if (Timeline::instance().enabled())
      Timeline::instance().slice(pipe_track(pipe), spec_of(instruction.op).intrinsic, began, sc_core::sc_time_stamp(),
                                 {{"pc", Timeline::hex(instruction.pc)},
                                  {"cycles", std::to_string(result.cycles)},
                                  {"bytes", std::to_string(result.bytes)}});
    pipe.executing = false;
    if (generation != generation_) {  // aborted meanwhile
      drained_event_.notify();
      check_deadlock();
      continue;
    }
    ++pipe.instructions;
    pipe.busy_cycles += result.cycles;
    if (instruction.op == Op::kMmad) {
      macs_ += result.macs;
      // Utilisation counts MAC capacity per type: an s8 step does twice the MACs.
      double peak = cube_->peak_macs_per_cycle(static_cast<DataType>(mmad::type.get(instruction.xt)));
      if (peak > 0) peak_mac_cycles_ += static_cast<double>(result.macs) / peak;
    }
    int path = data_path(instruction.op);
    if (path >= 0) path_bytes_[path] += result.bytes;
    pop();
  }
}

std::uint64_t AiCore::transfer(bool write, std::uint64_t address, std::uint8_t* data, std::uint32_t length,
                               std::uint64_t issue_cycle) {
  bus_payload_.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  bus_payload_.set_address(address);
  bus_payload_.set_data_ptr(data);
  bus_payload_.set_data_length(length);
  bus_payload_.set_streaming_width(length);
  bus_payload_.set_dmi_allowed(false);
  bus_payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_time issue(static_cast<double>(issue_cycle * period_ps_), sc_core::SC_PS);
  sc_time now = sc_core::sc_time_stamp();
  sc_time delay = issue > now ? issue - now : sc_core::SC_ZERO_TIME;
  bus->b_transport(bus_payload_, delay);
  if (!bus_payload_.is_response_ok())
    throw KernelFault(KernelFaultCause::kBusError, std::string(write ? "write to " : "read from ") + hex(address) +
                                                       " (" + std::to_string(length) + " bytes): " +
                                                       bus_payload_.get_response_string());
  std::uint64_t ps = (now + delay).value() / sc_time(1, sc_core::SC_PS).value();
  return (ps + period_ps_ - 1) / period_ps_;
}

// ---------------------------------------------------------------- scalar TLM

std::uint8_t* AiCore::local_pointer(std::uint64_t address, std::uint64_t length, std::uint64_t& window_start,
                                    std::uint64_t& window_size) {
  if (address >= kLocalMemoryBase && address - kLocalMemoryBase < local_memory_.size()) {
    window_start = kLocalMemoryBase;
    window_size = local_memory_.size();
  } else if (address >= kUbWindowBase && address - kUbWindowBase < buffers_->ub.size()) {
    window_start = kUbWindowBase;
    window_size = buffers_->ub.size();
  } else {
    return nullptr;
  }
  if (address - window_start + length > window_size) return nullptr;
  std::uint8_t* base = window_start == kLocalMemoryBase ? local_memory_.data() : buffers_->ub.data();
  return base + (address - window_start);
}

void AiCore::scalar_b_transport(tlm::tlm_generic_payload& payload, sc_time& delay) {
  std::uint64_t start = 0, size = 0;
  std::uint64_t address = payload.get_address();
  bool local_range = address >= kLocalMemoryBase && address < kUbWindowBase + 0x100'0000;
  if (!local_range) {
    bus->b_transport(payload, delay);
    return;
  }
  std::uint8_t* pointer = local_pointer(address, payload.get_data_length(), start, size);
  if (!pointer || payload.get_byte_enable_ptr()) {
    payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (payload.is_read()) std::memcpy(payload.get_data_ptr(), pointer, payload.get_data_length());
  else std::memcpy(pointer, payload.get_data_ptr(), payload.get_data_length());
  delay += period_ * static_cast<double>(local_memory_latency.get());
  payload.set_dmi_allowed(true);
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

bool AiCore::scalar_get_dmi(tlm::tlm_generic_payload& payload, tlm::tlm_dmi& dmi) {
  std::uint64_t start = 0, size = 0;
  std::uint64_t address = payload.get_address();
  if (address < kLocalMemoryBase || address >= kUbWindowBase + 0x100'0000) return bus->get_direct_mem_ptr(payload, dmi);
  std::uint8_t* pointer = local_pointer(address, 1, start, size);
  if (!pointer) return false;
  dmi.set_dmi_ptr(pointer - (address - start));
  dmi.set_start_address(start);
  dmi.set_end_address(start + size - 1);
  dmi.allow_read_write();
  dmi.set_read_latency(period_ * static_cast<double>(local_memory_latency.get()));
  dmi.set_write_latency(period_ * static_cast<double>(local_memory_latency.get()));
  return true;
}

unsigned int AiCore::scalar_debug(tlm::tlm_generic_payload& payload) {
  std::uint64_t start = 0, size = 0;
  std::uint64_t address = payload.get_address();
  if (address < kLocalMemoryBase || address >= kUbWindowBase + 0x100'0000) return bus->transport_dbg(payload);
  std::uint8_t* pointer = local_pointer(address, payload.get_data_length(), start, size);
  if (!pointer) return 0;
  if (payload.is_read()) std::memcpy(payload.get_data_ptr(), pointer, payload.get_data_length());
  else std::memcpy(pointer, payload.get_data_ptr(), payload.get_data_length());
  return payload.get_data_length();
}

void AiCore::bus_invalidate_dmi(sc_dt::uint64 start, sc_dt::uint64 end) {
  scalar_port_->invalidate_direct_mem_ptr(start, end);
}

// ---------------------------------------------------------------- control

bool AiCore::control_read(std::uint64_t offset, std::uint64_t& value) const {
  switch (offset) {
    case kRegEntry: value = next_launch_.entry; return true;
    case kRegArgs: value = next_launch_.args; return true;
    case kRegBlockIdx: value = next_launch_.block_idx; return true;
    case kRegBlockDim: value = next_launch_.block_dim; return true;
    case kRegStart: value = 0; return true;
    case kRegStatus:
      value = (outcome_.running ? kStatusRunning : 0) | (outcome_.done ? kStatusDone : 0) |
              (outcome_.faulted ? kStatusFault : 0) | (static_cast<std::uint64_t>(outcome_.cause) << kStatusCauseShift);
      return true;
    case kRegFaultPc: value = outcome_.fault_pc; return true;
    case kRegCycles: value = outcome_.kernel_cycles; return true;
    case kRegIrqClear: value = 0; return true;
    case kRegCoreId: value = core_id_; return true;
    case kRegBlockStartCycle: value = outcome_.start_timestamp; return true;
    case kRegBlockEndCycle: value = outcome_.end_timestamp; return true;
    default: return false;
  }
}

bool AiCore::control_write(std::uint64_t offset, std::uint64_t value, const sc_time& delay) {
  switch (offset) {
    case kRegEntry: next_launch_.entry = value; return true;
    case kRegArgs: next_launch_.args = value; return true;
    case kRegBlockIdx: next_launch_.block_idx = value; return true;
    case kRegBlockDim: next_launch_.block_dim = value; return true;
    case kRegStart:
      // Ignored while running (STATUS tells).
      if (value & kStartGo) {
        Launch start = next_launch_;
        start.keep_instruction_cache = (value & kStartKeepInstructionCache) != 0;
        if (launch(start, delay)) dispatched_by_register_ = true;
      }
      return true;
    case kRegIrqClear:
      if (value & kIrqClearDone) done_interrupt.set(false);
      if (value & kIrqClearError) error_interrupt.set(false);
      return true;
    default: return false;
  }
}

void AiCore::control_b_transport(tlm::tlm_generic_payload& payload, sc_time& delay) {
  std::uint64_t offset = payload.get_address();
  unsigned length = payload.get_data_length();
  if (length != 8 || offset % 8 || payload.get_byte_enable_ptr()) {
    payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  std::uint64_t value = 0;
  bool ok;
  if (payload.is_read()) {
    ok = control_read(offset, value);
    std::memcpy(payload.get_data_ptr(), &value, 8);
  } else {
    std::memcpy(&value, payload.get_data_ptr(), 8);
    ok = control_write(offset, value, delay);
  }
  delay += period_;
  payload.set_response_status(ok ? tlm::TLM_OK_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

unsigned int AiCore::control_debug(tlm::tlm_generic_payload& payload) {
  std::uint64_t value = 0;
  if (!payload.is_read() || payload.get_data_length() != 8 || !control_read(payload.get_address(), value)) return 0;
  std::memcpy(payload.get_data_ptr(), &value, 8);
  return 8;
}

}  // namespace npuvp
