// Hoisting independent branches (passes.h): when an Add joins the outputs of
// two Conv / MatMul / Gemm nodes that feed only it, the later one moves up to
// just after the producers of its inputs. Epilogue fusion then fuses the Add
// into the other (the one computed last) as its residual, and the hoisted node
// depends on nothing of the other branch: stream assignment can run the two
// branches at the same time. ResNet's downsample 1x1 conv, exported after the
// block's main path (conv1, conv2, conv3, downsample, Add), would otherwise
// take the Add as its residual and wait for conv3. Only with several streams:
// the single-stream program keeps the exported order.
#include <algorithm>

#include "passes.h"

namespace npuvp::compiler {
namespace {

bool is_product(const Node& node) { return node.op() == "Conv" || node.op() == "MatMul" || node.op() == "Gemm"; }

// The node index just after the last producer of `node`'s activation inputs.
int ready_position(const Graph& graph, const Node& node) {
  int ready = 0;
  for (int id : node.inputs)
    if (id >= 0 && !graph.values[id].is_constant()) ready = std::max(ready, graph.values[id].producer + 1);
  return ready;
}

// Whether `value` is read by exactly one live node and is not the graph output.
bool single_use(const Graph& graph, int value) {
  return !graph.is_graph_output(value) && graph.consumers(value).size() == 1;
}

}  // namespace

int hoist_independent_branches(Graph& graph) {
  graph.compact();
  int moved = 0;
  for (int index = 0; index < int(graph.nodes.size()); ++index) {
    const Node& add = graph.nodes[index];
    if (add.op() != "Add" || add.inputs.size() != 2) continue;
    int a = add.inputs[0], b = add.inputs[1];
    if (a < 0 || b < 0 || a == b || graph.values[a].is_constant() || graph.values[b].is_constant()) continue;
    if (graph.values[a].shape != graph.values[b].shape) continue;
    int pa = graph.values[a].producer, pb = graph.values[b].producer;
    if (pa < 0 || pb < 0) continue;
    if (pa > pb) {
      std::swap(a, b);
      std::swap(pa, pb);
    }
    if (!is_product(graph.nodes[pa]) || !is_product(graph.nodes[pb]) || !single_use(graph, a) || !single_use(graph, b))
      continue;
    const int target = ready_position(graph, graph.nodes[pb]);
    if (target > pa) continue;  // pb needs something computed after pa: not independent of it
    std::rotate(graph.nodes.begin() + target, graph.nodes.begin() + pb, graph.nodes.begin() + pb + 1);
    graph.compact();  // renumbers the producers
    ++moved;
  }
  return moved;
}

}  // namespace npuvp::compiler
