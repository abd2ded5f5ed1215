// Multi-stream model packages on whole networks, through `npuvp infer` on 8 AI Cores
// (docs/compiler.md#streams, docs/networks.md#streams):
//  * ResNet-18 (downsample branches beside the main path) with --streams 2 and the GPT-2
//    block (separate q, k and v projections) with --streams 3 write, bit for bit, the
//    output of --streams 1, and that output matches PyTorch's;
//  * every cross-stream dependency is honoured: a layer starts only after each layer whose
//    event it waits for has ended (the profile's TS cycles and its waits_for column);
//  * the streams really run at the same time: layers of different streams overlap;
//  * the 2-layer BERT encoder, a chain, stays on one stream.
#include "integration/network_runs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace npuvp::test_support;

namespace {

struct Layer {
  std::string name;
  unsigned stream = 0;
  std::vector<std::size_t> waits_for;
  unsigned long long start = 0, end = 0;  // TS cycles
};

struct Inference {
  std::string output;  // the .npy bytes
  double cosine = 0, latency_seconds = 0;
  std::vector<Layer> layers;
};

Inference infer(const std::string& model, unsigned streams) {
  const std::string tag = model + "_s" + std::to_string(streams);
  const std::string output = temp_path(tag + ".npy"), profile = temp_path(tag + ".csv");
  const CommandResult result = infer_generated_network(
      model, " --output " + output + " --profile " + profile + " --set soc.ai_cores=8 --streams " +
                 std::to_string(streams) + " --quiet");
  EXPECT_EQ(result.status, 0) << result.err;
  Inference run;
  run.output = read_file(output);
  run.cosine = reported_cosine(result);
  const std::string csv = read_file(profile);
  run.latency_seconds = profile_latency(csv);
  std::remove(output.c_str());
  std::remove(profile.c_str());
  for (const ProfileRow& row : profile_rows(csv)) {
    Layer layer;
    layer.name = row["layer"];
    layer.stream = static_cast<unsigned>(row.count("stream"));
    std::istringstream list(row["waits_for"]);
    for (std::size_t producer; list >> producer;) layer.waits_for.push_back(producer);
    layer.start = row.count("ts_start_cycle");
    layer.end = row.count("ts_end_cycle");
    run.layers.push_back(layer);
  }
  return run;
}

// The checks of the file comment for one network.
void expect_streams_work(const std::string& model, unsigned streams, unsigned expected_streams) {
  const Inference serial = infer(model, 1), parallel = infer(model, streams);
  ASSERT_FALSE(::testing::Test::HasFailure());
  EXPECT_GE(serial.cosine, 0.999);
  ASSERT_FALSE(parallel.output.empty());
  EXPECT_TRUE(parallel.output == serial.output) << "the multi-stream output differs from the single-stream one";

  std::set<unsigned> used;
  unsigned waits = 0;
  for (std::size_t i = 0; i < parallel.layers.size(); ++i) {
    const Layer& layer = parallel.layers[i];
    used.insert(layer.stream);
    for (std::size_t producer : layer.waits_for) {
      ASSERT_LT(producer, i) << layer.name;
      const Layer& before = parallel.layers[producer];
      EXPECT_NE(before.stream, layer.stream) << layer.name << " waits for a layer of its own stream";
      EXPECT_GE(layer.start, before.end) << layer.name << " started before " << before.name << " ended";
      ++waits;
    }
  }
  EXPECT_EQ(used.size(), expected_streams);
  EXPECT_GT(waits, 0u);
  unsigned overlapping = 0;
  for (std::size_t a = 0; a < parallel.layers.size(); ++a)
    for (std::size_t b = a + 1; b < parallel.layers.size(); ++b) {
      const Layer &x = parallel.layers[a], &y = parallel.layers[b];
      overlapping += x.stream != y.stream && x.start < y.end && y.start < x.end;
    }
  EXPECT_GT(overlapping, 0u) << "no two layers of different streams ran at the same time";
  for (const Layer& layer : serial.layers) EXPECT_EQ(layer.stream, 0u);
  EXPECT_GT(serial.latency_seconds, 0.0);
  EXPECT_GT(parallel.latency_seconds, 0.0);
}

TEST(NetworkStreams, ResNet18DownsampleBranchesOnTwoStreams) { expect_streams_work("resnet18", 2, 2); }

TEST(NetworkStreams, Gpt2BlockQkvProjectionsOnThreeStreams) { expect_streams_work("gpt2_block", 3, 3); }

// The 2-layer encoder as PyTorch exports it is a chain (q, k and v are one packed MatMul):
// asked for 4 streams, the compiler keeps every layer on stream 0, same output.
TEST(NetworkStreams, Bert2LayerEncoderIsAChainOnOneStream) {
  const Inference serial = infer("bert_2layer", 1), parallel = infer("bert_2layer", 4);
  ASSERT_FALSE(HasFailure());
  EXPECT_GE(parallel.cosine, 0.999);
  EXPECT_TRUE(parallel.output == serial.output);
  ASSERT_FALSE(parallel.layers.empty());
  for (const Layer& layer : parallel.layers) {
    EXPECT_EQ(layer.stream, 0u) << layer.name;
    EXPECT_TRUE(layer.waits_for.empty()) << layer.name;
  }
}

}  // namespace
