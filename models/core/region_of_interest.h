// RegionOfInterest: the statistics of the part of a run that the program
// marks, reported beside the whole run's (docs/observability.md, "Region of
// interest"). Firmware marks the edges (on the SoC: the sim-control
// finisher's region-of-interest register, roi_begin()/roi_end() of the SMP
// runtime); at each edge every additive statistic (Statistic::additive())
// whose name starts with one of the measured prefixes is read, and at the end
// of the run each gets a statistic `<prefix>.<name>` = the sum over the
// regions of (value at the region's end − value at its begin). Histograms
// give `<prefix>.<name>.count` and `.mean`. Ratios and other non-additive
// values have no region figure. A statistic registered during a region (a
// mesh message type first sent there) counts from 0.
//
// Regions: begin() while a region is open and end() while none is are
// ignored (the first begin and the first end count); several regions add up.
// A region still open at the end of the run ends there. A run without a
// begin reports no `<prefix>.*` statistic at all.
//
// Time: the edges are the marking core's local time (under temporal
// decoupling other cores may be up to a quantum away from it, docs/cluster.md
// "Time"); `<prefix>.seconds` is the simulated time inside the regions,
// `<prefix>.regions` their number, `<prefix>.begin_seconds` / `.end_seconds`
// the first begin and the last end.
#pragma once

#include "core/statistics.h"

#include <systemc>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace npuvp {

class RegionOfInterest {
 public:
  // Statistics `<prefix>.<name>` for the statistics whose names start with
  // one of `measured` (e.g. {"soc."}).
  RegionOfInterest(std::string prefix, std::vector<std::string> measured);
  ~RegionOfInterest();

  void begin(const sc_core::sc_time& at);
  void end(const sc_core::sc_time& at);
  // Ends an open region at `at` and registers the region's statistics (once;
  // nothing when no region began). Call before the statistics are written.
  void finish(const sc_core::sc_time& at);

  bool open() const { return open_; }
  unsigned regions() const { return regions_; }
  // The region figure of statistic `name` so far (closed regions only), 0 if none.
  double value(const std::string& name) const;

 private:
  // One additive quantity: a statistic's value, or a histogram's count or sum.
  struct Quantity {
    double total = 0;     // over the closed regions
    double at_begin = 0;  // at the open region's begin
    bool integral = true;
  };
  // Calls `visit(key, value, integral)` for every measured quantity now.
  template <typename Visit>
  void read_all(Visit&& visit) const;
  bool measured(const std::string& name) const;
  void register_statistics();

  std::string prefix_;
  std::string own_statistics_;  // "<prefix>.": the names of our own figures start so
  std::vector<std::string> measured_;
  std::map<std::string, Quantity> quantities_;  // key: statistic name, or "<histogram>.count" / ".sum"
  std::map<std::string, const Histogram*> histograms_;
  bool open_ = false, finished_ = false;
  unsigned regions_ = 0;
  sc_core::sc_time opened_at_, first_begin_, last_end_, inside_;
  std::vector<std::unique_ptr<Statistic>> statistics_;
};

}  // namespace npuvp
