// `make bench`, mesh part: host speed of the mesh network-on-chip model
// (models/mesh) under uniform random traffic on the 4x4 mesh with the
// thesis's parameters (defaults of MeshNetwork).
//
// BM_MeshUniformRandomDelivery: ONE SystemC simulation (SystemC simulates
// once per process). Closed loop: every tile starts with 8 messages in
// flight; each delivery makes the receiving tile send a new message at once,
// to a uniformly random tile (itself included), until 2 M messages were sent.
// A message is a request (vnet 0, control, 1 flit), a forward (vnet 1,
// control) or a response (vnet 2, a 32-byte line, 3 flits) with equal
// probability. Every message goes through send(): path reservation,
// statistics, the delivery queue and the SC_METHOD that calls the receiver.
// Reported: messages per second of host time, and from the simulation the
// mean latency, mean hops and the busiest link's utilization.
//
// BM_MeshUniformRandomTiming: the same traffic through transfer() only (the
// timing answer for decoupled callers: reservations and statistics, no
// SystemC event), messages sent at increasing times, 2 per cycle.
//
// Extra arguments `name=value` override parameters, e.g.
//   npuvp_mesh_bench mesh.width=8 mesh.height=8 mesh.link_width=256
#include "core/parameters.h"
#include "core/statistics.h"
#include "mesh/mesh_network.h"

#include "parameter_arguments.h"

#include <benchmark/benchmark.h>
#include <systemc>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

using npuvp::MeshMessage;
using npuvp::MeshNetwork;

// Before main(): SystemC prints its banner before sc_main runs.
const bool kBannerDisabled = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;

constexpr std::uint64_t kMessages = 2000000;
constexpr unsigned kInFlightPerTile = 8;

// Deterministic, cheap randomness (xorshift64*).
struct Random {
  std::uint64_t state = 0x9e3779b97f4a7c15ull;
  std::uint64_t next() {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 0x2545f4914f6cdd1dull;
  }
  unsigned below(unsigned n) { return static_cast<unsigned>((next() >> 32) * n >> 32); }
};

// Uniform random traffic over a mesh's tiles, in the three message classes.
struct Traffic {
  MeshNetwork& mesh;
  Random random;
  unsigned types[3];
  explicit Traffic(MeshNetwork& network) : mesh(network) {
    types[0] = mesh.message_type("Request");
    types[1] = mesh.message_type("Forward");
    types[2] = mesh.message_type("Response");
  }
  MeshMessage next(unsigned source) {
    MeshMessage message;
    message.source = source;
    message.destination = random.below(mesh.tile_count());
    message.vnet = random.below(3);
    message.type = types[message.vnet];
    message.data_bytes = message.vnet == 2 ? 32 : 0;
    return message;
  }
};

MeshNetwork* g_delivery_mesh = nullptr;
MeshNetwork* g_timing_mesh = nullptr;
std::string g_setup_error;

double statistic(const std::string& name) {
  const npuvp::Statistic* found = npuvp::StatisticsRegistry::instance().find(name);
  return found ? found->to_json().get<double>() : -1.0;
}

double busiest_link_utilization(const std::string& mesh) {
  double busiest = 0;
  const std::string prefix = mesh + ".link.", suffix = ".utilization";
  for (const npuvp::Statistic* s : npuvp::StatisticsRegistry::instance().all()) {
    const std::string& name = s->name();
    if (name.rfind(prefix, 0) == 0 && name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      busiest = std::max(busiest, s->to_json().get<double>());
  }
  return busiest;
}

void BM_MeshUniformRandomDelivery(benchmark::State& state) {
  static bool simulated = false;
  if (simulated) {
    state.SkipWithError("SystemC simulates once per process: run a single repetition");
    return;
  }
  simulated = true;
  if (!g_setup_error.empty()) {
    state.SkipWithError(g_setup_error.c_str());
    return;
  }
  try {
    MeshNetwork& mesh = *g_delivery_mesh;
    Traffic traffic(mesh);
    std::uint64_t sent = 0;
    // A receiver per tile: each delivery is answered by a new message.
    for (unsigned tile = 0; tile < mesh.tile_count(); ++tile)
      mesh.attach(tile, 0, [&, tile](MeshMessage&) {
        if (sent < kMessages) {
          ++sent;
          mesh.send(traffic.next(tile));
        }
      });
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    for (unsigned tile = 0; tile < mesh.tile_count(); ++tile)
      for (unsigned i = 0; i < kInFlightPerTile && sent < kMessages; ++i, ++sent) mesh.send(traffic.next(tile));

    double wall_seconds = 0;
    for (auto _ : state) {
      auto start = std::chrono::steady_clock::now();
      sc_core::sc_start();
      wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      state.SetIterationTime(wall_seconds);
    }
    if (mesh.messages_delivered() != kMessages) {
      state.SkipWithError("not every message was delivered");
      return;
    }
    const double messages = static_cast<double>(mesh.messages_delivered());
    state.SetLabel(std::to_string(mesh.width.get()) + "x" + std::to_string(mesh.height.get()) +
                   " closed loop, send+deliver");
    state.counters["messages"] = messages;
    state.counters["messages_per_s"] = messages / wall_seconds;
    state.counters["sim_mean_latency_cycles"] =
        static_cast<const npuvp::Histogram*>(npuvp::StatisticsRegistry::instance().find("mesh.latency"))->mean();
    state.counters["sim_mean_hops"] =
        static_cast<const npuvp::Histogram*>(npuvp::StatisticsRegistry::instance().find("mesh.hops"))->mean();
    state.counters["sim_busiest_link_utilization"] = busiest_link_utilization("mesh");
    state.counters["sim_energy_uJ"] = statistic("mesh.energy.total") * 1e6;
    state.counters["sim_time_us"] = sc_core::sc_time_stamp().to_seconds() * 1e6;
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
  }
}
BENCHMARK(BM_MeshUniformRandomDelivery)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_MeshUniformRandomTiming(benchmark::State& state) {
  if (!g_setup_error.empty()) {
    state.SkipWithError(g_setup_error.c_str());
    return;
  }
  try {
    MeshNetwork& mesh = *g_timing_mesh;
    Traffic traffic(mesh);
    const sc_core::sc_time step = mesh.cycle() / 2.0;  // two messages per cycle over the mesh
    sc_core::sc_time at = sc_core::sc_time_stamp();
    const unsigned tiles = mesh.tile_count();
    unsigned source = 0;
    for (auto _ : state) {
      benchmark::DoNotOptimize(mesh.transfer(traffic.next(source), at));
      source = source + 1 == tiles ? 0 : source + 1;
      at += step;
    }
    state.SetItemsProcessed(state.iterations());
    state.SetLabel("transfer() only, no delivery");
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
  }
}
BENCHMARK(BM_MeshUniformRandomTiming);

}  // namespace

int sc_main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  // What Google Benchmark left: parameter overrides.
  std::vector<std::pair<std::string, std::string>> settings;
  if (!npuvp::bench::parameter_arguments(argc, argv, settings)) return 1;
  for (const auto& [name, value] : settings)
    npuvp::ParameterRegistry::instance().set_override(name, value, "command line");
  // Both networks exist before the simulation starts (SystemC builds modules
  // only during elaboration); "mesh_timing" takes the same overrides.
  std::unique_ptr<MeshNetwork> delivery, timing;
  try {
    delivery = std::make_unique<MeshNetwork>("mesh");
    timing = std::make_unique<MeshNetwork>("mesh_timing");
    for (const npuvp::ParameterBase* parameter : npuvp::ParameterRegistry::instance().all()) {
      const std::string& name = parameter->name();
      if (name.rfind("mesh.", 0) == 0)
        npuvp::ParameterRegistry::instance().set_override("mesh_timing." + name.substr(5), parameter->value_text(),
                                                          "mesh");
    }
    npuvp::ParameterRegistry::instance().check_all_overrides_used();
    g_delivery_mesh = delivery.get();
    g_timing_mesh = timing.get();
  } catch (const std::exception& error) {
    g_setup_error = error.what();
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
