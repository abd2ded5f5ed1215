#include <algorithm>

#include "conv_window.h"
#include "onnx_attributes.h"
#include "passes.h"

namespace npuvp::compiler {
namespace {

// The output length of one axis with ceil_mode = 1, as PyTorch (and ONNX Runtime)
// compute it: ceil instead of floor, but a last window that would start in the end
// padding is dropped, so every window reads at least one element of the input.
std::int64_t ceil_output(std::int64_t size, std::int64_t pad_begin, std::int64_t pad_end, std::int64_t extent,
                         std::int64_t stride) {
  std::int64_t out = (size + pad_begin + pad_end - extent + stride - 1) / stride + 1;
  if ((out - 1) * stride >= size + pad_begin) --out;
  return out;
}

// The end padding that makes a floor-mode window give `out` outputs (the kernels read
// only the top/left pads and the output size: a window past the map's end is clipped).
std::int64_t end_pad_for(std::int64_t out, std::int64_t size, std::int64_t pad_begin, std::int64_t extent,
                         std::int64_t stride) {
  return std::max<std::int64_t>(0, (out - 1) * stride + extent - size - pad_begin);
}

// Rewrites one pool; false leaves ceil_mode for the lowering's error.
bool resolve(Graph& graph, Node& node) {
  if (attribute_string(node, "auto_pad", "NOTSET") != "NOTSET") return false;
  const auto kernel = attribute_ints(node, "kernel_shape", {});
  if (kernel.size() != 2 || node.inputs.empty() || node.inputs[0] < 0 || node.outputs.empty()) return false;
  const Shape& in = graph.values[node.inputs[0]].shape;
  std::string why;
  const std::optional<Window> w = conv_window(node, in, kernel[0], kernel[1], why);
  if (!w) return false;
  const std::int64_t extent_h = (w->kh - 1) * w->dilation_h + 1, extent_w = (w->kw - 1) * w->dilation_w + 1;
  const std::int64_t ho = ceil_output(in[2], w->pad_top, w->pad_bottom, extent_h, w->stride_h);
  const std::int64_t wo = ceil_output(in[3], w->pad_left, w->pad_right, extent_w, w->stride_w);
  const Value& out = graph.values[node.outputs[0]];
  if (out.shape.size() != 4 || out.shape[2] != ho || out.shape[3] != wo) return false;
  const std::int64_t bottom = end_pad_for(ho, in[2], w->pad_top, extent_h, w->stride_h);
  const std::int64_t right = end_pad_for(wo, in[3], w->pad_left, extent_w, w->stride_w);
  // Counted padding would count the extension too; PyTorch counts only the explicit pads.
  const bool extended = bottom > w->pad_bottom || right > w->pad_right;
  if (extended && node.op() == "AveragePool" && attribute_int(node, "count_include_pad", 0) != 0) return false;
  const auto pads = attribute_ints(node, "pads", {0, 0, 0, 0});
  set_attribute_ints(node, "pads", {w->pad_top, w->pad_left, bottom, right});
  const std::optional<Window> floor_window = conv_window(node, in, kernel[0], kernel[1], why);
  if (!floor_window || floor_window->ho != ho || floor_window->wo != wo) {
    set_attribute_ints(node, "pads", pads);
    return false;
  }
  set_attribute_int(node, "ceil_mode", 0);
  return true;
}

}  // namespace

int resolve_pool_ceil_mode(Graph& graph) {
  int resolved = 0;
  for (auto& node : graph.nodes) {
    if (node.removed || (node.op() != "MaxPool" && node.op() != "AveragePool")) continue;
    if (attribute_int(node, "ceil_mode", 0) == 0) continue;
    resolved += resolve(graph, node);
  }
  return resolved;
}

}  // namespace npuvp::compiler
