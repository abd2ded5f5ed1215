#include "core/region_of_interest.h"

#include <utility>

namespace npuvp {

RegionOfInterest::RegionOfInterest(std::string prefix, std::vector<std::string> measured)
    : prefix_(std::move(prefix)), own_statistics_(prefix_ + "."), measured_(std::move(measured)) {}

RegionOfInterest::~RegionOfInterest() = default;

bool RegionOfInterest::measured(const std::string& name) const {
  if (name.compare(0, own_statistics_.size(), own_statistics_) == 0) return false;
  for (const std::string& start : measured_)
    if (name.compare(0, start.size(), start) == 0) return true;
  return false;
}

template <typename Visit>
void RegionOfInterest::read_all(Visit&& visit) const {
  for (const Statistic* statistic : StatisticsRegistry::instance().all()) {
    if (!measured(statistic->name())) continue;
    if (const auto* histogram = dynamic_cast<const Histogram*>(statistic)) {
      visit(statistic->name() + ".count", static_cast<double>(histogram->count()), true, histogram);
      visit(statistic->name() + ".sum", static_cast<double>(histogram->sum()), true, histogram);
    } else if (const auto* counter = dynamic_cast<const Counter*>(statistic)) {
      visit(statistic->name(), static_cast<double>(counter->value()), true, nullptr);
    } else if (const auto* derived = dynamic_cast<const DerivedStatistic*>(statistic)) {
      if (derived->additive()) visit(statistic->name(), derived->value(), derived->integral(), nullptr);
    }
  }
}

void RegionOfInterest::begin(const sc_core::sc_time& at) {
  if (open_ || finished_) return;
  read_all([this](const std::string& key, double value, bool integral, const Histogram* histogram) {
    Quantity& quantity = quantities_[key];
    quantity.at_begin = value;
    quantity.integral = integral;
    if (histogram) histograms_[histogram->name()] = histogram;
  });
  // A quantity not measured now (registered since the last region) starts at 0.
  if (regions_ == 0) first_begin_ = at;
  open_ = true;
  opened_at_ = at;
}

void RegionOfInterest::end(const sc_core::sc_time& at) {
  if (!open_ || finished_) return;
  read_all([this](const std::string& key, double value, bool integral, const Histogram* histogram) {
    auto found = quantities_.find(key);
    if (found == quantities_.end()) {  // registered during the region: it was 0 at its begin
      found = quantities_.emplace(key, Quantity{}).first;
      found->second.integral = integral;
      if (histogram) histograms_[histogram->name()] = histogram;
    }
    found->second.total += value - found->second.at_begin;
  });
  open_ = false;
  ++regions_;
  last_end_ = at;
  if (at > opened_at_) inside_ += at - opened_at_;
}

double RegionOfInterest::value(const std::string& name) const {
  auto found = quantities_.find(name);
  return found == quantities_.end() ? 0.0 : found->second.total;
}

void RegionOfInterest::finish(const sc_core::sc_time& at) {
  if (finished_) return;
  if (open_) end(at);
  finished_ = true;
  if (regions_ > 0) register_statistics();
}

void RegionOfInterest::register_statistics() {
  auto add = [this](const std::string& local, const std::string& unit, const std::string& doc, double value,
                    bool integral) {
    statistics_.push_back(std::make_unique<DerivedStatistic>(prefix_ + "." + local, unit, doc,
                                                             [value] { return value; }, integral));
  };
  const std::string in_region = "in the region of interest: ";
  for (const auto& [key, quantity] : quantities_) {
    if (histograms_.count(key.substr(0, key.rfind('.')))) continue;  // below
    const Statistic* source = StatisticsRegistry::instance().find(key);
    add(key, source ? source->unit() : "", in_region + (source ? source->doc() : key), quantity.total,
        quantity.integral);
  }
  for (const auto& [name, histogram] : histograms_) {
    const double count = quantities_[name + ".count"].total, sum = quantities_[name + ".sum"].total;
    add(name + ".count", "", in_region + "samples of " + name, count, true);
    add(name + ".mean", histogram->unit(), in_region + "mean of " + name, count > 0 ? sum / count : 0.0, false);
  }
  add("regions", "", "regions of interest the program marked (roi_begin .. roi_end)", regions_, true);
  add("seconds", "s", "simulated time inside the regions of interest", inside_.to_seconds(), false);
  add("begin_seconds", "s", "simulated time of the first region's begin", first_begin_.to_seconds(), false);
  add("end_seconds", "s", "simulated time of the last region's end", last_end_.to_seconds(), false);
}

}  // namespace npuvp
