// The coherence protocol framework: what every protocol's controllers are
// and what they need from their surroundings. Plain C++ without SystemC, so
// that the same controller code runs in the cluster (over the MeshNetwork,
// coherent_memory_system.h), in the random tester (random network delays) and
// in the exhaustive explorer (every message interleaving).
//
// A protocol is a pair of controllers written as explicit tables of
// state x event -> actions + next state (protocol_table.h): an L1Controller
// per private L1 and a HomeController per LLC bank (the S-NUCA home of the
// lines interleaved onto it, holding the directory in its tags). Memory
// controllers (memory_controller.h) are the same for every protocol.
// Protocols are registered by name (protocol_registry.h) and chosen at run
// time with `mesh.coherence`. docs/coherence.md is the user documentation.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

namespace npuvp::coherence {

using Cycles = std::uint64_t;  // cluster clock cycles
constexpr unsigned kMaxLineBytes = 128;

// Which controller of a mesh node a message goes to (the MeshMessage port).
enum class Port : std::uint8_t { kL1 = 0, kHome = 1, kMemory = 2 };
// Virtual networks (mesh.virtual_networks >= 3): a protocol puts each message
// on one, so that requests, forwards and responses never block each other.
enum class VirtualNetwork : std::uint8_t { kRequest = 0, kForward = 1, kResponse = 2 };

// One message of any protocol. `type` is the protocol's own message
// enumeration (named by Protocol::message_name); the other fields are the
// union of what MESI, NSI and memory traffic carry.
struct Message {
  unsigned type = 0;
  std::uint64_t line = 0;         // line address (aligned to the line size)
  unsigned source = 0;            // mesh node of the sender
  Port source_port = Port::kL1;
  unsigned destination = 0;       // mesh node of the receiver
  Port destination_port = Port::kHome;
  unsigned requester = 0;         // node of the L1 on whose behalf (forwards, data to a third party)
  VirtualNetwork vnet = VirtualNetwork::kRequest;
  int acks = 0;                   // acknowledgements the receiver must collect (or carries)
  bool has_data = false;          // data[0 .. line_bytes) is valid; sized into flits by the network
  bool dirty = false;             // the data differs from memory's
  // A header word whose meaning the protocol defines (NSI: the line's data
  // version; 0 = none); generic code only copies it (extensions.h).
  std::uint64_t extension = 0;
  // Valid only when has_data. Not zeroed: every message is built and copied
  // on the simulation's fast path, and no reader looks at it without data.
  std::array<std::uint8_t, kMaxLineBytes> data;
};

// The surroundings of a controller.
class Environment {
 public:
  virtual ~Environment() = default;
  virtual Cycles now() const = 0;
  // The unit of the access times the environment gives its L1s
  // (TimedAccesses, extensions.h): 1/fine_per_cycle() cycles.
  std::uint64_t fine_per_cycle() const { return fine_per_cycle_; }
  // Sends `message` after `delay` cycles of the sender's own processing; the
  // network adds its latency and hands it to the destination's handle().
  // Messages of one (source, destination, vnet) arrive in send order.
  // An express request (ExpressRequests, extensions.h) that an L1 sends
  // during a core's access, to a receiver that answers it alone, may be
  // carried at once: after the
  // access() call returns, the environment hands it, and then the replies to
  // its sender, to their receivers without waiting for simulated time, each
  // with now() at its arrival time, as long as nothing sent earlier is still
  // in flight on the same (source, destination, vnet). Controllers cannot
  // tell this from a network that happened to deliver these messages first.
  virtual void send(const Message& message, Cycles delay) = 0;
  // Calls `action` after `delay` cycles (e.g. a cache's access latency
  // before it performs), in the controller's own context.
  virtual void schedule(Cycles delay, std::function<void()> action) = 0;

 protected:
  // The cluster's: SystemC ticks. Before the controllers are built (they
  // may convert their deadlines once).
  void set_fine_per_cycle(std::uint64_t per_cycle) { fine_per_cycle_ = per_cycle; }

 private:
  std::uint64_t fine_per_cycle_ = 1;
};

// Geometry shared by all controllers of one cluster.
struct Geometry {
  unsigned tiles = 16;             // L1s and LLC banks, one per tile; node = tile
  unsigned memory_controllers = 1; // nodes tiles .. tiles + memory_controllers - 1
  unsigned line_bytes = 32;
  // S-NUCA: the home bank of a line is interleaved by line address.
  // Every message to a home asks this: a shift and a mask (no division)
  // when line_bytes and tiles are powers of two, as they usually are.
  unsigned home_of(std::uint64_t line) const {
    const std::uint64_t index =
        (line_bytes & (line_bytes - 1)) == 0 ? line >> __builtin_ctz(line_bytes) : line / line_bytes;
    return static_cast<unsigned>((tiles & (tiles - 1)) == 0 ? index & (tiles - 1) : index % tiles);
  }
  unsigned memory_controller_of(std::uint64_t line) const {
    return tiles + static_cast<unsigned>((line / line_bytes / tiles) % memory_controllers);
  }
  std::uint64_t line_of(std::uint64_t address) const { return address & ~static_cast<std::uint64_t>(line_bytes - 1); }
};

// A cache's shape and timing.
struct CacheShape {
  std::uint64_t size_bytes = 64 * 1024;
  unsigned ways = 4;
  Cycles latency = 3;  // a hit, and the time before a miss leaves the cache
};

// An unexpected (state, event) pair or a broken invariant: the run stops with
// the full context (controller, address, states, message, cycle).
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Base of every controller: receives messages from the network.
class Controller {
 public:
  virtual ~Controller() = default;
  virtual void handle(const Message& message) = 0;
  // "L1 3", "home 5": for messages and statistics.
  virtual std::string name() const = 0;
  // The state of `line` here, e.g. "MOD", "IS_D (waiting for 2 acks)".
  virtual std::string describe(std::uint64_t line) const = 0;
  // Nothing in flight: no transient state, no queued request.
  virtual bool quiescent() const = 0;
  // Whether handling `request` now would send nothing but replies to its
  // sender: no message to a third party (an owner, memory), no waiting. An
  // environment carries an express request at once only then
  // (Environment::send), so that no other controller sees it early.
  virtual bool answers_alone(const Message& /*request*/) const { return false; }
  // Appends this controller's whole state (stable and transient states,
  // data, queues) to `out`, for the explorer's visited-state set.
  virtual void serialize(std::string& out) const = 0;
};

// Message types 0 .. kFirstProtocolMessage - 1 are the memory traffic of
// every protocol (memory_controller.h); a protocol numbers its own messages
// from kFirstProtocolMessage, so that one dense range names them all.
enum MemoryMessage : unsigned { kMemoryRead = 0, kMemoryWrite = 1, kMemoryData = 2 };
constexpr unsigned kFirstProtocolMessage = 3;

// Event counts of one L1 controller (exported as statistics by the cluster).
struct L1Statistics {
  std::uint64_t load_hits = 0, load_misses = 0;
  std::uint64_t store_hits = 0, store_misses = 0;
  std::uint64_t atomic_hits = 0, atomic_misses = 0;  // kMakeWritable
  std::uint64_t upgrades = 0;        // write permission asked for a line held readable
  std::uint64_t evictions = 0;       // lines replaced to make room
  std::uint64_t writebacks = 0;      // replacements carrying dirty data
  std::uint64_t invalidations_received = 0;
  std::uint64_t interventions_received = 0;
  std::uint64_t stalled_messages = 0;  // forwards that waited for a transaction to finish
  // Synchronisations the L1 acted on (synchronise() calls, plus periodic
  // ones counted separately; zero for a protocol whose fences do nothing,
  // as MESI's). A protocol counts events of its own through
  // ProtocolCounters (extensions.h).
  std::uint64_t synchronisations = 0, periodic_synchronisations = 0;
};

// Event counts of one home (LLC bank) controller.
struct HomeStatistics {
  std::uint64_t hits = 0, misses = 0;  // requests served from the LLC / needing memory
  std::uint64_t recalls = 0;           // LLC evictions of lines cached in L1s (inclusion)
  std::uint64_t evictions = 0;         // all LLC evictions
  std::uint64_t memory_reads = 0, memory_writes = 0;
  std::uint64_t invalidations_sent = 0, interventions_sent = 0;
  std::uint64_t stalled_messages = 0;  // requests that waited for a busy line or a free way
};

// A private L1 data cache's controller, driven by its core.
class L1Controller : public Controller {
 public:
  enum class Access : std::uint8_t { kLoad, kStore, kMakeWritable };

  // Tries `access` to [address, address + size) (size 1/2/4/8, aligned,
  // within one line). A hit performs now (a load copies into `data`, a store
  // copies from it; kMakeWritable only gets write permission) and returns
  // true; the caller charges the L1 latency. Otherwise a transaction starts,
  // false is returned, and the miss-completion handler is called once the
  // access has performed, with the same `data` pointer, which must stay valid
  // until then. One outstanding miss per L1 (an in-order core); no
  // allocation on the hit path.
  virtual bool access(Access access, std::uint64_t address, void* data, unsigned size) = 0;
  // Set once, before the first access.
  void set_miss_completion(std::function<void()> handler) { miss_completion_ = std::move(handler); }
  // A synchronisation instruction retired (fence, AMO, LR, SC); returns the
  // cycles it costs. MESI: nothing; NSI: self-invalidation.
  virtual Cycles synchronise() = 0;
  // Called with the line address whenever a line leaves this cache
  // (invalidated or evicted), e.g. to drop the core's LR reservation.
  void set_line_lost_observer(std::function<void(std::uint64_t line)> observer) {
    line_lost_ = std::move(observer);
  }
  // Debug access to the copy held here, if any: returns false when this
  // cache holds no valid copy of the line. `owner` tells whether that copy
  // is the only up-to-date one (dirty owner).
  virtual bool peek(std::uint64_t address, void* data, unsigned size, bool& owner) const = 0;
  virtual void poke(std::uint64_t address, const void* data, unsigned size) = 0;
  // What the core may do with its copy of `line` now, from this cache's
  // state, for checkers (the explorer's single-writer check). kUnknown, the
  // default, lets a checker infer it from peek() and describe().
  enum class Permission : std::uint8_t { kUnknown, kNone, kRead, kWrite };
  virtual Permission permission(std::uint64_t /*line*/) const { return Permission::kUnknown; }
  const L1Statistics& statistics() const { return statistics_; }

 protected:
  L1Statistics statistics_;
  void line_lost(std::uint64_t line) {
    if (line_lost_) line_lost_(line);
  }
  void miss_completed() { miss_completion_(); }

 private:
  std::function<void(std::uint64_t)> line_lost_;
  std::function<void()> miss_completion_;
};

// Memory below the cluster (DDR through the memory controllers).
class MemoryBackend {
 public:
  virtual ~MemoryBackend() = default;
  // Reads/writes a whole line; returns the cycles the access takes, or false
  // in `ok` when the address is not backed by memory.
  virtual Cycles read_line(std::uint64_t line, std::uint8_t* data, unsigned bytes, bool& ok) = 0;
  virtual Cycles write_line(std::uint64_t line, const std::uint8_t* data, unsigned bytes, bool& ok) = 0;
  // Without timing (debuggers, loaders, the tester's reference).
  virtual bool debug_access(bool write, std::uint64_t address, void* data, std::size_t size) = 0;
};

// An LLC bank's controller: the home of its lines, with the directory.
class HomeController : public Controller {
 public:
  // Debug access to the LLC's copy, if it holds the line.
  virtual bool peek(std::uint64_t address, void* data, unsigned size) const = 0;
  virtual void poke(std::uint64_t address, const void* data, unsigned size) = 0;
  const HomeStatistics& statistics() const { return statistics_; }

 protected:
  HomeStatistics statistics_;
};

}  // namespace npuvp::coherence
