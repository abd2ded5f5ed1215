// MemoryController: the controller of a memory-controller node at the mesh
// edge, the same for every protocol. Homes send it kMemoryRead (a line
// address) and kMemoryWrite (a line with its data) on the request vnet; it
// answers a read with kMemoryData on the response vnet to the sender's home
// port. Writes are not acknowledged: a home's write and a later read of the
// same line travel the same (source, destination, vnet) and so arrive, and
// are performed, in order.
//
// Timing: the backend's cycles per access, serialised (one access at a
// time): an access starts when the previous one has finished.
#pragma once

#include "coherence/coherence.h"

#include <cstdint>
#include <string>

namespace npuvp::coherence {

struct MemoryControllerStatistics {
  std::uint64_t reads = 0, writes = 0;
  Cycles busy_cycles = 0;
};

class MemoryController : public Controller {
 public:
  // The index-th memory controller: mesh node geometry.tiles + index.
  MemoryController(unsigned index, const Geometry& geometry, Environment& environment, MemoryBackend& backend);

  void handle(const Message& message) override;
  std::string name() const override;
  std::string describe(std::uint64_t line) const override;
  bool quiescent() const override { return true; }
  void serialize(std::string& out) const override;
  unsigned node() const { return node_; }
  const MemoryControllerStatistics& statistics() const { return statistics_; }

 private:
  unsigned index_, node_;
  Geometry geometry_;
  Environment& environment_;
  MemoryBackend& backend_;
  Cycles busy_until_ = 0;
  MemoryControllerStatistics statistics_;
};

// Names of the memory messages (types below kFirstProtocolMessage), or null.
const char* memory_message_name(unsigned type);

}  // namespace npuvp::coherence
