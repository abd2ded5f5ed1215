// The MESI home controller (one LLC bank with its full-map directory):
// classifies messages into events and executes home_table()
// (table_driven_controller.h does the rest).
#include "coherence/mesi/mesi.h"

#include <cstring>
#include <sstream>
#include <stdexcept>

namespace npuvp::coherence::mesi {

namespace {

int popcount(std::uint64_t bits) {
  int count = 0;
  for (; bits; bits &= bits - 1) ++count;
  return count;
}

}  // namespace

Home::Home(unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment,
           const HomeTable& table)
    : TableDrivenHome(tile, geometry, shape, environment, table) {}

std::uint64_t Home::sharers_of(std::uint64_t line) const {
  const Directory* entry = entry_of_line(line);
  return entry ? entry->sharers : 0;
}
int Home::owner_of(std::uint64_t line) const {
  const Directory* entry = entry_of_line(line);
  return entry ? entry->owner : -1;
}
bool Home::dirty(std::uint64_t line) const {
  const Directory* entry = entry_of_line(line);
  return entry && entry->dirty;
}

Home::Event Home::classify(const Message& message, const Context& context) const {
  const State state = state_of(context);
  const unsigned source = message.source;
  const Directory* entry = context.way == CacheArray::kNone ? nullptr : &entries_[context.way];
  const bool owner = entry && state == State::kEXC && entry->owner == static_cast<int>(source);
  const bool sharer = entry && state == State::kSHD && (entry->sharers >> source & 1u);
  const bool busy = !HomeMachine::stable(state);
  switch (message.type) {
    case kRead:
      if (owner) return Event::kRequestFromOwner;
      return Event::kRead;
    case kRdEx:
      if (owner) return Event::kRequestFromOwner;
      if (sharer) return popcount(entry->sharers) == 1 ? Event::kRdExFromSoleSharer : Event::kRdExFromSharer;
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

void Home::perform(Action action, Context& context) {
  Directory* entry = entry_of(context);
  const auto need_entry = [&] { require_entry(entry, action, context); };
  switch (action) {
    case Action::kAllocate:
    case Action::kStall:
    case Action::kCount: break;  // the base's (perform_common)
    case Action::kInstallMemoryData: install_memory_data(context); break;
    case Action::kFetchFromMemory: fetch_from_memory(context); break;
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
      send_intervention(kShdIntervention, *entry, context);
      break;
    case Action::kSendExcIntervention:
    case Action::kRecallOwner:
      need_entry();
      send_intervention(kExcIntervention, *entry, context);
      if (action == Action::kRecallOwner) entry->owner = -1;
      break;
    case Action::kCountAck:
      need_entry();
      --entry->acks;
      break;
    case Action::kWriteAckData:
      need_entry();
      write_ack_data(context, *entry);
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
        send(message_to_memory(kMemoryWrite, context, tile_, true));
      }
      break;
  }
}

// The LLC's victim: recalled from the L1s first when any holds it (inclusion).
Home::Event Home::eviction(const Context& evicted) {
  if (state_of(evicted) != State::kIDLE) ++statistics_.recalls;
  return Event::kEvict;
}

std::string Home::entry_key(int way) const {
  const Directory& entry = entries_[way];
  return entry_key_of(entry) + std::to_string(entry.request) + ':' + std::to_string(array_.lru_rank(way)) + ':';
}

}  // namespace npuvp::coherence::mesi
