// The graph passes, in the order compile() runs them. Each is one file
// (pass_<name>.cpp) with one job; docs/compiler.md describes them.
#pragma once

#include "graph.h"
#include "npuvp/compiler/compiler.h"

namespace npuvp::compiler {

// Evaluates nodes whose inputs are all constants (and Shape of a static
// shape) on the host: static shape arithmetic, Constant weights transposed or
// scaled, ... Returns the number of nodes folded.
int fold_constants(Graph& graph);

// Max / Min take one or more inputs: one becomes an Identity, three or more a chain
// of two-input nodes (the kernels' and the lowering's form). Returns the nodes rewritten.
int split_variadic_max_min(Graph& graph);

// Expand of an activation (expand_as, a head repeated for grouped attention) becomes an Add of
// zeros shaped like the widened axes, which the element-wise kernel broadcasts (an Expand of a
// constant folds on the host). Returns the nodes rewritten.
int expands_as_adds(Graph& graph);

// CastLike (opset 15: torch 2's exporter casts constants like the tensor they meet) becomes a
// Cast to its target's type: a constant's own, or float for an activation (npuvp's activations
// are float). Returns the nodes rewritten.
int casts_like_as_casts(Graph& graph);

// Constant operands of a Concat with no elements (a [1, 0, 5, 7] initializer) are dropped:
// they add nothing, and the package would hold an empty constant. Returns the operands dropped.
int drop_empty_concat_operands(Graph& graph);

// After the shapes are static: attributes every later pass and the lowering rely on
// (Transpose's perm a permutation, Flatten's axis in range, BatchNormalization spatial, no Cast
// of an activation to an integer type).
// Throws naming the node.
void check_attributes(const Graph& graph);

// A Dropout in training mode (its training_mode input true, or is_test 0 before opset 7)
// is refused naming the node; remove_identities removes the inference ones.
void check_inference_dropout(const Graph& graph, const Node& node);

// Identity, Dropout (inference) and Cast to float of a float tensor are
// removed; their consumers read the input directly.
int remove_identities(Graph& graph);

// MaxPool / AveragePool with ceil_mode = 1 (and explicit pads) becomes the same pool with
// ceil_mode 0 and the end pads that give the ceil-mode output (PyTorch's rule: no window
// starts in the end padding). Left as it is (the lowering's error) where the output shape
// disagrees, or where an AveragePool counting its padding would count the extension.
// Returns the pools rewritten.
int resolve_pool_ceil_mode(Graph& graph);

// 1-D windows (Conv1d, MaxPool1d, AvgPool1d, global pools of [N, C, L]) run as 2-D ones on
// [N, C, 1, L]: a Reshape in, the window with a unit height (weights [Co, Ci/g, 1, K]), a
// Reshape out; elementwise ops and BatchNormalization on such values (with scalar or
// per-channel constants) follow to the 2-D form, so a Conv1d-BN-ReLU chain stays 2-D
// and folds and fuses as a 2-D one does. Returns the nodes rewritten.
int convs_1d_as_2d(Graph& graph);

// HardSigmoid -> Mul, Add, Clip(0, 1); HardSwish -> x * that (alpha 1/6, beta 1/2);
// LeakyRelu -> Max(x, alpha x) (Min for alpha > 1); PRelu with a constant slope ->
// Relu(x) + slope * Min(x, 0); Abs -> Max(x, Neg(x)): elementwise ops the kernels have
// (MobileNetV3). Returns the nodes decomposed.
int decompose_activations(Graph& graph);

// Where(c, a, b) with a constant condition (masked_fill with a registered mask): the
// activation branches times the 0/1 masks of c and not c, a constant branch as
// where(c, a, 0) computed here (an infinite fill stays exact), the two added. Exact for
// finite activations. Returns the Wheres rewritten.
int where_with_constant_conditions(Graph& graph);

// BatchNormalization after a Conv (whose output feeds only the BN) is folded
// into the Conv's weights and bias; any other BN becomes a per-channel
// scale and shift (lowered as a 1x1 depthwise conv).
int fold_batchnorms(Graph& graph);

// ReduceMean, Sub, Pow 2, ReduceMean, Add eps, Sqrt, Div, [Mul gamma, Add beta]
// over the last axis -> one LayerNormalization.
int match_layernorms(Graph& graph);

// x * 0.5 * (1 + erf(x / sqrt 2)) in its exported forms -> one Gelu node.
int match_gelus(Graph& graph);

// After match_layernorms: ReduceMean of a 4-D map over H and W (x.mean([2, 3]), as
// MnasNet, ShuffleNet and squeeze-excite blocks pool) -> GlobalAveragePool, followed by
// a Reshape view when keepdims is 0; any other ReduceMean -> Transpose (reduced axes
// last), Reshape, MatMul with a constant column of 1/n, Reshape. Returns the rewrites.
int reduce_means_to_pools(Graph& graph);

// A Softmax (opset >= 13) over an axis other than the last (Softmax(dim=1) of a
// feature map) -> Transpose swapping it with the last axis, Softmax over the last
// axis, Transpose back: the kernel normalises rows. Returns the Softmaxes moved.
int move_softmax_axes_last(Graph& graph);

// Only when compiling for several streams, before fuse_epilogues: an Add of
// two Conv / MatMul / Gemm outputs (each read only by it) gets the later of the
// two producers moved up to where its inputs are ready, so the Add fuses into
// the other as its residual and the two branches are independent (ResNet's
// downsample beside the main path). Returns the nodes moved.
int hoist_independent_branches(Graph& graph);

// Bias Add, residual Add, Relu, Clip after a Conv / MatMul / Gemm (and a
// scalar Mul/Div of a MatMul) become the producing node's epilogue; an Add
// before a LayerNormalization becomes its residual.
int fuse_epilogues(Graph& graph);

// Transposes around a MatMul become strided operand views (the kernel reads A
// and B through row strides, batch strides and TRANS_A/B, and writes C through
// LDC and the batch stride): a Transpose feeding A or B that keeps or swaps the
// last axis, and one consuming the result that keeps the last axis, disappear.
// Transpose(Transpose(x)) becomes one. Returns the transposes removed.
int fold_transposes(Graph& graph);

// A Conv with fewer than 16 input channels becomes a WindowFold (a selection Conv moving its
// kernel rows, and possibly a stride's columns, into channels) and a Conv with a 1-row kernel
// on the folded map, when the tiling planner's model says the pair is faster (the Cube's K is
// no longer 16 lanes per tap for a few real channels). After fuse_epilogues: the epilogue
// stays on the Conv. Returns the Convs folded.
int fold_conv_windows(Graph& graph, const CompileOptions& options);

// Chooses ND or NC1HWC0 for every activation and inserts layout conversions
// (LayoutConvert nodes) at the boundaries. Returns the conversions inserted.
int assign_layouts(Graph& graph);

}  // namespace npuvp::compiler
