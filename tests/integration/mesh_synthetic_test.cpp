// The synthetic random program of the NSI-vs-MESI sweeps (firmware/mesh/synthetic.c,
// scenarios/mesh-synthetic.yaml, docs/reproduce-nsi.md) against a reference computed
// here: the test regenerates every hart's address/operation stream, so it knows how
// many loads, stores and syncs each hart must execute and which lines it touches,
// and checks both what the program reports and the cluster's L1/LLC statistics.
#include "integration/run_npuvp.h"
#include "scenario_patch.h"

#include "mesh_random.h"  // firmware/mesh: the stream the harts draw

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace npuvp::test_support;
using ::testing::HasSubstr;

namespace {

constexpr unsigned kHarts = 16;
constexpr std::uint64_t kRegionBase = 0xA0000000u;
constexpr std::uint64_t kLineSize = 32;  // cluster.memory.line_size (default)

struct Parameters {
  std::uint64_t interval, footprint, operations, store_percent, seed;
};

// What one hart executes, by the rules synthetic.c documents.
struct HartStream {
  std::uint64_t loads = 0, stores = 0, syncs = 0;
  std::vector<std::uint64_t> addresses;  // in program order
  std::set<std::uint64_t> lines;         // line addresses it touches
};

HartStream reference_stream(const Parameters& p, unsigned hart) {
  HartStream stream;
  std::uint64_t state = mesh_hash(p.seed, hart);
  if (state == 0) state = 1;
  const std::uint64_t words = p.footprint / 8;
  const std::uint64_t store_threshold = (p.store_percent << 32) / 100;
  for (std::uint64_t i = 1; i <= p.operations; ++i) {
    const std::uint64_t r = mesh_random(&state);
    const std::uint64_t address = kRegionBase + 8 * (((r >> 32) * words) >> 32);
    stream.addresses.push_back(address);
    stream.lines.insert(address / kLineSize * kLineSize);
    if ((r & 0xffffffffu) < store_threshold)
      ++stream.stores;
    else
      ++stream.loads;
    if (i % p.interval == 0) ++stream.syncs;
  }
  return stream;
}

// "key=value" tokens of the program's summary line; lists stay comma-separated text.
std::map<std::string, std::string> summary_fields(const std::string& console) {
  std::map<std::string, std::string> fields;
  const auto start = console.find("synthetic: interval=");
  if (start == std::string::npos) return fields;
  std::istringstream line(console.substr(start + 11, console.find('\n', start) - start - 11));
  std::string token;
  while (line >> token) {
    const auto equals = token.find('=');
    if (equals != std::string::npos) fields[token.substr(0, equals)] = token.substr(equals + 1);
  }
  return fields;
}

std::vector<std::uint64_t> list_of(const std::string& text) {
  std::vector<std::uint64_t> values;
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) values.push_back(std::stoull(item));
  return values;
}

// The shipped scenario with its patch values replaced.
std::string scenario_with(const Parameters& p, const std::string& file_name) {
  std::map<std::string, std::string> unmatched;
  const std::string text = patch_scenario_text(read_file(scenario("mesh-synthetic")),
                                               {{"synthetic_interval", std::to_string(p.interval)},
                                                {"synthetic_footprint", std::to_string(p.footprint)},
                                                {"synthetic_operations", std::to_string(p.operations)},
                                                {"synthetic_store_percent", std::to_string(p.store_percent)},
                                                {"synthetic_seed", std::to_string(p.seed)}},
                                               &unmatched);
  EXPECT_TRUE(unmatched.empty()) << "scenarios/mesh-synthetic.yaml lost a patch entry";
  const std::string path = temp_path(file_name);
  std::ofstream(path) << text;
  return path;
}

double stat(const nlohmann::json& statistics, const std::string& name) {
  EXPECT_TRUE(statistics.contains(name)) << name;
  return statistics.value(name, -1.0);
}

}  // namespace

// Small enough to run in a fraction of a second per protocol; 4 KiB = 128 lines shared by 16
// harts with 30 % stores, so lines move between the L1s all the time.
constexpr Parameters kSmall{50, 4096, 1000, 30, 7};

class MeshSynthetic : public ::testing::TestWithParam<std::string> {};

TEST_P(MeshSynthetic, CountsAndStatisticsMatchTheReferenceStream) {
  const std::string protocol = GetParam();
  const Parameters p = kSmall;
  const std::string yaml = scenario_with(p, "synthetic-" + protocol + ".yaml");
  const std::string stats_path = temp_path("synthetic-" + protocol + ".json");
  auto result = run_npuvp("run " + yaml + " --quiet --set mesh.coherence=" + protocol + " --stats " + stats_path);
  std::remove(yaml.c_str());
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(last_line(result.err), HasSubstr("npuvp: mesh-synthetic: PASS"));

  // The program echoes what it was given.
  auto fields = summary_fields(result.out);
  ASSERT_FALSE(fields.empty()) << result.out;
  EXPECT_EQ(fields["interval"], std::to_string(p.interval));
  EXPECT_EQ(fields["footprint"], std::to_string(p.footprint));
  EXPECT_EQ(fields["operations"], std::to_string(p.operations));
  EXPECT_EQ(fields["store_percent"], std::to_string(p.store_percent));
  EXPECT_EQ(fields["seed"], std::to_string(p.seed));
  EXPECT_EQ(fields["harts"], std::to_string(kHarts));

  std::vector<HartStream> streams;
  std::set<std::uint64_t> all_lines;
  std::uint64_t loads = 0, stores = 0, syncs = 0;
  for (unsigned hart = 0; hart < kHarts; ++hart) {
    streams.push_back(reference_stream(p, hart));
    all_lines.insert(streams.back().lines.begin(), streams.back().lines.end());
    loads += streams.back().loads;
    stores += streams.back().stores;
    syncs += streams.back().syncs;
  }
  ASSERT_EQ(loads + stores, kHarts * p.operations);
  ASSERT_EQ(syncs, kHarts * (p.operations / p.interval));

  // What each hart says it executed is the reference stream, hart by hart.
  const auto reported_loads = list_of(fields["loads"]), reported_stores = list_of(fields["stores"]),
             reported_syncs = list_of(fields["syncs"]);
  ASSERT_EQ(reported_loads.size(), kHarts);
  ASSERT_EQ(reported_stores.size(), kHarts);
  ASSERT_EQ(reported_syncs.size(), kHarts);
  for (unsigned hart = 0; hart < kHarts; ++hart) {
    EXPECT_EQ(reported_loads[hart], streams[hart].loads) << "hart " << hart;
    EXPECT_EQ(reported_stores[hart], streams[hart].stores) << "hart " << hart;
    EXPECT_EQ(reported_syncs[hart], streams[hart].syncs) << "hart " << hart;
  }
  EXPECT_EQ(fields["total_loads"], std::to_string(loads));
  EXPECT_EQ(fields["total_stores"], std::to_string(stores));
  EXPECT_EQ(fields["total_syncs"], std::to_string(syncs));

  // The caches saw those accesses. Tile t's L1 serves hart t; besides the stream it sees
  // only the runtime's few accesses (start-up, barriers, hart 0's printf), so its store
  // count exceeds the stream's by a small margin, and every line the hart touches is a
  // cold miss the first time (the region is touched by nothing else).
  auto statistics = nlohmann::json::parse(read_file(stats_path))["statistics"];
  std::remove(stats_path.c_str());
  const std::string l1 = "soc.cluster.memory.l1";
  for (unsigned hart = 0; hart < kHarts; ++hart) {
    const std::string tile = "soc.cluster.memory.l1_" + std::to_string(hart) + ".";
    const double tile_loads = stat(statistics, tile + "load_hits") + stat(statistics, tile + "load_misses");
    const double tile_stores = stat(statistics, tile + "store_hits") + stat(statistics, tile + "store_misses");
    const double tile_misses = stat(statistics, tile + "load_misses") + stat(statistics, tile + "store_misses");
    EXPECT_GE(tile_loads, double(streams[hart].loads)) << "hart " << hart;
    EXPECT_GE(tile_stores, double(streams[hart].stores)) << "hart " << hart;
    // The runtime's own stores, measured with no stream (operations = 0): 47-49 on harts
    // 1-15 (start-up, barriers), 5,644 on hart 0, which also zeroes .bss and formats and
    // prints the summary line.
    const double runtime_stores = hart == 0 ? 8000 : 300;
    EXPECT_LE(tile_stores, double(streams[hart].stores) + runtime_stores) << "hart " << hart;
    EXPECT_GE(tile_misses, double(streams[hart].lines.size())) << "hart " << hart;
    if (protocol == "nsi") {
      // Every fence is a synchronisation of the hart's L1 (the barriers add more).
      EXPECT_GE(stat(statistics, tile + "synchronisations"), double(streams[hart].syncs)) << "hart " << hart;
    }
  }
  // Each line of the region comes from memory once at least: the LLC misses on it.
  EXPECT_GE(stat(statistics, "soc.cluster.memory.llc.misses"), double(all_lines.size()));
  EXPECT_GE(stat(statistics, "soc.cluster.memory.ddr.reads"), double(all_lines.size()));
  if (protocol == "nsi") {
    EXPECT_GE(stat(statistics, l1 + ".synchronisations"), double(kHarts * p.operations / p.interval));
    EXPECT_GT(stat(statistics, l1 + ".suspect_lines_created"), 0.0);
    EXPECT_EQ(statistics.value("soc.mesh.type.Invalidation.messages", 0.0), 0.0);
  } else {
    // Racing stores on 128 shared lines: MESI invalidates the other copies.
    EXPECT_GT(stat(statistics, l1 + ".invalidations"), 0.0);
    EXPECT_GT(statistics.value("soc.mesh.type.Invalidation.messages", 0.0), 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Protocols, MeshSynthetic, ::testing::Values("mesi", "nsi"),
                         [](const auto& info) { return info.param; });

// The reference itself can tell streams apart: another seed or store share changes
// the counts (so the comparison above is not vacuous).
TEST(MeshSyntheticReference, StreamDependsOnEveryParameter) {
  const HartStream base = reference_stream(kSmall, 3);
  EXPECT_EQ(base.loads + base.stores, kSmall.operations);
  EXPECT_NEAR(double(base.stores) / kSmall.operations, 0.30, 0.05);
  Parameters other_seed = kSmall;
  other_seed.seed = 8;
  EXPECT_NE(reference_stream(other_seed, 3).addresses, base.addresses);
  EXPECT_NE(reference_stream(kSmall, 4).addresses, base.addresses);
  Parameters all_stores = kSmall;
  all_stores.store_percent = 100;
  EXPECT_EQ(reference_stream(all_stores, 3).stores, kSmall.operations);
  Parameters no_stores = kSmall;
  no_stores.store_percent = 0;
  EXPECT_EQ(reference_stream(no_stores, 3).stores, 0u);
  // A 64 MiB region: addresses stay inside it.
  Parameters large = kSmall;
  large.footprint = 64u << 20;
  for (auto line : reference_stream(large, 0).lines) {
    EXPECT_GE(line, kRegionBase);
    EXPECT_LT(line, kRegionBase + large.footprint);
  }
}

// The same ELF with its built-in defaults (synthetic.c, also the scenario's patch
// values) on QEMU virt -smp 16: an independent RISC-V executes the same streams. The
// region at 0xA000_0000 needs more than QEMU's default 128 MiB of RAM.
TEST(MeshSynthetic, QemuExecutesTheReferenceStreams) {
  constexpr Parameters kDefaults{100, 16384, 2000, 30, 1};
  auto qemu = run_command("timeout 60 qemu-system-riscv64 -M virt -smp 16 -m 1G -bios none -nographic -kernel " +
                          firmware("mesh/synthetic.elf"));
  ASSERT_EQ(qemu.status, 0) << qemu.err;
  auto fields = summary_fields(qemu.out);
  ASSERT_FALSE(fields.empty()) << qemu.out;
  EXPECT_EQ(fields["interval"], "100");
  EXPECT_EQ(fields["footprint"], "16384");
  const auto loads = list_of(fields["loads"]), stores = list_of(fields["stores"]), syncs = list_of(fields["syncs"]);
  ASSERT_EQ(loads.size(), kHarts);
  ASSERT_EQ(stores.size(), kHarts);
  ASSERT_EQ(syncs.size(), kHarts);
  for (unsigned hart = 0; hart < kHarts; ++hart) {
    const HartStream stream = reference_stream(kDefaults, hart);
    EXPECT_EQ(loads[hart], stream.loads) << "hart " << hart;
    EXPECT_EQ(stores[hart], stream.stores) << "hart " << hart;
    EXPECT_EQ(syncs[hart], stream.syncs) << "hart " << hart;
  }
}

// Parameters the program cannot honour stop it with a clear message and exit 1.
TEST(MeshSynthetic, BadParametersFail) {
  Parameters p = kSmall;
  p.footprint = 4100;  // not a multiple of 8
  const std::string yaml = scenario_with(p, "synthetic-bad.yaml");
  auto result = run_npuvp("run " + yaml + " --quiet");
  std::remove(yaml.c_str());
  EXPECT_NE(result.status, 0);
  EXPECT_THAT(result.out, HasSubstr("synthetic: FAIL bad parameters"));
}
