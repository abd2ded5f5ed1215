// The MESI home controller (one LLC bank with its full-map directory):
// classifies messages into events and executes home_table().
#include "coherence/mesi/mesi.h"

#include <cstring>
#include <sstream>
#include <stdexcept>

namespace npuvp::coherence::mesi {

namespace {

bool stable(HomeMachine::State state) {
  using S = HomeMachine::State;
  return state == S::kNP || state == S::kIDLE || state == S::kSHD || state == S::kEXC;
}

int popcount(std::uint64_t bits) {
  int count = 0;
  for (; bits; bits &= bits - 1) ++count;
  return count;
}

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
bool Home::dirty(std::uint64_t line) const {
  const int way = array_.find(geometry_.line_of(line));
  return way != CacheArray::kNone && directory_[way].dirty;
}

void Home::fail(const char* state, const char* event, const Context& context) const {
  std::string message;
  if (context.message)
    message = "message " + message_name(context.message->type) + " from node " +
              std::to_string(context.message->source);
  if (context.way != CacheArray::kNone) {
    const Directory& entry = directory_[context.way];
    std::ostringstream text;
    text << (message.empty() ? "" : ", ") << "sharers 0x" << std::hex << entry.sharers << std::dec << ", owner "
         << entry.owner;
    message += text.str();
  }
  throw ProtocolError(protocol_error_text(name(), context.line, state, event, message, environment_.now()));
}

Home::Event Home::classify(const Message& message, const Context& context) const {
  const State state = state_of(context);
  const unsigned source = message.source;
  const Directory* entry = context.way == CacheArray::kNone ? nullptr : &directory_[context.way];
  const bool owner = entry && state == State::kEXC && entry->owner == static_cast<int>(source);
  const bool sharer = entry && state == State::kSHD && (entry->sharers >> source & 1u);
  const bool busy = !stable(state);
  switch (message.type) {
    case kRead:
      if (owner) return Event::kRequestFromOwner;
      return Event::kRead;
    case kRdEx:
      if (owner) return Event::kRequestFromOwner;
      if (sharer) return Event::kRequestFromSharer;
      return Event::kRdEx;
    case kUpgrade:
      if (busy) return Event::kUpgrade;
      if (owner) return Event::kRequestFromOwner;
      if (!sharer) return Event::kRdEx;  // invalidated while the Upgrade travelled: it needs the data
      return popcount(entry->sharers) == 1 ? Event::kUpgradeSole : Event::kUpgrade;
    case kReplace:
      if (busy) return Event::kReplace;
      if (owner) return Event::kReplaceOwner;
      if (sharer) return popcount(entry->sharers) == 1 ? Event::kReplaceLastSharer : Event::kReplaceSharer;
      return Event::kReplaceStale;
    case kAck: return entry && entry->acks == 1 ? Event::kLastAck : Event::kAck;
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
  context.event = event;
  if (!(row->action_count == 1 && row->actions[0] == Action::kStall)) ++transitions_;
  for (unsigned i = 0; i < row->action_count; ++i) perform(row->actions[i], context);
  enter_state<HomeMachine>(array_, context.way, row->next, State::kNP, *this, [&](int way) { directory_[way] = Directory{}; });
}

unsigned Home::requester(const Context& context) const {
  if (context.message) {
    const unsigned type = context.message->type;
    if (type == kRead || type == kRdEx || type == kUpgrade || type == kReplace) return context.message->source;
  }
  return directory_[context.way].requester;
}

void Home::send_to_l1(unsigned type, unsigned tile, const Context& context, bool with_data) {
  Message message;
  message.type = type;
  message.line = context.line;
  message.source = tile_;
  message.source_port = Port::kHome;
  message.destination = tile;
  message.destination_port = Port::kL1;
  message.requester = context.way == CacheArray::kNone ? tile : directory_[context.way].requester;
  message.vnet = virtual_network_of(type);
  message.has_data = with_data;
  if (with_data) std::memcpy(message.data.data(), array_.data(context.way), geometry_.line_bytes);
  environment_.send(message, shape_.latency);
}

void Home::perform(Action action, Context& context) {
  Directory* entry = context.way == CacheArray::kNone ? nullptr : &directory_[context.way];
  const auto need_entry = [&] {
    if (!entry) fail(HomeMachine::name(state_of(context)), HomeMachine::name(action), context);
  };
  switch (action) {
    case Action::kAllocate: {
      const int way = array_.free_way(context.line);
      if (way == CacheArray::kNone) throw ProtocolError(name() + ": internal error, no free way to allocate");
      array_.install(way, context.line, static_cast<std::uint8_t>(State::kNP_D));
      directory_[way] = Directory{};
      context.way = way;
      break;
    }
    case Action::kFetchFromMemory: {
      ++statistics_.memory_reads;
      Message message;
      message.type = kMemoryRead;
      message.line = context.line;
      message.source = tile_;
      message.source_port = Port::kHome;
      message.destination = geometry_.memory_controller_of(context.line);
      message.destination_port = Port::kMemory;
      message.requester = context.message ? context.message->source : tile_;
      message.vnet = VirtualNetwork::kRequest;
      environment_.send(message, shape_.latency);
      break;
    }
    case Action::kStall: stall(*context.message); break;
    case Action::kInstallMemoryData:
      need_entry();
      std::memcpy(array_.data(context.way), context.message->data.data(), geometry_.line_bytes);
      entry->dirty = false;
      break;
    case Action::kRecordRequest:
      need_entry();
      entry->requester = context.message->source;
      // An Upgrade from a line's former sharer is handled as the RdEx it now needs.
      entry->request = context.event == Event::kUpgrade || context.event == Event::kUpgradeSole
                           ? static_cast<unsigned>(kUpgrade)
                           : context.message->type == kRead ? static_cast<unsigned>(kRead) : static_cast<unsigned>(kRdEx);
      break;
    case Action::kSendRepExc: send_to_l1(kRepExc, requester(context), context, true); break;
    case Action::kSendRepShd: send_to_l1(kRepShd, requester(context), context, true); break;
    case Action::kSendGrant:
      need_entry();
      if (entry->request == kUpgrade)
        send_to_l1(kAckChange, entry->requester, context, false);
      else
        send_to_l1(kRepExc, entry->requester, context, true);
      break;
    case Action::kSendAckChange: send_to_l1(kAckChange, context.message->source, context, false); break;
    case Action::kMakeOwner:
      need_entry();
      entry->owner = static_cast<int>(requester(context));
      entry->sharers = 0;
      break;
    case Action::kAddSharer:
      need_entry();
      entry->sharers |= std::uint64_t{1} << requester(context);
      break;
    case Action::kRemoveSharer:
      need_entry();
      entry->sharers &= ~(std::uint64_t{1} << context.message->source);
      break;
    case Action::kOwnerAndRequesterShare:
      need_entry();
      entry->sharers = (std::uint64_t{1} << entry->owner) | (std::uint64_t{1} << entry->requester);
      entry->owner = -1;
      break;
    case Action::kInvalidateOtherSharers:
    case Action::kInvalidateAllSharers: {
      need_entry();
      std::uint64_t targets = entry->sharers;
      if (action == Action::kInvalidateOtherSharers) targets &= ~(std::uint64_t{1} << entry->requester);
      entry->acks = popcount(targets);
      entry->sharers &= ~targets;
      if (entry->acks == 0) fail(HomeMachine::name(state_of(context)), "invalidation without sharers", context);
      for (unsigned tile = 0; targets; ++tile, targets >>= 1)
        if (targets & 1u) {
          ++statistics_.invalidations_sent;
          send_to_l1(kInvalidation, tile, context, false);
        }
      break;
    }
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
    case Action::kCountAck:
      need_entry();
      --entry->acks;
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
      entry->owner = -1;
      break;
    case Action::kWriteBack:
      need_entry();
      if (entry->dirty) {
        ++statistics_.memory_writes;
        Message message;
        message.type = kMemoryWrite;
        message.line = context.line;
        message.source = tile_;
        message.source_port = Port::kHome;
        message.destination = geometry_.memory_controller_of(context.line);
        message.destination_port = Port::kMemory;
        message.requester = tile_;
        message.vnet = VirtualNetwork::kRequest;
        message.has_data = true;
        message.dirty = true;
        std::memcpy(message.data.data(), array_.data(context.way), geometry_.line_bytes);
        environment_.send(message, shape_.latency);
      }
      break;
    case Action::kCount: break;
  }
}

bool Home::make_room(std::uint64_t line) {
  const auto evictable = [](std::uint8_t state) {
    const auto s = static_cast<State>(state);
    return s == State::kIDLE || s == State::kSHD || s == State::kEXC;
  };
  return coherence::make_room(array_, line, evictable, [&](int victim) {
    Context evicted;
    evicted.line = array_.line(victim);
    evicted.way = victim;
    ++statistics_.evictions;
    if (state_of(evicted) != State::kIDLE) ++statistics_.recalls;
    fire(Event::kEvict, evicted);
  });
}

void Home::process(const Message& message) {
  Context context;
  context.line = message.line;
  context.way = array_.find(message.line);
  context.message = &message;
  const Event event = classify(message, context);
  if (context.way == CacheArray::kNone && (event == Event::kRead || event == Event::kRdEx) &&
      !make_room(message.line)) {
    stall(message);
    return;
  }
  fire(event, context);
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
  for (unsigned way = 0; way < array_.entries(); ++way) {
    const auto state = static_cast<State>(array_.state(static_cast<int>(way)));
    if (!stable(state)) return false;
  }
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
           std::to_string(entry.dirty) + ':' + std::to_string(entry.requester) + ':' + std::to_string(entry.request) +
           ':' + std::to_string(entry.acks) + ':' + std::to_string(array_.lru_rank(index)) + ':';
    out.append(reinterpret_cast<const char*>(array_.data(index)), geometry_.line_bytes);
    out += ';';
  }
  waiting_.serialize(out);
  out += '}';
}

}  // namespace npuvp::coherence::mesi
