// Every generated model (sw/networks: the operator models and the networks) through
// `npuvp infer` end to end - compiler, runtime, driver, task scheduler, AI Core kernels - with
// the output .npy judged here, independently of infer's own check, against PyTorch's fp32
// reference: cosine similarity >= 0.999 and, for classifiers, the same top-1. The bad
// fixtures each give one line on stderr naming the problem and exit status 125.
#include "integration/run_npuvp.h"
#include "platform/npy.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

using namespace npuvp::test_support;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace {

constexpr int kBadInput = 125;
constexpr double kMinimumCosine = 0.999;
const std::string kNetworks = NPUVP_NETWORKS_DIR;

// MatMul with broadcast batch dimensions: its own test below (run it or refuse it by name).
const std::string kBroadcastMatMul = "op_matmul_broadcast";

nlohmann::json manifest() {
  std::ifstream in(kNetworks + "/manifest.json");
  return in ? nlohmann::json::parse(in) : nlohmann::json::object();
}

nlohmann::json model_entry(const std::string& name) {
  for (const auto& model : manifest().value("models", nlohmann::json::array())) {
    if (model["name"] == name) return model;
  }
  return nullptr;
}

// The models to run, read from the manifest when the tests are listed (the build generates it
// before this test is linked); a missing manifest lists one name that fails with the reason.
std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const auto& model : manifest().value("models", nlohmann::json::array())) {
    if (model["name"] != kBroadcastMatMul) names.push_back(model["name"]);
  }
  if (names.empty()) names.push_back("manifest_missing");
  return names;
}

double cosine(const std::vector<float>& a, const std::vector<float>& b) {
  double dot = 0, aa = 0, bb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    dot += static_cast<double>(a[i]) * b[i];
    aa += static_cast<double>(a[i]) * a[i];
    bb += static_cast<double>(b[i]) * b[i];
  }
  return dot / std::sqrt(aa * bb);
}

// Runs the model on its input and checks the written output against the reference.
void expect_matches_reference(const nlohmann::json& model) {
  const std::string name = model["name"];
  const std::string output = temp_path(name + ".output.npy");
  const CommandResult result = run_npuvp("infer " + kNetworks + "/" + model["onnx"].get<std::string>() + " --input " +
                                         kNetworks + "/" + model["input_npy"].get<std::string>() + " --output " +
                                         output + " --quiet");
  ASSERT_EQ(result.status, 0) << result.err;

  const npuvp::NpyArray produced = npuvp::read_npy(output);
  std::remove(output.c_str());
  const npuvp::NpyArray reference = npuvp::read_npy(kNetworks + "/" + model["reference_npy"].get<std::string>());
  ASSERT_EQ(produced.shape, reference.shape);
  const std::vector<float> y = produced.to_float(), r = reference.to_float();
  ASSERT_TRUE(std::all_of(y.begin(), y.end(), [](float v) { return std::isfinite(v); })) << "non-finite output";
  EXPECT_GE(cosine(y, r), kMinimumCosine);
  if (model["top1"].get<bool>()) {  // per image of the batch: a row of the last axis
    const std::size_t classes = reference.shape.back();
    for (std::size_t row = 0; row < r.size() / classes; ++row) {
      const auto produced_row = y.begin() + row * classes, reference_row = r.begin() + row * classes;
      EXPECT_EQ(std::max_element(produced_row, produced_row + classes) - produced_row,
                std::max_element(reference_row, reference_row + classes) - reference_row)
          << "top-1 of image " << row << " differs";
    }
  }
}

class GeneratedModel : public ::testing::TestWithParam<std::string> {};

TEST_P(GeneratedModel, MatchesThePyTorchReference) {
  const nlohmann::json model = model_entry(GetParam());
  ASSERT_FALSE(model.is_null()) << kNetworks << "/manifest.json lacks " << GetParam()
                                << ": build the `networks` target";
  expect_matches_reference(model);
}

INSTANTIATE_TEST_SUITE_P(Networks, GeneratedModel, ::testing::ValuesIn(model_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// The issue asks for batched MatMul, not for broadcasting its batch dimensions: the compiler may
// run this model or refuse it, but a refusal is one line naming the node, never a wrong result.
TEST(NetworksInfer, MatMulWithBroadcastBatchRunsOrIsRefusedByName) {
  const nlohmann::json model = model_entry(kBroadcastMatMul);
  ASSERT_FALSE(model.is_null());
  const CommandResult probe = run_npuvp("infer " + kNetworks + "/" + kBroadcastMatMul + ".onnx --input " + kNetworks +
                                        "/" + kBroadcastMatMul + ".input.npy --quiet");
  if (probe.status == 0) {
    expect_matches_reference(model);
  } else {
    EXPECT_EQ(probe.status, kBadInput) << probe.err;
    EXPECT_THAT(last_line(probe.err), StartsWith("npuvp: error: "));
    EXPECT_THAT(last_line(probe.err), HasSubstr("MatMul"));
  }
}

// `--reference` alone reports and does not judge; `--cosine-min` and `--top1` judge (exit status
// 1 when the output is not close enough), with the same outcome as a scenario's checks.
TEST(NetworksInfer, ReferenceIsJudgedOnlyWithCosineMinOrTop1) {
  const std::string lenet = "infer " + kNetworks + "/lenet5.onnx --input " + kNetworks + "/lenet5.input.npy --quiet";
  const std::string right = " --reference " + kNetworks + "/lenet5.reference.npy";
  // A wrong reference: the right one reversed (another top-1, cosine far below 0.999).
  const npuvp::NpyArray reference = npuvp::read_npy(kNetworks + "/lenet5.reference.npy");
  std::vector<float> reversed = reference.to_float();
  std::reverse(reversed.begin(), reversed.end());
  const std::string wrong_path = temp_path("lenet5_wrong_reference.npy");
  npuvp::write_npy(wrong_path, reference.shape, reversed);
  const std::string wrong = " --reference " + wrong_path;

  const CommandResult unjudged = run_npuvp(lenet + wrong);
  EXPECT_EQ(unjudged.status, 0) << unjudged.err;
  EXPECT_THAT(last_line(unjudged.err), HasSubstr("not judged"));
  const CommandResult passes = run_npuvp(lenet + right + " --cosine-min 0.999 --top1");
  EXPECT_EQ(passes.status, 0) << passes.err;
  EXPECT_THAT(last_line(passes.err), HasSubstr(": PASS (cosine "));
  const CommandResult cosine = run_npuvp(lenet + wrong + " --cosine-min 0.999");
  EXPECT_EQ(cosine.status, 1) << cosine.err;
  EXPECT_THAT(last_line(cosine.err), HasSubstr("FAIL: cosine "));
  const CommandResult top1 = run_npuvp(lenet + wrong + " --top1");
  EXPECT_EQ(top1.status, 1) << top1.err;
  EXPECT_THAT(last_line(top1.err), HasSubstr("FAIL: top-1 differs in 1 of 1 rows"));
  const CommandResult alone = run_npuvp(lenet + " --top1");
  EXPECT_EQ(alone.status, kBadInput) << alone.err;
  EXPECT_THAT(last_line(alone.err), HasSubstr("go with --reference"));
  std::remove(wrong_path.c_str());
}

TEST(NetworksInfer, EachBadFixtureIsOneLineAndStatus125) {
  const auto fixtures = manifest().value("bad_fixtures", nlohmann::json::array());
  ASSERT_EQ(fixtures.size(), 4u);
  for (const auto& fixture : fixtures) {
    const std::string problem = fixture["problem"];
    SCOPED_TRACE(problem);
    const CommandResult result = run_npuvp("infer " + kNetworks + "/" + fixture["onnx"].get<std::string>() +
                                           " --input " + kNetworks + "/" + fixture["input_npy"].get<std::string>() +
                                           " --quiet");
    EXPECT_EQ(result.status, kBadInput) << result.err;
    const std::string line = last_line(result.err);
    EXPECT_THAT(line, StartsWith("npuvp: error: "));
    if (problem == "unsupported_op") {
      EXPECT_THAT(line, HasSubstr("'cos_unsupported' (Cos)"));
    } else if (problem == "malformed_onnx") {
      EXPECT_THAT(line, HasSubstr("bad_truncated.onnx"));
    } else if (problem == "input_shape") {
      EXPECT_THAT(line, HasSubstr("lenet5.bad_shape.npy"));
      EXPECT_THAT(line, HasSubstr("shape"));
    } else {
      EXPECT_THAT(line, HasSubstr("lenet5.bad_dtype.npy"));
      EXPECT_THAT(line, HasSubstr("dtype"));
    }
  }
}

}  // namespace
