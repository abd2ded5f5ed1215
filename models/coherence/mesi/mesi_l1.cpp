// The MESI L1 controller: classifies core accesses and messages into events
// and executes l1_table() (table_driven_controller.h does the rest).
#include "coherence/mesi/mesi.h"

namespace npuvp::coherence::mesi {

L1::L1(unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment,
       unsigned writeback_entries, const L1Table& table)
    : TableDrivenL1(tile, geometry, shape, environment, writeback_entries == 0 ? 1 : writeback_entries, table) {}

L1::Event L1::classify(const Message& message) {
  switch (message.type) {
    case kInvalidation: return Event::kInvalidation;
    case kShdIntervention: return Event::kShdIntervention;
    case kExcIntervention: return Event::kExcIntervention;
    case kRepShd: return Event::kRepShd;
    case kRepExc: return Event::kRepExc;
    case kAckChange: return Event::kAckChange;
    default: throw_unexpected_message(name(), message, &message_name, environment_.now());
  }
}

void L1::perform(Action action, Context& context) {
  switch (action) {
    case Action::kAllocate: allocate(context, State::kIS_D); break;
    case Action::kSendRead: send_to_home(kRead, context, false, false); break;
    case Action::kSendRdEx: send_to_home(kRdEx, context, false, false); break;
    case Action::kSendUpgrade:
      ++statistics_.upgrades;
      send_to_home(kUpgrade, context, false, false);
      break;
    case Action::kPerform: perform_access(context, in_access_); break;
    case Action::kInstallData: install_data(context); break;
    case Action::kSendReplace: send_to_home(kReplace, context, false, false); break;
    case Action::kSendReplaceData:
      ++statistics_.writebacks;
      send_to_home(kReplace, context, true, true);
      break;
    case Action::kMoveToWritebackBuffer: move_to_writeback_buffer(context); break;
    case Action::kSendAck:
      ++statistics_.invalidations_received;
      send_to_home(kAck, context, false, false);
      break;
    case Action::kSendAckData: {
      ++statistics_.interventions_received;
      const State state = state_of(context);
      send_to_home(kAckData, context, true, state == State::kM || state == State::kMI_A);
      break;
    }
    case Action::kDropLine: line_lost(context.line); break;
    case Action::kStallForward: park_forward(context); break;
    case Action::kStallAccess: pending_.waiting = true; break;
    case Action::kFreeWritebackEntry: resource_freed_ = true; break;
    case Action::kCount: break;
  }
}

// Fires the pending access's event, replacing a victim first (into the
// write-back buffer) when its line needs a way and the set is full.
void L1::dispatch_access() {
  static const Event events[] = {Event::kLoad, Event::kStore, Event::kMakeWritable};
  Context context = locate(pending_.line);
  if (state_of(context) == State::kI && array_.free_way(pending_.line) == CacheArray::kNone) {
    if (!writeback_.has_free_entry()) {
      // Every write-back entry waits for its AckChange: the miss waits for one.
      pending_.waiting = true;
      return;
    }
    const int victim = array_.victim(pending_.line, &evictable);
    if (victim == CacheArray::kNone) throw ProtocolError(name() + ": internal error, no evictable way");
    Context evicted;
    evicted.line = array_.line(victim);
    evicted.way = victim;
    fire(Event::kReplacement, evicted);
  }
  fire(events[static_cast<int>(pending_.kind)], context);
}

}  // namespace npuvp::coherence::mesi
