// CubeUnit: mmad on whole fractals.
//
// Semantics (docs/ai-core.md): the Cube computes whole fractals, so every
// element of the Mf*16 x Nf*16 C tile is produced from the padded K
// (Kf*16 f16 or Kf*32 s8 elements); lanes beyond M/K/N use whatever the
// buffers hold (kernels zero them). Per C element the products are added in
// increasing k, each addition rounded to nearest even in f32 (every f16
// product is exact in f32, so fused or separate multiply-add agree); s8
// accumulates in wrapping 32-bit arithmetic.
//
// Host speed matters (a large GEMM is thousands of mmads), so each
// instruction converts its A and B fractals once into scratch arrays and runs
// a register-blocked kernel: 2 rows x 16 columns of C (4 rows with AVX2,
// chosen at run time on x86-64) stay in registers over the whole K loop, with
// B stored as 16-column panels (Kp x 16, n contiguous). The per-element order
// of additions is exactly the sequential k order above, so vectorising across
// n changes nothing numerically. UnitResult.bytes is 0 (the Cube moves no
// bytes between buffers); macs counts only the useful M*K*N.
#include "npu/cube_unit.h"

#include "npu/numerics.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace npuvp {

using xdavinci::DataType;
using xdavinci::Op;

namespace {

// GCC/Clang generic vectors: SSE on x86-64, NEON on AArch64, scalar code
// elsewhere. Four lanes keep 8 accumulators + 4 B values + broadcasts within
// 16 registers.
typedef float F32x4 __attribute__((vector_size(16)));
typedef std::uint32_t U32x4 __attribute__((vector_size(16)));

template <typename V>
inline V load4(const void* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename V>
inline void store4(void* p, V v) {
  std::memcpy(p, &v, sizeof v);
}

// binary16 -> binary32 for every bit pattern, built once from the exact
// conversion in numerics (a table load beats a call per element).
const float* half_table() {
  static const std::vector<float> table = [] {
    std::vector<float> t(65536);
    for (unsigned h = 0; h < 65536; ++h) t[h] = numerics::half_to_float(static_cast<numerics::Half>(h));
    return t;
  }();
  return table.data();
}

// C (+)= A x B over whole fractals. `a` is Mp x Kp row-major, `b` holds Nf
// panels of Kp x 16, `c` is L0C in "big-N small-Z" order, which for each
// 16-column block nb is simply Mp rows of 16 contiguous elements starting at
// nb*Mp*16. `init_row` (16*Nf values) gives the initial accumulator of every
// row when initialising (bias or zeros), nullptr to accumulate onto C.
template <typename V, typename T>
void gemm_kernel(const T* a, const T* b, std::uint8_t* c, const T* init_row, std::size_t mp, std::size_t kp,
                 std::size_t nf) {
  constexpr std::size_t kRowBytes = 16 * sizeof(T);
  for (std::size_t nb = 0; nb < nf; ++nb) {
    const T* panel = b + nb * kp * 16;
    std::uint8_t* c_block = c + nb * mp * kRowBytes;
    for (std::size_t i = 0; i < mp; i += 2) {
      std::uint8_t* c0 = c_block + i * kRowBytes;
      std::uint8_t* c1 = c0 + kRowBytes;
      V acc00, acc01, acc02, acc03, acc10, acc11, acc12, acc13;
      if (init_row) {
        const T* r = init_row + nb * 16;
        acc00 = acc10 = load4<V>(r);
        acc01 = acc11 = load4<V>(r + 4);
        acc02 = acc12 = load4<V>(r + 8);
        acc03 = acc13 = load4<V>(r + 12);
      } else {
        acc00 = load4<V>(c0), acc01 = load4<V>(c0 + 16), acc02 = load4<V>(c0 + 32), acc03 = load4<V>(c0 + 48);
        acc10 = load4<V>(c1), acc11 = load4<V>(c1 + 16), acc12 = load4<V>(c1 + 32), acc13 = load4<V>(c1 + 48);
      }
      const T* a0 = a + i * kp;
      const T* a1 = a0 + kp;
      const T* bk = panel;
      for (std::size_t k = 0; k < kp; ++k, bk += 16) {
        const V b0 = load4<V>(bk), b1 = load4<V>(bk + 4), b2 = load4<V>(bk + 8), b3 = load4<V>(bk + 12);
        const T x0 = a0[k], x1 = a1[k];
        acc00 += x0 * b0, acc01 += x0 * b1, acc02 += x0 * b2, acc03 += x0 * b3;
        acc10 += x1 * b0, acc11 += x1 * b1, acc12 += x1 * b2, acc13 += x1 * b3;
      }
      store4(c0, acc00), store4(c0 + 16, acc01), store4(c0 + 32, acc02), store4(c0 + 48, acc03);
      store4(c1, acc10), store4(c1 + 16, acc11), store4(c1 + 32, acc12), store4(c1 + 48, acc13);
    }
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// The same kernel for hosts with AVX2 + FMA (selected at run time): 8-lane
// vectors, 4 rows x 16 columns of C in 8 registers. FMA cannot change the
// f16 results: each product is exact in f32, so a fused and a separate
// multiply-add round the same sum once.
typedef float F32x8 __attribute__((vector_size(32)));
typedef std::uint32_t U32x8 __attribute__((vector_size(32)));

#define NPUVP_WIDE_KERNEL(NAME, V, T)                                                                          \
  __attribute__((target("avx2,fma"))) void NAME(const T* a, const T* b, std::uint8_t* c, const T* init_row,   \
                                                std::size_t mp, std::size_t kp, std::size_t nf) {              \
    constexpr std::size_t kRowBytes = 16 * sizeof(T);                                                         \
    for (std::size_t nb = 0; nb < nf; ++nb) {                                                                 \
      const T* panel = b + nb * kp * 16;                                                                      \
      std::uint8_t* c_block = c + nb * mp * kRowBytes;                                                        \
      for (std::size_t i = 0; i < mp; i += 4) {                                                               \
        std::uint8_t* cr = c_block + i * kRowBytes;                                                           \
        V acc[4][2];                                                                                          \
        for (int r = 0; r < 4; ++r)                                                                           \
          for (int h = 0; h < 2; ++h)                                                                         \
            std::memcpy(&acc[r][h], init_row ? static_cast<const void*>(init_row + nb * 16 + h * 8)          \
                                             : static_cast<const void*>(cr + r * kRowBytes + h * 32),         \
                        32);                                                                                  \
        V a00 = acc[0][0], a01 = acc[0][1], a10 = acc[1][0], a11 = acc[1][1];                                 \
        V a20 = acc[2][0], a21 = acc[2][1], a30 = acc[3][0], a31 = acc[3][1];                                 \
        const T* a0 = a + i * kp;                                                                             \
        const T* bk = panel;                                                                                  \
        for (std::size_t k = 0; k < kp; ++k, bk += 16) {                                                      \
          V b0, b1;                                                                                           \
          std::memcpy(&b0, bk, 32);                                                                           \
          std::memcpy(&b1, bk + 8, 32);                                                                       \
          const T x0 = a0[k], x1 = a0[kp + k], x2 = a0[2 * kp + k], x3 = a0[3 * kp + k];                      \
          a00 += x0 * b0, a01 += x0 * b1, a10 += x1 * b0, a11 += x1 * b1;                                     \
          a20 += x2 * b0, a21 += x2 * b1, a30 += x3 * b0, a31 += x3 * b1;                                     \
        }                                                                                                     \
        acc[0][0] = a00, acc[0][1] = a01, acc[1][0] = a10, acc[1][1] = a11;                                   \
        acc[2][0] = a20, acc[2][1] = a21, acc[3][0] = a30, acc[3][1] = a31;                                   \
        for (int r = 0; r < 4; ++r)                                                                           \
          for (int h = 0; h < 2; ++h) std::memcpy(cr + r * kRowBytes + h * 32, &acc[r][h], 32);               \
      }                                                                                                       \
    }                                                                                                         \
  }

NPUVP_WIDE_KERNEL(gemm_kernel_avx2_f32, F32x8, float)
NPUVP_WIDE_KERNEL(gemm_kernel_avx2_u32, U32x8, std::uint32_t)
#undef NPUVP_WIDE_KERNEL

bool host_has_avx2_fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}
#endif

// Runs the fastest kernel the host supports (all give identical results).
void run_gemm(const float* a, const float* b, std::uint8_t* c, const float* init_row, std::size_t mp, std::size_t kp,
              std::size_t nf) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (host_has_avx2_fma()) return gemm_kernel_avx2_f32(a, b, c, init_row, mp, kp, nf);
#endif
  gemm_kernel<F32x4, float>(a, b, c, init_row, mp, kp, nf);
}
void run_gemm(const std::uint32_t* a, const std::uint32_t* b, std::uint8_t* c, const std::uint32_t* init_row,
              std::size_t mp, std::size_t kp, std::size_t nf) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (host_has_avx2_fma()) return gemm_kernel_avx2_u32(a, b, c, init_row, mp, kp, nf);
#endif
  gemm_kernel<U32x4, std::uint32_t>(a, b, c, init_row, mp, kp, nf);
}

[[noreturn]] void invalid(const std::string& message) {
  throw KernelFault(KernelFaultCause::kInvalidParameter, "mmad: " + message);
}

}  // namespace

UnitResult CubeUnit::execute(const NpuInstruction& instruction) {
  namespace f = xdavinci::mmad;
  if (instruction.op != Op::kMmad)
    throw KernelFault(KernelFaultCause::kInvalidParameter,
                      std::string("the Cube cannot execute ") + xdavinci::spec_of(instruction.op).mnemonic);
  const std::uint64_t xt = instruction.xt;
  const std::size_t m = f::m.get(xt), k = f::k.get(xt), n = f::n.get(xt);
  const unsigned type = static_cast<unsigned>(f::type.get(xt));
  const bool init = f::init.get(xt) != 0, use_bias = init && f::bias.get(xt) != 0;
  if (m == 0 || k == 0 || n == 0)
    invalid("M, K and N must be at least 1 (M=" + std::to_string(m) + " K=" + std::to_string(k) +
            " N=" + std::to_string(n) + ")");
  if (type != static_cast<unsigned>(DataType::kF16) && type != static_cast<unsigned>(DataType::kS8))
    invalid("type " + std::to_string(type) + " is not 0 (f16) or 3 (s8)");
  const bool s8 = type == static_cast<unsigned>(DataType::kS8);

  const std::size_t fk = s8 ? 32 : 16;  // K elements per fractal
  const std::size_t mf = (m + 15) / 16, kf = (k + fk - 1) / fk, nf = (n + 15) / 16;
  const std::size_t mp = mf * 16, kp = kf * fk, np = nf * 16;
  const std::uint8_t* a = buffers_.l0a.span(instruction.xn, mf * kf * xdavinci::kFractalBytes,
                                            xdavinci::kFractalBytes, "mmad A");
  const std::uint8_t* b = buffers_.l0b.span(instruction.xm, kf * nf * xdavinci::kFractalBytes,
                                            xdavinci::kFractalBytes, "mmad B");
  std::uint8_t* c = buffers_.l0c.span(instruction.xd, mf * nf * 1024, 1024, "mmad C");
  const std::uint8_t* bias = nullptr;
  if (use_bias)
    bias = buffers_.ub.span(f::bias_block.get(xt) * xdavinci::kBlockBytes, np * 4, xdavinci::kBlockBytes,
                            "mmad bias");

  if (!s8) {
    // A: fractal (mb, kb) at mb*Kf + kb, row-major inside. B: fractal (kb, nb)
    // at kb*Nf + nb, column-major inside; panel nb holds B[k][nb*16 + 0..15].
    const float* table = half_table();
    a_f32_.resize(mp * kp + np);  // A, then the initial row
    b_f32_.resize(kp * np);
    float* af = a_f32_.data();
    float* bf = b_f32_.data();
    for (std::size_t mb = 0; mb < mf; ++mb)
      for (std::size_t kb = 0; kb < kf; ++kb) {
        const std::uint8_t* frac = a + (mb * kf + kb) * 512;
        for (std::size_t r = 0; r < 16; ++r)
          for (std::size_t cc = 0; cc < 16; ++cc) {
            std::uint16_t h;
            std::memcpy(&h, frac + (r * 16 + cc) * 2, 2);
            af[(mb * 16 + r) * kp + kb * 16 + cc] = table[h];
          }
      }
    for (std::size_t kb = 0; kb < kf; ++kb)
      for (std::size_t nb = 0; nb < nf; ++nb) {
        const std::uint8_t* frac = b + (kb * nf + nb) * 512;
        float* panel = bf + nb * kp * 16;
        for (std::size_t nn = 0; nn < 16; ++nn)
          for (std::size_t kk = 0; kk < 16; ++kk) {
            std::uint16_t h;
            std::memcpy(&h, frac + (nn * 16 + kk) * 2, 2);
            panel[(kb * 16 + kk) * 16 + nn] = table[h];
          }
      }
    const float* init_row = nullptr;
    if (init) {
      float* row = af + mp * kp;
      if (bias)
        std::memcpy(row, bias, np * 4);
      else
        std::fill(row, row + np, 0.0f);
      init_row = row;
    }
    run_gemm(af, bf, c, init_row, mp, kp, nf);
  } else {
    // Same with 16 x 32 (A) and 32 x 16 (B) fractals of signed bytes; values
    // are sign-extended into uint32 so the wrapping sums are well defined.
    a_s32_.resize(mp * kp + np);
    b_s32_.resize(kp * np);
    std::uint32_t* ai = a_s32_.data();
    std::uint32_t* bi = b_s32_.data();
    for (std::size_t mb = 0; mb < mf; ++mb)
      for (std::size_t kb = 0; kb < kf; ++kb) {
        const std::uint8_t* frac = a + (mb * kf + kb) * 512;
        for (std::size_t r = 0; r < 16; ++r)
          for (std::size_t cc = 0; cc < 32; ++cc)
            ai[(mb * 16 + r) * kp + kb * 32 + cc] =
                static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int8_t>(frac[r * 32 + cc])));
      }
    for (std::size_t kb = 0; kb < kf; ++kb)
      for (std::size_t nb = 0; nb < nf; ++nb) {
        const std::uint8_t* frac = b + (kb * nf + nb) * 512;
        std::uint32_t* panel = bi + nb * kp * 16;
        for (std::size_t nn = 0; nn < 16; ++nn)
          for (std::size_t kk = 0; kk < 32; ++kk)
            panel[(kb * 32 + kk) * 16 + nn] =
                static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int8_t>(frac[nn * 32 + kk])));
      }
    const std::uint32_t* init_row = nullptr;
    if (init) {
      std::uint32_t* row = ai + mp * kp;
      if (bias)
        std::memcpy(row, bias, np * 4);
      else
        std::fill(row, row + np, 0u);
      init_row = row;
    }
    run_gemm(ai, bi, c, init_row, mp, kp, nf);
  }

  UnitResult result;
  result.macs = static_cast<std::uint64_t>(m) * k * n;
  result.cycles = timing_.startup_cycles + static_cast<std::uint64_t>(mf) * kf * nf * timing_.cycles_per_fractal;
  return result;
}

double CubeUnit::peak_macs_per_cycle(xdavinci::DataType type) const {
  const double cycles = static_cast<double>(std::max<std::uint64_t>(timing_.cycles_per_fractal, 1));
  switch (type) {
    case DataType::kF16: return 4096.0 / cycles;
    case DataType::kS8: return 8192.0 / cycles;
    default: return 0.0;
  }
}

}  // namespace npuvp
