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

// ---- the thesis's baseline ([nsi] §5.4.3.1, change 9) ----

// A store or make-writable to S sends RdEx and waits for the data like a
// miss (the S copy is no longer readable meanwhile: the core is blocked on
// its access anyway); an Invalidation for the copy may cross the RdEx and is
// acknowledged. No Upgrade: SM_A and SW_A are never entered. No E grant for
// a Read: IS_D never receives RepExc, and a reader is never the owner an
// intervention goes to. (The random tester's coverage test shows every
// remaining row reachable.)
const L1Table& thesis_l1_table() {
  using S = L1Machine::State;
  using E = L1Machine::Event;
  using A = L1Machine::Action;
  static const L1Table table = l1_table().variant(
      "MESI L1, thesis baseline",
      {
          L1Table::row(S::kS, E::kStore, {A::kSendRdEx}, S::kIM_D),
          L1Table::row(S::kS, E::kMakeWritable, {A::kSendRdEx}, S::kIW_D),
          L1Table::row(S::kIM_D, E::kInvalidation, {A::kSendAck, A::kDropLine}, S::kIM_D),
          L1Table::row(S::kIW_D, E::kInvalidation, {A::kSendAck, A::kDropLine}, S::kIW_D),
      },
      {{S::kIS_D, E::kRepExc}, {S::kIS_D, E::kShdIntervention}, {S::kIS_D, E::kExcIntervention}},
      {S::kSM_A, S::kSW_A});
  return table;
}

// A Read of a line no L1 holds is answered RepShd (the reader becomes a
// sharer); a sharer's RdEx invalidates the other sharers and is answered
// RepExc with data (SendGrant of a recorded RdEx), at once when it is the
// only sharer. No Upgrade arrives (not even at a busy line).
const HomeTable& thesis_home_table() {
  using S = HomeMachine::State;
  using E = HomeMachine::Event;
  using A = HomeMachine::Action;
  static const HomeTable table = home_table().variant(
      "MESI home, thesis baseline",
      {
          HomeTable::row(S::kIDLE, E::kRead, {A::kSendRepShd, A::kAddSharer}, S::kSHD),
          HomeTable::row(S::kSHD, E::kRdExFromSharer, {A::kRecordRequest, A::kInvalidateOtherSharers}, S::kSHD_A),
          HomeTable::row(S::kSHD, E::kRdExFromSoleSharer, {A::kRecordRequest, A::kSendGrant, A::kMakeOwner},
                         S::kEXC),
      },
      {{S::kSHD, E::kUpgrade}, {S::kSHD, E::kUpgradeSole}, {S::kNP_D, E::kUpgrade}, {S::kSHD_A, E::kUpgrade},
       {S::kEXC_D, E::kUpgrade}, {S::kEXC_X, E::kUpgrade}, {S::kSHD_R, E::kUpgrade}, {S::kEXC_R, E::kUpgrade}});
  return table;
}

Instance::Instance(const std::string& prefix, const std::string& note)
    : ProtocolInstance("mesi", &make_l1_of<L1>, &make_home_of<Home>),
      thesis_baseline(prefix + ".thesis_baseline", false, "",
                      "MESI: the thesis's baseline ([nsi] 5.4.3.1, change 9): a read is never granted E, a store to S "
                      "sends RdEx answered with data (no Upgrade); false: textbook MESI (docs/coherence.md)" +
                          note) {
  own(thesis_baseline);
}

std::unique_ptr<L1Controller> Instance::make_l1(unsigned tile, const Geometry& geometry, const CacheShape& shape,
                                                Environment& environment) const {
  return std::make_unique<L1>(tile, geometry, shape, environment, L1::kDefaultWritebackEntries,
                              thesis_baseline.get() ? thesis_l1_table() : l1_table());
}

std::unique_ptr<HomeController> Instance::make_home(unsigned tile, const Geometry& geometry,
                                                    const CacheShape& shape, Environment& environment) const {
  return std::make_unique<Home>(tile, geometry, shape, environment,
                                thesis_baseline.get() ? thesis_home_table() : home_table());
}

namespace {

std::unique_ptr<ProtocolInstance> make_instance(const std::string& prefix, const std::string& note) {
  return std::make_unique<Instance>(prefix, note);
}

// The textbook tables, then how the thesis baseline's differ.
std::string tables_markdown() {
  return controller_tables_markdown("MESI", l1_table(), home_table()) +
         "\n#### MESI L1 controller, thesis baseline (differences)\n\n" +
         thesis_l1_table().differences_markdown(l1_table()) +
         "\n#### MESI home controller, thesis baseline (differences)\n\n" +
         thesis_home_table().differences_markdown(home_table());
}

}  // namespace

Protocol protocol() {
  Protocol result = protocol_entry<L1, Home>(
      "mesi",
      "full-map directory MESI, inclusive blocking home (sharer mask + owner in the LLC tags)",
      kMessageTypes, &message_name, &tables_markdown);
  result.make_instance = &make_instance;
  return result;
}

}  // namespace npuvp::coherence::mesi
