// The MSI tables: message names, the states, events and actions with their
// meanings, the transition rows the controllers execute, and the registry
// entry.
#include "coherence/memory_controller.h"
#include "coherence/msi/msi.h"

namespace npuvp::coherence::msi {

std::string message_name(unsigned type) {
  if (const char* memory = memory_message_name(type)) return memory;
  static const char* const names[] = {"Read",    "RdEx",    "Replace", "Invalidation", "Ack",      "ShdIntervention",
                                      "ExcIntervention", "AckData", "RepShd", "RepExc", "AckChange"};
  if (type >= kFirstProtocolMessage && type < kMessageTypes) return names[type - kFirstProtocolMessage];
  return "?";
}

VirtualNetwork virtual_network_of(unsigned type) {
  switch (type) {
    case kRead: case kRdEx: case kReplace: return VirtualNetwork::kRequest;
    case kInvalidation: case kShdIntervention: case kExcIntervention: return VirtualNetwork::kForward;
    default: return VirtualNetwork::kResponse;
  }
}

// ---- L1 ----
const char* L1Machine::name(State state) {
  static const char* const names[] = {"I", "S", "M", "M_L", "IS_D", "IM_D", "IW_D", "SI_A", "MI_A", "II_A"};
  return names[static_cast<unsigned>(state)];
}
const char* L1Machine::meaning(State state) {
  static const char* const meanings[] = {
      "invalid: not in this cache",
      "shared: readable, other L1s may hold it",
      "modified: the only copy, readable and writable (no E: a load miss always gets S)",
      "M locked by kMakeWritable: forwards wait for the atomic's store",
      "load miss: Read sent, waiting for RepShd",
      "store miss (or store to S, whose data is not kept): RdEx sent, waiting for RepExc",
      "make-writable miss (or on S): RdEx sent, waiting for RepExc",
      "evicted S (or M downgraded by a ShdIntervention meanwhile): Replace sent, waiting for AckChange (keeps its way)",
      "evicted M: Replace with the data sent, waiting for AckChange (keeps its way, answers forwards)",
      "evicted, copy given away to a forward meanwhile: waiting for AckChange"};
  return meanings[static_cast<unsigned>(state)];
}
const char* L1Machine::name(Event event) {
  static const char* const names[] = {"Load",       "Store",        "MakeWritable", "Replacement",
                                      "Unlock",     "Invalidation", "ShdIntervention", "ExcIntervention",
                                      "RepShd",     "RepExc",       "AckChange"};
  return names[static_cast<unsigned>(event)];
}
const char* L1Machine::meaning(Event event) {
  static const char* const meanings[] = {
      "the core loads from the line",
      "the core stores to the line",
      "the core asks for write permission (before an AMO or SC)",
      "the line is the victim of a fill into its set",
      "the core's atomic is over (access to another line, or synchronise)",
      "the home removes this read-only copy",
      "the home asks the owner for the data; the owner keeps a read-only copy",
      "the home asks the owner for the data; the owner gives the line up",
      "shared data from the home",
      "exclusive data from the home",
      "the home acknowledges a Replace"};
  return meanings[static_cast<unsigned>(event)];
}
const char* L1Machine::name(Action action) {
  static const char* const names[] = {"allocate",  "send Read",    "send RdEx",    "perform",
                                      "install data", "send Replace", "send Replace+data", "send Ack",
                                      "send AckData", "drop line", "stall forward"};
  return names[static_cast<unsigned>(action)];
}
const char* L1Machine::meaning(Action action) {
  static const char* const meanings[] = {
      "take a free way of the set for the line (a victim was replaced before if needed)",
      "Read to the home (requests vnet)",
      "RdEx to the home (requests vnet)",
      "perform the core's access: a load copies the bytes out, a store in; completes a miss",
      "copy the message's data into the line",
      "Replace without data to the home",
      "Replace with the dirty data to the home",
      "Ack to the home (responses vnet)",
      "AckData with the line's data (dirty) to the home (responses vnet)",
      "the core's copy is gone: tell the line-lost observer (drops an LR reservation)",
      "park the forward until the line's transaction ends (it overtook the data, or the line is locked)"};
  return meanings[static_cast<unsigned>(action)];
}

const L1Table& l1_table() {
  using S = L1Machine::State;
  using E = L1Machine::Event;
  using A = L1Machine::Action;
  static const L1Table table = [] {
    L1Table result(
        "MSI L1",
        {
            L1Table::row(S::kI, E::kLoad, {A::kAllocate, A::kSendRead}, S::kIS_D),
            L1Table::row(S::kI, E::kStore, {A::kAllocate, A::kSendRdEx}, S::kIM_D),
            L1Table::row(S::kI, E::kMakeWritable, {A::kAllocate, A::kSendRdEx}, S::kIW_D),

            L1Table::row(S::kS, E::kLoad, {A::kPerform}, S::kS),
            // The S data is not kept, but the core has not lost the line
            // yet (an LR's reservation stays): only an Invalidation ends it.
            L1Table::row(S::kS, E::kStore, {A::kSendRdEx}, S::kIM_D),
            L1Table::row(S::kS, E::kMakeWritable, {A::kSendRdEx}, S::kIW_D),
            L1Table::row(S::kS, E::kReplacement, {A::kDropLine, A::kSendReplace}, S::kSI_A),
            L1Table::row(S::kS, E::kInvalidation, {A::kSendAck, A::kDropLine}, S::kI),

            L1Table::row(S::kM, E::kLoad, {A::kPerform}, S::kM),
            L1Table::row(S::kM, E::kStore, {A::kPerform}, S::kM),
            L1Table::row(S::kM, E::kMakeWritable, {A::kPerform}, S::kM_L),
            L1Table::row(S::kM, E::kReplacement, {A::kDropLine, A::kSendReplaceData}, S::kMI_A),
            L1Table::row(S::kM, E::kShdIntervention, {A::kSendAckData}, S::kS),
            L1Table::row(S::kM, E::kExcIntervention, {A::kSendAckData, A::kDropLine}, S::kI),

            L1Table::row(S::kM_L, E::kLoad, {A::kPerform}, S::kM_L),
            L1Table::row(S::kM_L, E::kMakeWritable, {A::kPerform}, S::kM_L),
            L1Table::row(S::kM_L, E::kStore, {A::kPerform}, S::kM),
            L1Table::row(S::kM_L, E::kUnlock, {}, S::kM),

            L1Table::row(S::kIS_D, E::kRepShd, {A::kInstallData, A::kPerform}, S::kS),
            L1Table::row(S::kIM_D, E::kRepExc, {A::kInstallData, A::kPerform}, S::kM),
            L1Table::row(S::kIW_D, E::kRepExc, {A::kInstallData, A::kPerform}, S::kM_L),
            // The Invalidation of the S copy given up when the RdEx left.
            L1Table::row(S::kIM_D, E::kInvalidation, {A::kSendAck, A::kDropLine}, S::kIM_D),
            L1Table::row(S::kIW_D, E::kInvalidation, {A::kSendAck, A::kDropLine}, S::kIW_D),

            L1Table::row(S::kSI_A, E::kInvalidation, {A::kSendAck}, S::kII_A),
            // The home now counts this L1 as a sharer: the Replace on its way ends that.
            L1Table::row(S::kMI_A, E::kShdIntervention, {A::kSendAckData}, S::kSI_A),
            L1Table::row(S::kMI_A, E::kExcIntervention, {A::kSendAckData}, S::kII_A),
        });
    // No access meets an evicting line: the access that evicted it waits for
    // this AckChange (the line keeps its way), and is the core's only one.
    for (S evicted : {S::kSI_A, S::kMI_A, S::kII_A}) result.add(L1Table::row(evicted, E::kAckChange, {}, S::kI));
    // A forward that overtook the data on its way here (the home sent the
    // data first), or that meets an atomic's lock, waits.
    result.add(L1Table::row(S::kIS_D, E::kInvalidation, {A::kStallForward}, S::kIS_D));
    for (S waiting : {S::kM_L, S::kIM_D, S::kIW_D})
      for (E forward : {E::kShdIntervention, E::kExcIntervention})
        result.add(L1Table::row(waiting, forward, {A::kStallForward}, waiting));
    return result;
  }();
  return table;
}

// ---- home ----
const char* HomeMachine::name(State state) {
  static const char* const names[] = {"NP", "NP_D", "SHD", "MOD", "SHD_A", "MOD_D", "MOD_X", "SHD_R", "MOD_R"};
  return names[static_cast<unsigned>(state)];
}
const char* HomeMachine::meaning(State state) {
  static const char* const meanings[] = {
      "not present in the LLC",
      "allocated, MemoryRead sent, waiting for MemoryData",
      "in the LLC, read-only in the L1s of the sharer mask (possibly none)",
      "held M by one L1, the owner; the LLC data may be stale",
      "RdEx: invalidating the other sharers, counting Acks",
      "Read: ShdIntervention sent to the owner, waiting for AckData",
      "RdEx: ExcIntervention sent to the owner, waiting for AckData",
      "LLC eviction (inclusion): invalidating every sharer, counting Acks",
      "LLC eviction (inclusion): owner recalled, waiting for AckData"};
  return meanings[static_cast<unsigned>(state)];
}
const char* HomeMachine::name(Event event) {
  static const char* const names[] = {"Read",    "RdEx",        "RdExAlone",     "RequestFromOwner",
                                      "Replace", "ReplaceOwner", "ReplaceSharer", "ReplaceStale",
                                      "Ack",     "LastAck",     "AckData",       "MemoryData",
                                      "Evict",   "EvictUnshared"};
  return names[static_cast<unsigned>(event)];
}
const char* HomeMachine::meaning(Event event) {
  static const char* const meanings[] = {
      "a Read",
      "a RdEx while other L1s hold the line",
      "a RdEx while no other L1 holds the line (the requester may be its last sharer)",
      "a Read/RdEx from the line's owner (cannot happen: an owner evicts, and waits, before asking again)",
      "a Replace while the line is busy",
      "a Replace from the owner, with the data",
      "a Replace from a sharer",
      "a Replace from an L1 that no longer holds the line here (a forward took its copy meanwhile)",
      "an Ack, more expected",
      "the last expected Ack",
      "the owner's data, answering an intervention",
      "the line's data from memory",
      "the line, held by L1s, is the LLC's victim for a fill into its set",
      "the line, held by no L1, is the LLC's victim"};
  return meanings[static_cast<unsigned>(event)];
}
const char* HomeMachine::name(Action action) {
  static const char* const names[] = {
      "allocate",    "fetch from memory", "stall",       "install memory data", "record request",
      "send RepShd", "send RepExc",       "send AckChange", "add sharer",       "remove sharer",
      "make owner",  "owner and requester share", "invalidate other sharers", "invalidate all sharers",
      "send ShdIntervention", "send ExcIntervention", "count Ack", "write data", "write back"};
  return names[static_cast<unsigned>(action)];
}
const char* HomeMachine::meaning(Action action) {
  static const char* const meanings[] = {
      "take a free way for the line (a victim was evicted before if needed; else the request stalls)",
      "MemoryRead to the line's memory controller",
      "the request waits at the home (per line, in arrival order) and is handled again when the line is stable",
      "copy MemoryData into the LLC line (clean)",
      "remember the requester of the transaction",
      "RepShd with the LLC data to the requester",
      "RepExc with the LLC data to the requester",
      "AckChange to the sender of the Replace",
      "add the requester to the sharer mask",
      "remove the sender from the sharer mask",
      "the requester becomes the owner, no sharers",
      "the former owner (the AckData's sender) and the requester become the sharers",
      "Invalidation to every sharer but the requester; expect as many Acks",
      "Invalidation to every sharer; expect as many Acks",
      "ShdIntervention to the owner",
      "ExcIntervention to the owner (for a RdEx, or to recall the line)",
      "one Ack fewer expected",
      "copy the AckData's or Replace's data, if any, into the LLC line (dirty); no owner any more",
      "MemoryWrite of the line if it is dirty; the way becomes free"};
  return meanings[static_cast<unsigned>(action)];
}

const HomeTable& home_table() {
  using S = HomeMachine::State;
  using E = HomeMachine::Event;
  using A = HomeMachine::Action;
  static const HomeTable table = [] {
    HomeTable result(
        "MSI home",
        {
            HomeTable::row(S::kNP, E::kRead, {A::kAllocate, A::kFetchFromMemory, A::kStall}, S::kNP_D),
            HomeTable::row(S::kNP, E::kRdExAlone, {A::kAllocate, A::kFetchFromMemory, A::kStall}, S::kNP_D),
            HomeTable::row(S::kNP, E::kReplaceStale, {A::kSendAckChange}, S::kNP),
            HomeTable::row(S::kNP_D, E::kMemoryData, {A::kInstallMemoryData}, S::kSHD),

            HomeTable::row(S::kSHD, E::kRead, {A::kSendRepShd, A::kAddSharer}, S::kSHD),
            HomeTable::row(S::kSHD, E::kRdEx, {A::kRecordRequest, A::kInvalidateOtherSharers}, S::kSHD_A),
            HomeTable::row(S::kSHD, E::kRdExAlone, {A::kSendRepExc, A::kMakeOwner}, S::kMOD),
            HomeTable::row(S::kSHD, E::kReplaceSharer, {A::kRemoveSharer, A::kSendAckChange}, S::kSHD),
            HomeTable::row(S::kSHD, E::kReplaceStale, {A::kSendAckChange}, S::kSHD),
            HomeTable::row(S::kSHD, E::kEvict, {A::kInvalidateAllSharers}, S::kSHD_R),
            HomeTable::row(S::kSHD, E::kEvictUnshared, {A::kWriteBack}, S::kNP),

            HomeTable::row(S::kMOD, E::kRead, {A::kRecordRequest, A::kSendShdIntervention}, S::kMOD_D),
            HomeTable::row(S::kMOD, E::kRdEx, {A::kRecordRequest, A::kSendExcIntervention}, S::kMOD_X),
            HomeTable::row(S::kMOD, E::kReplaceOwner, {A::kWriteData, A::kSendAckChange}, S::kSHD),
            HomeTable::row(S::kMOD, E::kReplaceStale, {A::kSendAckChange}, S::kMOD),
            HomeTable::row(S::kMOD, E::kEvict, {A::kSendExcIntervention}, S::kMOD_R),

            HomeTable::row(S::kSHD_A, E::kAck, {A::kCountAck}, S::kSHD_A),
            HomeTable::row(S::kSHD_A, E::kLastAck, {A::kCountAck, A::kSendRepExc, A::kMakeOwner}, S::kMOD),
            HomeTable::row(S::kMOD_D, E::kAckData, {A::kWriteData, A::kSendRepShd, A::kOwnerAndRequesterShare},
                           S::kSHD),
            HomeTable::row(S::kMOD_X, E::kAckData, {A::kWriteData, A::kSendRepExc, A::kMakeOwner}, S::kMOD),
            HomeTable::row(S::kSHD_R, E::kAck, {A::kCountAck}, S::kSHD_R),
            HomeTable::row(S::kSHD_R, E::kLastAck, {A::kCountAck, A::kWriteBack}, S::kNP),
            HomeTable::row(S::kMOD_R, E::kAckData, {A::kWriteData, A::kWriteBack}, S::kNP),
        });
    // A busy line: every request waits.
    for (S busy : {S::kNP_D, S::kSHD_A, S::kMOD_D, S::kMOD_X, S::kSHD_R, S::kMOD_R})
      for (E request : {E::kRead, E::kRdEx, E::kReplace})
        result.add(HomeTable::row(busy, request, {A::kStall}, busy));
    return result;
  }();
  return table;
}

namespace {

std::string tables_markdown() { return controller_tables_markdown("MSI", l1_table(), home_table()); }

}  // namespace

Protocol protocol() {
  return protocol_entry<L1, Home>(
      "msi",
      "full-map directory MSI (no E state), the worked example of adding a protocol",
      kMessageTypes, &message_name, &tables_markdown);
}

}  // namespace npuvp::coherence::msi
