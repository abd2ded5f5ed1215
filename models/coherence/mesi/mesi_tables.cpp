// The MESI tables: names, meanings and the transition rows the controllers
// execute (mesi_l1.cpp, mesi_home.cpp).
#include "coherence/memory_controller.h"
#include "coherence/mesi/mesi.h"

namespace npuvp::coherence::mesi {

std::string message_name(unsigned type) {
  if (const char* memory = memory_message_name(type)) return memory;
  static const char* const names[] = {"Read",    "RdEx",   "Upgrade", "Replace", "Invalidation", "Ack",
                                      "ShdIntervention", "ExcIntervention", "AckData", "RepShd", "RepExc",
                                      "AckChange"};
  if (type >= kFirstProtocolMessage && type < kMessageTypes) return names[type - kFirstProtocolMessage];
  return "?";
}

VirtualNetwork virtual_network_of(unsigned type) {
  switch (type) {
    case kRead: case kRdEx: case kUpgrade: case kReplace: case kMemoryRead: case kMemoryWrite:
      return VirtualNetwork::kRequest;
    case kInvalidation: case kShdIntervention: case kExcIntervention:
      return VirtualNetwork::kForward;
    default:
      return VirtualNetwork::kResponse;
  }
}

// ---- L1 names ----
const char* L1Machine::name(State state) {
  static const char* const names[] = {"I", "S", "E", "M", "E_L", "M_L", "IS_D", "IM_D", "IW_D",
                                      "SM_A", "SW_A", "MI_A", "EI_A", "SI_A", "II_A"};
  return names[static_cast<unsigned>(state)];
}
const char* L1Machine::meaning(State state) {
  static const char* const meanings[] = {
      "invalid: not in this cache",
      "shared: readable, other L1s may hold it",
      "exclusive: the only copy, clean; writable (E -> M silently)",
      "modified: the only copy, dirty",
      "E locked by kMakeWritable: forwards wait for the atomic's store",
      "M locked by kMakeWritable: forwards wait for the atomic's store",
      "load miss: Read sent, waiting for RepShd/RepExc",
      "store miss: RdEx sent, waiting for RepExc",
      "make-writable miss: RdEx sent, waiting for RepExc",
      "store to S: Upgrade sent, waiting for AckChange (data still valid)",
      "make-writable on S: Upgrade sent, waiting for AckChange",
      "evicted M: Replace with data sent, in the write-back buffer, waiting for AckChange",
      "evicted E: Replace sent, in the write-back buffer, waiting for AckChange",
      "evicted S (or downgraded while evicting): waiting for AckChange",
      "evicted, copy given away (AckData/Ack sent): waiting for AckChange"};
  return meanings[static_cast<unsigned>(state)];
}
const char* L1Machine::name(Event event) {
  static const char* const names[] = {"Load", "Store", "MakeWritable", "Replacement", "Unlock", "Invalidation",
                                      "ShdIntervention", "ExcIntervention", "RepShd", "RepExc", "AckChange"};
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
      "the home acknowledges an Upgrade (write permission) or a Replace"};
  return meanings[static_cast<unsigned>(event)];
}
const char* L1Machine::name(Action action) {
  static const char* const names[] = {"allocate", "send Read", "send RdEx", "send Upgrade", "perform",
                                      "install data", "send Replace", "send Replace+data", "move to write-back buffer",
                                      "send Ack", "send AckData", "drop line", "stall forward", "stall access",
                                      "free write-back entry"};
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
      "Replace without data to the home (S or clean E)",
      "Replace with the dirty data to the home",
      "move the line and its data to a write-back buffer entry, freeing the way",
      "Ack to the home (responses vnet)",
      "AckData with the line's data (dirty if M) to the home (responses vnet)",
      "the copy is gone: tell the line-lost observer (drops an LR reservation)",
      "park the forward until the line's transaction ends (its data is already on its way)",
      "the access waits until the write-back entry of its line is freed",
      "the write-back buffer entry becomes free; a waiting access retries"};
  return meanings[static_cast<unsigned>(action)];
}

const L1Table& l1_table() {
  using S = L1Machine::State;
  using E = L1Machine::Event;
  using A = L1Machine::Action;
  static const L1Table table(
      "MESI L1",
      {
          L1Table::row(S::kI, E::kLoad, {A::kAllocate, A::kSendRead}, S::kIS_D),
          L1Table::row(S::kI, E::kStore, {A::kAllocate, A::kSendRdEx}, S::kIM_D),
          L1Table::row(S::kI, E::kMakeWritable, {A::kAllocate, A::kSendRdEx}, S::kIW_D),

          L1Table::row(S::kS, E::kLoad, {A::kPerform}, S::kS),
          L1Table::row(S::kS, E::kStore, {A::kSendUpgrade}, S::kSM_A),
          L1Table::row(S::kS, E::kMakeWritable, {A::kSendUpgrade}, S::kSW_A),
          L1Table::row(S::kS, E::kReplacement, {A::kSendReplace, A::kMoveToWritebackBuffer}, S::kSI_A),
          L1Table::row(S::kS, E::kInvalidation, {A::kSendAck, A::kDropLine}, S::kI),

          L1Table::row(S::kE, E::kLoad, {A::kPerform}, S::kE),
          L1Table::row(S::kE, E::kStore, {A::kPerform}, S::kM),
          L1Table::row(S::kE, E::kMakeWritable, {A::kPerform}, S::kE_L),
          L1Table::row(S::kE, E::kReplacement, {A::kSendReplace, A::kMoveToWritebackBuffer}, S::kEI_A),
          L1Table::row(S::kE, E::kShdIntervention, {A::kSendAckData}, S::kS),
          L1Table::row(S::kE, E::kExcIntervention, {A::kSendAckData, A::kDropLine}, S::kI),

          L1Table::row(S::kM, E::kLoad, {A::kPerform}, S::kM),
          L1Table::row(S::kM, E::kStore, {A::kPerform}, S::kM),
          L1Table::row(S::kM, E::kMakeWritable, {A::kPerform}, S::kM_L),
          L1Table::row(S::kM, E::kReplacement, {A::kSendReplaceData, A::kMoveToWritebackBuffer}, S::kMI_A),
          L1Table::row(S::kM, E::kShdIntervention, {A::kSendAckData}, S::kS),
          L1Table::row(S::kM, E::kExcIntervention, {A::kSendAckData, A::kDropLine}, S::kI),

          L1Table::row(S::kE_L, E::kLoad, {A::kPerform}, S::kE_L),
          L1Table::row(S::kE_L, E::kStore, {A::kPerform}, S::kM),
          L1Table::row(S::kE_L, E::kMakeWritable, {A::kPerform}, S::kE_L),
          L1Table::row(S::kE_L, E::kUnlock, {}, S::kE),
          L1Table::row(S::kE_L, E::kShdIntervention, {A::kStallForward}, S::kE_L),
          L1Table::row(S::kE_L, E::kExcIntervention, {A::kStallForward}, S::kE_L),

          L1Table::row(S::kM_L, E::kLoad, {A::kPerform}, S::kM_L),
          L1Table::row(S::kM_L, E::kStore, {A::kPerform}, S::kM),
          L1Table::row(S::kM_L, E::kMakeWritable, {A::kPerform}, S::kM_L),
          L1Table::row(S::kM_L, E::kUnlock, {}, S::kM),
          L1Table::row(S::kM_L, E::kShdIntervention, {A::kStallForward}, S::kM_L),
          L1Table::row(S::kM_L, E::kExcIntervention, {A::kStallForward}, S::kM_L),

          L1Table::row(S::kIS_D, E::kRepShd, {A::kInstallData, A::kPerform}, S::kS),
          L1Table::row(S::kIS_D, E::kRepExc, {A::kInstallData, A::kPerform}, S::kE),
          L1Table::row(S::kIS_D, E::kInvalidation, {A::kStallForward}, S::kIS_D),
          L1Table::row(S::kIS_D, E::kShdIntervention, {A::kStallForward}, S::kIS_D),
          L1Table::row(S::kIS_D, E::kExcIntervention, {A::kStallForward}, S::kIS_D),

          L1Table::row(S::kIM_D, E::kRepExc, {A::kInstallData, A::kPerform}, S::kM),
          L1Table::row(S::kIM_D, E::kShdIntervention, {A::kStallForward}, S::kIM_D),
          L1Table::row(S::kIM_D, E::kExcIntervention, {A::kStallForward}, S::kIM_D),

          L1Table::row(S::kIW_D, E::kRepExc, {A::kInstallData, A::kPerform}, S::kE_L),
          L1Table::row(S::kIW_D, E::kShdIntervention, {A::kStallForward}, S::kIW_D),
          L1Table::row(S::kIW_D, E::kExcIntervention, {A::kStallForward}, S::kIW_D),

          L1Table::row(S::kSM_A, E::kAckChange, {A::kPerform}, S::kM),
          L1Table::row(S::kSM_A, E::kInvalidation, {A::kSendAck, A::kDropLine}, S::kIM_D),
          L1Table::row(S::kSM_A, E::kShdIntervention, {A::kStallForward}, S::kSM_A),
          L1Table::row(S::kSM_A, E::kExcIntervention, {A::kStallForward}, S::kSM_A),
          L1Table::row(S::kSW_A, E::kAckChange, {A::kPerform}, S::kE_L),
          L1Table::row(S::kSW_A, E::kShdIntervention, {A::kStallForward}, S::kSW_A),
          L1Table::row(S::kSW_A, E::kExcIntervention, {A::kStallForward}, S::kSW_A),
          L1Table::row(S::kSW_A, E::kInvalidation, {A::kSendAck, A::kDropLine}, S::kIW_D),

          L1Table::row(S::kMI_A, E::kShdIntervention, {A::kSendAckData}, S::kSI_A),
          L1Table::row(S::kMI_A, E::kExcIntervention, {A::kSendAckData}, S::kII_A),
          L1Table::row(S::kMI_A, E::kAckChange, {A::kFreeWritebackEntry}, S::kI),
          L1Table::row(S::kEI_A, E::kShdIntervention, {A::kSendAckData}, S::kSI_A),
          L1Table::row(S::kEI_A, E::kExcIntervention, {A::kSendAckData}, S::kII_A),
          L1Table::row(S::kEI_A, E::kAckChange, {A::kFreeWritebackEntry}, S::kI),
          L1Table::row(S::kSI_A, E::kInvalidation, {A::kSendAck}, S::kII_A),
          L1Table::row(S::kSI_A, E::kAckChange, {A::kFreeWritebackEntry}, S::kI),
          L1Table::row(S::kII_A, E::kAckChange, {A::kFreeWritebackEntry}, S::kI),
          L1Table::row(S::kMI_A, E::kLoad, {A::kStallAccess}, S::kMI_A),
          L1Table::row(S::kMI_A, E::kStore, {A::kStallAccess}, S::kMI_A),
          L1Table::row(S::kMI_A, E::kMakeWritable, {A::kStallAccess}, S::kMI_A),
          L1Table::row(S::kEI_A, E::kLoad, {A::kStallAccess}, S::kEI_A),
          L1Table::row(S::kEI_A, E::kStore, {A::kStallAccess}, S::kEI_A),
          L1Table::row(S::kEI_A, E::kMakeWritable, {A::kStallAccess}, S::kEI_A),
          L1Table::row(S::kSI_A, E::kLoad, {A::kStallAccess}, S::kSI_A),
          L1Table::row(S::kSI_A, E::kStore, {A::kStallAccess}, S::kSI_A),
          L1Table::row(S::kSI_A, E::kMakeWritable, {A::kStallAccess}, S::kSI_A),
          L1Table::row(S::kII_A, E::kLoad, {A::kStallAccess}, S::kII_A),
          L1Table::row(S::kII_A, E::kStore, {A::kStallAccess}, S::kII_A),
          L1Table::row(S::kII_A, E::kMakeWritable, {A::kStallAccess}, S::kII_A),
      });
  return table;
}

// ---- home names ----
const char* HomeMachine::name(State state) {
  static const char* const names[] = {"NP", "NP_D", "IDLE", "SHD", "EXC", "SHD_A", "EXC_D", "EXC_X", "SHD_R", "EXC_R"};
  return names[static_cast<unsigned>(state)];
}
const char* HomeMachine::meaning(State state) {
  static const char* const meanings[] = {
      "not present in the LLC",
      "allocated, MemoryRead sent, waiting for MemoryData",
      "in the LLC, in no L1",
      "in the LLC and read-only (S) in the L1s of the sharer mask",
      "held E or M by one L1, the owner; the LLC data may be stale",
      "invalidating the sharers for a RdEx/Upgrade, counting Acks",
      "ShdIntervention sent to the owner for a Read, waiting for AckData",
      "ExcIntervention sent to the owner for a RdEx, waiting for AckData",
      "LLC eviction (inclusion): invalidating all sharers, counting Acks",
      "LLC eviction (inclusion): owner recalled, waiting for AckData"};
  return meanings[static_cast<unsigned>(state)];
}
const char* HomeMachine::name(Event event) {
  static const char* const names[] = {"Read",    "RdEx",         "Upgrade",       "UpgradeSole",
                                      "RequestFromOwner", "RequestFromSharer", "Replace", "ReplaceOwner",
                                      "ReplaceSharer", "ReplaceLastSharer", "ReplaceStale", "Ack",
                                      "LastAck", "AckData",      "MemoryData",    "Evict"};
  return names[static_cast<unsigned>(event)];
}
const char* HomeMachine::meaning(Event event) {
  static const char* const meanings[] = {
      "a Read (busy line: any Read)",
      "a RdEx, or an Upgrade from an L1 that is no longer a sharer (it was invalidated meanwhile); busy line: any RdEx",
      "an Upgrade from a sharer while other sharers exist (busy line: any Upgrade)",
      "an Upgrade from the only sharer",
      "a Read/RdEx/Upgrade from the line's owner (cannot happen: an owner evicts before asking again)",
      "a RdEx from a sharer (cannot happen: a sharer sends Upgrade)",
      "a Replace while the line is busy",
      "a Replace from the owner (data if it was M)",
      "a Replace from one of several sharers",
      "a Replace from the only sharer",
      "a Replace from an L1 that no longer holds the line here (its copy was taken by a forward that crossed it)",
      "an Ack, more expected",
      "the last expected Ack",
      "the owner's data, answering an intervention",
      "the line's data from memory",
      "the line is the LLC's victim for a fill into its set"};
  return meanings[static_cast<unsigned>(event)];
}
const char* HomeMachine::name(Action action) {
  static const char* const names[] = {
      "allocate", "fetch from memory", "stall", "install memory data", "record request",
      "send RepExc", "send RepShd", "send grant", "send AckChange",
      "make owner", "add sharer", "remove sharer", "owner and requester share",
      "invalidate other sharers", "invalidate all sharers", "send ShdIntervention", "send ExcIntervention",
      "recall owner", "count Ack", "write AckData", "write Replace data", "write back"};
  return names[static_cast<unsigned>(action)];
}
const char* HomeMachine::meaning(Action action) {
  static const char* const meanings[] = {
      "take a free way for the line (a victim was evicted before if needed; else the request stalls)",
      "MemoryRead to the line's memory controller",
      "the request waits at the home (per line, in arrival order) and is handled again when the line is stable",
      "copy MemoryData into the LLC line (clean)",
      "remember the requester and the request type of the transaction",
      "RepExc with the LLC data to the requester",
      "RepShd with the LLC data to the requester",
      "the recorded request's grant: AckChange to an Upgrade, RepExc with data to a RdEx",
      "AckChange to the sender of the Replace",
      "the requester becomes the owner, no sharers",
      "add the requester to the sharer mask",
      "remove the sender from the sharer mask",
      "owner and requester both become sharers, no owner",
      "Invalidation to every sharer but the requester; expect as many Acks",
      "Invalidation to every sharer; expect as many Acks",
      "ShdIntervention to the owner",
      "ExcIntervention to the owner",
      "ExcIntervention to the owner, for the LLC eviction",
      "one Ack fewer expected",
      "copy the AckData into the LLC line (dirty if the owner's was)",
      "copy the Replace's data, if any, into the LLC line (dirty)",
      "MemoryWrite of the line if it is dirty; the way becomes free"};
  return meanings[static_cast<unsigned>(action)];
}

const HomeTable& home_table() {
  using S = HomeMachine::State;
  using E = HomeMachine::Event;
  using A = HomeMachine::Action;
  static const HomeTable table = [] {
    HomeTable result(
        "MESI home",
        {
            HomeTable::row(S::kNP, E::kRead, {A::kAllocate, A::kFetchFromMemory, A::kStall}, S::kNP_D),
            HomeTable::row(S::kNP, E::kRdEx, {A::kAllocate, A::kFetchFromMemory, A::kStall}, S::kNP_D),
            HomeTable::row(S::kNP, E::kReplaceStale, {A::kSendAckChange}, S::kNP),
            HomeTable::row(S::kNP_D, E::kMemoryData, {A::kInstallMemoryData}, S::kIDLE),

            HomeTable::row(S::kIDLE, E::kRead, {A::kSendRepExc, A::kMakeOwner}, S::kEXC),
            HomeTable::row(S::kIDLE, E::kRdEx, {A::kSendRepExc, A::kMakeOwner}, S::kEXC),
            HomeTable::row(S::kIDLE, E::kReplaceStale, {A::kSendAckChange}, S::kIDLE),
            HomeTable::row(S::kIDLE, E::kEvict, {A::kWriteBack}, S::kNP),

            HomeTable::row(S::kSHD, E::kRead, {A::kSendRepShd, A::kAddSharer}, S::kSHD),
            HomeTable::row(S::kSHD, E::kRdEx, {A::kRecordRequest, A::kInvalidateOtherSharers}, S::kSHD_A),
            HomeTable::row(S::kSHD, E::kUpgrade, {A::kRecordRequest, A::kInvalidateOtherSharers}, S::kSHD_A),
            HomeTable::row(S::kSHD, E::kUpgradeSole, {A::kRecordRequest, A::kSendGrant, A::kMakeOwner}, S::kEXC),
            HomeTable::row(S::kSHD, E::kReplaceSharer, {A::kRemoveSharer, A::kSendAckChange}, S::kSHD),
            HomeTable::row(S::kSHD, E::kReplaceLastSharer, {A::kRemoveSharer, A::kSendAckChange}, S::kIDLE),
            HomeTable::row(S::kSHD, E::kReplaceStale, {A::kSendAckChange}, S::kSHD),
            HomeTable::row(S::kSHD, E::kEvict, {A::kInvalidateAllSharers}, S::kSHD_R),

            HomeTable::row(S::kEXC, E::kRead, {A::kRecordRequest, A::kSendShdIntervention}, S::kEXC_D),
            HomeTable::row(S::kEXC, E::kRdEx, {A::kRecordRequest, A::kSendExcIntervention}, S::kEXC_X),
            HomeTable::row(S::kEXC, E::kReplaceOwner, {A::kWriteReplaceData, A::kSendAckChange}, S::kIDLE),
            HomeTable::row(S::kEXC, E::kReplaceStale, {A::kSendAckChange}, S::kEXC),
            HomeTable::row(S::kEXC, E::kEvict, {A::kRecallOwner}, S::kEXC_R),

            HomeTable::row(S::kSHD_A, E::kAck, {A::kCountAck}, S::kSHD_A),
            HomeTable::row(S::kSHD_A, E::kLastAck, {A::kCountAck, A::kSendGrant, A::kMakeOwner}, S::kEXC),
            HomeTable::row(S::kEXC_D, E::kAckData, {A::kWriteAckData, A::kSendRepShd, A::kOwnerAndRequesterShare},
                           S::kSHD),
            HomeTable::row(S::kEXC_X, E::kAckData, {A::kWriteAckData, A::kSendRepExc, A::kMakeOwner}, S::kEXC),
            HomeTable::row(S::kSHD_R, E::kAck, {A::kCountAck}, S::kSHD_R),
            HomeTable::row(S::kSHD_R, E::kLastAck, {A::kCountAck, A::kWriteBack}, S::kNP),
            HomeTable::row(S::kEXC_R, E::kAckData, {A::kWriteAckData, A::kWriteBack}, S::kNP),
        });
    // A busy line: every request waits.
    for (S busy : {S::kNP_D, S::kSHD_A, S::kEXC_D, S::kEXC_X, S::kSHD_R, S::kEXC_R})
      for (E request : {E::kRead, E::kRdEx, E::kUpgrade, E::kReplace})
        result.add(HomeTable::row(busy, request, {A::kStall}, busy));
    return result;
  }();
  return table;
}

namespace {

std::string tables_markdown() { return controller_tables_markdown("MESI", l1_table(), home_table()); }

}  // namespace

Protocol protocol() {
  return protocol_entry<L1, Home>(
      "mesi",
      "full-map directory MESI, inclusive blocking home (sharer mask + owner in the LLC tags)",
      kMessageTypes, &message_name, &tables_markdown);
}

}  // namespace npuvp::coherence::mesi
