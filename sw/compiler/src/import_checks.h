// Checks of a whole ONNX model before libonnx's checker reads it: what that checker
// refuses with a message that does not say what to do (a newer IR version or opset, an
// external data file looked for in the working directory), and what it lets through
// although the compiler would misread it (two imports of the default domain, sparse
// initializers). Every failure is a CompileError naming `where` (the file) or the node.
#pragma once

#include <cstdint>
#include <string>

#include <onnx/onnx_pb.h>

namespace npuvp::compiler {

// The newest IR version and default-domain opset libonnx (ONNX 1.12) reads.
std::int64_t newest_ir_version();
std::int64_t newest_opset();

void check_ir_version(const onnx::ModelProto& model, const std::string& where);

// The opset of the default domain ("" or "ai.onnx"; 0 when not imported); two imports
// of it are refused, since which one applies would be a guess.
std::int64_t default_domain_opset(const onnx::ModelProto& model, const std::string& where);

// Nodes of a model newer than newest_opset() whose form is not that of the newest
// opset libonnx knows (ReduceMean's axes input, Split's num_outputs, ... of opset 18).
void refuse_forms_of_newer_opsets(const onnx::ModelProto& model, std::int64_t opset, const std::string& where);

void refuse_external_data(const onnx::ModelProto& model, const std::string& where);

// Sparse initializers (values at indices, zeros elsewhere) become dense initializers.
void densify_sparse_initializers(onnx::ModelProto& model, const std::string& where);

}  // namespace npuvp::compiler
