// Elementwise ops (ND with broadcasting, or NC1HWC0 with per-channel constants),
// Softmax and LayerNormalization.
#include <cmath>
#include <map>

#include "compile_error.h"
#include "lowering_context.h"
#include "onnx_attributes.h"

namespace npuvp::compiler {
namespace {

float scalar_of(const LoweringContext& context, const Node& node, int id, const char* what) {
  const Value& v = context.value(id);
  if (!v.is_constant() || v.constant->size() != 1) fail(node, std::string(what) + " must be a constant scalar");
  return float(v.constant->at(0));
}

bool is_scalar_constant(const LoweringContext& context, int id) {
  return id >= 0 && context.value(id).is_constant() && context.value(id).constant->size() == 1;
}

// An operand of an elementwise launch over the output's index space.
struct Space {
  Shape dims;       // index space
  bool nc1hwc0 = false;
};

Space space_of(const LoweringContext& context, int out) {
  const Value& v = context.value(out);
  if (v.layout != Layout::NC1HWC0) return {v.shape, false};
  const auto& s = v.shape;
  return {{s[0], ceil_div(s[1], 16), s[2] * s[3], 16}, true};
}

LoweringContext::Operand operand(LoweringContext& context, int id, int out, const Space& space) {
  const Value& v = context.value(id);
  if (!space.nc1hwc0) {
    const ArgWord address = v.is_constant() ? LoweringContext::constant(context.constant_f16(id)) : context.address(id);
    return {address, broadcast_strides(v.shape, space.dims)};
  }
  if (!v.is_constant()) return {context.address(id), dense_strides(space.dims)};  // same shape, same layout
  // A per-channel (or scalar) constant, stored padded to C1 x 16.
  const HostTensor& t = *v.constant;
  if (t.size() == 1) return {LoweringContext::constant(context.constant_f16(id)), {0, 0, 0, 0}};
  const std::int64_t c = context.shape(out)[1];
  std::vector<float> padded(space.dims[1] * 16, 0.f);
  for (std::int64_t k = 0; k < c; ++k) padded[k] = float(t.at(k));
  return {LoweringContext::constant(context.add_f16(padded)), {0, 16, 0, 1}};
}

const std::map<std::string, std::uint32_t>& unary_opcodes() {
  static const std::map<std::string, std::uint32_t> table = {
      {"Relu", NPUVP_ELT_RELU}, {"Sigmoid", NPUVP_ELT_SIGMOID}, {"Tanh", NPUVP_ELT_TANH},
      {"Erf", NPUVP_ELT_ERF}, {"Gelu", NPUVP_ELT_GELU}, {"Exp", NPUVP_ELT_EXP}, {"Sqrt", NPUVP_ELT_SQRT},
      {"Reciprocal", NPUVP_ELT_RECIPROCAL}, {"Neg", NPUVP_ELT_NEG}};
  return table;
}

const std::map<std::string, std::uint32_t>& binary_opcodes() {
  static const std::map<std::string, std::uint32_t> table = {
      {"Add", NPUVP_ELT_ADD}, {"Sub", NPUVP_ELT_SUB}, {"Mul", NPUVP_ELT_MUL}, {"Div", NPUVP_ELT_DIV},
      {"Max", NPUVP_ELT_MAX}, {"Min", NPUVP_ELT_MIN}};
  return table;
}

}  // namespace

std::uint64_t lower_eltwise(LoweringContext& context, const Node& node) {
  const std::string& op = node.op();
  const int out = node.outputs[0];
  const Space space = space_of(context, out);
  const ArgWord out_address = context.address(out);
  const LoweringContext::Operand none{LoweringContext::literal(0), {}};
  if (op == "Gelu" && attribute_string(node, "approximate", "none") != "none")
    fail_attribute(node, "approximate", attribute_string(node, "approximate", ""));
  if (auto it = unary_opcodes().find(op); it != unary_opcodes().end()) {
    context.emit_eltwise(it->second, out_address, space.dims, operand(context, node.inputs[0], out, space), none);
    return 0;
  }
  if (op == "Clip") {
    float lo = -INFINITY, hi = INFINITY;
    if (context.graph.opset >= 11) {
      if (node.inputs.size() > 1 && node.inputs[1] >= 0) lo = scalar_of(context, node, node.inputs[1], "min");
      if (node.inputs.size() > 2 && node.inputs[2] >= 0) hi = scalar_of(context, node, node.inputs[2], "max");
    } else {
      lo = attribute_float(node, "min", lo);
      hi = attribute_float(node, "max", hi);
    }
    const bool relu = lo == 0.f && std::isinf(hi) && hi > 0;
    context.emit_eltwise(relu ? NPUVP_ELT_RELU : NPUVP_ELT_CLIP, out_address, space.dims,
                         operand(context, node.inputs[0], out, space), none, lo, hi);
    return 0;
  }
  if (op == "Pow") {
    const float exponent = scalar_of(context, node, node.inputs[1], "the exponent");
    if (!(exponent == 0.5f || (exponent >= 0 && exponent == std::floor(exponent))))
      fail(node, "unsupported exponent " + std::to_string(exponent) + " (integers >= 0 and 0.5)");
    context.emit_eltwise(NPUVP_ELT_POW_SCALAR, out_address, space.dims,
                         operand(context, node.inputs[0], out, space), none, exponent);
    return 0;
  }
  auto it = binary_opcodes().find(op);
  if (it == binary_opcodes().end()) fail(node, "unsupported op");
  // split_variadic_max_min leaves every Max / Min with two inputs.
  if (node.inputs.size() != 2) fail(node, "internal: " + std::to_string(node.inputs.size()) + " inputs, not 2");
  const int a = node.inputs[0], b = node.inputs[1];
  // x op scalar: the *_SCALAR forms read one operand.
  if (is_scalar_constant(context, b) && !context.value(a).is_constant() &&
      (op == "Add" || op == "Sub" || op == "Mul" || op == "Div")) {
    const float s = scalar_of(context, node, b, "B");
    const bool add = op == "Add" || op == "Sub";
    const float scalar = op == "Add" ? s : op == "Sub" ? -s : op == "Mul" ? s : 1.f / s;
    context.emit_eltwise(add ? NPUVP_ELT_ADD_SCALAR : NPUVP_ELT_MUL_SCALAR, out_address, space.dims,
                         operand(context, a, out, space), none, scalar);
    return 0;
  }
  if (is_scalar_constant(context, a) && !context.value(b).is_constant() && (op == "Add" || op == "Mul")) {
    context.emit_eltwise(op == "Add" ? NPUVP_ELT_ADD_SCALAR : NPUVP_ELT_MUL_SCALAR, out_address, space.dims,
                         operand(context, b, out, space), none, scalar_of(context, node, a, "A"));
    return 0;
  }
  context.emit_eltwise(it->second, out_address, space.dims, operand(context, a, out, space),
                       operand(context, b, out, space));
  return 0;
}

std::uint64_t lower_softmax(LoweringContext& context, const Node& node) {
  const Shape& in = context.shape(node.inputs[0]);
  const std::int64_t rank = std::int64_t(in.size());
  std::int64_t axis = attribute_int(node, "axis", context.graph.opset >= 13 ? -1 : 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) fail_attribute(node, "axis", std::to_string(attribute_int(node, "axis", -1)));
  // Opset < 13 flattens [axis:] into the columns; from 13 only the last axis
  // (or one followed by 1s) is a row softmax.
  std::int64_t after = 1;
  for (std::int64_t d = axis + 1; d < rank; ++d) after *= in[d];
  if (context.graph.opset >= 13 && after != 1)
    fail_attribute(node, "axis", std::to_string(attribute_int(node, "axis", -1)));
  std::int64_t rows = 1;
  for (std::int64_t d = 0; d < axis; ++d) rows *= in[d];
  const std::int64_t cols = element_count(in) / std::max<std::int64_t>(rows, 1);
  auto& l = context.launch(NPUVP_OP_KERNEL_SOFTMAX, NPUVP_SOFTMAX_ARG_COUNT, balanced_blocks(context.soc, rows));
  l.args[NPUVP_SOFTMAX_IN] = context.address(node.inputs[0]);
  l.args[NPUVP_SOFTMAX_OUT] = context.address(node.outputs[0]);
  l.args[NPUVP_SOFTMAX_ROWS] = LoweringContext::literal(std::uint64_t(rows));
  l.args[NPUVP_SOFTMAX_COLS] = LoweringContext::literal(std::uint64_t(cols));
  return 0;
}

std::uint64_t lower_layernorm(LoweringContext& context, const Node& node) {
  const Shape& in = context.shape(node.inputs[0]);
  const std::int64_t rank = std::int64_t(in.size());
  std::int64_t axis = attribute_int(node, "axis", -1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) fail_attribute(node, "axis", std::to_string(attribute_int(node, "axis", -1)));
  for (size_t k = 1; k < node.outputs.size(); ++k)
    if (node.outputs[k] >= 0 && !context.graph.consumers(node.outputs[k]).empty())
      fail(node, "the Mean / InvStdDev outputs are not supported");
  std::int64_t rows = 1;
  for (std::int64_t d = 0; d < axis; ++d) rows *= in[d];
  const std::int64_t cols = element_count(in) / rows;
  auto constant_vector = [&](size_t k, const char* what) -> ArgWord {
    if (k >= node.inputs.size() || node.inputs[k] < 0) return LoweringContext::literal(0);
    const Value& v = context.value(node.inputs[k]);
    if (!v.is_constant()) fail(node, std::string(what) + " must be a constant");
    std::vector<float> values(cols);
    for (std::int64_t j = 0; j < cols; ++j) values[j] = float(v.constant->at(v.constant->size() == 1 ? 0 : j % v.constant->size()));
    return LoweringContext::constant(context.add_f16(values));
  };
  auto& l = context.launch(NPUVP_OP_KERNEL_LAYERNORM, NPUVP_LAYERNORM_ARG_COUNT, balanced_blocks(context.soc, rows));
  l.args[NPUVP_LAYERNORM_IN] = context.address(node.inputs[0]);
  if (node.epilogue.residual >= 0) l.args[NPUVP_LAYERNORM_RESIDUAL] = context.address(node.epilogue.residual);
  l.args[NPUVP_LAYERNORM_GAMMA] = constant_vector(1, "scale");
  if (l.args[NPUVP_LAYERNORM_GAMMA].kind == ArgWord::Kind::Literal) fail(node, "scale is required");
  l.args[NPUVP_LAYERNORM_BETA] = constant_vector(2, "B");
  l.args[NPUVP_LAYERNORM_OUT] = context.address(node.outputs[0]);
  l.args[NPUVP_LAYERNORM_ROWS] = LoweringContext::literal(std::uint64_t(rows));
  l.args[NPUVP_LAYERNORM_COLS] = LoweringContext::literal(std::uint64_t(cols));
  l.args[NPUVP_LAYERNORM_EPS] = LoweringContext::literal_float(attribute_float(node, "epsilon", 1e-5f));
  return 0;
}

}  // namespace npuvp::compiler
