// The NSI L1 controller: classifies core accesses and messages into events
// and executes l1_table(); synchronise() is the flash SHD -> SUS conversion.
#include "coherence/nsi/nsi.h"

#include <cstring>
#include <stdexcept>

namespace npuvp::coherence::nsi {

namespace {

// States whose data the core may read (and the debugger see).
bool readable(L1Machine::State state) {
  using S = L1Machine::State;
  return state == S::kSHD || state == S::kSUS || state == S::kEXC || state == S::kMOD || state == S::kMOD_L ||
         state == S::kSV_D || state == S::kEM_A || state == S::kEW_A;
}

bool stable(L1Machine::State state) {
  using S = L1Machine::State;
  return state == S::kINV || state == S::kSHD || state == S::kSUS || state == S::kEXC || state == S::kMOD;
}

}  // namespace

L1::L1(unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment,
       std::uint64_t periodic_synchronisation_cycles, unsigned writeback_entries)
    : L1ControllerBase(tile, geometry, shape, environment),
      version_(array_.entries(), 0),
      periodic_cycles_(periodic_synchronisation_cycles),
      next_periodic_(periodic_synchronisation_cycles * environment.fine_per_cycle()),
      writeback_(writeback_entries) {
  if (tile >= geometry.tiles)
    throw std::invalid_argument(name() + ": tile out of range (tiles " + std::to_string(geometry.tiles) + ")");
  shared_ways_.reserve(array_.entries());  // never grows: a fuller list means a scan
}

L1::Context L1::locate(std::uint64_t line) const {
  Context context;
  context.line = line;
  context.way = array_.find(line);
  if (context.way == CacheArray::kNone) context.buffer = writeback_.find(line);
  return context;
}

L1::State L1::state_of_line(std::uint64_t line) const { return state_of(locate(geometry_.line_of(line))); }

void L1::set_state(Context& context, State state) {
  if (context.way != CacheArray::kNone) {
    if (state == State::kSHD && state_of(context) != State::kSHD) {
      if (fill_is_suspect_) {
        // Requested before a synchronisation, filled after it (A2c): SUS.
        fill_is_suspect_ = false;
        ++statistics_.suspect_lines_created;
        state = State::kSUS;
      } else if (shared_ways_.size() < shared_ways_.capacity()) {
        shared_ways_.push_back(context.way);
      } else {
        scan_all_ways_ = true;
      }
    }
    if (state == State::kINV) {
      array_.release(context.way);
      context.way = CacheArray::kNone;
    } else {
      array_.set_state(context.way, static_cast<std::uint8_t>(state));
    }
  } else if (context.buffer >= 0) {
    writeback_.set_state(context.buffer, state);
    if (state == State::kINV) context.buffer = -1;
  } else if (state != State::kINV) {
    throw ProtocolError(name() + ": internal error, state " + L1Machine::name(state) + " for a line without storage");
  }
}

std::uint8_t* L1::line_data(const Context& context) {
  if (context.way != CacheArray::kNone) return array_.data(context.way);
  return writeback_.data(context.buffer);
}
const std::uint8_t* L1::line_data(const Context& context) const {
  if (context.way != CacheArray::kNone) return array_.data(context.way);
  return writeback_.data(context.buffer);
}

void L1::fail(const char* state, const char* event, const Context& context) const {
  throw ProtocolError(protocol_error_text(name(), context.line, state, event,
                                          failure_cause(context.message, &message_name), environment_.now()));
}

void L1::fire(Event event, Context& context) {
  const State state = state_of(context);
  const L1Table::Row* row = l1_table().find(state, event);
  if (!row) fail(L1Machine::name(state), L1Machine::name(event), context);
  l1_table().fired(row);
  for (unsigned i = 0; i < row->action_count; ++i) perform(row->actions[i], context);
  // A row back to its state (a hit, a stall) moves no storage:
  // skipping set_state keeps the hit path short.
  if (row->next != state) {
    // A suspect line left without a load: evicted, or written (RdEx).
    if (state == State::kSUS && row->next != State::kSV_D) ++statistics_.suspect_dropped_unread;
    set_state(context, row->next);
  }
}

void L1::send_to_home(unsigned type, const Context& context, bool with_data, bool dirty, std::uint64_t version,
                      bool express) {
  Message message = message_to_home(type, context.line, tile_, geometry_, virtual_network_of(type));
  message.has_data = with_data;
  message.dirty = dirty;
  message.version = version;
  message.express = express;  // a validation: the environment may answer it at once
  if (with_data) std::memcpy(message.data.data(), line_data(context), geometry_.line_bytes);
  environment_.send(message, shape_.latency);
}

void L1::perform(Action action, Context& context) {
  switch (action) {
    case Action::kAllocate: {
      const int way = array_.free_way(context.line);
      if (way == CacheArray::kNone) throw ProtocolError(name() + ": internal error, no free way to allocate");
      array_.install(way, context.line, static_cast<std::uint8_t>(State::kIS_D));
      context.way = way;
      break;
    }
    case Action::kSendRead: {
      // A validation (SUS) carries its copy's version; a miss carries none.
      const bool suspect = state_of(context) == State::kSUS;
      send_to_home(kRead, context, false, false, suspect ? version_[static_cast<unsigned>(context.way)] : 0,
                   suspect);
      break;
    }
    case Action::kSendRdEx: send_to_home(kRdEx, context, false, false); break;
    case Action::kSendUpgrade:
      ++statistics_.upgrades;
      send_to_home(kUpgrade, context, false, false);
      break;
    case Action::kPerform: {
      std::uint8_t* bytes = array_.data(context.way) + (pending_.address - context.line);
      const bool hit = in_access_;
      switch (pending_.kind) {
        case Access::kLoad:
          copy_to_core(bytes);
          // A suspect copy validated current counts as a hit (speculation).
          ++(hit || validated_current_ ? statistics_.load_hits : statistics_.load_misses);
          break;
        case Access::kStore:
          copy_from_core(bytes);
          ++(hit ? statistics_.store_hits : statistics_.store_misses);
          if (locked_ && locked_line_ == context.line) locked_ = false;
          break;
        case Access::kMakeWritable:
          ++(hit ? statistics_.atomic_hits : statistics_.atomic_misses);
          locked_ = true;
          locked_line_ = context.line;
          break;
      }
      // Only a miss's reply validates (and this clears it again), so a hit
      // finds validated_current_ false; access() cleared the other flag.
      if (!hit) {
        last_miss_speculated_correctly_ = validated_current_;
        validated_current_ = false;
      }
      array_.touch(context.way);
      performed_ = true;
      break;
    }
    case Action::kValidate:
      if (!context.message || !context.message->has_data)
        fail(L1Machine::name(state_of(context)), "validate (message without data)", context);
      validated_current_ =
          std::memcmp(array_.data(context.way), context.message->data.data(), geometry_.line_bytes) == 0;
      ++(validated_current_ ? statistics_.suspect_validated_current : statistics_.suspect_validated_stale);
      std::memcpy(array_.data(context.way), context.message->data.data(), geometry_.line_bytes);
      version_[static_cast<unsigned>(context.way)] = context.message->version;
      break;
    case Action::kConfirmCurrent:
      // The home found the copy's version current: the data stays.
      validated_current_ = true;
      ++statistics_.suspect_validated_current;
      break;
    case Action::kInstallData:
      if (!context.message || !context.message->has_data)
        fail(L1Machine::name(state_of(context)), "install data (message without data)", context);
      std::memcpy(array_.data(context.way), context.message->data.data(), geometry_.line_bytes);
      version_[static_cast<unsigned>(context.way)] = context.message->version;
      break;
    case Action::kSendReplace: send_to_home(kReplace, context, false, false); break;
    case Action::kSendReplaceData:
      ++statistics_.writebacks;
      send_to_home(kReplace, context, true, true);
      break;
    case Action::kMoveToWritebackBuffer: {
      const int entry =
          writeback_.insert(context.line, state_of(context), array_.data(context.way), geometry_.line_bytes, *this);
      array_.release(context.way);
      context.way = CacheArray::kNone;
      context.buffer = entry;
      ++statistics_.evictions;
      line_lost(context.line);
      break;
    }
    case Action::kDropSilently:
      array_.release(context.way);
      context.way = CacheArray::kNone;
      ++statistics_.evictions;
      line_lost(context.line);
      break;
    case Action::kSendAckData: {
      ++statistics_.interventions_received;
      const State state = state_of(context);
      send_to_home(kAckData, context, true, state == State::kMOD || state == State::kMI_A);
      break;
    }
    case Action::kStallForward:
      parked_.park(*context.message, statistics_.stalled_messages);
      break;
    case Action::kStallAccess: pending_.waiting = true; break;
    case Action::kFreeWritebackEntry: writeback_freed_ = true; break;
    case Action::kFlashSuspect:  // performed for all lines at once by self_invalidate()
    case Action::kCount: break;
  }
}

bool L1::access(Access kind, std::uint64_t address, void* data, unsigned size) {
  check_access(address, size);
  last_miss_speculated_correctly_ = false;
  if (periodic_cycles_ != 0 && periodic_due()) {
    // The periodic synchronisation, applied lazily: SHD lines are only
    // observed through accesses, so doing it now is the same as at the
    // deadline for a blocking core.
    ++statistics_.periodic_synchronisations;
    self_invalidate();
  }
  const std::uint64_t line = geometry_.line_of(address);
  if (locked_ && locked_line_ != line) unlock();
  pending_ = Pending{true, false, kind, address, line, data, size};
  performed_ = false;
  in_access_ = true;
  dispatch_access();
  in_access_ = false;
  if (!performed_) return false;
  performed_ = false;
  pending_.active = false;
  retry_stalled_forwards();  // a store may have ended an atomic's lock
  return true;
}

void L1::dispatch_access() {
  static const Event events[] = {Event::kLoad, Event::kStore, Event::kMakeWritable};
  Context context = locate(pending_.line);
  if (state_of(context) == State::kINV && array_.free_way(pending_.line) == CacheArray::kNone) {
    const int victim = array_.victim(pending_.line, [](std::uint8_t state) {
      const auto s = static_cast<State>(state);
      return s == State::kSHD || s == State::kSUS || s == State::kEXC || s == State::kMOD;
    });
    if (victim == CacheArray::kNone) throw ProtocolError(name() + ": internal error, no evictable way");
    const auto victim_state = static_cast<State>(array_.state(victim));
    if (victim_state == State::kEXC || victim_state == State::kMOD) {
      if (!writeback_.has_free_entry()) {
        // Every write-back entry waits for its AckChange: the miss waits for one.
        pending_.waiting = true;
        return;
      }
    }
    Context evicted;
    evicted.line = array_.line(victim);
    evicted.way = victim;
    fire(Event::kReplacement, evicted);
  }
  fire(events[static_cast<int>(pending_.kind)], context);
}

void L1::handle(const Message& message) {
  check_addressed_to_l1(*this, tile_, message, &message_name);
  performed_ = false;
  process(message);
  after_event();
}

void L1::process(const Message& message) {
  Event event;
  switch (message.type) {
    case kShdIntervention: event = Event::kShdIntervention; break;
    case kExcIntervention: event = Event::kExcIntervention; break;
    case kRepShd: event = Event::kRepShd; break;
    case kRepExc: event = Event::kRepExc; break;
    case kAckChange: event = Event::kAckChange; break;
    case kRepValidShd: event = Event::kRepValidShd; break;
    case kRepValidExc: event = Event::kRepValidExc; break;
    default: throw_unexpected_message(name(), message, &message_name, environment_.now());
  }
  Context context = locate(message.line);
  context.message = &message;
  fire(event, context);
}

void L1::after_event() {
  retry_stalled_forwards();
  if (pending_.active && pending_.waiting && writeback_freed_) {
    writeback_freed_ = false;
    pending_.waiting = false;
    dispatch_access();
  }
  writeback_freed_ = false;
  if (performed_ && pending_.active) {
    performed_ = false;
    pending_.active = false;
    fill_is_suspect_ = false;
    miss_completed();  // last: the handler may start the next access
  }
}

void L1::retry_stalled_forwards() {
  parked_.retry([&](const Message& message) { process(message); });  // one still blocked parks again, in order
}

void L1::unlock() {
  Context context = locate(locked_line_);
  locked_ = false;
  fire(Event::kUnlock, context);
  retry_stalled_forwards();
}

void L1::self_invalidate() {
  if (periodic_cycles_ != 0) next_periodic_ = (environment_.now() + periodic_cycles_) * environment_.fine_per_cycle();
  if (skip_self_invalidation_) return;
  // The table's SHD + Synchronise row, for every SHD line at once.
  l1_table().fired(l1_table().find(State::kSHD, Event::kSynchronise));
  auto suspect = [this](int way) {
    if (static_cast<State>(array_.state(way)) != State::kSHD) return;
    array_.set_state(way, static_cast<std::uint8_t>(State::kSUS));
    ++statistics_.suspect_lines_created;
  };
  if (scan_all_ways_) {
    for (unsigned way = 0; way < array_.entries(); ++way) suspect(static_cast<int>(way));
    scan_all_ways_ = false;
  } else {
    for (const int way : shared_ways_) suspect(way);
  }
  shared_ways_.clear();
}

Cycles L1::synchronise() {
  if (locked_) unlock();
  ++statistics_.synchronisations;
  // A core that synchronises with a load miss outstanding (not a blocking
  // core's case) must see that line's fill as suspect.
  if (pending_.active && pending_.kind == Access::kLoad) fill_is_suspect_ = true;
  self_invalidate();
  return 1;  // the flash conversion takes one cycle (reference 3.3)
}

bool L1::peek(std::uint64_t address, void* data, unsigned size, bool& owner) const {
  const Context context = locate(geometry_.line_of(address));
  const State state = state_of(context);
  const bool valid = readable(state) || state == State::kMI_A || state == State::kEI_A;
  if (!valid) return false;
  owner = state == State::kMOD || state == State::kMOD_L || state == State::kMI_A;
  std::memcpy(data, line_data(context) + (address - context.line), size);
  return true;
}

void L1::poke(std::uint64_t address, const void* data, unsigned size) {
  const Context context = locate(geometry_.line_of(address));
  const State state = state_of(context);
  if (readable(state) || state == State::kMI_A || state == State::kEI_A)
    std::memcpy(const_cast<std::uint8_t*>(line_data(context)) + (address - context.line), data, size);
}

std::string L1::describe(std::uint64_t line) const {
  const Context context = locate(geometry_.line_of(line));
  std::string text = L1Machine::name(state_of(context));
  if (context.buffer >= 0) text += " (write-back buffer)";
  if (locked_ && locked_line_ == context.line) text += " (locked)";
  if (pending_.active && pending_.line == context.line) text += pending_.waiting ? " (access waiting)" : " (miss)";
  const unsigned parked = parked_.on_line(context.line);
  if (parked) text += " (" + std::to_string(parked) + " forwards parked)";
  return text;
}

bool L1::quiescent() const {
  if (pending_.active || !parked_.empty()) return false;
  if (!writeback_.empty()) return false;
  for (unsigned way = 0; way < array_.entries(); ++way)
    if (!stable(static_cast<State>(array_.state(static_cast<int>(way))))) return false;
  return true;
}

void L1::serialize(std::string& out) const {
  out += name();
  out += '{';
  for (unsigned way = 0; way < array_.entries(); ++way) {
    const int index = static_cast<int>(way);
    if (array_.state(index) == 0) continue;
    Context context;
    context.line = array_.line(index);
    context.way = index;
    out += std::to_string(array_.line(index)) + ':' + L1Machine::name(state_of(context)) + ':' +
           std::to_string(array_.lru_rank(index)) + ":v" + std::to_string(version_[way]) + ':';
    out.append(reinterpret_cast<const char*>(array_.data(index)), geometry_.line_bytes);
    out += ';';
  }
  writeback_.serialize(out, &L1Machine::name, geometry_.line_bytes);
  if (pending_.active)
    out += "pending" + std::to_string(static_cast<int>(pending_.kind)) + '/' + std::to_string(pending_.address) + '/' +
           std::to_string(pending_.size) + (pending_.waiting ? "w;" : ";");
  if (locked_) out += "locked" + std::to_string(locked_line_) + ';';
  parked_.serialize(out);
  if (periodic_cycles_ != 0) out += "next" + std::to_string(next_periodic_) + ';';
  out += '}';
}

}  // namespace npuvp::coherence::nsi
