// TableDrivenL1 and TableDrivenHome: the plumbing every protocol's
// controllers share, so that a protocol writes only what is its own — how a
// message or an access becomes an event (classify), what each action does
// (perform), and its tables (protocol_table.h) — as gem5's SLICC
// controllers do.
//
// Each base is a template over the protocol's controller (`Derived`, which
// it calls without virtual dispatch: actions run on every hit) and the
// machine (`Machine`, declared with NPUVP_COHERENCE_MACHINE, machine.h).
// Besides State, Event, Action and their names and properties, a machine
// declares:
//   static const ProtocolTable<Machine>& table();   its transition table (a
//                                                   controller may be given a
//                                                   variant of it instead:
//                                                   a protocol's option)
//   static constexpr State kAbsent;                 a line not here (a free way)
//   static constexpr unsigned kMaxTiles;            0, or the sharer mask's width
//   static constexpr auto message_name, virtual_network_of;  the protocol's functions
// and a home machine also
//   static constexpr State kFilling;                allocated, waiting for MemoryData
//   static bool is_request(unsigned type);          a request from an L1 (waits behind others of its line)
//   static bool is_lookup(unsigned type);           a request counted as an LLC hit or miss
//
// The base executes a row: it looks (state, event) up, throws the
// ProtocolError of a missing row, runs the row's actions through
// Derived::perform in order and applies the next state. Around that it owns
// the core's access (access(), the pending access, locks, parked forwards,
// miss completion), the write-back buffer, the debug views, describe(),
// quiescent() and serialize(); hooks a protocol may hide with its own are
// listed in each class.
#pragma once

#include "coherence/cache_array.h"
#include "coherence/coherence.h"
#include "coherence/controller_support.h"
#include "coherence/machine.h"
#include "coherence/protocol_table.h"

#include <cstdint>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace npuvp::coherence {

// std::invalid_argument unless `tile` is one of the geometry's tiles and,
// for a protocol with a sharer mask (`max_tiles` > 0), the tiles fit it.
void check_tile(const Controller& controller, unsigned tile, const Geometry& geometry, unsigned max_tiles);

// Whether every valid entry of `array` is in one of Machine's stable states
// (no transaction under way): half of a controller's quiescent().
template <typename Machine>
bool all_entries_stable(const CacheArray& array) {
  for (unsigned way = 0; way < array.entries(); ++way)
    if (!Machine::stable(static_cast<typename Machine::State>(array.state(static_cast<int>(way))))) return false;
  return true;
}

// A private L1 driven by a table. Hooks (Derived may declare its own):
//   Event classify(const Message&)         required: a message's event
//                                          (throw_unexpected_message otherwise)
//   void perform(Action, Context&)         required: one action
//   void dispatch_access()                 required: fire the pending access's
//                                          event, replacing a victim first
//   void before_access()                   at the start of access()
//   void set_state(Context&, State)        applies a row's next state
//   void leaving(State from, State to)     before a row changes the line's state
//   void on_miss_completed()               before the miss-completion handler
//   void serialize_way(std::string&, int way) const, serialize_tail(std::string&) const
template <typename Derived, typename Machine>
class TableDrivenL1 : public L1ControllerBase {
 public:
  using State = typename Machine::State;
  using Event = typename Machine::Event;
  using Action = typename Machine::Action;
  using Table = ProtocolTable<Machine>;

  bool access(Access kind, std::uint64_t address, void* data, unsigned size) override {
    check_access(address, size);
    derived().before_access();
    const std::uint64_t line = geometry_.line_of(address);
    if (locked_ && locked_line_ != line) unlock();
    pending_ = Pending{true, false, kind, address, line, data, size};
    performed_ = false;
    in_access_ = true;
    derived().dispatch_access();
    in_access_ = false;
    if (!performed_) return false;
    performed_ = false;
    pending_.active = false;
    retry_stalled_forwards();  // a store may have ended an atomic's lock
    return true;
  }

  void handle(const Message& message) override {
    check_addressed_to_l1(*this, tile_, message, Machine::message_name);
    performed_ = false;
    process(message);
    retry_stalled_forwards();
    if (pending_.active && pending_.waiting && resource_freed_) {
      resource_freed_ = false;
      pending_.waiting = false;
      derived().dispatch_access();
    }
    resource_freed_ = false;
    if (performed_ && pending_.active) {
      performed_ = false;
      pending_.active = false;
      derived().on_miss_completed();
      miss_completed();  // last: the handler may start the next access
    }
  }

  // Ends an atomic's lock; a protocol that self-invalidates hides this.
  Cycles synchronise() override {
    if (locked_) unlock();
    return 0;
  }

  bool peek(std::uint64_t address, void* data, unsigned size, bool& owner) const override {
    const Context context = locate(geometry_.line_of(address));
    const State state = state_of(context);
    if (!Machine::holds_data(state)) return false;
    owner = Machine::owner(state);
    std::memcpy(data, line_data(context) + (address - context.line), size);
    return true;
  }
  void poke(std::uint64_t address, const void* data, unsigned size) override {
    const Context context = locate(geometry_.line_of(address));
    if (Machine::holds_data(state_of(context)))
      std::memcpy(line_data(context) + (address - context.line), data, size);
  }

  std::string describe(std::uint64_t line) const override {
    const Context context = locate(geometry_.line_of(line));
    std::string text = Machine::name(state_of(context));
    if (context.buffer >= 0) text += " (write-back buffer)";
    if (locked_ && locked_line_ == context.line) text += " (locked)";
    if (pending_.active && pending_.line == context.line) text += pending_.waiting ? " (access waiting)" : " (miss)";
    const unsigned parked = parked_.on_line(context.line);
    if (parked) text += " (" + std::to_string(parked) + " forwards parked)";
    return text;
  }

  bool quiescent() const override {
    if (pending_.active || !parked_.empty() || !writeback_.empty()) return false;
    return all_entries_stable<Machine>(array_);
  }

  void serialize(std::string& out) const override {
    out += name();
    out += '{';
    for (unsigned way = 0; way < array_.entries(); ++way) {
      const int index = static_cast<int>(way);
      if (array_.state(index) == 0) continue;
      out += std::to_string(array_.line(index)) + ':' + Machine::name(static_cast<State>(array_.state(index))) +
             ':' + std::to_string(array_.lru_rank(index));
      derived().serialize_way(out, index);
      out += ':';
      out.append(reinterpret_cast<const char*>(array_.data(index)), geometry_.line_bytes);
      out += ';';
    }
    writeback_.serialize(out, &Machine::name, geometry_.line_bytes);
    if (pending_.active)
      out += "pending" + std::to_string(static_cast<int>(pending_.kind)) + '/' + std::to_string(pending_.address) +
             '/' + std::to_string(pending_.size) + (pending_.waiting ? "w;" : ";");
    if (locked_) out += "locked" + std::to_string(locked_line_) + ';';
    parked_.serialize(out);
    derived().serialize_tail(out);
    out += '}';
  }

  // The stable or transient state of `line` here (kAbsent when absent).
  State state_of_line(std::uint64_t line) const { return state_of(locate(geometry_.line_of(line))); }

 protected:
  // The line being worked on: its way in the array (kNone when not there),
  // its write-back buffer entry (-1 when none), and the message handled.
  struct Context {
    std::uint64_t line = 0;
    int way = CacheArray::kNone;
    int buffer = -1;
    const Message* message = nullptr;
  };

  // `writeback_entries` 0: no write-back buffer (an evicted line keeps its
  // way). `table`: Machine::table() or a variant of it (a protocol option).
  TableDrivenL1(unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment,
                unsigned writeback_entries, const Table& table = Machine::table())
      : L1ControllerBase(tile, geometry, shape, environment),
        writeback_(writeback_entries),
        table_(&table),
        has_writeback_buffer_(writeback_entries > 0) {
    check_tile(*this, tile, geometry, Machine::kMaxTiles);
  }

  Context locate(std::uint64_t line) const {
    Context context;
    context.line = line;
    context.way = array_.find(line);
    if (context.way == CacheArray::kNone && has_writeback_buffer_) context.buffer = writeback_.find(line);
    return context;
  }
  // Inline: every access asks it (dispatch, fire).
  State state_of(const Context& context) const {
    if (context.way != CacheArray::kNone) return static_cast<State>(array_.state(context.way));
    if (context.buffer >= 0) return writeback_.state(context.buffer);
    return Machine::kAbsent;
  }
  std::uint8_t* line_data(const Context& context) {
    return context.way != CacheArray::kNone ? array_.data(context.way) : writeback_.data(context.buffer);
  }
  const std::uint8_t* line_data(const Context& context) const {
    return context.way != CacheArray::kNone ? array_.data(context.way) : writeback_.data(context.buffer);
  }
  // A stable state the line may be replaced in (the victim of a fill).
  static bool evictable(std::uint8_t state) {
    return static_cast<State>(state) != Machine::kAbsent && Machine::stable(static_cast<State>(state));
  }

  // The table this controller executes.
  const Table& table() const { return *table_; }

  // Executes the row (state of `context`, `event`).
  void fire(Event event, Context& context) {
    const State state = state_of(context);
    const typename Table::Row* row = table_->find(state, event);
    if (!row) fail(Machine::name(state), Machine::name(event), context);
    table_->fired(row);
    for (unsigned i = 0; i < row->action_count; ++i) derived().perform(row->actions[i], context);
    // A row back to its state (a hit, a stall) moves no storage: skipping
    // set_state keeps the hit path short.
    if (row->next != state) {
      derived().leaving(state, row->next);
      derived().set_state(context, row->next);
    }
  }
  [[noreturn]] void fail(const char* state, const char* event, const Context& context) const {
    throw ProtocolError(protocol_error_text(name(), context.line, state, event,
                                            failure_cause(context.message, Machine::message_name),
                                            environment_.now()));
  }
  // The event of `message` for its line, executed.
  void process(const Message& message) {
    const Event event = derived().classify(message);
    Context context = locate(message.line);
    context.message = &message;
    fire(event, context);
  }
  void retry_stalled_forwards() {
    parked_.retry([&](const Message& message) { process(message); });  // one still blocked parks again, in order
  }
  void unlock() {
    Context context = locate(locked_line_);
    locked_ = false;
    fire(Event::kUnlock, context);
    retry_stalled_forwards();
  }

  // ---- actions every protocol has ----
  // Takes a free way of the set for the line (in the first transient state of a fill).
  void allocate(Context& context, State filling) {
    const int way = array_.free_way(context.line);
    if (way == CacheArray::kNone) throw ProtocolError(name() + ": internal error, no free way to allocate");
    array_.install(way, context.line, static_cast<std::uint8_t>(filling));
    context.way = way;
  }
  // Performs the pending access on the line (a load copies out, a store in,
  // a make-writable locks the line) and counts it; `load_hit` tells how a
  // load counts (an access inside access() is a hit).
  void perform_access(Context& context, bool load_hit) {
    std::uint8_t* bytes = array_.data(context.way) + (pending_.address - context.line);
    switch (pending_.kind) {
      case Access::kLoad:
        copy_to_core(bytes);
        ++(load_hit ? statistics_.load_hits : statistics_.load_misses);
        break;
      case Access::kStore:
        copy_from_core(bytes);
        ++(in_access_ ? statistics_.store_hits : statistics_.store_misses);
        if (locked_ && locked_line_ == context.line) locked_ = false;  // the atomic's store ends its lock
        break;
      case Access::kMakeWritable:
        ++(in_access_ ? statistics_.atomic_hits : statistics_.atomic_misses);
        locked_ = true;
        locked_line_ = context.line;
        break;
    }
    array_.touch(context.way);
    performed_ = true;
  }
  // Copies the message's data into the line.
  void install_data(Context& context) {
    if (!context.message || !context.message->has_data)
      fail(Machine::name(state_of(context)), "install data (message without data)", context);
    std::memcpy(array_.data(context.way), context.message->data.data(), geometry_.line_bytes);
  }
  // Moves the evicted line out of the array into the write-back buffer.
  void move_to_writeback_buffer(Context& context) {
    const int entry =
        writeback_.insert(context.line, state_of(context), array_.data(context.way), geometry_.line_bytes, *this);
    array_.release(context.way);
    context.way = CacheArray::kNone;
    context.buffer = entry;
    ++statistics_.evictions;
    line_lost(context.line);
  }
  void park_forward(const Context& context) { parked_.park(*context.message, statistics_.stalled_messages); }

  // A message of `type` for the context's line to its home, with the line's
  // data when `with_data`.
  Message message_to_home(unsigned type, const Context& context, bool with_data, bool dirty) const {
    Message message = coherence::message_to_home(type, context.line, tile_, geometry_,
                                                 Machine::virtual_network_of(type));
    message.has_data = with_data;
    message.dirty = dirty;
    if (with_data) std::memcpy(message.data.data(), line_data(context), geometry_.line_bytes);
    return message;
  }
  void send_to_home(unsigned type, const Context& context, bool with_data, bool dirty) {
    environment_.send(message_to_home(type, context, with_data, dirty), shape_.latency);
  }

  // ---- default hooks ----
  void before_access() {}
  void on_miss_completed() {}
  void leaving(State, State) {}
  void serialize_way(std::string&, int) const {}
  void serialize_tail(std::string&) const {}
  void set_state(Context& context, State state) {
    if (context.way != CacheArray::kNone) {
      if (state == Machine::kAbsent) {
        array_.release(context.way);
        context.way = CacheArray::kNone;
      } else {
        array_.set_state(context.way, static_cast<std::uint8_t>(state));
      }
    } else if (context.buffer >= 0) {
      writeback_.set_state(context.buffer, state);
      if (state == Machine::kAbsent) context.buffer = -1;
    } else if (state != Machine::kAbsent) {
      throw ProtocolError(name() + ": internal error, state " + Machine::name(state) + " for a line without storage");
    }
  }

  WritebackBuffer<State, Machine::kAbsent> writeback_;
  const Table* table_;
  bool in_access_ = false;       // the access is tried inside access(): a hit
  bool performed_ = false;       // the pending access performed (kPerform)
  bool resource_freed_ = false;  // a way or write-back entry came free: a waiting access retries

 private:
  Derived& derived() { return static_cast<Derived&>(*this); }
  const Derived& derived() const { return static_cast<const Derived&>(*this); }

  bool has_writeback_buffer_;
};

// An LLC bank's home driven by a table, with one directory `Entry` per way
// (it has at least `requester`, the L1 of the transaction in progress).
// Hooks (Derived may declare its own):
//   Event classify(const Message&, const Context&) const   required
//   void perform(Action, Context&)                          required
//   Event eviction(const Context&)        the event of evicting a line (counts recalls)
//   std::string entry_summary(const Entry&) const           for errors
//   void describe_entry(std::ostream&, const Entry&, State) const   describe()'s words after the state
//   std::string entry_key(int way) const  the explorer's key of a way's entry, up to its data
//   void retry_waiting()                  serves waiting requests after a message
//   void serialize_tail(std::string&) const
template <typename Derived, typename Machine, typename Entry>
class TableDrivenHome : public HomeController {
 public:
  using State = typename Machine::State;
  using Event = typename Machine::Event;
  using Action = typename Machine::Action;
  using Table = ProtocolTable<Machine>;

  std::string name() const override { return "home " + std::to_string(tile_); }
  bool peek(std::uint64_t address, void* data, unsigned size) const override {
    return peek_llc(array_, geometry_, static_cast<std::uint8_t>(Machine::kFilling), address, data, size);
  }
  void poke(std::uint64_t address, const void* data, unsigned size) override {
    poke_llc(array_, geometry_, static_cast<std::uint8_t>(Machine::kFilling), address, data, size);
  }
  // The stable or transient state of `line` here (kAbsent when not in the bank).
  State state_of_line(std::uint64_t line) const { return state_of_way(array_.find(geometry_.line_of(line))); }

  void handle(const Message& message) override {
    check_addressed_to_home(*this, tile_, geometry_, message, Machine::message_name);
    if (Machine::is_lookup(message.type))
      ++(array_.find(message.line) == CacheArray::kNone ? statistics_.misses : statistics_.hits);
    // A new request behind waiting ones of its line waits too (arrival order per line).
    if (Machine::is_request(message.type) && waiting_.has_line(message.line))
      stall(message);
    else
      process(message);
    derived().retry_waiting();
  }

  bool quiescent() const override {
    if (!waiting_.empty()) return false;
    return all_entries_stable<Machine>(array_);
  }

  // "SHD owner 3 clean (2 requests waiting)": the state, the entry, the waiting requests.
  std::string describe(std::uint64_t line) const override {
    line = geometry_.line_of(line);
    const int way = array_.find(line);
    if (way == CacheArray::kNone) return Machine::name(Machine::kAbsent);
    const State state = state_of_way(way);
    std::ostringstream text;
    text << Machine::name(state);
    derived().describe_entry(text, entries_[static_cast<unsigned>(way)], state);
    const unsigned waiting = waiting_.on_line(line);
    if (waiting) text << " (" << waiting << " requests waiting)";
    return text.str();
  }

  void serialize(std::string& out) const override {
    out += name();
    out += '{';
    for (unsigned way = 0; way < array_.entries(); ++way) {
      const int index = static_cast<int>(way);
      if (array_.state(index) == 0) continue;
      out += std::to_string(array_.line(index)) + ':' + Machine::name(static_cast<State>(array_.state(index))) +
             ':' + derived().entry_key(index);
      out.append(reinterpret_cast<const char*>(array_.data(index)), geometry_.line_bytes);
      out += ';';
    }
    derived().serialize_tail(out);
    out += '}';
  }

 protected:
  struct Context {
    std::uint64_t line = 0;
    int way = CacheArray::kNone;
    const Message* message = nullptr;
    Event event = Event::kCount;  // the event being handled
  };

  // `table`: Machine::table() or a variant of it (a protocol option).
  TableDrivenHome(unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment,
                  const Table& table = Machine::table())
      : table_(&table),
        tile_(tile),
        geometry_(geometry),
        shape_(shape),
        environment_(environment),
        array_("home " + std::to_string(tile), shape, geometry.line_bytes, geometry.tiles),
        entries_(array_.entries()) {
    check_tile(*this, tile, geometry, Machine::kMaxTiles);
  }

  State state_of_way(int way) const {
    return way == CacheArray::kNone ? Machine::kAbsent : static_cast<State>(array_.state(way));
  }
  State state_of(const Context& context) const { return state_of_way(context.way); }
  Context context_of(const Message& message) const {
    Context context;
    context.line = message.line;
    context.way = array_.find(message.line);
    context.message = &message;
    return context;
  }
  // The directory entry of `line`, or null when the line is not in the bank.
  const Entry* entry_of_line(std::uint64_t line) const {
    const int way = array_.find(geometry_.line_of(line));
    return way == CacheArray::kNone ? nullptr : &entries_[static_cast<unsigned>(way)];
  }
  Entry* entry_of(const Context& context) {
    return context.way == CacheArray::kNone ? nullptr : &entries_[static_cast<unsigned>(context.way)];
  }

  // Serves `message`: false when it had to wait (for a way, or the line).
  bool process(const Message& message) {
    Context context = context_of(message);
    const Event event = derived().classify(message, context);
    if (context.way == CacheArray::kNone && allocates(event) && !make_room(message.line)) {
      stall(message);
      return false;
    }
    stalled_now_ = false;
    fire(event, context);
    return !stalled_now_;
  }
  // The table this controller executes.
  const Table& table() const { return *table_; }

  // Executes the row (state of `context`, `event`).
  void fire(Event event, Context& context) {
    const State state = state_of(context);
    const typename Table::Row* row = table_->find(state, event);
    if (!row) fail(Machine::name(state), Machine::name(event), context);
    table_->fired(row);
    context.event = event;
    if (!(row->action_count == 1 && row->actions[0] == Action::kStall)) ++transitions_;
    for (unsigned i = 0; i < row->action_count; ++i)
      if (!perform_common(row->actions[i], context)) derived().perform(row->actions[i], context);
    enter_state<Machine>(array_, context.way, row->next, Machine::kAbsent, *this,
                         [&](int way) { entries_[static_cast<unsigned>(way)] = Entry{}; });
  }
  [[noreturn]] void fail(const char* state, const char* event, const Context& context) const {
    std::string cause;
    if (context.message)
      cause = "message " + Machine::message_name(context.message->type) + " from node " +
              std::to_string(context.message->source);
    if (context.way != CacheArray::kNone)
      cause += (cause.empty() ? "" : ", ") + derived().entry_summary(entries_[static_cast<unsigned>(context.way)]);
    throw ProtocolError(protocol_error_text(name(), context.line, state, event, cause, environment_.now()));
  }
  // Whether `event` takes a way when the line is absent (its row there allocates).
  bool allocates(Event event) const {
    const typename Table::Row* row = table_->find(Machine::kAbsent, event);
    return row && row->action_count > 0 && row->actions[0] == Action::kAllocate;
  }
  // Makes a way free for `line`, evicting the least recently used stable
  // line of its set (which may first have to be recalled from the L1s: then
  // the way frees later, when the recall completes). False: not free now.
  bool make_room(std::uint64_t line) {
    const auto evictable = [](std::uint8_t state) {
      return static_cast<State>(state) != Machine::kAbsent && Machine::stable(static_cast<State>(state));
    };
    return coherence::make_room(array_, line, evictable, [&](int victim) {
      Context evicted;
      evicted.line = array_.line(victim);
      evicted.way = victim;
      ++statistics_.evictions;
      fire(derived().eviction(evicted), evicted);
    });
  }
  // The L1 a grant goes to: the sender of the request being handled, or the
  // recorded requester when an Ack/AckData/MemoryData completes the transaction.
  unsigned requester(const Context& context) const {
    if (context.message && Machine::is_request(context.message->type)) return context.message->source;
    return entries_[static_cast<unsigned>(context.way)].requester;
  }
  // Queues `message` to wait (stalled_now_ tells a retry it waited again).
  void stall(const Message& message) {
    waiting_.park(message, statistics_.stalled_messages);
    stalled_now_ = true;
  }
  // Retries the waiting requests in passes while the last pass changed some
  // line's state (transitions_: rows fired, lone stalls excepted).
  void retry_waiting() {
    std::uint64_t before = transitions_;
    waiting_.retry(
        [&](const Message& message) {
          stalled_now_ = false;
          process(message);
          return !stalled_now_;
        },
        [&](bool) {
          const bool changed = transitions_ != before;
          before = transitions_;
          return changed;
        });
  }

  // ---- the actions every home performs alike (each Machine declares them) ----
  // Performs `action` when it is one of them; false for the protocol's own.
  bool perform_common(Action action, Context& context) {
    switch (action) {
      case Action::kAllocate: allocate(context); return true;
      case Action::kStall: stall(*context.message); return true;
      case Action::kCount: return true;  // the enumeration's size, in no row
      default: return false;
    }
  }
  // The protocol error of `action` needing the context's directory entry where the line has none.
  void require_entry(const Entry* entry, Action action, const Context& context) const {
    if (!entry) fail(Machine::name(state_of(context)), Machine::name(action), context);
  }
  // A MemoryRead of the context's line, for the sender of the request being handled.
  void fetch_from_memory(const Context& context) {
    ++statistics_.memory_reads;
    send(message_to_memory(kMemoryRead, context, context.message ? context.message->source : tile_, false));
  }
  // An intervention of `type` (a forward) to the line's owner, counted.
  void send_intervention(unsigned type, const Entry& entry, const Context& context) {
    ++statistics_.interventions_sent;
    derived().send_to_l1(type, static_cast<unsigned>(entry.owner), context, false);
  }
  // The owner's AckData fills the way (a protocol error without data); dirty when it was.
  void write_ack_data(Context& context, Entry& entry) {
    if (!context.message->has_data) fail(Machine::name(state_of(context)), "AckData without data", context);
    std::memcpy(array_.data(context.way), context.message->data.data(), geometry_.line_bytes);
    entry.dirty |= context.message->dirty;
  }
  // Memory's data fills the way; the LLC's copy is clean.
  void install_memory_data(Context& context) {
    Entry* entry = entry_of(context);
    require_entry(entry, Action::kInstallMemoryData, context);
    std::memcpy(array_.data(context.way), context.message->data.data(), geometry_.line_bytes);
    entry->dirty = false;
  }

  // Takes a free way of the set for the context's line, waiting for memory's data, with a fresh entry.
  void allocate(Context& context) {
    const int way = array_.free_way(context.line);
    if (way == CacheArray::kNone) throw ProtocolError(name() + ": internal error, no free way to allocate");
    array_.install(way, context.line, static_cast<std::uint8_t>(Machine::kFilling));
    entries_[static_cast<unsigned>(way)] = Entry{};
    context.way = way;
  }
  // A message of `type` for the context's line to L1 `tile`, with the LLC's data when `with_data`.
  Message message_to_l1(unsigned type, unsigned tile, const Context& context, bool with_data) const {
    Message message = message_from_home(type, tile, Port::kL1, Machine::virtual_network_of(type));
    message.line = context.line;
    message.requester =
        context.way == CacheArray::kNone ? tile : entries_[static_cast<unsigned>(context.way)].requester;
    message.has_data = with_data;
    if (with_data) std::memcpy(message.data.data(), array_.data(context.way), geometry_.line_bytes);
    return message;
  }
  // A MemoryRead (no data) or MemoryWrite (the LLC's dirty data) for the
  // context's line to its memory controller.
  Message message_to_memory(unsigned type, const Context& context, unsigned requester, bool with_data) const {
    Message message =
        message_from_home(type, geometry_.memory_controller_of(context.line), Port::kMemory, VirtualNetwork::kRequest);
    message.line = context.line;
    message.requester = requester;
    message.has_data = with_data;
    message.dirty = with_data;
    if (with_data) std::memcpy(message.data.data(), array_.data(context.way), geometry_.line_bytes);
    return message;
  }
  void send(const Message& message) { environment_.send(message, shape_.latency); }
  void send_to_l1(unsigned type, unsigned tile, const Context& context, bool with_data) {
    send(message_to_l1(type, tile, context, with_data));
  }

  // ---- default hooks ----
  void serialize_tail(std::string& out) const { waiting_.serialize(out); }

  const Table* table_;
  unsigned tile_;
  Geometry geometry_;
  CacheShape shape_;
  Environment& environment_;
  CacheArray array_;
  std::vector<Entry> entries_;  // the directory, one entry per way
  WaitingRequests waiting_;     // requests waiting for a busy line or a free way, in arrival order
  bool stalled_now_ = false;    // the request being served had to wait (again)
  std::uint64_t transitions_ = 0;

 private:
  Derived& derived() { return static_cast<Derived&>(*this); }
  const Derived& derived() const { return static_cast<const Derived&>(*this); }

  Message message_from_home(unsigned type, unsigned destination, Port port, VirtualNetwork vnet) const {
    Message message;
    message.type = type;
    message.source = tile_;
    message.source_port = Port::kHome;
    message.destination = destination;
    message.destination_port = port;
    message.vnet = vnet;
    return message;
  }
};

}  // namespace npuvp::coherence
