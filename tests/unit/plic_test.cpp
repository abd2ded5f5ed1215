// Plic driven through a real TLM initiator socket; sources driven like
// devices do, through InterruptLines.
#include "core/interrupt.h"
#include "core/parameters.h"
#include "core/simulation.h"
#include "periph/plic.h"
#include "unit/tlm_test_initiator.h"

#include <gtest/gtest.h>
#include <systemc>
#include <tlm>

#include <vector>

namespace npuvp {
namespace {

using test_support::TestInitiator;
using sc_core::sc_time;

class LevelLog : public InterruptTarget {
 public:
  struct Change {
    unsigned line;
    bool level;
    sc_time time;
  };
  void set_interrupt(unsigned line, bool level) override {
    changes.push_back({line, level, sc_core::sc_time_stamp()});
  }
  std::vector<Change> changes;
};

constexpr unsigned kRegisterBytes = 4;  // every PLIC register is 32 bits wide
std::uint64_t priority(unsigned source) { return 4 * source; }
constexpr std::uint64_t kPending = 0x1000;
std::uint64_t enable(unsigned context, unsigned word = 0) { return 0x2000 + 0x80 * context + 4 * word; }
std::uint64_t threshold(unsigned context) { return 0x200000 + 0x1000 * context; }
std::uint64_t claim(unsigned context) { return 0x200004 + 0x1000 * context; }

// A PLIC with hart 0's M (context 0, MEIP line 11) and S (context 1, SEIP
// line 9) contexts wired to a log, and device lines for a few sources.
struct Fixture {
  Plic plic{"plic"};
  LevelLog hart;
  InterruptLine device[96];
  Fixture() {
    plic.irq[0].connect(hart, 11);
    plic.irq[1].connect(hart, 9);
    for (unsigned source = 1; source < 96; ++source) device[source].connect(plic, source);
  }
};

TEST(Plic, HighestPriorityClaimedFirstAndCompleteRepends) {
  Fixture f;
  EXPECT_EQ(f.plic.sources.get(), 96u);
  EXPECT_EQ(f.plic.contexts.get(), 2u);
  TestInitiator cpu("cpu", kRegisterBytes, [&](TestInitiator& bus) {
    bus.write(priority(5), 3);
    bus.write(priority(10), 5);
    bus.write(priority(40), 1);
    bus.write(enable(0, 0), (1u << 5) | (1u << 10));
    bus.write(enable(0, 1), 1u << (40 - 32));
    EXPECT_EQ(bus.read(claim(0)), 0u);  // nothing pending
    EXPECT_FALSE(f.plic.irq[0].level());

    f.device[5].set(true);
    f.device[10].set(true);
    f.device[40].set(true);
    EXPECT_TRUE(f.plic.irq[0].level());
    EXPECT_FALSE(f.plic.irq[1].level());  // nothing enabled for S-mode
    EXPECT_EQ(bus.read(kPending), (1u << 5) | (1u << 10));
    EXPECT_EQ(bus.read(kPending + 4), 1u << 8);

    EXPECT_EQ(bus.read(claim(0)), 10u);
    EXPECT_TRUE(f.plic.in_service(10));
    EXPECT_EQ(bus.read(kPending), 1u << 5);
    EXPECT_EQ(bus.read(claim(0)), 5u);
    EXPECT_EQ(bus.read(claim(0)), 40u);
    EXPECT_FALSE(f.plic.irq[0].level());
    EXPECT_EQ(bus.read(claim(0)), 0u);

    // Source 10 is still asserted: completing it makes it pending again.
    bus.write(claim(0), 10);
    EXPECT_TRUE(f.plic.pending(10));
    EXPECT_TRUE(f.plic.irq[0].level());
    EXPECT_EQ(bus.read(claim(0)), 10u);
    // Source 5 was released by its device before completion: no new request.
    f.device[5].set(false);
    bus.write(claim(0), 5);
    EXPECT_FALSE(f.plic.pending(5));
    EXPECT_FALSE(f.plic.in_service(5));
    EXPECT_FALSE(f.plic.irq[0].level());
  });
  cpu.socket.bind(f.plic.socket);
  sc_core::sc_start();
  EXPECT_EQ(f.plic.claims.value(), 4u);
  EXPECT_EQ(f.plic.empty_claims.value(), 2u);
  EXPECT_EQ(f.plic.completions.value(), 2u);
  EXPECT_EQ(f.plic.requests.value(), 4u);
  for (auto& change : f.hart.changes) EXPECT_EQ(change.line, 11u);
}

TEST(Plic, ThresholdMasksLowerOrEqualPriorities) {
  Fixture f;
  TestInitiator cpu("cpu", kRegisterBytes, [&](TestInitiator& bus) {
    bus.write(priority(7), 4);
    bus.write(enable(0), 1u << 7);
    bus.write(threshold(0), 4);
    EXPECT_EQ(bus.read(threshold(0)), 4u);
    f.device[7].set(true);
    EXPECT_TRUE(f.plic.pending(7));
    EXPECT_FALSE(f.plic.irq[0].level());  // priority 4 is not above threshold 4
    EXPECT_EQ(bus.read(claim(0)), 0u);
    EXPECT_TRUE(f.plic.pending(7));        // an empty claim changes nothing
    bus.write(threshold(0), 3);
    EXPECT_TRUE(f.plic.irq[0].level());
    bus.write(priority(7), 0);  // priority 0 never interrupts
    EXPECT_FALSE(f.plic.irq[0].level());
    bus.write(priority(7), 0xFF);  // only 3 priority bits
    EXPECT_EQ(bus.read(priority(7)), 7u);
    EXPECT_TRUE(f.plic.irq[0].level());
    bus.write(threshold(0), 7);
    EXPECT_FALSE(f.plic.irq[0].level());
  });
  cpu.socket.bind(f.plic.socket);
  sc_core::sc_start();
}

TEST(Plic, EnablesArePerContext) {
  Fixture f;
  TestInitiator cpu("cpu", kRegisterBytes, [&](TestInitiator& bus) {
    bus.write(priority(3), 1);
    bus.write(priority(4), 2);
    bus.write(enable(0), 1u << 3);
    bus.write(enable(1), 1u << 4);
    f.device[3].set(true);
    EXPECT_TRUE(f.plic.irq[0].level());
    EXPECT_FALSE(f.plic.irq[1].level());
    f.device[4].set(true);
    EXPECT_TRUE(f.plic.irq[1].level());
    EXPECT_EQ(bus.read(claim(1)), 4u);  // S-mode context sees only its source
    EXPECT_FALSE(f.plic.irq[1].level());
    EXPECT_TRUE(f.plic.irq[0].level());
    // Completing from a context where the source is not enabled is ignored.
    bus.write(claim(0), 4);
    EXPECT_TRUE(f.plic.in_service(4));
    bus.write(claim(1), 4);
    EXPECT_FALSE(f.plic.in_service(4));
    EXPECT_TRUE(f.plic.irq[1].level());  // still asserted: pending again
    // Enabling source 3 for context 1 too.
    bus.write(enable(1), (1u << 3) | (1u << 4));
    EXPECT_EQ(bus.read(enable(1)), (1u << 3) | (1u << 4));
    EXPECT_EQ(bus.read(claim(1)), 4u);
    EXPECT_EQ(bus.read(claim(1)), 3u);
    EXPECT_FALSE(f.plic.irq[0].level());  // claimed by context 1
    EXPECT_FALSE(f.plic.irq[1].level());
  });
  cpu.socket.bind(f.plic.socket);
  sc_core::sc_start();
  std::vector<std::pair<unsigned, bool>> seen;
  for (auto& change : f.hart.changes) seen.emplace_back(change.line, change.level);
  std::vector<std::pair<unsigned, bool>> expected = {{11, true}, {9, true}, {9, false},
                                                              {9, true},  {11, false}, {9, false}};
  EXPECT_EQ(seen, expected);
}

TEST(Plic, EqualPrioritiesClaimLowestIdAndPulsesAreLatched) {
  Fixture f;
  TestInitiator cpu("cpu", kRegisterBytes, [&](TestInitiator& bus) {
    for (unsigned source : {9u, 33u, 64u}) bus.write(priority(source), 2);
    bus.write(enable(0, 0), 1u << 9);
    bus.write(enable(0, 1), 1u << 1);
    bus.write(enable(0, 2), 1u << 0);
    // Short pulses: the gateway keeps them pending.
    for (unsigned source : {64u, 33u, 9u}) {
      f.device[source].set(true);
      f.device[source].set(false);
    }
    EXPECT_EQ(bus.read(claim(0)), 9u);
    EXPECT_EQ(bus.read(claim(0)), 33u);
    EXPECT_EQ(bus.read(claim(0)), 64u);
    EXPECT_EQ(bus.read(claim(0)), 0u);
    bus.write(claim(0), 33);
    EXPECT_FALSE(f.plic.pending(33));  // released: nothing to re-pend
  });
  cpu.socket.bind(f.plic.socket);
  sc_core::sc_start();
}

TEST(Plic, RegisterMapDetails) {
  Fixture f;
  TestInitiator cpu("cpu", kRegisterBytes, [&](TestInitiator& bus) {
    bus.write(priority(0), 5);  // source 0 is reserved
    EXPECT_EQ(bus.read(priority(0)), 0u);
    bus.write(enable(0, 0), 0xFFFFFFFF);
    EXPECT_EQ(bus.read(enable(0, 0)), 0xFFFFFFFEu);  // bit 0 = source 0
    bus.write(enable(0, 2), 0xFFFFFFFF);
    EXPECT_EQ(bus.read(enable(0, 2)), 0xFFFFFFFFu);  // sources 64..95
    bus.write(enable(0, 3), 0xFFFFFFFF);
    EXPECT_EQ(bus.read(enable(0, 3)), 0u);  // no sources 96..127
    bus.write(kPending, 0xFFFFFFFF);        // read-only
    EXPECT_EQ(bus.read(kPending), 0u);
    EXPECT_EQ(bus.read(threshold(2)), 0u);  // no context 2
    std::uint64_t value = 0;
    EXPECT_EQ(bus.access(tlm::TLM_READ_COMMAND, claim(0), &value, 8), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(bus.access(tlm::TLM_READ_COMMAND, priority(1) + 1, &value, 1), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  });
  cpu.socket.bind(f.plic.socket);
  sc_core::sc_start();
}

TEST(Plic, ConfiguredSizesAndBadSource) {
  ParameterRegistry::instance().set_override("plic.sources", "40", "test");
  ParameterRegistry::instance().set_override("plic.contexts", "4", "test");
  Plic plic("plic");
  EXPECT_EQ(plic.irq.size(), 4u);
  plic.set_interrupt(39, true);
  EXPECT_TRUE(plic.pending(39));
  EXPECT_THROW(plic.set_interrupt(40, true), SimulationError);
  EXPECT_THROW(plic.set_interrupt(0, true), SimulationError);
}

TEST(Plic, OutOfRangeParametersAreConfigErrors) {
  ParameterRegistry::instance().set_override("plic.priority_bits", "0", "test");
  EXPECT_THROW(Plic("plic"), ConfigError);
}

}  // namespace
}  // namespace npuvp
