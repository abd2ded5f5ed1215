// Pinned weights end to end (docs/compiler.md "Pinned weights"): ResNet-18 on the default SoC
// (2 AI Cores, 12.8 GB/s DDR), compiled with the weights of its DDR-bound Convs pinned in the
// L2 buffer and with --no-pinned-weights. The runtime copies them into the L2 at load; the
// output must be the same bit for bit, the layers must read less from the DDR and more from
// the L2, and the inference must take less simulated time. The copy belongs to no layer (the
// first layer's DDR bytes stay). With a 4 MiB L2 fewer weights fit and the run stays correct
// (a copy past the L2's end would fault).
#include "integration/network_runs.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using namespace npuvp::test_support;

namespace {

struct Inference {
  std::string output;  // the .npy bytes
  double latency = 0, ddr_bytes = 0, l2_bytes = 0;  // the profile's: total latency, layers' bytes
  double first_layer_ddr_bytes = 0;
};

Inference infer(const std::string& tag, const std::string& options) {
  const std::string output = temp_path("resnet18_" + tag + ".npy"), profile = temp_path("resnet18_" + tag + ".csv");
  const CommandResult result =
      infer_generated_network("resnet18", " --output " + output + " --profile " + profile + " --quiet" + options);
  EXPECT_EQ(result.status, 0) << result.out << result.err;
  EXPECT_GE(reported_cosine(result), 0.999);
  Inference run;
  run.output = read_file(output);
  const std::string csv = read_file(profile);
  run.latency = profile_latency(csv);
  const auto layers = profile_rows(csv);
  for (const auto& layer : layers) {
    run.ddr_bytes += layer.number("ddr_bytes");
    run.l2_bytes += layer.number("l2_bytes");
  }
  if (!layers.empty()) run.first_layer_ddr_bytes = layers.front().number("ddr_bytes");
  std::remove(output.c_str());
  std::remove(profile.c_str());
  return run;
}

TEST(NetworkPinnedWeights, ResNet18ReadsItsPinnedWeightsFromTheL2) {
  const Inference pinned = infer("pinned", ""), in_ddr = infer("in_ddr", " --no-pinned-weights"),
                  small = infer("small_l2", " --set soc.l2.size=4MiB");
  ASSERT_FALSE(::testing::Test::HasFailure());
  ASSERT_FALSE(pinned.output.empty());
  EXPECT_TRUE(pinned.output == in_ddr.output) << "the output differs with pinned weights";
  EXPECT_TRUE(small.output == in_ddr.output) << "the output differs with a 4 MiB L2";
  // ResNet-18 pins 5.1 MB of weights; every byte of them leaves the DDR's share of the layers.
  EXPECT_LT(pinned.ddr_bytes, in_ddr.ddr_bytes - 4e6) << pinned.ddr_bytes / 1e6 << " MB";
  EXPECT_GT(pinned.l2_bytes, in_ddr.l2_bytes + 4e6);
  EXPECT_LT(pinned.latency, 0.95 * in_ddr.latency) << pinned.latency * 1e3 << " ms / " << in_ddr.latency * 1e3;
  // (within the few bytes the host's polling moves beside it; the copy is megabytes)
  EXPECT_NEAR(pinned.first_layer_ddr_bytes, in_ddr.first_layer_ddr_bytes, 4096) << "the copy counted in the first layer";
  // A smaller L2: fewer pinned weights, a latency between the two.
  EXPECT_GT(small.ddr_bytes, pinned.ddr_bytes);
  EXPECT_LT(small.ddr_bytes, in_ddr.ddr_bytes);
  EXPECT_LE(small.latency, in_ddr.latency);
}

}  // namespace
