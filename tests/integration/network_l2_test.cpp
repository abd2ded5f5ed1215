// Activations in the L2 buffer (docs/compiler.md "Memory planning", docs/networks.md
// "The L2 buffer"), end to end through `npuvp infer`: the 2-layer BERT encoder on 8 AI
// Cores (its MatMuls' shared A operand read by every block) and ResNet-18 on 2, each
// compiled with its activations in the L2 arena and with --no-l2. The DDR controller's
// own byte counters must drop by at least a quarter, the L2 buffer must serve what the
// DDR no longer does (and nothing with --no-l2), and the output must be the same bit for
// bit and match PyTorch's. With a 1 MiB L2 (soc.l2.size) ResNet-18's 3.2 MB arena does not
// fit: part of it stays in DDR, and the run stays correct (an L2 arena past the buffer's end
// would fault), its DDR traffic between the two.
#include "integration/network_runs.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

using namespace npuvp::test_support;

namespace {

struct Inference {
  std::string output;  // the .npy bytes
  double cosine = 0;
  double ddr_bytes = 0, l2_bytes = 0;  // read + written, as the memories count them
};

double statistic(const nlohmann::json& statistics, const std::string& unit, const std::string& name) {
  return statistics.at("soc." + unit + "." + name).get<double>();
}

Inference infer(const std::string& model, unsigned cores, bool l2, const std::string& settings = "") {
  const std::string tag = model + (l2 ? "_l2" : "_ddr") + (settings.empty() ? "" : "_set");
  const std::string output = temp_path(tag + ".npy"), stats = temp_path(tag + ".json");
  const CommandResult result =
      infer_generated_network(model, " --output " + output + " --stats " + stats + " --set soc.ai_cores=" +
                                         std::to_string(cores) + (l2 ? "" : " --no-l2") + settings + " --quiet");
  EXPECT_EQ(result.status, 0) << result.err;
  Inference run;
  run.output = read_file(output);
  run.cosine = reported_cosine(result);
  const nlohmann::json statistics = nlohmann::json::parse(read_file(stats)).at("statistics");
  run.ddr_bytes = statistic(statistics, "ddr", "bytes_read") + statistic(statistics, "ddr", "bytes_written");
  run.l2_bytes = statistic(statistics, "l2", "bytes_read") + statistic(statistics, "l2", "bytes_written");
  std::remove(output.c_str());
  std::remove(stats.c_str());
  return run;
}

void expect_l2_pays(const std::string& model, unsigned cores) {
  const Inference in_ddr = infer(model, cores, false), in_l2 = infer(model, cores, true);
  ASSERT_FALSE(::testing::Test::HasFailure());
  EXPECT_GE(in_ddr.cosine, 0.999);
  ASSERT_FALSE(in_l2.output.empty());
  EXPECT_TRUE(in_l2.output == in_ddr.output) << "the output differs with the activations in L2";
  EXPECT_EQ(in_ddr.l2_bytes, 0) << "--no-l2 leaves the L2 buffer unused";
  EXPECT_GT(in_l2.l2_bytes, 0);
  EXPECT_LT(in_l2.ddr_bytes, 0.75 * in_ddr.ddr_bytes)
      << "DDR bytes " << in_ddr.ddr_bytes / 1e6 << " MB -> " << in_l2.ddr_bytes / 1e6 << " MB";
}

TEST(NetworkL2, Bert2LayerOn8CoresMovesLessThroughDdr) { expect_l2_pays("bert_2layer", 8); }

TEST(NetworkL2, ResNet18On2CoresMovesLessThroughDdr) { expect_l2_pays("resnet18", 2); }

TEST(NetworkL2, ASmallL2HoldsPartOfResNet18sActivations) {
  const Inference in_ddr = infer("resnet18", 2, false), in_l2 = infer("resnet18", 2, true),
            small = infer("resnet18", 2, true, " --set soc.l2.size=1MiB");
  ASSERT_FALSE(::testing::Test::HasFailure());
  EXPECT_TRUE(small.output == in_ddr.output) << "the output differs with part of the activations in L2";
  EXPECT_GT(small.l2_bytes, 0);
  EXPECT_LT(small.l2_bytes, in_l2.l2_bytes);
  EXPECT_GT(small.ddr_bytes, in_l2.ddr_bytes);
  EXPECT_LT(small.ddr_bytes, in_ddr.ddr_bytes);
}

}  // namespace
