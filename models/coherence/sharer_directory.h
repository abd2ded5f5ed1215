// The directory entry of the protocols whose home tracks a line's sharers in a
// bit mask (MESI, MSI), and what their homes say about it in errors, in
// describe() and in the explorer's state key. NSI keeps no sharers (its entry
// is its own).
#pragma once

#include <cstdint>
#include <ostream>
#include <sstream>
#include <string>

namespace npuvp::coherence {

struct SharerDirectory {
  std::uint64_t sharers = 0;  // bit t: L1 t holds the line shared
  int owner = -1;             // the L1 holding it exclusively (E or M)
  bool dirty = false;         // the LLC data differs from memory's
  unsigned requester = 0;     // the L1 of the transaction in progress
  int acks = 0;               // Acks still expected
};

// "sharers 0x6, owner -1": the part of a protocol error that names the entry.
inline std::string entry_summary_of(const SharerDirectory& entry) {
  std::ostringstream text;
  text << "sharers 0x" << std::hex << entry.sharers << std::dec << ", owner " << entry.owner;
  return text.str();
}

// " sharers 0x6 owner -1 clean (waiting for 2 acks, requester 3)": describe()'s words after the state.
inline void describe_entry_of(std::ostream& text, const SharerDirectory& entry) {
  text << " sharers 0x" << std::hex << entry.sharers << std::dec << " owner " << entry.owner
       << (entry.dirty ? " dirty" : " clean");
  if (entry.acks) text << " (waiting for " << entry.acks << " acks, requester " << entry.requester << ")";
}

// Every field, for the explorer's key of a way ("6:-1:0:3:2:").
inline std::string entry_key_of(const SharerDirectory& entry) {
  return std::to_string(entry.sharers) + ':' + std::to_string(entry.owner) + ':' + std::to_string(entry.dirty) + ':' +
         std::to_string(entry.requester) + ':' + std::to_string(entry.acks) + ':';
}

}  // namespace npuvp::coherence
