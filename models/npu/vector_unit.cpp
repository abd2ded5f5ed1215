// VectorUnit: every Pipe::kV operation of the Xdavinci ISA.
//
// ---- Semantics (the reference for docs/isa-xdavinci.md) --------------------
//
// Operands. [Xd] = instruction.xd is the UB byte offset of the destination,
// [Xn] = xn of source 0, [Xm] = xm of source 1 -- or, for the scalar forms
// (vadds, vmuls, vmaxs, vmins) and vdup, the scalar's bits (f16: bits 15..0,
// f32/s32: bits 31..0), or for vconv the xdavinci::convert fields. Xt holds
// the xdavinci::vector fields: repeat, block and repeat strides (in 32-byte
// blocks), type (0 f16, 1 f32, 2 s32) and, for vcmp, compare.
//
// Repeats and lanes. A repeat covers 8 blocks of 32 bytes: 128 f16 or 64
// f32/s32 lanes; lane l lies in block l / (32 / element size). Block b of
// repeat r of an operand starts at
//     base + (r * repeat_stride + b * block_stride) * 32.
// Strides are used as given: 0 is a legal value (block stride 0 makes all
// blocks of a repeat the same 32 bytes, repeat stride 0 re-reads / rewrites
// the same place every repeat); there is no "0 means 1" substitution.
// Repeats are processed in order; within a repeat all sources (and vsel's
// lane bits) are read before anything is written, so in-place operation
// (dst == src) works. When destination lanes of one repeat alias (dst block
// stride 0), the later lane (higher lane number) wins.
//
// Mask. vector_mask[0] enables lanes 0-63, vector_mask[1] lanes 64-127 (bit i
// = lane i); for 64-lane types only vector_mask[0] applies. Only active
// destination lanes are written; the others keep their contents. The mask
// applies to all element-wise operations, vcmp, vsel, vconv, vdup and the
// reductions (which lanes are reduced); not to copy_matrix_cc_to_ubuf.
//
// Checks, in this order, before anything is written (a faulting instruction
// writes nothing): an op that is not a V-pipe op, type 3 (not for vconv),
// repeat 0, an op-specific parameter (vcmp compare > 5; vconv kind > 7 or
// round > 4; s32 with vexp, vln, vsqrt, vrsqrt or vrec) -> kInvalidParameter.
// Then every operand's byte range (the hull from its first to its last
// touched byte), with LocalBuffer::span: base offsets must be 32-byte aligned
// (kMisaligned), ranges must lie in UB (kBufferRange). Operands are checked
// in the order dst, src0, src1, vsel's lane bits; operands an op does not
// use (src1 of unary and scalar forms, src0 of vdup) are not checked.
//
// Arithmetic.
//  - f16: lanes are converted to float (exactly), the operation is done in
//    float and the result rounded once to f16 with round-to-nearest-even.
//    For add, sub, mul, div, sqrt and rec (1/x) this is the correctly rounded
//    f16 result (float has more than 2*11+2 significand bits). exp and ln use
//    the host's std::exp / std::log on float before that rounding (bit-exact
//    against any reference using the same functions); rsqrt is
//    1.0f / std::sqrt(x) in float, then rounded.
//  - f32: host IEEE float arithmetic (std::exp, std::log, std::sqrt,
//    1.0f / std::sqrt(x), 1.0f / x); NaN payloads are whatever the host gives.
//  - s32: add, sub, mul wrap (two's complement); div truncates toward zero,
//    x / 0 = 0 and INT_MIN / -1 = INT_MIN; abs wraps (abs(INT_MIN) =
//    INT_MIN); relu = max(x, 0). exp, ln, sqrt, rsqrt and rec are invalid
//    for s32 (kInvalidParameter).
//  - max / min (vmax, vmin, vmaxs, vmins, vcmax, vcmin) are IEEE 754-2019
//    maximum / minimum: a NaN operand gives a NaN (src0's if both, quietened),
//    and -0 < +0. The f16 result is one of the inputs' bits, not rounded.
//  - relu(x) = maximum(x, +0): negative values and -0 become +0, NaN stays
//    NaN (quietened).
//  - abs clears the sign bit (f16/f32, NaN included); not, and, or are
//    bitwise on the lane bits, for any type.
//
// vcmp: compares src0 with src1 lane-wise (compare 0 eq, 1 ne, 2 lt, 3 le,
// 4 gt, 5 ge; IEEE for floats: every comparison with a NaN is false except
// ne) and writes a bit mask to UB at [Xd]: repeat r's lane bits, LSB first
// (lane l -> byte l / 8, bit l % 8), occupy lanes/8 bytes (16 for f16, 8 for
// f32/s32) at Xd + r * lanes/8. Inactive lanes give 0 bits; the mask bytes
// are written whole. The dst strides are ignored; [Xd] must be 32-byte
// aligned.
//
// vsel: dst lane = (bit set) ? src0 lane : src1 lane, with the bits read
// from UB at instruction.cmpmask (set_cmpmask), packed as vcmp writes them:
// repeat r uses the lanes/8 bytes at cmpmask + r * lanes/8. cmpmask must be
// 32-byte aligned (so a vcmp destination can be used directly). vsel copies
// bits, so it does not quieten NaNs.
//
// vconv: Xm = convert kind + round (xdavinci::convert); the Xt type field is
// ignored. Kinds: 0 f32->f16, 1 f16->f32, 2 f16->s8, 3 s8->f16, 4 f16->s32,
// 5 s32->f16, 6 f32->s32, 7 s32->f32. Lanes per repeat = 256 / max(source
// size, destination size): 128 for kinds 2 and 3 (mask from both words), 64
// otherwise. Each side uses lanes * size bytes per repeat (4 or 8 blocks),
// with its own block and repeat strides (dst_* and src0_* fields). Rounding
// per numerics.h (round field 0 nearest-even, 1 toward zero, 2 down, 3 up,
// 4 nearest-away; 5-7 invalid even for exact kinds). Integer results
// saturate, NaN -> 0; f16 overflow gives inf or the largest finite value per
// the rounding mode. Kinds 1 and 3 are exact.
//
// vdup: every active dst lane = the scalar in Xm.
//
// vcadd / vcmax / vcmin: for repeat r, reduce the active lanes of src0 and
// write one element at Xd + r * element size (contiguous; dst strides are
// ignored; [Xd] 32-byte aligned). Sums add in lane order: f16 lanes are
// accumulated in float and rounded to f16 (nearest-even) once at the end,
// f32 in float, s32 wrapping. max / min use maximum / minimum above. With no
// active lane the result is +0 (sum), -inf / INT_MIN (max), +inf / INT_MAX
// (min).
//
// copy_matrix_cc_to_ubuf: [Xn] = L0C byte offset, [Xd] = UB byte offset, both
// 32-byte aligned; Xt = xdavinci::cc_to_ub. n_burst bursts of burst_len
// fractals; an L0C fractal is 16x16 32-bit values (1024 bytes), a UB
// fractal 512 bytes for modes producing f16 (1, 3), else 1024. After each
// burst the source skips src_gap and the destination dst_gap fractals.
// Values are converted one for one in place order: mode 0 f32->f32, 1
// f32->f16 (nearest-even), 2 s32->s32, 3 s32->f16 (nearest-even). relu
// applies max(x, 0) before the conversion (float: relu above; s32: max).
// n_burst 0 or burst_len 0 -> kInvalidParameter. Not masked.
//
// Timing (UnitResult): vector ops take startup_cycles + repeat *
// cycles_per_repeat, or complex_cycles_per_repeat for vdiv, vexp, vln,
// vsqrt, vrsqrt and vrec. bytes = destination bytes per repeat (256 for
// element-wise ops and vdup, lanes * destination size for vconv, lanes/8
// for vcmp, the element size for reductions) * repeat. cc->ub takes
// startup_cycles + ceil(bytes read from L0C / cc_to_ub_bytes_per_cycle);
// bytes = bytes written to UB. macs is 0.
#include "npu/vector_unit.h"

#include "npu/numerics.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

namespace npuvp {
namespace {

using xdavinci::Op;
using numerics::Half;
using numerics::Rounding;
namespace xv = xdavinci::vector;

constexpr unsigned kBlock = xdavinci::kBlockBytes;                 // 32
constexpr unsigned kRepeatBytes = kBlock * xdavinci::kVectorBlocksPerRepeat;  // 256

[[noreturn]] void invalid(const char* op, const std::string& message) {
  throw KernelFault(KernelFaultCause::kInvalidParameter, std::string(op) + ": " + message);
}

const char* op_name(Op op) {
  switch (op) {
    case Op::kCopyMatrixCcToUbuf: return "copy_matrix_cc_to_ubuf";
    case Op::kVadd: return "vadd";
    case Op::kVsub: return "vsub";
    case Op::kVmul: return "vmul";
    case Op::kVdiv: return "vdiv";
    case Op::kVmax: return "vmax";
    case Op::kVmin: return "vmin";
    case Op::kVand: return "vand";
    case Op::kVor: return "vor";
    case Op::kVabs: return "vabs";
    case Op::kVexp: return "vexp";
    case Op::kVln: return "vln";
    case Op::kVsqrt: return "vsqrt";
    case Op::kVrsqrt: return "vrsqrt";
    case Op::kVrec: return "vrec";
    case Op::kVrelu: return "vrelu";
    case Op::kVnot: return "vnot";
    case Op::kVadds: return "vadds";
    case Op::kVmuls: return "vmuls";
    case Op::kVmaxs: return "vmaxs";
    case Op::kVmins: return "vmins";
    case Op::kVcmp: return "vcmp";
    case Op::kVsel: return "vsel";
    case Op::kVconv: return "vconv";
    case Op::kVdup: return "vdup";
    case Op::kVcadd: return "vcadd";
    case Op::kVcmax: return "vcmax";
    case Op::kVcmin: return "vcmin";
    default: return nullptr;  // not a V-pipe operation
  }
}

// ---- Lane values ------------------------------------------------------------

inline std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}
inline float float_of(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

// The hot conversions, inlined for normal values (the common case); the rest
// goes to numerics. Results are identical to numerics::half_to_float and
// numerics::float_to_half(f, kNearestEven).
inline float h2f(Half h) {
  const std::uint32_t magnitude = h & 0x7fffu;
  if (magnitude >= 0x0400u && magnitude < 0x7c00u)
    return float_of((static_cast<std::uint32_t>(h & 0x8000u) << 16) | ((magnitude << 13) + 0x38000000u));
  return numerics::half_to_float(h);
}
inline Half f2h(float f) {
  const std::uint32_t x = bits_of(f);
  const std::uint32_t magnitude = x & 0x7fffffffu;
  if (magnitude >= 0x38800000u && magnitude < 0x477ff000u)  // normal binary16 result
    return static_cast<Half>(((x >> 16) & 0x8000u) | ((magnitude - 0x38000000u + 0xfffu + ((magnitude >> 13) & 1)) >> 13));
  return numerics::float_to_half(f, Rounding::kNearestEven);
}

inline bool is_nan16(Half h) { return (h & 0x7fff) > 0x7c00; }
inline Half quiet16(Half h) { return static_cast<Half>(h | 0x0200); }
inline float quiet32(float f) { return float_of(bits_of(f) | 0x00400000); }

// IEEE 754-2019 maximum / minimum (NaN propagates, -0 < +0).
inline float maximum32(float a, float b) {
  if (a != a) return quiet32(a);
  if (b != b) return quiet32(b);
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
inline float minimum32(float a, float b) {
  if (a != a) return quiet32(a);
  if (b != b) return quiet32(b);
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
inline Half maximum16(Half a, Half b) {
  if (is_nan16(a)) return quiet16(a);
  if (is_nan16(b)) return quiet16(b);
  const float fa = h2f(a), fb = h2f(b);
  if (fa == fb) return (a & 0x8000) ? b : a;
  return fa > fb ? a : b;
}
inline Half minimum16(Half a, Half b) {
  if (is_nan16(a)) return quiet16(a);
  if (is_nan16(b)) return quiet16(b);
  const float fa = h2f(a), fb = h2f(b);
  if (fa == fb) return (a & 0x8000) ? a : b;
  return fa < fb ? a : b;
}
inline Half relu16(Half h) {
  if (is_nan16(h)) return quiet16(h);
  return (h & 0x8000) ? Half{0} : h;
}
inline float relu32(float f) {
  if (f != f) return quiet32(f);
  return std::signbit(f) ? 0.0f : f;
}

inline std::int32_t wrap(std::uint32_t v) { return static_cast<std::int32_t>(v); }
inline std::int32_t add_s32(std::int32_t a, std::int32_t b) {
  return wrap(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}
inline std::int32_t sub_s32(std::int32_t a, std::int32_t b) {
  return wrap(static_cast<std::uint32_t>(a) - static_cast<std::uint32_t>(b));
}
inline std::int32_t mul_s32(std::int32_t a, std::int32_t b) {
  return wrap(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b));
}
inline std::int32_t div_s32(std::int32_t a, std::int32_t b) {
  if (b == 0) return 0;
  if (b == -1) return wrap(0u - static_cast<std::uint32_t>(a));  // INT_MIN / -1 = INT_MIN
  return a / b;
}
inline std::int32_t abs_s32(std::int32_t a) { return a < 0 ? wrap(0u - static_cast<std::uint32_t>(a)) : a; }

// ---- Operand geometry -------------------------------------------------------

// Lane-enable bits: word 0 = lanes 0-63, word 1 = lanes 64-127.
struct Mask {
  std::uint64_t word[2];
  bool active(unsigned lane) const { return (word[lane >> 6] >> (lane & 63)) & 1; }
  // Bits of lanes [first, first + count); count is 8, 16 or 32 and the range
  // does not straddle a word.
  std::uint64_t bits(unsigned first, unsigned count) const {
    return (word[first >> 6] >> (first & 63)) & ((std::uint64_t{1} << count) - 1);
  }
};

// One strided UB operand, range-checked when opened.
struct Stream {
  std::uint8_t* base = nullptr;
  std::uint64_t block_step = 0, repeat_step = 0;  // bytes
  std::uint8_t* block(std::uint64_t repeat, unsigned block) const {
    return base + repeat * repeat_step + block * block_step;
  }
};

std::uint8_t* checked_span(LocalBuffer& buffer, std::uint64_t offset, std::uint64_t length, const char* op,
                           const char* role) {
  char what[64];
  std::snprintf(what, sizeof what, "%s %s", op, role);
  return buffer.span(offset, length, kBlock, what);
}

Stream open_stream(LocalBuffer& ub, std::uint64_t offset, unsigned blocks, std::uint64_t repeats,
                   std::uint64_t block_stride, std::uint64_t repeat_stride, const char* op, const char* role) {
  const std::uint64_t extent = ((repeats - 1) * repeat_stride + (blocks - 1) * block_stride) * kBlock + kBlock;
  Stream stream;
  stream.base = checked_span(ub, offset, extent, op, role);
  stream.block_step = block_stride * kBlock;
  stream.repeat_step = repeat_stride * kBlock;
  return stream;
}

// Reads the `lanes` elements of one repeat (lanes * sizeof(T) / 32 blocks).
template <class T>
void gather(const Stream& stream, std::uint64_t repeat, unsigned lanes, T* out) {
  auto* bytes = reinterpret_cast<std::uint8_t*>(out);
  const unsigned blocks = lanes * sizeof(T) / kBlock;
  for (unsigned b = 0; b < blocks; ++b) std::memcpy(bytes + b * kBlock, stream.block(repeat, b), kBlock);
}

// Writes the active lanes of one repeat, block by block in lane order.
template <class T>
void scatter(const Stream& stream, std::uint64_t repeat, unsigned lanes, const T* in, const Mask& mask) {
  constexpr unsigned per_block = kBlock / sizeof(T);
  constexpr std::uint64_t full = (std::uint64_t{1} << per_block) - 1;
  const unsigned blocks = lanes / per_block;
  for (unsigned b = 0; b < blocks; ++b) {
    const std::uint64_t bits = mask.bits(b * per_block, per_block);
    if (bits == 0) continue;
    std::uint8_t* dst = stream.block(repeat, b);
    const T* src = in + b * per_block;
    if (bits == full) {
      std::memcpy(dst, src, kBlock);
    } else {
      for (unsigned i = 0; i < per_block; ++i)
        if ((bits >> i) & 1) std::memcpy(dst + i * sizeof(T), src + i, sizeof(T));
    }
  }
}

// What an element-wise instruction operates on.
struct Lanes {
  std::uint64_t repeats;
  unsigned lanes;
  Mask mask;
  Stream dst, src0, src1;
  bool has_src0, has_src1;
};

// Runs fn(src0, src1, dst, lanes) once per repeat on whole-repeat arrays;
// fn computes every lane, only the active ones are stored.
template <class D, class S0, class S1, class Fn>
void elementwise(const Lanes& op, Fn fn) {
  std::array<S0, 128> a{};
  std::array<S1, 128> b{};
  std::array<D, 128> d{};
  for (std::uint64_t r = 0; r < op.repeats; ++r) {
    if (op.has_src0) gather(op.src0, r, op.lanes, a.data());
    if (op.has_src1) gather(op.src1, r, op.lanes, b.data());
    fn(a.data(), b.data(), d.data(), op.lanes);
    scatter(op.dst, r, op.lanes, d.data(), op.mask);
  }
}

template <class T, class F>
void binary(const Lanes& op, F f) {
  elementwise<T, T, T>(op, [f](const T* a, const T* b, T* d, unsigned n) {
    for (unsigned i = 0; i < n; ++i) d[i] = f(a[i], b[i]);
  });
}
template <class T, class F>
void unary(const Lanes& op, F f) {
  elementwise<T, T, T>(op, [f](const T* a, const T*, T* d, unsigned n) {
    for (unsigned i = 0; i < n; ++i) d[i] = f(a[i]);
  });
}
template <class D, class S, class F>
void convert(const Lanes& op, F f) {
  elementwise<D, S, S>(op, [f](const S* a, const S*, D* d, unsigned n) {
    for (unsigned i = 0; i < n; ++i) d[i] = f(a[i]);
  });
}

enum class Type : unsigned { kF16 = 0, kF32 = 1, kS32 = 2 };

// Element-wise binary operations (vadd..vor and the scalar forms, which pass
// the scalar as a broadcast second operand).
void run_binary(Op op, Type type, const Lanes& lanes, std::uint64_t scalar, bool scalar_form) {
  const Op base = !scalar_form ? op
                  : op == Op::kVadds ? Op::kVadd
                  : op == Op::kVmuls ? Op::kVmul
                  : op == Op::kVmaxs ? Op::kVmax
                                     : Op::kVmin;
  if (op == Op::kVand || op == Op::kVor) {
    const bool is_and = op == Op::kVand;
    if (type == Type::kF16)
      binary<std::uint16_t>(lanes, [is_and](std::uint16_t a, std::uint16_t b) {
        return static_cast<std::uint16_t>(is_and ? (a & b) : (a | b));
      });
    else
      binary<std::uint32_t>(lanes, [is_and](std::uint32_t a, std::uint32_t b) { return is_and ? (a & b) : (a | b); });
    return;
  }
  switch (type) {
    case Type::kF16: {
      auto arith = [&](auto f) {
        if (scalar_form) {
          const float s = h2f(static_cast<Half>(scalar));
          unary<Half>(lanes, [f, s](Half a) { return f2h(f(h2f(a), s)); });
        } else {
          binary<Half>(lanes, [f](Half a, Half b) { return f2h(f(h2f(a), h2f(b))); });
        }
      };
      auto select = [&](auto f) {
        if (scalar_form) {
          const Half s = static_cast<Half>(scalar);
          unary<Half>(lanes, [f, s](Half a) { return f(a, s); });
        } else {
          binary<Half>(lanes, f);
        }
      };
      switch (base) {
        case Op::kVadd: arith([](float a, float b) { return a + b; }); break;
        case Op::kVsub: arith([](float a, float b) { return a - b; }); break;
        case Op::kVmul: arith([](float a, float b) { return a * b; }); break;
        case Op::kVdiv: arith([](float a, float b) { return a / b; }); break;
        case Op::kVmax: select(maximum16); break;
        case Op::kVmin: select(minimum16); break;
        default: break;
      }
      return;
    }
    case Type::kF32: {
      auto run = [&](auto f) {
        if (scalar_form) {
          const float s = float_of(static_cast<std::uint32_t>(scalar));
          unary<float>(lanes, [f, s](float a) { return f(a, s); });
        } else {
          binary<float>(lanes, f);
        }
      };
      switch (base) {
        case Op::kVadd: run([](float a, float b) { return a + b; }); break;
        case Op::kVsub: run([](float a, float b) { return a - b; }); break;
        case Op::kVmul: run([](float a, float b) { return a * b; }); break;
        case Op::kVdiv: run([](float a, float b) { return a / b; }); break;
        case Op::kVmax: run(maximum32); break;
        case Op::kVmin: run(minimum32); break;
        default: break;
      }
      return;
    }
    case Type::kS32: {
      auto run = [&](auto f) {
        if (scalar_form) {
          const auto s = static_cast<std::int32_t>(static_cast<std::uint32_t>(scalar));
          unary<std::int32_t>(lanes, [f, s](std::int32_t a) { return f(a, s); });
        } else {
          binary<std::int32_t>(lanes, f);
        }
      };
      switch (base) {
        case Op::kVadd: run(add_s32); break;
        case Op::kVsub: run(sub_s32); break;
        case Op::kVmul: run(mul_s32); break;
        case Op::kVdiv: run(div_s32); break;
        case Op::kVmax: run([](std::int32_t a, std::int32_t b) { return a > b ? a : b; }); break;
        case Op::kVmin: run([](std::int32_t a, std::int32_t b) { return a < b ? a : b; }); break;
        default: break;
      }
      return;
    }
  }
}

void run_unary(Op op, Type type, const Lanes& lanes) {
  if (op == Op::kVnot) {
    if (type == Type::kF16)
      unary<std::uint16_t>(lanes, [](std::uint16_t a) { return static_cast<std::uint16_t>(~a); });
    else
      unary<std::uint32_t>(lanes, [](std::uint32_t a) { return ~a; });
    return;
  }
  switch (type) {
    case Type::kF16: {
      auto arith = [&](auto f) { unary<Half>(lanes, [f](Half a) { return f2h(f(h2f(a))); }); };
      switch (op) {
        case Op::kVabs: unary<Half>(lanes, [](Half a) { return static_cast<Half>(a & 0x7fff); }); break;
        case Op::kVrelu: unary<Half>(lanes, relu16); break;
        case Op::kVexp: arith([](float a) { return std::exp(a); }); break;
        case Op::kVln: arith([](float a) { return std::log(a); }); break;
        case Op::kVsqrt: arith([](float a) { return std::sqrt(a); }); break;
        case Op::kVrsqrt: arith([](float a) { return 1.0f / std::sqrt(a); }); break;
        case Op::kVrec: arith([](float a) { return 1.0f / a; }); break;
        default: break;
      }
      return;
    }
    case Type::kF32:
      switch (op) {
        case Op::kVabs: unary<float>(lanes, [](float a) { return float_of(bits_of(a) & 0x7fffffff); }); break;
        case Op::kVrelu: unary<float>(lanes, relu32); break;
        case Op::kVexp: unary<float>(lanes, [](float a) { return std::exp(a); }); break;
        case Op::kVln: unary<float>(lanes, [](float a) { return std::log(a); }); break;
        case Op::kVsqrt: unary<float>(lanes, [](float a) { return std::sqrt(a); }); break;
        case Op::kVrsqrt: unary<float>(lanes, [](float a) { return 1.0f / std::sqrt(a); }); break;
        case Op::kVrec: unary<float>(lanes, [](float a) { return 1.0f / a; }); break;
        default: break;
      }
      return;
    case Type::kS32:
      switch (op) {
        case Op::kVabs: unary<std::int32_t>(lanes, abs_s32); break;
        case Op::kVrelu: unary<std::int32_t>(lanes, [](std::int32_t a) { return a > 0 ? a : 0; }); break;
        default: break;  // rejected before
      }
      return;
  }
}

template <class T>
bool compare(unsigned how, T a, T b) {
  switch (how) {
    case 0: return a == b;
    case 1: return a != b;
    case 2: return a < b;
    case 3: return a <= b;
    case 4: return a > b;
    default: return a >= b;
  }
}

// vcmp: lane bits of repeat r at bits + r * lanes/8.
template <class T, class Load>
void run_compare(const Lanes& op, unsigned how, std::uint8_t* bits, Load load) {
  std::array<T, 128> a{}, b{};
  const unsigned bytes = op.lanes / 8;
  for (std::uint64_t r = 0; r < op.repeats; ++r) {
    gather(op.src0, r, op.lanes, a.data());
    gather(op.src1, r, op.lanes, b.data());
    std::array<std::uint8_t, 16> out{};
    for (unsigned l = 0; l < op.lanes; ++l)
      if (op.mask.active(l) && compare(how, load(a[l]), load(b[l])))
        out[l >> 3] = static_cast<std::uint8_t>(out[l >> 3] | (1u << (l & 7)));
    std::memcpy(bits + r * bytes, out.data(), bytes);
  }
}

// vsel: lane bits of repeat r at bits + r * lanes/8.
template <class T>
void run_select(const Lanes& op, const std::uint8_t* bits) {
  std::array<T, 128> a{}, b{}, d{};
  const unsigned bytes = op.lanes / 8;
  for (std::uint64_t r = 0; r < op.repeats; ++r) {
    std::array<std::uint8_t, 16> select{};
    std::memcpy(select.data(), bits + r * bytes, bytes);
    gather(op.src0, r, op.lanes, a.data());
    gather(op.src1, r, op.lanes, b.data());
    for (unsigned l = 0; l < op.lanes; ++l) d[l] = ((select[l >> 3] >> (l & 7)) & 1) ? a[l] : b[l];
    scatter(op.dst, r, op.lanes, d.data(), op.mask);
  }
}

// vcadd / vcmax / vcmin: one T per repeat at out + r * sizeof(T).
template <class T, class Acc, class Load, class Fold, class Store>
void run_reduce(const Lanes& op, std::uint8_t* out, Acc empty, Load load, Fold fold, Store store) {
  std::array<T, 128> a{};
  for (std::uint64_t r = 0; r < op.repeats; ++r) {
    gather(op.src0, r, op.lanes, a.data());
    Acc acc = empty;
    bool first = true;
    for (unsigned l = 0; l < op.lanes; ++l) {
      if (!op.mask.active(l)) continue;
      acc = first ? load(a[l]) : fold(acc, load(a[l]));
      first = false;
    }
    const T result = store(acc);
    std::memcpy(out + r * sizeof(T), &result, sizeof(T));
  }
}

void run_reduction(Op op, Type type, const Lanes& lanes, std::uint8_t* out) {
  switch (type) {
    case Type::kF16: {
      const auto keep = [](Half h) { return h; };
      if (op == Op::kVcadd)
        run_reduce<Half>(lanes, out, 0.0f, h2f, [](float a, float b) { return a + b; }, f2h);
      else if (op == Op::kVcmax)
        run_reduce<Half>(lanes, out, Half{0xfc00}, keep, maximum16, keep);
      else
        run_reduce<Half>(lanes, out, Half{0x7c00}, keep, minimum16, keep);
      return;
    }
    case Type::kF32: {
      const auto keep = [](float f) { return f; };
      const float inf = std::numeric_limits<float>::infinity();
      if (op == Op::kVcadd)
        run_reduce<float>(lanes, out, 0.0f, keep, [](float a, float b) { return a + b; }, keep);
      else if (op == Op::kVcmax)
        run_reduce<float>(lanes, out, -inf, keep, maximum32, keep);
      else
        run_reduce<float>(lanes, out, inf, keep, minimum32, keep);
      return;
    }
    case Type::kS32: {
      const auto keep = [](std::int32_t v) { return v; };
      if (op == Op::kVcadd)
        run_reduce<std::int32_t>(lanes, out, std::int32_t{0}, keep, add_s32, keep);
      else if (op == Op::kVcmax)
        run_reduce<std::int32_t>(lanes, out, std::numeric_limits<std::int32_t>::min(), keep,
                                 [](std::int32_t a, std::int32_t b) { return a > b ? a : b; }, keep);
      else
        run_reduce<std::int32_t>(lanes, out, std::numeric_limits<std::int32_t>::max(), keep,
                                 [](std::int32_t a, std::int32_t b) { return a < b ? a : b; }, keep);
      return;
    }
  }
}

// vconv kinds: source and destination element sizes.
struct ConvertKind {
  unsigned src_size, dst_size;
};
constexpr ConvertKind kConvertKinds[8] = {{4, 2}, {2, 4}, {2, 1}, {1, 2}, {2, 4}, {4, 2}, {4, 4}, {4, 4}};

void run_convert(unsigned kind, Rounding rounding, const Lanes& lanes) {
  switch (kind) {
    case 0: convert<Half, float>(lanes, [rounding](float v) { return numerics::float_to_half(v, rounding); }); break;
    case 1: convert<float, Half>(lanes, h2f); break;
    case 2:
      convert<std::int8_t, Half>(lanes, [rounding](Half v) { return numerics::float_to_int8(h2f(v), rounding); });
      break;
    case 3:
      convert<Half, std::int8_t>(lanes, [](std::int8_t v) { return numerics::int32_to_half(v, Rounding::kNearestEven); });
      break;
    case 4:
      convert<std::int32_t, Half>(lanes, [rounding](Half v) { return numerics::float_to_int32(h2f(v), rounding); });
      break;
    case 5:
      convert<Half, std::int32_t>(lanes, [rounding](std::int32_t v) { return numerics::int32_to_half(v, rounding); });
      break;
    case 6:
      convert<std::int32_t, float>(lanes, [rounding](float v) { return numerics::float_to_int32(v, rounding); });
      break;
    default:
      convert<float, std::int32_t>(lanes, [rounding](std::int32_t v) { return numerics::int32_to_float(v, rounding); });
      break;
  }
}

bool is_complex(Op op) {
  return op == Op::kVdiv || op == Op::kVexp || op == Op::kVln || op == Op::kVsqrt || op == Op::kVrsqrt ||
         op == Op::kVrec;
}

UnitResult copy_cc_to_ub(LocalBuffers& buffers, const VectorTiming& timing, const NpuInstruction& in) {
  namespace cc = xdavinci::cc_to_ub;
  const char* name = "copy_matrix_cc_to_ubuf";
  const std::uint64_t n_burst = cc::n_burst.get(in.xt), burst_len = cc::burst_len.get(in.xt);
  const std::uint64_t src_gap = cc::src_gap.get(in.xt), dst_gap = cc::dst_gap.get(in.xt);
  const unsigned mode = static_cast<unsigned>(cc::mode.get(in.xt));
  const bool relu = cc::relu.get(in.xt) != 0;
  if (n_burst == 0) invalid(name, "n_burst is 0");
  if (burst_len == 0) invalid(name, "burst_len is 0");
  constexpr std::uint64_t kSrcFractal = 1024;
  const bool to_half = mode == 1 || mode == 3;
  const std::uint64_t dst_fractal = to_half ? 512 : 1024;
  const std::uint64_t fractals = n_burst * burst_len;
  std::uint8_t* dst = checked_span(buffers.ub, in.xd, ((n_burst - 1) * (burst_len + dst_gap) + burst_len) * dst_fractal,
                                   name, "dst");
  const std::uint8_t* src = checked_span(
      buffers.l0c, in.xn, ((n_burst - 1) * (burst_len + src_gap) + burst_len) * kSrcFractal, name, "src");

  std::array<std::uint32_t, 256> values;
  std::array<std::uint16_t, 256> halves;
  for (std::uint64_t burst = 0; burst < n_burst; ++burst) {
    for (std::uint64_t f = 0; f < burst_len; ++f) {
      const std::uint8_t* from = src + (burst * (burst_len + src_gap) + f) * kSrcFractal;
      std::uint8_t* to = dst + (burst * (burst_len + dst_gap) + f) * dst_fractal;
      std::memcpy(values.data(), from, kSrcFractal);
      const bool is_float = mode < 2;
      if (relu) {
        for (auto& v : values) {
          if (is_float)
            v = bits_of(relu32(float_of(v)));
          else if (static_cast<std::int32_t>(v) < 0)
            v = 0;
        }
      }
      if (!to_half) {
        std::memcpy(to, values.data(), kSrcFractal);
      } else {
        for (unsigned i = 0; i < 256; ++i)
          halves[i] = is_float ? f2h(float_of(values[i]))
                               : numerics::int32_to_half(static_cast<std::int32_t>(values[i]), Rounding::kNearestEven);
        std::memcpy(to, halves.data(), 512);
      }
    }
  }
  UnitResult result;
  const std::uint64_t bytes_read = fractals * kSrcFractal;
  const std::uint64_t rate = timing.cc_to_ub_bytes_per_cycle ? timing.cc_to_ub_bytes_per_cycle : 1;
  result.cycles = timing.startup_cycles + (bytes_read + rate - 1) / rate;
  result.bytes = fractals * dst_fractal;
  return result;
}

}  // namespace

UnitResult VectorUnit::execute(const NpuInstruction& in) {
  const Op op = in.op;
  const char* name = op_name(op);
  if (name == nullptr)
    throw KernelFault(KernelFaultCause::kInvalidParameter,
                      "operation " + std::to_string(static_cast<unsigned>(op)) + " is not a Vector-pipe operation");
  if (op == Op::kCopyMatrixCcToUbuf) return copy_cc_to_ub(buffers_, timing_, in);

  const std::uint64_t xt = in.xt;
  const bool is_convert = op == Op::kVconv;
  const unsigned type_bits = static_cast<unsigned>(xv::type.get(xt));
  if (!is_convert && type_bits > 2) invalid(name, "type " + std::to_string(type_bits) + " is not f16, f32 or s32");
  const Type type = static_cast<Type>(type_bits);
  const std::uint64_t repeats = xv::repeat.get(xt);
  if (repeats == 0) invalid(name, "repeat is 0");

  const bool is_binary = op >= Op::kVadd && op <= Op::kVor;
  const bool is_unary = op >= Op::kVabs && op <= Op::kVnot;
  const bool is_scalar = op >= Op::kVadds && op <= Op::kVmins;
  const bool is_reduction = op == Op::kVcadd || op == Op::kVcmax || op == Op::kVcmin;

  if (type == Type::kS32 && is_unary && op != Op::kVabs && op != Op::kVrelu && op != Op::kVnot)
    invalid(name, "s32 is not supported");
  const unsigned how = static_cast<unsigned>(xv::compare.get(xt));
  if (op == Op::kVcmp && how > 5) invalid(name, "compare " + std::to_string(how) + " is not eq/ne/lt/le/gt/ge");

  unsigned kind = 0;
  Rounding rounding = Rounding::kNearestEven;
  ConvertKind sizes{2, 2};
  if (is_convert) {
    kind = static_cast<unsigned>(xdavinci::convert::kind.get(in.xm));
    const unsigned round = static_cast<unsigned>(xdavinci::convert::round.get(in.xm));
    if (kind > 7) invalid(name, "convert kind " + std::to_string(kind) + " is undefined");
    if (round > 4) invalid(name, "rounding mode " + std::to_string(round) + " is undefined");
    rounding = static_cast<Rounding>(round);
    sizes = kConvertKinds[kind];
  } else {
    sizes.src_size = sizes.dst_size = type == Type::kF16 ? 2 : 4;
  }
  const unsigned widest = sizes.src_size > sizes.dst_size ? sizes.src_size : sizes.dst_size;

  Lanes lanes{};
  lanes.repeats = repeats;
  lanes.lanes = kRepeatBytes / widest;
  lanes.mask.word[0] = in.vector_mask[0];
  lanes.mask.word[1] = lanes.lanes > 64 ? in.vector_mask[1] : 0;
  const unsigned dst_blocks = lanes.lanes * sizes.dst_size / kBlock;
  const unsigned src_blocks = lanes.lanes * sizes.src_size / kBlock;

  // Operand ranges, all checked before anything is written.
  LocalBuffer& ub = buffers_.ub;
  const bool strided_dst = op != Op::kVcmp && !is_reduction;
  std::uint8_t* packed_dst = nullptr;  // vcmp bits / reduction results
  const std::uint64_t bits_per_repeat_bytes = lanes.lanes / 8;
  if (strided_dst)
    lanes.dst = open_stream(ub, in.xd, dst_blocks, repeats, xv::dst_block_stride.get(xt),
                            xv::dst_repeat_stride.get(xt), name, "dst");
  else
    packed_dst = checked_span(ub, in.xd, repeats * (op == Op::kVcmp ? bits_per_repeat_bytes : sizes.dst_size), name,
                              "dst");
  lanes.has_src0 = op != Op::kVdup;
  lanes.has_src1 = is_binary || op == Op::kVcmp || op == Op::kVsel;
  if (lanes.has_src0)
    lanes.src0 = open_stream(ub, in.xn, src_blocks, repeats, xv::src0_block_stride.get(xt),
                             xv::src0_repeat_stride.get(xt), name, "src0");
  if (lanes.has_src1)
    lanes.src1 = open_stream(ub, in.xm, src_blocks, repeats, xv::src1_block_stride.get(xt),
                             xv::src1_repeat_stride.get(xt), name, "src1");
  const std::uint8_t* select_bits = nullptr;
  if (op == Op::kVsel) select_bits = checked_span(ub, in.cmpmask, repeats * bits_per_repeat_bytes, name, "cmpmask");

  UnitResult result;
  std::uint64_t dst_bytes_per_repeat = dst_blocks * kBlock;
  if (is_binary) {
    run_binary(op, type, lanes, 0, false);
  } else if (is_scalar) {
    run_binary(op, type, lanes, in.xm, true);
  } else if (is_unary) {
    run_unary(op, type, lanes);
  } else if (is_reduction) {
    run_reduction(op, type, lanes, packed_dst);
    dst_bytes_per_repeat = sizes.dst_size;
  } else {
    switch (op) {
      case Op::kVcmp:
        dst_bytes_per_repeat = bits_per_repeat_bytes;
        if (type == Type::kF16)
          run_compare<Half>(lanes, how, packed_dst, h2f);
        else if (type == Type::kF32)
          run_compare<float>(lanes, how, packed_dst, [](float v) { return v; });
        else
          run_compare<std::int32_t>(lanes, how, packed_dst, [](std::int32_t v) { return v; });
        break;
      case Op::kVsel:
        if (type == Type::kF16)
          run_select<std::uint16_t>(lanes, select_bits);
        else
          run_select<std::uint32_t>(lanes, select_bits);
        break;
      case Op::kVconv: run_convert(kind, rounding, lanes); break;
      case Op::kVdup:
        if (type == Type::kF16) {
          const auto s = static_cast<std::uint16_t>(in.xm);
          elementwise<std::uint16_t, std::uint16_t, std::uint16_t>(
              lanes, [s](const std::uint16_t*, const std::uint16_t*, std::uint16_t* d, unsigned n) {
                for (unsigned i = 0; i < n; ++i) d[i] = s;
              });
        } else {
          const auto s = static_cast<std::uint32_t>(in.xm);
          elementwise<std::uint32_t, std::uint32_t, std::uint32_t>(
              lanes, [s](const std::uint32_t*, const std::uint32_t*, std::uint32_t* d, unsigned n) {
                for (unsigned i = 0; i < n; ++i) d[i] = s;
              });
        }
        break;
      default: break;
    }
  }
  result.cycles = timing_.startup_cycles +
                  repeats * (is_complex(op) ? timing_.complex_cycles_per_repeat : timing_.cycles_per_repeat);
  result.bytes = dst_bytes_per_repeat * repeats;
  return result;
}

}  // namespace npuvp
