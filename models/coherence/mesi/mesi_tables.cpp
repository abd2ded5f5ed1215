// The MESI tables: message names and the transition rows the controllers
// execute (mesi_l1.cpp, mesi_home.cpp); the states, events and actions are
// declared with their meanings in mesi.h.
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

const L1Table& L1Machine::table() {
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

const HomeTable& HomeMachine::table() {
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
