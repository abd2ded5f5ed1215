// The NSI tables: names, meanings and the transition rows the controllers
// execute (nsi_l1.cpp, nsi_home.cpp).
#include "coherence/memory_controller.h"
#include "coherence/nsi/nsi.h"

namespace npuvp::coherence::nsi {

std::string message_name(unsigned type) {
  if (const char* memory = memory_message_name(type)) return memory;
  static const char* const names[] = {"Read",    "RdEx",   "Upgrade", "Replace",   "ShdIntervention",
                                      "ExcIntervention", "AckData", "RepShd", "RepExc", "AckChange",
                                      "RepValidShd", "RepValidExc"};
  if (type >= kFirstProtocolMessage && type < kMessageTypes) return names[type - kFirstProtocolMessage];
  return "?";
}

VirtualNetwork virtual_network_of(unsigned type) {
  switch (type) {
    case kRead: case kRdEx: case kUpgrade: case kReplace: case kMemoryRead: case kMemoryWrite:
      return VirtualNetwork::kRequest;
    case kShdIntervention: case kExcIntervention: case kAckChange:
      return VirtualNetwork::kForward;
    default:
      return VirtualNetwork::kResponse;
  }
}

// ---- L1 names ----
const char* L1Machine::name(State state) {
  static const char* const names[] = {"INV",  "SHD",  "EXC",  "MOD",  "SUS",  "MOD_L", "IS_D", "IM_D",
                                      "IW_D", "SV_D", "EM_A", "EW_A", "MI_A", "EI_A",  "II_A"};
  return names[static_cast<unsigned>(state)];
}
const char* L1Machine::meaning(State state) {
  static const char* const meanings[] = {
      "invalid: not in this cache",
      "shared: readable; may be stale (writers do not invalidate it)",
      "exclusive: this L1 is the owner, the LLC data is current",
      "modified: this L1 is the owner and may hold newer data than the LLC",
      "suspect: a SHD line present at the last synchronisation; a load validates it",
      "MOD locked by kMakeWritable: forwards wait for the atomic's store",
      "load miss: Read sent, waiting for RepShd/RepExc",
      "store miss: RdEx sent, waiting for RepExc",
      "make-writable miss: RdEx sent, waiting for RepExc",
      "load on SUS: validation Read (with the copy's version) sent, waiting for RepValidShd/RepValidExc "
      "(current) or RepShd/RepExc (changed)",
      "store on EXC: Upgrade sent, waiting for AckChange",
      "make-writable on EXC: Upgrade sent, waiting for AckChange",
      "evicted MOD: Replace with data sent, in the write-back buffer, waiting for AckChange",
      "evicted EXC (or MOD downgraded meanwhile): Replace sent, waiting for AckChange",
      "evicted, ownership given away (AckData sent): waiting for AckChange"};
  return meanings[static_cast<unsigned>(state)];
}
const char* L1Machine::name(Event event) {
  static const char* const names[] = {"Load",            "Store",           "MakeWritable", "Replacement",
                                      "Unlock",          "Synchronise",     "ShdIntervention",
                                      "ExcIntervention", "RepShd",          "RepExc",       "AckChange",
                                      "RepValidShd",     "RepValidExc"};
  return names[static_cast<unsigned>(event)];
}
const char* L1Machine::meaning(Event event) {
  static const char* const meanings[] = {
      "the core loads from the line",
      "the core stores to the line",
      "the core asks for write permission (before an AMO or SC)",
      "the line is the victim of a fill into its set",
      "the core's atomic is over (access to another line, or synchronise)",
      "a synchronisation (fence, AMO, LR, SC, or the periodic one): applies to every SHD line at once",
      "the home asks the owner of a MOD line for the data; the owner keeps it, clean",
      "the home takes ownership for another L1's RdEx (or an LLC eviction); the owner keeps a SHD copy",
      "shared data (and its version) from the home",
      "exclusive data (and its version) from the home (the L1 becomes the owner)",
      "the home acknowledges an Upgrade or a Replace (forwards vnet)",
      "no data: the validated copy is current, the line has an owner (the L1 keeps SHD)",
      "no data: the validated copy is current, the line had no owner (the L1 becomes the owner)"};
  return meanings[static_cast<unsigned>(event)];
}
const char* L1Machine::name(Action action) {
  static const char* const names[] = {"allocate",         "send Read",       "send RdEx",
                                      "send Upgrade",     "perform",         "install data",
                                      "validate",         "send Replace",    "send Replace+data",
                                      "move to write-back buffer", "drop silently", "send AckData",
                                      "stall forward",    "stall access",    "free write-back entry",
                                      "flash suspect",   "confirm current"};
  return names[static_cast<unsigned>(action)];
}
const char* L1Machine::meaning(Action action) {
  static const char* const meanings[] = {
      "take a free way of the set for the line (a victim was replaced before if needed)",
      "Read to the home (requests vnet)",
      "RdEx to the home (requests vnet)",
      "Upgrade to the home (requests vnet)",
      "perform the core's access: a load copies the bytes out, a store in; completes a miss",
      "copy the message's data into the line",
      "compare the reply's data with the suspect copy: equal counts a hit (validated current), else a miss "
      "(stale); then install the reply's data",
      "Replace without data to the home (EXC)",
      "Replace with the dirty data to the home (MOD)",
      "move the line and its data to a write-back buffer entry, freeing the way",
      "free the way without telling the home (SHD/SUS); the line-lost observer is told",
      "AckData with the line's data (dirty if MOD) to the home (responses vnet)",
      "park the forward until the line's transaction ends (its data is already on its way)",
      "the access waits until the write-back entry of its line is freed",
      "the write-back buffer entry becomes free; a waiting access retries",
      "every SHD line becomes SUS in one step (the ways that became SHD since the last synchronisation)",
      "the home found the suspect copy's version current: keep the data, count a hit (validated current)"};
  return meanings[static_cast<unsigned>(action)];
}

const L1Table& l1_table() {
  using S = L1Machine::State;
  using E = L1Machine::Event;
  using A = L1Machine::Action;
  static const L1Table table(
      "NSI L1",
      {
          L1Table::row(S::kINV, E::kLoad, {A::kAllocate, A::kSendRead}, S::kIS_D),
          L1Table::row(S::kINV, E::kStore, {A::kAllocate, A::kSendRdEx}, S::kIM_D),
          L1Table::row(S::kINV, E::kMakeWritable, {A::kAllocate, A::kSendRdEx}, S::kIW_D),

          L1Table::row(S::kSHD, E::kLoad, {A::kPerform}, S::kSHD),
          L1Table::row(S::kSHD, E::kStore, {A::kSendRdEx}, S::kIM_D),
          L1Table::row(S::kSHD, E::kMakeWritable, {A::kSendRdEx}, S::kIW_D),
          L1Table::row(S::kSHD, E::kReplacement, {A::kDropSilently}, S::kINV),
          L1Table::row(S::kSHD, E::kSynchronise, {A::kFlashSuspect}, S::kSUS),

          L1Table::row(S::kSUS, E::kLoad, {A::kSendRead}, S::kSV_D),
          L1Table::row(S::kSUS, E::kStore, {A::kSendRdEx}, S::kIM_D),
          L1Table::row(S::kSUS, E::kMakeWritable, {A::kSendRdEx}, S::kIW_D),
          L1Table::row(S::kSUS, E::kReplacement, {A::kDropSilently}, S::kINV),

          L1Table::row(S::kEXC, E::kLoad, {A::kPerform}, S::kEXC),
          L1Table::row(S::kEXC, E::kStore, {A::kSendUpgrade}, S::kEM_A),
          L1Table::row(S::kEXC, E::kMakeWritable, {A::kSendUpgrade}, S::kEW_A),
          L1Table::row(S::kEXC, E::kReplacement, {A::kSendReplace, A::kMoveToWritebackBuffer}, S::kEI_A),
          L1Table::row(S::kEXC, E::kExcIntervention, {A::kSendAckData}, S::kSHD),

          L1Table::row(S::kMOD, E::kLoad, {A::kPerform}, S::kMOD),
          L1Table::row(S::kMOD, E::kStore, {A::kPerform}, S::kMOD),
          L1Table::row(S::kMOD, E::kMakeWritable, {A::kPerform}, S::kMOD_L),
          L1Table::row(S::kMOD, E::kReplacement, {A::kSendReplaceData, A::kMoveToWritebackBuffer}, S::kMI_A),
          L1Table::row(S::kMOD, E::kShdIntervention, {A::kSendAckData}, S::kEXC),
          L1Table::row(S::kMOD, E::kExcIntervention, {A::kSendAckData}, S::kSHD),

          L1Table::row(S::kMOD_L, E::kLoad, {A::kPerform}, S::kMOD_L),
          L1Table::row(S::kMOD_L, E::kStore, {A::kPerform}, S::kMOD),
          L1Table::row(S::kMOD_L, E::kMakeWritable, {A::kPerform}, S::kMOD_L),
          L1Table::row(S::kMOD_L, E::kUnlock, {}, S::kMOD),
          L1Table::row(S::kMOD_L, E::kShdIntervention, {A::kStallForward}, S::kMOD_L),
          L1Table::row(S::kMOD_L, E::kExcIntervention, {A::kStallForward}, S::kMOD_L),

          // While a Read is answered RepExc the home may already send this
          // L1, its new owner, an ExcIntervention (not a ShdIntervention:
          // the line is EXC at the home until this L1 upgrades).
          L1Table::row(S::kIS_D, E::kRepShd, {A::kInstallData, A::kPerform}, S::kSHD),
          L1Table::row(S::kIS_D, E::kRepExc, {A::kInstallData, A::kPerform}, S::kEXC),
          L1Table::row(S::kIS_D, E::kExcIntervention, {A::kStallForward}, S::kIS_D),

          L1Table::row(S::kSV_D, E::kRepShd, {A::kValidate, A::kPerform}, S::kSHD),
          L1Table::row(S::kSV_D, E::kRepExc, {A::kValidate, A::kPerform}, S::kEXC),
          L1Table::row(S::kSV_D, E::kRepValidShd, {A::kConfirmCurrent, A::kPerform}, S::kSHD),
          L1Table::row(S::kSV_D, E::kRepValidExc, {A::kConfirmCurrent, A::kPerform}, S::kEXC),
          L1Table::row(S::kSV_D, E::kExcIntervention, {A::kStallForward}, S::kSV_D),

          L1Table::row(S::kIM_D, E::kRepExc, {A::kInstallData, A::kPerform}, S::kMOD),
          L1Table::row(S::kIM_D, E::kShdIntervention, {A::kStallForward}, S::kIM_D),
          L1Table::row(S::kIM_D, E::kExcIntervention, {A::kStallForward}, S::kIM_D),

          L1Table::row(S::kIW_D, E::kRepExc, {A::kInstallData, A::kPerform}, S::kMOD_L),
          L1Table::row(S::kIW_D, E::kShdIntervention, {A::kStallForward}, S::kIW_D),
          L1Table::row(S::kIW_D, E::kExcIntervention, {A::kStallForward}, S::kIW_D),

          // An ExcIntervention before the AckChange: the home took the line
          // for another RdEx before it saw the Upgrade, which it will then
          // answer as a RdEx (RepExc with data).
          L1Table::row(S::kEM_A, E::kAckChange, {A::kPerform}, S::kMOD),
          L1Table::row(S::kEM_A, E::kExcIntervention, {A::kSendAckData}, S::kIM_D),
          L1Table::row(S::kEW_A, E::kAckChange, {A::kPerform}, S::kMOD_L),
          L1Table::row(S::kEW_A, E::kExcIntervention, {A::kSendAckData}, S::kIW_D),

          L1Table::row(S::kMI_A, E::kShdIntervention, {A::kSendAckData}, S::kEI_A),
          L1Table::row(S::kMI_A, E::kExcIntervention, {A::kSendAckData}, S::kII_A),
          L1Table::row(S::kMI_A, E::kAckChange, {A::kFreeWritebackEntry}, S::kINV),
          L1Table::row(S::kEI_A, E::kExcIntervention, {A::kSendAckData}, S::kII_A),
          L1Table::row(S::kEI_A, E::kAckChange, {A::kFreeWritebackEntry}, S::kINV),
          L1Table::row(S::kII_A, E::kAckChange, {A::kFreeWritebackEntry}, S::kINV),
          L1Table::row(S::kMI_A, E::kLoad, {A::kStallAccess}, S::kMI_A),
          L1Table::row(S::kMI_A, E::kStore, {A::kStallAccess}, S::kMI_A),
          L1Table::row(S::kMI_A, E::kMakeWritable, {A::kStallAccess}, S::kMI_A),
          L1Table::row(S::kEI_A, E::kLoad, {A::kStallAccess}, S::kEI_A),
          L1Table::row(S::kEI_A, E::kStore, {A::kStallAccess}, S::kEI_A),
          L1Table::row(S::kEI_A, E::kMakeWritable, {A::kStallAccess}, S::kEI_A),
          L1Table::row(S::kII_A, E::kLoad, {A::kStallAccess}, S::kII_A),
          L1Table::row(S::kII_A, E::kStore, {A::kStallAccess}, S::kII_A),
          L1Table::row(S::kII_A, E::kMakeWritable, {A::kStallAccess}, S::kII_A),
      });
  return table;
}

// ---- home names ----
const char* HomeMachine::name(State state) {
  static const char* const names[] = {"INV", "INV_D", "EXC", "MOD", "B_S", "B_X", "B_R"};
  return names[static_cast<unsigned>(state)];
}
const char* HomeMachine::meaning(State state) {
  static const char* const meanings[] = {
      "not present in the LLC",
      "allocated, MemoryRead sent, waiting for MemoryData",
      "in the LLC with current data; owner = the L1 holding it EXC, or none (-1)",
      "in the LLC; the owner L1 may hold newer data",
      "ShdIntervention sent to the owner for a Read, waiting for AckData",
      "ExcIntervention sent to the owner for a RdEx, waiting for AckData",
      "LLC eviction: owner recalled with an ExcIntervention, waiting for AckData"};
  return meanings[static_cast<unsigned>(state)];
}
const char* HomeMachine::name(Event event) {
  static const char* const names[] = {"Read",         "ReadOwned",    "RdEx",         "RdExOwned",   "Upgrade",
                                      "RequestFromOwner", "Replace",  "ReplaceOwner", "ReplaceStale",
                                      "AckData",      "MemoryData",   "Evict",        "EvictOwned",
                                      "ReadCurrent",  "ReadCurrentOwned"};
  return names[static_cast<unsigned>(event)];
}
const char* HomeMachine::meaning(Event event) {
  static const char* const meanings[] = {
      "a Read of a line without owner (busy line: any Read)",
      "a Read of a line with an owner (another L1)",
      "a RdEx of a line without owner, or an Upgrade from an L1 that is no longer the owner (busy line: any)",
      "a RdEx (or stale Upgrade) of a line owned by another L1",
      "an Upgrade from the owner",
      "a Read or RdEx from the line's owner (cannot happen: an owner hits, or upgrades)",
      "a Replace while the line is busy",
      "a Replace from the owner (with data if it was MOD)",
      "a Replace from an L1 that is no longer the owner (an intervention crossed it)",
      "the owner's data, answering an intervention",
      "the line's data from memory",
      "the line without owner is the LLC's victim for a fill into its set",
      "the owned line is the LLC's victim for a fill into its set",
      "a validation Read whose copy has the line's version, line without owner (stable EXC only)",
      "a validation Read whose copy has the line's version, line owned by another L1 (stable EXC only)"};
  return meanings[static_cast<unsigned>(event)];
}
const char* HomeMachine::name(Action action) {
  static const char* const names[] = {
      "allocate",       "fetch from memory",    "stall",                "install memory data",
      "record request", "send RepExc",          "send RepShd",          "send AckChange",
      "make owner",     "clear owner",          "send ShdIntervention", "send ExcIntervention",
      "recall owner",   "write AckData",        "write Replace data",   "write back",
      "new version",    "send RepValidShd",     "send RepValidExc"};
  return names[static_cast<unsigned>(action)];
}
const char* HomeMachine::meaning(Action action) {
  static const char* const meanings[] = {
      "take a free way for the line (a victim was evicted before if needed; else the request stalls)",
      "MemoryRead to the line's memory controller",
      "the request waits at the home (per line, in arrival order) and is handled again when the line is stable",
      "copy MemoryData into the LLC line (clean), no owner",
      "remember the requester of the transaction",
      "RepExc with the LLC data and its version to the requester (or the recorded one)",
      "RepShd with the LLC data and its version to the requester (or the recorded one)",
      "AckChange to the sender (forwards vnet)",
      "the requester (or the recorded one) becomes the owner",
      "no owner (-1)",
      "ShdIntervention to the owner",
      "ExcIntervention to the owner",
      "ExcIntervention to the owner for the LLC eviction; no owner",
      "copy the AckData into the LLC line (dirty if the owner's was)",
      "copy the Replace's data, if any, into the LLC line (dirty)",
      "MemoryWrite of the line if it is dirty; the way becomes free",
      "the line gets a fresh version (the bank's next): copies of older versions are no longer current",
      "RepValidShd (no data: the requester's copy is current) to the requester",
      "RepValidExc (no data: the requester's copy is current, it becomes the owner) to the requester"};
  return meanings[static_cast<unsigned>(action)];
}

const HomeTable& home_table() {
  using S = HomeMachine::State;
  using E = HomeMachine::Event;
  using A = HomeMachine::Action;
  static const HomeTable table = [] {
    HomeTable result(
        "NSI home",
        {
            HomeTable::row(S::kINV, E::kRead, {A::kAllocate, A::kFetchFromMemory, A::kStall}, S::kINV_D),
            HomeTable::row(S::kINV, E::kRdEx, {A::kAllocate, A::kFetchFromMemory, A::kStall}, S::kINV_D),
            HomeTable::row(S::kINV, E::kReplaceStale, {A::kSendAckChange}, S::kINV),
            HomeTable::row(S::kINV_D, E::kMemoryData, {A::kInstallMemoryData, A::kNewVersion}, S::kEXC),

            HomeTable::row(S::kEXC, E::kRead, {A::kSendRepExc, A::kMakeOwner}, S::kEXC),
            HomeTable::row(S::kEXC, E::kReadOwned, {A::kSendRepShd}, S::kEXC),
            HomeTable::row(S::kEXC, E::kReadCurrent, {A::kSendRepValidExc, A::kMakeOwner}, S::kEXC),
            HomeTable::row(S::kEXC, E::kReadCurrentOwned, {A::kSendRepValidShd}, S::kEXC),
            HomeTable::row(S::kEXC, E::kRdEx, {A::kNewVersion, A::kSendRepExc, A::kMakeOwner}, S::kMOD),
            HomeTable::row(S::kEXC, E::kRdExOwned, {A::kRecordRequest, A::kSendExcIntervention}, S::kB_X),
            HomeTable::row(S::kEXC, E::kUpgrade, {A::kNewVersion, A::kSendAckChange}, S::kMOD),
            HomeTable::row(S::kEXC, E::kReplaceOwner, {A::kWriteReplaceData, A::kClearOwner, A::kSendAckChange},
                           S::kEXC),
            HomeTable::row(S::kEXC, E::kReplaceStale, {A::kSendAckChange}, S::kEXC),
            HomeTable::row(S::kEXC, E::kEvict, {A::kWriteBack}, S::kINV),
            HomeTable::row(S::kEXC, E::kEvictOwned, {A::kRecallOwner}, S::kB_R),

            HomeTable::row(S::kMOD, E::kReadOwned, {A::kRecordRequest, A::kSendShdIntervention}, S::kB_S),
            HomeTable::row(S::kMOD, E::kRdExOwned, {A::kRecordRequest, A::kSendExcIntervention}, S::kB_X),
            HomeTable::row(S::kMOD, E::kReplaceOwner, {A::kWriteReplaceData, A::kClearOwner, A::kSendAckChange},
                           S::kEXC),
            HomeTable::row(S::kMOD, E::kReplaceStale, {A::kSendAckChange}, S::kMOD),
            HomeTable::row(S::kMOD, E::kEvictOwned, {A::kRecallOwner}, S::kB_R),

            HomeTable::row(S::kB_S, E::kAckData, {A::kWriteAckData, A::kSendRepShd}, S::kEXC),
            HomeTable::row(S::kB_X, E::kAckData, {A::kWriteAckData, A::kNewVersion, A::kSendRepExc, A::kMakeOwner},
                           S::kMOD),
            HomeTable::row(S::kB_R, E::kAckData, {A::kWriteAckData, A::kWriteBack}, S::kINV),
        });
    // A busy line: every request waits.
    for (S busy : {S::kINV_D, S::kB_S, S::kB_X, S::kB_R})
      for (E request : {E::kRead, E::kReadOwned, E::kRdEx, E::kRdExOwned, E::kUpgrade, E::kReplace})
        result.add(HomeTable::row(busy, request, {A::kStall}, busy));
    return result;
  }();
  return table;
}

namespace {

std::uint64_t periodic_cycles(const ProtocolOptions& options) {
  const auto it = options.find(kPeriodicSynchronisationParameter);
  return it == options.end() ? kDefaultPeriodicSynchronisationCycles : it->second;
}
std::unique_ptr<L1Controller> make_l1_with_options(unsigned tile, const Geometry& geometry, const CacheShape& shape,
                                                   Environment& environment, const ProtocolOptions& options) {
  return std::make_unique<L1>(tile, geometry, shape, environment, periodic_cycles(options));
}
std::string tables_markdown() { return controller_tables_markdown("NSI", l1_table(), home_table()); }

}  // namespace

Protocol protocol() {
  Protocol result = protocol_entry<L1, Home>(
      "nsi",
      "NSI: no sharer list (owner only), no invalidations; cores self-invalidate (SHD -> SUS) at synchronisations",
      kMessageTypes, &message_name, &tables_markdown);
  result.parameters.push_back(
      {kPeriodicSynchronisationParameter, kDefaultPeriodicSynchronisationCycles, "cycles",
       "NSI: each L1 self-invalidates (SHD -> SUS) at least this often, so spin loops on plain loads end; 0 = never"});
  result.make_l1_with_options = &make_l1_with_options;
  return result;
}

}  // namespace npuvp::coherence::nsi
