// `npuvp run --trace FILE`: the timeline is valid Chrome/Perfetto JSON, and its
// slices agree with the statistics of the same run: one slice per executed
// instruction on each AI Core pipe's track, one per task block.
#include "integration/run_npuvp.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

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

// The timeline's events, indexed: group and row names of each slice.
struct Events {
  std::map<int, std::string> groups;
  std::map<std::pair<int, int>, std::string> rows;
  std::vector<nlohmann::json> all;
  std::string group(const nlohmann::json& event) const { return groups.at(event["pid"]); }
  std::string row(const nlohmann::json& event) const { return rows.at({event["pid"], event["tid"]}); }
};

Events read_events(const std::string& path) {
  Events events;
  nlohmann::json timeline = nlohmann::json::parse(read_file(path));  // throws (fails) if not valid JSON
  for (const auto& event : timeline["traceEvents"]) {
    if (event["ph"] == "M" && event["name"] == "process_name") events.groups[event["pid"]] = event["args"]["name"];
    if (event["ph"] == "M" && event["name"] == "thread_name")
      events.rows[{event["pid"], event["tid"]}] = event["args"]["name"];
    events.all.push_back(event);
  }
  return events;
}

// Sum of the statistics whose name starts with `prefix` and ends with `suffix`.
double sum_statistics(const nlohmann::json& statistics, const std::string& prefix, const std::string& suffix) {
  double total = 0;
  for (const auto& [name, value] : statistics.items())
    if (name.rfind(prefix, 0) == 0 && name.size() >= prefix.size() + suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 && value.is_number())
      total += value.get<double>();
  return total;
}

// Slices of one row never overlap (Perfetto needs slices of a row nested).
void expect_rows_do_not_overlap(const Events& events, const std::string& group) {
  std::map<std::string, std::vector<std::pair<double, double>>> by_row;
  for (const auto& event : events.all)
    if (event["ph"] == "X" && events.group(event) == group)
      by_row[events.row(event)].push_back({event["ts"].get<double>(), event["ts"].get<double>() + event["dur"].get<double>()});
  for (auto& [row, slices] : by_row) {
    std::sort(slices.begin(), slices.end());
    for (std::size_t i = 1; i < slices.size(); ++i)
      EXPECT_LE(slices[i - 1].second, slices[i].first + 1e-6) << group << " / " << row;
  }
}

TEST(Timeline, TaskSchedulerDispatchesMatchTheBlocksLaunched) {
  std::string trace = temp_path("timeline_dispatch.json"), stats = temp_path("timeline_dispatch_stats.json");
  auto result = run_npuvp("run " + scenario("gemm-offload") + " --quiet --trace " + trace + " --stats " + stats);
  ASSERT_EQ(result.status, 0) << result.err;
  Events events = read_events(trace);
  auto statistics = nlohmann::json::parse(read_file(stats))["statistics"];
  std::remove(trace.c_str());
  std::remove(stats.c_str());
  const double launched = sum_statistics(statistics, "soc.aicore", ".blocks_done") +
                          sum_statistics(statistics, "soc.aicore", ".blocks_faulted");
  ASSERT_GE(launched, 8);  // 8 blocks, then the asynchronous runs and the single block
  std::map<std::string, unsigned> dispatches;  // per AI Core row
  unsigned done_interrupts = 0, flow_starts = 0, flow_ends = 0;
  for (const auto& event : events.all) {
    if (event["ph"] == "s") ++flow_starts;
    if (event["ph"] == "f") {
      ++flow_ends;
      EXPECT_EQ(event["bp"], "e");
      EXPECT_EQ(events.row(event), "task blocks");
    }
    if (!event.contains("pid") || event["ph"] == "M" || events.group(event) != "task scheduler") continue;
    if (event["ph"] == "X") {
      ++dispatches[events.row(event)];
      EXPECT_EQ(event["args"]["core"], events.row(event));
      EXPECT_EQ(event["args"]["status"], "done");
      EXPECT_LT(event["args"]["block_idx"].get<int>(), event["args"]["block_dim"].get<int>());
    }
    if (event["ph"] == "i") done_interrupts += event["name"] == "done irq";
  }
  double total = 0;
  for (const auto& [row, count] : dispatches) {
    EXPECT_EQ(count, statistics[row + ".blocks_done"].get<double>()) << row;
    total += count;
  }
  EXPECT_EQ(dispatches.size(), 2u) << "both AI Cores got blocks";
  EXPECT_EQ(total, launched);
  EXPECT_EQ(done_interrupts, launched);
  EXPECT_EQ(flow_starts, launched);
  EXPECT_EQ(flow_ends, launched);
  expect_rows_do_not_overlap(events, "task scheduler");
}

TEST(Timeline, RingTransactionsAreSampledEveryNth) {
  std::string trace = temp_path("timeline_ring.json"), stats = temp_path("timeline_ring_stats.json");
  auto result = run_npuvp("run " + scenario("gemm-direct") + " --quiet --trace " + trace + " --trace-ring 7 --stats " +
                          stats);
  ASSERT_EQ(result.status, 0) << result.err;
  Events events = read_events(trace);
  auto statistics = nlohmann::json::parse(read_file(stats))["statistics"];
  std::remove(trace.c_str());
  std::remove(stats.c_str());
  const double transactions = sum_statistics(statistics, "soc.ring.initiator.", ".transactions");
  ASSERT_GT(transactions, 100);
  unsigned slices = 0;
  for (const auto& event : events.all) {
    if (event["ph"] != "X" || events.group(event) != "soc.ring") continue;
    ++slices;
    EXPECT_EQ(events.row(event).rfind("from " + event["args"]["from"].get<std::string>(), 0), 0u);
    const std::string name = event["name"];
    EXPECT_TRUE(name == "read -> " + event["args"]["to"].get<std::string>() ||
                name == "write -> " + event["args"]["to"].get<std::string>())
        << name;
    EXPECT_GT(event["args"]["bytes"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(event["args"]["transaction"].get<std::uint64_t>() % 7, 0u);
  }
  EXPECT_EQ(slices, static_cast<unsigned>(transactions) / 7);
  expect_rows_do_not_overlap(events, "soc.ring");
}

// --trace-ring is a shorthand: the sampling is the ring's parameter.
TEST(Timeline, RingSamplingIsTheRingsParameter) {
  std::string trace = temp_path("timeline_ring_parameter.json"), stats = temp_path("timeline_ring_parameter_stats.json");
  auto result = run_npuvp("run " + scenario("gemm-direct") + " --quiet --trace " + trace +
                          " --set ring.trace_every=5 --stats " + stats);
  ASSERT_EQ(result.status, 0) << result.err;
  Events events = read_events(trace);
  auto statistics = nlohmann::json::parse(read_file(stats))["statistics"];
  std::remove(trace.c_str());
  std::remove(stats.c_str());
  unsigned slices = 0;
  for (const auto& event : events.all) slices += event["ph"] == "X" && events.group(event) == "soc.ring";
  const double transactions = sum_statistics(statistics, "soc.ring.initiator.", ".transactions");
  ASSERT_GT(transactions, 100);
  EXPECT_EQ(slices, static_cast<unsigned>(transactions) / 5);
}

// The coherence range is the cluster's parameter: a run without the cluster has none.
TEST(Timeline, CoherenceTracingNeedsTheCluster) {
  auto result = run_npuvp("run " + scenario("aicore-smoke") + " --quiet --trace " + temp_path("nocluster.json") +
                          " --trace-coherence 80000000:80001000");
  EXPECT_EQ(result.status, 125);
  EXPECT_THAT(last_line(result.err), HasSubstr("--trace-coherence traces the mesh cluster's L1 misses"));
  std::remove(temp_path("nocluster.json").c_str());
}

TEST(Timeline, RingTransactionsAreOffByDefault) {
  std::string trace = temp_path("timeline_noring.json");
  auto result = run_npuvp("run " + scenario("aicore-smoke") + " --quiet --trace " + trace);
  ASSERT_EQ(result.status, 0) << result.err;
  Events events = read_events(trace);
  std::remove(trace.c_str());
  for (const auto& [pid, group] : events.groups) EXPECT_NE(group, "soc.ring");
  EXPECT_FALSE(events.groups.empty());
}

// L1 misses of the mesh cluster's harts, only for lines in the given range.
std::map<std::string, unsigned> coherence_slices(const std::string& range, std::uint64_t start, std::uint64_t end,
                                                 nlohmann::json& statistics) {
  std::string trace = temp_path("timeline_coherence.json"), stats = temp_path("timeline_coherence_stats.json");
  auto result = run_npuvp("run " + scenario("mesh-hello") + " --quiet --trace " + trace + " --trace-coherence " + range +
                          " --stats " + stats);
  EXPECT_EQ(result.status, 0) << result.err;
  Events events = read_events(trace);
  statistics = nlohmann::json::parse(read_file(stats))["statistics"];
  std::remove(trace.c_str());
  std::remove(stats.c_str());
  std::map<std::string, unsigned> per_hart;
  for (const auto& event : events.all) {
    if (event["ph"] != "X" || events.row(event) != "L1 misses") continue;
    const std::uint64_t line = std::stoull(event["args"]["line"].get<std::string>(), nullptr, 16);
    EXPECT_GE(line, start);
    EXPECT_LT(line, end);
    EXPECT_FALSE(event["args"]["before"].get<std::string>().empty());
    EXPECT_FALSE(event["args"]["after"].get<std::string>().empty());
    EXPECT_GE(event["dur"].get<double>(), 0);
    ++per_hart[events.group(event)];
  }
  return per_hart;
}

// The misses of hart N's L1 (tile N): loads, stores and atomics.
double l1_misses(const nlohmann::json& statistics, const std::string& hart) {
  const std::string tile = hart.substr(hart.rfind("hart") + 4);
  double total = 0;
  for (const char* kind : {"load", "store", "atomic"})
    total += statistics["soc.cluster.memory.l1_" + tile + "." + kind + "_misses"].get<double>();
  return total;
}

TEST(Timeline, CoherenceMissesOfTheWholeAddressSpaceAreTheL1Misses) {
  nlohmann::json statistics;
  auto per_hart = coherence_slices("0:ffffffffffffffff", 0, ~std::uint64_t{0}, statistics);
  EXPECT_EQ(per_hart.size(), 16u);
  for (const auto& [hart, count] : per_hart) EXPECT_EQ(count, l1_misses(statistics, hart)) << hart;
}

TEST(Timeline, CoherenceMissesAreTracedOnlyInTheirRange) {
  nlohmann::json statistics;
  auto per_hart = coherence_slices("80000000:80002000", 0x80000000, 0x80002000, statistics);
  EXPECT_EQ(per_hart.size(), 16u) << "every hart missed in the range";
  unsigned traced = 0;
  double misses = 0;
  for (const auto& [hart, count] : per_hart) {
    EXPECT_LE(count, l1_misses(statistics, hart)) << hart;
    traced += count;
    misses += l1_misses(statistics, hart);
  }
  EXPECT_LT(traced, misses) << "lines outside the range are left out";
}

TEST(Timeline, CoherenceRangeOutsideMemoryTracesNothing) {
  std::string trace = temp_path("timeline_coherence_none.json");
  auto result = run_npuvp("run " + scenario("mesh-hello") + " --quiet --trace " + trace +
                          " --trace-coherence 0x10:0x20");
  ASSERT_EQ(result.status, 0) << result.err;
  Events events = read_events(trace);
  std::remove(trace.c_str());
  for (const auto& [row, name] : events.rows) EXPECT_NE(name, "L1 misses");
}

TEST(Timeline, BadTraceOptionsAreBadInput) {
  auto reversed = run_npuvp("run " + scenario("aicore-smoke") + " --quiet --trace " + temp_path("bad.json") +
                            " --trace-coherence 2000:1000");
  EXPECT_EQ(reversed.status, 125);
  EXPECT_THAT(last_line(reversed.err), HasSubstr("--trace-coherence 2000:1000: END must be above START"));
  auto garbage = run_npuvp("run " + scenario("aicore-smoke") + " --quiet --trace " + temp_path("bad.json") +
                           " --trace-coherence 80000000-80001000");
  EXPECT_EQ(garbage.status, 125);
  EXPECT_THAT(last_line(garbage.err), HasSubstr("--trace-coherence expects START:END in hexadecimal"));
  auto alone = run_npuvp("run " + scenario("aicore-smoke") + " --quiet --trace-ring 10");
  EXPECT_EQ(alone.status, 125);
  EXPECT_THAT(last_line(alone.err), HasSubstr("--trace-ring and --trace-coherence go with --trace FILE"));
  auto not_a_number = run_npuvp("run " + scenario("aicore-smoke") + " --quiet --trace-ring ten");
  EXPECT_NE(not_a_number.status, 0);
  EXPECT_THAT(not_a_number.err, HasSubstr("--trace-ring expects a number N"));
  std::remove(temp_path("bad.json").c_str());
}

}  // namespace
