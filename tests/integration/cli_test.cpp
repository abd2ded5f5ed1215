// `npuvp params` and the documentation generated from it; `npuvp stats diff`.
#include "integration/run_npuvp.h"

#include <gtest/gtest.h>

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
