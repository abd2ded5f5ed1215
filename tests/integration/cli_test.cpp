// `npuvp params` and the documentation generated from it; `npuvp stats diff`.
#include "integration/run_npuvp.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>

using namespace npuvp::test_support;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

TEST(Cli, ParamsListsEveryModelsParametersWithMeaning) {
  auto result = run_npuvp("params");
  ASSERT_EQ(result.status, 0) << result.err;
  for (const char* name : {"sim.quantum", "soc.cpu.clock", "soc.cpu.cpi.divide", "soc.ddr.size", "soc.uart0.output",
                           "soc.clint.timebase", "soc.plic.sources", "soc.htif.output",
                           "soc.cpu.semihosting.enable", "sim.limit.instructions"})
    EXPECT_THAT(result.out, HasSubstr(name)) << name;
  EXPECT_THAT(result.out, HasSubstr("core clock frequency"));
}

TEST(Cli, ParamsShowsTheValueARunWouldUse) {
  auto result = run_npuvp("params --set cpu.clock=2GHz");
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("(set: 2GHz)"));
  EXPECT_EQ(run_npuvp("params --set cpu.clockk=2GHz").status, 125);
}

TEST(Cli, ParameterDocumentationMatchesTheSimulator) {
  auto result = run_npuvp("params --markdown");
  ASSERT_EQ(result.status, 0);
  std::string doc = read_file(std::string(NPUVP_SOURCE_DIR) + "/docs/parameters.md");
  EXPECT_NE(doc.find(result.out), std::string::npos)
      << "docs/parameters.md is stale: regenerate the table with `npuvp params --markdown`";
}

TEST(Cli, VersionNamesSystemC) {
  auto result = run_npuvp("--version");
  EXPECT_EQ(result.status, 0);
  EXPECT_THAT(result.out, HasSubstr("SystemC 2.3.4"));
}

// `npuvp stats diff`: two real runs that differ in one parameter; the diff
// names what moved (the CPU's cycles at a lower clock are the same count of
// cycles but twice the simulated time) and leaves out what did not.
TEST(Cli, StatsDiffShowsWhatAParameterChanged) {
  std::string a = temp_path("diff_a.json"), b = temp_path("diff_b.json");
  ASSERT_EQ(run_npuvp("run " + scenario("hello") + " --quiet --stats " + a).status, 0);
  ASSERT_EQ(run_npuvp("run " + scenario("hello") + " --quiet --stats " + b + " --set cpu.clock=500MHz").status, 0);
  auto result = run_npuvp("stats diff " + a + " " + b);
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("npuvp.sim_time_seconds"));
  EXPECT_THAT(result.out, Not(HasSubstr("soc.cpu.instructions")));  // same program, same count
  auto filtered = run_npuvp("stats diff " + a + " " + b + " --match 'npuvp.*'");
  EXPECT_THAT(filtered.out, Not(HasSubstr("soc.")));
  EXPECT_THAT(filtered.out, HasSubstr("changed statistics"));
  auto bad = run_npuvp("stats diff " + a);
  EXPECT_EQ(bad.status, 125);
  EXPECT_THAT(bad.err, HasSubstr("needs two statistics files"));
  std::remove(a.c_str());
  std::remove(b.c_str());
}

// The options the command line declares (`npuvp --help`, after the command
// synopsis) are the options docs/cli.md's table documents.
TEST(Cli, HelpAndDocumentationListTheSameOptions) {
  auto help = run_npuvp("--help");
  ASSERT_EQ(help.status, 0);
  auto option_names = [](const std::string& text) {
    std::set<std::string> names;
    for (std::size_t at = text.find("--"); at != std::string::npos; at = text.find("--", at + 2)) {
      const std::size_t end = text.find_first_not_of("abcdefghijklmnopqrstuvwxyz-", at + 2);
      names.insert(text.substr(at, end - at));
    }
    return names;
  };
  std::set<std::string> in_help;
  std::istringstream help_lines(help.out.substr(help.out.find("npuvp --help | --version") + 24));
  for (std::string line; std::getline(help_lines, line);) {
    // "  --set NAME=VALUE   ..." or "  -q [ --quiet ]   ...": the option's own name, not its description's.
    if (line.rfind("  -", 0) != 0) continue;
    const auto names = option_names(line.substr(0, line.find("  ", 2)));
    in_help.insert(names.begin(), names.end());
  }
  std::set<std::string> in_docs;
  std::istringstream doc_lines(read_file(std::string(NPUVP_SOURCE_DIR) + "/docs/cli.md"));
  for (std::string line; std::getline(doc_lines, line);) {
    if (line.rfind("| `-", 0) != 0) continue;
    const auto names = option_names(line.substr(0, line.find(" | ", 2)));
    in_docs.insert(names.begin(), names.end());
  }
  in_docs.erase("--help");  // handled before the declarations
  EXPECT_GT(in_help.size(), 20u);
  EXPECT_EQ(in_help, in_docs) << "docs/cli.md's option table and `npuvp --help` differ";
}

// An option without the one it goes with is bad input before anything runs,
// the message naming every option that goes with the missing one.
TEST(Cli, AnOptionWithoutTheOneItGoesWithIsBadInput) {
  for (const auto& [arguments, text] :
       {std::pair{"--vcd-match 'soc.*'", "--vcd-match goes with --vcd FILE"},
        std::pair{"--itrace-limit 10", "--itrace-cores, --itrace-pc and --itrace-limit go with --itrace FILE"},
        std::pair{"--itrace-pc 0:10", "--itrace-cores, --itrace-pc and --itrace-limit go with --itrace FILE"},
        std::pair{"--gdb-no-wait", "--gdb-no-wait goes with --gdb PORT"},
        std::pair{"--trace-coherence 0:1000", "--trace-ring and --trace-coherence go with --trace FILE"},
        std::pair{"--cluster", "--cluster goes with --elf FILE"}}) {
    auto result = run_npuvp(std::string("run ") + scenario("hello") + " " + arguments);
    EXPECT_EQ(result.status, 125) << arguments;
    EXPECT_THAT(result.err, StartsWith(std::string("npuvp: error: ") + text + " (")) << arguments;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << "one line: " << result.err;
    EXPECT_THAT(result.out, Not(HasSubstr("Hello"))) << "nothing ran";
  }
}

// Values are checked as the command line is read; a command takes only its own options.
TEST(Cli, MalformedValuesAndForeignOptionsAreBadInput) {
  for (const auto& [arguments, text] :
       {std::pair{"run hello.yaml --stats", "the required argument for option '--stats' is missing"},
        std::pair{"run hello.yaml --stats a.json --stats b.json", "'--stats' cannot be specified more than once"},
        std::pair{"run hello.yaml --itrace - --itrace-limit 0", "--itrace-limit expects a positive number of instructions, got '0'"},
        std::pair{"run hello.yaml --trace t.json --trace-ring -3", "--trace-ring expects a number N"},
        std::pair{"params --elf x.elf", "unknown option '--elf' for `npuvp params`"},
        std::pair{"infer m.onnx --input x.npy --gdb 1234", "unknown option '--gdb' for `npuvp infer`"},
        std::pair{"stats diff a.json b.json --threshold much", "--threshold expects a non-negative number"},
        std::pair{"stats diff a.json b.json --quiet", "unknown option '--quiet' for `npuvp stats diff`"}}) {
    auto result = run_npuvp(arguments);
    EXPECT_EQ(result.status, 125) << arguments;
    EXPECT_THAT(result.err, StartsWith("npuvp: error: ")) << arguments;
    EXPECT_THAT(result.err, HasSubstr(text)) << arguments;
  }
}

TEST(Cli, HelpAfterACommandPrintsTheOptions) {
  auto result = run_npuvp("run --help");
  EXPECT_EQ(result.status, 0);
  EXPECT_THAT(result.out, HasSubstr("--itrace-limit N"));
  EXPECT_THAT(result.out, HasSubstr("with --itrace: stop tracing"));
}

// Cluster mode is a parameter; what follows from the mesh's shape is computed:
// on a 2 x 4 mesh the CLINT serves 8 harts and memory sits at the corners 0, 1, 6, 7.
TEST(Cli, ClusterModeDerivesTheClintHartsAndMemoryControllersFromTheMesh) {
  auto result = run_npuvp("params --set mesh.width=2 --set mesh.height=4");
  ASSERT_EQ(result.status, 0) << result.err;
  auto line_of = [&](const std::string& name) {
    const std::size_t at = result.out.find(name + " ");
    return at == std::string::npos ? std::string() : result.out.substr(at, result.out.find('\n', at) - at);
  };
  EXPECT_THAT(line_of("soc.clint.harts"), HasSubstr("default 8"));
  EXPECT_THAT(line_of("soc.mesh.memory_controllers"), HasSubstr("(set: 0,1,6,7)"));
  EXPECT_THAT(line_of("soc.cluster.enable"), HasSubstr("default false"));
  auto corners = run_npuvp("params --set mesh.width=4 --set mesh.height=4");
  EXPECT_THAT(corners.out, HasSubstr("(set: 0,3,12,15)"));
}

// A `core: cluster` image sets cluster mode; turning it off is bad input.
TEST(Cli, ClusterImageWithClusterModeOffIsBadInput) {
  auto result = run_npuvp("run " + scenario("mesh-hello") + " --quiet --set cluster.enable=false");
  EXPECT_EQ(result.status, 125);
  EXPECT_THAT(last_line(result.err), HasSubstr("an image with `core: cluster` needs the mesh cluster, but soc.cluster.enable is false"));
}
