// The graph passes, one decision at a time, on small ONNX graphs.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler_test_support.h"
#include "import.h"
#include "onnx_attributes.h"
#include "passes.h"

namespace npuvp::compiler::test {
namespace {

Graph imported(const OnnxBuilder& b) { return import_onnx(b.bytes(), "test"); }

int count_ops(const Graph& g, const std::string& op) {
  int n = 0;
  for (const auto& node : g.nodes) n += !node.removed && node.op() == op;
  return n;
}

const Node* find_node(const Graph& g, const std::string& op) {
  for (const auto& node : g.nodes)
    if (!node.removed && node.op() == op) return &node;
  return nullptr;
}

TEST(CompilerPasses, ShapeArithmeticFoldsToConstants) {
  OnnxBuilder b;
  b.input("x", {2, 3, 4});
  b.constant_ints("zero", {1}, {0});
  b.constant_ints("one", {1}, {1});
  b.constant_ints("two", {1}, {2});
  b.constant_ints("minus_one", {1}, {-1});
  b.node("Shape", {"x"}, {"s"});
  b.node("Slice", {"s", "one", "two"}, {"c"});  // [3]
  b.node("Gather", {"s", "zero"}, {"n"});       // [2]
  auto& cat = b.node("Concat", {"n", "minus_one"}, {"target"});
  OnnxBuilder::attr(cat, "axis", std::int64_t(0));
  OnnxBuilder::attr(b.node("Cast", {"c"}, {"c_float"}), "to", std::int64_t(onnx::TensorProto::FLOAT));
  b.node("Reshape", {"x", "target"}, {"y"}, "reshape");
  b.output("y", {2, 12});
  Graph g = imported(b);
  EXPECT_EQ(fold_constants(g), 5);
  EXPECT_EQ(g.nodes.size(), 1u);
  const Node* reshape = find_node(g, "Reshape");
  ASSERT_NE(reshape, nullptr);
  const Value& target = g.values[reshape->inputs[1]];
  ASSERT_TRUE(target.is_constant());
  EXPECT_EQ(target.constant->i, (std::vector<std::int64_t>{2, -1}));
  EXPECT_EQ(g.values[g.output].shape, (Shape{2, 12}));
}

TEST(CompilerPasses, IdentitiesAreRemoved) {
  OnnxBuilder b;
  b.input("x", {1, 4});
  b.node("Identity", {"x"}, {"a"});
  b.node("Relu", {"a"}, {"r"});
  b.node("Identity", {"r"}, {"y"});
  b.output("y", {1, 4});
  Graph g = imported(b);
  EXPECT_EQ(remove_identities(g), 2);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].op(), "Relu");
  EXPECT_EQ(g.nodes[0].inputs[0], g.input);
  EXPECT_EQ(g.values[g.output].name, "y");  // the model output keeps its name
}

TEST(CompilerPasses, BatchNormFoldsIntoConvByTheFormula) {
  OnnxBuilder b;
  b.input("x", {1, 3, 5, 5});
  const auto w = b.random_constant("w", {4, 3, 3, 3}), bias = b.random_constant("b", {4});
  const std::vector<float> gamma = {1.5f, -0.5f, 2.f, 0.25f}, beta = {0.1f, 0.2f, -0.3f, 0.f},
                           mean = {0.5f, -1.f, 0.f, 2.f}, var = {1.f, 4.f, 0.25f, 9.f};
  b.constant("g", {4}, gamma); b.constant("be", {4}, beta); b.constant("m", {4}, mean); b.constant("v", {4}, var);
  b.node("Conv", {"x", "w", "b"}, {"c"}, "conv");
  auto& bn = b.node("BatchNormalization", {"c", "g", "be", "m", "v"}, {"y"}, "bn");
  OnnxBuilder::attr(bn, "epsilon", 1e-3f);
  b.output("y", {1, 4, 3, 3});
  Graph g = imported(b);
  EXPECT_EQ(fold_batchnorms(g), 1);
  ASSERT_EQ(g.nodes.size(), 1u);
  const Node& conv = g.nodes[0];
  EXPECT_EQ(conv.outputs[0], g.output);
  const auto& folded_w = *g.values[conv.inputs[1]].constant;
  const auto& folded_b = *g.values[conv.inputs[2]].constant;
  for (int co = 0; co < 4; ++co) {
    const double s = gamma[co] / std::sqrt(double(var[co]) + 1e-3);
    for (int k = 0; k < 27; ++k) EXPECT_NEAR(folded_w.f[co * 27 + k], w[co * 27 + k] * s, 1e-6);
    EXPECT_NEAR(folded_b.f[co], (bias[co] - mean[co]) * s + beta[co], 1e-6);
  }
}

TEST(CompilerPasses, BatchNormStaysWhenTheConvOutputHasAnotherUse) {
  OnnxBuilder b;
  b.input("x", {1, 2, 4, 4});
  b.random_constant("w", {2, 2, 1, 1});
  for (const char* n : {"g", "be", "m"}) b.constant(n, {2}, {0.5f, 1.f});
  b.constant("v", {2}, {1.f, 1.f});
  b.node("Conv", {"x", "w"}, {"c"});
  b.node("BatchNormalization", {"c", "g", "be", "m", "v"}, {"n"});
  b.node("Add", {"n", "c"}, {"y"});
  b.output("y", {1, 2, 4, 4});
  Graph g = imported(b);
  EXPECT_EQ(fold_batchnorms(g), 0);
  EXPECT_EQ(count_ops(g, "BatchNormalization"), 1);
}

void add_layernorm(OnnxBuilder& b, const std::string& x, const std::string& y, std::int64_t axis) {
  auto& m1 = b.node("ReduceMean", {x}, {x + "_mu"});
  OnnxBuilder::attr(m1, "axes", Dims{axis});
  b.node("Sub", {x, x + "_mu"}, {x + "_d"});
  b.node("Pow", {x + "_d", "two"}, {x + "_sq"});
  auto& m2 = b.node("ReduceMean", {x + "_sq"}, {x + "_var"});
  OnnxBuilder::attr(m2, "axes", Dims{axis});
  b.node("Add", {x + "_var", "eps"}, {x + "_ve"});
  b.node("Sqrt", {x + "_ve"}, {x + "_std"});
  b.node("Div", {x + "_d", x + "_std"}, {y});
}

TEST(CompilerPasses, LayerNormDecompositionIsMatchedOverTheLastAxisOnly) {
  OnnxBuilder b;
  b.input("x", {2, 3, 8});
  b.constant("two", {}, {2.f});
  b.constant("eps", {}, {1e-6f});
  add_layernorm(b, "x", "n", -1);
  add_layernorm(b, "n", "y", 1);  // over an inner axis: not a LayerNormalization
  b.output("y", {2, 3, 8});
  Graph g = imported(b);
  EXPECT_EQ(match_layernorms(g), 1);
  const Node* ln = find_node(g, "LayerNormalization");
  ASSERT_NE(ln, nullptr);
  EXPECT_EQ(ln->inputs[0], g.input);
  EXPECT_EQ(ln->inputs.size(), 2u);  // gamma of ones, no beta
  EXPECT_EQ(g.values[ln->inputs[1]].constant->f, std::vector<float>(8, 1.f));
  EXPECT_EQ(count_ops(g, "ReduceMean"), 2);
}

TEST(CompilerPasses, GeluIsMatchedInBothExportedForms) {
  OnnxBuilder b;
  b.input("x", {1, 16});
  b.constant("sqrt2", {}, {std::sqrt(2.f)});
  b.constant("inv_sqrt2", {}, {1 / std::sqrt(2.f)});
  b.constant("one", {}, {1.f});
  b.constant("half", {}, {0.5f});
  // x * 0.5 * (1 + erf(x / sqrt 2)), the 0.5 last
  b.node("Div", {"x", "sqrt2"}, {"a"});
  b.node("Erf", {"a"}, {"e"});
  b.node("Add", {"e", "one"}, {"p"});
  b.node("Mul", {"x", "p"}, {"m"});
  b.node("Mul", {"m", "half"}, {"g1"});
  // (0.5 * x) * (1 + erf(x * (1 / sqrt 2))), the 0.5 first
  b.node("Mul", {"g1", "inv_sqrt2"}, {"a2"});
  b.node("Erf", {"a2"}, {"e2"});
  b.node("Add", {"one", "e2"}, {"p2"});
  b.node("Mul", {"half", "g1"}, {"h2"});
  b.node("Mul", {"h2", "p2"}, {"y"});
  b.output("y", {1, 16});
  Graph g = imported(b);
  EXPECT_EQ(match_gelus(g), 2);
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].op(), "Gelu");
  EXPECT_EQ(g.nodes[1].op(), "Gelu");
  EXPECT_EQ(g.nodes[1].inputs[0], g.nodes[0].outputs[0]);
  EXPECT_EQ(g.nodes[1].outputs[0], g.output);
}

TEST(CompilerPasses, EpilogueFusionDecisions) {
  OnnxBuilder b;
  b.input("x", {1, 16, 6, 6});
  b.random_constant("w1", {16, 16, 1, 1});
  b.random_constant("w2", {16, 16, 1, 1});
  b.random_constant("channel_bias", {16, 1, 1});
  b.random_constant("spatial", {1, 1, 6, 6});
  b.constant("zero", {}, {0.f});
  b.constant("six", {}, {6.f});
  b.node("Conv", {"x", "w1"}, {"c1"}, "conv1");
  b.node("Conv", {"x", "w2"}, {"c2"}, "conv2");
  b.node("Add", {"c1", "c2"}, {"s"}, "sum");               // c2 is computed after conv1: residual of conv2
  b.node("Add", {"s", "channel_bias"}, {"sb"}, "bias");      // after the residual Add: still a bias
  b.node("Clip", {"sb", "zero", "six"}, {"r"}, "relu6");
  b.node("Add", {"r", "spatial"}, {"y"}, "not_a_bias");      // after the activation: stays
  b.output("y", {1, 16, 6, 6});
  Graph g = imported(b);
  fuse_epilogues(g);
  ASSERT_EQ(g.nodes.size(), 3u);
  const Node& conv2 = g.nodes[1];
  EXPECT_EQ(conv2.name(), "conv2");
  EXPECT_EQ(conv2.display_op(), "Conv+Add+Add+Clip");
  EXPECT_EQ(g.values[conv2.epilogue.residual].name, "c1");
  EXPECT_EQ(g.values[conv2.epilogue.bias].name, "channel_bias");
  EXPECT_EQ(conv2.epilogue.activation, Activation::Clip);
  EXPECT_EQ(conv2.epilogue.clip_max, 6.f);
  EXPECT_EQ(g.nodes[0].display_op(), "Conv");
  EXPECT_EQ(g.nodes[2].name(), "not_a_bias");
}

TEST(CompilerPasses, ScalarScalesOfAMatMulBecomeAlpha) {
  OnnxBuilder b;
  b.input("x", {4, 8});
  b.random_constant("w", {8, 5});
  b.random_constant("bias", {5});
  b.constant("three", {}, {3.f});
  b.constant("two", {}, {2.f});
  b.node("Mul", {"x", "three"}, {"x3"});         // operand scale
  b.node("MatMul", {"x3", "w"}, {"p"}, "mm");
  b.node("Div", {"p", "two"}, {"q"});            // result scale before the bias
  b.node("Add", {"q", "bias"}, {"r"});
  b.node("Mul", {"r", "two"}, {"y"}, "after_bias");  // after the bias: not ALPHA
  b.output("y", {4, 5});
  Graph g = imported(b);
  fuse_epilogues(g);
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].display_op(), "MatMul+Mul+Div+Add");
  EXPECT_FLOAT_EQ(g.nodes[0].epilogue.alpha, 1.5f);
  EXPECT_EQ(g.nodes[1].name(), "after_bias");
}

TEST(CompilerPasses, LayoutConversionsOnlyAtBoundaries) {
  OnnxBuilder b;
  b.input("x", {1, 3, 8, 8});
  b.random_constant("w1", {8, 3, 3, 3});
  b.random_constant("w2", {8, 8, 3, 3});
  b.random_constant("fc", {8, 4});
  b.random_constant("scale", {1, 8, 1, 1});
  auto& c1 = b.node("Conv", {"x", "w1"}, {"c1"});
  OnnxBuilder::attr(c1, "pads", Dims{1, 1, 1, 1});
  b.node("Sigmoid", {"c1"}, {"s1"});                 // elementwise: stays NC1HWC0
  b.node("Mul", {"s1", "scale"}, {"m1"});            // per-channel constant: stays NC1HWC0
  auto& c2 = b.node("Conv", {"m1", "w2"}, {"c2"});
  OnnxBuilder::attr(c2, "pads", Dims{1, 1, 1, 1});
  b.node("Add", {"c2", "s1"}, {"a"});                // both NC1HWC0
  b.node("GlobalAveragePool", {"a"}, {"gap"});
  b.node("Flatten", {"gap"}, {"f"});                 // ND from here
  b.node("MatMul", {"f", "fc"}, {"y"});
  b.output("y", {1, 4});
  Graph g = imported(b);
  const int conversions = assign_layouts(g);
  EXPECT_EQ(conversions, 2);
  EXPECT_EQ(g.nodes.front().op(), "ToNC1HWC0");
  EXPECT_EQ(count_ops(g, "ToND"), 1);
  for (const auto& node : g.nodes) {
    if (node.op() == "Sigmoid" || node.op() == "Mul" || node.op() == "Add") {
      EXPECT_EQ(g.values[node.outputs[0]].layout, Layout::NC1HWC0) << node.op();
    }
    if (node.op() == "ToND") {
      EXPECT_EQ(g.nodes[g.values[node.inputs[0]].producer].op(), "GlobalAveragePool");
    }
  }
}

TEST(CompilerPasses, TransposesAroundMatMulBecomeViews) {
  OnnxBuilder b;
  b.input("x", {1, 6, 2, 4});                          // [batch, seq, heads, dh]
  auto& q = b.node("Transpose", {"x"}, {"q"});         // [1, 2, 6, 4]
  OnnxBuilder::attr(q, "perm", Dims{0, 2, 1, 3});
  auto& k = b.node("Transpose", {"x"}, {"k"});         // [1, 2, 4, 6]
  OnnxBuilder::attr(k, "perm", Dims{0, 2, 3, 1});
  b.node("MatMul", {"q", "k"}, {"s"}, "scores");       // [1, 2, 6, 6]
  auto& back = b.node("Transpose", {"s"}, {"y"});      // [1, 6, 2, 6]
  OnnxBuilder::attr(back, "perm", Dims{0, 2, 1, 3});
  b.output("y", {1, 6, 2, 6});
  Graph g = imported(b);
  EXPECT_EQ(fold_transposes(g), 3);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].display_op(), "MatMul+Transpose+Transpose+Transpose");
  EXPECT_EQ(g.nodes[0].inputs[0], g.input);
  EXPECT_EQ(g.nodes[0].inputs[1], g.input);
  EXPECT_EQ(g.nodes[0].outputs[0], g.output);
}

// A packed Q/K projection sliced on its last axis, split into heads: both MatMul operands
// become strided windows of the projection (no Slice, Reshape or Transpose left).
TEST(CompilerPasses, SlicedHeadsAreReadInPlace) {
  OnnxBuilder b;
  b.input("x", {6, 1, 16});  // [seq, batch, 2 x 8]
  b.constant_ints("q_start", {1}, {0}); b.constant_ints("k_start", {1}, {8});
  b.constant_ints("q_end", {1}, {8}); b.constant_ints("k_end", {1}, {16});
  b.constant_ints("last", {1}, {-1});
  b.constant_ints("heads", {3}, {6, 2, 4});
  b.node("Slice", {"x", "q_start", "q_end", "last"}, {"q"});
  b.node("Slice", {"x", "k_start", "k_end", "last"}, {"k"});
  b.node("Reshape", {"q", "heads"}, {"qh"});
  b.node("Reshape", {"k", "heads"}, {"kh"});
  auto& qt = b.node("Transpose", {"qh"}, {"qt"});  // [2, 6, 4]
  OnnxBuilder::attr(qt, "perm", Dims{1, 0, 2});
  auto& kt = b.node("Transpose", {"kh"}, {"kt"});  // [2, 4, 6]
  OnnxBuilder::attr(kt, "perm", Dims{1, 2, 0});
  b.node("MatMul", {"qt", "kt"}, {"y"}, "scores");
  b.output("y", {2, 6, 6});
  Graph g = imported(b);
  fold_constants(g);
  fold_transposes(g);
  ASSERT_EQ(g.nodes.size(), 1u);
  const Node& mm = g.nodes[0];
  EXPECT_EQ(mm.inputs[0], g.input);
  EXPECT_EQ(mm.inputs[1], g.input);
  EXPECT_EQ(attribute_int(mm, "npuvp_view_offset_b", -1), 8);
  EXPECT_EQ(attribute_ints(mm, "npuvp_view_strides_a", {}), (std::vector<std::int64_t>{16, 4, 1}));
}

}  // namespace
}  // namespace npuvp::compiler::test
