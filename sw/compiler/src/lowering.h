// Lowering: every node of the (fused, layout-assigned) graph becomes kernel
// launches of operator_kernels.h, with weights rearranged into the constants
// region and the tiling planner's choices in the arguments.
#pragma once

#include <set>
#include <string>

#include "graph.h"
#include "npuvp/compiler/compiler.h"
#include "program.h"

namespace npuvp::compiler {

// `l2_buffers`: the names of the buffers a first memory plan put in the L2 arena (the
// tiling planner then models their bytes at the L2's bandwidth). `pinned_layers`: the
// layers whose weights go to the pinned weights (choose_pinned_weights), read from the L2.
// With CompileOptions::pin_weights, Program::pinned_candidates lists the other layers
// whose weights would be faster there.
Program lower_graph(const Graph& graph, const CompileOptions& options, const std::set<std::string>& l2_buffers = {},
                    const std::set<std::uint32_t>& pinned_layers = {});

// True when nodes of this op type have a lowering (a kernel to run them).
bool has_lowering(const std::string& op);

}  // namespace npuvp::compiler
