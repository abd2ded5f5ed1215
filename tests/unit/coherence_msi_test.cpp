// MSI transitions, one scenario at a time: the test is the network and
// decides which message is delivered when, to create the races.
#include "coherence/memory_controller.h"
#include "coherence/hand_network.h"
#include "coherence/msi/msi.h"
#include "coherence/protocol_registry.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace npuvp::coherence::msi {
namespace {

// 4 tiles, one-set L1s and LLC banks of `l1_ways` / `llc_ways` ways, memory
// whose byte at address a starts as (a * 3 + 5) mod 256; messages wait until
// the test delivers them (hand_network.h).
class Harness final : public HandNetwork<L1, Home, &message_name> {
 public:
  explicit Harness(unsigned l1_ways = 2, unsigned llc_ways = 2)
      : HandNetwork(HandNetworkShape{l1_ways, llc_ways, 1, 2, 2048, 3, 5, 4}) {}
};

using S = L1::State;
using H = Home::State;
constexpr std::uint64_t kLine = 0x60;  // home 3
constexpr std::uint64_t kOther = kLine + 4 * 32;  // same home, same L1 set

TEST(CoherenceMsiTest, IsRegisteredByName) {
  const Protocol& protocol = find_protocol("msi");
  EXPECT_EQ(protocol.name, "msi");
  EXPECT_FALSE(protocol.description.empty());
  EXPECT_EQ(protocol.message_name(kRdEx), "RdEx");
  EXPECT_EQ(protocol.message_name(kMemoryRead), "MemoryRead");
  EXPECT_EQ(protocol.message_name(kMessageTypes), "?");
  EXPECT_NE(protocol.tables_markdown().find("| IS_D | RepShd | install data, perform | S |"), std::string::npos);
}

TEST(CoherenceMsiTest, ReadMissAlwaysGetsShared) {
  Harness h;
  EXPECT_EQ(h.load64(0, kLine), h.memory.word(kLine));
  // MESI would grant E to the only reader; MSI grants S.
  EXPECT_EQ(h.l1_state(0, kLine), S::kS);
  EXPECT_EQ(h.home_of(kLine).state_of_line(kLine), H::kSHD);
  EXPECT_EQ(h.load64(1, kLine + 8), h.memory.word(kLine + 8));
  EXPECT_EQ(h.l1_state(1, kLine), S::kS);
  EXPECT_EQ(h.home_of(kLine).sharers_of(kLine), 0b11u);
  EXPECT_EQ(h.l1s[0]->permission(kLine), L1Controller::Permission::kRead);
  EXPECT_EQ(h.l1s[0]->statistics().load_misses, 1u);
  EXPECT_EQ(h.load64(0, kLine), h.memory.word(kLine));
  EXPECT_EQ(h.l1s[0]->statistics().load_hits, 1u);
}

TEST(CoherenceMsiTest, StoreGetsModifiedAfterInvalidatingTheSharers) {
  Harness h;
  h.load64(0, kLine);
  h.load64(1, kLine);
  h.load64(2, kLine);
  std::uint64_t value = 0x1111;
  ASSERT_FALSE(h.l1s[0]->access(L1Controller::Access::kStore, kLine, &value, 8));  // S: no write permission
  EXPECT_EQ(h.l1_state(0, kLine), S::kIM_D);  // the read-only copy is dropped, RdEx sent
  EXPECT_EQ(h.l1s[0]->statistics().upgrades, 1u);
  ASSERT_TRUE(h.deliver(kRdEx, 3));
  EXPECT_EQ(h.home_of(kLine).state_of_line(kLine), H::kSHD_A);
  EXPECT_TRUE(h.has_in_flight(kInvalidation, 1));
  EXPECT_TRUE(h.has_in_flight(kInvalidation, 2));
  EXPECT_FALSE(h.has_in_flight(kInvalidation, 0));  // the requester's own dropped copy is not invalidated
  h.run();
  EXPECT_EQ(h.l1_state(0, kLine), S::kM);
  EXPECT_EQ(h.l1_state(1, kLine), S::kI);
  EXPECT_EQ(h.l1_state(2, kLine), S::kI);
  EXPECT_EQ(h.home_of(kLine).state_of_line(kLine), H::kMOD);
  EXPECT_EQ(h.home_of(kLine).owner_of(kLine), 0);
  EXPECT_EQ(h.l1s[0]->permission(kLine), L1Controller::Permission::kWrite);
  EXPECT_EQ(h.home_of(kLine).statistics().invalidations_sent, 2u);
  EXPECT_EQ(h.load64(0, kLine), 0x1111u);
}

TEST(CoherenceMsiTest, InterventionsMoveTheOwnersData) {
  Harness h;
  h.store64(0, kLine, 0xAAAA);
  EXPECT_EQ(h.l1_state(0, kLine), S::kM);
  // A Read: the owner keeps an S copy, the LLC gets the dirty data.
  EXPECT_EQ(h.load64(1, kLine), 0xAAAAu);
  EXPECT_EQ(h.l1_state(0, kLine), S::kS);
  EXPECT_EQ(h.l1_state(1, kLine), S::kS);
  EXPECT_EQ(h.home_of(kLine).sharers_of(kLine), 0b11u);
  EXPECT_EQ(h.l1s[0]->statistics().interventions_received, 1u);
  // A RdEx while another L1 owns it: the owner gives the line up.
  h.store64(2, kLine + 8, 0xBBBB);
  h.store64(3, kLine, 0xCCCC);
  EXPECT_EQ(h.l1_state(2, kLine), S::kI);
  EXPECT_EQ(h.l1_state(3, kLine), S::kM);
  EXPECT_EQ(h.l1s[2]->statistics().interventions_received, 1u);
  EXPECT_EQ(h.load64(0, kLine + 8), 0xBBBBu);
  EXPECT_EQ(h.load64(0, kLine), 0xCCCCu);
}

TEST(CoherenceMsiTest, EvictingModifiedWritesBackAndTheLlcWritesMemory) {
  Harness h(1, 1);  // one-way L1s and LLC banks
  h.store64(0, kLine, 0x5555);
  std::uint64_t value = 0;
  ASSERT_FALSE(h.l1s[0]->access(L1Controller::Access::kLoad, kOther, &value, 8));
  EXPECT_EQ(h.l1_state(0, kLine), S::kMI_A);  // Replace with the data sent; the load waits for the way
  EXPECT_TRUE(h.has_in_flight(kReplace, 3));
  EXPECT_EQ(h.l1s[0]->permission(kLine), L1Controller::Permission::kNone);
  bool owner = false;
  std::uint64_t peeked = 0;
  EXPECT_TRUE(h.l1s[0]->peek(kLine, &peeked, 8, owner));  // the only current copy, for debuggers
  EXPECT_TRUE(owner);
  EXPECT_EQ(peeked, 0x5555u);
  h.run();
  EXPECT_EQ(h.completed[0], 2u);  // the store's, then the load's
  EXPECT_EQ(h.l1_state(0, kLine), S::kI);
  EXPECT_EQ(h.l1_state(0, kOther), S::kS);
  EXPECT_EQ(h.l1s[0]->statistics().writebacks, 1u);
  EXPECT_EQ(h.l1s[0]->statistics().evictions, 1u);
  // kOther took the LLC bank's only way: kLine went to memory.
  EXPECT_EQ(h.home_of(kLine).state_of_line(kLine), H::kNP);
  EXPECT_EQ(h.memory.word(kLine), 0x5555u);
  EXPECT_EQ(h.home_of(kLine).statistics().memory_writes, 1u);
}

TEST(CoherenceMsiTest, LlcEvictionRecallsTheOwner) {
  Harness h(2, 1);
  h.store64(0, kLine, 0x7777);
  EXPECT_EQ(h.load64(1, kOther), h.memory.word(kOther));  // the bank's only way: kLine is recalled
  EXPECT_EQ(h.l1_state(0, kLine), S::kI);
  EXPECT_EQ(h.home_of(kLine).statistics().recalls, 1u);
  EXPECT_EQ(h.memory.word(kLine), 0x7777u);
}

TEST(CoherenceMsiTest, InvalidationThatOvertakesTheDataWaitsForIt) {
  Harness h;
  h.load64(1, kLine);
  std::uint64_t loaded = 0;
  ASSERT_FALSE(h.l1s[0]->access(L1Controller::Access::kLoad, kLine, &loaded, 8));
  ASSERT_TRUE(h.deliver(kRead, 3));  // RepShd to tile 0 now in flight
  std::uint64_t value = 0x9999;
  ASSERT_FALSE(h.l1s[2]->access(L1Controller::Access::kStore, kLine, &value, 8));
  ASSERT_TRUE(h.deliver(kRdEx, 3));
  ASSERT_TRUE(h.deliver(kInvalidation, 0));  // overtakes RepShd (forward vs response vnet)
  EXPECT_EQ(h.l1_state(0, kLine), S::kIS_D);
  EXPECT_FALSE(h.has_in_flight(kAck, 3));
  EXPECT_EQ(h.l1s[0]->statistics().stalled_messages, 1u);
  ASSERT_TRUE(h.deliver(kRepShd, 0));  // the load performs with the old data, then the Ack goes
  EXPECT_EQ(loaded, h.memory.word(kLine));
  EXPECT_EQ(h.l1_state(0, kLine), S::kI);
  EXPECT_TRUE(h.has_in_flight(kAck, 3));
  h.run();
  EXPECT_EQ(h.l1_state(2, kLine), S::kM);
  EXPECT_EQ(h.load64(0, kLine), 0x9999u);
}

TEST(CoherenceMsiTest, InterventionThatCrossesAReplaceIsAnsweredFromTheEvictingLine) {
  Harness h(1, 2);
  h.store64(0, kLine, 0x4242);
  std::uint64_t value = 0x4343;
  ASSERT_FALSE(h.l1s[1]->access(L1Controller::Access::kStore, kLine + 8, &value, 8));
  ASSERT_TRUE(h.deliver(kRdEx, 3));  // ExcIntervention to tile 0 in flight
  std::uint64_t loaded = 0;
  ASSERT_FALSE(h.l1s[0]->access(L1Controller::Access::kLoad, kOther, &loaded, 8));  // evicts kLine: Replace
  EXPECT_EQ(h.l1_state(0, kLine), S::kMI_A);
  ASSERT_TRUE(h.deliver(kExcIntervention, 0));
  EXPECT_EQ(h.l1_state(0, kLine), S::kII_A);
  h.run();
  EXPECT_EQ(h.l1_state(1, kLine), S::kM);
  EXPECT_EQ(h.l1_state(0, kLine), S::kI);
  EXPECT_EQ(h.completed[0], 2u);  // the store's, then the load's
  EXPECT_EQ(h.load64(1, kLine), 0x4242u);
  EXPECT_EQ(h.load64(1, kLine + 8), 0x4343u);
}

// A store to S gives up the data but not the line: the line-lost observer
// (which ends an LR's reservation) fires only when an Invalidation shows
// that another core may write first.
TEST(CoherenceMsiTest, ReservationSurvivesTheRdExUntilAnInvalidation) {
  Harness h;
  h.load64(0, kLine);
  h.load64(1, kLine);
  std::uint64_t unused = 0, value = 0x6060;
  ASSERT_FALSE(h.l1s[1]->access(L1Controller::Access::kStore, kLine, &value, 8));
  ASSERT_FALSE(h.l1s[0]->access(L1Controller::Access::kMakeWritable, kLine, &unused, 8));
  EXPECT_EQ(h.l1_state(0, kLine), S::kIW_D);
  EXPECT_TRUE(h.lost.empty());
  ASSERT_TRUE(h.deliver(kRdEx, 3) && h.has_in_flight(kRdEx, 3));  // tile 1's RdEx first; tile 0's waits
  ASSERT_TRUE(h.deliver(kInvalidation, 0));
  EXPECT_EQ(h.l1_state(0, kLine), S::kIW_D);
  ASSERT_EQ(h.lost.size(), 1u);
  EXPECT_EQ(h.lost[0].first, 0u);
  h.run();
  EXPECT_EQ(h.l1_state(0, kLine), S::kM_L);  // tile 0 got the line after tile 1's store
  EXPECT_EQ(h.load64(0, kLine), 0x6060u);
}

TEST(CoherenceMsiTest, AtomicLocksTheLineUntilItsStore) {
  Harness h;
  std::uint64_t unused = 0;
  ASSERT_FALSE(h.l1s[0]->access(L1Controller::Access::kMakeWritable, kLine, &unused, 8));
  h.run();
  EXPECT_EQ(h.l1_state(0, kLine), S::kM_L);
  std::uint64_t loaded = 0;
  ASSERT_FALSE(h.l1s[1]->access(L1Controller::Access::kLoad, kLine, &loaded, 8));
  h.run();
  EXPECT_EQ(h.l1_state(0, kLine), S::kM_L);  // the ShdIntervention waits
  EXPECT_EQ(h.completed[1], 0u);
  std::uint64_t old = 0, stored = 0x1234;
  ASSERT_TRUE(h.l1s[0]->access(L1Controller::Access::kLoad, kLine, &old, 8));
  ASSERT_TRUE(h.l1s[0]->access(L1Controller::Access::kStore, kLine, &stored, 8));
  EXPECT_EQ(h.l1_state(0, kLine), S::kS);  // the store unlocked it and the forward was served
  h.run();
  EXPECT_EQ(h.completed[1], 1u);
  EXPECT_EQ(loaded, 0x1234u);
}

TEST(CoherenceMsiTest, UnexpectedEventIsAProtocolErrorWithItsContext) {
  Harness h;
  Message stray;
  stray.type = kAckChange;
  stray.line = kLine;
  stray.source = 3;
  stray.source_port = Port::kHome;
  stray.destination = 0;
  stray.destination_port = Port::kL1;
  try {
    h.l1s[0]->handle(stray);
    FAIL() << "no error";
  } catch (const ProtocolError& error) {
    EXPECT_NE(std::string(error.what()).find("L1 0: no transition for event AckChange in state I, line 0x60"),
              std::string::npos)
        << error.what();
  }
  h.load64(0, kLine);
  Message ack;
  ack.type = kAck;
  ack.line = kLine;
  ack.source = 0;
  ack.destination = 3;
  ack.destination_port = Port::kHome;
  try {
    h.homes[3]->handle(ack);
    FAIL() << "no error";
  } catch (const ProtocolError& error) {
    EXPECT_NE(std::string(error.what()).find("home 3: no transition for event Ack in state SHD, line 0x60"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace npuvp::coherence::msi
