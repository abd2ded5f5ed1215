// Fuzz target: the ONNX compiler (sw/compiler) on a model file's bytes, as `npuvp infer`
// and npuvp-compile read it: protobuf parsing, the ONNX checker and shape inference, the
// import into our graph, the passes, the tiling planner, lowering and the package writer.
// Every defect must be a CompileError naming the file or the node; any other exception, a
// crash or a sanitizer finding is a bug. Seeds: corpus/onnx_importer (tiny models written
// by tests/fuzz/make_onnx_seeds.py).
#include "npuvp/compiler/compiler.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    npuvp::compiler::compile_onnx_bytes(bytes, npuvp::compiler::CompileOptions{});
  } catch (const npuvp::compiler::CompileError&) {
    // A clear error naming the model or the node: what the compiler must do.
  }
  return 0;
}
