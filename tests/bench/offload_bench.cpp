// `make bench`, offload part: scenarios/offload-bench.yaml (firmware/host/offload-bench.c:
// host program + npuvp driver + task scheduler + AI Cores), each run a fresh npuvp child
// process as users run it. Reports
//   * launch overhead of a 1-block block_probe launch: host API call -> first kernel
//     instruction, -> block end, round trip (min / mean / max simulated cycles) and where
//     the cycles go (driver submit, TS, AI Core start, completion, host wake-up); the
//     same at the default 10us quantum and at 100ns, to show the temporal-decoupling error;
//     async launch throughput; host wall time per launch (a run with L launches minus a
//     run with none, divided by L);
//   * a 1024^3 f16 GEMM (4 task blocks) on 1, 2 and 4 AI Cores with the operands in DDR
//     and in the L2 buffer: TS cycles, speed-up over 1 core, Cube utilisation, and over
//     the GEMM's window (its TS cycles, the only AI Core traffic of the run) the busiest
//     ring links' utilisation, DDR bandwidth and channel utilisation, L2 port utilisation,
//     so a saturated resource shows;
//   * the same L2 GEMM on a widened fabric (64-byte ring links, 128 GB/s L2 port), to
//     check that the kernel and the TS scale when the L2 side of the fabric does not
//     saturate.
// A summary table is printed after the benchmarks.
//
// Patched scenario values (bench_launches, bench_m, ...) go into a copy of the scenario
// with the `patch:` lines rewritten; parameters go on the command line (--set).
#include "scenario_patch.h"

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

const std::string kNpuvp = NPUVP_EXECUTABLE;
const std::string kScenario = std::string(NPUVP_SOURCE_DIR) + "/scenarios/offload-bench.yaml";
const std::string kTemp = "/tmp/npuvp_offload_bench_" + std::to_string(getpid());
// The firmware the build made, unless the caller points npuvp at another one.
const bool kFirmwareSet = setenv("NPUVP_FIRMWARE_DIR", NPUVP_FIRMWARE_DIR, 0) == 0;

constexpr int kLaunches = 200;  // launches per overhead run (sync, and async)
const std::vector<std::string> kWideFabric = {"soc.ring.link_width=64", "soc.l2.bandwidth=128GB/s"};

using Patch = std::map<std::string, std::string>;
using Fields = std::map<std::string, std::string>;

// ---- one run ------------------------------------------------------------------------------

struct Run {
  double process_seconds = 0;  // whole child process
  double wall_seconds = 0;     // npuvp's simulation loop (stats)
  std::string out;
  nlohmann::json stats;
  // "offload-bench: <kind> [name] k=v ..." lines: key "overhead.<name>", "async", "gemm".
  std::map<std::string, Fields> lines;

  double get(const std::string& line, const std::string& key) const {
    auto l = lines.find(line);
    if (l == lines.end()) throw std::runtime_error("no line '" + line + "' in the output:\n" + out);
    auto v = l->second.find(key);
    if (v == l->second.end()) throw std::runtime_error("no " + key + "= in line '" + line + "'");
    return std::stod(v->second);
  }
  double stat(const std::string& name) const {
    const auto& s = stats["statistics"];
    return s.contains(name) && s[name].is_number() ? s[name].get<double>() : 0.0;
  }
};

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The scenario with its `patch:` values replaced (every key must exist there).
std::string patched_scenario(const Patch& patch) {
  Patch unmatched;
  const std::string text = npuvp::test_support::patch_scenario_text(read_text(kScenario), patch, &unmatched);
  if (!unmatched.empty()) throw std::runtime_error("scenario has no patch value " + unmatched.begin()->first);
  const std::string path = kTemp + ".yaml";
  std::ofstream(path) << text;
  return path;
}

Fields parse_fields(std::istringstream& words) {
  Fields fields;
  std::string word;
  while (words >> word) {
    auto eq = word.find('=');
    if (eq != std::string::npos) fields[word.substr(0, eq)] = word.substr(eq + 1);
  }
  return fields;
}

Run run_offload(int cores, const Patch& patch, const std::vector<std::string>& sets = {}) {
  const std::string yaml = patched_scenario(patch), stats = kTemp + ".json";
  std::string command = kNpuvp + " run " + yaml + " --quiet --stats " + stats + " --set soc.ai_cores=" +
                        std::to_string(cores);
  for (const auto& set : sets) command += " --set " + set;
  Run run;
  const auto start = std::chrono::steady_clock::now();
  std::FILE* pipe = popen((command + " 2>" + kTemp + ".err").c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot start " + command);
  char buffer[4096];
  std::size_t count;
  while ((count = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) run.out.append(buffer, count);
  const int status = pclose(pipe);
  run.process_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error(command + " failed:\n" + run.out + read_text(kTemp + ".err"));
  run.stats = nlohmann::json::parse(read_text(stats));
  run.wall_seconds = run.stats["npuvp"]["wall_seconds"].get<double>();

  std::istringstream in(run.out);
  std::string line;
  const std::string prefix = "offload-bench: ";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    std::istringstream words(line.substr(prefix.size()));
    std::string kind, name;
    words >> kind;
    if (kind == "overhead") {
      words >> name;
      run.lines["overhead." + name] = parse_fields(words);
    } else if (kind == "async" || kind == "gemm") {
      Fields fields = parse_fields(words);
      if (!fields.empty()) run.lines[kind] = fields;
    }
  }
  if (run.out.find("offload-bench: PASS") == std::string::npos)
    throw std::runtime_error("no PASS from " + command + ":\n" + run.out);
  return run;
}

// ---- platform figures from `npuvp params` -----------------------------------------------------

// The value a parameter has with these --set options ("default X (set: Y)").
double parameter(const std::string& name, const std::vector<std::string>& sets) {
  std::string command = kNpuvp + " params";
  for (const auto& set : sets) command += " --set " + set;
  std::FILE* pipe = popen((command + " 2>/dev/null").c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run " + command);
  std::string text;
  char buffer[4096];
  std::size_t count;
  while ((count = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) text.append(buffer, count);
  pclose(pipe);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(name + " ", 0) != 0) continue;
    auto set = line.find("(set: ");
    auto at = set != std::string::npos ? set + 6 : line.find("default ") + 8;
    return std::stod(line.substr(at));
  }
  throw std::runtime_error("no parameter " + name);
}

struct Peaks {
  double ddr_bytes_per_ns, l2_bytes_per_ns, link_bytes_per_ns;
};

Peaks peaks(const std::vector<std::string>& sets) {
  Peaks p;
  p.ddr_bytes_per_ns = parameter("soc.ddr.channels", sets) * parameter("soc.ddr.bus_width", sets) *
                       parameter("soc.ddr.data_rate", sets) / 1000.0;  // MT/s -> per ns
  p.l2_bytes_per_ns = parameter("soc.l2.bandwidth", sets) / 1e9;
  p.link_bytes_per_ns = parameter("soc.ring.link_width", sets) * parameter("soc.ring.clock", sets) / 1e9;
  return p;
}

// ---- launch overhead -----------------------------------------------------------------------

struct Overhead {
  bool done = false;
  std::map<std::string, std::vector<double>> series;  // name -> first, min, mean, max
  std::vector<double> first_quantum_100ns;                    // call_to_first_instruction, quantum 100ns
  double async_cycles = 0, async_submit = 0, wall_us_sync = 0, wall_us_async = 0, wall_us_sync_quantum_100ns = 0;
} g_overhead;

const std::vector<std::string> kSeries = {
    "call_to_first_instruction", "call_to_block_end", "round_trip", "call_to_doorbell",
    "doorbell_to_ts_start", "ts_start_to_first_instruction", "block_end_to_ts_completion",
    "ts_completion_to_return", "host_instructions_per_launch"};

std::vector<double> series_of(const Run& run, const std::string& name) {
  const std::string line = "overhead." + name;
  return {run.get(line, "first"), run.get(line, "min"), run.get(line, "mean"), run.get(line, "max")};
}

void BM_LaunchOverhead(benchmark::State& state) {
  const int cores = 2;
  const std::string n = std::to_string(kLaunches);
  const Patch none = {{"bench_launches", "0"}, {"bench_async_launches", "0"}, {"bench_m", "0"}};
  const Patch sync = {{"bench_launches", n}, {"bench_async_launches", "0"}, {"bench_m", "0"}};
  const Patch async = {{"bench_launches", "0"}, {"bench_async_launches", n}, {"bench_m", "0"}};
  const std::vector<std::string> fine = {"sim.quantum=100ns"};
  try {
    for (auto _ : state) {
      Run r0 = run_offload(cores, none), r1 = run_offload(cores, sync), r2 = run_offload(cores, async);
      Run r0q = run_offload(cores, none, fine), r1q = run_offload(cores, sync, fine);
      state.SetIterationTime(r1.wall_seconds);
      for (const auto& name : kSeries) g_overhead.series[name] = series_of(r1, name);
      g_overhead.first_quantum_100ns = series_of(r1q, "call_to_first_instruction");
      g_overhead.async_cycles = r2.get("async", "cycles_per_launch");
      g_overhead.async_submit = r2.get("async", "submit_cycles_per_launch");
      g_overhead.wall_us_sync = (r1.wall_seconds - r0.wall_seconds) / kLaunches * 1e6;
      g_overhead.wall_us_async = (r2.wall_seconds - r0.wall_seconds) / kLaunches * 1e6;
      g_overhead.wall_us_sync_quantum_100ns = (r1q.wall_seconds - r0q.wall_seconds) / kLaunches * 1e6;
      g_overhead.done = true;
    }
    const auto& first = g_overhead.series["call_to_first_instruction"];
    state.counters["call_to_first_min"] = first[1];
    state.counters["call_to_first_mean"] = first[2];
    state.counters["call_to_first_max"] = first[3];
    state.counters["round_trip_mean"] = g_overhead.series["round_trip"][2];
    state.counters["call_to_first_mean_quantum_100ns"] = g_overhead.first_quantum_100ns[2];
    state.counters["async_cycles_per_launch"] = g_overhead.async_cycles;
    state.counters["wall_us_per_launch"] = g_overhead.wall_us_sync;
    state.counters["wall_us_per_async_launch"] = g_overhead.wall_us_async;
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
  }
}
BENCHMARK(BM_LaunchOverhead)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);

// ---- GEMM scaling -------------------------------------------------------------------------------

struct GemmFigures {
  std::string config;  // "ddr", "l2", "l2-wide"
  int cores = 0;
  double ts_cycles = 0, kernel_cycles = 0, speedup = 0, cube_utilization = 0;
  double ddr_gbs = 0, ddr_util = 0, ddr_channel_util = 0, l2_gbs = 0, l2_util = 0, wall = 0;
  std::vector<std::pair<std::string, double>> links;  // busiest, utilisation over the window
};
std::vector<GemmFigures> g_gemm;
std::map<std::string, double> g_one_core;  // config -> ts_cycles on 1 AI Core

void gemm(benchmark::State& state, const std::string& config, bool l2, const std::vector<std::string>& sets) {
  const int cores = static_cast<int>(state.range(0));
  const Patch patch = {{"bench_launches", "0"}, {"bench_async_launches", "0"}, {"bench_l2", l2 ? "1" : "0"}};
  try {
    const Peaks peak = peaks(sets);
    GemmFigures f;
    f.config = config;
    f.cores = cores;
    for (auto _ : state) {
      Run run = run_offload(cores, patch, sets);
      state.SetIterationTime(run.wall_seconds);
      f.wall = run.wall_seconds;
      f.ts_cycles = run.get("gemm", "ts_cycles");
      f.kernel_cycles = run.get("gemm", "kernel_cycles");
      // The window: the GEMM's TS cycles (1 GHz: ns). With no probe launches the only AI
      // Core, L2 and (apart from a few KiB of queue traffic) DDR/ring activity is the GEMM.
      const double window = f.ts_cycles;
      double cube = 0;
      for (int c = 0; c < cores; ++c) cube += run.stat("soc.aicore" + std::to_string(c) + ".cube.busy_cycles");
      f.cube_utilization = cube / (cores * window);
      const double ddr_bytes = run.stat("soc.ddr.bytes_read") + run.stat("soc.ddr.bytes_written");
      f.ddr_gbs = ddr_bytes / window;
      f.ddr_util = f.ddr_gbs / peak.ddr_bytes_per_ns;
      for (int ch = 0;; ++ch) {
        const std::string key = "soc.ddr.channel" + std::to_string(ch) + ".busy_time";
        if (!run.stats["statistics"].contains(key)) break;
        f.ddr_channel_util = std::max(f.ddr_channel_util, run.stat(key) / window);
      }
      const double l2_bytes = run.stat("soc.l2.bytes_read") + run.stat("soc.l2.bytes_written");
      f.l2_gbs = l2_bytes / window;
      f.l2_util = f.l2_gbs / peak.l2_bytes_per_ns;
      f.links.clear();
      for (const auto& [key, value] : run.stats["statistics"].items()) {
        const std::string prefix = "soc.ring.link.", suffix = ".busy_cycles";
        if (key.rfind(prefix, 0) != 0 || key.size() < suffix.size() ||
            key.compare(key.size() - suffix.size(), suffix.size(), suffix) != 0)
          continue;
        f.links.emplace_back(key.substr(prefix.size(), key.size() - prefix.size() - suffix.size()),
                             value.get<double>() / window);
      }
      std::sort(f.links.begin(), f.links.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
      if (f.links.size() > 3) f.links.resize(3);
    }
    if (cores == 1) g_one_core[config] = f.ts_cycles;
    if (g_one_core.count(config)) f.speedup = g_one_core[config] / f.ts_cycles;
    g_gemm.push_back(f);
    state.counters["ts_cycles"] = f.ts_cycles;
    state.counters["kernel_cycles"] = f.kernel_cycles;
    if (f.speedup > 0) state.counters["speedup"] = f.speedup;
    state.counters["cube_util"] = f.cube_utilization;
    state.counters["ddr_util"] = f.ddr_util;
    state.counters["l2_util"] = f.l2_util;
    if (!f.links.empty()) state.counters["top_link_util"] = f.links[0].second;
    std::string label;
    for (const auto& [name, util] : f.links) {
      char text[96];
      std::snprintf(text, sizeof text, "%s%s %.2f", label.empty() ? "" : ", ", name.c_str(), util);
      label += text;
    }
    state.SetLabel(label);
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
  }
}

void BM_GemmDdr(benchmark::State& state) { gemm(state, "ddr", false, {}); }
BENCHMARK(BM_GemmDdr)->ArgName("cores")->Arg(1)->Arg(2)->Arg(4)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_GemmL2(benchmark::State& state) { gemm(state, "l2", true, {}); }
BENCHMARK(BM_GemmL2)->ArgName("cores")->Arg(1)->Arg(2)->Arg(4)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_GemmL2WideFabric(benchmark::State& state) { gemm(state, "l2-wide", true, kWideFabric); }
BENCHMARK(BM_GemmL2WideFabric)->ArgName("cores")->Arg(1)->Arg(2)->Arg(4)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);

// ---- summary ---------------------------------------------------------------------------------

void print_summary() {
  std::printf("\n== offload benchmark (simulated cycles: 1 GHz host, TS, AI Cores, ring) ==\n");
  if (g_overhead.done) {
    std::printf("launch overhead, block_probe, 1 block, 2 AI Cores, %d launches, default sim.quantum (10us)\n", kLaunches);
    std::printf("  %-32s %10s %10s %10s %10s\n", "host cycles", "first", "min", "mean", "max");
    for (const auto& name : kSeries) {
      const auto& s = g_overhead.series[name];
      std::printf("  %-32s %10.0f %10.0f %10.1f %10.0f\n", name.c_str(), s[0], s[1], s[2], s[3]);
    }
    const auto& q = g_overhead.first_quantum_100ns;
    std::printf("  call_to_first_instruction with sim.quantum 100ns: min %.0f mean %.1f max %.0f\n", q[1],
                q[2], q[3]);
    std::printf("  async (back-to-back, then synchronize): %.0f cycles per launch, %.0f of them submitting\n",
                g_overhead.async_cycles, g_overhead.async_submit);
    std::printf("  host wall time per launch: %.1f us sync, %.1f us async (quantum 10us); %.1f us sync (quantum 100ns)\n",
                g_overhead.wall_us_sync, g_overhead.wall_us_async, g_overhead.wall_us_sync_quantum_100ns);
  }
  if (!g_gemm.empty()) {
    std::printf("GEMM 1024^3 f16, 4 task blocks (utilisation over the GEMM's TS cycles)\n");
    std::printf("  %-8s %5s %10s %8s %6s %15s %8s %15s  %s\n", "config", "cores", "ts_cycles", "speedup", "cube",
                "DDR GB/s(util)", "DDR ch", "L2 GB/s(util)", "busiest ring links (util)");
    for (const auto& f : g_gemm) {
      std::string links;
      for (const auto& [name, util] : f.links) {
        char text[96];
        std::snprintf(text, sizeof text, "%s%s %.2f", links.empty() ? "" : ", ", name.c_str(), util);
        links += text;
      }
      std::printf("  %-8s %5d %10.0f %7.2fx %6.3f %7.2f (%4.2f) %8.2f %7.2f (%4.2f)  %s\n", f.config.c_str(), f.cores,
                  f.ts_cycles, f.speedup, f.cube_utilization, f.ddr_gbs, f.ddr_util, f.ddr_channel_util, f.l2_gbs,
                  f.l2_util, links.c_str());
    }
    std::printf("  targets: >= 1.8x on 2 AI Cores, >= 3.4x on 4\n");
  }
  std::remove((kTemp + ".yaml").c_str());
  std::remove((kTemp + ".json").c_str());
  std::remove((kTemp + ".err").c_str());
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  print_summary();
  return 0;
}
