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
// kMaxIntervals: when it overflows, the two neighbours with the shortest gap
// merge, filling the gap as busy (conservative: an access may then wait where
// the resource was free, never the reverse; the shortest gap errs least,
// where the oldest one would hold up every initiator that is behind). The
// intervals live in a fixed ring buffer: in time order a reservation is O(1)
// with no allocation and no copying; only an out-of-order one scans and
// shifts (at most kMaxIntervals), from the latest interval back, because it
// usually lands among the last few: one pass both finds its gap and shifts
// the later intervals up.
// Most calls find the calendar empty or with one interval once the ended ones
// are dropped, so an emptied ring restarts at its first entry, and the count
// comes first: the common case reads one cache line, not two.
#pragma once

#include <systemc>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

namespace npuvp {

class ReservationCalendar {
 public:
  using Ticks = sc_core::sc_time::value_type;  // SystemC time-resolution units
  // 256: an AI Core's MTE instruction books its transactions at once, paced by its ring link
  // (mte.max_outstanding) to one every other slot of the L2's port; the gaps between them are
  // the other cores' share, and with 32 intervals they were filled as busy after 32
  // transactions (two cores streaming from the L2 got ~42 of its 64 B/cycle instead of 64)
  static constexpr std::size_t kMaxIntervals = 256;

  // Reserves `duration` ticks at the first time >= `earliest` at which the
  // resource is free for that long; returns that start time. `now` is the
  // current simulated time: intervals that ended by then are forgotten.
  // Inline: networks reserve several channels per message; only the
  // out-of-order case and a new interval are out of line.
  Ticks reserve(Ticks earliest, Ticks duration, Ticks now) {
    // Forget what ended before now: nothing can start earlier than now.
    while (count_ && at(0).end <= now) pop_front();
    if (!count_) {  // free: starts at once
      if (duration) {
        ring_[0] = Interval{earliest, earliest + duration};  // head_ is 0 when empty
        count_ = 1;
      }
      return earliest;
    }
    Interval& last = at(count_ - 1);
    if (earliest < last.begin) return reserve_out_of_order(earliest, duration);
    // In time order (the common case): after the last reservation; one that
    // starts where the last ends extends it.
    const Ticks begin = std::max(earliest, last.end);
    if (begin == last.end) last.end = begin + duration;
    else if (duration && count_ < kMaxIntervals) at(count_++) = Interval{begin, begin + duration};  // after a gap
    else insert(count_, begin, begin + duration);
    return begin;
  }
  // The same in SystemC time. sc_time::from_value is a library call, so it is
  // only made when the start differs from `earliest` (the resource was busy).
  sc_core::sc_time reserve(const sc_core::sc_time& earliest, const sc_core::sc_time& duration,
                           const sc_core::sc_time& now) {
    const Ticks begin = reserve(earliest.value(), duration.value(), now.value());
    return begin == earliest.value() ? earliest : sc_core::sc_time::from_value(begin);
  }

  // The end of the latest reservation (0 if none is remembered).
  Ticks busy_until() const { return count_ ? at(count_ - 1).end : 0; }
  std::size_t interval_count() const { return count_; }

 private:
  struct Interval {
    Ticks begin, end;  // busy in [begin, end)
  };
  static_assert((kMaxIntervals & (kMaxIntervals - 1)) == 0, "a power of two: indices wrap by masking");
  // The i-th interval in time order.
  Interval& at(std::size_t i) { return ring_[(head_ + i) & (kMaxIntervals - 1)]; }
  const Interval& at(std::size_t i) const { return ring_[(head_ + i) & (kMaxIntervals - 1)]; }
  // An emptied ring restarts at entry 0 (see Cost above).
  void pop_front() { head_ = --count_ ? (head_ + 1) & (kMaxIntervals - 1) : 0; }
  // The first gap at or after `earliest`, for an access before the last
  // reservation's start.
  Ticks reserve_out_of_order(Ticks earliest, Ticks duration);
  // Inserts [begin, end) as the `position`-th interval (it fits between its
  // neighbours) and merges it with neighbours it touches.
  void insert(std::size_t position, Ticks begin, Ticks end);

  // Before the ring, so that they share its first cache line.
  std::uint32_t head_ = 0, count_ = 0;
  std::array<Interval, kMaxIntervals> ring_{};  // sorted, disjoint, not touching: count_ from head_
};

}  // namespace npuvp
