// The NSI home controller (one LLC bank; an owner per line, no sharer list):
// classifies messages into events and executes home_table().
#include "coherence/nsi/nsi.h"

#include <cstring>
#include <sstream>
#include <stdexcept>

namespace npuvp::coherence::nsi {

namespace {

bool stable(HomeMachine::State state) {
  using S = HomeMachine::State;
  return state == S::kINV || state == S::kEXC || state == S::kMOD;
}

}  // namespace

Home::Home(unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment)
    : HomeControllerBase(tile, geometry, shape, environment, State::kINV, State::kINV_D),
      entries_(array_.entries()) {
  if (tile >= geometry.tiles)
    throw std::invalid_argument(name() + ": tile out of range (tiles " + std::to_string(geometry.tiles) + ")");
}

Home::Context Home::context_of(const Message& message) const {
  Context context;
  context.line = message.line;
  context.way = array_.find(message.line);
  context.message = &message;
  return context;
}

Home::State Home::state_of(const Context& context) const { return state_of_way(context.way); }

int Home::owner_of(std::uint64_t line) const {
  const int way = array_.find(geometry_.line_of(line));
  return way == CacheArray::kNone ? -1 : entries_[way].owner;
}

void Home::fail(const char* state, const char* event, const Context& context) const {
  std::string message;
  if (context.message)
    message = "message " + message_name(context.message->type) + " from node " +
              std::to_string(context.message->source);
  if (context.way != CacheArray::kNone)
    message += (message.empty() ? "" : ", ") + std::string("owner ") + std::to_string(entries_[context.way].owner);
  throw ProtocolError(protocol_error_text(name(), context.line, state, event, message, environment_.now()));
}

Home::Event Home::classify(const Message& message, const Context& context) const {
  const State state = state_of(context);
  const int owner = context.way == CacheArray::kNone ? -1 : entries_[context.way].owner;
  const bool from_owner = owner == static_cast<int>(message.source);
  const bool busy = !stable(state);
  switch (message.type) {
    case kRead:
      if (from_owner && !busy) return Event::kRequestFromOwner;
      // A validation whose copy has the line's version: its data is the
      // LLC's. (In MOD the version was renewed for the owner's writes.)
      if (state == State::kEXC && message.version != 0 && message.version == entries_[context.way].version)
        return owner >= 0 ? Event::kReadCurrentOwned : Event::kReadCurrent;
      return owner >= 0 ? Event::kReadOwned : Event::kRead;
    case kRdEx:
      if (from_owner && !busy) return Event::kRequestFromOwner;
      return owner >= 0 ? Event::kRdExOwned : Event::kRdEx;
    case kUpgrade:
      if (busy) return Event::kUpgrade;
      if (from_owner) return Event::kUpgrade;
      // The sender lost ownership while its Upgrade travelled (an
      // ExcIntervention took it): it needs the data, as for a RdEx.
      return owner >= 0 ? Event::kRdExOwned : Event::kRdEx;
    case kReplace:
      if (busy) return Event::kReplace;
      return from_owner ? Event::kReplaceOwner : Event::kReplaceStale;
    case kAckData: return Event::kAckData;
    case kMemoryData: return Event::kMemoryData;
    default: throw_unexpected_message(name(), message, &message_name, environment_.now());
  }
}

void Home::fire(Event event, Context& context) {
  const State state = state_of(context);
  const HomeTable::Row* row = home_table().find(state, event);
  if (!row) fail(HomeMachine::name(state), HomeMachine::name(event), context);
  home_table().fired(row);
  if (!(row->action_count == 1 && row->actions[0] == Action::kStall)) ++transitions_;
  for (unsigned i = 0; i < row->action_count; ++i) perform(row->actions[i], context);
  enter_state<HomeMachine>(array_, context.way, row->next, State::kINV, *this, [&](int way) { entries_[way] = Entry{}; });
}

unsigned Home::requester(const Context& context) const {
  if (context.message) {
    const unsigned type = context.message->type;
    if (type == kRead || type == kRdEx || type == kUpgrade || type == kReplace) return context.message->source;
  }
  return entries_[context.way].requester;
}

void Home::send_to_l1(unsigned type, unsigned tile, const Context& context, bool with_data) {
  Message message;
  message.type = type;
  message.line = context.line;
  message.source = tile_;
  message.source_port = Port::kHome;
  message.destination = tile;
  message.destination_port = Port::kL1;
  message.requester = context.way == CacheArray::kNone ? tile : entries_[context.way].requester;
  message.vnet = virtual_network_of(type);
  message.has_data = with_data;
  if (context.way != CacheArray::kNone) message.version = entries_[context.way].version;
  if (with_data) std::memcpy(message.data.data(), array_.data(context.way), geometry_.line_bytes);
  environment_.send(message, shape_.latency);
}

void Home::send_to_memory(unsigned type, const Context& context, bool with_data) {
  Message message;
  message.type = type;
  message.line = context.line;
  message.source = tile_;
  message.source_port = Port::kHome;
  message.destination = geometry_.memory_controller_of(context.line);
  message.destination_port = Port::kMemory;
  message.requester = context.message ? context.message->source : tile_;
  message.vnet = VirtualNetwork::kRequest;
  message.has_data = with_data;
  message.dirty = with_data;
  if (with_data) std::memcpy(message.data.data(), array_.data(context.way), geometry_.line_bytes);
  environment_.send(message, shape_.latency);
}

void Home::perform(Action action, Context& context) {
  Entry* entry = context.way == CacheArray::kNone ? nullptr : &entries_[context.way];
  const auto need_entry = [&] {
    if (!entry) fail(HomeMachine::name(state_of(context)), HomeMachine::name(action), context);
  };
  switch (action) {
    case Action::kAllocate: {
      const int way = array_.free_way(context.line);
      if (way == CacheArray::kNone) throw ProtocolError(name() + ": internal error, no free way to allocate");
      array_.install(way, context.line, static_cast<std::uint8_t>(State::kINV_D));
      entries_[way] = Entry{};
      context.way = way;
      break;
    }
    case Action::kFetchFromMemory:
      ++statistics_.memory_reads;
      send_to_memory(kMemoryRead, context, false);
      break;
    case Action::kStall: stall(*context.message); break;
    case Action::kInstallMemoryData:
      need_entry();
      std::memcpy(array_.data(context.way), context.message->data.data(), geometry_.line_bytes);
      entry->dirty = false;
      entry->owner = -1;
      break;
    case Action::kRecordRequest:
      need_entry();
      entry->requester = context.message->source;
      break;
    case Action::kSendRepExc: send_to_l1(kRepExc, requester(context), context, true); break;
    case Action::kSendRepShd: send_to_l1(kRepShd, requester(context), context, true); break;
    case Action::kSendRepValidExc: send_to_l1(kRepValidExc, requester(context), context, false); break;
    case Action::kSendRepValidShd: send_to_l1(kRepValidShd, requester(context), context, false); break;
    case Action::kNewVersion:
      need_entry();
      entry->version = ++last_version_;
      break;
    case Action::kSendAckChange: send_to_l1(kAckChange, context.message->source, context, false); break;
    case Action::kMakeOwner:
      need_entry();
      entry->owner = static_cast<int>(requester(context));
      break;
    case Action::kClearOwner:
      need_entry();
      entry->owner = -1;
      break;
    case Action::kSendShdIntervention:
      need_entry();
      ++statistics_.interventions_sent;
      send_to_l1(kShdIntervention, static_cast<unsigned>(entry->owner), context, false);
      break;
    case Action::kSendExcIntervention:
    case Action::kRecallOwner:
      need_entry();
      ++statistics_.interventions_sent;
      send_to_l1(kExcIntervention, static_cast<unsigned>(entry->owner), context, false);
      if (action == Action::kRecallOwner) entry->owner = -1;
      break;
    case Action::kWriteAckData:
      need_entry();
      if (!context.message->has_data) fail(HomeMachine::name(state_of(context)), "AckData without data", context);
      std::memcpy(array_.data(context.way), context.message->data.data(), geometry_.line_bytes);
      entry->dirty |= context.message->dirty;
      break;
    case Action::kWriteReplaceData:
      need_entry();
      if (context.message->has_data) {
        std::memcpy(array_.data(context.way), context.message->data.data(), geometry_.line_bytes);
        entry->dirty |= context.message->dirty;
      }
      break;
    case Action::kWriteBack:
      need_entry();
      if (entry->dirty) {
        ++statistics_.memory_writes;
        send_to_memory(kMemoryWrite, context, true);
      }
      break;
    case Action::kCount: break;
  }
}

bool Home::make_room(std::uint64_t line) {
  const auto evictable = [](std::uint8_t state) {
    const auto s = static_cast<State>(state);
    return s == State::kEXC || s == State::kMOD;
  };
  return coherence::make_room(array_, line, evictable, [&](int victim) {
    Context evicted;
    evicted.line = array_.line(victim);
    evicted.way = victim;
    ++statistics_.evictions;
    const bool owned = entries_[victim].owner >= 0;
    if (owned) ++statistics_.recalls;
    fire(owned ? Event::kEvictOwned : Event::kEvict, evicted);
  });
}

void Home::process(const Message& message) {
  Context context = context_of(message);
  const Event event = classify(message, context);
  if (context.way == CacheArray::kNone && (event == Event::kRead || event == Event::kRdEx) &&
      !make_room(message.line)) {
    stall(message);
    return;
  }
  fire(event, context);
}

bool Home::answers_alone(const Message& request) const {
  if (request.type != kRead) return false;
  const Context context = context_of(request);
  if (context.way == CacheArray::kNone || waiting_.on_line(request.line) != 0) return false;
  const HomeTable::Row* row = home_table().find(state_of(context), classify(request, context));
  if (!row) return false;
  for (unsigned i = 0; i < row->action_count; ++i) {
    switch (row->actions[i]) {
      case Action::kSendRepExc:
      case Action::kSendRepShd:
      case Action::kSendRepValidExc:
      case Action::kSendRepValidShd:
      case Action::kMakeOwner: break;
      default: return false;  // an intervention, memory, a stall
    }
  }
  return true;
}

void Home::handle(const Message& message) {
  check_addressed_to_home(*this, tile_, geometry_, message, &message_name);
  const bool request = message.type == kRead || message.type == kRdEx || message.type == kUpgrade ||
                       message.type == kReplace;
  if (request && message.type != kReplace)
    ++(array_.find(message.line) == CacheArray::kNone ? statistics_.misses : statistics_.hits);
  const auto serve = [&](const Message& each) { process(each); };
  receive(message, request, serve);
  retry_while_lines_change(serve);
}

std::string Home::describe(std::uint64_t line) const {
  line = geometry_.line_of(line);
  const int way = array_.find(line);
  if (way == CacheArray::kNone) return "INV";
  const Entry& entry = entries_[way];
  std::ostringstream text;
  text << HomeMachine::name(static_cast<State>(array_.state(way))) << " owner " << entry.owner
       << (entry.dirty ? " dirty" : " clean");
  if (!stable(static_cast<State>(array_.state(way)))) text << " (requester " << entry.requester << ")";
  const unsigned waiting = waiting_.on_line(line);
  if (waiting) text << " (" << waiting << " requests waiting)";
  return text.str();
}

bool Home::quiescent() const {
  if (!waiting_.empty()) return false;
  for (unsigned way = 0; way < array_.entries(); ++way)
    if (!stable(static_cast<State>(array_.state(static_cast<int>(way))))) return false;
  return true;
}

void Home::serialize(std::string& out) const {
  out += name();
  out += '{';
  for (unsigned way = 0; way < array_.entries(); ++way) {
    const int index = static_cast<int>(way);
    if (array_.state(index) == 0) continue;
    const Entry& entry = entries_[way];
    out += std::to_string(array_.line(index)) + ':' + HomeMachine::name(static_cast<State>(array_.state(index))) +
           ':' + std::to_string(entry.owner) + ':' + std::to_string(entry.dirty) + ':' +
           std::to_string(entry.requester) + ':' + std::to_string(array_.lru_rank(index)) + ":v" +
           std::to_string(entry.version) + ':';
    out.append(reinterpret_cast<const char*>(array_.data(index)), geometry_.line_bytes);
    out += ';';
  }
  waiting_.serialize(out);
  out += "last" + std::to_string(last_version_) + ';';
  out += '}';
}

}  // namespace npuvp::coherence::nsi
