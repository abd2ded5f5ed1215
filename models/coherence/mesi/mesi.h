// MESI: a full-map directory protocol with an inclusive, blocking home (the
// baseline of [nsi] chapter 4 and A9, docs/references.md), written as two
// ProtocolTables (L1 and home). docs/coherence.md prints the tables and
// explains the races; this header is the code's contract.
//
// Summary.
//  - L1 stable states I, S, E, M. A load miss sends Read: the home answers
//    RepExc (E) when no other L1 holds the line, RepShd (S) otherwise. A
//    store (or kMakeWritable) miss sends RdEx, answered RepExc. A store to S
//    sends Upgrade, answered AckChange. E -> M is silent. Evicting S, E or M
//    sends Replace (M: with the dirty data), answered AckChange; the line
//    waits in a small write-back buffer meanwhile, where it still answers
//    forwards.
//  - The home keeps, in each LLC tag, the sharer bitmask and the owner. It
//    collects the Acks of Invalidations and the AckData of interventions
//    itself before it grants, and handles one transaction per line at a time
//    (requests for a busy line wait at the home, in arrival order), so at most
//    one grant per line is ever in flight.
//  - Inclusive LLC: evicting a line held by L1s first recalls it
//    (Invalidation to the sharers, ExcIntervention to the owner).
//  - Atomics: kMakeWritable leaves the line in E_L/M_L (locked): forwards for
//    it wait until the core's next store to the line, its next access to
//    another line, or synchronise(), so the read-modify-write that follows
//    cannot be split.
//  - Option thesis_baseline: the thesis's baseline instead ([nsi] §5.4.3.1,
//    change 9): a Read is never granted E, and a store to S sends RdEx,
//    answered RepExc with data; two variants of the tables, nothing else.
//  - Virtual networks: Read, RdEx, Upgrade, Replace (and MemoryRead/Write)
//    on requests; Invalidation, ShdIntervention, ExcIntervention on
//    forwards; Ack, AckData, RepShd, RepExc, AckChange (and MemoryData) on
//    responses. Responses and forwards are always consumed (an L1 parks a
//    forward for a line whose data is still on its way, which the home has
//    already sent), requests may wait at the home; so no cycle of waiting.
#pragma once

#include "coherence/coherence.h"
#include "coherence/protocol_registry.h"
#include "coherence/protocol_table.h"
#include "coherence/sharer_directory.h"
#include "coherence/table_driven_controller.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace npuvp::coherence::mesi {

enum MessageType : unsigned {
  kRead = kFirstProtocolMessage,
  kRdEx,
  kUpgrade,
  kReplace,
  kInvalidation,
  kAck,
  kShdIntervention,
  kExcIntervention,
  kAckData,
  kRepShd,
  kRepExc,
  kAckChange,
  kMessageTypes  // one past the last
};
std::string message_name(unsigned type);
VirtualNetwork virtual_network_of(unsigned type);

#define NPUVP_MESI_L1_STATES(X)                                                                                        \
  X(I, kStable, "invalid: not in this cache")                                                                          \
  X(S, kStable | kHoldsData, "shared: readable, other L1s may hold it")                                                \
  X(E, kStable | kHoldsData, "exclusive: the only copy, clean; writable (E -> M silently)")                            \
  X(M, kStable | kHoldsData | kOwner, "modified: the only copy, dirty")                                                \
  X(E_L, kHoldsData, "E locked by kMakeWritable: forwards wait for the atomic's store")                                \
  X(M_L, kHoldsData | kOwner, "M locked by kMakeWritable: forwards wait for the atomic's store")                       \
  X(IS_D, kTransient, "load miss: Read sent, waiting for RepShd/RepExc")                                               \
  X(IM_D, kTransient, "store miss: RdEx sent, waiting for RepExc")                                                     \
  X(IW_D, kTransient, "make-writable miss: RdEx sent, waiting for RepExc")                                             \
  X(SM_A, kHoldsData, "store to S: Upgrade sent, waiting for AckChange (data still valid)")                            \
  X(SW_A, kHoldsData, "make-writable on S: Upgrade sent, waiting for AckChange")                                       \
  X(MI_A, kHoldsData | kOwner, "evicted M: Replace with data sent, in the write-back buffer, waiting for AckChange")   \
  X(EI_A, kHoldsData, "evicted E: Replace sent, in the write-back buffer, waiting for AckChange")                      \
  X(SI_A, kHoldsData, "evicted S (or downgraded while evicting): waiting for AckChange")                               \
  X(II_A, kTransient, "evicted, copy given away (AckData/Ack sent): waiting for AckChange")

#define NPUVP_MESI_L1_EVENTS(X)                                                                                        \
  X(Load, "the core loads from the line")                                                                              \
  X(Store, "the core stores to the line")                                                                              \
  X(MakeWritable, "the core asks for write permission (before an AMO or SC)")                                          \
  X(Replacement, "the line is the victim of a fill into its set")                                                      \
  X(Unlock, "the core's atomic is over (access to another line, or synchronise)")                                      \
  X(Invalidation, "the home removes this read-only copy")                                                              \
  X(ShdIntervention, "the home asks the owner for the data; the owner keeps a read-only copy")                         \
  X(ExcIntervention, "the home asks the owner for the data; the owner gives the line up")                              \
  X(RepShd, "shared data from the home")                                                                               \
  X(RepExc, "exclusive data from the home")                                                                            \
  X(AckChange, "the home acknowledges an Upgrade (write permission) or a Replace")

#define NPUVP_MESI_L1_ACTIONS(X)                                                                                       \
  X(Allocate, "allocate", "take a free way of the set for the line (a victim was replaced before if needed)")          \
  X(SendRead, "send Read", "Read to the home (requests vnet)")                                                         \
  X(SendRdEx, "send RdEx", "RdEx to the home (requests vnet)")                                                         \
  X(SendUpgrade, "send Upgrade", "Upgrade to the home (requests vnet)")                                                \
  X(Perform, "perform", "perform the core's access: a load copies the bytes out, a store in; completes a miss")        \
  X(InstallData, "install data", "copy the message's data into the line")                                              \
  X(SendReplace, "send Replace", "Replace without data to the home (S or clean E)")                                    \
  X(SendReplaceData, "send Replace+data", "Replace with the dirty data to the home")                                   \
  X(MoveToWritebackBuffer, "move to write-back buffer", "move the line and its data to a write-back buffer entry, "    \
      "freeing the way")                                                                                               \
  X(SendAck, "send Ack", "Ack to the home (responses vnet)")                                                           \
  X(SendAckData, "send AckData", "AckData with the line's data (dirty if M) to the home (responses vnet)")             \
  X(DropLine, "drop line", "the copy is gone: tell the line-lost observer (drops an LR reservation)")                  \
  X(StallForward, "stall forward", "park the forward until the line's transaction ends (its data is already on its "   \
      "way)")                                                                                                          \
  X(StallAccess, "stall access", "the access waits until the write-back entry of its line is freed")                   \
  X(FreeWritebackEntry, "free write-back entry", "the write-back buffer entry becomes free; a waiting access "         \
      "retries")

#define NPUVP_MESI_HOME_STATES(X)                                                                                      \
  X(NP, kStable, "not present in the LLC")                                                                             \
  X(NP_D, kTransient, "allocated, MemoryRead sent, waiting for MemoryData")                                            \
  X(IDLE, kStable, "in the LLC, in no L1")                                                                             \
  X(SHD, kStable, "in the LLC and read-only (S) in the L1s of the sharer mask")                                        \
  X(EXC, kStable, "held E or M by one L1, the owner; the LLC data may be stale")                                       \
  X(SHD_A, kTransient, "invalidating the sharers for a RdEx/Upgrade, counting Acks")                                   \
  X(EXC_D, kTransient, "ShdIntervention sent to the owner for a Read, waiting for AckData")                            \
  X(EXC_X, kTransient, "ExcIntervention sent to the owner for a RdEx, waiting for AckData")                            \
  X(SHD_R, kTransient, "LLC eviction (inclusion): invalidating all sharers, counting Acks")                            \
  X(EXC_R, kTransient, "LLC eviction (inclusion): owner recalled, waiting for AckData")

#define NPUVP_MESI_HOME_EVENTS(X)                                                                                      \
  X(Read, "a Read (busy line: any Read)")                                                                              \
  X(RdEx, "a RdEx, or an Upgrade from an L1 that is no longer a sharer (it was invalidated meanwhile); busy line: "    \
      "any RdEx")                                                                                                      \
  X(Upgrade, "an Upgrade from a sharer while other sharers exist (busy line: any Upgrade)")                            \
  X(UpgradeSole, "an Upgrade from the only sharer")                                                                    \
  X(RequestFromOwner, "a Read/RdEx/Upgrade from the line's owner (cannot happen: an owner evicts before asking "       \
      "again)")                                                                                                        \
  X(RdExFromSharer, "a RdEx from a sharer while other sharers exist (thesis baseline only: a store to S sends RdEx; "  \
      "textbook: cannot happen, a sharer sends Upgrade)")                                                              \
  X(RdExFromSoleSharer, "a RdEx from the only sharer (thesis baseline only, as RdExFromSharer)")                       \
  X(Replace, "a Replace while the line is busy")                                                                       \
  X(ReplaceOwner, "a Replace from the owner (data if it was M)")                                                       \
  X(ReplaceSharer, "a Replace from one of several sharers")                                                            \
  X(ReplaceLastSharer, "a Replace from the only sharer")                                                               \
  X(ReplaceStale, "a Replace from an L1 that no longer holds the line here (its copy was taken by a forward that "     \
      "crossed it)")                                                                                                   \
  X(Ack, "an Ack, more expected")                                                                                      \
  X(LastAck, "the last expected Ack")                                                                                  \
  X(AckData, "the owner's data, answering an intervention")                                                            \
  X(MemoryData, "the line's data from memory")                                                                         \
  X(Evict, "the line is the LLC's victim for a fill into its set")

#define NPUVP_MESI_HOME_ACTIONS(X)                                                                                     \
  X(Allocate, "allocate", "take a free way for the line (a victim was evicted before if needed; else the request "     \
      "stalls)")                                                                                                       \
  X(FetchFromMemory, "fetch from memory", "MemoryRead to the line's memory controller")                                \
  X(Stall, "stall", "the request waits at the home (per line, in arrival order) and is handled again when the line "   \
      "is stable")                                                                                                     \
  X(InstallMemoryData, "install memory data", "copy MemoryData into the LLC line (clean)")                             \
  X(RecordRequest, "record request", "remember the requester and the request type of the transaction")                 \
  X(SendRepExc, "send RepExc", "RepExc with the LLC data to the requester")                                            \
  X(SendRepShd, "send RepShd", "RepShd with the LLC data to the requester")                                            \
  X(SendGrant, "send grant", "the recorded request's grant: AckChange to an Upgrade, RepExc with data to a RdEx")      \
  X(SendAckChange, "send AckChange", "AckChange to the sender of the Replace")                                         \
  X(MakeOwner, "make owner", "the requester becomes the owner, no sharers")                                            \
  X(AddSharer, "add sharer", "add the requester to the sharer mask")                                                   \
  X(RemoveSharer, "remove sharer", "remove the sender from the sharer mask")                                           \
  X(OwnerAndRequesterShare, "owner and requester share", "owner and requester both become sharers, no owner")          \
  X(InvalidateOtherSharers, "invalidate other sharers", "Invalidation to every sharer but the requester; expect as "   \
      "many Acks")                                                                                                     \
  X(InvalidateAllSharers, "invalidate all sharers", "Invalidation to every sharer; expect as many Acks")               \
  X(SendShdIntervention, "send ShdIntervention", "ShdIntervention to the owner")                                       \
  X(SendExcIntervention, "send ExcIntervention", "ExcIntervention to the owner")                                       \
  X(RecallOwner, "recall owner", "ExcIntervention to the owner, for the LLC eviction")                                 \
  X(CountAck, "count Ack", "one Ack fewer expected")                                                                   \
  X(WriteAckData, "write AckData", "copy the AckData into the LLC line (dirty if the owner's was)")                    \
  X(WriteReplaceData, "write Replace data", "copy the Replace's data, if any, into the LLC line (dirty)")              \
  X(WriteBack, "write back", "MemoryWrite of the line if it is dirty; the way becomes free")

// The L1 controller's machine (mesi_tables.cpp: its table).
struct L1Machine {
  NPUVP_COHERENCE_MACHINE(NPUVP_MESI_L1_STATES, NPUVP_MESI_L1_EVENTS, NPUVP_MESI_L1_ACTIONS)
  static constexpr State kAbsent = State::kI;
  static constexpr unsigned kMaxTiles = 64;  // the home's sharer mask
  static constexpr auto message_name = &mesi::message_name;
  static constexpr auto virtual_network_of = &mesi::virtual_network_of;
  static const ProtocolTable<L1Machine>& table();
};

// The home controller's machine (mesi_tables.cpp: its table).
struct HomeMachine {
  NPUVP_COHERENCE_MACHINE(NPUVP_MESI_HOME_STATES, NPUVP_MESI_HOME_EVENTS, NPUVP_MESI_HOME_ACTIONS)
  static constexpr State kAbsent = State::kNP;
  static constexpr State kFilling = State::kNP_D;
  static constexpr unsigned kMaxTiles = 64;  // the sharer mask
  static constexpr auto message_name = &mesi::message_name;
  static constexpr auto virtual_network_of = &mesi::virtual_network_of;
  static const ProtocolTable<HomeMachine>& table();
  static bool is_request(unsigned type) { return is_lookup(type) || type == kReplace; }
  static bool is_lookup(unsigned type) { return type == kRead || type == kRdEx || type == kUpgrade; }
};

using L1Table = ProtocolTable<L1Machine>;
using HomeTable = ProtocolTable<HomeMachine>;
inline const L1Table& l1_table() { return L1Machine::table(); }
inline const HomeTable& home_table() { return HomeMachine::table(); }
// The thesis's baseline MESI ([nsi] §5.4.3.1, change 9; parameter
// `<mesh>.mesi.thesis_baseline`): variants of the two tables in which a
// Read is never granted E (an idle line is answered RepShd) and a store or
// make-writable to S sends RdEx, answered RepExc with data after the other
// sharers' Acks, instead of Upgrade and AckChange (mesi_tables.cpp).
const L1Table& thesis_l1_table();
const HomeTable& thesis_home_table();

class L1 final : public TableDrivenL1<L1, L1Machine> {
 public:
  static constexpr unsigned kDefaultWritebackEntries = 4;

  // `table`: l1_table() (textbook MESI) or thesis_l1_table().
  L1(unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment,
     unsigned writeback_entries = kDefaultWritebackEntries, const L1Table& table = l1_table());

 private:
  using Base = TableDrivenL1<L1, L1Machine>;
  friend Base;

  Event classify(const Message& message);
  void perform(Action action, Context& context);
  void dispatch_access();
};

// The directory entry of a line in the LLC: the sharers (S) and the owner (E
// or M), and the request in progress.
struct Directory : SharerDirectory {
  unsigned request = 0;  // the message type of the transaction in progress
};

class Home final : public TableDrivenHome<Home, HomeMachine, Directory> {
 public:
  // `shape` is this bank's (the LLC's size / tiles); `table`: home_table()
  // (textbook MESI) or thesis_home_table().
  Home(unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment,
       const HomeTable& table = home_table());

  // The directory entry of `line` (0 / -1 when absent).
  std::uint64_t sharers_of(std::uint64_t line) const;
  int owner_of(std::uint64_t line) const;
  bool dirty(std::uint64_t line) const;

 private:
  using Base = TableDrivenHome<Home, HomeMachine, Directory>;
  friend Base;

  Event classify(const Message& message, const Context& context) const;
  void perform(Action action, Context& context);
  Event eviction(const Context& evicted);
  std::string entry_summary(const Directory& entry) const { return entry_summary_of(entry); }
  void describe_entry(std::ostream& text, const Directory& entry, State) const { describe_entry_of(text, entry); }
  std::string entry_key(int way) const;
};

// MESI set up for one system, with its parameter.
class Instance final : public ProtocolInstance {
 public:
  Instance(const std::string& prefix, const std::string& note);
  std::unique_ptr<L1Controller> make_l1(unsigned tile, const Geometry& geometry, const CacheShape& shape,
                                        Environment& environment) const override;
  std::unique_ptr<HomeController> make_home(unsigned tile, const Geometry& geometry, const CacheShape& shape,
                                            Environment& environment) const override;

  // `<prefix>.thesis_baseline`: the thesis's MESI tables (thesis_l1_table(),
  // thesis_home_table()) instead of the textbook ones.
  Parameter<bool> thesis_baseline;
};

// The registry entry (its instance has the parameter thesis_baseline).
Protocol protocol();

}  // namespace npuvp::coherence::mesi
