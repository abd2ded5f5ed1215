// TrafficGenerator: a configurable TLM-2.0 bus master that loads a fabric with
// synthetic traffic, for tests and for architecture-exploration studies.
//
// It issues `count` transactions of `transaction_size` bytes over
// [base, base + range): sequential, strided or uniformly random addresses,
// reads or writes decided by a seeded PRNG (same seed, same sequence), with at
// most `outstanding` transactions in flight.
//
// Loosely timed, without an event per transaction: one SC_THREAD computes
// each transaction's issue time, passes it to b_transport as the local time
// offset (issue time - SystemC time) and takes the completion time from the
// returned delay. `outstanding` slots each hold the completion time of the
// transaction occupying it; transaction i is issued at
//   issue_i = max(issue_{i-1}, the earliest completion among the slots)
// once all slots are taken (issue_0 = start_time), and takes that slot. With
// in-order completion this is issue_i = max(issue_{i-1}, completion_{i-outstanding}).
// The thread synchronises (wait) only when the offset reaches the global
// quantum (tlm_quantumkeeper); a target that waits inside b_transport holds
// the generator, whose next issue is then no earlier than that point. After
// the last transaction the thread waits until the last completion.
//
// Host speed: the run loop does no SystemC library call per transaction
// beyond b_transport. It reads the kernel's clock through the simulation
// context (inline) instead of sc_time_stamp(), tests the quantum against the
// keeper's next synchronisation point itself, keeps the slots' completion
// times in a structure fit for their number (CompletionSlots below), draws
// each transaction's operation and address one transaction ahead, and uses a
// branch-free Mersenne Twister that gives std::mt19937_64's numbers.
//
// Written data is deterministic: every 8-byte little-endian word holds its
// own address (a shorter tail holds the low bytes of it), so memory written
// by a generator describes itself. A TLM error response ends the run with a
// SimulationError (ExitStatus::kGuestError).
#pragma once

#include "core/parameters.h"
#include "core/statistics.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace npuvp {

class TrafficGenerator : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(TrafficGenerator);

  tlm_utils::simple_initiator_socket<TrafficGenerator> socket;

  Parameter<std::string> pattern;           // sequential | random | strided
  Parameter<std::uint64_t> base;            // address
  Parameter<std::uint64_t> range;           // bytes
  Parameter<std::uint64_t> stride;          // bytes (strided)
  Parameter<std::uint64_t> transaction_size;  // bytes
  Parameter<double> read_fraction;          // 0..1
  Parameter<std::uint64_t> count;           // transactions, 0 = disabled
  Parameter<std::uint64_t> outstanding;     // transactions in flight, >= 1
  Parameter<sc_core::sc_time> start_time;
  Parameter<std::uint64_t> seed;

  // `default_base` is the default of `base` (a platform points its
  // generators away from where programs live); a configured value wins.
  explicit TrafficGenerator(sc_core::sc_module_name name, std::uint64_t default_base = 0x80000000);

  // True once all `count` transactions have completed (at once when count is 0).
  bool finished() const { return finished_; }
  std::uint64_t transactions() const { return transactions_.value(); }
  std::uint64_t reads() const { return reads_.value(); }
  std::uint64_t writes() const { return writes_.value(); }
  std::uint64_t bytes_read() const { return bytes_read_.value(); }
  std::uint64_t bytes_written() const { return bytes_written_.value(); }
  // Issue time of the first transaction and the latest completion time
  // (both zero before the first transaction).
  sc_core::sc_time first_issue() const { return first_issue_; }
  sc_core::sc_time last_completion() const { return last_completion_; }
  // Bytes transferred / (last completion - first issue), in bytes per second:
  // 0 before any transaction, infinite when the target took no time at all.
  double bandwidth() const;
  // Mean of completion - issue over all transactions (zero before any).
  sc_core::sc_time mean_latency() const;
  const Histogram& latency_histogram() const { return latency_; }

 private:
  // Checks the parameters (ConfigError naming the first bad one) and derives
  // the address sequence; run at construction and again at the start of
  // simulation, after any programmatic Parameter::set().
  void configure();
  void start_of_simulation() override;
  void run();
  std::uint64_t next_offset();
  bool next_is_read();
  std::uint64_t uniform(std::uint64_t bound);
  void fill_write_data(std::uint64_t address);
  [[noreturn]] void fail_transaction(std::uint64_t index, std::uint64_t address);

  // The completion times of the transactions in flight, one per taken slot.
  // Up to kSortedLimit slots they are kept sorted in a ring buffer:
  // completions come nearly in issue order, so a new one is inserted from the
  // back in a step or two and the earliest leaves from the front. More slots
  // form a binary min-heap: deep queues reorder completions, and one sift per
  // transaction then beats long insertions. Either gives the earliest time.
  class CompletionSlots {
   public:
    void reset(std::size_t slots);
    bool full() const { return count_ == times_.size(); }
    const sc_core::sc_time& earliest() const { return times_[first_]; }
    // Adds `completion`, in place of the earliest time when full.
    void put(const sc_core::sc_time& completion);

   private:
    static constexpr std::size_t kSortedLimit = 16;
    void put_sorted(const sc_core::sc_time& completion);
    void put_heap(const sc_core::sc_time& completion);
    std::vector<sc_core::sc_time> times_;  // one entry per slot
    std::size_t first_ = 0;                // sorted: index of the earliest (heap: 0)
    std::size_t count_ = 0;                // times held
    bool heap_ = false;
  };

  // A tlm_quantumkeeper whose next synchronisation point can be read, so that
  // the run loop tests need_sync() (SystemC time + local time >= that point,
  // i.e. issue time >= it) without a virtual call and sc_time_stamp().
  class QuantumKeeper : public tlm_utils::tlm_quantumkeeper {
   public:
    const sc_core::sc_time& next_sync_point() const { return m_next_sync_point; }
  };

  // std::mt19937_64, number for number: the same seeding, recurrence and
  // tempering ([rand.predef]; seeded with 5489, its 10000th number is
  // 9981545732273789042). Its twist xors the matrix into a word when the
  // word's low bit is set; libstdc++ branches on that bit, a mispredicted
  // branch for every other number, where this engine uses a mask.
  class Mt19937_64 {
   public:
    void seed(std::uint64_t value);
    std::uint64_t operator()() {
      if (index_ == kWords) twist();
      std::uint64_t z = state_[index_++];
      z ^= (z >> 29) & 0x5555555555555555ull;
      z ^= (z << 17) & 0x71d67fffeda60000ull;
      z ^= (z << 37) & 0xfff7eee000000000ull;
      return z ^ (z >> 43);
    }

   private:
    static constexpr std::size_t kWords = 312, kShift = 156;  // n and m
    void twist();
    std::array<std::uint64_t, kWords> state_{};
    std::size_t index_ = kWords;
  };

  enum class Pattern { kSequential, kRandom, kStrided };
  Pattern pattern_ = Pattern::kSequential;
  std::uint64_t step_ = 0;       // bytes between consecutive positions
  std::uint64_t positions_ = 0;  // distinct transaction addresses in the range
  std::uint64_t position_ = 0;   // next position (sequential, strided)
  Mt19937_64 address_random_, operation_random_;

  QuantumKeeper quantum_keeper_;
  tlm::tlm_generic_payload payload_;        // reused: no allocation per transaction
  std::vector<unsigned char> data_;         // transaction_size bytes
  CompletionSlots slots_;
  bool finished_ = false;
  sc_core::sc_time first_issue_, last_completion_;
  std::uint64_t latency_sum_ = 0;           // in SystemC time-resolution units
  std::uint64_t resolution_per_ns_ = 1;

  Counter transactions_, reads_, writes_, bytes_read_, bytes_written_;
  Histogram latency_;
  DerivedStatistic first_issue_ns_, last_completion_ns_, bandwidth_, mean_latency_ns_;
};

}  // namespace npuvp
