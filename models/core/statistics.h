// Statistics registry: counters, derived values and histograms with
// hierarchical names (soc.cpu.instructions), dumped as JSON and as a table.
// Models keep hot counters as plain integers; the registry only reads them at
// dump time, so statistics cost nothing on fast paths.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace npuvp {

class Statistic {
 public:
  Statistic(std::string name, std::string unit, std::string doc);
  virtual ~Statistic();
  Statistic(const Statistic&) = delete;
  Statistic& operator=(const Statistic&) = delete;

  const std::string& name() const { return name_; }
  const std::string& unit() const { return unit_; }
  const std::string& doc() const { return doc_; }
  virtual nlohmann::json to_json() const = 0;
  virtual std::string to_text() const = 0;
  // Whether the value adds up over time (a count, cycles, joules), so that
  // the value of a part of the run is the difference of the values at its
  // edges (core/region_of_interest.h); a ratio or a maximum does not.
  virtual bool additive() const { return false; }

 private:
  std::string name_, unit_, doc_;
};

// A counter the owner increments.
class Counter : public Statistic {
 public:
  using Statistic::Statistic;
  Counter& operator+=(std::uint64_t amount) {
    value_ += amount;
    return *this;
  }
  Counter& operator++() {
    ++value_;
    return *this;
  }
  std::uint64_t value() const { return value_; }
  nlohmann::json to_json() const override { return value_; }
  std::string to_text() const override { return std::to_string(value_); }
  bool additive() const override { return true; }

 private:
  std::uint64_t value_ = 0;
};

// A value computed when statistics are read (e.g. from a model's own integer,
// or a ratio of two counters). An integral value counts something and is
// additive; a fractional one is not (a ratio) unless set_additive() says so
// (joules, seconds).
class DerivedStatistic : public Statistic {
 public:
  DerivedStatistic(std::string name, std::string unit, std::string doc,
                   std::function<double()> compute, bool integral = false);
  nlohmann::json to_json() const override;
  std::string to_text() const override;
  bool additive() const override { return additive_; }
  void set_additive(bool additive) { additive_ = additive; }
  double value() const { return compute_(); }
  bool integral() const { return integral_; }

 private:
  std::function<double()> compute_;
  bool integral_;
  bool additive_;
};

// Histogram with power-of-two buckets: bucket i counts samples in [2^(i-1), 2^i),
// bucket 0 counts zeros. Good for latencies spanning orders of magnitude.
class Histogram : public Statistic {
 public:
  using Statistic::Statistic;
  // Inline: models sample on every transaction. The bucket vector grows (out
  // of line) only when a sample lands above every bucket so far.
  void sample(std::uint64_t value) {
    const std::size_t bucket = value == 0 ? 0 : 64 - __builtin_clzll(value);
    if (bucket >= buckets_.size()) grow(bucket);
    ++buckets_[bucket];
    ++count_;
    sum_ += value;
    if (value < min_) min_ = value;
    if (value > max_) max_ = value;
  }
  std::uint64_t count() const { return count_; }
  std::uint64_t min() const { return count_ ? min_ : 0; }
  std::uint64_t max() const { return max_; }
  std::uint64_t sum() const { return sum_; }
  double mean() const { return count_ ? static_cast<double>(sum_) / count_ : 0.0; }
  const std::vector<std::uint64_t>& buckets() const { return buckets_; }
  nlohmann::json to_json() const override;
  std::string to_text() const override;

 private:
  void grow(std::size_t bucket);  // makes `bucket` the last bucket

  std::vector<std::uint64_t> buckets_;
  std::uint64_t count_ = 0, sum_ = 0, min_ = UINT64_MAX, max_ = 0;
};

class StatisticsRegistry {
 public:
  static StatisticsRegistry& instance();
  std::vector<const Statistic*> all() const;  // sorted by name
  const Statistic* find(const std::string& name) const;
  // {"name": value, ...} in name order.
  nlohmann::json to_json() const;
  // An aligned table; zero-valued entries are skipped unless `include_zero`.
  void print_table(std::ostream& out, bool include_zero = false) const;

 private:
  friend class Statistic;
  std::map<std::string, Statistic*> statistics_;
};

}  // namespace npuvp
