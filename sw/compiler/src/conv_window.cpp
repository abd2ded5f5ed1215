#include "conv_window.h"

#include <algorithm>

#include "onnx_attributes.h"

namespace npuvp::compiler {
namespace {

// SAME_UPPER / SAME_LOWER: the output is ceil(size / stride), the padding the window
// needs for it split evenly, the odd one at the end (UPPER) or the start (LOWER).
void same_pads(bool upper, std::int64_t size, std::int64_t stride, std::int64_t extent, std::int64_t& low,
               std::int64_t& high) {
  const std::int64_t out = (size + stride - 1) / stride;
  const std::int64_t total = std::max<std::int64_t>(0, (out - 1) * stride + extent - size);
  low = upper ? total / 2 : total - total / 2;
  high = total - low;
}

}  // namespace

std::optional<Window> conv_window(const Node& node, const Shape& in, std::int64_t kh, std::int64_t kw,
                                  std::string& why) {
  if (in.size() != 4) {
    why = "only 2-D (N x C x H x W) inputs are supported, got " + shape_text(in);
    return std::nullopt;
  }
  const auto strides = attribute_ints(node, "strides", {1, 1});
  const auto dilations = attribute_ints(node, "dilations", {1, 1});
  const auto pads = attribute_ints(node, "pads", {0, 0, 0, 0});
  if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4) {
    why = "only 2-D windows are supported";
    return std::nullopt;
  }
  Window w{kh, kw, strides[0], strides[1], dilations[0], dilations[1], pads[0], pads[1], pads[2], pads[3], 0, 0};
  if (w.stride_h < 1 || w.stride_w < 1 || w.dilation_h < 1 || w.dilation_w < 1) {
    why = "strides and dilations must be >= 1";
    return std::nullopt;
  }
  const std::int64_t extent_h = (kh - 1) * w.dilation_h + 1, extent_w = (kw - 1) * w.dilation_w + 1;
  const std::string auto_pad = attribute_string(node, "auto_pad", "NOTSET");
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    same_pads(auto_pad == "SAME_UPPER", in[2], w.stride_h, extent_h, w.pad_top, w.pad_bottom);
    same_pads(auto_pad == "SAME_UPPER", in[3], w.stride_w, extent_w, w.pad_left, w.pad_right);
  } else if (auto_pad == "VALID") {
    w.pad_top = w.pad_left = w.pad_bottom = w.pad_right = 0;
  } else if (auto_pad != "NOTSET") {
    why = "auto_pad " + auto_pad + " is not supported";
    return std::nullopt;
  }
  if (w.pad_top < 0 || w.pad_left < 0 || w.pad_bottom < 0 || w.pad_right < 0) {
    why = "negative pads are not supported";
    return std::nullopt;
  }
  w.ho = (in[2] + w.pad_top + w.pad_bottom - extent_h) / w.stride_h + 1;
  w.wo = (in[3] + w.pad_left + w.pad_right - extent_w) / w.stride_w + 1;
  if (w.ho < 1 || w.wo < 1) {
    why = "the window is larger than the padded input";
    return std::nullopt;
  }
  return w;
}

}  // namespace npuvp::compiler
