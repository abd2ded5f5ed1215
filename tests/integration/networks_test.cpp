// Whole networks end to end through `npuvp infer` (compiler -> model package ->
// host/infer.elf -> runtime -> driver -> task scheduler -> operator kernels),
// each output checked here against PyTorch's fp32 output for the same input
// (build/networks, generated at build time; docs/networks.md): cosine
// similarity >= 0.999 and, for classifiers, the same top-1 class. ResNet-50 and
// the 12-layer encoder fit CI too (about 4 s and 8 s of wall time each).
#include "integration/run_npuvp.h"
#include "model_files.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <ostream>

using namespace npuvp::test_support;

namespace {

struct Network {
  const char* name;
  bool classifier;  // the output is class scores: top-1 must agree
  unsigned ai_cores;
};

void PrintTo(const Network& network, std::ostream* out) { *out << network.name; }

std::string network_file(const std::string& name) { return std::string(NPUVP_NETWORKS_DIR) + "/" + name; }

double cosine(const std::vector<float>& a, const std::vector<float>& b) {
  double dot = 0, na = 0, nb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    dot += static_cast<double>(a[i]) * b[i];
    na += static_cast<double>(a[i]) * a[i];
    nb += static_cast<double>(b[i]) * b[i];
  }
  return dot / std::sqrt(na * nb);
}

class Networks : public ::testing::TestWithParam<Network> {};

TEST_P(Networks, OutputMatchesPyTorch) {
  const Network& network = GetParam();
  const std::string model = network_file(std::string(network.name) + ".onnx");
  const std::string input = network_file(std::string(network.name) + ".input.npy");
  const std::string reference_path = network_file(std::string(network.name) + ".reference.npy");
  const std::string output = temp_path(std::string(network.name) + ".output.npy");
  auto result = run_command("timeout 1800 " + std::string(NPUVP_EXECUTABLE) + " infer " + model + " --input " + input +
                            " --output " + output + " --quiet --set soc.ai_cores=" + std::to_string(network.ai_cores));
  ASSERT_EQ(result.status, 0) << result.out << result.err;
  const std::vector<float> y = read_float_npy(output), reference = read_float_npy(reference_path);
  std::remove(output.c_str());
  ASSERT_EQ(y.size(), reference.size());
  ASSERT_FALSE(y.empty());
  EXPECT_TRUE(std::all_of(y.begin(), y.end(), [](float v) { return std::isfinite(v); }));
  EXPECT_GE(cosine(y, reference), 0.999);
  if (network.classifier)
    EXPECT_EQ(std::max_element(y.begin(), y.end()) - y.begin(),
              std::max_element(reference.begin(), reference.end()) - reference.begin());
}

INSTANTIATE_TEST_SUITE_P(Ci, Networks,
                         ::testing::Values(Network{"lenet5", true, 4}, Network{"resnet18", true, 8},
                                           Network{"resnet50", true, 8}, Network{"mobilenetv2", true, 8},
                                           Network{"bert_2layer", false, 8}, Network{"bert_base", false, 8},
                                           Network{"gpt2_block", false, 8}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace

// The scenario form: scenarios/lenet5.yaml passes, and the same model against a reference
// it does not match fails its check (status 1) with the figures in the verdict.
TEST(NetworkScenarios, LenetPassesAndAWrongReferenceFailsTheCheck) {
  auto pass = run_npuvp("run " + scenario("lenet5") + " --quiet");
  EXPECT_EQ(pass.status, 0) << pass.err;
  EXPECT_THAT(last_line(pass.err), ::testing::HasSubstr("PASS (cosine "));

  std::vector<float> reference = read_float_npy(network_file("lenet5.reference.npy"));
  for (auto& value : reference) value = -value;
  const std::string wrong = temp_path("wrong.reference.npy"), yaml = temp_path("lenet5-wrong.yaml");
  write_float_npy(wrong, {1, static_cast<std::int64_t>(reference.size())}, reference);
  std::ofstream(yaml) << "infer:\n  model: " << network_file("lenet5.onnx") << "\n  input: "
                      << network_file("lenet5.input.npy") << "\n  reference: " << wrong << "\n";
  auto fail = run_npuvp("run " + yaml + " --quiet");
  EXPECT_EQ(fail.status, 1) << fail.err;
  EXPECT_THAT(last_line(fail.err), ::testing::HasSubstr("FAIL: cosine -1.000000 < 0.999000; top-1 differs in 1 of 1 rows"));
  std::remove(wrong.c_str());
  std::remove(yaml.c_str());
}
