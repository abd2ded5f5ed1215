// ReservationCalendar: when one shared resource (a ring link, a data bus) is
// busy, as a short list of busy intervals in absolute simulated time.
//
// Why not a single busy-until time: under temporal decoupling initiators call
// b_transport out of time order. An initiator running ahead by up to a quantum
// reserves the resource far in the future; with busy-until, an access from an
// initiator that is behind (earlier in simulated time) would queue after that
// reservation, a delay of up to a quantum that real hardware never shows. The
// calendar lets such an access use the free gap before the later reservation.
// In time order it behaves exactly like busy-until: each access starts at
// max(earliest, end of the last interval).
//
// Cost: intervals that touch merge, so a stream of back-to-back transfers is
// one interval; intervals that ended before the current simulated time are
// dropped (no access can start before it). The list is bounded by
// kMaxIntervals: when it overflows, the two oldest intervals merge, filling the
// gap between them as busy (conservative: an access may then wait where the
// resource was free, never the reverse). No allocation after construction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace npuvp {

class ReservationCalendar {
 public:
  using Ticks = std::uint64_t;  // any time unit; callers use SystemC resolution units
  static constexpr std::size_t kMaxIntervals = 32;

  ReservationCalendar() { intervals_.reserve(kMaxIntervals + 1); }

  // Reserves `duration` ticks at the first time >= `earliest` at which the
  // resource is free for that long; returns that start time. `now` is the
  // current simulated time: intervals that ended by then are forgotten.
  Ticks reserve(Ticks earliest, Ticks duration, Ticks now);

  // The end of the latest reservation (0 if none is remembered).
  Ticks busy_until() const { return intervals_.empty() ? 0 : intervals_.back().end; }
  std::size_t interval_count() const { return intervals_.size(); }

 private:
  struct Interval {
    Ticks begin, end;  // busy in [begin, end)
  };
  // Inserts [begin, end) at position `at` (it fits between its neighbours)
  // and merges it with neighbours it touches.
  void insert(std::size_t at, Ticks begin, Ticks end);

  std::vector<Interval> intervals_;  // sorted, disjoint, not touching
};

}  // namespace npuvp
