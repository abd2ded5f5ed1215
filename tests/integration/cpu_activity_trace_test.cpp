// `--trace` of a CPU-only run (timer-irq: timer and software interrupts,
// WFI between them): the host CPU's "activity" row holds running / trap
// handler / WFI slices that tile the run, and its "interrupts" row one
// instant per interrupt taken, matching the statistics of the same run.
#include "integration/run_npuvp.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

using namespace npuvp::test_support;

namespace {

struct Slice {
  double begin, end;
  std::string name;
};

}  // namespace

TEST(CpuActivityTrace, TimerIrqShowsWfiTrapHandlersAndInterrupts) {
  std::string trace = temp_path("cpu_activity.json"), stats = temp_path("cpu_activity_stats.json");
  auto result = run_npuvp("run " + scenario("timer-irq") + " --quiet --trace " + trace + " --stats " + stats);
  ASSERT_EQ(result.status, 0) << result.err;
  nlohmann::json timeline = nlohmann::json::parse(read_file(trace));
  auto statistics = nlohmann::json::parse(read_file(stats))["statistics"];
  std::remove(trace.c_str());
  std::remove(stats.c_str());

  std::map<int, std::string> groups;
  std::map<std::pair<int, int>, std::string> rows;
  for (const auto& event : timeline["traceEvents"]) {
    if (event["ph"] == "M" && event["name"] == "process_name") groups[event["pid"]] = event["args"]["name"];
    if (event["ph"] == "M" && event["name"] == "thread_name") rows[{event["pid"], event["tid"]}] = event["args"]["name"];
  }
  std::vector<Slice> activity;
  std::vector<std::string> interrupts;
  for (const auto& event : timeline["traceEvents"]) {
    if (event["ph"] == "M" || groups.at(event["pid"]) != "soc.cpu") continue;
    const std::string row = rows.at({event["pid"], event["tid"]});
    if (row == "activity" && event["ph"] == "X") {
      const double begin = event["ts"].get<double>();
      activity.push_back({begin, begin + event["dur"].get<double>(), event["name"]});
    } else if (row == "interrupts" && event["ph"] == "i") {
      interrupts.push_back(event["name"]);
    } else {
      ADD_FAILURE() << "unexpected event on soc.cpu: " << event.dump();
    }
  }
  ASSERT_FALSE(activity.empty());
  std::sort(activity.begin(), activity.end(), [](const Slice& a, const Slice& b) { return a.begin < b.begin; });

  const double interrupts_taken = statistics["soc.cpu.interrupts"].get<double>();
  const double exceptions = statistics["soc.cpu.exceptions"].get<double>();
  ASSERT_GE(interrupts_taken, 11.0) << "10 timer interrupts and a software one";
  EXPECT_EQ(static_cast<double>(interrupts.size()), interrupts_taken);
  EXPECT_EQ(std::count(interrupts.begin(), interrupts.end(), "machine timer interrupt"), interrupts_taken - 1);
  EXPECT_EQ(std::count(interrupts.begin(), interrupts.end(), "machine software interrupt"), 1);

  std::map<std::string, int> slices_named;
  for (const auto& slice : activity) slices_named[slice.name] += 1;
  EXPECT_GE(slices_named["WFI"], 10) << "the program sleeps between timer interrupts";
  EXPECT_EQ(slices_named["trap handler: machine timer interrupt"], interrupts_taken - 1);
  EXPECT_EQ(slices_named["trap handler: machine software interrupt"], 1);
  int handlers = 0;
  for (const auto& [name, count] : slices_named)
    if (name.rfind("trap handler: ", 0) == 0) handlers += count;
  EXPECT_EQ(handlers, interrupts_taken + exceptions);
  EXPECT_GE(slices_named["running"], 1);

  // The slices tile the run: each starts where the previous one ended, from
  // 0 to the core's last cycle (1 GHz: one cycle = 1 ns = 0.001 us).
  EXPECT_EQ(activity.front().begin, 0.0);
  for (std::size_t i = 1; i < activity.size(); ++i)
    EXPECT_NEAR(activity[i].begin, activity[i - 1].end, 1e-6) << "slice " << i << " " << activity[i].name;
  EXPECT_NEAR(activity.back().end, statistics["soc.cpu.cycles"].get<double>() / 1000.0, 1e-3);
  double asleep = 0;
  for (const auto& slice : activity)
    if (slice.name == "WFI") asleep += slice.end - slice.begin;
  EXPECT_NEAR(asleep, statistics["soc.cpu.idle_cycles"].get<double>() / 1000.0, 1e-3)
      << "WFI slices add up to the idle cycles";
}
