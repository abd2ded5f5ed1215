// ONNX import: parse, check, infer shapes, build the Graph. Every failure is a
// CompileError naming `where` (the file) or the node.
#pragma once

#include <string>

#include "graph.h"

namespace npuvp::compiler {

Graph import_onnx(const std::string& bytes, const std::string& where);
// The same, parsing the file as it streams in (no copy of its bytes).
Graph import_onnx_file(const std::string& path);

// Re-runs ONNX shape inference over the graph's live nodes and fills the
// shapes that are still unknown (after constant folding made them static).
void infer_missing_shapes(Graph& graph);

// The graph output must be computed from the input: an initializer, a Constant node or what
// folds to a constant is refused naming it.
void require_computed_output(const Graph& graph);

// Every activation must have a static shape with elements; throws naming the first that has not.
void require_static_shapes(const Graph& graph);

}  // namespace npuvp::compiler
