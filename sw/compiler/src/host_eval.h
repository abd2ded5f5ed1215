// Host evaluation of the ops constant folding handles (small tensors: shape
// arithmetic, and elementwise/transposes of weights).
#pragma once

#include <optional>
#include <vector>

#include "graph.h"

namespace npuvp::compiler {

bool can_evaluate_on_host(const std::string& op);
// Evaluates `node` whose inputs are given (nullptr: absent). Shape needs only
// the input's shape (`input_shapes`). Throws CompileError on bad attributes.
std::vector<HostTensor> evaluate_on_host(const Node& node, const std::vector<const HostTensor*>& inputs,
                                         const std::vector<Shape>& input_shapes, std::int64_t opset);

Shape broadcast_shapes(const Node& node, const Shape& a, const Shape& b);
// The output shapes of a node whose shapes libonnx 1.12 does not infer although its input's
// shape and its attributes tell them: Squeeze without axes before opset 13, Slice (opset < 10,
// attributes) with negative bounds, Split of opset 18 into num_outputs uneven parts. None for
// other nodes.
bool has_shape_from_attributes(const Node& node, std::int64_t opset);
std::vector<Shape> shapes_from_attributes(const Node& node, const Shape& input, std::int64_t opset);
// Transpose's perm with negative axes normalised (none: the axes reversed); one that is not a
// permutation of the input's `rank` axes is a CompileError naming the node.
std::vector<std::int64_t> transpose_perm(const Node& node, std::size_t rank);
// Flatten's axis in 0 .. rank; one outside [-rank, rank] is a CompileError naming the node.
std::int64_t flatten_axis(const Node& node, std::int64_t rank);
// Resolves a Reshape target (0 copies, -1 infers) for an input of `input`.
Shape reshape_target(const Node& node, const Shape& input, const std::vector<std::int64_t>& target);

}  // namespace npuvp::compiler
