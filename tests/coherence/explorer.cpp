// Exhaustive explorer of a coherence protocol's real controllers: see
// explorer.h and docs/coherence.md ("Exhaustive exploration").
#include "coherence/explorer.h"

#include "coherence/controller_set.h"
#include "coherence/fake_memory.h"
#include "coherence/memory_controller.h"
#include "coherence/mesi/mesi.h"
#include "coherence/nsi/nsi.h"
#include "coherence/protocol_registry.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>
#include <unordered_set>
#include <utility>

namespace npuvp::coherence::exploration {

ScriptOperation load(unsigned line, unsigned word) { return {ScriptOperation::Kind::kLoad, line, word}; }
ScriptOperation store(unsigned line, unsigned word) { return {ScriptOperation::Kind::kStore, line, word}; }
ScriptOperation make_writable_store(unsigned line, unsigned word) {
  return {ScriptOperation::Kind::kMakeWritableStore, line, word};
}
ScriptOperation make_writable(unsigned line, unsigned word) {
  return {ScriptOperation::Kind::kMakeWritable, line, word};
}
ScriptOperation synchronise() { return {ScriptOperation::Kind::kSynchronise, 0, 0}; }

const char* to_string(Permission permission) {
  switch (permission) {
    case Permission::kNone: return "none";
    case Permission::kRead: return "read";
    case Permission::kWrite: return "write";
  }
  return "?";
}

const char* to_string(Result::Outcome outcome) {
  switch (outcome) {
    case Result::Outcome::kPassed: return "passed";
    case Result::Outcome::kStateLimit: return "state limit reached";
    case Result::Outcome::kSingleWriterViolation: return "single-writer/multiple-reader violation";
    case Result::Outcome::kDataValueViolation: return "data-value violation";
    case Result::Outcome::kDeadlock: return "deadlock";
    case Result::Outcome::kProtocolError: return "protocol error";
    case Result::Outcome::kOtherError: return "error";
  }
  return "?";
}

namespace {

// MESI's L1 states: the core reads S (also while an Upgrade is on its way)
// and writes E and M (locked or not); a line in the write-back buffer or
// waiting for its data is not accessible.
Permission mesi_permission(const L1Controller& l1, std::uint64_t line) {
  const auto* mesi_l1 = dynamic_cast<const mesi::L1*>(&l1);
  if (!mesi_l1) return default_permission(l1, line);
  using State = mesi::L1Machine::State;
  switch (mesi_l1->state_of_line(line)) {
    case State::kE:
    case State::kM:
    case State::kE_L:
    case State::kM_L: return Permission::kWrite;
    case State::kS:
    case State::kSM_A:
    case State::kSW_A: return Permission::kRead;
    default: return Permission::kNone;
  }
}

// NSI: the owner (EXC, MOD, also while upgrading) writes; SHD and SUS copies
// (also one being validated) are read-only and may coexist with the owner.
Permission nsi_permission(const L1Controller& l1, std::uint64_t line) {
  const auto* nsi_l1 = dynamic_cast<const nsi::L1*>(&l1);
  if (!nsi_l1) return default_permission(l1, line);
  using State = nsi::L1Machine::State;
  switch (nsi_l1->state_of_line(line)) {
    case State::kEXC:
    case State::kMOD:
    case State::kMOD_L:
    case State::kEM_A:
    case State::kEW_A: return Permission::kWrite;
    case State::kSHD:
    case State::kSUS:
    case State::kSV_D: return Permission::kRead;
    default: return Permission::kNone;
  }
}

}  // namespace

ProtocolBinding protocol_binding(const std::string& name, const ProtocolOptions& options) {
  const Protocol& protocol = find_protocol(name);
  ProtocolBinding binding;
  const std::shared_ptr<ProtocolInstance> instance = configured_instance(protocol, options);
  binding.make_l1 = [instance](unsigned tile, const Geometry& geometry, const CacheShape& shape,
                               Environment& environment) { return instance->make_l1(tile, geometry, shape, environment); };
  binding.make_home = [instance](unsigned tile, const Geometry& geometry, const CacheShape& shape,
                                 Environment& environment) {
    return instance->make_home(tile, geometry, shape, environment);
  };
  binding.make_memory_controller = [](unsigned index, const Geometry& geometry, Environment& environment,
                                      MemoryBackend& memory) -> std::unique_ptr<Controller> {
    return std::make_unique<MemoryController>(index, geometry, environment, memory);
  };
  binding.message_name = protocol.message_name;
  if (name == "mesi") binding.permission = mesi_permission;
  if (name == "nsi") binding.permission = nsi_permission;
  return binding;
}

Permission default_permission(const L1Controller& l1, std::uint64_t line) {
  switch (l1.permission(line)) {  // the controller's own answer, if it gives one
    case L1Controller::Permission::kNone: return Permission::kNone;
    case L1Controller::Permission::kRead: return Permission::kRead;
    case L1Controller::Permission::kWrite: return Permission::kWrite;
    case L1Controller::Permission::kUnknown: break;
  }
  std::uint64_t word = 0;
  bool owner = false;
  if (!l1.peek(line, &word, sizeof word, owner)) return Permission::kNone;
  if (owner) return Permission::kWrite;
  std::string state = l1.describe(line);
  auto end = state.find_first_of(" (,:");
  std::string first = state.substr(0, end);
  if (first == "M" || first == "E" || first == "MOD" || first == "EXC" || first == "MODIFIED" || first == "EXCLUSIVE")
    return Permission::kWrite;
  return Permission::kRead;
}

std::string summary(const Result& result) {
  char text[256];
  std::snprintf(text, sizeof text,
                "%s: %llu states, %llu transitions, %llu terminal, depth %u, %.3f s (%.3f s CPU, %.0f states/s)",
                to_string(result.outcome), static_cast<unsigned long long>(result.states),
                static_cast<unsigned long long>(result.transitions),
                static_cast<unsigned long long>(result.terminal_states), result.max_depth, result.seconds,
                result.cpu_seconds,
                result.cpu_seconds > 0 ? static_cast<double>(result.states) / result.cpu_seconds : 0.0);
  return text;
}

namespace {

constexpr unsigned kWordBytes = 8;

// ---------------------------------------------------------------- hashing
// A 128-bit hash of the serialized state (two independently mixed 64-bit
// lanes): the visited set keeps hashes, not states.
struct Hash128 {
  std::uint64_t low = 0;
  std::uint64_t high = 0;
  bool operator==(const Hash128& other) const { return low == other.low && high == other.high; }
  bool operator<(const Hash128& other) const { return low != other.low ? low < other.low : high < other.high; }
};
struct Hash128Hasher {
  std::size_t operator()(const Hash128& hash) const { return static_cast<std::size_t>(hash.low); }
};

inline std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ull;
  x ^= x >> 27;
  x *= 0x81dadef4bc2dd44dull;
  x ^= x >> 33;
  return x;
}

Hash128 hash_bytes(const char* bytes, std::size_t size) {
  std::uint64_t low = 0x9e3779b97f4a7c15ull ^ size;
  std::uint64_t high = 0xc2b2ae3d27d4eb4full + size;
  std::size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, bytes + i, 8);
    low = mix(low ^ word) + 0x632be59bd9b4e019ull;
    high = mix(high + (word << 23 | word >> 41)) ^ 0x94d049bb133111ebull;
  }
  std::uint64_t tail = 0;
  std::memcpy(&tail, bytes + i, size - i);
  low = mix(low ^ tail ^ 0x5555555555555555ull);
  high = mix(high + tail + 0x3333333333333333ull);
  return {low, high};
}
Hash128 hash_string(const std::string& text) { return hash_bytes(text.data(), text.size()); }

template <typename T>
void append_raw(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

void append_message(std::string& out, const Message& message, unsigned line_bytes) {
  append_raw(out, message.type);
  append_raw(out, message.line);
  append_raw(out, message.source);
  append_raw(out, message.source_port);
  append_raw(out, message.destination);
  append_raw(out, message.destination_port);
  append_raw(out, message.requester);
  append_raw(out, message.vnet);
  append_raw(out, message.acks);
  append_raw(out, message.has_data);
  append_raw(out, message.dirty);
  append_raw(out, message.extension);
  if (message.has_data) out.append(reinterpret_cast<const char*>(message.data.data()), line_bytes);
}

std::string hex(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

// ---------------------------------------------------------------- failures
// A broken invariant found while applying a choice or checking a state.
struct Failure : std::runtime_error {
  Failure(Result::Outcome failed, const std::string& what) : std::runtime_error(what), outcome(failed), message(what) {}
  Result::Outcome outcome;
  std::string message;
};

// Thrown when a controller schedules an action for the first time: the
// explorer then records, for that controller, its state before every event
// (the identity of the actions it schedules) and redoes the step. Controllers
// that never schedule cost nothing.
struct FirstSchedule {};

// ---------------------------------------------------------------- memory
// The DDR below the memory controller is a FakeMemory (fake_memory.h) over
// the configured lines; each word starts with a value distinct from every
// stored value (which have a core number in bits 8..15).
std::uint64_t initial_value(unsigned line, unsigned word) { return 0x1a000000ull + line * 0x100 + word; }

std::unique_ptr<FakeMemory> exploration_memory(const std::vector<std::uint64_t>& lines, unsigned line_bytes) {
  auto memory = std::make_unique<FakeMemory>(lines.back() - lines.front() + line_bytes, 0, 0, 1, lines.front());
  for (std::size_t l = 0; l < lines.size(); ++l)
    for (unsigned w = 0; w < line_bytes / kWordBytes; ++w)
      memory->set_word(lines[l] + w * kWordBytes, initial_value(static_cast<unsigned>(l), w));
  return memory;
}

// ---------------------------------------------------------------- system
struct Choice {
  enum class Kind : std::uint8_t { kDeliver, kFire, kCore, kDrop, kDuplicate, kReorder };
  Kind kind;
  unsigned index;         // channel key, pending action index, or core
  unsigned position = 0;  // kDeliver without channel order: the message's place in its channel
};

class System;

// The Environment of one controller: sends go into the explorer's channels,
// scheduled actions into its pending set; time is the number of steps taken.
class ControllerEnvironment : public Environment {
 public:
  ControllerEnvironment(System& system, unsigned controller) : system_(system), controller_(controller) {}
  Cycles now() const override;
  void send(const Message& message, Cycles delay) override;
  void schedule(Cycles delay, std::function<void()> action) override;

 private:
  System& system_;
  unsigned controller_;
};

class System {
 public:
  System(const Configuration& configuration, const ProtocolBinding& binding,
         const std::vector<std::uint64_t>& line_addresses, const Geometry& geometry, std::vector<char>& schedulers)
      : configuration_(configuration),
        binding_(binding),
        lines_(line_addresses),
        geometry_(geometry),
        memory_(exploration_memory(line_addresses, configuration.line_bytes)),
        cores_(configuration.caches),
        schedulers_(schedulers) {
    const unsigned caches = configuration.caches;
    nodes_ = caches + geometry.memory_controllers;
    CacheShape l1_shape;
    l1_shape.size_bytes = std::uint64_t{configuration.l1_sets} * configuration.l1_ways * configuration.line_bytes;
    l1_shape.ways = configuration.l1_ways;
    l1_shape.latency = 1;
    CacheShape llc_shape;
    llc_shape.size_bytes = std::uint64_t{configuration.llc_sets} * configuration.llc_ways * configuration.line_bytes;
    llc_shape.ways = configuration.llc_ways;
    llc_shape.latency = 1;
    // Controllers: L1s 0 .. caches-1, homes caches .. 2*caches-1, then the
    // memory controllers; each has its own environment.
    const unsigned count = 2 * caches + geometry.memory_controllers;
    entries_.resize(count);
    for (unsigned c = 0; c < count; ++c) entries_[c].environment = std::make_unique<ControllerEnvironment>(*this, c);
    controllers_.build(geometry, l1_shape, llc_shape, *memory_, binding.make_l1, binding.make_home,
                       [this](unsigned node, Port port) -> Environment& {
                         return *entries_[static_cast<unsigned>(find_controller(node, port))].environment;
                       },
                       binding.make_memory_controller);
    for (unsigned c = 0; c < count; ++c) {
      Entry& entry = entries_[c];
      if (c < caches) {
        entry.node = c;
        entry.port = Port::kL1;
        entry.l1 = controllers_.l1s[c].get();
        entry.controller = entry.l1;
        entry.l1->set_miss_completion([this, c] { miss_completed(c); });
      } else if (c < 2 * caches) {
        entry.node = c - caches;
        entry.port = Port::kHome;
        entry.home = controllers_.homes[c - caches].get();
        entry.controller = entry.home;
      } else {
        entry.node = c - caches;
        entry.port = Port::kMemory;
        entry.memory = true;
        entry.controller = controllers_.memory_controllers[c - 2 * caches].get();
      }
    }
    reference_.resize(lines_.size() * words_per_line());
    for (std::size_t l = 0; l < lines_.size(); ++l)
      for (unsigned w = 0; w < words_per_line(); ++w)
        reference_[l * words_per_line() + w] = initial_value(static_cast<unsigned>(l), w);
    stores_.resize(reference_.size());
    for (std::size_t w = 0; w < reference_.size(); ++w) stores_[w].push_back(reference_[w]);
    released_.assign(reference_.size(), 0);
    floor_.assign(configuration.caches, std::vector<std::uint32_t>(reference_.size(), 0));
  }

  System(const System&) = delete;
  System& operator=(const System&) = delete;

  // ---- environment callbacks
  Cycles now() const { return steps_; }

  void send(unsigned controller, const Message& message) {
    const Entry& sender = entries_[controller];
    if (message.source != sender.node || message.source_port != sender.port)
      throw Failure{Result::Outcome::kOtherError, entries_[controller].controller->name() +
                                                      " sent a message whose source is node " +
                                                      std::to_string(message.source) + " port " +
                                                      std::to_string(static_cast<unsigned>(message.source_port)) +
                                                      ", not its own (node " + std::to_string(sender.node) + ")"};
    if (find_controller(message.destination, message.destination_port) < 0)
      throw Failure{Result::Outcome::kOtherError, sender.controller->name() + " sent " + describe_message(message) +
                                                      " to a node/port with no controller"};
    if (static_cast<unsigned>(message.vnet) > 2)
      throw Failure{Result::Outcome::kOtherError, sender.controller->name() + " sent a message on vnet " +
                                                      std::to_string(static_cast<unsigned>(message.vnet))};
    channels_[channel_key(message)].push_back(message);
    if (trace_) *trace_ += "      sends " + describe_message(message) + "\n";
  }

  void schedule(unsigned controller, Cycles delay, std::function<void()> action) {
    if (current_controller_ >= 0 && static_cast<int>(controller) != current_controller_)
      throw Failure{Result::Outcome::kOtherError,
                    entries_[controller].controller->name() + " scheduled an action during another's event"};
    // What the action does is fixed by the controller's state before the
    // event, the event, and how many actions it scheduled before in it
    // (controllers are deterministic): that is its identity in the state.
    // (Outside any event: during construction.)
    if (current_controller_ >= 0 && !event_captured_) {
      schedulers_[controller] = 1;
      throw FirstSchedule{};
    }
    if (current_controller_ < 0) {
      event_hash_ = {controller, 0x636f6e7374727563ull};
      if (constructing_index_ != controller) scheduled_in_event_ = 0;
      constructing_index_ = controller;
    }
    std::string key;
    append_raw(key, event_hash_.low);
    append_raw(key, event_hash_.high);
    append_raw(key, scheduled_in_event_++);
    append_raw(key, delay);
    pending_.push_back({controller, hash_string(key), delay, std::move(action)});
    if (trace_) *trace_ += "      schedules an action after " + std::to_string(delay) + " cycles\n";
  }

  // ---- choices
  void enumerate(std::vector<Choice>& choices, unsigned& normal) const {
    choices.clear();
    for (const auto& channel : channels_)
      for (unsigned p = 0; p < (configuration_.ordered_channels ? 1u : channel.second.size()); ++p)
        choices.push_back({Choice::Kind::kDeliver, channel.first, p});
    for (unsigned p = 0; p < pending_.size(); ++p) choices.push_back({Choice::Kind::kFire, p});
    for (unsigned c = 0; c < cores_.size(); ++c)
      if (!cores_[c].waiting && cores_[c].pc < script(c).size()) choices.push_back({Choice::Kind::kCore, c});
    normal = static_cast<unsigned>(choices.size());
    if (fault_used_ || configuration_.fault == Fault::kNone) return;
    for (const auto& channel : channels_) {
      if (channel.second.empty()) continue;
      switch (configuration_.fault) {
        case Fault::kDropMessage: choices.push_back({Choice::Kind::kDrop, channel.first}); break;
        case Fault::kDuplicateMessage: choices.push_back({Choice::Kind::kDuplicate, channel.first}); break;
        case Fault::kReorderMessages:
          if (channel.second.size() >= 2) choices.push_back({Choice::Kind::kReorder, channel.first});
          break;
        case Fault::kNone: break;
      }
    }
  }

  void apply(const Choice& choice) {
    ++steps_;
    switch (choice.kind) {
      case Choice::Kind::kDeliver:
      case Choice::Kind::kDuplicate:
      case Choice::Kind::kReorder: {
        auto& channel = channels_.at(choice.index);
        std::size_t position = choice.kind == Choice::Kind::kReorder ? 1 : choice.position;
        Message message = channel[position];
        if (choice.kind != Choice::Kind::kDuplicate) channel.erase(channel.begin() + position);
        if (channel.empty()) channels_.erase(choice.index);
        if (choice.kind != Choice::Kind::kDeliver) fault_used_ = true;
        unsigned destination = static_cast<unsigned>(find_controller(message.destination, message.destination_port));
        begin_event(destination);
        if (schedulers_[destination]) {
          std::string event;
          append_raw(event, std::uint8_t{1});
          append_message(event, message, configuration_.line_bytes);
          capture_event(destination, event);
        }
        entries_[destination].controller->handle(message);
        end_event();
        break;
      }
      case Choice::Kind::kDrop: {
        auto& channel = channels_.at(choice.index);
        channel.erase(channel.begin());
        if (channel.empty()) channels_.erase(choice.index);
        fault_used_ = true;
        break;
      }
      case Choice::Kind::kFire: {
        Pending pending = std::move(pending_.at(choice.index));
        pending_.erase(pending_.begin() + choice.index);
        begin_event(pending.controller);
        if (schedulers_[pending.controller]) {
          std::string event;
          append_raw(event, std::uint8_t{2});
          append_raw(event, pending.fingerprint.low);
          append_raw(event, pending.fingerprint.high);
          capture_event(pending.controller, event);
        }
        pending.action();
        end_event();
        break;
      }
      case Choice::Kind::kCore: issue(choice.index); break;
    }
  }

  // ---- invariants
  void check_invariants() const {
    for (std::size_t l = 0; l < lines_.size(); ++l) {
      const std::uint64_t line = lines_[l];
      if (configuration_.check_single_writer) {
        unsigned writers = 0, readers = 0;
        for (unsigned i = 0; i < configuration_.caches; ++i) {
          Permission permission = permission_of(i, line);
          writers += permission == Permission::kWrite;
          readers += permission == Permission::kRead;
        }
        if (writers > 1 || (writers == 1 && readers > 0 && !configuration_.allow_readers_with_writer))
          throw Failure{Result::Outcome::kSingleWriterViolation,
                        "line " + hex(line) + " has " + std::to_string(writers) + " writer(s) and " +
                            std::to_string(readers) + " reader(s): " + line_permissions(line)};
      }
      if (configuration_.check_data_value) {
        for (unsigned i = 0; i < configuration_.caches; ++i) {
          // Copies the core cannot use (a write-back buffer's) may be stale;
          // under weak consistency read-only ones too.
          const Permission permission = permission_of(i, line);
          if (permission == Permission::kNone) continue;
          if (configuration_.happens_before_data_value && permission != Permission::kWrite) continue;
          for (unsigned w = 0; w < words_per_line(); ++w) {
            std::uint64_t value = 0;
            bool owner = false;
            if (!entries_[i].l1->peek(line + w * kWordBytes, &value, kWordBytes, owner)) break;
            std::uint64_t expected = reference_[l * words_per_line() + w];
            if (value != expected)
              throw Failure{Result::Outcome::kDataValueViolation,
                            entries_[i].controller->name() + " holds " + hex(value) + " in word " + std::to_string(w) +
                                " of line " + hex(line) + " (" + entries_[i].controller->describe(line) +
                                ") but the last store performed to it wrote " + hex(expected)};
          }
        }
      }
    }
  }

  // A state with no enabled choice: everything must be finished.
  void check_terminal() const {
    std::string problems;
    for (unsigned c = 0; c < cores_.size(); ++c) {
      if (cores_[c].waiting)
        problems += "core " + std::to_string(c) + " waits for its miss (" + describe_operation(c) + "); ";
      else if (cores_[c].pc < script(c).size())
        problems += "core " + std::to_string(c) + " has not finished its script; ";
    }
    for (const Entry& entry : entries_)
      if (!entry.controller->quiescent()) problems += entry.controller->name() + " is not quiescent; ";
    if (!problems.empty()) throw Failure{Result::Outcome::kDeadlock, "nothing can happen but " + problems};
    if (!configuration_.check_data_value) return;
    // At rest the last stored value must be where the protocol says it is:
    // at a dirty owner L1, or else in the LLC if it holds the line, or else
    // in memory.
    for (std::size_t l = 0; l < lines_.size(); ++l) {
      const std::uint64_t line = lines_[l];
      bool dirty_owner = false;
      for (unsigned i = 0; i < configuration_.caches; ++i) {
        std::uint64_t value;
        bool owner = false;
        if (entries_[i].l1->peek(line, &value, kWordBytes, owner) && owner) dirty_owner = true;
      }
      if (dirty_owner) continue;
      const Entry& home = entries_[configuration_.caches + geometry_.home_of(line)];
      for (unsigned w = 0; w < words_per_line(); ++w) {
        std::uint64_t value = 0;
        std::uint64_t expected = reference_[l * words_per_line() + w];
        const char* where = "the LLC";
        if (!home.home->peek(line + w * kWordBytes, &value, kWordBytes)) {
          where = "memory";
          value = memory_->word(line + w * kWordBytes);
        }
        if (value != expected)
          throw Failure{Result::Outcome::kDataValueViolation,
                        std::string("at rest, with no dirty L1 copy, ") + where + " holds " + hex(value) +
                            " in word " + std::to_string(w) + " of line " + hex(line) +
                            " but the last store performed to it wrote " + hex(expected)};
      }
    }
  }

  // ---- state
  void serialize(std::string& out) const {
    out.clear();
    for (const Entry& entry : entries_) {
      std::size_t start = out.size();
      append_raw(out, std::uint32_t{0});
      entry.controller->serialize(out);
      std::uint32_t length = static_cast<std::uint32_t>(out.size() - start);
      std::memcpy(&out[start], &length, sizeof length);
    }
    for (const auto& channel : channels_) {
      append_raw(out, channel.first);
      append_raw(out, static_cast<std::uint32_t>(channel.second.size()));
      for (const Message& message : channel.second) append_message(out, message, configuration_.line_bytes);
    }
    append_raw(out, std::uint32_t{0xffffffff});
    std::vector<std::pair<unsigned, Hash128>> pending;
    for (const Pending& p : pending_) pending.push_back({p.controller, p.fingerprint});
    std::sort(pending.begin(), pending.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second < b.second;
    });
    for (const auto& p : pending) {
      append_raw(out, p.first);
      append_raw(out, p.second.low);
      append_raw(out, p.second.high);
    }
    append_raw(out, std::uint32_t{0xfffffffe});
    for (const Core& core : cores_) {
      append_raw(out, core.pc);
      append_raw(out, core.phase);
      append_raw(out, core.waiting);
    }
    for (std::uint64_t word : reference_) append_raw(out, word);
    if (configuration_.happens_before_data_value) {
      for (const auto& order : stores_) {
        append_raw(out, static_cast<std::uint32_t>(order.size()));
        for (std::uint64_t value : order) append_raw(out, value);
      }
      for (std::uint32_t floor : released_) append_raw(out, floor);
      for (const auto& core : floor_)
        for (std::uint32_t floor : core) append_raw(out, floor);
    }
    serialize_memory(out);
    append_raw(out, fault_used_);
  }

  // ---- descriptions
  std::string describe_choice(const Choice& choice) const {
    switch (choice.kind) {
      case Choice::Kind::kDeliver:
        return "deliver " + describe_message(channels_.at(choice.index).at(choice.position));
      case Choice::Kind::kDuplicate:
        return "FAULT: deliver without removing it " + describe_message(channels_.at(choice.index).front());
      case Choice::Kind::kReorder:
        return "FAULT: deliver before the message ahead of it " + describe_message(channels_.at(choice.index)[1]);
      case Choice::Kind::kDrop: return "FAULT: drop " + describe_message(channels_.at(choice.index).front());
      case Choice::Kind::kFire:
        return "scheduled action of " + entries_[pending_.at(choice.index).controller].controller->name() +
               " (after " + std::to_string(pending_.at(choice.index).delay) + " cycles)";
      case Choice::Kind::kCore: return "core " + std::to_string(choice.index) + " issues " + describe_operation(choice.index);
    }
    return "?";
  }

  std::string describe_message(const Message& message) const {
    static const char* kVnets[] = {"request", "forward", "response"};
    std::string text = binding_.message_name ? binding_.message_name(message.type) : "type " + std::to_string(message.type);
    text += " " + endpoint(message.source, message.source_port) + " -> " +
            endpoint(message.destination, message.destination_port) + ", line " + hex(message.line) + ", " +
            kVnets[static_cast<unsigned>(message.vnet) % 3];
    if (message.requester != message.source) text += ", for L1 " + std::to_string(message.requester);
    if (message.acks != 0) text += ", acks " + std::to_string(message.acks);
    if (message.has_data) {
      text += message.dirty ? ", dirty data [" : ", data [";
      for (unsigned w = 0; w < words_per_line(); ++w) {
        std::uint64_t value;
        std::memcpy(&value, message.data.data() + w * kWordBytes, kWordBytes);
        text += (w ? " " : "") + hex(value);
      }
      text += "]";
    }
    return text;
  }

  std::string describe_state() const {
    std::string text;
    for (std::size_t l = 0; l < lines_.size(); ++l) {
      const std::uint64_t line = lines_[l];
      text += "    line " + hex(line) + " (reference";
      for (unsigned w = 0; w < words_per_line(); ++w) text += " " + hex(reference_[l * words_per_line() + w]);
      text += "):";
      for (const Entry& entry : entries_) {
        if (entry.memory) continue;
        if (entry.home && entry.node != geometry_.home_of(line)) continue;
        text += " " + entry.controller->name() + "=" + entry.controller->describe(line) + ";";
      }
      text += "\n";
    }
    unsigned in_flight = 0;
    for (const auto& channel : channels_) in_flight += static_cast<unsigned>(channel.second.size());
    text += "    in flight: " + std::to_string(in_flight) + " message(s), " + std::to_string(pending_.size()) +
            " scheduled action(s); cores:";
    for (unsigned c = 0; c < cores_.size(); ++c)
      text += " " + std::to_string(c) + (cores_[c].waiting ? " waiting" : "") + " at " + std::to_string(cores_[c].pc) +
              "/" + std::to_string(script(c).size());
    return text + "\n";
  }

  void set_trace(std::string* trace) { trace_ = trace; }
  unsigned controllers() const { return static_cast<unsigned>(entries_.size()); }

 private:
  struct Entry {
    std::unique_ptr<ControllerEnvironment> environment;
    Controller* controller = nullptr;  // owned by controllers_
    L1Controller* l1 = nullptr;
    HomeController* home = nullptr;
    bool memory = false;
    unsigned node = 0;
    Port port = Port::kL1;
  };
  struct Pending {
    unsigned controller;
    Hash128 fingerprint;
    Cycles delay;
    std::function<void()> action;
  };
  struct Core {
    unsigned pc = 0;         // next operation of the script
    std::uint8_t phase = 0;  // kMakeWritableStore: 0 make writable, 1 store
    bool waiting = false;    // a miss is outstanding
    L1Controller::Access access = L1Controller::Access::kLoad;
    std::uint64_t buffer = 0;  // the access's data (must stay valid during a miss)
  };

  const std::vector<ScriptOperation>& script(unsigned core) const {
    static const std::vector<ScriptOperation> kEmpty;
    return core < configuration_.scripts.size() ? configuration_.scripts[core] : kEmpty;
  }
  unsigned words_per_line() const { return configuration_.line_bytes / kWordBytes; }
  // The configured lines' bytes in memory, in address order.
  void serialize_memory(std::string& out) const {
    for (std::uint64_t line : lines_) out.append(reinterpret_cast<const char*>(memory_->at(line)), configuration_.line_bytes);
  }

  int find_controller(unsigned node, Port port) const {
    const unsigned caches = configuration_.caches;
    switch (port) {
      case Port::kL1: return node < caches ? static_cast<int>(node) : -1;
      case Port::kHome: return node < caches ? static_cast<int>(caches + node) : -1;
      case Port::kMemory:
        return node >= caches && node < nodes_ ? static_cast<int>(2 * caches + (node - caches)) : -1;
    }
    return -1;
  }
  // One FIFO per (source node, destination node, vnet), as the mesh orders.
  unsigned channel_key(const Message& message) const {
    return (message.source * nodes_ + message.destination) * 3 + static_cast<unsigned>(message.vnet);
  }
  std::string endpoint(unsigned node, Port port) const {
    int controller = find_controller(node, port);
    if (controller >= 0) return entries_[controller].controller->name();
    return "node " + std::to_string(node) + " port " + std::to_string(static_cast<unsigned>(port));
  }

  Permission permission_of(unsigned l1, std::uint64_t line) const {
    if (configuration_.permission) return configuration_.permission(*entries_[l1].l1, line);
    if (binding_.permission) return binding_.permission(*entries_[l1].l1, line);
    return default_permission(*entries_[l1].l1, line);
  }
  std::string line_permissions(std::uint64_t line) const {
    std::string text;
    for (unsigned i = 0; i < configuration_.caches; ++i)
      text += entries_[i].controller->name() + " " + entries_[i].l1->describe(line) + " (" +
              to_string(permission_of(i, line)) + ")" + (i + 1 < configuration_.caches ? ", " : "");
    return text;
  }

  void begin_event(unsigned controller) {
    current_controller_ = static_cast<int>(controller);
    scheduled_in_event_ = 0;
    event_captured_ = false;
  }
  // The identity of the event for the actions it schedules: the event and
  // the controller's whole state before it.
  void capture_event(unsigned controller, const std::string& event) {
    std::string key = event;
    append_raw(key, controller);
    entries_[controller].controller->serialize(key);
    if (entries_[controller].memory) serialize_memory(key);
    event_hash_ = hash_string(key);
    event_captured_ = true;
  }
  void end_event() { current_controller_ = -1; }

  std::uint64_t store_value(unsigned core, unsigned pc) const {
    return 0x5100000000ull + (std::uint64_t{core + 1} << 8) + pc + 1;
  }
  std::string describe_operation(unsigned core) const {
    const ScriptOperation& operation = script(core).at(cores_[core].pc);
    std::string where = "line " + hex(lines_.at(operation.line)) + " word " + std::to_string(operation.word);
    switch (operation.kind) {
      case ScriptOperation::Kind::kLoad: return "load " + where;
      case ScriptOperation::Kind::kStore: return "store " + hex(store_value(core, cores_[core].pc)) + " to " + where;
      case ScriptOperation::Kind::kMakeWritableStore:
        return (cores_[core].phase == 0 ? "make-writable of " : "store (after make-writable) " +
                                                                    hex(store_value(core, cores_[core].pc)) + " to ") +
               where;
      case ScriptOperation::Kind::kMakeWritable: return "make-writable of " + where;
      case ScriptOperation::Kind::kSynchronise: return "synchronise";
    }
    return "?";
  }

  void issue(unsigned c) {
    Core& core = cores_[c];
    const ScriptOperation& operation = script(c).at(core.pc);
    if (operation.line >= lines_.size() || (operation.word + 1) * kWordBytes > configuration_.line_bytes)
      throw std::invalid_argument("script of core " + std::to_string(c) + " names line " +
                                  std::to_string(operation.line) + " word " + std::to_string(operation.word) +
                                  ", outside the configuration");
    const std::uint64_t address = lines_[operation.line] + operation.word * kWordBytes;
    if (operation.kind == ScriptOperation::Kind::kSynchronise) {
      begin_event(c);
      if (schedulers_[c]) {
        std::string event;
        append_raw(event, std::uint8_t{4});
        capture_event(c, event);
      }
      entries_[c].l1->synchronise();
      end_event();
      if (trace_) *trace_ += "      core " + std::to_string(c) + " synchronises\n";
      // Every synchronisation acquires what all earlier ones released.
      for (std::size_t w = 0; w < released_.size(); ++w) {
        released_[w] = std::max(released_[w], floor_[c][w]);
        floor_[c][w] = released_[w];
      }
      ++core.pc;
      return;
    }
    if (operation.kind == ScriptOperation::Kind::kLoad) {
      core.access = L1Controller::Access::kLoad;
      core.buffer = 0xdeadbeefdeadbeefull;
    } else if ((operation.kind == ScriptOperation::Kind::kMakeWritableStore && core.phase == 0) ||
               operation.kind == ScriptOperation::Kind::kMakeWritable) {
      core.access = L1Controller::Access::kMakeWritable;
    } else {
      core.access = L1Controller::Access::kStore;
      core.buffer = store_value(c, core.pc);
    }
    core.waiting = true;
    begin_event(c);
    if (schedulers_[c]) {
      std::string event;
      append_raw(event, std::uint8_t{3});
      append_raw(event, core.access);
      append_raw(event, address);
      append_raw(event, core.buffer);
      capture_event(c, event);
    }
    bool hit = entries_[c].l1->access(core.access, address, &core.buffer, kWordBytes);
    end_event();
    if (hit) {
      if (!core.waiting)
        throw Failure{Result::Outcome::kOtherError,
                      entries_[c].controller->name() + " both completed a miss and reported a hit for one access"};
      if (trace_) *trace_ += "      hit\n";
      perform(c);
    } else if (trace_ && core.waiting) {
      *trace_ += "      miss\n";
    }
  }

  void miss_completed(unsigned c) {
    if (!cores_[c].waiting)
      throw Failure{Result::Outcome::kOtherError,
                    entries_[c].controller->name() + " completed a miss while its core had none outstanding"};
    if (trace_) *trace_ += "      miss of core " + std::to_string(c) + " completes\n";
    perform(c);
  }

  // The access performs: loads are checked against the reference memory,
  // stores update it.
  void perform(unsigned c) {
    Core& core = cores_[c];
    const ScriptOperation& operation = script(c).at(core.pc);
    const std::size_t word = operation.line * words_per_line() + operation.word;
    core.waiting = false;
    // (No permission check here: the controller may already have served a
    // forward that waited for this access within the same event, e.g. MESI's
    // parked ShdIntervention after IM_D -> M; the state checks run after
    // every step.)
    switch (core.access) {
      case L1Controller::Access::kLoad:
        if (trace_) *trace_ += "      core " + std::to_string(c) + " loads " + hex(core.buffer) + "\n";
        if (configuration_.check_data_value && configuration_.happens_before_data_value) {
          const std::uint32_t order = store_order(word, core.buffer);
          if (order == kUnknownStore || order < floor_[c][word])
            throw Failure{Result::Outcome::kDataValueViolation,
                          "core " + std::to_string(c) + " loaded " + hex(core.buffer) + " from line " +
                              hex(lines_[operation.line]) + " word " + std::to_string(operation.word) +
                              (order == kUnknownStore ? std::string(", a value never stored there")
                                                      : ", older than " + hex(stores_[word][floor_[c][word]]) +
                                                            ", which happens-before the load (or was read before)")};
          floor_[c][word] = order;
          ++core.pc;
          break;
        }
        if (configuration_.check_data_value && core.buffer != reference_[word])
          throw Failure{Result::Outcome::kDataValueViolation,
                        "core " + std::to_string(c) + " loaded " + hex(core.buffer) + " from line " +
                            hex(lines_[operation.line]) + " word " + std::to_string(operation.word) +
                            " but the last store performed to it wrote " + hex(reference_[word])};
        ++core.pc;
        break;
      case L1Controller::Access::kStore:
        if (trace_) *trace_ += "      core " + std::to_string(c) + " stores " + hex(core.buffer) + "\n";
        reference_[word] = core.buffer;
        stores_[word].push_back(core.buffer);
        floor_[c][word] = static_cast<std::uint32_t>(stores_[word].size() - 1);
        ++core.pc;
        core.phase = 0;
        break;
      case L1Controller::Access::kMakeWritable:
        if (trace_) *trace_ += "      core " + std::to_string(c) + " has write permission\n";
        if (operation.kind == ScriptOperation::Kind::kMakeWritable)
          ++core.pc;
        else
          core.phase = 1;
        break;
    }
  }

  const Configuration& configuration_;
  const ProtocolBinding& binding_;
  std::vector<std::uint64_t> lines_;
  Geometry geometry_;
  unsigned nodes_ = 0;
  std::unique_ptr<FakeMemory> memory_;
  std::vector<Entry> entries_;
  ControllerSet<> controllers_;
  std::map<unsigned, std::vector<Message>> channels_;
  std::vector<Pending> pending_;
  std::vector<Core> cores_;
  std::vector<std::uint64_t> reference_;  // last performed store per word
  // happens_before_data_value: per word, its stores in the order they
  // performed (index 0: the initial value); per core and word, the index of
  // the newest store the core must see; per word, the newest index released
  // by any synchronisation so far.
  static constexpr std::uint32_t kUnknownStore = 0xffffffffu;
  std::uint32_t store_order(std::size_t word, std::uint64_t value) const {
    for (std::size_t i = stores_[word].size(); i-- > 0;)
      if (stores_[word][i] == value) return static_cast<std::uint32_t>(i);
    return kUnknownStore;
  }
  std::vector<std::vector<std::uint64_t>> stores_;
  std::vector<std::vector<std::uint32_t>> floor_;
  std::vector<std::uint32_t> released_;
  bool fault_used_ = false;
  Cycles steps_ = 0;
  int current_controller_ = -1;
  Hash128 event_hash_;
  bool event_captured_ = false;
  unsigned scheduled_in_event_ = 0;
  unsigned constructing_index_ = ~0u;
  std::vector<char>& schedulers_;  // per controller: it schedules actions (shared by all builds)
  std::string* trace_ = nullptr;
};

Cycles ControllerEnvironment::now() const { return system_.now(); }
void ControllerEnvironment::send(const Message& message, Cycles) { system_.send(controller_, message); }
void ControllerEnvironment::schedule(Cycles delay, std::function<void()> action) {
  system_.schedule(controller_, delay, std::move(action));
}

// ---------------------------------------------------------------- search
struct Record {
  std::uint32_t parent;
  std::uint16_t choice;
};
constexpr std::uint32_t kRoot = std::numeric_limits<std::uint32_t>::max();

void validate(const Configuration& configuration) {
  auto fail = [](const std::string& what) { throw std::invalid_argument("coherence explorer: " + what); };
  if (configuration.caches < 1 || configuration.caches > 8) fail("caches must be 1..8");
  if (configuration.lines < 1 || configuration.lines > 8) fail("lines must be 1..8");
  if (configuration.line_bytes < kWordBytes || configuration.line_bytes > kMaxLineBytes ||
      (configuration.line_bytes & (configuration.line_bytes - 1)) != 0)
    fail("line_bytes must be a power of two in 8.." + std::to_string(kMaxLineBytes));
  if (configuration.l1_sets == 0 || configuration.l1_ways == 0 || configuration.llc_sets == 0 ||
      configuration.llc_ways == 0)
    fail("cache sets and ways must be at least 1");
  if (configuration.scripts.size() > configuration.caches)
    fail(std::to_string(configuration.scripts.size()) + " scripts for " + std::to_string(configuration.caches) +
         " caches");
  for (std::size_t c = 0; c < configuration.scripts.size(); ++c)
    for (const ScriptOperation& operation : configuration.scripts[c])
      if (operation.line >= configuration.lines || (operation.word + 1) * kWordBytes > configuration.line_bytes)
        fail("script of core " + std::to_string(c) + " names line " + std::to_string(operation.line) + " word " +
             std::to_string(operation.word) + ", outside " + std::to_string(configuration.lines) + " line(s) of " +
             std::to_string(configuration.line_bytes) + " bytes");
}

}  // namespace

Result explore(const Configuration& configuration) {
  validate(configuration);
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();
  std::shared_ptr<ProtocolBinding> binding = configuration.binding;
  if (!binding) {
    ProtocolOptions options = configuration.options;
    if (configuration.protocol == "nsi" && !options.count("periodic_synchronisation_cycles"))
      options["periodic_synchronisation_cycles"] = 0;
    binding = std::make_shared<ProtocolBinding>(protocol_binding(configuration.protocol, options));
  }

  Geometry geometry;
  geometry.tiles = configuration.caches;
  geometry.memory_controllers = 1;
  geometry.line_bytes = configuration.line_bytes;
  std::vector<std::uint64_t> lines;
  for (unsigned l = 0; l < configuration.lines; ++l) {
    // Sharing a home: lines a whole interleave period apart (one home, and
    // the same set of every cache with a power-of-two number of sets).
    std::uint64_t stride = configuration.lines_share_home
                               ? std::uint64_t{configuration.line_bytes} * configuration.caches *
                                     std::max(configuration.l1_sets, configuration.llc_sets)
                               : configuration.line_bytes;
    lines.push_back(configuration.base_address + l * stride);
  }

  Result result;
  std::vector<Record> records;
  std::unordered_set<Hash128, Hash128Hasher> visited;
  std::vector<Choice> choices;
  std::vector<std::uint16_t> path;
  std::string state;

  std::vector<char> schedulers(2 * configuration.caches + geometry.memory_controllers, 0);
  auto build = [&] { return std::make_unique<System>(configuration, *binding, lines, geometry, schedulers); };
  auto path_to = [&](std::size_t record, std::vector<std::uint16_t>& out) {
    out.clear();
    for (std::uint32_t r = static_cast<std::uint32_t>(record); records[r].parent != kRoot; r = records[r].parent)
      out.push_back(records[r].choice);
    std::reverse(out.begin(), out.end());
  };
  auto replay = [&](System& system, const std::vector<std::uint16_t>& steps) {
    std::vector<Choice> available;
    unsigned normal;
    for (std::uint16_t step : steps) {
      system.enumerate(available, normal);
      system.apply(available.at(step));
    }
    result.replayed_steps += steps.size();
  };
  // On a failure: replay the path again, this time writing every step.
  auto fail = [&](const Failure& failure, std::vector<std::uint16_t> steps, bool terminal) {
    result.outcome = failure.outcome;
    result.message = failure.message;
    std::string trace;
    auto system = build();
    system->set_trace(&trace);
    trace += "initial state:\n" + system->describe_state();
    std::vector<Choice> available;
    unsigned normal;
    for (std::size_t i = 0; i < steps.size(); ++i) {
      system->enumerate(available, normal);
      trace += "step " + std::to_string(i + 1) + ": " + system->describe_choice(available.at(steps[i])) + "\n";
      try {
        system->apply(available.at(steps[i]));
        if (i + 1 < steps.size() || terminal) trace += system->describe_state();
      } catch (const Failure& again) {
        trace += "      FAILS: " + again.message + "\n";
      } catch (const std::exception& error) {
        trace += "      FAILS: " + std::string(error.what()) + "\n";
      }
    }
    if (!terminal && !steps.empty()) trace += system->describe_state();
    trace += std::string(to_string(failure.outcome)) + ": " + failure.message + "\n";
    result.trace = std::move(trace);
  };
  auto finish = [&] {
    result.states = records.size();
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
    return result;
  };

  {
    auto system = build();
    try {
      system->check_invariants();
    } catch (const Failure& failure) {
      fail(failure, {}, false);
      return finish();
    }
    system->serialize(state);
    visited.insert(hash_string(state));
    records.push_back({kRoot, 0});
  }
  std::vector<unsigned> depth_of{0};  // of each record (BFS: shortest)

  for (std::size_t current = 0; current < records.size(); ++current) {
    path_to(current, path);
    result.max_depth = std::max(result.max_depth, depth_of[current]);
    auto system = build();
    replay(*system, path);
    unsigned normal = 0;
    system->enumerate(choices, normal);
    if (normal == 0) {
      ++result.terminal_states;
      try {
        system->check_terminal();
      } catch (const Failure& failure) {
        fail(failure, path, true);
        return finish();
      }
    }
    const std::size_t count = choices.size();
    if (count > std::numeric_limits<std::uint16_t>::max())
      throw std::runtime_error("coherence explorer: too many choices in one state");
    for (std::size_t c = 0; c < count; ++c) {
      if (c > 0) {
        system = build();
        replay(*system, path);
        system->enumerate(choices, normal);
      }
      ++result.transitions;
      Failure failure{Result::Outcome::kPassed, ""};
      try {
        for (unsigned attempt = 0;; ++attempt) {
          try {
            system->apply(choices[c]);
            break;
          } catch (const FirstSchedule&) {
            // Now that controller's events are captured: redo the step.
            if (attempt > system->controllers())
              throw std::logic_error("coherence explorer: a step keeps scheduling for the first time");
            system = build();
            replay(*system, path);
            system->enumerate(choices, normal);
          }
        }
        system->check_invariants();
      } catch (const Failure& caught) {
        failure = caught;
      } catch (const ProtocolError& error) {
        failure = {Result::Outcome::kProtocolError, error.what()};
      } catch (const std::exception& error) {
        failure = {Result::Outcome::kOtherError, error.what()};
      }
      if (failure.outcome != Result::Outcome::kPassed) {
        std::vector<std::uint16_t> failing = path;
        failing.push_back(static_cast<std::uint16_t>(c));
        fail(failure, failing, false);
        return finish();
      }
      system->serialize(state);
      if (visited.insert(hash_string(state)).second) {
        if (records.size() >= std::numeric_limits<std::uint32_t>::max() - 1)
          throw std::runtime_error("coherence explorer: more than 4 G states");
        records.push_back({static_cast<std::uint32_t>(current), static_cast<std::uint16_t>(c)});
        depth_of.push_back(depth_of[current] + 1);
        if (configuration.max_states != 0 && records.size() >= configuration.max_states) {
          result.outcome = Result::Outcome::kStateLimit;
          return finish();
        }
      }
    }
  }
  return finish();
}

}  // namespace npuvp::coherence::exploration
