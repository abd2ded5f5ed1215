#include "host_eval.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <set>

#include "compile_error.h"
#include "onnx_attributes.h"

namespace npuvp::compiler {
namespace {

using Ints = std::vector<std::int64_t>;

Ints broadcast_strides(const Shape& in, const Shape& out) {
  Ints strides(out.size(), 0);
  std::int64_t stride = 1;
  for (int k = int(in.size()) - 1, o = int(out.size()) - 1; k >= 0; --k, --o) {
    strides[o] = in[k] == 1 ? 0 : stride;
    stride *= in[k];
  }
  return strides;
}

// Calls f(output index, offsets into each input) over the output shape.
void for_each_broadcast(const Shape& out, const std::vector<Shape>& ins,
                        const std::function<void(std::int64_t, const Ints&)>& f) {
  std::vector<Ints> strides;
  for (const auto& in : ins) strides.push_back(broadcast_strides(in, out));
  const std::int64_t n = element_count(out);
  Ints index(out.size(), 0), offsets(ins.size(), 0);
  for (std::int64_t k = 0; k < n; ++k) {
    f(k, offsets);
    for (int d = int(out.size()) - 1; d >= 0; --d) {
      ++index[d];
      for (size_t i = 0; i < ins.size(); ++i) offsets[i] += strides[i][d];
      if (index[d] < out[d]) break;
      for (size_t i = 0; i < ins.size(); ++i) offsets[i] -= strides[i][d] * out[d];
      index[d] = 0;
    }
  }
}

HostTensor make_like(bool integer, Shape shape) {
  HostTensor t;
  t.type = integer ? HostTensor::Type::Int64 : HostTensor::Type::Float;
  t.shape = std::move(shape);
  if (integer) t.i.resize(t.size()); else t.f.resize(t.size());
  return t;
}

void put(HostTensor& t, std::int64_t k, double v) {
  if (t.is_int()) t.i[k] = saturated_int64(v); else t.f[k] = float(v);
}

HostTensor binary(const Node& node, const HostTensor& a, const HostTensor& b,
                  const std::function<double(double, double)>& f, bool integer_result) {
  HostTensor out = make_like(integer_result, broadcast_shapes(node, a.shape, b.shape));
  for_each_broadcast(out.shape, {a.shape, b.shape},
                     [&](std::int64_t k, const Ints& o) { put(out, k, f(a.at(o[0]), b.at(o[1]))); });
  return out;
}

// A variadic op (Max, Min: one input or more) folded pairwise from the left.
HostTensor fold_inputs(const Node& node, const std::vector<const HostTensor*>& in,
                       const std::function<double(double, double)>& f) {
  if (in.empty() || !in[0]) fail(node, "missing input 0");
  HostTensor result = *in[0];
  for (size_t k = 1; k < in.size(); ++k) {
    if (!in[k]) fail(node, "missing input " + std::to_string(k));
    result = binary(node, result, *in[k], f, result.is_int() && in[k]->is_int());
  }
  return result;
}

HostTensor unary(const HostTensor& a, const std::function<double(double)>& f) {
  HostTensor out = make_like(a.is_int(), a.shape);
  for (std::int64_t k = 0; k < a.size(); ++k) put(out, k, f(a.at(k)));
  return out;
}

std::int64_t normalize_axis(const Node& node, std::int64_t axis, std::int64_t rank) {
  if (axis < -rank || axis >= std::max<std::int64_t>(rank, 1)) fail_attribute(node, "axis", std::to_string(axis));
  return axis < 0 ? axis + rank : axis;
}

Ints int_values(const HostTensor* t) {
  Ints v;
  if (!t) return v;
  if (t->is_int()) return t->i;  // not through double: INT64_MAX (an open Slice end) would not survive
  for (std::int64_t k = 0; k < t->size(); ++k) v.push_back(std::int64_t(t->at(k)));
  return v;
}

HostTensor reshaped(const HostTensor& in, Shape shape) {
  HostTensor out = in;
  out.shape = std::move(shape);
  return out;
}

// Copies a strided view: out[idx] = in[offset + sum idx_d * stride_d].
HostTensor strided_copy(const HostTensor& in, const Shape& out_shape, std::int64_t offset, const Ints& strides) {
  HostTensor out = make_like(in.is_int(), out_shape);
  const std::int64_t n = out.size();
  Ints index(out_shape.size(), 0);
  std::int64_t src = offset;
  for (std::int64_t k = 0; k < n; ++k) {
    put(out, k, in.at(src));
    for (int d = int(out_shape.size()) - 1; d >= 0; --d) {
      ++index[d];
      src += strides[d];
      if (index[d] < out_shape[d]) break;
      src -= strides[d] * out_shape[d];
      index[d] = 0;
    }
  }
  return out;
}

Ints dense_strides(const Shape& shape) {
  Ints strides(shape.size(), 1);
  for (int d = int(shape.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

// Slice's starts, ends, axes and steps: inputs from opset 10, attributes before.
struct SliceBounds {
  Ints starts, ends, axes, steps;
};

SliceBounds slice_bounds(const Node& node, const std::vector<const HostTensor*>& in, std::int64_t opset) {
  SliceBounds b;
  if (opset >= 10) {
    auto optional = [&](size_t k) -> const HostTensor* { return k < in.size() ? in[k] : nullptr; };
    if (!optional(1) || !optional(2)) fail(node, "missing starts or ends");
    b.starts = int_values(in[1]); b.ends = int_values(in[2]);
    b.axes = int_values(optional(3)); b.steps = int_values(optional(4));
  } else {
    b.starts = attribute_ints(node, "starts", {}); b.ends = attribute_ints(node, "ends", {});
    b.axes = attribute_ints(node, "axes", {});
  }
  if (b.axes.empty()) for (size_t k = 0; k < b.starts.size(); ++k) b.axes.push_back(std::int64_t(k));
  if (b.steps.empty()) b.steps.assign(b.starts.size(), 1);
  if (b.ends.size() != b.starts.size() || b.axes.size() != b.starts.size() || b.steps.size() != b.starts.size())
    fail(node, "starts, ends, axes and steps differ in length");
  return b;
}

// The window a Slice reads: its shape, and the offset and strides into the dense input.
struct SliceWindow {
  Shape shape;
  std::int64_t offset = 0;
  Ints strides;
};

SliceWindow slice_window(const Node& node, const Shape& shape, const SliceBounds& b) {
  const std::int64_t rank = std::int64_t(shape.size());
  const Ints in_strides = dense_strides(shape);
  SliceWindow window{shape, 0, in_strides};
  for (size_t k = 0; k < b.starts.size(); ++k) {
    const std::int64_t axis = normalize_axis(node, b.axes[k], rank), dim = shape[axis], step = b.steps[k];
    if (step == 0) fail_attribute(node, "steps", "0");
    // ONNX: negative bounds count from the end, then clamp to the axis.
    std::int64_t start = b.starts[k] < 0 ? b.starts[k] + dim : b.starts[k];
    std::int64_t end = b.ends[k] < 0 ? b.ends[k] + dim : b.ends[k];
    if (step > 0) {
      start = std::clamp<std::int64_t>(start, 0, dim);
      end = std::clamp<std::int64_t>(end, 0, dim);
      window.shape[axis] = std::max<std::int64_t>(0, (end - start + step - 1) / step);
    } else {
      start = std::clamp<std::int64_t>(start, 0, dim - 1);
      end = std::clamp<std::int64_t>(end, -1, dim - 1);
      window.shape[axis] = std::max<std::int64_t>(0, (start - end - step - 1) / -step);
    }
    window.offset += start * in_strides[axis];
    window.strides[axis] = in_strides[axis] * step;
  }
  return window;
}

// Squeeze's output: the given axes dropped (each of size 1), or without axes every axis of size 1.
Shape squeezed_shape(const Node& node, const Shape& shape, const Ints& axes) {
  std::set<std::int64_t> at;
  for (auto a : axes) at.insert(normalize_axis(node, a, std::int64_t(shape.size())));
  Shape out;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (axes.empty() ? shape[d] == 1 : at.count(std::int64_t(d)) != 0) {
      if (shape[d] != 1) fail(node, "cannot squeeze axis " + std::to_string(d) + " of size " + std::to_string(shape[d]));
      continue;
    }
    out.push_back(shape[d]);
  }
  return out;
}

HostTensor gather(const Node& node, const HostTensor& data, const HostTensor& indices) {
  const std::int64_t rank = std::int64_t(data.shape.size());
  const std::int64_t axis = normalize_axis(node, attribute_int(node, "axis", 0), rank);
  Shape out_shape(data.shape.begin(), data.shape.begin() + axis);
  out_shape.insert(out_shape.end(), indices.shape.begin(), indices.shape.end());
  out_shape.insert(out_shape.end(), data.shape.begin() + axis + 1, data.shape.end());
  std::int64_t outer = 1, inner = 1;
  for (std::int64_t d = 0; d < axis; ++d) outer *= data.shape[d];
  for (std::int64_t d = axis + 1; d < rank; ++d) inner *= data.shape[d];
  HostTensor out = make_like(data.is_int(), out_shape);
  std::int64_t k = 0;
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t j = 0; j < indices.size(); ++j) {
      std::int64_t index = std::int64_t(indices.at(j));
      if (index < 0) index += data.shape[axis];
      if (index < 0 || index >= data.shape[axis]) fail(node, "index " + std::to_string(index) + " out of range");
      for (std::int64_t i = 0; i < inner; ++i) put(out, k++, data.at((o * data.shape[axis] + index) * inner + i));
    }
  return out;
}

}  // namespace

Shape broadcast_shapes(const Node& node, const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()), 1);
  for (size_t k = 0; k < out.size(); ++k) {
    std::int64_t da = k < out.size() - a.size() ? 1 : a[k - (out.size() - a.size())];
    std::int64_t db = k < out.size() - b.size() ? 1 : b[k - (out.size() - b.size())];
    if (da != db && da != 1 && db != 1)
      fail(node, "shapes " + shape_text(a) + " and " + shape_text(b) + " do not broadcast");
    out[k] = da == 1 ? db : da;
  }
  return out;
}

std::vector<std::int64_t> transpose_perm(const Node& node, std::size_t rank) {
  Ints perm = attribute_ints(node, "perm", {});
  if (perm.empty())
    for (int d = int(rank) - 1; d >= 0; --d) perm.push_back(d);
  std::vector<bool> seen(rank, false);
  bool permutation = perm.size() == rank;
  for (auto& p : perm) {
    if (p < 0) p += std::int64_t(rank);
    permutation = permutation && p >= 0 && p < std::int64_t(rank) && !seen[p];
    if (permutation) seen[p] = true;
  }
  if (!permutation) {
    std::string text;
    for (auto p : attribute_ints(node, "perm", {})) text += (text.empty() ? "" : ",") + std::to_string(p);
    fail(node, "attribute perm=[" + text + "] is not a permutation of the input's " + std::to_string(rank) + " axes");
  }
  return perm;
}

std::int64_t flatten_axis(const Node& node, std::int64_t rank) {
  const std::int64_t axis = attribute_int(node, "axis", 1);
  if (axis < -rank || axis > rank)
    fail(node, "attribute axis=" + std::to_string(axis) + " is outside [-" + std::to_string(rank) + ", " +
                   std::to_string(rank) + "] for an input of " + std::to_string(rank) + " dimensions");
  return axis < 0 ? axis + rank : axis;
}

bool has_shape_from_attributes(const Node& node, std::int64_t opset) {
  return (node.op() == "Squeeze" && opset < 13) || (node.op() == "Slice" && opset < 10) ||
         (node.op() == "Split" && opset >= 18 && has_attribute(node, "num_outputs"));
}

std::vector<Shape> shapes_from_attributes(const Node& node, const Shape& input, std::int64_t opset) {
  if (!has_shape_from_attributes(node, opset)) return {};
  if (node.op() == "Squeeze") return {squeezed_shape(node, input, attribute_ints(node, "axes", {}))};
  if (node.op() == "Slice") return {slice_window(node, input, slice_bounds(node, {}, opset)).shape};
  // Split into num_outputs parts of ceil(n / parts) along the axis, the last one smaller (opset
  // 18: torch.chunk); libonnx 1.12 reads only even splits
  const std::int64_t axis = normalize_axis(node, attribute_int(node, "axis", 0), std::int64_t(input.size()));
  const std::int64_t parts = std::int64_t(node.outputs.size()), n = input[size_t(axis)];
  const std::int64_t chunk = (n + parts - 1) / parts;
  std::vector<Shape> shapes;
  for (std::int64_t k = 0; k < parts; ++k) {
    Shape shape = input;
    shape[size_t(axis)] = std::clamp<std::int64_t>(n - k * chunk, 0, chunk);
    shapes.push_back(shape);
  }
  return shapes;
}

Shape reshape_target(const Node& node, const Shape& input, const Ints& target) {
  Shape out(target.begin(), target.end());
  const bool allow_zero = attribute_int(node, "allowzero", 0) != 0;
  int infer = -1;
  std::int64_t known = 1;
  for (size_t k = 0; k < out.size(); ++k) {
    if (out[k] == 0 && !allow_zero) {
      if (k >= input.size()) fail(node, "shape entry 0 beyond the input's rank");
      out[k] = input[k];
    }
    if (out[k] == -1) {
      if (infer >= 0) fail(node, "more than one -1 in the target shape");
      infer = int(k);
    } else {
      known *= out[k];
    }
  }
  const std::int64_t total = element_count(input);
  if (infer >= 0) {
    if (known == 0 || total % known) fail(node, "cannot reshape " + shape_text(input) + " to " + shape_text(target));
    out[infer] = total / known;
  }
  if (element_count(out) != total) fail(node, "cannot reshape " + shape_text(input) + " to " + shape_text(target));
  return out;
}

bool can_evaluate_on_host(const std::string& op) {
  static const std::set<std::string> ops = {
      "Shape", "Size", "Gather", "Slice", "Unsqueeze", "Squeeze", "Concat", "Cast", "Reshape", "Flatten",
      "Identity", "Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Neg", "Equal", "Less", "Greater", "Not",
      "LessOrEqual", "GreaterOrEqual", "Trilu",
      "Where", "Expand", "ConstantOfShape", "Range", "Transpose", "Floor", "Ceil", "Min", "Max", "Abs",
      "Reciprocal", "Relu", "Exp", "Erf", "Tanh", "Sigmoid"};
  return ops.count(op) != 0;
}

std::vector<HostTensor> evaluate_on_host(const Node& node, const std::vector<const HostTensor*>& in,
                                         const std::vector<Shape>& shapes, std::int64_t opset) {
  const std::string& op = node.op();
  auto input = [&](size_t k) -> const HostTensor& {
    if (k >= in.size() || !in[k]) fail(node, "missing input " + std::to_string(k));
    return *in[k];
  };
  auto optional = [&](size_t k) -> const HostTensor* { return k < in.size() ? in[k] : nullptr; };
  auto both_int = [&] { return input(0).is_int() && input(1).is_int(); };

  if (op == "Shape") {
    Ints dims(shapes[0].begin(), shapes[0].end());
    const std::int64_t rank = std::int64_t(dims.size());
    std::int64_t start = attribute_int(node, "start", 0), end = attribute_int(node, "end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<std::int64_t>(start, 0, rank);
    end = std::clamp<std::int64_t>(end, start, rank);
    Ints v(dims.begin() + start, dims.begin() + end);
    return {HostTensor::ints({std::int64_t(v.size())}, v)};
  }
  if (op == "Size") return {HostTensor::ints({}, {element_count(shapes[0])})};
  if (op == "Identity") return {input(0)};
  if (op == "Add") return {binary(node, input(0), input(1), [](double a, double b) { return a + b; }, both_int())};
  if (op == "Sub") return {binary(node, input(0), input(1), [](double a, double b) { return a - b; }, both_int())};
  if (op == "Mul") return {binary(node, input(0), input(1), [](double a, double b) { return a * b; }, both_int())};
  if (op == "Div") {
    if (both_int())
      return {binary(node, input(0), input(1), [&](double a, double b) {
        if (b == 0) fail(node, "integer division by zero");
        if (b == -1) return -a;  // INT64_MIN / -1 overflows
        return double(saturated_int64(a) / saturated_int64(b)); }, true)};
    return {binary(node, input(0), input(1), [](double a, double b) { return a / b; }, false)};
  }
  if (op == "Pow") return {binary(node, input(0), input(1), [](double a, double b) { return std::pow(a, b); }, input(0).is_int())};
  if (op == "Min") return {fold_inputs(node, in, [](double a, double b) { return std::min(a, b); })};
  if (op == "Max") return {fold_inputs(node, in, [](double a, double b) { return std::max(a, b); })};
  if (op == "Equal") return {binary(node, input(0), input(1), [](double a, double b) { return double(a == b); }, true)};
  if (op == "Less") return {binary(node, input(0), input(1), [](double a, double b) { return double(a < b); }, true)};
  if (op == "Greater") return {binary(node, input(0), input(1), [](double a, double b) { return double(a > b); }, true)};
  if (op == "LessOrEqual")
    return {binary(node, input(0), input(1), [](double a, double b) { return double(a <= b); }, true)};
  if (op == "GreaterOrEqual")
    return {binary(node, input(0), input(1), [](double a, double b) { return double(a >= b); }, true)};
  if (op == "Trilu") {  // the upper (default) or lower triangle of the last two axes, from diagonal k
    const HostTensor& x = input(0);
    if (x.shape.size() < 2) fail(node, "input of rank " + std::to_string(x.shape.size()) + " (at least 2)");
    const Ints k_input = int_values(optional(1));
    const std::int64_t k = k_input.empty() ? 0 : k_input[0];
    const bool upper = attribute_int(node, "upper", 1) != 0;
    const std::int64_t rows = x.shape[x.shape.size() - 2], cols = x.shape.back();
    HostTensor out = make_like(x.is_int(), x.shape);
    for (std::int64_t e = 0; e < x.size(); ++e) {
      const std::int64_t j = e % cols, i = e / cols % rows;
      put(out, e, (upper ? j - i >= k : j - i <= k) ? x.at(e) : 0.0);
    }
    return {out};
  }
  if (op == "Sqrt") return {unary(input(0), [](double a) { return std::sqrt(a); })};
  if (op == "Neg") return {unary(input(0), [](double a) { return -a; })};
  if (op == "Abs") return {unary(input(0), [](double a) { return std::fabs(a); })};
  if (op == "Floor") return {unary(input(0), [](double a) { return std::floor(a); })};
  if (op == "Ceil") return {unary(input(0), [](double a) { return std::ceil(a); })};
  if (op == "Not") return {unary(input(0), [](double a) { return double(a == 0); })};
  if (op == "Reciprocal") return {unary(input(0), [](double a) { return 1 / a; })};
  if (op == "Relu") return {unary(input(0), [](double a) { return std::max(a, 0.0); })};
  if (op == "Exp") return {unary(input(0), [](double a) { return std::exp(a); })};
  if (op == "Erf") return {unary(input(0), [](double a) { return std::erf(a); })};
  if (op == "Tanh") return {unary(input(0), [](double a) { return std::tanh(a); })};
  if (op == "Sigmoid") return {unary(input(0), [](double a) { return 1 / (1 + std::exp(-a)); })};
  if (op == "Cast") {
    const auto to = attribute_int(node, "to", onnx::TensorProto::FLOAT);
    const bool to_float = to == onnx::TensorProto::FLOAT || to == onnx::TensorProto::FLOAT16 ||
                          to == onnx::TensorProto::DOUBLE;
    HostTensor out = make_like(!to_float, input(0).shape);
    for (std::int64_t k = 0; k < out.size(); ++k) {
      double v = input(0).at(k);
      if (to == onnx::TensorProto::BOOL) v = v != 0;
      put(out, k, v);
    }
    return {out};
  }
  if (op == "Where") {
    const auto& c = input(0); const auto& a = input(1); const auto& b = input(2);
    Shape shape = broadcast_shapes(node, broadcast_shapes(node, c.shape, a.shape), b.shape);
    HostTensor out = make_like(a.is_int() && b.is_int(), shape);
    for_each_broadcast(shape, {c.shape, a.shape, b.shape}, [&](std::int64_t k, const Ints& o) {
      put(out, k, c.at(o[0]) != 0 ? a.at(o[1]) : b.at(o[2]));
    });
    return {out};
  }
  if (op == "Expand") {
    Ints target = int_values(&input(1));
    Shape shape = broadcast_shapes(node, input(0).shape, Shape(target.begin(), target.end()));
    HostTensor out = make_like(input(0).is_int(), shape);
    for_each_broadcast(shape, {input(0).shape}, [&](std::int64_t k, const Ints& o) { put(out, k, input(0).at(o[0])); });
    return {out};
  }
  if (op == "ConstantOfShape") {
    Ints target = int_values(&input(0));
    HostTensor fill = HostTensor::floats({1}, {0.f});
    if (const auto* value = attribute_tensor(node, "value")) fill = tensor_from_proto(*value, node_context(node));
    HostTensor out = make_like(fill.is_int(), Shape(target.begin(), target.end()));
    for (std::int64_t k = 0; k < out.size(); ++k) put(out, k, fill.at(0));
    return {out};
  }
  if (op == "Range") {
    const double start = input(0).at(0), limit = input(1).at(0), delta = input(2).at(0);
    if (delta == 0) fail(node, "delta 0");
    const std::int64_t n = std::max<std::int64_t>(0, std::int64_t(std::ceil((limit - start) / delta)));
    HostTensor out = make_like(input(0).is_int(), {n});
    for (std::int64_t k = 0; k < n; ++k) put(out, k, start + double(k) * delta);
    return {out};
  }
  if (op == "Reshape") return {reshaped(input(0), reshape_target(node, input(0).shape, int_values(&input(1))))};
  if (op == "Flatten") {
    const auto& shape = input(0).shape;
    const std::int64_t axis = flatten_axis(node, std::int64_t(shape.size()));
    std::int64_t outer = 1;
    for (std::int64_t d = 0; d < axis; ++d) outer *= shape[d];
    return {reshaped(input(0), {outer, input(0).size() / std::max<std::int64_t>(outer, 1)})};
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    Ints axes = opset >= 13 ? int_values(optional(1)) : attribute_ints(node, "axes", {});
    const auto& shape = input(0).shape;
    if (op == "Unsqueeze") {
      const std::int64_t rank = std::int64_t(shape.size() + axes.size());
      std::set<std::int64_t> at;
      for (auto a : axes) at.insert(normalize_axis(node, a, rank));
      Shape out;
      size_t next = 0;
      for (std::int64_t d = 0; d < rank; ++d) out.push_back(at.count(d) ? 1 : shape[next++]);
      return {reshaped(input(0), out)};
    }
    return {reshaped(input(0), squeezed_shape(node, shape, axes))};
  }
  if (op == "Concat") {
    std::vector<const HostTensor*> parts;
    for (size_t k = 0; k < in.size(); ++k)
      if (in[k]) parts.push_back(in[k]);
    const std::int64_t rank = std::int64_t(parts[0]->shape.size());
    const std::int64_t axis = normalize_axis(node, attribute_int(node, "axis", 0), rank);
    Shape shape = parts[0]->shape;
    shape[axis] = 0;
    bool integer = true;
    for (const auto* p : parts) { shape[axis] += p->shape[axis]; integer = integer && p->is_int(); }
    std::int64_t outer = 1, inner = 1;
    for (std::int64_t d = 0; d < axis; ++d) outer *= shape[d];
    for (std::int64_t d = axis + 1; d < rank; ++d) inner *= shape[d];
    HostTensor out = make_like(integer, shape);
    std::int64_t k = 0;
    for (std::int64_t o = 0; o < outer; ++o)
      for (const auto* p : parts) {
        const std::int64_t chunk = p->shape[axis] * inner;
        for (std::int64_t j = 0; j < chunk; ++j) put(out, k++, p->at(o * chunk + j));
      }
    return {out};
  }
  if (op == "Gather") return {gather(node, input(0), input(1))};
  if (op == "Transpose") {
    const auto& shape = input(0).shape;
    const Ints perm = transpose_perm(node, shape.size());
    Ints in_strides = dense_strides(shape), strides;
    Shape out_shape;
    for (auto p : perm) { out_shape.push_back(shape[p]); strides.push_back(in_strides[p]); }
    return {strided_copy(input(0), out_shape, 0, strides)};
  }
  if (op == "Slice") {
    const SliceWindow window = slice_window(node, input(0).shape, slice_bounds(node, in, opset));
    if (element_count(window.shape) == 0) return {make_like(input(0).is_int(), window.shape)};
    return {strided_copy(input(0), window.shape, window.offset, window.strides)};
  }
  fail(node, "cannot evaluate on the host");
}

}  // namespace npuvp::compiler
