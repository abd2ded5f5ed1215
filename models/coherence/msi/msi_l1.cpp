// The MSI L1 controller: turns core accesses and messages into events of
// l1_table() and executes the rows' actions (table_driven_controller.h does
// the rest).
#include "coherence/msi/msi.h"

namespace npuvp::coherence::msi {

// No write-back buffer: an evicted line keeps its way until its AckChange.
L1::L1(unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment)
    : TableDrivenL1(tile, geometry, shape, environment, 0) {}

L1::Event L1::classify(const Message& message) {
  switch (message.type) {
    case kInvalidation: return Event::kInvalidation;
    case kShdIntervention: return Event::kShdIntervention;
    case kExcIntervention: return Event::kExcIntervention;
    case kRepShd: return Event::kRepShd;
    case kRepExc: return Event::kRepExc;
    case kAckChange:
      resource_freed_ = true;  // the evicted line's way: a waiting access retries
      return Event::kAckChange;
    default: throw_unexpected_message(name(), message, &message_name, environment_.now());
  }
}

void L1::perform(Action action, Context& context) {
  switch (action) {
    case Action::kAllocate: allocate(context, State::kIS_D); break;
    case Action::kSendRead: send_to_home(kRead, context, false, false); break;
    case Action::kSendRdEx:
      if (state_of(context) == State::kS) ++statistics_.upgrades;
      send_to_home(kRdEx, context, false, false);
      break;
    case Action::kPerform: perform_access(context, in_access_); break;
    case Action::kInstallData: install_data(context); break;
    case Action::kSendReplace: send_to_home(kReplace, context, false, false); break;
    case Action::kSendReplaceData:
      ++statistics_.writebacks;
      send_to_home(kReplace, context, true, true);  // only M's data travels
      break;
    case Action::kSendAck:
      ++statistics_.invalidations_received;
      send_to_home(kAck, context, false, false);
      break;
    case Action::kSendAckData:
      ++statistics_.interventions_received;
      send_to_home(kAckData, context, true, true);
      break;
    case Action::kDropLine: line_lost(context.line); break;
    case Action::kStallForward: park_forward(context); break;
    case Action::kCount: break;
  }
}

// Fires the pending access's event, replacing a victim first when its line
// needs a way and the set is full. Waits (pending_.waiting) when every way of
// the set is evicting (waiting for its AckChange).
void L1::dispatch_access() {
  static const Event events[] = {Event::kLoad, Event::kStore, Event::kMakeWritable};
  Context context = locate(pending_.line);
  if (context.way == CacheArray::kNone && array_.free_way(pending_.line) == CacheArray::kNone) {
    const int victim = array_.victim(pending_.line, &evictable);
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

L1Controller::Permission L1::permission(std::uint64_t line) const {
  switch (state_of_line(line)) {
    case State::kM:
    case State::kM_L: return Permission::kWrite;
    case State::kS: return Permission::kRead;
    default: return Permission::kNone;
  }
}

}  // namespace npuvp::coherence::msi
