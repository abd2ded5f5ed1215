#include "core/statistics.h"

#include "core/simulation.h"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace npuvp {

Statistic::Statistic(std::string name, std::string unit, std::string doc)
    : name_(std::move(name)), unit_(std::move(unit)), doc_(std::move(doc)) {
  auto& all = StatisticsRegistry::instance().statistics_;
  if (all.count(name_))
    throw SimulationError(ExitStatus::kInternalError, "statistic '" + name_ + "' is declared twice");
  all[name_] = this;
}

Statistic::~Statistic() {
  auto& all = StatisticsRegistry::instance().statistics_;
  auto found = all.find(name_);
  if (found != all.end() && found->second == this) all.erase(found);
}

DerivedStatistic::DerivedStatistic(std::string name, std::string unit, std::string doc,
                                   std::function<double()> compute, bool integral)
    : Statistic(std::move(name), std::move(unit), std::move(doc)),
      compute_(std::move(compute)),
      integral_(integral),
      additive_(integral) {}

nlohmann::json DerivedStatistic::to_json() const {
  double value = compute_();
  if (integral_) return static_cast<std::uint64_t>(value);
  if (!std::isfinite(value)) return nullptr;
  return value;
}

std::string DerivedStatistic::to_text() const {
  double value = compute_();
  std::ostringstream text;
  if (integral_) text << static_cast<std::uint64_t>(value);
  else text << std::setprecision(6) << value;
  return text.str();
}

void Histogram::grow(std::size_t bucket) { buckets_.resize(bucket + 1, 0); }

nlohmann::json Histogram::to_json() const {
  nlohmann::json buckets = nlohmann::json::array();
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    if (!buckets_[i]) continue;
    std::uint64_t low = i == 0 ? 0 : 1ull << (i - 1);
    std::uint64_t high = i == 0 ? 1 : (i >= 64 ? UINT64_MAX : 1ull << i);
    buckets.push_back({{"low", low}, {"high", high}, {"count", buckets_[i]}});
  }
  return {{"count", count_}, {"min", min()}, {"max", max_}, {"mean", mean()}, {"buckets", buckets}};
}

std::string Histogram::to_text() const {
  std::ostringstream text;
  text << "n=" << count_ << " min=" << min() << " mean=" << std::setprecision(4) << mean()
       << " max=" << max_;
  return text.str();
}

StatisticsRegistry& StatisticsRegistry::instance() {
  static StatisticsRegistry registry;
  return registry;
}

std::vector<const Statistic*> StatisticsRegistry::all() const {
  std::vector<const Statistic*> result;
  for (const auto& [name, statistic] : statistics_) result.push_back(statistic);
  return result;
}

const Statistic* StatisticsRegistry::find(const std::string& name) const {
  auto found = statistics_.find(name);
  return found == statistics_.end() ? nullptr : found->second;
}

nlohmann::json StatisticsRegistry::to_json() const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, statistic] : statistics_) out[name] = statistic->to_json();
  return out;
}

void StatisticsRegistry::print_table(std::ostream& out, bool include_zero) const {
  std::size_t width = 10;
  for (const auto& [name, statistic] : statistics_) width = std::max(width, name.size());
  for (const auto& [name, statistic] : statistics_) {
    std::string value = statistic->to_text();
    if (!include_zero && (value == "0" || value.rfind("n=0 ", 0) == 0)) continue;
    out << "  " << std::left << std::setw(static_cast<int>(width)) << name << "  " << std::right
        << std::setw(16) << value;
    if (!statistic->unit().empty()) out << " " << statistic->unit();
    out << "\n";
  }
}

}  // namespace npuvp
