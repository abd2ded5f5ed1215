// RingBus: analytic timing tests. Every expected latency is derived here from
// the formulas documented in interconnect/ring_bus.h (T = 1/clock,
// hop = hop_latency·T, ser = ceil(bytes / link_width)·T):
//   read  = h·hop + target + h·hop + ser
//   write = h·hop + ser + target + h·hop
// plus contention (busy-until reservations per directed link), DMI
// pass-through and clipping, remapping, debug transport, statistics and bad
// configuration.
#include "core/parameters.h"
#include "core/simulation.h"
#include "core/statistics.h"
#include "interconnect/ring_bus.h"
#include "mem/memory.h"
#include "unit/tlm_test_initiator.h"

#include <gtest/gtest.h>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace npuvp {
namespace {

using sc_core::sc_time;
using sc_core::SC_NS;
using sc_core::SC_ZERO_TIME;
using test_support::TestInitiator;

// Deliberately not the defaults, so the tests see the parameters being used.
constexpr double kClock = 500e6;  // T = 2 ns
constexpr std::uint64_t kHop = 3;  // cycles
constexpr std::uint64_t kWidth = 16;  // bytes per cycle
const sc_time kCycle(2, SC_NS);
const sc_time kReadLatency(7, SC_NS);
const sc_time kWriteLatency(5, SC_NS);

constexpr unsigned kStops = 6;
constexpr std::uint64_t kMemorySize = 0x10000;
std::uint64_t memory_base(unsigned stop) { return 0x10000000ull + stop * 0x1000000ull; }

// The documented formulas, in time.
sc_time cycles(std::uint64_t count) { return kCycle * static_cast<double>(count); }
sc_time ser(std::uint64_t bytes) { return cycles((bytes + kWidth - 1) / kWidth); }
sc_time hops(unsigned h) { return cycles(h * kHop); }
sc_time read_latency(unsigned h, std::uint64_t bytes, sc_time target = kReadLatency) {
  return hops(h) + target + hops(h) + ser(bytes);
}
sc_time write_latency(unsigned h, std::uint64_t bytes, sc_time target = kWriteLatency) {
  return hops(h) + ser(bytes) + target + hops(h);
}

std::uint64_t counter(const std::string& name) {
  const Statistic* statistic = StatisticsRegistry::instance().find(name);
  EXPECT_NE(statistic, nullptr) << name;
  return statistic ? statistic->to_json().get<std::uint64_t>() : ~0ull;
}
double real_statistic(const std::string& name) {
  const Statistic* statistic = StatisticsRegistry::instance().find(name);
  EXPECT_NE(statistic, nullptr) << name;
  return statistic ? statistic->to_json().get<double>() : -1.0;
}
std::string link(unsigned from, unsigned to) {
  return "ring.link.s" + std::to_string(from) + "_to_s" + std::to_string(to);
}

// One b_transport issued `offset` after the current SystemC time (the
// initiator's local time offset); the completion is absolute: SystemC time
// after the call (a target may have waited) + the returned delay.
struct Outcome {
  tlm::tlm_response_status status;
  sc_time issue, done;
};
Outcome transfer(TestInitiator& initiator, tlm::tlm_command command, std::uint64_t address, unsigned length,
                 sc_time offset = SC_ZERO_TIME) {
  std::vector<std::uint8_t> data(length, 0xa5);
  const sc_time issue = sc_core::sc_time_stamp() + offset;
  sc_time delay = offset;
  tlm::tlm_response_status status = initiator.access(command, address, data.data(), length, delay);
  return Outcome{status, issue, sc_core::sc_time_stamp() + delay};
}
sc_time latency(TestInitiator& initiator, tlm::tlm_command command, std::uint64_t address, unsigned length,
                sc_time offset = SC_ZERO_TIME) {
  Outcome outcome = transfer(initiator, command, address, length, offset);
  EXPECT_EQ(outcome.status, tlm::TLM_OK_RESPONSE) << std::hex << address;
  return outcome.done - outcome.issue;
}

// A ring of six stops s0..s5 with one memory "memK" at each stop K (at
// memory_base(K)) and test initiators at the given stops.
struct Ring {
  RingBus ring{"ring"};
  std::vector<std::unique_ptr<Memory>> memories;
  std::vector<std::unique_ptr<TestInitiator>> initiators;

  explicit Ring(const std::vector<unsigned>& initiator_stops) {
    ring.clock.set(kClock);
    ring.hop_latency.set(kHop);
    ring.link_width.set(kWidth);
    for (unsigned stop = 0; stop < kStops; ++stop) EXPECT_EQ(ring.add_stop("s" + std::to_string(stop)), stop);
    for (unsigned stop = 0; stop < kStops; ++stop) {
      std::string label = "mem" + std::to_string(stop);
      memories.push_back(std::make_unique<Memory>(label.c_str(), kMemorySize));
      memories.back()->read_latency.set(kReadLatency);
      memories.back()->write_latency.set(kWriteLatency);
      EXPECT_EQ(ring.map(memories.back()->socket, memory_base(stop), kMemorySize, label, stop), stop);
    }
    for (unsigned i = 0; i < initiator_stops.size(); ++i) {
      std::string label = "cpu" + std::to_string(i);
      initiators.push_back(std::make_unique<TestInitiator>(label.c_str()));
      initiators.back()->expect_address_restored = true;
      EXPECT_EQ(ring.connect_initiator(initiators.back()->socket, initiator_stops[i]), i);
    }
    sc_core::sc_start(SC_ZERO_TIME);
  }
  TestInitiator& cpu(unsigned i) { return *initiators.at(i); }
};

// A target that records the delay it is called with, adds a fixed latency,
// may synchronise (wait) first, and can revoke DMI grants.
class ProbeTarget : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<ProbeTarget> socket{"socket"};
  std::vector<sc_time> arrivals;  // absolute: SystemC time + delay at the call
  sc_time latency{10, SC_NS};
  bool synchronise = false;

  explicit ProbeTarget(sc_core::sc_module_name name) : sc_module(name) {
    socket.register_b_transport(this, &ProbeTarget::b_transport);
  }
  void revoke(std::uint64_t start, std::uint64_t end) { socket->invalidate_direct_mem_ptr(start, end); }

 private:
  void b_transport(tlm::tlm_generic_payload& payload, sc_time& delay) {
    arrivals.push_back(sc_core::sc_time_stamp() + delay);
    if (synchronise) {
      wait(delay);
      delay = SC_ZERO_TIME;
    }
    delay += latency;
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

TEST(RingBus, ParametersHaveDocumentedDefaultsAndUnits) {
  RingBus ring("ring");
  TestInitiator cpu("cpu");
  Memory memory("memory", 0x1000);
  ring.add_stop("only");
  ring.connect_initiator(cpu.socket, 0);
  ring.map(memory.socket, 0, 0x1000, "memory", 0);
  sc_core::sc_start(SC_ZERO_TIME);
  const auto& parameters = ParameterRegistry::instance();
  ASSERT_NE(parameters.find("ring.clock"), nullptr);
  EXPECT_EQ(parameters.find("ring.clock")->unit(), "Hz");
  EXPECT_EQ(parameters.find("ring.hop_latency")->unit(), "cycles");
  EXPECT_EQ(parameters.find("ring.link_width")->unit(), "bytes");
  EXPECT_EQ(ring.clock.get(), 1e9);
  EXPECT_EQ(ring.hop_latency.get(), 2u);
  EXPECT_EQ(ring.link_width.get(), 32u);
  EXPECT_EQ(ring.cycle(), sc_time(1, SC_NS));
  // One stop: 0 hops, but the data still takes ceil(bytes / 32) cycles.
  EXPECT_EQ(latency(cpu, tlm::TLM_WRITE_COMMAND, 0x10, 33), sc_time(2, SC_NS));
}

TEST(RingBus, RoutesTheShorterWayAndClockwiseOnTies) {
  Ring soc({0});
  struct Expected {
    unsigned from, to, hops;
    bool clockwise;
  };
  for (const Expected& expected : {Expected{0, 0, 0, true}, Expected{0, 1, 1, true}, Expected{0, 2, 2, true},
                                   Expected{0, 3, 3, true}, Expected{0, 4, 2, false}, Expected{0, 5, 1, false},
                                   Expected{3, 0, 3, true}, Expected{4, 1, 3, true}, Expected{1, 5, 2, false},
                                   Expected{5, 1, 2, true}, Expected{2, 0, 2, false}}) {
    RingBus::Route route = soc.ring.route(expected.from, expected.to);
    EXPECT_EQ(route.hops, expected.hops) << expected.from << " -> " << expected.to;
    EXPECT_EQ(route.clockwise, expected.clockwise) << expected.from << " -> " << expected.to;
  }
}

// Reads from stop 0 to every stop: 0, 1, 2, 3 hops clockwise and 2, 1
// counter-clockwise. 40 bytes is not a multiple of the 16-byte width (ser = 3).
TEST(RingBus, ReadLatencyFollowsTheHopCountBothWays) {
  Ring soc({0});
  const unsigned expected_hops[kStops] = {0, 1, 2, 3, 2, 1};
  for (unsigned stop = 0; stop < kStops; ++stop) {
    sc_time issue(1000.0 * stop, SC_NS);  // far apart: no contention between them
    EXPECT_EQ(latency(soc.cpu(0), tlm::TLM_READ_COMMAND, memory_base(stop) + 0x40, 40, issue),
              read_latency(expected_hops[stop], 40))
        << "stop " << stop;
  }
  // Read data travels on the response path only: stop 5 answered over the
  // link 5 -> 0, stop 1 over 1 -> 0 (the shorter ways), stop 3 (a tie)
  // clockwise 3 -> 4 -> 5 -> 0, stop 4 counter-clockwise 4 -> 5 -> 0.
  EXPECT_EQ(counter(link(5, 0) + ".bytes"), 40u * 3);  // from stops 3, 4, 5
  EXPECT_EQ(counter(link(1, 0) + ".bytes"), 40u * 2);  // from stops 1, 2
  EXPECT_EQ(counter(link(2, 1) + ".bytes"), 40u);
  EXPECT_EQ(counter(link(3, 4) + ".bytes"), 40u);
  EXPECT_EQ(counter(link(4, 5) + ".bytes"), 40u * 2);
  EXPECT_EQ(counter(link(3, 2) + ".bytes"), 0u);
  EXPECT_EQ(counter(link(5, 0) + ".busy_cycles"), 3u * 3);
  // Requests of reads carry no data and take no link time.
  EXPECT_EQ(counter(link(0, 1) + ".busy_cycles"), 0u);
  EXPECT_EQ(counter(link(0, 5) + ".busy_cycles"), 0u);
}

// Writes from stop 2: stops 2, 3, 4, 5 (0 to 3 hops clockwise; 5 is the tie)
// and 1, 0 counter-clockwise.
TEST(RingBus, WriteLatencyFollowsTheHopCountBothWays) {
  Ring soc({2});
  const unsigned expected_hops[kStops] = {2, 1, 0, 1, 2, 3};
  for (unsigned stop = 0; stop < kStops; ++stop) {
    sc_time issue(1000.0 * stop, SC_NS);
    EXPECT_EQ(latency(soc.cpu(0), tlm::TLM_WRITE_COMMAND, memory_base(stop), 40, issue),
              write_latency(expected_hops[stop], 40))
        << "stop " << stop;
  }
  // Write data travels on the request path.
  EXPECT_EQ(counter(link(2, 3) + ".bytes"), 40u * 3);  // to stops 3, 4, 5
  EXPECT_EQ(counter(link(4, 5) + ".bytes"), 40u);
  EXPECT_EQ(counter(link(2, 1) + ".bytes"), 40u * 2);  // to stops 1, 0
  EXPECT_EQ(counter(link(1, 0) + ".bytes"), 40u);
  EXPECT_EQ(counter(link(3, 2) + ".bytes"), 0u);  // write responses carry no data
  EXPECT_EQ(counter(link(5, 0) + ".bytes"), 0u);
}

TEST(RingBus, ReadAndWriteFormulasDiffer) {
  Ring soc({0});
  // With different target latencies and 2 hops, the two formulas give
  // different numbers; check each against its own formula and the other.
  sc_time read = latency(soc.cpu(0), tlm::TLM_READ_COMMAND, memory_base(2), 64, sc_time(0, SC_NS));
  sc_time write = latency(soc.cpu(0), tlm::TLM_WRITE_COMMAND, memory_base(2), 64, sc_time(1000, SC_NS));
  EXPECT_EQ(read, hops(2) + kReadLatency + hops(2) + ser(64));
  EXPECT_EQ(write, hops(2) + ser(64) + kWriteLatency + hops(2));
  EXPECT_EQ(read - write, kReadLatency - kWriteLatency);
  // A command with no data (ignore; the memory adds no latency for it) is
  // two headers around the target.
  EXPECT_EQ(latency(soc.cpu(0), tlm::TLM_IGNORE_COMMAND, memory_base(2), 64, sc_time(2000, SC_NS)), hops(4));
}

TEST(RingBus, SerializationRoundsUpToWholeCycles) {
  Ring soc({0});
  unsigned index = 0;
  for (unsigned bytes : {1u, 15u, 16u, 17u, 31u, 32u, 33u, 100u, 256u}) {
    sc_time issue(1000.0 * index++, SC_NS);
    std::uint64_t expected_cycles = (bytes + kWidth - 1) / kWidth;
    EXPECT_EQ(latency(soc.cpu(0), tlm::TLM_READ_COMMAND, memory_base(1), bytes, issue),
              hops(1) + kReadLatency + hops(1) + cycles(expected_cycles))
        << bytes << " bytes";
  }
}

TEST(RingBus, TheTargetSeesTheTimeTheRequestIsComplete) {
  RingBus ring("ring");
  TestInitiator cpu("cpu");
  ProbeTarget probe("probe");
  ring.clock.set(kClock);
  ring.hop_latency.set(kHop);
  ring.link_width.set(kWidth);
  for (unsigned stop = 0; stop < kStops; ++stop) ring.add_stop("s" + std::to_string(stop));
  ring.connect_initiator(cpu.socket, 1);
  ring.map(probe.socket, 0x1000, 0x1000, "probe", 4);
  sc_core::sc_start(SC_ZERO_TIME);
  const sc_time issue(100, SC_NS);
  // 3 hops; a read request is a header, a write request carries the data.
  EXPECT_EQ(latency(cpu, tlm::TLM_READ_COMMAND, 0x1000, 48, issue), read_latency(3, 48, probe.latency));
  EXPECT_EQ(latency(cpu, tlm::TLM_WRITE_COMMAND, 0x1000, 48, issue * 10.0), write_latency(3, 48, probe.latency));
  ASSERT_EQ(probe.arrivals.size(), 2u);
  EXPECT_EQ(probe.arrivals[0], issue + hops(3));
  EXPECT_EQ(probe.arrivals[1], issue * 10.0 + hops(3) + ser(48));
}

TEST(RingBus, ATargetThatWaitsKeepsTheSameTiming) {
  RingBus ring("ring");
  ProbeTarget probe("probe");
  Memory fast("fast", 0x1000);  // no latency, does not wait
  sc_time measured[3], expected_contended;
  TestInitiator cpu("cpu", 8, [&](TestInitiator& self) {
    sc_core::wait(sc_time(50, SC_NS));  // not at time zero
    const sc_time start = sc_core::sc_time_stamp();
    const sc_time issue(30, SC_NS);
    measured[0] = latency(self, tlm::TLM_READ_COMMAND, 0x1000, 64, issue);
    // The probe synchronised: SystemC time moved to when the request arrived.
    EXPECT_EQ(sc_core::sc_time_stamp(), start + issue + hops(2));
    // Its response holds the first link back (1 -> 0) from when it answered
    // (now + its latency) for ser. A read of the fast memory at the same stop,
    // issued now, has its response ready before that and waits for the link.
    const sc_time now = sc_core::sc_time_stamp();
    const sc_time link_free = now + probe.latency + ser(64);
    const sc_time response_ready = now + hops(2);
    expected_contended = std::max(link_free, response_ready) + hops(2) + ser(64) - now;
    EXPECT_GT(expected_contended, read_latency(2, 64, SC_ZERO_TIME));  // the case really contends
    measured[1] = latency(self, tlm::TLM_READ_COMMAND, 0x2000, 64);
    measured[2] = latency(self, tlm::TLM_WRITE_COMMAND, 0x1000, 64, sc_time(500, SC_NS));
  });
  ring.clock.set(kClock);
  ring.hop_latency.set(kHop);
  ring.link_width.set(kWidth);
  for (unsigned stop = 0; stop < kStops; ++stop) ring.add_stop("s" + std::to_string(stop));
  ring.connect_initiator(cpu.socket, 5);
  ring.map(probe.socket, 0x1000, 0x1000, "probe", 1);
  ring.map(fast.socket, 0x2000, 0x1000, "fast", 1);
  probe.synchronise = true;
  sc_core::sc_start();
  EXPECT_EQ(measured[0], read_latency(2, 64, probe.latency));
  EXPECT_EQ(measured[1], expected_contended);
  EXPECT_EQ(measured[2], write_latency(2, 64, probe.latency));
}

// The worked example of docs/fabric.md ("Ring bus") (defaults: T = 1 ns, hop = 2 ns,
// 32-byte links), with its numbers.
TEST(RingBus, TheDocumentedExampleHolds) {
  RingBus ring("ring");
  TestInitiator a("a"), b("b");
  Memory m("m", 0x1000), d("d", 0x1000);
  m.read_latency.set(sc_time(10, SC_NS));
  m.write_latency.set(sc_time(5, SC_NS));
  for (unsigned stop = 0; stop < kStops; ++stop) ring.add_stop("s" + std::to_string(stop));
  ring.connect_initiator(a.socket, 0);
  ring.connect_initiator(b.socket, 0);
  ring.map(m.socket, 0x1000, 0x1000, "m", 2);
  ring.map(d.socket, 0x2000, 0x1000, "d", 1);
  sc_core::sc_start(SC_ZERO_TIME);
  EXPECT_EQ(latency(a, tlm::TLM_READ_COMMAND, 0x1000, 100), sc_time(22, SC_NS));
  EXPECT_EQ(latency(a, tlm::TLM_WRITE_COMMAND, 0x1000, 100), sc_time(17, SC_NS));
  EXPECT_EQ(latency(b, tlm::TLM_WRITE_COMMAND, 0x2000, 100), sc_time(12, SC_NS));
  EXPECT_EQ(counter("ring.link.s0_to_s1.busy_cycles"), 8u);
  EXPECT_EQ(counter("ring.link.s2_to_s1.busy_cycles"), 4u);
}

// Two initiators at stop 0 write at the same time; both paths start with the
// link 0 -> 1. The first is served as without contention, the second waits
// ser cycles for the link.
TEST(RingBus, ContentionOnTheFirstLinkDelaysTheSecondBySer) {
  Ring soc({0, 0});
  const sc_time issue(100, SC_NS);
  const unsigned bytes = 64;
  EXPECT_EQ(latency(soc.cpu(0), tlm::TLM_WRITE_COMMAND, memory_base(2), bytes, issue), write_latency(2, bytes));
  EXPECT_EQ(latency(soc.cpu(1), tlm::TLM_WRITE_COMMAND, memory_base(1), bytes, issue),
            ser(bytes) + write_latency(1, bytes));
  EXPECT_EQ(counter(link(0, 1) + ".busy_cycles"), 2 * ((bytes + kWidth - 1) / kWidth));
  EXPECT_EQ(counter(link(0, 1) + ".bytes"), 2u * bytes);
  // After the link is free again, no wait.
  EXPECT_EQ(latency(soc.cpu(1), tlm::TLM_WRITE_COMMAND, memory_base(1), bytes, sc_time(1000, SC_NS)),
            write_latency(1, bytes));
}

// The shared link is the second of the first path: the initiator at stop 1
// issues when the first packet's head reaches stop 1.
TEST(RingBus, ContentionInTheMiddleOfAPathDelaysBySer) {
  Ring soc({0, 1});
  const sc_time issue(100, SC_NS);
  const unsigned bytes = 40;
  EXPECT_EQ(latency(soc.cpu(0), tlm::TLM_WRITE_COMMAND, memory_base(3), bytes, issue), write_latency(3, bytes));
  EXPECT_EQ(latency(soc.cpu(1), tlm::TLM_WRITE_COMMAND, memory_base(2), bytes, issue + hops(1)),
            ser(bytes) + write_latency(1, bytes));
}

// Read data contends on the response path: both responses leave stop 2 over
// the link 2 -> 1 at the same time.
TEST(RingBus, ReadResponsesContendOnTheReturnPath) {
  Ring soc({0, 1});
  const sc_time issue(100, SC_NS);
  const unsigned bytes = 64;
  EXPECT_EQ(latency(soc.cpu(0), tlm::TLM_READ_COMMAND, memory_base(2), bytes, issue), read_latency(2, bytes));
  // Issued one hop later from one stop nearer: its response is ready at the
  // same moment as the first one's.
  EXPECT_EQ(latency(soc.cpu(1), tlm::TLM_READ_COMMAND, memory_base(2) + 0x100, bytes, issue + hops(1)),
            ser(bytes) + read_latency(1, bytes));
}

// The two directions of a link are separate resources.
TEST(RingBus, OppositeDirectionsDoNotContend) {
  Ring soc({0, 1});
  const sc_time issue(100, SC_NS);
  EXPECT_EQ(latency(soc.cpu(0), tlm::TLM_WRITE_COMMAND, memory_base(1), 128, issue), write_latency(1, 128));
  EXPECT_EQ(latency(soc.cpu(1), tlm::TLM_WRITE_COMMAND, memory_base(0), 128, issue), write_latency(1, 128));
  EXPECT_EQ(counter(link(0, 1) + ".bytes"), 128u);
  EXPECT_EQ(counter(link(1, 0) + ".bytes"), 128u);
}

// Two initiators stream writes whose paths share the links 1 -> 2 and 2 -> 3,
// each issuing transfer i at i·ser regardless of completion (so each offers
// the full link bandwidth and keeps many transfers in flight). Each gets half
// of the link bandwidth.
TEST(RingBus, StreamingInitiatorsShareALinkEqually) {
  Ring soc({0, 1});
  const unsigned bytes = 64, count = 400;
  sc_time last_done[2];
  for (unsigned i = 0; i < count; ++i) {
    for (unsigned who = 0; who < 2; ++who) {
      Outcome outcome = transfer(soc.cpu(who), tlm::TLM_WRITE_COMMAND, memory_base(3) + 0x1000 * who + (i % 64) * bytes,
                                 bytes, ser(bytes) * static_cast<double>(i));
      ASSERT_EQ(outcome.status, tlm::TLM_OK_RESPONSE);
      if (outcome.done > last_done[who]) last_done[who] = outcome.done;
    }
  }
  const double link_bandwidth = kWidth * kClock;  // bytes per second
  for (unsigned who = 0; who < 2; ++who) {
    double bandwidth = count * bytes / last_done[who].to_seconds();
    EXPECT_NEAR(bandwidth / link_bandwidth, 0.5, 0.5 * 0.05) << "initiator " << who;
  }
  // The shared links were busy all the time; the unshared one half the time.
  EXPECT_NEAR(real_statistic(link(1, 2) + ".utilization"), 1.0, 0.05);
  EXPECT_NEAR(real_statistic(link(2, 3) + ".utilization"), 1.0, 0.05);
  EXPECT_NEAR(real_statistic(link(0, 1) + ".utilization"), 0.5, 0.05);
  EXPECT_EQ(counter(link(1, 2) + ".bytes"), 2u * count * bytes);
}

TEST(RingBus, StatisticsCountBytesCyclesAndLatencies) {
  Ring soc({0, 0, 3});
  // Stop 0: a 2-hop read and a 1-hop write (counter-clockwise to stop 5).
  sc_time read = latency(soc.cpu(0), tlm::TLM_READ_COMMAND, memory_base(2), 40, sc_time(0, SC_NS));
  sc_time write = latency(soc.cpu(1), tlm::TLM_WRITE_COMMAND, memory_base(5), 100, sc_time(200, SC_NS));
  // Stop 3: a 0-hop write.
  sc_time local = latency(soc.cpu(2), tlm::TLM_WRITE_COMMAND, memory_base(3), 8, sc_time(400, SC_NS));
  EXPECT_EQ(read, read_latency(2, 40));
  EXPECT_EQ(write, write_latency(1, 100));
  EXPECT_EQ(local, write_latency(0, 8));

  EXPECT_EQ(counter("ring.initiator.s0.transactions"), 2u);  // both initiators at stop 0
  EXPECT_EQ(counter("ring.initiator.s0.bytes"), 140u);
  EXPECT_EQ(counter("ring.initiator.s3.transactions"), 1u);
  EXPECT_EQ(counter("ring.initiator.s3.bytes"), 8u);
  EXPECT_EQ(StatisticsRegistry::instance().find("ring.initiator.s1.bytes"), nullptr);  // no initiator there
  const Statistic* histogram = StatisticsRegistry::instance().find("ring.initiator.s0.latency");
  ASSERT_NE(histogram, nullptr);
  nlohmann::json json = histogram->to_json();
  // In ring cycles, rounded up (the 7 ns and 5 ns memory latencies are not
  // whole 2 ns cycles).
  auto in_cycles = [](sc_time time) { return (time.value() + kCycle.value() - 1) / kCycle.value(); };
  EXPECT_EQ(in_cycles(read), 19u);  // 37 ns
  EXPECT_EQ(in_cycles(write), 16u);  // 31 ns
  EXPECT_EQ(json["count"], 2u);
  EXPECT_EQ(json["min"], std::min(in_cycles(read), in_cycles(write)));
  EXPECT_EQ(json["max"], std::max(in_cycles(read), in_cycles(write)));

  // Links: the read's data came back 2 -> 1 -> 0, the write's went 0 -> 5.
  EXPECT_EQ(counter(link(2, 1) + ".bytes"), 40u);
  EXPECT_EQ(counter(link(1, 0) + ".bytes"), 40u);
  EXPECT_EQ(counter(link(0, 5) + ".bytes"), 100u);
  EXPECT_EQ(counter(link(2, 1) + ".busy_cycles"), 3u);
  EXPECT_EQ(counter(link(0, 5) + ".busy_cycles"), 7u);
  EXPECT_EQ(counter(link(0, 1) + ".bytes"), 0u);
  // Utilization = busy cycles / elapsed cycles; SystemC time is still 0, so
  // elapsed runs to the last completion (the local write).
  double elapsed = (sc_time(400, SC_NS) + local) / kCycle;
  EXPECT_DOUBLE_EQ(real_statistic(link(0, 5) + ".utilization"), 7.0 / elapsed);
  EXPECT_DOUBLE_EQ(real_statistic(link(0, 1) + ".utilization"), 0.0);
  // 6 stops: 6 clockwise and 6 counter-clockwise links.
  unsigned links = 0;
  for (const Statistic* statistic : StatisticsRegistry::instance().all())
    if (statistic->name().rfind("ring.link.", 0) == 0 && statistic->name().find(".bytes") != std::string::npos)
      ++links;
  EXPECT_EQ(links, 12u);
}

TEST(RingBus, ATwoStopRingHasOneLinkEachWay) {
  RingBus ring("ring");
  TestInitiator cpu("cpu");
  Memory near("near", 0x1000), far("far", 0x1000);
  ring.add_stop("a");
  ring.add_stop("b");
  ring.connect_initiator(cpu.socket, 0);
  ring.map(near.socket, 0x0000, 0x1000, "near", 0);
  ring.map(far.socket, 0x1000, 0x1000, "far", 1);
  sc_core::sc_start(SC_ZERO_TIME);
  EXPECT_NE(StatisticsRegistry::instance().find("ring.link.a_to_b.bytes"), nullptr);
  EXPECT_NE(StatisticsRegistry::instance().find("ring.link.b_to_a.bytes"), nullptr);
  // Defaults: 1 ns cycles, 2-cycle hops, 32-byte links; a 64-byte read from
  // the far stop: 2 + 0 + 2 + 2 cycles.
  EXPECT_EQ(latency(cpu, tlm::TLM_READ_COMMAND, 0x1000, 64), sc_time(6, SC_NS));
  EXPECT_EQ(counter("ring.link.b_to_a.bytes"), 64u);
}

// DMI: addresses translated like the router, the round trip added to the
// target's latencies.
TEST(RingBus, DmiPassesThroughWithTheRoundTripLatency) {
  Ring soc({0});
  for (unsigned stop : {0u, 2u, 3u, 5u}) {
    tlm::tlm_dmi dmi;
    ASSERT_TRUE(soc.cpu(0).get_dmi(memory_base(stop) + 0x80, dmi)) << stop;
    unsigned h = soc.ring.route(0, stop).hops;
    EXPECT_EQ(dmi.get_start_address(), memory_base(stop));
    EXPECT_EQ(dmi.get_end_address(), memory_base(stop) + kMemorySize - 1);
    EXPECT_EQ(dmi.get_dmi_ptr(), soc.memories[stop]->data());
    EXPECT_EQ(dmi.get_read_latency(), kReadLatency + hops(2 * h)) << stop;
    EXPECT_EQ(dmi.get_write_latency(), kWriteLatency + hops(2 * h)) << stop;
    EXPECT_TRUE(dmi.is_read_write_allowed());
  }
  tlm::tlm_dmi dmi;
  EXPECT_FALSE(soc.cpu(0).get_dmi(0x70000000, dmi));  // unmapped
  // Neither the grants nor the refusal moved any traffic.
  EXPECT_EQ(counter("ring.initiator.s0.transactions"), 0u);
}

// DDR at stop 3 with two small overlays inside it at other stops.
TEST(RingBus, DmiIsClippedAroundOverlays) {
  RingBus ring("ring");
  TestInitiator cpu("cpu");
  Memory ddr("ddr", 0x100000), low("low", 0x40), high("high", 0x40);
  const std::uint64_t base = 0x80000000, low_base = base + 0x1000, high_base = base + 0x3000;
  for (unsigned stop = 0; stop < kStops; ++stop) ring.add_stop("s" + std::to_string(stop));
  cpu.expect_address_restored = true;
  ring.connect_initiator(cpu.socket, 0);
  ring.map(low.socket, low_base, 0x40, "low", 1);  // the overlay first: order must not matter
  ring.map(ddr.socket, base, 0x100000, "ddr", 3);
  ring.map(high.socket, high_base, 0x40, "high", 5);
  sc_core::sc_start(SC_ZERO_TIME);
  const sc_time hop = sc_time(2, SC_NS);  // defaults: 1 ns cycles, 2 cycles per hop

  tlm::tlm_dmi below, between, above, inside;
  ASSERT_TRUE(cpu.get_dmi(base + 0x10, below));
  EXPECT_EQ(below.get_start_address(), base);
  EXPECT_EQ(below.get_end_address(), low_base - 1);
  EXPECT_EQ(below.get_dmi_ptr(), ddr.data());
  EXPECT_EQ(below.get_read_latency(), hop * 6.0);  // 3 hops each way

  ASSERT_TRUE(cpu.get_dmi(base + 0x2000, between));
  EXPECT_EQ(between.get_start_address(), low_base + 0x40);
  EXPECT_EQ(between.get_end_address(), high_base - 1);
  EXPECT_EQ(between.get_dmi_ptr(), ddr.data() + 0x1040);

  ASSERT_TRUE(cpu.get_dmi(base + 0x8000, above));
  EXPECT_EQ(above.get_start_address(), high_base + 0x40);
  EXPECT_EQ(above.get_end_address(), base + 0x100000 - 1);
  EXPECT_EQ(above.get_dmi_ptr(), ddr.data() + 0x3040);

  ASSERT_TRUE(cpu.get_dmi(high_base + 0x8, inside));
  EXPECT_EQ(inside.get_start_address(), high_base);
  EXPECT_EQ(inside.get_end_address(), high_base + 0x3f);
  EXPECT_EQ(inside.get_dmi_ptr(), high.data());
  EXPECT_EQ(inside.get_read_latency(), hop * 2.0);  // stop 5 is one hop away

  // Through the clipped pointer, b_transport sees the same bytes.
  std::uint32_t value = 0x600dcafe;
  std::memcpy(between.get_dmi_ptr() + (base + 0x2000 - between.get_start_address()), &value, 4);
  EXPECT_EQ(cpu.read32(base + 0x2000), value);
}

TEST(RingBus, TargetInvalidationsReachEveryInitiatorWithGlobalAddresses) {
  RingBus ring("ring");
  TestInitiator cpu("cpu"), dma("dma");
  Memory ddr("ddr", 0x10000);
  ProbeTarget device("device");
  ring.add_stop("a");
  ring.add_stop("b");
  ring.add_stop("c");
  ring.connect_initiator(cpu.socket, 0);
  ring.connect_initiator(dma.socket, 2);
  ring.map(ddr.socket, 0x80000000, 0x10000, "ddr", 1);
  ring.map(device.socket, 0x20000000, 0x10000, "device", 2);
  sc_core::sc_start(SC_ZERO_TIME);
  using Range = TestInitiator::Range;
  device.revoke(0x100, 0x1ff);
  ASSERT_EQ(cpu.invalidations.size(), 1u);
  EXPECT_EQ(cpu.invalidations[0], Range(0x20000100, 0x200001ff));
  ASSERT_EQ(dma.invalidations.size(), 1u);
  EXPECT_EQ(dma.invalidations[0], Range(0x20000100, 0x200001ff));
  device.revoke(0, ~0ull);  // everything of the target = its window
  ASSERT_EQ(cpu.invalidations.size(), 2u);
  EXPECT_EQ(cpu.invalidations[1], Range(0x20000000, 0x2000ffff));
}

TEST(RingBus, RemapInvalidatesDmiAndMovesTheDecoding) {
  Ring soc({0, 4});
  const std::uint64_t old_base = memory_base(2), new_base = 0x70000000;
  soc.cpu(0).write32(old_base + 0x20, 0x12345678);
  tlm::tlm_dmi before;
  ASSERT_TRUE(soc.cpu(0).get_dmi(old_base, before));

  soc.ring.remap("mem2", new_base);
  using Range = TestInitiator::Range;
  for (unsigned who = 0; who < 2; ++who) {
    const auto& invalidations = soc.cpu(who).invalidations;
    ASSERT_EQ(invalidations.size(), 2u) << who;
    EXPECT_EQ(invalidations[0], Range(old_base, old_base + kMemorySize - 1));
    EXPECT_EQ(invalidations[1], Range(new_base, new_base + kMemorySize - 1));
  }
  // The old addresses are unmapped now; the new ones reach the same memory
  // at the same stop (same timing).
  std::uint32_t value = 0;
  EXPECT_EQ(soc.cpu(0).read_bytes(old_base + 0x20, &value, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(soc.ring.unmapped_accesses(), 1u);
  EXPECT_EQ(soc.cpu(0).read32(new_base + 0x20), 0x12345678u);
  EXPECT_EQ(latency(soc.cpu(1), tlm::TLM_READ_COMMAND, new_base, 16, sc_time(1000, SC_NS)), read_latency(2, 16));
  tlm::tlm_dmi after;
  ASSERT_TRUE(soc.cpu(1).get_dmi(new_base + 0x10, after));
  EXPECT_EQ(after.get_start_address(), new_base);
  EXPECT_EQ(after.get_dmi_ptr(), soc.memories[2]->data());

  // Bad remaps leave the map as it was and invalidate nothing.
  EXPECT_THROW(soc.ring.remap("nonexistent", 0x0), ConfigError);
  try {
    soc.ring.remap("mem2", memory_base(3) + kMemorySize / 2);  // half over mem3
    FAIL() << "a remap into a partial overlap was accepted";
  } catch (const ConfigError& error) {
    std::string message = error.what();
    EXPECT_NE(message.find("'mem2'"), std::string::npos) << message;
    EXPECT_NE(message.find("'mem3'"), std::string::npos) << message;
  }
  EXPECT_EQ(soc.cpu(0).invalidations.size(), 2u);
  EXPECT_EQ(soc.cpu(0).read32(new_base + 0x20), 0x12345678u);
}

TEST(RingBus, DebugTransportIsRoutedWithoutTiming) {
  Ring soc({0});
  soc.cpu(0).write32(memory_base(3) + 0x100, 0xfeedbeef);
  std::uint32_t value = 0;
  EXPECT_EQ(soc.cpu(0).debug_read(memory_base(3) + 0x100, &value, 4), 4u);
  EXPECT_EQ(value, 0xfeedbeefu);
  std::uint32_t patch = 0x0badf00d;
  EXPECT_EQ(soc.cpu(0).debug_write(memory_base(4) + 0x200, &patch, 4), 4u);
  EXPECT_EQ(soc.cpu(0).read32(memory_base(4) + 0x200), patch);
  // Clipped at the end of the window; unmapped reads nothing.
  std::uint8_t bytes[16] = {};
  EXPECT_EQ(soc.cpu(0).debug_read(memory_base(1) + kMemorySize - 4, bytes, 16), 4u);
  EXPECT_EQ(soc.cpu(0).debug_read(0x70000000, bytes, 16), 0u);
  // Only the two b_transports count.
  EXPECT_EQ(counter("ring.initiator.s0.transactions"), 2u);
  EXPECT_EQ(counter("ring.initiator.s0.bytes"), 8u);
  EXPECT_EQ(soc.ring.unmapped_accesses(), 0u);
}

TEST(RingBus, UnmappedAndStraddlingAccessesAreAddressErrors) {
  Ring soc({0});
  std::uint64_t value = 0x0102030405060708ull;
  Outcome unmapped = transfer(soc.cpu(0), tlm::TLM_READ_COMMAND, 0x70000000, 4, sc_time(10, SC_NS));
  EXPECT_EQ(unmapped.status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(unmapped.done, sc_time(10, SC_NS));  // answered at once
  EXPECT_EQ(soc.cpu(0).write_bytes(memory_base(2) + kMemorySize - 4, &value, 8), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(soc.cpu(0).read_bytes(memory_base(5) + kMemorySize - 1, &value, 2), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(soc.ring.unmapped_accesses(), 1u);
  EXPECT_EQ(soc.ring.straddling_accesses(), 2u);
  EXPECT_EQ(counter("ring.unmapped_accesses"), 1u);
  EXPECT_EQ(counter("ring.straddling_accesses"), 2u);
  std::uint32_t tail;
  std::memcpy(&tail, soc.memories[2]->data() + kMemorySize - 4, 4);
  EXPECT_EQ(tail, 0u);  // no partial write
  EXPECT_EQ(counter("ring.initiator.s0.transactions"), 0u);
  // Ending exactly at the window end is fine.
  EXPECT_EQ(soc.cpu(0).write_bytes(memory_base(2) + kMemorySize - 8, &value, 8), tlm::TLM_OK_RESPONSE);
}

TEST(RingBus, BadParametersAreConfigErrors) {
  auto& parameters = ParameterRegistry::instance();
  parameters.set_override("bad_width.link_width", "0", "test");
  try {
    RingBus ring("bad_width");
    FAIL() << "a zero link width was accepted";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("bad_width.link_width"), std::string::npos) << error.what();
  }
  parameters.set_override("bad_clock.clock", "0", "test");
  try {
    RingBus ring("bad_clock");
    FAIL() << "a zero clock was accepted";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("bad_clock.clock"), std::string::npos) << error.what();
  }
  parameters.clear_overrides();
}

// A width set programmatically after construction is checked at the end of
// elaboration.
TEST(RingBus, ZeroLinkWidthIsRejectedAtElaboration) {
  RingBus ring("ring");
  TestInitiator cpu("cpu");
  Memory memory("memory", 0x1000);
  ring.add_stop("only");
  ring.connect_initiator(cpu.socket, 0);
  ring.map(memory.socket, 0, 0x1000, "memory", 0);
  ring.link_width.set(0);
  try {
    sc_core::sc_start(SC_ZERO_TIME);
    FAIL() << "a zero link width was accepted";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("ring.link_width"), std::string::npos) << error.what();
  }
}

TEST(RingBus, BadMappingsAreConfigErrorsNamingBothWindows) {
  RingBus ring("ring");
  TestInitiator cpu("cpu");
  Memory ddr("ddr", 0x100000), other("other", 0x2000), uart("uart", 0x100);
  ring.add_stop("a");
  ring.add_stop("b");
  ring.connect_initiator(cpu.socket, 0);
  ring.map(ddr.socket, 0x80000000, 0x100000, "ddr", 1);
  try {
    ring.map(other.socket, 0x80000000 + 0x100000 - 0x1000, 0x2000, "straddling", 0);
    FAIL() << "a partial overlap was accepted";
  } catch (const ConfigError& error) {
    std::string message = error.what();
    EXPECT_NE(message.find("'straddling'"), std::string::npos) << message;
    EXPECT_NE(message.find("'ddr'"), std::string::npos) << message;
    EXPECT_NE(message.find("partially overlaps"), std::string::npos) << message;
  }
  try {
    ring.map(other.socket, 0x80000000, 0x100000, "twin", 0);
    FAIL() << "an identical range was accepted";
  } catch (const ConfigError& error) {
    std::string message = error.what();
    EXPECT_NE(message.find("'twin'"), std::string::npos) << message;
    EXPECT_NE(message.find("'ddr'"), std::string::npos) << message;
  }
  EXPECT_THROW(ring.map(other.socket, 0x1000, 0x1000, "ddr", 0), ConfigError);  // label taken
  EXPECT_THROW(ring.map(other.socket, 0x1000, 0, "empty", 0), ConfigError);
  EXPECT_THROW(ring.map(other.socket, ~0ull - 0xff, 0x200, "wrapping", 0), ConfigError);
  EXPECT_THROW(ring.map(other.socket, 0x1000, 0x1000, "nowhere", 2), ConfigError);  // stop 2 does not exist
  TestInitiator dma("dma");
  EXPECT_THROW(ring.connect_initiator(dma.socket, 2), ConfigError);  // an initiator at no such stop
  EXPECT_THROW(ring.add_stop("a"), ConfigError);                                     // duplicate stop
  EXPECT_THROW(ring.add_stop("x.y"), ConfigError);
  EXPECT_THROW(ring.add_stop(""), ConfigError);
  EXPECT_EQ(ring.address_map().windows().size(), 1u);

  // Nothing was bound by the rejected calls: the next window is port 1 and
  // reaches its own target, the next initiator is port 1.
  EXPECT_EQ(ring.map(uart.socket, 0x10000000, 0x100, "uart", 1), 1u);
  EXPECT_EQ(ring.connect_initiator(dma.socket, 1), 1u);
  RingBus spare("spare");
  TestInitiator spare_cpu("spare_cpu");
  spare.add_stop("only");
  spare.connect_initiator(spare_cpu.socket, 0);
  spare.map(other.socket, 0, 0x2000, "other", 0);
  sc_core::sc_start(SC_ZERO_TIME);
  cpu.write32(0x10000000, 0x0a0b0c0d);
  EXPECT_EQ(dma.read32(0x10000000), 0x0a0b0c0du);
  std::uint32_t stored;
  std::memcpy(&stored, uart.data(), 4);
  EXPECT_EQ(stored, 0x0a0b0c0du);
}

TEST(RingBus, AnInitiatorWithoutAStopIsAConfigError) {
  RingBus ring("ring");
  TestInitiator attached("attached"), stray("stray");
  Memory memory("memory", 0x1000);
  ring.add_stop("a");
  ring.connect_initiator(attached.socket, 0);
  stray.socket.bind(ring.target_socket);  // bound, but at no stop
  ring.map(memory.socket, 0, 0x1000, "memory", 0);
  try {
    sc_core::sc_start(SC_ZERO_TIME);
    FAIL() << "an initiator without a stop was accepted";
  } catch (const ConfigError& error) {
    std::string message = error.what();
    EXPECT_NE(message.find("ring"), std::string::npos) << message;
    EXPECT_NE(message.find("not attached to a stop"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace npuvp
