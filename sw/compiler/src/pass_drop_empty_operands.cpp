#include "passes.h"

namespace npuvp::compiler {

int drop_empty_concat_operands(Graph& graph) {
  int dropped = 0;
  for (auto& node : graph.nodes) {
    if (node.removed || node.op() != "Concat") continue;
    std::vector<int> kept;
    for (int in : node.inputs)
      if (in < 0 || !graph.values[in].is_constant() || element_count(graph.values[in].shape) != 0)
        kept.push_back(in);
    if (kept.empty() || kept.size() == node.inputs.size()) continue;  // all empty: the output is, an error
    dropped += int(node.inputs.size() - kept.size());
    node.inputs = kept;
    // A Concat of one tensor is that tensor: remove_identities takes it.
    if (kept.size() == 1) {
      node.proto.set_op_type("Identity");
      node.proto.clear_attribute();
    }
  }
  return dropped;
}

}  // namespace npuvp::compiler
