// Extension points of an L1 controller: what only some protocols need from
// (or offer to) their environment, kept out of the generic contract of
// coherence.h. A protocol's L1 derives from the ones it uses; an
// environment looks for them once, with dynamic_cast, when it attaches the
// L1 (never per access), and does without them when they are absent.
//
//  - ExpressRequests: requests the L1 wants carried at once when the
//    receiver answers them alone (NSI: the validation of a suspect copy).
//  - TimedAccesses: the L1 wants the core's own time of each access, to
//    check a deadline on the hit path (NSI: the periodic synchronisation).
//  - SpeculatedLoads: a completed miss a speculating core would have
//    charged as a hit (NSI: a suspect copy the home confirmed current).
//  - ProtocolCounters: event counts of the protocol's own, exported by name
//    (NSI: the fates of suspect lines); the names are declared in the
//    protocol's registry entry (Protocol::l1_counters).
//
// A message's protocol-defined header word is Message::extension (NSI: the
// line's data version).
#pragma once

#include "coherence/coherence.h"

#include <cstdint>
#include <string>

namespace npuvp::coherence {

class ExpressRequests {
 public:
  virtual ~ExpressRequests() = default;
  // Whether `request`, sent by this L1 during its core's access, waits for
  // nothing but its receiver's answer: an environment may then carry it,
  // and the replies to its sender, at once (Environment::send).
  virtual bool express(const Message& request) const = 0;
};

class TimedAccesses {
 public:
  virtual ~TimedAccesses() = default;
  // The time of the access about to be made, in the environment's fine
  // units (Environment::fine_per_cycle), 0 when not given. A plain member
  // the core's environment writes before each access(): reading it costs
  // the hit path no chain of loads through the environment.
  void set_access_time(std::uint64_t fine_time) { access_time_ = fine_time; }

 protected:
  std::uint64_t access_time_ = 0;
};

class SpeculatedLoads {
 public:
  virtual ~SpeculatedLoads() = default;
  // True when the last completed miss was a load that a speculating core
  // would have executed with its own copy, which the home then confirmed
  // current: a timing model may charge it as a hit rather than the round
  // trip it waited for. Reset by access().
  bool last_miss_speculated_correctly() const { return last_miss_speculated_correctly_; }

 protected:
  bool last_miss_speculated_correctly_ = false;
};

class ProtocolCounters {
 public:
  virtual ~ProtocolCounters() = default;
  // The counter called `name` (one of Protocol::l1_counters), or null.
  virtual const std::uint64_t* counter(const std::string& name) const = 0;
};

}  // namespace npuvp::coherence
