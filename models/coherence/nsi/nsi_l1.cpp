// The NSI L1 controller: classifies core accesses and messages into events
// and executes l1_table() (table_driven_controller.h does the rest);
// synchronise() is the flash SHD -> SUS conversion.
#include "coherence/nsi/nsi.h"

#include <cstring>

namespace npuvp::coherence::nsi {

L1::L1(unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment,
       std::uint64_t periodic_synchronisation_cycles, unsigned writeback_entries, const L1Table& table)
    : TableDrivenL1(tile, geometry, shape, environment, writeback_entries == 0 ? 1 : writeback_entries, table),
      version_(array_.entries(), 0),
      periodic_cycles_(periodic_synchronisation_cycles),
      next_periodic_(periodic_synchronisation_cycles * environment.fine_per_cycle()) {
  shared_ways_.reserve(array_.entries());  // never grows: a fuller list means a scan
}

void L1::set_state(Context& context, State state) {
  if (context.way != CacheArray::kNone && state == State::kSHD && state_of(context) != State::kSHD) {
    if (fill_is_suspect_) {
      // Requested before a synchronisation, filled after it (A2c): SUS.
      fill_is_suspect_ = false;
      ++suspects_.lines_created;
      state = State::kSUS;
    } else if (shared_ways_.size() < shared_ways_.capacity()) {
      shared_ways_.push_back(context.way);
    } else {
      scan_all_ways_ = true;
    }
  }
  Base::set_state(context, state);
}

// A suspect line left without a load: evicted, or written (RdEx).
void L1::leaving(State from, State to) {
  if (from == State::kSUS && to != State::kSV_D) ++suspects_.dropped_unread;
}

void L1::send_to_home(unsigned type, const Context& context, bool with_data, bool dirty, std::uint64_t version) {
  Message message = message_to_home(type, context, with_data, dirty);
  set_version(message, version);  // a validation's: the environment may carry it at once (express())
  environment_.send(message, shape_.latency);
}

L1::Event L1::classify(const Message& message) {
  switch (message.type) {
    case kShdIntervention: return Event::kShdIntervention;
    case kExcIntervention: return Event::kExcIntervention;
    case kRepShd: return Event::kRepShd;
    case kRepExc: return Event::kRepExc;
    case kAckChange: return Event::kAckChange;
    case kRepValidShd: return Event::kRepValidShd;
    case kRepValidExc: return Event::kRepValidExc;
    default: throw_unexpected_message(name(), message, &message_name, environment_.now());
  }
}

void L1::perform(Action action, Context& context) {
  switch (action) {
    case Action::kAllocate: allocate(context, State::kIS_D); break;
    case Action::kSendRead: {
      // A validation (SUS) carries its copy's version; a miss carries none.
      const bool suspect = state_of(context) == State::kSUS;
      send_to_home(kRead, context, false, false, suspect ? version_[static_cast<unsigned>(context.way)] : 0);
      break;
    }
    case Action::kSendRdEx: send_to_home(kRdEx, context, false, false); break;
    case Action::kSendUpgrade:
      ++statistics_.upgrades;
      send_to_home(kUpgrade, context, false, false);
      break;
    case Action::kPerform: {
      const bool hit = in_access_;
      // A suspect copy validated current counts as a hit (speculation).
      perform_access(context, hit || validated_current_);
      // Only a miss's reply validates (and this clears it again), so a hit
      // finds validated_current_ false; access() cleared the other flag.
      if (!hit) {
        last_miss_speculated_correctly_ = validated_current_;
        validated_current_ = false;
      }
      break;
    }
    case Action::kValidate:
      if (!context.message || !context.message->has_data)
        fail(L1Machine::name(state_of(context)), "validate (message without data)", context);
      validated_current_ =
          std::memcmp(array_.data(context.way), context.message->data.data(), geometry_.line_bytes) == 0;
      ++(validated_current_ ? suspects_.validated_current : suspects_.validated_stale);
      std::memcpy(array_.data(context.way), context.message->data.data(), geometry_.line_bytes);
      version_[static_cast<unsigned>(context.way)] = version_of(*context.message);
      break;
    case Action::kConfirmCurrent:
      // The home found the copy's version current: the data stays.
      validated_current_ = true;
      ++suspects_.validated_current;
      break;
    case Action::kInstallData:
      install_data(context);
      version_[static_cast<unsigned>(context.way)] = version_of(*context.message);
      break;
    case Action::kSendReplace: send_to_home(kReplace, context, false, false); break;
    case Action::kSendReplaceData:
      ++statistics_.writebacks;
      send_to_home(kReplace, context, true, true);
      break;
    case Action::kMoveToWritebackBuffer: move_to_writeback_buffer(context); break;
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
    case Action::kStallForward: park_forward(context); break;
    case Action::kStallAccess: pending_.waiting = true; break;
    case Action::kFreeWritebackEntry: resource_freed_ = true; break;
    case Action::kFlashSuspect:  // performed for all lines at once by self_invalidate()
    case Action::kCount: break;
  }
}

const std::uint64_t* L1::counter(const std::string& name) const {
  if (name == "suspect_lines_created") return &suspects_.lines_created;
  if (name == "suspect_validated_current") return &suspects_.validated_current;
  if (name == "suspect_validated_stale") return &suspects_.validated_stale;
  if (name == "suspect_dropped_unread") return &suspects_.dropped_unread;
  return nullptr;
}

void L1::before_access() {
  last_miss_speculated_correctly_ = false;
  if (periodic_cycles_ != 0 && periodic_due()) {
    // The periodic synchronisation, applied lazily: SHD lines are only
    // observed through accesses, so doing it now is the same as at the
    // deadline for a blocking core.
    ++statistics_.periodic_synchronisations;
    self_invalidate();
  }
}

// Fires the pending access's event, replacing a victim first when its line
// needs a way and the set is full (EXC and MOD victims into the write-back
// buffer; SHD and SUS ones are dropped silently).
void L1::dispatch_access() {
  static const Event events[] = {Event::kLoad, Event::kStore, Event::kMakeWritable};
  Context context = locate(pending_.line);
  if (state_of(context) == State::kINV && array_.free_way(pending_.line) == CacheArray::kNone) {
    const int victim = array_.victim(pending_.line, &evictable);
    if (victim == CacheArray::kNone) throw ProtocolError(name() + ": internal error, no evictable way");
    const auto victim_state = static_cast<State>(array_.state(victim));
    if ((victim_state == State::kEXC || victim_state == State::kMOD) && !writeback_.has_free_entry()) {
      // Every write-back entry waits for its AckChange: the miss waits for one.
      pending_.waiting = true;
      return;
    }
    Context evicted;
    evicted.line = array_.line(victim);
    evicted.way = victim;
    fire(Event::kReplacement, evicted);
  }
  fire(events[static_cast<int>(pending_.kind)], context);
}

void L1::self_invalidate() {
  if (periodic_cycles_ != 0) next_periodic_ = (environment_.now() + periodic_cycles_) * environment_.fine_per_cycle();
  if (skip_self_invalidation_) return;
  // The table's SHD + Synchronise row, for every SHD line at once.
  table().fired(table().find(State::kSHD, Event::kSynchronise));
  auto suspect = [this](int way) {
    if (static_cast<State>(array_.state(way)) != State::kSHD) return;
    array_.set_state(way, static_cast<std::uint8_t>(State::kSUS));
    ++suspects_.lines_created;
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

}  // namespace npuvp::coherence::nsi
