/*
 * The operator kernels' contract: which kernels exist, where each is linked,
 * and the meaning of every word of its argument block (a0). One source of
 * truth for the kernels (sw/kernels/op_*.c, C on the AI Cores), the runtime
 * (sw/runtime, C on the host CPU) and the compiler (sw/compiler, C++ on the
 * build machine), which all include this header.
 *
 * Conventions shared by every operator kernel:
 *  - Tensors in GM are f16 (IEEE binary16) unless an argument says otherwise.
 *  - "ND" is dense row-major in the ONNX shape. "5HD" (NC1HWC0) stores an
 *    N x C x H x W feature map as N x C1 x H x W x 16 with C1 = ceil(C / 16);
 *    channel c lives at c1 = c / 16, c0 = c % 16 and the channels from C up
 *    to C1 * 16 are zero (kernels that write 5HD keep them zero).
 *  - Counts, sizes and strides are in elements unless the name ends in _BYTES.
 *  - f32 scalars travel as their IEEE bits in the low 32 bits of a word.
 *  - An address argument of 0 means "absent" where the text says optional.
 *  - Task blocks split the work; each kernel says how (block_idx of block_dim).
 *    The *_SPLIT / *_TILE arguments are the compiler's tiling plan; 0 lets
 *    the kernel choose.
 *  - The last word, NPUVP_OP_ARG_TAG, is never read by a kernel: the runtime
 *    puts the layer index there so a fault or a profile can name the layer.
 */
#pragma once

#include <stdint.h>

/* Kernel slots (sw/kernels/CMakeLists.txt links kernel n at 0x8800_0000 + n MiB). */
enum npuvp_operator_kernel {
    NPUVP_OP_KERNEL_CONV = 5,       /* op_conv.c:      Conv on the Cube, 5HD in and out       */
    NPUVP_OP_KERNEL_MATMUL = 6,     /* op_matmul.c:    batched GEMM on the Cube, ND            */
    NPUVP_OP_KERNEL_ELTWISE = 7,    /* op_eltwise.c:   unary / binary elementwise, broadcasting */
    NPUVP_OP_KERNEL_SOFTMAX = 8,    /* op_softmax.c:   softmax over the last axis, ND          */
    NPUVP_OP_KERNEL_LAYERNORM = 9,  /* op_layernorm.c: layer normalisation over the last axis  */
    NPUVP_OP_KERNEL_POOL = 10,      /* op_pool.c:      max / average pooling, 5HD              */
    NPUVP_OP_KERNEL_COPY = 11,      /* op_copy.c:      strided copy (transpose, concat, pad,
                                                       layout conversion), any rank <= 6       */
    NPUVP_OP_KERNEL_DWCONV = 12,    /* op_dwconv.c:    depthwise Conv on the Vector unit, 5HD  */
};
#define NPUVP_OP_KERNEL_FIRST 5
#define NPUVP_OP_KERNEL_LAST 12

#define NPUVP_OP_ARG_TAG 31 /* layer index (runtime); kernels ignore it */

/* Epilogue activation, applied last (after bias and residual). */
enum npuvp_activation {
    NPUVP_ACT_NONE = 0,
    NPUVP_ACT_RELU = 1,
    NPUVP_ACT_CLIP = 2, /* min(max(x, CLIP_MIN), CLIP_MAX); ReLU6 is CLIP 0, 6 */
};

/* ---- Conv (groups = 1) on the Cube: y = act(conv(x) + bias + residual), 5HD.
 * Weights: the GEMM B matrix Kc x Cout16 row-major f16, Kc = C1in * KH * KW * 16,
 * row k = ((c1 * KH + i) * KW + j) * 16 + c0 (zero rows for padded input channels),
 * Cout16 = C1out * 16 columns (zero columns beyond COUT). Bias: f32[Cout16] or 0.
 * Residual: optional 5HD tensor of the output's shape. */
/* NPUVP_CONV_FLAGS: bit 0 double buffering; bits 1-2 the C tiles' height h: 0 the plan's,
 * 1 or 2 tall tiles of 256 << h positions x 128 >> h channels (resident weights only: conv_plan.h);
 * bit 3 whole-L0C tiles: a band of 257..512 positions is one C tile of up to 128 channels in
 * both L0C halves, the block's tiles one at a time (conv_plan.h) */
enum { NPUVP_CONV_FLAG_DOUBLE_BUFFERING = 1, NPUVP_CONV_FLAG_TALL_SHIFT = 1, NPUVP_CONV_FLAG_TALL_MASK = 6,
       NPUVP_CONV_MAX_TALL = 2, NPUVP_CONV_FLAG_WHOLE_L0C = 8 };
enum npuvp_conv_arg {
    NPUVP_CONV_IN, NPUVP_CONV_WEIGHTS, NPUVP_CONV_BIAS, NPUVP_CONV_RESIDUAL, NPUVP_CONV_OUT,
    NPUVP_CONV_N, NPUVP_CONV_CIN, NPUVP_CONV_H, NPUVP_CONV_W, NPUVP_CONV_COUT,
    NPUVP_CONV_KH, NPUVP_CONV_KW, NPUVP_CONV_STRIDE_H, NPUVP_CONV_STRIDE_W,
    NPUVP_CONV_PAD_TOP, NPUVP_CONV_PAD_BOTTOM, NPUVP_CONV_PAD_LEFT, NPUVP_CONV_PAD_RIGHT,
    NPUVP_CONV_DILATION_H, NPUVP_CONV_DILATION_W,
    NPUVP_CONV_ACT, NPUVP_CONV_CLIP_MIN, NPUVP_CONV_CLIP_MAX, /* f32 bits */
    NPUVP_CONV_TILE_HO,   /* output rows per tile (0: the plan's default)                  */
    NPUVP_CONV_TILE_COUT, /* output channels per tile, a multiple of 16 (0: the plan's default) */
    NPUVP_CONV_FLAGS,     /* NPUVP_CONV_FLAG_*                                             */
    /* The kernel's plan, from the words above (TILE_HO and TILE_COUT are its input; the
     * kernel reads only the plan): npuvp_conv_plan_args of conv_plan.h sets these words
     * and defines their fields. A launch without them stops the kernel with a fault. */
    NPUVP_CONV_PLAN_ROWS, NPUVP_CONV_PLAN_COUT, NPUVP_CONV_PLAN_K, NPUVP_CONV_PLAN_L1,
    NPUVP_CONV_ARG_COUNT
};

/* ---- MatMul / Gemm: for b < BATCH, C_b = act(alpha * op(A_b) x op(B_b) + bias + R_b).
 * op(A_b) is M x K, op(B_b) is K x N. A_b starts at A + b * A_BATCH_STRIDE (0: the
 * same A for every b), row r of A (as stored) at A_b + r * LDA; likewise B. TRANS_A:
 * A is stored K x M; TRANS_B: B is stored N x K. C and the residual R are M x N
 * with row stride LDC and batch stride C_BATCH_STRIDE. Bias: f32[N] or 0 (broadcast
 * over rows). ALPHA: f32 bits, 0 means 1.0. Blocks split batch x M x N tiles. */
enum npuvp_matmul_arg {
    NPUVP_MATMUL_A, NPUVP_MATMUL_B, NPUVP_MATMUL_BIAS, NPUVP_MATMUL_RESIDUAL, NPUVP_MATMUL_C,
    NPUVP_MATMUL_BATCH, NPUVP_MATMUL_M, NPUVP_MATMUL_K, NPUVP_MATMUL_N,
    NPUVP_MATMUL_LDA, NPUVP_MATMUL_LDB, NPUVP_MATMUL_LDC,
    NPUVP_MATMUL_A_BATCH_STRIDE, NPUVP_MATMUL_B_BATCH_STRIDE, NPUVP_MATMUL_C_BATCH_STRIDE,
    NPUVP_MATMUL_TRANS_A, NPUVP_MATMUL_TRANS_B,
    NPUVP_MATMUL_ALPHA, NPUVP_MATMUL_ACT, NPUVP_MATMUL_CLIP_MIN, NPUVP_MATMUL_CLIP_MAX,
    NPUVP_MATMUL_TILE_M, NPUVP_MATMUL_TILE_N, /* multiples of 16 (0: kernel's choice) */
    NPUVP_MATMUL_FLAGS,                       /* bit 0: double buffering               */
    NPUVP_MATMUL_ARG_COUNT
};

/* ---- Elementwise: out[i] = op(a[i], b[i]) over an index space of RANK <= 4 dims
 * (outermost first); out is dense in that space; a and b are read at
 * sum(i_d * stride_d) (a stride of 0 broadcasts). Unary ops ignore B. SCALAR0/1
 * are f32 bits (clip bounds, the constant of *_SCALAR ops, the fill value). */
enum npuvp_eltwise_op {
    NPUVP_ELT_ADD, NPUVP_ELT_SUB, NPUVP_ELT_MUL, NPUVP_ELT_DIV, NPUVP_ELT_MAX, NPUVP_ELT_MIN,
    NPUVP_ELT_RELU, NPUVP_ELT_CLIP, NPUVP_ELT_SIGMOID, NPUVP_ELT_TANH, NPUVP_ELT_ERF,
    NPUVP_ELT_GELU,       /* x * 0.5 * (1 + erf(x / sqrt 2))      */
    NPUVP_ELT_EXP, NPUVP_ELT_SQRT, NPUVP_ELT_RECIPROCAL, NPUVP_ELT_NEG,
    NPUVP_ELT_ADD_SCALAR, /* a + SCALAR0                           */
    NPUVP_ELT_MUL_SCALAR, /* a * SCALAR0                           */
    NPUVP_ELT_POW_SCALAR, /* a ^ SCALAR0 (SCALAR0 an integer >= 0, or 0.5) */
    NPUVP_ELT_FILL,       /* SCALAR0 (ignores A and B)             */
    NPUVP_ELT_OP_COUNT
};
enum npuvp_eltwise_arg {
    NPUVP_ELT_OUT, NPUVP_ELT_A, NPUVP_ELT_B, NPUVP_ELT_OPCODE, NPUVP_ELT_RANK,
    NPUVP_ELT_DIM0, NPUVP_ELT_DIM1, NPUVP_ELT_DIM2, NPUVP_ELT_DIM3,
    NPUVP_ELT_A_STRIDE0, NPUVP_ELT_A_STRIDE1, NPUVP_ELT_A_STRIDE2, NPUVP_ELT_A_STRIDE3,
    NPUVP_ELT_B_STRIDE0, NPUVP_ELT_B_STRIDE1, NPUVP_ELT_B_STRIDE2, NPUVP_ELT_B_STRIDE3,
    NPUVP_ELT_SCALAR0, NPUVP_ELT_SCALAR1,
    NPUVP_ELT_ARG_COUNT
};

/* ---- Softmax over the last axis: ROWS x COLS, ND, rows split over blocks. */
enum npuvp_softmax_arg {
    NPUVP_SOFTMAX_IN, NPUVP_SOFTMAX_OUT, NPUVP_SOFTMAX_ROWS, NPUVP_SOFTMAX_COLS,
    NPUVP_SOFTMAX_ARG_COUNT
};

/* ---- LayerNormalization over the last axis: y = (x' - mean) / sqrt(var + EPS) * gamma
 * + beta with x' = x + residual (residual optional), ROWS x COLS, ND. gamma, beta:
 * f16[COLS] (beta optional). EPS: f32 bits. Rows split over blocks. */
enum npuvp_layernorm_arg {
    NPUVP_LAYERNORM_IN, NPUVP_LAYERNORM_RESIDUAL, NPUVP_LAYERNORM_GAMMA, NPUVP_LAYERNORM_BETA,
    NPUVP_LAYERNORM_OUT, NPUVP_LAYERNORM_ROWS, NPUVP_LAYERNORM_COLS, NPUVP_LAYERNORM_EPS,
    NPUVP_LAYERNORM_ARG_COUNT
};

/* ---- Pooling, 5HD in and out (N x C1 x H x W x 16 -> N x C1 x HO x WO x 16). */
enum npuvp_pool_mode {
    NPUVP_POOL_MAX,
    NPUVP_POOL_AVERAGE,              /* padding not counted (ONNX count_include_pad = 0) */
    NPUVP_POOL_AVERAGE_INCLUDE_PAD,  /* padding counted                                  */
};
enum npuvp_pool_arg {
    NPUVP_POOL_IN, NPUVP_POOL_OUT, NPUVP_POOL_MODE, NPUVP_POOL_N, NPUVP_POOL_C1,
    NPUVP_POOL_H, NPUVP_POOL_W, NPUVP_POOL_HO, NPUVP_POOL_WO, NPUVP_POOL_KH, NPUVP_POOL_KW,
    NPUVP_POOL_STRIDE_H, NPUVP_POOL_STRIDE_W, NPUVP_POOL_PAD_TOP, NPUVP_POOL_PAD_LEFT,
    NPUVP_POOL_DILATION_H, NPUVP_POOL_DILATION_W,
    NPUVP_POOL_IN_ROW_PITCH, NPUVP_POOL_OUT_ROW_PITCH, /* pixels between rows in GM (0: W, WO) */
    NPUVP_POOL_ARG_COUNT
};

/* ---- Strided copy: for every index i in DIM0 x ... x DIM5 (outermost first; unused
 * outer dims are 1), out[sum i_d * OUT_STRIDE_d] = in[sum i_d * IN_STRIDE_d].
 * Transpose, slices of Concat, the interior of Pad and ND <-> 5HD conversions are
 * all this. Element size ELEMENT_BYTES (2 for f16). */
enum npuvp_copy_arg {
    NPUVP_COPY_OUT, NPUVP_COPY_IN, NPUVP_COPY_ELEMENT_BYTES,
    NPUVP_COPY_DIM0, NPUVP_COPY_DIM1, NPUVP_COPY_DIM2, NPUVP_COPY_DIM3, NPUVP_COPY_DIM4, NPUVP_COPY_DIM5,
    NPUVP_COPY_IN_STRIDE0, NPUVP_COPY_IN_STRIDE1, NPUVP_COPY_IN_STRIDE2,
    NPUVP_COPY_IN_STRIDE3, NPUVP_COPY_IN_STRIDE4, NPUVP_COPY_IN_STRIDE5,
    NPUVP_COPY_OUT_STRIDE0, NPUVP_COPY_OUT_STRIDE1, NPUVP_COPY_OUT_STRIDE2,
    NPUVP_COPY_OUT_STRIDE3, NPUVP_COPY_OUT_STRIDE4, NPUVP_COPY_OUT_STRIDE5,
    NPUVP_COPY_ARG_COUNT
};
#define NPUVP_COPY_MAX_RANK 6

/* ---- Depthwise Conv (groups = C = COUT) on the Vector unit, 5HD in and out:
 * y = act(dwconv(x) + bias + residual). Weights: f16 [C1][KH][KW][16] (zero for
 * padded channels); bias: f32[C1 * 16] or 0; residual optional (5HD, output shape). */
enum npuvp_dwconv_arg {
    NPUVP_DWCONV_IN, NPUVP_DWCONV_WEIGHTS, NPUVP_DWCONV_BIAS, NPUVP_DWCONV_RESIDUAL, NPUVP_DWCONV_OUT,
    NPUVP_DWCONV_N, NPUVP_DWCONV_C, NPUVP_DWCONV_H, NPUVP_DWCONV_W,
    NPUVP_DWCONV_KH, NPUVP_DWCONV_KW, NPUVP_DWCONV_STRIDE_H, NPUVP_DWCONV_STRIDE_W,
    NPUVP_DWCONV_PAD_TOP, NPUVP_DWCONV_PAD_BOTTOM, NPUVP_DWCONV_PAD_LEFT, NPUVP_DWCONV_PAD_RIGHT,
    NPUVP_DWCONV_DILATION_H, NPUVP_DWCONV_DILATION_W,
    NPUVP_DWCONV_ACT, NPUVP_DWCONV_CLIP_MIN, NPUVP_DWCONV_CLIP_MAX,
    NPUVP_DWCONV_IN_ROW_PITCH, NPUVP_DWCONV_OUT_ROW_PITCH, /* pixels between rows in GM (0: W, WO) */
    NPUVP_DWCONV_ARG_COUNT
};
