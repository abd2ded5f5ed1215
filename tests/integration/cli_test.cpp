// `npuvp params` and the documentation generated from it; `npuvp stats diff`.
#include "integration/run_npuvp.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

using namespace npuvp::test_support;
using ::testing::HasSubstr;
using ::testing::Not;

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

// Issue 23: a file `npuvp run --stats` did not write is bad input (125) with
// one line on stderr, never an exception (which printed on stdout, status 1).
TEST(Cli, StatsDiffRefusesAFileThatIsNotAStatisticsFile) {
  std::string good = temp_path("diff_good.json");
  ASSERT_EQ(run_npuvp("run " + scenario("hello") + " --quiet --stats " + good).status, 0);
  auto refuse = [&](const std::string& name, const std::string& contents, const std::string& message) {
    std::string path = temp_path(name);
    std::ofstream(path) << contents;
    for (const std::string& arguments : {good + " " + path, path + " " + good}) {
      auto result = run_npuvp("stats diff " + arguments);
      EXPECT_EQ(result.status, 125) << name << ": " << result.err;
      EXPECT_EQ(result.out, "") << name;
      EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << name << ": " << result.err;
      EXPECT_THAT(result.err, HasSubstr("npuvp: error: '" + path + "' " + message)) << name;
    }
    std::remove(path.c_str());
  };
  refuse("count.json", R"({"statistics": {"soc.ring.latency": {"count": "many", "mean": 3}}})",
         "is not a statistics file of `npuvp run --stats`: statistic 'soc.ring.latency' is a histogram whose "
         "\"count\" is a string, not a number");
  const std::string not_ours = "is not a statistics file of `npuvp run --stats`: ";
  refuse("mean.json", R"({"statistics": {"soc.ring.latency": {"count": 3, "mean": [1]}}})",
         not_ours + "statistic 'soc.ring.latency' is a histogram whose \"mean\" is an array, not a number");
  refuse("value.json", R"({"statistics": {"soc.cpu.instructions": "12"}})",
         not_ours + "statistic 'soc.cpu.instructions' is a string, not a number or a histogram");
  refuse("object.json", R"({"statistics": {"soc.cpu": {"instructions": 12}}})",
         not_ours + "statistic 'soc.cpu' is an object without \"count\", not a histogram");
  refuse("array.json", "[1, 2, 3]", "is not a statistics file of `npuvp run --stats` (no \"statistics\" object)");
  refuse("yaml.json", "name: hello\nimages:\n  - elf: host/hello.elf\n", "is not valid JSON");
  refuse("empty.json", "", "is not valid JSON");
  auto directory = run_npuvp("stats diff " + good + " /tmp");
  EXPECT_EQ(directory.status, 125);
  EXPECT_THAT(directory.err, HasSubstr("'/tmp' is a directory, not a statistics file"));
  std::remove(good.c_str());
}
