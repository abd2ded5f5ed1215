// Simulated performance of a whole network (deterministic cycles, so tests; host wall time is
// measured in tests/bench/network_bench.cpp), ResNet-18 through `npuvp infer`:
//  * the timing model can never beat the roofline: every layer's simulated cycles in the
//    --profile CSV are at least its roofline bound (the larger of its MACs at the Cube's peak
//    on every AI Core and its minimum bytes at the DDR bandwidth); a layer below it means a
//    bug in the report or in the timing model;
//  * --no-double-buffering gives the same answer, later: the serial tiling is correct and
//    double buffering pays;
//  * with HBM-class memory the 3-channel 7x7 stem keeps the Cube busy (its window folded into
//    channels, not 3 channels padded to 16);
//  * ResNet-50 on the default SoC stays within 1.5x of its layers' bounds (geometric mean);
//  * a layer's cycles are the AI Cores' window, inside the task scheduler's (LeNet-5).
#include "integration/network_runs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

using namespace npuvp::test_support;

namespace {

TEST(NetworkRoofline, EveryResNet18LayerTakesAtLeastItsRooflineBound) {
  const ProfiledRun run = infer_with_profile("resnet18", "");
  ASSERT_FALSE(HasFailure());
  int layers = 0, convolutions_with_macs = 0;
  for (const ProfileRow& layer : run.layers) {
    ++layers;
    SCOPED_TRACE(layer["layer"]);
    ASSERT_NE(layer["bound"], "not run");
    const double simulated = layer.number("cycles"), bound_cycles = layer.number("roofline_cycles");
    EXPECT_GT(bound_cycles, 0.0);
    EXPECT_GE(simulated, bound_cycles) << "simulated " << simulated << " cycles, roofline bound " << bound_cycles;
    convolutions_with_macs += layer.number("macs") > 0;
  }
  // ResNet-18: 20 convolutions and the classifier carry MACs (more layers when split).
  EXPECT_GE(convolutions_with_macs, 21);
  EXPECT_GE(layers, convolutions_with_macs);
}

// The goal on the configured (default) SoC: over ResNet-50's layers the geometric mean
// of simulated cycles / roofline bound is at most 1.5 (1.41 when written; 1.59 while the Conv
// planner kept DDR-bound layers waiting for their weights on one block), none below 1.
TEST(NetworkRoofline, ResNet50StaysWithinOneAndAHalfOfItsBoundsOnTheDefaultSoc) {
  const ProfiledRun run = infer_with_profile("resnet50", "");
  ASSERT_FALSE(HasFailure());
  double log_sum = 0;
  int layers = 0;
  for (const ProfileRow& layer : run.layers) {
    SCOPED_TRACE(layer["layer"]);
    const double ratio = layer.number("cycles") / layer.number("roofline_cycles");
    EXPECT_GE(ratio, 1.0);
    log_sum += std::log(ratio);
    ++layers;
  }
  ASSERT_GE(layers, 50);
  EXPECT_LE(std::exp(log_sum / layers), 1.5) << layers << " layers";
}

// Pinned weights (docs/networks.md "Pinned weights"): the compiler pins the weights of ResNet-50's
// compute-bound layers first, and on the default SoC the stride-1 3 x 3s of layer1, layer2 and
// layer3.1-3.2 then keep the Cube at least 80 % busy (0.84, 0.83 and 0.80 when written; layer1's
// and layer2's 0.72 and 0.69 with their weights in DDR).
TEST(NetworkRoofline, ResNet50sPinnedThreeByThreesKeepTheCubeBusyOnTheDefaultSoc) {
  const ProfiledRun run = infer_with_profile("resnet50", "");
  ASSERT_FALSE(HasFailure());
  int checked = 0;
  for (const ProfileRow& layer : run.layers) {
    const std::string name = layer["layer"];
    // layer3.1-3.2's 14 x 14 3 x 3 (0.803) need op_conv's column-split tail (0.785 without)
    const bool stride_one_3x3 = name.find("conv2/Conv") != std::string::npos &&
                                (name.find("/layer1/") == 0 || name.find("/layer2/layer2.1") == 0 ||
                                 name.find("/layer2/layer2.2") == 0 || name.find("/layer2/layer2.3") == 0 ||
                                 name.find("/layer3/layer3.1/") == 0 || name.find("/layer3/layer3.2/") == 0);
    if (!stride_one_3x3) continue;
    SCOPED_TRACE(name);
    EXPECT_EQ(layer["bound"], "compute");
    EXPECT_GE(layer.number("cube_utilisation"), 0.80);
    ++checked;
  }
  EXPECT_EQ(checked, 8);
}

// The profile measures each layer on the AI Cores (their own stamps of the first block's start
// and the last block's end), inside the task scheduler's window (its start of the first launch
// to its completion of the last): never longer, never empty, for every layer of LeNet-5.
TEST(NetworkProfile, EveryLeNetLayerRunsOnTheCoresInsideItsTaskSchedulerWindow) {
  const ProfiledRun run = infer_with_profile("lenet5", "");
  ASSERT_FALSE(HasFailure());
  for (const ProfileRow& layer : run.layers) {
    SCOPED_TRACE(layer["layer"]);
    const std::uint64_t ts0 = layer.count("ts_start_cycle"), ts1 = layer.count("ts_end_cycle"),
                        core0 = layer.count("core_start_cycle"), core1 = layer.count("core_end_cycle");
    EXPECT_GT(core0, ts0) << "the cores started before the task scheduler started the launch";
    EXPECT_LT(core1, ts1) << "the cores ended after the task scheduler completed the launch";
    EXPECT_GT(core1, core0);
    // The AI Cores and the TS share the default 1 GHz clock: cycles are the cores' window.
    EXPECT_EQ(layer.count("cycles"), core1 - core0);
  }
  EXPECT_GE(run.layers.size(), 5u);  // LeNet-5: two convolutions, pools, three fully connected layers (some fused)
}

struct Timed {
  double latency_seconds = 0, cosine = 0;
};

// ResNet-18 with these options against its reference: the latency (the profile's total line)
// and the cosine infer prints.
Timed run_resnet18(const std::string& options) {
  const std::string profile = temp_path("resnet18_db.csv");
  const CommandResult result = infer_generated_network("resnet18", " --profile " + profile + " --quiet " + options);
  EXPECT_EQ(result.status, 0) << result.err;
  Timed timed;
  const std::string text = read_file(profile);
  std::remove(profile.c_str());
  timed.latency_seconds = profile_latency(text);
  timed.cosine = reported_cosine(result);
  return timed;
}

TEST(NetworkDoubleBuffering, ResNet18SerialTilingIsCorrectAndSlower) {
  const Timed pipelined = run_resnet18("");
  const Timed serial = run_resnet18("--no-double-buffering");
  ASSERT_FALSE(HasFailure());
  EXPECT_GE(pipelined.cosine, 0.999);
  EXPECT_GE(serial.cosine, 0.999);
  EXPECT_GT(pipelined.latency_seconds, 0.0);
  // Measured 4.02 ms against 4.71 ms (docs/networks.md#performance).
  EXPECT_LT(pipelined.latency_seconds * 1.05, serial.latency_seconds);
}

// HBM-class memory (docs/networks.md "HBM-class memory"), where the stem is compute-bound.
const std::string kHbm =
    " --set soc.ddr.channels=16 --set soc.ddr.bus_width=16 --set soc.ddr.burst_length=4 --set soc.ddr.data_rate=2000"
    " --set soc.l2.bandwidth=512GB/s --set soc.ring.link_width=128 --set soc.ai_cores=2";

// ResNet-18's stem (3 channels, 7x7, stride 2) on 2 AI Cores with HBM-class memory: with its 3
// channels padded to 16 lanes per kernel tap its Cube utilisation was 0.167 (K = 784 for 147
// real products); the compiler now folds the window's rows and a stride's columns into channels
// (a WindowFold layer before it, K = 192): 0.571. The network's answer must not change.
TEST(NetworkCubeUtilisation, ResNet18StemFoldsItsWindowOnHbm) {
  const ProfiledRun run = infer_with_profile("resnet18", kHbm);
  ASSERT_FALSE(HasFailure());
  EXPECT_GE(reported_cosine(run.result), 0.999);
  bool folded = false, stem = false;
  for (const ProfileRow& layer : run.layers) {
    if (layer["op"] == "WindowFold") folded = true;
    if (layer["layer"] != "/conv1/Conv") continue;
    stem = true;
    EXPECT_TRUE(folded) << "no WindowFold layer before the stem";
    EXPECT_EQ(layer["bound"], "compute");
    EXPECT_GT(layer.number("cube_utilisation"), 0.5);
  }
  EXPECT_TRUE(stem) << "no layer /conv1/Conv in the profile";
}

}  // namespace
