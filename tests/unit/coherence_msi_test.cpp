// MSI transitions, one scenario at a time: the test is the network and
// decides which message is delivered when, to create the races.
#include "coherence/memory_controller.h"
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

// Memory whose byte at address a starts as (a * 3 + 5) mod 256.
class PatternMemory final : public MemoryBackend {
 public:
  PatternMemory() {
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 3 + 5);
  }
  Cycles read_line(std::uint64_t line, std::uint8_t* data, unsigned size, bool& ok) override {
    ok = line + size <= bytes.size();
    if (ok) std::memcpy(data, &bytes[line], size);
    return 4;
  }
  Cycles write_line(std::uint64_t line, const std::uint8_t* data, unsigned size, bool& ok) override {
    ok = line + size <= bytes.size();
    if (ok) std::memcpy(&bytes[line], data, size);
    return 4;
  }
  bool debug_access(bool write, std::uint64_t address, void* data, std::size_t size) override {
    if (address + size > bytes.size()) return false;
    if (write) std::memcpy(&bytes[address], data, size); else std::memcpy(data, &bytes[address], size);
    return true;
  }
  std::uint64_t word(std::uint64_t address) const {
    std::uint64_t value;
    std::memcpy(&value, &bytes[address], 8);
    return value;
  }
  std::array<std::uint8_t, 2048> bytes{};
};

// 4 tiles, one-set L1s and LLC banks of `l1_ways` / `llc_ways` ways; messages
// wait in `network` until the test delivers them.
class Harness final : public Environment {
 public:
  explicit Harness(unsigned l1_ways = 2, unsigned llc_ways = 2) {
    geometry.tiles = 4;
    geometry.line_bytes = 32;
    for (unsigned tile = 0; tile < geometry.tiles; ++tile) {
      l1.push_back(std::make_unique<L1>(tile, geometry, CacheShape{32u * l1_ways, l1_ways, 1}, *this));
      home.push_back(std::make_unique<Home>(tile, geometry, CacheShape{32u * llc_ways, llc_ways, 2}, *this));
      misses_done.push_back(0);
      l1.back()->set_miss_completion([this, tile] { ++misses_done[tile]; });
      l1.back()->set_line_lost_observer([this, tile](std::uint64_t line) { lost.push_back({tile, line}); });
    }
    memory_controller = std::make_unique<MemoryController>(0, geometry, *this, memory);
  }
  Cycles now() const override { return cycle; }
  void send(const Message& message, Cycles) override { network.push_back(message); }
  void schedule(Cycles, std::function<void()> action) override { action(); }

  void deliver_at(std::size_t index) {
    const Message message = network[index];
    network.erase(network.begin() + static_cast<long>(index));
    ++cycle;
    if (message.destination_port == Port::kL1) l1[message.destination]->handle(message);
    else if (message.destination_port == Port::kHome) home[message.destination]->handle(message);
    else memory_controller->handle(message);
  }
  // Delivers the oldest message of `type` to node `node`; false if none.
  bool deliver(unsigned type, unsigned node) {
    for (std::size_t i = 0; i < network.size(); ++i)
      if (network[i].type == type && network[i].destination == node) {
        deliver_at(i);
        return true;
      }
    return false;
  }
  bool in_flight(unsigned type, unsigned node) const {
    for (const Message& message : network)
      if (message.type == type && message.destination == node) return true;
    return false;
  }
  // Delivers everything, oldest first, except messages of type `held`.
  void drain(unsigned held = 0) {
    for (bool progress = true; progress;) {
      progress = false;
      for (std::size_t i = 0; i < network.size() && !progress; ++i)
        if (network[i].type != held || held == 0) {
          deliver_at(i);
          progress = true;
        }
    }
  }
  // A completed access (drains the network on a miss).
  std::uint64_t load(unsigned tile, std::uint64_t address) {
    std::uint64_t value = 0;
    if (!l1[tile]->access(L1Controller::Access::kLoad, address, &value, 8)) {
      const unsigned before = misses_done[tile];
      drain();
      EXPECT_EQ(misses_done[tile], before + 1) << "load miss not completed";
    }
    return value;
  }
  void store(unsigned tile, std::uint64_t address, std::uint64_t value) {
    buffer[tile] = value;
    if (!l1[tile]->access(L1Controller::Access::kStore, address, &buffer[tile], 8)) {
      const unsigned before = misses_done[tile];
      drain();
      EXPECT_EQ(misses_done[tile], before + 1) << "store miss not completed";
    }
  }
  L1::State state(unsigned tile, std::uint64_t line) const { return l1[tile]->state_of_line(line); }
  Home& home_of(std::uint64_t line) { return *home[geometry.home_of(line)]; }

  Geometry geometry;
  PatternMemory memory;
  std::vector<std::unique_ptr<L1>> l1;
  std::vector<std::unique_ptr<Home>> home;
  std::unique_ptr<MemoryController> memory_controller;
  std::vector<unsigned> misses_done;
  std::vector<std::pair<unsigned, std::uint64_t>> lost;
  std::deque<Message> network;
  std::array<std::uint64_t, 4> buffer{};
  Cycles cycle = 0;
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
  EXPECT_EQ(h.load(0, kLine), h.memory.word(kLine));
  // MESI would grant E to the only reader; MSI grants S.
  EXPECT_EQ(h.state(0, kLine), S::kS);
  EXPECT_EQ(h.home_of(kLine).state_of_line(kLine), H::kSHD);
  EXPECT_EQ(h.load(1, kLine + 8), h.memory.word(kLine + 8));
  EXPECT_EQ(h.state(1, kLine), S::kS);
  EXPECT_EQ(h.home_of(kLine).sharers_of(kLine), 0b11u);
  EXPECT_EQ(h.l1[0]->permission(kLine), L1Controller::Permission::kRead);
  EXPECT_EQ(h.l1[0]->statistics().load_misses, 1u);
  EXPECT_EQ(h.load(0, kLine), h.memory.word(kLine));
  EXPECT_EQ(h.l1[0]->statistics().load_hits, 1u);
}

TEST(CoherenceMsiTest, StoreGetsModifiedAfterInvalidatingTheSharers) {
  Harness h;
  h.load(0, kLine);
  h.load(1, kLine);
  h.load(2, kLine);
  std::uint64_t value = 0x1111;
  ASSERT_FALSE(h.l1[0]->access(L1Controller::Access::kStore, kLine, &value, 8));  // S: no write permission
  EXPECT_EQ(h.state(0, kLine), S::kIM_D);  // the read-only copy is dropped, RdEx sent
  EXPECT_EQ(h.l1[0]->statistics().upgrades, 1u);
  ASSERT_TRUE(h.deliver(kRdEx, 3));
  EXPECT_EQ(h.home_of(kLine).state_of_line(kLine), H::kSHD_A);
  EXPECT_TRUE(h.in_flight(kInvalidation, 1));
  EXPECT_TRUE(h.in_flight(kInvalidation, 2));
  EXPECT_FALSE(h.in_flight(kInvalidation, 0));  // the requester's own dropped copy is not invalidated
  h.drain();
  EXPECT_EQ(h.state(0, kLine), S::kM);
  EXPECT_EQ(h.state(1, kLine), S::kI);
  EXPECT_EQ(h.state(2, kLine), S::kI);
  EXPECT_EQ(h.home_of(kLine).state_of_line(kLine), H::kMOD);
  EXPECT_EQ(h.home_of(kLine).owner_of(kLine), 0);
  EXPECT_EQ(h.l1[0]->permission(kLine), L1Controller::Permission::kWrite);
  EXPECT_EQ(h.home_of(kLine).statistics().invalidations_sent, 2u);
  EXPECT_EQ(h.load(0, kLine), 0x1111u);
}

TEST(CoherenceMsiTest, InterventionsMoveTheOwnersData) {
  Harness h;
  h.store(0, kLine, 0xAAAA);
  EXPECT_EQ(h.state(0, kLine), S::kM);
  // A Read: the owner keeps an S copy, the LLC gets the dirty data.
  EXPECT_EQ(h.load(1, kLine), 0xAAAAu);
  EXPECT_EQ(h.state(0, kLine), S::kS);
  EXPECT_EQ(h.state(1, kLine), S::kS);
  EXPECT_EQ(h.home_of(kLine).sharers_of(kLine), 0b11u);
  EXPECT_EQ(h.l1[0]->statistics().interventions_received, 1u);
  // A RdEx while another L1 owns it: the owner gives the line up.
  h.store(2, kLine + 8, 0xBBBB);
  h.store(3, kLine, 0xCCCC);
  EXPECT_EQ(h.state(2, kLine), S::kI);
  EXPECT_EQ(h.state(3, kLine), S::kM);
  EXPECT_EQ(h.l1[2]->statistics().interventions_received, 1u);
  EXPECT_EQ(h.load(0, kLine + 8), 0xBBBBu);
  EXPECT_EQ(h.load(0, kLine), 0xCCCCu);
}

TEST(CoherenceMsiTest, EvictingModifiedWritesBackAndTheLlcWritesMemory) {
  Harness h(1, 1);  // one-way L1s and LLC banks
  h.store(0, kLine, 0x5555);
  std::uint64_t value = 0;
  ASSERT_FALSE(h.l1[0]->access(L1Controller::Access::kLoad, kOther, &value, 8));
  EXPECT_EQ(h.state(0, kLine), S::kMI_A);  // Replace with the data sent; the load waits for the way
  EXPECT_TRUE(h.in_flight(kReplace, 3));
  EXPECT_EQ(h.l1[0]->permission(kLine), L1Controller::Permission::kNone);
  bool owner = false;
  std::uint64_t peeked = 0;
  EXPECT_TRUE(h.l1[0]->peek(kLine, &peeked, 8, owner));  // the only current copy, for debuggers
  EXPECT_TRUE(owner);
  EXPECT_EQ(peeked, 0x5555u);
  h.drain();
  EXPECT_EQ(h.misses_done[0], 2u);  // the store's, then the load's
  EXPECT_EQ(h.state(0, kLine), S::kI);
  EXPECT_EQ(h.state(0, kOther), S::kS);
  EXPECT_EQ(h.l1[0]->statistics().writebacks, 1u);
  EXPECT_EQ(h.l1[0]->statistics().evictions, 1u);
  // kOther took the LLC bank's only way: kLine went to memory.
  EXPECT_EQ(h.home_of(kLine).state_of_line(kLine), H::kNP);
  EXPECT_EQ(h.memory.word(kLine), 0x5555u);
  EXPECT_EQ(h.home_of(kLine).statistics().memory_writes, 1u);
}

TEST(CoherenceMsiTest, LlcEvictionRecallsTheOwner) {
  Harness h(2, 1);
  h.store(0, kLine, 0x7777);
  EXPECT_EQ(h.load(1, kOther), h.memory.word(kOther));  // the bank's only way: kLine is recalled
  EXPECT_EQ(h.state(0, kLine), S::kI);
  EXPECT_EQ(h.home_of(kLine).statistics().recalls, 1u);
  EXPECT_EQ(h.memory.word(kLine), 0x7777u);
}

TEST(CoherenceMsiTest, InvalidationThatOvertakesTheDataWaitsForIt) {
  Harness h;
  h.load(1, kLine);
  std::uint64_t loaded = 0;
  ASSERT_FALSE(h.l1[0]->access(L1Controller::Access::kLoad, kLine, &loaded, 8));
  ASSERT_TRUE(h.deliver(kRead, 3));  // RepShd to tile 0 now in flight
  std::uint64_t value = 0x9999;
  ASSERT_FALSE(h.l1[2]->access(L1Controller::Access::kStore, kLine, &value, 8));
  ASSERT_TRUE(h.deliver(kRdEx, 3));
  ASSERT_TRUE(h.deliver(kInvalidation, 0));  // overtakes RepShd (forward vs response vnet)
  EXPECT_EQ(h.state(0, kLine), S::kIS_D);
  EXPECT_FALSE(h.in_flight(kAck, 3));
  EXPECT_EQ(h.l1[0]->statistics().stalled_messages, 1u);
  ASSERT_TRUE(h.deliver(kRepShd, 0));  // the load performs with the old data, then the Ack goes
  EXPECT_EQ(loaded, h.memory.word(kLine));
  EXPECT_EQ(h.state(0, kLine), S::kI);
  EXPECT_TRUE(h.in_flight(kAck, 3));
  h.drain();
  EXPECT_EQ(h.state(2, kLine), S::kM);
  EXPECT_EQ(h.load(0, kLine), 0x9999u);
}

TEST(CoherenceMsiTest, InterventionThatCrossesAReplaceIsAnsweredFromTheEvictingLine) {
  Harness h(1, 2);
  h.store(0, kLine, 0x4242);
  std::uint64_t value = 0x4343;
  ASSERT_FALSE(h.l1[1]->access(L1Controller::Access::kStore, kLine + 8, &value, 8));
  ASSERT_TRUE(h.deliver(kRdEx, 3));  // ExcIntervention to tile 0 in flight
  std::uint64_t loaded = 0;
  ASSERT_FALSE(h.l1[0]->access(L1Controller::Access::kLoad, kOther, &loaded, 8));  // evicts kLine: Replace
  EXPECT_EQ(h.state(0, kLine), S::kMI_A);
  ASSERT_TRUE(h.deliver(kExcIntervention, 0));
  EXPECT_EQ(h.state(0, kLine), S::kII_A);
  h.drain();
  EXPECT_EQ(h.state(1, kLine), S::kM);
  EXPECT_EQ(h.state(0, kLine), S::kI);
  EXPECT_EQ(h.misses_done[0], 2u);  // the store's, then the load's
  EXPECT_EQ(h.load(1, kLine), 0x4242u);
  EXPECT_EQ(h.load(1, kLine + 8), 0x4343u);
}

// A store to S gives up the data but not the line: the line-lost observer
// (which ends an LR's reservation) fires only when an Invalidation shows
// that another core may write first.
TEST(CoherenceMsiTest, ReservationSurvivesTheRdExUntilAnInvalidation) {
  Harness h;
  h.load(0, kLine);
  h.load(1, kLine);
  std::uint64_t unused = 0, value = 0x6060;
  ASSERT_FALSE(h.l1[1]->access(L1Controller::Access::kStore, kLine, &value, 8));
  ASSERT_FALSE(h.l1[0]->access(L1Controller::Access::kMakeWritable, kLine, &unused, 8));
  EXPECT_EQ(h.state(0, kLine), S::kIW_D);
  EXPECT_TRUE(h.lost.empty());
  ASSERT_TRUE(h.deliver(kRdEx, 3) && h.in_flight(kRdEx, 3));  // tile 1's RdEx first; tile 0's waits
  ASSERT_TRUE(h.deliver(kInvalidation, 0));
  EXPECT_EQ(h.state(0, kLine), S::kIW_D);
  ASSERT_EQ(h.lost.size(), 1u);
  EXPECT_EQ(h.lost[0].first, 0u);
  h.drain();
  EXPECT_EQ(h.state(0, kLine), S::kM_L);  // tile 0 got the line after tile 1's store
  EXPECT_EQ(h.load(0, kLine), 0x6060u);
}

TEST(CoherenceMsiTest, AtomicLocksTheLineUntilItsStore) {
  Harness h;
  std::uint64_t unused = 0;
  ASSERT_FALSE(h.l1[0]->access(L1Controller::Access::kMakeWritable, kLine, &unused, 8));
  h.drain();
  EXPECT_EQ(h.state(0, kLine), S::kM_L);
  std::uint64_t loaded = 0;
  ASSERT_FALSE(h.l1[1]->access(L1Controller::Access::kLoad, kLine, &loaded, 8));
  h.drain();
  EXPECT_EQ(h.state(0, kLine), S::kM_L);  // the ShdIntervention waits
  EXPECT_EQ(h.misses_done[1], 0u);
  std::uint64_t old = 0, stored = 0x1234;
  ASSERT_TRUE(h.l1[0]->access(L1Controller::Access::kLoad, kLine, &old, 8));
  ASSERT_TRUE(h.l1[0]->access(L1Controller::Access::kStore, kLine, &stored, 8));
  EXPECT_EQ(h.state(0, kLine), S::kS);  // the store unlocked it and the forward was served
  h.drain();
  EXPECT_EQ(h.misses_done[1], 1u);
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
    h.l1[0]->handle(stray);
    FAIL() << "no error";
  } catch (const ProtocolError& error) {
    EXPECT_NE(std::string(error.what()).find("L1 0: no transition for event AckChange in state I, line 0x60"),
              std::string::npos)
        << error.what();
  }
  h.load(0, kLine);
  Message ack;
  ack.type = kAck;
  ack.line = kLine;
  ack.source = 0;
  ack.destination = 3;
  ack.destination_port = Port::kHome;
  try {
    h.home[3]->handle(ack);
    FAIL() << "no error";
  } catch (const ProtocolError& error) {
    EXPECT_NE(std::string(error.what()).find("home 3: no transition for event Ack in state SHD, line 0x60"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace npuvp::coherence::msi
