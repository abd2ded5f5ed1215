#include "core/waveform.h"

#include "core/simulation.h"

#include <fnmatch.h>

#include <algorithm>
#include <fstream>
#include <functional>

namespace npuvp {
namespace {

// VCD identifier codes: base-94 strings of the printable characters '!'..'~'.
std::string identifier(std::size_t index) {
  std::string code;
  do {
    code += static_cast<char>('!' + index % 94);
    index /= 94;
  } while (index);
  return code;
}

std::string binary(std::uint64_t value, unsigned width) {
  std::string bits;
  for (unsigned bit = width; bit-- > 0;) bits += (value >> bit) & 1 ? '1' : '0';
  const auto first_one = bits.find('1');  // VCD allows leading zeros to be dropped
  return first_one == std::string::npos ? "0" : bits.substr(first_one);
}

// A scope tree built from the dotted names.
struct Scope {
  std::map<std::string, Scope> children;
  std::vector<std::pair<std::string, int>> variables;  // (last name component, signal id)
};

}  // namespace

Waveform& Waveform::instance() {
  static Waveform waveform;
  return waveform;
}

void Waveform::open(const std::string& path, std::vector<std::string> patterns) {
  if (!std::ofstream(path, std::ios::trunc)) throw ConfigError("--vcd: cannot create '" + path + "'");
  path_ = path;
  patterns_ = std::move(patterns);
  signals_.clear();
  ids_.clear();
  changes_.clear();
  enabled_ = true;
}

int Waveform::signal(const std::string& name, unsigned width) {
  if (!enabled_) return -1;
  auto found = ids_.find(name);
  if (found != ids_.end()) return found->second;
  bool selected = patterns_.empty() ||
                  std::any_of(patterns_.begin(), patterns_.end(),
                              [&](const std::string& pattern) { return fnmatch(pattern.c_str(), name.c_str(), 0) == 0; });
  int id = -1;
  if (selected) {
    id = static_cast<int>(signals_.size());
    signals_.push_back({name, std::clamp(width, 1u, 64u)});
  }
  ids_.emplace(name, id);
  return id;
}

void Waveform::close() {
  if (!enabled_) return;
  enabled_ = false;
  std::ofstream out(path_, std::ios::trunc);
  out << "$date npuvp $end\n$version npuvp waveform $end\n$timescale 1 ps $end\n";
  Scope root;
  for (std::size_t id = 0; id < signals_.size(); ++id) {
    const std::string& name = signals_[id].name;
    Scope* scope = &root;
    std::size_t begin = 0, dot;
    while ((dot = name.find('.', begin)) != std::string::npos) {
      scope = &scope->children[name.substr(begin, dot - begin)];
      begin = dot + 1;
    }
    scope->variables.emplace_back(name.substr(begin), static_cast<int>(id));
  }
  std::function<void(const std::string&, const Scope&)> write_scope = [&](const std::string& name, const Scope& scope) {
    if (!name.empty()) out << "$scope module " << name << " $end\n";
    for (const auto& [variable, id] : scope.variables)
      out << "$var wire " << signals_[id].width << ' ' << identifier(id) << ' ' << variable << " $end\n";
    for (const auto& [child, inner] : scope.children) write_scope(child, inner);
    if (!name.empty()) out << "$upscope $end\n";
  };
  write_scope("", root);
  out << "$enddefinitions $end\n#0\n$dumpvars\n";
  for (std::size_t id = 0; id < signals_.size(); ++id)
    out << (signals_[id].width == 1 ? "0" : "b0 ") << identifier(id) << '\n';
  out << "$end\n";

  // Scale: the kernel's resolution in picoseconds (1 for the default 1 ps).
  const double ps_per_tick = sc_core::sc_get_time_resolution().to_seconds() * 1e12;
  std::stable_sort(changes_.begin(), changes_.end(), [](const Change& a, const Change& b) { return a.time < b.time; });
  std::vector<std::uint64_t> current(signals_.size(), 0);
  sc_core::sc_time::value_type written_time = 0;
  for (std::size_t i = 0; i < changes_.size();) {
    // All reports at one time: the last per signal wins; write only real changes.
    std::size_t end = i;
    while (end < changes_.size() && changes_[end].time == changes_[i].time) ++end;
    std::map<std::uint32_t, std::uint64_t> final_values;
    for (std::size_t k = i; k < end; ++k) {
      const Change& c = changes_[k];
      auto [entry, inserted] = final_values.emplace(c.signal, current[c.signal]);
      entry->second = c.delta ? entry->second + c.value : c.value;  // two's complement: a negative delta subtracts
    }
    bool time_written = false;
    for (const auto& [signal, value] : final_values) {
      if (current[signal] == value) continue;
      current[signal] = value;
      if (!time_written && changes_[i].time != written_time) {
        out << '#' << static_cast<std::uint64_t>(static_cast<double>(changes_[i].time) * ps_per_tick) << '\n';
        written_time = changes_[i].time;
      }
      time_written = true;
      if (signals_[signal].width == 1) out << (value & 1) << identifier(signal) << '\n';
      else out << 'b' << binary(value, signals_[signal].width) << ' ' << identifier(signal) << '\n';
    }
    i = end;
  }
  changes_.clear();
  changes_.shrink_to_fit();
}

}  // namespace npuvp
