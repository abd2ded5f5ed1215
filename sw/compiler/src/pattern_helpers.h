// Small queries and builders the pattern-matching and rewriting passes share.
#pragma once

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "graph.h"

namespace npuvp::compiler {

// The node producing `value` if it is a live node of type `op`, else nullptr.
inline Node* producer_of(Graph& graph, int value, const std::string& op) {
  if (value < 0 || graph.values[value].producer < 0) return nullptr;
  Node& node = graph.nodes[graph.values[value].producer];
  return !node.removed && node.op() == op ? &node : nullptr;
}

// The only consumer of `value` (nullptr if it has others or is the graph output).
inline Node* only_consumer(Graph& graph, int value) {
  if (graph.is_graph_output(value)) return nullptr;
  auto consumers = graph.consumers(value);
  return consumers.size() == 1 ? &graph.nodes[consumers[0]] : nullptr;
}

inline bool is_scalar(const Graph& graph, int value, double expected, double tolerance = 1e-4) {
  if (value < 0 || !graph.values[value].is_constant()) return false;
  const auto& t = *graph.values[value].constant;
  return t.size() == 1 && std::fabs(t.at(0) - expected) <= tolerance * std::max(1.0, std::fabs(expected));
}

// The other input of a binary node than `value` (-1 if `value` is not an input).
inline int other_input(const Node& node, int value) {
  if (node.inputs.size() != 2) return -1;
  if (node.inputs[0] == value) return node.inputs[1];
  if (node.inputs[1] == value) return node.inputs[0];
  return -1;
}

// A new activation value of `shape`, named after `base` (made unique).
inline int add_activation(Graph& graph, const std::string& base, const Shape& shape) {
  Value value;
  value.name = graph.unique_name(base);
  value.shape = shape;
  value.shape_known = true;
  return graph.add_value(std::move(value));
}

// A new node `op` named `name` reading `inputs` and writing `output` (no attributes).
inline Node new_node(const std::string& op, const std::string& name, std::vector<int> inputs, int output) {
  Node node;
  node.proto.set_op_type(op);
  node.proto.set_name(name);
  node.inputs = std::move(inputs);
  node.outputs = {output};
  return node;
}

}  // namespace npuvp::compiler
