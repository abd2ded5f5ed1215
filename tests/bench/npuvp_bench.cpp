// `make bench`: whole-simulator benchmarks, each a fresh npuvp process (as
// users run it). Reports simulated MIPS of the CPU benchmark with default
// settings, QEMU's time on the same ELF, and the start-up time of `hello`.
#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace {

const std::string kNpuvp = NPUVP_EXECUTABLE;
const std::string kFirmware = NPUVP_FIRMWARE_DIR;
const std::string kStats = "/tmp/npuvp_bench_stats.json";
// Measured by the npuvp run (same ELF), so QEMU's rate needs no guessing.
double g_bench_instructions = 0;
double g_npuvp_seconds = 0;

double run_seconds(const std::string& command) {
  auto start = std::chrono::steady_clock::now();
  int status = std::system((command + " >/dev/null 2>&1").c_str());
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (status != 0) throw std::runtime_error("command failed: " + command);
  return seconds;
}

nlohmann::json read_stats() {
  std::ifstream in(kStats);
  return nlohmann::json::parse(in);
}

void BM_CpuBenchmark_npuvp(benchmark::State& state) {
  double instructions = 0, wall = 0;
  for (auto _ : state) {
    double seconds = run_seconds(kNpuvp + " run " + NPUVP_SOURCE_DIR "/scenarios/bench-cpu.yaml --stats " + kStats);
    state.SetIterationTime(seconds);
    auto stats = read_stats();
    instructions = stats["npuvp"]["instructions"].get<double>();
    wall = stats["npuvp"]["wall_seconds"].get<double>();
  }
  g_bench_instructions = instructions;
  g_npuvp_seconds = wall;
  state.counters["instructions"] = instructions;
  state.counters["MIPS"] = instructions / wall / 1e6;  // simulation loop only
}
BENCHMARK(BM_CpuBenchmark_npuvp)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_CpuBenchmark_qemu(benchmark::State& state) {
  const std::string command = "qemu-system-riscv64 -M virt -bios none -nographic -kernel " + kFirmware + "/host/bench-cpu.elf";
  double total = 0;
  for (auto _ : state) {
    double seconds = run_seconds(command);
    state.SetIterationTime(seconds);
    total += seconds;
  }
  double mean = total / static_cast<double>(state.iterations());
  if (g_bench_instructions > 0) {
    state.counters["MIPS"] = g_bench_instructions / mean / 1e6;
    state.counters["npuvp_time_ratio"] = g_npuvp_seconds / mean;  // >1: npuvp is slower than QEMU
  }
}
BENCHMARK(BM_CpuBenchmark_qemu)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_HelloStartup(benchmark::State& state) {
  for (auto _ : state)
    state.SetIterationTime(run_seconds(kNpuvp + " run " NPUVP_SOURCE_DIR "/scenarios/hello.yaml --quiet"));
}
BENCHMARK(BM_HelloStartup)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(10);

}  // namespace

BENCHMARK_MAIN();
