#include "core/reservation_calendar.h"

#include <algorithm>

namespace npuvp {

ReservationCalendar::Ticks ReservationCalendar::reserve_out_of_order(Ticks earliest, Ticks duration) {
  // Out of order: the first gap at or after `earliest` that is long enough.
  // Skip the intervals that end by `earliest` (sorted by end too), counting
  // back from the latest: the access is usually only a few intervals late.
  std::size_t low = count_;
  while (low > 0 && at(low - 1).end > earliest) --low;
  Ticks begin = earliest;
  std::size_t position = low;
  for (; position < count_; ++position) {
    const Interval& next = at(position);
    if (next.end <= begin) continue;            // wholly before us
    if (begin + duration <= next.begin) break;  // fits in the gap before `next`
    begin = std::max(begin, next.end);          // overlaps: try after it
  }
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
    if (position <= 1) {  // among the oldest: the oldest interval grows to cover it
      Interval& first = at(0);
      first.begin = std::min(first.begin, begin);
      first.end = std::max(first.end, end);
      return;
    }
    // The two oldest intervals become one, the gap between them busy.
    at(1).begin = at(0).begin;
    pop_front();
    --position;
  }
  for (std::size_t i = count_; i > position; --i) at(i) = at(i - 1);
  at(position) = Interval{begin, end};
  ++count_;
}

}  // namespace npuvp
