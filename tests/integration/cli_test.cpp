// `npuvp params` and the documentation generated from it.
#include "integration/run_npuvp.h"

#include <gtest/gtest.h>

using namespace npuvp::test_support;
using ::testing::HasSubstr;

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
