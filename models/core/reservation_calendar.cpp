#include "core/reservation_calendar.h"

#include <algorithm>

namespace npuvp {

ReservationCalendar::Ticks ReservationCalendar::reserve_out_of_order(Ticks earliest, Ticks duration) {
  // Out of order: the first gap at or after `earliest` that is long enough.
  // The latest interval starts after `earliest` (the caller's test).
  const Ticks end = earliest + duration;
  if (duration && count_ < kMaxIntervals) {
    // The common case (about 95 % in the mesh workloads): the access is a
    // few intervals late (about 4 of 7) and fits the gap before the first
    // interval that ends after `earliest`, touching neither neighbour. One
    // pass back from the latest interval moves each later one up a slot
    // (as an insertion sort does) and stops at that gap.
    std::size_t hole = count_;
    while (hole > 0 && at(hole - 1).end > earliest) {
      at(hole) = at(hole - 1);
      --hole;
    }
    if (end < at(hole + 1).begin && (hole == 0 || at(hole - 1).end < earliest)) {
      at(hole) = Interval{earliest, end};
      ++count_;
      return earliest;
    }
    for (std::size_t i = hole; i < count_; ++i) at(i) = at(i + 1);  // it does not: undo the shift
  }
  // Skip the intervals that end by `earliest` (sorted by end too), counting
  // back from the latest; then take the first gap long enough: the
  // reservation overlaps each interval before it and moves to its end.
  std::size_t position = count_ - 1;
  while (position > 0 && at(position - 1).end > earliest) --position;
  Ticks begin = earliest;
  while (position < count_ && begin + duration > at(position).begin) begin = at(position++).end;
  insert(position, begin, begin + duration);
  return begin;
}

void ReservationCalendar::insert(std::size_t position, Ticks begin, Ticks end) {
  if (begin == end) return;  // a zero-length reservation occupies nothing
  const bool joins_previous = position > 0 && at(position - 1).end == begin;
  const bool joins_next = position < count_ && at(position).begin == end;
  if (joins_previous && joins_next) {  // fills the gap: the two become one
    at(position - 1).end = at(position).end;
    for (std::size_t i = position; i + 1 < count_; ++i) at(i) = at(i + 1);
    --count_;
    return;
  }
  if (joins_previous) {
    at(position - 1).end = end;
    return;
  }
  if (joins_next) {
    at(position).begin = begin;
    return;
  }
  if (count_ == kMaxIntervals) {
    // Full: the two neighbours with the shortest gap between them become one,
    // the gap busy (conservative: an access may then wait where the resource
    // was free, never the reverse), choosing the smallest such error.
    std::size_t pair = 0;
    for (std::size_t i = 1; i + 1 < count_; ++i)
      if (at(i + 1).begin - at(i).end < at(pair + 1).begin - at(pair).end) pair = i;
    // The new interval may be the one to fold into a neighbour instead.
    const Ticks gap_before = position > 0 ? begin - at(position - 1).end : ~Ticks{0};
    const Ticks gap_after = position < count_ ? at(position).begin - end : ~Ticks{0};
    const Ticks merged_gap = at(pair + 1).begin - at(pair).end;
    if (std::min(gap_before, gap_after) <= merged_gap) {
      if (gap_before <= gap_after) at(position - 1).end = end;
      else at(position).begin = begin;
      return;
    }
    at(pair).end = at(pair + 1).end;
    for (std::size_t i = pair + 1; i + 1 < count_; ++i) at(i) = at(i + 1);
    --count_;
    if (position > pair) --position;
  }
  for (std::size_t i = count_; i > position; --i) at(i) = at(i - 1);
  at(position) = Interval{begin, end};
  ++count_;
}

}  // namespace npuvp
