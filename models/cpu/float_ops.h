// IEEE 754 binary32/binary64 arithmetic with the RISC-V F/D rules: every
// rounding mode (RNE, RTZ, RDN, RUP and RMM), the five accrued exception
// flags with tininess detected AFTER rounding, canonical NaN results, and
// the saturating float-to-integer conversions.
//
// Two implementations of the arithmetic operations:
//
// * fp::soft — exact integer arithmetic (no host floating point at all).
//   Each operation computes its exact result, or enough of it (at least two
//   bits below the rounding position plus a sticky bit), and round_pack()
//   rounds it once. It handles every case and every rounding mode, and is
//   the reference the host path must agree with.
// * fp::add/sub/mul/div/sqrt/fma — the fast path on x86-64: the host's SSE
//   unit computes the result under the guest's rounding mode (MXCSR.RC) and
//   reports the flags in MXCSR. The host gets RNE/RTZ/RDN/RUP results and
//   the NV, DZ, OF and NX flags right, but not everything RISC-V requires;
//   where it differs the operation is redone in fp::soft (see "Fix-ups"
//   below). Other hosts use fp::soft for everything.
//
// Values are passed as raw bit patterns (std::uint32_t / std::uint64_t);
// flags are OR-ed into `flags` in the fflags layout. The host path reads
// `flags` on entry as the flags already accrued (callers pass fflags): an
// operation that can only raise flags already there needs no exact flag
// detection (see host::run).
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#if defined(__x86_64__) && defined(__SSE2__) && !defined(NPUVP_FP_SOFT_ONLY)
#include <cmath>
#include <emmintrin.h>
#include <xmmintrin.h>
#define NPUVP_FP_HOST_SSE 1
#endif

namespace npuvp::fp {

using u32 = std::uint32_t;
using u64 = std::uint64_t;
using u128 = unsigned __int128;

// fflags bits.
enum Flag : unsigned { kNX = 1, kUF = 2, kOF = 4, kDZ = 8, kNV = 16 };
// The rm field / frm values (5 and 6 are reserved; 7 in an instruction = use frm).
enum Rounding : unsigned { kRne = 0, kRtz = 1, kRdn = 2, kRup = 3, kRmm = 4, kDyn = 7 };

template <typename B, typename H, int kFrac, int kExp>
struct Format {
  using Bits = B;  // the encoding
  using Host = H;  // the host type with the same encoding
  static constexpr int kFractionBits = kFrac;
  static constexpr int kPrecision = kFrac + 1;  // significand bits, hidden bit included
  static constexpr int kBias = (1 << (kExp - 1)) - 1;
  static constexpr int kEmax = kBias;             // largest exponent of a finite value
  static constexpr int kEmin = 1 - kBias;         // exponent of the smallest normal
  static constexpr int kQuantumMin = kEmin - kFrac;  // exponent of the smallest subnormal
  static constexpr B kSign = B(1) << (kFrac + kExp);
  static constexpr B kExpMask = ((B(1) << kExp) - 1) << kFrac;
  static constexpr B kFracMask = (B(1) << kFrac) - 1;
  static constexpr B kQuietBit = B(1) << (kFrac - 1);
  static constexpr B kInfinity = kExpMask;
  static constexpr B kMaxFinite = kExpMask - 1;
  static constexpr B kCanonicalNaN = kExpMask | kQuietBit;  // 0x7fc00000 / 0x7ff8000000000000
};
using F32 = Format<u32, float, 23, 8>;
using F64 = Format<u64, double, 52, 11>;

// ---------------------------------------------------------------- classification

template <typename F> constexpr bool sign_of(typename F::Bits x) { return (x & F::kSign) != 0; }
template <typename F> constexpr bool is_nan(typename F::Bits x) { return (x & ~F::kSign) > F::kExpMask; }
template <typename F> constexpr bool is_snan(typename F::Bits x) { return is_nan<F>(x) && !(x & F::kQuietBit); }
template <typename F> constexpr bool is_inf(typename F::Bits x) { return (x & ~F::kSign) == F::kExpMask; }
template <typename F> constexpr bool is_zero(typename F::Bits x) { return (x & ~F::kSign) == 0; }

// fclass: one bit set, in the order -inf, -normal, -subnormal, -0, +0,
// +subnormal, +normal, +inf, sNaN, qNaN.
template <typename F>
constexpr unsigned classify(typename F::Bits x) {
  if (is_nan<F>(x)) return is_snan<F>(x) ? 1u << 8 : 1u << 9;
  bool negative = sign_of<F>(x);
  unsigned index;
  if (is_inf<F>(x)) index = 0;
  else if ((x & F::kExpMask) != 0) index = 1;
  else if ((x & F::kFracMask) != 0) index = 2;
  else index = 3;
  return 1u << (negative ? index : 7 - index);
}

// A key that orders non-NaN encodings numerically, with -0 below +0.
template <typename F>
constexpr typename F::Bits order_key(typename F::Bits x) {
  return sign_of<F>(x) ? static_cast<typename F::Bits>(~x) : static_cast<typename F::Bits>(x | F::kSign);
}

// ---------------------------------------------------------------- helpers

inline int msb(u128 x) {  // x != 0
  u64 high = static_cast<u64>(x >> 64);
  return high ? 127 - __builtin_clzll(high) : 63 - __builtin_clzll(static_cast<u64>(x));
}

// x >> n, with every bit shifted out OR-ed into the result's lowest bit.
inline u128 shift_right_jam(u128 x, int n) {
  if (n <= 0) return x;
  if (n >= 128) return x != 0;
  return (x >> n) | ((x << (128 - n)) != 0);
}

// A finite nonzero value as sig * 2^exp.
struct Unpacked {
  bool sign;
  int exp;
  u64 sig;
};

template <typename F>
inline Unpacked unpack(typename F::Bits x) {
  int biased = static_cast<int>((x & F::kExpMask) >> F::kFractionBits);
  u64 fraction = x & F::kFracMask;
  if (biased == 0) return {sign_of<F>(x), F::kQuantumMin, fraction};
  return {sign_of<F>(x), biased - F::kBias - F::kFractionBits, fraction | (u64(1) << F::kFractionBits)};
}

// sig split at bit `shift`: the kept high part and how the dropped low part
// compares with half a unit of the kept part.
struct Split {
  u128 kept;
  int half;      // < 0: below half, 0: exactly half, > 0: above half (when inexact)
  bool inexact;  // dropped bits were not all zero
};

inline Split split(u128 sig, int shift) {
  if (shift <= 0) return {sig << -shift, -1, false};
  if (shift > 128) return {0, -1, sig != 0};
  u128 kept = shift == 128 ? 0 : sig >> shift;
  u128 rest = shift == 128 ? sig : sig & ((u128(1) << shift) - 1);
  u128 half = u128(1) << (shift - 1);
  return {kept, rest < half ? -1 : rest == half ? 0 : 1, rest != 0};
}

// Whether rounding in mode rm adds one unit to the kept part.
inline bool round_up(const Split& s, bool negative, unsigned rm) {
  if (!s.inexact) return false;
  switch (rm) {
    case kRne: return s.half > 0 || (s.half == 0 && (s.kept & 1));
    case kRmm: return s.half >= 0;  // ties away from zero
    case kRdn: return negative;
    case kRup: return !negative;
    default: return false;          // RTZ
  }
}

// ---------------------------------------------------------------- rounding

// Rounds (-1)^sign * sig * 2^exp to the format, as IEEE 754 requires with
// the RISC-V choices:
//   * inexact (NX): the rounded result differs from the exact value;
//   * overflow (OF, with NX): the result rounded with an unbounded exponent
//     exceeds the largest finite number; the result is infinity (RNE, RMM,
//     and the directed mode rounding away from zero) or the largest finite
//     number (RTZ, and the directed mode rounding toward zero);
//   * underflow (UF): the result is tiny AND inexact, where "tiny" is
//     decided AFTER rounding: the exact value rounded to the format's
//     precision with an unbounded exponent range is below the smallest
//     normal number (RISC-V unprivileged spec, section "Floating-Point
//     Control and Status Register": tininess is detected after rounding).
// The lowest bit of sig may be a "jam" bit standing for nonzero bits
// below it; callers make sure it is then at least two bits below the
// rounding position (sig has at least precision + 2 significant bits), so
// it only acts as a sticky bit.
template <typename F>
inline typename F::Bits round_pack(bool negative, int exp, u128 sig, unsigned rm, unsigned& flags) {
  using B = typename F::Bits;
  constexpr int P = F::kPrecision;
  const B sign = negative ? F::kSign : 0;
  if (sig == 0) return sign;
  const int top = exp + msb(sig);  // the value lies in [2^top, 2^(top+1))
  int quantum = top - (P - 1);     // exponent of the result's last bit
  if (quantum < F::kQuantumMin) quantum = F::kQuantumMin;
  Split s = split(sig, quantum - exp);
  u128 kept = s.kept + (round_up(s, negative, rm) ? 1 : 0);
  if (kept >> P) {  // rounded up to 2^P: renormalise (the dropped bit is 0)
    kept >>= 1;
    ++quantum;
  }
  if (s.inexact) {
    flags |= kNX;
    if (top < F::kEmin) {
      // Tiny after rounding? Values below 2^(emin-1) always are; values in
      // [2^(emin-1), 2^emin) are not when rounding them to P bits (with
      // unbounded exponent) carries up to 2^emin.
      bool tiny = true;
      if (top == F::kEmin - 1) {
        Split unbounded = split(sig, top - (P - 1) - exp);
        tiny = ((unbounded.kept + (round_up(unbounded, negative, rm) ? 1 : 0)) >> P) == 0;
      }
      if (tiny) flags |= kUF;
    }
  }
  if (kept >> (P - 1)) {  // normal
    int e = quantum + P - 1;
    if (e > F::kEmax) {
      flags |= kOF | kNX;
      bool to_infinity = rm == kRne || rm == kRmm || (rm == kRup && !negative) || (rm == kRdn && negative);
      return sign | (to_infinity ? F::kInfinity : F::kMaxFinite);
    }
    return sign | (static_cast<B>(e + F::kBias) << F::kFractionBits) | (static_cast<B>(kept) & F::kFracMask);
  }
  return sign | static_cast<B>(kept);  // subnormal (quantum is the minimum) or zero
}

// ---------------------------------------------------------------- software arithmetic

namespace soft {

// (-1)^sa * ma * 2^ea + (-1)^sb * mb * 2^eb for nonzero ma, mb below 2^107.
// Both are normalised to bit 124; the smaller is shifted right with a jam
// bit. If the exponents differ by 0 or 1 the shift loses nothing (the low
// 18 bits are zero); otherwise the sum keeps its top bit at 123 or above,
// so a jam bit is far below the rounding position.
template <typename F>
inline typename F::Bits add_exact(bool sa, int ea, u128 ma, bool sb, int eb, u128 mb, unsigned rm, unsigned& flags) {
  constexpr int kTop = 124;
  int shift = kTop - msb(ma);
  ma <<= shift;
  ea -= shift;
  shift = kTop - msb(mb);
  mb <<= shift;
  eb -= shift;
  if (ea < eb) {
    std::swap(sa, sb);
    std::swap(ea, eb);
    std::swap(ma, mb);
  }
  mb = shift_right_jam(mb, ea - eb);
  u128 sum;
  bool negative;
  if (sa == sb) {
    sum = ma + mb;
    negative = sa;
  } else if (ma >= mb) {
    sum = ma - mb;
    negative = sa;
  } else {
    sum = mb - ma;
    negative = sb;
  }
  if (sum == 0) return rm == kRdn ? F::kSign : 0;  // exact zero of opposite signs: +0 (-0 in RDN)
  return round_pack<F>(negative, ea, sum, rm, flags);
}

template <typename F>
inline typename F::Bits add(typename F::Bits a, typename F::Bits b, unsigned rm, unsigned& flags) {
  using B = typename F::Bits;
  if (is_nan<F>(a) || is_nan<F>(b)) {
    if (is_snan<F>(a) || is_snan<F>(b)) flags |= kNV;
    return F::kCanonicalNaN;
  }
  if (is_inf<F>(a)) {
    if (is_inf<F>(b) && sign_of<F>(a) != sign_of<F>(b)) {
      flags |= kNV;
      return F::kCanonicalNaN;
    }
    return a;
  }
  if (is_inf<F>(b)) return b;
  if (is_zero<F>(a) && is_zero<F>(b))
    return sign_of<F>(a) == sign_of<F>(b) ? a : static_cast<B>(rm == kRdn ? F::kSign : 0);
  if (is_zero<F>(a)) return b;
  if (is_zero<F>(b)) return a;
  Unpacked x = unpack<F>(a), y = unpack<F>(b);
  return add_exact<F>(x.sign, x.exp, x.sig, y.sign, y.exp, y.sig, rm, flags);
}

template <typename F>
inline typename F::Bits sub(typename F::Bits a, typename F::Bits b, unsigned rm, unsigned& flags) {
  return add<F>(a, b ^ F::kSign, rm, flags);  // a NaN stays a NaN of the same kind
}

template <typename F>
inline typename F::Bits mul(typename F::Bits a, typename F::Bits b, unsigned rm, unsigned& flags) {
  if (is_nan<F>(a) || is_nan<F>(b)) {
    if (is_snan<F>(a) || is_snan<F>(b)) flags |= kNV;
    return F::kCanonicalNaN;
  }
  bool negative = sign_of<F>(a) != sign_of<F>(b);
  typename F::Bits sign = negative ? F::kSign : 0;
  if (is_inf<F>(a) || is_inf<F>(b)) {
    if (is_zero<F>(a) || is_zero<F>(b)) {
      flags |= kNV;
      return F::kCanonicalNaN;
    }
    return sign | F::kInfinity;
  }
  if (is_zero<F>(a) || is_zero<F>(b)) return sign;
  Unpacked x = unpack<F>(a), y = unpack<F>(b);
  return round_pack<F>(negative, x.exp + y.exp, static_cast<u128>(x.sig) * y.sig, rm, flags);
}

template <typename F>
inline typename F::Bits div(typename F::Bits a, typename F::Bits b, unsigned rm, unsigned& flags) {
  if (is_nan<F>(a) || is_nan<F>(b)) {
    if (is_snan<F>(a) || is_snan<F>(b)) flags |= kNV;
    return F::kCanonicalNaN;
  }
  bool negative = sign_of<F>(a) != sign_of<F>(b);
  typename F::Bits sign = negative ? F::kSign : 0;
  if (is_inf<F>(a)) {
    if (is_inf<F>(b)) {
      flags |= kNV;
      return F::kCanonicalNaN;
    }
    return sign | F::kInfinity;
  }
  if (is_inf<F>(b)) return sign;
  if (is_zero<F>(b)) {
    if (is_zero<F>(a)) {
      flags |= kNV;
      return F::kCanonicalNaN;
    }
    flags |= kDZ;
    return sign | F::kInfinity;
  }
  if (is_zero<F>(a)) return sign;
  Unpacked x = unpack<F>(a), y = unpack<F>(b);
  int nx = __builtin_clzll(x.sig), ny = __builtin_clzll(y.sig);  // normalise to bit 63
  u64 mx = x.sig << nx, my = y.sig << ny;
  u128 numerator = static_cast<u128>(mx) << 64;
  u128 quotient = numerator / my;  // in (2^63, 2^65): at least 64 bits
  if (quotient * my != numerator) quotient |= 1;
  return round_pack<F>(negative, (x.exp - nx) - (y.exp - ny) - 64, quotient, rm, flags);
}

// Integer square root; `exact` tells whether root^2 == n.
inline u128 isqrt(u128 n, bool& exact) {
  u128 root = 0, bit = u128(1) << 126;
  while (bit > n) bit >>= 2;
  while (bit) {
    if (n >= root + bit) {
      n -= root + bit;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
    bit >>= 2;
  }
  exact = n == 0;
  return root;
}

template <typename F>
inline typename F::Bits sqrt(typename F::Bits a, unsigned rm, unsigned& flags) {
  if (is_nan<F>(a)) {
    if (is_snan<F>(a)) flags |= kNV;
    return F::kCanonicalNaN;
  }
  if (is_zero<F>(a)) return a;  // sqrt(-0) = -0
  if (sign_of<F>(a)) {
    flags |= kNV;
    return F::kCanonicalNaN;
  }
  if (is_inf<F>(a)) return a;
  Unpacked x = unpack<F>(a);
  int shift = __builtin_clzll(x.sig) - 2;  // top bit at 61
  u128 m = static_cast<u128>(x.sig << shift) << 64;
  int e = x.exp - shift - 64;
  if (e & 1) {  // make the exponent even: sqrt(m * 2^e) = sqrt(m) * 2^(e/2)
    m <<= 1;
    e -= 1;
  }
  bool exact = false;
  u128 root = isqrt(m, exact);  // at least 2^62
  if (!exact) root |= 1;
  return round_pack<F>(false, e / 2, root, rm, flags);
}

// a * b + c with one rounding.
template <typename F>
inline typename F::Bits fma(typename F::Bits a, typename F::Bits b, typename F::Bits c, unsigned rm,
                            unsigned& flags) {
  using B = typename F::Bits;
  bool inf_times_zero = (is_inf<F>(a) && is_zero<F>(b)) || (is_zero<F>(a) && is_inf<F>(b));
  if (is_nan<F>(a) || is_nan<F>(b) || is_nan<F>(c)) {
    // RISC-V: NV for infinity * zero even when the addend is a quiet NaN.
    if (is_snan<F>(a) || is_snan<F>(b) || is_snan<F>(c) || inf_times_zero) flags |= kNV;
    return F::kCanonicalNaN;
  }
  if (inf_times_zero) {
    flags |= kNV;
    return F::kCanonicalNaN;
  }
  bool product_negative = sign_of<F>(a) != sign_of<F>(b);
  if (is_inf<F>(a) || is_inf<F>(b)) {
    if (is_inf<F>(c) && sign_of<F>(c) != product_negative) {
      flags |= kNV;
      return F::kCanonicalNaN;
    }
    return (product_negative ? F::kSign : 0) | F::kInfinity;
  }
  if (is_inf<F>(c)) return c;
  if (is_zero<F>(a) || is_zero<F>(b)) {
    if (is_zero<F>(c))
      return sign_of<F>(c) == product_negative ? c : static_cast<B>(rm == kRdn ? F::kSign : 0);
    return c;
  }
  Unpacked x = unpack<F>(a), y = unpack<F>(b);
  u128 product = static_cast<u128>(x.sig) * y.sig;
  if (is_zero<F>(c)) return round_pack<F>(product_negative, x.exp + y.exp, product, rm, flags);
  Unpacked z = unpack<F>(c);
  return add_exact<F>(product_negative, x.exp + y.exp, product, z.sign, z.exp, z.sig, rm, flags);
}

}  // namespace soft

// ---------------------------------------------------------------- operations without rounding choices

// fmin/fmax: IEEE 754-2019 minimumNumber/maximumNumber (RISC-V F 2.2): a
// NaN operand is ignored if the other is a number; two NaNs give the
// canonical NaN; -0 < +0; a signalling NaN operand raises NV.
template <typename F>
inline typename F::Bits min_max(typename F::Bits a, typename F::Bits b, bool maximum, unsigned& flags) {
  if (is_snan<F>(a) || is_snan<F>(b)) flags |= kNV;
  bool nan_a = is_nan<F>(a), nan_b = is_nan<F>(b);
  if (nan_a && nan_b) return F::kCanonicalNaN;
  if (nan_a) return b;
  if (nan_b) return a;
  bool a_less = order_key<F>(a) < order_key<F>(b);
  return a_less != maximum ? a : b;
}

// feq: quiet (NV only for signalling NaNs); flt/fle: signalling (NV for any NaN).
template <typename F>
inline bool equal(typename F::Bits a, typename F::Bits b, unsigned& flags) {
  if (is_nan<F>(a) || is_nan<F>(b)) {
    if (is_snan<F>(a) || is_snan<F>(b)) flags |= kNV;
    return false;
  }
  return a == b || (is_zero<F>(a) && is_zero<F>(b));
}
template <typename F>
inline bool less(typename F::Bits a, typename F::Bits b, bool or_equal, unsigned& flags) {
  if (is_nan<F>(a) || is_nan<F>(b)) {
    flags |= kNV;
    return false;
  }
  if (is_zero<F>(a) && is_zero<F>(b)) return or_equal;
  return or_equal ? order_key<F>(a) <= order_key<F>(b) : order_key<F>(a) < order_key<F>(b);
}

// Float to integer (Int = int32/uint32/int64/uint64), rounded in mode rm.
// Out-of-range values, infinities and NaNs raise NV (and not NX) and
// saturate: NaN and too-large values give the largest integer, too-small
// values (and -inf) the smallest (0 for unsigned).
template <typename F, typename Int>
inline Int to_int(typename F::Bits a, unsigned rm, unsigned& flags) {
  using UInt = std::make_unsigned_t<Int>;
  constexpr Int kMax = std::numeric_limits<Int>::max(), kMin = std::numeric_limits<Int>::min();
  constexpr u128 kLargestPositive = static_cast<UInt>(kMax);
  constexpr u128 kLargestNegative = std::is_signed_v<Int> ? kLargestPositive + 1 : 0;  // magnitude
  if (is_nan<F>(a)) {
    flags |= kNV;
    return kMax;
  }
  bool negative = sign_of<F>(a);
  if (is_inf<F>(a)) {
    flags |= kNV;
    return negative ? kMin : kMax;
  }
  if (is_zero<F>(a)) return 0;
  Unpacked x = unpack<F>(a);
  u128 magnitude;
  bool inexact = false;
  if (x.exp >= 0) {
    if (x.exp > 64) {
      flags |= kNV;
      return negative ? kMin : kMax;
    }
    magnitude = static_cast<u128>(x.sig) << x.exp;
  } else {
    Split s = split(x.sig, -x.exp);
    magnitude = s.kept + (round_up(s, negative, rm) ? 1 : 0);
    inexact = s.inexact;
  }
  if (magnitude > (negative ? kLargestNegative : kLargestPositive)) {
    flags |= kNV;
    return negative ? kMin : kMax;
  }
  if (inexact) flags |= kNX;
  UInt value = static_cast<UInt>(magnitude);
  return static_cast<Int>(negative ? static_cast<UInt>(0) - value : value);
}

// Integer to float, rounded in mode rm (only NX can be raised).
template <typename F>
inline typename F::Bits from_int(bool negative, u64 magnitude, unsigned rm, unsigned& flags) {
  return magnitude == 0 ? 0 : round_pack<F>(negative, 0, magnitude, rm, flags);
}

// Between the formats (widening is exact). NaNs become the canonical NaN
// of the destination; a signalling NaN raises NV.
template <typename To, typename From>
inline typename To::Bits convert(typename From::Bits a, unsigned rm, unsigned& flags) {
  using B = typename To::Bits;
  B sign = sign_of<From>(a) ? To::kSign : 0;
  if (is_nan<From>(a)) {
    if (is_snan<From>(a)) flags |= kNV;
    return To::kCanonicalNaN;
  }
  if (is_inf<From>(a)) return sign | To::kInfinity;
  if (is_zero<From>(a)) return sign;
  Unpacked x = unpack<From>(a);
  return round_pack<To>(x.sign, x.exp, x.sig, rm, flags);
}

// ---------------------------------------------------------------- host fast path
//
// Fix-ups: on x86-64 the host's SSE instructions compute add, sub, mul,
// div, sqrt (and fma through the C library, which uses the host's FMA
// instruction or an exact emulation) under MXCSR's rounding control, and
// accumulate IE/ZE/OE/UE/PE in MXCSR. Under the guest's RNE, RTZ, RDN and
// RUP modes (MXCSR with every exception masked, FTZ and DAZ off) the
// result and the IE->NV, ZE->DZ, OE->OF, PE->NX flags are exactly what
// IEEE 754 and RISC-V require. The rules the host does not follow, and
// what we do about them:
//   1. RMM (round to nearest, ties to max magnitude) does not exist in SSE:
//      such operations always run in fp::soft.
//   2. x86 detects tininess BEFORE rounding: UE is set when the exact
//      result is below the smallest normal and inexact, while RISC-V sets
//      UF only when the result, rounded with an unbounded exponent, is
//      below the smallest normal (tiny AFTER rounding) and inexact. Tiny
//      after rounding implies tiny before, so RISC-V's UF can only be set
//      when the host's UE is: whenever UE is set, the operation is redone
//      in fp::soft, which gives the result and all flags. (Add and
//      subtract are exact when their result is tiny, and square roots are
//      never tiny, so in practice this concerns mul, div and fma.)
//   3. NaN results: x86 returns the default NaN with the sign bit set or
//      propagates an operand's payload; RISC-V returns the canonical NaN
//      (positive, quiet, zero payload). NaN results are replaced by the
//      canonical NaN; the host's IE already says whether NV is due (sNaN
//      operand or invalid operation).
//   4. fma(inf, 0, qNaN): RISC-V requires NV, IEEE leaves it to the
//      implementation: an fma whose result is a NaN is redone in fp::soft.
// The common case is made cheap: in RNE, the operation runs on the host's
// MXCSR as it is, and MXCSR is read once, afterwards. If its control bits
// are the defaults (RNE, all exceptions masked, no FTZ/DAZ: the result is
// right) and every flag it shows is already accrued in fflags (flags set
// by this operation, or left by other host code, cannot change fflags),
// the operation is done. Otherwise (another rounding mode, a flag that is
// not accrued yet, underflow, unusual host control bits) the exact path
// runs: MXCSR is saved, loaded with the guest's rounding mode and clear
// flags, the operation is repeated, the flags it raised are read, and
// MXCSR gets the saved control bits back with its flags cleared. So the
// rest of the simulator keeps its rounding mode, exception masks and
// FTZ/DAZ settings; only its sticky exception flags, which nothing in the
// simulator uses, may be set or cleared by guest operations.
// Other hosts use fp::soft.

#ifdef NPUVP_FP_HOST_SSE
namespace host {

// MXCSR with all exceptions masked, flags clear, FTZ/DAZ off, and RC for
// RNE (00), RTZ (11), RDN (01), RUP (10), indexed by the RISC-V rm value.
constexpr u32 kMxcsr[4] = {0x1f80, 0x7f80, 0x3f80, 0x5f80};
constexpr u32 kDefault = 0x1f80;
constexpr u32 kFlagBits = 0x3f;
constexpr u32 kUnderflow = 0x10;

inline unsigned flags_from_mxcsr(u32 m) {
  // IE (bit 0) -> NV, ZE (bit 2) -> DZ, OE (bit 3) -> OF, PE (bit 5) -> NX; DE is ignored.
  return ((m & 1u) << 4) | ((m & 4u) << 1) | ((m & 8u) >> 1) | ((m & 32u) >> 5);
}

// Keeps the compiler from moving the arithmetic across the MXCSR accesses:
// the operands go through an empty volatile asm after the rounding mode is
// set, the result through another before the flags are read.
template <typename T>
inline void pin(T& value) {
  asm volatile("" : "+x"(value));
}

template <typename T, typename B>
inline T as_host(B bits) {
  T value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}
template <typename B, typename T>
inline B as_bits(T value) {
  B bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

inline float host_sqrt(float x) { return _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(x))); }
inline double host_sqrt(double x) {
  __m128d v = _mm_set_sd(x);
  return _mm_cvtsd_f64(_mm_sqrt_sd(v, v));
}

// Runs compute() under rounding mode rm; false when the result needs the
// software path (underflow reported). `flags` holds the accrued flags on
// entry; the ones the operation raises are OR-ed in.
template <typename F, typename Compute>
inline bool run(unsigned rm, typename F::Bits& result, unsigned& flags, Compute compute) {
  using T = typename F::Host;
  if (__builtin_expect(rm == kRne, 1)) {  // the common path: one MXCSR read
    T r = compute();
    pin(r);
    const u32 after = _mm_getcsr();
    if (__builtin_expect((after & ~kFlagBits) == kDefault && !(after & kUnderflow) &&
                             (flags_from_mxcsr(after) & ~flags) == 0, 1)) {
      result = as_bits<typename F::Bits>(r);
      if (__builtin_expect(is_nan<F>(result), 0)) result = F::kCanonicalNaN;
      return true;  // whatever it raised is accrued already
    }
  }
  const u32 saved = _mm_getcsr();
  const u32 ours = kMxcsr[rm];
  if (saved != ours) _mm_setcsr(ours);
  T r = compute();
  pin(r);
  const u32 after = _mm_getcsr();
  const u32 restore = saved & ~kFlagBits;
  if (after != restore) _mm_setcsr(restore);
  if (__builtin_expect((after & kUnderflow) != 0, 0)) return false;
  result = as_bits<typename F::Bits>(r);
  if (__builtin_expect(is_nan<F>(result), 0)) result = F::kCanonicalNaN;
  flags |= flags_from_mxcsr(after);
  return true;
}

}  // namespace host
#endif

// A two-operand operation: on the host when it can be trusted (host::run
// says so), else in software. host_op combines two host values; soft_op is
// the fp::soft function of the same operation.
template <typename F, typename HostOp, typename SoftOp>
inline typename F::Bits binary(typename F::Bits a, typename F::Bits b, unsigned rm, unsigned& flags,
                               [[maybe_unused]] HostOp host_op, SoftOp soft_op) {
#ifdef NPUVP_FP_HOST_SSE
  using T = typename F::Host;
  typename F::Bits r;
  if (__builtin_expect(rm != kRmm, 1) && host::run<F>(rm, r, flags, [&] {
        T x = host::as_host<T>(a), y = host::as_host<T>(b);
        host::pin(x);
        host::pin(y);
        return host_op(x, y);
      }))
    return r;
#endif
  return soft_op(a, b, rm, flags);
}

template <typename F>
inline typename F::Bits add(typename F::Bits a, typename F::Bits b, unsigned rm, unsigned& flags) {
  return binary<F>(a, b, rm, flags, [](auto x, auto y) { return x + y; }, soft::add<F>);
}
template <typename F>
inline typename F::Bits sub(typename F::Bits a, typename F::Bits b, unsigned rm, unsigned& flags) {
  return binary<F>(a, b, rm, flags, [](auto x, auto y) { return x - y; }, soft::sub<F>);
}
template <typename F>
inline typename F::Bits mul(typename F::Bits a, typename F::Bits b, unsigned rm, unsigned& flags) {
  return binary<F>(a, b, rm, flags, [](auto x, auto y) { return x * y; }, soft::mul<F>);
}
template <typename F>
inline typename F::Bits div(typename F::Bits a, typename F::Bits b, unsigned rm, unsigned& flags) {
  return binary<F>(a, b, rm, flags, [](auto x, auto y) { return x / y; }, soft::div<F>);
}

template <typename F>
inline typename F::Bits sqrt(typename F::Bits a, unsigned rm, unsigned& flags) {
#ifdef NPUVP_FP_HOST_SSE
  using T = typename F::Host;
  typename F::Bits r;
  if (__builtin_expect(rm != kRmm, 1) && host::run<F>(rm, r, flags, [&] {
        T x = host::as_host<T>(a);
        host::pin(x);
        return host::host_sqrt(x);
      }))
    return r;
#endif
  return soft::sqrt<F>(a, rm, flags);
}

template <typename F>
inline typename F::Bits fma(typename F::Bits a, typename F::Bits b, typename F::Bits c, unsigned rm,
                            unsigned& flags) {
#ifdef NPUVP_FP_HOST_SSE
  using T = typename F::Host;
  typename F::Bits r;
  unsigned host_flags = flags;
  if (__builtin_expect(rm != kRmm, 1) && host::run<F>(rm, r, host_flags, [&] {
        T x = host::as_host<T>(a), y = host::as_host<T>(b), z = host::as_host<T>(c);
        host::pin(x);
        host::pin(y);
        host::pin(z);
        return std::fma(x, y, z);
      }) &&
      __builtin_expect(r != F::kCanonicalNaN, 1)) {
    flags |= host_flags;
    return r;
  }
#endif
  return soft::fma<F>(a, b, c, rm, flags);
}

}  // namespace npuvp::fp
