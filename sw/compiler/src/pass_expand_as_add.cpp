#include "passes.h"

namespace npuvp::compiler {

int expands_as_adds(Graph& graph) {
  int rewritten = 0;
  for (auto& node : graph.nodes) {
    if (node.removed || node.op() != "Expand" || node.inputs.size() != 2 || node.inputs[0] < 0 ||
        node.outputs.size() != 1 || node.outputs[0] < 0 || graph.values[node.inputs[0]].is_constant())
      continue;
    // Zeros as large as the axes the Expand widens (1 elsewhere): the Add broadcasts x over them.
    const Shape in = graph.values[node.inputs[0]].shape, out = graph.values[node.outputs[0]].shape;
    Shape widened(out.size(), 1);
    const size_t offset = out.size() - in.size();
    for (size_t d = 0; d < out.size(); ++d)
      if ((d < offset ? 1 : in[d - offset]) != out[d]) widened[d] = out[d];
    const std::vector<float> zeros(size_t(element_count(widened)), 0.f);
    const int addend = graph.add_constant(graph.unique_name(node.name() + "_zeros"), HostTensor::floats(widened, zeros));
    node.proto.set_op_type("Add");
    node.proto.clear_attribute();
    node.inputs[1] = addend;
    ++rewritten;
  }
  return rewritten;
}

}  // namespace npuvp::compiler
