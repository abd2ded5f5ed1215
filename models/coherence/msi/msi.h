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

#include "coherence/cache_array.h"
#include "coherence/coherence.h"
#include "coherence/controller_support.h"
#include "coherence/protocol_registry.h"
#include "coherence/protocol_table.h"

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

struct L1Machine {
  enum class State : std::uint8_t {
    kI,                   // not present (a free way)
    kS, kM,
    kM_L,                 // M locked by kMakeWritable until the atomic's store
    kIS_D, kIM_D, kIW_D,  // waiting for data: load, store, make-writable
    kSI_A, kMI_A, kII_A,  // evicted, Replace sent, waiting for AckChange (still in the way)
    kCount
  };
  enum class Event : std::uint8_t {
    kLoad, kStore, kMakeWritable, kReplacement, kUnlock,
    kInvalidation, kShdIntervention, kExcIntervention, kRepShd, kRepExc, kAckChange,
    kCount
  };
  enum class Action : std::uint8_t {
    kAllocate, kSendRead, kSendRdEx, kPerform, kInstallData, kSendReplace, kSendReplaceData,
    kSendAck, kSendAckData, kDropLine, kStallForward,
    kCount
  };
  static const char* name(State state);
  static const char* name(Event event);
  static const char* name(Action action);
  static const char* meaning(State state);
  static const char* meaning(Event event);
  static const char* meaning(Action action);
};

struct HomeMachine {
  enum class State : std::uint8_t {
    kNP,     // not in the LLC (a free way)
    kNP_D,   // allocated, waiting for MemoryData
    kSHD,    // in the LLC, read-only in the L1s of the sharer mask (maybe none)
    kMOD,    // held M by the owner (the LLC data may be stale)
    kSHD_A,  // RdEx: invalidating the other sharers, counting Acks
    kMOD_D,  // Read: ShdIntervention sent to the owner, waiting for AckData
    kMOD_X,  // RdEx: ExcIntervention sent to the owner, waiting for AckData
    kSHD_R,  // LLC eviction: invalidating every sharer, counting Acks
    kMOD_R,  // LLC eviction: owner recalled, waiting for AckData
    kCount
  };
  enum class Event : std::uint8_t {
    kRead, kRdEx, kRdExAlone, kRequestFromOwner,
    kReplace, kReplaceOwner, kReplaceSharer, kReplaceStale,
    kAck, kLastAck, kAckData, kMemoryData, kEvict, kEvictUnshared,
    kCount
  };
  enum class Action : std::uint8_t {
    kAllocate, kFetchFromMemory, kStall, kInstallMemoryData, kRecordRequest,
    kSendRepShd, kSendRepExc, kSendAckChange,
    kAddSharer, kRemoveSharer, kMakeOwner, kOwnerAndRequesterShare,
    kInvalidateOtherSharers, kInvalidateAllSharers, kSendShdIntervention, kSendExcIntervention,
    kCountAck, kWriteData, kWriteBack,
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

  L1(unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment);

  bool access(Access access, std::uint64_t address, void* data, unsigned size) override;
  Cycles synchronise() override;
  bool peek(std::uint64_t address, void* data, unsigned size, bool& owner) const override;
  void poke(std::uint64_t address, const void* data, unsigned size) override;
  Permission permission(std::uint64_t line) const override;
  void handle(const Message& message) override;
  std::string describe(std::uint64_t line) const override;
  bool quiescent() const override;
  void serialize(std::string& out) const override;
  State state_of_line(std::uint64_t line) const;

 private:
  // The line being worked on: its way (kNone when absent) and the message.
  struct Context {
    std::uint64_t line = 0;
    int way = CacheArray::kNone;
    const Message* message = nullptr;
  };

  Context locate(std::uint64_t line) const;
  State state_of(const Context& context) const;
  void fire(Event event, Context& context);
  void perform(Action action, Context& context);
  void start_access();
  void on_message(const Message& message);
  void retry_stalled_forwards();
  void unlock();
  void send_to_home(unsigned type, const Context& context, bool with_data);

  bool hit_ = false;        // the access is being tried inside access()
  bool performed_ = false;  // kPerform ran for the pending access
  bool way_freed_ = false;  // an AckChange released a way: a waiting access retries
};

class Home final : public HomeControllerBase<HomeMachine> {
 public:
  using State = HomeMachine::State;
  using Event = HomeMachine::Event;
  using Action = HomeMachine::Action;

  Home(unsigned tile, const Geometry& geometry, const CacheShape& shape, Environment& environment);

  void handle(const Message& message) override;
  std::string describe(std::uint64_t line) const override;
  bool quiescent() const override;
  void serialize(std::string& out) const override;
  std::uint64_t sharers_of(std::uint64_t line) const;  // 0 when absent
  int owner_of(std::uint64_t line) const;              // -1 when none

 private:
  struct Directory {
    std::uint64_t sharers = 0;  // bit t: L1 t holds the line S
    int owner = -1;             // the L1 holding it M
    bool dirty = false;         // the LLC data differs from memory's
    unsigned requester = 0;     // of the transaction in progress
    int acks = 0;               // Acks still expected
  };
  struct Context {
    std::uint64_t line = 0;
    int way = CacheArray::kNone;
    const Message* message = nullptr;
  };

  State state_of(const Context& context) const;
  Event classify(const Message& message, const Context& context) const;
  void fire(Event event, Context& context);
  void perform(Action action, Context& context);
  bool process(const Message& message);  // false: the message waits
  bool make_room(std::uint64_t line);
  unsigned requester(const Context& context) const;
  void send(unsigned type, unsigned destination, Port port, const Context& context, bool with_data);

  std::vector<Directory> directory_;
};

// The registry entry ("msi").
Protocol protocol();

}  // namespace npuvp::coherence::msi
