// Checks of a whole ONNX model before libonnx's checker reads it: what that checker
// refuses with a message that does not say what to do (a newer IR version or opset, an
// external data file looked for in the working directory), and what it lets through
// although the compiler would misread it (two imports of the default domain, sparse
// initializers). Every failure is a CompileError naming `where` (the file) or the node.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "graph.h"
#include "host_tensor.h"

namespace npuvp::compiler {

// The value of a Constant node (value, value_float(s), value_int(s)); a sparse or string value is
// an error naming the node.
HostTensor constant_node_value(const Node& node);

// The newest IR version and default-domain opset libonnx (ONNX 1.12) reads.
std::int64_t newest_ir_version();
std::int64_t newest_opset();

// IR versions 9 to 11 (ONNX 1.14 to 1.18: what onnx.helper writes there) added only data types
// (float 8, int 4, float 4) and overloads of model-local functions: a model of those versions
// that uses none of the new types is read as IR 8 (its ir_version set to 8 for libonnx's checker
// and shape inference); one that uses one, or a newer version, is refused naming it.
constexpr std::int64_t kNewestReadableIrVersion = 11;
void accept_ir_version(onnx::ModelProto& model, const std::string& where);

// Graph inputs and outputs declared without a shape (onnx.helper.make_tensor_value_info with
// shape None, which ONNX runtimes accept): libonnx 1.12's checker requires one. Gives them an
// empty shape for the checker; returns them, for restore_missing_shapes after it.
std::vector<onnx::ValueInfoProto*> fill_missing_shapes(onnx::ModelProto& model);
void restore_missing_shapes(const std::vector<onnx::ValueInfoProto*>& values);

// The opset of the default domain ("" or "ai.onnx"; 0 when not imported); two imports
// of it are refused, since which one applies would be a guess.
std::int64_t default_domain_opset(const onnx::ModelProto& model, const std::string& where);

// Nodes of a model newer than newest_opset() whose form is not that of the newest
// opset libonnx knows (ReduceMean's axes input, Split's num_outputs, ... of opset 18).
void refuse_forms_of_newer_opsets(const onnx::ModelProto& model, std::int64_t opset, const std::string& where);

// Nodes of opsets newer than libonnx's (17) in forms npuvp compiles: for libonnx's checker and
// shape inference each stands in as opset 17's node of the same meaning and output shapes, and
// restore_newer_ops puts the original back (the compiler's passes read both forms):
//   Gelu (opset 20, approximate none or tanh)       Erf (one float input, an output of its shape)
//   ReduceMean (18) with a constant axes input       ReduceMean with the axes attribute
//   Split (18) with num_outputs                      Split into as many equal parts as outputs
// Attributes newer opsets added at values that change nothing (AveragePool's dilations of 1,
// Cast's saturate) are dropped. Other forms are left to refuse_forms_of_newer_opsets.
struct NewerOp {
  int node;  // index in the graph's nodes
  onnx::NodeProto original;
};
std::vector<NewerOp> stand_in_newer_ops(onnx::ModelProto& model, std::int64_t opset, const std::string& where);
void restore_newer_ops(onnx::ModelProto& model, const std::vector<NewerOp>& ops);

void refuse_external_data(const onnx::ModelProto& model, const std::string& where);

// Sparse initializers (values at indices, zeros elsewhere) become dense initializers.
void densify_sparse_initializers(onnx::ModelProto& model, const std::string& where);

}  // namespace npuvp::compiler
