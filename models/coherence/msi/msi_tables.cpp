// The MSI tables: message names, the transition rows the controllers execute
// (the states, events and actions are declared with their meanings in
// msi.h), and the registry entry.
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

const L1Table& L1Machine::table() {
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

const HomeTable& HomeMachine::table() {
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
