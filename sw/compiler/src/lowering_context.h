// Shared state of the lowering (lowering.cpp dispatches; lower_*.cpp emit one
// family of ops each): the constants region, the activation buffers, the
// launches and layers being built.
#pragma once

#include <functional>

#include "graph.h"
#include "lowering.h"
#include "soc_buffers.h"
#include "tiling_planner.h"

extern "C" {
#include "npuvp/model_package.h"
#include "npuvp/operator_kernels.h"
}

namespace npuvp::compiler {

class LoweringContext {
 public:
  LoweringContext(const Graph& graph, const CompileOptions& options);

  const Graph& graph;
  const CompileOptions& options;
  SocBuffers soc;
  Program program;

  // ---- constants (64-byte aligned entries) -> byte offset in the region
  std::uint64_t add_constant_bytes(const void* data, std::size_t bytes);
  std::uint64_t add_f16(const std::vector<float>& values);
  std::uint64_t add_f32(const std::vector<float>& values);
  // The constant operand `id` as f16, dense in its own shape (cached).
  std::uint64_t constant_f16(int id);
  // Weights as f16: among the pinned weights (an ArgWord::Kind::PinnedConstant) when the
  // layer being lowered is one of `pinned_layers`, else a constant.
  ArgWord add_weights_f16(const std::vector<float>& values);
  bool weights_pinned() const { return pinned_layers.count(layer_index()) > 0; }
  // The layers whose weights are pinned (indices into program.layers, the same in every lowering
  // of the graph; from choose_pinned_weights).
  std::set<std::uint32_t> pinned_layers;

  // ---- activations
  const Value& value(int id) const { return graph.values[id]; }
  const Shape& shape(int id) const { return graph.values[id].shape; }
  std::uint64_t stored_bytes(int id) const;       // f16, NC1HWC0 padded
  int define_buffer(int value_id);                // the producer's output
  void alias_buffer(int value_id, int source_id); // a free view
  bool has_buffer(int value_id) const { return buffer_of_[value_id] >= 0; }
  ArgWord address(int value_id, std::uint64_t byte_offset = 0) const;
  // The value's (or an address argument's) buffer is one the memory plan keeps in the
  // L2 arena (`l2_buffers`, by name, from a first plan of the same graph): the tiling
  // planner counts its bytes at the L2's bandwidth instead of the DDR's.
  bool in_l2(int value_id) const {
    const ArgWord arg = address(value_id);
    return arg.kind == ArgWord::Kind::Buffer && l2_buffers.count(program.buffers[arg.buffer].name) > 0;
  }
  std::set<std::string> l2_buffers;
  static ArgWord literal(std::uint64_t v) { return {ArgWord::Kind::Literal, v, -1}; }
  static ArgWord literal_float(float v);
  static ArgWord constant(std::uint64_t byte_offset) { return {ArgWord::Kind::Constant, byte_offset, -1}; }

  // ---- launches and layers
  KernelLaunch& launch(npuvp_operator_kernel kernel, unsigned arg_count, std::uint32_t blocks);
  void begin_layer(const Node& node);
  void end_layer(const Node& node, std::uint64_t macs);
  LayerRecord& layer() { return program.layers.back(); }
  std::uint32_t layer_index() const { return std::uint32_t(program.layers.size() - 1); }  // of layer()
  // The activation bytes the layer must read when it reads only part of its
  // inputs (a slice, a strided window); the default is all of them.
  void set_bytes_read(std::uint64_t bytes) { bytes_read_ = bytes; }
  std::uint32_t eltwise_blocks(std::int64_t elements) const;

  // ---- emitters shared by the families
  // out[i] = op(a, b) over `space` (any rank: coalesced, split into rank-4 launches).
  struct Operand { ArgWord address; std::vector<std::int64_t> strides; };
  void emit_eltwise(std::uint32_t opcode, ArgWord out, const Shape& space, const Operand& a, const Operand& b,
                    float scalar0 = 0, float scalar1 = 0);
  // out[sum i_d * out_strides_d] = in[sum i_d * in_strides_d] over `dims` (coalesced, split to rank 6).
  void emit_copy(ArgWord out, ArgWord in, const Shape& dims, const std::vector<std::int64_t>& out_strides,
                 const std::vector<std::int64_t>& in_strides);
  void emit_fill(ArgWord out, std::int64_t elements, float value);

 private:
  std::vector<int> buffer_of_;
  std::map<int, std::uint64_t> constant_cache_;
  std::uint64_t layer_constants_start_ = 0, layer_pinned_start_ = 0;
  std::uint64_t bytes_read_ = ~std::uint64_t(0);
};

// Element strides of a dense row-major shape.
std::vector<std::int64_t> dense_strides(const Shape& shape);
// Strides reading `in` broadcast to `out` (0 on broadcast axes).
std::vector<std::int64_t> broadcast_strides(const Shape& in, const Shape& out);
std::int64_t ceil_div(std::int64_t a, std::int64_t b);
// Merges adjacent axes every stride list walks contiguously and drops size-1
// axes (keep_one: leave one axis of size 1 when nothing remains).
void coalesce_axes(Shape& dims, std::vector<std::vector<std::int64_t>*> strides, bool keep_one);
// Calls f(index) for every index of `dims` (once for no dims).
void for_each_index(const Shape& dims, const std::function<void(const Shape&)>& f);

// The op families (lower_*.cpp). Each returns the layer's MACs.
std::uint64_t lower_conv(LoweringContext& context, const Node& node);
std::uint64_t lower_window_fold(LoweringContext& context, const Node& node);
std::uint64_t lower_batchnorm(LoweringContext& context, const Node& node);
std::uint64_t lower_pool(LoweringContext& context, const Node& node);
std::uint64_t lower_matmul(LoweringContext& context, const Node& node);
std::uint64_t lower_gemm(LoweringContext& context, const Node& node);
std::uint64_t lower_eltwise(LoweringContext& context, const Node& node);
std::uint64_t lower_softmax(LoweringContext& context, const Node& node);
std::uint64_t lower_layernorm(LoweringContext& context, const Node& node);
std::uint64_t lower_layout_conversion(LoweringContext& context, const Node& node);
// ND [n, c, h, w] with c <= 16 -> NC1HWC0 (one C1 slice) on the Cube (lower_matmul.cpp): per
// image the C x HW planes (TRANS_A) times the C x 16 identity, so the HW x 16 result interleaves
// the channels and its padded ones are zero (exact for finite inputs: one product of 1.0 each).
void emit_channel_interleave(LoweringContext& context, const Node& node, std::int64_t n, std::int64_t c, std::int64_t hw);
std::uint64_t lower_transpose(LoweringContext& context, const Node& node);
std::uint64_t lower_concat(LoweringContext& context, const Node& node);
std::uint64_t lower_pad(LoweringContext& context, const Node& node);
std::uint64_t lower_slice(LoweringContext& context, const Node& node);
std::uint64_t lower_gather(LoweringContext& context, const Node& node);
std::uint64_t lower_split(LoweringContext& context, const Node& node);
std::uint64_t lower_resize(LoweringContext& context, const Node& node);

}  // namespace npuvp::compiler
