// NSI transitions, one scenario at a time, with a hand-driven network (the
// test decides which message is delivered when, to create the races).
#include "coherence/memory_controller.h"
#include "coherence/hand_network.h"
#include "coherence/nsi/nsi.h"
#include "coherence/protocol_registry.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace npuvp::coherence::nsi {
namespace {

// 4 tiles, one-set caches of `l1_ways` / `llc_ways` ways, the periodic
// synchronisation every `periodic` cycles (0: off); messages wait until the
// test delivers them (hand_network.h).
class Cluster final : public HandNetwork<L1, Home, &message_name> {
 public:
  explicit Cluster(unsigned l1_ways = 2, unsigned llc_ways = 2, std::uint64_t periodic = 0)
      : HandNetwork({l1_ways, llc_ways}, [periodic](unsigned tile, const Geometry& geometry, const CacheShape& shape,
                                                    Environment& environment) {
          return std::make_unique<L1>(tile, geometry, shape, environment, periodic);
        }) {}
};

using S = L1Machine::State;
using H = HomeMachine::State;
constexpr std::uint64_t kLine = 0x40;  // home 2

TEST(CoherenceNsiTest, ReadMissOnUnownedLineGrantsExclusive) {
  Cluster cluster;
  std::uint64_t expected;
  std::memcpy(&expected, &cluster.memory.bytes[kLine], 8);
  EXPECT_EQ(cluster.load64(0, kLine), expected);
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kEXC);
  EXPECT_EQ(cluster.home_of(kLine).state_of_line(kLine), H::kEXC);
  EXPECT_EQ(cluster.home_of(kLine).owner_of(kLine), 0);
  EXPECT_TRUE(cluster.sent("RepExc 2->0"));
  // A store to the EXC line needs only an Upgrade (no RdEx).
  cluster.store64(0, kLine, 0x1111);
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kMOD);
  EXPECT_EQ(cluster.home_of(kLine).state_of_line(kLine), H::kMOD);
  EXPECT_TRUE(cluster.sent("Upgrade 0->2"));
  EXPECT_FALSE(cluster.sent("RdEx 0->2"));
}

TEST(CoherenceNsiTest, SecondReaderInterventionLeavesOwnerExclusiveAndReaderShared) {
  Cluster cluster;
  cluster.store64(0, kLine, 0xabcd);  // RdEx: MOD at once (A1 optimised)
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kMOD);
  EXPECT_EQ(cluster.load64(1, kLine), 0xabcdu);
  EXPECT_TRUE(cluster.sent("ShdIntervention 2->0"));
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kEXC);  // MOD -> EXC (MESI: S)
  EXPECT_EQ(cluster.l1_state(1, kLine), S::kSHD);
  EXPECT_EQ(cluster.home_of(kLine).state_of_line(kLine), H::kEXC);
  EXPECT_EQ(cluster.home_of(kLine).owner_of(kLine), 0);
  // A third reader of the clean owned line is served by the LLC, no intervention.
  const std::size_t messages = cluster.log.size();
  EXPECT_EQ(cluster.load64(2, kLine), 0xabcdu);
  EXPECT_EQ(cluster.log.size(), messages + 2);  // Read, RepShd
  EXPECT_EQ(cluster.l1_state(2, kLine), S::kSHD);
}

TEST(CoherenceNsiTest, WriterTakesOwnershipWithoutInvalidatingAndReadersStayStale) {
  Cluster cluster;
  cluster.store64(0, kLine, 1);
  EXPECT_EQ(cluster.load64(1, kLine), 1u);  // L1 1 SHD
  cluster.store64(2, kLine, 2);             // RdEx: ExcIntervention to the owner
  EXPECT_TRUE(cluster.sent("ExcIntervention 2->0"));
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kSHD);  // EXC -> SHD (MESI: I)
  EXPECT_EQ(cluster.l1_state(1, kLine), S::kSHD);  // never told
  EXPECT_EQ(cluster.l1_state(2, kLine), S::kMOD);
  EXPECT_EQ(cluster.home_of(kLine).owner_of(kLine), 2);
  bool hit = false;
  EXPECT_EQ(cluster.load64(1, kLine, &hit), 1u);  // stale, allowed before a synchronisation
  EXPECT_TRUE(hit);
  EXPECT_EQ(cluster.load64(0, kLine, &hit), 1u);
  EXPECT_TRUE(hit);
}

TEST(CoherenceNsiTest, SynchroniseMakesSharedLinesSuspectAndLeavesOwnedOnes) {
  Cluster cluster;
  constexpr std::uint64_t kOther = 0x60;  // home 3
  cluster.store64(0, kLine, 1);
  EXPECT_EQ(cluster.load64(1, kLine), 1u);  // SHD at L1 1
  EXPECT_EQ(cluster.load64(1, kOther), cluster.load64(1, kOther));  // EXC at L1 1 (unowned)
  EXPECT_EQ(cluster.l1s[1]->synchronise(), 1u);
  EXPECT_EQ(cluster.l1_state(1, kLine), S::kSUS);
  EXPECT_EQ(cluster.l1_state(1, kOther), S::kEXC);
  EXPECT_EQ(cluster.l1s[1]->suspect_statistics().lines_created, 1u);
  EXPECT_EQ(cluster.l1s[1]->statistics().synchronisations, 1u);
  cluster.l1s[1]->synchronise();  // SUS stays SUS; nothing new becomes suspect
  EXPECT_EQ(cluster.l1_state(1, kLine), S::kSUS);
  EXPECT_EQ(cluster.l1s[1]->suspect_statistics().lines_created, 1u);
}

// The flash conversion visits the ways listed as they became SHD: a listed
// line that is no longer SHD by then stays as it is, and more SHD fills
// than the cache has ways (the list full) make the synchronisation scan the
// whole cache instead; either way exactly the SHD lines become SUS.
TEST(CoherenceNsiTest, SynchronisationTurnsExactlyTheSharedLinesSuspect) {
  Cluster cluster;  // one set of two ways
  constexpr std::uint64_t kA = 0x40, kB = 0x60, kC = 0x80, kD = 0xa0;
  cluster.store64(0, kA, 1);  // owners, so that L1 1's reads are answered SHD
  cluster.store64(2, kB, 2);
  cluster.store64(3, kC, 3);
  cluster.store64(0, kD, 4);
  EXPECT_EQ(cluster.load64(1, kA), 1u);
  EXPECT_EQ(cluster.l1_state(1, kA), S::kSHD);
  cluster.store64(1, kA, 5);  // listed as SHD, now MOD
  cluster.l1s[1]->synchronise();
  EXPECT_EQ(cluster.l1_state(1, kA), S::kMOD);
  EXPECT_EQ(cluster.l1s[1]->suspect_statistics().lines_created, 0u);

  // Three SHD fills into the two ways before the next synchronisation, two
  // of them into the same way: the list (one entry per way) fills up with
  // that way twice and misses the other.
  EXPECT_EQ(cluster.load64(1, kB), 2u);
  EXPECT_EQ(cluster.load64(1, kA), 5u);  // a hit: B is now the older
  EXPECT_EQ(cluster.load64(1, kD), 4u);  // B leaves silently; D takes its way
  EXPECT_EQ(cluster.load64(1, kC), 3u);  // A leaves (written back)
  EXPECT_EQ(cluster.l1_state(1, kC), S::kSHD);
  EXPECT_EQ(cluster.l1_state(1, kD), S::kSHD);
  cluster.l1s[1]->synchronise();
  EXPECT_EQ(cluster.l1_state(1, kC), S::kSUS);
  EXPECT_EQ(cluster.l1_state(1, kD), S::kSUS);
  EXPECT_EQ(cluster.l1s[1]->suspect_statistics().lines_created, 2u);
  cluster.store64(0, kD, 6);
  EXPECT_EQ(cluster.load64(1, kD), 6u);  // validated: the owner's newer data
  EXPECT_EQ(cluster.l1s[1]->suspect_statistics().validated_stale, 1u);
}

TEST(CoherenceNsiTest, SuspectLoadValidatedCurrentCostsAHit) {
  Cluster cluster;
  cluster.store64(0, kLine, 7);
  EXPECT_EQ(cluster.load64(1, kLine), 7u);
  cluster.l1s[1]->synchronise();
  const std::uint64_t hits = cluster.l1s[1]->statistics().load_hits;
  bool hit = true;
  EXPECT_EQ(cluster.load64(1, kLine, &hit), 7u);
  EXPECT_FALSE(hit);  // the validation is a round trip...
  EXPECT_TRUE(cluster.l1s[1]->last_miss_speculated_correctly());  // ...charged as a hit
  EXPECT_EQ(cluster.l1s[1]->statistics().load_hits, hits + 1);
  EXPECT_EQ(cluster.l1s[1]->suspect_statistics().validated_current, 1u);
  EXPECT_EQ(cluster.l1_state(1, kLine), S::kSHD);  // RepValidShd: the owner is L1 0
}

// The version of L1 1's copy is the line's: the home confirms it without
// data (one flit), and the L1 keeps its copy.
TEST(CoherenceNsiTest, CurrentSuspectCopyIsConfirmedWithoutData) {
  Cluster cluster;
  cluster.store64(0, kLine, 7);
  EXPECT_EQ(cluster.load64(1, kLine), 7u);
  cluster.l1s[1]->synchronise();
  cluster.log.clear();
  static std::uint64_t value = 0;
  EXPECT_FALSE(cluster.l1s[1]->access(L1Controller::Access::kLoad, kLine, &value, 8));
  ASSERT_EQ(cluster.in_flight.size(), 1u);
  EXPECT_EQ(cluster.in_flight[0].type, kRead);
  EXPECT_NE(version_of(cluster.in_flight[0]), 0u);  // a validation carries its copy's version
  cluster.run([](const Message& message) { return message.type == kRepValidShd; });
  ASSERT_EQ(cluster.in_flight.size(), 1u);
  EXPECT_EQ(cluster.in_flight[0].type, kRepValidShd);
  EXPECT_FALSE(cluster.in_flight[0].has_data);
  EXPECT_EQ(cluster.in_flight[0].vnet, VirtualNetwork::kResponse);
  cluster.run();
  EXPECT_EQ(value, 7u);
  EXPECT_FALSE(cluster.sent("RepShd 2->1"));
  EXPECT_TRUE(cluster.l1s[1]->last_miss_speculated_correctly());
}

// The validation Read is express, and the home says it answers it alone
// exactly when the line is stable in the LLC with its data there (EXC):
// not while the owner holds it modified (an intervention), not for a line
// the LLC lacks (memory), not while the line is busy (the request waits).
TEST(CoherenceNsiTest, HomeAnswersAloneOnlyFromItsOwnData) {
  Cluster cluster;
  Home& home = cluster.home_of(kLine);
  Message absent;
  absent.type = kRead;
  absent.line = kLine;
  absent.source = 1;
  absent.destination = 2;
  EXPECT_FALSE(home.answers_alone(absent));  // not in the LLC
  cluster.store64(0, kLine, 7);               // L1 0 owns it, modified
  EXPECT_FALSE(home.answers_alone(absent));   // needs a ShdIntervention
  EXPECT_EQ(cluster.load64(1, kLine), 7u);    // owner MOD -> EXC, LLC current
  cluster.l1s[1]->synchronise();
  static std::uint64_t value = 0;
  EXPECT_FALSE(cluster.l1s[1]->access(L1Controller::Access::kLoad, kLine, &value, 8));
  ASSERT_EQ(cluster.in_flight.size(), 1u);
  const Message validation = cluster.in_flight[0];
  EXPECT_TRUE(cluster.l1s[1]->express(validation));
  EXPECT_TRUE(home.answers_alone(validation));  // RepValidShd
  Message other = validation;
  other.type = kRdEx;
  EXPECT_FALSE(home.answers_alone(other));  // a write takes ownership: an intervention
  cluster.run();
  EXPECT_EQ(value, 7u);
  // A plain miss is not express; a busy line (an intervention in flight) is not answered alone.
  static std::uint64_t stored = 8;
  EXPECT_FALSE(cluster.l1s[3]->access(L1Controller::Access::kStore, kLine, &stored, 8));
  ASSERT_EQ(cluster.in_flight.size(), 1u);
  EXPECT_FALSE(cluster.l1s[3]->express(cluster.in_flight[0]));
  cluster.deliver(kRdEx, 2);  // the home sends an ExcIntervention to the owner: busy
  EXPECT_FALSE(home.answers_alone(validation));
  cluster.run();
}

// No owner (L1 0 wrote the line back): a current copy is confirmed with
// ownership, as a Read of an unowned line (A4).
TEST(CoherenceNsiTest, CurrentSuspectCopyOfAnUnownedLineBecomesExclusive) {
  Cluster cluster(1);  // one-way L1s
  cluster.store64(0, kLine, 9);
  EXPECT_EQ(cluster.load64(1, kLine), 9u);   // L1 0: MOD -> EXC (ShdIntervention)
  cluster.load64(0, kLine + 0x80);           // same set: L1 0 replaces the line, no owner left
  EXPECT_EQ(cluster.home_of(kLine).owner_of(kLine), -1);
  cluster.l1s[1]->synchronise();
  cluster.log.clear();
  EXPECT_EQ(cluster.load64(1, kLine), 9u);
  EXPECT_TRUE(cluster.sent("RepValidExc 2->1"));
  EXPECT_FALSE(cluster.sent("RepExc 2->1"));
  EXPECT_EQ(cluster.l1_state(1, kLine), S::kEXC);
  EXPECT_EQ(cluster.home_of(kLine).owner_of(kLine), 1);
  cluster.store64(1, kLine, 10);  // the owner upgrades
  EXPECT_TRUE(cluster.sent("Upgrade 1->2"));
}

// A write grant renews the version even when the value does not change:
// the home answers with data, which still validates current by value.
TEST(CoherenceNsiTest, RewrittenSameValueIsAnsweredWithDataAndCountsCurrent) {
  Cluster cluster;
  cluster.store64(0, kLine, 7);
  EXPECT_EQ(cluster.load64(1, kLine), 7u);
  cluster.store64(0, kLine, 7);  // EXC -> Upgrade: a new version, same value
  cluster.l1s[1]->synchronise();
  cluster.log.clear();
  EXPECT_EQ(cluster.load64(1, kLine), 7u);
  EXPECT_TRUE(cluster.sent("RepShd 2->1"));
  EXPECT_FALSE(cluster.sent("RepValidShd 2->1"));
  EXPECT_TRUE(cluster.l1s[1]->last_miss_speculated_correctly());
  EXPECT_EQ(cluster.l1s[1]->suspect_statistics().validated_current, 1u);
}

// Versions are unique per bank: a line evicted from the LLC and refilled
// never confirms a copy of its earlier residence.
TEST(CoherenceNsiTest, LineRefilledAfterLlcEvictionAnswersWithData) {
  Cluster cluster(2, 1);  // one-way LLC banks
  cluster.store64(0, kLine, 5);
  EXPECT_EQ(cluster.load64(1, kLine), 5u);
  cluster.load64(2, kLine + 0x80);  // same home and set: evicts kLine from the LLC (owner recalled)
  cluster.l1s[1]->synchronise();
  cluster.log.clear();
  EXPECT_EQ(cluster.load64(1, kLine), 5u);
  EXPECT_FALSE(cluster.sent("RepValidShd 2->1"));
  EXPECT_FALSE(cluster.sent("RepValidExc 2->1"));
  EXPECT_EQ(cluster.l1s[1]->suspect_statistics().validated_current, 1u);  // by value
}

TEST(CoherenceNsiTest, SuspectLoadValidatedStaleIsAMissWithFreshData) {
  Cluster cluster;
  cluster.store64(0, kLine, 7);
  EXPECT_EQ(cluster.load64(1, kLine), 7u);
  cluster.store64(0, kLine, 8);  // L1 0: EXC -> Upgrade -> MOD; L1 1 keeps 7
  cluster.l1s[1]->synchronise();
  const std::uint64_t misses = cluster.l1s[1]->statistics().load_misses;
  EXPECT_EQ(cluster.load64(1, kLine), 8u);
  EXPECT_FALSE(cluster.l1s[1]->last_miss_speculated_correctly());
  EXPECT_EQ(cluster.l1s[1]->statistics().load_misses, misses + 1);
  EXPECT_EQ(cluster.l1s[1]->suspect_statistics().validated_stale, 1u);
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kEXC);  // ShdIntervention: MOD -> EXC
  EXPECT_FALSE(cluster.sent("RepValidShd 2->1"));  // a stale copy gets data
}

// A2c: a fill requested before a synchronisation and arriving after it is
// suspect.
TEST(CoherenceNsiTest, FillArrivingAfterASynchronisationIsSuspect) {
  Cluster cluster;
  cluster.store64(0, kLine, 3);
  static std::uint64_t value = 0;
  EXPECT_FALSE(cluster.l1s[1]->access(L1Controller::Access::kLoad, kLine, &value, 8));
  cluster.l1s[1]->synchronise();
  cluster.run();
  EXPECT_EQ(value, 3u);
  EXPECT_EQ(cluster.l1_state(1, kLine), S::kSUS);
  EXPECT_EQ(cluster.l1s[1]->suspect_statistics().lines_created, 1u);
  cluster.load64(1, kLine + 0x20);  // a later fill (another line, another home) is SHD/EXC again
  EXPECT_NE(cluster.l1_state(1, kLine + 0x20), S::kSUS);
}

TEST(CoherenceNsiTest, SuspectLineEvictedUnreadIsCounted) {
  Cluster cluster(1);  // one-way L1s
  cluster.store64(0, kLine, 7);
  EXPECT_EQ(cluster.load64(1, kLine), 7u);
  cluster.l1s[1]->synchronise();
  cluster.load64(1, kLine + 0x80);  // same set: the SUS line leaves silently
  EXPECT_EQ(cluster.l1_state(1, kLine), S::kINV);
  EXPECT_FALSE(cluster.sent("Replace 1->2"));
  EXPECT_EQ(cluster.l1s[1]->suspect_statistics().dropped_unread, 1u);
}

TEST(CoherenceNsiTest, OwnerWriteBackReleasesOwnership) {
  Cluster cluster(1);
  cluster.store64(0, kLine, 0x55);
  cluster.load64(0, kLine + 0x80);  // evicts the MOD line: Replace with data
  EXPECT_TRUE(cluster.sent("Replace 0->2"));
  EXPECT_TRUE(cluster.sent("AckChange 2->0"));
  EXPECT_EQ(cluster.home_of(kLine).state_of_line(kLine), H::kEXC);
  EXPECT_EQ(cluster.home_of(kLine).owner_of(kLine), -1);
  std::uint64_t value = 0;
  ASSERT_TRUE(cluster.home_of(kLine).peek(kLine, &value, 8));
  EXPECT_EQ(value, 0x55u);
  EXPECT_EQ(cluster.load64(3, kLine), 0x55u);  // unowned again: RepExc
  EXPECT_EQ(cluster.l1_state(3, kLine), S::kEXC);
}

TEST(CoherenceNsiTest, LlcEvictionRecallsTheOwnerAndWritesBack) {
  Cluster cluster(2, 1);  // one-line LLC banks
  cluster.store64(0, kLine, 0x77);
  const unsigned writes = cluster.memory.writes;
  cluster.load64(1, kLine + 4 * 32 * 1);  // same home (interleave 4 tiles) and set
  EXPECT_TRUE(cluster.sent("ExcIntervention 2->0"));
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kSHD);  // keeps a read-only copy (A3)
  EXPECT_GT(cluster.memory.writes, writes);
  std::uint64_t value = 0;
  std::memcpy(&value, &cluster.memory.bytes[kLine], 8);
  EXPECT_EQ(value, 0x77u);
  EXPECT_EQ(cluster.home_of(kLine).statistics().recalls, 1u);
}

// An Upgrade overtaken by another L1's RdEx: the ExcIntervention reaches the
// upgrading L1 first; the home then answers its Upgrade as a RdEx.
TEST(CoherenceNsiTest, UpgradeRacingAnotherWriterEndsWithBothStoresInOrder) {
  Cluster cluster;
  cluster.load64(0, kLine);  // EXC
  static std::uint64_t mine = 0x100, theirs = 0x200;
  EXPECT_FALSE(cluster.l1s[0]->access(L1Controller::Access::kStore, kLine, &mine, 8));  // Upgrade in flight
  EXPECT_FALSE(cluster.l1s[1]->access(L1Controller::Access::kStore, kLine, &theirs, 8));
  cluster.deliver(kRdEx, 2);  // L1 1's RdEx first: ExcIntervention to L1 0
  cluster.deliver(kExcIntervention, 0);
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kIM_D);
  cluster.run();
  EXPECT_EQ(cluster.completed[0], 2u);  // the load, then the store
  EXPECT_EQ(cluster.completed[1], 1u);
  EXPECT_EQ(cluster.l1_state(0, kLine), S::kMOD);  // its Upgrade was answered RepExc
  EXPECT_EQ(cluster.l1_state(1, kLine), S::kSHD);
  EXPECT_EQ(cluster.load64(0, kLine), 0x100u);
}

TEST(CoherenceNsiTest, PeriodicSynchronisationMakesSpinningLoadsSeeTheStore) {
  Cluster cluster(2, 2, 50);
  cluster.store64(0, kLine, 0);
  EXPECT_EQ(cluster.load64(1, kLine), 0u);
  cluster.store64(0, kLine, 1);  // the flag; L1 1 spins on its SHD copy
  std::uint64_t seen = 0;
  for (unsigned spin = 0; spin < 100 && seen == 0; ++spin) {
    seen = cluster.load64(1, kLine);
    ++cluster.cycle;
  }
  EXPECT_EQ(seen, 1u);
  EXPECT_GE(cluster.l1s[1]->statistics().periodic_synchronisations, 1u);
}

TEST(CoherenceNsiTest, UnexpectedEventIsAProtocolError) {
  Cluster cluster;
  cluster.store64(0, kLine, 1);
  cluster.load64(1, kLine);  // SHD at L1 1
  Message forward;
  forward.type = kShdIntervention;
  forward.line = kLine;
  forward.source = 2;
  forward.source_port = Port::kHome;
  forward.destination = 1;
  forward.destination_port = Port::kL1;
  try {
    cluster.l1s[1]->handle(forward);
    FAIL() << "no error";
  } catch (const ProtocolError& error) {
    EXPECT_NE(std::string(error.what()).find("no transition for event ShdIntervention in state SHD"),
              std::string::npos)
        << error.what();
  }
}

// The instance owns its parameters (real Parameters under its prefix) and
// builds its L1s with the values.
TEST(CoherenceNsiTest, InstanceOwnsThePeriodicParameter) {
  const std::unique_ptr<ProtocolInstance> instance = instantiate(find_protocol("nsi"), "unit.nsi", " (a note)");
  ASSERT_EQ(instance->parameters().size(), 2u);
  const ParameterBase& parameter = *instance->parameters()[0];
  EXPECT_EQ(parameter.name(), "unit.nsi.periodic_synchronisation_cycles");
  EXPECT_EQ(parameter.default_text(), "100000");
  EXPECT_EQ(parameter.unit(), "cycles");
  EXPECT_NE(parameter.doc().find(" (a note)"), std::string::npos) << parameter.doc();
  EXPECT_EQ(ParameterRegistry::instance().find("unit.nsi.periodic_synchronisation_cycles"), &parameter);
  auto& nsi = dynamic_cast<Instance&>(*instance);
  nsi.periodic_synchronisation_cycles.set(7);
  Cluster cluster;
  std::unique_ptr<L1Controller> l1 = instance->make_l1(0, cluster.geometry, CacheShape{64, 2, 3}, cluster);
  ASSERT_NE(dynamic_cast<L1*>(l1.get()), nullptr);
  std::string state;
  l1->serialize(state);
  EXPECT_NE(state.find("next7;"), std::string::npos) << "the first periodic deadline is 7 cycles";
}

// `<prefix>.validation`: "version" (default) or "data"; anything else is a
// clear error naming the parameter and the choices.
TEST(CoherenceNsiTest, InstanceOwnsTheValidationParameter) {
  const std::unique_ptr<ProtocolInstance> instance = instantiate(find_protocol("nsi"), "unit2.nsi");
  auto& nsi = dynamic_cast<Instance&>(*instance);
  EXPECT_EQ(nsi.validation.name(), "unit2.nsi.validation");
  EXPECT_EQ(nsi.validation.get(), "version");
  EXPECT_EQ(ParameterRegistry::instance().find("unit2.nsi.validation"), &nsi.validation);
  EXPECT_NE(nsi.validation.type_name().find("version|data"), std::string::npos) << nsi.validation.type_name();
  nsi.validation.set_from_text("data", "test");
  EXPECT_EQ(nsi.validation.get(), "data");
  try {
    nsi.validation.set_from_text("both", "test");
    FAIL() << "no error";
  } catch (const std::exception& error) {
    EXPECT_NE(std::string(error.what()).find("unit2.nsi.validation"), std::string::npos) << error.what();
  }
}

// ---- the thesis's literal validation (validation = data) ----

// A cluster whose controllers the NSI instance builds with validation = `validation`.
class ValidationCluster final : public HandNetwork<L1, Home, &message_name> {
 public:
  explicit ValidationCluster(const std::string& validation, unsigned l1_ways = 2)
      : ValidationCluster(configured(validation), l1_ways) {}

 private:
  static std::shared_ptr<ProtocolInstance> configured(const std::string& validation) {
    static unsigned count = 0;
    std::shared_ptr<ProtocolInstance> instance =
        instantiate(find_protocol("nsi"), "validation" + std::to_string(count++) + ".nsi");
    auto& nsi = dynamic_cast<Instance&>(*instance);
    nsi.periodic_synchronisation_cycles.set(0);
    nsi.validation.set_from_text(validation, "test");
    return instance;
  }
  ValidationCluster(const std::shared_ptr<ProtocolInstance>& instance, unsigned l1_ways)
      : HandNetwork(
            {l1_ways, 2},
            [instance](unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment) {
              return std::unique_ptr<L1>(static_cast<L1*>(instance->make_l1(tile, geometry, shape, environment).release()));
            },
            [instance](unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment) {
              return std::unique_ptr<Home>(
                  static_cast<Home*>(instance->make_home(tile, geometry, shape, environment).release()));
            }) {}
};

// The same history under both options: L1 1's suspect copy is current. The
// versioned validation confirms it without data (RepValidShd); the literal
// one sends the data (RepShd), which the L1 compares: current, a hit.
TEST(CoherenceNsiTest, LiteralValidationAnswersACurrentSuspectCopyWithData) {
  for (const std::string validation : {"version", "data"}) {
    ValidationCluster cluster(validation);
    cluster.store64(0, kLine, 7);
    EXPECT_EQ(cluster.load64(1, kLine), 7u);
    cluster.l1s[1]->synchronise();
    EXPECT_EQ(cluster.l1_state(1, kLine), S::kSUS);
    cluster.log.clear();
    static std::uint64_t value = 0;
    EXPECT_FALSE(cluster.l1s[1]->access(L1Controller::Access::kLoad, kLine, &value, 8));
    cluster.run([](const Message& message) { return message.source_port == Port::kHome; });
    ASSERT_EQ(cluster.in_flight.size(), 1u) << validation;
    const Message reply = cluster.in_flight[0];
    if (validation == "data") {
      EXPECT_EQ(reply.type, kRepShd);
      EXPECT_TRUE(reply.has_data);
    } else {
      EXPECT_EQ(reply.type, kRepValidShd);
      EXPECT_FALSE(reply.has_data);
    }
    cluster.run();
    EXPECT_EQ(value, 7u) << validation;
    EXPECT_EQ(cluster.l1_state(1, kLine), S::kSHD) << validation;
    EXPECT_TRUE(cluster.l1s[1]->last_miss_speculated_correctly()) << validation;
    EXPECT_EQ(cluster.l1s[1]->suspect_statistics().validated_current, 1u) << validation;
    EXPECT_EQ(cluster.l1s[1]->suspect_statistics().validated_stale, 0u) << validation;
  }
}

// An unowned line: the literal validation grants ownership with the data
// (RepExc), the versioned one without (RepValidExc).
TEST(CoherenceNsiTest, LiteralValidationOfAnUnownedLineSendsRepExcWithData) {
  ValidationCluster cluster("data", 1);  // one-way L1s
  cluster.store64(0, kLine, 9);
  EXPECT_EQ(cluster.load64(1, kLine), 9u);
  cluster.load64(0, kLine + 0x80);  // same set: L1 0 replaces the line, no owner left
  EXPECT_EQ(cluster.home_of(kLine).owner_of(kLine), -1);
  cluster.l1s[1]->synchronise();
  cluster.log.clear();
  EXPECT_EQ(cluster.load64(1, kLine), 9u);
  EXPECT_TRUE(cluster.sent("RepExc 2->1"));
  EXPECT_FALSE(cluster.sent("RepValidExc 2->1"));
  EXPECT_EQ(cluster.l1_state(1, kLine), S::kEXC);
  EXPECT_EQ(cluster.l1s[1]->suspect_statistics().validated_current, 1u);
}

// The literal L1 table has no row for RepValidShd: a home that still sent
// one would be a protocol error, not a silent success.
TEST(CoherenceNsiTest, LiteralValidationL1RejectsADataLessConfirmation) {
  EXPECT_EQ(literal_validation_l1_table().find(S::kSV_D, L1Machine::Event::kRepValidShd), nullptr);
  EXPECT_NE(l1_table().find(S::kSV_D, L1Machine::Event::kRepValidShd), nullptr);
  const HomeTable::Row* row =
      literal_validation_home_table().find(H::kEXC, HomeMachine::Event::kReadCurrentOwned);
  ASSERT_NE(row, nullptr);
  ASSERT_EQ(row->action_count, 1u);
  EXPECT_EQ(row->actions[0], HomeMachine::Action::kSendRepShd);
}

}  // namespace
}  // namespace npuvp::coherence::nsi
