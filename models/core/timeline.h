// Timeline: a trace of what the models do over simulated time, written as
// Chrome trace-event JSON that ui.perfetto.dev and chrome://tracing open
// (`npuvp run --trace FILE`, docs/observability.md).
//
// Models ask `Timeline::instance().enabled()` (an inline load and compare:
// nothing else costs anything while tracing is off) and then add slices
// (something that took time: an instruction in a pipe, a task block) or
// instants (a notification) to a track. A track is one row of the timeline,
// grouped under a component: group "soc.aicore0", track "M (Cube)".
//
// Events are streamed to the file as they come (a buffered ofstream), so a
// long run needs no memory for its trace; close() ends the JSON document and
// is safe to call on any exit path. Times are absolute simulated times,
// written in microseconds with picosecond precision (the format's unit).
#pragma once

#include <systemc>

#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace npuvp {

class Timeline {
 public:
  static Timeline& instance();

  bool enabled() const { return out_ != nullptr; }
  // Starts writing to `path`; throws ConfigError when the file cannot be created.
  void open(const std::string& path);
  // Ends the document and closes the file (does nothing when not open).
  void close();
  // Called by close() before the document ends (once), for models that write
  // their open slices then (e.g. a core still running, cpu/core_activity.h).
  void on_close(std::function<void()> finish) { closers_.push_back(std::move(finish)); }

  // The id of the track `name` in group `group`, created on first use.
  int track(const std::string& group, const std::string& name);

  // Arguments shown with an event: "key": value pairs, values already JSON
  // (numbers, or quoted strings: use quoted()).
  using Arguments = std::initializer_list<std::pair<const char*, std::string>>;
  static std::string quoted(const std::string& text);
  static std::string hex(std::uint64_t value);

  // Something on `track` from `begin` to `end`.
  void slice(int track, const std::string& name, const sc_core::sc_time& begin, const sc_core::sc_time& end,
             Arguments arguments = {});
  // A point event on `track` at `at`.
  void instant(int track, const std::string& name, const sc_core::sc_time& at, Arguments arguments = {});
  // A flow arrow (Chrome trace "s"/"f" events) from the slice enclosing
  // `from` on `from_track` to the slice enclosing `to` on `to_track`.
  void flow(const std::string& name, int from_track, const sc_core::sc_time& from, int to_track,
            const sc_core::sc_time& to);

  // Places a slice [begin, end) of `group` on the first row "name", "name 2",
  // ... whose last slice ended by `begin`, so that overlapping slices (e.g.
  // concurrent transactions of one initiator) never share a row.
  int lane(const std::string& group, const std::string& name, const sc_core::sc_time& begin,
           const sc_core::sc_time& end);

  std::uint64_t events() const { return events_; }

 private:
  Timeline() = default;
  void begin_event();
  void write_time(const sc_core::sc_time& time);
  void write_arguments(Arguments arguments);

  std::unique_ptr<std::ofstream> out_;
  std::string path_;
  std::map<std::string, int> groups_;                    // group -> pid
  std::map<std::pair<int, std::string>, int> tracks_;    // (pid, name) -> tid
  std::map<int, int> track_group_;                       // tid -> pid
  int next_track_ = 1;
  std::uint64_t events_ = 0;
  std::uint64_t next_flow_ = 1;
  std::vector<std::function<void()>> closers_;
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<int, sc_core::sc_time>>> lanes_;
};

}  // namespace npuvp
