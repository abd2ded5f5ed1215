// Valid but unusual ONNX forms (found by probing the importer with hand-built models):
// compiled, run on the host emulator of the kernel contract and compared with plain f32
// references, as compiler_numerics_test does for the common forms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "compiler_package_emulator.h"
#include "compiler_reference_ops.h"
#include "compiler_test_support.h"

namespace npuvp::compiler::test {
namespace {

using ref::Tensor;

void expect_close(const std::vector<float>& got, const Tensor& expected, double tolerance = 1e-2) {
  expect_close_to_reference(got, expected, tolerance);
}

std::vector<float> compile_and_run(const OnnxBuilder& b, const std::vector<float>& input) {
  const CompiledModel model = compile_onnx_bytes(b.bytes(), {});
  return PackageEmulator(model.package).run(input);
}

std::string dims_text(const Dims& dims) {
  std::string text;
  for (size_t k = 0; k < dims.size(); ++k) text += (k ? "," : "") + std::to_string(dims[k]);
  return text;
}

// out[i] = f(a[i], b[i broadcast]) for b of shape [1, 1, h, 1] or the same shape as a.
std::vector<float> elementwise(const std::vector<float>& a, const std::vector<float>& b,
                               const std::function<float(float, float)>& f, std::int64_t h = 0, std::int64_t w = 0) {
  std::vector<float> out(a.size());
  for (size_t i = 0; i < a.size(); ++i) out[i] = f(a[i], b.size() == a.size() ? b[i] : b[(i / w) % h]);
  return out;
}

// Max and Min take one input or more (ONNX: 1 to 2^31 - 1): every input counts, also when
// the constants are folded on the host; one input is the input itself.
TEST(CompilerOnnxForms, VariadicMaxAndMin) {
  const Dims shape{1, 3, 5, 7};
  for (const std::string op : {"Max", "Min"}) {
    SCOPED_TRACE(op);
    OnnxBuilder b;
    b.input("x", shape);
    const auto c1 = b.random_constant("c1", shape);
    const auto c2 = b.random_constant("c2", {1, 1, 5, 1});
    b.node(op, {"x", "c1", "c2"}, {"y"}, "three_inputs");
    b.output("y", shape);
    const auto x = b.random(shape, 2.f);
    const auto pick = [&](float a, float c) { return op == "Max" ? std::max(a, c) : std::min(a, c); };
    const auto expected = elementwise(elementwise(x, c1, pick), c2, pick, 5, 7);
    expect_close(compile_and_run(b, x), Tensor{shape, expected});
  }
  OnnxBuilder one;
  one.input("x", shape);
  one.node("Max", {"x"}, {"t"}, "one_input");
  one.node("Relu", {"t"}, {"y"});
  one.output("y", shape);
  const auto x = one.random(shape);
  expect_close(compile_and_run(one, x), ref::map(Tensor{shape, x}, [](float v) { return std::max(v, 0.f); }));

  OnnxBuilder folded;
  folded.input("x", {5, 7});
  const auto c1 = folded.random_constant("c1", {5, 7}), c2 = folded.random_constant("c2", {5, 7});
  const auto c3 = folded.random_constant("c3", {5, 7});
  folded.node("Max", {"c1", "c2", "c3"}, {"m"}, "folded_on_the_host");
  folded.node("Add", {"x", "m"}, {"y"});
  folded.output("y", {5, 7});
  const auto x2 = folded.random({5, 7});
  const auto max = [](float a, float c) { return std::max(a, c); };
  const auto expected = elementwise(x2, elementwise(elementwise(c1, c2, max), c3, max), std::plus<float>());
  expect_close(compile_and_run(folded, x2), Tensor{{5, 7}, expected});
}

// Gemm's C broadcast to M x N by its shape (ONNX's unidirectional broadcasting), every shape
// allowed, with M == N: a column [M, 1] has N values too, and is added per row, not per column.
TEST(CompilerOnnxForms, GemmConstantCOfEveryBroadcastShape) {
  const std::int64_t m = 6, k = 8, n = 6;
  for (const Dims& c_shape : {Dims{}, Dims{1}, Dims{n}, Dims{1, n}, Dims{m, 1}, Dims{m, n}, Dims{1, 1}}) {
    for (const bool trans_b : {false, true}) {
      SCOPED_TRACE("C [" + dims_text(c_shape) + "]" + (trans_b ? ", transB" : ""));
      OnnxBuilder b;
      b.input("x", {m, k});
      const auto w = b.random_constant("w", trans_b ? Dims{n, k} : Dims{k, n}, 0.4f);
      const auto c = b.random_constant("c", c_shape);
      auto& gemm = b.node("Gemm", {"x", "w", "c"}, {"y"}, "gemm");
      OnnxBuilder::attr(gemm, "transB", std::int64_t(trans_b));
      OnnxBuilder::attr(gemm, "beta", 0.5f);
      b.output("y", {m, n});
      const auto x = b.random({m, k});
      const std::int64_t c_rows = c_shape.size() == 2 ? c_shape[0] : 1;
      const std::int64_t c_cols = c_shape.empty() ? 1 : c_shape.back();
      Tensor y{{m, n}, std::vector<float>(m * n)};
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
          float sum = 0.5f * c[(c_rows == 1 ? 0 : i) * c_cols + (c_cols == 1 ? 0 : j)];
          for (std::int64_t q = 0; q < k; ++q) sum += x[i * k + q] * w[trans_b ? j * k + q : q * n + j];
          y.data[i * n + j] = sum;
        }
      expect_close(compile_and_run(b, x), y);
    }
  }
}

// A sparse initializer (values at indices, zeros elsewhere) is made dense: indices as flat
// offsets ([NNZ]) or as coordinates ([NNZ, rank]). It used to be read as an activation that
// nothing produces (SIGSEGV in the MatMul lowering).
TEST(CompilerOnnxForms, SparseInitializerIsMadeDense) {
  for (const bool coordinates : {false, true}) {
    SCOPED_TRACE(coordinates ? "coordinates" : "flat offsets");
    OnnxBuilder b;
    b.input("x", {2, 3, 5});
    std::vector<float> w(5 * 4, 0.f);
    auto* sparse = b.model().mutable_graph()->add_sparse_initializer();
    sparse->add_dims(5);
    sparse->add_dims(4);
    auto* values = sparse->mutable_values();
    values->set_name("w");
    values->set_data_type(onnx::TensorProto::FLOAT);
    auto* indices = sparse->mutable_indices();
    indices->set_name("w_indices");
    indices->set_data_type(onnx::TensorProto::INT64);
    const std::vector<std::int64_t> offsets = {1, 6, 7, 12, 19};
    for (const auto offset : offsets) {
      w[offset] = 0.25f * float(offset) - 2.f;
      values->add_float_data(w[offset]);
      if (coordinates) {
        indices->add_int64_data(offset / 4);
        indices->add_int64_data(offset % 4);
      } else {
        indices->add_int64_data(offset);
      }
    }
    values->add_dims(std::int64_t(offsets.size()));
    indices->add_dims(std::int64_t(offsets.size()));
    if (coordinates) indices->add_dims(2);
    b.node("MatMul", {"x", "w"}, {"y"}, "sparse_weights");
    b.output("y", {2, 3, 4});
    const auto x = b.random({2, 3, 5});
    expect_close(compile_and_run(b, x), ref::matmul(Tensor{{6, 5}, x}, w, 4));
  }
}

// ReduceMean of opset 18 without the axes input reduces every axis (as earlier opsets
// without the attribute); it was refused as an unsupported op.
TEST(CompilerOnnxForms, Opset18ReduceMeanWithoutAxes) {
  OnnxBuilder b(18);
  b.input("x", {1, 3, 5, 7});
  b.node("ReduceMean", {"x"}, {"y"}, "mean_of_all");
  b.output("y", {1, 1, 1, 1});
  const auto x = b.random({1, 3, 5, 7});
  double sum = 0;
  for (const float v : x) sum += v;
  expect_close(compile_and_run(b, x), Tensor{{1, 1, 1, 1}, {float(sum / double(x.size()))}});
}

// Squeeze without axes before opset 13 drops every axis of size 1 (torch exports x.squeeze()
// so at opset 11); libonnx 1.12 infers no shape for it, so it was refused as dynamic.
TEST(CompilerOnnxForms, SqueezeWithoutAxesAtOpsets11And12) {
  for (const int opset : {11, 12}) {
    SCOPED_TRACE("opset " + std::to_string(opset));
    OnnxBuilder b(opset);
    b.input("x", {1, 3, 1, 7});
    b.node("Squeeze", {"x"}, {"s"}, "squeeze_all");
    b.node("Tanh", {"s"}, {"y"});
    b.output("y", {3, 7});
    const auto x = b.random({1, 3, 1, 7});
    expect_close(compile_and_run(b, x), ref::map(Tensor{{3, 7}, x}, [](float v) { return std::tanh(v); }));
  }
}

// Slice of opset 9 (bounds as attributes) with negative starts and ends, counted from the
// axis' end and clamped (torch exports x[..., -3:] so); libonnx 1.12 infers no shape for it.
TEST(CompilerOnnxForms, Opset9SliceWithNegativeBounds) {
  OnnxBuilder b(9);
  b.input("x", {2, 4, 7});
  auto& slice = b.node("Slice", {"x"}, {"s"}, "last_three");
  OnnxBuilder::attr(slice, "starts", Dims{-3, -100});
  OnnxBuilder::attr(slice, "ends", Dims{INT64_MAX, -1});
  OnnxBuilder::attr(slice, "axes", Dims{2, 1});
  b.node("Relu", {"s"}, {"y"});
  b.output("y", {2, 3, 3});
  const auto x = b.random({2, 4, 7});
  Tensor y{{2, 3, 3}, std::vector<float>(18)};
  for (int n = 0; n < 2; ++n)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) y.data[(n * 3 + r) * 3 + c] = std::max(x[(n * 4 + r) * 7 + 4 + c], 0.f);
  expect_close(compile_and_run(b, x), y);
}

// A Concat operand without elements (a [1, 0, 5, 7] constant) adds nothing: dropped. (The
// package held an empty constant, which the runtime refused after the run had started.)
TEST(CompilerOnnxForms, EmptyConcatOperandIsDropped) {
  OnnxBuilder b;
  b.input("x", {1, 3, 5, 7});
  b.constant("nothing", {1, 0, 5, 7}, {});
  const auto c = b.random_constant("c", {1, 2, 5, 7});
  auto& concat = b.node("Concat", {"nothing", "x", "nothing", "c"}, {"y"}, "concat");
  OnnxBuilder::attr(concat, "axis", std::int64_t(1));
  b.output("y", {1, 5, 5, 7});
  const auto x = b.random({1, 3, 5, 7});
  std::vector<float> expected = x;
  expected.insert(expected.end(), c.begin(), c.end());
  expect_close(compile_and_run(b, x), Tensor{{1, 5, 5, 7}, expected});
  OnnxBuilder alone;
  alone.input("x", {1, 3, 5, 7});
  alone.constant("nothing", {1, 0, 5, 7}, {});
  auto& only_x = alone.node("Concat", {"x", "nothing"}, {"y"}, "concat");
  OnnxBuilder::attr(only_x, "axis", std::int64_t(1));
  alone.output("y", {1, 3, 5, 7});
  const CompiledModel model = compile_onnx_bytes(alone.bytes(), {});
  ASSERT_EQ(model.layers.size(), 1u);
  EXPECT_EQ(model.layers[0].op, "Copy");  // the output is the input's copy, no Concat with an empty constant
  EXPECT_EQ(model.constants_bytes, 0u);
  expect_close(PackageEmulator(model.package).run(x), Tensor{{1, 3, 5, 7}, x});
}

// What onnx.helper of ONNX 1.14 to 1.18 and newer exporters write: IR versions 9 to 11 (which
// only added data types and function overloads), graph outputs declared without a shape,
// opset-20 Gelu in both its approximations, opset-18 ReduceMean with an axes input and Split with
// num_outputs, opset-19 AveragePool with dilations of 1 and Cast with saturate. All were refused
// (the IR version, the checker's "Field 'shape' ... is required", "not an op", "newer form").
TEST(CompilerOnnxForms, ModelsOfNewerOnnxReleases) {
  const Dims shape{1, 3, 5, 7};
  for (const int ir : {9, 10, 11}) {
    SCOPED_TRACE(ir);
    OnnxBuilder b(21);
    b.model().set_ir_version(ir);
    b.input("x", shape);
    b.node("Relu", {"x"}, {"y"}, "act");
    auto* y = b.model().mutable_graph()->add_output();  // no shape
    y->set_name("y");
    y->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    const auto x = b.random(shape);
    expect_close(compile_and_run(b, x), ref::map(Tensor{shape, x}, [](float v) { return std::max(v, 0.f); }));
  }
  for (const std::string approximate : {"none", "tanh"}) {
    SCOPED_TRACE(approximate);
    OnnxBuilder b(20);
    b.model().set_ir_version(10);
    b.input("x", shape);
    auto& gelu = b.node("Gelu", {"x"}, {"y"}, "gelu");
    OnnxBuilder::attr(gelu, "approximate", approximate);
    b.output("y", shape);
    const auto x = b.random(shape, 3.f);
    const auto expected = ref::map(Tensor{shape, x}, [&](float v) {
      const double d = v;
      return float(approximate == "none" ? 0.5 * d * (1 + std::erf(d / std::sqrt(2.0)))
                                         : 0.5 * d * (1 + std::tanh(std::sqrt(2 / M_PI) * (d + 0.044715 * d * d * d))));
    });
    expect_close(compile_and_run(b, x), expected);
  }
  // opset 18's ReduceMean with its axes as an input (an initializer or a Constant node) and
  // Split into num_outputs parts, as torch 2 exports x.mean(dim) and chunk at opset 18
  for (const bool constant_node : {false, true}) {
    SCOPED_TRACE(constant_node);
    OnnxBuilder b(18);
    b.model().set_ir_version(10);
    b.input("x", {1, 6, 4, 5});
    if (constant_node) {
      auto& axes = b.node("Constant", {}, {"axes"}, "axes_node");
      auto* value = axes.add_attribute();
      value->set_name("value");
      value->set_type(onnx::AttributeProto::TENSOR);
      auto* t = value->mutable_t();
      t->set_data_type(onnx::TensorProto::INT64);
      t->add_dims(2);
      t->add_int64_data(2);
      t->add_int64_data(-1);
    } else {
      b.constant_ints("axes", {2}, {2, -1});
    }
    b.node("ReduceMean", {"x", "axes"}, {"m"}, "mean");
    auto& split = b.node("Split", {"m"}, {"a", "b", "c"}, "thirds");
    OnnxBuilder::attr(split, "axis", std::int64_t(1));
    OnnxBuilder::attr(split, "num_outputs", std::int64_t(3));
    b.node("Add", {"a", "c"}, {"s"}, "sum");
    b.node("Mul", {"s", "b"}, {"y"}, "product");
    b.output("y", {1, 2, 1, 1});
    const auto x = b.random({1, 6, 4, 5});
    std::vector<double> mean(6, 0.0);
    for (int c = 0; c < 6; ++c)
      for (int k = 0; k < 20; ++k) mean[c] += x[c * 20 + k] / 20.0;
    const std::vector<float> expected{float((mean[0] + mean[4]) * mean[2]), float((mean[1] + mean[5]) * mean[3])};
    expect_close(compile_and_run(b, x), Tensor{{1, 2, 1, 1}, expected});
  }
  OnnxBuilder b(19);
  b.model().set_ir_version(9);
  b.input("x", {1, 2, 8, 8});
  auto& cast = b.node("Cast", {"x"}, {"c"}, "cast");
  OnnxBuilder::attr(cast, "to", std::int64_t(onnx::TensorProto::FLOAT));
  OnnxBuilder::attr(cast, "saturate", std::int64_t(1));
  auto& pool = b.node("AveragePool", {"c"}, {"y"}, "pool");
  OnnxBuilder::attr(pool, "kernel_shape", Dims{2, 2});
  OnnxBuilder::attr(pool, "strides", Dims{2, 2});
  OnnxBuilder::attr(pool, "dilations", Dims{1, 1});
  b.output("y", {1, 2, 4, 4});
  const auto x = b.random({1, 2, 8, 8});
  std::vector<float> expected(32);
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        float sum = 0;
        for (int di = 0; di < 2; ++di)
          for (int dj = 0; dj < 2; ++dj) sum += x[(c * 8 + 2 * i + di) * 8 + 2 * j + dj];
        expected[(c * 4 + i) * 4 + j] = sum / 4;
      }
  expect_close(compile_and_run(b, x), Tensor{{1, 2, 4, 4}, expected});
}

// CastLike (opset 15), as torch 2's exporter writes constants: cast to its target's type, an
// activation's (float) or a constant's (here an int64 shape, folded on the host).
TEST(CompilerOnnxForms, CastLikeCastsToItsTargetsType) {
  OnnxBuilder b(15);
  b.input("x", {1, 6, 4, 5});
  b.constant("two", {}, {2.f});
  b.node("CastLike", {"two", "x"}, {"two_like_x"}, "scale_like_x");
  b.node("Mul", {"x", "two_like_x"}, {"scaled"}, "scale");
  b.constant("target_f", {3}, {1.f, 6.f, 20.f});
  b.constant_ints("int_like", {1}, {0});
  b.node("CastLike", {"target_f", "int_like"}, {"target"}, "target_like_int");
  b.node("Reshape", {"scaled", "target"}, {"y"}, "flatten_rows");
  b.output("y", {1, 6, 20});
  const auto x = b.random({1, 6, 4, 5});
  expect_close(compile_and_run(b, x), ref::map(Tensor{{1, 6, 20}, x}, [](float v) { return 2 * v; }));
}

// Causal masks as exporters build them from constants: Trilu (opset 14; upper by default, or
// lower with a diagonal k) and LessOrEqual / GreaterOrEqual (opset 12) fold on the host.
TEST(CompilerOnnxForms, CausalMasksOfTriluAndOrderingsFoldOnTheHost) {
  OnnxBuilder b(17);
  b.input("x", {1, 4, 4});
  b.constant("ones", {4, 4}, std::vector<float>(16, 1.f));
  b.node("Trilu", {"ones"}, {"upper"}, "upper_triangle");
  b.constant_ints("k", {}, {-1});
  auto& lower = b.node("Trilu", {"ones", "k"}, {"lower"}, "below_the_diagonal");
  OnnxBuilder::attr(lower, "upper", std::int64_t(0));
  b.constant_ints("rows", {4, 1}, {0, 1, 2, 3});
  b.constant_ints("cols", {1, 4}, {0, 1, 2, 3});
  b.node("LessOrEqual", {"rows", "cols"}, {"le"}, "row_le_col");
  b.node("GreaterOrEqual", {"rows", "cols"}, {"ge"}, "row_ge_col");
  for (const std::string name : {"le", "ge"}) {
    auto& cast = b.node("Cast", {name}, {name + "_f"}, name + "_to_float");
    OnnxBuilder::attr(cast, "to", std::int64_t(onnx::TensorProto::FLOAT));
  }
  b.node("Add", {"x", "upper"}, {"s1"}, "add_upper");
  b.node("Add", {"s1", "lower"}, {"s2"}, "add_lower");
  b.node("Add", {"s2", "le_f"}, {"s3"}, "add_le");
  b.node("Mul", {"s3", "ge_f"}, {"y"}, "times_ge");
  b.output("y", {1, 4, 4});
  const auto x = b.random({1, 4, 4});
  std::vector<float> expected(16);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const float upper = j >= i ? 1.f : 0.f, lower = j - i <= -1 ? 1.f : 0.f;
      const float le = i <= j ? 1.f : 0.f, ge = i >= j ? 1.f : 0.f;
      expected[i * 4 + j] = (x[i * 4 + j] + upper + lower + le) * ge;
    }
  expect_close(compile_and_run(b, x), Tensor{{1, 4, 4}, expected});
}

// The other opset-18 ReduceMean forms (axes from a Constant's value_ints, an empty axes tensor:
// every axis, noop_with_empty_axes without axes: the input) and a Split whose optional split
// input is named "" (absent) beside num_outputs.
TEST(CompilerOnnxForms, Opset18ReduceMeanAxesFormsAndSplitWithAnAbsentSizesInput) {
  const Dims shape{1, 4, 3, 5};
  const auto mean_over = [](const std::vector<float>& x, bool all) {
    std::vector<float> out;
    if (all) {
      double sum = 0;
      for (const float v : x) sum += v;
      return std::vector<float>{float(sum / double(x.size()))};
    }
    for (size_t row = 0; row < x.size() / 5; ++row) {  // over the last axis
      double sum = 0;
      for (int k = 0; k < 5; ++k) sum += x[row * 5 + k];
      out.push_back(float(sum / 5));
    }
    return out;
  };
  {
    OnnxBuilder b(18);
    b.input("x", shape);
    auto& axes = b.node("Constant", {}, {"axes"}, "axes_node");
    OnnxBuilder::attr(axes, "value_ints", Dims{-1});
    b.node("ReduceMean", {"x", "axes"}, {"y"}, "mean_last");
    b.output("y", {1, 4, 3, 1});
    const auto x = b.random(shape);
    expect_close(compile_and_run(b, x), Tensor{{1, 4, 3, 1}, mean_over(x, false)});
  }
  {
    OnnxBuilder b(18);
    b.input("x", shape);
    b.constant_ints("none", {0}, {});
    b.node("ReduceMean", {"x", "none"}, {"y"}, "mean_all");
    b.output("y", {1, 1, 1, 1});
    const auto x = b.random(shape);
    // one value near 0 (the mean of 60 values of either sign), its f16 rounding ~1 % of it
    expect_close(compile_and_run(b, x), Tensor{{1, 1, 1, 1}, mean_over(x, true)}, 3e-2);
  }
  {
    OnnxBuilder b(18);
    b.input("x", shape);
    auto& mean = b.node("ReduceMean", {"x"}, {"m"}, "noop");
    OnnxBuilder::attr(mean, "noop_with_empty_axes", std::int64_t(1));
    auto& split = b.node("Split", {"m", ""}, {"a", "b"}, "halves");
    OnnxBuilder::attr(split, "axis", std::int64_t(1));
    OnnxBuilder::attr(split, "num_outputs", std::int64_t(2));
    b.node("Sub", {"a", "b"}, {"y"}, "difference");
    b.output("y", {1, 2, 3, 5});
    const auto x = b.random(shape);
    std::vector<float> expected(30);
    for (int k = 0; k < 30; ++k) expected[k] = x[k] - x[30 + k];
    expect_close(compile_and_run(b, x), Tensor{{1, 2, 3, 5}, expected});
  }
}

// Expand of an activation (expand_as; a key/value head repeated for grouped attention): an Add of
// zeros over the widened axes, here a new leading axis and a middle one. It was "unsupported op".
TEST(CompilerOnnxForms, ExpandOfAnActivationBroadcasts) {
  OnnxBuilder b;
  b.input("x", {4, 1, 5});
  b.node("Relu", {"x"}, {"r"}, "act");
  b.constant_ints("shape", {4}, {2, 4, 3, 5});
  b.node("Expand", {"r", "shape"}, {"y"}, "repeat");
  b.output("y", {2, 4, 3, 5});
  const auto x = b.random({4, 1, 5});
  std::vector<float> expected;
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 4; ++c)
      for (int h = 0; h < 3; ++h)
        for (int w = 0; w < 5; ++w) expected.push_back(std::max(x[c * 5 + w], 0.f));
  expect_close(compile_and_run(b, x), Tensor{{2, 4, 3, 5}, expected});
}

// A Cast of an activation to double (and back) is an identity: activations are float (f16 inside)
// whatever the model's type; it was "unsupported op".
TEST(CompilerOnnxForms, CastOfAnActivationToDoubleIsAnIdentity) {
  OnnxBuilder b;
  b.input("x", {3, 5});
  auto& wide = b.node("Cast", {"x"}, {"d"}, "to_double");
  OnnxBuilder::attr(wide, "to", std::int64_t(onnx::TensorProto::DOUBLE));
  b.node("Relu", {"d"}, {"r"}, "act");
  auto& narrow = b.node("Cast", {"r"}, {"y"}, "to_float");
  OnnxBuilder::attr(narrow, "to", std::int64_t(onnx::TensorProto::FLOAT));
  b.output("y", {3, 5});
  const auto x = b.random({3, 5});
  expect_close(compile_and_run(b, x), ref::map(Tensor{{3, 5}, x}, [](float v) { return std::max(v, 0.f); }));
}

// Split of opset 18 into num_outputs parts that do not divide the axis: ceil(n / parts) each, the
// last smaller (torch.chunk); libonnx 1.12 infers no shapes for it ("no static shape").
TEST(CompilerOnnxForms, Opset18SplitIntoUnevenParts) {
  OnnxBuilder b(18);
  b.input("x", {1, 7, 2});
  auto& split = b.node("Split", {"x"}, {"a", "b", "c"}, "thirds");
  OnnxBuilder::attr(split, "axis", std::int64_t(1));
  OnnxBuilder::attr(split, "num_outputs", std::int64_t(3));
  auto& concat = b.node("Concat", {"c", "a", "b"}, {"y"}, "rotate");
  OnnxBuilder::attr(concat, "axis", std::int64_t(1));
  b.output("y", {1, 7, 2});
  const auto x = b.random({1, 7, 2});
  std::vector<float> expected(x.begin() + 12, x.end());  // c: row 6
  expected.insert(expected.end(), x.begin(), x.begin() + 12);  // a: rows 0-2, b: rows 3-5
  expect_close(compile_and_run(b, x), Tensor{{1, 7, 2}, expected});
}

}  // namespace
}  // namespace npuvp::compiler::test
