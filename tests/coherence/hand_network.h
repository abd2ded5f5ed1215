// HandNetwork<L1, Home, message_name>: the fake surroundings the protocols'
// unit tests share (coherence_mesi_test, coherence_msi_test,
// coherence_nsi_test): 4 tiles of one protocol, one memory controller, one-set
// caches, FakeMemory (fake_memory.h) below — the controllers are a
// ControllerSet (controller_set.h), as in the random tester and the explorer —
// and a network that holds every message until the test delivers it (by
// index, by type and destination, or all in order), to force each race by
// hand.
#pragma once

#include "coherence/coherence.h"
#include "coherence/controller_set.h"
#include "coherence/fake_memory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace npuvp::coherence {

// The shape of a HandNetwork: one-set L1s and LLC banks of the given ways
// and latencies, and its memory.
struct HandNetworkShape {
  unsigned l1_ways = 2, llc_ways = 2;
  Cycles l1_latency = 3, llc_latency = 10;
  std::size_t memory_bytes = 4096;
  unsigned memory_multiplier = 7, memory_offset = 1;  // byte a starts as a * 7 + 1
  Cycles memory_latency = 5;
};

// `MessageName` is the protocol's message_name().
template <typename L1, typename Home, std::string (*MessageName)(unsigned)>
class HandNetwork : public Environment, public ControllerSet<L1, Home> {
 public:
  using typename ControllerSet<L1, Home>::MakeL1;
  using typename ControllerSet<L1, Home>::MakeHome;

  // `make_l1`, `make_home`: the controllers (empty: L1 and Home with their
  // constructors' defaults).
  explicit HandNetwork(const HandNetworkShape& shape = {}, const MakeL1& make_l1 = nullptr,
                       const MakeHome& make_home = nullptr)
      : memory(shape.memory_bytes, shape.memory_multiplier, shape.memory_offset, shape.memory_latency) {
    geometry.tiles = 4;
    geometry.memory_controllers = 1;
    geometry.line_bytes = 32;
    const CacheShape l1_shape{32u * shape.l1_ways, shape.l1_ways, shape.l1_latency};  // one set
    const CacheShape llc_shape{32u * shape.llc_ways, shape.llc_ways, shape.llc_latency};
    this->build(geometry, l1_shape, llc_shape, memory,
                make_l1 ? make_l1 : MakeL1([](unsigned tile, const Geometry& geometry, const CacheShape& shape,
                                              Environment& environment) {
                  return std::make_unique<L1>(tile, geometry, shape, environment);
                }),
                make_home ? make_home : MakeHome([](unsigned tile, const Geometry& geometry, const CacheShape& shape,
                                                    Environment& environment) {
                  return std::make_unique<Home>(tile, geometry, shape, environment);
                }),
                [this](unsigned, Port) -> Environment& { return *this; });
    for (unsigned tile = 0; tile < geometry.tiles; ++tile) {
      completed.push_back(0);
      l1s[tile]->set_miss_completion([this, tile] { ++completed[tile]; });
      l1s[tile]->set_line_lost_observer([this, tile](std::uint64_t line) { lost.push_back({tile, line}); });
    }
  }

  Cycles now() const override { return cycle; }
  void send(const Message& message, Cycles) override {
    in_flight.push_back(message);
    log.push_back(MessageName(message.type) + " " + std::to_string(message.source) + "->" +
                  std::to_string(message.destination));
  }
  void schedule(Cycles, std::function<void()> action) override { action(); }

  // Delivers the message at `index` of in_flight.
  void deliver(std::size_t index) {
    const Message message = in_flight[index];
    in_flight.erase(in_flight.begin() + static_cast<long>(index));
    ++cycle;
    this->route(message);
  }
  // Delivers the oldest message of `type` to node `destination`; a test
  // failure (and false) when there is none.
  bool deliver(unsigned type, unsigned destination) {
    for (std::size_t i = 0; i < in_flight.size(); ++i)
      if (in_flight[i].type == type && in_flight[i].destination == destination) {
        deliver(i);
        return true;
      }
    ADD_FAILURE() << "no " << MessageName(type) << " to node " << destination << " in flight";
    return false;
  }
  bool has_in_flight(unsigned type, unsigned destination) const {
    for (const Message& message : in_flight)
      if (message.type == type && message.destination == destination) return true;
    return false;
  }
  // Delivers everything, oldest first, except messages `hold` keeps back.
  void run(const std::function<bool(const Message&)>& hold = nullptr) {
    for (bool progress = true; progress;) {
      progress = false;
      for (std::size_t i = 0; i < in_flight.size(); ++i)
        if (!hold || !hold(in_flight[i])) {
          deliver(i);
          progress = true;
          break;
        }
    }
  }
  // Whether a message "<Type> <source>-><destination>" was sent.
  bool sent(const std::string& entry) const {
    for (const std::string& each : log)
      if (each == entry) return true;
    return false;
  }
  // Loads 8 bytes, delivering everything on a miss; `hit` tells whether the access hit.
  std::uint64_t load64(unsigned tile, std::uint64_t address, bool* hit = nullptr) {
    std::uint64_t value = 0;
    const unsigned before = completed[tile];
    const bool was_hit = l1s[tile]->access(L1Controller::Access::kLoad, address, &value, 8);
    if (!was_hit) {
      run();
      EXPECT_EQ(completed[tile], before + 1) << "load miss not completed";
    }
    if (hit) *hit = was_hit;
    return value;
  }
  // Stores 8 bytes, delivering everything on a miss.
  void store64(unsigned tile, std::uint64_t address, std::uint64_t value) {
    stored[tile] = value;
    const unsigned before = completed[tile];
    if (!l1s[tile]->access(L1Controller::Access::kStore, address, &stored[tile], 8)) {
      run();
      EXPECT_EQ(completed[tile], before + 1) << "store miss not completed";
    }
  }
  typename L1::State l1_state(unsigned tile, std::uint64_t line) const { return l1s[tile]->state_of_line(line); }
  Home& home_of(std::uint64_t line) { return *homes[geometry.home_of(line)]; }

  using ControllerSet<L1, Home>::l1s;
  using ControllerSet<L1, Home>::homes;
  Geometry geometry;
  FakeMemory memory;
  std::vector<unsigned> completed;                       // misses completed, per tile
  std::vector<std::pair<unsigned, std::uint64_t>> lost;  // (tile, line) per line-lost call
  std::deque<Message> in_flight;
  std::vector<std::string> log;  // "<Type> <source>-><destination>" per message sent
  std::uint64_t stored[4] = {};  // store64's data, which must stay valid until the miss completes
  Cycles cycle = 0;
};

}  // namespace npuvp::coherence
