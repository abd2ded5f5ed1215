// Valid but unusual ONNX forms (found by probing the importer with hand-built models):
// compiled, run on the host emulator of the kernel contract and compared with plain f32
// references, as compiler_numerics_test does for the common forms.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "compiler_package_emulator.h"
#include "compiler_reference_ops.h"
#include "compiler_test_support.h"

namespace npuvp::compiler::test {
namespace {

using ref::Tensor;

void expect_close(const std::vector<float>& got, const Tensor& expected, double tolerance = 1e-2) {
  ASSERT_EQ(got.size(), expected.data.size());
  const auto a = ref::agreement(got, expected.data);
  EXPECT_GT(a.cosine, 0.9995);
  EXPECT_LT(a.relative_error, tolerance);
}

std::vector<float> compile_and_run(const OnnxBuilder& b, const std::vector<float>& input) {
  const CompiledModel model = compile_onnx_bytes(b.bytes(), {});
  return PackageEmulator(model.package).run(input);
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

}  // namespace
}  // namespace npuvp::compiler::test
