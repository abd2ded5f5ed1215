// A controller's machine declared once, in the style of gem5's SLICC
// `state_declaration` and `enumeration` blocks: every state, event and
// action is one line of a list macro with its name and meaning beside it,
// and NPUVP_COHERENCE_MACHINE turns the three lists into the enumerations,
// the names and meanings the tables print (protocol_table.h), and the
// properties of each state the framework's controllers read
// (table_driven_controller.h):
//
//   #define MY_L1_STATES(X) X(I, kStable, "invalid: not in this cache") ...
//                                X(IS_D, kTransient, "load miss: waiting for the data")
//   #define MY_L1_EVENTS(X)  X(Load, "the core loads from the line") ...
//   #define MY_L1_ACTIONS(X) X(SendRead, "send Read", "Read to the home") ...
//   struct L1Machine { NPUVP_COHERENCE_MACHINE(MY_L1_STATES, MY_L1_EVENTS, MY_L1_ACTIONS) ... };
//
// gives enum class State { kI, ..., kIS_D, kCount } (likewise Event and
// Action), name(State) "IS_D", meaning(State), stable(State), and so on. A
// state's and an event's name is its identifier; an action has a name of
// its own ("send Read") for the printed tables.
#pragma once

#include <cstdint>

namespace npuvp::coherence {

// The properties of a state (the second column of a state list).
enum StateProperty : unsigned {
  kTransient = 0,        // a transaction of the line is in flight
  kStable = 1u << 0,     // no transaction in flight (Controller::quiescent)
  kHoldsData = 1u << 1,  // an L1 holds the line's data: the debugger reads and writes it here (peek, poke)
  kOwner = 1u << 2,      // an L1's copy is the only up-to-date one (a dirty owner)
};

struct StateDeclaration {
  const char* name;
  unsigned properties;  // StateProperty bits
  const char* meaning;
};
struct NamedDeclaration {
  const char* name;
  const char* meaning;
};

}  // namespace npuvp::coherence

#define NPUVP_MACHINE_ENUMERATOR(identifier, ...) k##identifier,
#define NPUVP_MACHINE_STATE(identifier, properties, meaning) {#identifier, properties, meaning},
#define NPUVP_MACHINE_EVENT(identifier, meaning) {#identifier, meaning},
#define NPUVP_MACHINE_ACTION(identifier, name, meaning) {name, meaning},

// Inside a machine's struct: the enumerations State, Event and Action (each
// ending in kCount), name() and meaning() of each, and the state properties.
#define NPUVP_COHERENCE_MACHINE(STATES, EVENTS, ACTIONS)                                                          \
  enum class State : std::uint8_t { STATES(NPUVP_MACHINE_ENUMERATOR) kCount };                                    \
  enum class Event : std::uint8_t { EVENTS(NPUVP_MACHINE_ENUMERATOR) kCount };                                    \
  enum class Action : std::uint8_t { ACTIONS(NPUVP_MACHINE_ENUMERATOR) kCount };                                  \
  static const ::npuvp::coherence::StateDeclaration& declaration(State state) {                                   \
    using namespace ::npuvp::coherence;                                                                           \
    static constexpr StateDeclaration declarations[] = {STATES(NPUVP_MACHINE_STATE)};                             \
    return declarations[static_cast<unsigned>(state)];                                                            \
  }                                                                                                               \
  static const ::npuvp::coherence::NamedDeclaration& declaration(Event event) {                                   \
    static constexpr ::npuvp::coherence::NamedDeclaration declarations[] = {EVENTS(NPUVP_MACHINE_EVENT)};         \
    return declarations[static_cast<unsigned>(event)];                                                            \
  }                                                                                                               \
  static const ::npuvp::coherence::NamedDeclaration& declaration(Action action) {                                 \
    static constexpr ::npuvp::coherence::NamedDeclaration declarations[] = {ACTIONS(NPUVP_MACHINE_ACTION)};       \
    return declarations[static_cast<unsigned>(action)];                                                           \
  }                                                                                                               \
  static const char* name(State state) { return declaration(state).name; }                                        \
  static const char* name(Event event) { return declaration(event).name; }                                        \
  static const char* name(Action action) { return declaration(action).name; }                                     \
  static const char* meaning(State state) { return declaration(state).meaning; }                                  \
  static const char* meaning(Event event) { return declaration(event).meaning; }                                  \
  static const char* meaning(Action action) { return declaration(action).meaning; }                               \
  static bool stable(State state) { return (declaration(state).properties & ::npuvp::coherence::kStable) != 0; } \
  static bool holds_data(State state) {                                                                           \
    return (declaration(state).properties & ::npuvp::coherence::kHoldsData) != 0;                                 \
  }                                                                                                               \
  static bool owner(State state) { return (declaration(state).properties & ::npuvp::coherence::kOwner) != 0; }
