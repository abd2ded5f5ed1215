// compile(): import -> passes -> layouts -> lowering (with the tiling planner)
// -> streams -> memory plan -> package. docs/compiler.md.
#include "npuvp/compiler/compiler.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "import.h"
#include "lowering.h"
#include "memory_plan.h"
#include "op_classes.h"
#include "package_writer.h"
#include "passes.h"
#include "soc_buffers.h"
#include "streams.h"

namespace npuvp::compiler {
namespace {

// The buffers a memory plan puts in the L2 arena, by name, from a first lowering of
// the graph: the tiling planner of the second then models a Conv's input and output
// bytes at the L2's bandwidth where they are there. (The buffers, their sizes and
// lifetimes do not depend on the tiling, so the final plan puts the same ones in L2,
// except where another tiling changes which layers multi-stream packages overlap.)
// None without an L2 arena, a Conv, or an L2 faster than the DDR (the planner prices
// L2 bytes as DDR bytes then, so the first lowering would change nothing).
std::set<std::string> buffers_planned_in_l2(const Graph& graph, const CompileOptions& options,
                                            const MemoryPlanOptions& memory_options) {
  std::set<std::string> names;
  if (!memory_options.l2 || memory_options.soc.l2_bytes <= 0) return names;
  if (build_soc_buffers(options.soc).l2_priced_as_ddr()) return names;
  // Only the Conv plans use it: a graph without one is lowered once.
  if (std::none_of(graph.nodes.begin(), graph.nodes.end(), [](const Node& node) { return node.op() == "Conv"; }))
    return names;
  CompileOptions first_options = options;
  first_options.pin_weights = false;  // its candidates would be priced without the L2 arena
  Program first = lower_graph(graph, first_options);
  assign_streams(first, options.streams);
  plan_memory(first, memory_options);
  for (const auto& buffer : first.buffers)
    if (buffer.home == DeviceBuffer::Home::L2) names.insert(buffer.name);
  return names;
}

// The layer's roofline bound in AI Core cycles and whether it is the Cube's (as the report
// says): its MACs at the Cube's peak on every core against its minimum bytes, split by where
// they are (roofline_memory_cycles).
struct Roofline {
  double cycles;
  bool compute_bound;
};
Roofline roofline_of(const LayerRecord& record, const SocDescription& description, const SocBuffers& soc) {
  const double compute = double(record.macs) / (soc.cube_macs_per_cycle * soc.ai_cores);
  const double memory = roofline_memory_cycles(double(record.min_bytes), double(record.min_output_bytes),
                                               double(record.min_ddr_bytes), double(record.min_l2_bytes), description);
  return {std::max(compute, memory), compute > memory};
}

// The candidates for pinned weights that the roofline calls compute-bound with their weights in
// DDR. Their Cube waits for weights that the DDR brings in slower than it uses them (each block
// of a split by rows loads all of them), and by modelled saving per byte they would lose the L2
// to layers whose DDR time the model overestimates (ResNet-50's layer1 3 x 3: 5.9 k cycles saved
// modelled, 5.5 k measured; layer3's DDR-bound 3 x 3: 100 k modelled, 62 k measured):
// choose_pinned_weights takes them first, so that the Cube runs near its roofline where the
// roofline says it can.
void mark_compute_bound_candidates(Program& program, const SocDescription& description) {
  const SocBuffers soc = build_soc_buffers(description);
  for (auto& candidate : program.pinned_candidates)
    candidate.compute_bound = roofline_of(program.layers.at(candidate.layer), description, soc).compute_bound;
}

CompiledModel compile_graph(Graph graph, const CompileOptions& options) {
  split_variadic_max_min(graph);
  casts_like_as_casts(graph);
  remove_identities(graph);
  fold_constants(graph);
  infer_missing_shapes(graph);
  // Shapes inferred only now (behind a Reshape whose target was folded) make more
  // Shape nodes, and the arithmetic on them, foldable.
  while (fold_constants(graph) > 0) infer_missing_shapes(graph);
  require_computed_output(graph);
  require_static_shapes(graph);
  check_attributes(graph);
  drop_empty_concat_operands(graph);
  remove_identities(graph);
  decompose_activations(graph);
  expands_as_adds(graph);
  where_with_constant_conditions(graph);
  convs_1d_as_2d(graph);
  resolve_pool_ceil_mode(graph);
  fold_batchnorms(graph);
  match_layernorms(graph);
  match_gelus(graph);
  reduce_means_to_pools(graph);
  move_softmax_axes_last(graph);
  if (options.streams > 1) hoist_independent_branches(graph);
  fuse_epilogues(graph);
  fold_transposes(graph);
  fold_conv_windows(graph, options);
  assign_layouts(graph);

  MemoryPlanOptions memory_options;
  memory_options.soc = options.soc;
  memory_options.l2 = options.l2_activations;
  const std::set<std::string> l2_buffers = buffers_planned_in_l2(graph, options, memory_options);
  Program program = lower_graph(graph, options, l2_buffers);
  int stream_waits = assign_streams(program, options.streams);
  plan_memory(program, memory_options);
  // Pinned weights: chosen among the candidates of this lowering, in the L2 the activations
  // leave free; lowered again with them (the buffers and so the L2 arena stay the same).
  const std::uint64_t l2_free = options.soc.l2_bytes > program.l2_arena_bytes
                                    ? std::uint64_t(options.soc.l2_bytes) - program.l2_arena_bytes : 0;
  mark_compute_bound_candidates(program, options.soc);
  const std::set<std::uint32_t> pinned = choose_pinned_weights(program, l2_free);
  if (!pinned.empty()) {
    program = Program();  // its constants (ResNet-50: 51 MB) freed before the next lowering makes them again
    CompileOptions final_options = options;
    final_options.pin_weights = false;  // the candidates are chosen: no need to price them again
    program = lower_graph(graph, final_options, l2_buffers, pinned);
    stream_waits = assign_streams(program, options.streams);
    memory_options.soc.l2_bytes -= double(program.pinned_constants.size());  // 64-byte multiple
    plan_memory(program, memory_options);
  }
  graph = Graph();  // the host copies of the weights: the constants region has them now

  CompiledModel model;
  model.package = write_package(program);
  const SocBuffers soc = build_soc_buffers(options.soc);
  for (const auto& record : program.layers) {
    LayerSummary layer;
    layer.name = record.name;
    layer.op = record.op;
    layer.shapes = record.shapes;
    layer.macs = record.macs;
    layer.min_bytes = record.min_bytes;
    layer.min_ddr_bytes = record.min_ddr_bytes;
    layer.min_l2_bytes = record.min_l2_bytes;
    const Roofline roofline = roofline_of(record, options.soc, soc);
    layer.roofline_cycles = roofline.cycles;
    layer.compute_bound = roofline.compute_bound;
    layer.launches = record.launch_count;
    layer.blocks = record.launch_count ? program.launches[record.first_launch].blocks : 0;
    layer.tiling = record.tiling;
    layer.stream = record.launch_count ? program.launches[record.first_launch].stream : 0;
    model.layers.push_back(layer);
  }
  model.input_name = program.input_name;
  model.output_name = program.output_name;
  model.input_shape = program.input_shape;
  model.output_shape = program.output_shape;
  model.arena_bytes = program.arena_bytes;
  model.l2_arena_bytes = program.l2_arena_bytes;
  for (const auto& buffer : program.buffers) model.l2_buffers += buffer.home == DeviceBuffer::Home::L2;
  model.activation_bytes_total = program.activation_bytes_total;
  model.constants_bytes = program.constants.size();
  model.pinned_bytes = program.pinned_constants.size();
  model.pinned_layers = unsigned(pinned.size());
  // The conversions that run (those between identical memory images are views, lowering.cpp).
  model.layout_conversions = unsigned(std::count_if(program.layers.begin(), program.layers.end(), [](const auto& layer) {
    return layer.op == kToND || layer.op == kToNC1HWC0;
  }));
  model.streams = program.streams;
  model.stream_waits = unsigned(stream_waits);
  return model;
}

}  // namespace

CompiledModel compile_onnx_bytes(const std::string& bytes, const CompileOptions& options) {
  return compile_graph(import_onnx(bytes, "ONNX model"), options);
}

CompiledModel compile_onnx_file(const std::string& path, const CompileOptions& options) {
  return compile_graph(import_onnx_file(path), options);
}

}  // namespace npuvp::compiler
