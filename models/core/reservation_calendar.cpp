#include "core/reservation_calendar.h"

#include <algorithm>

namespace npuvp {

ReservationCalendar::Ticks ReservationCalendar::reserve(Ticks earliest, Ticks duration, Ticks now) {
  // Forget what ended before now: nothing can start earlier than now.
  std::size_t expired = 0;
  while (expired < intervals_.size() && intervals_[expired].end <= now) ++expired;
  if (expired) intervals_.erase(intervals_.begin(), intervals_.begin() + static_cast<std::ptrdiff_t>(expired));

  // In time order (the common case): after the last reservation.
  if (intervals_.empty() || earliest >= intervals_.back().begin) {
    Ticks begin = intervals_.empty() ? earliest : std::max(earliest, intervals_.back().end);
    insert(intervals_.size(), begin, begin + duration);
    return begin;
  }
  // Out of order: the first gap at or after `earliest` that is long enough.
  Ticks begin = earliest;
  std::size_t at = 0;
  for (; at < intervals_.size(); ++at) {
    const Interval& next = intervals_[at];
    if (next.end <= begin) continue;              // wholly before us
    if (begin + duration <= next.begin) break;    // fits in the gap before `next`
    begin = std::max(begin, next.end);            // overlaps: try after it
  }
  insert(at, begin, begin + duration);
  return begin;
}

void ReservationCalendar::insert(std::size_t at, Ticks begin, Ticks end) {
  if (begin == end) return;  // a zero-length reservation occupies nothing
  const bool joins_previous = at > 0 && intervals_[at - 1].end == begin;
  const bool joins_next = at < intervals_.size() && intervals_[at].begin == end;
  if (joins_previous && joins_next) {
    intervals_[at - 1].end = intervals_[at].end;
    intervals_.erase(intervals_.begin() + static_cast<std::ptrdiff_t>(at));
  } else if (joins_previous) {
    intervals_[at - 1].end = end;
  } else if (joins_next) {
    intervals_[at].begin = begin;
  } else {
    intervals_.insert(intervals_.begin() + static_cast<std::ptrdiff_t>(at), Interval{begin, end});
    if (intervals_.size() > kMaxIntervals) {
      intervals_[1].begin = intervals_[0].begin;  // the oldest gap counts as busy
      intervals_.erase(intervals_.begin());
    }
  }
}

}  // namespace npuvp
