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

#include "coherence/cache_array.h"
#include "coherence/coherence.h"
#include "coherence/controller_support.h"
#include "coherence/protocol_registry.h"
#include "coherence/protocol_table.h"

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

constexpr const char* kPeriodicSynchronisationParameter = "periodic_synchronisation_cycles";
constexpr std::uint64_t kDefaultPeriodicSynchronisationCycles = 100000;

// ---- the L1 machine ----
struct L1Machine {
  enum class State : std::uint8_t {
    kINV,  // not present (a free way)
    kSHD, kEXC, kMOD, kSUS,
    kMOD_L,                      // MOD locked by kMakeWritable until the atomic's store
    kIS_D, kIM_D, kIW_D,         // waiting for data: load, store, make-writable
    kSV_D,                       // SUS load: validation Read sent, waiting for the reply
    kEM_A, kEW_A,                // EXC, Upgrade sent for a store / make-writable, waiting for AckChange
    kMI_A, kEI_A, kII_A,         // in the write-back buffer, Replace sent, waiting for AckChange
    kCount
  };
  enum class Event : std::uint8_t {
    kLoad, kStore, kMakeWritable, kReplacement, kUnlock, kSynchronise,
    kShdIntervention, kExcIntervention, kRepShd, kRepExc, kAckChange, kRepValidShd, kRepValidExc,
    kCount
  };
  enum class Action : std::uint8_t {
    kAllocate, kSendRead, kSendRdEx, kSendUpgrade, kPerform, kInstallData, kValidate,
    kSendReplace, kSendReplaceData, kMoveToWritebackBuffer, kDropSilently, kSendAckData,
    kStallForward, kStallAccess, kFreeWritebackEntry, kFlashSuspect, kConfirmCurrent,
    kCount
  };
  static const char* name(State state);
  static const char* name(Event event);
  static const char* name(Action action);
  static const char* meaning(State state);
  static const char* meaning(Event event);
  static const char* meaning(Action action);
};

// ---- the home machine ----
struct HomeMachine {
  enum class State : std::uint8_t {
    kINV,    // not present in the LLC (a free way)
    kINV_D,  // allocated, waiting for MemoryData
    kEXC,    // the LLC data is current; owner = an L1 holding it EXC, or none (-1)
    kMOD,    // the owner L1 may hold newer data than the LLC
    kB_S,    // ShdIntervention sent to the owner for a Read, waiting for AckData
    kB_X,    // ExcIntervention sent to the owner for a RdEx, waiting for AckData
    kB_R,    // LLC eviction: owner recalled (ExcIntervention), waiting for AckData
    kCount
  };
  enum class Event : std::uint8_t {
    kRead, kReadOwned, kRdEx, kRdExOwned, kUpgrade, kRequestFromOwner,
    kReplace, kReplaceOwner, kReplaceStale, kAckData, kMemoryData, kEvict, kEvictOwned,
    kReadCurrent, kReadCurrentOwned,
    kCount
  };
  enum class Action : std::uint8_t {
    kAllocate, kFetchFromMemory, kStall, kInstallMemoryData, kRecordRequest,
    kSendRepExc, kSendRepShd, kSendAckChange, kMakeOwner, kClearOwner,
    kSendShdIntervention, kSendExcIntervention, kRecallOwner,
    kWriteAckData, kWriteReplaceData, kWriteBack, kNewVersion, kSendRepValidShd, kSendRepValidExc,
    kCount
  };
  static const char* name(State state);
  static const char* name(Event event);
  static const char* name(Action action);
  static const char* meaning(State state);
  static const char* meaning(Event event);
  static const char* meaning(Action action);
};

using L1Table = ProtocolTable<L1Machine>;
using HomeTable = ProtocolTable<HomeMachine>;
const L1Table& l1_table();
const HomeTable& home_table();

class L1 final : public L1ControllerBase {
 public:
  using State = L1Machine::State;
  using Event = L1Machine::Event;
  using Action = L1Machine::Action;
  static constexpr unsigned kDefaultWritebackEntries = 4;

  L1(unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment,
     std::uint64_t periodic_synchronisation_cycles = kDefaultPeriodicSynchronisationCycles,
     unsigned writeback_entries = kDefaultWritebackEntries);

  bool access(Access access, std::uint64_t address, void* data, unsigned size) override;
  Cycles synchronise() override;
  bool peek(std::uint64_t address, void* data, unsigned size, bool& owner) const override;
  void poke(std::uint64_t address, const void* data, unsigned size) override;
  void handle(const Message& message) override;
  std::string describe(std::uint64_t line) const override;
  bool quiescent() const override;
  void serialize(std::string& out) const override;
  // The stable or transient state of `line` here (kINV when absent); SHD
  // lines filled before the last synchronisation read as kSUS.
  State state_of_line(std::uint64_t line) const;
  // Fault injection for the verification tests: synchronise() no longer
  // self-invalidates (the testers must then catch stale loads).
  void skip_self_invalidation_for_testing(bool skip) { skip_self_invalidation_ = skip; }

 private:
  struct Context {
    std::uint64_t line = 0;
    int way = CacheArray::kNone;
    int buffer = -1;
    const Message* message = nullptr;
  };

  Context locate(std::uint64_t line) const;
  // Inline: every access asks it twice (dispatch, fire). SUS is stored as a
  // state of its own, so the look-up has no data-dependent branch.
  State state_of(const Context& context) const {
    if (context.way != CacheArray::kNone) return static_cast<State>(array_.state(context.way));
    if (context.buffer >= 0) return writeback_.state(context.buffer);
    return State::kINV;
  }
  void set_state(Context& context, State state);
  void fire(Event event, Context& context);
  void perform(Action action, Context& context);
  void dispatch_access();
  void process(const Message& message);
  void after_event();
  void retry_stalled_forwards();
  void unlock();
  void self_invalidate();
  void send_to_home(unsigned type, const Context& context, bool with_data, bool dirty, std::uint64_t version = 0,
                    bool express = false);
  std::uint8_t* line_data(const Context& context);
  const std::uint8_t* line_data(const Context& context) const;
  [[noreturn]] void fail(const char* state, const char* event, const Context& context) const;

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
  // (L1Controller::set_access_time): one compare per access.
  std::uint64_t next_periodic_ = 0;
  // The periodic synchronisation is due at this access.
  bool periodic_due() const {
    const std::uint64_t time = access_time_ ? access_time_ : environment_.now() * environment_.fine_per_cycle();
    return time >= next_periodic_;
  }
  bool skip_self_invalidation_ = false;
  WritebackBuffer<State, State::kINV> writeback_;
  bool in_access_ = false;  // a hit performs inside access()
  bool performed_ = false;
  bool validated_current_ = false;
  bool fill_is_suspect_ = false;  // a synchronisation happened while a load miss was outstanding
  bool writeback_freed_ = false;
};

class Home final : public HomeControllerBase<HomeMachine> {
 public:
  using State = HomeMachine::State;
  using Event = HomeMachine::Event;
  using Action = HomeMachine::Action;

  // `shape` is this bank's (the LLC's size / tiles).
  Home(unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment);

  void handle(const Message& message) override;
  std::string describe(std::uint64_t line) const override;
  bool quiescent() const override;
  void serialize(std::string& out) const override;
  // A Read of a stable LLC line that no request waits for, answered from
  // the LLC (RepExc, RepShd, RepValid*): no intervention, no memory access.
  bool answers_alone(const Message& request) const override;
  int owner_of(std::uint64_t line) const;  // -1 when none (or absent)

 private:
  struct Entry {
    int owner = -1;          // the L1 holding the line EXC or MOD
    bool dirty = false;      // the LLC data differs from memory's
    unsigned requester = 0;  // the transaction in progress
    std::uint64_t version = 0;  // renewed at the fill and before each write grant
  };
  struct Context {
    std::uint64_t line = 0;
    int way = CacheArray::kNone;
    const Message* message = nullptr;
  };

  Context context_of(const Message& message) const;  // the message's line, as stored here
  State state_of(const Context& context) const;
  Event classify(const Message& message, const Context& context) const;
  void fire(Event event, Context& context);
  void perform(Action action, Context& context);
  void process(const Message& message);
  bool make_room(std::uint64_t line);
  unsigned requester(const Context& context) const;
  void send_to_l1(unsigned type, unsigned tile, const Context& context, bool with_data);
  void send_to_memory(unsigned type, const Context& context, bool with_data);
  [[noreturn]] void fail(const char* state, const char* event, const Context& context) const;

  std::vector<Entry> entries_;
  std::uint64_t last_version_ = 0;  // versions are unique per bank, so a refilled line never matches an old copy
};

// The registry entry (parameter periodic_synchronisation_cycles).
Protocol protocol();

}  // namespace npuvp::coherence::nsi
