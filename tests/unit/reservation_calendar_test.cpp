// ReservationCalendar: in time order it is "busy until the last reservation
// ends"; out of order, an access takes the first free gap at or after its
// own time; old intervals are forgotten and the list stays bounded.
#include "core/reservation_calendar.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

namespace npuvp {
namespace {

TEST(ReservationCalendar, InTimeOrderItIsBusyUntilTheLastReservationEnds) {
  ReservationCalendar calendar;
  EXPECT_EQ(calendar.reserve(10, 5, 0), 10u);   // idle: at once
  EXPECT_EQ(calendar.reserve(12, 5, 0), 15u);   // queues behind [10, 15)
  EXPECT_EQ(calendar.reserve(20, 5, 0), 20u);   // exactly when free
  EXPECT_EQ(calendar.reserve(100, 1, 0), 100u); // later, idle again
  EXPECT_EQ(calendar.busy_until(), 101u);
  EXPECT_EQ(calendar.interval_count(), 2u);     // [10, 25) merged, [100, 101)
}

TEST(ReservationCalendar, AnEarlierAccessUsesTheGapBeforeALaterReservation) {
  ReservationCalendar calendar;
  EXPECT_EQ(calendar.reserve(1000, 10, 0), 1000u);  // an initiator running ahead
  EXPECT_EQ(calendar.reserve(100, 10, 0), 100u);    // one behind is not delayed by it
  EXPECT_EQ(calendar.reserve(105, 10, 0), 110u);    // but by what overlaps it
  EXPECT_EQ(calendar.reserve(995, 10, 0), 1010u);   // a gap too short is skipped
  EXPECT_EQ(calendar.reserve(985, 10, 0), 985u);    // one just long enough is used
  EXPECT_EQ(calendar.busy_until(), 1020u);
}

TEST(ReservationCalendar, IntervalsThatEndedBeforeNowAreForgotten) {
  ReservationCalendar calendar;
  calendar.reserve(0, 10, 0);
  calendar.reserve(20, 10, 0);
  calendar.reserve(40, 10, 0);
  EXPECT_EQ(calendar.interval_count(), 3u);
  EXPECT_EQ(calendar.reserve(60, 1, 35), 60u);
  EXPECT_EQ(calendar.interval_count(), 2u);  // [40, 50) and [60, 61)
}

TEST(ReservationCalendar, ZeroLengthReservationsOccupyNothing) {
  ReservationCalendar calendar;
  EXPECT_EQ(calendar.reserve(10, 0, 0), 10u);
  EXPECT_EQ(calendar.interval_count(), 0u);
  calendar.reserve(10, 5, 0);
  EXPECT_EQ(calendar.reserve(12, 0, 0), 15u);  // still waits for the resource
}

TEST(ReservationCalendar, OverflowMergesTheShortestGapConservatively) {
  ReservationCalendar calendar;
  // [100 i, 100 i + 10) for every i, except that interval 11 starts at 1015:
  // the gap [1010, 1015) is the shortest.
  for (std::uint64_t i = 0; i < ReservationCalendar::kMaxIntervals; ++i)
    calendar.reserve(i == 11 ? 1015 : 100 * i, 10, 0);
  EXPECT_EQ(calendar.interval_count(), ReservationCalendar::kMaxIntervals);
  const std::uint64_t after_all = 100 * ReservationCalendar::kMaxIntervals + 300;
  EXPECT_EQ(calendar.reserve(after_all, 10, 0), after_all);  // one more than it keeps
  EXPECT_EQ(calendar.interval_count(), ReservationCalendar::kMaxIntervals);
  // The shortest gap is now counted as busy: an access there waits until 1025.
  EXPECT_EQ(calendar.reserve(1010, 5, 0), 1025u);
  // The other gaps, the oldest included, are still free.
  EXPECT_EQ(calendar.reserve(50, 10, 0), 50u);
  EXPECT_EQ(calendar.reserve(250, 10, 0), 250u);
}

// A new reservation closer to a neighbour than any two intervals are to each
// other is folded into that neighbour instead: it is still reserved.
TEST(ReservationCalendar, OverflowFoldsANewReservationIntoItsNearNeighbour) {
  ReservationCalendar calendar;
  for (std::uint64_t i = 0; i < ReservationCalendar::kMaxIntervals; ++i) calendar.reserve(100 * i, 10, 0);
  EXPECT_EQ(calendar.reserve(1012, 10, 0), 1012u);  // 2 after [1000, 1010): the gap becomes busy
  EXPECT_EQ(calendar.interval_count(), ReservationCalendar::kMaxIntervals);
  EXPECT_EQ(calendar.reserve(1010, 2, 0), 1022u);
  EXPECT_EQ(calendar.reserve(50, 10, 0), 50u);
}

// Against a brute-force model (a busy bit per tick), in random order: every
// reservation starts at the first fully free window at or after its time, and
// reservations never overlap.
TEST(ReservationCalendar, MatchesABruteForceModelInRandomOrder) {
  std::mt19937 random(7);
  for (int round = 0; round < 200; ++round) {
    ReservationCalendar calendar;
    std::vector<bool> busy(4000, false);
    for (int access = 0; access < 20; ++access) {
      std::uint64_t earliest = random() % 2000, duration = 1 + random() % 40;
      std::uint64_t expected = earliest;
      while (std::any_of(busy.begin() + static_cast<long>(expected),
                         busy.begin() + static_cast<long>(expected + duration), [](bool b) { return b; }))
        ++expected;
      std::uint64_t got = calendar.reserve(earliest, duration, 0);
      ASSERT_EQ(got, expected) << "round " << round << " access " << access;
      std::fill(busy.begin() + static_cast<long>(got), busy.begin() + static_cast<long>(got + duration), true);
    }
  }
}

// With more intervals than it keeps, the calendar may make an access wait
// where the resource was free (merged gaps count as busy), but it never lets
// two reservations overlap and never starts one before its earliest time.
TEST(ReservationCalendar, NeverDoubleBooksWhenItOverflows) {
  std::mt19937 random(11);
  for (int round = 0; round < 50; ++round) {
    ReservationCalendar calendar;
    std::vector<bool> busy(40000, false);
    for (int access = 0; access < 300; ++access) {
      std::uint64_t earliest = random() % 20000, duration = 1 + random() % 30;
      std::uint64_t got = calendar.reserve(earliest, duration, 0);
      ASSERT_GE(got, earliest);
      ASSERT_LE(got + duration, busy.size());
      ASSERT_FALSE(std::any_of(busy.begin() + static_cast<long>(got), busy.begin() + static_cast<long>(got + duration),
                               [](bool b) { return b; }))
          << "round " << round << " access " << access << " double-booked at " << got;
      std::fill(busy.begin() + static_cast<long>(got), busy.begin() + static_cast<long>(got + duration), true);
      ASSERT_LE(calendar.interval_count(), ReservationCalendar::kMaxIntervals);
    }
  }
}

}  // namespace
}  // namespace npuvp
