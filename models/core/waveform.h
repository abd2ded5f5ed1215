// Waveform: value changes of model signals over simulated time, written as a
// VCD file that GTKWave opens (`npuvp run --vcd FILE`, docs/observability.md).
//
// Models hold no sc_signals on their fast paths, so they report changes
// themselves: `Waveform::instance().enabled()` is an inline test, and
// `change(signal, time, value)` records one. Signals are named hierarchically
// ("soc.aicore0.pipe.m.busy") and selected by shell patterns given to open();
// a signal that matches none is never recorded (signal() returns -1 and
// change() ignores it).
//
// Under temporal decoupling models report changes out of time order, so the
// changes are kept in memory (24 bytes each) and sorted by time when the file
// is written at close(); equal times keep their report order, so the last
// report of a signal at one time wins. Only changes are stored: an idle model
// costs nothing.
#pragma once

#include <systemc>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace npuvp {

class Waveform {
 public:
  static Waveform& instance();

  bool enabled() const { return enabled_; }
  // Starts recording; `patterns` select signals (fnmatch on the full name),
  // empty = all. Throws ConfigError when `path` cannot be created.
  void open(const std::string& path, std::vector<std::string> patterns);
  // Writes the file (every recorded change, sorted by time) and stops.
  void close();

  // The id of the signal `name` of `width` bits (1..64), or -1 when the
  // patterns exclude it or no waveform is open. Same name: same id.
  int signal(const std::string& name, unsigned width);
  void change(int signal, const sc_core::sc_time& at, std::uint64_t value) {
    if (signal >= 0) changes_.push_back({at.value(), static_cast<std::uint32_t>(signal), false, value});
  }
  // Adds `delta` to the signal's value at `at`. For activity that may be
  // reported out of time order (a link busy from begin to end: +1 at begin,
  // -1 at end): deltas at one time commute, so the value is right whatever
  // the report order.
  void adjust(int signal, const sc_core::sc_time& at, std::int64_t delta) {
    if (signal >= 0)
      changes_.push_back({at.value(), static_cast<std::uint32_t>(signal), true, static_cast<std::uint64_t>(delta)});
  }

  std::size_t change_count() const { return changes_.size(); }

 private:
  Waveform() = default;
  struct Signal {
    std::string name;
    unsigned width;
  };
  struct Change {
    sc_core::sc_time::value_type time;
    std::uint32_t signal;
    bool delta;            // value is a signed delta (adjust) rather than a value (change)
    std::uint64_t value;
  };

  bool enabled_ = false;
  std::string path_;
  std::vector<std::string> patterns_;
  std::vector<Signal> signals_;
  std::map<std::string, int> ids_;
  std::vector<Change> changes_;
};

}  // namespace npuvp
