// The offload benchmark's scenario (scenarios/offload-bench.yaml, firmware/host/offload-bench.c)
// runs and prints sane figures: a small GEMM on 2 AI Cores instead of 1024^3, a few
// launches. Correctness only; the figures themselves are for tests/bench/offload_bench.cpp.
#include "integration/run_npuvp.h"
#include "scenario_patch.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <sstream>
#include <string>

using namespace npuvp::test_support;
using ::testing::HasSubstr;

namespace {

// scenarios/offload-bench.yaml with some `patch:` values replaced.
std::string patched_scenario(const std::map<std::string, std::string>& patch) {
  std::map<std::string, std::string> unmatched;
  const std::string text = patch_scenario_text(read_file(scenario("offload-bench")), patch, &unmatched);
  EXPECT_TRUE(unmatched.empty()) << "the scenario has no patch value " << unmatched.begin()->first;
  const std::string path = temp_path("offload-bench.yaml");
  std::ofstream(path) << text;
  return path;
}

// key=value fields of the first stdout line starting with `prefix`.
std::map<std::string, std::string> fields(const std::string& out, const std::string& prefix) {
  std::map<std::string, std::string> result;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    std::istringstream words(line.substr(prefix.size()));
    std::string word;
    while (words >> word) {
      auto eq = word.find('=');
      if (eq != std::string::npos) result[word.substr(0, eq)] = word.substr(eq + 1);
    }
    break;
  }
  return result;
}

double number(const std::map<std::string, std::string>& f, const std::string& key) {
  auto it = f.find(key);
  if (it == f.end()) {
    ADD_FAILURE() << "no " << key << "=";
    return -1;
  }
  return std::stod(it->second);
}

}  // namespace

TEST(OffloadBench, SmallRunOnTwoAiCoresPassesWithSaneFigures) {
  const std::string yaml = patched_scenario({{"bench_launches", "5"},
                                             {"bench_async_launches", "5"},
                                             {"bench_m", "256"},
                                             {"bench_k", "256"},
                                             {"bench_n", "512"},
                                             {"bench_blocks", "4"}});
  auto result = run_npuvp("run " + yaml + " --quiet --set soc.ai_cores=2");
  std::remove(yaml.c_str());
  ASSERT_EQ(result.status, 0) << result.out << result.err;
  EXPECT_THAT(result.out, HasSubstr("offload-bench: PASS"));
  EXPECT_THAT(result.out, HasSubstr("offload-bench: clocks: assumed"));

  // Launch overhead: host call -> first kernel instruction, in host cycles.
  auto first = fields(result.out, "offload-bench: overhead call_to_first_instruction ");
  ASSERT_FALSE(first.empty()) << result.out;
  EXPECT_EQ(number(first, "launches"), 5);
  EXPECT_GT(number(first, "min"), 0);
  EXPECT_LE(number(first, "min"), number(first, "mean"));
  EXPECT_LE(number(first, "mean"), number(first, "max"));
  EXPECT_LT(number(first, "max"), 100000);
  auto end = fields(result.out, "offload-bench: overhead call_to_block_end ");
  auto round_trip = fields(result.out, "offload-bench: overhead round_trip ");
  ASSERT_FALSE(end.empty());
  ASSERT_FALSE(round_trip.empty());
  EXPECT_GT(number(end, "min"), number(first, "min"));  // the block ends after it starts
  EXPECT_GT(number(round_trip, "min"), number(first, "min"));  // returns after the block started
  EXPECT_LT(number(round_trip, "max"), 100000);
  auto async = fields(result.out, "offload-bench: async ");
  EXPECT_EQ(number(async, "launches"), 5);
  EXPECT_GT(number(async, "cycles_per_launch"), 0);
  EXPECT_LT(number(async, "cycles_per_launch"), 100000);

  // The GEMM: all blocks done on 2 cores, TS cycles counted, sample matches.
  auto gemm = fields(result.out, "offload-bench: gemm ");
  ASSERT_FALSE(gemm.empty()) << result.out;
  EXPECT_EQ(number(gemm, "m"), 256);
  EXPECT_EQ(number(gemm, "n"), 512);
  EXPECT_EQ(number(gemm, "cores"), 2);
  EXPECT_EQ(number(gemm, "blocks"), 4);
  EXPECT_EQ(number(gemm, "blocks_done"), 4);
  EXPECT_EQ(gemm["mem"], "ddr");
  EXPECT_GT(number(gemm, "ts_cycles"), 0);
  EXPECT_GE(number(gemm, "kernel_cycles"), number(gemm, "ts_cycles"));  // 2 cores' blocks summed
  EXPECT_THAT(result.out, HasSubstr("sampled elements, 0 differ; 0 unwritten"));
}

// Issue 19: Ascend 910's 32 AI Cores. A GEMM of 32 C tiles (16 x 4096: one row of 32
// tiles of 16 x 128) launched as 32 task blocks through the driver and the task
// scheduler: the TS gives each idle core one block, so every core's own statistics count
// exactly one block, and the sampled C matches the host reference.
TEST(OffloadBench, ThirtyTwoBlockGemmRunsOneBlockOnEachOf32AiCores) {
  const std::string yaml = patched_scenario({{"bench_launches", "0"},
                                             {"bench_async_launches", "0"},
                                             {"bench_m", "16"},
                                             {"bench_k", "64"},
                                             {"bench_n", "4096"},
                                             {"bench_blocks", "32"}});
  const std::string stats = temp_path("offload-bench-32.json");
  auto result = run_npuvp("run " + yaml + " --quiet --stats " + stats + " --set soc.ai_cores=32");
  std::remove(yaml.c_str());
  ASSERT_EQ(result.status, 0) << result.out << result.err;
  EXPECT_THAT(result.out, HasSubstr("offload-bench: PASS"));
  auto gemm = fields(result.out, "offload-bench: gemm ");
  ASSERT_FALSE(gemm.empty()) << result.out;
  EXPECT_EQ(number(gemm, "cores"), 32);
  EXPECT_EQ(number(gemm, "blocks"), 32);
  EXPECT_EQ(number(gemm, "blocks_done"), 32);
  EXPECT_THAT(result.out, HasSubstr("sampled elements, 0 differ; 0 unwritten"));

  auto json = nlohmann::json::parse(read_file(stats));
  std::remove(stats.c_str());
  const auto& s = json["statistics"];
  for (int core = 0; core < 32; ++core) {
    const std::string name = "soc.aicore" + std::to_string(core) + ".blocks_done";
    ASSERT_TRUE(s.contains(name)) << name;
    EXPECT_EQ(s[name].get<double>(), 1) << name;
  }
  EXPECT_FALSE(s.contains("soc.aicore32.blocks_done"));
}
