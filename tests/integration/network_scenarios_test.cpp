// The network scenarios (an `infer:` section, docs/scenario-format.md#models): each
// passes with its figures in the verdict (ResNet-50 and BERT-base included, about
// 4 s and 8 s), and a model against a reference it does not match fails the check
// with status 1. (Every generated model through `npuvp infer`: networks_infer_test.cpp.)
#include "integration/run_npuvp.h"
#include "model_files.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

using namespace npuvp::test_support;
using ::testing::HasSubstr;

namespace {

std::string network_file(const std::string& name) { return std::string(NPUVP_NETWORKS_DIR) + "/" + name; }

class NetworkScenario : public ::testing::TestWithParam<const char*> {};

TEST_P(NetworkScenario, PassesItsChecks) {
  auto result = run_command("timeout 1800 " + std::string(NPUVP_EXECUTABLE) + " run " + scenario(GetParam()) + " --quiet");
  EXPECT_EQ(result.status, 0) << result.out << result.err;
  EXPECT_THAT(last_line(result.err), HasSubstr(std::string(GetParam()) + ": PASS (cosine "));
}

INSTANTIATE_TEST_SUITE_P(Scenarios, NetworkScenario,
                         ::testing::Values("lenet5", "resnet18", "resnet50", "mobilenetv2", "bert-2layer", "bert-base",
                                           "gpt2-block"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (auto& c : name) c = c == '-' ? '_' : c;
                           return name;
                         });

TEST(NetworkScenarios, AWrongReferenceFailsTheCheck) {
  std::vector<float> reference = read_float_npy(network_file("lenet5.reference.npy"));
  ASSERT_EQ(reference.size(), 10u);
  for (auto& value : reference) value = -value;
  const std::string wrong = temp_path("wrong.reference.npy"), yaml = temp_path("lenet5-wrong.yaml");
  write_float_npy(wrong, {1, 10}, reference);
  std::ofstream(yaml) << "infer:\n  model: lenet5.onnx\n  input: lenet5.input.npy\n  reference: " << wrong << "\n";
  auto fail = run_npuvp("run " + yaml + " --quiet");
  EXPECT_EQ(fail.status, 1) << fail.err;
  EXPECT_THAT(last_line(fail.err), HasSubstr("FAIL: cosine -1.000000 < 0.999000; top-1 differs in 1 of 1 rows"));
  std::remove(wrong.c_str());
  std::remove(yaml.c_str());
}

}  // namespace
