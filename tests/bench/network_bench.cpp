// `make bench`, whole networks (issue 19, docs/networks.md#performance): the generated models
// (sw/networks) through `npuvp infer` as users run it, each run a child process. Reports
//   * Network/NAME: host wall time of the whole `npuvp infer` (min and median of R runs), the
//     child's peak resident memory (wait4's ru_maxrss), native PyTorch CPU inference of the same
//     model measured in the same run (sw/networks/time_native.py: generate.py's builder under
//     its seed, torch.no_grad, median of N) and the ratio wall / native; the simulated latency
//     and images/s (the --profile CSV); the compile time (npuvp-compile, min of R); the
//     geometric mean over the layers of simulated cycles / roofline bound;
//   * Scaling/NAME/MEMORY/CORES: simulated latency and images/s at soc.ai_cores = 2, 4, 8, 16, 32,
//     with the default DDR and with HBM-class memory (kHbm);
//   * DoubleBuffering/NAME: simulated latency with --no-double-buffering against the default;
//   * PinnedWeights/NAME: simulated latency with --no-pinned-weights against the default (weights
//     of the Conv layers that gain most pinned in the L2 buffer), default SoC;
//   * Streams/NAME/MEMORY/CORES: simulated latency compiled for kStreams streams (--streams)
//     against one stream, at 2, 8 and 16 AI Cores;
//   * L2/NAME/MEMORY/CORES: simulated latency and DDR bytes (the profile's layers) with every
//     activation in DDR (--no-l2) against the default L2 arena, at 2, 8 and 16 AI Cores;
//   * Hbm/resnet50, Hbm/resnet50_batch4: an HBM-class configuration (kHbm, 2 AI Cores), where
//     most layers become compute-bound: their Cube utilisation, at batch 1 and batch 4.
// Every run's output is checked against the PyTorch fp32 reference (cosine >= 0.999 and, for
// classifiers, the same top-1), and every layer's cycles against its roofline bound (never
// below); a failed check is the benchmark's error (SkipWithError).
// Tables of everything (and ResNet-50's worst layers against the roofline) follow the run.
//
// Environment: NPUVP_NETWORK_BENCH_REPEAT (default 3) wall-time runs per network;
// NPUVP_NATIVE_REPEAT (default 5) timed PyTorch forward passes.
#include "csv_fields.h"
#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

extern char** environ;

namespace {

using npuvp::test_support::csv_fields;

const std::string kNpuvp = NPUVP_EXECUTABLE;
const std::string kCompile = NPUVP_COMPILE_EXECUTABLE;
const std::string kNetworks = NPUVP_NETWORKS_DIR;
const std::string kPython = NPUVP_PYTHON;
const std::string kTimeNative = std::string(NPUVP_SOURCE_DIR) + "/sw/networks/time_native.py";
const std::string kTemp = "/tmp/npuvp_network_bench_" + std::to_string(getpid());
// The firmware the build made, unless the caller points npuvp at another one.
const bool kFirmwareSet = setenv("NPUVP_FIRMWARE_DIR", NPUVP_FIRMWARE_DIR, 0) == 0;

constexpr double kMinimumCosine = 0.999;
const std::vector<std::string> kNetworkNames = {"lenet5",     "resnet18",   "mobilenetv2", "bert_2layer",
                                                "gpt2_block", "resnet50",   "bert_base"};
// Run with HBM-class memory on 2 AI Cores (Hbm/NAME): ResNet-50 at batch 1 and at batch 4, where
// each layer has 4x the Cube work for the same fixed costs.
const std::vector<std::string> kHbmNetworkNames = {"resnet50", "resnet50_batch4"};
// Scaled over kCoreCounts: (network, device memory: "default" or "hbm" (kHbm)).
const std::vector<std::pair<std::string, std::string>> kScaledConfigurations = {
    {"resnet50", "default"}, {"bert_base", "default"}, {"resnet50", "hbm"}, {"bert_base", "hbm"}};
// 32: Ascend 910's count.
const std::vector<int> kCoreCounts = {2, 4, 8, 16, 32};
// HBM-class device memory: two HBM2 stacks, 2 x 8 channels of 128 bits at 2000 MT/s (burst
// length 4, so a burst is the 64-byte channel interleave) = 512 GB/s, against the default
// LPDDR4-3200's 2 x 16 bits = 12.8 GB/s. (Ascend 910: four HBM2 stacks, ~1.2 TB/s for 32 AI
// Cores.) The paths from it are widened with it - ring links of 128 bytes (128 GB/s per
// link at 1 GHz) and a 512 GB/s L2 port - or the 32-byte ring would be the new limit.
const std::vector<std::string> kHbm = {"soc.ddr.channels=16",   "soc.ddr.bus_width=16",     "soc.ddr.burst_length=4",
                                       "soc.ddr.data_rate=2000", "soc.l2.bandwidth=512GB/s", "soc.ring.link_width=128"};

// Streams rows: these AI Core counts, this many streams against one.
const std::vector<int> kStreamCoreCounts = {2, 8, 16};
const int kStreams = 4;

int repeat_from_environment(const char* name, int fallback) {
  const char* value = std::getenv(name);
  const int n = value ? std::atoi(value) : fallback;
  return n > 0 ? n : fallback;
}
const int kRepeat = repeat_from_environment("NPUVP_NETWORK_BENCH_REPEAT", 3);
const int kNativeRepeat = repeat_from_environment("NPUVP_NATIVE_REPEAT", 5);

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n == 0 ? 0.0 : n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double minimum(const std::vector<double>& values) {
  return values.empty() ? 0.0 : *std::min_element(values.begin(), values.end());
}

double load_average() {
  double load[1] = {0};
  return getloadavg(load, 1) == 1 ? load[0] : 0.0;
}

// ---- child processes ---------------------------------------------------------------------

struct Child {
  int status = -1;  // exit status, -1 when killed by a signal
  double wall_seconds = 0;
  double max_rss_mib = 0;  // this child's peak resident set (wait4)
  std::string out, err;
};

std::string command_text(const std::vector<std::string>& argv) {
  std::string text;
  for (const auto& a : argv) text += (text.empty() ? "" : " ") + a;
  return text;
}

// Runs argv with stdout and stderr to files; wait4 gives this child's own rusage, not the
// maximum over every child the benchmark ever waited for (RUSAGE_CHILDREN).
Child run_child(const std::vector<std::string>& argv) {
  const std::string out_path = kTemp + ".out", err_path = kTemp + ".err";
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&files, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  Child child;
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, args[0], &files, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  if (spawned != 0) throw std::runtime_error("cannot start " + argv[0]);
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid) throw std::runtime_error("wait4 failed for " + argv[0]);
  child.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  child.max_rss_mib = usage.ru_maxrss / 1024.0;  // KiB on Linux
  child.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  child.out = read_text(out_path);
  child.err = read_text(err_path);
  std::remove(out_path.c_str());
  std::remove(err_path.c_str());
  return child;
}

Child checked_child(const std::vector<std::string>& argv) {
  Child child = run_child(argv);
  if (child.status != 0)
    throw std::runtime_error(command_text(argv) + " exited with " + std::to_string(child.status) + ": " +
                             child.err.substr(child.err.size() > 600 ? child.err.size() - 600 : 0));
  return child;
}

// ---- the manifest ------------------------------------------------------------------------

const nlohmann::json& model_entry(const std::string& name) {
  static const nlohmann::json manifest = [] {
    std::ifstream in(kNetworks + "/manifest.json");
    if (!in) throw std::runtime_error(kNetworks + "/manifest.json missing: build the `networks` target");
    return nlohmann::json::parse(in);
  }();
  for (const auto& model : manifest["models"])
    if (model["name"] == name) return model;
  throw std::runtime_error(kNetworks + "/manifest.json has no model " + name);
}

// Images (sequences) one inference of `name` handles: its input's batch.
double images_per_inference(const std::string& name) {
  return model_entry(name)["input_shape"][0].get<double>();
}

std::string network_file(const std::string& name, const char* key) {
  return kNetworks + "/" + model_entry(name)[key].get<std::string>();
}

// ---- the --profile CSV -------------------------------------------------------------------

struct Layer {
  std::string name, op, shapes, bound;
  double macs = 0, min_bytes = 0, cores_used = 0, cycles = 0, cube_utilisation = 0;
  double ddr_bytes = 0, l2_bytes = 0, roofline_cycles = 0;
  bool ran() const { return bound != "not run"; }
  double ratio() const { return roofline_cycles > 0 ? cycles / roofline_cycles : 0.0; }
};

struct Profile {
  std::vector<Layer> layers;
  double latency_seconds = 0;
};

Profile read_profile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("no profile " + path);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = csv_fields(line);
  auto column = [&](const std::string& name) {
    auto at = std::find(header.begin(), header.end(), name);
    if (at == header.end()) throw std::runtime_error(path + ": no column " + name);
    return static_cast<std::size_t>(at - header.begin());
  };
  const std::size_t name = column("layer"), op = column("op"), shapes = column("shapes"), macs = column("macs"),
                    min_bytes = column("min_bytes"), cores = column("cores_used"), cycles = column("cycles"),
                    cube = column("cube_utilisation"), ddr = column("ddr_bytes"), l2 = column("l2_bytes"),
                    roofline = column("roofline_cycles"), bound = column("bound");
  Profile profile;
  while (std::getline(in, line)) {
    const std::vector<std::string> f = csv_fields(line);
    if (!f.empty() && f[0] == "total") {
      const auto at = line.find("latency_seconds=");
      if (at != std::string::npos) profile.latency_seconds = std::stod(line.substr(at + 16));
      continue;
    }
    if (f.size() != header.size()) throw std::runtime_error(path + ": malformed row: " + line);
    Layer l;
    l.name = f[name];
    l.op = f[op];
    l.shapes = f[shapes];
    l.bound = f[bound];
    l.macs = std::stod(f[macs]);
    l.min_bytes = std::stod(f[min_bytes]);
    l.cores_used = std::stod(f[cores]);
    l.cycles = std::stod(f[cycles]);
    l.cube_utilisation = std::stod(f[cube]);
    l.ddr_bytes = std::stod(f[ddr]);
    l.l2_bytes = std::stod(f[l2]);
    l.roofline_cycles = std::stod(f[roofline]);
    profile.layers.push_back(l);
  }
  if (profile.latency_seconds <= 0) throw std::runtime_error(path + ": no latency_seconds");
  return profile;
}

// Geometric mean of simulated cycles / roofline bound over the layers that ran.
double roofline_geomean(const Profile& profile) {
  double log_sum = 0;
  int n = 0;
  for (const auto& l : profile.layers) {
    if (!l.ran() || l.roofline_cycles <= 0 || l.cycles <= 0) continue;
    log_sum += std::log(l.ratio());
    ++n;
  }
  return n ? std::exp(log_sum / n) : 0.0;
}

// ---- one inference -----------------------------------------------------------------------

struct Inference {
  Child child;
  Profile profile;
  double cosine = 0;
};

// `npuvp infer NAME` with these options, its output checked against the reference.
Inference infer(const std::string& name, const std::vector<std::string>& options = {}) {
  const std::string profile = kTemp + ".csv";
  std::vector<std::string> argv = {kNpuvp,      "infer",       network_file(name, "onnx"),
                                   "--input",   network_file(name, "input_npy"),
                                   "--reference", network_file(name, "reference_npy"),
                                   "--profile", profile,       "--quiet"};
  for (const auto& option : options) {
    if (option.rfind("--", 0) == 0) {
      argv.push_back(option);
    } else {
      argv.push_back("--set");
      argv.push_back(option);
    }
  }
  Inference result;
  result.child = checked_child(argv);
  // "npuvp infer: against R.npy: cosine C, max abs error E, top-1 A/B"
  const auto at = result.child.out.find("npuvp infer: against ");
  const auto cosine_at = at == std::string::npos ? at : result.child.out.find(": cosine ", at + 21);
  if (cosine_at == std::string::npos)
    throw std::runtime_error(command_text(argv) + ": no comparison line in its output");
  result.cosine = std::stod(result.child.out.substr(cosine_at + 9));
  if (!(result.cosine >= kMinimumCosine))
    throw std::runtime_error(name + ": cosine " + std::to_string(result.cosine) + " < 0.999");
  if (model_entry(name)["top1"].get<bool>()) {
    const auto top1 = result.child.out.find("top-1 ", cosine_at);
    int agree = -1, rows = -2;
    if (top1 == std::string::npos ||
        std::sscanf(result.child.out.c_str() + top1, "top-1 %d/%d", &agree, &rows) != 2 || agree != rows)
      throw std::runtime_error(name + ": top-1 differs from the reference");
  }
  result.profile = read_profile(profile);
  std::remove(profile.c_str());
  // The timing model can never beat the roofline: a layer below it is a bug in the report or
  // the model (tests/integration/network_performance_test.cpp checks ResNet-18 in CI).
  for (const auto& l : result.profile.layers)
    if (l.ran() && l.cycles < l.roofline_cycles)
      throw std::runtime_error(name + ": layer " + l.name + " took " + std::to_string(l.cycles) +
                               " cycles, below its roofline bound of " + std::to_string(l.roofline_cycles));
  return result;
}

// The default configuration's run of each network, shared by the benchmarks that compare with it.
std::map<std::string, Inference> g_default_runs;

const Inference& default_run(const std::string& name) {
  auto at = g_default_runs.find(name);
  if (at == g_default_runs.end()) at = g_default_runs.emplace(name, infer(name)).first;
  return at->second;
}

// ---- Network/NAME: wall time against native PyTorch --------------------------------------

struct NetworkFigures {
  std::vector<double> wall, compile;
  double peak_rss_mib = 0, native_median = 0, native_min = 0, load_before = 0, load_after = 0;
  double latency_seconds = 0, geomean = 0, cosine = 0;
  int threads = 0;
};
std::map<std::string, NetworkFigures> g_networks;

struct Native {
  double median = 0, min = 0;
  int threads = 0;
};

Native native_time(const std::string& name) {
  const int repeat = model_entry(name)["macs"].get<double>() > 1e9 ? std::min(kNativeRepeat, 3) : kNativeRepeat;
  const Child child = checked_child({kPython, "-B", kTimeNative, name, "--input", network_file(name, "input_npy"),
                                     "--reference", network_file(name, "reference_npy"), "--repeat",
                                     std::to_string(repeat)});
  Native native;
  const auto at = child.out.find("time_native: ");
  if (at == std::string::npos) throw std::runtime_error("time_native.py printed no result: " + child.out);
  std::istringstream words(child.out.substr(at));
  std::string word;
  while (words >> word) {
    const auto eq = word.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = word.substr(0, eq), value = word.substr(eq + 1);
    if (key == "median_seconds") native.median = std::stod(value);
    if (key == "min_seconds") native.min = std::stod(value);
    if (key == "threads") native.threads = std::stoi(value);
  }
  if (native.median <= 0) throw std::runtime_error("time_native.py: no median_seconds in " + child.out);
  return native;
}

void BM_Network(benchmark::State& state, const std::string& name) {
  NetworkFigures figures;
  try {
    for (auto _ : state) {
      figures.load_before = load_average();
      const Native native = native_time(name);
      figures.native_median = native.median;
      figures.native_min = native.min;
      figures.threads = native.threads;
      for (int r = 0; r < kRepeat; ++r) {
        Inference run = infer(name);
        figures.wall.push_back(run.child.wall_seconds);
        figures.peak_rss_mib = std::max(figures.peak_rss_mib, run.child.max_rss_mib);
        figures.latency_seconds = run.profile.latency_seconds;
        figures.geomean = roofline_geomean(run.profile);
        figures.cosine = run.cosine;
        g_default_runs[name] = std::move(run);
        const Child compile = checked_child({kCompile, network_file(name, "onnx"), "-o", kTemp + ".pkg"});
        std::remove((kTemp + ".pkg").c_str());
        figures.compile.push_back(compile.wall_seconds);
      }
      figures.load_after = load_average();
      state.SetIterationTime(median(figures.wall));
    }
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    return;
  }
  g_networks[name] = figures;
  state.counters["wall_min_s"] = minimum(figures.wall);
  state.counters["wall_median_s"] = median(figures.wall);
  state.counters["native_median_s"] = figures.native_median;
  state.counters["ratio_median"] = median(figures.wall) / figures.native_median;
  state.counters["ratio_min"] = minimum(figures.wall) / figures.native_min;
  state.counters["peak_rss_MiB"] = figures.peak_rss_mib;
  state.counters["latency_ms"] = figures.latency_seconds * 1e3;
  state.counters["images_per_s"] = 1.0 / figures.latency_seconds;
  state.counters["roofline_geomean"] = figures.geomean;
  state.counters["compile_min_s"] = minimum(figures.compile);
  state.counters["cosine"] = figures.cosine;
  state.counters["load_avg"] = figures.load_before;
}

// The DDR bytes served while the layers ran (the profile's ddr_bytes column).
double ddr_bytes_of(const Profile& profile) {
  double bytes = 0;
  for (const auto& layer : profile.layers) bytes += layer.ddr_bytes;
  return bytes;
}

// ---- Scaling/NAME/CORES --------------------------------------------------------------------

struct ScalingFigures {
  double latency_seconds = 0, geomean = 0, ddr_bytes = 0;
  int compute_bound = 0, layers = 0;
};
// (network, "default" or "hbm", cores) -> figures
std::map<std::tuple<std::string, std::string, int>, ScalingFigures> g_scaling;

void BM_Scaling(benchmark::State& state, const std::string& name, const std::string& memory, int cores) {
  ScalingFigures figures;
  try {
    for (auto _ : state) {
      std::vector<std::string> options = {"soc.ai_cores=" + std::to_string(cores)};
      if (memory == "hbm") options.insert(options.end(), kHbm.begin(), kHbm.end());
      const Inference run = infer(name, options);
      figures.latency_seconds = run.profile.latency_seconds;
      figures.geomean = roofline_geomean(run.profile);
      figures.ddr_bytes = ddr_bytes_of(run.profile);
      for (const auto& l : run.profile.layers) {
        figures.layers += l.ran();
        figures.compute_bound += l.bound == "compute";
      }
      state.SetIterationTime(run.child.wall_seconds);
    }
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    return;
  }
  g_scaling[{name, memory, cores}] = figures;
  state.counters["latency_ms"] = figures.latency_seconds * 1e3;
  state.counters["images_per_s"] = 1.0 / figures.latency_seconds;
  state.counters["roofline_geomean"] = figures.geomean;
  state.counters["compute_bound_layers"] = figures.compute_bound;
}

// ---- DoubleBuffering/NAME, PinnedWeights/NAME: the default against a run with `option` -----------

struct OnOffFigures {
  double on_seconds = 0, off_seconds = 0;
};
std::map<std::string, OnOffFigures> g_double_buffering, g_pinned_weights;

// The default run's latency against one compiled with `option` (which turns a feature off).
void on_against_off(benchmark::State& state, const std::string& name, const std::string& option,
                    std::map<std::string, OnOffFigures>& results) {
  OnOffFigures figures;
  try {
    for (auto _ : state) {
      figures.on_seconds = default_run(name).profile.latency_seconds;
      const Inference off = infer(name, {option});
      figures.off_seconds = off.profile.latency_seconds;
      state.SetIterationTime(off.child.wall_seconds);
    }
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    return;
  }
  results[name] = figures;
  state.counters["latency_on_ms"] = figures.on_seconds * 1e3;
  state.counters["latency_off_ms"] = figures.off_seconds * 1e3;
  state.counters["gain"] = figures.off_seconds / figures.on_seconds;
}

void BM_DoubleBuffering(benchmark::State& state, const std::string& name) {
  on_against_off(state, name, "--no-double-buffering", g_double_buffering);
}

void BM_PinnedWeights(benchmark::State& state, const std::string& name) {
  on_against_off(state, name, "--no-pinned-weights", g_pinned_weights);
}

// A table of on / off latencies, one row per network that ran.
void print_on_off(const std::string& title, const std::map<std::string, OnOffFigures>& results) {
  if (results.empty()) return;
  std::cout << "\n== " << title << ": simulated latency on / off ==\n";
  for (const auto& name : kNetworkNames) {
    auto at = results.find(name);
    if (at == results.end()) continue;
    std::cout << "  " << std::left << std::setw(13) << name << std::right << std::setprecision(3) << std::setw(10)
              << at->second.on_seconds * 1e3 << " ms on " << std::setw(10) << at->second.off_seconds * 1e3
              << " ms off  gain " << std::setprecision(2) << at->second.off_seconds / at->second.on_seconds << "x\n";
  }
}

// ---- Streams/NAME/MEMORY/CORES ---------------------------------------------------------------

struct StreamsFigures {
  double one_seconds = 0, several_seconds = 0;
};
std::map<std::tuple<std::string, std::string, int>, StreamsFigures> g_streams;

void BM_Streams(benchmark::State& state, const std::string& name, const std::string& memory, int cores) {
  StreamsFigures figures;
  try {
    for (auto _ : state) {
      std::vector<std::string> options = {"soc.ai_cores=" + std::to_string(cores)};
      if (memory == "hbm") options.insert(options.end(), kHbm.begin(), kHbm.end());
      // One stream: the Scaling row's run when it ran, else its own.
      auto scaled = g_scaling.find({name, memory, cores});
      figures.one_seconds = scaled != g_scaling.end() ? scaled->second.latency_seconds
                                                      : infer(name, options).profile.latency_seconds;
      options.push_back("--streams=" + std::to_string(kStreams));
      const Inference several = infer(name, options);
      figures.several_seconds = several.profile.latency_seconds;
      state.SetIterationTime(several.child.wall_seconds);
    }
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    return;
  }
  g_streams[{name, memory, cores}] = figures;
  state.counters["latency_1_stream_ms"] = figures.one_seconds * 1e3;
  state.counters["latency_streams_ms"] = figures.several_seconds * 1e3;
  state.counters["speedup"] = figures.one_seconds / figures.several_seconds;
}

// ---- L2/NAME/MEMORY/CORES --------------------------------------------------------------------

struct L2Figures {
  double ddr_only_seconds = 0, l2_seconds = 0, ddr_only_bytes = 0, l2_ddr_bytes = 0;
};
std::map<std::tuple<std::string, std::string, int>, L2Figures> g_l2;

void BM_L2(benchmark::State& state, const std::string& name, const std::string& memory, int cores) {
  L2Figures figures;
  try {
    for (auto _ : state) {
      std::vector<std::string> options = {"soc.ai_cores=" + std::to_string(cores)};
      if (memory == "hbm") options.insert(options.end(), kHbm.begin(), kHbm.end());
      // The L2 arena is the default: the Scaling row's run when it ran, else its own.
      auto scaled = g_scaling.find({name, memory, cores});
      if (scaled != g_scaling.end()) {
        figures.l2_seconds = scaled->second.latency_seconds;
        figures.l2_ddr_bytes = scaled->second.ddr_bytes;
      } else {
        const Profile with_l2 = infer(name, options).profile;
        figures.l2_seconds = with_l2.latency_seconds;
        figures.l2_ddr_bytes = ddr_bytes_of(with_l2);
      }
      options.push_back("--no-l2");
      const Inference ddr_only = infer(name, options);
      figures.ddr_only_seconds = ddr_only.profile.latency_seconds;
      figures.ddr_only_bytes = ddr_bytes_of(ddr_only.profile);
      state.SetIterationTime(ddr_only.child.wall_seconds);
    }
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    return;
  }
  g_l2[{name, memory, cores}] = figures;
  state.counters["latency_ddr_only_ms"] = figures.ddr_only_seconds * 1e3;
  state.counters["latency_l2_ms"] = figures.l2_seconds * 1e3;
  state.counters["ddr_mb_ddr_only"] = figures.ddr_only_bytes / 1e6;
  state.counters["ddr_mb_l2"] = figures.l2_ddr_bytes / 1e6;
}

// ---- Hbm/NAME ------------------------------------------------------------------------------

// name -> its profile with HBM-class memory on 2 AI Cores
std::map<std::string, Profile> g_hbm;

void BM_Hbm(benchmark::State& state, const std::string& name) {
  try {
    for (auto _ : state) {
      const Inference run = infer(name, kHbm);
      g_hbm[name] = run.profile;
      state.SetIterationTime(run.child.wall_seconds);
    }
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    return;
  }
  const Profile& profile = g_hbm.at(name);
  int compute_bound = 0, above_80 = 0, layers = 0;
  double log_utilisation = 0, min_utilisation = 1;
  for (const auto& l : profile.layers) {
    layers += l.ran();
    if (l.bound != "compute") continue;
    ++compute_bound;
    above_80 += l.cube_utilisation >= 0.8;
    log_utilisation += std::log(std::max(l.cube_utilisation, 1e-6));
    min_utilisation = std::min(min_utilisation, l.cube_utilisation);
  }
  state.counters["latency_ms"] = profile.latency_seconds * 1e3;
  state.counters["images_per_s"] = images_per_inference(name) / profile.latency_seconds;
  state.counters["layers"] = layers;
  state.counters["compute_bound_layers"] = compute_bound;
  state.counters["cube_util_geomean"] = compute_bound ? std::exp(log_utilisation / compute_bound) : 0.0;
  state.counters["cube_util_min"] = compute_bound ? min_utilisation : 0.0;
  state.counters["cube_util_ge_0.8"] = above_80;
  state.counters["roofline_geomean"] = roofline_geomean(profile);
}

// ---- the summary -----------------------------------------------------------------------------

void print_worst_layers(const Profile& profile, std::size_t count) {
  std::vector<const Layer*> layers;
  for (const auto& l : profile.layers)
    if (l.ran() && l.roofline_cycles > 0) layers.push_back(&l);
  std::sort(layers.begin(), layers.end(), [](const Layer* a, const Layer* b) { return a->ratio() > b->ratio(); });
  std::cout << "  " << std::left << std::setw(30) << "layer" << std::setw(22) << "op" << std::setw(40) << "shapes"
            << std::right << std::setw(10) << "cycles" << std::setw(10) << "bound" << std::setw(7) << "ratio"
            << std::setw(7) << "cube%" << std::setw(8) << "DDR MB" << std::setw(8) << "min MB" << "  limit\n";
  for (std::size_t i = 0; i < std::min(count, layers.size()); ++i) {
    const Layer& l = *layers[i];
    std::cout << "  " << std::left << std::setw(30) << l.name.substr(0, 29) << std::setw(22) << l.op.substr(0, 21)
              << std::setw(40) << l.shapes.substr(0, 39) << std::right << std::fixed << std::setprecision(0)
              << std::setw(10) << l.cycles << std::setw(10) << l.roofline_cycles << std::setprecision(2)
              << std::setw(7) << l.ratio() << std::setprecision(1) << std::setw(7) << l.cube_utilisation * 100
              << std::setprecision(2) << std::setw(8) << l.ddr_bytes / 1e6 << std::setw(8) << l.min_bytes / 1e6
              << "  " << l.bound << "\n";
  }
}

void print_summary() {
  std::cout << std::fixed;
  if (!g_networks.empty()) {
    std::cout << "\n== wall time of `npuvp infer` against native PyTorch (" << kRepeat << " runs; native: median of "
              << kNativeRepeat << " (3 above 1 GMAC)) ==\n"
              << std::left << std::setw(13) << "network" << std::right << std::setw(10) << "wall min" << std::setw(10)
              << "wall med" << std::setw(10) << "native" << std::setw(9) << "ratio" << std::setw(9) << "peak MiB"
              << std::setw(11) << "latency ms" << std::setw(10) << "images/s" << std::setw(9) << "geomean"
              << std::setw(11) << "compile s" << std::setw(10) << "cosine" << std::setw(12) << "load avg\n";
    for (const auto& name : kNetworkNames) {
      auto at = g_networks.find(name);
      if (at == g_networks.end()) continue;
      const NetworkFigures& f = at->second;
      std::cout << std::left << std::setw(13) << name << std::right << std::setprecision(2) << std::setw(10)
                << minimum(f.wall) << std::setw(10) << median(f.wall) << std::setprecision(3) << std::setw(10)
                << f.native_median << std::setprecision(1) << std::setw(9) << median(f.wall) / f.native_median
                << std::setprecision(0) << std::setw(9) << f.peak_rss_mib << std::setprecision(3) << std::setw(11)
                << f.latency_seconds * 1e3 << std::setprecision(1) << std::setw(10) << 1.0 / f.latency_seconds
                << std::setprecision(2) << std::setw(9) << f.geomean << std::setw(11) << minimum(f.compile)
                << std::setprecision(5) << std::setw(10) << f.cosine << std::setprecision(1) << std::setw(6)
                << f.load_before << "->" << f.load_after << "\n";
    }
  }
  if (!g_scaling.empty()) {
    std::cout << "\n== simulated latency (ms) / images/s / roofline geomean by AI Cores ==\n";
    for (const auto& [name, memory] : kScaledConfigurations) {
      for (int cores : kCoreCounts) {
        auto at = g_scaling.find({name, memory, cores});
        if (at == g_scaling.end()) continue;
        const ScalingFigures& f = at->second;
        std::cout << "  " << std::left << std::setw(10) << name << std::setw(8) << memory << std::right << std::setw(3) << cores << " cores: "
                  << std::setprecision(3) << std::setw(9) << f.latency_seconds * 1e3 << " ms " << std::setprecision(1)
                  << std::setw(8) << 1.0 / f.latency_seconds << " images/s  geomean " << std::setprecision(2)
                  << f.geomean << "  compute-bound " << f.compute_bound << "/" << f.layers << "\n";
      }
    }
  }
  if (g_default_runs.count("resnet50")) {
    std::cout << "\n== resnet50 (default SoC): the 8 layers furthest above their roofline bound ==\n";
    print_worst_layers(g_default_runs.at("resnet50").profile, 8);
  }
  print_on_off("double buffering", g_double_buffering);
  print_on_off("pinned weights (default SoC)", g_pinned_weights);
  if (!g_streams.empty()) {
    std::cout << "\n== streams: simulated latency on 1 / " << kStreams << " streams ==\n";
    for (const auto& [key, f] : g_streams)
      std::cout << "  " << std::left << std::setw(10) << std::get<0>(key) << std::setw(8) << std::get<1>(key)
                << std::right << std::setw(3) << std::get<2>(key) << " cores: " << std::setprecision(3) << std::setw(9)
                << f.one_seconds * 1e3 << " ms / " << std::setw(9) << f.several_seconds * 1e3 << " ms  speed-up "
                << std::setprecision(3) << f.one_seconds / f.several_seconds << "x\n";
  }
  if (!g_l2.empty()) {
    std::cout << "\n== L2 buffer: simulated latency and DDR bytes, every activation in DDR -> the L2 arena ==\n";
    for (const auto& [key, f] : g_l2)
      std::cout << "  " << std::left << std::setw(10) << std::get<0>(key) << std::setw(8) << std::get<1>(key)
                << std::right << std::setw(3) << std::get<2>(key) << " cores: " << std::setprecision(4) << std::setw(9)
                << f.ddr_only_seconds * 1e3 << " -> " << std::setw(9) << f.l2_seconds * 1e3 << " ms, DDR "
                << std::setw(8) << f.ddr_only_bytes / 1e6 << " -> " << std::setw(8) << f.l2_ddr_bytes / 1e6 << " MB\n";
  }
  for (const auto& [name, profile] : g_hbm) {
    std::cout << "\n== " << name << " with HBM-class DDR (";
    for (const auto& s : kHbm) std::cout << s << " ";
    std::cout << "): latency " << std::setprecision(3) << profile.latency_seconds * 1e3 << " ms; compute-bound layers ==\n";
    std::vector<const Layer*> compute;
    for (const auto& l : profile.layers)
      if (l.bound == "compute") compute.push_back(&l);
    std::cout << "  " << compute.size() << " compute-bound layers; Cube utilisation of each:\n";
    for (const Layer* l : compute)
      std::cout << "  " << std::left << std::setw(30) << l->name.substr(0, 29) << std::setw(40) << l->shapes.substr(0, 39)
                << std::right << std::setprecision(1) << std::setw(7) << l->cube_utilisation * 100 << " %  ratio "
                << std::setprecision(2) << l->ratio() << "\n";
    std::cout << "  worst layers against the roofline:\n";
    print_worst_layers(profile, 5);
  }
  std::cout << std::flush;
}

void register_benchmarks() {
  for (const auto& name : kNetworkNames)
    benchmark::RegisterBenchmark(("Network/" + name).c_str(), BM_Network, name)
        ->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);
  for (const auto& [name, memory] : kScaledConfigurations)
    for (int cores : kCoreCounts)
      benchmark::RegisterBenchmark(("Scaling/" + name + "/" + memory + "/" + std::to_string(cores)).c_str(), BM_Scaling,
                                   name, memory, cores)
          ->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);
  for (const auto& name : kNetworkNames)
    benchmark::RegisterBenchmark(("DoubleBuffering/" + name).c_str(), BM_DoubleBuffering, name)
        ->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);
  for (const auto& name : kNetworkNames)
    benchmark::RegisterBenchmark(("PinnedWeights/" + name).c_str(), BM_PinnedWeights, name)
        ->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);
  for (const auto& [name, memory] : kScaledConfigurations)
    for (int cores : kStreamCoreCounts)
      benchmark::RegisterBenchmark(("Streams/" + name + "/" + memory + "/" + std::to_string(cores)).c_str(), BM_Streams,
                                   name, memory, cores)
          ->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);
  for (const auto& [name, memory] : kScaledConfigurations)
    for (int cores : kStreamCoreCounts)
      benchmark::RegisterBenchmark(("L2/" + name + "/" + memory + "/" + std::to_string(cores)).c_str(), BM_L2, name,
                                   memory, cores)
          ->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);
  for (const auto& name : kHbmNetworkNames)
    benchmark::RegisterBenchmark(("Hbm/" + name).c_str(), BM_Hbm, name)
        ->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  register_benchmarks();
  benchmark::RunSpecifiedBenchmarks();
  print_summary();
  return 0;
}
