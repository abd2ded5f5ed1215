// Pieces every protocol's controllers share, so that a protocol's files keep
// only what is specific to it (its tables and its actions):
//  - L1ControllerBase: the members of every protocol's L1 (its identity,
//    cache array, the core's pending access, the atomic's lock, parked
//    forwards), beneath TableDrivenL1 (table_driven_controller.h);
//  - ParkedForwards: an L1's queue of forwards it cannot take in its line's
//    current (transient) state, retried in arrival order after each event;
//  - WaitingRequests: a home's queue of requests waiting for a busy line or
//    a free way, served per line in arrival order;
//  - message_to_home(): the header of a message from an L1 to its line's
//    home; the errors for a misdelivered or unexpected message;
//  - enter_state(): a table row's next state applied to a cache way;
//  - make_room(): choosing and evicting an LLC victim; peek/poke of an LLC
//    bank's data;
//  - protocol_entry(): the registry entry of a protocol (one with
//    parameters adds its make_instance).
#pragma once

#include "coherence/cache_array.h"
#include "coherence/coherence.h"
#include "coherence/protocol_registry.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace npuvp::coherence {

class ParkedForwards {
 public:
  // Parks `message`; one parked again while being retried is not counted twice.
  void park(const Message& message, std::uint64_t& stalled_messages) {
    if (!retrying_) ++stalled_messages;
    queue_.push_back(message);
  }
  // Hands every parked forward, oldest first, to `process`, which parks
  // again (in order) those whose line is still busy.
  template <typename Process>
  void retry(Process&& process) {
    if (queue_.empty()) return;
    std::deque<Message> queue;
    queue.swap(queue_);
    retrying_ = true;
    for (const Message& message : queue) process(message);
    retrying_ = false;
  }
  bool empty() const { return queue_.empty(); }
  unsigned on_line(std::uint64_t line) const {
    unsigned count = 0;
    for (const Message& message : queue_) count += message.line == line;
    return count;
  }
  // The explorer's state key of the queue.
  void serialize(std::string& out) const {
    for (const Message& message : queue_)
      out += "stalled" + std::to_string(message.type) + '@' + std::to_string(message.line) + ';';
  }

 private:
  std::deque<Message> queue_;
  bool retrying_ = false;
};

class WaitingRequests {
 public:
  // Queues `message`; one queued again while being retried is not counted twice.
  void park(const Message& message, std::uint64_t& stalled_messages) {
    if (!retrying_) ++stalled_messages;
    queue_.push_back(message);
  }
  bool empty() const { return queue_.empty(); }
  bool retrying() const { return retrying_; }
  // Whether a request for `line` waits already (a new one goes behind it).
  bool has_line(std::uint64_t line) const {
    for (const Message& message : queue_)
      if (message.line == line) return true;
    return false;
  }
  unsigned on_line(std::uint64_t line) const {
    unsigned count = 0;
    for (const Message& message : queue_) count += message.line == line;
    return count;
  }
  // Serves waiting requests, oldest first, in passes: `serve(message)`
  // returns false when the request had to wait again (it re-queued itself),
  // which blocks the later requests of its line for the rest of the pass.
  // After each pass `another_pass(served_any)` says whether the pass made
  // progress worth another one. Not re-entered from inside a pass.
  template <typename Serve, typename AnotherPass>
  void retry(Serve&& serve, AnotherPass&& another_pass) {
    if (retrying_ || queue_.empty()) return;
    retrying_ = true;
    std::vector<std::uint64_t> blocked;
    for (;;) {
      std::deque<Message> waiting;
      waiting.swap(queue_);
      blocked.clear();
      bool served_any = false;
      for (const Message& message : waiting) {
        bool line_blocked = false;
        for (std::uint64_t line : blocked) line_blocked |= line == message.line;
        if (line_blocked)
          queue_.push_back(message);
        else if (serve(message))
          served_any = true;
        else
          blocked.push_back(message.line);
      }
      if (!another_pass(served_any) || queue_.empty()) break;
    }
    retrying_ = false;
  }
  // The explorer's state key of the queue; `data_bytes` > 0 appends the
  // data of the requests carrying some.
  void serialize(std::string& out, unsigned data_bytes = 0) const {
    for (const Message& message : queue_) {
      out += "stalled" + std::to_string(message.type) + '@' + std::to_string(message.line) + '/' +
             std::to_string(message.source) + ';';
      if (message.extension) out += 'v' + std::to_string(message.extension) + ';';  // the protocol's header word
      if (data_bytes && message.has_data) out.append(reinterpret_cast<const char*>(message.data.data()), data_bytes);
    }
  }

 private:
  std::deque<Message> queue_;
  bool retrying_ = false;
};

// An L1's write-back buffer (MESI, NSI): an evicted line that must tell the
// home (Replace) leaves the cache array and waits here, in a transient
// state, for the AckChange; loads and forwards still find it by line.
// `kFree` is the protocol's absent state, which marks an unused entry.
template <typename State, State kFree>
class WritebackBuffer {
 public:
  explicit WritebackBuffer(unsigned entries) : entries_(entries == 0 ? 1 : entries) {}

  // The entry holding `line`, or -1.
  int find(std::uint64_t line) const {
    for (unsigned i = 0; i < entries_.size(); ++i)
      if (entries_[i].state != kFree && entries_[i].line == line) return static_cast<int>(i);
    return -1;
  }
  bool has_free_entry() const {
    for (const Entry& entry : entries_)
      if (entry.state == kFree) return true;
    return false;
  }
  bool empty() const {
    for (const Entry& entry : entries_)
      if (entry.state != kFree) return false;
    return true;
  }
  // Takes `line` in `state` with its `bytes` of `data`; returns the entry.
  // ProtocolError (naming `controller`) when every entry is taken: callers
  // check has_free_entry() before they evict.
  int insert(std::uint64_t line, State state, const std::uint8_t* data, unsigned bytes,
             const Controller& controller) {
    for (unsigned i = 0; i < entries_.size(); ++i) {
      Entry& entry = entries_[i];
      if (entry.state != kFree) continue;
      entry.line = line;
      entry.state = state;
      std::memcpy(entry.data.data(), data, bytes);
      return static_cast<int>(i);
    }
    throw ProtocolError(controller.name() + ": internal error, write-back buffer full");
  }
  State state(int entry) const { return entries_[static_cast<unsigned>(entry)].state; }
  void set_state(int entry, State state) { entries_[static_cast<unsigned>(entry)].state = state; }
  std::uint8_t* data(int entry) { return entries_[static_cast<unsigned>(entry)].data.data(); }
  const std::uint8_t* data(int entry) const { return entries_[static_cast<unsigned>(entry)].data.data(); }
  // The explorer's state key: "wb<line>:<state>:<data>;" per taken entry.
  void serialize(std::string& out, const char* (*state_name)(State), unsigned bytes) const {
    for (const Entry& entry : entries_) {
      if (entry.state == kFree) continue;
      out += "wb" + std::to_string(entry.line) + ':' + state_name(entry.state) + ':';
      out.append(reinterpret_cast<const char*>(entry.data.data()), bytes);
      out += ';';
    }
  }

 private:
  struct Entry {
    std::uint64_t line = 0;
    State state = kFree;
    std::array<std::uint8_t, kMaxLineBytes> data{};
  };
  std::vector<Entry> entries_;
};

// Applies next state `next` of a `Machine` table row to `way` of `array`:
// state `absent` frees the way (after `on_free(way)` resets the protocol's
// per-way entry) and sets `way` to kNone. `controller` names the caller in
// the error for a present state without a way (only then: this runs for
// every message, and a name is a string).
template <typename Machine, typename OnFree>
void enter_state(CacheArray& array, int& way, typename Machine::State next, typename Machine::State absent,
                 const Controller& controller, OnFree&& on_free) {
  if (way == CacheArray::kNone) {
    if (next != absent)
      throw ProtocolError(controller.name() + ": internal error, state " + Machine::name(next) + " without a way");
  } else if (next == absent) {
    array.release(way);
    on_free(way);
    way = CacheArray::kNone;
  } else {
    array.set_state(way, static_cast<std::uint8_t>(next));
  }
}

// Frees a way in `line`'s set of `array` for a new line: done when one is
// free, else `evict(way)` fires the protocol's eviction of the least recently
// used way whose state passes `evictable`. False when no way is free after
// that (every way busy, or the eviction waits for a recall): the request waits.
template <typename Evictable, typename Evict>
bool make_room(CacheArray& array, std::uint64_t line, Evictable&& evictable, Evict&& evict) {
  if (array.free_way(line) != CacheArray::kNone) return true;
  const int victim = array.victim(line, evictable);
  if (victim == CacheArray::kNone) return false;  // every way is busy: wait
  evict(victim);
  return array.free_way(line) != CacheArray::kNone;
}

// The debugger's view of an LLC bank: `size` bytes at `address` if its line
// is present with data (not in state `filling`, waiting for MemoryData).
inline bool peek_llc(const CacheArray& array, const Geometry& geometry, std::uint8_t filling, std::uint64_t address,
                     void* data, unsigned size) {
  const int way = array.find(geometry.line_of(address));
  if (way == CacheArray::kNone || array.state(way) == filling) return false;
  std::memcpy(data, array.data(way) + (address - geometry.line_of(address)), size);
  return true;
}
inline void poke_llc(CacheArray& array, const Geometry& geometry, std::uint8_t filling, std::uint64_t address,
                     const void* data, unsigned size) {
  const int way = array.find(geometry.line_of(address));
  if (way == CacheArray::kNone || array.state(way) == filling) return;
  std::memcpy(array.data(way) + (address - geometry.line_of(address)), data, size);
}

// ProtocolError unless `message` is addressed to the L1 of `tile`
// (`controller` names the receiver, `message_name` the protocol's names).
void check_addressed_to_l1(const Controller& controller, unsigned tile, const Message& message,
                           std::string (*message_name)(unsigned));
// ProtocolError unless `message` is for a line of the home of `tile`.
void check_addressed_to_home(const Controller& controller, unsigned tile, const Geometry& geometry,
                             const Message& message, std::string (*message_name)(unsigned));
// The ProtocolError for a message type `controller` never receives.
[[noreturn]] void throw_unexpected_message(const std::string& controller, const Message& message,
                                           std::string (*message_name)(unsigned), Cycles now);

// What every protocol's L1 has: its identity, its cache array, the core's
// one outstanding access, the line an atomic holds locked, and the forwards
// parked until their line's transaction ends.
class L1ControllerBase : public L1Controller {
 public:
  std::string name() const override { return "L1 " + std::to_string(tile_); }

 protected:
  L1ControllerBase(unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment)
      : tile_(tile),
        geometry_(geometry),
        shape_(shape),
        environment_(environment),
        array_("L1 " + std::to_string(tile), shape, geometry.line_bytes) {}

  // std::invalid_argument for a bad access (size not 1/2/4/8, or
  // misaligned); ProtocolError while one is outstanding.
  void check_access(std::uint64_t address, unsigned size) const;
  // What a ProtocolError of this L1 was handling: `message`, else the core's
  // pending access (empty when neither).
  std::string failure_cause(const Message* message, std::string (*message_name)(unsigned)) const;
  // Copies the pending access's bytes between the core and `line_bytes` (the
  // accessed bytes inside the line): a load copies out, a store in. Sizes are
  // 1, 2, 4 or 8 (check_access), so each copy is a fixed-size move rather
  // than a library call: this runs on every hit.
  void copy_to_core(const std::uint8_t* line_bytes) const { copy_sized(pending_.data, line_bytes, pending_.size); }
  void copy_from_core(std::uint8_t* line_bytes) const { copy_sized(line_bytes, pending_.data, pending_.size); }
  static void copy_sized(void* to, const void* from, unsigned size) {
    switch (size) {
      case 8: std::memcpy(to, from, 8); break;
      case 4: std::memcpy(to, from, 4); break;
      case 2: std::memcpy(to, from, 2); break;
      case 1: std::memcpy(to, from, 1); break;
      default: std::memcpy(to, from, size); break;
    }
  }

  struct Pending {  // the core's one outstanding access
    bool active = false;
    bool waiting = false;  // stalled until the protocol frees what it needs (a way, a write-back entry)
    Access kind = Access::kLoad;
    std::uint64_t address = 0, line = 0;
    void* data = nullptr;
    unsigned size = 0;
  };

  unsigned tile_;
  Geometry geometry_;
  CacheShape shape_;
  Environment& environment_;
  CacheArray array_;
  Pending pending_;
  bool locked_ = false;  // an atomic holds locked_line_ (kMakeWritable until its store)
  std::uint64_t locked_line_ = 0;
  ParkedForwards parked_;  // forwards waiting until their line's transaction ends
};

// A message from L1 `tile` to the home of `line` on virtual network `vnet`
// (the caller sets data and dirty).
inline Message message_to_home(unsigned type, std::uint64_t line, unsigned tile, const Geometry& geometry,
                               VirtualNetwork vnet) {
  Message message;
  message.type = type;
  message.line = line;
  message.source = tile;
  message.source_port = Port::kL1;
  message.destination = geometry.home_of(line);
  message.destination_port = Port::kHome;
  message.requester = tile;
  message.vnet = vnet;
  return message;
}

// Controller factories for Protocol::make_l1 / make_home.
template <typename L1>
std::unique_ptr<L1Controller> make_l1_of(unsigned tile, const Geometry& geometry, const CacheShape& shape,
                                         Environment& environment) {
  return std::make_unique<L1>(tile, geometry, shape, environment);
}
template <typename Home>
std::unique_ptr<HomeController> make_home_of(unsigned tile, const Geometry& geometry, const CacheShape& shape,
                                             Environment& environment) {
  return std::make_unique<Home>(tile, geometry, shape, environment);
}

// The registry entry of a protocol with controllers L1 and Home; a protocol
// with parameters adds its make_instance to the result.
template <typename L1, typename Home>
Protocol protocol_entry(std::string name, std::string description, unsigned message_types,
                        std::string (*message_name)(unsigned), std::string (*tables_markdown)()) {
  Protocol result;
  result.name = std::move(name);
  result.description = std::move(description);
  result.message_types = message_types;
  result.message_name = message_name;
  result.make_l1 = &make_l1_of<L1>;
  result.make_home = &make_home_of<Home>;
  result.tables_markdown = tables_markdown;
  return result;
}

}  // namespace npuvp::coherence
