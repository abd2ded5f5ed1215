// The random coherence tester (after gem5's RubyTester): a protocol's real
// controllers (N L1s, N homes, memory controllers, a plain memory) in a
// discrete-event Environment with randomized network delays that keep the
// per (source, destination, vnet) FIFO order; tiny caches force evictions
// and LLC recalls. Each core issues random loads, stores and atomics
// (kMakeWritable, then a read and a write that must hit; one in four
// writes nothing, like a failed SC) to a few lines,
// one at a time. Every load is checked against a reference memory updated
// at the moment each store performs (MESI is sequentially consistent, so a
// load must return the reference value at the moment it performs).
//
// Failures (the first one ends the run; the text names the seed, the cycle,
// the core, the access and every controller's view of the line):
//   - a load (or an atomic's read) returned a value other than the reference;
//   - an atomic's read or write did not hit after kMakeWritable;
//   - ProtocolError from a controller (unexpected state/event pair);
//   - deadlock: the event queue ran empty with accesses outstanding, or no
//     access completed for `deadlock_cycles`;
//   - final check, once every access is done and the queue drained: every
//     controller quiescent, every valid L1 copy equal to the reference, at
//     most one owner and then no other copy, the LLC copy (when no L1 owns
//     the line dirty) or else memory equal to the reference, and (when
//     check_inclusion) every line held by an L1 present in the LLC.
// docs/coherence.md describes how to run it.
#pragma once

#include "coherence/coherence.h"
#include "coherence/protocol_registry.h"
#include "coherence/protocol_setup.h"

#include <cstdint>
#include <string>
#include <vector>

namespace npuvp::coherence::testing {

struct TesterConfig {
  std::string protocol = "mesi";
  std::uint64_t seed = 1;
  unsigned cores = 4;               // 2..16; one L1 and one home per core
  unsigned memory_controllers = 1;
  unsigned line_bytes = 32;
  unsigned lines = 6;               // distinct lines accessed: line k at k * line_stride * line_bytes
  unsigned line_stride = 1;         // in lines; `cores` puts every line on home 0 (recalls galore)
  unsigned l1_sets = 1, l1_ways = 2;
  unsigned llc_sets = 1, llc_ways = 2;  // per home (bank)
  Cycles l1_latency = 1, llc_latency = 2, memory_latency = 4;
  Cycles max_network_delay = 16;    // each message: 1 .. this many cycles (FIFO kept)
  Cycles max_think_cycles = 4;      // a core waits 0 .. this many cycles between accesses
  std::uint64_t operations = 10000; // accesses in total (over all cores)
  unsigned load_percent = 50, store_percent = 35;  // the rest are atomics
  Cycles deadlock_cycles = 200000;  // no access completed for this long: deadlock
  bool check_inclusion = true;
  // Prints every message of this line to stderr as it is delivered (-1: none).
  std::int64_t trace_line = -1;
  // Fault injection, to show that the tester catches errors:
  std::uint64_t corrupt_after = 0;  // after this many accesses, flip the bytes of an owner's copy (0: never)
  unsigned drop_message_type = 0;   // drop the drop_message_index-th message of this type...
  std::uint64_t drop_message_index = 0;  // ... (1-based; 0: never)
  // The protocol's parameters (e.g. NSI's periodic_synchronisation_cycles,
  // validation = "data", MESI's thesis_baseline = "true").
  ProtocolOptions options;
  // Data-race-free mode (for protocols weaker than SC, like NSI; MESI passes
  // it too): instead of random accesses, each core runs episodes
  //   acquire lock k (kMakeWritable + read + write of the lock word, then
  //   synchronise(); retried while another core holds it)
  //   -> 1..episode_operations loads/stores of 8-byte words guarded by k
  //      (word w is guarded by lock w mod locks; occasionally a fence)
  //   -> release (kMakeWritable + read + write 0, then synchronise()).
  // Every load must return the last write that happens-before it, which in
  // a data-race-free program is the last write performed to that word (the
  // reference acts as the last-writer table). The final check accepts
  // stale read-only copies (only the dirty owner, else the LLC or memory,
  // must hold the last write). Lock lines follow the data lines.
  bool data_race_free = false;
  unsigned locks = 2;
  unsigned episode_operations = 6;
  // Fault injection for NSI: synchronise() no longer self-invalidates.
  bool skip_self_invalidation = false;
};

struct TesterResult {
  bool passed = false;
  std::string failure;  // empty when passed
  std::uint64_t operations = 0, loads = 0, stores = 0, atomics = 0;
  std::uint64_t messages = 0;
  std::vector<std::uint64_t> messages_by_type;  // sent, indexed by message type (the protocol's message_name)
  // Summed controller statistics, to show what a run exercised.
  std::uint64_t l1_evictions = 0, upgrades = 0, llc_recalls = 0, l1_stalled = 0, home_stalled = 0;
  // Data-race-free mode: critical sections run, lock attempts that found the
  // lock taken; self-invalidating protocols: synchronisations (periodic
  // ones included) and suspect lines validated current / stale.
  std::uint64_t episodes = 0, lock_retries = 0;
  std::uint64_t synchronisations = 0, periodic_synchronisations = 0;
  std::uint64_t suspect_validated_current = 0, suspect_validated_stale = 0;
  Cycles cycles = 0;
  double host_seconds = 0;      // wall-clock time of the run
  double host_cpu_seconds = 0;  // processor time of the run (unaffected by other load)
  std::string summary() const;  // one line: counts, cycles, accesses per second
};

TesterResult run_random_test(const TesterConfig& config);

}  // namespace npuvp::coherence::testing
