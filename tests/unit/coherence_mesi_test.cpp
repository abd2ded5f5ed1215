// MESI transitions, one scenario at a time, with a hand-driven network: the
// test decides which message is delivered when, to create the races.
#include "coherence/memory_controller.h"
#include "coherence/hand_network.h"
#include "coherence/mesi/mesi.h"
#include "coherence/protocol_registry.h"
#include "core/parameters.h"

#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace npuvp::coherence::mesi {
namespace {

// 4 tiles, one-set caches of `l1_ways` / `llc_ways` ways, `writeback_entries`
// per L1; messages wait until the test delivers them (hand_network.h).
class Cluster final : public HandNetwork<L1, Home, &message_name> {
 public:
  explicit Cluster(unsigned l1_ways = 2, unsigned llc_ways = 2, unsigned writeback_entries = 4)
      : HandNetwork({l1_ways, llc_ways},
                    [writeback_entries](unsigned tile, const Geometry& geometry, const CacheShape& shape,
                                        Environment& environment) {
                      return std::make_unique<L1>(tile, geometry, shape, environment, writeback_entries);
                    }) {}
};

using S = L1::State;
using H = Home::State;
constexpr std::uint64_t kLine = 0x40;  // home 2

std::uint64_t memory_word(const FakeMemory& memory, std::uint64_t address) {
  std::uint64_t value;
  std::memcpy(&value, &memory.bytes[address], 8);
  return value;
}

TEST(CoherenceMesiTest, ReadMissGetsExclusiveWithMemoryData) {
  Cluster cluster;
  std::uint64_t value = 0;
  EXPECT_FALSE(cluster.l1s[0]->access(L1Controller::Access::kLoad, kLine + 8, &value, 8));
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kIS_D);
  cluster.run();
  EXPECT_EQ(cluster.completed[0], 1u);
  EXPECT_EQ(value, memory_word(cluster.memory, kLine + 8));
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kE);
  EXPECT_EQ(cluster.home_of(kLine).state_of_line(kLine), H::kEXC);
  EXPECT_EQ(cluster.home_of(kLine).owner_of(kLine), 0);
  EXPECT_TRUE(cluster.sent("Read 0->2"));
  EXPECT_TRUE(cluster.sent("MemoryRead 2->4"));
  EXPECT_TRUE(cluster.sent("RepExc 2->0"));
  // A second load hits.
  EXPECT_TRUE(cluster.l1s[0]->access(L1Controller::Access::kLoad, kLine, &value, 8));
  EXPECT_EQ(cluster.l1s[0]->statistics().load_hits, 1u);
  EXPECT_EQ(cluster.l1s[0]->statistics().load_misses, 1u);
  EXPECT_EQ(cluster.home_of(kLine).statistics().misses, 1u);
}

TEST(CoherenceMesiTest, SecondReaderMakesBothShared) {
  Cluster cluster;
  const std::uint64_t expected = memory_word(cluster.memory, kLine);
  EXPECT_EQ(cluster.load64(0, kLine), expected);
  EXPECT_EQ(cluster.load64(1, kLine), expected);
  EXPECT_TRUE(cluster.sent("ShdIntervention 2->0"));
  EXPECT_TRUE(cluster.sent("AckData 0->2"));
  EXPECT_TRUE(cluster.sent("RepShd 2->1"));
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kS);
  EXPECT_EQ(cluster.l1_state(1, kLine), S::kS);
  EXPECT_EQ(cluster.home_of(kLine).state_of_line(kLine), H::kSHD);
  EXPECT_EQ(cluster.home_of(kLine).sharers_of(kLine), 0b11u);
  EXPECT_FALSE(cluster.home_of(kLine).dirty(kLine));  // E was clean
}

TEST(CoherenceMesiTest, StoreToSharedUpgradesAndInvalidatesTheOthers) {
  Cluster cluster;
  cluster.load64(0, kLine);
  cluster.load64(1, kLine);
  cluster.load64(2, kLine);
  cluster.log.clear();
  cluster.store64(0, kLine, 0x1122334455667788ull);
  EXPECT_TRUE(cluster.sent("Upgrade 0->2"));
  EXPECT_TRUE(cluster.sent("Invalidation 2->1"));
  EXPECT_TRUE(cluster.sent("Invalidation 2->2"));
  EXPECT_TRUE(cluster.sent("Ack 1->2"));
  EXPECT_TRUE(cluster.sent("Ack 2->2"));
  EXPECT_TRUE(cluster.sent("AckChange 2->0"));
  EXPECT_FALSE(cluster.sent("RepExc 2->0"));  // no data: the sharer kept it
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kM);
  EXPECT_EQ(cluster.l1_state(1, kLine), S::kI);
  EXPECT_EQ(cluster.l1_state(2, kLine), S::kI);
  EXPECT_EQ(cluster.home_of(kLine).owner_of(kLine), 0);
  EXPECT_EQ(cluster.l1s[0]->statistics().upgrades, 1u);
  EXPECT_EQ(cluster.l1s[1]->statistics().invalidations_received, 1u);
  // The line-lost observer saw both invalidations.
  EXPECT_EQ(cluster.lost.size(), 2u);
  EXPECT_EQ(cluster.load64(1, kLine), 0x1122334455667788ull);
}

TEST(CoherenceMesiTest, ReadOfAModifiedLineIntervenesAndSharesTheDirtyData) {
  Cluster cluster;
  cluster.store64(0, kLine + 16, 42);
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kM);
  EXPECT_EQ(cluster.load64(3, kLine + 16), 42u);
  EXPECT_TRUE(cluster.sent("ShdIntervention 2->0"));
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kS);
  EXPECT_EQ(cluster.l1_state(3, kLine), S::kS);
  EXPECT_TRUE(cluster.home_of(kLine).dirty(kLine));
  // A store by another core takes the line with RdEx: the home invalidates both.
  cluster.store64(1, kLine + 16, 43);
  EXPECT_TRUE(cluster.sent("RdEx 1->2"));
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kI);
  EXPECT_EQ(cluster.l1_state(3, kLine), S::kI);
  EXPECT_EQ(cluster.load64(0, kLine + 16), 43u);
}

TEST(CoherenceMesiTest, StoreMissOnAModifiedLineTakesItWithExcIntervention) {
  Cluster cluster;
  cluster.store64(0, kLine, 7);
  cluster.store64(1, kLine + 8, 8);
  EXPECT_TRUE(cluster.sent("ExcIntervention 2->0"));
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kI);
  EXPECT_EQ(cluster.l1_state(1, kLine), S::kM);
  EXPECT_EQ(cluster.load64(1, kLine), 7u);  // the first store's bytes came along
}

TEST(CoherenceMesiTest, LlcEvictionRecallsTheL1CopiesAndWritesBack) {
  Cluster cluster(2, 1);  // one LLC way per bank
  const std::uint64_t other = kLine + 4 * 32;  // same home (2), same set
  cluster.store64(0, kLine, 0xabcdef);
  cluster.load64(1, kLine);  // L1 0 and L1 1 share, LLC dirty
  cluster.log.clear();
  cluster.load64(2, other);
  EXPECT_TRUE(cluster.sent("Invalidation 2->0"));
  EXPECT_TRUE(cluster.sent("Invalidation 2->1"));
  EXPECT_TRUE(cluster.sent("MemoryWrite 2->4"));
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kI);
  EXPECT_EQ(cluster.l1_state(1, kLine), S::kI);
  EXPECT_EQ(cluster.home_of(kLine).state_of_line(kLine), H::kNP);
  EXPECT_EQ(memory_word(cluster.memory, kLine), 0xabcdefu);
  EXPECT_EQ(cluster.home_of(kLine).statistics().recalls, 1u);
  // An owner is recalled with ExcIntervention.
  cluster.store64(3, other, 5);
  cluster.log.clear();
  cluster.load64(0, kLine);
  EXPECT_TRUE(cluster.sent("ExcIntervention 2->3"));
  EXPECT_EQ(cluster.l1_state(3, other), S::kI);
  EXPECT_EQ(memory_word(cluster.memory, other), 5u);
}

TEST(CoherenceMesiTest, L1EvictionSendsReplaceAndWaitsInTheWritebackBuffer) {
  Cluster cluster(1, 2);  // one L1 way
  cluster.store64(0, kLine, 99);
  std::uint64_t value = 0;
  EXPECT_FALSE(cluster.l1s[0]->access(L1Controller::Access::kLoad, kLine + 32, &value, 8));
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kMI_A);
  bool owner = false;
  std::uint64_t copy = 0;
  EXPECT_TRUE(cluster.l1s[0]->peek(kLine, &copy, 8, owner));  // still the owner's data
  EXPECT_TRUE(owner);
  EXPECT_EQ(copy, 99u);
  cluster.run();
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kI);
  EXPECT_EQ(cluster.home_of(kLine).state_of_line(kLine), H::kIDLE);
  EXPECT_TRUE(cluster.home_of(kLine).dirty(kLine));
  EXPECT_EQ(cluster.l1s[0]->statistics().writebacks, 1u);
  EXPECT_EQ(cluster.load64(1, kLine), 99u);
}

TEST(CoherenceMesiTest, MissWaitsForAFreeWritebackEntry) {
  Cluster cluster(1, 2, 1);  // one L1 way, one write-back entry
  cluster.store64(0, kLine, 1);
  std::uint64_t b = 0, c = 0;
  EXPECT_FALSE(cluster.l1s[0]->access(L1Controller::Access::kLoad, kLine + 32, &b, 8));  // evicts kLine
  const auto hold_ack_change = [](const Message& m) { return m.type == kAckChange; };
  cluster.run(hold_ack_change);
  EXPECT_EQ(cluster.completed[0], 2u);  // the load of kLine + 32 is done, kLine still in the buffer
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kMI_A);
  EXPECT_FALSE(cluster.l1s[0]->access(L1Controller::Access::kLoad, kLine + 64, &c, 8));
  cluster.run(hold_ack_change);
  EXPECT_EQ(cluster.completed[0], 2u);  // waits: no entry for the victim kLine + 32
  EXPECT_EQ(cluster.l1_state(0, kLine + 64), S::kI);
  cluster.run();
  EXPECT_EQ(cluster.completed[0], 3u);
  EXPECT_EQ(cluster.l1_state(0, kLine + 64), S::kE);
  EXPECT_EQ(cluster.l1_state(0, kLine + 32), S::kI);
}

TEST(CoherenceMesiTest, InvalidationWhileAnUpgradeIsPendingTurnsItIntoAMiss) {
  Cluster cluster;
  cluster.load64(0, kLine);
  cluster.load64(1, kLine);
  std::uint64_t a = 1, b = 2;
  EXPECT_FALSE(cluster.l1s[0]->access(L1Controller::Access::kStore, kLine, &a, 8));
  EXPECT_FALSE(cluster.l1s[1]->access(L1Controller::Access::kStore, kLine, &b, 8));
  cluster.deliver(kUpgrade, 2);  // L1 0's Upgrade is first in flight: it wins
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kSM_A);
  cluster.deliver(kInvalidation, 1);
  EXPECT_EQ(cluster.l1_state(1, kLine), S::kIM_D);  // lost its copy, now needs data
  cluster.run();
  EXPECT_EQ(cluster.completed[0], 2u);  // its load, then the store
  EXPECT_EQ(cluster.completed[1], 2u);
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kI);
  EXPECT_EQ(cluster.l1_state(1, kLine), S::kM);
  EXPECT_EQ(cluster.load64(2, kLine), 2u);  // L1 1's store is the later one
}

TEST(CoherenceMesiTest, InterventionCrossingAWritebackIsAnsweredFromTheBuffer) {
  Cluster cluster(1, 2);
  cluster.store64(0, kLine, 0x5555);
  std::uint64_t theirs = 0x6666, mine = 0;
  EXPECT_FALSE(cluster.l1s[1]->access(L1Controller::Access::kStore, kLine + 8, &theirs, 8));
  EXPECT_FALSE(cluster.l1s[0]->access(L1Controller::Access::kLoad, kLine + 32, &mine, 8));  // evicts kLine
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kMI_A);
  cluster.deliver(kRdEx, 2);  // the home sees L1 1's RdEx before L1 0's Replace
  cluster.deliver(kExcIntervention, 0);
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kII_A);
  cluster.run();
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kI);
  EXPECT_EQ(cluster.l1_state(1, kLine), S::kM);
  EXPECT_EQ(cluster.load64(1, kLine), 0x5555u);
  EXPECT_EQ(cluster.load64(1, kLine + 8), 0x6666u);
  EXPECT_TRUE(cluster.homes[2]->quiescent());
}

TEST(CoherenceMesiTest, ForwardOvertakingTheDataIsParkedUntilTheDataArrives) {
  Cluster cluster;
  std::uint64_t value = 11, other = 0;
  EXPECT_FALSE(cluster.l1s[0]->access(L1Controller::Access::kStore, kLine, &value, 8));
  cluster.run([](const Message& m) { return m.type == kRepExc; });  // hold the data
  EXPECT_FALSE(cluster.l1s[1]->access(L1Controller::Access::kLoad, kLine, &other, 8));
  cluster.deliver(kRead, 2);
  cluster.deliver(kShdIntervention, 0);  // overtakes the RepExc
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kIM_D);
  EXPECT_EQ(cluster.l1s[0]->statistics().stalled_messages, 1u);
  cluster.run();
  EXPECT_EQ(other, 11u);
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kS);
}

TEST(CoherenceMesiTest, MakeWritableHoldsTheLineUntilTheAtomicsStore) {
  Cluster cluster;
  cluster.load64(0, kLine);
  cluster.load64(1, kLine);  // both S
  EXPECT_FALSE(cluster.l1s[0]->access(L1Controller::Access::kMakeWritable, kLine, nullptr, 8));
  cluster.run();
  EXPECT_EQ(cluster.completed[0], 2u);
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kE_L);
  std::uint64_t other = 0;
  EXPECT_FALSE(cluster.l1s[1]->access(L1Controller::Access::kLoad, kLine, &other, 8));
  cluster.run();
  EXPECT_EQ(cluster.completed[1], 1u);  // still waiting: the ShdIntervention is parked
  std::uint64_t old = 0, updated = 77;
  EXPECT_TRUE(cluster.l1s[0]->access(L1Controller::Access::kLoad, kLine, &old, 8));
  EXPECT_TRUE(cluster.l1s[0]->access(L1Controller::Access::kStore, kLine, &updated, 8));
  cluster.run();
  EXPECT_EQ(cluster.completed[1], 2u);
  EXPECT_EQ(other, 77u);
}

TEST(CoherenceMesiTest, SerializedStateIsTheSameForTheSameHistoryOnly) {
  Cluster first, second, third;
  for (Cluster* cluster : {&first, &second, &third}) cluster->load64(0, kLine);
  first.store64(1, kLine, 5);
  second.store64(1, kLine, 5);
  third.store64(1, kLine, 6);  // other data
  std::string a, b, c;
  for (unsigned tile = 0; tile < 4; ++tile) {
    first.l1s[tile]->serialize(a);
    first.homes[tile]->serialize(a);
    second.l1s[tile]->serialize(b);
    second.homes[tile]->serialize(b);
    third.l1s[tile]->serialize(c);
    third.homes[tile]->serialize(c);
  }
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(CoherenceMesiTest, UnexpectedEventIsAProtocolErrorWithContext) {
  Cluster cluster;
  cluster.load64(0, kLine);  // E
  Message bogus;
  bogus.type = kInvalidation;
  bogus.line = kLine;
  bogus.source = 2;
  bogus.source_port = Port::kHome;
  bogus.destination = 0;
  bogus.destination_port = Port::kL1;
  try {
    cluster.l1s[0]->handle(bogus);
    FAIL() << "no ProtocolError";
  } catch (const ProtocolError& error) {
    const std::string text = error.what();
    EXPECT_NE(text.find("L1 0: no transition for event Invalidation in state E, line 0x40"), std::string::npos)
        << text;
    EXPECT_NE(text.find("message Invalidation from node 2"), std::string::npos) << text;
    EXPECT_NE(text.find("cycle "), std::string::npos) << text;
  }
  Message ack = bogus;
  ack.type = kAck;
  ack.source = 0;
  ack.destination = 2;
  ack.destination_port = Port::kHome;
  try {
    cluster.homes[2]->handle(ack);
    FAIL() << "no ProtocolError";
  } catch (const ProtocolError& error) {
    EXPECT_NE(std::string(error.what()).find("home 2: no transition for event Ack in state EXC"), std::string::npos)
        << error.what();
  }
}

// ---- the thesis's baseline (thesis_baseline = true) ----

// A cluster whose controllers the MESI instance builds with thesis_baseline = `thesis`.
class BaselineCluster final : public HandNetwork<L1, Home, &message_name> {
 public:
  explicit BaselineCluster(bool thesis) : BaselineCluster(configured(thesis), 0) {}

 private:
  static std::shared_ptr<ProtocolInstance> configured(bool thesis) {
    static unsigned count = 0;
    std::shared_ptr<ProtocolInstance> instance =
        instantiate(find_protocol("mesi"), "baseline" + std::to_string(count++) + ".mesi");
    dynamic_cast<Instance&>(*instance).thesis_baseline.set_from_text(thesis ? "true" : "false", "test");
    return instance;
  }
  BaselineCluster(const std::shared_ptr<ProtocolInstance>& instance, int)
      : HandNetwork(
            {},
            [instance](unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment) {
              return std::unique_ptr<L1>(static_cast<L1*>(instance->make_l1(tile, geometry, shape, environment).release()));
            },
            [instance](unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment) {
              return std::unique_ptr<Home>(
                  static_cast<Home*>(instance->make_home(tile, geometry, shape, environment).release()));
            }) {}
};

// The same program under both baselines: a read of a line no L1 holds gets
// E (textbook) or S (thesis); the store that follows is silent (E -> M) or
// sends RdEx, answered RepExc with data (the thesis's change 9: no Upgrade).
TEST(CoherenceMesiTest, ThesisBaselineReadGetsSharedAndStoreToSharedSendsRdExWithData) {
  for (bool thesis : {false, true}) {
    BaselineCluster cluster(thesis);
    const std::uint64_t expected = memory_word(cluster.memory, kLine);
    EXPECT_EQ(cluster.load64(0, kLine), expected);
    EXPECT_EQ(cluster.l1_state(0, kLine), thesis ? S::kS : S::kE);
    EXPECT_TRUE(cluster.sent(thesis ? "RepShd 2->0" : "RepExc 2->0"));
    EXPECT_EQ(cluster.home_of(kLine).state_of_line(kLine), thesis ? H::kSHD : H::kEXC);
    cluster.log.clear();
    cluster.store64(0, kLine, 0x5555);
    EXPECT_EQ(cluster.l1_state(0, kLine), S::kM);
    EXPECT_EQ(cluster.home_of(kLine).owner_of(kLine), 0);
    if (thesis) {
      EXPECT_EQ(cluster.log, (std::vector<std::string>{"RdEx 0->2", "RepExc 2->0"}));
    } else {
      EXPECT_TRUE(cluster.log.empty());  // E -> M silently
    }
    EXPECT_EQ(cluster.load64(0, kLine), 0x5555u);
    EXPECT_EQ(cluster.l1s[0]->statistics().upgrades, 0u);
  }
}

// Two sharers, one stores: textbook MESI sends Upgrade and gets AckChange
// (no data); the thesis's sends RdEx and gets RepExc with data, after the
// other sharer's Ack.
TEST(CoherenceMesiTest, ThesisBaselineStoreToASharedLineInvalidatesAndSendsTheData) {
  for (bool thesis : {false, true}) {
    BaselineCluster cluster(thesis);
    cluster.load64(0, kLine);
    cluster.load64(1, kLine);
    ASSERT_EQ(cluster.l1_state(0, kLine), S::kS);
    ASSERT_EQ(cluster.l1_state(1, kLine), S::kS);
    cluster.log.clear();
    cluster.store64(0, kLine, 0x77);
    EXPECT_EQ(cluster.l1_state(0, kLine), S::kM);
    EXPECT_EQ(cluster.l1_state(1, kLine), S::kI);
    const std::vector<std::string> textbook{"Upgrade 0->2", "Invalidation 2->1", "Ack 1->2", "AckChange 2->0"};
    const std::vector<std::string> thesis_messages{"RdEx 0->2", "Invalidation 2->1", "Ack 1->2", "RepExc 2->0"};
    EXPECT_EQ(cluster.log, thesis ? thesis_messages : textbook);
    EXPECT_EQ(cluster.l1s[0]->statistics().upgrades, thesis ? 0u : 1u);
    EXPECT_EQ(cluster.load64(1, kLine), 0x77u);
  }
}

// Both sharers store at once under the thesis baseline: the home serves one
// RdEx first and invalidates the other L1, whose RdEx is on its way (IM_D);
// it acknowledges, and its RdEx is then served as a miss (the line is owned:
// ExcIntervention to the first writer).
TEST(CoherenceMesiTest, ThesisBaselineInvalidationCrossingARdExFromSharedIsAcknowledged) {
  BaselineCluster cluster(true);
  cluster.load64(0, kLine);
  cluster.load64(1, kLine);
  const unsigned completed_0 = cluster.completed[0], completed_1 = cluster.completed[1];
  static std::uint64_t first = 0x1, second = 0x2;
  EXPECT_FALSE(cluster.l1s[0]->access(L1Controller::Access::kStore, kLine, &first, 8));
  EXPECT_FALSE(cluster.l1s[1]->access(L1Controller::Access::kStore, kLine, &second, 8));
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kIM_D);
  EXPECT_EQ(cluster.l1_state(1, kLine), S::kIM_D);
  ASSERT_TRUE(cluster.deliver(kRdEx, 2));  // L1 0's RdEx first: Invalidation to L1 1
  ASSERT_TRUE(cluster.deliver(kInvalidation, 1));
  EXPECT_EQ(cluster.l1_state(1, kLine), S::kIM_D);
  EXPECT_TRUE(cluster.sent("Ack 1->2"));
  cluster.run();
  EXPECT_EQ(cluster.completed[0], completed_0 + 1);
  EXPECT_EQ(cluster.completed[1], completed_1 + 1);
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kI);
  EXPECT_EQ(cluster.l1_state(1, kLine), S::kM);
  EXPECT_TRUE(cluster.sent("ExcIntervention 2->0"));
  EXPECT_EQ(cluster.load64(2, kLine), 0x2u);
}

TEST(CoherenceMesiTest, InstanceOwnsTheThesisBaselineParameter) {
  const std::unique_ptr<ProtocolInstance> instance = instantiate(find_protocol("mesi"), "unit.mesi", " (a note)");
  ASSERT_EQ(instance->parameters().size(), 1u);
  const ParameterBase& parameter = *instance->parameters()[0];
  EXPECT_EQ(parameter.name(), "unit.mesi.thesis_baseline");
  EXPECT_EQ(parameter.default_text(), "false");
  EXPECT_NE(parameter.doc().find(" (a note)"), std::string::npos) << parameter.doc();
  EXPECT_EQ(ParameterRegistry::instance().find("unit.mesi.thesis_baseline"), &parameter);
  // The variants differ from the textbook tables in the rows documented.
  EXPECT_EQ(thesis_l1_table().find(S::kSM_A, L1Machine::Event::kAckChange), nullptr);
  EXPECT_EQ(thesis_l1_table().find(S::kIS_D, L1Machine::Event::kRepExc), nullptr);
  EXPECT_NE(l1_table().find(S::kIS_D, L1Machine::Event::kRepExc), nullptr);
  EXPECT_EQ(home_table().find(H::kSHD, HomeMachine::Event::kRdExFromSharer), nullptr);
}

TEST(CoherenceMesiTest, RegistryBuildsMesiAndNamesItsMessages) {
  const Protocol& protocol = find_protocol("mesi");
  EXPECT_EQ(protocol.message_name(kRead), "Read");
  EXPECT_EQ(protocol.message_name(kAckChange), "AckChange");
  EXPECT_EQ(protocol.message_name(kMemoryData), "MemoryData");
  EXPECT_EQ(protocol.message_types, static_cast<unsigned>(kMessageTypes));
  EXPECT_EQ(virtual_network_of(kRdEx), VirtualNetwork::kRequest);
  EXPECT_EQ(virtual_network_of(kExcIntervention), VirtualNetwork::kForward);
  EXPECT_EQ(virtual_network_of(kAckData), VirtualNetwork::kResponse);
  Cluster cluster;
  auto l1 = protocol.make_l1(1, cluster.geometry, CacheShape{}, cluster);
  EXPECT_EQ(l1->name(), "L1 1");
  EXPECT_THROW(find_protocol("moesi"), std::invalid_argument);
  EXPECT_THROW(protocol.make_home(1, cluster.geometry, CacheShape{1000, 4, 10}, cluster), std::invalid_argument);
}

}  // namespace
}  // namespace npuvp::coherence::mesi
