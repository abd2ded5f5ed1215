// The generated models (sw/networks/generate.py, the `networks` target) agree with their
// manifest: every promised model and operator is there, each input and reference .npy has the
// manifest's shape and is float32, references are finite and not all zero, and the bad
// fixtures are bad in the way the manifest says.
#include "platform/npy.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace npuvp {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kNetworks = NPUVP_NETWORKS_DIR;

json load_manifest() {
  std::ifstream in(kNetworks / "manifest.json");
  if (!in) {
    ADD_FAILURE() << (kNetworks / "manifest.json") << " is missing: build the `networks` target";
    return json::object();
  }
  return json::parse(in);
}

std::vector<std::int64_t> shape_of(const json& value) { return value.get<std::vector<std::int64_t>>(); }

const json* find_model(const json& manifest, const std::string& name) {
  for (const json& model : manifest["models"]) {
    if (model["name"] == name) return &model;
  }
  return nullptr;
}

TEST(NetworksManifestTest, ListsEveryNetworkWithItsShapes) {
  const json manifest = load_manifest();
  struct Expected {
    std::string name;
    std::vector<std::int64_t> input, output;
    bool top1;
  };
  const std::vector<Expected> networks = {
      {"lenet5", {1, 1, 32, 32}, {1, 10}, true},
      {"resnet18", {1, 3, 224, 224}, {1, 1000}, true},
      {"resnet50", {1, 3, 224, 224}, {1, 1000}, true},
      {"resnet50_batch4", {4, 3, 224, 224}, {4, 1000}, true},
      {"mobilenetv2", {1, 3, 224, 224}, {1, 1000}, true},
      {"bert_2layer", {1, 128, 768}, {1, 128, 768}, false},
      {"bert_base", {1, 128, 768}, {1, 128, 768}, false},
      {"gpt2_block", {1, 128, 768}, {1, 128, 768}, false},
  };
  for (const Expected& expected : networks) {
    SCOPED_TRACE(expected.name);
    const json* model = find_model(manifest, expected.name);
    ASSERT_NE(model, nullptr);
    EXPECT_EQ((*model)["kind"], "network");
    EXPECT_EQ(shape_of((*model)["input_shape"]), expected.input);
    EXPECT_EQ(shape_of((*model)["output_shape"]), expected.output);
    EXPECT_EQ((*model)["top1"].get<bool>(), expected.top1);
    EXPECT_EQ((*model)["opset"], 17);
    // Activations stay O(1) (BatchNorm statistics from random batches, LayerNorm), far from
    // fp16's 65504.
    EXPECT_LT((*model)["max_abs_activation"].get<double>(), 1024.0);
  }
  // ResNet-50's well-known size: 25.6 M parameters, 4.1 GMAC at 224x224.
  const json* resnet50 = find_model(manifest, "resnet50");
  ASSERT_NE(resnet50, nullptr);
  EXPECT_EQ((*resnet50)["parameters"], 25557032);
  EXPECT_NEAR((*resnet50)["macs"].get<double>(), 4.09e9, 0.01e9);
  // The batch of 4: the same parameters, four images' MACs.
  const json* batch4 = find_model(manifest, "resnet50_batch4");
  ASSERT_NE(batch4, nullptr);
  EXPECT_EQ((*batch4)["parameters"], 25557032);
  EXPECT_NEAR((*batch4)["macs"].get<double>(), 4 * 4.09e9, 0.04e9);
}

TEST(NetworksManifestTest, OperatorModelsCoverTheOpSet) {
  const json manifest = load_manifest();
  std::set<std::string> covered;
  for (const json& model : manifest["models"]) {
    if (model["kind"] != "op") continue;
    for (const json& op : model["op_types"]) covered.insert(op.get<std::string>());
    for (const json& dim : model["input_shape"]) {
      const std::int64_t d = dim.get<std::int64_t>();
      EXPECT_TRUE(d == 1 || d % 16 != 0) << model["name"] << ": dimension " << d << " is a multiple of 16";
    }
  }
  const std::vector<std::string> op_set = {
      "Conv", "Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "Relu", "Clip", "Sigmoid", "Tanh", "Erf",
      "Softmax", "LayerNormalization", "ReduceMean", "Pow", "Sqrt", "BatchNormalization", "MaxPool",
      "AveragePool", "GlobalAveragePool", "Pad", "Flatten", "Reshape", "Transpose", "Concat", "Identity",
      "Shape", "Gather", "Unsqueeze"};
  for (const std::string& op : op_set) EXPECT_TRUE(covered.count(op)) << "no operator model has " << op;
  const json* decomposed = find_model(manifest, "op_layernorm_decomposed");
  ASSERT_NE(decomposed, nullptr);
  EXPECT_EQ((*decomposed)["opset"], 13);
}

TEST(NetworksManifestTest, InputsAndReferencesMatchTheManifest) {
  const json manifest = load_manifest();
  ASSERT_GE(manifest["models"].size(), 40u);
  for (const json& model : manifest["models"]) {
    const std::string name = model["name"];
    SCOPED_TRACE(name);
    EXPECT_GT(fs::file_size(kNetworks / model["onnx"].get<std::string>()), 0u);
    EXPECT_EQ(fs::file_size(kNetworks / model["onnx"].get<std::string>()), model["onnx_bytes"].get<std::uintmax_t>());

    const NpyArray input = read_npy((kNetworks / model["input_npy"].get<std::string>()).string());
    EXPECT_EQ(input.dtype, "<f4");
    EXPECT_EQ(input.shape, shape_of(model["input_shape"]));

    const NpyArray reference = read_npy((kNetworks / model["reference_npy"].get<std::string>()).string());
    EXPECT_EQ(reference.dtype, "<f4");
    EXPECT_EQ(reference.shape, shape_of(model["output_shape"]));
    const std::vector<float> values = reference.to_float();
    ASSERT_EQ(values.size(), reference.element_count());
    EXPECT_TRUE(std::all_of(values.begin(), values.end(), [](float v) { return std::isfinite(v); }));
    float max_abs = 0.0f;
    for (float v : values) max_abs = std::max(max_abs, std::fabs(v));
    EXPECT_GT(max_abs, 0.0f) << "all-zero reference";
    EXPECT_FLOAT_EQ(max_abs, model["reference_max_abs"].get<float>());
    if (model["top1"].get<bool>()) {
      // Every image's winning logit leads clearly enough for "the same top-1" to be a fair
      // check; the manifest names the least decisive image's lead.
      const std::size_t classes = reference.shape.back();
      double least_in_std = std::numeric_limits<double>::infinity();
      float least_margin = 0.0f;
      for (auto row = values.begin(); row != values.end(); row += classes) {
        std::vector<float> sorted(row, row + classes);
        std::sort(sorted.begin(), sorted.end());
        const float margin = sorted.back() - sorted[classes - 2];
        double sum = 0.0, squares = 0.0;
        for (float v : sorted) sum += v, squares += double(v) * v;
        const double mean = sum / classes, deviation = std::sqrt(squares / classes - mean * mean);
        if (margin / deviation < least_in_std) least_in_std = margin / deviation, least_margin = margin;
      }
      EXPECT_FLOAT_EQ(least_margin, model["top1_margin"].get<float>());
      EXPECT_NEAR(least_in_std, model["top1_margin_in_std"].get<double>(), 1e-4);
      EXPECT_GT(model["top1_margin_in_std"].get<double>(), 0.25);
    }
  }
}

TEST(NetworksManifestTest, BadFixturesAreBadAsDescribed) {
  const json manifest = load_manifest();
  std::set<std::string> problems;
  for (const json& fixture : manifest["bad_fixtures"]) {
    problems.insert(fixture["problem"].get<std::string>());
    EXPECT_TRUE(fs::is_regular_file(kNetworks / fixture["onnx"].get<std::string>())) << fixture["name"];
    EXPECT_TRUE(fs::is_regular_file(kNetworks / fixture["input_npy"].get<std::string>())) << fixture["name"];
  }
  EXPECT_EQ(problems, (std::set<std::string>{"unsupported_op", "malformed_onnx", "input_shape", "input_dtype"}));

  const auto lenet5_size = fs::file_size(kNetworks / "lenet5.onnx");
  EXPECT_EQ(fs::file_size(kNetworks / "bad_truncated.onnx"), lenet5_size / 2);
  EXPECT_NE(read_npy((kNetworks / "lenet5.bad_shape.npy").string()).shape, (std::vector<std::int64_t>{1, 1, 32, 32}));
  const NpyArray bad_dtype = read_npy((kNetworks / "lenet5.bad_dtype.npy").string());
  EXPECT_EQ(bad_dtype.dtype, "<i8");
  EXPECT_EQ(bad_dtype.shape, (std::vector<std::int64_t>{1, 1, 32, 32}));
  // The unsupported node's name and op type are in the file, where a front end finds them.
  std::ifstream in(kNetworks / "bad_unsupported_op.onnx", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(bytes.find("cos_unsupported"), std::string::npos);
  EXPECT_NE(bytes.find("Cos"), std::string::npos);
}

}  // namespace
}  // namespace npuvp
