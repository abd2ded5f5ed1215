// A host emulator of a model package, written from the argument-word contract
// of sw/include/npuvp/operator_kernels.h (not from the compiler's code): it
// relocates every launch's arguments like the runtime does and runs each
// kernel's documented semantics in f32 with f16 storage. The compiler tests
// compare its output with an independent f32 reference of the ONNX graph.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler_test_support.h"
#include "fp16.h"

namespace npuvp::compiler::test {

class PackageEmulator {
 public:
  explicit PackageEmulator(const std::vector<std::uint8_t>& package) : package_(package), view_(package_) {
    const auto& h = view_.header;
    constants_.assign(package_.begin() + h.constants_offset, package_.begin() + h.constants_offset + h.constants_bytes);
    io_.assign(h.io_bytes, 0);
    arena_.assign(h.arena_bytes + 64, 0xff);  // garbage: nothing may rely on a zeroed arena
    l2_arena_.assign(h.l2_arena_bytes + 64, 0xff);
    // The runtime's staging copy of the pinned weights into the L2 buffer.
    pinned_.assign(constants_.begin() + h.pinned_offset, constants_.begin() + h.pinned_offset + h.pinned_bytes);
  }

  std::vector<float> run(const std::vector<float>& input) {
    const auto in = view_.tensor(0), out = view_.tensor(1);
    if (input.size() * 2 != in.bytes) throw std::runtime_error("input size");
    for (size_t k = 0; k < input.size(); ++k) store(io_.data() + in.io_offset + 2 * k, input[k]);
    for (std::uint32_t k = 0; k < view_.header.launch_count; ++k) execute(view_.launch(k));
    std::vector<float> result(out.bytes / 2);
    for (size_t k = 0; k < result.size(); ++k) result[k] = load(io_.data() + out.io_offset + 2 * k);
    return result;
  }

 private:
  static float load(const std::uint8_t* p) {
    static const std::vector<float> table = [] {
      std::vector<float> t(65536);
      for (std::uint32_t h = 0; h < 65536; ++h) t[h] = half_to_float(std::uint16_t(h));
      return t;
    }();
    std::uint16_t h;
    std::memcpy(&h, p, 2);
    return table[h];
  }
  static void store(std::uint8_t* p, float v) {
    const std::uint16_t h = float_to_half(v);
    std::memcpy(p, &h, 2);
  }
  static float bits_float(std::uint64_t word) {
    const std::uint32_t bits = std::uint32_t(word);
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }

  // The address argument `a` of launch `l` as a host pointer (nullptr for an absent 0).
  std::uint8_t* pointer(const npuvp_package_launch& l, unsigned a) {
    const unsigned relocation = relocation_of(l, a);
    const std::uint64_t offset = l.args[a];
    const bool in_l2 = (l.l2_args >> a) & 1u;
    std::vector<std::uint8_t>* region = relocation == NPUVP_RELOC_CONSTANTS ? (in_l2 ? &pinned_ : &constants_)
                                        : relocation == NPUVP_RELOC_ARENA   ? (in_l2 ? &l2_arena_ : &arena_)
                                        : relocation == NPUVP_RELOC_IO      ? &io_
                                                                            : nullptr;
    if (!region) {
      if (offset != 0) throw std::runtime_error("literal address argument " + std::to_string(a));
      return nullptr;
    }
    if (offset > region->size()) throw std::runtime_error("argument " + std::to_string(a) + " outside its region");
    return region->data() + offset;
  }
  std::int64_t word(const npuvp_package_launch& l, unsigned a) const { return std::int64_t(l.args[a]); }

  static float activate(float v, std::int64_t act, float lo, float hi) {
    if (act == NPUVP_ACT_RELU) return std::max(v, 0.f);
    if (act == NPUVP_ACT_CLIP) return std::min(std::max(v, lo), hi);
    return v;
  }

  void execute(const npuvp_package_launch& l) {
    switch (l.kernel) {
      case NPUVP_OP_KERNEL_CONV: return conv(l);
      case NPUVP_OP_KERNEL_DWCONV: return dwconv(l);
      case NPUVP_OP_KERNEL_MATMUL: return matmul(l);
      case NPUVP_OP_KERNEL_ELTWISE: return eltwise(l);
      case NPUVP_OP_KERNEL_SOFTMAX: return softmax(l);
      case NPUVP_OP_KERNEL_LAYERNORM: return layernorm(l);
      case NPUVP_OP_KERNEL_POOL: return pool(l);
      case NPUVP_OP_KERNEL_COPY: return copy(l);
      default: throw std::runtime_error("unknown kernel " + std::to_string(l.kernel));
    }
  }

  void conv(const npuvp_package_launch& l) {
    auto* in = pointer(l, NPUVP_CONV_IN); auto* w = pointer(l, NPUVP_CONV_WEIGHTS);
    auto* bias = pointer(l, NPUVP_CONV_BIAS); auto* res = pointer(l, NPUVP_CONV_RESIDUAL); auto* out = pointer(l, NPUVP_CONV_OUT);
    const auto n = word(l, NPUVP_CONV_N), cin = word(l, NPUVP_CONV_CIN), h = word(l, NPUVP_CONV_H), wd = word(l, NPUVP_CONV_W);
    const auto cout = word(l, NPUVP_CONV_COUT), kh = word(l, NPUVP_CONV_KH), kw = word(l, NPUVP_CONV_KW);
    const auto sh = word(l, NPUVP_CONV_STRIDE_H), sw = word(l, NPUVP_CONV_STRIDE_W);
    const auto pt = word(l, NPUVP_CONV_PAD_TOP), pb = word(l, NPUVP_CONV_PAD_BOTTOM);
    const auto pl = word(l, NPUVP_CONV_PAD_LEFT), pr = word(l, NPUVP_CONV_PAD_RIGHT);
    const auto dh = word(l, NPUVP_CONV_DILATION_H), dw = word(l, NPUVP_CONV_DILATION_W);
    const auto act = word(l, NPUVP_CONV_ACT);
    const float lo = bits_float(l.args[NPUVP_CONV_CLIP_MIN]), hi = bits_float(l.args[NPUVP_CONV_CLIP_MAX]);
    const auto c1in = (cin + 15) / 16, c1out = (cout + 15) / 16, cout16 = c1out * 16;
    const auto ho = (h + pt + pb - (kh - 1) * dh - 1) / sh + 1, wo = (wd + pl + pr - (kw - 1) * dw - 1) / sw + 1;
    for (std::int64_t b = 0; b < n; ++b)
      for (std::int64_t co = 0; co < cout16; ++co)
        for (std::int64_t y = 0; y < ho; ++y)
          for (std::int64_t x = 0; x < wo; ++x) {
            const std::int64_t o = (((b * c1out + co / 16) * ho + y) * wo + x) * 16 + co % 16;
            if (co >= cout) { store(out + 2 * o, 0); continue; }
            float acc = 0;
            for (std::int64_t c1 = 0; c1 < c1in; ++c1)
              for (std::int64_t i = 0; i < kh; ++i)
                for (std::int64_t j = 0; j < kw; ++j) {
                  const auto iy = y * sh - pt + i * dh, ix = x * sw - pl + j * dw;
                  if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                  for (std::int64_t c0 = 0; c0 < 16; ++c0) {
                    const auto row = ((c1 * kh + i) * kw + j) * 16 + c0;
                    acc += load(in + 2 * ((((b * c1in + c1) * h + iy) * wd + ix) * 16 + c0)) * load(w + 2 * (row * cout16 + co));
                  }
                }
            if (bias) { float f; std::memcpy(&f, bias + 4 * co, 4); acc += f; }
            if (res) acc += load(res + 2 * o);
            store(out + 2 * o, activate(acc, act, lo, hi));
          }
  }

  void dwconv(const npuvp_package_launch& l) {
    auto* in = pointer(l, NPUVP_DWCONV_IN); auto* w = pointer(l, NPUVP_DWCONV_WEIGHTS);
    auto* bias = pointer(l, NPUVP_DWCONV_BIAS); auto* res = pointer(l, NPUVP_DWCONV_RESIDUAL); auto* out = pointer(l, NPUVP_DWCONV_OUT);
    const auto n = word(l, NPUVP_DWCONV_N), c = word(l, NPUVP_DWCONV_C), h = word(l, NPUVP_DWCONV_H), wd = word(l, NPUVP_DWCONV_W);
    const auto kh = word(l, NPUVP_DWCONV_KH), kw = word(l, NPUVP_DWCONV_KW);
    const auto sh = word(l, NPUVP_DWCONV_STRIDE_H), sw = word(l, NPUVP_DWCONV_STRIDE_W);
    const auto pt = word(l, NPUVP_DWCONV_PAD_TOP), pb = word(l, NPUVP_DWCONV_PAD_BOTTOM);
    const auto pl = word(l, NPUVP_DWCONV_PAD_LEFT), pr = word(l, NPUVP_DWCONV_PAD_RIGHT);
    const auto dh = word(l, NPUVP_DWCONV_DILATION_H), dw = word(l, NPUVP_DWCONV_DILATION_W);
    const auto act = word(l, NPUVP_DWCONV_ACT);
    const float lo = bits_float(l.args[NPUVP_DWCONV_CLIP_MIN]), hi = bits_float(l.args[NPUVP_DWCONV_CLIP_MAX]);
    const auto c1 = (c + 15) / 16;
    const auto ho = (h + pt + pb - (kh - 1) * dh - 1) / sh + 1, wo = (wd + pl + pr - (kw - 1) * dw - 1) / sw + 1;
    // a column strip of a wider map: its rows are the map's apart
    const auto in_pitch = word(l, NPUVP_DWCONV_IN_ROW_PITCH) ? word(l, NPUVP_DWCONV_IN_ROW_PITCH) : wd;
    const auto out_pitch = word(l, NPUVP_DWCONV_OUT_ROW_PITCH) ? word(l, NPUVP_DWCONV_OUT_ROW_PITCH) : wo;
    for (std::int64_t b = 0; b < n; ++b)
      for (std::int64_t ch = 0; ch < c1 * 16; ++ch)
        for (std::int64_t y = 0; y < ho; ++y)
          for (std::int64_t x = 0; x < wo; ++x) {
            const std::int64_t o = (((b * c1 + ch / 16) * ho + y) * out_pitch + x) * 16 + ch % 16;
            if (ch >= c) { store(out + 2 * o, 0); continue; }
            float acc = 0;
            for (std::int64_t i = 0; i < kh; ++i)
              for (std::int64_t j = 0; j < kw; ++j) {
                const auto iy = y * sh - pt + i * dh, ix = x * sw - pl + j * dw;
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                acc += load(in + 2 * ((((b * c1 + ch / 16) * h + iy) * in_pitch + ix) * 16 + ch % 16)) *
                       load(w + 2 * ((((ch / 16) * kh + i) * kw + j) * 16 + ch % 16));
              }
            if (bias) { float f; std::memcpy(&f, bias + 4 * ch, 4); acc += f; }
            if (res) acc += load(res + 2 * o);
            store(out + 2 * o, activate(acc, act, lo, hi));
          }
  }

  void matmul(const npuvp_package_launch& l) {
    auto* a = pointer(l, NPUVP_MATMUL_A); auto* b = pointer(l, NPUVP_MATMUL_B); auto* bias = pointer(l, NPUVP_MATMUL_BIAS);
    auto* res = pointer(l, NPUVP_MATMUL_RESIDUAL); auto* c = pointer(l, NPUVP_MATMUL_C);
    const auto batch = word(l, NPUVP_MATMUL_BATCH), m = word(l, NPUVP_MATMUL_M), k = word(l, NPUVP_MATMUL_K), n = word(l, NPUVP_MATMUL_N);
    const auto lda = word(l, NPUVP_MATMUL_LDA), ldb = word(l, NPUVP_MATMUL_LDB), ldc = word(l, NPUVP_MATMUL_LDC);
    const auto sa = word(l, NPUVP_MATMUL_A_BATCH_STRIDE), sb = word(l, NPUVP_MATMUL_B_BATCH_STRIDE), sc = word(l, NPUVP_MATMUL_C_BATCH_STRIDE);
    const bool ta = word(l, NPUVP_MATMUL_TRANS_A) != 0, tb = word(l, NPUVP_MATMUL_TRANS_B) != 0;
    const float alpha = l.args[NPUVP_MATMUL_ALPHA] ? bits_float(l.args[NPUVP_MATMUL_ALPHA]) : 1.f;
    const auto act = word(l, NPUVP_MATMUL_ACT);
    const float lo = bits_float(l.args[NPUVP_MATMUL_CLIP_MIN]), hi = bits_float(l.args[NPUVP_MATMUL_CLIP_MAX]);
    for (std::int64_t q = 0; q < batch; ++q)
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
          float acc = 0;
          for (std::int64_t p = 0; p < k; ++p) {
            const float av = load(a + 2 * (q * sa + (ta ? p * lda + i : i * lda + p)));
            const float bv = load(b + 2 * (q * sb + (tb ? j * ldb + p : p * ldb + j)));
            acc += av * bv;
          }
          acc *= alpha;
          if (bias) { float f; std::memcpy(&f, bias + 4 * j, 4); acc += f; }
          const std::int64_t o = q * sc + i * ldc + j;
          if (res) acc += load(res + 2 * o);
          store(c + 2 * o, activate(acc, act, lo, hi));
        }
  }

  void eltwise(const npuvp_package_launch& l) {
    auto* out = pointer(l, NPUVP_ELT_OUT); auto* a = pointer(l, NPUVP_ELT_A); auto* b = pointer(l, NPUVP_ELT_B);
    const auto op = word(l, NPUVP_ELT_OPCODE), rank = word(l, NPUVP_ELT_RANK);
    const float s0 = bits_float(l.args[NPUVP_ELT_SCALAR0]), s1 = bits_float(l.args[NPUVP_ELT_SCALAR1]);
    std::int64_t dims[4] = {1, 1, 1, 1}, as[4] = {0, 0, 0, 0}, bs[4] = {0, 0, 0, 0};
    for (std::int64_t d = 0; d < rank; ++d) {
      dims[4 - rank + d] = word(l, NPUVP_ELT_DIM0 + d);
      as[4 - rank + d] = word(l, NPUVP_ELT_A_STRIDE0 + d);
      bs[4 - rank + d] = word(l, NPUVP_ELT_B_STRIDE0 + d);
    }
    std::int64_t o = 0;
    for (std::int64_t i0 = 0; i0 < dims[0]; ++i0)
      for (std::int64_t i1 = 0; i1 < dims[1]; ++i1)
        for (std::int64_t i2 = 0; i2 < dims[2]; ++i2)
          for (std::int64_t i3 = 0; i3 < dims[3]; ++i3, ++o) {
            const float x = a ? load(a + 2 * (i0 * as[0] + i1 * as[1] + i2 * as[2] + i3 * as[3])) : 0.f;
            const float y = b ? load(b + 2 * (i0 * bs[0] + i1 * bs[1] + i2 * bs[2] + i3 * bs[3])) : 0.f;
            store(out + 2 * o, apply(op, x, y, s0, s1));
          }
  }

  static float apply(std::int64_t op, float x, float y, float s0, float s1) {
    switch (op) {
      case NPUVP_ELT_ADD: return x + y;
      case NPUVP_ELT_SUB: return x - y;
      case NPUVP_ELT_MUL: return x * y;
      case NPUVP_ELT_DIV: return x / y;
      case NPUVP_ELT_MAX: return std::max(x, y);
      case NPUVP_ELT_MIN: return std::min(x, y);
      case NPUVP_ELT_RELU: return std::max(x, 0.f);
      case NPUVP_ELT_CLIP: return std::min(std::max(x, s0), s1);
      case NPUVP_ELT_SIGMOID: return 1 / (1 + std::exp(-x));
      case NPUVP_ELT_TANH: return std::tanh(x);
      case NPUVP_ELT_ERF: return std::erf(x);
      case NPUVP_ELT_GELU: return x * 0.5f * (1 + std::erf(x / std::sqrt(2.f)));
      case NPUVP_ELT_EXP: return std::exp(x);
      case NPUVP_ELT_SQRT: return std::sqrt(x);
      case NPUVP_ELT_RECIPROCAL: return 1 / x;
      case NPUVP_ELT_NEG: return -x;
      case NPUVP_ELT_ADD_SCALAR: return x + s0;
      case NPUVP_ELT_MUL_SCALAR: return x * s0;
      case NPUVP_ELT_POW_SCALAR: return std::pow(x, s0);
      case NPUVP_ELT_FILL: return s0;
      default: throw std::runtime_error("unknown eltwise opcode " + std::to_string(op));
    }
  }

  void softmax(const npuvp_package_launch& l) {
    auto* in = pointer(l, NPUVP_SOFTMAX_IN); auto* out = pointer(l, NPUVP_SOFTMAX_OUT);
    const auto rows = word(l, NPUVP_SOFTMAX_ROWS), cols = word(l, NPUVP_SOFTMAX_COLS);
    std::vector<float> row(cols);
    for (std::int64_t r = 0; r < rows; ++r) {
      float top = -INFINITY, sum = 0;
      for (std::int64_t c = 0; c < cols; ++c) top = std::max(top, row[c] = load(in + 2 * (r * cols + c)));
      for (auto& v : row) sum += v = std::exp(v - top);
      for (std::int64_t c = 0; c < cols; ++c) store(out + 2 * (r * cols + c), row[c] / sum);
    }
  }

  void layernorm(const npuvp_package_launch& l) {
    auto* in = pointer(l, NPUVP_LAYERNORM_IN); auto* res = pointer(l, NPUVP_LAYERNORM_RESIDUAL);
    auto* gamma = pointer(l, NPUVP_LAYERNORM_GAMMA); auto* beta = pointer(l, NPUVP_LAYERNORM_BETA);
    auto* out = pointer(l, NPUVP_LAYERNORM_OUT);
    const auto rows = word(l, NPUVP_LAYERNORM_ROWS), cols = word(l, NPUVP_LAYERNORM_COLS);
    const float eps = bits_float(l.args[NPUVP_LAYERNORM_EPS]);
    std::vector<float> row(cols);
    for (std::int64_t r = 0; r < rows; ++r) {
      double mean = 0, var = 0;
      for (std::int64_t c = 0; c < cols; ++c) {
        row[c] = load(in + 2 * (r * cols + c)) + (res ? load(res + 2 * (r * cols + c)) : 0.f);
        mean += row[c];
      }
      mean /= double(cols);
      for (auto v : row) var += (v - mean) * (v - mean);
      var /= double(cols);
      for (std::int64_t c = 0; c < cols; ++c)
        store(out + 2 * (r * cols + c), float((row[c] - mean) / std::sqrt(var + eps)) * load(gamma + 2 * c) +
                                            (beta ? load(beta + 2 * c) : 0.f));
    }
  }

  void pool(const npuvp_package_launch& l) {
    auto* in = pointer(l, NPUVP_POOL_IN); auto* out = pointer(l, NPUVP_POOL_OUT);
    const auto mode = word(l, NPUVP_POOL_MODE), n = word(l, NPUVP_POOL_N), c1 = word(l, NPUVP_POOL_C1);
    const auto h = word(l, NPUVP_POOL_H), w = word(l, NPUVP_POOL_W), ho = word(l, NPUVP_POOL_HO), wo = word(l, NPUVP_POOL_WO);
    const auto kh = word(l, NPUVP_POOL_KH), kw = word(l, NPUVP_POOL_KW), sh = word(l, NPUVP_POOL_STRIDE_H), sw = word(l, NPUVP_POOL_STRIDE_W);
    const auto pt = word(l, NPUVP_POOL_PAD_TOP), pl = word(l, NPUVP_POOL_PAD_LEFT);
    const auto dh = word(l, NPUVP_POOL_DILATION_H), dw = word(l, NPUVP_POOL_DILATION_W);
    const auto in_pitch = word(l, NPUVP_POOL_IN_ROW_PITCH) ? word(l, NPUVP_POOL_IN_ROW_PITCH) : w;
    const auto out_pitch = word(l, NPUVP_POOL_OUT_ROW_PITCH) ? word(l, NPUVP_POOL_OUT_ROW_PITCH) : wo;
    for (std::int64_t b = 0; b < n * c1; ++b)
      for (std::int64_t y = 0; y < ho; ++y)
        for (std::int64_t x = 0; x < wo; ++x)
          for (std::int64_t c0 = 0; c0 < 16; ++c0) {
            float acc = mode == NPUVP_POOL_MAX ? -INFINITY : 0.f;
            std::int64_t count = 0;
            for (std::int64_t i = 0; i < kh; ++i)
              for (std::int64_t j = 0; j < kw; ++j) {
                const auto iy = y * sh - pt + i * dh, ix = x * sw - pl + j * dw;
                if (iy < 0 || iy >= h || ix < 0 || ix >= w) { if (mode == NPUVP_POOL_AVERAGE_INCLUDE_PAD) ++count; continue; }
                const float v = load(in + 2 * (((b * h + iy) * in_pitch + ix) * 16 + c0));
                acc = mode == NPUVP_POOL_MAX ? std::max(acc, v) : acc + v;
                ++count;
              }
            if (mode != NPUVP_POOL_MAX) acc /= float(count);
            store(out + 2 * (((b * ho + y) * out_pitch + x) * 16 + c0), acc);
          }
  }

  void copy(const npuvp_package_launch& l) {
    auto* out = pointer(l, NPUVP_COPY_OUT); auto* in = pointer(l, NPUVP_COPY_IN);
    const auto bytes = word(l, NPUVP_COPY_ELEMENT_BYTES);
    std::int64_t dims[6], is[6], os[6];
    for (int d = 0; d < 6; ++d) {
      dims[d] = word(l, NPUVP_COPY_DIM0 + d);
      is[d] = word(l, NPUVP_COPY_IN_STRIDE0 + d);
      os[d] = word(l, NPUVP_COPY_OUT_STRIDE0 + d);
    }
    std::int64_t i[6];
    for (i[0] = 0; i[0] < dims[0]; ++i[0]) for (i[1] = 0; i[1] < dims[1]; ++i[1]) for (i[2] = 0; i[2] < dims[2]; ++i[2])
    for (i[3] = 0; i[3] < dims[3]; ++i[3]) for (i[4] = 0; i[4] < dims[4]; ++i[4]) for (i[5] = 0; i[5] < dims[5]; ++i[5]) {
      std::int64_t src = 0, dst = 0;
      for (int d = 0; d < 6; ++d) { src += i[d] * is[d]; dst += i[d] * os[d]; }
      std::memcpy(out + bytes * dst, in + bytes * src, size_t(bytes));
    }
  }

  std::vector<std::uint8_t> package_;
  PackageView view_;
  std::vector<std::uint8_t> constants_, io_, arena_, l2_arena_, pinned_;
};

}  // namespace npuvp::compiler::test
