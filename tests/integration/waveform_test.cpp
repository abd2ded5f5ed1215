// `npuvp run --vcd FILE`: the waveform is a VCD file whose signals agree with
// the statistics of the same run: the time a pipe's `busy` is high is the
// pipe's busy cycles, the time a ring link's `busy` is high its busy cycles.
#include "integration/run_npuvp.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <map>
#include <sstream>
#include <string>

using namespace npuvp::test_support;
using ::testing::HasSubstr;

namespace {

// A small VCD reader: for each signal (full dotted name) the total time it
// was non-zero, and how many times it rose.
struct Trace {
  std::map<std::string, double> high_ps;
  std::map<std::string, unsigned> rises;
  std::map<std::string, std::uint64_t> peak, last;  // largest and final value
  std::map<std::string, double> area_ps;  // integral of the value over time (value x ps)
  bool timescale_1ps = false;
};

Trace read_vcd(const std::string& text) {
  Trace trace;
  std::map<std::string, std::string> names;  // identifier -> name
  std::map<std::string, std::uint64_t> value, since, changed_at;
  std::vector<std::string> scope;
  std::istringstream in(text);
  std::string word;
  std::uint64_t now = 0;
  auto set = [&](const std::string& id, std::uint64_t v) {
    const std::string& name = names.at(id);
    trace.area_ps[name] += static_cast<double>(value[id]) * static_cast<double>(now - changed_at[id]);
    changed_at[id] = now;
    if (value[id] && !v) trace.high_ps[name] += static_cast<double>(now - since[id]);
    if (!value[id] && v) {
      since[id] = now;
      ++trace.rises[name];
    }
    value[id] = v;
    trace.peak[name] = std::max(trace.peak[name], v);
    trace.last[name] = v;
  };
  while (in >> word) {
    if (word == "$timescale") {
      std::string one, unit;
      in >> one >> unit;
      trace.timescale_1ps = one == "1" && unit == "ps";
    } else if (word == "$scope") {
      std::string kind, name;
      in >> kind >> name;
      scope.push_back(name);
    } else if (word == "$upscope") {
      scope.pop_back();
    } else if (word == "$var") {
      std::string kind, width, id, name;
      in >> kind >> width >> id >> name;
      std::string full;
      for (const auto& part : scope) full += part + ".";
      names[id] = full + name;
    } else if (word[0] == '#') {
      now = std::stoull(word.substr(1));
    } else if (word[0] == 'b') {
      std::string id;
      in >> id;
      set(id, std::stoull(word.substr(1), nullptr, 2));
    } else if ((word[0] == '0' || word[0] == '1') && names.count(word.substr(1))) {
      set(word.substr(1), word[0] == '1');
    }
  }
  return trace;
}

TEST(Waveform, BusySignalsMatchThePipeAndLinkStatistics) {
  std::string vcd = temp_path("wave.vcd"), stats = temp_path("wave_stats.json");
  auto result = run_npuvp("run " + scenario("gemm-direct") + " --quiet --vcd " + vcd + " --stats " + stats);
  ASSERT_EQ(result.status, 0) << result.err;
  Trace trace = read_vcd(read_file(vcd));
  auto statistics = nlohmann::json::parse(read_file(stats))["statistics"];
  std::remove(vcd.c_str());
  std::remove(stats.c_str());
  EXPECT_TRUE(trace.timescale_1ps);
  unsigned compared = 0;
  for (const std::string core : {"soc.aicore0", "soc.aicore1"})
    for (const std::string pipe : {"cube", "vector", "mte1", "mte2", "mte3"}) {
      const double cycles = statistics[core + "." + pipe + ".busy_cycles"].get<double>();
      EXPECT_DOUBLE_EQ(trace.high_ps[core + ".pipe." + pipe + ".busy"], cycles * 1000) << core << " " << pipe;
      compared += cycles > 0;
    }
  EXPECT_EQ(compared, 10u);
  unsigned links = 0;
  for (const auto& [name, value] : statistics.items()) {
    const std::string suffix = ".busy_cycles";
    if (name.rfind("soc.ring.link.", 0) != 0 || name.size() < suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    const std::string signal = name.substr(0, name.size() - suffix.size()) + ".busy";
    EXPECT_DOUBLE_EQ(trace.high_ps[signal], value.get<double>() * 1000) << signal;  // 1 GHz ring
    links += value.get<double>() > 0;
  }
  EXPECT_GT(links, 3u);
  EXPECT_GE(trace.rises["soc.aicore0.done_irq"], 1u);
  // Event-flag counters: the GEMM's double-buffering token rings set and consume flags.
  unsigned flag_rises = 0;
  for (const auto& [name, rises] : trace.rises)
    if (name.rfind("soc.aicore0.flag.", 0) == 0) flag_rises += rises;
  EXPECT_GT(flag_rises, 10u);
  // Queue depths: the scalar unit runs ahead of the Cube and the MTEs, and
  // every queue has drained when the kernel ends.
  for (const char* pipe : {"cube", "mte1", "mte2"}) {
    std::string signal = std::string("soc.aicore0.pipe.") + pipe + ".queue_depth";
    ASSERT_TRUE(trace.peak.count(signal)) << signal;
    EXPECT_GE(trace.peak[signal], 2u) << signal;
    EXPECT_LE(trace.peak[signal], 16u) << signal;  // soc.aicore0.queue_depth
    EXPECT_EQ(trace.last[signal], 0u) << signal;
  }
}

// The task scheduler's state: it sleeps in WFI between doorbells and
// interrupts, and so does the host while it waits for completions.
TEST(Waveform, CoresSleepingInWfiAreSignals) {
  std::string path = temp_path("wfi.vcd");
  auto result = run_npuvp("run " + scenario("gemm-offload") + " --quiet --vcd " + path + " --vcd-match '*.wfi'");
  ASSERT_EQ(result.status, 0) << result.err;
  Trace trace = read_vcd(read_file(path));
  EXPECT_GE(trace.rises["soc.ts.wfi"], 2u);
  EXPECT_GE(trace.rises["soc.cpu.wfi"], 1u);
  EXPECT_GT(trace.high_ps["soc.ts.wfi"], 0.0);
}

TEST(Waveform, PatternsSelectSignals) {
  std::string vcd = temp_path("wave_match.vcd");
  auto result = run_npuvp("run " + scenario("aicore-smoke") + " --quiet --vcd " + vcd + " --vcd-match 'soc.aicore0.pipe.*'");
  ASSERT_EQ(result.status, 0) << result.err;
  std::string text = read_file(vcd);
  std::remove(vcd.c_str());
  EXPECT_THAT(text, HasSubstr("$scope module pipe $end"));
  EXPECT_EQ(text.find("done_irq"), std::string::npos);
  EXPECT_EQ(text.find("module ring"), std::string::npos);
}

TEST(Waveform, AnUncreatableFileIsBadInput) {
  auto result = run_npuvp("run " + scenario("aicore-smoke") + " --quiet --vcd /nonexistent/dir/w.vcd");
  EXPECT_EQ(result.status, 125);
  EXPECT_THAT(last_line(result.err), HasSubstr("--vcd: cannot create '/nonexistent/dir/w.vcd'"));
}

// Mesh router activity: per directed link, how many virtual networks move
// flits on it; its integral over time is the link's flits (one flit per
// cycle per vnet, 1 GHz mesh clock).
TEST(Waveform, MeshLinkActivityMatchesTheLinkFlits) {
  std::string vcd = temp_path("wave_mesh.vcd"), stats = temp_path("wave_mesh_stats.json");
  auto result = run_npuvp("run " + scenario("mesh-hello") + " --quiet --vcd " + vcd +
                          " --vcd-match 'soc.mesh.link.*' --stats " + stats);
  ASSERT_EQ(result.status, 0) << result.err;
  Trace trace = read_vcd(read_file(vcd));
  auto statistics = nlohmann::json::parse(read_file(stats))["statistics"];
  std::remove(vcd.c_str());
  std::remove(stats.c_str());
  unsigned links = 0, active = 0;
  for (const auto& [name, value] : statistics.items()) {
    const std::string prefix = "soc.mesh.link.", suffix = ".flits";
    if (name.rfind(prefix, 0) != 0 || name.find(".vnet") != std::string::npos || name.size() < suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    const std::string signal = name.substr(0, name.size() - suffix.size()) + ".busy";
    ++links;
    EXPECT_DOUBLE_EQ(trace.area_ps[signal], value.get<double>() * 1000) << signal;
    EXPECT_EQ(trace.last[signal], 0u) << signal;
    active += value.get<double>() > 0;
  }
  EXPECT_EQ(links, 48u);  // 4x4 mesh: 2 x (3 x 4 + 4 x 3) directed links
  EXPECT_GT(active, 20u);
  for (const auto& [name, area] : trace.area_ps) EXPECT_EQ(name.rfind("soc.mesh.link.", 0), 0u) << name;
}

}  // namespace
