// The 16-core mesh cluster end to end (docs/cluster.md): SMP programs built
// for QEMU virt -smp 16 boot on the cluster's harts with `--cluster` or a
// `core: cluster` scenario image, their data going through the coherent L1s
// and LLC banks over the mesh.
#include "coherence/protocol_registry.h"
#include "integration/litmus_rvwmo.h"
#include "integration/run_npuvp.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

using namespace npuvp::test_support;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

namespace {

std::string hello_lines() {
  std::string text;
  for (int hart = 0; hart < 16; ++hart) text += "hello from hart " + std::to_string(hart) + " of 16\n";
  return text;
}

nlohmann::json statistics_of(const std::string& path) { return nlohmann::json::parse(read_file(path))["statistics"]; }

}  // namespace

// mhartid is 0..15 (hello prints smp_hart_id(), read from mhartid) and the
// harts print in hart order through the serialized console.
TEST(MeshCluster, HelloScenarioPrintsInHartOrder) {
  std::string stats = temp_path("hello.json");
  auto result = run_npuvp("run " + scenario("mesh-hello") + " --quiet --stats " + stats);
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr(hello_lines()));
  EXPECT_THAT(last_line(result.err), HasSubstr("npuvp: mesh-hello: PASS"));
  auto statistics = statistics_of(stats);
  for (int hart = 0; hart < 16; ++hart)
    EXPECT_GT(statistics["soc.cluster.hart" + std::to_string(hart) + ".instructions"].get<double>(), 100.0) << hart;
  // The host CPU is parked in cluster mode.
  EXPECT_EQ(statistics["soc.cpu.instructions"].get<double>(), 0.0);
}

// The same ELF, unchanged, on QEMU virt -smp 16 and on `npuvp run --elf F --cluster`.
TEST(MeshCluster, QemuBuiltElfRunsUnchanged) {
  const std::string elf = firmware("mesh/hello.elf");
  auto qemu = run_command("timeout 60 qemu-system-riscv64 -M virt -smp 16 -bios none -nographic -kernel " + elf);
  ASSERT_EQ(qemu.status, 0) << qemu.err;
  auto ours = run_npuvp("run --elf " + elf + " --cluster --quiet");
  EXPECT_EQ(ours.status, 0) << ours.err;
  EXPECT_EQ(ours.out, qemu.out);
  EXPECT_THAT(ours.out, HasSubstr(hello_lines()));
}

// AMO, LR/SC and lock-protected counters on one line shared by all 16 harts
// (and each hart's own CLINT msip and the time CSR)
// give exact totals under MESI, every hart sees the others' stores, and the
// data really moved between the caches over the mesh.
TEST(MeshCluster, AtomicCountersAreExactUnderMesi) {
  std::string stats = temp_path("atomics.json");
  auto result = run_npuvp("run --elf " + firmware("tests/cluster-atomics.elf") +
                          " --cluster --quiet --set mesh.coherence=mesi --stats " + stats);
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("cluster-atomics: PASS harts=16 amo=3200 lrsc=3200 locked=3200 expected=3200 slots=16 clint=16"));
  auto statistics = statistics_of(stats);
  EXPECT_GT(statistics["soc.cluster.memory.l1.load_misses"].get<double>(), 100.0);
  EXPECT_GT(statistics["soc.cluster.memory.l1.invalidations"].get<double>(), 100.0);
  EXPECT_GT(statistics["soc.cluster.memory.l1.interventions"].get<double>(), 10.0);
  EXPECT_GT(statistics["soc.cluster.memory.llc.invalidations_sent"].get<double>(), 100.0);
  EXPECT_GT(statistics["soc.mesh.flits"].get<double>(), 1000.0);
  EXPECT_GT(statistics["soc.mesh.type.AckData.messages"].get<double>(), 0.0);
  EXPECT_GT(statistics["soc.cluster.memory.ddr.reads"].get<double>(), 0.0);
}

// The same exact totals under the other protocols: atomics and LR/SC hold
// the line writable until their store, and NSI's self-invalidation at the
// LR keeps it from reading a stale copy.
TEST(MeshCluster, AtomicCountersAreExactUnderMsiAndNsi) {
  for (const char* protocol : {"msi", "nsi"}) {
    auto result = run_npuvp("run --elf " + firmware("tests/cluster-atomics.elf") +
                            " --cluster --quiet --set mesh.coherence=" + protocol);
    EXPECT_EQ(result.status, 0) << protocol << ": " << result.err;
    EXPECT_THAT(result.out, HasSubstr("cluster-atomics: PASS harts=16 amo=3200 lrsc=3200 locked=3200 expected=3200"))
        << protocol;
  }
}

// The PLIC reaches every cluster hart: on its turn each hart enables UART0's
// source in its own context (2 x mhartid, QEMU virt's order), the UART raises
// its THR-empty interrupt and the hart takes the machine external interrupt,
// claims the source and completes it (firmware/tests/cluster-plic.c checks
// what each handler saw). The PLIC counted one request, claim and completion per
// hart; QEMU virt -smp 16, the independent reference, prints the same line.
TEST(MeshCluster, EveryHartTakesAPlicInterrupt) {
  const std::string elf = firmware("tests/cluster-plic.elf");
  const std::string expected = "cluster-plic: PASS harts=16 taken=16 source=10 pending=0";
  std::string stats = temp_path("plic.json");
  // Without the wiring a hart would sleep for ever: the limit turns that into a failure.
  auto result = run_npuvp("run --elf " + elf + " --cluster --quiet --set sim.limit.sim_time=20ms --stats " + stats);
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr(expected));
  auto statistics = statistics_of(stats);
  EXPECT_EQ(statistics["soc.plic.requests"].get<double>(), 16.0);
  EXPECT_EQ(statistics["soc.plic.claims"].get<double>(), 16.0);
  EXPECT_EQ(statistics["soc.plic.completions"].get<double>(), 16.0);
  EXPECT_EQ(statistics["soc.plic.empty_claims"].get<double>(), 0.0);
  auto qemu = run_command("timeout 60 qemu-system-riscv64 -M virt -smp 16 -bios none -nographic -kernel " + elf);
  EXPECT_EQ(qemu.status, 0) << qemu.err;
  EXPECT_THAT(qemu.out, HasSubstr(expected));
}

// The PLIC's contexts default to two per cluster hart (the test above reaches
// context 30); fewer are a configuration error naming the parameter.
TEST(MeshCluster, TooFewPlicContextsAreAClearError) {
  auto too_few = run_npuvp("run --elf " + firmware("tests/cluster-plic.elf") +
                           " --cluster --quiet --set soc.plic.contexts=31");
  EXPECT_EQ(too_few.status, 125);
  EXPECT_THAT(too_few.err, HasSubstr("parameter 'soc.plic.contexts' is 31; the mesh cluster needs 2 PLIC contexts "
                                     "per tile (32"));
}

// Console output is printed from buffers in the harts' caches (printf's
// buffer, written with stores that stay in an L1): the UART and semihosting
// paths see the coherent value. Every workload then checks its own result.
TEST(MeshCluster, WorkloadScenariosPass) {
  for (const char* name : {"mesh-lu", "mesh-fft", "mesh-radix", "mesh-ocean", "mesh-nbody"}) {
    std::string stats = temp_path(std::string(name) + ".json");
    auto result = run_npuvp("run " + scenario(name) + " --quiet --stats " + stats);
    EXPECT_EQ(result.status, 0) << name << ": " << result.err;
    EXPECT_THAT(last_line(result.err), HasSubstr(std::string("npuvp: ") + name + ": PASS"));
    auto statistics = statistics_of(stats);
    EXPECT_GT(statistics["soc.cluster.memory.l1.load_misses"].get<double>(), 1000.0) << name;
    EXPECT_LT(statistics["soc.cluster.memory.l1.miss_rate"].get<double>(), 0.5) << name;
  }
}

// ---- every protocol: litmus outcomes and the scenarios ----------------------------------
//
// Parametrized over the registry (npuvp::coherence::protocol_names()), so a newly
// registered protocol is covered without editing this file.

// Which outcomes a protocol may show: MESI and MSI (blocking cores, invalidation
// based) must keep to RVWMO everywhere; NSI to its documented model, which is RVWMO for
// the fenced variants (litmus_rvwmo.h explains why they coincide for the unfenced ones
// too).
namespace {

litmus::ForbidsFunction memory_model_of(const std::string& protocol) {
  if (protocol == "nsi") return litmus::nsi_model_forbids;
  return litmus::rvwmo_forbids;
}

}  // namespace

class MeshClusterLitmus : public ::testing::TestWithParam<std::string> {};

TEST_P(MeshClusterLitmus, OutcomesAllowedByTheMemoryModel) {
  const std::string protocol = GetParam();
  auto result = run_npuvp("run " + scenario("mesh-litmus") + " --quiet --set mesh.coherence=" + protocol);
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(last_line(result.err), HasSubstr("npuvp: mesh-litmus: PASS"));
  auto run = litmus::parse_litmus(result.out);
  EXPECT_TRUE(run.skipped.empty());
  EXPECT_THAT(litmus::violations(run, litmus::all_tests(), memory_model_of(protocol)), IsEmpty()) << protocol;
  // Properly fenced programs observe only what RVWMO allows under every protocol.
  std::vector<std::string> fenced;
  for (const auto& test : litmus::all_tests())
    if (litmus::is_fenced(test)) fenced.push_back(test);
  EXPECT_EQ(fenced.size(), 7u);
  EXPECT_THAT(litmus::violations(run, fenced, litmus::rvwmo_forbids), IsEmpty()) << protocol;
  // MP+stale: the reader loads x, the writer then writes x and y, the reader sees y=1
  // (r2=0 r0=1; the waits in litmus.c make this the usual interleaving). Then reading x
  // again gives the stale 0 under NSI (its copy was not invalidated) and 1 under the
  // invalidation-based protocols; the fence r,r makes NSI read 1 too.
  auto count_of = [&](const std::string& test, const litmus::Outcome& wanted) {
    unsigned n = 0;
    for (const auto& [outcome, count] : run.outcomes[test])
      if (outcome == wanted) n += count;
    return n;
  };
  const unsigned stale = count_of("MP+stale", {{"r0", 1}, {"r1", 0}, {"r2", 0}});
  const unsigned fresh = count_of("MP+stale", {{"r0", 1}, {"r1", 1}, {"r2", 0}});
  if (protocol == "nsi") {
    EXPECT_GT(stale, 0u);
  } else if (protocol == "mesi" || protocol == "msi") {
    EXPECT_EQ(stale, 0u);
    EXPECT_GT(fresh, 0u) << "the MP+stale interleaving did not occur";
  }
  EXPECT_GT(count_of("MP+stale+fences", {{"r0", 1}, {"r1", 1}, {"r2", 0}}), 0u) << protocol;
  // The histogram, for the record (docs/coherence.md, "Litmus outcomes").
  for (const auto& test : litmus::all_tests()) {
    std::string line = protocol + " " + test + ":";
    for (const auto& [outcome, count] : run.outcomes[test])
      line += " [" + litmus::describe(outcome) + "]x" + std::to_string(count);
    std::cout << line << "\n";
  }
}

INSTANTIATE_TEST_SUITE_P(Protocols, MeshClusterLitmus, ::testing::ValuesIn(npuvp::coherence::protocol_names()),
                         [](const auto& info) { return info.param; });

// The checkers the test above relies on can fail: NSI's model rejects what RVWMO
// rejects once fenced, and a line going backwards (CoRR) even without fences.
TEST(MeshCluster, NsiModelCheckerRejectsForbiddenOutcomes) {
  using litmus::nsi_model_forbids;
  EXPECT_NE(nsi_model_forbids("MP+fences", {{"r0", 1}, {"r1", 0}}), "");
  EXPECT_EQ(nsi_model_forbids("MP", {{"r0", 1}, {"r1", 0}}), "");  // stale data after the flag
  EXPECT_NE(nsi_model_forbids("SB+fences", {{"r0", 0}, {"r1", 0}}), "");
  EXPECT_EQ(nsi_model_forbids("SB", {{"r0", 0}, {"r1", 0}}), "");
  EXPECT_NE(nsi_model_forbids("IRIW+fences", {{"r0", 1}, {"r1", 0}, {"r2", 1}, {"r3", 0}}), "");
  EXPECT_EQ(nsi_model_forbids("IRIW", {{"r0", 1}, {"r1", 0}, {"r2", 1}, {"r3", 0}}), "");
  EXPECT_NE(nsi_model_forbids("CoRR", {{"r0", 1}, {"r1", 0}}), "");
  EXPECT_NE(nsi_model_forbids("2+2W", {{"x", 0}, {"y", 1}}), "");
  EXPECT_NE(nsi_model_forbids("MP", {{"r0", 2}, {"r1", 0}}), "");
  EXPECT_NE(nsi_model_forbids("WRC", {{"r0", 0}}), "");
  EXPECT_EQ(nsi_model_forbids("MP+stale", {{"r0", 1}, {"r1", 0}, {"r2", 0}}), "");
  EXPECT_NE(nsi_model_forbids("MP+stale", {{"r0", 1}, {"r1", 0}, {"r2", 1}}), "");
  EXPECT_NE(nsi_model_forbids("MP+stale+fences", {{"r0", 1}, {"r1", 0}, {"r2", 0}}), "");
  // For these tests the NSI model and RVWMO allow the same outcomes (values 0..2).
  for (const auto& test : litmus::all_tests()) {
    std::vector<std::string> names = {"r0", "r1"};
    if (test.rfind("IRIW", 0) == 0) names = {"r0", "r1", "r2", "r3"};
    if (test.rfind("MP+stale", 0) == 0) names = {"r0", "r1", "r2"};
    if (test.rfind("2+2W", 0) == 0) names = {"x", "y"};
    unsigned combinations = 1;
    for (std::size_t i = 0; i < names.size(); ++i) combinations *= 3;
    for (unsigned code = 0; code < combinations; ++code) {
      litmus::Outcome outcome;
      unsigned rest = code;
      for (const auto& name : names) {
        outcome[name] = rest % 3;
        rest /= 3;
      }
      EXPECT_EQ(nsi_model_forbids(test, outcome).empty(), litmus::rvwmo_forbids(test, outcome).empty())
          << test << " " << litmus::describe(outcome);
    }
  }
  // A wrong count and a missing test are violations too.
  auto run = litmus::parse_litmus(
      "litmus CoRR iterations=3 threads=2\n"
      "litmus CoRR outcome r0=1 r1=1 count=2\n"
      "litmus done\n");
  EXPECT_EQ(litmus::violations(run, {"CoRR", "MP"}).size(), 2u);
}

// The runtime's wait loops poll with plain loads and fence every
// NPUVP_SMP_POLLS_PER_FENCE polls (docs/smp-runtime.md, "Waiting"). Under NSI
// with the periodic synchronisation off, only those fences make a waiter see
// the release: hello's turn-taking (16 waits in a row) must still finish, and
// well within one former period, while the polls themselves are L1 hits.
TEST(MeshCluster, NsiWaitLoopsEndWithoutThePeriodicSynchronisation) {
  std::string stats = temp_path("hello-nsi-no-periodic.json");
  auto result = run_npuvp("run " + scenario("mesh-hello") +
                          " --quiet --set mesh.coherence=nsi --set mesh.nsi.periodic_synchronisation_cycles=0"
                          " --set sim.limit.sim_time=2ms --stats " + stats);
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr(hello_lines()));
  auto statistics = statistics_of(stats);
  std::remove(stats.c_str());
  EXPECT_EQ(statistics["soc.cluster.memory.l1.periodic_synchronisations"].get<double>(), 0.0);
  const double hits = statistics["soc.cluster.memory.l1.load_hits"].get<double>();
  const double validations = statistics["soc.cluster.memory.l1.suspect_validated_current"].get<double>() +
                             statistics["soc.cluster.memory.l1.suspect_validated_stale"].get<double>();
  // A fence per poll would validate on every poll (validations ~ polls).
  EXPECT_GT(hits, 8 * validations) << "hits " << hits << ", validations " << validations;
}

// NSI's validations are carried at once by default (soc.cluster.memory.express,
// docs/cluster.md "Express requests"). The same workload with them as timed
// messages passes too and simulates nearly the same run: the same traffic and
// fates of suspect lines, within a few percent (only the order in which the
// homes see concurrent requests differs). Without express, nothing is carried.
TEST(MeshCluster, NsiExpressValidationsMatchTimedOnes) {
  nlohmann::json runs[2];
  for (int express = 0; express < 2; ++express) {
    std::string stats = temp_path("nbody-nsi-express" + std::to_string(express) + ".json");
    auto result = run_npuvp("run " + scenario("mesh-nbody") + " --quiet --set mesh.coherence=nsi" +
                            " --set cluster.memory.express=" + (express ? "true" : "false") + " --stats " + stats);
    EXPECT_EQ(result.status, 0) << result.err;
    EXPECT_THAT(last_line(result.err), HasSubstr("npuvp: mesh-nbody: PASS"));
    runs[express] = statistics_of(stats);
    std::remove(stats.c_str());
  }
  const auto& timed = runs[0];
  const auto& express = runs[1];
  EXPECT_EQ(timed["soc.cluster.memory.express_messages"].get<double>(), 0.0);
  const double validations = express["soc.cluster.memory.l1.suspect_validated_current"].get<double>() +
                             express["soc.cluster.memory.l1.suspect_validated_stale"].get<double>();
  // Each validation is a request and its reply; nearly all find their channels free.
  EXPECT_GT(express["soc.cluster.memory.express_messages"].get<double>(), 1.6 * validations);
  for (const char* name : {"soc.mesh.messages", "soc.mesh.flits", "soc.cluster.memory.l1.suspect_validated_current",
                           "soc.cluster.memory.l1.load_misses", "soc.cluster.hart0.cycles"}) {
    const double a = timed[name].get<double>(), b = express[name].get<double>();
    EXPECT_GT(a, 0.0) << name;
    EXPECT_NEAR(b / a, 1.0, 0.03) << name << ": timed " << a << ", express " << b;
  }
}

// The litmus outcomes stay within NSI's memory model when validations travel as
// timed messages (the default carries them at once: MeshClusterLitmus).
TEST(MeshCluster, NsiLitmusWithTimedValidations) {
  auto result = run_npuvp("run " + scenario("mesh-litmus") +
                          " --quiet --set mesh.coherence=nsi --set cluster.memory.express=false");
  ASSERT_EQ(result.status, 0) << result.err;
  auto run = litmus::parse_litmus(result.out);
  EXPECT_TRUE(run.skipped.empty());
  EXPECT_THAT(litmus::violations(run, litmus::all_tests(), litmus::nsi_model_forbids), IsEmpty());
}

// hello and the five workloads pass (their own self-checks and the scenario's checks)
// under every registered protocol, and the run really used that protocol: only the
// invalidation-based ones send Invalidation messages.
class MeshClusterScenario : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(MeshClusterScenario, PassesUnderProtocol) {
  const auto& [protocol, name] = GetParam();
  std::string stats = temp_path(name + "-" + protocol + ".json");
  auto result = run_npuvp("run " + scenario(name) + " --quiet --set mesh.coherence=" + protocol + " --stats " + stats);
  EXPECT_EQ(result.status, 0) << name << " under " << protocol << ": " << result.err;
  EXPECT_THAT(last_line(result.err), HasSubstr("npuvp: " + name + ": PASS"));
  auto statistics = statistics_of(stats);
  std::remove(stats.c_str());
  const double invalidations = statistics.value("soc.mesh.type.Invalidation.messages", 0.0);
  if (protocol == "nsi")
    EXPECT_EQ(invalidations, 0.0);
  else
    EXPECT_GT(invalidations, 0.0) << protocol;
}

INSTANTIATE_TEST_SUITE_P(
    ProtocolsAndScenarios, MeshClusterScenario,
    ::testing::Combine(::testing::ValuesIn(npuvp::coherence::protocol_names()),
                       ::testing::Values("mesh-hello", "mesh-lu", "mesh-fft", "mesh-radix", "mesh-ocean",
                                         "mesh-nbody")),
    [](const auto& info) {
      std::string name = std::get<0>(info.param) + "_" + std::get<1>(info.param).substr(5);
      return name;
    });

TEST(MeshCluster, UnknownProtocolIsAClearError) {
  auto result = run_npuvp("run " + scenario("mesh-hello") + " --quiet --set mesh.coherence=moesi-x");
  EXPECT_EQ(result.status, 125) << result.err;
  EXPECT_THAT(result.err, HasSubstr("soc.mesh.coherence"));
  EXPECT_THAT(result.err, HasSubstr("unknown coherence protocol 'moesi-x'"));
  EXPECT_THAT(result.err, HasSubstr("mesi"));
}

TEST(MeshCluster, ClusterOptionNeedsAnElf) {
  auto result = run_npuvp("run " + scenario("hello") + " --cluster");
  EXPECT_EQ(result.status, 125);
  EXPECT_THAT(result.err, HasSubstr("--cluster goes with --elf"));
}

TEST(MeshCluster, ClusterImageCannotBeCombinedWithAHostImage) {
  std::string path = temp_path("mixed.yaml");
  std::ofstream(path) << "name: mixed\nimages:\n  - elf: " << firmware("host/hello.elf") << "\n  - elf: "
                      << firmware("mesh/hello.elf") << "\n    core: cluster\n";
  auto result = run_npuvp("run " + path + " --quiet");
  EXPECT_EQ(result.status, 125);
  EXPECT_THAT(result.err, HasSubstr("cannot be combined with a host image"));
}

// `npuvp params` lists the registered protocols (in the doc of
// mesh.coherence) and every protocol's own parameters.
TEST(MeshCluster, ParamsListsTheProtocolsAndTheirParameters) {
  auto result = run_npuvp("params");
  ASSERT_EQ(result.status, 0) << result.err;
  for (const char* protocol : {"mesi — ", "msi — ", "nsi — "}) EXPECT_THAT(result.out, HasSubstr(protocol));
  EXPECT_THAT(result.out, HasSubstr("soc.mesh.nsi.periodic_synchronisation_cycles"));
  EXPECT_THAT(result.out, HasSubstr("soc.mesh.nsi.validation"));
  EXPECT_THAT(result.out, HasSubstr("soc.mesh.mesi.thesis_baseline"));
}

// The thesis's options, selected with --set as a study does
// (docs/coherence.md): on the same program they change the messages — the
// thesis baseline MESI sends no Upgrade, the literal NSI validation no
// RepValidShd / RepValidExc — and the program still runs correctly.
TEST(MeshCluster, ThesisOptionsChangeTheMessagesFromTheCommandLine) {
  struct Run {
    const char* settings;
    const char* message_type;  // the type the option removes
    bool removed;
  };
  const Run runs[] = {
      {"--set mesh.coherence=mesi", "Upgrade", false},
      {"--set mesh.coherence=mesi --set mesh.mesi.thesis_baseline=true", "Upgrade", true},
      {"--set mesh.coherence=nsi", "RepValidShd", false},
      {"--set mesh.coherence=nsi --set mesh.nsi.validation=data", "RepValidShd", true},
  };
  for (const Run& run : runs) {
    const std::string stats = temp_path("hello-options.json");
    auto result = run_npuvp("run " + scenario("mesh-hello") + " --quiet " + run.settings + " --stats " + stats);
    EXPECT_EQ(result.status, 0) << run.settings << ": " << result.err;
    EXPECT_THAT(result.out, HasSubstr(hello_lines())) << run.settings;
    auto statistics = statistics_of(stats);
    std::remove(stats.c_str());
    const std::string key = std::string("soc.mesh.type.") + run.message_type + ".messages";
    const double count = statistics.contains(key) ? statistics[key].get<double>() : 0.0;
    if (run.removed)
      EXPECT_EQ(count, 0.0) << run.settings;
    else
      EXPECT_GT(count, 0.0) << run.settings;
  }
}

// Region of interest (docs/observability.md): lu marks its parallel region
// (mesh_parallel_begin/end); every additive statistic is reported again over
// it as roi.<name>, a part of the whole run's. hello marks nothing: no roi.*.
TEST(MeshCluster, RegionOfInterestCountsTheParallelRegionOnly) {
  const std::string stats = temp_path("lu-roi.json");
  auto result = run_npuvp("run " + scenario("mesh-lu") + " --quiet --stats " + stats);
  ASSERT_EQ(result.status, 0) << result.err;
  const auto document = nlohmann::json::parse(read_file(stats));
  const auto& statistics = document["statistics"];
  auto value = [&](const std::string& name) {
    EXPECT_TRUE(statistics.contains(name)) << name;
    return statistics.contains(name) ? statistics[name].get<double>() : 0.0;
  };
  EXPECT_EQ(value("roi.regions"), 1.0);
  const double region = value("roi.seconds");
  EXPECT_GT(region, 0.0);
  EXPECT_LT(region, document["npuvp"]["sim_time_seconds"].get<double>());
  EXPECT_NEAR(value("roi.end_seconds") - value("roi.begin_seconds"), region, 1e-12);
  for (const std::string name : {"soc.mesh.flits", "soc.mesh.flit_hops", "soc.cluster.memory.l1.load_misses",
                                 "soc.cluster.hart0.instructions", "soc.mesh.energy.dynamic"}) {
    EXPECT_GT(value("roi." + name), 0.0) << name;
    // Hart 0's sequential check of L x U and the start-up are outside the region.
    EXPECT_LT(value("roi." + name), value(name)) << name;
  }
  EXPECT_EQ(value("roi.soc.mesh.flit_hops"), value("roi.soc.mesh.link_traversals"));
  // Ratios have no region figure; histograms give a count and a mean.
  EXPECT_FALSE(statistics.contains("roi.soc.cluster.memory.l1.miss_rate"));
  EXPECT_GT(value("roi.soc.mesh.latency.count"), 0.0);
  // Static energy: 16 routers x soc.mesh.router_static_power (0.2 W) x the region's time.
  EXPECT_NEAR(value("roi.soc.mesh.energy.static"), 16 * 0.2 * region, 16 * 0.2 * region * 0.01);
  EXPECT_NEAR(value("roi.soc.mesh.energy.total"),
              value("roi.soc.mesh.energy.dynamic") + value("roi.soc.mesh.energy.static"), 1e-12);

  const std::string hello_stats = temp_path("hello-roi.json");
  auto hello = run_npuvp("run " + scenario("mesh-hello") + " --quiet --stats " + hello_stats);
  ASSERT_EQ(hello.status, 0) << hello.err;
  // Named, not iterated as a temporary: `f().items()` in a range-for would use the
  // document after its end (found by ASan, stack-use-after-scope).
  const auto hello_statistics = statistics_of(hello_stats);
  for (const auto& [name, unused] : hello_statistics.items())
    EXPECT_NE(name.rfind("roi.", 0), 0u) << name << " in a run without a region of interest";
}

// Barrier waiters sleep in WFI until the releaser's IPI instead of polling
// (docs/smp-runtime.md, Sleeping waits): under every protocol the harts
// spend part of lu's parallel region asleep, woken by CLINT software
// interrupts, and NSI's polling validations are gone (its flits in the region
// are within 10 % of MESI's; with polling they were 1.6 x).
TEST(MeshCluster, BarrierWaitersSleepUntilWokenByAnInterProcessorInterrupt) {
  std::map<std::string, double> flits;
  for (const std::string protocol : {"mesi", "msi", "nsi"}) {
    const std::string stats = temp_path("lu-wfi-" + protocol + ".json");
    auto result = run_npuvp("run " + scenario("mesh-lu") + " --set mesh.coherence=" + protocol +
                            " --quiet --stats " + stats);
    ASSERT_EQ(result.status, 0) << protocol << ": " << result.err;
    const auto statistics = statistics_of(stats);
    double idle = 0;
    for (int hart = 0; hart < 16; ++hart)
      idle += statistics["roi.soc.cluster.hart" + std::to_string(hart) + ".idle_cycles"].get<double>();
    EXPECT_GT(idle, 0.0) << protocol;
    EXPECT_GE(statistics["soc.clint.software_interrupts"].get<double>(), 15.0) << protocol;
    flits[protocol] = statistics["roi.soc.mesh.flits"].get<double>();
  }
  EXPECT_LT(flits["nsi"], 1.1 * flits["mesi"]);
}
