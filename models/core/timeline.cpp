#include "core/timeline.h"

#include "core/simulation.h"

#include <algorithm>
#include <cstdio>

namespace npuvp {

Timeline& Timeline::instance() {
  static Timeline timeline;
  return timeline;
}

void Timeline::open(const std::string& path) {
  close();
  auto out = std::make_unique<std::ofstream>(path, std::ios::binary | std::ios::trunc);
  if (!*out) throw ConfigError("--trace: cannot create '" + path + "'");
  *out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  out_ = std::move(out);
  path_ = path;
  groups_.clear();
  tracks_.clear();
  track_group_.clear();
  next_track_ = 1;
  events_ = 0;
  next_flow_ = 1;
  lanes_.clear();
}

void Timeline::close() {
  if (!out_) return;
  std::vector<std::function<void()>> closers = std::move(closers_);
  closers_.clear();
  for (auto& finish : closers) finish();
  *out_ << "\n]}\n";
  out_->close();
  out_.reset();
}

std::string Timeline::quoted(const std::string& text) {
  std::string result = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      result += '\\';
      result += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned char>(c));
      result += escaped;
    } else {
      result += c;
    }
  }
  return result + "\"";
}

std::string Timeline::hex(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "\"0x%llx\"", static_cast<unsigned long long>(value));
  return text;
}

void Timeline::begin_event() {
  if (events_++) *out_ << ",\n";
}

void Timeline::write_time(const sc_core::sc_time& time) {
  // Microseconds with six decimals: picosecond resolution, exact for the
  // kernel's default resolution.
  const std::uint64_t ps = static_cast<std::uint64_t>(time.to_seconds() * 1e12 + 0.5);
  char text[40];
  std::snprintf(text, sizeof text, "%llu.%06llu", static_cast<unsigned long long>(ps / 1000000),
                static_cast<unsigned long long>(ps % 1000000));
  *out_ << text;
}

void Timeline::write_arguments(Arguments arguments) {
  if (arguments.size() == 0) return;
  *out_ << ",\"args\":{";
  bool first = true;
  for (const auto& [key, value] : arguments) {
    *out_ << (first ? "" : ",") << '"' << key << "\":" << value;
    first = false;
  }
  *out_ << '}';
}

int Timeline::track(const std::string& group, const std::string& name) {
  auto [group_entry, new_group] = groups_.emplace(group, static_cast<int>(groups_.size()) + 1);
  const int pid = group_entry->second;
  if (new_group && out_) {
    begin_event();
    *out_ << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << pid << ",\"tid\":0,\"args\":{\"name\":"
          << quoted(group) << "}}";
    begin_event();
    *out_ << "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" << pid
          << ",\"tid\":0,\"args\":{\"sort_index\":" << pid << "}}";
  }
  auto [track_entry, new_track] = tracks_.emplace(std::make_pair(pid, name), next_track_);
  if (new_track) {
    const int tid = next_track_++;
    track_group_[tid] = pid;
    if (out_) {
      begin_event();
      *out_ << "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" << pid << ",\"tid\":" << tid
            << ",\"args\":{\"name\":" << quoted(name) << "}}";
      begin_event();
      *out_ << "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":" << pid << ",\"tid\":" << tid
            << ",\"args\":{\"sort_index\":" << tid << "}}";
    }
  }
  return track_entry->second;
}

void Timeline::slice(int track, const std::string& name, const sc_core::sc_time& begin, const sc_core::sc_time& end,
                     Arguments arguments) {
  if (!out_) return;
  begin_event();
  *out_ << "{\"ph\":\"X\",\"name\":" << quoted(name) << ",\"pid\":" << track_group_[track] << ",\"tid\":" << track
        << ",\"ts\":";
  write_time(begin);
  *out_ << ",\"dur\":";
  write_time(end > begin ? end - begin : sc_core::SC_ZERO_TIME);
  write_arguments(arguments);
  *out_ << '}';
}

void Timeline::instant(int track, const std::string& name, const sc_core::sc_time& at, Arguments arguments) {
  if (!out_) return;
  begin_event();
  *out_ << "{\"ph\":\"i\",\"s\":\"t\",\"name\":" << quoted(name) << ",\"pid\":" << track_group_[track]
        << ",\"tid\":" << track << ",\"ts\":";
  write_time(at);
  write_arguments(arguments);
  *out_ << '}';
}

void Timeline::flow(const std::string& name, int from_track, const sc_core::sc_time& from, int to_track,
                    const sc_core::sc_time& to) {
  if (!out_) return;
  const std::uint64_t id = next_flow_++;
  begin_event();
  *out_ << "{\"ph\":\"s\",\"cat\":\"flow\",\"id\":" << id << ",\"name\":" << quoted(name)
        << ",\"pid\":" << track_group_[from_track] << ",\"tid\":" << from_track << ",\"ts\":";
  write_time(from);
  *out_ << '}';
  // "bp":"e": bind to the slice enclosing `to`, not to the next slice.
  begin_event();
  *out_ << "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"flow\",\"id\":" << id << ",\"name\":" << quoted(name)
        << ",\"pid\":" << track_group_[to_track] << ",\"tid\":" << to_track << ",\"ts\":";
  write_time(to);
  *out_ << '}';
}

int Timeline::lane(const std::string& group, const std::string& name, const sc_core::sc_time& begin,
                   const sc_core::sc_time& end) {
  auto& rows = lanes_[{group, name}];
  for (auto& [row, last_end] : rows)
    if (last_end <= begin) {
      last_end = std::max(last_end, end);
      return row;
    }
  const int row = track(group, rows.empty() ? name : name + " " + std::to_string(rows.size() + 1));
  rows.emplace_back(row, end);
  return row;
}

}  // namespace npuvp
