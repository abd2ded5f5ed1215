#include "lowering.h"

#include <cstring>

#include "compile_error.h"
#include "fp16.h"
#include "lowering_context.h"
#include "op_classes.h"

namespace npuvp::compiler {

std::vector<std::int64_t> dense_strides(const Shape& shape) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (int d = int(shape.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

std::vector<std::int64_t> broadcast_strides(const Shape& in, const Shape& out) {
  std::vector<std::int64_t> strides(out.size(), 0);
  std::int64_t stride = 1;
  for (int k = int(in.size()) - 1, o = int(out.size()) - 1; k >= 0 && o >= 0; --k, --o) {
    strides[o] = in[k] == 1 ? 0 : stride;
    stride *= in[k];
  }
  return strides;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

LoweringContext::LoweringContext(const Graph& g, const CompileOptions& o)
    : graph(g), options(o), soc(build_soc_buffers(o.soc)), buffer_of_(g.values.size(), -1) {
  program.ai_cores = o.soc.ai_cores;
  program.model_name = g.model_name;
}

namespace {

// Appends `bytes` to `region` at a 64-byte aligned offset, which it returns.
std::uint64_t append_aligned(std::vector<std::uint8_t>& region, const void* data, std::size_t bytes) {
  region.resize(npuvp_package_align(region.size()));
  const std::uint64_t offset = region.size();
  region.resize(offset + bytes);
  if (bytes != 0) std::memcpy(region.data() + offset, data, bytes);  // an empty tensor's data() may be null
  return offset;
}

std::vector<std::uint16_t> to_half(const std::vector<float>& values) {
  std::vector<std::uint16_t> half(values.size());
  for (size_t k = 0; k < values.size(); ++k) half[k] = float_to_half(values[k]);
  return half;
}

}  // namespace

std::uint64_t LoweringContext::add_constant_bytes(const void* data, std::size_t bytes) {
  return append_aligned(program.constants, data, bytes);
}

std::uint64_t LoweringContext::add_f16(const std::vector<float>& values) {
  const auto half = to_half(values);
  return add_constant_bytes(half.data(), half.size() * 2);
}

ArgWord LoweringContext::add_weights_f16(const std::vector<float>& values) {
  if (!weights_pinned()) return constant(add_f16(values));
  const auto half = to_half(values);
  auto& region = program.pinned_constants;
  const std::uint64_t offset = append_aligned(region, half.data(), half.size() * 2);
  region.resize(npuvp_package_align(region.size()));  // whole copy units
  return {ArgWord::Kind::PinnedConstant, offset, -1};
}

std::uint64_t LoweringContext::add_f32(const std::vector<float>& values) {
  return add_constant_bytes(values.data(), values.size() * 4);
}

std::uint64_t LoweringContext::constant_f16(int id) {
  auto it = constant_cache_.find(id);
  if (it != constant_cache_.end()) return it->second;
  const HostTensor& t = *value(id).constant;
  std::vector<float> values(t.size());
  for (std::int64_t k = 0; k < t.size(); ++k) values[k] = float(t.at(k));
  return constant_cache_[id] = add_f16(values);
}

std::uint64_t LoweringContext::stored_bytes(int id) const {
  const Value& v = value(id);
  if (v.is_constant()) return std::uint64_t(v.constant->size()) * 2;
  if (v.layout == Layout::NC1HWC0) {
    const auto& s = v.shape;
    return std::uint64_t(s[0] * ceil_div(s[1], 16) * s[2] * s[3] * 16 * 2);
  }
  return std::uint64_t(element_count(v.shape)) * 2;
}

int LoweringContext::define_buffer(int value_id) {
  DeviceBuffer buffer;
  buffer.name = value(value_id).name;
  buffer.bytes = stored_bytes(value_id);
  const int id = int(program.buffers.size());
  program.buffers.push_back(buffer);
  buffer_of_[value_id] = id;
  return id;
}

void LoweringContext::alias_buffer(int value_id, int source_id) {
  if (buffer_of_[source_id] < 0) throw CompileError("internal: view of '" + value(source_id).name + "' before it exists");
  buffer_of_[value_id] = buffer_of_[source_id];
}

ArgWord LoweringContext::address(int value_id, std::uint64_t byte_offset) const {
  const Value& v = value(value_id);
  if (v.is_constant())
    throw CompileError("internal: constant '" + v.name + "' used as an activation");
  if (buffer_of_[value_id] < 0) throw CompileError("internal: '" + v.name + "' has no buffer");
  return {ArgWord::Kind::Buffer, byte_offset, buffer_of_[value_id]};
}

ArgWord LoweringContext::literal_float(float v) { return literal(float_bits(v)); }

KernelLaunch& LoweringContext::launch(npuvp_operator_kernel kernel, unsigned arg_count, std::uint32_t blocks) {
  KernelLaunch l;
  l.kernel = kernel;
  l.blocks = std::max<std::uint32_t>(1, std::min<std::uint32_t>(blocks, 65535));
  l.layer = layer_index();
  l.args.assign(arg_count, literal(0));
  program.launches.push_back(std::move(l));
  return program.launches.back();
}

void LoweringContext::begin_layer(const Node& node) {
  LayerRecord record;
  record.name = node.name();
  record.op = node.display_op();
  std::string in, out;
  for (int id : node.inputs)
    if (id >= 0 && !value(id).is_constant()) in += (in.empty() ? "" : ", ") + shape_text(shape(id));
  for (int id : node.outputs)
    if (id >= 0) out += (out.empty() ? "" : ", ") + shape_text(shape(id));
  record.shapes = in + " -> " + out;
  record.first_launch = std::uint32_t(program.launches.size());
  program.layers.push_back(record);
  layer_constants_start_ = program.constants.size();
  layer_pinned_start_ = program.pinned_constants.size();
  bytes_read_ = ~std::uint64_t(0);
}

void LoweringContext::end_layer(const Node& node, std::uint64_t macs) {
  LayerRecord& record = layer();
  record.launch_count = std::uint32_t(program.launches.size()) - record.first_launch;
  record.macs = macs;
  // Minimum DDR bytes: every activation read and written once, every constant read once.
  record.min_pinned_bytes = program.pinned_constants.size() - layer_pinned_start_;
  std::uint64_t bytes = program.constants.size() - layer_constants_start_ + record.min_pinned_bytes;
  record.min_constant_bytes = bytes;
  record.activation_bytes.clear();
  auto count = [&](std::vector<int> buffers, std::uint64_t count_bytes) {
    record.activation_bytes.push_back({std::move(buffers), count_bytes});
    return count_bytes;
  };
  if (bytes_read_ != ~std::uint64_t(0)) {
    std::vector<int> inputs;
    for (int id : node.inputs)
      if (id >= 0 && !value(id).is_constant()) inputs.push_back(buffer_of_[id]);
    bytes += count(inputs, bytes_read_);
  } else {
    for (int id : node.inputs)
      if (id >= 0 && !value(id).is_constant()) bytes += count({buffer_of_[id]}, stored_bytes(id));
  }
  if (node.epilogue.residual >= 0)
    bytes += count({buffer_of_[node.epilogue.residual]}, stored_bytes(node.epilogue.residual));
  record.min_output_bytes = 0;
  for (int id : node.outputs)
    if (id >= 0) record.min_output_bytes += count({buffer_of_[id]}, stored_bytes(id));
  record.min_bytes = bytes + record.min_output_bytes;
  record.min_ddr_bytes = record.min_bytes;
}

std::uint32_t LoweringContext::eltwise_blocks(std::int64_t elements) const {
  // 16 KiB of f16 per block at least: smaller launches are not worth splitting.
  return balanced_blocks(soc, ceil_div(elements, 8192));
}

void coalesce_axes(Shape& dims, std::vector<std::vector<std::int64_t>*> strides, bool keep_one) {
  Shape out_dims;
  std::vector<std::vector<std::int64_t>> out_strides(strides.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;
    bool merge = !out_dims.empty();
    for (size_t k = 0; k < strides.size() && merge; ++k)
      merge = out_strides[k].back() == (*strides[k])[d] * dims[d];
    if (merge) {
      out_dims.back() *= dims[d];
      for (size_t k = 0; k < strides.size(); ++k) out_strides[k].back() = (*strides[k])[d];
    } else {
      out_dims.push_back(dims[d]);
      for (size_t k = 0; k < strides.size(); ++k) out_strides[k].push_back((*strides[k])[d]);
    }
  }
  if (out_dims.empty() && keep_one) {
    out_dims.push_back(1);
    for (auto& s : out_strides) s.push_back(0);
  }
  dims = out_dims;
  for (size_t k = 0; k < strides.size(); ++k) *strides[k] = out_strides[k];
}

void for_each_index(const Shape& dims, const std::function<void(const Shape&)>& f) {
  Shape index(dims.size(), 0);
  while (true) {
    f(index);
    int d = int(dims.size()) - 1;
    for (; d >= 0; --d) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

namespace {

ArgWord offset_by(ArgWord word, std::int64_t bytes) {
  if (word.kind != ArgWord::Kind::Literal || word.value != 0) word.value += std::uint64_t(bytes);
  return word;
}

// Calls f(index) for every index of the dims beyond the `keep` innermost.
void for_outer(const Shape& dims, size_t keep, const std::function<void(const Shape&)>& f) {
  const size_t outer = dims.size() > keep ? dims.size() - keep : 0;
  for_each_index(Shape(dims.begin(), dims.begin() + outer), f);
}

}  // namespace

void LoweringContext::emit_eltwise(std::uint32_t opcode, ArgWord out, const Shape& space, const Operand& a,
                                   const Operand& b, float scalar0, float scalar1) {
  Shape dims = space;
  auto out_strides = dense_strides(space), a_strides = a.strides, b_strides = b.strides;
  if (a_strides.empty()) a_strides.assign(dims.size(), 0);
  if (b_strides.empty()) b_strides.assign(dims.size(), 0);
  coalesce_axes(dims, {&out_strides, &a_strides, &b_strides}, true);
  const size_t rank = std::min<size_t>(dims.size(), 4), outer = dims.size() - rank;
  std::int64_t inner_elements = 1;
  for (size_t d = outer; d < dims.size(); ++d) inner_elements *= dims[d];
  for_outer(dims, 4, [&](const Shape& index) {
    std::int64_t o = 0, ao = 0, bo = 0;
    for (size_t d = 0; d < outer; ++d) {
      o += index[d] * out_strides[d];
      ao += index[d] * a_strides[d];
      bo += index[d] * b_strides[d];
    }
    auto& l = launch(NPUVP_OP_KERNEL_ELTWISE, NPUVP_ELT_ARG_COUNT, eltwise_blocks(inner_elements));
    l.args[NPUVP_ELT_OUT] = offset_by(out, o * 2);
    l.args[NPUVP_ELT_A] = offset_by(a.address, ao * 2);
    l.args[NPUVP_ELT_B] = offset_by(b.address, bo * 2);
    l.args[NPUVP_ELT_OPCODE] = literal(opcode);
    l.args[NPUVP_ELT_RANK] = literal(rank);
    for (size_t d = 0; d < 4; ++d) {
      const bool used = d < rank;
      l.args[NPUVP_ELT_DIM0 + d] = literal(used ? std::uint64_t(dims[outer + d]) : 1);
      l.args[NPUVP_ELT_A_STRIDE0 + d] = literal(used ? std::uint64_t(a_strides[outer + d]) : 0);
      l.args[NPUVP_ELT_B_STRIDE0 + d] = literal(used ? std::uint64_t(b_strides[outer + d]) : 0);
    }
    l.args[NPUVP_ELT_SCALAR0] = literal_float(scalar0);
    l.args[NPUVP_ELT_SCALAR1] = literal_float(scalar1);
  });
}

void LoweringContext::emit_fill(ArgWord out, std::int64_t elements, float value) {
  emit_eltwise(NPUVP_ELT_FILL, out, {elements}, {literal(0), {0}}, {literal(0), {0}}, value);
}

void LoweringContext::emit_copy(ArgWord out, ArgWord in, const Shape& dims_in, const std::vector<std::int64_t>& out_strides_in,
                                const std::vector<std::int64_t>& in_strides_in) {
  Shape dims = dims_in;
  auto out_strides = out_strides_in, in_strides = in_strides_in;
  coalesce_axes(dims, {&out_strides, &in_strides}, true);
  const size_t rank = std::min<size_t>(dims.size(), NPUVP_COPY_MAX_RANK), outer = dims.size() - rank;
  std::int64_t inner_elements = 1;
  for (size_t d = outer; d < dims.size(); ++d) inner_elements *= dims[d];
  for_outer(dims, NPUVP_COPY_MAX_RANK, [&](const Shape& index) {
    std::int64_t o = 0, i = 0;
    for (size_t d = 0; d < outer; ++d) { o += index[d] * out_strides[d]; i += index[d] * in_strides[d]; }
    auto& l = launch(NPUVP_OP_KERNEL_COPY, NPUVP_COPY_ARG_COUNT, eltwise_blocks(inner_elements));
    l.args[NPUVP_COPY_OUT] = offset_by(out, o * 2);
    l.args[NPUVP_COPY_IN] = offset_by(in, i * 2);
    l.args[NPUVP_COPY_ELEMENT_BYTES] = literal(2);
    // Unused outer dims are 1 (the kernel's index space is outermost first).
    const size_t pad = NPUVP_COPY_MAX_RANK - rank;
    for (size_t d = 0; d < NPUVP_COPY_MAX_RANK; ++d) {
      const bool used = d >= pad;
      const size_t src = outer + d - pad;
      l.args[NPUVP_COPY_DIM0 + d] = literal(used ? std::uint64_t(dims[src]) : 1);
      l.args[NPUVP_COPY_IN_STRIDE0 + d] = literal(used ? std::uint64_t(in_strides[src]) : 0);
      l.args[NPUVP_COPY_OUT_STRIDE0 + d] = literal(used ? std::uint64_t(out_strides[src]) : 0);
    }
  });
}

namespace {

std::uint64_t lower_view(LoweringContext& context, const Node& node) {
  context.alias_buffer(node.outputs[0], node.inputs[0]);
  return 0;
}

// A layout conversion of N x C x 1 x 1 with C a multiple of 16 moves nothing: NC1HWC0's
// [N][C/16][1][1][16] is ND's [N][C] byte for byte (a classifier's pooled features before its
// Gemm), so its output is a view of its input instead of a launch.
bool is_identity_layout_conversion(const LoweringContext& context, const Node& node) {
  if (node.op() != kToND && node.op() != kToNC1HWC0) return false;
  const Shape& s = context.shape(node.inputs[0]);
  return s.size() == 4 && s[1] % 16 == 0 && s[2] == 1 && s[3] == 1;
}

using Lowering = std::uint64_t (*)(LoweringContext&, const Node&);

Lowering lowering_for(const std::string& op) {
  static const std::map<std::string, Lowering> table = {
      {"Conv", lower_conv}, {kWindowFold, lower_window_fold}, {"BatchNormalization", lower_batchnorm},
      {"MaxPool", lower_pool}, {"AveragePool", lower_pool}, {"GlobalAveragePool", lower_pool},
      {"GlobalMaxPool", lower_pool},
      {"MatMul", lower_matmul}, {"Gemm", lower_gemm},
      {"Add", lower_eltwise}, {"Sub", lower_eltwise}, {"Mul", lower_eltwise}, {"Div", lower_eltwise},
      {"Max", lower_eltwise}, {"Min", lower_eltwise}, {"Relu", lower_eltwise}, {"Clip", lower_eltwise},
      {"Sigmoid", lower_eltwise}, {"Tanh", lower_eltwise}, {"Erf", lower_eltwise}, {"Gelu", lower_eltwise},
      {"Exp", lower_eltwise}, {"Sqrt", lower_eltwise}, {"Reciprocal", lower_eltwise}, {"Neg", lower_eltwise},
      {"Pow", lower_eltwise},
      {"Softmax", lower_softmax}, {"LayerNormalization", lower_layernorm},
      {kToNC1HWC0, lower_layout_conversion}, {kToND, lower_layout_conversion},
      {"Transpose", lower_transpose}, {"Concat", lower_concat}, {"Pad", lower_pad},
      {"Slice", lower_slice}, {"Gather", lower_gather}, {"Split", lower_split},
      {"Resize", lower_resize}, {"Upsample", lower_resize},
      {"Reshape", lower_view}, {"Flatten", lower_view}, {"Squeeze", lower_view}, {"Unsqueeze", lower_view},
      {"Identity", lower_view},
  };
  auto it = table.find(op);
  return it == table.end() ? nullptr : it->second;
}

// A model whose output is a view of its input (Reshape, Flatten, ...) still
// writes its output tensor: one dense copy.
void copy_input_to_output(LoweringContext& context) {
  const Graph& graph = context.graph;
  Node copy;
  copy.proto.set_op_type("Copy");
  copy.proto.set_name(graph.values[graph.output].name);
  copy.inputs = {graph.input};
  copy.outputs = {graph.output};
  const ArgWord in = context.address(graph.input);
  context.define_buffer(graph.output);
  context.begin_layer(copy);
  const Shape shape = {element_count(graph.values[graph.output].shape)};
  context.emit_copy(context.address(graph.output), in, shape, {1}, {1});
  context.end_layer(copy, 0);
}

void compute_lifetimes(Program& program) {
  for (int l = 0; l < int(program.launches.size()); ++l)
    for (const auto& arg : program.launches[l].args) {
      if (arg.kind != ArgWord::Kind::Buffer) continue;
      auto& buffer = program.buffers[arg.buffer];
      if (buffer.first_launch < 0) buffer.first_launch = l;
      buffer.last_launch = l;
    }
}

}  // namespace

bool has_lowering(const std::string& op) { return lowering_for(op) != nullptr; }

Program lower_graph(const Graph& graph, const CompileOptions& options, const std::set<std::string>& l2_buffers,
                    const std::set<std::uint32_t>& pinned_layers) {
  LoweringContext context(graph, options);
  context.l2_buffers = l2_buffers;
  context.pinned_layers = pinned_layers;
  // Reject unsupported ops before emitting anything: the first one is the error.
  for (const auto& node : graph.nodes)
    if (!lowering_for(node.op())) fail(node, "unsupported op");
  const int input_buffer = context.define_buffer(graph.input);
  context.program.buffers[input_buffer].home = DeviceBuffer::Home::Input;
  for (const auto& node : graph.nodes) {
    if (is_view_op(node.op()) || is_identity_layout_conversion(context, node)) {
      lower_view(context, node);
      continue;
    }
    for (int out : node.outputs)
      if (out >= 0) context.define_buffer(out);
    context.begin_layer(node);
    const std::uint64_t macs = lowering_for(node.op())(context, node);
    context.end_layer(node, macs);
  }
  if (context.address(graph.output).buffer == input_buffer) copy_input_to_output(context);
  Program& program = context.program;
  program.input_buffer = input_buffer;
  program.output_buffer = context.address(graph.output).buffer;
  program.buffers[program.output_buffer].home = DeviceBuffer::Home::Output;
  program.input_name = graph.values[graph.input].name;
  program.output_name = graph.values[graph.output].name;
  program.input_shape = graph.values[graph.input].shape;
  program.output_shape = graph.values[graph.output].shape;
  compute_lifetimes(program);
  return std::move(context.program);
}

}  // namespace npuvp::compiler
