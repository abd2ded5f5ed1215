// `make bench`, fabric part: host speed of loosely-timed transactions through
// the fabric to DRAM. SystemC elaborates and simulates once per process, so
// this is ONE simulation (one benchmark iteration): a TrafficGenerator issues
// 2 M random 64-byte reads and writes (half each) with 8 outstanding over
// 1 MiB of DDR, into the fabric that build_fabric() assembles, under the
// platform's default 10 us quantum. The range is small so that the host's
// caches hold it and the benchmark measures the models, not host DRAM misses
// (tg.range=256MiB shows those).
// Reported: host transactions per second and, from the simulation itself,
// the bandwidth and mean latency the fabric gave.
//
// Extra arguments `name=value` override parameters, e.g.
//   npuvp_fabric_bench tg.pattern=sequential tg.outstanding=32 ddr.tCL=20ns ring.link_width=16
#include "core/parameters.h"
#include "core/simulation.h"
#include "interconnect/ring_bus.h"
#include "interconnect/traffic_generator.h"
#include "mem/ddr_controller.h"

#include "parameter_arguments.h"

#include <benchmark/benchmark.h>
#include <systemc>
#include <tlm_utils/tlm_quantumkeeper.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

using npuvp::TrafficGenerator;

// Before main(): SystemC prints its banner before sc_main runs.
const bool kBannerDisabled = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;

constexpr std::uint64_t kDdrBase = 0x80000000;
constexpr std::uint64_t kDdrSize = 1ull << 30;
constexpr const char* kOrigin = "fabric_bench";

std::vector<std::pair<std::string, std::string>> g_command_line_overrides;

// A parameter value of this benchmark, unless the command line gave one.
void set_default(const std::string& name, const std::string& value) {
  for (const auto& given : g_command_line_overrides)
    if (given.first == name) return;
  npuvp::ParameterRegistry::instance().set_override(name, value, kOrigin);
}

// What lies between the generator and DRAM, named in the benchmark's label.
// The benchmark measures whatever this builds; moving it to another fabric
// (RingBus + DdrController) changes only this function and the label.
constexpr const char* kFabric = "RingBus+DdrController";
std::vector<std::unique_ptr<sc_core::sc_module>> build_fabric(TrafficGenerator& generator) {
  // The platform's path: the generator two hops from the DDR controller.
  auto ring = std::make_unique<npuvp::RingBus>("ring");
  auto ddr = std::make_unique<npuvp::DdrController>("ddr", kDdrSize);
  unsigned generator_stop = ring->add_stop("tg");
  ring->add_stop("l2");
  unsigned ddr_stop = ring->add_stop("ddr");
  ring->add_stop("periph");
  ring->connect_initiator(generator.socket, generator_stop);
  ring->map(ddr->socket, kDdrBase, kDdrSize, "ddr", ddr_stop);
  std::vector<std::unique_ptr<sc_core::sc_module>> parts;
  parts.push_back(std::move(ring));
  parts.push_back(std::move(ddr));
  return parts;
}

void BM_FabricToDdr(benchmark::State& state) {
  static bool simulated = false;
  if (simulated) {
    state.SkipWithError("SystemC simulates once per process: run a single repetition");
    return;
  }
  simulated = true;
  try {
    for (const auto& [name, value] : g_command_line_overrides)
      npuvp::ParameterRegistry::instance().set_override(name, value, "command line");
    set_default("tg.pattern", "random");
    set_default("tg.base", std::to_string(kDdrBase));
    set_default("tg.range", "1MiB");
    set_default("tg.transaction_size", "64");
    set_default("tg.read_fraction", "0.5");
    set_default("tg.count", "2000000");
    set_default("tg.outstanding", "8");
    tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_core::sc_time(10, sc_core::SC_US));

    TrafficGenerator generator("tg");
    auto fabric = build_fabric(generator);
    npuvp::ParameterRegistry::instance().check_all_overrides_used();

    double wall_seconds = 0;
    for (auto _ : state) {
      auto start = std::chrono::steady_clock::now();
      sc_core::sc_start();
      wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      state.SetIterationTime(wall_seconds);
    }
    if (!generator.finished() || generator.transactions() != generator.count.get()) {
      state.SkipWithError("the generator did not finish");
      return;
    }
    double transactions = static_cast<double>(generator.transactions());
    state.SetLabel(kFabric);
    state.counters["transactions"] = transactions;
    // Host speed: transactions per wall-clock second of the simulation.
    state.counters["transactions_per_s"] = transactions / wall_seconds;
    // Simulated behaviour of the fabric under this load.
    state.counters["sim_GB_per_s"] = generator.bandwidth() / 1e9;
    state.counters["sim_mean_latency_ns"] = generator.mean_latency().to_seconds() * 1e9;
    state.counters["sim_time_us"] = generator.last_completion().to_seconds() * 1e6;
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
  }
}
BENCHMARK(BM_FabricToDdr)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

int sc_main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  // What Google Benchmark left: parameter overrides.
  if (!npuvp::bench::parameter_arguments(argc, argv, g_command_line_overrides)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
