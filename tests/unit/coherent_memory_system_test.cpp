// CoherentMemorySystem without cores: the L1 controllers driven directly,
// the memory system's socket bound straight to a Memory, the messages carried
// by a real MeshNetwork. One SystemC simulation per test (own process).
#include "cluster/coherent_memory_system.h"
#include "coherence/nsi/nsi.h"
#include "core/parameters.h"
#include "core/simulation.h"
#include "core/statistics.h"
#include "mem/memory.h"
#include "mesh/mesh_network.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

namespace npuvp {
namespace {

using coherence::L1Controller;

struct Cluster {
  MeshNetwork mesh{"mesh"};
  std::unique_ptr<CoherentMemorySystem> memory;
  Memory ddr{"ddr", 1 << 20};
  int completions = 0;

  Cluster() {
    mesh.memory_controllers.set("0,3,12,15");
    memory = std::make_unique<CoherentMemorySystem>("memory", mesh);
    memory->memory_socket.bind(ddr.socket);
    for (unsigned tile = 0; tile < memory->tiles(); ++tile) memory->l1(tile).set_miss_completion([this] { ++completions; });
  }
  // An access by tile's L1; runs the simulation until it has performed.
  void access(unsigned tile, L1Controller::Access kind, std::uint64_t address, std::uint64_t& value) {
    const int before = completions;
    if (memory->l1(tile).access(kind, address, &value, 8)) return;
    while (completions == before) sc_core::sc_start(sc_core::sc_time(100, sc_core::SC_NS));
  }
};

TEST(CoherentMemorySystem, StoresMoveThroughTheCachesAndDebugAccessSeesTheOwnersCopy) {
  Cluster cluster;
  std::uint64_t initial = 0x1111;
  cluster.ddr.write_backdoor(0x1000, &initial, 8);

  std::uint64_t value = 0x2222;
  cluster.access(0, L1Controller::Access::kStore, 0x1000, value);
  // Memory still holds the old value; the coherent value is the owner L1's.
  std::uint64_t in_memory = 0, coherent = 0;
  std::memcpy(&in_memory, cluster.ddr.data() + 0x1000, 8);
  EXPECT_EQ(in_memory, 0x1111u);
  ASSERT_TRUE(cluster.memory->debug_access(false, 0x1000, &coherent, 8));
  EXPECT_EQ(coherent, 0x2222u);

  // Another tile's load gets the stored value from the owner over the mesh.
  std::uint64_t loaded = 0;
  cluster.access(9, L1Controller::Access::kLoad, 0x1000, loaded);
  EXPECT_EQ(loaded, 0x2222u);

  // A debug write reaches every copy: both L1s and memory.
  std::uint64_t written = 0x3333;
  ASSERT_TRUE(cluster.memory->debug_access(true, 0x1000, &written, 8));
  std::uint64_t again = 0;
  EXPECT_TRUE(cluster.memory->l1(9).access(L1Controller::Access::kLoad, 0x1000, &again, 8));  // a hit
  EXPECT_EQ(again, 0x3333u);
  std::memcpy(&in_memory, cluster.ddr.data() + 0x1000, 8);
  EXPECT_EQ(in_memory, 0x3333u);

  // Messages crossed the mesh (data messages carry a line) and memory was read.
  EXPECT_GT(cluster.mesh.messages_delivered(), 3u);
  const Statistic* flits = StatisticsRegistry::instance().find("mesh.flits");
  ASSERT_NE(flits, nullptr);
  EXPECT_GT(flits->to_json().get<double>(), 6.0);  // at least two line-carrying (3-flit) messages
  const Statistic* reads = StatisticsRegistry::instance().find("memory.ddr.reads");
  ASSERT_NE(reads, nullptr);
  EXPECT_EQ(reads->to_json().get<double>(), 1.0);  // the line came from memory once
  EXPECT_EQ(cluster.memory->l1(0).statistics().store_misses, 1u);
  EXPECT_EQ(cluster.memory->l1(9).statistics().load_misses, 1u);
  EXPECT_GE(cluster.memory->l1(0).statistics().interventions_received, 1u);
  EXPECT_TRUE(cluster.memory->quiescent());
}

// The ConfigError text of building a CoherentMemorySystem on a mesh with
// `memory_controllers` (null: the mesh's default, none); "" when it builds.
std::string construction_error(const char* memory_controllers = "0") {
  MeshNetwork mesh("mesh");
  if (memory_controllers) mesh.memory_controllers.set(memory_controllers);
  try {
    CoherentMemorySystem memory("memory", mesh);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

TEST(CoherentMemorySystem, UnknownProtocolListsTheKnownOnes) {
  ParameterRegistry::instance().set_override("mesh.coherence", "moesi-x", "test");
  const std::string text = construction_error();
  ASSERT_FALSE(text.empty()) << "no error for an unknown protocol";
  EXPECT_NE(text.find("mesh.coherence"), std::string::npos) << text;
  EXPECT_NE(text.find("moesi-x"), std::string::npos) << text;
  EXPECT_NE(text.find("mesi"), std::string::npos) << text;
}

TEST(CoherentMemorySystem, CacheShapesAreChecked) {
  ParameterRegistry::instance().set_override("memory.l1.size", "49152", "test");
  const std::string text = construction_error();
  ASSERT_FALSE(text.empty()) << "no error for 48 KiB in 4 ways of 32 bytes (384 sets)";
  EXPECT_NE(text.find("memory.l1.size"), std::string::npos) << text;
}

TEST(CoherentMemorySystem, NeedsAMemoryController) {
  const std::string text = construction_error(nullptr);
  ASSERT_FALSE(text.empty()) << "no error without memory controllers";
  EXPECT_NE(text.find("mesh.memory_controllers"), std::string::npos) << text;
}

double statistic(const std::string& name) {
  const Statistic* found = StatisticsRegistry::instance().find(name);
  if (!found) ADD_FAILURE() << "no statistic " << name;
  return found ? found->to_json().get<double>() : -1.0;
}

// The chosen protocol's parameter reaches its L1s: with a 20-cycle interval
// an access 100 ns (cycles) after the first one finds a periodic
// synchronisation due.
TEST(CoherentMemorySystem, NsiPeriodicIntervalReachesTheL1) {
  ParameterRegistry::instance().set_override("mesh.coherence", "nsi", "test");
  ParameterRegistry::instance().set_override("mesh.nsi.periodic_synchronisation_cycles", "20", "test");
  Cluster cluster;
  EXPECT_EQ(cluster.memory->protocol_name(), "nsi");
  std::uint64_t value = 0;
  cluster.access(0, L1Controller::Access::kLoad, 0x1000, value);
  sc_core::sc_start(sc_core::sc_time(100, sc_core::SC_NS));
  cluster.access(0, L1Controller::Access::kLoad, 0x1000, value);
  EXPECT_GE(cluster.memory->l1(0).statistics().periodic_synchronisations, 1u);
  EXPECT_EQ(statistic("memory.l1.periodic_synchronisations"),
            static_cast<double>(cluster.memory->l1(0).statistics().periodic_synchronisations));
}

TEST(CoherentMemorySystem, NsiZeroPeriodicIntervalNeverSynchronises) {
  ParameterRegistry::instance().set_override("mesh.coherence", "nsi", "test");
  ParameterRegistry::instance().set_override("mesh.nsi.periodic_synchronisation_cycles", "0", "test");
  Cluster cluster;
  std::uint64_t value = 0;
  for (int round = 0; round < 3; ++round) {
    cluster.access(0, L1Controller::Access::kLoad, 0x1000 + 0x100 * round, value);
    sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_US));
  }
  EXPECT_EQ(cluster.memory->l1(0).statistics().periodic_synchronisations, 0u);
  EXPECT_EQ(statistic("memory.l1.periodic_synchronisations"), 0.0);
}

TEST(CoherentMemorySystem, BadProtocolParameterValueIsAConfigError) {
  ParameterRegistry::instance().set_override("mesh.coherence", "nsi", "test");
  ParameterRegistry::instance().set_override("mesh.nsi.periodic_synchronisation_cycles", "often", "test");
  const std::string text = construction_error();
  ASSERT_FALSE(text.empty()) << "no error for a non-numeric interval";
  EXPECT_NE(text.find("mesh.nsi.periodic_synchronisation_cycles"), std::string::npos) << text;
  EXPECT_NE(text.find("often"), std::string::npos) << text;
}

// Every registered protocol's parameters are declared (whichever protocol
// runs), and the protocol parameter's doc lists the protocols.
TEST(CoherentMemorySystem, ProtocolParametersAreDeclaredFromTheRegistry) {
  Cluster cluster;  // MESI
  const ParameterBase* interval = ParameterRegistry::instance().find("mesh.nsi.periodic_synchronisation_cycles");
  ASSERT_NE(interval, nullptr);
  EXPECT_EQ(interval->default_text(), "100000");
  EXPECT_EQ(interval->unit(), "cycles");
  EXPECT_NE(interval->doc().find("mesh.coherence = nsi"), std::string::npos) << interval->doc();
  const ParameterBase* protocol = ParameterRegistry::instance().find("mesh.coherence");
  ASSERT_NE(protocol, nullptr);
  for (const char* name : {"mesi — ", "msi — ", "nsi — "})
    EXPECT_NE(protocol->doc().find(name), std::string::npos) << protocol->doc();
  EXPECT_EQ(cluster.memory->l1(0).statistics().periodic_synchronisations, 0u);
}

// The fates of suspect lines are counted and exported: a SHD copy turned
// SUS by a synchronisation is validated current (a correct speculation),
// then, after another core's store, stale (the load returns the new value).
TEST(CoherentMemorySystem, NsiSuspectLineFatesAreCountedAndExported) {
  ParameterRegistry::instance().set_override("mesh.coherence", "nsi", "test");
  Cluster cluster;
  std::uint64_t initial = 0x1111;
  cluster.ddr.write_backdoor(0x2000, &initial, 8);
  std::uint64_t value = 0;
  cluster.access(0, L1Controller::Access::kLoad, 0x2000, value);  // tile 0 owns it (EXC)
  cluster.access(1, L1Controller::Access::kLoad, 0x2000, value);  // tile 1 shares it (SHD)
  auto& reader = dynamic_cast<coherence::nsi::L1&>(cluster.memory->l1(1));
  reader.synchronise();  // SHD -> SUS
  EXPECT_EQ(reader.suspect_statistics().lines_created, 1u);
  value = 0;
  cluster.access(1, L1Controller::Access::kLoad, 0x2000, value);
  EXPECT_EQ(value, 0x1111u);
  EXPECT_EQ(reader.suspect_statistics().validated_current, 1u);
  EXPECT_TRUE(reader.last_miss_speculated_correctly());

  std::uint64_t written = 0x2222;
  cluster.access(0, L1Controller::Access::kStore, 0x2000, written);
  reader.synchronise();
  cluster.access(1, L1Controller::Access::kLoad, 0x2000, value);
  EXPECT_EQ(value, 0x2222u);
  EXPECT_EQ(reader.suspect_statistics().validated_stale, 1u);
  EXPECT_FALSE(reader.last_miss_speculated_correctly());

  EXPECT_EQ(statistic("memory.l1_1.synchronisations"), 2.0);
  EXPECT_EQ(statistic("memory.l1_1.suspect_validated_current"), 1.0);
  EXPECT_EQ(statistic("memory.l1.suspect_validated_stale"), 1.0);
  EXPECT_GE(statistic("memory.l1.suspect_lines_created"), 2.0);
  EXPECT_EQ(statistic("memory.l1.suspect_dropped_unread"), 0.0);
}

}  // namespace
}  // namespace npuvp
