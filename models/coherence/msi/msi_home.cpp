// The MSI home controller (one LLC bank with its full-map directory): turns
// messages into events of home_table() and executes the rows' actions
// (table_driven_controller.h does the rest).
#include "coherence/msi/msi.h"

#include <cstring>
#include <sstream>

namespace npuvp::coherence::msi {

namespace {

std::uint64_t bit(unsigned tile) { return std::uint64_t{1} << tile; }

}  // namespace

Home::Home(unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment)
    : TableDrivenHome(tile, geometry, shape, environment) {}

std::uint64_t Home::sharers_of(std::uint64_t line) const {
  const Directory* entry = entry_of_line(line);
  return entry ? entry->sharers : 0;
}
int Home::owner_of(std::uint64_t line) const {
  const Directory* entry = entry_of_line(line);
  return entry ? entry->owner : -1;
}

Home::Event Home::classify(const Message& message, const Context& context) const {
  const State state = state_of(context);
  const Directory* entry = context.way == CacheArray::kNone ? nullptr : &entries_[context.way];
  const unsigned source = message.source;
  const bool busy = !HomeMachine::stable(state);
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

void Home::send_to(unsigned type, unsigned destination, Port port, const Context& context, bool with_data) {
  const Directory* entry = context.way == CacheArray::kNone ? nullptr : &entries_[context.way];
  Message message = port == Port::kMemory
                        ? message_to_memory(type, context, entry ? entry->requester : destination, with_data)
                        : message_to_l1(type, destination, context, with_data);
  message.dirty = with_data && entry && entry->dirty;
  send(message);
}

void Home::perform(Action action, Context& context) {
  if (action != Action::kAllocate && action != Action::kFetchFromMemory && action != Action::kStall &&
      action != Action::kSendAckChange && context.way == CacheArray::kNone)
    throw ProtocolError(name() + ": internal error, action " + HomeMachine::name(action) + " without a way");
  Directory* entry = entry_of(context);
  switch (action) {
    case Action::kAllocate:
    case Action::kStall:
    case Action::kCount: break;  // the base's (perform_common)
    case Action::kInstallMemoryData: install_memory_data(context); break;
    case Action::kFetchFromMemory:
      ++statistics_.memory_reads;
      send_to(kMemoryRead, geometry_.memory_controller_of(context.line), Port::kMemory, context, false);
      break;
    case Action::kRecordRequest: entry->requester = context.message->source; break;
    case Action::kSendRepShd: send_to(kRepShd, requester(context), Port::kL1, context, true); break;
    case Action::kSendRepExc: send_to(kRepExc, requester(context), Port::kL1, context, true); break;
    case Action::kSendAckChange: send_to(kAckChange, context.message->source, Port::kL1, context, false); break;
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
          send_to(kInvalidation, tile, Port::kL1, context, false);
        }
      break;
    }
    case Action::kSendShdIntervention:
    case Action::kSendExcIntervention:
      ++statistics_.interventions_sent;
      send_to(action == Action::kSendShdIntervention ? kShdIntervention : kExcIntervention,
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
        send_to(kMemoryWrite, geometry_.memory_controller_of(context.line), Port::kMemory, context, true);
      }
      break;
  }
}

// The LLC's victim: recalled from the L1s first when any holds it (inclusion).
Home::Event Home::eviction(const Context& evicted) {
  const Directory& entry = entries_[evicted.way];
  const bool held = entry.sharers != 0 || entry.owner >= 0;
  if (held) ++statistics_.recalls;
  return held ? Event::kEvict : Event::kEvictUnshared;
}

// Waiting requests whose line became stable, until a pass serves none.
void Home::retry_waiting() {
  waiting_.retry([&](const Message& waiting) { return process(waiting); }, [](bool served_any) { return served_any; });
}

std::string Home::entry_key(int way) const {
  return entry_key_of(entries_[way]) + std::to_string(array_.lru_rank(way)) + ':';
}

}  // namespace npuvp::coherence::msi
