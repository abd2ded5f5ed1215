// Each scenario boots its real firmware on the simulator and passes its checks.
#include "integration/run_npuvp.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

using namespace npuvp::test_support;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(Scenarios, HelloPrintsAndPasses) {
  auto result = run_npuvp("run " + scenario("hello"));
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("Hello from npuvp!\n"));
  EXPECT_THAT(result.out, HasSubstr("hart 0, isa rv64imafdc, modes MU"));
  // The run ends with a statistics table and a verdict.
  EXPECT_THAT(result.err, HasSubstr("== npuvp statistics: hello =="));
  EXPECT_THAT(result.err, HasSubstr("soc.cpu.instructions"));
  EXPECT_THAT(last_line(result.err), HasSubstr("npuvp: hello: PASS"));
}

TEST(Scenarios, TimerInterruptsArriveEveryMillisecond) {
  std::string stats = temp_path("timer.json");
  auto result = run_npuvp("run " + scenario("timer-irq") + " --quiet --stats " + stats);
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("timer-irq: 10 interrupts, PASS"));
  auto json = nlohmann::json::parse(read_file(stats));
  // 10 ticks of 1 ms: simulated time is 10 ms (plus start-up), and the core
  // slept through most of it in WFI.
  double seconds = json["npuvp"]["sim_time_seconds"];
  EXPECT_GE(seconds, 0.010);
  EXPECT_LT(seconds, 0.0102);
  const auto& statistics = json["statistics"];
  EXPECT_EQ(statistics["soc.cpu.interrupts"], 11);  // 10 timer + 1 software
  EXPECT_EQ(statistics["soc.clint.timer_interrupts"], 10);
  EXPECT_GT(statistics["soc.cpu.idle_cycles"].get<double>(), 0.9 * statistics["soc.cpu.cycles"].get<double>());
}

TEST(Scenarios, BenchCpuComputesTheReferenceChecksum) {
  std::string stats = temp_path("bench.json");
  auto result = run_npuvp("run " + scenario("bench-cpu") + " --quiet --stats " + stats);
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("bench-cpu: final    0x31dd99f8"));
  auto json = nlohmann::json::parse(read_file(stats));
  // The same count QEMU's -icount reports for this ELF's timed loop, plus start-up.
  EXPECT_GT(json["statistics"]["soc.cpu.instructions"].get<double>(), 300.0e6);
  EXPECT_LT(json["statistics"]["soc.cpu.instructions"].get<double>(), 300.2e6);
}

TEST(Scenarios, BenchIterationsCanBePatched) {
  std::string path = temp_path("short.yaml");
  std::ofstream(path) << "name: short\nimages:\n  - elf: " << firmware("host/bench-cpu.elf")
                      << "\n    patch:\n      bench_iterations: 2\nchecks:\n  console_contains: \"bench-cpu: 2 iterations\"\n";
  auto result = run_npuvp("run " + path + " --quiet");
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("bench-cpu: PASS"));
}

TEST(Scenarios, SemihostingConsoleAndExit) {
  auto result = run_npuvp("run --elf " + firmware("host/hello-semihost.elf") + " --quiet");
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("Hello from npuvp via semihosting!"));
  EXPECT_THAT(last_line(result.err), HasSubstr("semihosting"));
}

TEST(Scenarios, HtifConsoleAndExit) {
  auto result = run_npuvp("run --elf " + firmware("tests/htif-exit.elf") + " --quiet");
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("H"));
  EXPECT_THAT(last_line(result.err), HasSubstr("soc.htif"));
}

TEST(Scenarios, BareElfPassesTheGuestExitCodeThrough) {
  auto result = run_npuvp("run --elf " + firmware("tests/exit-code.elf") + " --quiet");
  EXPECT_EQ(result.status, 3);
  EXPECT_THAT(last_line(result.err), HasSubstr("guest exited with code 3"));
}

TEST(Scenarios, ScenarioCheckFailureIsReported) {
  std::string path = temp_path("fail.yaml");
  std::ofstream(path) << "images:\n  - elf: " << firmware("host/hello.elf")
                      << "\nchecks:\n  console_contains: \"Goodbye\"\n";
  auto result = run_npuvp("run " + path + " --quiet");
  EXPECT_EQ(result.status, 1);
  EXPECT_THAT(last_line(result.err), HasSubstr("FAIL: console lacks \"Goodbye\""));
}

TEST(Scenarios, StatsJsonHasRunSummaryAndCounters) {
  std::string stats = temp_path("hello.json");
  auto result = run_npuvp("run " + scenario("hello") + " --quiet --stats " + stats);
  ASSERT_EQ(result.status, 0) << result.err;
  auto json = nlohmann::json::parse(read_file(stats));
  EXPECT_EQ(json["npuvp"]["scenario"], "hello");
  EXPECT_EQ(json["npuvp"]["exit_status"], 0);
  EXPECT_EQ(json["npuvp"]["guest_exit_code"], 0);
  EXPECT_GT(json["statistics"]["soc.cpu.instructions"].get<double>(), 1000);
  EXPECT_GT(json["statistics"]["soc.uart0.bytes_transmitted"].get<double>(), 20);
}

TEST(Scenarios, ParameterOverrideChangesTiming) {
  std::string fast = temp_path("fast.json"), slow = temp_path("slow.json");
  ASSERT_EQ(run_npuvp("run " + scenario("hello") + " --quiet --stats " + fast).status, 0);
  ASSERT_EQ(run_npuvp("run " + scenario("hello") + " --quiet --set cpu.clock=500MHz --stats " + slow).status, 0);
  auto fast_json = nlohmann::json::parse(read_file(fast)), slow_json = nlohmann::json::parse(read_file(slow));
  // Core cycles take twice as long; memory and ring latencies are fixed in
  // nanoseconds, so they cost half as many core cycles.
  double fast_time = fast_json["npuvp"]["sim_time_seconds"], slow_time = slow_json["npuvp"]["sim_time_seconds"];
  EXPECT_GT(slow_time, 1.1 * fast_time);
  EXPECT_LT(slow_time, 2.0 * fast_time);
  EXPECT_LT(slow_json["statistics"]["soc.cpu.cycles"].get<double>(), fast_json["statistics"]["soc.cpu.cycles"].get<double>());
  EXPECT_EQ(slow_json["statistics"]["soc.cpu.instructions"], fast_json["statistics"]["soc.cpu.instructions"]);
}

// Same scenario and parameters, same statistics, bit for bit (host speed is
// reported in the run summary, never among the statistics).
TEST(Scenarios, StatisticsAreDeterministic) {
  for (const char* name : {"hello", "timer-irq"}) {
    std::string first = temp_path("first.json"), second = temp_path("second.json");
    ASSERT_EQ(run_npuvp("run " + scenario(name) + " --quiet --stats " + first).status, 0);
    ASSERT_EQ(run_npuvp("run " + scenario(name) + " --quiet --stats " + second).status, 0);
    auto a = nlohmann::json::parse(read_file(first)), b = nlohmann::json::parse(read_file(second));
    EXPECT_EQ(a["statistics"], b["statistics"]) << name;
    EXPECT_EQ(a["npuvp"]["sim_time_seconds"], b["npuvp"]["sim_time_seconds"]) << name;
  }
}

// Two traffic generators loading DDR slow the host CPU when its accesses go
// through the timed fabric (DMI off): longer simulated time, longer CPU
// latency on the ring, fewer DDR row hits. The program's result is the same.
TEST(Scenarios, FabricContentionSlowsTheCpu) {
  std::string loaded = temp_path("loaded.json"), idle = temp_path("idle.json");
  auto with_load = run_npuvp("run " + scenario("fabric-contention") + " --quiet --stats " + loaded);
  auto without = run_npuvp("run " + scenario("fabric-contention") + " --quiet --set tg0.count=0 --set tg1.count=0 --stats " + idle);
  ASSERT_EQ(with_load.status, 0) << with_load.err;
  ASSERT_EQ(without.status, 0) << without.err;
  // Same results; only the program's own "stats:" timing line may differ.
  auto without_timing = [](const std::string& text) {
    std::string out, line;
    std::istringstream in(text);
    while (std::getline(in, line))
      if (line.rfind("stats:", 0) != 0) out += line + "\n";
    return out;
  };
  EXPECT_EQ(without_timing(with_load.out), without_timing(without.out));
  auto a = nlohmann::json::parse(read_file(loaded)), b = nlohmann::json::parse(read_file(idle));
  EXPECT_GT(a["statistics"]["soc.cpu.cycles"].get<double>(), 1.05 * b["statistics"]["soc.cpu.cycles"].get<double>());
  EXPECT_GT(a["npuvp"]["sim_time_seconds"].get<double>(), 1.05 * b["npuvp"]["sim_time_seconds"].get<double>());
  EXPECT_GT(a["statistics"]["soc.ring.initiator.cpu.latency"]["mean"].get<double>(),
            b["statistics"]["soc.ring.initiator.cpu.latency"]["mean"].get<double>());
  EXPECT_LT(a["statistics"]["soc.ddr.row_hit_rate"].get<double>(), b["statistics"]["soc.ddr.row_hit_rate"].get<double>());
  EXPECT_GT(a["statistics"]["soc.tg0.transactions"].get<double>(), 0);
}

// Offload end to end (issue 5 in progress): host program + driver + task
// scheduler + AI Cores, results checked by the host program itself.
class OffloadScenario : public ::testing::TestWithParam<int> {};

TEST_P(OffloadScenario, GemmOffloadPassesOnThisManyAiCores) {
  auto result = run_npuvp("run " + scenario("gemm-offload") + " --quiet --set soc.ai_cores=" +
                          std::to_string(GetParam()));
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("on " + std::to_string(GetParam()) + " AI Core"));
  EXPECT_THAT(result.out, HasSubstr("every element matches: PASS"));
}

INSTANTIATE_TEST_SUITE_P(Cores, OffloadScenario, ::testing::Values(1, 2, 4, 32));  // 32: Ascend 910, the limit

// Instruction caches across task blocks (docs/npu-protocol.md#instruction-caches):
// gemm-offload loads its two kernels, runs 8 + 8 + 3 blocks, loads gemm again and
// runs one more block. Each core's first block and the block after the reload start
// cold; every other block keeps the cache of the core's previous block.
TEST(Scenarios, BlocksKeepTheirInstructionCacheUntilKernelCodeIsWritten) {
  std::string stats = temp_path("icache.json");
  auto result = run_npuvp("run " + scenario("gemm-offload") + " --quiet --set soc.ai_cores=2 --stats " + stats);
  ASSERT_EQ(result.status, 0) << result.err;
  auto json = nlohmann::json::parse(read_file(stats));
  std::remove(stats.c_str());
  const auto& s = json["statistics"];
  double blocks = 0, warm = 0;
  for (int core = 0; core < 2; ++core) {
    const std::string name = "soc.aicore" + std::to_string(core) + ".";
    blocks += s[name + "blocks_done"].get<double>();
    warm += s[name + "icache.warm_starts"].get<double>();
  }
  EXPECT_EQ(blocks, 8 + 8 + 3 + 1);
  EXPECT_EQ(warm, blocks - 2 - 1) << "cold: each core's first block and the block after the reload";
}

// Task-block dispatch (B = 1, B < N, B = N, B > N) and interrupt delivery: the
// program checks what every block recorded; the statistics show the interrupts
// travelled (mailbox -> PLIC -> host, which slept in WFI meanwhile) and that the
// task scheduler slept between them.
class DispatchScenario : public ::testing::TestWithParam<int> {};

TEST_P(DispatchScenario, EveryBlockRunsOnceOnAnIdleCoreAndCompletionInterruptsArrive) {
  std::string stats = temp_path("dispatch.json");
  auto result = run_npuvp("run " + scenario("offload-dispatch") + " --quiet --stats " + stats +
                          " --set soc.ai_cores=" + std::to_string(GetParam()));
  EXPECT_EQ(result.status, 0) << result.out << result.err;
  EXPECT_THAT(result.out, HasSubstr(std::to_string(GetParam()) + " AI Cores"));
  EXPECT_THAT(result.out, HasSubstr("B=1 on " + std::to_string(GetParam()) + " cores"));
  EXPECT_THAT(result.out, HasSubstr("B=" + std::to_string(2 * GetParam() + 1) + " on"));
  EXPECT_THAT(result.out, Not(HasSubstr("UNEXPECTED")));
  EXPECT_THAT(result.out, HasSubstr("offload-dispatch: PASS"));
  auto json = nlohmann::json::parse(read_file(stats));
  std::remove(stats.c_str());
  const auto& s = json["statistics"];
  EXPECT_GE(s["soc.mailbox.doorbells"].get<double>(), 5);       // one per launch at least
  EXPECT_GE(s["soc.mailbox.host_interrupts"].get<double>(), 5);  // one per completion at least
  EXPECT_GE(s["soc.cpu.interrupts"].get<double>(), 5);
  EXPECT_GT(s["soc.cpu.idle_cycles"].get<double>(), 0);  // the host waited in WFI
  EXPECT_GT(s["soc.ts.idle_cycles"].get<double>(), 0.5 * s["soc.ts.cycles"].get<double>());
}

INSTANTIATE_TEST_SUITE_P(Cores, DispatchScenario, ::testing::Values(1, 2, 4, 16, 32));

TEST(Scenarios, ConvOffloadPasses) {
  auto result = run_npuvp("run " + scenario("conv-offload") + " --quiet");
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("every element matches: PASS"));
}

TEST(Scenarios, KernelFaultIsReportedToTheHostAndTheSimulatorStaysHealthy) {
  auto result = run_npuvp("run " + scenario("kernel-fault") + " --quiet");
  EXPECT_EQ(result.status, 0) << result.err;  // the scenario expects the host's documented exit code
  EXPECT_THAT(result.out, HasSubstr("kernel fault (bus error) on AI Core 0"));
  EXPECT_THAT(result.out, HasSubstr("kernel fault (scalar trap)"));
  EXPECT_THAT(last_line(result.err), HasSubstr("PASS"));
}

// A scenario read from a pipe (`cat s.yaml | npuvp run /dev/stdin`) is read once: a second read
// found the pipe empty and reported a valid scenario as "the top level must be a mapping".
TEST(Scenarios, ReadFromAPipe) {
  const std::string path = temp_path("piped.yaml");
  std::ofstream(path) << "name: piped\nimages:\n  - elf: " << firmware("host/hello.elf")
                      << "\nchecks:\n  exit_code: 0\n  console_contains: \"Hello from npuvp!\"\n";
  const auto result = run_command("cat " + path + " | timeout 120 " + std::string(NPUVP_EXECUTABLE) + " run /dev/stdin");
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(result.err, HasSubstr("npuvp: piped: PASS"));
  std::remove(path.c_str());
}
