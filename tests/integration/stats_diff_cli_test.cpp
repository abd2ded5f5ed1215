// `npuvp stats diff` as a user runs it on files it did not write (issue 23).
#include "integration/run_npuvp.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

using namespace npuvp::test_support;
using ::testing::HasSubstr;

// Issue 23: a file `npuvp run --stats` did not write is bad input (125) with
// one line on stderr, never an exception (which printed on stdout, status 1).
TEST(StatsDiffCli, RefusesAFileThatIsNotAStatisticsFile) {
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
