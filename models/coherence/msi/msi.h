// MSI: the smallest directory protocol of the framework, and the worked
// example of docs/coherence.md, "Adding a protocol". Two ProtocolTables (L1
// and home, msi_tables.cpp) executed by two controllers (msi_l1.cpp,
// msi_home.cpp); everything else (cache arrays, memory controllers, the
// network, the registry) is the framework's.
//
// Summary.
//  - L1 stable states I, S, M. A load miss sends Read, always answered
//    RepShd (S) — there is no E. A store (or kMakeWritable) to I or S sends
//    RdEx, answered RepExc (M); from S the read-only copy is dropped first,
//    so there is no Upgrade. Evicting S or M sends Replace (M: with the dirty
//    data), answered AckChange; the line keeps its way meanwhile (no
//    write-back buffer) and still answers forwards there.
//  - The home keeps the sharer bitmask and the owner in each LLC tag (stable
//    states SHD — possibly with no sharer — and MOD), collects the Acks and
//    the AckData itself before it grants, and handles one transaction per
//    line at a time (requests for a busy line wait, in arrival order).
//  - Inclusive LLC: evicting a line held by L1s recalls it first.
//  - Atomics: kMakeWritable leaves the line M_L (locked) until the core's
//    next store to it, its next access to another line, or synchronise().
//  - Message names are MESI's where they mean the same (without Upgrade);
//    the numbering is MSI's own. Virtual networks: Read, RdEx, Replace on
//    requests; Invalidation, ShdIntervention, ExcIntervention on forwards;
//    Ack, AckData, RepShd, RepExc, AckChange on responses.
#pragma once

#include "coherence/coherence.h"
#include "coherence/protocol_registry.h"
#include "coherence/protocol_table.h"
#include "coherence/sharer_directory.h"
#include "coherence/table_driven_controller.h"

#include <cstdint>
#include <string>
#include <vector>

namespace npuvp::coherence::msi {

enum MessageType : unsigned {
  kRead = kFirstProtocolMessage,
  kRdEx,
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

#define NPUVP_MSI_L1_STATES(X)                                                                                         \
  X(I, kStable, "invalid: not in this cache")                                                                          \
  X(S, kStable | kHoldsData, "shared: readable, other L1s may hold it")                                                \
  X(M, kStable | kHoldsData | kOwner, "modified: the only copy, readable and writable (no E: a load miss always "      \
      "gets S)")                                                                                                       \
  X(M_L, kHoldsData | kOwner, "M locked by kMakeWritable: forwards wait for the atomic's store")                       \
  X(IS_D, kTransient, "load miss: Read sent, waiting for RepShd")                                                      \
  X(IM_D, kTransient, "store miss (or store to S, whose data is not kept): RdEx sent, waiting for RepExc")             \
  X(IW_D, kTransient, "make-writable miss (or on S): RdEx sent, waiting for RepExc")                                   \
  X(SI_A, kHoldsData, "evicted S (or M downgraded by a ShdIntervention meanwhile): Replace sent, waiting for "         \
      "AckChange (keeps its way)")                                                                                     \
  X(MI_A, kHoldsData | kOwner, "evicted M: Replace with the data sent, waiting for AckChange (keeps its way, "         \
      "answers forwards)")                                                                                             \
  X(II_A, kTransient, "evicted, copy given away to a forward meanwhile: waiting for AckChange")

#define NPUVP_MSI_L1_EVENTS(X)                                                                                         \
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
  X(AckChange, "the home acknowledges a Replace")

#define NPUVP_MSI_L1_ACTIONS(X)                                                                                        \
  X(Allocate, "allocate", "take a free way of the set for the line (a victim was replaced before if needed)")          \
  X(SendRead, "send Read", "Read to the home (requests vnet)")                                                         \
  X(SendRdEx, "send RdEx", "RdEx to the home (requests vnet)")                                                         \
  X(Perform, "perform", "perform the core's access: a load copies the bytes out, a store in; completes a miss")        \
  X(InstallData, "install data", "copy the message's data into the line")                                              \
  X(SendReplace, "send Replace", "Replace without data to the home")                                                   \
  X(SendReplaceData, "send Replace+data", "Replace with the dirty data to the home")                                   \
  X(SendAck, "send Ack", "Ack to the home (responses vnet)")                                                           \
  X(SendAckData, "send AckData", "AckData with the line's data (dirty) to the home (responses vnet)")                  \
  X(DropLine, "drop line", "the core's copy is gone: tell the line-lost observer (drops an LR reservation)")           \
  X(StallForward, "stall forward", "park the forward until the line's transaction ends (it overtook the data, or "     \
      "the line is locked)")

#define NPUVP_MSI_HOME_STATES(X)                                                                                       \
  X(NP, kStable, "not present in the LLC")                                                                             \
  X(NP_D, kTransient, "allocated, MemoryRead sent, waiting for MemoryData")                                            \
  X(SHD, kStable, "in the LLC, read-only in the L1s of the sharer mask (possibly none)")                               \
  X(MOD, kStable, "held M by one L1, the owner; the LLC data may be stale")                                            \
  X(SHD_A, kTransient, "RdEx: invalidating the other sharers, counting Acks")                                          \
  X(MOD_D, kTransient, "Read: ShdIntervention sent to the owner, waiting for AckData")                                 \
  X(MOD_X, kTransient, "RdEx: ExcIntervention sent to the owner, waiting for AckData")                                 \
  X(SHD_R, kTransient, "LLC eviction (inclusion): invalidating every sharer, counting Acks")                           \
  X(MOD_R, kTransient, "LLC eviction (inclusion): owner recalled, waiting for AckData")

#define NPUVP_MSI_HOME_EVENTS(X)                                                                                       \
  X(Read, "a Read")                                                                                                    \
  X(RdEx, "a RdEx while other L1s hold the line")                                                                      \
  X(RdExAlone, "a RdEx while no other L1 holds the line (the requester may be its last sharer)")                       \
  X(RequestFromOwner, "a Read/RdEx from the line's owner (cannot happen: an owner evicts, and waits, before asking "   \
      "again)")                                                                                                        \
  X(Replace, "a Replace while the line is busy")                                                                       \
  X(ReplaceOwner, "a Replace from the owner, with the data")                                                           \
  X(ReplaceSharer, "a Replace from a sharer")                                                                          \
  X(ReplaceStale, "a Replace from an L1 that no longer holds the line here (a forward took its copy meanwhile)")       \
  X(Ack, "an Ack, more expected")                                                                                      \
  X(LastAck, "the last expected Ack")                                                                                  \
  X(AckData, "the owner's data, answering an intervention")                                                            \
  X(MemoryData, "the line's data from memory")                                                                         \
  X(Evict, "the line, held by L1s, is the LLC's victim for a fill into its set")                                       \
  X(EvictUnshared, "the line, held by no L1, is the LLC's victim")

#define NPUVP_MSI_HOME_ACTIONS(X)                                                                                      \
  X(Allocate, "allocate", "take a free way for the line (a victim was evicted before if needed; else the request "     \
      "stalls)")                                                                                                       \
  X(FetchFromMemory, "fetch from memory", "MemoryRead to the line's memory controller")                                \
  X(Stall, "stall", "the request waits at the home (per line, in arrival order) and is handled again when the line "   \
      "is stable")                                                                                                     \
  X(InstallMemoryData, "install memory data", "copy MemoryData into the LLC line (clean)")                             \
  X(RecordRequest, "record request", "remember the requester of the transaction")                                      \
  X(SendRepShd, "send RepShd", "RepShd with the LLC data to the requester")                                            \
  X(SendRepExc, "send RepExc", "RepExc with the LLC data to the requester")                                            \
  X(SendAckChange, "send AckChange", "AckChange to the sender of the Replace")                                         \
  X(AddSharer, "add sharer", "add the requester to the sharer mask")                                                   \
  X(RemoveSharer, "remove sharer", "remove the sender from the sharer mask")                                           \
  X(MakeOwner, "make owner", "the requester becomes the owner, no sharers")                                            \
  X(OwnerAndRequesterShare, "owner and requester share", "the former owner (the AckData's sender) and the "            \
      "requester become the sharers")                                                                                  \
  X(InvalidateOtherSharers, "invalidate other sharers", "Invalidation to every sharer but the requester; expect as "   \
      "many Acks")                                                                                                     \
  X(InvalidateAllSharers, "invalidate all sharers", "Invalidation to every sharer; expect as many Acks")               \
  X(SendShdIntervention, "send ShdIntervention", "ShdIntervention to the owner")                                       \
  X(SendExcIntervention, "send ExcIntervention", "ExcIntervention to the owner (for a RdEx, or to recall the line)")   \
  X(CountAck, "count Ack", "one Ack fewer expected")                                                                   \
  X(WriteData, "write data", "copy the AckData's or Replace's data, if any, into the LLC line (dirty); no owner "      \
      "any more")                                                                                                      \
  X(WriteBack, "write back", "MemoryWrite of the line if it is dirty; the way becomes free")

// The L1 controller's machine (msi_tables.cpp: its table).
struct L1Machine {
  NPUVP_COHERENCE_MACHINE(NPUVP_MSI_L1_STATES, NPUVP_MSI_L1_EVENTS, NPUVP_MSI_L1_ACTIONS)
  static constexpr State kAbsent = State::kI;
  static constexpr unsigned kMaxTiles = 64;  // the home's sharer mask
  static constexpr auto message_name = &msi::message_name;
  static constexpr auto virtual_network_of = &msi::virtual_network_of;
  static const ProtocolTable<L1Machine>& table();
};

// The home controller's machine (msi_tables.cpp: its table).
struct HomeMachine {
  NPUVP_COHERENCE_MACHINE(NPUVP_MSI_HOME_STATES, NPUVP_MSI_HOME_EVENTS, NPUVP_MSI_HOME_ACTIONS)
  static constexpr State kAbsent = State::kNP;
  static constexpr State kFilling = State::kNP_D;
  static constexpr unsigned kMaxTiles = 64;  // the sharer mask
  static constexpr auto message_name = &msi::message_name;
  static constexpr auto virtual_network_of = &msi::virtual_network_of;
  static const ProtocolTable<HomeMachine>& table();
  static bool is_request(unsigned type) { return type == kRead || type == kRdEx || type == kReplace; }
  static bool is_lookup(unsigned type) { return type == kRead || type == kRdEx; }
};

using L1Table = ProtocolTable<L1Machine>;
using HomeTable = ProtocolTable<HomeMachine>;
inline const L1Table& l1_table() { return L1Machine::table(); }
inline const HomeTable& home_table() { return HomeMachine::table(); }

class L1 final : public TableDrivenL1<L1, L1Machine> {
 public:
  L1(unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment);
  Permission permission(std::uint64_t line) const override;

 private:
  using Base = TableDrivenL1<L1, L1Machine>;
  friend Base;

  Event classify(const Message& message);
  void perform(Action action, Context& context);
  void dispatch_access();
};

// The directory entry of a line in the LLC: the sharers (S) and the owner (M).
using Directory = SharerDirectory;

class Home final : public TableDrivenHome<Home, HomeMachine, Directory> {
 public:
  Home(unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment);

  std::uint64_t sharers_of(std::uint64_t line) const;  // 0 when absent
  int owner_of(std::uint64_t line) const;              // -1 when none

 private:
  using Base = TableDrivenHome<Home, HomeMachine, Directory>;
  friend Base;

  Event classify(const Message& message, const Context& context) const;
  void perform(Action action, Context& context);
  Event eviction(const Context& evicted);
  void retry_waiting();
  void send_to(unsigned type, unsigned destination, Port port, const Context& context, bool with_data);
  std::string entry_summary(const Directory& entry) const { return entry_summary_of(entry); }
  void describe_entry(std::ostream& text, const Directory& entry, State) const { describe_entry_of(text, entry); }
  std::string entry_key(int way) const;
  void serialize_tail(std::string& out) const { waiting_.serialize(out, geometry_.line_bytes); }
};

// The registry entry ("msi").
Protocol protocol();

}  // namespace npuvp::coherence::msi
