// NSI (Non-Sharer-Information) coherence, [nsi] chapter 5 (docs/references.md):
// no sharer list, no Invalidation/Ack; the LLC keeps only an owner per line,
// and each core self-invalidates at synchronisation points. Written
// as two ProtocolTables (L1 and home) like MESI; docs/coherence.md ("NSI")
// prints the tables and documents the resolved ambiguities (A1..A10).
//
// Summary.
//  - L1 stable states INV, SHD, EXC, MOD, SUS. A load miss sends Read: the
//    home answers RepExc (EXC, the reader becomes the owner) when the line
//    has no owner, RepShd (SHD) otherwise. A store (or kMakeWritable) to
//    INV/SHD/SUS sends RdEx, answered RepExc; the home records the line as
//    MOD at once (A1, "optimised"), so the L1 installs MOD. A store to EXC
//    sends Upgrade and performs on AckChange (home EXC -> MOD). SHD and SUS
//    lines are dropped silently; evicting EXC/MOD sends Replace (MOD: with
//    the data) and waits in a write-back buffer for AckChange.
//  - Writers never invalidate: ExcIntervention (a RdEx for an owned line)
//    turns the owner's EXC/MOD into SHD, ShdIntervention (a Read of a MOD
//    line) turns MOD into EXC; both answer AckData with the data.
//  - synchronise() (fence, AMO, LR, SC) flash-turns every SHD line SUS (it
//    visits only the ways that became SHD since the last one, listed as
//    they do). A load on SUS sends Read (validation)
//    carrying the copy's version. Each LLC line has a version, renewed
//    (from a per-bank counter) when the line is filled from memory and
//    before every grant of write permission (RdEx, Upgrade), and sent with
//    every data reply: an equal version means the copy is current, and the
//    home answers without data (RepValidShd / RepValidExc, one flit);
//    otherwise RepShd / RepExc with the data, which the L1 compares with
//    its old copy. Current (by version or by value) counts as a hit
//    (last_miss_speculated_correctly()), else as a miss. The reply's type
//    decides the state (...Shd -> SHD, ...Exc -> EXC, A4).
//  - Option validation = data: the thesis's literal validation instead; the
//    home answers every validation Read with the data (RepShd / RepExc) and
//    the L1 compares it with its copy; two variants of the tables.
//  - Periodic synchronisation (parameter periodic_synchronisation_cycles,
//    default 100000, 0 = off): applied lazily, at the core's first access at
//    or after the deadline, which for a blocking core is indistinguishable
//    from a timer and needs no event.
//  - The home is blocking (one transaction per line; later requests wait)
//    and inclusive of owned lines only: an LLC eviction recalls the owner
//    (ExcIntervention, owner -> SHD) and writes dirty data back; SHD copies
//    may outlive the LLC line (A3).
//  - Virtual networks: Read, RdEx, Upgrade, Replace on requests;
//    ShdIntervention, ExcIntervention AND AckChange on forwards (so an
//    AckChange and any later forward from the home reach the L1 in order,
//    which removes the Upgrade/intervention race of A2a); AckData, RepShd,
//    RepExc, RepValidShd, RepValidExc on responses.
#pragma once

#include "coherence/coherence.h"
#include "coherence/extensions.h"
#include "coherence/protocol_registry.h"
#include "coherence/protocol_table.h"
#include "coherence/table_driven_controller.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace npuvp::coherence::nsi {

enum MessageType : unsigned {
  kRead = kFirstProtocolMessage,
  kRdEx,
  kUpgrade,
  kReplace,
  kShdIntervention,
  kExcIntervention,
  kAckData,
  kRepShd,
  kRepExc,
  kAckChange,
  kRepValidShd,  // a validated copy is current: no data, stay SHD
  kRepValidExc,  // a validated copy is current: no data, become the owner (EXC)
  kMessageTypes  // one past the last
};
std::string message_name(unsigned type);
VirtualNetwork virtual_network_of(unsigned type);
// The line's data version a message carries (Message::extension; 0 = none):
// renewed by the home at each fill and write grant, sent with every reply,
// and carried by a validation Read.
inline std::uint64_t version_of(const Message& message) { return message.extension; }
inline void set_version(Message& message, std::uint64_t version) { message.extension = version; }

// The fates of suspect lines (ProtocolCounters; exported by the cluster):
// SHD lines turned suspect (SUS) by synchronisations, loads that validated
// them current (a hit) or stale (a miss, fresh data), and those dropped
// (evicted silently or written) without being read.
struct SuspectStatistics {
  std::uint64_t lines_created = 0;
  std::uint64_t validated_current = 0, validated_stale = 0;
  std::uint64_t dropped_unread = 0;
};

constexpr std::uint64_t kDefaultPeriodicSynchronisationCycles = 100000;

#define NPUVP_NSI_L1_STATES(X)                                                                                         \
  X(INV, kStable, "invalid: not in this cache")                                                                        \
  X(SHD, kStable | kHoldsData, "shared: readable; may be stale (writers do not invalidate it)")                        \
  X(EXC, kStable | kHoldsData, "exclusive: this L1 is the owner, the LLC data is current")                             \
  X(MOD, kStable | kHoldsData | kOwner, "modified: this L1 is the owner and may hold newer data than the LLC")         \
  X(SUS, kStable | kHoldsData, "suspect: a SHD line present at the last synchronisation; a load validates it")         \
  X(MOD_L, kHoldsData | kOwner, "MOD locked by kMakeWritable: forwards wait for the atomic's store")                   \
  X(IS_D, kTransient, "load miss: Read sent, waiting for RepShd/RepExc")                                               \
  X(IM_D, kTransient, "store miss: RdEx sent, waiting for RepExc")                                                     \
  X(IW_D, kTransient, "make-writable miss: RdEx sent, waiting for RepExc")                                             \
  X(SV_D, kHoldsData, "load on SUS: validation Read (with the copy's version) sent, waiting for "                      \
      "RepValidShd/RepValidExc (current) or RepShd/RepExc (changed)")                                                  \
  X(EM_A, kHoldsData, "store on EXC: Upgrade sent, waiting for AckChange")                                             \
  X(EW_A, kHoldsData, "make-writable on EXC: Upgrade sent, waiting for AckChange")                                     \
  X(MI_A, kHoldsData | kOwner, "evicted MOD: Replace with data sent, in the write-back buffer, waiting for "           \
      "AckChange")                                                                                                     \
  X(EI_A, kHoldsData, "evicted EXC (or MOD downgraded meanwhile): Replace sent, waiting for AckChange")                \
  X(II_A, kTransient, "evicted, ownership given away (AckData sent): waiting for AckChange")

#define NPUVP_NSI_L1_EVENTS(X)                                                                                         \
  X(Load, "the core loads from the line")                                                                              \
  X(Store, "the core stores to the line")                                                                              \
  X(MakeWritable, "the core asks for write permission (before an AMO or SC)")                                          \
  X(Replacement, "the line is the victim of a fill into its set")                                                      \
  X(Unlock, "the core's atomic is over (access to another line, or synchronise)")                                      \
  X(Synchronise, "a synchronisation (fence, AMO, LR, SC, or the periodic one): applies to every SHD line at once")     \
  X(ShdIntervention, "the home asks the owner of a MOD line for the data; the owner keeps it, clean")                  \
  X(ExcIntervention, "the home takes ownership for another L1's RdEx (or an LLC eviction); the owner keeps a SHD "     \
      "copy")                                                                                                          \
  X(RepShd, "shared data (and its version) from the home")                                                             \
  X(RepExc, "exclusive data (and its version) from the home (the L1 becomes the owner)")                               \
  X(AckChange, "the home acknowledges an Upgrade or a Replace (forwards vnet)")                                        \
  X(RepValidShd, "no data: the validated copy is current, the line has an owner (the L1 keeps SHD)")                   \
  X(RepValidExc, "no data: the validated copy is current, the line had no owner (the L1 becomes the owner)")

#define NPUVP_NSI_L1_ACTIONS(X)                                                                                        \
  X(Allocate, "allocate", "take a free way of the set for the line (a victim was replaced before if needed)")          \
  X(SendRead, "send Read", "Read to the home (requests vnet)")                                                         \
  X(SendRdEx, "send RdEx", "RdEx to the home (requests vnet)")                                                         \
  X(SendUpgrade, "send Upgrade", "Upgrade to the home (requests vnet)")                                                \
  X(Perform, "perform", "perform the core's access: a load copies the bytes out, a store in; completes a miss")        \
  X(InstallData, "install data", "copy the message's data into the line")                                              \
  X(Validate, "validate", "compare the reply's data with the suspect copy: equal counts a hit (validated current), "   \
      "else a miss (stale); then install the reply's data")                                                            \
  X(SendReplace, "send Replace", "Replace without data to the home (EXC)")                                             \
  X(SendReplaceData, "send Replace+data", "Replace with the dirty data to the home (MOD)")                             \
  X(MoveToWritebackBuffer, "move to write-back buffer", "move the line and its data to a write-back buffer entry, "    \
      "freeing the way")                                                                                               \
  X(DropSilently, "drop silently", "free the way without telling the home (SHD/SUS); the line-lost observer is told")  \
  X(SendAckData, "send AckData", "AckData with the line's data (dirty if MOD) to the home (responses vnet)")           \
  X(StallForward, "stall forward", "park the forward until the line's transaction ends (its data is already on its "   \
      "way)")                                                                                                          \
  X(StallAccess, "stall access", "the access waits until the write-back entry of its line is freed")                   \
  X(FreeWritebackEntry, "free write-back entry", "the write-back buffer entry becomes free; a waiting access "         \
      "retries")                                                                                                       \
  X(FlashSuspect, "flash suspect", "every SHD line becomes SUS in one step (the ways that became SHD since the "       \
      "last synchronisation)")                                                                                         \
  X(ConfirmCurrent, "confirm current", "the home found the suspect copy's version current: keep the data, count a "    \
      "hit (validated current)")

#define NPUVP_NSI_HOME_STATES(X)                                                                                       \
  X(INV, kStable, "not present in the LLC")                                                                            \
  X(INV_D, kTransient, "allocated, MemoryRead sent, waiting for MemoryData")                                           \
  X(EXC, kStable, "in the LLC with current data; owner = the L1 holding it EXC, or none (-1)")                         \
  X(MOD, kStable, "in the LLC; the owner L1 may hold newer data")                                                      \
  X(B_S, kTransient, "ShdIntervention sent to the owner for a Read, waiting for AckData")                              \
  X(B_X, kTransient, "ExcIntervention sent to the owner for a RdEx, waiting for AckData")                              \
  X(B_R, kTransient, "LLC eviction: owner recalled with an ExcIntervention, waiting for AckData")

#define NPUVP_NSI_HOME_EVENTS(X)                                                                                       \
  X(Read, "a Read of a line without owner (busy line: any Read)")                                                      \
  X(ReadOwned, "a Read of a line with an owner (another L1)")                                                          \
  X(RdEx, "a RdEx of a line without owner, or an Upgrade from an L1 that is no longer the owner (busy line: any)")     \
  X(RdExOwned, "a RdEx (or stale Upgrade) of a line owned by another L1")                                              \
  X(Upgrade, "an Upgrade from the owner")                                                                              \
  X(RequestFromOwner, "a Read or RdEx from the line's owner (cannot happen: an owner hits, or upgrades)")              \
  X(Replace, "a Replace while the line is busy")                                                                       \
  X(ReplaceOwner, "a Replace from the owner (with data if it was MOD)")                                                \
  X(ReplaceStale, "a Replace from an L1 that is no longer the owner (an intervention crossed it)")                     \
  X(AckData, "the owner's data, answering an intervention")                                                            \
  X(MemoryData, "the line's data from memory")                                                                         \
  X(Evict, "the line without owner is the LLC's victim for a fill into its set")                                       \
  X(EvictOwned, "the owned line is the LLC's victim for a fill into its set")                                          \
  X(ReadCurrent, "a validation Read whose copy has the line's version, line without owner (stable EXC only)")          \
  X(ReadCurrentOwned, "a validation Read whose copy has the line's version, line owned by another L1 (stable EXC "     \
      "only)")

#define NPUVP_NSI_HOME_ACTIONS(X)                                                                                      \
  X(Allocate, "allocate", "take a free way for the line (a victim was evicted before if needed; else the request "     \
      "stalls)")                                                                                                       \
  X(FetchFromMemory, "fetch from memory", "MemoryRead to the line's memory controller")                                \
  X(Stall, "stall", "the request waits at the home (per line, in arrival order) and is handled again when the line "   \
      "is stable")                                                                                                     \
  X(InstallMemoryData, "install memory data", "copy MemoryData into the LLC line (clean), no owner")                   \
  X(RecordRequest, "record request", "remember the requester of the transaction")                                      \
  X(SendRepExc, "send RepExc", "RepExc with the LLC data and its version to the requester (or the recorded one)")      \
  X(SendRepShd, "send RepShd", "RepShd with the LLC data and its version to the requester (or the recorded one)")      \
  X(SendAckChange, "send AckChange", "AckChange to the sender (forwards vnet)")                                        \
  X(MakeOwner, "make owner", "the requester (or the recorded one) becomes the owner")                                  \
  X(ClearOwner, "clear owner", "no owner (-1)")                                                                        \
  X(SendShdIntervention, "send ShdIntervention", "ShdIntervention to the owner")                                       \
  X(SendExcIntervention, "send ExcIntervention", "ExcIntervention to the owner")                                       \
  X(RecallOwner, "recall owner", "ExcIntervention to the owner for the LLC eviction; no owner")                        \
  X(WriteAckData, "write AckData", "copy the AckData into the LLC line (dirty if the owner's was)")                    \
  X(WriteReplaceData, "write Replace data", "copy the Replace's data, if any, into the LLC line (dirty)")              \
  X(WriteBack, "write back", "MemoryWrite of the line if it is dirty; the way becomes free")                           \
  X(NewVersion, "new version", "the line gets a fresh version (the bank's next): copies of older versions are no "     \
      "longer current")                                                                                                \
  X(SendRepValidShd, "send RepValidShd", "RepValidShd (no data: the requester's copy is current) to the requester")    \
  X(SendRepValidExc, "send RepValidExc", "RepValidExc (no data: the requester's copy is current, it becomes the "      \
      "owner) to the requester")

// The L1 controller's machine (nsi_tables.cpp: its table).
struct L1Machine {
  NPUVP_COHERENCE_MACHINE(NPUVP_NSI_L1_STATES, NPUVP_NSI_L1_EVENTS, NPUVP_NSI_L1_ACTIONS)
  static constexpr State kAbsent = State::kINV;
  static constexpr unsigned kMaxTiles = 0;  // no sharer list
  static constexpr auto message_name = &nsi::message_name;
  static constexpr auto virtual_network_of = &nsi::virtual_network_of;
  static const ProtocolTable<L1Machine>& table();
};

// The home controller's machine (nsi_tables.cpp: its table).
struct HomeMachine {
  NPUVP_COHERENCE_MACHINE(NPUVP_NSI_HOME_STATES, NPUVP_NSI_HOME_EVENTS, NPUVP_NSI_HOME_ACTIONS)
  static constexpr State kAbsent = State::kINV;
  static constexpr State kFilling = State::kINV_D;
  static constexpr unsigned kMaxTiles = 0;  // an owner per line, no sharer list
  static constexpr auto message_name = &nsi::message_name;
  static constexpr auto virtual_network_of = &nsi::virtual_network_of;
  static const ProtocolTable<HomeMachine>& table();
  static bool is_request(unsigned type) { return is_lookup(type) || type == kReplace; }
  static bool is_lookup(unsigned type) { return type == kRead || type == kRdEx || type == kUpgrade; }
};

using L1Table = ProtocolTable<L1Machine>;
using HomeTable = ProtocolTable<HomeMachine>;
inline const L1Table& l1_table() { return L1Machine::table(); }
inline const HomeTable& home_table() { return HomeMachine::table(); }
// The thesis's literal validation (parameter `<mesh>.nsi.validation` =
// data): variants of the two tables in which the home answers the Read of a
// suspect copy with the data (RepShd / RepExc) even when the copy's version
// is current, and the L1 compares the data (Validate) — no RepValidShd /
// RepValidExc (nsi_tables.cpp).
const L1Table& literal_validation_l1_table();
const HomeTable& literal_validation_home_table();

class L1 final : public TableDrivenL1<L1, L1Machine>,
                 public ExpressRequests,
                 public TimedAccesses,
                 public SpeculatedLoads,
                 public ProtocolCounters {
 public:
  static constexpr unsigned kDefaultWritebackEntries = 4;

  // `table`: l1_table() (versioned validation) or literal_validation_l1_table().
  L1(unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment,
     std::uint64_t periodic_synchronisation_cycles = kDefaultPeriodicSynchronisationCycles,
     unsigned writeback_entries = kDefaultWritebackEntries, const L1Table& table = l1_table());

  Cycles synchronise() override;
  // A validation Read (it carries its suspect copy's version).
  bool express(const Message& request) const override { return request.type == kRead && version_of(request) != 0; }
  const std::uint64_t* counter(const std::string& name) const override;
  const SuspectStatistics& suspect_statistics() const { return suspects_; }
  // Fault injection for the verification tests: synchronise() no longer
  // self-invalidates (the testers must then catch stale loads).
  void skip_self_invalidation_for_testing(bool skip) { skip_self_invalidation_ = skip; }

 private:
  using Base = TableDrivenL1<L1, L1Machine>;
  friend Base;

  Event classify(const Message& message);
  void perform(Action action, Context& context);
  void dispatch_access();
  void before_access();
  void set_state(Context& context, State state);
  void leaving(State from, State to);
  void on_miss_completed() { fill_is_suspect_ = false; }
  void serialize_way(std::string& out, int way) const { out += ":v" + std::to_string(version_[way]); }
  void serialize_tail(std::string& out) const {
    if (periodic_cycles_ != 0) out += "next" + std::to_string(next_periodic_) + ';';
  }
  void self_invalidate();
  void send_to_home(unsigned type, const Context& context, bool with_data, bool dirty, std::uint64_t version = 0);

  // The ways that became SHD since the last synchronisation, which turns
  // those still SHD into SUS. A way may be listed twice, or hold another
  // state by then; every SHD way is listed. When the list would outgrow
  // the cache, the synchronisation scans every way instead.
  std::vector<int> shared_ways_;
  bool scan_all_ways_ = false;
  // The home's version of each way's data (from its data reply); a
  // validation Read carries it.
  std::vector<std::uint64_t> version_;
  std::uint64_t periodic_cycles_;
  // The next periodic synchronisation, in the environment's fine units
  // (Environment::fine_per_cycle), the unit of an access's given time
  // (TimedAccesses::set_access_time): one compare per access.
  std::uint64_t next_periodic_ = 0;
  // The periodic synchronisation is due at this access.
  bool periodic_due() const {
    const std::uint64_t time = access_time_ ? access_time_ : environment_.now() * environment_.fine_per_cycle();
    return time >= next_periodic_;
  }
  bool skip_self_invalidation_ = false;
  SuspectStatistics suspects_;
  bool validated_current_ = false;
  bool fill_is_suspect_ = false;  // a synchronisation happened while a load miss was outstanding
};

// The home's entry of a line in the LLC.
struct Entry {
  int owner = -1;             // the L1 holding the line EXC or MOD
  bool dirty = false;         // the LLC data differs from memory's
  unsigned requester = 0;     // the transaction in progress
  std::uint64_t version = 0;  // renewed at the fill and before each write grant
};

class Home final : public TableDrivenHome<Home, HomeMachine, Entry> {
 public:
  // `shape` is this bank's (the LLC's size / tiles); `table`: home_table()
  // (versioned validation) or literal_validation_home_table().
  Home(unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment,
       const HomeTable& table = home_table());

  // A Read of a stable LLC line that no request waits for, answered from
  // the LLC (RepExc, RepShd, RepValid*): no intervention, no memory access.
  bool answers_alone(const Message& request) const override;
  int owner_of(std::uint64_t line) const;  // -1 when none (or absent)

 private:
  using Base = TableDrivenHome<Home, HomeMachine, Entry>;
  friend Base;

  Event classify(const Message& message, const Context& context) const;
  void perform(Action action, Context& context);
  Event eviction(const Context& evicted);
  void send_to_l1(unsigned type, unsigned tile, const Context& context, bool with_data);
  std::string entry_summary(const Entry& entry) const { return "owner " + std::to_string(entry.owner); }
  // " owner 3 clean (requester 5)" (the requester while a transaction is in progress).
  void describe_entry(std::ostream& text, const Entry& entry, State state) const {
    text << " owner " << entry.owner << (entry.dirty ? " dirty" : " clean");
    if (!HomeMachine::stable(state)) text << " (requester " << entry.requester << ")";
  }
  std::string entry_key(int way) const;
  void serialize_tail(std::string& out) const {
    waiting_.serialize(out);
    out += "last" + std::to_string(last_version_) + ';';
  }

  std::uint64_t last_version_ = 0;  // versions are unique per bank, so a refilled line never matches an old copy
};

// The values of `<prefix>.validation`.
constexpr const char* kVersionValidation = "version";  // data-less confirmation of a current copy (default)
constexpr const char* kDataValidation = "data";        // the thesis's literal validation: always the data

// NSI set up for one system, with its parameters.
class Instance final : public ProtocolInstance {
 public:
  Instance(const std::string& prefix, const std::string& note);
  std::unique_ptr<L1Controller> make_l1(unsigned tile, const Geometry& geometry, const CacheShape& shape,
                                        Environment& environment) const override;
  std::unique_ptr<HomeController> make_home(unsigned tile, const Geometry& geometry, const CacheShape& shape,
                                            Environment& environment) const override;

  // `<prefix>.periodic_synchronisation_cycles`: each L1 self-invalidates at least this often (0 = never).
  Parameter<std::uint64_t> periodic_synchronisation_cycles;
  // `<prefix>.validation`: how the home answers the Read of a suspect copy
  // whose version is current: "version" (RepValidShd/RepValidExc, no data)
  // or "data" (the literal validation tables).
  Parameter<std::string> validation;

 private:
  bool literal_validation() const { return validation.get() == kDataValidation; }
};

// The registry entry (its instance has the parameters periodic_synchronisation_cycles and validation).
Protocol protocol();

}  // namespace npuvp::coherence::nsi
