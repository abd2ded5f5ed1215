// `make bench`, AI Core part: the 1024 x 1024 x 1024 f16 GEMM kernel
// (sw/kernels/gemm.c) on one AI Core of the SoC model, A, B and C in the
// 8 MiB L2 buffer (DDR would make the run bandwidth-bound), double buffered
// and serial. Reported per run: host wall time of the simulation, simulated
// kernel cycles, Cube MAC utilisation, and the model's host speed in
// GMAC/s (1024^3 MACs / wall seconds); then a native fp32 naive triple-loop
// GEMM of the same size in this process, and the ratio.
//
// SystemC elaborates and simulates once per process, so every simulation
// runs in a child: this binary re-executes itself with
//   npuvp_gemm_bench --simulate-gemm <double_buffer 0|1> [M K N]
// which simulates once and prints one JSON line (the child also checks a
// sample of C against the sequential-k f32 reference).
#include "core/parameters.h"
#include "core/simulation.h"
#include "core/statistics.h"
#include "mem/elf_image.h"
#include "npu/numerics.h"
#include "platform/host_platform.h"
#include "platform/kernel_launcher.h"

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>
#include <systemc>
#include <tlm_utils/tlm_quantumkeeper.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

// Before main(): SystemC prints its banner before sc_main runs.
const bool kBannerDisabled = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;

constexpr std::uint64_t kSize = 1024;
constexpr std::uint64_t kL2 = npuvp::memory_map::kL2Buffer;

std::vector<std::uint16_t> random_halves(std::size_t count, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<std::uint16_t> values(count);
  for (auto& value : values) value = npuvp::numerics::float_to_half(dist(rng));
  return values;
}

double statistic(const std::string& name) {
  const npuvp::Statistic* statistic = npuvp::StatisticsRegistry::instance().find(name);
  return statistic ? statistic->to_json().get<double>() : -1;
}

// ---- Child: one simulation -------------------------------------------------

int simulate_gemm(bool double_buffer, std::uint64_t m, std::uint64_t k, std::uint64_t n) {
  using namespace npuvp;
  nlohmann::json out;
  try {
    tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_core::sc_time(10, sc_core::SC_US));  // as npuvp run
    HostPlatform platform("soc");
    ParameterRegistry::instance().check_all_overrides_used();
    platform.park_host_cpu();
    ElfImage image(std::string(NPUVP_FIRMWARE_DIR) + "/sw/kernels/gemm.elf");
    auto write = [&](std::uint64_t address, const void* data, std::size_t size) {
      if (platform.write_memory(address, static_cast<const std::uint8_t*>(data), size) != size)
        throw std::runtime_error("no memory for the GEMM operands");
    };
    image.load([&](std::uint64_t address, const std::uint8_t* data, std::size_t size) {
      return platform.write_memory(address, data, size);
    });
    const auto a = random_halves(m * k, 1), b = random_halves(k * n, 2);
    const std::uint64_t a_addr = kL2, b_addr = a_addr + a.size() * 2, c_addr = b_addr + b.size() * 2;
    if (c_addr + m * n * 2 > kL2 + memory_map::kL2BufferSize) throw std::runtime_error("operands exceed the L2 buffer");
    write(a_addr, a.data(), a.size() * 2);
    write(b_addr, b.data(), b.size() * 2);
    const std::vector<std::uint64_t> args = {a_addr, b_addr, c_addr, m, k, n, double_buffer ? 1u : 0u};
    write(memory_map::kKernelArguments, args.data(), args.size() * 8);

    KernelLauncher::Plan plan;
    plan.entry = image.entry();
    KernelLauncher launcher(platform, plan);
    const auto start = std::chrono::steady_clock::now();
    try {
      sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_SEC));
    } catch (const SimulationError& error) {
      simulation().record_failure(error.status(), error.what());
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!simulation().finished() || simulation().status() != ExitStatus::kSuccess)
      throw std::runtime_error("the kernel did not finish: " + simulation().reason());

    // A sample of C against the Cube's semantics (f32, increasing k).
    std::vector<std::uint16_t> c(m * n);
    platform.read_memory(c_addr, reinterpret_cast<std::uint8_t*>(c.data()), c.size() * 2);
    std::mt19937 rng(3);
    std::size_t mismatches = 0, checked = 0;
    for (; checked < 4096; ++checked) {
      const std::size_t i = rng() % m, j = rng() % n;
      float acc = 0.0f;
      for (std::size_t kk = 0; kk < k; ++kk)
        acc += numerics::half_to_float(a[i * k + kk]) * numerics::half_to_float(b[kk * n + j]);
      mismatches += c[i * n + j] != numerics::float_to_half(acc);
    }
    out["wall_seconds"] = wall;
    out["kernel_cycles"] = statistic("soc.aicore0.kernel_cycles");
    out["utilization"] = statistic("soc.aicore0.cube.mac_utilization");
    out["cube_busy_cycles"] = statistic("soc.aicore0.cube.busy_cycles");
    out["mte2_busy_cycles"] = statistic("soc.aicore0.mte2.busy_cycles");
    out["checked"] = checked;
    out["mismatches"] = mismatches;
  } catch (const std::exception& error) {
    out["error"] = error.what();
  }
  std::cout << out.dump() << std::endl;
  return out.contains("error") ? 1 : 0;
}

// ---- Parent: benchmarks ------------------------------------------------------

struct Figures {
  double wall = 0, process = 0, cycles = 0, utilization = 0, gmacs = 0;
};
Figures g_double, g_serial;
double g_native_gmacs = 0, g_native_seconds = 0, g_ikj_gmacs = 0, g_ikj_seconds = 0;

nlohmann::json run_child(bool double_buffer) {
  char self[4096];
  const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  if (length <= 0) throw std::runtime_error("cannot find this executable");
  self[length] = '\0';
  const std::string command =
      std::string(self) + " --simulate-gemm " + (double_buffer ? "1" : "0") + " 2>/dev/null";
  std::FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot start the simulation child");
  std::string text;
  char buffer[4096];
  std::size_t count;
  while ((count = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) text.append(buffer, count);
  pclose(pipe);
  // SystemC may print its own lines; the result is the JSON one.
  std::string line;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    if (text[at] == '{') line = text.substr(at, end - at);
    at = end + 1;
  }
  auto json = nlohmann::json::parse(line, nullptr, false);
  if (json.is_discarded()) throw std::runtime_error("the simulation child printed no result: " + text);
  if (json.contains("error")) throw std::runtime_error(json["error"].get<std::string>());
  return json;
}

void simulate(benchmark::State& state, bool double_buffer, Figures& figures) {
  try {
    for (auto _ : state) {
      const auto start = std::chrono::steady_clock::now();
      auto json = run_child(double_buffer);
      figures.process = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      figures.wall = json["wall_seconds"].get<double>();
      figures.cycles = json["kernel_cycles"].get<double>();
      figures.utilization = json["utilization"].get<double>();
      figures.gmacs = static_cast<double>(kSize * kSize * kSize) / figures.wall / 1e9;
      state.SetIterationTime(figures.wall);
      if (json["mismatches"].get<double>() != 0) {
        state.SkipWithError("C differs from the reference");
        return;
      }
    }
    state.counters["sim_cycles"] = figures.cycles;
    state.counters["cube_utilization"] = figures.utilization;
    state.counters["host_GMAC_per_s"] = figures.gmacs;
    state.counters["process_s"] = figures.process;  // whole child: set-up, simulation, sample check
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
  }
}

void BM_Gemm1024_DoubleBuffered(benchmark::State& state) { simulate(state, true, g_double); }
BENCHMARK(BM_Gemm1024_DoubleBuffered)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_Gemm1024_Serial(benchmark::State& state) { simulate(state, false, g_serial); }
BENCHMARK(BM_Gemm1024_Serial)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);

// Native fp32 GEMMs of the same size: the textbook triple loop (i, j, k:
// dot products down B's columns) and, for scale, the loop-interchanged i, k,
// j order that the compiler vectorises.
struct NativeMatrices {
  std::vector<float> a, b, c;
  NativeMatrices() : a(kSize * kSize), b(kSize * kSize), c(kSize * kSize) {
    std::mt19937 rng(4);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (auto& x : a) x = dist(rng);
    for (auto& x : b) x = dist(rng);
  }
};

template <typename Loop>
void native(benchmark::State& state, Loop loop, double& seconds_out, double& gmacs_out) {
  NativeMatrices x;
  double seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    loop(x.a.data(), x.b.data(), x.c.data());
    benchmark::DoNotOptimize(x.c.data());
    benchmark::ClobberMemory();
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.SetIterationTime(seconds);
  }
  seconds_out = seconds;
  gmacs_out = static_cast<double>(kSize * kSize * kSize) / seconds / 1e9;
  state.counters["GMAC_per_s"] = gmacs_out;
}

void BM_Gemm1024_NativeNaive(benchmark::State& state) {
  native(state, [](const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c) {
    for (std::size_t i = 0; i < kSize; ++i)
      for (std::size_t j = 0; j < kSize; ++j) {
        float acc = 0.0f;
        for (std::size_t k = 0; k < kSize; ++k) acc += a[i * kSize + k] * b[k * kSize + j];
        c[i * kSize + j] = acc;
      }
  }, g_native_seconds, g_native_gmacs);
}
BENCHMARK(BM_Gemm1024_NativeNaive)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_Gemm1024_NativeIkj(benchmark::State& state) {
  native(state, [](const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c) {
    std::fill(c, c + kSize * kSize, 0.0f);
    for (std::size_t i = 0; i < kSize; ++i)
      for (std::size_t k = 0; k < kSize; ++k) {
        const float x = a[i * kSize + k];
        for (std::size_t j = 0; j < kSize; ++j) c[i * kSize + j] += x * b[k * kSize + j];
      }
  }, g_ikj_seconds, g_ikj_gmacs);
}
BENCHMARK(BM_Gemm1024_NativeIkj)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);

void print_summary() {
  if (g_double.wall <= 0 || g_native_gmacs <= 0) return;
  std::printf("\n1024^3 f16 GEMM on one AI Core (operands in the L2 buffer); wall = host time of the\n"
              "simulation (sc_start), process = the whole child run:\n");
  std::printf("  %-18s %9s %10s %13s %10s %12s\n", "", "wall s", "process s", "sim cycles", "Cube util",
              "host GMAC/s");
  auto row = [](const char* name, const Figures& f) {
    std::printf("  %-18s %9.3f %10.3f %13.0f %10.3f %12.3f\n", name, f.wall, f.process, f.cycles, f.utilization,
                f.gmacs);
  };
  row("double-buffered", g_double);
  if (g_serial.wall > 0) row("serial", g_serial);
  std::printf("  %-18s %9.3f %10s %13s %10s %12.3f\n", "native fp32 ijk", g_native_seconds, "-", "-", "-",
              g_native_gmacs);
  if (g_ikj_gmacs > 0)
    std::printf("  %-18s %9.3f %10s %13s %10s %12.3f\n", "native fp32 ikj", g_ikj_seconds, "-", "-", "-",
                g_ikj_gmacs);
  std::printf("  model (double-buffered) / native naive ijk: %.2f\n", g_double.gmacs / g_native_gmacs);
  if (g_ikj_gmacs > 0) std::printf("  model (double-buffered) / native ikj:       %.2f\n", g_double.gmacs / g_ikj_gmacs);
  if (g_serial.cycles > 0)
    std::printf("  serial / double-buffered simulated cycles:  %.2f\n", g_serial.cycles / g_double.cycles);
}

}  // namespace

int sc_main(int argc, char** argv) {
  if (argc >= 3 && std::string(argv[1]) == "--simulate-gemm") {
    const std::uint64_t m = argc >= 6 ? std::strtoull(argv[3], nullptr, 0) : kSize;
    const std::uint64_t k = argc >= 6 ? std::strtoull(argv[4], nullptr, 0) : kSize;
    const std::uint64_t n = argc >= 6 ? std::strtoull(argv[5], nullptr, 0) : kSize;
    return simulate_gemm(std::string(argv[2]) != "0", m, k, n);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  print_summary();
  return 0;
}
