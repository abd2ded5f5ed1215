// The AI Core model through small kernels (sw/kernels/tests): event-flag
// synchronisation and pipe ordering, cycle counts against the timing
// formulas, every kernel-fault class, special registers over several cores
// and blocks, the scalar unit's private memory and UB window, and the
// instruction cache. One KernelRun per TEST (one process each).
//
// Pipe timelines come from PipeTrace, which samples the per-pipe statistics
// every cycle: an instruction's end is the cycle its pipe's instruction count
// goes up, its start is that minus the busy cycles it added.
#include "integration/kernel_harness.h"
#include "cpu/decoder.h"
#include "npu/numerics.h"
#include "npu/xdavinci_extension.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace npuvp {
namespace {

using test_support::KernelRun;
using xdavinci::Op;

constexpr std::uint64_t kGmIn = 0x9000'0000, kGmOut = 0x9100'0000;
constexpr std::uint16_t kHalfOne = 0x3c00;
const sc_core::sc_time kLimit(10, sc_core::SC_MS);  // far beyond any of these kernels

std::uint16_t half(float value) { return numerics::float_to_half(value); }
float from_half(std::uint16_t bits) { return numerics::half_to_float(bits); }

template <typename T> std::vector<T> buffer_values(LocalBuffer& buffer, std::uint64_t offset, std::size_t count) {
  std::vector<T> values(count);
  std::memcpy(values.data(), buffer.data() + offset, count * sizeof(T));
  return values;
}
template <typename T> void fill_buffer(LocalBuffer& buffer, std::uint64_t offset, const std::vector<T>& values) {
  std::memcpy(buffer.data() + offset, values.data(), values.size() * sizeof(T));
}

// Distinct, exactly representable f16 values (small integers and halves).
std::vector<std::uint16_t> halves(std::size_t count, float scale = 0.5f, int modulo = 61) {
  std::vector<std::uint16_t> values(count);
  for (std::size_t i = 0; i < count; ++i)
    values[i] = half(static_cast<float>(static_cast<int>(i % modulo) - 30) * scale);
  return values;
}

// ------------------------------------------------------------------ tracing

class PipeTrace {
 public:
  struct Span {
    std::uint64_t start = 0, end = 0;  // cycles: busy in [start, end)
  };

  explicit PipeTrace(KernelRun& run, unsigned core = 0, std::uint64_t horizon_cycles = 200'000)
      : period_(run.core(core).scalar.cycle_time()) {
    const std::string prefix = std::string(run.core(core).name()) + ".";
    for (const char* pipe : {"vector", "cube", "mte1", "mte2", "mte3"}) {
      Track& track = tracks_[pipe];
      track.instructions = find(prefix + pipe + ".instructions");
      track.busy = find(prefix + pipe + ".busy_cycles");
    }
    sc_core::sc_spawn([this, horizon_cycles] { sample(horizon_cycles); }, "pipe_trace");
  }

  const std::vector<Span>& spans(const std::string& pipe) {
    flush();
    return tracks_.at(pipe).spans;
  }
  // The index-th instruction of `pipe` (a test failure and an empty span if it never ended).
  Span span(const std::string& pipe, std::size_t index) {
    const auto& all = spans(pipe);
    if (index >= all.size()) {
      ADD_FAILURE() << pipe << " instruction " << index << " never ended (" << all.size() << " did)";
      return {};
    }
    return all[index];
  }
  std::string describe() {
    flush();
    std::string text;
    for (const auto& [pipe, track] : tracks_) {
      text += pipe + ":";
      for (const Span& s : track.spans) text += " [" + std::to_string(s.start) + ", " + std::to_string(s.end) + ")";
      text += "\n";
    }
    return text;
  }

 private:
  struct Track {
    const Statistic* instructions = nullptr;
    const Statistic* busy = nullptr;
    double last_instructions = 0, last_busy = 0;
    std::vector<Span> spans;
  };
  static const Statistic* find(const std::string& name) {
    const Statistic* statistic = StatisticsRegistry::instance().find(name);
    if (!statistic) ADD_FAILURE() << "no statistic " << name;
    return statistic;
  }
  static double value(const Statistic* statistic) { return statistic ? statistic->to_json().get<double>() : 0; }

  void sample_at(std::uint64_t cycle) {
    for (auto& [pipe, track] : tracks_) {
      double instructions = value(track.instructions), busy = value(track.busy);
      if (instructions > track.last_instructions) {
        if (instructions - track.last_instructions > 1)
          ADD_FAILURE() << pipe << " ended " << instructions - track.last_instructions << " instructions in cycle "
                        << cycle;
        auto cycles = static_cast<std::uint64_t>(busy - track.last_busy);
        track.spans.push_back({cycle - cycles, cycle});
      }
      track.last_instructions = instructions;
      track.last_busy = busy;
    }
  }
  // Samples half a cycle after every cycle boundary: whatever happened at
  // cycle c is visible in sample c.
  void sample(std::uint64_t horizon) {
    sc_core::wait(period_ / 2);
    for (std::uint64_t cycle = 0; cycle < horizon; ++cycle) {
      sample_at(cycle);
      sc_core::wait(period_);
    }
  }
  // After the run: the simulation stopped in the cycle the last instruction
  // ended, before the next sample.
  void flush() {
    if (flushed_) return;
    flushed_ = true;
    sample_at(static_cast<std::uint64_t>(sc_core::sc_time_stamp() / period_));
  }

  bool flushed_ = false;
  sc_core::sc_time period_;
  std::map<std::string, Track> tracks_;
};

// ------------------------------------------------------------------ helpers

// A control register of an AI Core, read as a debugger would (no side effects).
std::uint64_t control_register(AiCore& core, std::uint64_t offset) {
  tlm::tlm_generic_payload payload;
  std::uint64_t value = 0;
  payload.set_command(tlm::TLM_READ_COMMAND);
  payload.set_address(offset);
  payload.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
  payload.set_data_length(8);
  payload.set_streaming_width(8);
  EXPECT_EQ(core.control.get_base_export()->transport_dbg(payload), 8u) << "control register " << offset;
  return value;
}

// Disassembles the kernel word at `address` with the Xdavinci extension.
class NullBackend : public XdavinciBackend {
 public:
  void issue(Hart&, Op, const std::uint64_t[4]) override {}
  bool read_special(std::uint16_t, std::uint64_t&) override { return false; }
};
std::string disassemble_at(KernelRun& run, std::uint64_t address) {
  static NullBackend backend;
  static XdavinciExtension extension(backend);
  Decoder decoder;
  decoder.add(extension, extension.instructions());
  std::uint32_t word = run.read<std::uint32_t>(address, 1)[0];
  if (Decoder::is_compressed(word)) word &= 0xffff;
  return decoder.disassemble(word, address);
}

std::uint64_t symbol(KernelRun& run, const std::string& name) {
  auto address = run.image().symbol(name);
  EXPECT_TRUE(address.has_value()) << "the kernel has no symbol " << name;
  return address.value_or(0);
}

std::uint64_t stat(KernelRun& run, const std::string& local_name) {
  return static_cast<std::uint64_t>(run.stat("soc.aicore0." + local_name));
}

void expect_done(KernelRun& run, int status) {
  EXPECT_EQ(status, 0) << run.reason();
  AiCore& core = run.core();
  EXPECT_TRUE(core.outcome().done);
  EXPECT_FALSE(core.outcome().faulted) << core.outcome().message;
  EXPECT_EQ(run.stat("soc.aicore0.blocks_done"), 1);
  EXPECT_EQ(control_register(core, AiCore::kRegStatus), AiCore::kStatusDone);
  EXPECT_EQ(control_register(core, AiCore::kRegCycles), core.outcome().kernel_cycles);
  EXPECT_TRUE(core.done_interrupt.level());
  EXPECT_FALSE(core.error_interrupt.level());
}

// ================================================================== sync

TEST(AiCoreCoreSync, WaitBlocksOnlyItsPipe) {
  KernelRun run("tests/sync_wait_blocks_only_its_pipe");
  auto source = halves(16384);
  run.write(kGmIn, source);
  run.set_args({kGmIn});
  LocalBuffers& buffers = run.core().buffers();
  fill_buffer(buffers.l0a, 0, std::vector<std::uint16_t>(32 * 32, kHalfOne));
  fill_buffer(buffers.l0b, 0, std::vector<std::uint16_t>(32 * 32, kHalfOne));
  PipeTrace trace(run);
  expect_done(run, run.run(1, 1, kLimit));

  // V waited for the copy: the vadd saw its data.
  auto sums = buffer_values<std::uint16_t>(buffers.ub, 0x10000, 512);
  for (unsigned i = 0; i < 512; ++i)
    ASSERT_EQ(sums[i], half(2 * from_half(source[i]))) << "vadd element " << i << ": V did not wait for MTE2";
  // The Cube was not held behind V's wait: its result was in L0C when V
  // (released only after the copy) moved L0C to UB.
  auto c = buffer_values<float>(buffers.ub, 0x20000, 32 * 32);
  for (unsigned i = 0; i < c.size(); ++i)
    ASSERT_EQ(c[i], 32.0f) << "C element " << i << ": the mmad had not run when V was released";

  SCOPED_TRACE(trace.describe());
  auto copy = trace.span("mte2", 0), mmad = trace.span("cube", 0), vadd = trace.span("vector", 0);
  EXPECT_GE(copy.end - copy.start, 16u + 512u);
  EXPECT_LT(mmad.end, copy.end) << "the Cube finished only after the copy: it waited with V";
  EXPECT_GE(vadd.start, copy.end) << "V started before MTE2 set the flag";
  EXPECT_EQ(vadd.end - vadd.start, 12u);
  EXPECT_EQ(trace.span("vector", 1).start, vadd.end) << "copy_matrix_cc_to_ubuf follows the vadd at once";
  EXPECT_GE(stat(run, "vector.stall.flag_wait_cycles"), 500u);
  EXPECT_EQ(stat(run, "cube.stall.flag_wait_cycles"), 0u);
  EXPECT_EQ(stat(run, "scalar.stall.flag_wait_cycles"), 0u) << "a wait on V must not block the scalar unit";
}

TEST(AiCoreCoreSync, SetBeforeWaitDoesNotBlock) {
  KernelRun run("tests/sync_set_before_wait");
  LocalBuffers& buffers = run.core().buffers();
  auto source = halves(128);
  fill_buffer(buffers.ub, 0x100, source);
  PipeTrace trace(run);
  expect_done(run, run.run(1, 1, kLimit));
  auto sums = buffer_values<std::uint16_t>(buffers.ub, 0x1000, 128);
  for (unsigned i = 0; i < 128; ++i) ASSERT_EQ(sums[i], half(2 * from_half(source[i]))) << i;
  EXPECT_EQ(stat(run, "vector.stall.flag_wait_cycles"), 0u) << "the flag was already set";
  EXPECT_GT(stat(run, "scalar.stall.barrier_cycles"), 0u) << "pipe_barrier(PIPE_MTE3) waited for the copy";
  SCOPED_TRACE(trace.describe());
  EXPECT_GE(trace.span("vector", 0).start, trace.span("mte3", 0).end);
}

TEST(AiCoreCoreSync, FlagsCountSetsAndTwoWaitsPass) {
  KernelRun run("tests/sync_counters");
  run.set_args({2});
  expect_done(run, run.run(1, 1, kLimit));
  auto values = buffer_values<std::uint16_t>(run.core().buffers().ub, 0x1000, 128);
  for (unsigned i = 0; i < 128; ++i) ASSERT_EQ(values[i], half(2.0f)) << i;
  EXPECT_EQ(stat(run, "vector.instructions"), 2u);
  EXPECT_EQ(stat(run, "vector.stall.flag_wait_cycles"), 0u) << "both sets had executed before the waits";
}

// Checks everything a kernel fault must produce. Returns false (after
// failing) when the run did not even end.
bool expect_fault(KernelRun& run, int status, KernelFaultCause cause, std::uint64_t pc, const std::string& detail) {
  if (status == -1) {
    ADD_FAILURE() << "the kernel was still running at the time limit: the fault did not stop it";
    return false;
  }
  EXPECT_EQ(status, static_cast<int>(ExitStatus::kGuestError)) << run.reason();
  AiCore& core = run.core();
  const AiCore::Outcome& outcome = core.outcome();
  EXPECT_TRUE(outcome.faulted);
  EXPECT_FALSE(outcome.done);
  EXPECT_FALSE(outcome.running);
  EXPECT_EQ(outcome.cause, cause) << kernel_fault_cause_name(outcome.cause) << ": " << outcome.message;
  EXPECT_EQ(outcome.fault_pc, pc) << std::hex << "fault pc 0x" << outcome.fault_pc << ", expected 0x" << pc << ": "
                                  << outcome.message;
  EXPECT_NE(outcome.message.find(core.name()), std::string::npos) << outcome.message;
  EXPECT_NE(outcome.message.find(kernel_fault_cause_name(cause)), std::string::npos) << outcome.message;
  EXPECT_NE(outcome.message.find(detail), std::string::npos) << "'" << detail << "' not in: " << outcome.message;
  EXPECT_NE(run.reason().find(outcome.message), std::string::npos) << "run reason: " << run.reason();
  // Control registers, as the task scheduler sees them.
  std::uint64_t status_register = control_register(core, AiCore::kRegStatus);
  EXPECT_EQ(status_register & 0xff, AiCore::kStatusFault) << std::hex << status_register;
  EXPECT_EQ((status_register >> 8) & 0xff, static_cast<std::uint64_t>(cause)) << std::hex << status_register;
  EXPECT_EQ(control_register(core, AiCore::kRegFaultPc), pc);
  EXPECT_EQ(control_register(core, AiCore::kRegCycles), outcome.kernel_cycles);
  EXPECT_TRUE(core.error_interrupt.level());
  EXPECT_FALSE(core.done_interrupt.level());
  EXPECT_EQ(run.stat("soc.aicore0.blocks_faulted"), 1);
  EXPECT_EQ(run.stat("soc.aicore0.blocks_done"), 0);
  return true;
}

TEST(AiCoreCoreSync, WaitWithoutASetDeadlocks) {
  KernelRun run("tests/sync_counters");
  run.set_args({3});
  int status = run.run(1, 1, kLimit);
  expect_fault(run, status, KernelFaultCause::kDeadlock, symbol(run, "third_wait"), "can never be satisfied");
  EXPECT_EQ(stat(run, "vector.instructions"), 2u) << "the two waits with a set passed";
  auto values = buffer_values<std::uint16_t>(run.core().buffers().ub, 0x1000, 128);
  EXPECT_EQ(values[0], half(2.0f)) << "the vadds after the third wait must not run";
}

TEST(AiCoreCoreSync, ScalarWaitsForFlagFromMte2) {
  KernelRun run("tests/sync_wait_on_scalar");
  std::vector<std::uint64_t> source(2048);
  for (unsigned i = 0; i < source.size(); ++i) source[i] = 0x1111'0000'0000'0000ull + i * 0x1001;
  run.write(kGmIn, source);
  run.set_args({kGmIn, kGmOut});
  PipeTrace trace(run);
  expect_done(run, run.run(1, 1, kLimit));
  auto out = run.read<std::uint64_t>(kGmOut, 2);
  EXPECT_EQ(out[0], source[0]);
  EXPECT_EQ(out[1], source.back()) << "the scalar unit read UB before MTE2 set the flag";
  SCOPED_TRACE(trace.describe());
  auto copy = trace.span("mte2", 0);
  EXPECT_GE(copy.end - copy.start, 16u + 256u);
  std::uint64_t waited = stat(run, "scalar.stall.flag_wait_cycles");
  EXPECT_GE(waited, 200u) << "wait_flag(PIPE_MTE2, PIPE_S) did not block the scalar unit";
  EXPECT_LE(waited, copy.end - copy.start);
}

TEST(AiCoreCoreSync, BarrierOnVectorWaitsForVectorOnly) {
  KernelRun run("tests/sync_barrier_vector_only");
  LocalBuffers& buffers = run.core().buffers();
  auto source = halves(64 * 128);
  fill_buffer(buffers.ub, 0x20000, source);
  run.set_args({kGmOut});
  PipeTrace trace(run);
  expect_done(run, run.run(1, 1, kLimit));
  SCOPED_TRACE(trace.describe());
  auto copy = trace.span("mte3", 0), first = trace.span("vector", 0), second = trace.span("vector", 1);
  EXPECT_EQ(copy.end - copy.start, 16u + 1024u);
  EXPECT_EQ(first.end - first.start, 8u + 64u);
  EXPECT_EQ(second.end - second.start, 9u);
  EXPECT_GE(second.start, first.end) << "vector 2 was issued before the barrier on V released";
  EXPECT_LT(second.start, copy.end) << "pipe_barrier(PIPE_V) waited for MTE3 too";
  // The scalar unit saw vector 1's result after the barrier.
  std::uint64_t word = run.read<std::uint64_t>(kGmOut, 1)[0];
  std::uint64_t expected = 0;
  for (unsigned i = 0; i < 4; ++i)
    expected |= static_cast<std::uint64_t>(half(from_half(source[64 * 128 - 4 + i]) + 1.0f)) << (16 * i);
  EXPECT_EQ(word, expected);
  auto dup = buffer_values<std::uint16_t>(buffers.ub, 0x3f000, 128);
  EXPECT_EQ(dup[127], half(7.0f));
}

// Fig. 3-14 of the reference: in-order issue, parallel pipes, global sync.
TEST(AiCoreCoreSync, Fig3_14FourPipelinesAndGlobalSync) {
  KernelRun run("tests/sync_fig3_14");
  LocalBuffers& buffers = run.core().buffers();
  auto source = halves(255 * 128);
  fill_buffer(buffers.ub, 0x10000, source);
  auto low = halves(32768, 0.25f, 53);
  fill_buffer(buffers.ub, 0, low);
  run.set_args({0});
  PipeTrace trace(run);
  expect_done(run, run.run(1, 1, kLimit));
  SCOPED_TRACE(trace.describe());
  auto vector0 = trace.span("vector", 0), vector1 = trace.span("vector", 1), vector2 = trace.span("vector", 2);
  auto mte0 = trace.span("mte3", 0), mte1 = trace.span("mte3", 1), matrix0 = trace.span("cube", 0);
  // Durations from the formulas.
  EXPECT_EQ(vector0.end - vector0.start, 8u + 255u);
  EXPECT_EQ(mte0.end - mte0.start, 16u + 1024u);
  EXPECT_EQ(matrix0.end - matrix0.start, 16u + 64u * 2u);
  EXPECT_EQ(vector1.end - vector1.start, 8u + 8u);
  EXPECT_EQ(mte1.end - mte1.start, 16u + 128u);
  EXPECT_EQ(vector2.end - vector2.start, 8u + 1u);
  // In-order issue: vector 0, then MTE 0, then matrix 0, close together...
  EXPECT_LE(vector0.start, mte0.start);
  EXPECT_LE(mte0.start, matrix0.start);
  EXPECT_LT(matrix0.start - vector0.start, 150u) << "issue of three instructions took too long";
  // ...then running in parallel.
  EXPECT_LT(matrix0.start, vector0.end);
  EXPECT_LT(matrix0.end, mte0.end);
  // FIFO queues: vector 1 and MTE 1 start as soon as their predecessors end.
  EXPECT_EQ(vector1.start, vector0.end);
  EXPECT_EQ(mte1.start, mte0.end);
  // Global sync: scalar 8 (the issue of vector 2) after matrix 0, vector 1 and MTE 1.
  std::uint64_t all_done = std::max({matrix0.end, vector1.end, mte1.end});
  EXPECT_GE(vector2.start, all_done);
  EXPECT_LT(vector2.start - all_done, 100u) << "the scalar unit resumed late after the barrier";
  EXPECT_GT(stat(run, "scalar.stall.barrier_cycles"), 0u);
  // Results.
  auto v0 = buffer_values<std::uint16_t>(buffers.ub, 0x20000, 255 * 128);
  for (unsigned i = 0; i < v0.size(); i += 97) ASSERT_EQ(v0[i], half(from_half(source[i]) + 1.0f)) << i;
  auto v1 = buffer_values<std::uint16_t>(buffers.ub, 0x30000, 8 * 128);
  for (unsigned i = 0; i < v1.size(); ++i) ASSERT_EQ(v1[i], half(2.0f * from_half(v0[i]))) << i;
  EXPECT_EQ(0, std::memcmp(buffers.l1.data(), buffers.ub.data(), 0x10000)) << "MTE 0";
  EXPECT_EQ(0, std::memcmp(buffers.l1.data() + 0x10000, buffers.ub.data(), 0x2000)) << "MTE 1";
}

TEST(AiCoreCoreSync, InstructionsOfOnePipeRunInOrder) {
  KernelRun run("tests/sync_in_order");
  LocalBuffers& buffers = run.core().buffers();
  auto source = halves(8 * 128);
  fill_buffer(buffers.ub, 0, source);
  std::vector<std::uint8_t> first(2048, 0xa1), second(1024, 0xb2);
  fill_buffer(buffers.ub, 0x6000, first);
  fill_buffer(buffers.ub, 0x7000, second);
  PipeTrace trace(run);
  expect_done(run, run.run(1, 1, kLimit));
  auto x = buffer_values<std::uint16_t>(buffers.ub, 0x2000, 8 * 128);
  auto y = buffer_values<std::uint16_t>(buffers.ub, 0x4000, 8 * 128);
  for (unsigned i = 0; i < y.size(); ++i) {
    ASSERT_EQ(y[i], half(2 * from_half(source[i]))) << "Y element " << i;
    ASSERT_EQ(x[i], half(7.0f)) << "X element " << i;
  }
  auto l1 = buffer_values<std::uint8_t>(buffers.l1, 0x8000, 2048);
  for (unsigned i = 0; i < 2048; ++i) ASSERT_EQ(l1[i], i < 1024 ? 0xb2 : 0xa1) << "L1 byte " << i;
  SCOPED_TRACE(trace.describe());
  ASSERT_EQ(trace.spans("vector").size(), 3u);
  for (unsigned i = 0; i < 3; ++i) EXPECT_EQ(trace.span("vector", i).end - trace.span("vector", i).start, 16u);
  EXPECT_EQ(trace.span("vector", 1).start, trace.span("vector", 0).end);
  EXPECT_EQ(trace.span("vector", 2).start, trace.span("vector", 1).end);
  EXPECT_EQ(trace.span("mte3", 1).start, trace.span("mte3", 0).end);
  EXPECT_EQ(stat(run, "vector.busy_cycles"), 48u);
  EXPECT_EQ(stat(run, "mte3.busy_cycles"), 48u + 32u);
}

TEST(AiCoreCoreSync, FullQueueStallsTheScalarUnit) {
  KernelRun run("tests/sync_queue_full", {{"soc.aicore0.queue_depth", "2"}});
  expect_done(run, run.run(1, 1, kLimit));
  auto values = buffer_values<std::uint16_t>(run.core().buffers().ub, 0x1000, 128);
  for (unsigned i = 0; i < 128; ++i) ASSERT_EQ(values[i], half(32.0f)) << i;
  EXPECT_GT(stat(run, "scalar.stall.queue_full_cycles"), 0u);
  EXPECT_EQ(stat(run, "vector.instructions"), 32u);
  EXPECT_EQ(stat(run, "vector.busy_cycles"), 32u * 9u);
  EXPECT_GE(stat(run, "kernel_cycles"), 32u * 9u);
}

// ================================================================== timing

struct UnitCase {
  std::vector<std::uint64_t> args;
  const char* pipe;
  std::uint64_t cycles;
};

void expect_unit_cycles(const UnitCase& unit, const std::map<std::string, std::string>& parameters = {}) {
  KernelRun run("tests/timing_units", parameters);
  run.set_args(unit.args);
  expect_done(run, run.run(1, 1, kLimit));
  EXPECT_EQ(stat(run, std::string(unit.pipe) + ".instructions"), 1u);
  EXPECT_EQ(stat(run, std::string(unit.pipe) + ".busy_cycles"), unit.cycles);
  for (const char* other : {"vector", "cube", "mte1", "mte2", "mte3"}) {
    if (std::string(other) != unit.pipe) {
      EXPECT_EQ(stat(run, std::string(other) + ".busy_cycles"), 0u) << other;
    }
  }
  EXPECT_GE(stat(run, "kernel_cycles"), unit.cycles);
}

TEST(AiCoreCoreTiming, VaddRepeat4Takes12Cycles) { expect_unit_cycles({{1, 4}, "vector", 8 + 4}); }
TEST(AiCoreCoreTiming, VaddRepeat255Takes263Cycles) { expect_unit_cycles({{1, 255}, "vector", 8 + 255}); }
TEST(AiCoreCoreTiming, VexpRepeat4Takes24Cycles) { expect_unit_cycles({{2, 4}, "vector", 8 + 4 * 4}); }
TEST(AiCoreCoreTiming, VectorTimingFollowsParameters) {
  expect_unit_cycles({{2, 4}, "vector", 3 + 4 * 7},
                     {{"soc.aicore0.vector.startup", "3"}, {"soc.aicore0.vector.complex_cycles_per_repeat", "7"}});
}
TEST(AiCoreCoreTiming, Mmad32x32x32Takes32Cycles) {
  // 2 x 2 x 2 = 8 fractals: 16 + 8 * 2.
  KernelRun run("tests/timing_units");
  run.set_args({3, 32, 32, 32, 0});
  expect_done(run, run.run(1, 1, kLimit));
  EXPECT_EQ(stat(run, "cube.busy_cycles"), 32u);
  EXPECT_EQ(stat(run, "cube.macs"), 32u * 32u * 32u);
}
TEST(AiCoreCoreTiming, MmadPartialFractalsCountWhole) {
  // M = 17 needs 2 fractal rows: 2 x 1 x 1 fractals = 16 + 4.
  expect_unit_cycles({{3, 17, 16, 16, 0}, "cube", 16 + 2 * 2});
}
TEST(AiCoreCoreTiming, MmadS8FractalsAre16x32) {
  // s8: K = 64 is 2 fractals of 32: 1 x 2 x 1 = 16 + 4.
  expect_unit_cycles({{3, 16, 64, 16, 3}, "cube", 16 + 2 * 2});
}
TEST(AiCoreCoreTiming, LocalMte3CopyTakesLatencyPlusBytesOver64) {
  // 3 bursts of 7 blocks = 672 bytes: 16 + ceil(672 / 64) = 16 + 11.
  expect_unit_cycles({{4, 3, 7}, "mte3", 16 + 11});
}
TEST(AiCoreCoreTiming, Mte1LoadTakesLatencyPlusBytesOver256) {
  // 10 fractals = 5120 bytes: 8 + 20.
  expect_unit_cycles({{5, 10}, "mte1", 8 + 20});
}
TEST(AiCoreCoreTiming, CcToUbTakesStartupPlusBytesOver128) {
  // 3 L0C fractals = 3072 bytes: 8 + 24.
  expect_unit_cycles({{6, 3}, "vector", 8 + 24});
}

constexpr std::uint64_t kOverlapMte3 = 16 + 1024, kOverlapVector = 8 + 255, kOverlapCube = 16 + 128;

TEST(AiCoreCoreTiming, IndependentPipesOverlap) {
  KernelRun run("tests/timing_overlap");
  run.set_args({0});
  PipeTrace trace(run);
  expect_done(run, run.run(1, 1, kLimit));
  EXPECT_EQ(stat(run, "mte3.busy_cycles"), kOverlapMte3);
  EXPECT_EQ(stat(run, "vector.busy_cycles"), kOverlapVector);
  EXPECT_EQ(stat(run, "cube.busy_cycles"), kOverlapCube);
  std::uint64_t kernel = stat(run, "kernel_cycles");
  EXPECT_LT(kernel, kOverlapMte3 + kOverlapVector + kOverlapCube);
  EXPECT_GE(kernel, kOverlapMte3);
  SCOPED_TRACE(trace.describe());
  EXPECT_LT(trace.span("vector", 0).start, trace.span("mte3", 0).end);
  EXPECT_LT(trace.span("cube", 0).start, trace.span("mte3", 0).end);
  EXPECT_LE(kernel, trace.span("mte3", 0).end + 200) << "end_kernel took long after the last pipe drained";
}

TEST(AiCoreCoreTiming, PipesChainedByFlagsSerialise) {
  KernelRun run("tests/timing_overlap");
  run.set_args({1});
  PipeTrace trace(run);
  expect_done(run, run.run(1, 1, kLimit));
  std::uint64_t kernel = stat(run, "kernel_cycles");
  EXPECT_GE(kernel, kOverlapMte3 + kOverlapVector + kOverlapCube);
  SCOPED_TRACE(trace.describe());
  EXPECT_EQ(trace.span("vector", 0).start, trace.span("mte3", 0).end);
  EXPECT_EQ(trace.span("cube", 0).start, trace.span("vector", 0).end);
  EXPECT_GT(stat(run, "vector.stall.flag_wait_cycles"), 0u);
  EXPECT_GT(stat(run, "cube.stall.flag_wait_cycles"), 0u);
}

// ================================================================== faults

// Case numbers of sw/kernels/tests/faults.c.
enum FaultCase : std::uint64_t {
  kBufferRange = 1, kMisaligned = 2, kMmadM0 = 3, kVectorRepeat0 = 4, kSetFlagPipe7 = 5, kSetFlagSamePipe = 6,
  kBarrierPipe7 = 7, kWaitNeverSet = 8, kWaitCycle = 9, kScalarWaitNeverSet = 10, kOverflowOnPipe = 11,
  kOverflowOnScalar = 12, kIllegalInstruction = 13, kLoadUnmapped = 14, kBusErrorRead = 15, kBusErrorWrite = 16,
  kLocalMemoryOverrun = 17, kUbWindowOverrun = 18, kSpecialRegisterWrite = 19, kWaitWrongEvent = 20,
  kFaultWhileMte3Copies = 21, kDeadlockOnFullQueue = 22, kScalarRunsOnAfterFault = 23,
};

// Runs fault case `which`; the faulting instruction is at symbol `label`
// and disassembles as `instruction` (its mnemonic or full text).
void expect_fault_case(FaultCase which, const std::string& label, const std::string& instruction,
                       KernelFaultCause cause, const std::string& detail) {
  KernelRun run("tests/faults");
  run.set_args({which});
  std::uint64_t pc = symbol(run, label);
  std::string text = disassemble_at(run, pc);
  EXPECT_EQ(text.rfind(instruction, 0), 0u) << "the instruction at " << label << " is '" << text << "'";
  auto started = std::chrono::steady_clock::now();
  int status = run.run(1, 1, kLimit);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(20));
  expect_fault(run, status, cause, pc, detail);
}

TEST(AiCoreCoreFault, BufferRange) {
  expect_fault_case(kBufferRange, "fault_buffer_range", "xd.vadd", KernelFaultCause::kBufferRange, "leaves UB");
}
TEST(AiCoreCoreFault, MisalignedOperand) {
  expect_fault_case(kMisaligned, "fault_misaligned", "xd.vadd", KernelFaultCause::kMisaligned, "32-byte aligned");
}
TEST(AiCoreCoreFault, MmadWithZeroM) {
  expect_fault_case(kMmadM0, "fault_mmad_m0", "xd.mmad", KernelFaultCause::kInvalidParameter, "M=0");
}
TEST(AiCoreCoreFault, VectorRepeatZero) {
  expect_fault_case(kVectorRepeat0, "fault_vector_repeat0", "xd.vadd", KernelFaultCause::kInvalidParameter,
                    "repeat is 0");
}
TEST(AiCoreCoreFault, SetFlagOnUnknownPipe) {
  expect_fault_case(kSetFlagPipe7, "fault_set_flag_pipe7", "xd.set_flag", KernelFaultCause::kInvalidParameter,
                    "unknown pipe");
}
TEST(AiCoreCoreFault, SetFlagWithSameSourceAndDestination) {
  expect_fault_case(kSetFlagSamePipe, "fault_set_flag_same_pipe", "xd.set_flag PIPE_V, PIPE_V",
                    KernelFaultCause::kInvalidParameter, "same");
}
TEST(AiCoreCoreFault, BarrierOnUnknownPipe) {
  expect_fault_case(kBarrierPipe7, "fault_barrier_pipe7", "xd.pipe_barrier", KernelFaultCause::kInvalidParameter,
                    "unknown pipe 7");
}
TEST(AiCoreCoreFault, WaitThatIsNeverSetDeadlocksOnceOtherPipesAreIdle) {
  KernelRun run("tests/faults");
  run.set_args({kWaitNeverSet});
  std::uint64_t pc = symbol(run, "fault_wait_never_set");
  EXPECT_EQ(disassemble_at(run, pc), "xd.wait_flag PIPE_MTE2, PIPE_V, EVENT_ID0");
  int status = run.run(1, 1, kLimit);
  if (!expect_fault(run, status, KernelFaultCause::kDeadlock, pc, "can never be satisfied")) return;
  // Not reported while MTE3 still ran its copy (it could have set the flag).
  EXPECT_EQ(stat(run, "mte3.instructions"), 1u);
  EXPECT_GE(run.core().outcome().kernel_cycles, 16u + 1024u);
  EXPECT_NE(run.core().outcome().message.find("wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)"), std::string::npos)
      << run.core().outcome().message;
}
TEST(AiCoreCoreFault, WaitCycleBetweenTwoPipesDeadlocks) {
  KernelRun run("tests/faults");
  run.set_args({kWaitCycle});
  std::uint64_t mte2_wait = symbol(run, "fault_cycle_mte2_waits"), v_wait = symbol(run, "fault_cycle_v_waits");
  int status = run.run(1, 1, kLimit);
  ASSERT_NE(status, -1) << "the deadlock was not detected";
  // Either blocked wait is the culprit; report the one the model chose.
  std::uint64_t pc = run.core().outcome().fault_pc == mte2_wait ? mte2_wait : v_wait;
  expect_fault(run, status, KernelFaultCause::kDeadlock, pc, "can never be satisfied");
}
TEST(AiCoreCoreFault, WaitOnAnotherEventDeadlocks) {
  expect_fault_case(kWaitWrongEvent, "fault_wait_wrong_event", "xd.wait_flag PIPE_MTE3, PIPE_V, EVENT_ID2",
                    KernelFaultCause::kDeadlock, "can never be satisfied");
}
TEST(AiCoreCoreFault, ScalarWaitThatIsNeverSetDeadlocks) {
  expect_fault_case(kScalarWaitNeverSet, "fault_scalar_wait", "xd.wait_flag PIPE_MTE2, PIPE_S",
                    KernelFaultCause::kDeadlock, "on the scalar unit can never be satisfied");
}
TEST(AiCoreCoreFault, SixteenthSetOnAPipeOverflows) {
  expect_fault_case(kOverflowOnPipe, "fault_overflow_on_pipe", "xd.set_flag PIPE_MTE3, PIPE_V, EVENT_ID5",
                    KernelFaultCause::kFlagOverflow, "overflows its counter");
}
TEST(AiCoreCoreFault, SixteenthSetOnTheScalarUnitOverflows) {
  expect_fault_case(kOverflowOnScalar, "fault_overflow_on_scalar", "xd.set_flag PIPE_S, PIPE_V, EVENT_ID6",
                    KernelFaultCause::kFlagOverflow, "overflows its counter");
}
TEST(AiCoreCoreFault, FlagCounterMaxIsAParameter) {
  // With flag_counter_max = 3 the 4th of the 16 back-to-back sets overflows:
  // 12 (4-byte) sets before the labelled 16th.
  KernelRun run("tests/faults", {{"soc.aicore0.flag_counter_max", "3"}});
  run.set_args({kOverflowOnPipe});
  std::uint64_t pc = symbol(run, "fault_overflow_on_pipe") - 12 * 4;
  EXPECT_EQ(disassemble_at(run, pc), "xd.set_flag PIPE_MTE3, PIPE_V, EVENT_ID5");
  expect_fault(run, run.run(1, 1, kLimit), KernelFaultCause::kFlagOverflow, pc, "overflows its counter");
}
TEST(AiCoreCoreFault, IllegalInstructionTraps) {
  expect_fault_case(kIllegalInstruction, "fault_illegal_instruction", "unknown", KernelFaultCause::kScalarTrap,
                    "illegal instruction");
}
TEST(AiCoreCoreFault, LoadFromUnmappedAddressTraps) {
  expect_fault_case(kLoadUnmapped, "fault_load_unmapped", "ld t1, 0(t0)", KernelFaultCause::kScalarTrap,
                    "load access fault");
}
TEST(AiCoreCoreFault, StoreBeyondLocalMemoryTraps) {
  expect_fault_case(kLocalMemoryOverrun, "fault_local_memory_overrun", "sd zero, 0(t0)",
                    KernelFaultCause::kScalarTrap, "store/AMO access fault");
}
TEST(AiCoreCoreFault, LoadBeyondUbWindowTraps) {
  expect_fault_case(kUbWindowOverrun, "fault_ub_window_overrun", "ld t1, 0(t0)", KernelFaultCause::kScalarTrap,
                    "load access fault");
}
TEST(AiCoreCoreFault, WriteToSpecialRegisterTraps) {
  expect_fault_case(kSpecialRegisterWrite, "fault_special_register_write", "csrrw", KernelFaultCause::kScalarTrap,
                    "illegal instruction");
}
TEST(AiCoreCoreFault, CopyFromUnmappedGlobalMemoryIsABusError) {
  expect_fault_case(kBusErrorRead, "fault_bus_error_read", "xd.copy_gm_to_ubuf", KernelFaultCause::kBusError,
                    "read from 0x50000000");
}
TEST(AiCoreCoreFault, CopyToUnmappedGlobalMemoryIsABusError) {
  expect_fault_case(kBusErrorWrite, "fault_bus_error_write", "xd.copy_ubuf_to_gm", KernelFaultCause::kBusError,
                    "write to 0x50000000");
}

TEST(AiCoreCoreFault, DeadlockWhileTheScalarUnitWaitsForQueueSpace) {
  KernelRun run("tests/faults", {{"soc.aicore0.queue_depth", "2"}});
  run.set_args({kDeadlockOnFullQueue});
  std::uint64_t pc = symbol(run, "fault_wait_before_full_queue");
  int status = run.run(1, 1, kLimit);
  if (!expect_fault(run, status, KernelFaultCause::kDeadlock, pc, "can never be satisfied")) return;
  EXPECT_NE(run.core().outcome().message.find("the scalar unit waits in vadd"), std::string::npos)
      << run.core().outcome().message;
  EXPECT_EQ(stat(run, "vector.instructions"), 0u);
}

// A fault stops the scalar unit too: it must not run on far beyond the time
// of the fault. The faulting copy waits in the MTE3 queue behind a
// 1040-cycle copy; meanwhile the scalar unit stores its cycle counter to the
// UB window (1-cycle stores) in a loop.
TEST(AiCoreCoreFault, ScalarUnitStopsWhenAQueuedInstructionFaults) {
  KernelRun run("tests/faults");
  constexpr std::uint64_t kScratch = 0x20000;  // in UB
  run.set_args({kScalarRunsOnAfterFault, AiCore::kUbWindowBase + kScratch});
  PipeTrace trace(run);
  std::uint64_t pc = symbol(run, "fault_queued_behind_copy");
  int status = run.run(1, 1, kLimit);
  if (!expect_fault(run, status, KernelFaultCause::kMisaligned, pc, "32-byte aligned")) return;
  auto copy = trace.span("mte3", 0);
  EXPECT_EQ(copy.end - copy.start, 16u + 1024u);
  auto out = buffer_values<std::uint64_t>(run.core().buffers().ub, kScratch, 3);
  ASSERT_GT(out[2], 50u) << "the scalar loop hardly ran while MTE3 copied";
  std::uint64_t ran = out[1] - out[0];
  EXPECT_LE(ran, copy.end - copy.start + 50)
      << "the scalar unit kept executing for " << ran << " cycles (" << out[2]
      << " loop iterations) after issuing an instruction that faulted about " << copy.end - copy.start
      << " cycles later";
  EXPECT_GE(ran + 100, copy.end - copy.start) << "the scalar unit stopped long before the fault";
}

// A block that faults while another pipe is still executing an instruction
// must not leave that pipe "busy" for the next block on the same core: the
// next block (here an empty kernel: just end_kernel) must end.
TEST(AiCoreCoreFault, NextBlockRunsAfterAFaultInterruptedABusyPipe) {
  KernelRun run("tests/faults");
  run.set_args({kFaultWhileMte3Copies, kGmOut});
  AiCore& core = run.core();
  KernelLauncher::Plan plan;
  plan.entry = run.image().entry();
  plan.end_simulation = false;
  KernelLauncher launcher(run.platform(), plan);
  int ended = 0;
  KernelFaultCause first_cause = KernelFaultCause::kNone;
  core.on_block_end([&](AiCore& ended_core) {
    if (++ended == 1) {
      first_cause = ended_core.outcome().cause;
      const std::uint64_t empty_case[2] = {0, 0};
      run.platform().write_memory(memory_map::kKernelArguments, reinterpret_cast<const std::uint8_t*>(empty_case),
                                  sizeof empty_case);
      AiCore::Launch next;
      next.entry = plan.entry;
      next.args = memory_map::kKernelArguments;
      EXPECT_TRUE(ended_core.launch(next));
    } else {
      sc_core::sc_stop();
    }
  });
  sc_core::sc_start(kLimit);
  EXPECT_EQ(first_cause, KernelFaultCause::kMisaligned);
  ASSERT_EQ(ended, 2) << "MODEL BUG: the block launched after the fault never ended (its end_kernel waits for "
                         "MTE3, which was still executing the aborted block's copy; nothing wakes it when that "
                         "copy ends). Outcome: running=" << core.outcome().running;
  EXPECT_TRUE(core.outcome().done);
  EXPECT_FALSE(core.outcome().faulted);
  EXPECT_EQ(run.stat("soc.aicore0.blocks_faulted"), 1);
  EXPECT_EQ(run.stat("soc.aicore0.blocks_done"), 1);
}

// ================================================================== block timestamps

// A control-register access over the core's control socket, as the task scheduler makes
// it: `delay` is the initiator's local time ahead of SystemC time. Returns the response.
tlm::tlm_response_status control_access(AiCore& core, bool write, std::uint64_t offset, std::uint64_t& value,
                                        sc_core::sc_time delay = sc_core::SC_ZERO_TIME) {
  tlm::tlm_generic_payload payload;
  payload.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  payload.set_address(offset);
  payload.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
  payload.set_data_length(8);
  payload.set_streaming_width(8);
  payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  core.control.get_base_export()->b_transport(payload, delay);
  return payload.get_response_status();
}

struct StampedBlock {
  std::uint64_t start_stamp_before = 1, end_stamp_while_running = 1;  // read before START / just after it
  sc_core::sc_time ended;                                              // when the core ended the block
  std::uint64_t start_stamp = 0, end_stamp = 0, cycles = 0;            // read after the end
  std::uint64_t probe_start = 0, probe_end = 0;                        // the kernel's own rdcycle
  tlm::tlm_response_status write_start_stamp = tlm::TLM_OK_RESPONSE, write_end_stamp = tlm::TLM_OK_RESPONSE;
};

// The block_probe kernel (a 2,000-cycle spin) started on AI Core 0 by register writes at
// 1 us of SystemC time, its START write 250 ns ahead (at 1.25 us).
StampedBlock run_stamped_block(KernelRun& run) {
  constexpr std::uint64_t kRecords = kGmOut, kSpin = 2000;
  run.write(kRecords, std::vector<std::uint64_t>(4, 0));
  run.set_args({kRecords, 1, kSpin, 0, 0, 0, 0, 0, 0, 0});
  AiCore& core = run.core();
  StampedBlock block;
  core.on_block_end([&](AiCore&) { block.ended = sc_core::sc_time_stamp(); });
  sc_core::sc_spawn([&] {
    sc_core::wait(1, sc_core::SC_US);
    control_access(core, false, AiCore::kRegBlockStartCycle, block.start_stamp_before);
    std::uint64_t value = run.image().entry();
    EXPECT_EQ(control_access(core, true, AiCore::kRegEntry, value), tlm::TLM_OK_RESPONSE);
    value = memory_map::kKernelArguments;
    EXPECT_EQ(control_access(core, true, AiCore::kRegArgs, value), tlm::TLM_OK_RESPONSE);
    value = AiCore::kStartGo;
    EXPECT_EQ(control_access(core, true, AiCore::kRegStart, value, sc_core::sc_time(250, sc_core::SC_NS)),
              tlm::TLM_OK_RESPONSE);
    control_access(core, false, AiCore::kRegBlockEndCycle, block.end_stamp_while_running);
  });
  sc_core::sc_start(kLimit);
  EXPECT_TRUE(core.outcome().done) << core.outcome().message;
  block.start_stamp = control_register(core, AiCore::kRegBlockStartCycle);
  block.end_stamp = control_register(core, AiCore::kRegBlockEndCycle);
  block.cycles = control_register(core, AiCore::kRegCycles);
  auto record = run.read<std::uint64_t>(kRecords, 4);
  block.probe_start = record[2];
  block.probe_end = record[3];
  std::uint64_t value = 7;
  block.write_start_stamp = control_access(core, true, AiCore::kRegBlockStartCycle, value);
  block.write_end_stamp = control_access(core, true, AiCore::kRegBlockEndCycle, value);
  return block;
}

// BLOCK_START_CYCLE is the START write's time, BLOCK_END_CYCLE the block's end (0 until
// then), in the task scheduler's cycles (here 1 GHz like the core); both are read-only.
TEST(AiCoreCoreTimestamps, StartAndEndStampTheBlockInTheTaskSchedulersCycles) {
  KernelRun run("tests/block_probe");
  const StampedBlock block = run_stamped_block(run);
  EXPECT_EQ(block.start_stamp_before, 0u) << "no block has run yet";
  EXPECT_EQ(block.end_stamp_while_running, 0u) << "the block was still running";
  EXPECT_EQ(block.start_stamp, 1250u) << "START written at 1.25 us, 1 ns cycles";
  const auto ended_ps = static_cast<std::uint64_t>(block.ended / sc_core::sc_time(1, sc_core::SC_PS));
  EXPECT_EQ(block.end_stamp, (ended_ps + 999) / 1000) << "the end's cycle, rounded up";
  EXPECT_EQ(block.end_stamp - block.start_stamp, block.cycles) << "same clock: the stamps span CYCLES";
  // The kernel's own cycle counter runs inside the stamped window.
  EXPECT_GE(block.probe_start, block.start_stamp);
  EXPECT_LE(block.probe_end, block.end_stamp);
  EXPECT_GE(block.probe_end - block.probe_start, 2000u);
  EXPECT_EQ(block.write_start_stamp, tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(block.write_end_stamp, tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

// With the task scheduler at half the AI Core's clock the stamps count its 2 ns cycles (the
// platform gives every core the TS's clock for them); CYCLES stays in the core's 1 ns cycles.
TEST(AiCoreCoreTimestamps, StampsCountTheTaskSchedulersClockNotTheCores) {
  KernelRun run("tests/block_probe", {{"soc.ts.clock", "500MHz"}});
  const StampedBlock block = run_stamped_block(run);
  EXPECT_EQ(block.start_stamp, 625u) << "START written at 1.25 us, 2 ns cycles";
  const auto ended_ps = static_cast<std::uint64_t>(block.ended / sc_core::sc_time(1, sc_core::SC_PS));
  EXPECT_EQ(block.end_stamp, (ended_ps + 1999) / 2000) << "rounded up, as a core's cycle counter";
  EXPECT_GE(block.cycles, 2 * (block.end_stamp - block.start_stamp) - 2);
  EXPECT_LE(block.cycles, 2 * (block.end_stamp - block.start_stamp));
}

// ================================================================== special registers

TEST(AiCoreCoreSpecial, EveryBlockSeesItsIndexOnSeveralCores) {
  constexpr unsigned kCores = 2, kBlocks = 5;
  KernelRun run("tests/special_registers");
  run.write(kGmOut, std::vector<std::uint64_t>(kBlocks * 8 + 8, 0));
  run.set_args({kGmOut, kGmOut + kBlocks * 64});
  int status = run.run(kCores, kBlocks, kLimit);
  EXPECT_EQ(status, 0) << run.reason();
  auto records = run.read<std::uint64_t>(kGmOut, kBlocks * 8);
  std::uint64_t per_core[kCores] = {};
  for (unsigned block = 0; block < kBlocks; ++block) {
    const std::uint64_t* record = &records[block * 8];
    SCOPED_TRACE("block " + std::to_string(block));
    EXPECT_LT(record[0], kCores) << "core_id";
    if (record[0] < kCores) ++per_core[record[0]];
    EXPECT_EQ(record[1], block) << "block_idx";
    EXPECT_EQ(record[2], kBlocks) << "block_dim";
    EXPECT_EQ(record[3], block) << "a1 at entry";
    EXPECT_EQ(record[4], kBlocks) << "a2 at entry";
    EXPECT_EQ(record[5] & 0xff, AiCore::kStatusRunning) << "status CSR while running";
    EXPECT_EQ((record[5] >> 8) & 0xff, 0u) << "no fault cause while running";
    EXPECT_EQ(record[6], 1u) << "the block ran " << record[6] << " times";
  }
  EXPECT_EQ(run.read<std::uint64_t>(kGmOut + kBlocks * 64, 1)[0], kBlocks) << "blocks counted";
  for (unsigned core = 0; core < kCores; ++core) {
    std::string name = "soc.aicore" + std::to_string(core) + ".blocks_done";
    EXPECT_EQ(run.stat(name), per_core[core]) << name;
    EXPECT_GE(per_core[core], 1u) << "core " << core << " ran no block";
  }
}

TEST(AiCoreCoreSpecial, RegistersAtEntryAreZeroExceptTheAbi) {
  // Two blocks on one core: the second must not see the first one's registers.
  KernelRun run("tests/registers_at_entry");
  run.set_args(std::vector<std::uint64_t>(32, 0xeeee'eeee));
  int status = run.run(1, 2, kLimit);
  EXPECT_EQ(status, 0) << run.reason();
  EXPECT_EQ(run.stat("soc.aicore0.blocks_done"), 2);
  auto x = run.read<std::uint64_t>(memory_map::kKernelArguments, 32);
  std::uint64_t start = symbol(run, "_start");
  for (unsigned i = 1; i < 32; ++i) {
    SCOPED_TRACE(std::string("x") + std::to_string(i) + " (" + register_name(i) + ")");
    switch (i) {
      case 1: EXPECT_TRUE(x[i] > start && x[i] <= start + 8) << std::hex << x[i]; break;  // return into _start
      case 2: EXPECT_EQ(x[i], AiCore::kLocalMemoryBase + 64 * 1024); break;
      case 10: EXPECT_EQ(x[i], memory_map::kKernelArguments); break;
      case 11: EXPECT_EQ(x[i], 1u) << "BLOCK_IDX of the second block"; break;
      case 12: EXPECT_EQ(x[i], 2u) << "BLOCK_DIM"; break;
      default: EXPECT_EQ(x[i], 0u) << std::hex << x[i]; break;
    }
  }
}

TEST(AiCoreCoreSpecial, FlagsAndVectorMaskAreResetForEachBlock) {
  KernelRun run("tests/block_state");
  auto source = halves(128);
  fill_buffer(run.core().buffers().ub, 0x100, source);
  int status = run.run(1, 2, kLimit);
  EXPECT_EQ(status, 0) << run.reason() << ": block 0's flags leaked into block 1?";
  EXPECT_EQ(run.stat("soc.aicore0.blocks_done"), 2);
  auto sums = buffer_values<std::uint16_t>(run.core().buffers().ub, 0x1000, 128);
  for (unsigned i = 0; i < 128; ++i)
    ASSERT_EQ(sums[i], half(2 * from_half(source[i]))) << "lane " << i << ": block 0's vector mask leaked";
}

// ================================================================== scalar memory

TEST(AiCoreCoreMemory, StackInLocalMemoryAndUbWindow) {
  KernelRun run("tests/scalar_memory");
  run.set_args({kGmOut});
  PipeTrace trace(run);
  expect_done(run, run.run(1, 1, kLimit));
  auto out = run.read<std::uint64_t>(kGmOut, 136);
  EXPECT_GE(out[0], AiCore::kLocalMemoryBase) << std::hex << out[0];
  EXPECT_LT(out[0] + 2048 * 8, AiCore::kLocalMemoryBase + 64 * 1024) << std::hex << out[0];
  EXPECT_EQ(out[1], 3u * 2047u * 2048u / 2u);
  EXPECT_EQ(out[2], 5050u);
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(static_cast<std::int64_t>(out[8 + i]), 1001 * i) << "vadd over scalar stores, lane " << i;
    EXPECT_EQ(static_cast<std::int64_t>(out[72 + i]), -14 * i) << "vadd released by set_flag(PIPE_S, PIPE_V), lane "
                                                               << i;
  }
  EXPECT_GT(stat(run, "vector.stall.flag_wait_cycles"), 0u) << "V was blocked until the scalar unit set the flag";
}

// ================================================================== instruction cache

constexpr std::uint64_t kLoopIterations = 16;

std::uint64_t run_icache_loop(KernelRun& run) {
  run.set_args({kLoopIterations, kGmOut});
  expect_done(run, run.run(1, 1, kLimit));
  EXPECT_EQ(run.read<std::uint64_t>(kGmOut, 1)[0], kLoopIterations);
  std::uint64_t body = symbol(run, "loop_body_end") - symbol(run, "loop_body_start");
  EXPECT_EQ(body, 512u);
  return stat(run, "icache.misses");
}

// Lines of the kernel's code: with a cache that holds all of them each
// misses at most once.
std::uint64_t code_lines(KernelRun& run) {
  std::uint64_t start = symbol(run, "_start"), main = symbol(run, "kernel_main");
  std::uint64_t end = main + run.image().symbol_size("kernel_main").value_or(0x400);
  EXPECT_GT(main, start);
  return (end - start) / 64 + 2;
}

TEST(AiCoreCoreIcache, MissesAreCountedAndHitsFollow) {
  KernelRun run("tests/icache_loop");
  std::uint64_t misses = run_icache_loop(run);
  EXPECT_GT(misses, 0u);
  EXPECT_GE(misses, 512u / 64u) << "the loop body alone is 8 lines";
  EXPECT_LE(misses, code_lines(run)) << "the default cache holds the whole kernel: no line misses twice";
  EXPECT_GT(stat(run, "icache.hits"), 0u);
  EXPECT_GT(stat(run, "scalar.stall.icache_cycles"), 0u) << "fills go over the ring and cost time";
}

TEST(AiCoreCoreIcache, TinyCacheThrashesOnALargeLoop) {
  KernelRun run("tests/icache_loop",
                {{"soc.aicore0.icache.size", "256"},
                 {"soc.aicore0.icache.line", "64"},
                 {"soc.aicore0.icache.ways", "1"}});
  std::uint64_t misses = run_icache_loop(run);
  // 4 direct-mapped lines, a 512-byte body: every body line misses in every iteration.
  EXPECT_GE(misses, kLoopIterations * 8) << "evicted lines must be fetched (and missed) again";
  EXPECT_GT(misses, code_lines(run)) << "more misses than any run with the default cache can have";
}

// An instruction-cache fill that evicts a line leaves the hart a service to
// do (drop the evicted decoded instructions) in the same instruction that
// issues to the AI Core; the issue must still stop the batch. It once did
// not: the hart served the eviction and ran on, the next sync instruction
// overwrote the pending set_flag, and a wait was left that could never be
// satisfied (MobileNetV2's serial classifier GEMM with warm caches).
TEST(AiCoreCoreIcache, IssueInTheInstructionThatEvictsALineIsNotLost) {
  KernelRun run("tests/sync_issue_at_line_fill",
                {{"soc.aicore0.icache.size", "256"},
                 {"soc.aicore0.icache.line", "64"},
                 {"soc.aicore0.icache.ways", "1"}});
  expect_done(run, run.run(1, 1, kLimit));
  std::uint64_t body = symbol(run, "sync_body_end") - symbol(run, "sync_body_start");
  EXPECT_EQ(body, 2048u);
  // 32 body lines through 4 direct-mapped ones: at least 28 fills evicted a line.
  EXPECT_GE(stat(run, "icache.misses"), body / 64) << "the body's lines must miss (and evict) as they are fetched";
}

TEST(AiCoreCoreIcache, BadGeometryIsAConfigError) {
  try {
    KernelRun run("tests/icache_loop", {{"soc.aicore0.icache.size", "1000"}});
    FAIL() << "an icache of 1000 bytes with 64-byte lines and 4 ways was accepted";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("icache"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace npuvp
