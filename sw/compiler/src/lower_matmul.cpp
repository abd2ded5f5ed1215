// MatMul (batched, broadcast, transposed operands) and Gemm -> the MATMUL kernel.
#include "compile_error.h"
#include "lowering_context.h"
#include "onnx_attributes.h"

namespace npuvp::compiler {
namespace {

struct MatmulOperands {
  ArgWord a, b;
  std::int64_t batch = 1, m = 0, k = 0, n = 0;
  std::int64_t lda = 0, ldb = 0, ldc = 0, a_batch_stride = 0, b_batch_stride = 0, c_batch_stride = 0;
  bool trans_a = false, trans_b = false, b_shared = true;
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
  l.args[NPUVP_MATMUL_C] = context.address(node.outputs[0]);
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

Shape batch_dims(const Shape& s) { return Shape(s.begin(), s.end() - 2); }

}  // namespace

std::uint64_t lower_matmul(LoweringContext& context, const Node& node) {
  const int a_id = node.inputs[0], b_id = node.inputs[1];
  Shape a = context.shape(a_id), b = context.shape(b_id);
  if (context.value(a_id).is_constant()) fail(node, "a constant first operand is not supported");
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  const bool trans_a = attribute_int(node, "npuvp_trans_a", 0) != 0;
  const bool trans_b = attribute_int(node, "npuvp_trans_b", 0) != 0;
  MatmulOperands p;
  p.trans_a = trans_a;
  p.trans_b = trans_b;
  const std::int64_t ra = std::int64_t(a.size()), rb = std::int64_t(b.size());
  p.m = trans_a ? a[ra - 1] : a[ra - 2];
  p.k = trans_a ? a[ra - 2] : a[ra - 1];
  p.n = trans_b ? b[rb - 2] : b[rb - 1];
  const std::int64_t kb = trans_b ? b[rb - 1] : b[rb - 2];
  if (kb != p.k) fail(node, "inner dimensions differ: " + shape_text(a) + " x " + shape_text(b));
  const Shape batch_a = batch_dims(a), batch_b = batch_dims(b);
  const std::int64_t na = element_count(batch_a), nb = element_count(batch_b);
  const bool b_constant = context.value(b_id).is_constant();
  const float alpha = node.epilogue.alpha;
  p.alpha = b_constant ? 1.f : alpha;
  p.a = context.address(a_id);
  p.b = b_constant ? constant_b(context, *context.value(b_id).constant, alpha) : context.address(b_id);
  p.lda = a[ra - 1];
  p.ldb = b[rb - 1];
  p.ldc = p.n;
  if (nb == 1 && !trans_a) {
    // One B for every row block: fold A's batch into M.
    p.m *= na;
    p.batch = 1;
  } else if (nb == 1) {
    p.batch = na;
    p.a_batch_stride = p.m * p.k;
    p.c_batch_stride = p.m * p.n;
  } else if (na == 1 || batch_a == batch_b ||
             (element_count(batch_a) == na && na == nb &&
              Shape(batch_a.end() - std::min(batch_a.size(), batch_b.size()), batch_a.end()) ==
                  Shape(batch_b.end() - std::min(batch_a.size(), batch_b.size()), batch_b.end()))) {
    p.batch = nb;
    p.a_batch_stride = na == 1 ? 0 : p.m * p.k;
    p.b_batch_stride = p.k * p.n;
    p.c_batch_stride = p.m * p.n;
    p.b_shared = false;
  } else {
    fail(node, "unsupported broadcast of batch dimensions " + shape_text(a) + " x " + shape_text(b));
  }
  p.bias = fused_bias(context, node, p.n, 1.f);
  if (node.epilogue.residual >= 0) p.residual = context.address(node.epilogue.residual);
  return emit_matmul(context, node, p);
}

std::uint64_t lower_gemm(LoweringContext& context, const Node& node) {
  const int a_id = node.inputs[0], b_id = node.inputs[1];
  const Shape& a = context.shape(a_id);
  const Shape& b = context.shape(b_id);
  if (a.size() != 2 || b.size() != 2) fail(node, "operands must be 2-D");
  if (context.value(a_id).is_constant()) fail(node, "a constant first operand is not supported");
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
  p.a = context.address(a_id);
  p.b = b_constant ? constant_b(context, *context.value(b_id).constant, alpha) : context.address(b_id);
  p.alpha = b_constant ? 1.f : alpha;
  p.bias = fused_bias(context, node, p.n, 1.f);
  if (node.inputs.size() > 2 && node.inputs[2] >= 0) {
    const Value& c = context.value(node.inputs[2]);
    const Shape& cs = c.shape;
    const bool row_vector = element_count(cs) == p.n || element_count(cs) == 1;
    if (c.is_constant() && row_vector) {
      if (p.bias.empty()) p.bias.assign(p.n, 0.f);
      for (std::int64_t j = 0; j < p.n; ++j) p.bias[j] += beta * float(c.constant->at(c.constant->size() == 1 ? 0 : j));
    } else if (c.is_constant()) {
      // A full M x N constant C: the residual, read from the constants region.
      std::vector<float> values(p.m * p.n);
      const auto strides = broadcast_strides(cs, {p.m, p.n});
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
