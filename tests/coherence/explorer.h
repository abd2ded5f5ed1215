// Exhaustive explorer of a coherence protocol's real controllers (issue 6,
// second verification method): an explicit-state model checker over small
// systems (2-3 L1s, 1-2 lines, tiny caches) that tries every interleaving of
// message deliveries, scheduled actions and core operations, and checks at
// every reached state
//   - single writer / multiple readers (SWMR) per line,
//   - the data-value invariant (a load returns the last performed store; a
//     valid L1 copy holds the last performed store's value),
//   - deadlock freedom (a state with nothing enabled has every script
//     finished, every controller quiescent, the network empty),
//   - no ProtocolError (unexpected state x event) and no other exception.
// On a failure it reports the shortest path found (breadth-first search) as
// a readable trace. docs/coherence.md, "Exhaustive exploration", is the user
// documentation.
//
// The controllers are those the cluster runs (built by the protocol
// registry's factories); the explorer is their Environment. They are not
// copyable, so the search is stateless with a visited set: to expand a state
// the explorer rebuilds the system and replays the choices that led to it.
#pragma once

#include "coherence/coherence.h"
#include "coherence/protocol_registry.h"
#include "coherence/protocol_setup.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace npuvp::coherence::exploration {

// One operation of a core's script, on an 8-byte word of one of the
// configuration's lines. Every store writes a value no other store writes.
struct ScriptOperation {
  enum class Kind : std::uint8_t {
    kLoad,
    kStore,
    kMakeWritableStore,  // kMakeWritable then a store (what an AMO or SC does)
    kMakeWritable,       // kMakeWritable alone (an LR, or an AMO whose store is elided)
    kSynchronise,        // L1Controller::synchronise() (a fence); no line
  };
  Kind kind = Kind::kLoad;
  unsigned line = 0;  // index into the configuration's lines
  unsigned word = 0;  // 8-byte word within the line
};

ScriptOperation load(unsigned line, unsigned word = 0);
ScriptOperation store(unsigned line, unsigned word = 0);
ScriptOperation make_writable_store(unsigned line, unsigned word = 0);
ScriptOperation make_writable(unsigned line, unsigned word = 0);
ScriptOperation synchronise();

// A fault the explorer may inject once on any path, to show that it catches
// a broken network: drop a message, deliver it twice, or deliver the second
// message of a (source, destination, vnet) channel before the first.
enum class Fault : std::uint8_t { kNone, kDropMessage, kDuplicateMessage, kReorderMessages };

// What an L1 may do with its copy of a line, for the SWMR check.
enum class Permission : std::uint8_t { kNone, kRead, kWrite };
const char* to_string(Permission permission);
// Default: the L1's own L1Controller::permission() unless it is kUnknown;
// otherwise no copy (peek false) -> none; a dirty owner (peek's owner flag) or
// a stable state whose describe() names an exclusive or modified copy
// (MOD/EXC/M/E, upper case, first word) -> write; otherwise read.
Permission default_permission(const L1Controller& l1, std::uint64_t line);

// The protocol-specific pieces, from the protocol registry by default.
struct ProtocolBinding {
  std::function<std::unique_ptr<L1Controller>(unsigned tile, const Geometry& geometry, const CacheShape& shape,
                                              Environment& environment)>
      make_l1;
  // `shape` is one LLC bank.
  std::function<std::unique_ptr<HomeController>(unsigned tile, const Geometry& geometry, const CacheShape& shape,
                                                Environment& environment)>
      make_home;
  // The protocol-independent memory controller `index` (node tiles + index).
  std::function<std::unique_ptr<Controller>(unsigned index, const Geometry& geometry, Environment& environment,
                                            MemoryBackend& memory)>
      make_memory_controller;
  std::function<std::string(unsigned type)> message_name;
  // What an L1 may do with its copy of a line (default_permission if empty).
  std::function<Permission(const L1Controller& l1, std::uint64_t line)> permission;
};

// The binding of a registered protocol ("mesi"); throws std::invalid_argument
// for an unknown name (listing the known ones). `options` are the protocol's
// parameters by name (configured_instance, protocol_setup.h).
ProtocolBinding protocol_binding(const std::string& protocol, const ProtocolOptions& options = {});

struct Configuration {
  std::string protocol = "mesi";
  unsigned caches = 2;      // L1s, one per tile; also the number of LLC banks (homes)
  unsigned lines = 1;       // distinct lines the scripts use
  unsigned line_bytes = 32;
  // L1: sets x ways (1 x 1: every line conflicts with every other).
  unsigned l1_sets = 1;
  unsigned l1_ways = 1;
  // LLC bank (per home): large enough by default that only L1s evict.
  unsigned llc_sets = 4;
  unsigned llc_ways = 4;
  // true: all lines interleave onto one home (the same bank, the same sets);
  // false: consecutive lines, so on consecutive homes.
  bool lines_share_home = true;
  std::uint64_t base_address = 0x80000000;
  std::vector<std::vector<ScriptOperation>> scripts;  // one per L1 (fewer: idle L1s)
  Fault fault = Fault::kNone;
  // false: any message in flight may be delivered next, not only the oldest
  // of its (source, destination, vnet) channel (does the protocol need the
  // mesh's point-to-point order?).
  bool ordered_channels = true;
  bool check_single_writer = true;
  bool check_data_value = true;
  // NSI-style invariants (weak consistency). allow_readers_with_writer: the
  // single-writer check only requires at most one writer (an EXC/MOD copy);
  // read-only copies may coexist with it. happens_before_data_value: instead
  // of "a load returns the last performed store", a load must return a
  // store no older (in the word's store order) than the newest store that
  // happens-before it (program order, and synchronise() calls, which are
  // totally ordered: each sync acquires what every earlier sync released),
  // and no older than what the core read before (no going back); only
  // copies with write permission must hold the last store.
  bool allow_readers_with_writer = false;
  bool happens_before_data_value = false;
  // The protocol's parameters. For "nsi", periodic_synchronisation_cycles
  // defaults to 0 here (the explorer's clock counts steps, and a periodic
  // synchronisation would make the state depend on time); give it a small
  // value to explore it bounded.
  ProtocolOptions options;
  // 0: explore to completion; otherwise stop (incomplete) after this many states.
  std::uint64_t max_states = 0;
  // Replaces protocol_binding(protocol) (e.g. to wrap a controller).
  std::shared_ptr<ProtocolBinding> binding;
  // Replaces the binding's permission probe (e.g. to test the SWMR check).
  std::function<Permission(const L1Controller&, std::uint64_t line)> permission;
};

struct Result {
  enum class Outcome : std::uint8_t {
    kPassed,             // explored to completion, nothing wrong
    kStateLimit,         // stopped at max_states, nothing wrong so far
    kSingleWriterViolation,
    kDataValueViolation,
    kDeadlock,
    kProtocolError,      // a controller threw ProtocolError
    kOtherError,         // any other exception, or a misuse of the environment
  };
  Outcome outcome = Outcome::kPassed;
  std::uint64_t states = 0;       // distinct states reached
  std::uint64_t transitions = 0;  // choices applied (edges, including those to known states)
  std::uint64_t terminal_states = 0;
  unsigned max_depth = 0;         // longest shortest path from the initial state
  std::uint64_t replayed_steps = 0;
  double seconds = 0;      // wall clock
  double cpu_seconds = 0;  // this process's CPU time (the machine may be shared)
  std::string message;  // what failed
  std::string trace;    // the path to the failure, step by step, with line states
  bool passed() const { return outcome == Outcome::kPassed; }
  bool failed() const { return outcome != Outcome::kPassed && outcome != Outcome::kStateLimit; }
};
const char* to_string(Result::Outcome outcome);

// Throws std::invalid_argument for a malformed configuration.
Result explore(const Configuration& configuration);

// One line summary: "passed: 12345 states, 45678 transitions, 12 terminal,
// depth 40, 1.23 s (10037 states/s)", the rate per CPU second.
std::string summary(const Result& result);

}  // namespace npuvp::coherence::exploration
