// `npuvp run --trace FILE`: the timeline is valid Chrome/Perfetto JSON, and its
// slices agree with the statistics of the same run: one slice per executed
// instruction on each AI Core pipe's track, one per task block.
#include "integration/run_npuvp.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <map>
#include <string>
#include <utility>

using namespace npuvp::test_support;
using ::testing::HasSubstr;

namespace {

// Track rows as npuvp names them (models/npu/ai_core.cpp), and the statistic
// counting the same instructions.
const std::map<std::string, std::string> kPipeStatistic = {
    {"V (Vector)", "vector.instructions"},       {"M (Cube)", "cube.instructions"},
    {"MTE1 (L1 -> L0A/L0B)", "mte1.instructions"}, {"MTE2 (GM -> L1/UB)", "mte2.instructions"},
    {"MTE3 (UB -> GM)", "mte3.instructions"},    {"task blocks", "blocks_done"}};

TEST(Timeline, SlicesMatchThePipeStatisticsOfTheSameRun) {
  std::string trace = temp_path("timeline.json"), stats = temp_path("timeline_stats.json");
  auto result = run_npuvp("run " + scenario("gemm-direct") + " --quiet --trace " + trace + " --stats " + stats);
  ASSERT_EQ(result.status, 0) << result.err;
  nlohmann::json timeline = nlohmann::json::parse(read_file(trace));  // throws (fails) if not valid JSON
  auto statistics = nlohmann::json::parse(read_file(stats))["statistics"];
  std::remove(trace.c_str());
  std::remove(stats.c_str());

  std::map<int, std::string> groups;
  std::map<std::pair<int, int>, std::string> rows;
  std::map<std::pair<std::string, std::string>, double> slices;  // (group, row) -> instruction slices
  double last_end = 0;
  for (const auto& event : timeline["traceEvents"]) {
    const std::string phase = event["ph"];
    if (phase == "M" && event["name"] == "process_name") groups[event["pid"]] = event["args"]["name"];
    if (phase == "M" && event["name"] == "thread_name") rows[{event["pid"], event["tid"]}] = event["args"]["name"];
    if (phase != "X") continue;
    ASSERT_GE(event["dur"].get<double>(), 0);
    last_end = std::max(last_end, event["ts"].get<double>() + event["dur"].get<double>());
    if (event["name"] == "wait_flag") continue;  // a stall, not an instruction
    slices[{groups.at(event["pid"]), rows.at({event["pid"], event["tid"]})}] += 1;
  }
  unsigned compared = 0;
  for (const std::string core : {"soc.aicore0", "soc.aicore1"}) {
    for (const auto& [row, statistic] : kPipeStatistic) {
      double expected = statistics[core + "." + statistic].get<double>();
      const double got = slices[{core, row}];
      EXPECT_EQ(got, expected) << core << " " << row;
      compared += expected > 0;
    }
  }
  EXPECT_GE(compared, 10u) << "both cores ran every pipe";
  // Simulated time in microseconds: the last slice ends within the run.
  EXPECT_GT(last_end, 0);
}

TEST(Timeline, AnUncreatableTraceFileIsBadInput) {
  auto result = run_npuvp("run " + scenario("aicore-smoke") + " --quiet --trace /nonexistent/dir/t.json");
  EXPECT_EQ(result.status, 125);
  EXPECT_THAT(last_line(result.err), HasSubstr("--trace: cannot create '/nonexistent/dir/t.json'"));
}

TEST(Timeline, HostAndTaskSchedulerNotificationsAreInstants) {
  std::string trace = temp_path("timeline_offload.json");
  auto result = run_npuvp("run " + scenario("offload-dispatch") + " --quiet --trace " + trace);
  ASSERT_EQ(result.status, 0) << result.err;
  nlohmann::json timeline = nlohmann::json::parse(read_file(trace));
  std::remove(trace.c_str());
  unsigned doorbells = 0, host_interrupts = 0;
  for (const auto& event : timeline["traceEvents"]) {
    if (event["ph"] != "i") continue;
    doorbells += event["name"] == "doorbell (host -> TS)";
    host_interrupts += event["name"] == "host interrupt (TS -> host)";
  }
  EXPECT_GE(doorbells, 5u);
  EXPECT_GE(host_interrupts, 5u);
}

}  // namespace
