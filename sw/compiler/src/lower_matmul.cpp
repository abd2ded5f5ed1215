// MatMul (batched, broadcast, transposed operands) and Gemm -> the MATMUL kernel.
#include <algorithm>
#include <utility>

#include "compile_error.h"
#include "host_eval.h"
#include "lowering_context.h"
#include "onnx_attributes.h"

namespace npuvp::compiler {
namespace {

struct MatmulOperands {
  ArgWord a, b;
  std::int64_t batch = 1, m = 0, k = 0, n = 0;
  std::int64_t lda = 0, ldb = 0, ldc = 0, a_batch_stride = 0, b_batch_stride = 0, c_batch_stride = 0;
  bool trans_a = false, trans_b = false, b_shared = true;
  ArgWord c = LoweringContext::literal(0);  // literal 0: the node's output
  float alpha = 1;               // applied by the kernel (1 when folded into B)
  std::vector<float> bias;       // f32[N] or empty
  ArgWord residual = LoweringContext::literal(0);
};

std::uint64_t emit_matmul(LoweringContext& context, const Node& node, const MatmulOperands& p) {
  const MatmulTiling tiling = plan_matmul(context.soc, {p.batch, p.m, p.k, p.n, p.b_shared}, context.options.double_buffering);
  auto& l = context.launch(NPUVP_OP_KERNEL_MATMUL, NPUVP_MATMUL_ARG_COUNT, tiling.blocks);
  auto lit = [](std::int64_t v) { return LoweringContext::literal(std::uint64_t(v)); };
  l.args[NPUVP_MATMUL_A] = p.a;
  l.args[NPUVP_MATMUL_B] = p.b;
  if (!p.bias.empty()) l.args[NPUVP_MATMUL_BIAS] = LoweringContext::constant(context.add_f32(p.bias));
  l.args[NPUVP_MATMUL_RESIDUAL] = p.residual;
  l.args[NPUVP_MATMUL_C] = p.c.kind == ArgWord::Kind::Buffer ? p.c : context.address(node.outputs[0]);
  l.args[NPUVP_MATMUL_BATCH] = lit(p.batch);
  l.args[NPUVP_MATMUL_M] = lit(p.m);
  l.args[NPUVP_MATMUL_K] = lit(p.k);
  l.args[NPUVP_MATMUL_N] = lit(p.n);
  l.args[NPUVP_MATMUL_LDA] = lit(p.lda);
  l.args[NPUVP_MATMUL_LDB] = lit(p.ldb);
  l.args[NPUVP_MATMUL_LDC] = lit(p.ldc);
  l.args[NPUVP_MATMUL_A_BATCH_STRIDE] = lit(p.a_batch_stride);
  l.args[NPUVP_MATMUL_B_BATCH_STRIDE] = lit(p.b_batch_stride);
  l.args[NPUVP_MATMUL_C_BATCH_STRIDE] = lit(p.c_batch_stride);
  l.args[NPUVP_MATMUL_TRANS_A] = lit(p.trans_a);
  l.args[NPUVP_MATMUL_TRANS_B] = lit(p.trans_b);
  l.args[NPUVP_MATMUL_ALPHA] = p.alpha == 1.f ? lit(0) : LoweringContext::literal_float(p.alpha);
  const Epilogue& e = node.epilogue;
  l.args[NPUVP_MATMUL_ACT] = lit(e.activation == Activation::Relu ? NPUVP_ACT_RELU
                                 : e.activation == Activation::Clip ? NPUVP_ACT_CLIP : NPUVP_ACT_NONE);
  l.args[NPUVP_MATMUL_CLIP_MIN] = LoweringContext::literal_float(e.clip_min);
  l.args[NPUVP_MATMUL_CLIP_MAX] = LoweringContext::literal_float(e.clip_max);
  l.args[NPUVP_MATMUL_TILE_M] = lit(tiling.tile_m);
  l.args[NPUVP_MATMUL_TILE_N] = lit(tiling.tile_n);
  l.args[NPUVP_MATMUL_FLAGS] = lit(context.options.double_buffering ? 1 : 0);
  context.layer().tiling = tiling.text();
  return std::uint64_t(p.batch * p.m * p.k * p.n);
}

// The f32[N] bias of a fused Add (constant broadcastable to [N]).
std::vector<float> fused_bias(const LoweringContext& context, const Node& node, std::int64_t n, float scale) {
  if (node.epilogue.bias < 0) return {};
  const HostTensor& t = *context.value(node.epilogue.bias).constant;
  std::vector<float> bias(n);
  for (std::int64_t j = 0; j < n; ++j) bias[j] = scale * float(t.at(t.size() == 1 ? 0 : j));
  return bias;
}

// B as f16 (alpha folded in), stored as given (TRANS_B tells the kernel).
ArgWord constant_b(LoweringContext& context, const HostTensor& b, float alpha) {
  std::vector<float> values(b.size());
  for (std::int64_t k = 0; k < b.size(); ++k) values[k] = alpha * float(b.at(k));
  return LoweringContext::constant(context.add_f16(values));
}

// A constant A operand as f16, stored as given (its strides tell the kernel how).
ArgWord constant_a(LoweringContext& context, const HostTensor& a) {
  std::vector<float> values(a.size());
  for (std::int64_t k = 0; k < a.size(); ++k) values[k] = float(a.at(k));
  return LoweringContext::constant(context.add_f16(values));
}

// An operand as the kernel reads it: a logical [batch..., rows, cols] shape and
// element strides per logical axis (a Transpose folded into it permutes them).
struct OperandView {
  Shape shape;
  std::vector<std::int64_t> strides;
};

// `strides`: the operand's own element strides (a folded Slice view), empty: dense.
OperandView view_of(const Shape& stored, const std::vector<std::int64_t>& perm, std::vector<std::int64_t> strides = {}) {
  const auto dense = strides.empty() ? dense_strides(stored) : strides;
  if (perm.empty()) return {stored, dense};
  OperandView v;
  for (auto p : perm) {
    v.shape.push_back(stored[p]);
    v.strides.push_back(dense[p]);
  }
  return v;
}

// C's view when the result is written through Y = Transpose(C, perm): C's axis d
// lands on Y's axis j with perm[j] = d.
OperandView result_view(const Shape& y, const std::vector<std::int64_t>& perm) {
  const auto dense = dense_strides(y);
  if (perm.empty()) return {y, dense};
  OperandView v{Shape(perm.size()), std::vector<std::int64_t>(perm.size())};
  for (size_t j = 0; j < perm.size(); ++j) {
    v.shape[perm[j]] = y[j];
    v.strides[perm[j]] = dense[j];
  }
  return v;
}

// How the kernel reads a rows x cols matrix with element strides (rs, cs):
// row-major with row stride ld, or transposed (stored cols x rows) with row stride ld.
bool matrix_layout(std::int64_t rows, std::int64_t cols, std::int64_t rs, std::int64_t cs, bool& trans, std::int64_t& ld) {
  if (cs == 1 || cols == 1) {
    trans = false;
    ld = rows == 1 ? cols : rs;
    return true;
  }
  if (rs == 1 || rows == 1) {
    trans = true;
    ld = cs;
    return true;
  }
  return false;
}

// Batch strides of an operand broadcast to the output batch (0 on broadcast axes).
std::vector<std::int64_t> batch_strides(const OperandView& v, const Shape& batch) {
  std::vector<std::int64_t> strides(batch.size(), 0);
  const auto rank = std::int64_t(v.shape.size()) - 2;
  for (std::int64_t k = rank - 1, o = std::int64_t(batch.size()) - 1; k >= 0 && o >= 0; --k, --o)
    strides[o] = v.shape[k] == 1 ? 0 : v.strides[k];
  return strides;
}

// Gemm's C must broadcast to M x N (ONNX's unidirectional broadcasting).
void check_broadcasts_to(const Node& node, const Shape& c, const Shape& out) {
  bool fits = c.size() <= out.size();
  for (size_t k = 0; fits && k < c.size(); ++k) {
    const std::int64_t d = c[c.size() - 1 - k];
    fits = d == 1 || d == out[out.size() - 1 - k];
  }
  if (!fits) fail(node, "input C of shape " + shape_text(c) + " does not broadcast to " + shape_text(out));
}

}  // namespace

void emit_channel_interleave(LoweringContext& context, const Node& node, std::int64_t n, std::int64_t c,
                             std::int64_t hw) {
  MatmulOperands p;
  p.a = context.address(node.inputs[0]);
  std::vector<float> identity(std::size_t(c * 16), 0.f);
  for (std::int64_t k = 0; k < c; ++k) identity[std::size_t(k * 16 + k)] = 1.f;
  p.b = LoweringContext::constant(context.add_f16(identity));
  p.batch = n;
  p.m = hw;
  p.k = c;
  p.n = 16;
  p.trans_a = true;  // the planes: C x HW as stored
  p.lda = hw;
  p.ldb = 16;
  p.ldc = 16;
  p.a_batch_stride = c * hw;
  p.c_batch_stride = hw * 16;
  emit_matmul(context, node, p);
}

std::uint64_t lower_matmul(LoweringContext& context, const Node& node) {
  const int a_id = node.inputs[0], b_id = node.inputs[1];
  // A folded Slice: the operand is a strided window of a larger tensor (shape, strides, offset as attributes).
  auto operand_view = [&](int id, const char* k) {
    const auto shape = attribute_ints(node, std::string("npuvp_view_shape_") + k, {});
    if (shape.empty()) return view_of(context.shape(id), attribute_ints(node, std::string("npuvp_perm_") + k, {}));
    return view_of(shape, attribute_ints(node, std::string("npuvp_perm_") + k, {}),
                   attribute_ints(node, std::string("npuvp_view_strides_") + k, {}));
  };
  auto view_offset = [&](const char* k) {
    return std::uint64_t(attribute_int(node, std::string("npuvp_view_offset_") + k, 0) * 2);
  };
  OperandView a = operand_view(a_id, "a");
  OperandView b = operand_view(b_id, "b");
  // A window of a larger tensor reads only the window.
  std::uint64_t bytes_read = 0;
  for (const auto& [id, view] : {std::pair<int, const OperandView*>{a_id, &a}, {b_id, &b}})
    if (!context.value(id).is_constant())
      bytes_read += std::min<std::uint64_t>(context.stored_bytes(id), std::uint64_t(element_count(view->shape)) * 2);
  context.set_bytes_read(bytes_read);
  if (a.shape.size() == 1) { a.shape.insert(a.shape.begin(), 1); a.strides.insert(a.strides.begin(), 0); }
  if (b.shape.size() == 1) { b.shape.push_back(1); b.strides.push_back(0); }
  const std::int64_t ra = std::int64_t(a.shape.size()), rb = std::int64_t(b.shape.size());
  MatmulOperands p;
  p.m = a.shape[ra - 2];
  p.k = a.shape[ra - 1];
  p.n = b.shape[rb - 1];
  if (b.shape[rb - 2] != p.k) fail(node, "inner dimensions differ: " + shape_text(a.shape) + " x " + shape_text(b.shape));
  Shape batch = broadcast_shapes(node, Shape(a.shape.begin(), a.shape.end() - 2), Shape(b.shape.begin(), b.shape.end() - 2));
  // C: [batch..., M, N], written densely or through the folded Transpose.
  const auto perm_c = attribute_ints(node, "npuvp_perm_c", {});
  Shape c_shape = batch;
  c_shape.push_back(p.m);
  c_shape.push_back(p.n);
  OperandView c = perm_c.empty() ? OperandView{c_shape, dense_strides(c_shape)}
                                 : result_view(context.shape(node.outputs[0]), perm_c);
  bool c_trans = false;
  if (!matrix_layout(p.m, p.k, a.strides[ra - 2], a.strides[ra - 1], p.trans_a, p.lda) ||
      !matrix_layout(p.k, p.n, b.strides[rb - 2], b.strides[rb - 1], p.trans_b, p.ldb) ||
      !matrix_layout(p.m, p.n, c.strides[c.strides.size() - 2], c.strides.back(), c_trans, p.ldc) || c_trans)
    fail(node, "internal: an operand view without a unit-stride axis");

  const bool b_constant = context.value(b_id).is_constant();
  const float alpha = node.epilogue.alpha;
  p.alpha = b_constant ? 1.f : alpha;
  const bool a_constant = context.value(a_id).is_constant();
  const ArgWord a_base = a_constant ? constant_a(context, *context.value(a_id).constant)
                                    : context.address(a_id, view_offset("a"));
  const ArgWord b_base = b_constant ? constant_b(context, *context.value(b_id).constant, alpha)
                                    : context.address(b_id, view_offset("b"));
  const ArgWord c_base = context.address(node.outputs[0]);
  const bool has_residual = node.epilogue.residual >= 0;
  const ArgWord r_base = has_residual ? context.address(node.epilogue.residual) : LoweringContext::literal(0);
  p.bias = fused_bias(context, node, p.n, 1.f);

  // Batch axes: coalesced; a B shared by contiguous A rows folds into M; the
  // innermost axis is the kernel's BATCH, outer ones are separate launches.
  auto sa = batch_strides(a, batch), sb = batch_strides(b, batch), sc = batch_strides(c, batch);
  Shape dims = batch;
  coalesce_axes(dims, {&sa, &sb, &sc}, false);
  if (!dims.empty() && sb.back() == 0 && !p.trans_a && sa.back() == p.m * p.lda && sc.back() == p.m * p.ldc &&
      p.lda == p.k && p.ldc == p.n) {
    p.m *= dims.back();
    dims.pop_back(); sa.pop_back(); sb.pop_back(); sc.pop_back();
  }
  if (!dims.empty()) {
    p.batch = dims.back();
    p.a_batch_stride = sa.back();
    p.b_batch_stride = sb.back();
    p.c_batch_stride = sc.back();
    p.b_shared = sb.back() == 0;
    dims.pop_back(); sa.pop_back(); sb.pop_back(); sc.pop_back();
  }
  std::uint64_t macs = 0;
  for_each_index(dims, [&](const Shape& index) {
    std::int64_t oa = 0, ob = 0, oc = 0;
    for (size_t d = 0; d < dims.size(); ++d) { oa += index[d] * sa[d]; ob += index[d] * sb[d]; oc += index[d] * sc[d]; }
    MatmulOperands launch = p;
    launch.a = a_base; launch.a.value += std::uint64_t(oa * 2);
    launch.b = b_base; launch.b.value += std::uint64_t(ob * 2);
    launch.c = c_base; launch.c.value += std::uint64_t(oc * 2);
    launch.residual = r_base;
    if (has_residual) launch.residual.value += std::uint64_t(oc * 2);
    macs += emit_matmul(context, node, launch);
  });
  return macs;
}

std::uint64_t lower_gemm(LoweringContext& context, const Node& node) {
  const int a_id = node.inputs[0], b_id = node.inputs[1];
  const Shape& a = context.shape(a_id);
  const Shape& b = context.shape(b_id);
  if (a.size() != 2 || b.size() != 2) fail(node, "operands must be 2-D");
  MatmulOperands p;
  p.trans_a = attribute_int(node, "transA", 0) != 0;
  p.trans_b = attribute_int(node, "transB", 0) != 0;
  const float alpha = attribute_float(node, "alpha", 1.f) * node.epilogue.alpha;
  const float beta = attribute_float(node, "beta", 1.f);
  p.m = p.trans_a ? a[1] : a[0];
  p.k = p.trans_a ? a[0] : a[1];
  p.n = p.trans_b ? b[0] : b[1];
  if ((p.trans_b ? b[1] : b[0]) != p.k) fail(node, "inner dimensions differ: " + shape_text(a) + " x " + shape_text(b));
  p.lda = a[1];
  p.ldb = b[1];
  p.ldc = p.n;
  const bool b_constant = context.value(b_id).is_constant();
  p.a = context.value(a_id).is_constant() ? constant_a(context, *context.value(a_id).constant) : context.address(a_id);
  p.b = b_constant ? constant_b(context, *context.value(b_id).constant, alpha) : context.address(b_id);
  p.alpha = b_constant ? 1.f : alpha;
  p.bias = fused_bias(context, node, p.n, 1.f);
  if (node.inputs.size() > 2 && node.inputs[2] >= 0) {
    const Value& c = context.value(node.inputs[2]);
    const Shape& cs = c.shape;
    check_broadcasts_to(node, cs, {p.m, p.n});
    // By C's shape, not its size: a column [M, 1] has N values when M == N too.
    const auto strides = broadcast_strides(cs, {p.m, p.n});
    const bool same_for_every_row = strides[0] == 0;  // [], [1], [N], [1, N], [1, 1]
    if (c.is_constant() && same_for_every_row) {
      if (p.bias.empty()) p.bias.assign(p.n, 0.f);
      for (std::int64_t j = 0; j < p.n; ++j) p.bias[j] += beta * float(c.constant->at(j * strides[1]));
    } else if (c.is_constant()) {
      // A constant C that differs by row ([M, 1], [M, N]): the M x N residual, read from the constants region.
      std::vector<float> values(p.m * p.n);
      for (std::int64_t i = 0; i < p.m; ++i)
        for (std::int64_t j = 0; j < p.n; ++j)
          values[i * p.n + j] = beta * float(c.constant->at(i * strides[0] + j * strides[1]));
      p.residual = LoweringContext::constant(context.add_f16(values));
    } else if (beta == 1.f && cs == Shape{p.m, p.n} && node.epilogue.residual < 0) {
      p.residual = context.address(node.inputs[2]);
    } else {
      fail(node, "input C must be a constant or an M x N tensor with beta = 1");
    }
  }
  if (node.epilogue.residual >= 0) p.residual = context.address(node.epilogue.residual);
  return emit_matmul(context, node, p);
}

}  // namespace npuvp::compiler
