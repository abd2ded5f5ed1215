// The NSI tables: message names and the transition rows the controllers
// execute (nsi_l1.cpp, nsi_home.cpp); the states, events and actions are
// declared with their meanings in nsi.h.
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

const L1Table& L1Machine::table() {
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

const HomeTable& HomeMachine::table() {
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

// ---- the thesis's literal validation ----

// A validation Read whose copy is current is answered with the data, like
// one whose copy changed; the L1 then compares the data (Validate). The
// L1 never receives RepValidShd / RepValidExc.
const L1Table& literal_validation_l1_table() {
  using S = L1Machine::State;
  using E = L1Machine::Event;
  static const L1Table table =
      l1_table().variant("NSI L1, literal validation", {}, {{S::kSV_D, E::kRepValidShd}, {S::kSV_D, E::kRepValidExc}});
  return table;
}

const HomeTable& literal_validation_home_table() {
  using S = HomeMachine::State;
  using E = HomeMachine::Event;
  using A = HomeMachine::Action;
  static const HomeTable table = home_table().variant(
      "NSI home, literal validation",
      {
          HomeTable::row(S::kEXC, E::kReadCurrent, {A::kSendRepExc, A::kMakeOwner}, S::kEXC),
          HomeTable::row(S::kEXC, E::kReadCurrentOwned, {A::kSendRepShd}, S::kEXC),
      });
  return table;
}

Instance::Instance(const std::string& prefix, const std::string& note)
    : ProtocolInstance("nsi", &make_l1_of<L1>, &make_home_of<Home>),
      periodic_synchronisation_cycles(
          prefix + ".periodic_synchronisation_cycles", kDefaultPeriodicSynchronisationCycles, "cycles",
          "NSI: each L1 self-invalidates (SHD -> SUS) at least this often, so spin loops on plain loads end; 0 = "
          "never" + note),
      validation(prefix + ".validation", kVersionValidation, "",
                 "NSI: how the home answers the read of a suspect (SUS) copy that is still current: version = "
                 "without data (RepValidShd/RepValidExc, the copy's version matches), data = with the data, the "
                 "thesis's literal validation ([nsi] 5.4.3.1, change 4; docs/coherence.md)" + note,
                 {kVersionValidation, kDataValidation}) {
  own(periodic_synchronisation_cycles);
  own(validation);
}

std::unique_ptr<L1Controller> Instance::make_l1(unsigned tile, const Geometry& geometry, const CacheShape& shape,
                                                Environment& environment) const {
  return std::make_unique<L1>(tile, geometry, shape, environment, periodic_synchronisation_cycles.get(),
                              L1::kDefaultWritebackEntries,
                              literal_validation() ? literal_validation_l1_table() : l1_table());
}

std::unique_ptr<HomeController> Instance::make_home(unsigned tile, const Geometry& geometry,
                                                    const CacheShape& shape, Environment& environment) const {
  return std::make_unique<Home>(tile, geometry, shape, environment,
                                literal_validation() ? literal_validation_home_table() : home_table());
}

namespace {

std::unique_ptr<ProtocolInstance> make_instance(const std::string& prefix, const std::string& note) {
  return std::make_unique<Instance>(prefix, note);
}
// The tables, then how the literal validation's differ.
std::string tables_markdown() {
  return controller_tables_markdown("NSI", l1_table(), home_table()) +
         "\n#### NSI L1 controller, literal validation (differences)\n\n" +
         literal_validation_l1_table().differences_markdown(l1_table()) +
         "\n#### NSI home controller, literal validation (differences)\n\n" +
         literal_validation_home_table().differences_markdown(home_table());
}

}  // namespace

Protocol protocol() {
  Protocol result = protocol_entry<L1, Home>(
      "nsi",
      "NSI: no sharer list (owner only), no invalidations; cores self-invalidate (SHD -> SUS) at synchronisations",
      kMessageTypes, &message_name, &tables_markdown);
  result.make_instance = &make_instance;
  result.l1_counters = {
      {"suspect_lines_created", "SHD lines turned suspect (SUS) by synchronisations (NSI)", "all L1s (NSI)"},
      {"suspect_validated_current", "loads on SUS lines the home confirmed current (NSI: a hit)", "all L1s (NSI)"},
      {"suspect_validated_stale", "loads on SUS lines that were stale (NSI: a miss)", "all L1s (NSI)"},
      {"suspect_dropped_unread", "SUS lines evicted or written without being read (NSI)", "all L1s (NSI)"},
  };
  return result;
}

}  // namespace npuvp::coherence::nsi
