// Statistics: counters, derived values, power-of-two histograms, the registry's
// JSON and table output, and duplicate-name detection.
#include "core/simulation.h"
#include "core/statistics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace npuvp {
namespace {

using nlohmann::json;

StatisticsRegistry& registry() { return StatisticsRegistry::instance(); }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The table line for `name`, or "" when the table has none.
std::string table_line(const std::string& table, const std::string& name) {
  for (const auto& line : lines_of(table)) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first == name) return line;
  }
  return "";
}

TEST(Counter, CountsAndReports) {
  Counter hits{"t.counter.hits", "", "cache hits"};
  EXPECT_EQ(hits.value(), 0u);
  ++hits;
  ++hits;
  hits += 40;
  EXPECT_EQ(hits.value(), 42u);
  EXPECT_EQ(hits.to_json(), json(42));
  EXPECT_TRUE(hits.to_json().is_number_unsigned());
  EXPECT_EQ(hits.to_text(), "42");
  EXPECT_EQ(hits.name(), "t.counter.hits");
  EXPECT_EQ(hits.doc(), "cache hits");
  EXPECT_EQ(registry().find("t.counter.hits"), &hits);
}

TEST(Counter, HoldsTheFullUnsignedRange) {
  Counter big{"t.counter.big", "bytes", ""};
  big += std::numeric_limits<std::uint64_t>::max() - 1;
  ++big;
  EXPECT_EQ(big.value(), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(big.to_text(), "18446744073709551615");
  EXPECT_EQ(big.to_json().get<std::uint64_t>(), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(big.unit(), "bytes");
}

TEST(DerivedStatistic, IntegralValueIsReadWhenAsked) {
  std::uint64_t model_counter = 7;
  DerivedStatistic retired{"t.derived.retired", "instructions", "",
                           [&] { return static_cast<double>(model_counter); }, true};
  EXPECT_EQ(retired.to_json(), json(7));
  EXPECT_TRUE(retired.to_json().is_number_integer());
  EXPECT_EQ(retired.to_text(), "7");
  model_counter = 123456789012;
  EXPECT_EQ(retired.to_json(), json(123456789012ull));
  EXPECT_EQ(retired.to_text(), "123456789012");
}

TEST(DerivedStatistic, RealValueIsARatio) {
  Counter hits{"t.ratio.hits", "", ""};
  Counter accesses{"t.ratio.accesses", "", ""};
  DerivedStatistic rate{"t.ratio.hit_rate", "", "hits per access",
                        [&] { return static_cast<double>(hits.value()) / static_cast<double>(accesses.value()); }};
  hits += 1;
  accesses += 3;
  ASSERT_TRUE(rate.to_json().is_number_float());
  EXPECT_DOUBLE_EQ(rate.to_json().get<double>(), 1.0 / 3.0);
  EXPECT_EQ(rate.to_text(), "0.333333");
  hits += 2;
  EXPECT_DOUBLE_EQ(rate.to_json().get<double>(), 1.0);
  EXPECT_EQ(rate.to_text(), "1");
}

TEST(DerivedStatistic, NonFiniteRealIsNullInJson) {
  DerivedStatistic undefined{"t.derived.undefined", "", "", [] { return std::nan(""); }};
  EXPECT_TRUE(undefined.to_json().is_null());
  DerivedStatistic infinite{"t.derived.infinite", "", "", [] { return HUGE_VAL; }};
  EXPECT_TRUE(infinite.to_json().is_null());
  // The JSON of the whole registry stays valid JSON (no NaN literal).
  std::string text = registry().to_json().dump();
  EXPECT_NO_THROW(json::parse(text)) << text;
}

TEST(Histogram, EmptyHistogram) {
  Histogram latency{"t.hist.empty", "cycles", ""};
  EXPECT_EQ(latency.count(), 0u);
  EXPECT_EQ(latency.min(), 0u);
  EXPECT_EQ(latency.max(), 0u);
  EXPECT_DOUBLE_EQ(latency.mean(), 0.0);
  EXPECT_TRUE(latency.buckets().empty());
  json expected = {{"count", 0}, {"min", 0}, {"max", 0}, {"mean", 0.0}, {"buckets", json::array()}};
  EXPECT_EQ(latency.to_json(), expected);
  EXPECT_EQ(latency.to_text(), "n=0 min=0 mean=0 max=0");
}

TEST(Histogram, PowerOfTwoBuckets) {
  Histogram latency{"t.hist.buckets", "cycles", ""};
  // bucket 0: zeros; bucket i: [2^(i-1), 2^i)
  for (std::uint64_t value : {0, 1, 2, 3, 4, 7, 8, 1000, 1023, 1024}) latency.sample(value);
  const auto& buckets = latency.buckets();
  ASSERT_EQ(buckets.size(), 12u);
  EXPECT_EQ(buckets[0], 1u);   // 0
  EXPECT_EQ(buckets[1], 1u);   // 1
  EXPECT_EQ(buckets[2], 2u);   // 2, 3
  EXPECT_EQ(buckets[3], 2u);   // 4, 7
  EXPECT_EQ(buckets[4], 1u);   // 8
  for (std::size_t i = 5; i < 10; ++i) EXPECT_EQ(buckets[i], 0u) << i;
  EXPECT_EQ(buckets[10], 2u);  // 1000, 1023 in [512, 1024)
  EXPECT_EQ(buckets[11], 1u);  // 1024 in [1024, 2048)
}

TEST(Histogram, MinMaxMean) {
  Histogram latency{"t.hist.summary", "cycles", ""};
  for (std::uint64_t value : {10, 20, 30, 100}) latency.sample(value);
  EXPECT_EQ(latency.count(), 4u);
  EXPECT_EQ(latency.min(), 10u);
  EXPECT_EQ(latency.max(), 100u);
  EXPECT_DOUBLE_EQ(latency.mean(), 40.0);
  EXPECT_EQ(latency.to_text(), "n=4 min=10 mean=40 max=100");
  latency.sample(0);
  EXPECT_EQ(latency.min(), 0u);
  EXPECT_DOUBLE_EQ(latency.mean(), 32.0);
}

TEST(Histogram, JsonShape) {
  Histogram latency{"t.hist.json", "cycles", ""};
  for (std::uint64_t value : {0, 5, 6, 300}) latency.sample(value);
  json out = latency.to_json();
  ASSERT_TRUE(out.is_object());
  EXPECT_EQ(out["count"], json(4));
  EXPECT_EQ(out["min"], json(0));
  EXPECT_EQ(out["max"], json(300));
  EXPECT_DOUBLE_EQ(out["mean"].get<double>(), 311.0 / 4);
  // Only non-empty buckets, in increasing order, as {low, high, count}.
  json expected_buckets = json::array({
      {{"low", 0}, {"high", 1}, {"count", 1}},
      {{"low", 4}, {"high", 8}, {"count", 2}},
      {{"low", 256}, {"high", 512}, {"count", 1}},
  });
  EXPECT_EQ(out["buckets"], expected_buckets) << out.dump();
  EXPECT_EQ(out.size(), 5u);
}

TEST(Histogram, TopBucketReachesTheEndOfTheRange) {
  Histogram huge{"t.hist.huge", "", ""};
  huge.sample(1ull << 63);
  ASSERT_EQ(huge.buckets().size(), 65u);
  EXPECT_EQ(huge.buckets()[64], 1u);
  json bucket = huge.to_json()["buckets"][0];
  EXPECT_EQ(bucket["low"].get<std::uint64_t>(), 1ull << 63);
  EXPECT_EQ(bucket["high"].get<std::uint64_t>(), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(huge.max(), 1ull << 63);
}

TEST(StatisticsRegistry, JsonMapsNamesToValuesInNameOrder) {
  Counter b{"t.registry.b", "", ""};
  Counter a{"t.registry.a", "", ""};
  Histogram h{"t.registry.h", "", ""};
  DerivedStatistic d{"t.registry.d", "", "", [] { return 2.5; }};
  a += 3;
  b += 4;
  h.sample(9);

  json out = registry().to_json();
  ASSERT_TRUE(out.is_object());
  EXPECT_EQ(out["t.registry.a"], json(3));
  EXPECT_EQ(out["t.registry.b"], json(4));
  EXPECT_DOUBLE_EQ(out["t.registry.d"].get<double>(), 2.5);
  EXPECT_EQ(out["t.registry.h"]["count"], json(1));
  EXPECT_EQ(out["t.registry.h"]["max"], json(9));

  std::string text = out.dump();
  EXPECT_LT(text.find("\"t.registry.a\""), text.find("\"t.registry.b\""));
  EXPECT_LT(text.find("\"t.registry.b\""), text.find("\"t.registry.d\""));
  EXPECT_LT(text.find("\"t.registry.d\""), text.find("\"t.registry.h\""));

  std::vector<std::string> names;
  for (const auto* statistic : registry().all()) names.push_back(statistic->name());
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_NE(std::find(names.begin(), names.end(), "t.registry.h"), names.end());
}

TEST(StatisticsRegistry, TableSkipsZeroEntriesUnlessAsked) {
  Counter used{"t.table.used", "bytes", ""};
  Counter unused{"t.table.unused", "", ""};
  Histogram empty{"t.table.empty_histogram", "cycles", ""};
  Histogram filled{"t.table.filled_histogram", "cycles", ""};
  DerivedStatistic zero{"t.table.zero_ratio", "", "", [] { return 0.0; }};
  DerivedStatistic half{"t.table.half_ratio", "", "", [] { return 0.5; }};
  used += 1234;
  filled.sample(3);

  std::ostringstream brief;
  registry().print_table(brief);
  std::string table = brief.str();
  std::string line = table_line(table, "t.table.used");
  ASSERT_FALSE(line.empty()) << table;
  EXPECT_NE(line.find("1234 bytes"), std::string::npos) << line;
  EXPECT_NE(table_line(table, "t.table.filled_histogram").find("n=1 min=3 mean=3 max=3 cycles"),
            std::string::npos)
      << table;
  EXPECT_NE(table_line(table, "t.table.half_ratio").find("0.5"), std::string::npos) << table;
  EXPECT_EQ(table_line(table, "t.table.unused"), "") << table;
  EXPECT_EQ(table_line(table, "t.table.empty_histogram"), "") << table;
  EXPECT_EQ(table_line(table, "t.table.zero_ratio"), "") << table;

  std::ostringstream full;
  registry().print_table(full, true);
  table = full.str();
  EXPECT_NE(table_line(table, "t.table.unused"), "") << table;
  EXPECT_NE(table_line(table, "t.table.empty_histogram").find("n=0"), std::string::npos) << table;
  EXPECT_NE(table_line(table, "t.table.zero_ratio"), "") << table;
  EXPECT_NE(table_line(table, "t.table.used"), "") << table;
}

TEST(StatisticsRegistry, TableColumnsAreAligned) {
  Counter shorter{"t.align.a", "", ""};
  Counter longer{"t.align.a_much_longer_name", "", ""};
  shorter += 1;
  longer += 123456;
  std::ostringstream out;
  registry().print_table(out);
  std::string first = table_line(out.str(), "t.align.a");
  std::string second = table_line(out.str(), "t.align.a_much_longer_name");
  ASSERT_FALSE(first.empty());
  ASSERT_FALSE(second.empty());
  // Values are right-aligned in one column: without units the lines end together.
  EXPECT_EQ(first.size(), second.size()) << "'" << first << "'\n'" << second << "'";
  EXPECT_EQ(first.back(), '1');
  EXPECT_EQ(second.substr(second.size() - 6), "123456");
}

TEST(StatisticsRegistry, DuplicateNamesAreRejected) {
  Counter first{"t.dup.count", "", ""};
  try {
    Counter second{"t.dup.count", "", ""};
    FAIL() << "a second statistic with the same name was accepted";
  } catch (const SimulationError& error) {
    EXPECT_NE(std::string(error.what()).find("t.dup.count"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("declared twice"), std::string::npos) << error.what();
  }
  EXPECT_THROW((Histogram{"t.dup.count", "", ""}), SimulationError);
  EXPECT_EQ(registry().find("t.dup.count"), &first);
}

TEST(StatisticsRegistry, DestructionUnregisters) {
  {
    Counter scoped{"t.scoped.count", "", ""};
    EXPECT_EQ(registry().find("t.scoped.count"), &scoped);
  }
  EXPECT_EQ(registry().find("t.scoped.count"), nullptr);
  EXPECT_FALSE(registry().to_json().contains("t.scoped.count"));
  Counter again{"t.scoped.count", "", ""};
  EXPECT_EQ(registry().find("t.scoped.count"), &again);
}

}  // namespace
}  // namespace npuvp
