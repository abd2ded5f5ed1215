// The fabric end to end: TrafficGenerators -> RingBus -> DdrController.
// Every expectation is derived from the formulas of docs/fabric.md and the
// parameters, not measured and pasted.
#include "core/parameters.h"
#include "core/simulation.h"
#include "core/statistics.h"
#include "interconnect/ring_bus.h"
#include "interconnect/traffic_generator.h"
#include "mem/ddr_controller.h"

#include <gtest/gtest.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include <memory>
#include <string>
#include <vector>

namespace npuvp {
namespace {

using sc_core::sc_time;
using sc_core::SC_NS;

constexpr std::uint64_t kDdrBase = 0x8000'0000;

void set(const std::string& name, const std::string& value) {
  ParameterRegistry::instance().set_override(name, value, "test");
}

// A ring of `stops` stops: generators at stops 0.. (one each), DDR at `ddr_stop`.
struct Fabric {
  RingBus ring{"ring"};
  DdrController ddr{"ddr", 64ull << 20};
  std::vector<std::unique_ptr<TrafficGenerator>> generators;

  Fabric(unsigned stops, unsigned ddr_stop, unsigned generator_count) {
    for (unsigned i = 0; i < stops; ++i) ring.add_stop("s" + std::to_string(i));
    ring.map(ddr.socket, kDdrBase, ddr.size, "ddr", ddr_stop);
    for (unsigned i = 0; i < generator_count; ++i) {
      generators.push_back(std::make_unique<TrafficGenerator>(("tg" + std::to_string(i)).c_str()));
      ring.connect_initiator(generators.back()->socket, i);
    }
  }
  void run() {
    tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_time(100, SC_NS));
    sc_core::sc_start();
  }
};

void configure_stream(const std::string& generator, std::uint64_t count, std::uint64_t outstanding,
                      std::uint64_t base_offset = 0) {
  set(generator + ".pattern", "sequential");
  set(generator + ".base", std::to_string(kDdrBase + base_offset));
  set(generator + ".range", "16MiB");
  set(generator + ".transaction_size", "64");
  set(generator + ".read_fraction", "1");
  set(generator + ".count", std::to_string(count));
  set(generator + ".outstanding", std::to_string(outstanding));
}

// DDR defaults (docs/fabric.md): one 32-byte burst takes burst_length /
// data_rate = 16 / 3200 MT/s = 5 ns on a 2-byte channel; peak = channels x
// bus_width x data_rate.
constexpr double kBurstNs = 16.0 / 3200e6 * 1e9;
constexpr double kDdrPeak = 2 * 2 * 3200e6;  // bytes/s

}  // namespace

// One 64-byte read to a closed bank, 3 hops away (hop = 2 cycles at 1 GHz):
// request 3 hops + DDR row miss (tRCD + tCL + two bursts back to back) +
// response 3 hops + serialisation (64 B / 32 B per cycle = 2 cycles).
TEST(Fabric, SingleReadLatencyIsHopsPlusDdrLatency) {
  configure_stream("tg0", 1, 1);
  Fabric fabric(6, 3, 1);
  fabric.run();
  const double hop_ns = 2, hops = 3, serialisation_ns = 2;
  const double ddr_ns = 18 + 17.5 + 2 * kBurstNs;
  EXPECT_DOUBLE_EQ(fabric.generators[0]->mean_latency().to_seconds() * 1e9,
                   hops * hop_ns + ddr_ns + hops * hop_ns + serialisation_ns);
}

// Streaming reads with many in flight: bandwidth = min(link, DDR). The ring
// link carries 32 B/cycle = 32 GB/s, the DDR 12.8 GB/s: the DDR limits.
TEST(Fabric, StreamingBandwidthIsTheDdrPeakWhenTheDdrIsTheBottleneck) {
  configure_stream("tg0", 20000, 32);
  Fabric fabric(4, 2, 1);
  fabric.run();
  EXPECT_NEAR(fabric.generators[0]->bandwidth(), kDdrPeak, 0.05 * kDdrPeak);
}

// With 8-byte links (8 GB/s) the ring limits instead.
TEST(Fabric, StreamingBandwidthIsTheLinkBandwidthWhenTheLinkIsTheBottleneck) {
  set("ring.link_width", "8");
  configure_stream("tg0", 20000, 32);
  Fabric fabric(4, 2, 1);
  fabric.run();
  const double link = 8 * 1e9;
  EXPECT_NEAR(fabric.generators[0]->bandwidth(), link, 0.05 * link);
}

// Two masters streaming from different stops into one DDR share it: each
// gets half its bandwidth. The second stream starts one bank (4 KiB) further,
// so the two never open different rows of one bank.
TEST(Fabric, TwoMastersShareTheDdrEqually) {
  configure_stream("tg0", 20000, 32);
  configure_stream("tg1", 20000, 32, 4096);
  Fabric fabric(4, 2, 2);
  fabric.run();
  for (const auto& generator : fabric.generators)
    EXPECT_NEAR(generator->bandwidth(), kDdrPeak / 2, 0.05 * kDdrPeak / 2) << generator->name();
}

// Streams 8 MiB apart hit the same banks in different rows: the DDR spends
// tRP + tRCD on each conflict, but with 32 accesses in flight per stream the
// data bus serves other banks meanwhile (its reservation calendar lets an
// access use any free gap), so the two still share the peak fairly.
TEST(Fabric, RowConflictsBetweenStreamsAreHiddenByBankParallelism) {
  configure_stream("tg0", 20000, 32);
  configure_stream("tg1", 20000, 32, 8ull << 20);
  Fabric fabric(4, 2, 2);
  fabric.run();
  double a = fabric.generators[0]->bandwidth(), b = fabric.generators[1]->bandwidth();
  EXPECT_NEAR(a, b, 0.02 * a);
  EXPECT_NEAR(a + b, kDdrPeak, 0.05 * kDdrPeak);
  EXPECT_GT(StatisticsRegistry::instance().find("ddr.row_conflicts")->to_json().get<double>(), 0);
}

// The ring's DMI pointer reaches the DDR's storage with the round-trip path
// latency added to the DDR's (row-hit) DMI latency.
TEST(Fabric, DmiThroughTheRingAddsTheRoundTripPathLatency) {
  Fabric fabric(6, 3, 0);
  struct Probe : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Probe> socket{"socket"};
    explicit Probe(sc_core::sc_module_name name) : sc_module(name) {}
  } probe("probe");
  fabric.ring.connect_initiator(probe.socket, 0);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  tlm::tlm_generic_payload payload;
  payload.set_address(kDdrBase + 0x1000);
  tlm::tlm_dmi dmi;
  ASSERT_TRUE(probe.socket->get_direct_mem_ptr(payload, dmi));
  EXPECT_EQ(dmi.get_dmi_ptr(), fabric.ddr.data());
  const double round_trip_ns = 2 * 3 * 2;
  EXPECT_DOUBLE_EQ(dmi.get_read_latency().to_seconds() * 1e9, 17.5 + kBurstNs + round_trip_ns);
}

}  // namespace npuvp
