// Ops that only move data, all on the COPY kernel (with FILL for padding):
// layout conversions, Transpose, Concat, Pad, Slice, Gather, Split, nearest Resize.
#include <algorithm>
#include <cmath>

#include "compile_error.h"
#include "host_eval.h"
#include "lowering_context.h"
#include "onnx_attributes.h"
#include "op_classes.h"

namespace npuvp::compiler {
namespace {

std::int64_t normalized_axis(const Node& node, std::int64_t axis, std::int64_t rank) {
  if (axis < -rank || axis >= rank) fail_attribute(node, "axis", std::to_string(axis));
  return axis < 0 ? axis + rank : axis;
}

std::vector<std::int64_t> constant_ints(const LoweringContext& context, const Node& node, size_t k, const char* what) {
  if (k >= node.inputs.size() || node.inputs[k] < 0) return {};
  const Value& v = context.value(node.inputs[k]);
  if (!v.is_constant()) fail(node, std::string(what) + " must be constant");
  // int64 as they are: at() goes through double, and INT64_MAX (the exporter's open
  // end of x[:, 1:]) does not come back from 2^63.
  if (v.constant->is_int()) return v.constant->i;
  std::vector<std::int64_t> values;
  for (std::int64_t j = 0; j < v.constant->size(); ++j) values.push_back(std::int64_t(v.constant->at(j)));
  return values;
}

// Copies the slab [start, start + extent) of `axis` of in (ND, shape `in`) to
// out (ND, shape `out`) at `out_start` on the same axis.
void copy_slab(LoweringContext& context, ArgWord out, const Shape& out_shape, std::int64_t out_start, ArgWord in,
               const Shape& in_shape, std::int64_t start, std::int64_t extent, std::int64_t axis, std::int64_t step = 1) {
  Shape dims = in_shape;
  dims[axis] = extent;
  auto in_strides = dense_strides(in_shape), out_strides = dense_strides(out_shape);
  const std::int64_t in_offset = start * in_strides[axis], out_offset = out_start * out_strides[axis];
  in_strides[axis] *= step;
  in.value += std::uint64_t(in_offset * 2);
  out.value += std::uint64_t(out_offset * 2);
  context.emit_copy(out, in, dims, out_strides, in_strides);
}

}  // namespace

std::uint64_t lower_layout_conversion(LoweringContext& context, const Node& node) {
  const Shape& s = context.shape(node.inputs[0]);
  if (s.size() != 4) fail(node, "layout conversion of a rank-" + std::to_string(s.size()) + " tensor");
  const std::int64_t n = s[0], c = s[1], h = s[2], w = s[3], c1 = ceil_div(c, 16), hw = h * w;
  const bool to_nc1hwc0 = node.op() == kToNC1HWC0;
  const ArgWord in = context.address(node.inputs[0]), out = context.address(node.outputs[0]);
  // Index space (N, C1', H, W, C0'), strides of ND and of NC1HWC0.
  const std::vector<std::int64_t> nd = {c * hw, 16 * hw, w, 1, hw};
  const std::vector<std::int64_t> fm = {c1 * hw * 16, hw * 16, w * 16, 16, 1};
  const std::int64_t full = c / 16, rest = c % 16;
  if (to_nc1hwc0 && full == 0) {
    // A few channels (an image's 3): COPY's transpose path would issue a Vector instruction
    // per pixel (ResNet-50's input: 340 k cycles); the Cube interleaves them at MTE3's pace.
    emit_channel_interleave(context, node, n, c, hw);
    return 0;
  }
  if (to_nc1hwc0 && rest) {  // the padded channels of the last C1 slice are zero
    for (std::int64_t b = 0; b < n; ++b) {
      ArgWord slice = out;
      slice.value += std::uint64_t(((b * c1 + c1 - 1) * hw * 16) * 2);
      context.emit_fill(slice, hw * 16, 0.f);
    }
  }
  auto emit = [&](std::int64_t groups, std::int64_t lanes, std::int64_t first_group) {
    ArgWord src = in, dst = out;
    const std::int64_t nd_offset = first_group * 16 * hw, fm_offset = first_group * hw * 16;
    src.value += std::uint64_t((to_nc1hwc0 ? nd_offset : fm_offset) * 2);
    dst.value += std::uint64_t((to_nc1hwc0 ? fm_offset : nd_offset) * 2);
    context.emit_copy(dst, src, {n, groups, h, w, lanes}, to_nc1hwc0 ? fm : nd, to_nc1hwc0 ? nd : fm);
  };
  if (full) emit(full, 16, 0);
  if (rest) emit(1, rest, full);
  return 0;
}

std::uint64_t lower_transpose(LoweringContext& context, const Node& node) {
  const Shape& in = context.shape(node.inputs[0]);
  const auto perm = transpose_perm(node, in.size());
  const auto in_strides = dense_strides(in);
  Shape dims;
  std::vector<std::int64_t> strides;
  for (auto p : perm) {
    dims.push_back(in[p]);
    strides.push_back(in_strides[p]);
  }
  context.emit_copy(context.address(node.outputs[0]), context.address(node.inputs[0]), dims, dense_strides(dims), strides);
  return 0;
}

std::uint64_t lower_concat(LoweringContext& context, const Node& node) {
  const Shape& out = context.shape(node.outputs[0]);
  const std::int64_t axis = normalized_axis(node, attribute_int(node, "axis", 0), std::int64_t(out.size()));
  const ArgWord out_address = context.address(node.outputs[0]);
  std::int64_t at = 0;
  for (int id : node.inputs) {
    if (id < 0) continue;
    const Shape& in = context.shape(id);
    if (context.value(id).is_constant()) {
      const ArgWord c = LoweringContext::constant(context.constant_f16(id));
      copy_slab(context, out_address, out, at, c, in, 0, in[axis], axis);
    } else {
      copy_slab(context, out_address, out, at, context.address(id), in, 0, in[axis], axis);
    }
    at += in[axis];
  }
  return 0;
}

std::uint64_t lower_pad(LoweringContext& context, const Node& node) {
  const Shape& in = context.shape(node.inputs[0]);
  const Shape& out = context.shape(node.outputs[0]);
  const std::string mode = attribute_string(node, "mode", "constant");
  if (mode != "constant") fail_attribute(node, "mode", mode);
  std::vector<std::int64_t> pads = context.graph.opset >= 11 ? constant_ints(context, node, 1, "pads")
                                                              : attribute_ints(node, "pads", {});
  float value = context.graph.opset >= 11 ? 0.f : attribute_float(node, "value", 0.f);
  if (context.graph.opset >= 11 && node.inputs.size() > 2 && node.inputs[2] >= 0) {
    const Value& v = context.value(node.inputs[2]);
    if (!v.is_constant()) fail(node, "constant_value must be constant");
    value = float(v.constant->at(0));
  }
  const std::int64_t rank = std::int64_t(in.size());
  if (node.inputs.size() > 3 && node.inputs[3] >= 0) {  // axes (opset 18)
    auto axes = constant_ints(context, node, 3, "axes");
    std::vector<std::int64_t> full(2 * rank, 0);
    for (size_t k = 0; k < axes.size(); ++k) {
      const auto a = normalized_axis(node, axes[k], rank);
      full[a] = pads[k];
      full[a + rank] = pads[k + axes.size()];
    }
    pads = full;
  }
  if (std::int64_t(pads.size()) != 2 * rank) fail(node, "pads must have 2 x rank values");
  // A negative pad crops: the copied part of the input starts after -begin and ends
  // before -end elements of the axis.
  const ArgWord out_address = context.address(node.outputs[0]);
  bool grows = false;
  for (auto p : pads) grows = grows || p > 0;
  if (grows) context.emit_fill(out_address, element_count(out), value);
  const auto out_strides = dense_strides(out), in_strides = dense_strides(in);
  Shape kept = in;
  std::int64_t out_offset = 0, in_offset = 0;
  for (std::int64_t d = 0; d < rank; ++d) {
    const std::int64_t begin = pads[d], end = pads[d + rank];
    kept[d] = in[d] - std::max<std::int64_t>(0, -begin) - std::max<std::int64_t>(0, -end);
    if (kept[d] <= 0) return 0;  // nothing of the input is left: the fill is the output
    out_offset += std::max<std::int64_t>(0, begin) * out_strides[d];
    in_offset += std::max<std::int64_t>(0, -begin) * in_strides[d];
  }
  ArgWord interior = out_address, source = context.address(node.inputs[0]);
  interior.value += std::uint64_t(out_offset * 2);
  source.value += std::uint64_t(in_offset * 2);
  context.emit_copy(interior, source, kept, out_strides, in_strides);
  return 0;
}

std::uint64_t lower_slice(LoweringContext& context, const Node& node) {
  const Shape& in = context.shape(node.inputs[0]);
  const std::int64_t rank = std::int64_t(in.size());
  std::vector<std::int64_t> starts, ends, axes, steps;
  if (context.graph.opset >= 10) {
    starts = constant_ints(context, node, 1, "starts");
    ends = constant_ints(context, node, 2, "ends");
    axes = constant_ints(context, node, 3, "axes");
    steps = constant_ints(context, node, 4, "steps");
  } else {
    starts = attribute_ints(node, "starts", {});
    ends = attribute_ints(node, "ends", {});
    axes = attribute_ints(node, "axes", {});
  }
  if (axes.empty())
    for (size_t k = 0; k < starts.size(); ++k) axes.push_back(std::int64_t(k));
  if (steps.empty()) steps.assign(starts.size(), 1);
  auto in_strides = dense_strides(in), strides = in_strides;
  Shape dims = in;
  std::int64_t offset = 0;
  for (size_t k = 0; k < starts.size(); ++k) {
    const std::int64_t axis = normalized_axis(node, axes[k], rank), dim = in[axis], step = steps[k];
    if (step < 1) fail_attribute(node, "steps", std::to_string(step));
    std::int64_t start = starts[k] < 0 ? starts[k] + dim : starts[k];
    std::int64_t end = ends[k] < 0 ? ends[k] + dim : ends[k];
    start = std::clamp<std::int64_t>(start, 0, dim);
    end = std::clamp<std::int64_t>(end, 0, dim);
    dims[axis] = std::max<std::int64_t>(0, ceil_div(end - start, step));
    offset += start * in_strides[axis];
    strides[axis] = in_strides[axis] * step;
  }
  if (dims != context.shape(node.outputs[0]))
    fail(node, "internal: slice shape mismatch (" + shape_text(dims) + " computed, " + shape_text(context.shape(node.outputs[0])) + " inferred)");
  context.set_bytes_read(context.stored_bytes(node.outputs[0]));
  ArgWord in_address = context.address(node.inputs[0]);
  in_address.value += std::uint64_t(offset * 2);
  context.emit_copy(context.address(node.outputs[0]), in_address, dims, dense_strides(dims), strides);
  return 0;
}

std::uint64_t lower_gather(LoweringContext& context, const Node& node) {
  const Shape& in = context.shape(node.inputs[0]);
  const std::int64_t rank = std::int64_t(in.size());
  const std::int64_t axis = normalized_axis(node, attribute_int(node, "axis", 0), rank);
  if (context.value(node.inputs[0]).is_constant()) fail(node, "gathering from a constant by a computed index is not supported");
  const auto indices = constant_ints(context, node, 1, "indices");
  if (indices.size() > 64) fail(node, "more than 64 constant indices are not supported");
  context.set_bytes_read(context.stored_bytes(node.outputs[0]));
  // Output = in with `axis` replaced by the indices' shape: copy slab by slab.
  Shape out_view = in;
  out_view[axis] = std::int64_t(indices.size());
  const ArgWord out = context.address(node.outputs[0]), src = context.address(node.inputs[0]);
  for (size_t j = 0; j < indices.size(); ++j) {
    std::int64_t index = indices[j] < 0 ? indices[j] + in[axis] : indices[j];
    if (index < 0 || index >= in[axis]) fail(node, "index " + std::to_string(indices[j]) + " out of range");
    copy_slab(context, out, out_view, std::int64_t(j), src, in, index, 1, axis);
  }
  return 0;
}

std::uint64_t lower_split(LoweringContext& context, const Node& node) {
  const Shape& in = context.shape(node.inputs[0]);
  const std::int64_t axis = normalized_axis(node, attribute_int(node, "axis", 0), std::int64_t(in.size()));
  const ArgWord src = context.address(node.inputs[0]);
  std::uint64_t read = 0;
  for (int out : node.outputs)
    if (out >= 0) read += context.stored_bytes(out);
  context.set_bytes_read(read);
  std::int64_t at = 0;
  for (int out : node.outputs) {
    if (out < 0) continue;
    const Shape& s = context.shape(out);
    copy_slab(context, context.address(out), s, 0, src, in, at, s[axis], axis);
    at += s[axis];
  }
  return 0;
}

namespace {

// The input index ONNX's nearest Resize reads for output index `x` of an axis `in` -> `out`
// (coordinate_transformation_mode, nearest_mode), or -1 for a mode it does not define here.
std::int64_t nearest_source(const std::string& transform, const std::string& rounding, std::int64_t x,
                            std::int64_t in, std::int64_t out) {
  const double scale = double(out) / double(in);
  double original;
  if (transform == "half_pixel") original = (x + 0.5) / scale - 0.5;
  else if (transform == "pytorch_half_pixel") original = out > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
  else if (transform == "asymmetric") original = x / scale;
  else if (transform == "tf_half_pixel_for_nn") original = (x + 0.5) / scale;
  else if (transform == "align_corners") original = out > 1 ? double(x) * double(in - 1) / double(out - 1) : 0.0;
  else return -1;
  double index;
  if (rounding == "floor") index = std::floor(original);
  else if (rounding == "ceil") index = std::ceil(original);
  else if (rounding == "round_prefer_floor") index = original - std::floor(original) == 0.5 ? std::floor(original) : std::round(original);
  else if (rounding == "round_prefer_ceil") index = original - std::floor(original) == 0.5 ? std::ceil(original) : std::round(original);
  else return -1;
  return std::clamp<std::int64_t>(std::int64_t(index), 0, in - 1);
}

}  // namespace

// Resize / Upsample, mode nearest, every axis scaled by an integer factor, with
// coordinate modes that read input index floor(x / factor) (all the common ones do at
// integer factors; checked index by index): one strided COPY over [in_d, factor_d]
// pairs, the factor axes reading with stride 0.
std::uint64_t lower_resize(LoweringContext& context, const Node& node) {
  const Shape& in = context.shape(node.inputs[0]);
  const Shape& out = context.shape(node.outputs[0]);
  const std::string mode = attribute_string(node, "mode", "nearest");
  if (mode != "nearest") fail_attribute(node, "mode", mode);
  const bool modern = node.op() == "Resize" && context.graph.opset >= 11;
  const std::string transform = modern ? attribute_string(node, "coordinate_transformation_mode", "half_pixel") : "asymmetric";
  const std::string rounding = modern ? attribute_string(node, "nearest_mode", "round_prefer_floor") : "floor";
  if (in.size() != out.size()) fail(node, "internal: resize rank mismatch");
  const auto in_strides = dense_strides(in);
  Shape dims;
  std::vector<std::int64_t> in_copy_strides;
  for (size_t d = 0; d < in.size(); ++d) {
    if (in[d] < 1 || out[d] % in[d] != 0)
      fail(node, "only integer scale factors are supported (" + shape_text(in) + " -> " + shape_text(out) + ")");
    const std::int64_t factor = out[d] / in[d];
    for (std::int64_t x = 0; x < out[d]; ++x)
      if (nearest_source(transform, rounding, x, in[d], out[d]) != x / factor)
        fail_attribute(node, "coordinate_transformation_mode", transform + " with nearest_mode " + rounding);
    dims.push_back(in[d]);
    in_copy_strides.push_back(in_strides[d]);
    dims.push_back(factor);
    in_copy_strides.push_back(0);
  }
  context.emit_copy(context.address(node.outputs[0]), context.address(node.inputs[0]), dims, dense_strides(dims),
                    in_copy_strides);
  return 0;
}

}  // namespace npuvp::compiler
