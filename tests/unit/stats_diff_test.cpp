// compare_statistics / stats_diff: what `npuvp stats diff` reports between two
// statistics documents (docs/cli.md, "Comparing runs").
#include "platform/stats_diff.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace npuvp {
namespace {

nlohmann::json document(double sim_time, nlohmann::json statistics) {
  return {{"npuvp", {{"sim_time_seconds", sim_time}, {"instructions", 100}, {"exit_status", 0}}},
          {"statistics", std::move(statistics)}};
}

const StatChange* find(const std::vector<StatChange>& changes, const std::string& name) {
  for (const auto& change : changes)
    if (change.name == name) return &change;
  return nullptr;
}

TEST(StatsDiff, ReportsChangedValuesWithTheirRatioAndSkipsUnchangedOnes) {
  auto a = document(1e-3, {{"soc.cpu.cycles", 1000}, {"soc.cpu.instructions", 500}, {"soc.ddr.reads", 7}});
  auto b = document(2e-3, {{"soc.cpu.cycles", 2500}, {"soc.cpu.instructions", 500}, {"soc.ddr.reads", 7}});
  auto changes = compare_statistics(a, b, {});
  ASSERT_EQ(changes.size(), 2u);  // sorted by name: npuvp.sim_time_seconds, soc.cpu.cycles
  EXPECT_EQ(changes[0].name, "npuvp.sim_time_seconds");
  EXPECT_EQ(changes[1].name, "soc.cpu.cycles");
  EXPECT_DOUBLE_EQ(changes[1].ratio(), 2.5);
  StatsDiffOptions all;
  all.include_unchanged = true;
  EXPECT_EQ(compare_statistics(a, b, all).size(), 6u);  // 3 summary values + 3 statistics
}

TEST(StatsDiff, HistogramsCompareTheirCountAndMean) {
  nlohmann::json histogram_a = {{"count", 10}, {"mean", 4.0}, {"min", 1}, {"max", 9}, {"buckets", nlohmann::json::array()}};
  nlohmann::json histogram_b = {{"count", 10}, {"mean", 6.0}, {"min", 1}, {"max", 9}, {"buckets", nlohmann::json::array()}};
  auto changes = compare_statistics(document(1, {{"soc.ring.latency", histogram_a}}),
                                    document(1, {{"soc.ring.latency", histogram_b}}), {});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].name, "soc.ring.latency.mean");
  EXPECT_DOUBLE_EQ(changes[0].ratio(), 1.5);
}

TEST(StatsDiff, StatisticsOnOneSideOnlyAreNewOrGone) {
  auto changes = compare_statistics(document(1, {{"soc.aicore0.blocks_done", 3}}),
                                    document(1, {{"soc.aicore1.blocks_done", 4}}), {});
  const StatChange* gone = find(changes, "soc.aicore0.blocks_done");
  const StatChange* added = find(changes, "soc.aicore1.blocks_done");
  ASSERT_TRUE(gone && added);
  EXPECT_TRUE(gone->in_before && !gone->in_after);
  EXPECT_TRUE(!added->in_before && added->in_after);
}

TEST(StatsDiff, PatternsAndThresholdFilter) {
  auto a = document(1, {{"soc.cpu.cycles", 1000}, {"soc.ts.cycles", 1000}, {"soc.ddr.reads", 100}});
  auto b = document(1, {{"soc.cpu.cycles", 1040}, {"soc.ts.cycles", 2000}, {"soc.ddr.reads", 300}});
  StatsDiffOptions options;
  options.patterns = {"soc.*.cycles"};
  auto changes = compare_statistics(a, b, options);
  ASSERT_EQ(changes.size(), 2u);
  options.threshold = 0.05;  // the 4 % change of soc.cpu.cycles drops out
  changes = compare_statistics(a, b, options);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].name, "soc.ts.cycles");
}

TEST(StatsDiff, MissingOrMalformedFilesAreBadInputWithAOneLineError) {
  std::string path = "/tmp/npuvp_stats_diff_test_" + std::to_string(getpid()) + ".json";
  std::ofstream(path) << "{\"statistics\": {";  // truncated
  StatsDiffOptions options;
  options.before_path = path;
  options.after_path = path;
  std::ostringstream out, error;
  EXPECT_EQ(stats_diff(options, out, error), 125);
  EXPECT_NE(error.str().find("is not valid JSON"), std::string::npos) << error.str();
  std::ofstream(path) << "{\"something\": 1}";
  error.str("");
  EXPECT_EQ(stats_diff(options, out, error), 125);
  EXPECT_NE(error.str().find("not a statistics file"), std::string::npos) << error.str();
  options.before_path = "/nonexistent/a.json";
  error.str("");
  EXPECT_EQ(stats_diff(options, out, error), 125);
  EXPECT_NE(error.str().find("cannot open '/nonexistent/a.json'"), std::string::npos);
  std::remove(path.c_str());
}

// Issue 23: a file whose statistics are not numbers or histograms is not ours
// (a non-numeric histogram count used to escape as an exception, status 1).
TEST(StatsDiff, StatisticsOfTheWrongShapeAreBadInput) {
  std::string path = "/tmp/npuvp_stats_diff_shape_" + std::to_string(getpid()) + ".json";
  StatsDiffOptions options;
  options.before_path = path;
  options.after_path = path;
  for (const auto& [contents, message] :
       {std::pair<std::string, std::string>{R"({"statistics": {"h": {"count": "7"}}})", "whose \"count\" is a string"},
        {R"({"statistics": {"h": {"count": 7, "mean": {}}}})", "whose \"mean\" is an object"},
        {R"({"statistics": {"v": true}})", "statistic 'v' is a boolean, not a number or a histogram"},
        {R"({"statistics": {}, "npuvp": [1]})", "\"npuvp\" is not an object"}}) {
    std::ofstream(path) << contents;
    std::ostringstream out, error;
    EXPECT_EQ(stats_diff(options, out, error), 125) << contents;
    EXPECT_NE(error.str().find(message), std::string::npos) << error.str();
    EXPECT_EQ(out.str(), "") << contents;
  }
  // null (a derived value that is not finite) is a statistic, as npuvp writes it.
  std::ofstream(path) << R"({"statistics": {"ratio": null, "h": {"count": 3, "mean": null}}})";
  std::ostringstream out, error;
  EXPECT_EQ(stats_diff(options, out, error), 0) << error.str();
  std::remove(path.c_str());
}

TEST(StatsDiff, ThresholdMustBeANonNegativeNumber) {
  StatsDiffOptions options;
  options.before_path = options.after_path = "/nonexistent/a.json";
  for (double threshold : {std::nan(""), -0.5, HUGE_VAL}) {
    options.threshold = threshold;
    std::ostringstream out, error;
    EXPECT_EQ(stats_diff(options, out, error), 125) << threshold;
    EXPECT_NE(error.str().find("--threshold expects a non-negative number"), std::string::npos) << error.str();
  }
}

TEST(StatsDiff, PrintsATableWithRatiosAndACount) {
  std::string a = "/tmp/npuvp_stats_diff_a_" + std::to_string(getpid()) + ".json";
  std::string b = "/tmp/npuvp_stats_diff_b_" + std::to_string(getpid()) + ".json";
  std::ofstream(a) << document(1, {{"soc.cpu.cycles", 1000}, {"soc.x", 0}}).dump();
  std::ofstream(b) << document(1, {{"soc.cpu.cycles", 3000}, {"soc.x", 5}}).dump();
  StatsDiffOptions options;
  options.before_path = a;
  options.after_path = b;
  std::ostringstream out, error;
  EXPECT_EQ(stats_diff(options, out, error), 0);
  EXPECT_NE(out.str().find("soc.cpu.cycles"), std::string::npos);
  EXPECT_NE(out.str().find(" 3\n"), std::string::npos) << out.str();  // the ratio column
  EXPECT_NE(out.str().find("2 changed statistics"), std::string::npos) << out.str();
  std::remove(a.c_str());
  std::remove(b.c_str());
}

}  // namespace
}  // namespace npuvp
