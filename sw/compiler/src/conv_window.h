// The window of a 2-D Conv or pool node: kernel, strides, dilations, pads (auto_pad
// resolved) and the output size. One reading of the attributes for the lowering
// (lower_conv.cpp, where a window it cannot run is a CompileError) and for the passes
// that only rewrite a node whose window is plain (pass_fold_conv_windows.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "graph.h"

namespace npuvp::compiler {

struct Window {
  std::int64_t kh, kw, stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left, pad_bottom, pad_right, ho, wo;
};

// The window of `node` over an input of shape `in` (N x C x H x W) with a kh x kw kernel,
// or nothing with the reason in `why` (a wrong attribute type is still a CompileError).
std::optional<Window> conv_window(const Node& node, const Shape& in, std::int64_t kh, std::int64_t kw,
                                  std::string& why);

}  // namespace npuvp::compiler
