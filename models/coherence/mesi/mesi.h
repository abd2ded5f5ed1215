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
//  - Virtual networks: Read, RdEx, Upgrade, Replace (and MemoryRead/Write)
//    on requests; Invalidation, ShdIntervention, ExcIntervention on
//    forwards; Ack, AckData, RepShd, RepExc, AckChange (and MemoryData) on
//    responses. Responses and forwards are always consumed (an L1 parks a
//    forward for a line whose data is still on its way, which the home has
//    already sent), requests may wait at the home; so no cycle of waiting.
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

// ---- the L1 machine ----
struct L1Machine {
  enum class State : std::uint8_t {
    kI,     // not present (a free way)
    kS, kE, kM,
    kE_L, kM_L,           // E/M locked by kMakeWritable until the atomic's store
    kIS_D, kIM_D, kIW_D,  // waiting for data: load, store, make-writable
    kSM_A, kSW_A,         // S, Upgrade sent for a store / make-writable, waiting for AckChange
    kMI_A, kEI_A, kSI_A, kII_A,  // in the write-back buffer, Replace sent, waiting for AckChange
    kCount
  };
  enum class Event : std::uint8_t {
    kLoad, kStore, kMakeWritable, kReplacement, kUnlock,
    kInvalidation, kShdIntervention, kExcIntervention, kRepShd, kRepExc, kAckChange,
    kCount
  };
  enum class Action : std::uint8_t {
    kAllocate, kSendRead, kSendRdEx, kSendUpgrade, kPerform, kInstallData,
    kSendReplace, kSendReplaceData, kMoveToWritebackBuffer, kSendAck, kSendAckData,
    kDropLine, kStallForward, kStallAccess, kFreeWritebackEntry,
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
    kNP,      // not present in the LLC (a free way)
    kNP_D,    // allocated, waiting for MemoryData
    kIDLE,    // in the LLC, in no L1
    kSHD,     // in the LLC, read-only in the L1s of the sharer mask
    kEXC,     // held E or M by one L1, the owner (the LLC data may be stale)
    kSHD_A,   // invalidating sharers for a RdEx/Upgrade, counting Acks
    kEXC_D,   // ShdIntervention sent to the owner for a Read, waiting for AckData
    kEXC_X,   // ExcIntervention sent to the owner for a RdEx, waiting for AckData
    kSHD_R,   // LLC eviction: invalidating all sharers, counting Acks
    kEXC_R,   // LLC eviction: ExcIntervention sent to the owner, waiting for AckData
    kCount
  };
  enum class Event : std::uint8_t {
    kRead, kRdEx, kUpgrade, kUpgradeSole, kRequestFromOwner, kRequestFromSharer,
    kReplace, kReplaceOwner, kReplaceSharer, kReplaceLastSharer, kReplaceStale,
    kAck, kLastAck, kAckData, kMemoryData, kEvict,
    kCount
  };
  enum class Action : std::uint8_t {
    kAllocate, kFetchFromMemory, kStall, kInstallMemoryData, kRecordRequest,
    kSendRepExc, kSendRepShd, kSendGrant, kSendAckChange,
    kMakeOwner, kAddSharer, kRemoveSharer, kOwnerAndRequesterShare,
    kInvalidateOtherSharers, kInvalidateAllSharers, kSendShdIntervention, kSendExcIntervention, kRecallOwner,
    kCountAck, kWriteAckData, kWriteReplaceData, kWriteBack,
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
     unsigned writeback_entries = kDefaultWritebackEntries);

  bool access(Access access, std::uint64_t address, void* data, unsigned size) override;
  Cycles synchronise() override;
  bool peek(std::uint64_t address, void* data, unsigned size, bool& owner) const override;
  void poke(std::uint64_t address, const void* data, unsigned size) override;
  void handle(const Message& message) override;
  std::string describe(std::uint64_t line) const override;
  bool quiescent() const override;
  void serialize(std::string& out) const override;
  // The stable or transient state of `line` here (kI when absent).
  State state_of_line(std::uint64_t line) const;

 private:
  struct Context {
    std::uint64_t line = 0;
    int way = CacheArray::kNone;
    int buffer = -1;
    const Message* message = nullptr;
  };

  Context locate(std::uint64_t line) const;
  State state_of(const Context& context) const;
  void set_state(Context& context, State state);
  void fire(Event event, Context& context);
  void perform(Action action, Context& context);
  void dispatch_access();
  void process(const Message& message);
  void after_event();
  void retry_stalled_forwards();
  void unlock();
  void send_to_home(unsigned type, const Context& context, bool with_data, bool dirty);
  std::uint8_t* line_data(const Context& context);
  const std::uint8_t* line_data(const Context& context) const;
  [[noreturn]] void fail(const char* state, const char* event, const Context& context) const;

  WritebackBuffer<State, State::kI> writeback_;
  bool in_access_ = false;  // a hit performs inside access()
  bool performed_ = false;
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
  // The directory entry of `line` (0 / -1 when absent).
  std::uint64_t sharers_of(std::uint64_t line) const;
  int owner_of(std::uint64_t line) const;
  bool dirty(std::uint64_t line) const;

 private:
  struct Directory {
    std::uint64_t sharers = 0;  // bit t: L1 t holds the line S
    int owner = -1;             // the L1 holding it E or M
    bool dirty = false;         // the LLC data differs from memory's
    unsigned requester = 0;     // the transaction in progress
    unsigned request = 0;       // its message type
    int acks = 0;               // Acks still expected
  };
  struct Context {
    std::uint64_t line = 0;
    int way = CacheArray::kNone;
    const Message* message = nullptr;
    Event event = Event::kCount;  // the event being handled
  };

  State state_of(const Context& context) const;
  Event classify(const Message& message, const Context& context) const;
  void fire(Event event, Context& context);
  void perform(Action action, Context& context);
  void process(const Message& message);
  bool make_room(std::uint64_t line);
  unsigned requester(const Context& context) const;
  void send_to_l1(unsigned type, unsigned tile, const Context& context, bool with_data);
  [[noreturn]] void fail(const char* state, const char* event, const Context& context) const;

  std::vector<Directory> directory_;
};

// The registry entry.
Protocol protocol();

}  // namespace npuvp::coherence::mesi
