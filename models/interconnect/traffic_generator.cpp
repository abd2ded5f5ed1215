#include "interconnect/traffic_generator.h"

#include "core/simulation.h"
#include "core/text.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <sstream>

namespace npuvp {

namespace {
// Seeds the operation stream apart from the address stream, so the address
// sequence of a seed does not depend on read_fraction.
constexpr std::uint64_t kOperationSeedMix = 0x9e3779b97f4a7c15ull;
// Wall-time limit and Ctrl-C are checked once per this many transactions.
constexpr std::uint64_t kWallCheckMask = 4095;
}  // namespace

TrafficGenerator::TrafficGenerator(sc_core::sc_module_name name, std::uint64_t default_base)
    : sc_module(name),
      socket("socket"),
      pattern(child_name(*this, "pattern"), "sequential", "",
              "address pattern: sequential (consecutive transactions, wrapping at the range end), strided "
              "(`stride` bytes apart, wrapping) or random (uniform over transaction_size-aligned offsets)",
              {"sequential", "random", "strided"}),
      base(child_name(*this, "base"), default_base, "address", "first address of the range the pattern covers"),
      range(child_name(*this, "range"), 1 << 20, "bytes",
            "bytes the pattern covers from base; every transaction lies entirely inside"),
      stride(child_name(*this, "stride"), 4096, "bytes", "distance between consecutive addresses (strided pattern)"),
      transaction_size(child_name(*this, "transaction_size"), 64, "bytes", "data length of every transaction"),
      read_fraction(child_name(*this, "read_fraction"), 0.5, "",
                    "probability that a transaction is a read (0: all writes, 1: all reads), drawn from the seeded PRNG"),
      count(child_name(*this, "count"), 0, "transactions", "transactions to issue; 0 disables the generator"),
      outstanding(child_name(*this, "outstanding"), 1, "transactions", "maximum transactions in flight (at least 1)"),
      start_time(child_name(*this, "start_time"), sc_core::SC_ZERO_TIME, "time", "issue time of the first transaction"),
      seed(child_name(*this, "seed"), 1, "", "PRNG seed for addresses (random pattern) and read/write choices"),
      transactions_(child_name(*this, "transactions"), "", "transactions completed"),
      reads_(child_name(*this, "reads"), "", "read transactions completed"),
      writes_(child_name(*this, "writes"), "", "write transactions completed"),
      bytes_read_(child_name(*this, "bytes_read"), "bytes", "bytes read"),
      bytes_written_(child_name(*this, "bytes_written"), "bytes", "bytes written"),
      latency_(child_name(*this, "latency"), "ns", "transaction latency, issue to completion"),
      first_issue_ns_(child_name(*this, "first_issue"), "ns", "issue time of the first transaction",
                      [this] { return first_issue_.to_seconds() * 1e9; }),
      last_completion_ns_(child_name(*this, "last_completion"), "ns", "latest completion time of a transaction",
                          [this] { return last_completion_.to_seconds() * 1e9; }),
      bandwidth_(child_name(*this, "bandwidth"), "bytes/s",
                 "achieved bandwidth: bytes read and written / (last completion - first issue)",
                 [this] { return bandwidth(); }),
      mean_latency_ns_(child_name(*this, "mean_latency"), "ns", "mean transaction latency, issue to completion",
                       [this] { return mean_latency().to_seconds() * 1e9; }) {
  configure();
  SC_THREAD(run);
}

void TrafficGenerator::configure() {
  const std::string& kind = pattern.get();
  if (kind == "sequential") pattern_ = Pattern::kSequential;
  else if (kind == "random") pattern_ = Pattern::kRandom;
  else if (kind == "strided") pattern_ = Pattern::kStrided;
  else throw ConfigError(pattern.name() + " is '" + kind + "'; expected sequential, random or strided");

  std::uint64_t size = transaction_size;
  if (size == 0) throw ConfigError(transaction_size.name() + " must not be zero");
  if (size > std::numeric_limits<unsigned int>::max())
    throw ConfigError(transaction_size.name() + " is " + std::to_string(size) +
                      " bytes; a TLM-2.0 transaction carries at most " +
                      std::to_string(std::numeric_limits<unsigned int>::max()) + " bytes");
  if (range.get() < size)
    throw ConfigError(range.name() + " (" + std::to_string(range.get()) + " bytes) is smaller than " +
                      transaction_size.name() + " (" + std::to_string(size) + " bytes)");
  if (base.get() + (range.get() - 1) < base.get())
    throw ConfigError(range.name() + " (" + std::to_string(range.get()) + " bytes) from " + base.name() + " " +
                      hex(base.get()) + " runs past the end of the address space");
  if (pattern_ == Pattern::kStrided && stride.get() == 0)
    throw ConfigError(stride.name() + " must not be zero for the strided pattern");
  double fraction = read_fraction;
  if (!(fraction >= 0.0 && fraction <= 1.0)) {
    std::ostringstream text;
    text << read_fraction.name() << " is " << fraction << "; it must lie in [0, 1]";
    throw ConfigError(text.str());
  }
  if (outstanding.get() == 0) throw ConfigError(outstanding.name() + " must be at least 1");

  step_ = pattern_ == Pattern::kStrided ? stride.get() : size;
  positions_ = (range.get() - size) / step_ + 1;
  position_ = 0;
  address_random_.seed(seed.get());
  operation_random_.seed(seed.get() ^ kOperationSeedMix);
}

void TrafficGenerator::start_of_simulation() {
  configure();
  data_.assign(transaction_size.get(), 0);
  resolution_per_ns_ = std::max<std::uint64_t>(sc_core::sc_time(1, sc_core::SC_NS).value(), 1);
  payload_.set_data_ptr(data_.data());
  payload_.set_data_length(static_cast<unsigned int>(data_.size()));
  payload_.set_streaming_width(static_cast<unsigned int>(data_.size()));
  payload_.set_byte_enable_ptr(nullptr);
  payload_.set_byte_enable_length(0);
}

double TrafficGenerator::bandwidth() const {
  if (transactions_.value() == 0) return 0.0;
  double bytes = static_cast<double>(bytes_read_.value() + bytes_written_.value());
  double seconds = (last_completion_ - first_issue_).to_seconds();
  return seconds > 0 ? bytes / seconds : std::numeric_limits<double>::infinity();
}

sc_core::sc_time TrafficGenerator::mean_latency() const {
  std::uint64_t n = transactions_.value();
  if (n == 0) return sc_core::SC_ZERO_TIME;
  return sc_core::sc_time::from_value(latency_sum_ / n);
}

void TrafficGenerator::Mt19937_64::seed(std::uint64_t value) {
  state_[0] = value;
  for (std::size_t i = 1; i < kWords; ++i)
    state_[i] = 6364136223846793005ull * (state_[i - 1] ^ (state_[i - 1] >> 62)) + i;
  index_ = kWords;
}

void TrafficGenerator::Mt19937_64::twist() {
  constexpr std::uint64_t kUpper = ~std::uint64_t{0} << 31, kLower = ~kUpper;
  constexpr std::uint64_t kMatrix = 0xb5026f5aa96619e9ull;
  // In place: words before k are already the next generation, as the
  // recurrence x[k + n] = x[k + m] ^ twist(x[k], x[k + 1]) wants.
  for (std::size_t k = 0; k < kWords; ++k) {
    const std::uint64_t next = state_[k + 1 == kWords ? 0 : k + 1];
    const std::uint64_t shifted = state_[k + kShift < kWords ? k + kShift : k + kShift - kWords];
    const std::uint64_t y = (state_[k] & kUpper) | (next & kLower);
    state_[k] = shifted ^ (y >> 1) ^ (kMatrix & (0 - (y & 1)));
  }
  index_ = 0;
}

// Unbiased integer in [0, bound): Lemire's multiply-and-reject, which needs a
// division only for the rare draws near a rejection boundary.
std::uint64_t TrafficGenerator::uniform(std::uint64_t bound) {
  unsigned __int128 product = static_cast<unsigned __int128>(address_random_()) * bound;
  std::uint64_t low = static_cast<std::uint64_t>(product);
  if (low < bound) {
    std::uint64_t threshold = (0 - bound) % bound;
    while (low < threshold) {
      product = static_cast<unsigned __int128>(address_random_()) * bound;
      low = static_cast<std::uint64_t>(product);
    }
  }
  return static_cast<std::uint64_t>(product >> 64);
}

std::uint64_t TrafficGenerator::next_offset() {
  if (pattern_ == Pattern::kRandom) return uniform(positions_) * step_;
  std::uint64_t offset = position_ * step_;
  if (++position_ == positions_) position_ = 0;
  return offset;
}

bool TrafficGenerator::next_is_read() {
  // 53 random bits -> [0, 1): 0 never reads, 1 always does.
  double draw = static_cast<double>(operation_random_() >> 11) * 0x1.0p-53;
  return draw < read_fraction.get();
}

// Little-endian hosts only, like the rest of the models.
void TrafficGenerator::fill_write_data(std::uint64_t address) {
  unsigned char* data = data_.data();
  std::size_t size = data_.size(), whole = size & ~std::size_t{7};
  for (std::size_t i = 0; i < whole; i += 8) {
    std::uint64_t word = address + i;
    std::memcpy(data + i, &word, 8);
  }
  if (whole < size) {
    std::uint64_t word = address + whole;
    std::memcpy(data + whole, &word, size - whole);
  }
}

void TrafficGenerator::fail_transaction(std::uint64_t index, std::uint64_t address) {
  std::ostringstream text;
  text << name() << ": transaction " << index << " (" << (payload_.is_read() ? "read" : "write") << " of "
       << payload_.get_data_length() << " bytes at " << hex(address) << ") failed with "
       << payload_.get_response_string();
  simulation().fail(ExitStatus::kGuestError, text.str());
}

void TrafficGenerator::CompletionSlots::reset(std::size_t slots) {
  times_.assign(slots, sc_core::SC_ZERO_TIME);
  first_ = count_ = 0;
  heap_ = slots > kSortedLimit;
}

void TrafficGenerator::CompletionSlots::put(const sc_core::sc_time& completion) {
  if (heap_) put_heap(completion);
  else put_sorted(completion);
}

void TrafficGenerator::CompletionSlots::put_sorted(const sc_core::sc_time& completion) {
  const std::size_t size = times_.size();
  if (full()) {  // the earliest leaves
    first_ = first_ + 1 == size ? 0 : first_ + 1;
    --count_;
  }
  // Insertion from the back: later times move up by one.
  std::size_t index = first_ + count_ >= size ? first_ + count_ - size : first_ + count_;
  for (std::size_t later = count_; later > 0; --later) {
    const std::size_t before = index == 0 ? size - 1 : index - 1;
    if (!(completion < times_[before])) break;
    times_[index] = times_[before];
    index = before;
  }
  times_[index] = completion;
  ++count_;
}

void TrafficGenerator::CompletionSlots::put_heap(const sc_core::sc_time& completion) {
  std::size_t hole;
  if (full()) {
    // Replaces the root, sifting down.
    hole = 0;
    for (;;) {
      std::size_t child = 2 * hole + 1;
      if (child >= count_) break;
      if (child + 1 < count_ && times_[child + 1] < times_[child]) ++child;
      if (!(times_[child] < completion)) break;
      times_[hole] = times_[child];
      hole = child;
    }
  } else {
    // A new leaf, sifting up.
    hole = count_++;
    while (hole > 0) {
      const std::size_t parent = (hole - 1) / 2;
      if (!(completion < times_[parent])) break;
      times_[hole] = times_[parent];
      hole = parent;
    }
  }
  times_[hole] = completion;
}

void TrafficGenerator::run() {
  using sc_core::sc_time;
  const std::uint64_t total = count;
  if (total == 0) {
    finished_ = true;
    return;
  }
  auto& control = simulation();
  // Only as many slots as transactions can ever be in flight.
  slots_.reset(std::min(outstanding.get(), total));
  const std::uint64_t size = data_.size();
  const std::uint64_t first = base;
  // The kernel's clock, by reference: it follows every wait, and reading it is
  // a load where sc_time_stamp() is a call into the SystemC library.
  const sc_time& now = sc_core::sc_get_curr_simcontext()->time_stamp();
  quantum_keeper_.reset();
  sc_time issue = start_time;
  // Each transaction's operation and address are drawn one transaction ahead
  // (each PRNG stream in its own order, as before): branches on a value just
  // drawn would wait for the whole draw before they could resolve.
  bool next_read = next_is_read();
  std::uint64_t next_address = first + next_offset();

  for (std::uint64_t i = 0; i < total; ++i) {
    // Take a free slot, or else the one freed first (whose completion time
    // this transaction's replaces).
    if (slots_.full() && slots_.earliest() > issue) issue = slots_.earliest();
    if (issue < now) issue = now;  // a target waited inside b_transport
    if (i == 0) first_issue_ = issue;
    sc_time delay = issue - now;
    if (issue >= quantum_keeper_.next_sync_point()) {  // quantum_keeper_.need_sync()
      quantum_keeper_.set(delay);
      quantum_keeper_.sync();
      delay = quantum_keeper_.get_local_time();
    }

    const bool read = next_read;
    const std::uint64_t address = next_address;
    if (i + 1 < total) {
      next_read = next_is_read();
      next_address = first + next_offset();
    }
    payload_.set_address(address);
    payload_.set_command(read ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
    payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    payload_.set_dmi_allowed(false);
    if (!read) fill_write_data(address);
    socket->b_transport(payload_, delay);
    if (payload_.is_response_error()) fail_transaction(i, address);

    sc_time completion = now + delay;
    if (completion < issue) completion = issue;  // a target must not take time back
    std::uint64_t latency = (completion - issue).value();
    latency_sum_ += latency;
    latency_.sample(latency / resolution_per_ns_);
    if (completion > last_completion_) last_completion_ = completion;
    slots_.put(completion);

    ++transactions_;
    if (read) {
      ++reads_;
      bytes_read_ += size;
    } else {
      ++writes_;
      bytes_written_ += size;
    }
    if ((i & kWallCheckMask) == kWallCheckMask) {
      control.note_time(last_completion_);
      control.check_wall_time(name());
    }
    if (control.finished()) return;  // another component ended the run
  }

  // Wait for the last completion, so SystemC time and finished() agree.
  control.note_time(last_completion_);
  if (last_completion_ > now) sc_core::wait(last_completion_ - now);
  finished_ = true;
}

}  // namespace npuvp
