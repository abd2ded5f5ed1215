// `make bench`, cluster part: host speed of the 16-core mesh cluster with
// coherence on (docs/cluster.md). Each workload scenario (scenarios/mesh-*.yaml:
// the SMP programs of firmware/mesh on the 16 harts, MESI by default) runs in
// a fresh npuvp child process, as users run it. Reported per workload:
//   * MIPS: instructions of all 16 harts / npuvp's simulation wall time (the
//     figure npuvp prints), and cpu_MIPS: the same over the child's CPU time
//     (user + system), which a busy machine does not distort;
//   * from the run's statistics: simulated time, L1 miss rate, LLC miss
//     rate, mesh messages and flits.
// A summary table is printed after the benchmarks (target: >= 20 MIPS).
//
// Extra arguments `name=value` are passed to every run as --set, e.g.
//   npuvp_cluster_bench mesh.coherence=mesi sim.quantum=1us
#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

const std::string kNpuvp = NPUVP_EXECUTABLE;
const std::string kTemp = "/tmp/npuvp_cluster_bench_" + std::to_string(getpid());
// The firmware the build made, unless the caller points npuvp at another one.
const bool kFirmwareSet = setenv("NPUVP_FIRMWARE_DIR", NPUVP_FIRMWARE_DIR, 0) == 0;
std::vector<std::string> g_settings;

struct Result {
  std::string workload;
  double instructions = 0, wall = 0, cpu = 0, sim_ms = 0, l1_miss_rate = 0, llc_miss_rate = 0, messages = 0,
         flits = 0;
};
std::vector<Result> g_results;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

double child_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec * 1e-6;
}

Result run_workload(const std::string& workload) {
  const std::string stats = kTemp + ".json";
  std::string command = kNpuvp + " run " + std::string(NPUVP_SOURCE_DIR) + "/scenarios/mesh-" + workload +
                        ".yaml --quiet --stats " + stats;
  for (const auto& setting : g_settings) command += " --set " + setting;
  const double cpu_before = child_cpu_seconds();
  std::FILE* pipe = popen((command + " 2>" + kTemp + ".err").c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot start " + command);
  std::string out;
  char buffer[4096];
  std::size_t count;
  while ((count = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, count);
  const int status = pclose(pipe);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error(command + " failed:\n" + out + read_text(kTemp + ".err"));
  Result result;
  result.workload = workload;
  result.cpu = child_cpu_seconds() - cpu_before;
  auto json = nlohmann::json::parse(read_text(stats));
  const auto& s = json["statistics"];
  auto stat = [&](const std::string& name) { return s.contains(name) ? s[name].get<double>() : 0.0; };
  result.instructions = json["npuvp"]["instructions"].get<double>();
  result.wall = json["npuvp"]["wall_seconds"].get<double>();
  result.sim_ms = json["npuvp"]["sim_time_seconds"].get<double>() * 1e3;
  result.l1_miss_rate = stat("soc.cluster.memory.l1.miss_rate");
  const double llc_hits = stat("soc.cluster.memory.llc.hits"), llc_misses = stat("soc.cluster.memory.llc.misses");
  result.llc_miss_rate = llc_hits + llc_misses > 0 ? llc_misses / (llc_hits + llc_misses) : 0.0;
  result.messages = stat("soc.mesh.messages");
  result.flits = stat("soc.mesh.flits");
  std::remove(stats.c_str());
  std::remove((kTemp + ".err").c_str());
  return result;
}

void BM_ClusterWorkload(benchmark::State& state, const std::string& workload) {
  Result result;
  for (auto _ : state) result = run_workload(workload);
  state.counters["MIPS"] = result.instructions / result.wall / 1e6;
  state.counters["cpu_MIPS"] = result.instructions / result.cpu / 1e6;
  state.counters["sim_ms"] = result.sim_ms;
  state.counters["l1_miss_rate"] = result.l1_miss_rate;
  state.counters["mesh_flits"] = result.flits;
  g_results.push_back(result);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    if (argument.find('=') == std::string::npos || argument[0] == '-') {
      std::cerr << "npuvp_cluster_bench: arguments are parameter settings NAME=VALUE, got '" << argument << "'\n";
      return 2;
    }
    g_settings.push_back(argument);
  }
  for (const char* workload : {"lu", "fft", "radix", "ocean", "nbody"})
    benchmark::RegisterBenchmark(("BM_Cluster/" + std::string(workload)).c_str(), BM_ClusterWorkload,
                                 std::string(workload))
        ->Iterations(1)
        ->Unit(benchmark::kSecond);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();

  std::printf("\nmesh cluster, 16 harts, coherence on (target >= 20 MIPS aggregate)\n");
  std::printf("%-8s %12s %8s %8s %9s %8s %8s %10s %10s\n", "workload", "instructions", "MIPS", "cpuMIPS", "sim ms",
              "L1 miss", "LLC miss", "messages", "flits");
  double instructions = 0, wall = 0, cpu = 0;
  for (const auto& r : g_results) {
    std::printf("%-8s %12.0f %8.1f %8.1f %9.3f %8.4f %8.4f %10.0f %10.0f\n", r.workload.c_str(), r.instructions,
                r.instructions / r.wall / 1e6, r.instructions / r.cpu / 1e6, r.sim_ms, r.l1_miss_rate, r.llc_miss_rate,
                r.messages, r.flits);
    instructions += r.instructions;
    wall += r.wall;
    cpu += r.cpu;
  }
  if (wall > 0) std::printf("%-8s %12.0f %8.1f %8.1f\n", "all", instructions, instructions / wall / 1e6, instructions / cpu / 1e6);
  return 0;
}
