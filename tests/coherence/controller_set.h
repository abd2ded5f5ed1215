// ControllerSet: the controllers of a coherence test system — one L1 and one
// home per tile (mesh nodes 0 .. tiles-1), then the memory controllers (nodes
// tiles ..) over one MemoryBackend (FakeMemory, fake_memory.h) — and the
// routing of a message to the controller it is addressed to. It is the one
// piece of fake surroundings every coherence test shares: HandNetwork
// (hand_network.h: the protocols' unit tests deliver messages by hand), the
// random tester (random_tester.cpp: random delays) and the explorer
// (explorer.cpp: every interleaving) differ only in when they deliver.
//
// `L1` and `Home` are the controllers' types (a protocol's own, for tests
// that look at its states; L1Controller and HomeController otherwise).
#pragma once

#include "coherence/coherence.h"
#include "coherence/memory_controller.h"

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace npuvp::coherence {

template <typename L1 = L1Controller, typename Home = HomeController>
class ControllerSet {
 public:
  using MakeL1 = std::function<std::unique_ptr<L1>(unsigned tile, const Geometry& geometry, const CacheShape& shape,
                                                   Environment& environment)>;
  // `shape` is one LLC bank.
  using MakeHome = std::function<std::unique_ptr<Home>(unsigned tile, const Geometry& geometry,
                                                       const CacheShape& shape, Environment& environment)>;
  // Memory controller `index` (node tiles + index); empty: the protocol-independent MemoryController.
  using MakeMemoryController = std::function<std::unique_ptr<Controller>(
      unsigned index, const Geometry& geometry, Environment& environment, MemoryBackend& memory)>;
  // The Environment of the controller at (node, port): one for all, or one each.
  using EnvironmentOf = std::function<Environment&(unsigned node, Port port)>;

  // Builds the controllers: per tile its L1, then its home; then the memory
  // controllers.
  void build(const Geometry& geometry, const CacheShape& l1_shape, const CacheShape& llc_shape, MemoryBackend& memory,
             const MakeL1& make_l1, const MakeHome& make_home, const EnvironmentOf& environment_of,
             const MakeMemoryController& make_memory_controller = nullptr) {
    geometry_ = geometry;
    for (unsigned tile = 0; tile < geometry.tiles; ++tile) {
      l1s.push_back(make_l1(tile, geometry, l1_shape, environment_of(tile, Port::kL1)));
      homes.push_back(make_home(tile, geometry, llc_shape, environment_of(tile, Port::kHome)));
    }
    for (unsigned index = 0; index < geometry.memory_controllers; ++index) {
      Environment& environment = environment_of(geometry.tiles + index, Port::kMemory);
      if (make_memory_controller)
        memory_controllers.push_back(make_memory_controller(index, geometry, environment, memory));
      else
        memory_controllers.push_back(std::make_unique<MemoryController>(index, geometry, environment, memory));
    }
  }

  // The controller at (node, port), or null when there is none.
  Controller* find(unsigned node, Port port) const {
    switch (port) {
      case Port::kL1: return node < l1s.size() ? l1s[node].get() : nullptr;
      case Port::kHome: return node < homes.size() ? homes[node].get() : nullptr;
      case Port::kMemory: {
        const unsigned index = node - geometry_.tiles;
        return node >= geometry_.tiles && index < memory_controllers.size() ? memory_controllers[index].get()
                                                                            : nullptr;
      }
    }
    return nullptr;
  }
  // Hands `message` to the controller it is addressed to; std::out_of_range
  // naming the node and port when there is none.
  void route(const Message& message) const {
    Controller* controller = find(message.destination, message.destination_port);
    if (!controller)
      throw std::out_of_range("message type " + std::to_string(message.type) + " to node " +
                              std::to_string(message.destination) + " port " +
                              std::to_string(static_cast<unsigned>(message.destination_port)) +
                              ": no controller there");
    controller->handle(message);
  }
  // Every controller, L1s first, then homes, then memory controllers.
  template <typename Visit>
  void for_each(Visit&& visit) const {
    for (const auto& l1 : l1s) visit(static_cast<Controller&>(*l1));
    for (const auto& home : homes) visit(static_cast<Controller&>(*home));
    for (const auto& memory_controller : memory_controllers) visit(*memory_controller);
  }

  std::vector<std::unique_ptr<L1>> l1s;
  std::vector<std::unique_ptr<Home>> homes;
  std::vector<std::unique_ptr<Controller>> memory_controllers;

 private:
  Geometry geometry_;
};

}  // namespace npuvp::coherence
