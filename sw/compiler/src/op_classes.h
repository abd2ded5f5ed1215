// Which ops the lowering treats alike (one source of truth for the passes).
#pragma once

#include <string>

namespace npuvp::compiler {

// Ops whose data input and output are NC1HWC0 feature maps.
bool is_spatial_op(const std::string& op);
// Elementwise ops that can run on NC1HWC0 data as well as ND.
bool is_layout_agnostic_eltwise(const std::string& op);
// Reshape-like ops that are free views of ND data.
bool is_view_op(const std::string& op);

// The layout conversions the layout pass inserts (op types of their nodes).
inline const std::string kToNC1HWC0 = "ToNC1HWC0";
inline const std::string kToND = "ToND";
// The selection Conv fold_conv_windows inserts before a small-channel Conv (data movement).
inline const std::string kWindowFold = "WindowFold";

}  // namespace npuvp::compiler
