#include "graph.h"

#include "compile_error.h"

namespace npuvp::compiler {

std::int64_t element_count(const Shape& shape) { return checked_element_count(shape, "a tensor"); }

std::string shape_text(const Shape& shape) {
  if (shape.empty()) return "scalar";
  std::string text;
  for (size_t k = 0; k < shape.size(); ++k) text += (k ? "x" : "") + std::to_string(shape[k]);
  return text;
}

std::string Node::display_op() const {
  std::string text = op();
  for (const auto& fused : fused_ops) text += "+" + fused;
  return text;
}

int Graph::add_value(Value value) {
  int id = int(values.size());
  by_name_[value.name] = id;
  values.push_back(std::move(value));
  return id;
}

int Graph::add_constant(const std::string& name, HostTensor tensor) {
  Value value;
  value.name = name;
  value.shape = tensor.shape;
  value.shape_known = true;
  value.constant = std::make_shared<const HostTensor>(std::move(tensor));
  return add_value(std::move(value));
}

int Graph::find_value(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? -1 : it->second;
}

std::vector<int> Graph::consumers(int id) const {
  std::vector<int> result;
  for (int n = 0; n < int(nodes.size()); ++n) {
    if (nodes[n].removed) continue;
    for (int in : nodes[n].inputs)
      if (in == id) { result.push_back(n); break; }
    const auto& e = nodes[n].epilogue;
    if ((e.bias == id || e.residual == id) && (result.empty() || result.back() != n)) result.push_back(n);
  }
  return result;
}

void Graph::replace_uses(int from, int to) {
  for (auto& node : nodes) {
    if (node.removed) continue;
    for (int& in : node.inputs)
      if (in == from) in = to;
    if (node.epilogue.residual == from) node.epilogue.residual = to;
    if (node.epilogue.bias == from) node.epilogue.bias = to;
  }
  if (output == from) output = to;
  if (input == from) input = to;
}

void Graph::compact() {
  std::vector<Node> live;
  live.reserve(nodes.size());
  for (auto& node : nodes)
    if (!node.removed) live.push_back(std::move(node));
  nodes = std::move(live);
  for (auto& value : values) value.producer = -1;
  for (int n = 0; n < int(nodes.size()); ++n)
    for (int out : nodes[n].outputs)
      if (out >= 0) values[out].producer = n;
}

std::string Graph::unique_name(const std::string& base) {
  std::string name;
  do name = base + "_" + std::to_string(name_counter_++);
  while (by_name_.count(name));
  return name;
}

std::string node_context(const Node& node) {
  return "node '" + node.name() + "' (" + node.op() + ")";
}

void fail(const Node& node, const std::string& what) {
  throw CompileError(node_context(node) + ": " + what);
}

}  // namespace npuvp::compiler
