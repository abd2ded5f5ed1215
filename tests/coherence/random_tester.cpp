#include "coherence/controller_set.h"
#include "coherence/fake_memory.h"
#include "coherence/protocol_setup.h"
#include "coherence/extensions.h"
#include "coherence/random_tester.h"

#include "coherence/memory_controller.h"
#include "coherence/nsi/nsi.h"
#include "coherence/protocol_registry.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <queue>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace npuvp::coherence::testing {
namespace {

// splitmix64: small, fast and reproducible everywhere.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::uint64_t below(std::uint64_t bound) { return bound ? next() % bound : 0; }

 private:
  std::uint64_t state_;
};

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Tester final : public Environment {
 public:
  explicit Tester(const TesterConfig& config);
  TesterResult run();

  Cycles now() const override { return now_; }
  void send(const Message& message, Cycles delay) override;
  void schedule(Cycles delay, std::function<void()> action) override;

 private:
  enum Kind : std::uint8_t { kDeliver, kCoreStep, kAtomicFinish, kAction };
  struct Event {
    Cycles time;
    std::uint64_t sequence;
    Kind kind;
    unsigned index;
    bool operator>(const Event& other) const {
      return time != other.time ? time > other.time : sequence > other.sequence;
    }
  };
  struct Core {
    bool busy = false;
    L1Controller::Access kind = L1Controller::Access::kLoad;
    std::uint64_t address = 0;
    unsigned size = 0;
    bool write = true;  // an atomic that writes (AMO, successful SC) or not (failed SC)
    std::uint8_t buffer[8] = {};
    // Data-race-free mode.
    enum class Phase : std::uint8_t { kIdle, kAcquire, kInside, kRelease, kDone } phase = Phase::kIdle;
    unsigned lock = 0;
    unsigned remaining = 0;  // data accesses left in the critical section
  };

  void push(Cycles time, Kind kind, unsigned index);
  void deliver(unsigned slot);
  void core_step(unsigned core);
  void performed(unsigned core);
  void finish_atomic(unsigned core);
  void next_access_later(unsigned core, Cycles backoff = 0);
  void check_load(unsigned core, const char* what);
  void maybe_corrupt();
  void final_check();
  // Data-race-free mode.
  void drf_step(unsigned core);
  void drf_performed(unsigned core);
  void drf_finish_atomic(unsigned core);
  void drf_data_access(unsigned core);
  std::uint64_t lock_address(unsigned lock) const {
    return (static_cast<std::uint64_t>(config_.lines) * config_.line_stride + lock) * config_.line_bytes;
  }
  [[noreturn]] void fail(const std::string& what, std::uint64_t line);
  std::string line_report(std::uint64_t line) const;

  TesterConfig config_;
  Geometry geometry_;
  Random random_;
  std::unique_ptr<FakeMemory> memory_;
  std::vector<std::uint8_t> reference_;
  ControllerSet<> controllers_;
  std::vector<std::unique_ptr<L1Controller>>& l1s_ = controllers_.l1s;
  std::vector<std::unique_ptr<HomeController>>& homes_ = controllers_.homes;
  std::vector<Core> cores_;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> queue_;
  std::vector<Message> message_pool_;
  std::vector<unsigned> free_slots_;
  std::vector<std::function<void()>> actions_;
  std::vector<Cycles> last_arrival_;  // per (source, destination, vnet)
  Cycles now_ = 0;
  std::uint64_t sequence_ = 0;
  Cycles last_progress_ = 0;
  std::uint64_t issued_ = 0, completed_ = 0, outstanding_ = 0;
  std::uint64_t type_count_ = 0;
  bool corrupted_ = false;
  TesterResult result_;
};

Tester::Tester(const TesterConfig& config) : config_(config), random_(config.seed) {
  if (config.cores < 1 || config.cores > 64) throw std::invalid_argument("tester: cores must be 1..64");
  if (config.lines == 0 || config.line_stride == 0)
    throw std::invalid_argument("tester: at least one line, and a line stride of at least 1");
  geometry_.tiles = config.cores;
  geometry_.memory_controllers = config.memory_controllers;
  geometry_.line_bytes = config.line_bytes;
  const Protocol& protocol = find_protocol(config.protocol);
  result_.messages_by_type.assign(protocol.message_types, 0);
  if (config.data_race_free && (config.locks == 0 || config.episode_operations == 0 || config.line_bytes < 8))
    throw std::invalid_argument("tester: data-race-free mode needs locks, episode operations and 8-byte words");
  const std::size_t bytes =
      (static_cast<std::size_t>(config.lines) * config.line_stride + (config.data_race_free ? config.locks : 0)) *
      config.line_bytes;
  memory_ = std::make_unique<FakeMemory>(bytes, 0, 0, config.memory_latency);
  for (std::size_t i = 0; i < bytes; ++i) memory_->raw()[i] = static_cast<std::uint8_t>(random_.next());
  if (config.data_race_free)
    for (unsigned lock = 0; lock < config.locks; ++lock) std::memset(memory_->raw() + lock_address(lock), 0, 8);
  reference_.assign(memory_->raw(), memory_->raw() + bytes);
  CacheShape l1_shape{static_cast<std::uint64_t>(config.l1_sets) * config.l1_ways * config.line_bytes, config.l1_ways,
                      config.l1_latency};
  CacheShape llc_shape{static_cast<std::uint64_t>(config.llc_sets) * config.llc_ways * config.line_bytes,
                       config.llc_ways, config.llc_latency};
  const std::shared_ptr<ProtocolInstance> instance = configured_instance(protocol, config.options);
  controllers_.build(
      geometry_, l1_shape, llc_shape, *memory_,
      [&instance](unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment) {
        return instance->make_l1(tile, geometry, shape, environment);
      },
      [&instance](unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment) {
        return instance->make_home(tile, geometry, shape, environment);
      },
      [this](unsigned, Port) -> Environment& { return *this; });
  for (unsigned tile = 0; tile < config.cores; ++tile) {
    if (config.skip_self_invalidation) {
      auto* nsi_l1 = dynamic_cast<nsi::L1*>(l1s_[tile].get());
      if (!nsi_l1) throw std::invalid_argument("tester: skip_self_invalidation needs the nsi protocol");
      nsi_l1->skip_self_invalidation_for_testing(true);
    }
    l1s_[tile]->set_miss_completion([this, tile] { performed(tile); });
  }
  cores_.resize(config.cores);
  const unsigned nodes = config.cores + config.memory_controllers;
  last_arrival_.assign(static_cast<std::size_t>(nodes) * nodes * 3, 0);
}

void Tester::push(Cycles time, Kind kind, unsigned index) { queue_.push(Event{time, sequence_++, kind, index}); }

void Tester::send(const Message& message, Cycles delay) {
  ++result_.messages;
  if (message.type >= result_.messages_by_type.size()) result_.messages_by_type.resize(message.type + 1, 0);
  ++result_.messages_by_type[message.type];
  if (config_.drop_message_index && message.type == config_.drop_message_type &&
      ++type_count_ == config_.drop_message_index)
    return;  // fault injection: lost in the network
  const unsigned nodes = config_.cores + config_.memory_controllers;
  if (message.source >= nodes || message.destination >= nodes) {
    std::ostringstream text;
    text << "message type " << message.type << " from node " << message.source << " to node " << message.destination
         << ": no such node";
    fail(text.str(), message.line);
  }
  Cycles arrival = now_ + delay + 1 + random_.below(config_.max_network_delay);
  Cycles& last = last_arrival_[(static_cast<std::size_t>(message.source) * nodes + message.destination) * 3 +
                               static_cast<unsigned>(message.vnet)];
  arrival = std::max(arrival, last);  // equal times are delivered in send order
  last = arrival;
  unsigned slot;
  if (free_slots_.empty()) {
    slot = static_cast<unsigned>(message_pool_.size());
    message_pool_.push_back(message);
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
    message_pool_[slot] = message;
  }
  push(arrival, kDeliver, slot);
}

void Tester::schedule(Cycles delay, std::function<void()> action) {
  actions_.push_back(std::move(action));
  push(now_ + delay, kAction, static_cast<unsigned>(actions_.size() - 1));
}

void Tester::deliver(unsigned slot) {
  const Message message = message_pool_[slot];
  free_slots_.push_back(slot);
  if (config_.trace_line >= 0 && message.line == static_cast<std::uint64_t>(config_.trace_line)) {
    const Protocol& protocol = find_protocol(config_.protocol);
    std::fprintf(stderr, "cycle %llu: %s node %u -> node %u port %d\n", static_cast<unsigned long long>(now_),
                 protocol.message_name(message.type).c_str(), message.source, message.destination,
                 static_cast<int>(message.destination_port));
  }
  controllers_.route(message);
}

std::string Tester::line_report(std::uint64_t line) const {
  std::ostringstream text;
  text << "line 0x" << std::hex << line << std::dec << ":";
  for (const auto& l1 : l1s_) text << " [" << l1->name() << ": " << l1->describe(line) << "]";
  const unsigned home = geometry_.home_of(line);
  text << " [" << homes_[home]->name() << ": " << homes_[home]->describe(line) << "]";
  return text.str();
}

void Tester::fail(const std::string& what, std::uint64_t line) {
  std::ostringstream text;
  text << "random tester (protocol " << config_.protocol << ", seed " << config_.seed << ", " << config_.cores
       << " cores, " << config_.lines << " lines) at cycle " << now_ << " after " << completed_
       << " accesses: " << what << "\n  " << line_report(line);
  throw Failure(text.str());
}

void Tester::check_load(unsigned core, const char* what) {
  const Core& state = cores_[core];
  if (std::memcmp(state.buffer, &reference_[state.address], state.size) == 0) return;
  std::ostringstream text;
  text << "core " << core << " " << what << " of " << state.size << " bytes at 0x" << std::hex << state.address
       << " returned (hex)";
  for (unsigned i = 0; i < state.size; ++i) text << ' ' << static_cast<unsigned>(state.buffer[i]);
  text << ", expected";
  for (unsigned i = 0; i < state.size; ++i) text << ' ' << static_cast<unsigned>(reference_[state.address + i]);
  fail(text.str(), geometry_.line_of(state.address));
}

void Tester::core_step(unsigned core) {
  if (config_.data_race_free) return drf_step(core);
  Core& state = cores_[core];
  if (issued_ >= config_.operations) {
    l1s_[core]->synchronise();  // the program's final fence: ends a failed SC's lock
    return;
  }
  ++issued_;
  const std::uint64_t line = random_.below(config_.lines) * config_.line_stride * config_.line_bytes;
  state.size = 1u << random_.below(4);
  state.address = line + random_.below(config_.line_bytes / state.size) * state.size;
  const std::uint64_t pick = random_.below(100);
  state.kind = pick < config_.load_percent                          ? L1Controller::Access::kLoad
               : pick < config_.load_percent + config_.store_percent ? L1Controller::Access::kStore
                                                                      : L1Controller::Access::kMakeWritable;
  state.write = random_.below(4) != 0;
  if (state.kind == L1Controller::Access::kStore)
    for (unsigned i = 0; i < state.size; ++i) state.buffer[i] = static_cast<std::uint8_t>(random_.next());
  state.busy = true;
  ++outstanding_;
  if (l1s_[core]->access(state.kind, state.address, state.buffer, state.size)) performed(core);
}

void Tester::performed(unsigned core) {
  Core& state = cores_[core];
  if (!state.busy) fail("core " + std::to_string(core) + ": completion without an outstanding access", 0);
  if (config_.data_race_free) return drf_performed(core);
  switch (state.kind) {
    case L1Controller::Access::kLoad:
      ++result_.loads;
      check_load(core, "load");
      break;
    case L1Controller::Access::kStore:
      ++result_.stores;
      std::memcpy(&reference_[state.address], state.buffer, state.size);
      break;
    case L1Controller::Access::kMakeWritable:
      // The read and write of the atomic follow a little later; the line
      // must stay writable meanwhile.
      push(now_ + random_.below(3), kAtomicFinish, core);
      return;
  }
  next_access_later(core);
}

void Tester::finish_atomic(unsigned core) {
  if (config_.data_race_free) return drf_finish_atomic(core);
  Core& state = cores_[core];
  L1Controller& l1 = *l1s_[core];
  if (!l1.access(L1Controller::Access::kLoad, state.address, state.buffer, state.size))
    fail("core " + std::to_string(core) + ": the atomic's read missed after make-writable", state.address);
  check_load(core, "atomic read");
  if (!state.write) {
    // A failed SC: no write. The line stays locked until synchronise() or
    // the core's next access (to another line, or a store to this one).
    if (random_.below(2)) l1.synchronise();
    ++result_.atomics;
    next_access_later(core);
    return;
  }
  for (unsigned i = 0; i < state.size; ++i) state.buffer[i] = static_cast<std::uint8_t>(state.buffer[i] + 1 + i);
  if (!l1.access(L1Controller::Access::kStore, state.address, state.buffer, state.size))
    fail("core " + std::to_string(core) + ": the atomic's write missed after make-writable", state.address);
  std::memcpy(&reference_[state.address], state.buffer, state.size);
  l1.synchronise();
  ++result_.atomics;
  next_access_later(core);
}

// ---- data-race-free mode
void Tester::drf_step(unsigned core) {
  Core& state = cores_[core];
  L1Controller& l1 = *l1s_[core];
  switch (state.phase) {
    case Core::Phase::kIdle:
      if (issued_ >= config_.operations) {
        state.phase = Core::Phase::kDone;
        l1.synchronise();
        return;
      }
      state.lock = static_cast<unsigned>(random_.below(config_.locks));
      state.phase = Core::Phase::kAcquire;
      [[fallthrough]];
    case Core::Phase::kAcquire:
    case Core::Phase::kRelease:
      if (state.phase == Core::Phase::kAcquire && issued_ >= config_.operations) {
        state.phase = Core::Phase::kDone;  // stop spinning: the run is over
        l1.synchronise();
        return;
      }
      ++issued_;
      state.kind = L1Controller::Access::kMakeWritable;
      state.address = lock_address(state.lock);
      state.size = 8;
      state.busy = true;
      ++outstanding_;
      if (l1.access(state.kind, state.address, state.buffer, state.size)) performed(core);
      return;
    case Core::Phase::kInside:
      if (state.remaining == 0) {
        state.phase = Core::Phase::kRelease;
        return drf_step(core);
      }
      --state.remaining;
      if (random_.below(8) == 0) l1.synchronise();  // a fence inside the critical section
      return drf_data_access(core);
    case Core::Phase::kDone: return;
  }
}

void Tester::drf_data_access(unsigned core) {
  Core& state = cores_[core];
  const unsigned words_per_line = config_.line_bytes / 8;
  const unsigned words = config_.lines * words_per_line;
  // A word guarded by this core's lock: w with w mod locks == lock.
  const unsigned guarded = (words + config_.locks - 1 - state.lock) / config_.locks;
  if (guarded == 0) {
    state.remaining = 0;
    return drf_step(core);
  }
  const unsigned word = state.lock + static_cast<unsigned>(random_.below(guarded)) * config_.locks;
  state.address = (static_cast<std::uint64_t>(word / words_per_line) * config_.line_stride * config_.line_bytes) +
                  (word % words_per_line) * 8;
  state.size = 8;
  state.kind = random_.below(100) < config_.load_percent ? L1Controller::Access::kLoad : L1Controller::Access::kStore;
  if (state.kind == L1Controller::Access::kStore)
    for (unsigned i = 0; i < 8; ++i) state.buffer[i] = static_cast<std::uint8_t>(random_.next());
  ++issued_;
  state.busy = true;
  ++outstanding_;
  if (l1s_[core]->access(state.kind, state.address, state.buffer, state.size)) performed(core);
}

void Tester::drf_performed(unsigned core) {
  Core& state = cores_[core];
  switch (state.kind) {
    case L1Controller::Access::kLoad:
      ++result_.loads;
      check_load(core, "load (last write that happens-before it)");
      break;
    case L1Controller::Access::kStore:
      ++result_.stores;
      std::memcpy(&reference_[state.address], state.buffer, state.size);
      break;
    case L1Controller::Access::kMakeWritable:
      push(now_ + random_.below(3), kAtomicFinish, core);
      return;
  }
  next_access_later(core);
}

void Tester::drf_finish_atomic(unsigned core) {
  Core& state = cores_[core];
  L1Controller& l1 = *l1s_[core];
  if (!l1.access(L1Controller::Access::kLoad, state.address, state.buffer, 8))
    fail("core " + std::to_string(core) + ": the lock's read missed after make-writable", state.address);
  check_load(core, "lock read");
  std::uint64_t value;
  std::memcpy(&value, state.buffer, 8);
  ++result_.atomics;
  if (state.phase == Core::Phase::kAcquire) {
    if (value != 0) {
      // Taken: an AMO that writes nothing (a failed SC), then retry.
      ++result_.lock_retries;
      l1.synchronise();
      next_access_later(core, random_.below(8 * (config_.max_think_cycles + config_.max_network_delay) + 1));  // back off
      return;
    }
    value = core + 1;
    state.phase = Core::Phase::kInside;
    state.remaining = 1 + static_cast<unsigned>(random_.below(config_.episode_operations));
    ++result_.episodes;
  } else {
    if (value != core + 1) fail("core " + std::to_string(core) + " releases a lock it does not hold", state.address);
    value = 0;
    state.phase = Core::Phase::kIdle;
  }
  std::memcpy(state.buffer, &value, 8);
  if (!l1.access(L1Controller::Access::kStore, state.address, state.buffer, 8))
    fail("core " + std::to_string(core) + ": the lock's write missed after make-writable", state.address);
  std::memcpy(&reference_[state.address], state.buffer, 8);
  l1.synchronise();  // acquire and release are synchronisations
  next_access_later(core);
}

void Tester::next_access_later(unsigned core, Cycles backoff) {
  cores_[core].busy = false;
  --outstanding_;
  ++completed_;
  last_progress_ = now_;
  maybe_corrupt();
  push(now_ + config_.l1_latency + backoff + random_.below(config_.max_think_cycles + 1), kCoreStep, core);
}

void Tester::maybe_corrupt() {
  if (!config_.corrupt_after || corrupted_ || completed_ < config_.corrupt_after) return;
  std::uint8_t bytes[kMaxLineBytes];
  for (unsigned line = 0; line < config_.lines; ++line)
    for (auto& l1 : l1s_) {
      const std::uint64_t address = static_cast<std::uint64_t>(line) * config_.line_stride * config_.line_bytes;
      bool owner = false;
      if (!l1->peek(address, bytes, config_.line_bytes, owner) || !owner) continue;
      for (unsigned i = 0; i < config_.line_bytes; ++i) bytes[i] ^= 0x5a;
      l1->poke(address, bytes, config_.line_bytes);
      corrupted_ = true;
      return;
    }
}

void Tester::final_check() {
  for (const auto& l1 : l1s_)
    if (!l1->quiescent()) fail(l1->name() + " is not quiescent after draining", 0);
  for (const auto& home : homes_)
    if (!home->quiescent()) fail(home->name() + " is not quiescent after draining", 0);
  const unsigned bytes = config_.line_bytes;
  std::uint8_t copy[kMaxLineBytes];
  if (config_.data_race_free) {
    // Read-only copies may be stale (NSI); the last write must be at the
    // dirty owner, else in the LLC, else in memory.
    const unsigned all_lines = config_.lines + config_.locks;
    for (unsigned index = 0; index < all_lines; ++index) {
      const std::uint64_t line = index < config_.lines
                                     ? static_cast<std::uint64_t>(index) * config_.line_stride * bytes
                                     : lock_address(index - config_.lines);
      const std::uint8_t* expected = &reference_[line];
      unsigned owners = 0;
      for (const auto& l1 : l1s_) {
        bool owner = false;
        if (!l1->peek(line, copy, bytes, owner) || !owner) continue;
        ++owners;
        if (std::memcmp(copy, expected, bytes) != 0) fail("final check: " + l1->name() + "'s dirty copy differs", line);
      }
      if (owners > 1) fail("final check: two dirty owners", line);
      if (owners) continue;
      HomeController& home = *homes_[geometry_.home_of(line)];
      if (home.peek(line, copy, bytes)) {
        if (std::memcmp(copy, expected, bytes) != 0) fail("final check: the LLC copy differs", line);
      } else {
        memory_->debug_access(false, line, copy, bytes);
        if (std::memcmp(copy, expected, bytes) != 0) fail("final check: memory differs", line);
      }
    }
    return;
  }
  for (unsigned index = 0; index < config_.lines; ++index) {
    const std::uint64_t line = static_cast<std::uint64_t>(index) * config_.line_stride * bytes;
    const std::uint8_t* expected = &reference_[line];
    unsigned copies = 0, owners = 0;
    for (const auto& l1 : l1s_) {
      bool owner = false;
      if (!l1->peek(line, copy, bytes, owner)) continue;
      ++copies;
      owners += owner;
      if (std::memcmp(copy, expected, bytes) != 0) fail("final check: " + l1->name() + "'s copy differs", line);
    }
    if (owners > 1 || (owners == 1 && copies > 1)) fail("final check: an owner and other copies", line);
    HomeController& home = *homes_[geometry_.home_of(line)];
    const bool in_llc = home.peek(line, copy, bytes);
    if (config_.check_inclusion && copies && !in_llc) fail("final check: held by an L1 but not in the LLC", line);
    if (in_llc && owners == 0 && std::memcmp(copy, expected, bytes) != 0) fail("final check: the LLC copy differs", line);
    if (!in_llc) {
      memory_->debug_access(false, line, copy, bytes);
      if (std::memcmp(copy, expected, bytes) != 0) fail("final check: memory differs", line);
    }
  }
}

TesterResult Tester::run() {
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();
  try {
    for (unsigned core = 0; core < config_.cores; ++core) push(random_.below(4), kCoreStep, core);
    while (!queue_.empty()) {
      const Event event = queue_.top();
      queue_.pop();
      now_ = event.time;
      switch (event.kind) {
        case kDeliver: deliver(event.index); break;
        case kCoreStep: core_step(event.index); break;
        case kAtomicFinish: finish_atomic(event.index); break;
        case kAction: {
          std::function<void()> action = std::move(actions_[event.index]);
          action();
          break;
        }
      }
      if (outstanding_ && now_ - last_progress_ > config_.deadlock_cycles)
        for (unsigned core = 0; core < config_.cores; ++core)
          if (cores_[core].busy)
            fail("deadlock: no access completed for " + std::to_string(config_.deadlock_cycles) + " cycles; core " +
                     std::to_string(core) + " waits",
                 geometry_.line_of(cores_[core].address));
    }
    if (outstanding_)
      for (unsigned core = 0; core < config_.cores; ++core)
        if (cores_[core].busy)
          fail("deadlock: nothing left to happen, core " + std::to_string(core) + " still waits",
               geometry_.line_of(cores_[core].address));
    final_check();
    result_.passed = true;
  } catch (const Failure& failure) {
    result_.failure = failure.what();
  } catch (const ProtocolError& error) {
    std::ostringstream text;
    text << "random tester (protocol " << config_.protocol << ", seed " << config_.seed << ", " << config_.cores
         << " cores) at cycle " << now_ << ": ProtocolError: " << error.what();
    result_.failure = text.str();
  }
  for (const auto& l1 : l1s_) {
    result_.l1_evictions += l1->statistics().evictions;
    result_.upgrades += l1->statistics().upgrades;
    result_.l1_stalled += l1->statistics().stalled_messages;
    result_.synchronisations += l1->statistics().synchronisations + l1->statistics().periodic_synchronisations;
    result_.periodic_synchronisations += l1->statistics().periodic_synchronisations;
    if (const auto* counters = dynamic_cast<const ProtocolCounters*>(l1.get())) {
      if (const std::uint64_t* current = counters->counter("suspect_validated_current"))
        result_.suspect_validated_current += *current;
      if (const std::uint64_t* stale = counters->counter("suspect_validated_stale")) result_.suspect_validated_stale += *stale;
    }
  }
  for (const auto& home : homes_) {
    result_.llc_recalls += home->statistics().recalls;
    result_.home_stalled += home->statistics().stalled_messages;
  }
  result_.operations = completed_;
  result_.cycles = now_;
  result_.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result_.host_cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  return result_;
}

}  // namespace

std::string TesterResult::summary() const {
  std::ostringstream text;
  text << operations << " accesses (" << loads << " loads, " << stores << " stores, " << atomics << " atomics), "
       << messages << " messages, " << l1_evictions << " L1 evictions, " << upgrades << " upgrades, " << llc_recalls
       << " LLC recalls, " << episodes << " episodes, " << lock_retries << " lock retries, " << synchronisations
       << " synchronisations (" << periodic_synchronisations << " periodic), " << suspect_validated_current
       << "/" << suspect_validated_stale << " suspect lines validated current/stale, " << l1_stalled << " forwards parked, " << home_stalled << " requests waited, " << cycles << " cycles, " << host_seconds << " s, "
       << (host_seconds > 0 ? operations / host_seconds : 0.0) << " accesses/s (" << host_cpu_seconds
       << " s processor time, " << (host_cpu_seconds > 0 ? operations / host_cpu_seconds : 0.0) << " accesses/s)";
  return text.str();
}

TesterResult run_random_test(const TesterConfig& config) {
  Tester tester(config);
  return tester.run();
}

}  // namespace npuvp::coherence::testing
