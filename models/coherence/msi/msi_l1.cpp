// The MSI L1 controller: turns core accesses and messages into events of
// l1_table() and executes the rows' actions.
#include "coherence/msi/msi.h"

#include <cstring>
#include <stdexcept>

namespace npuvp::coherence::msi {

namespace {

bool stable(L1Machine::State state) {
  using S = L1Machine::State;
  return state == S::kI || state == S::kS || state == S::kM;
}

}  // namespace

L1::L1(unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment)
    : L1ControllerBase(tile, geometry, shape, environment) {
  if (tile >= geometry.tiles || geometry.tiles > 64)
    throw std::invalid_argument(name() + ": tile out of range (tiles " + std::to_string(geometry.tiles) +
                                ", at most 64 for the home's sharer mask)");
}

L1::Context L1::locate(std::uint64_t line) const {
  Context context;
  context.line = line;
  context.way = array_.find(line);
  return context;
}

L1::State L1::state_of(const Context& context) const {
  return context.way == CacheArray::kNone ? State::kI : static_cast<State>(array_.state(context.way));
}

L1::State L1::state_of_line(std::uint64_t line) const { return state_of(locate(geometry_.line_of(line))); }

void L1::fire(Event event, Context& context) {
  const State state = state_of(context);
  const L1Table::Row* row = l1_table().find(state, event);
  if (!row)
    throw ProtocolError(protocol_error_text(name(), context.line, L1Machine::name(state), L1Machine::name(event),
                                            failure_cause(context.message, &message_name), environment_.now()));
  l1_table().fired(row);
  for (unsigned i = 0; i < row->action_count; ++i) perform(row->actions[i], context);
  enter_state<L1Machine>(array_, context.way, row->next, State::kI, *this, [](int) {});
}

void L1::send_to_home(unsigned type, const Context& context, bool with_data) {
  Message message = message_to_home(type, context.line, tile_, geometry_, virtual_network_of(type));
  message.has_data = with_data;
  message.dirty = with_data;  // only M's data travels
  if (with_data) std::memcpy(message.data.data(), array_.data(context.way), geometry_.line_bytes);
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
    case Action::kSendRead: send_to_home(kRead, context, false); break;
    case Action::kSendRdEx:
      if (state_of(context) == State::kS) ++statistics_.upgrades;
      send_to_home(kRdEx, context, false);
      break;
    case Action::kPerform: {
      std::uint8_t* bytes = array_.data(context.way) + (pending_.address - context.line);
      switch (pending_.kind) {
        case Access::kLoad:
          copy_to_core(bytes);
          ++(hit_ ? statistics_.load_hits : statistics_.load_misses);
          break;
        case Access::kStore:
          copy_from_core(bytes);
          ++(hit_ ? statistics_.store_hits : statistics_.store_misses);
          if (locked_ && locked_line_ == context.line) locked_ = false;  // the atomic's store ends its lock
          break;
        case Access::kMakeWritable:
          ++(hit_ ? statistics_.atomic_hits : statistics_.atomic_misses);
          locked_ = true;
          locked_line_ = context.line;
          break;
      }
      array_.touch(context.way);
      performed_ = true;
      break;
    }
    case Action::kInstallData:
      if (!context.message->has_data)
        throw ProtocolError(name() + ": " + message_name(context.message->type) + " without data");
      std::memcpy(array_.data(context.way), context.message->data.data(), geometry_.line_bytes);
      break;
    case Action::kSendReplace: send_to_home(kReplace, context, false); break;
    case Action::kSendReplaceData:
      ++statistics_.writebacks;
      send_to_home(kReplace, context, true);
      break;
    case Action::kSendAck:
      ++statistics_.invalidations_received;
      send_to_home(kAck, context, false);
      break;
    case Action::kSendAckData:
      ++statistics_.interventions_received;
      send_to_home(kAckData, context, true);
      break;
    case Action::kDropLine: line_lost(context.line); break;
    case Action::kStallForward:
      parked_.park(*context.message, statistics_.stalled_messages);
      break;
    case Action::kCount: break;
  }
}

bool L1::access(Access kind, std::uint64_t address, void* data, unsigned size) {
  check_access(address, size);
  const std::uint64_t line = geometry_.line_of(address);
  if (locked_ && locked_line_ != line) unlock();
  pending_ = Pending{true, false, kind, address, line, data, size};
  performed_ = false;
  hit_ = true;
  start_access();
  hit_ = false;
  if (!performed_) return false;
  performed_ = false;
  pending_.active = false;
  retry_stalled_forwards();  // an atomic's store may have unlocked its line
  return true;
}

// Fires the pending access's event, replacing a victim first when its line
// needs a way and the set is full. Waits (pending_.waiting) when every way of
// the set is evicting (waiting for its AckChange).
void L1::start_access() {
  static const Event events[] = {Event::kLoad, Event::kStore, Event::kMakeWritable};
  Context context = locate(pending_.line);
  if (context.way == CacheArray::kNone && array_.free_way(pending_.line) == CacheArray::kNone) {
    const int victim = array_.victim(pending_.line, [](std::uint8_t state) {
      const auto s = static_cast<State>(state);
      return s == State::kS || s == State::kM;
    });
    if (victim == CacheArray::kNone) {
      pending_.waiting = true;
      return;
    }
    Context evicted;
    evicted.line = array_.line(victim);
    evicted.way = victim;
    ++statistics_.evictions;
    fire(Event::kReplacement, evicted);
    if (array_.free_way(pending_.line) == CacheArray::kNone) {  // the victim keeps its way until AckChange
      pending_.waiting = true;
      return;
    }
  }
  fire(events[static_cast<int>(pending_.kind)], context);
}

void L1::handle(const Message& message) {
  check_addressed_to_l1(*this, tile_, message, &message_name);
  performed_ = false;
  way_freed_ = false;
  on_message(message);
  retry_stalled_forwards();
  if (pending_.active && pending_.waiting && way_freed_) {
    pending_.waiting = false;
    start_access();
  }
  if (performed_ && pending_.active) {
    performed_ = false;
    pending_.active = false;
    miss_completed();  // last: the handler may start the next access
  }
}

void L1::on_message(const Message& message) {
  Event event;
  switch (message.type) {
    case kInvalidation: event = Event::kInvalidation; break;
    case kShdIntervention: event = Event::kShdIntervention; break;
    case kExcIntervention: event = Event::kExcIntervention; break;
    case kRepShd: event = Event::kRepShd; break;
    case kRepExc: event = Event::kRepExc; break;
    case kAckChange: event = Event::kAckChange; way_freed_ = true; break;
    default: throw_unexpected_message(name(), message, &message_name, environment_.now());
  }
  Context context = locate(message.line);
  context.message = &message;
  fire(event, context);
}

void L1::retry_stalled_forwards() {
  parked_.retry([&](const Message& message) { on_message(message); });  // one still blocked parks again, in order
}

void L1::unlock() {
  Context context = locate(locked_line_);
  locked_ = false;
  fire(Event::kUnlock, context);
  retry_stalled_forwards();
}

Cycles L1::synchronise() {
  if (locked_) unlock();
  return 0;
}

L1Controller::Permission L1::permission(std::uint64_t line) const {
  switch (state_of_line(line)) {
    case State::kM:
    case State::kM_L: return Permission::kWrite;
    case State::kS: return Permission::kRead;
    default: return Permission::kNone;
  }
}

bool L1::peek(std::uint64_t address, void* data, unsigned size, bool& owner) const {
  const Context context = locate(geometry_.line_of(address));
  const State state = state_of(context);
  // An evicting M line's data is the only current copy until the home has it.
  if (state != State::kS && state != State::kM && state != State::kM_L && state != State::kSI_A &&
      state != State::kMI_A)
    return false;
  owner = state == State::kM || state == State::kM_L || state == State::kMI_A;
  std::memcpy(data, array_.data(context.way) + (address - context.line), size);
  return true;
}

void L1::poke(std::uint64_t address, const void* data, unsigned size) {
  const Context context = locate(geometry_.line_of(address));
  const State state = state_of(context);
  if (state == State::kS || state == State::kM || state == State::kM_L || state == State::kSI_A ||
      state == State::kMI_A)
    std::memcpy(array_.data(context.way) + (address - context.line), data, size);
}

std::string L1::describe(std::uint64_t line) const {
  const Context context = locate(geometry_.line_of(line));
  std::string text = L1Machine::name(state_of(context));
  if (locked_ && locked_line_ == context.line) text += " (locked)";
  if (pending_.active && pending_.line == context.line) text += pending_.waiting ? " (access waiting)" : " (miss)";
  const unsigned parked = parked_.on_line(context.line);
  if (parked) text += " (" + std::to_string(parked) + " forwards parked)";
  return text;
}

bool L1::quiescent() const {
  if (pending_.active || !parked_.empty()) return false;
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
    out += std::to_string(array_.line(index)) + ':' + L1Machine::name(static_cast<State>(array_.state(index))) + ':' +
           std::to_string(array_.lru_rank(index)) + ':';
    out.append(reinterpret_cast<const char*>(array_.data(index)), geometry_.line_bytes);
    out += ';';
  }
  if (pending_.active)
    out += "pending" + std::to_string(static_cast<int>(pending_.kind)) + '/' + std::to_string(pending_.address) + '/' +
           std::to_string(pending_.size) + (pending_.waiting ? "w;" : ";");
  if (locked_) out += "locked" + std::to_string(locked_line_) + ';';
  parked_.serialize(out);
  out += '}';
}

}  // namespace npuvp::coherence::msi
