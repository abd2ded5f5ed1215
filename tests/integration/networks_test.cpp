// Every model the build generates (build/networks/manifest.json, sw/networks,
// docs/networks.md) end to end through `npuvp infer` (compiler -> model package ->
// host/infer.elf -> runtime -> driver -> task scheduler -> operator kernels), each
// output checked here against PyTorch's fp32 output for the same input: cosine
// similarity >= 0.999 and, where the manifest asks for it (the classifiers), the
// same top-1 class. The whole networks (ResNet-50 and the 12-layer encoder
// included: about 4 s and 8 s of wall time) and one model per operator. The
// manifest's bad fixtures each give a one-line error and status 125.
#include "integration/run_npuvp.h"
#include "model_files.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <ostream>

using namespace npuvp::test_support;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace {

std::string network_file(const std::string& name) { return std::string(NPUVP_NETWORKS_DIR) + "/" + name; }

nlohmann::json manifest() {
  const std::string text = read_file(network_file("manifest.json"));
  return text.empty() ? nlohmann::json::object() : nlohmann::json::parse(text, nullptr, false);
}

struct Model {
  std::string name, onnx, input, reference;
  bool top1 = false, network = false;
};
void PrintTo(const Model& model, std::ostream* out) { *out << model.name; }

// The manifest's models; without a manifest one entry that fails saying so.
std::vector<Model> manifest_models() {
  std::vector<Model> models;
  const nlohmann::json document = manifest();
  if (document.is_object() && document.contains("models"))
    for (const auto& entry : document["models"])
      models.push_back({entry.value("name", "?"), entry.value("onnx", ""), entry.value("input_npy", ""),
                        entry.value("reference_npy", ""), entry.value("top1", false),
                        entry.value("kind", "") == "network"});
  if (models.empty()) models.push_back({"no_manifest", "", "", "", false, false});
  return models;
}

double cosine(const std::vector<float>& a, const std::vector<float>& b) {
  double dot = 0, na = 0, nb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    dot += static_cast<double>(a[i]) * b[i];
    na += static_cast<double>(a[i]) * a[i];
    nb += static_cast<double>(b[i]) * b[i];
  }
  return na > 0 && nb > 0 ? dot / std::sqrt(na * nb) : (na == nb ? 1.0 : 0.0);
}

class Models : public ::testing::TestWithParam<Model> {};

TEST_P(Models, OutputMatchesPyTorch) {
  const Model& model = GetParam();
  ASSERT_NE(model.name, "no_manifest") << network_file("manifest.json") << " is missing: build the networks target";
  const std::string output = temp_path(model.name + ".output.npy");
  // Whole networks on 8 AI Cores, the operator models on the default SoC.
  auto result = run_command("timeout 1800 " + std::string(NPUVP_EXECUTABLE) + " infer " + network_file(model.onnx) +
                            " --input " + network_file(model.input) + " --output " + output + " --quiet" +
                            (model.network ? " --set soc.ai_cores=8" : ""));
  ASSERT_EQ(result.status, 0) << result.out << result.err;
  const std::vector<float> y = read_float_npy(output), reference = read_float_npy(network_file(model.reference));
  std::remove(output.c_str());
  ASSERT_EQ(y.size(), reference.size());
  ASSERT_FALSE(y.empty());
  EXPECT_TRUE(std::all_of(y.begin(), y.end(), [](float v) { return std::isfinite(v); }));
  EXPECT_GE(cosine(y, reference), 0.999);
  if (model.top1)
    EXPECT_EQ(std::max_element(y.begin(), y.end()) - y.begin(),
              std::max_element(reference.begin(), reference.end()) - reference.begin());
}

INSTANTIATE_TEST_SUITE_P(Manifest, Models, ::testing::ValuesIn(manifest_models()),
                         [](const auto& info) {
                           std::string name = info.param.name;
                           std::replace(name.begin(), name.end(), '.', '_');
                           return name;
                         });

// The manifest's bad fixtures: a malformed model, an unsupported op, an input of the wrong
// shape or dtype. Each is one line on stderr naming the problem, status 125.
TEST(BadModelFixtures, EachIsAOneLineErrorWithStatus125) {
  const nlohmann::json document = manifest();
  ASSERT_TRUE(document.is_object() && document.contains("bad_fixtures")) << "no manifest: build the networks target";
  ASSERT_FALSE(document["bad_fixtures"].empty());
  for (const auto& fixture : document["bad_fixtures"]) {
    const std::string problem = fixture.value("problem", "");
    auto result = run_npuvp("infer " + network_file(fixture.value("onnx", "")) + " --input " +
                            network_file(fixture.value("input_npy", "")) + " --quiet");
    EXPECT_EQ(result.status, 125) << problem << ": " << result.err;
    EXPECT_THAT(result.err, StartsWith("npuvp: error: ")) << problem;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << problem << ": " << result.err;
    if (problem == "unsupported_op") {
      EXPECT_THAT(result.err, HasSubstr(fixture.value("op_type", "?")));
      EXPECT_THAT(result.err, HasSubstr(fixture.value("node", "?")));
    } else if (problem == "input_shape") {
      EXPECT_THAT(result.err, HasSubstr("shape"));
    } else if (problem == "input_dtype") {
      EXPECT_THAT(result.err, HasSubstr("dtype"));
    }
  }
}

// The scenario form: scenarios/lenet5.yaml passes, and the same model against a reference
// it does not match fails its check (status 1) with the figures in the verdict.
TEST(NetworkScenarios, LenetPassesAndAWrongReferenceFailsTheCheck) {
  auto pass = run_npuvp("run " + scenario("lenet5") + " --quiet");
  EXPECT_EQ(pass.status, 0) << pass.err;
  EXPECT_THAT(last_line(pass.err), HasSubstr("PASS (cosine "));

  std::vector<float> reference = read_float_npy(network_file("lenet5.reference.npy"));
  for (auto& value : reference) value = -value;
  const std::string wrong = temp_path("wrong.reference.npy"), yaml = temp_path("lenet5-wrong.yaml");
  write_float_npy(wrong, {1, static_cast<std::int64_t>(reference.size())}, reference);
  std::ofstream(yaml) << "infer:\n  model: " << network_file("lenet5.onnx") << "\n  input: "
                      << network_file("lenet5.input.npy") << "\n  reference: " << wrong << "\n";
  auto fail = run_npuvp("run " + yaml + " --quiet");
  EXPECT_EQ(fail.status, 1) << fail.err;
  EXPECT_THAT(last_line(fail.err), HasSubstr("FAIL: cosine -1.000000 < 0.999000; top-1 differs in 1 of 1 rows"));
  std::remove(wrong.c_str());
  std::remove(yaml.c_str());
}

}  // namespace
