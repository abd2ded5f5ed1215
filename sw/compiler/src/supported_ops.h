// Which ONNX op types the compiler handles at all (docs/networks.md "Supported ops").
#pragma once

#include <string>

namespace npuvp::compiler {

// True when an op of the default domain is lowered to a kernel, folded on the host when
// its inputs are constants, or absorbed by a pass (Dropout, LayerNorm's ReduceMean).
// The importer refuses every other op by name before ONNX shape inference runs: that
// inference is third-party code that must only see ops we know (libonnx 1.12 crashes
// on a ConvTranspose whose weight has fewer than two dimensions).
bool compiler_knows_op(const std::string& op);

}  // namespace npuvp::compiler
