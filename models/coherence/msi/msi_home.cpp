// The MSI home controller (one LLC bank with its full-map directory): turns
// messages into events of home_table() and executes the rows' actions.
#include "coherence/msi/msi.h"

#include <cstring>
#include <sstream>
#include <stdexcept>

namespace npuvp::coherence::msi {

namespace {

bool stable(HomeMachine::State state) {
  using S = HomeMachine::State;
  return state == S::kNP || state == S::kSHD || state == S::kMOD;
}

std::uint64_t bit(unsigned tile) { return std::uint64_t{1} << tile; }

}  // namespace

Home::Home(unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment)
    : HomeControllerBase(tile, geometry, shape, environment, State::kNP, State::kNP_D),
      directory_(array_.entries()) {
  if (tile >= geometry.tiles || geometry.tiles > 64)
    throw std::invalid_argument(name() + ": tile out of range (tiles " + std::to_string(geometry.tiles) +
                                ", at most 64 for the sharer mask)");
}

Home::State Home::state_of(const Context& context) const { return state_of_way(context.way); }

std::uint64_t Home::sharers_of(std::uint64_t line) const {
  const int way = array_.find(geometry_.line_of(line));
  return way == CacheArray::kNone ? 0 : directory_[way].sharers;
}
int Home::owner_of(std::uint64_t line) const {
  const int way = array_.find(geometry_.line_of(line));
  return way == CacheArray::kNone ? -1 : directory_[way].owner;
}

Home::Event Home::classify(const Message& message, const Context& context) const {
  const State state = state_of(context);
  const Directory* entry = context.way == CacheArray::kNone ? nullptr : &directory_[context.way];
  const unsigned source = message.source;
  const bool busy = !stable(state);
  const bool owner = state == State::kMOD && entry->owner == static_cast<int>(source);
  const bool sharer = state == State::kSHD && (entry->sharers & bit(source));
  switch (message.type) {
    case kRead: return owner ? Event::kRequestFromOwner : Event::kRead;
    case kRdEx:
      if (busy) return Event::kRdEx;
      if (owner) return Event::kRequestFromOwner;
      if (state == State::kSHD && (entry->sharers & ~bit(source)) != 0) return Event::kRdEx;
      return state == State::kMOD ? Event::kRdEx : Event::kRdExAlone;
    case kReplace:
      if (busy) return Event::kReplace;
      return owner ? Event::kReplaceOwner : sharer ? Event::kReplaceSharer : Event::kReplaceStale;
    case kAck: return entry && entry->acks == 1 ? Event::kLastAck : Event::kAck;
    case kAckData: return Event::kAckData;
    case kMemoryData: return Event::kMemoryData;
    default: throw_unexpected_message(name(), message, &message_name, environment_.now());
  }
}

void Home::fire(Event event, Context& context) {
  const State state = state_of(context);
  const HomeTable::Row* row = home_table().find(state, event);
  if (!row) {
    std::ostringstream cause;
    if (context.message)
      cause << "message " << message_name(context.message->type) << " from node " << context.message->source;
    if (context.way != CacheArray::kNone)
      cause << (context.message ? ", " : "") << "sharers 0x" << std::hex << directory_[context.way].sharers
            << std::dec << ", owner " << directory_[context.way].owner;
    throw ProtocolError(protocol_error_text(name(), context.line, HomeMachine::name(state),
                                            HomeMachine::name(event), cause.str(), environment_.now()));
  }
  home_table().fired(row);
  for (unsigned i = 0; i < row->action_count; ++i) perform(row->actions[i], context);
  enter_state<HomeMachine>(array_, context.way, row->next, State::kNP, *this, [&](int way) { directory_[way] = Directory{}; });
}

// The L1 a grant goes to: the sender of the request being handled, or the
// recorded requester when an Ack/AckData completes the transaction.
unsigned Home::requester(const Context& context) const {
  const unsigned type = context.message ? context.message->type : 0;
  if (type == kRead || type == kRdEx || type == kReplace) return context.message->source;
  return directory_[context.way].requester;
}

void Home::send(unsigned type, unsigned destination, Port port, const Context& context, bool with_data) {
  Message message;
  message.type = type;
  message.line = context.line;
  message.source = tile_;
  message.source_port = Port::kHome;
  message.destination = destination;
  message.destination_port = port;
  message.requester = context.way == CacheArray::kNone ? destination : directory_[context.way].requester;
  message.vnet = port == Port::kMemory ? VirtualNetwork::kRequest : virtual_network_of(type);
  message.has_data = with_data;
  message.dirty = with_data && context.way != CacheArray::kNone && directory_[context.way].dirty;
  if (with_data) std::memcpy(message.data.data(), array_.data(context.way), geometry_.line_bytes);
  environment_.send(message, shape_.latency);
}

void Home::perform(Action action, Context& context) {
  if (action != Action::kAllocate && action != Action::kFetchFromMemory && action != Action::kStall &&
      action != Action::kSendAckChange && context.way == CacheArray::kNone)
    throw ProtocolError(name() + ": internal error, action " + HomeMachine::name(action) + " without a way");
  Directory* entry = context.way == CacheArray::kNone ? nullptr : &directory_[context.way];
  switch (action) {
    case Action::kAllocate: {
      const int way = array_.free_way(context.line);
      if (way == CacheArray::kNone) throw ProtocolError(name() + ": internal error, no free way to allocate");
      array_.install(way, context.line, static_cast<std::uint8_t>(State::kNP_D));
      directory_[way] = Directory{};
      context.way = way;
      break;
    }
    case Action::kFetchFromMemory:
      ++statistics_.memory_reads;
      send(kMemoryRead, geometry_.memory_controller_of(context.line), Port::kMemory, context, false);
      break;
    case Action::kStall: stall(*context.message); break;
    case Action::kInstallMemoryData:
      std::memcpy(array_.data(context.way), context.message->data.data(), geometry_.line_bytes);
      entry->dirty = false;
      break;
    case Action::kRecordRequest: entry->requester = context.message->source; break;
    case Action::kSendRepShd: send(kRepShd, requester(context), Port::kL1, context, true); break;
    case Action::kSendRepExc: send(kRepExc, requester(context), Port::kL1, context, true); break;
    case Action::kSendAckChange: send(kAckChange, context.message->source, Port::kL1, context, false); break;
    case Action::kAddSharer: entry->sharers |= bit(requester(context)); break;
    case Action::kRemoveSharer: entry->sharers &= ~bit(context.message->source); break;
    case Action::kMakeOwner:
      entry->owner = static_cast<int>(requester(context));
      entry->sharers = 0;
      break;
    case Action::kOwnerAndRequesterShare:
      // After kWriteData (no owner any more): the AckData's sender is the former owner.
      entry->sharers = bit(context.message->source) | bit(entry->requester);
      entry->owner = -1;
      break;
    case Action::kInvalidateOtherSharers:
    case Action::kInvalidateAllSharers: {
      std::uint64_t targets = entry->sharers;
      if (action == Action::kInvalidateOtherSharers) targets &= ~bit(entry->requester);
      entry->sharers &= ~targets;
      entry->acks = 0;
      for (unsigned tile = 0; tile < geometry_.tiles; ++tile)
        if (targets & bit(tile)) {
          ++entry->acks;
          ++statistics_.invalidations_sent;
          send(kInvalidation, tile, Port::kL1, context, false);
        }
      break;
    }
    case Action::kSendShdIntervention:
    case Action::kSendExcIntervention:
      ++statistics_.interventions_sent;
      send(action == Action::kSendShdIntervention ? kShdIntervention : kExcIntervention,
           static_cast<unsigned>(entry->owner), Port::kL1, context, false);
      break;
    case Action::kCountAck: --entry->acks; break;
    case Action::kWriteData:
      if (context.message->has_data) {
        std::memcpy(array_.data(context.way), context.message->data.data(), geometry_.line_bytes);
        entry->dirty |= context.message->dirty;
      }
      entry->owner = -1;
      break;
    case Action::kWriteBack:
      if (entry->dirty) {
        ++statistics_.memory_writes;
        send(kMemoryWrite, geometry_.memory_controller_of(context.line), Port::kMemory, context, true);
      }
      break;
    case Action::kCount: break;
  }
}

// Makes a way free for `line`, evicting the least recently used stable line
// of its set (which may first have to be recalled from the L1s: then the
// way frees later, when the recall completes). False: not free now.
bool Home::make_room(std::uint64_t line) {
  const auto evictable = [](std::uint8_t state) {
    return static_cast<State>(state) == State::kSHD || static_cast<State>(state) == State::kMOD;
  };
  return coherence::make_room(array_, line, evictable, [&](int victim) {
    Context evicted;
    evicted.line = array_.line(victim);
    evicted.way = victim;
    const Directory& entry = directory_[victim];
    const bool held = entry.sharers != 0 || entry.owner >= 0;
    ++statistics_.evictions;
    if (held) ++statistics_.recalls;
    fire(held ? Event::kEvict : Event::kEvictUnshared, evicted);
  });
}

bool Home::process(const Message& message) {
  Context context;
  context.line = message.line;
  context.way = array_.find(message.line);
  context.message = &message;
  const Event event = classify(message, context);
  if (context.way == CacheArray::kNone && (event == Event::kRead || event == Event::kRdExAlone) &&
      !make_room(message.line)) {
    waiting_.park(message, statistics_.stalled_messages);
    return false;
  }
  stalled_now_ = false;
  fire(event, context);
  return !stalled_now_;
}

void Home::handle(const Message& message) {
  check_addressed_to_home(*this, tile_, geometry_, message, &message_name);
  const bool request = message.type == kRead || message.type == kRdEx || message.type == kReplace;
  if (message.type == kRead || message.type == kRdEx)
    ++(array_.find(message.line) == CacheArray::kNone ? statistics_.misses : statistics_.hits);
  receive(message, request, [&](const Message& each) { process(each); });
  // Waiting requests whose line became stable, until a pass serves none.
  waiting_.retry([&](const Message& waiting) { return process(waiting); }, [](bool served_any) { return served_any; });
}

std::string Home::describe(std::uint64_t line) const {
  line = geometry_.line_of(line);
  const int way = array_.find(line);
  if (way == CacheArray::kNone) return "NP";
  const Directory& entry = directory_[way];
  std::ostringstream text;
  text << HomeMachine::name(static_cast<State>(array_.state(way))) << " sharers 0x" << std::hex << entry.sharers
       << std::dec << " owner " << entry.owner << (entry.dirty ? " dirty" : " clean");
  if (entry.acks) text << " (waiting for " << entry.acks << " acks, requester " << entry.requester << ")";
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
    const Directory& entry = directory_[way];
    out += std::to_string(array_.line(index)) + ':' + HomeMachine::name(static_cast<State>(array_.state(index))) +
           ':' + std::to_string(entry.sharers) + ':' + std::to_string(entry.owner) + ':' +
           std::to_string(entry.dirty) + ':' + std::to_string(entry.requester) + ':' + std::to_string(entry.acks) +
           ':' + std::to_string(array_.lru_rank(index)) + ':';
    out.append(reinterpret_cast<const char*>(array_.data(index)), geometry_.line_bytes);
    out += ';';
  }
  waiting_.serialize(out, geometry_.line_bytes);
  out += '}';
}

}  // namespace npuvp::coherence::msi
