// MeshNetwork: analytic timing tests. Every expected time is derived here, by
// hand, from the formulas documented in mesh/mesh_network.h and docs/mesh.md:
//   F = 1 + ceil(8 · data_bytes / link_width)
//   zero-load latency = h · (R + L) + F · T
// and, under contention, per channel (injection port, each XY link, ejection
// port; one per vnet) the first free gap of F·T at or after the head's time:
// injection at t0, link k at head_k + R, head_{k+1} = start_k + L, ejection at
// head_h, arrival = ejection start + F·T, then per-(source, destination, vnet)
// order. Each TEST runs in its own process (SystemC cannot restart).
#include "core/parameters.h"
#include "core/simulation.h"
#include "core/statistics.h"
#include "mesh/mesh_network.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <systemc>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace npuvp {
namespace {

using sc_core::SC_NS;
using sc_core::SC_ZERO_TIME;
using sc_core::sc_time;

// Deliberately not the defaults, so the tests see the parameters being used:
// T = 2 ns, R = 3 cycles, L = 1 cycle, 64-bit links (a 32-byte line = 5 flits).
constexpr double kClock = 500e6;
constexpr std::uint64_t kRouter = 3, kLink = 1, kWidthBits = 64;
constexpr std::uint64_t kLine = 32;       // bytes of a cache line
constexpr std::uint64_t kLineFlits = 5;   // 1 + ceil(8 · 32 / 64)
const sc_time kCycle(2, SC_NS);

sc_time cycles(std::uint64_t count) { return kCycle * static_cast<double>(count); }

const Statistic& statistic(const std::string& name) {
  const Statistic* found = StatisticsRegistry::instance().find(name);
  if (!found) throw std::runtime_error("no statistic " + name);
  return *found;
}
std::uint64_t counter(const std::string& name) { return statistic(name).to_json().get<std::uint64_t>(); }
double real_statistic(const std::string& name) { return statistic(name).to_json().get<double>(); }
std::string link(const std::string& from, const std::string& to) { return "mesh.link." + from + "_to_" + to; }

struct Delivery {
  sc_time time;
  unsigned node, port, type, vnet, source;
  int id;  // MeshMessage::tag
};

// A mesh "mesh" with test parameters (or the defaults) and a recording
// receiver at port 0 of every node.
struct Fixture {
  MeshNetwork mesh{"mesh"};
  std::vector<Delivery> deliveries;
  unsigned control = 0, data = 0;  // message types

  explicit Fixture(bool defaults = false, const std::string& memory_controllers = "") {
    if (!defaults) {
      mesh.clock.set(kClock);
      mesh.router_latency.set(kRouter);
      mesh.link_latency.set(kLink);
      mesh.link_width.set(kWidthBits);
    }
    mesh.memory_controllers.set(memory_controllers);
    control = mesh.message_type("Read");
    data = mesh.message_type("RepExc");
    for (unsigned node = 0; node < mesh.node_count(); ++node)
      mesh.attach(node, 0, [this, node](MeshMessage& message) {
        deliveries.push_back(Delivery{sc_core::sc_time_stamp(), node, message.port, message.type, message.vnet,
                                      message.source, static_cast<int>(message.tag)});
      });
    sc_core::sc_start(SC_ZERO_TIME);
  }
  MeshMessage message(unsigned source, unsigned destination, bool with_line, unsigned vnet = 0, int id = 0) {
    MeshMessage m;
    m.source = source;
    m.destination = destination;
    m.vnet = vnet;
    m.type = with_line ? data : control;
    m.data_bytes = with_line ? kLine : 0;
    m.tag = static_cast<std::uint64_t>(id);
    return m;
  }
  unsigned at(unsigned x, unsigned y) { return mesh.tile(MeshCoordinate{x, y}); }
};

// The documented zero-load formula with the test parameters, in time.
sc_time formula(unsigned hops, std::uint64_t flits) { return cycles(hops * (kRouter + kLink) + flits); }

TEST(MeshNetwork, DefaultsAreTheThesisNetwork) {
  MeshNetwork mesh("mesh");
  EXPECT_EQ(mesh.width.get(), 4u);
  EXPECT_EQ(mesh.height.get(), 4u);
  EXPECT_EQ(mesh.router_latency.get(), 2u);
  EXPECT_EQ(mesh.link_latency.get(), 2u);
  EXPECT_EQ(mesh.link_width.get(), 128u);
  EXPECT_EQ(mesh.virtual_networks.get(), 3u);
  EXPECT_DOUBLE_EQ(mesh.clock.get(), 1e9);
  EXPECT_DOUBLE_EQ(mesh.router_energy.get(), 3.77e-10);
  EXPECT_DOUBLE_EQ(mesh.link_energy.get(), 2.22e-10);
  EXPECT_DOUBLE_EQ(mesh.arbitration_energy.get(), 9.01e-13);
  EXPECT_EQ(mesh.router_latency.name(), "mesh.router_latency");
  EXPECT_EQ(mesh.tile_count(), 16u);
  EXPECT_EQ(mesh.node_count(), 16u);
  // Flits on 128-bit links: control 1, a 32-byte line 1 + 2.
  EXPECT_EQ(mesh.flits(0), 1u);
  EXPECT_EQ(mesh.flits(16), 2u);
  EXPECT_EQ(mesh.flits(17), 3u);
  EXPECT_EQ(mesh.flits(32), 3u);
  EXPECT_EQ(mesh.flits(64), 5u);
  // h · (2 + 2) + F cycles at 1 GHz: corner to corner (6 hops) 25 / 27 ns.
  EXPECT_EQ(mesh.zero_load_latency(0, 15, 0), sc_time(25, SC_NS));
  EXPECT_EQ(mesh.zero_load_latency(15, 0, 32), sc_time(27, SC_NS));
  EXPECT_EQ(mesh.zero_load_latency(5, 5, 0), sc_time(1, SC_NS));
  EXPECT_EQ(mesh.zero_load_latency(5, 5, 32), sc_time(3, SC_NS));
  EXPECT_EQ(mesh.zero_load_latency(5, 6, 32), sc_time(7, SC_NS));
  // The reference's average: 2.5 hops · 4 cycles = 10 cycles of transit on
  // uniform random traffic (local included).
  std::uint64_t total_hops = 0;
  for (unsigned a = 0; a < 16; ++a)
    for (unsigned b = 0; b < 16; ++b) total_hops += mesh.hops(a, b);
  EXPECT_DOUBLE_EQ(static_cast<double>(total_hops) / 256, 2.5);
}

// The worked example of docs/mesh.md, on the defaults (1 ns cycle, R = L = 2,
// 128-bit links: a line is 3 flits).
TEST(MeshNetwork, DocumentedWorkedExample) {
  MeshNetwork mesh("mesh");
  const unsigned read = mesh.message_type("Read"), data = mesh.message_type("Data");
  for (unsigned node = 0; node < 16; ++node) mesh.attach(node, 0, [](MeshMessage&) {});
  sc_core::sc_start(SC_ZERO_TIME);
  auto message = [](unsigned from, unsigned to, unsigned type, unsigned vnet, std::uint64_t bytes) {
    MeshMessage m;
    m.source = from;
    m.destination = to;
    m.type = type;
    m.vnet = vnet;
    m.data_bytes = bytes;
    return m;
  };
  // 1. A Read from tile 1 (x1y0) to tile 14 (x2y3): 4 hops, 4 · 4 + 1 = 17 ns.
  EXPECT_EQ(mesh.route(1, 14),
            (std::vector<MeshCoordinate>{{1, 0}, {2, 0}, {2, 1}, {2, 2}, {2, 3}}));
  EXPECT_EQ(mesh.send(message(1, 14, read, 0, 0), sc_time(100, SC_NS)), sc_time(117, SC_NS));
  // 2. A: a line from tile 0 to tile 3 at 0 ns; B: a line from tile 1 to tile 2
  // at 4 ns, both on vnet 2: B waits 3 ns for A's flits on x1y0 -> x2y0.
  const sc_time start(200, SC_NS);
  EXPECT_EQ(mesh.send(message(0, 3, data, 2, 32), start), start + sc_time(15, SC_NS));
  EXPECT_EQ(mesh.send(message(1, 2, data, 2, 32), start + sc_time(4, SC_NS)), start + sc_time(14, SC_NS));
  // The same B on vnet 0 does not wait: 4 + 4 + 3 = 11 ns.
  EXPECT_EQ(mesh.send(message(1, 2, data, 0, 32), start + sc_time(4, SC_NS)), start + sc_time(11, SC_NS));
  // Energy of the four messages: flits · (h + 1) router traversals, flits · h
  // link traversals, h + 1 arbitrations.
  EXPECT_EQ(counter("mesh.router_traversals"), 1u * 5 + 3 * 4 + 3 * 2 + 3 * 2);
  EXPECT_EQ(counter("mesh.link_traversals"), 1u * 4 + 3 * 3 + 3 * 1 + 3 * 1);
  EXPECT_EQ(counter("mesh.arbitrations"), 5u + 4 + 2 + 2);
  EXPECT_NEAR(real_statistic("mesh.energy.dynamic"), 29 * 3.77e-10 + 19 * 2.22e-10 + 13 * 9.01e-13, 1e-22);
}

TEST(MeshNetwork, ParametersAreSetByName) {
  ParameterRegistry::instance().set_override("mesh.router_latency", "5", "test");
  ParameterRegistry::instance().set_override("mesh.link_width", "256", "test");
  ParameterRegistry::instance().set_override("mesh.width", "8", "test");
  ParameterRegistry::instance().set_override("mesh.link_energy", "0.5nJ", "test");
  MeshNetwork mesh("mesh");
  ParameterRegistry::instance().check_all_overrides_used();
  EXPECT_EQ(mesh.tile_count(), 32u);
  EXPECT_EQ(mesh.flits(32), 2u);  // 1 + ceil(256 / 256)
  // 8x4: tile 0 to tile 31 is 7 + 3 hops of (5 + 2) cycles, + 2 flits.
  EXPECT_EQ(mesh.zero_load_latency(0, 31, 32), sc_time(72, SC_NS));
  EXPECT_DOUBLE_EQ(mesh.link_energy.get(), 0.5e-9);
}

TEST(MeshNetwork, FlitFormula) {
  Fixture f;
  EXPECT_EQ(f.mesh.flits(0), 1u);
  EXPECT_EQ(f.mesh.flits(1), 2u);
  EXPECT_EQ(f.mesh.flits(8), 2u);
  EXPECT_EQ(f.mesh.flits(9), 3u);
  EXPECT_EQ(f.mesh.flits(kLine), kLineFlits);
  f.mesh.send(f.message(0, 1, true), SC_ZERO_TIME);
  f.mesh.send(f.message(0, 2, false), sc_time(1, sc_core::SC_US));
  EXPECT_EQ(counter("mesh.flits"), kLineFlits + 1);
  EXPECT_EQ(counter("mesh.type.RepExc.flits"), kLineFlits);
  EXPECT_EQ(counter("mesh.type.Read.flits"), 1u);
}

TEST(MeshNetwork, ZeroLoadLatencyAcrossZeroOneAndSixHops) {
  Fixture f;
  struct Case {
    unsigned source, destination, hops;
    bool with_line;
    sc_time expected;  // by hand: h · 8 ns + F · 2 ns
  };
  const std::vector<Case> cases = {
      {5, 5, 0, false, sc_time(2, SC_NS)},   {5, 5, 0, true, sc_time(10, SC_NS)},
      {5, 6, 1, false, sc_time(10, SC_NS)},  {5, 6, 1, true, sc_time(18, SC_NS)},
      {6, 2, 1, false, sc_time(10, SC_NS)},  {6, 2, 1, true, sc_time(18, SC_NS)},
      {0, 15, 6, false, sc_time(50, SC_NS)}, {0, 15, 6, true, sc_time(58, SC_NS)},
      {12, 3, 6, false, sc_time(50, SC_NS)}, {3, 12, 6, true, sc_time(58, SC_NS)},
  };
  std::vector<sc_time> arrivals;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    ASSERT_EQ(f.mesh.hops(c.source, c.destination), c.hops) << i;
    EXPECT_EQ(formula(c.hops, c.with_line ? kLineFlits : 1), c.expected) << i;
    EXPECT_EQ(f.mesh.zero_load_latency(c.source, c.destination, c.with_line ? kLine : 0), c.expected) << i;
    // Far apart in time: no message sees another.
    const sc_time start = sc_time(1, sc_core::SC_US) * static_cast<double>(i + 1);
    MeshMessage m = f.message(c.source, c.destination, c.with_line, 0, static_cast<int>(i));
    EXPECT_EQ(f.mesh.arrival_time(m, start), start + c.expected) << i;
    arrivals.push_back(f.mesh.send(std::move(m), start));
    EXPECT_EQ(arrivals.back(), start + c.expected) << i;
  }
  sc_core::sc_start();
  ASSERT_EQ(f.deliveries.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(f.deliveries[i].id, static_cast<int>(i));
    EXPECT_EQ(f.deliveries[i].time, arrivals[i]) << i;
    EXPECT_EQ(f.deliveries[i].node, cases[i].destination);
    EXPECT_EQ(f.deliveries[i].source, cases[i].source);
  }
  const auto& latency = static_cast<const Histogram&>(statistic("mesh.latency"));
  EXPECT_EQ(latency.min(), 1u);   // 2 ns = 1 cycle
  EXPECT_EQ(latency.max(), 29u);  // 58 ns
  EXPECT_EQ(static_cast<const Histogram&>(statistic("mesh.contention")).max(), 0u);
}

TEST(MeshNetwork, XYRouteSeenInLinkStatistics) {
  Fixture f;
  // From (1, 3) to (3, 0): X first (east twice), then Y (north three times).
  const unsigned source = f.at(1, 3), destination = f.at(3, 0);
  const std::vector<MeshCoordinate> expected_route = {{1, 3}, {2, 3}, {3, 3}, {3, 2}, {3, 1}, {3, 0}};
  EXPECT_EQ(f.mesh.route(source, destination), expected_route);
  f.mesh.send(f.message(source, destination, true, 1), SC_ZERO_TIME);
  const std::vector<std::pair<std::string, std::string>> used = {
      {"x1y3", "x2y3"}, {"x2y3", "x3y3"}, {"x3y3", "x3y2"}, {"x3y2", "x3y1"}, {"x3y1", "x3y0"}};
  for (const auto& [from, to] : used) {
    EXPECT_EQ(counter(link(from, to) + ".flits"), kLineFlits) << from << to;
    EXPECT_EQ(counter(link(from, to) + ".vnet1.flits"), kLineFlits) << from << to;
    EXPECT_EQ(counter(link(from, to) + ".vnet0.flits"), 0u) << from << to;
  }
  // The YX alternative is not used.
  EXPECT_EQ(counter(link("x1y3", "x1y2") + ".flits"), 0u);
  EXPECT_EQ(counter(link("x1y1", "x1y0") + ".flits"), 0u);
  EXPECT_EQ(counter(link("x1y0", "x2y0") + ".flits"), 0u);
  EXPECT_EQ(counter("mesh.inject.x1y3.flits"), kLineFlits);
  EXPECT_EQ(counter("mesh.eject.x3y0.flits"), kLineFlits);
  // Every other link is idle: the five used links carried all link flits.
  std::uint64_t link_flits = 0;
  for (const Statistic* s : StatisticsRegistry::instance().all()) {
    const std::string& name = s->name();
    if (name.rfind("mesh.link.", 0) == 0 && name.size() > 6 && name.compare(name.size() - 6, 6, ".flits") == 0 &&
        name.find(".vnet") == std::string::npos)
      link_flits += s->to_json().get<std::uint64_t>();
  }
  EXPECT_EQ(link_flits, 5 * kLineFlits);
  // 4x4: 2 · (3 · 4) · 2 = 48 directed links, each with its statistics.
  unsigned links = 0;
  for (const Statistic* s : StatisticsRegistry::instance().all())
    if (s->name().rfind("mesh.link.", 0) == 0 && s->name().find(".utilization") != std::string::npos) ++links;
  EXPECT_EQ(links, 48u);

  // And back: X first (west), then Y (south).
  const std::vector<MeshCoordinate> back = {{3, 0}, {2, 0}, {1, 0}, {1, 1}, {1, 2}, {1, 3}};
  EXPECT_EQ(f.mesh.route(destination, source), back);
  f.mesh.send(f.message(destination, source, false), sc_time(1, sc_core::SC_US));
  EXPECT_EQ(counter(link("x3y0", "x2y0") + ".flits"), 1u);
  EXPECT_EQ(counter(link("x1y0", "x1y1") + ".flits"), 1u);
  EXPECT_EQ(counter(link("x1y2", "x1y3") + ".flits"), 1u);
  EXPECT_EQ(counter(link("x3y1", "x3y2") + ".flits"), 0u);
}

TEST(MeshNetwork, SharedLinkSerializesFlitsButNotAcrossVnets) {
  Fixture f;
  // A: x0y0 -> x3y0, B: x1y0 -> x2y0, both data (5 flits), vnet 0. B is sent
  // when A's head reaches x1y0 (R + L = 4 cycles), so both want link
  // x1y0->x2y0 at cycle 7: A (reserved first) takes [7, 12), B waits for it:
  // B starts 12, its head is at x2y0 at 13, arrival 13 + 5 = 18 cycles, i.e.
  // its zero-load latency (1 hop: 4 + 5 = 9) from cycle 4 plus A's 5 flits.
  const sc_time a = f.mesh.send(f.message(f.at(0, 0), f.at(3, 0), true, 0, 1), SC_ZERO_TIME);
  const sc_time b = f.mesh.send(f.message(f.at(1, 0), f.at(2, 0), true, 0, 2), cycles(4));
  EXPECT_EQ(a, formula(3, kLineFlits));  // A is first: undisturbed, 3 · 4 + 5 = 17
  EXPECT_EQ(b, cycles(4) + formula(1, kLineFlits) + cycles(kLineFlits));
  EXPECT_EQ(b, cycles(18));
  EXPECT_EQ(counter(link("x1y0", "x2y0") + ".flits"), 2 * kLineFlits);
  EXPECT_EQ(static_cast<const Histogram&>(statistic("mesh.contention")).max(), kLineFlits);

  // The same pair of messages with B on another vnet: no interference. (A
  // later copy of the whole pattern, 1 us on.)
  const sc_time later(1, sc_core::SC_US);
  const sc_time a2 = f.mesh.send(f.message(f.at(0, 0), f.at(3, 0), true, 0, 3), later);
  const sc_time b2 = f.mesh.send(f.message(f.at(1, 0), f.at(2, 0), true, 2, 4), later + cycles(4));
  EXPECT_EQ(a2, later + formula(3, kLineFlits));
  EXPECT_EQ(b2, later + cycles(4) + formula(1, kLineFlits));
  EXPECT_EQ(counter(link("x1y0", "x2y0") + ".vnet0.flits"), 3 * kLineFlits);
  EXPECT_EQ(counter(link("x1y0", "x2y0") + ".vnet2.flits"), kLineFlits);

  // Control messages serialize by their single flit: C and D from different
  // sources meet on x1y0->x2y0 at the same cycle; D waits 1 cycle.
  const sc_time start(2, sc_core::SC_US);
  const sc_time c = f.mesh.send(f.message(f.at(0, 0), f.at(3, 0), false, 1, 5), start);
  const sc_time d = f.mesh.send(f.message(f.at(1, 0), f.at(2, 0), false, 1, 6), start + cycles(4));
  EXPECT_EQ(c, start + formula(3, 1));
  EXPECT_EQ(d, start + cycles(4) + formula(1, 1) + cycles(1));

  sc_core::sc_start();
  ASSERT_EQ(f.deliveries.size(), 6u);
  const std::vector<sc_time> expected = {a, b, a2, b2, c, d};
  for (const Delivery& delivery : f.deliveries) EXPECT_EQ(delivery.time, expected.at(delivery.id - 1));
}

TEST(MeshNetwork, InjectionAndEjectionPortsSerialize) {
  Fixture f;
  // One node injects one flit per cycle and vnet: two lines leaving x1y1 at
  // once in opposite directions share only its injection port; the second
  // starts after the first's 5 flits.
  const sc_time east = f.mesh.send(f.message(f.at(1, 1), f.at(2, 1), true, 0, 1), SC_ZERO_TIME);
  const sc_time west = f.mesh.send(f.message(f.at(1, 1), f.at(0, 1), true, 0, 2), SC_ZERO_TIME);
  EXPECT_EQ(east, formula(1, kLineFlits));
  EXPECT_EQ(west, formula(1, kLineFlits) + cycles(kLineFlits));
  // One node ejects one flit per cycle and vnet: lines from the west and the
  // east reach x2y2 at once and leave the network one after the other.
  const sc_time start(1, sc_core::SC_US);
  const sc_time from_west = f.mesh.send(f.message(f.at(1, 2), f.at(2, 2), true, 0, 3), start);
  const sc_time from_east = f.mesh.send(f.message(f.at(3, 2), f.at(2, 2), true, 0, 4), start);
  EXPECT_EQ(from_west, start + formula(1, kLineFlits));
  EXPECT_EQ(from_east, start + formula(1, kLineFlits) + cycles(kLineFlits));
  // On different vnets neither port is shared.
  const sc_time later(2, sc_core::SC_US);
  EXPECT_EQ(f.mesh.send(f.message(f.at(1, 1), f.at(2, 1), true, 0, 5), later), later + formula(1, kLineFlits));
  EXPECT_EQ(f.mesh.send(f.message(f.at(1, 1), f.at(0, 1), true, 1, 6), later), later + formula(1, kLineFlits));
  EXPECT_EQ(counter("mesh.inject.x1y1.flits"), 4 * kLineFlits);
  EXPECT_EQ(counter("mesh.inject.x1y1.vnet1.flits"), kLineFlits);
  EXPECT_EQ(counter("mesh.eject.x2y2.flits"), 2 * kLineFlits);
}

TEST(MeshNetwork, OutOfOrderSendTimesUseFreeGaps) {
  Fixture f;
  // A (x1y0 -> x2y0, data) is sent first, for cycle 50: link x1y0->x2y0 is
  // busy [53, 58), the ejection port of x2y0 [54, 59); arrival 59.
  const sc_time a = f.mesh.send(f.message(f.at(1, 0), f.at(2, 0), true, 0, 1), cycles(50));
  EXPECT_EQ(a, cycles(59));
  // B (x0y0 -> x3y0, data) is called next but for cycle 0: it uses the link
  // at [7, 12), in the gap before A, and is not delayed (a busy-until model
  // would push it behind A, to 58).
  const sc_time b = f.mesh.send(f.message(f.at(0, 0), f.at(3, 0), true, 0, 2), SC_ZERO_TIME);
  EXPECT_EQ(b, formula(3, kLineFlits));
  // C (x0y0 -> x3y0, data) sent at 44: injection [44, 49), link x0y0->x1y0
  // [47, 52), head at x1y0 48, wants the shared link at 51: the gap [51, 53)
  // before A is too short for 5 flits, so C takes [58, 63), 7 cycles late.
  const sc_time c = f.mesh.send(f.message(f.at(0, 0), f.at(3, 0), true, 0, 3), cycles(44));
  EXPECT_EQ(c, cycles(44) + formula(3, kLineFlits) + cycles(7));
  // D (x1y0 -> x2y1, one flit) sent at 48 fits the gaps C could not use:
  // injection [48, 49) before A's [50, 55), shared link [51, 52), then
  // x2y0->x2y1 and the ejection port of x2y1 are free: zero-load, 57.
  // (To x2y0 it would be A's pair: delivered with A at the earliest.)
  const sc_time d = f.mesh.send(f.message(f.at(1, 0), f.at(2, 1), false, 0, 4), cycles(48));
  EXPECT_EQ(d, cycles(48) + formula(2, 1));
  // E (x0y0 -> x2y0, one flit) sent at 45: injection after C's -> [49, 50),
  // link x0y0->x1y0 after C's -> [52, 53), head at x1y0 53, shared link from
  // 56: A [53, 58) then C [58, 63) -> [63, 64); head at x2y0 64; ejection
  // [64, 65): arrival 65.
  const sc_time e = f.mesh.send(f.message(f.at(0, 0), f.at(2, 0), false, 0, 5), cycles(45));
  EXPECT_EQ(e, cycles(65));
  sc_core::sc_start();
  // Delivered in time order, whatever the order of the calls.
  std::vector<int> order;
  for (const Delivery& delivery : f.deliveries) order.push_back(delivery.id);
  EXPECT_EQ(order, (std::vector<int>{2, 4, 1, 5, 3}));
  const std::vector<sc_time> expected = {a, b, c, d, e};
  for (const Delivery& delivery : f.deliveries) EXPECT_EQ(delivery.time, expected.at(delivery.id - 1));
}

TEST(MeshNetwork, PerPairOrderHoldsWhenAShortMessageCouldOvertake) {
  Fixture f;
  // Two data messages from x1y0 leave a 1-cycle gap on link x1y0->x2y0:
  //   X1 sent at 5:  injection [5, 10), link [8, 13)
  //   X2 sent at 11: injection [11, 16), link [14, 19)
  // (both to x3y0, so the ejection port of x2y0 stays free).
  f.mesh.send(f.message(f.at(1, 0), f.at(3, 0), true, 0, 10), cycles(5));
  f.mesh.send(f.message(f.at(1, 0), f.at(3, 0), true, 0, 11), cycles(11));
  // A (data, x0y0 -> x2y0) at 0: injection [0, 5), link x0y0->x1y0 [3, 8),
  // head at x1y0 at 4, wants the shared link at 7: no 5-cycle gap before 19
  // -> [19, 24), head at x2y0 20, ejection [20, 25): arrival 25.
  const sc_time a = f.mesh.send(f.message(f.at(0, 0), f.at(2, 0), true, 0, 1), SC_ZERO_TIME);
  EXPECT_EQ(a, cycles(25));
  // B (control, same pair and vnet) at 1: injection [5, 6), link [8, 9), head
  // at x1y0 9, shared link at 12: the gap [13, 14) fits its flit -> head at
  // x2y0 14, ejected by 15. It would overtake A: it arrives with A instead,
  // and is delivered after it.
  MeshMessage b_message = f.message(f.at(0, 0), f.at(2, 0), false, 0, 2);
  EXPECT_EQ(f.mesh.arrival_time(b_message, cycles(1)), cycles(25));
  const sc_time b = f.mesh.send(std::move(b_message), cycles(1));
  EXPECT_EQ(b, cycles(25));
  // The same message on another vnet is another pair: it takes the gap.
  const sc_time c = f.mesh.send(f.message(f.at(0, 0), f.at(2, 0), false, 1, 3), cycles(1));
  EXPECT_EQ(c, cycles(1) + formula(2, 1));
  sc_core::sc_start();
  std::vector<int> order;
  for (const Delivery& delivery : f.deliveries)
    if (delivery.node == f.at(2, 0)) order.push_back(delivery.id);
  EXPECT_EQ(order, (std::vector<int>{3, 1, 2}));
  for (const Delivery& delivery : f.deliveries) {
    if (delivery.id == 1 || delivery.id == 2) {
      EXPECT_EQ(delivery.time, cycles(25));
    }
  }
}

TEST(MeshNetwork, DeliveryAtTheComputedTimeInSendOrder) {
  Fixture f;
  // Many messages of one pair, sent at increasing times and of mixed sizes,
  // plus traffic of other pairs: each arrives at the time send() returned,
  // and one pair's messages arrive in send order.
  std::vector<sc_time> arrival(200);
  for (int i = 0; i < 200; ++i) {
    const bool with_line = i % 3 == 0;
    const sc_time start = cycles(static_cast<std::uint64_t>(i) * 2);
    arrival[i] = f.mesh.send(f.message(f.at(0, 1), f.at(3, 2), with_line, 0, i), start);
    // Cross traffic on the same links.
    f.mesh.send(f.message(f.at(1, 1), f.at(3, 1), true, 0, 1000 + i), start);
  }
  sc_core::sc_start();
  EXPECT_EQ(f.mesh.messages_delivered(), 400u);
  EXPECT_EQ(f.mesh.in_flight(), 0u);
  int previous = -1;
  sc_time previous_time;
  for (const Delivery& delivery : f.deliveries) {
    EXPECT_GE(delivery.time, previous_time);  // in time order overall
    previous_time = delivery.time;
    if (delivery.id >= 1000) continue;
    EXPECT_EQ(delivery.id, previous + 1);
    previous = delivery.id;
    EXPECT_EQ(delivery.time, arrival[delivery.id]);
  }
  EXPECT_EQ(previous, 199);
  EXPECT_GT(static_cast<const Histogram&>(statistic("mesh.contention")).max(), 0u);
}

TEST(MeshNetwork, ReceiversMaySendFromTheCallback) {
  MeshNetwork mesh("mesh");  // defaults: 1 GHz, 4 cycles per hop, 128-bit links
  const unsigned read = mesh.message_type("Read"), reply = mesh.message_type("RepShd");
  std::vector<std::pair<sc_time, std::string>> log;
  // Tile 0's L1 (port 0) asks tile 15's LLC bank (port 1); the bank answers
  // with a line on the response vnet.
  mesh.attach(15, 1, [&](MeshMessage& request) {
    log.emplace_back(sc_core::sc_time_stamp(), "read");
    MeshMessage response;
    response.source = 15;
    response.destination = request.source;
    response.port = 0;
    response.vnet = 2;
    response.type = reply;
    response.data_bytes = 32;
    mesh.send(std::move(response), sc_core::sc_time_stamp() + sc_time(10, SC_NS));  // LLC latency
  });
  mesh.attach(0, 0, [&](MeshMessage&) { log.emplace_back(sc_core::sc_time_stamp(), "reply"); });
  sc_core::sc_start(SC_ZERO_TIME);
  MeshMessage request;
  request.source = 0;
  request.destination = 15;
  request.port = 1;
  request.type = read;
  mesh.send(std::move(request));
  sc_core::sc_start();
  // 6 · 4 + 1 = 25 ns there, 10 ns in the bank, 6 · 4 + 3 = 27 ns back.
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0], std::make_pair(sc_time(25, SC_NS), std::string("read")));
  EXPECT_EQ(log[1], std::make_pair(sc_time(62, SC_NS), std::string("reply")));
  EXPECT_EQ(counter("mesh.vnet0.messages"), 1u);
  EXPECT_EQ(counter("mesh.vnet2.messages"), 1u);
  EXPECT_EQ(counter("mesh.vnet2.flits"), 3u);
  EXPECT_EQ(counter("mesh.type.RepShd.messages"), 1u);
}

TEST(MeshNetwork, SaturatedLinkCarriesOneFlitPerCycle) {
  Fixture f;
  // A_i: x0y0 -> x3y0 and B_i: x1y0 -> x2y0, all sent at 0, data, vnet 0,
  // called A_0, B_0, A_1, B_1, ...: each source injects one flit per cycle
  // and both streams share link x1y0->x2y0, which is busy without a gap from
  // cycle 7 (A_0's head) on: 2N messages of 5 flits, the last (B_{N-1}) on it
  // over [7 + (2N - 1)·5, 7 + 2N·5), then L to x2y0 and 5 flits out.
  constexpr std::uint64_t kMessages = 500;  // per source
  sc_time last_a, last_b;
  for (std::uint64_t i = 0; i < kMessages; ++i) {
    last_a = f.mesh.send(f.message(f.at(0, 0), f.at(3, 0), true, 0, 0), SC_ZERO_TIME);
    last_b = f.mesh.send(f.message(f.at(1, 0), f.at(2, 0), true, 0, 1), SC_ZERO_TIME);
  }
  const std::uint64_t flits = 2 * kMessages * kLineFlits;
  EXPECT_EQ(last_b, cycles(7 + flits + kLink));
  // Throughput over the busy interval: flits · link_width bits / cycles.
  const sc_time busy = last_b - cycles(kLink) - cycles(7);
  const double bits_per_cycle = static_cast<double>(flits * kWidthBits) / (busy / kCycle);
  EXPECT_DOUBLE_EQ(bits_per_cycle, static_cast<double>(kWidthBits));
  sc_core::sc_start();
  EXPECT_EQ(sc_core::sc_time_stamp(), last_b);
  const std::string shared = link("x1y0", "x2y0");
  EXPECT_EQ(counter(shared + ".vnet0.flits"), flits);
  // Utilization is the share of all vnets' capacity: 1/3 of the link's
  // channels, each busy from 7 to the end except the first 7 cycles and last L.
  const double elapsed = static_cast<double>(7 + flits + kLink);
  EXPECT_DOUBLE_EQ(real_statistic(shared + ".utilization"), static_cast<double>(flits) / (elapsed * 3));
  EXPECT_EQ(f.deliveries.size(), 2 * kMessages);
}

TEST(MeshNetwork, EnergyOfAKnownPattern) {
  MeshNetwork mesh("mesh");  // the thesis's energies
  const unsigned type = mesh.message_type("Read");
  std::uint64_t received = 0;
  for (unsigned node = 0; node < 16; ++node) mesh.attach(node, 0, [&](MeshMessage&) { ++received; });
  sc_core::sc_start(SC_ZERO_TIME);
  auto send = [&](unsigned from, unsigned to, std::uint64_t bytes, double at_ns) {
    MeshMessage m;
    m.source = from;
    m.destination = to;
    m.type = type;
    m.data_bytes = bytes;
    mesh.send(std::move(m), sc_time(at_ns, SC_NS));
  };
  send(0, 15, 0, 0);    // 1 flit, 6 hops: 7 router, 6 link traversals, 7 arbitrations
  send(5, 5, 32, 100);  // 3 flits, 0 hops: 3 router, 0 link, 1 arbitration
  send(1, 7, 32, 200);  // 3 flits, 3 hops: 12 router, 9 link, 4 arbitrations
  sc_core::sc_start();
  EXPECT_EQ(received, 3u);
  EXPECT_EQ(counter("mesh.router_traversals"), 22u);
  EXPECT_EQ(counter("mesh.link_traversals"), 15u);
  EXPECT_EQ(counter("mesh.arbitrations"), 12u);
  const double expected = 22 * 3.77e-10 + 15 * 2.22e-10 + 12 * 9.01e-13;
  EXPECT_NEAR(real_statistic("mesh.energy.dynamic"), expected, 1e-22);
  // The total adds the leakage of the elapsed time to the per-event energy.
  EXPECT_GT(real_statistic("mesh.energy.static"), 0.0);
  EXPECT_NEAR(real_statistic("mesh.energy.total"),
              real_statistic("mesh.energy.dynamic") + real_statistic("mesh.energy.static"), 1e-22);
  EXPECT_NEAR(real_statistic("mesh.energy.router"), 22 * 3.77e-10, 1e-22);
  EXPECT_NEAR(real_statistic("mesh.energy.link"), 15 * 2.22e-10, 1e-22);
  EXPECT_NEAR(real_statistic("mesh.energy.arbitration"), 12 * 9.01e-13, 1e-24);
  // The energies are parameters.
  mesh.link_energy.set(1e-9);
  EXPECT_NEAR(real_statistic("mesh.energy.dynamic"), 22 * 3.77e-10 + 15e-9 + 12 * 9.01e-13, 1e-21);
  // Hops histogram: 6, 0, 3.
  const auto& hops = static_cast<const Histogram&>(statistic("mesh.hops"));
  EXPECT_EQ(hops.count(), 3u);
  EXPECT_EQ(hops.min(), 0u);
  EXPECT_EQ(hops.max(), 6u);
  EXPECT_DOUBLE_EQ(hops.mean(), 3.0);
}

TEST(MeshNetwork, MemoryControllersAtTheEdge) {
  Fixture f(false, "0, 3,12,15");
  EXPECT_EQ(f.mesh.memory_controller_count(), 4u);
  EXPECT_EQ(f.mesh.node_count(), 20u);
  const unsigned mc1 = f.mesh.memory_controller_node(1);
  EXPECT_EQ(mc1, 17u);
  EXPECT_EQ(f.mesh.coordinate(mc1), (MeshCoordinate{3, 0}));
  EXPECT_EQ(f.mesh.node_name(mc1), "mc1");
  EXPECT_EQ(f.mesh.hops(mc1, 12), 6u);
  EXPECT_EQ(f.mesh.hops(mc1, 3), 0u);
  const sc_time from_mc = f.mesh.send(f.message(mc1, 12, true, 2, 1), SC_ZERO_TIME);
  const sc_time from_tile = f.mesh.send(f.message(3, 12, true, 2, 2), cycles(100));
  EXPECT_EQ(from_mc, formula(6, kLineFlits));
  EXPECT_EQ(from_tile, cycles(100) + formula(6, kLineFlits));
  // The controller has its own injection and ejection ports: the tile and
  // the controller of router 3 exchange messages at once without waiting.
  const sc_time to_mc = f.mesh.send(f.message(3, mc1, false, 0, 3), cycles(200));
  const sc_time to_tile = f.mesh.send(f.message(mc1, 3, false, 0, 4), cycles(200));
  EXPECT_EQ(to_mc, cycles(200) + formula(0, 1));
  EXPECT_EQ(to_tile, cycles(200) + formula(0, 1));
  EXPECT_EQ(counter("mesh.inject.mc1.flits"), kLineFlits + 1);
  EXPECT_EQ(counter("mesh.eject.mc1.flits"), 1u);
  sc_core::sc_start();
  ASSERT_EQ(f.deliveries.size(), 4u);
  EXPECT_EQ(f.deliveries[0].time, from_mc);
  EXPECT_EQ(f.deliveries[0].node, 12u);
}

TEST(MeshNetwork, ArrivalTimeReservesNothing) {
  Fixture f;
  MeshMessage m = f.message(0, 15, true, 0, 1);
  const sc_time first = f.mesh.arrival_time(m, SC_ZERO_TIME);
  EXPECT_EQ(f.mesh.arrival_time(m, SC_ZERO_TIME), first);
  EXPECT_EQ(counter("mesh.messages"), 0u);
  EXPECT_EQ(first, formula(6, kLineFlits));
  // transfer() reserves and counts, but delivers nothing.
  EXPECT_EQ(f.mesh.transfer(m, SC_ZERO_TIME), first);
  EXPECT_EQ(counter("mesh.messages"), 1u);
  EXPECT_EQ(f.mesh.arrival_time(m, SC_ZERO_TIME), first + cycles(kLineFlits));  // now behind it
  EXPECT_EQ(f.mesh.send(std::move(m), SC_ZERO_TIME), first + cycles(kLineFlits));
  sc_core::sc_start();
  ASSERT_EQ(f.deliveries.size(), 1u);
  EXPECT_EQ(f.deliveries[0].time, first + cycles(kLineFlits));
}

TEST(MeshNetwork, NonSquareMesh) {
  MeshNetwork mesh("mesh");
  mesh.width.set(5);
  mesh.height.set(2);
  mesh.router_latency.set(1);
  mesh.link_latency.set(0);
  EXPECT_EQ(mesh.tile(MeshCoordinate{4, 1}), 9u);
  EXPECT_EQ(mesh.coordinate(7), (MeshCoordinate{2, 1}));
  EXPECT_EQ(mesh.hops(0, 9), 5u);
  EXPECT_EQ(mesh.zero_load_latency(0, 9, 0), sc_time(6, SC_NS));  // 5 · (1 + 0) + 1
  EXPECT_NE(StatisticsRegistry::instance().find("mesh.link.x3y1_to_x4y1.flits"), nullptr);
  EXPECT_EQ(StatisticsRegistry::instance().find("mesh.link.x4y1_to_x5y1.flits"), nullptr);
  EXPECT_EQ(StatisticsRegistry::instance().find("mesh.link.x4y1_to_x4y2.flits"), nullptr);
  // 1 x 1: one tile, no links.
  MeshNetwork single("single");
  single.width.set(1);
  single.height.set(1);
  EXPECT_EQ(single.node_count(), 1u);
  EXPECT_EQ(single.zero_load_latency(0, 0, 32), sc_time(3, SC_NS));
}

// Errors ----------------------------------------------------------------

template <typename Action>
std::string config_error(Action action) {
  try {
    action();
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "(no ConfigError)";
}

TEST(MeshNetwork, BadParametersNameTheParameter) {
  using ::testing::HasSubstr;
  {
    MeshNetwork mesh("zero_width");
    mesh.width.set(0);
    EXPECT_THAT(config_error([&] { mesh.node_count(); }), HasSubstr("zero_width.width"));
    EXPECT_THAT(config_error([] { ParameterRegistry::instance().set_override("zero_width.width", "four", "test"); }),
                HasSubstr("zero_width.width"));
  }
  {
    MeshNetwork mesh("zero_height");
    mesh.height.set(0);
    EXPECT_THAT(config_error([&] { mesh.hops(0, 0); }), HasSubstr("zero_height.height"));
  }
  {
    MeshNetwork mesh("huge");
    mesh.width.set(64);
    mesh.height.set(64);
    EXPECT_THAT(config_error([&] { mesh.node_count(); }), HasSubstr("1024"));
  }
  {
    MeshNetwork mesh("no_vnets");
    mesh.virtual_networks.set(0);
    EXPECT_THAT(config_error([&] { mesh.node_count(); }), HasSubstr("no_vnets.virtual_networks"));
  }
  {
    MeshNetwork mesh("no_width");
    mesh.link_width.set(0);
    EXPECT_THAT(config_error([&] { mesh.node_count(); }), HasSubstr("no_width.link_width"));
  }
  {
    MeshNetwork mesh("no_clock");
    mesh.clock.set(0);
    EXPECT_THAT(config_error([&] { mesh.node_count(); }), HasSubstr("no_clock.clock"));
  }
  {
    MeshNetwork mesh("inner_mc");
    mesh.memory_controllers.set("0,5");
    const std::string error = config_error([&] { mesh.node_count(); });
    EXPECT_THAT(error, HasSubstr("inner_mc.memory_controllers"));
    EXPECT_THAT(error, HasSubstr("not on the mesh edge"));
  }
  {
    MeshNetwork mesh("outside_mc");
    mesh.memory_controllers.set("16");
    EXPECT_THAT(config_error([&] { mesh.node_count(); }), HasSubstr("outside the 4x4 mesh"));
  }
  {
    MeshNetwork mesh("garbled_mc");
    mesh.memory_controllers.set("0;3");
    EXPECT_THAT(config_error([&] { mesh.node_count(); }), HasSubstr("garbled_mc.memory_controllers"));
  }
}

TEST(MeshNetwork, BadMessagesAreRejected) {
  using ::testing::HasSubstr;
  Fixture f(false, "3");
  EXPECT_THAT(config_error([&] { f.mesh.send(f.message(0, 17, false), SC_ZERO_TIME); }),
              HasSubstr("destination node 17 is outside the mesh: mesh.width x mesh.height = 16 tiles"));
  EXPECT_THAT(config_error([&] { f.mesh.send(f.message(99, 1, false), SC_ZERO_TIME); }),
              HasSubstr("source node 99"));
  EXPECT_THAT(config_error([&] { f.mesh.transfer(f.message(0, 16, false, 3), SC_ZERO_TIME); }),
              HasSubstr("mesh.virtual_networks = 3"));
  EXPECT_THAT(config_error([&] { f.mesh.arrival_time(f.message(0, 1, false, 7), SC_ZERO_TIME); }),
              HasSubstr("virtual network 7"));
  MeshMessage untyped = f.message(0, 1, false);
  untyped.type = 9;
  EXPECT_THAT(config_error([&] { f.mesh.send(untyped, SC_ZERO_TIME); }), HasSubstr("not registered"));
  MeshMessage huge = f.message(0, 1, true);
  huge.data_bytes = 1ull << 62;
  EXPECT_THAT(config_error([&] { f.mesh.send(huge, SC_ZERO_TIME); }), HasSubstr("above the limit"));
  MeshMessage to_port = f.message(0, 1, false);
  to_port.port = 1;
  EXPECT_THAT(config_error([&] { f.mesh.send(to_port, SC_ZERO_TIME); }),
              HasSubstr("no receiver is attached at node 1 (x1y0) port 1"));
  EXPECT_THAT(config_error([&] { f.mesh.zero_load_latency(0, 20, 0); }), HasSubstr("outside the mesh"));
  EXPECT_THAT(config_error([&] { f.mesh.tile(MeshCoordinate{4, 0}); }), HasSubstr("outside the mesh"));
  EXPECT_THAT(config_error([&] { f.mesh.memory_controller_node(1); }), HasSubstr("mesh.memory_controllers"));
  EXPECT_THAT(config_error([&] { f.mesh.message_type("Read Ex"); }), HasSubstr("invalid message type"));
  EXPECT_EQ(f.mesh.message_type("Read"), f.control);  // the same name, the same id
  EXPECT_EQ(counter("mesh.messages"), 0u);  // nothing was sent
  // After elaboration the receivers are fixed.
  EXPECT_THAT(config_error([&] { f.mesh.attach(2, 1, [](MeshMessage&) {}); }), HasSubstr("after elaboration"));
  // A send time in the past is the caller's bug.
  sc_core::sc_start(sc_time(10, SC_NS));
  try {
    f.mesh.send(f.message(0, 1, false), sc_time(5, SC_NS));
    ADD_FAILURE() << "a send in the past was accepted";
  } catch (const SimulationError& error) {
    EXPECT_EQ(error.status(), ExitStatus::kInternalError);
    EXPECT_THAT(std::string(error.what()), HasSubstr("before the current simulated time"));
  }
}

TEST(MeshNetwork, ReceiverAttachedTwiceOrEmpty) {
  using ::testing::HasSubstr;
  MeshNetwork mesh("mesh");
  mesh.attach(3, 1, [](MeshMessage&) {});
  EXPECT_THAT(config_error([&] { mesh.attach(3, 1, [](MeshMessage&) {}); }), HasSubstr("already has a receiver"));
  EXPECT_THAT(config_error([&] { mesh.attach(3, 2, MeshNetwork::Receiver{}); }), HasSubstr("empty receiver"));
  EXPECT_THAT(config_error([&] { mesh.attach(16, 0, [](MeshMessage&) {}); }),
              HasSubstr("receiver node 16 is outside the mesh"));
}

TEST(MeshNetwork, ParameterChangedAfterFirstUseIsAnError) {
  MeshNetwork mesh("mesh");
  mesh.attach(0, 0, [](MeshMessage&) {});  // builds the 4x4 network
  mesh.width.set(8);
  try {
    sc_core::sc_start(SC_ZERO_TIME);
    ADD_FAILURE() << "the change was not noticed";
  } catch (const std::exception& error) {
    EXPECT_THAT(std::string(error.what()), ::testing::HasSubstr("mesh.width changed after the network was built"));
  }
}

// transfer_in_order() reserves like transfer() only while nothing sent
// earlier on the same (source, destination, vnet) is in flight.
TEST(MeshNetwork, TransferInOrderWaitsForTheTriplesMessagesInFlight) {
  Fixture f;
  const sc_time sent = f.mesh.send(f.message(0, 5, false, 0, 1), SC_ZERO_TIME);
  sc_time arrival;
  EXPECT_FALSE(f.mesh.transfer_in_order(f.message(0, 5, false, 0, 2), SC_ZERO_TIME, arrival));
  EXPECT_EQ(counter("mesh.messages"), 1u);  // nothing reserved
  // Another vnet, or the way back, is another triple.
  const sc_time expected = f.mesh.arrival_time(f.message(0, 5, false, 1), SC_ZERO_TIME);
  ASSERT_TRUE(f.mesh.transfer_in_order(f.message(0, 5, false, 1), SC_ZERO_TIME, arrival));
  EXPECT_EQ(arrival, expected);
  EXPECT_TRUE(f.mesh.transfer_in_order(f.message(5, 0, false, 0), SC_ZERO_TIME, arrival));
  EXPECT_EQ(counter("mesh.messages"), 3u);
  // Once the first message is delivered, the triple is free again; the
  // transfer keeps its order behind it.
  sc_core::sc_start();
  ASSERT_EQ(f.deliveries.size(), 1u);
  ASSERT_TRUE(f.mesh.transfer_in_order(f.message(0, 5, false, 0), sent, arrival));
  EXPECT_GE(arrival, sent);
  EXPECT_EQ(f.deliveries.size(), 1u);  // transfers deliver nothing
  EXPECT_THAT(config_error([&] { f.mesh.transfer_in_order(f.message(0, 16, false, 3), sent, arrival); }),
              ::testing::HasSubstr("outside the mesh"));
}

}  // namespace
}  // namespace npuvp
