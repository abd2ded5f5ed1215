// The NSI home controller (one LLC bank; an owner per line, no sharer list):
// classifies messages into events and executes home_table()
// (table_driven_controller.h does the rest).
#include "coherence/nsi/nsi.h"

#include <cstring>
#include <sstream>
#include <stdexcept>

namespace npuvp::coherence::nsi {

Home::Home(unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment,
           const HomeTable& table)
    : TableDrivenHome(tile, geometry, shape, environment, table) {}

int Home::owner_of(std::uint64_t line) const {
  const Entry* entry = entry_of_line(line);
  return entry ? entry->owner : -1;
}

Home::Event Home::classify(const Message& message, const Context& context) const {
  const State state = state_of(context);
  const int owner = context.way == CacheArray::kNone ? -1 : entries_[context.way].owner;
  const bool from_owner = owner == static_cast<int>(message.source);
  const bool busy = !HomeMachine::stable(state);
  switch (message.type) {
    case kRead:
      if (from_owner && !busy) return Event::kRequestFromOwner;
      // A validation whose copy has the line's version: its data is the
      // LLC's. (In MOD the version was renewed for the owner's writes.)
      if (state == State::kEXC && version_of(message) != 0 && version_of(message) == entries_[context.way].version)
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

// Every message to an L1 carries the line's version (a data reply's, for validations).
void Home::send_to_l1(unsigned type, unsigned tile, const Context& context, bool with_data) {
  Message message = message_to_l1(type, tile, context, with_data);
  if (context.way != CacheArray::kNone) set_version(message, entries_[context.way].version);
  send(message);
}

void Home::perform(Action action, Context& context) {
  Entry* entry = entry_of(context);
  const auto need_entry = [&] { require_entry(entry, action, context); };
  switch (action) {
    case Action::kAllocate:
    case Action::kStall:
    case Action::kCount: break;  // the base's (perform_common)
    case Action::kFetchFromMemory: fetch_from_memory(context); break;
    case Action::kInstallMemoryData:
      install_memory_data(context);
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
      send_intervention(kShdIntervention, *entry, context);
      break;
    case Action::kSendExcIntervention:
    case Action::kRecallOwner:
      need_entry();
      send_intervention(kExcIntervention, *entry, context);
      if (action == Action::kRecallOwner) entry->owner = -1;
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
      break;
    case Action::kWriteBack:
      need_entry();
      if (entry->dirty) {
        ++statistics_.memory_writes;
        send(message_to_memory(kMemoryWrite, context, context.message ? context.message->source : tile_, true));
      }
      break;
  }
}

// The LLC's victim: its owner is recalled first (inclusion of owned lines).
Home::Event Home::eviction(const Context& evicted) {
  const bool owned = entries_[evicted.way].owner >= 0;
  if (owned) ++statistics_.recalls;
  return owned ? Event::kEvictOwned : Event::kEvict;
}

bool Home::answers_alone(const Message& request) const {
  if (request.type != kRead) return false;
  const Context context = context_of(request);
  if (context.way == CacheArray::kNone || waiting_.on_line(request.line) != 0) return false;
  const HomeTable::Row* row = table().find(state_of(context), classify(request, context));
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

std::string Home::entry_key(int way) const {
  const Entry& entry = entries_[way];
  return std::to_string(entry.owner) + ':' + std::to_string(entry.dirty) + ':' + std::to_string(entry.requester) +
         ':' + std::to_string(array_.lru_rank(way)) + ":v" + std::to_string(entry.version) + ':';
}

}  // namespace npuvp::coherence::nsi
