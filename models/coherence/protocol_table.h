// ProtocolTable: a coherence controller written as data, a table of
// (state, event) -> actions + next state, in the style of gem5's SLICC and
// of the protocol tables of textbooks. The controller code classifies what
// happens (a core access, a message, an internal trigger) into an event,
// looks the row up and executes its actions in order, then sets the next
// state. A missing row is an unexpected (state, event) pair: the controller
// throws ProtocolError with its full context (see fail()).
//
// `Traits` names the machine:
//   enum class State, Event, Action : std::uint8_t, each ending in kCount;
//   static const char* name(State|Event|Action);
//   static const char* meaning(State|Event|Action);   one line for the legend
// The table is printable as Markdown (markdown()); docs/coherence.md shows
// the printed tables and a unit test checks that they match.
#pragma once

#include "coherence/coherence.h"

#include <array>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace npuvp::coherence {

template <typename Traits>
class ProtocolTable {
 public:
  using State = typename Traits::State;
  using Event = typename Traits::Event;
  using Action = typename Traits::Action;
  static constexpr unsigned kStates = static_cast<unsigned>(State::kCount);
  static constexpr unsigned kEvents = static_cast<unsigned>(Event::kCount);
  static constexpr unsigned kMaxActions = 6;

  struct Row {
    State state;
    Event event;
    std::array<Action, kMaxActions> actions{};
    unsigned action_count = 0;
    State next;
  };

  // One row per (state, event) pair; a pair given twice is a bug in the table.
  ProtocolTable(std::string title, std::initializer_list<Row> rows) : title_(std::move(title)) {
    index_.fill(-1);
    for (const Row& row : rows) add(row);
  }
  static Row row(State state, Event event, std::initializer_list<Action> actions, State next) {
    if (actions.size() > kMaxActions) throw std::logic_error("protocol table row: too many actions");
    Row result{state, event, {}, 0, next};
    for (Action action : actions) result.actions[result.action_count++] = action;
    return result;
  }
  void add(const Row& row) {
    const unsigned key = slot(row.state, row.event);
    if (index_[key] >= 0)
      throw std::logic_error(title_ + ": two rows for (" + Traits::name(row.state) + ", " +
                             Traits::name(row.event) + ")");
    index_[key] = static_cast<int>(rows_.size());
    rows_.push_back(row);
    fired_.push_back(0);
  }

  // A variant of this table (a protocol option, e.g. the thesis's MESI): its
  // rows, less those of the states in `dropped_states` and of the pairs
  // `removed` names, with `changes` replacing or adding rows. Printed beside
  // the original with differences_markdown().
  ProtocolTable variant(std::string title, std::initializer_list<Row> changes,
                        std::initializer_list<std::pair<State, Event>> removed = {},
                        std::initializer_list<State> dropped_states = {}) const {
    ProtocolTable result(std::move(title), {});
    for (const Row& row : rows_) {
      bool keep = true;
      for (const Row& change : changes) keep = keep && !(change.state == row.state && change.event == row.event);
      for (const auto& pair : removed) keep = keep && !(pair.first == row.state && pair.second == row.event);
      for (State state : dropped_states) keep = keep && row.state != state;
      if (keep) result.add(row);
    }
    for (const Row& change : changes) result.add(change);
    return result;
  }

  // Markdown of how this table differs from `base`: the rows it changes or
  // adds (with base's actions and next state beside them, "—" when base has
  // no row; "No row changed or added." when none), then the pairs it no
  // longer has.
  std::string differences_markdown(const ProtocolTable& base) const {
    std::string out;
    for (unsigned s = 0; s < kStates; ++s)
      for (unsigned e = 0; e < kEvents; ++e) {
        const Row* mine = find(static_cast<State>(s), static_cast<Event>(e));
        const Row* theirs = base.find(static_cast<State>(s), static_cast<Event>(e));
        if (!mine || (theirs && same_outcome(*mine, *theirs))) continue;
        out += std::string("| ") + Traits::name(mine->state) + " | " + Traits::name(mine->event) + " | " +
               actions_text(*mine) + " | " + Traits::name(mine->next) + " | " +
               (theirs ? actions_text(*theirs) + " → " + Traits::name(theirs->next) : std::string("—")) + " |\n";
      }
    out = out.empty() ? "No row changed or added.\n"
                      : "| State | Event | Actions | Next | Instead of |\n|---|---|---|---|---|\n" + out;
    std::string removed;
    for (const Row& row : base.rows_)
      if (!find(row.state, row.event))
        removed += (removed.empty() ? "" : ", ") + std::string(Traits::name(row.state)) + " + " +
                   Traits::name(row.event);
    if (!removed.empty()) out += "\nNo row (unreachable, or now a protocol error): " + removed + ".\n";
    return out;
  }

  // The row for (state, event), or null when the pair is unexpected.
  const Row* find(State state, Event event) const {
    const int position = index_[slot(state, event)];
    return position < 0 ? nullptr : &rows_[static_cast<unsigned>(position)];
  }
  const std::vector<Row>& rows() const { return rows_; }

  // How often each row was executed, in this process, by every controller
  // using the table (controllers call fired()): shows which transitions a
  // test reached. Single-threaded, like the controllers.
  void fired(const Row* row) const { ++fired_[static_cast<std::size_t>(row - rows_.data())]; }
  std::uint64_t times_fired(std::size_t row) const { return fired_[row]; }
  // "State + Event" of every row never executed, one per line.
  std::string never_fired() const {
    std::string out;
    for (std::size_t i = 0; i < rows_.size(); ++i)
      if (fired_[i] == 0)
        out += std::string(Traits::name(rows_[i].state)) + " + " + Traits::name(rows_[i].event) + "\n";
    return out;
  }
  const std::string& title() const { return title_; }

  // Markdown: the transition table (one line per state and outcome; events
  // with the same actions and next state share a line), then legends of the
  // states, events and actions.
  std::string markdown() const {
    std::string out;
    out += "| State | Event | Actions | Next |\n|---|---|---|---|\n";
    for (unsigned s = 0; s < kStates; ++s) {
      std::vector<bool> done(kEvents, false);
      for (unsigned e = 0; e < kEvents; ++e) {
        const Row* first = find(static_cast<State>(s), static_cast<Event>(e));
        if (!first || done[e]) continue;
        std::string events;
        for (unsigned other = e; other < kEvents; ++other) {
          const Row* candidate = find(static_cast<State>(s), static_cast<Event>(other));
          if (!candidate || done[other] || !same_outcome(*first, *candidate)) continue;
          done[other] = true;
          if (!events.empty()) events += ", ";
          events += Traits::name(static_cast<Event>(other));
        }
        out += std::string("| ") + Traits::name(first->state) + " | " + events + " | " + actions_text(*first) + " | " +
               Traits::name(first->next) + " |\n";
      }
    }
    out += "\n| State | Meaning |\n|---|---|\n";
    for (unsigned s = 0; s < kStates; ++s)
      out += std::string("| ") + Traits::name(static_cast<State>(s)) + " | " +
             Traits::meaning(static_cast<State>(s)) + " |\n";
    out += "\n| Event | Meaning |\n|---|---|\n";
    for (unsigned e = 0; e < kEvents; ++e)
      out += std::string("| ") + Traits::name(static_cast<Event>(e)) + " | " +
             Traits::meaning(static_cast<Event>(e)) + " |\n";
    out += "\n| Action | Meaning |\n|---|---|\n";
    for (unsigned a = 0; a < static_cast<unsigned>(Action::kCount); ++a)
      out += std::string("| ") + Traits::name(static_cast<Action>(a)) + " | " +
             Traits::meaning(static_cast<Action>(a)) + " |\n";
    return out;
  }

 private:
  static unsigned slot(State state, Event event) {
    return static_cast<unsigned>(state) * kEvents + static_cast<unsigned>(event);
  }
  // "action, action" ("—" for none).
  static std::string actions_text(const Row& row) {
    std::string actions;
    for (unsigned a = 0; a < row.action_count; ++a) {
      if (a) actions += ", ";
      actions += Traits::name(row.actions[a]);
    }
    return actions.empty() ? "—" : actions;
  }
  static bool same_outcome(const Row& a, const Row& b) {
    if (a.next != b.next || a.action_count != b.action_count) return false;
    for (unsigned i = 0; i < a.action_count; ++i)
      if (a.actions[i] != b.actions[i]) return false;
    return true;
  }

  std::string title_;
  std::array<int, kStates * kEvents> index_{};
  std::vector<Row> rows_;
  mutable std::vector<std::uint64_t> fired_;
};

// A protocol's two tables as Markdown under "#### <protocol> L1 controller"
// and "#### <protocol> home controller" (Protocol::tables_markdown).
template <typename L1Traits, typename HomeTraits>
std::string controller_tables_markdown(const std::string& protocol, const ProtocolTable<L1Traits>& l1,
                                       const ProtocolTable<HomeTraits>& home) {
  return "#### " + protocol + " L1 controller\n\n" + l1.markdown() + "\n#### " + protocol + " home controller\n\n" +
         home.markdown();
}

// The text of a ProtocolError: "<controller>: no transition for event E in
// state S, line 0x..., message M from node N, cycle C".
std::string protocol_error_text(const std::string& controller, std::uint64_t line, const char* state,
                                const char* event, const std::string& message, Cycles cycle);

}  // namespace npuvp::coherence
