// The F and D extensions on a Hart: encodings and disassembly, loads and
// stores (compressed ones too), every instruction class with edge values,
// every rounding mode (RMM ties included), every flag (tininess after
// rounding), NaN boxing and canonical NaNs, mstatus.FS gating, illegal rm,
// the host's floating-point environment left alone, and randomized
// comparisons against an independent reference for all rounding modes.
//
// The reference (namespace ref) does not share code with the ISS: it
// computes each result in a wider host format (double for binary32,
// x87 long double or __float128 for binary64) in round-toward-zero mode and
// sets the lowest bit when inexact ("round to odd", which keeps enough
// information for one correct final rounding), then rounds to the target by
// comparing with the midpoint of the two neighbouring target values.
#include "unit/hart_test_support.h"

#include "cpu/float_ops.h"

#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace npuvp {
namespace {

using namespace rv;
using namespace hart_test;
using fp::F32;
using fp::F64;
using u32 = std::uint32_t;
using u64 = std::uint64_t;
using i32 = std::int32_t;
using i64 = std::int64_t;

constexpr unsigned NV = fp::kNV, DZ = fp::kDZ, OF = fp::kOF, UF = fp::kUF, NX = fp::kNX;
constexpr unsigned kModes[] = {rne, rtz, rdn, rup, rmm};
const char* const kModeNames[] = {"rne", "rtz", "rdn", "rup", "rmm", "rm5", "rm6", "dyn"};

// ---- bit patterns
constexpr u32 kOneS = 0x3f800000, kTwoS = 0x40000000, kMaxS = 0x7f7fffff, kMinNormalS = 0x00800000,
              kMaxSubS = 0x007fffff, kMinSubS = 0x00000001, kInfS = 0x7f800000, kQnanS = 0x7fc00000,
              kSnanS = 0x7f800001, kNegS = 0x80000000;
constexpr u64 kOneD = 0x3ff0000000000000, kTwoD = 0x4000000000000000, kMaxD = 0x7fefffffffffffff,
              kMinNormalD = 0x0010000000000000, kMaxSubD = 0x000fffffffffffff, kMinSubD = 1,
              kInfD = 0x7ff0000000000000, kQnanD = 0x7ff8000000000000, kSnanD = 0x7ff0000000000001,
              kNegD = 0x8000000000000000;
constexpr u64 box(u32 bits) { return 0xffffffff00000000ull | bits; }

u64 bits_of(double value) {
  u64 bits;
  std::memcpy(&bits, &value, 8);
  return bits;
}
float float_of(u32 bits) {
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}
double double_of(u64 bits) {
  double value;
  std::memcpy(&value, &bits, 8);
  return value;
}

std::string flag_text(unsigned flags) {
  std::string text;
  const char* names[] = {"NX", "UF", "OF", "DZ", "NV"};
  for (int bit = 4; bit >= 0; --bit)
    if (flags & (1u << bit)) text += std::string(text.empty() ? "" : "|") + names[bit];
  return text.empty() ? "-" : text;
}

// ================================================================ reference

namespace ref {

using quad = __float128;

struct Result {
  u64 bits;
  unsigned flags;
};

template <typename T> using Bits = std::conditional_t<std::is_same_v<T, float>, u32, u64>;
template <typename T> constexpr int kPrecision = std::numeric_limits<T>::digits;
template <typename T> constexpr int kEmax = std::numeric_limits<T>::max_exponent - 1;

inline int host_mode(unsigned rm) {
  switch (rm) {
    case rtz: return FE_TOWARDZERO;
    case rdn: return FE_DOWNWARD;
    case rup: return FE_UPWARD;
    default: return FE_TONEAREST;  // RNE, and RMM where only a zero's sign is asked
  }
}

template <typename T>
u64 raw(T value) {
  Bits<T> bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// Sets the lowest significand bit of a wide value (round to odd).
inline double set_odd(double x) {
  u64 b;
  std::memcpy(&b, &x, 8);
  b |= 1;
  std::memcpy(&x, &b, 8);
  return x;
}
inline long double set_odd(long double x) {
  u64 mantissa;  // x87 extended: the 64-bit significand comes first
  std::memcpy(&mantissa, &x, 8);
  mantissa |= 1;
  std::memcpy(&x, &mantissa, 8);
  return x;
}
inline quad set_odd(quad x) {
  u64 low;  // binary128: the low 64 significand bits come first
  std::memcpy(&low, &x, 8);
  low |= 1;
  std::memcpy(&x, &low, 8);
  return x;
}

template <typename T>
T nan_of() { return std::numeric_limits<T>::quiet_NaN(); }

// Largest T not above |w| (w finite).
template <typename T, typename W>
T truncate(W w) {
  std::fesetround(FE_TOWARDZERO);
  volatile W v = w;
  volatile T t = static_cast<T>(v);
  std::fesetround(FE_TONEAREST);
  return t;
}

// Rounds the finite, nonzero, odd-rounded wide value w to T in mode rm.
template <typename T, typename W>
Result round_to(W w, unsigned rm) {
  constexpr int P = kPrecision<T>;
  const bool negative = w < 0;
  const W aw = negative ? -w : w;
  const u64 sign = negative ? (sizeof(T) == 4 ? 0x80000000ull : 0x8000000000000000ull) : 0;
  const bool away = (rm == rup && !negative) || (rm == rdn && negative);
  const T max = std::numeric_limits<T>::max();
  const W wmax = max;
  const W ulp_max = static_cast<W>(std::ldexp(1.0, kEmax<T> - P + 1));
  if (aw > wmax) {
    // Overflow when rounding with an unbounded exponent goes above max:
    // nearest modes from max + ulp/2 on, away from zero from anything above
    // max, toward zero only from 2^(emax+1) = max + ulp on.
    bool overflow = (rm == rne || rm == rmm) ? aw >= wmax + ulp_max / 2 : away ? true : aw >= wmax + ulp_max;
    if (overflow) {
      bool infinite = rm == rne || rm == rmm || away;
      return {sign | raw(infinite ? std::numeric_limits<T>::infinity() : max), OF | NX};
    }
    return {sign | raw(max), NX};
  }
  const T lo = truncate<T>(aw);
  if (static_cast<W>(lo) == aw) return {sign | raw(lo), 0};
  const T hi = std::nextafter(lo, std::numeric_limits<T>::infinity());
  const W mid = (static_cast<W>(lo) + static_cast<W>(hi)) / 2;
  bool up;
  switch (rm) {
    case rne: up = aw > mid || (aw == mid && (raw(lo) & 1)); break;
    case rmm: up = aw >= mid; break;
    case rtz: up = false; break;
    default: up = away; break;
  }
  unsigned flags = NX;
  const W min_normal = std::numeric_limits<T>::min();
  const W unit = min_normal * static_cast<W>(std::ldexp(1.0, -P));  // ulp below min_normal at precision P
  if (aw < min_normal) {
    // Tiny after rounding unless rounding to P bits (unbounded exponent) reaches min_normal.
    bool reaches;
    if (aw <= min_normal - unit) reaches = false;
    else if (rm == rne || rm == rmm) reaches = aw >= min_normal - unit / 2;
    else reaches = away;
    if (!reaches) flags |= UF;
  }
  return {sign | raw(up ? hi : lo), flags};
}

template <typename T> bool is_snan(T x) {
  if (!std::isnan(x)) return false;
  return !(raw(x) & (sizeof(T) == 4 ? 0x00400000ull : 0x0008000000000000ull));
}

// Runs `wide` (returns the exact or odd-rounded result in W) and, for an
// exact zero, `zero` (the operation in T, which is exact then) for the
// zero's sign; classifies NaN and infinite results.
template <typename T, typename W, typename Wide, typename Zero>
Result finish(unsigned rm, Wide wide, Zero zero) {
  std::feclearexcept(FE_ALL_EXCEPT);
  std::fesetround(FE_TOWARDZERO);
  // Results go through volatile variables: the compiler may not move the
  // arithmetic across the <cfenv> calls then.
  volatile W computed = wide();
  W w = computed;
  bool inexact = std::fetestexcept(FE_INEXACT);
  bool invalid = std::fetestexcept(FE_INVALID);
  bool divide_by_zero = std::fetestexcept(FE_DIVBYZERO);
  std::fesetround(FE_TONEAREST);
  if (w != w) return {raw(nan_of<T>()), invalid ? NV : 0u};
  // (std::numeric_limits has no __float128 specialisation in strict C++17: inf - inf is a NaN.)
  W difference = w - w;
  if (difference != difference) return {raw(static_cast<T>(w)), divide_by_zero ? DZ : 0u};
  if (w == 0) {
    std::fesetround(host_mode(rm));
    volatile T z = zero();
    std::fesetround(FE_TONEAREST);
    return {raw(z), 0};
  }
  if (inexact) w = set_odd(w);
  return round_to<T, W>(w, rm);
}

template <typename T> using Wide = std::conditional_t<std::is_same_v<T, float>, double, long double>;
template <typename T> using WideFma = std::conditional_t<std::is_same_v<T, float>, double, quad>;

template <typename T>
Result nan_result(bool invalid) { return {raw(nan_of<T>()), invalid ? NV : 0u}; }

template <typename T>
Result add(T a, T b, unsigned rm) {
  if (std::isnan(a) || std::isnan(b)) return nan_result<T>(is_snan(a) || is_snan(b));
  using W = Wide<T>;
  return finish<T, W>(rm, [&] { volatile W x = a, y = b; return W(x + y); },
                      [&] { volatile T x = a, y = b; return T(x + y); });
}
template <typename T>
Result sub(T a, T b, unsigned rm) {
  if (std::isnan(a) || std::isnan(b)) return nan_result<T>(is_snan(a) || is_snan(b));
  using W = Wide<T>;
  return finish<T, W>(rm, [&] { volatile W x = a, y = b; return W(x - y); },
                      [&] { volatile T x = a, y = b; return T(x - y); });
}
template <typename T>
Result mul(T a, T b, unsigned rm) {
  if (std::isnan(a) || std::isnan(b)) return nan_result<T>(is_snan(a) || is_snan(b));
  using W = Wide<T>;
  return finish<T, W>(rm, [&] { volatile W x = a, y = b; return W(x * y); },
                      [&] { volatile T x = a, y = b; return T(x * y); });
}
template <typename T>
Result div(T a, T b, unsigned rm) {
  if (std::isnan(a) || std::isnan(b)) return nan_result<T>(is_snan(a) || is_snan(b));
  using W = Wide<T>;
  return finish<T, W>(rm, [&] { volatile W x = a, y = b; return W(x / y); },
                      [&] { volatile T x = a, y = b; return T(x / y); });
}
template <typename T>
Result sqrt(T a, unsigned rm) {
  if (std::isnan(a)) return nan_result<T>(is_snan(a));
  using W = Wide<T>;
  return finish<T, W>(rm, [&] { volatile W x = a; return W(std::sqrt(W(x))); },
                      [&] { volatile T x = a; return T(std::sqrt(T(x))); });
}
// a * b + c
template <typename T>
Result fma(T a, T b, T c, unsigned rm) {
  bool inf_times_zero = (std::isinf(a) && b == 0) || (a == 0 && std::isinf(b));
  if (std::isnan(a) || std::isnan(b) || std::isnan(c))
    return nan_result<T>(is_snan(a) || is_snan(b) || is_snan(c) || inf_times_zero);
  using W = WideFma<T>;
  return finish<T, W>(rm,
                      [&] {
                        volatile W x = a, y = b, z = c;
                        W product = W(x) * W(y);  // exact
                        volatile W sum = product + W(z);
                        return W(sum);
                      },
                      [&] { volatile T x = a, y = b, z = c; return T(std::fma(T(x), T(y), T(z))); });
}

// Integer (as sign + magnitude) to T.
template <typename T>
Result from_int(bool negative, u64 magnitude, unsigned rm) {
  if (magnitude == 0) return {0, 0};
  long double w = static_cast<long double>(magnitude);  // exact: 64-bit significand
  return round_to<T, long double>(negative ? -w : w, rm);
}

// T to an integer type.
template <typename T, typename Int>
Result to_int(T a, unsigned rm) {
  constexpr long double kMax = static_cast<long double>(std::numeric_limits<Int>::max());
  constexpr long double kMin = static_cast<long double>(std::numeric_limits<Int>::min());
  auto saturate = [](bool low) {
    Int v = low ? std::numeric_limits<Int>::min() : std::numeric_limits<Int>::max();
    return Result{static_cast<u64>(static_cast<std::make_unsigned_t<Int>>(v)), NV};
  };
  if (std::isnan(a)) return saturate(false);
  long double x = a, r;
  switch (rm) {
    case rne: r = std::nearbyint(x); break;   // the host mode is RNE here
    case rtz: r = std::trunc(x); break;
    case rdn: r = std::floor(x); break;
    case rup: r = std::ceil(x); break;
    default: r = std::round(x); break;        // ties away from zero
  }
  if (r > kMax) return saturate(false);
  if (r < kMin) return saturate(true);
  Int v = static_cast<Int>(r);
  return {static_cast<u64>(static_cast<std::make_unsigned_t<Int>>(v)), r != x ? NX : 0u};
}

// Between the formats.
inline Result narrow(double a, unsigned rm) {
  if (std::isnan(a)) return nan_result<float>(is_snan(a));
  if (std::isinf(a) || a == 0) return {raw(static_cast<float>(a)), 0};
  return round_to<float, double>(a, rm);
}
inline Result widen(float a) {
  if (std::isnan(a)) return nan_result<double>(is_snan(a));
  return {raw(static_cast<double>(a)), 0};
}

}  // namespace ref

// ================================================================ operand generator

// Values that exercise the corners: specials, extremes of the exponent
// range, subnormals, short significands (ties), random bit patterns.
template <typename F>
class Generator {
 public:
  using B = typename F::Bits;
  explicit Generator(u64 seed) : rng_(seed) {}

  B any() {
    switch (pick(12)) {
      case 0: return special();
      case 1:
      case 2: return random_bits();
      case 3: return with_exponent(pick_exponent(), short_significand());
      case 4: return with_exponent(pick(4), random_fraction());  // subnormal .. tiny normal
      case 5: return with_exponent(F::kBias - 1 + pick(3), short_significand());  // around 1
      case 6: return with_exponent(2 * F::kBias - pick(3), random_fraction());   // near overflow
      default: return with_exponent(pick_exponent(), random_fraction());
    }
  }
  // A second operand related to the first: close to it, to its negation,
  // to a scaled version, or a short-significand value that makes ties.
  B related(B a) {
    B sign = F::kSign & (pick(2) ? ~B(0) : B(0));
    switch (pick(6)) {
      case 0: return a ^ sign;                                             // equal / cancelling
      case 1: return (a ^ sign) + static_cast<B>(pick(5)) - 2;             // a neighbour
      case 2: {                                                            // a shifted by a few binades
        int e = static_cast<int>((a & F::kExpMask) >> F::kFractionBits) - (F::kPrecision + 1 - pick(4));
        return e > 0 ? with_exponent(e, short_significand()) ^ sign : any();
      }
      case 3: return with_exponent(static_cast<int>((a & F::kExpMask) >> F::kFractionBits), short_significand()) ^ sign;
      default: return any();
    }
  }
  u64 integer() {  // integers with random length and patterns (ties when narrowed)
    int length = static_cast<int>(pick(65));
    u64 value = length == 0 ? 0 : (rng_() >> (64 - length)) | (length ? (1ull << (length - 1)) : 0);
    if (pick(3) == 0 && length > 2) value &= ~((1ull << pick(length - 1)) - 1) | 1;  // few low bits
    if (pick(3) == 0 && length > 2) value = (value >> (length / 2)) << (length / 2) | (1ull << (length / 2 - 1));
    return value;
  }
  unsigned pick(unsigned n) { return static_cast<unsigned>(rng_() % n); }

 private:
  B random_bits() { return static_cast<B>(rng_()); }
  B random_fraction() { return static_cast<B>(rng_()) & F::kFracMask; }
  B short_significand() {  // a few significant bits at the top of the fraction
    unsigned bits = 1 + pick(6);
    B top = static_cast<B>(rng_()) & ((B(1) << bits) - 1);
    return top << (F::kFractionBits - bits);
  }
  int pick_exponent() { return static_cast<int>(pick(2 * F::kBias + 1)); }  // biased, finite
  B with_exponent(int biased, B fraction) {
    B sign = pick(2) ? F::kSign : 0;
    if (biased < 0) biased = 0;
    if (biased > 2 * F::kBias) biased = 2 * F::kBias;
    return sign | (static_cast<B>(biased) << F::kFractionBits) | (fraction & F::kFracMask);
  }
  B special() {
    const B values[] = {0, F::kInfinity, F::kCanonicalNaN, F::kInfinity | 1, F::kMaxFinite,
                        B(1) << F::kFractionBits, (B(1) << F::kFractionBits) - 1, 1,
                        static_cast<B>(F::kCanonicalNaN | 0x1234), static_cast<B>(F::kBias) << F::kFractionBits};
    return values[pick(10)] | (pick(2) ? F::kSign : 0);
  }
  std::mt19937_64 rng_;
};

// ================================================================ fixture

// A result and the flags raised.
struct FpOut {
  u64 bits;
  unsigned flags;
};

class HartFloatTest : public HartTest {
 protected:
  HartFloatTest() { enable_fpu(); }

  void enable_fpu() { EXPECT_TRUE(hart.csr_write(kMstatus, (hart.mstatus() & ~kMstatusFs) | kMstatusFsInitial)); }
  void disable_fpu() { EXPECT_TRUE(hart.csr_write(kMstatus, hart.mstatus() & ~kMstatusFs)); }
  unsigned fs() const { return static_cast<unsigned>((hart.mstatus() & kMstatusFs) >> 13); }

  unsigned flags() {
    std::uint64_t value = 0;
    EXPECT_TRUE(hart.csr_read(kFflags, value));
    return static_cast<unsigned>(value);
  }
  void set_flags(unsigned value) { EXPECT_TRUE(hart.csr_write(kFflags, value)); }
  void set_frm(unsigned value) { EXPECT_TRUE(hart.csr_write(kFrm, value)); }

  // Executes one instruction that must not trap.
  std::uint64_t run(Insn insn) {
    std::uint64_t exceptions = hart.exceptions();
    std::uint64_t at = exec({insn});
    EXPECT_EQ(hart.exceptions(), exceptions) << hart.decoder().disassemble(insn.bits, at) << ": "
                                             << trap_cause_name(hart.mcause());
    EXPECT_EQ(hart.pc, at + insn.length);
    return at;
  }
  // Expects illegal instruction with mtval = the encoding and no state change.
  void expect_illegal(Insn insn) {
    u64 f0 = hart.f[fa0];
    u64 x0 = hart.x[a0];
    unsigned fflags = hart.fflags();
    std::uint64_t at = exec({insn});
    EXPECT_TRUE(trapped(TrapCause::kIllegalInstruction, at, insn.bits)) << hart.decoder().disassemble(insn.bits, at);
    EXPECT_EQ(hart.f[fa0], f0);
    EXPECT_EQ(hart.x[a0], x0);
    EXPECT_EQ(hart.fflags(), fflags);
  }

  using Out = FpOut;
  // fa0 = op(fa1, fa2, fa3) for single (boxed operands) or double values.
  Out s3(u32 insn, u32 a, u32 b = 0, u32 c = 0) {
    hart.f[fa1] = box(a);
    hart.f[fa2] = box(b);
    hart.f[fa3] = box(c);
    set_flags(0);
    run(insn);
    EXPECT_EQ(hart.f[fa0] >> 32, 0xffffffffu) << "single results are NaN-boxed";
    return {hart.f[fa0] & 0xffffffffu, flags()};
  }
  Out d3(u32 insn, u64 a, u64 b = 0, u64 c = 0) {
    hart.f[fa1] = a;
    hart.f[fa2] = b;
    hart.f[fa3] = c;
    set_flags(0);
    run(insn);
    return {hart.f[fa0], flags()};
  }
  // a0 = op(fa1[, fa2]) or fa0 = op(a1).
  Out to_x(u32 insn, u64 f1, u64 f2 = 0) {
    hart.f[fa1] = f1;
    hart.f[fa2] = f2;
    set_flags(0);
    run(insn);
    return {hart.x[a0], flags()};
  }
  Out from_x(u32 insn, u64 x1) {
    hart.x[a1] = x1;
    set_flags(0);
    run(insn);
    return {hart.f[fa0], flags()};
  }
};

::testing::AssertionResult fp_is(const FpOut& out, u64 bits, unsigned flags) {
  if (out.bits == bits && out.flags == flags) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << hex64(out.bits) << " " << flag_text(out.flags) << ", expected "
                                       << hex64(bits) << " " << flag_text(flags);
}
#define EXPECT_FP(out, expected_bits, expected_flags) EXPECT_TRUE(fp_is((out), (expected_bits), (expected_flags)))

// ================================================================ encodings

TEST(FloatDecoderTest, EncodingsMatchTheGnuAssemblerAndDisassemble) {
  // Words from riscv64-unknown-elf-as -march=rv64imafdc (objdump -M no-aliases).
  struct Case {
    u32 ours, gnu;
    const char* text;
  } cases[] = {
      {flw(fa0, a1, -4), 0xffc5a507, "flw fa0, -4(a1)"},
      {fld(fs1, sp, 2040), 0x7f813487, "fld fs1, 2040(sp)"},
      {fsw(ft11, a2, 12), 0x01f62627, "fsw ft11, 12(a2)"},
      {fsd(fa7, t0, -2048), 0x8112b027, "fsd fa7, -2048(t0)"},
      {fmadd_s(fa0, fa1, fa2, fa3), 0x68c5f543, "fmadd.s fa0, fa1, fa2, fa3"},
      {fmsub_s(ft0, ft1, ft2, ft3, rne), 0x18208047, "fmsub.s ft0, ft1, ft2, ft3, rne"},
      {fnmsub_s(fs0, fs1, fs2, fs3, rtz), 0x9924944b, "fnmsub.s fs0, fs1, fs2, fs3, rtz"},
      {fnmadd_s(fa0, fa1, fa2, fa3, rmm), 0x68c5c54f, "fnmadd.s fa0, fa1, fa2, fa3, rmm"},
      {fmadd_d(fa0, fa1, fa2, fa3, rdn), 0x6ac5a543, "fmadd.d fa0, fa1, fa2, fa3, rdn"},
      {fmsub_d(ft8, ft9, ft10, ft11), 0xfbeefe47, "fmsub.d ft8, ft9, ft10, ft11"},
      {fnmsub_d(fa0, fa1, fa2, fa3, rup), 0x6ac5b54b, "fnmsub.d fa0, fa1, fa2, fa3, rup"},
      {fnmadd_d(fa0, fa1, fa2, fa3), 0x6ac5f54f, "fnmadd.d fa0, fa1, fa2, fa3"},
      {fadd_s(fa0, fa1, fa2), 0x00c5f553, "fadd.s fa0, fa1, fa2"},
      {fsub_s(fa0, fa1, fa2, rtz), 0x08c59553, "fsub.s fa0, fa1, fa2, rtz"},
      {fmul_s(fa0, fa1, fa2, rdn), 0x10c5a553, "fmul.s fa0, fa1, fa2, rdn"},
      {fdiv_s(fa0, fa1, fa2, rup), 0x18c5b553, "fdiv.s fa0, fa1, fa2, rup"},
      {fsqrt_s(fa0, fa1, rmm), 0x5805c553, "fsqrt.s fa0, fa1, rmm"},
      {fadd_d(fa0, fa1, fa2, rne), 0x02c58553, "fadd.d fa0, fa1, fa2, rne"},
      {fsub_d(fa0, fa1, fa2), 0x0ac5f553, "fsub.d fa0, fa1, fa2"},
      {fmul_d(fa0, fa1, fa2), 0x12c5f553, "fmul.d fa0, fa1, fa2"},
      {fdiv_d(fa0, fa1, fa2), 0x1ac5f553, "fdiv.d fa0, fa1, fa2"},
      {fsqrt_d(fa0, fa1), 0x5a05f553, "fsqrt.d fa0, fa1"},
      {fsgnj_s(fa0, fa1, fa2), 0x20c58553, "fsgnj.s fa0, fa1, fa2"},
      {fsgnjn_s(fa0, fa1, fa2), 0x20c59553, "fsgnjn.s fa0, fa1, fa2"},
      {fsgnjx_s(fa0, fa1, fa2), 0x20c5a553, "fsgnjx.s fa0, fa1, fa2"},
      {fsgnj_d(fa0, fa1, fa2), 0x22c58553, "fsgnj.d fa0, fa1, fa2"},
      {fsgnjn_d(fa0, fa1, fa2), 0x22c59553, "fsgnjn.d fa0, fa1, fa2"},
      {fsgnjx_d(fa0, fa1, fa2), 0x22c5a553, "fsgnjx.d fa0, fa1, fa2"},
      {fmin_s(fa0, fa1, fa2), 0x28c58553, "fmin.s fa0, fa1, fa2"},
      {fmax_s(fa0, fa1, fa2), 0x28c59553, "fmax.s fa0, fa1, fa2"},
      {fmin_d(fa0, fa1, fa2), 0x2ac58553, "fmin.d fa0, fa1, fa2"},
      {fmax_d(fa0, fa1, fa2), 0x2ac59553, "fmax.d fa0, fa1, fa2"},
      {fcvt_s_d(fa0, fa1), 0x4015f553, "fcvt.s.d fa0, fa1"},
      {fcvt_d_s(fa0, fa1, rne), 0x42058553, "fcvt.d.s fa0, fa1"},
      {feq_s(a0, fa1, fa2), 0xa0c5a553, "feq.s a0, fa1, fa2"},
      {flt_s(a0, fa1, fa2), 0xa0c59553, "flt.s a0, fa1, fa2"},
      {fle_s(a0, fa1, fa2), 0xa0c58553, "fle.s a0, fa1, fa2"},
      {feq_d(a0, fa1, fa2), 0xa2c5a553, "feq.d a0, fa1, fa2"},
      {flt_d(a0, fa1, fa2), 0xa2c59553, "flt.d a0, fa1, fa2"},
      {fle_d(a0, fa1, fa2), 0xa2c58553, "fle.d a0, fa1, fa2"},
      {fclass_s(a0, fa1), 0xe0059553, "fclass.s a0, fa1"},
      {fclass_d(a0, fa1), 0xe2059553, "fclass.d a0, fa1"},
      {fmv_x_w(a0, fa1), 0xe0058553, "fmv.x.w a0, fa1"},
      {fmv_x_d(a0, fa1), 0xe2058553, "fmv.x.d a0, fa1"},
      {fmv_w_x(fa0, a1), 0xf0058553, "fmv.w.x fa0, a1"},
      {fmv_d_x(fa0, a1), 0xf2058553, "fmv.d.x fa0, a1"},
      {fcvt_w_s(a0, fa1, rtz), 0xc0059553, "fcvt.w.s a0, fa1, rtz"},
      {fcvt_wu_s(a0, fa1), 0xc015f553, "fcvt.wu.s a0, fa1"},
      {fcvt_l_s(a0, fa1), 0xc025f553, "fcvt.l.s a0, fa1"},
      {fcvt_lu_s(a0, fa1, rmm), 0xc035c553, "fcvt.lu.s a0, fa1, rmm"},
      {fcvt_w_d(a0, fa1, rtz), 0xc2059553, "fcvt.w.d a0, fa1, rtz"},
      {fcvt_wu_d(a0, fa1), 0xc215f553, "fcvt.wu.d a0, fa1"},
      {fcvt_l_d(a0, fa1), 0xc225f553, "fcvt.l.d a0, fa1"},
      {fcvt_lu_d(a0, fa1), 0xc235f553, "fcvt.lu.d a0, fa1"},
      {fcvt_s_w(fa0, a1), 0xd005f553, "fcvt.s.w fa0, a1"},
      {fcvt_s_wu(fa0, a1), 0xd015f553, "fcvt.s.wu fa0, a1"},
      {fcvt_s_l(fa0, a1), 0xd025f553, "fcvt.s.l fa0, a1"},
      {fcvt_s_lu(fa0, a1, rup), 0xd035b553, "fcvt.s.lu fa0, a1, rup"},
      {fcvt_d_w(fa0, a1, rne), 0xd2058553, "fcvt.d.w fa0, a1"},
      {fcvt_d_wu(fa0, a1, rne), 0xd2158553, "fcvt.d.wu fa0, a1"},
      {fcvt_d_l(fa0, a1), 0xd225f553, "fcvt.d.l fa0, a1"},
      {fcvt_d_lu(fa0, a1), 0xd235f553, "fcvt.d.lu fa0, a1"},
      {csrr(a0, kFflags), 0x00102573, "csrrs a0, fflags, zero"},
      {csrw(kFrm, a1), 0x00259073, "csrrw zero, frm, a1"},
      {csrrw(a2, kFcsr, a3), 0x00369673, "csrrw a2, fcsr, a3"},
  };
  Decoder decoder;
  for (const Case& c : cases) {
    EXPECT_EQ(hex64(c.ours), hex64(c.gnu)) << c.text;
    EXPECT_EQ(decoder.disassemble(c.gnu, 0), c.text);
  }
  EXPECT_EQ(decoder.disassemble(fadd_d(fa0, fa1, fa2, 5), 0), "fadd.d fa0, fa1, fa2, rm5") << "decodes; illegal when run";
  // Every instruction of the table decodes to its own mnemonic.
  for (const auto& spec : Decoder::float_instructions()) {
    EXPECT_EQ(decoder.mnemonic(spec.match), spec.mnemonic);
    EXPECT_EQ(decoder.find(spec.mnemonic), &spec);
  }
  EXPECT_EQ(Decoder::float_instructions().size(), 62u) << "26 F + 26 D computational, 4 loads/stores, 6 moves";
}

TEST(FloatDecoderTest, CompressedLoadsAndStoresExpandToFldAndFsd) {
  struct Case {
    Half ours;
    std::uint16_t gnu;
    const char* text;
  } cases[] = {
      {c_fld(fs0, a0, 8), 0x2500, "fld fs0, 8(a0)"},
      {c_fsd(fa5, s1, 248), 0xbcfc, "fsd fa5, 248(s1)"},
      {c_fldsp(ft0, 504), 0x307e, "fld ft0, 504(sp)"},
      {c_fsdsp(fs11, 0), 0xa06e, "fsd fs11, 0(sp)"},
  };
  Decoder decoder;
  for (const Case& c : cases) {
    EXPECT_EQ(hex64(c.ours.bits), hex64(c.gnu)) << c.text;
    DecodedInstruction d{};
    ASSERT_TRUE(decoder.decode(c.gnu, d)) << c.text;
    EXPECT_EQ(d.length, 2u);
    EXPECT_EQ(decoder.disassemble(d, 0), c.text);
  }
  DecodedInstruction d{};
  ASSERT_TRUE(decoder.decode(c_fldsp(ft0, 8).bits, d));
  EXPECT_EQ(d.rd, 0u) << "c.fldsp may load f0 (no x0-style write sink)";
  ASSERT_TRUE(decoder.decode(fld(ft0, a0, 0), d));
  EXPECT_EQ(d.rd, 0u);
  ASSERT_TRUE(decoder.decode(fmv_x_w(zero, fa0), d));
  EXPECT_EQ(d.rd, 32u) << "an integer destination x0 still goes to the sink";
}

// ================================================================ machine state

TEST_F(HartTest, FloatingPointIsOffAfterResetAndMisaHasFAndD) {
  EXPECT_TRUE(hart.misa() & (1u << ('F' - 'A')));
  EXPECT_TRUE(hart.misa() & (1u << ('D' - 'A')));
  EXPECT_EQ(hart.mstatus() & (kMstatusFs | kMstatusSd), 0u) << "FS = Off";
  std::uint64_t value = 0;
  for (std::uint16_t number : {kFflags, kFrm, kFcsr}) {
    EXPECT_FALSE(hart.csr_read(number, value)) << number;
    EXPECT_FALSE(hart.csr_write(number, 0)) << number;
  }
}

TEST_F(HartFloatTest, EveryFloatingPointInstructionIsIllegalWhileFsIsOff) {
  disable_fpu();
  install_skip_handler();
  hart.x[a1] = kDataBase;
  hart.x[sp] = kDataBase;
  for (const auto& spec : Decoder::float_instructions()) {
    // Register fields (where the pattern leaves them free) 10, 11, 12, 13; rm = RNE.
    u32 insn = spec.match | (~spec.mask & ((10u << 7) | (11u << 15) | (12u << 20) | (13u << 27)));
    expect_illegal(insn);
  }
  for (Insn insn : {Insn(c_fld(fs0, a1, 0)), Insn(c_fsd(fs0, a1, 0)), Insn(c_fldsp(fa0, 0)), Insn(c_fsdsp(fa0, 0))}) {
    std::uint64_t at = exec({insn});
    EXPECT_TRUE(trapped(TrapCause::kIllegalInstruction, at, insn.bits)) << "mtval = the 16-bit encoding";
  }
  // The fcsr CSRs too, whatever the access.
  for (u32 insn : {csrr(a0, kFflags), csrw(kFrm, a1), csrrw(a0, kFcsr, a1), csrrsi(a0, kFflags, 1), csrrci(zero, kFrm, 0)})
    expect_illegal(insn);
  // Turning FS on makes them legal again.
  enable_fpu();
  run(csrr(a0, kFcsr));
  run(fadd_d(fa0, fa1, fa2, rne));
}

TEST_F(HartFloatTest, FsBecomesDirtyOnRegisterAndFcsrWrites) {
  EXPECT_EQ(fs(), 1u) << "Initial";
  run(csrr(a0, kFcsr));
  EXPECT_EQ(fs(), 1u) << "reading fcsr is not a write";
  hart.f[fa1] = hart.f[fa2] = kOneD;
  run(feq_d(a0, fa1, fa2));
  EXPECT_EQ(fs(), 1u) << "a comparison raising no flag writes no FP state";
  run(fadd_d(fa0, fa1, fa2));
  EXPECT_EQ(fs(), 3u) << "an f register was written: Dirty";
  EXPECT_NE(hart.mstatus() & kMstatusSd, 0u) << "SD summarises FS = Dirty";

  // Clean, then each kind of write makes it Dirty again.
  auto clean = [&] {
    ASSERT_TRUE(hart.csr_write(kMstatus, (hart.mstatus() & ~kMstatusFs) | kMstatusFsClean));
    ASSERT_EQ(fs(), 2u);
    ASSERT_EQ(hart.mstatus() & kMstatusSd, 0u) << "SD follows FS";
  };
  clean();
  hart.x[a1] = 1;
  run(csrw(kFflags, a1));
  EXPECT_EQ(fs(), 3u) << "fflags write";
  clean();
  run(csrw(kFrm, zero));
  EXPECT_EQ(fs(), 3u) << "frm write";
  clean();
  hart.x[a1] = kDataBase;
  run(fld(fa0, a1, 0));
  EXPECT_EQ(fs(), 3u) << "fld";
  clean();
  run(fmv_w_x(fa0, zero));
  EXPECT_EQ(fs(), 3u) << "fmv.w.x";
  clean();
  hart.f[fa1] = kQnanD;
  run(flt_d(a0, fa1, fa2));
  EXPECT_EQ(fs(), 3u) << "flt raising NV modified fflags";
  clean();
  run(fsd(fa0, a1, 0));
  run(fmv_x_d(a0, fa0));
  run(fclass_d(a0, fa0));
  EXPECT_EQ(fs(), 2u) << "stores, moves to x and fclass write no FP state";
}

TEST_F(HartFloatTest, FcsrFieldsAndAliases) {
  hart.x[a1] = 0xfff;
  run(csrrw(a0, kFcsr, a1));
  EXPECT_EQ(hart.x[a0], 0u);
  EXPECT_EQ(hart.fflags(), 0x1fu);
  EXPECT_EQ(hart.frm(), 7u);
  run(csrr(a2, kFcsr));
  EXPECT_EQ(hart.x[a2], 0xffu) << "bits above 7 read as zero";
  run(csrr(a3, kFflags));
  EXPECT_EQ(hart.x[a3], 0x1fu);
  run(csrr(a4, kFrm));
  EXPECT_EQ(hart.x[a4], 7u);
  run(csrrwi(zero, kFrm, 5));  // any 3-bit value can be written; using it is illegal
  EXPECT_EQ(hart.frm(), 5u);
  EXPECT_EQ(csr(kFcsr), 0xbfu);
  run(csrrci(zero, kFflags, 0x11));
  EXPECT_EQ(hart.fflags(), 0x0eu);
  EXPECT_EQ(csr(kFcsr), 0xaeu);
}

TEST_F(HartFloatTest, FcsrIsAccessibleFromUserModeWhenEnabled) {
  std::uint64_t at = load({csrrwi(a0, kFrm, 3), fadd_d(fa0, fa1, fa2), ecall()});
  hart.f[fa1] = kOneD;
  hart.f[fa2] = 0x3c90000000000000;  // 2^-54: a quarter ulp of 1, rounds up in RUP only
  enter_user(at);
  step(3);
  EXPECT_TRUE(trapped(TrapCause::kEcallFromU, at + 8, 0));
  EXPECT_EQ(hart.f[fa0], kOneD + 1);
}

TEST_F(HartFloatTest, ReservedAndInvalidDynamicRoundingModesAreIllegal) {
  install_skip_handler();
  hart.f[fa1] = kOneD;
  hart.f[fa2] = kOneD;
  for (unsigned rm : {5u, 6u}) {
    expect_illegal(fadd_d(fa0, fa1, fa2, rm));
    expect_illegal(fmadd_s(fa0, fa1, fa2, fa3, rm));
    expect_illegal(fsqrt_d(fa0, fa1, rm));
    expect_illegal(fcvt_w_d(a0, fa1, rm));
    expect_illegal(fcvt_d_w(fa0, a1, rm));  // checked even when the result is exact
    expect_illegal(fcvt_d_s(fa0, fa1, rm));
    expect_illegal(fcvt_s_d(fa0, fa1, rm));
  }
  for (unsigned frm : {5u, 6u, 7u}) {
    set_frm(frm);
    expect_illegal(fadd_d(fa0, fa1, fa2, dyn));
    expect_illegal(fcvt_l_s(a0, fa1, dyn));
    expect_illegal(fcvt_d_wu(fa0, a1, dyn));
    // A static mode ignores frm; instructions without rm do not look at it.
    run(fadd_d(fa0, fa1, fa2, rtz));
    EXPECT_EQ(hart.f[fa0], kTwoD);
    run(fsgnjn_d(fa0, fa1, fa2));
    run(fmin_d(fa0, fa1, fa2));
    run(feq_d(a0, fa1, fa2));
  }
  set_frm(rup);
  run(fadd_d(fa0, fa1, fa2, dyn));
  EXPECT_EQ(hart.f[fa0], kTwoD);
}

// ================================================================ loads, stores, moves

TEST_F(HartFloatTest, LoadsBoxSinglesAndStoresWriteRawBits) {
  hart.x[a1] = kDataBase;
  bus.poke<u64>(kDataBase, 0x0123456789abcdefull);
  bus.poke<u32>(kDataBase + 12, 0x7f800001);  // a signalling NaN: loads do not quieten
  run(flw(fa0, a1, 0));
  EXPECT_EQ(hart.f[fa0], 0xffffffff89abcdefull);
  run(flw(fa2, a1, 12));
  EXPECT_EQ(hart.f[fa2], box(kSnanS));
  run(fld(fa3, a1, 0));
  EXPECT_EQ(hart.f[fa3], 0x0123456789abcdefull);
  run(flw(ft0, a1, 4));
  EXPECT_EQ(hart.f[ft0], 0xffffffff01234567ull) << "f0 is a normal register";

  hart.f[fa4] = 0x1122334455667788ull;  // not a boxed single: fsw stores the low half anyway
  run(fsw(fa4, a1, 32));
  EXPECT_EQ(bus.peek<u64>(kDataBase + 32), 0x55667788u);
  run(fsd(fa4, a1, -8 + 48));
  EXPECT_EQ(bus.peek<u64>(kDataBase + 40), 0x1122334455667788ull);
}

TEST_F(HartFloatTest, CompressedLoadsAndStores) {
  hart.x[a1] = kDataBase;
  hart.x[sp] = kDataBase + 0x100;
  bus.poke<u64>(kDataBase + 248, 0x400921fb54442d18ull);
  bus.poke<u64>(kDataBase + 0x100 + 504, 0xc000000000000000ull);
  run(c_fld(fs0, a1, 248));
  EXPECT_EQ(hart.f[fs0], 0x400921fb54442d18ull);
  run(c_fldsp(ft0, 504));
  EXPECT_EQ(hart.f[ft0], 0xc000000000000000ull) << "c.fldsp into f0";
  run(c_fsd(fs0, a1, 8));
  EXPECT_EQ(bus.peek<u64>(kDataBase + 8), 0x400921fb54442d18ull);
  hart.f[ft0] = 0x0123456789abcdefull;
  run(c_fsdsp(ft0, 16));
  EXPECT_EQ(bus.peek<u64>(kDataBase + 0x100 + 16), 0x0123456789abcdefull) << "c.fsdsp from f0";
  run(c_fsdsp(fs11, 0));
  EXPECT_EQ(bus.peek<u64>(kDataBase + 0x100), hart.f[fs11]);
}

TEST_F(HartFloatTest, LoadAndStoreFaultsTrapLikeIntegerOnes) {
  hart.x[a1] = kDataBase + 4;
  hart.f[fa0] = 0x5555;
  std::uint64_t at = exec({fld(fa0, a1, 0)});
  EXPECT_TRUE(trapped(TrapCause::kLoadMisaligned, at, kDataBase + 4));
  EXPECT_EQ(hart.f[fa0], 0x5555u);
  at = exec({fsd(fa0, a1, 0)});
  EXPECT_TRUE(trapped(TrapCause::kStoreMisaligned, at, kDataBase + 4));
  hart.x[a1] = kHole;
  at = exec({flw(fa0, a1, 0)});
  EXPECT_TRUE(trapped(TrapCause::kLoadAccessFault, at, kHole));
  at = exec({fsw(fa0, a1, 8)});
  EXPECT_TRUE(trapped(TrapCause::kStoreAccessFault, at, kHole + 8));
  hart.x[a1] = kRomBase;
  at = exec({fsd(fa0, a1, 0)});
  EXPECT_TRUE(trapped(TrapCause::kStoreAccessFault, at, kRomBase));
  EXPECT_EQ(fs(), 1u) << "no f register written";
}

TEST_F(HartFloatTest, MovesCopyBitsWithoutCanonicalising) {
  EXPECT_FP(from_x(fmv_w_x(fa0, a1), 0x123456787fc01234ull), box(0x7fc01234), 0);
  EXPECT_FP(from_x(fmv_d_x(fa0, a1), 0xfff0000000000123ull), 0xfff0000000000123ull, 0);
  EXPECT_FP(to_x(fmv_x_w(a0, fa1), box(0x80000001)), 0xffffffff80000001ull, 0) << "sign-extended";
  EXPECT_FP(to_x(fmv_x_w(a0, fa1), 0x000000007f800001ull), 0x7f800001u, 0) << "unboxed: the low half, as is";
  EXPECT_FP(to_x(fmv_x_d(a0, fa1), 0x7ff4000000000000ull), 0x7ff4000000000000ull, 0);
}

TEST_F(HartFloatTest, SignInjectionKeepsPayloadsAndUnboxesOperands) {
  EXPECT_FP(s3(fsgnj_s(fa0, fa1, fa2), 0x7f800001, kNegS), 0xff800001, 0) << "sNaN payload kept, no NV";
  EXPECT_FP(s3(fsgnjn_s(fa0, fa1, fa2), kOneS, kOneS), 0xbf800000, 0);
  EXPECT_FP(s3(fsgnjx_s(fa0, fa1, fa2), 0xbf800000, kNegS), kOneS, 0);
  EXPECT_FP(d3(fsgnj_d(fa0, fa1, fa2), kOneD, 0x8000000000000000ull), 0xbff0000000000000ull, 0);
  EXPECT_FP(d3(fsgnjn_d(fa0, fa1, fa2), 0xfff8000000000001ull, kNegD), 0x7ff8000000000001ull, 0);
  EXPECT_FP(d3(fsgnjx_d(fa0, fa1, fa2), 0xbff0000000000000ull, kNegD), kOneD, 0);
  // An unboxed operand reads as the canonical NaN (fabs/fneg of garbage is that NaN).
  hart.f[fa1] = 0x00000000bf800000ull;
  hart.f[fa2] = box(kNegS);
  run(fsgnj_s(fa0, fa1, fa2));
  EXPECT_EQ(hart.f[fa0], box(0xffc00000));
  hart.f[fa2] = 0x12345678ffffffffull;  // unboxed sign source: canonical NaN, sign +
  hart.f[fa1] = box(0xbf800000);
  run(fsgnj_s(fa0, fa1, fa2));
  EXPECT_EQ(hart.f[fa0], box(kOneS));
}

TEST_F(HartFloatTest, ImproperlyBoxedSinglesReadAsTheCanonicalNaN) {
  const u64 unboxed[] = {0x000000003f800000ull, 0xfffffffe3f800000ull, 0x7fffffff3f800000ull, kOneD};
  for (u64 value : unboxed) {
    hart.f[fa1] = value;
    hart.f[fa2] = box(kOneS);
    set_flags(0);
    run(fadd_s(fa0, fa1, fa2));
    EXPECT_EQ(hart.f[fa0], box(kQnanS)) << hex64(value);
    EXPECT_EQ(flags(), 0u) << "a quiet NaN operand raises nothing";
    EXPECT_FP(to_x(fclass_s(a0, fa1), value), 1u << 9, 0) << "quiet NaN";
    EXPECT_FP(to_x(feq_s(a0, fa1, fa2), value, box(kOneS)), 0, 0);
    EXPECT_FP(to_x(fle_s(a0, fa1, fa2), value, box(kOneS)), 0, NV);
    EXPECT_FP(to_x(fcvt_w_s(a0, fa1, rtz), value), 0x7fffffffu, NV);
    hart.f[fa1] = value;
    run(fcvt_d_s(fa0, fa1));
    EXPECT_EQ(hart.f[fa0], kQnanD);
    hart.f[fa1] = value;
    hart.f[fa2] = box(0x40400000);
    run(fmax_s(fa0, fa1, fa2));
    EXPECT_EQ(hart.f[fa0], box(0x40400000)) << "a NaN operand is ignored by fmax";
  }
  // A boxed single is a NaN to double-precision instructions.
  EXPECT_FP(d3(fadd_d(fa0, fa1, fa2), box(kOneS), kOneD), kQnanD, 0);
  EXPECT_FP(to_x(fclass_d(a0, fa1), box(kOneS)), 1u << 9, 0);
}

TEST_F(HartFloatTest, NanResultsAreCanonical) {
  EXPECT_FP(s3(fadd_s(fa0, fa1, fa2), 0xffc01234, kOneS), kQnanS, 0) << "negative NaN with payload";
  EXPECT_FP(s3(fmul_s(fa0, fa1, fa2), kOneS, 0x7f812345), kQnanS, NV) << "sNaN";
  EXPECT_FP(s3(fsqrt_s(fa0, fa1), 0xbf800000), kQnanS, NV);
  EXPECT_FP(s3(fmadd_s(fa0, fa1, fa2, fa3), kOneS, kOneS, 0xffc00001), kQnanS, 0);
  EXPECT_FP(d3(fsub_d(fa0, fa1, fa2), kInfD, kInfD), kQnanD, NV);
  EXPECT_FP(d3(fdiv_d(fa0, fa1, fa2), 0xfff8000000000abcull, kOneD), kQnanD, 0);
  EXPECT_FP(d3(fdiv_d(fa0, fa1, fa2), kOneD, 0x7ff0000000000abcull), kQnanD, NV);
  EXPECT_FP(d3(fnmadd_d(fa0, fa1, fa2, fa3), 0xfff0000000000001ull, kOneD, kOneD), kQnanD, NV);
  EXPECT_FP(d3(fcvt_s_d(fa0, fa1), 0xfff8000000000123ull), box(kQnanS), 0);
  EXPECT_FP(d3(fcvt_s_d(fa0, fa1), 0x7ff0000000000123ull), box(kQnanS), NV);
  EXPECT_FP(d3(fcvt_d_s(fa0, fa1), box(0xff800001)), kQnanD, NV);
  EXPECT_FP(d3(fcvt_d_s(fa0, fa1), box(0xffc00001)), kQnanD, 0);
}

// ================================================================ arithmetic edge cases

TEST_F(HartFloatTest, ArithmeticSpecialValues) {
  // Singles (RNE unless given).
  EXPECT_FP(s3(fadd_s(fa0, fa1, fa2), kOneS, kTwoS), 0x40400000, 0);
  EXPECT_FP(s3(fsub_s(fa0, fa1, fa2), kOneS, kOneS), 0, 0) << "x - x = +0";
  EXPECT_FP(s3(fsub_s(fa0, fa1, fa2, rdn), kOneS, kOneS), kNegS, 0) << "x - x = -0 in RDN";
  EXPECT_FP(s3(fadd_s(fa0, fa1, fa2), 0, kNegS), 0, 0);
  EXPECT_FP(s3(fadd_s(fa0, fa1, fa2, rdn), 0, kNegS), kNegS, 0);
  EXPECT_FP(s3(fadd_s(fa0, fa1, fa2), kNegS, kNegS), kNegS, 0);
  EXPECT_FP(s3(fadd_s(fa0, fa1, fa2), kInfS, 0xff800000), kQnanS, NV);
  EXPECT_FP(s3(fadd_s(fa0, fa1, fa2), kInfS, kMaxS), kInfS, 0);
  EXPECT_FP(s3(fmul_s(fa0, fa1, fa2), kInfS, kNegS), kQnanS, NV);
  EXPECT_FP(s3(fmul_s(fa0, fa1, fa2), kNegS, kOneS), kNegS, 0);
  EXPECT_FP(s3(fdiv_s(fa0, fa1, fa2), kOneS, 0), kInfS, DZ);
  EXPECT_FP(s3(fdiv_s(fa0, fa1, fa2), kOneS, kNegS), 0xff800000, DZ);
  EXPECT_FP(s3(fdiv_s(fa0, fa1, fa2), kInfS, 0), kInfS, 0) << "inf / 0 is exact, no DZ";
  EXPECT_FP(s3(fdiv_s(fa0, fa1, fa2), 0, 0), kQnanS, NV);
  EXPECT_FP(s3(fdiv_s(fa0, fa1, fa2), kInfS, kInfS), kQnanS, NV);
  EXPECT_FP(s3(fdiv_s(fa0, fa1, fa2), kOneS, kInfS), 0, 0);
  EXPECT_FP(s3(fdiv_s(fa0, fa1, fa2), kOneS, 0x40400000), 0x3eaaaaab, NX);
  EXPECT_FP(s3(fsqrt_s(fa0, fa1), kNegS), kNegS, 0) << "sqrt(-0) = -0";
  EXPECT_FP(s3(fsqrt_s(fa0, fa1), kInfS), kInfS, 0);
  EXPECT_FP(s3(fsqrt_s(fa0, fa1), 0xff800000), kQnanS, NV);
  EXPECT_FP(s3(fsqrt_s(fa0, fa1), 0x40800000), kTwoS, 0);
  EXPECT_FP(s3(fsqrt_s(fa0, fa1), kMinSubS), 0x1a3504f3, NX) << "sqrt of the smallest subnormal";
  // Doubles.
  EXPECT_FP(d3(fadd_d(fa0, fa1, fa2), kOneD, kTwoD), 0x4008000000000000ull, 0);
  EXPECT_FP(d3(fsub_d(fa0, fa1, fa2, rdn), kTwoD, kTwoD), kNegD, 0);
  EXPECT_FP(d3(fmul_d(fa0, fa1, fa2), kInfD, 0), kQnanD, NV);
  EXPECT_FP(d3(fdiv_d(fa0, fa1, fa2), kNegD, kNegD), kQnanD, NV);
  EXPECT_FP(d3(fdiv_d(fa0, fa1, fa2), 0xbff0000000000000ull, 0), 0xfff0000000000000ull, DZ);
  EXPECT_FP(d3(fsqrt_d(fa0, fa1), kTwoD), 0x3ff6a09e667f3bcdull, NX);
  EXPECT_FP(d3(fsqrt_d(fa0, fa1), 0xbff0000000000000ull), kQnanD, NV);
  EXPECT_FP(d3(fmul_d(fa0, fa1, fa2), kMinSubD, 0x3fe0000000000000ull), 0, UF | NX) << "half the smallest subnormal: tie to 0";
  EXPECT_FP(d3(fmul_d(fa0, fa1, fa2, rup), kMinSubD, 0x3fe0000000000000ull), kMinSubD, UF | NX);
  EXPECT_FP(d3(fmul_d(fa0, fa1, fa2), kMinNormalD, 0x3fe0000000000000ull), 0x0008000000000000ull, 0)
      << "an exact subnormal result does not underflow";
}

TEST_F(HartFloatTest, FusedMultiplyAddVariantsAndTheirZeroSigns) {
  // 2 * 3 + 1 with each negation: fmadd 7, fmsub 5, fnmsub -5, fnmadd -7.
  const u32 two = kTwoS, three = 0x40400000;
  EXPECT_FP(s3(fmadd_s(fa0, fa1, fa2, fa3), two, three, kOneS), 0x40e00000, 0);
  EXPECT_FP(s3(fmsub_s(fa0, fa1, fa2, fa3), two, three, kOneS), 0x40a00000, 0);
  EXPECT_FP(s3(fnmsub_s(fa0, fa1, fa2, fa3), two, three, kOneS), 0xc0a00000, 0);
  EXPECT_FP(s3(fnmadd_s(fa0, fa1, fa2, fa3), two, three, kOneS), 0xc0e00000, 0);
  const u64 twoD = kTwoD, threeD = 0x4008000000000000ull;
  EXPECT_FP(d3(fmadd_d(fa0, fa1, fa2, fa3), twoD, threeD, kOneD), 0x401c000000000000ull, 0);
  EXPECT_FP(d3(fmsub_d(fa0, fa1, fa2, fa3), twoD, threeD, kOneD), 0x4014000000000000ull, 0);
  EXPECT_FP(d3(fnmsub_d(fa0, fa1, fa2, fa3), twoD, threeD, kOneD), 0xc014000000000000ull, 0);
  EXPECT_FP(d3(fnmadd_d(fa0, fa1, fa2, fa3), twoD, threeD, kOneD), 0xc01c000000000000ull, 0);
  // One rounding: (1 + 2^-52)^2 - (1 + 2^-51) = 2^-104 exactly.
  EXPECT_FP(d3(fmsub_d(fa0, fa1, fa2, fa3), 0x3ff0000000000001ull, 0x3ff0000000000001ull, 0x3ff0000000000002ull),
            0x3970000000000000ull, 0);
  // Zero signs: +0*x + -0 = +0 (RDN: -0); fnmadd of +0*1 and +0 is -0 - 0 = -0.
  EXPECT_FP(d3(fmadd_d(fa0, fa1, fa2, fa3), 0, kOneD, kNegD), 0, 0);
  EXPECT_FP(d3(fmadd_d(fa0, fa1, fa2, fa3, rdn), 0, kOneD, kNegD), kNegD, 0);
  EXPECT_FP(d3(fnmadd_d(fa0, fa1, fa2, fa3), 0, kOneD, 0), kNegD, 0);
  EXPECT_FP(d3(fnmsub_d(fa0, fa1, fa2, fa3), 0, kOneD, 0), 0, 0);
  EXPECT_FP(d3(fmsub_d(fa0, fa1, fa2, fa3), kOneD, kOneD, kOneD), 0, 0);
  EXPECT_FP(d3(fmsub_d(fa0, fa1, fa2, fa3, rdn), kOneD, kOneD, kOneD), kNegD, 0);
  // Infinities and invalid products: inf * 0 + qNaN raises NV (RISC-V's choice).
  EXPECT_FP(d3(fmadd_d(fa0, fa1, fa2, fa3), kInfD, 0, kQnanD), kQnanD, NV);
  EXPECT_FP(s3(fmadd_s(fa0, fa1, fa2, fa3), 0, kInfS, 0x7fc00123), kQnanS, NV);
  EXPECT_FP(d3(fmadd_d(fa0, fa1, fa2, fa3), kInfD, kOneD, 0xfff0000000000000ull), kQnanD, NV);
  EXPECT_FP(d3(fmsub_d(fa0, fa1, fa2, fa3), kInfD, kOneD, kInfD), kQnanD, NV);
  EXPECT_FP(d3(fmadd_d(fa0, fa1, fa2, fa3), kInfD, kOneD, kInfD), kInfD, 0);
  EXPECT_FP(d3(fmadd_d(fa0, fa1, fa2, fa3), kOneD, kOneD, kInfD), kInfD, 0);
  EXPECT_FP(d3(fmadd_d(fa0, fa1, fa2, fa3), kMaxD, kTwoD, 0xffefffffffffffffull), kMaxD, 0)
      << "an intermediate product above the range is exact";
}

TEST_F(HartFloatTest, OverflowResultDependsOnRoundingMode) {
  struct Case {
    unsigned rm;
    u64 positive, negative;
  } cases[] = {
      {rne, kInfD, 0xfff0000000000000ull}, {rmm, kInfD, 0xfff0000000000000ull},
      {rtz, kMaxD, 0xffefffffffffffffull}, {rdn, kMaxD, 0xfff0000000000000ull},
      {rup, kInfD, 0xffefffffffffffffull},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(kModeNames[c.rm]);
    EXPECT_FP(d3(fmul_d(fa0, fa1, fa2, c.rm), kMaxD, kTwoD), c.positive, OF | NX);
    EXPECT_FP(d3(fmul_d(fa0, fa1, fa2, c.rm), kMaxD, 0xc000000000000000ull), c.negative, OF | NX);
    u32 ps = static_cast<u32>(c.positive >> 32 == 0x7ff00000 ? kInfS : kMaxS);
    EXPECT_FP(s3(fadd_s(fa0, fa1, fa2, c.rm), kMaxS, kMaxS), ps, OF | NX);
    EXPECT_FP(d3(fcvt_s_d(fa0, fa1, c.rm), kMaxD), box(ps), OF | NX);
  }
  // max + half an ulp: a tie that RNE and RMM round up into overflow; just below it, no overflow.
  EXPECT_FP(d3(fadd_d(fa0, fa1, fa2, rne), kMaxD, 0x7c90000000000000ull), kInfD, OF | NX);
  EXPECT_FP(d3(fadd_d(fa0, fa1, fa2, rmm), kMaxD, 0x7c90000000000000ull), kInfD, OF | NX);
  EXPECT_FP(d3(fadd_d(fa0, fa1, fa2, rne), kMaxD, 0x7c8fffffffffffffull), kMaxD, NX);
  EXPECT_FP(d3(fadd_d(fa0, fa1, fa2, rmm), kMaxD, 0x7c8fffffffffffffull), kMaxD, NX);
}

// The boundary case of "tininess after rounding": the exact result is just
// below the smallest normal but rounds (to the format's precision, with an
// unbounded exponent) up to it. x86 reports underflow here, RISC-V must not.
TEST_F(HartFloatTest, TininessIsDetectedAfterRounding) {
  // (1 + 2^-52) * (2^-1022 - 2^-1074) = 2^-1022 (1 - 2^-104).
  const u64 a = 0x3ff0000000000001ull, b = kMaxSubD;
  struct Case {
    unsigned rm;
    u64 result;
    unsigned flags;
  } cases[] = {
      {rne, kMinNormalD, NX}, {rmm, kMinNormalD, NX}, {rup, kMinNormalD, NX},
      {rtz, kMaxSubD, UF | NX}, {rdn, kMaxSubD, UF | NX},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(kModeNames[c.rm]);
    EXPECT_FP(d3(fmul_d(fa0, fa1, fa2, c.rm), a, b), c.result, c.flags);
    EXPECT_FP(d3(fmadd_d(fa0, fa1, fa2, fa3, c.rm), a, b, 0), c.result, c.flags);
    // Negative: RUP rounds toward zero (tiny), RDN away (to -2^-1022, not tiny).
    bool to_normal = c.rm == rne || c.rm == rmm || c.rm == rdn;
    EXPECT_FP(d3(fmul_d(fa0, fa1, fa2, c.rm), a ^ kNegD, b), (to_normal ? kMinNormalD : kMaxSubD) ^ kNegD,
              to_normal ? NX : UF | NX);
    // Singles: (1 + 2^-23) * (2^-126 - 2^-149).
    EXPECT_FP(s3(fmul_s(fa0, fa1, fa2, c.rm), 0x3f800001, kMaxSubS),
              c.result == kMinNormalD ? kMinNormalS : kMaxSubS, c.flags);
    // fcvt.s.d of 2^-126 (1 - 2^-25): the midpoint below the smallest normal single.
    unsigned expected = c.rm == rne || c.rm == rmm || c.rm == rup ? NX : UF | NX;
    EXPECT_FP(d3(fcvt_s_d(fa0, fa1, c.rm), 0x380ffffff0000000ull),
              box(c.rm == rne || c.rm == rmm || c.rm == rup ? kMinNormalS : kMaxSubS), expected);
  }
  // Just below the boundary it is tiny in every mode: 2^-1022 (1 - 2^-53) (1 + ...) cases.
  EXPECT_FP(d3(fmul_d(fa0, fa1, fa2, rne), 0x3fefffffffffffffull, kMinNormalD), kMinNormalD, UF | NX)
      << "2^-1022 (1 - 2^-53): exactly representable with 53 bits, so tiny";
}

TEST_F(HartFloatTest, RoundingModesIncludingTiesToMaxMagnitude) {
  struct Case {
    const char* what;
    u32 insn_rm0;  // encoding with rm = 0 (rm is OR-ed in)
    bool single;
    u64 a, b, c;
    u64 expected[5];  // RNE RTZ RDN RUP RMM
    unsigned flags;
  };
  const Case cases[] = {
      {"1 + 2^-24 (tie, even below)", fadd_s(fa0, fa1, fa2, 0), true, kOneS, 0x33800000, 0,
       {kOneS, kOneS, kOneS, 0x3f800001, 0x3f800001}, NX},
      {"-1 - 2^-24", fadd_s(fa0, fa1, fa2, 0), true, 0xbf800000, 0xb3800000, 0,
       {0xbf800000, 0xbf800000, 0xbf800001, 0xbf800000, 0xbf800001}, NX},
      {"(1 + 2^-23) + 2^-24 (tie, odd below)", fadd_s(fa0, fa1, fa2, 0), true, 0x3f800001, 0x33800000, 0,
       {0x3f800002, 0x3f800001, 0x3f800001, 0x3f800002, 0x3f800002}, NX},
      {"1 + 1.5 * 2^-24 (above half)", fadd_s(fa0, fa1, fa2, 0), true, kOneS, 0x33c00000, 0,
       {0x3f800001, kOneS, kOneS, 0x3f800001, 0x3f800001}, NX},
      {"1 + 2^-53 (double tie)", fadd_d(fa0, fa1, fa2, 0), false, kOneD, 0x3ca0000000000000ull, 0,
       {kOneD, kOneD, kOneD, kOneD + 1, kOneD + 1}, NX},
      {"-(1 + 2^-53)", fsub_d(fa0, fa1, fa2, 0), false, 0xbff0000000000000ull, 0x3ca0000000000000ull, 0,
       {0xbff0000000000000ull, 0xbff0000000000000ull, 0xbff0000000000001ull, 0xbff0000000000000ull,
        0xbff0000000000001ull}, NX},
      {"(1 + 3 * 2^-23) * 1.5 (tie)", fmul_s(fa0, fa1, fa2, 0), true, 0x3f800003, 0x3fc00000, 0,
       {0x3fc00004, 0x3fc00004, 0x3fc00004, 0x3fc00005, 0x3fc00005}, NX},
      {"(1 + 3 * 2^-52) * 1.5 (tie)", fmul_d(fa0, fa1, fa2, 0), false, 0x3ff0000000000003ull, 0x3ff8000000000000ull, 0,
       {0x3ff8000000000004ull, 0x3ff8000000000004ull, 0x3ff8000000000004ull, 0x3ff8000000000005ull,
        0x3ff8000000000005ull}, NX},
      {"fmadd (1 + 3 * 2^-23) * 1.5 + 0", fmadd_s(fa0, fa1, fa2, fa3, 0), true, 0x3f800003, 0x3fc00000, 0,
       {0x3fc00004, 0x3fc00004, 0x3fc00004, 0x3fc00005, 0x3fc00005}, NX},
      {"fnmsub -(1 + 3 * 2^-52) * 1.5 + 0", fnmsub_d(fa0, fa1, fa2, fa3, 0), false, 0x3ff0000000000003ull,
       0x3ff8000000000000ull, 0,
       {0xbff8000000000004ull, 0xbff8000000000004ull, 0xbff8000000000005ull, 0xbff8000000000004ull,
        0xbff8000000000005ull}, NX},
      {"5 * 2^-149 / 2 (subnormal tie)", fdiv_s(fa0, fa1, fa2, 0), true, 5, kTwoS, 0, {2, 2, 2, 3, 3}, UF | NX},
      {"sqrt 2", fsqrt_s(fa0, fa1, 0), true, kTwoS, 0, 0, {0x3fb504f3, 0x3fb504f3, 0x3fb504f3, 0x3fb504f4, 0x3fb504f3}, NX},
      {"sqrt 2 (double)", fsqrt_d(fa0, fa1, 0), false, kTwoD, 0, 0,
       {0x3ff6a09e667f3bcdull, 0x3ff6a09e667f3bccull, 0x3ff6a09e667f3bccull, 0x3ff6a09e667f3bcdull,
        0x3ff6a09e667f3bcdull}, NX},
      {"fcvt.s.d 1 + 2^-24", fcvt_s_d(fa0, fa1, 0), false, 0x3ff0000010000000ull, 0, 0,
       {box(kOneS), box(kOneS), box(kOneS), box(0x3f800001), box(0x3f800001)}, NX},
      {"fcvt.s.d -(1 + 2^-24)", fcvt_s_d(fa0, fa1, 0), false, 0xbff0000010000000ull, 0, 0,
       {box(0xbf800000), box(0xbf800000), box(0xbf800001), box(0xbf800000), box(0xbf800001)}, NX},
  };
  for (const Case& c : cases) {
    for (unsigned rm : kModes) {
      SCOPED_TRACE(std::string(c.what) + " " + kModeNames[rm]);
      u32 insn = c.insn_rm0 | rm << 12;
      if (c.single) EXPECT_FP(s3(insn, static_cast<u32>(c.a), static_cast<u32>(c.b), static_cast<u32>(c.c)), c.expected[rm], c.flags);
      else EXPECT_FP(d3(insn, c.a, c.b, c.c), c.expected[rm], c.flags);
      // The same through frm (dyn).
      set_frm(rm);
      insn = c.insn_rm0 | dyn << 12;
      if (c.single) EXPECT_FP(s3(insn, static_cast<u32>(c.a), static_cast<u32>(c.b), static_cast<u32>(c.c)), c.expected[rm], c.flags);
      else EXPECT_FP(d3(insn, c.a, c.b, c.c), c.expected[rm], c.flags);
      set_frm(rne);
    }
  }
}

// ================================================================ conversions

TEST_F(HartFloatTest, FloatToIntegerRoundsAndSaturates) {
  using Fn = u32 (*)(u32, u32, u32);
  struct Case {
    const char* what;
    Fn op;
    u64 operand;  // boxed single or double
    u64 expected[5];  // RNE RTZ RDN RUP RMM
    unsigned flags[5];
  };
  constexpr u64 kMinW = 0xffffffff80000000ull, kMaxW = 0x7fffffffull, kAllOnes = ~0ull;
  constexpr unsigned X = NX, V = NV;
  const Case cases[] = {
      {"2.5 -> w", fcvt_w_s, box(0x40200000), {2, 2, 2, 3, 3}, {X, X, X, X, X}},
      {"-2.5 -> w", fcvt_w_s, box(0xc0200000), {~1ull, ~1ull, ~2ull, ~1ull, ~2ull}, {X, X, X, X, X}},
      {"0.5 -> l", fcvt_l_d, 0x3fe0000000000000ull, {0, 0, 0, 1, 1}, {X, X, X, X, X}},
      {"-0.5 -> wu", fcvt_wu_s, box(0xbf000000), {0, 0, 0, 0, 0}, {X, X, V, X, V}},
      {"-1 -> lu", fcvt_lu_d, 0xbff0000000000000ull, {0, 0, 0, 0, 0}, {V, V, V, V, V}},
      {"-0 -> wu", fcvt_wu_s, box(kNegS), {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}},
      {"NaN -> w", fcvt_w_s, box(0xffc00000), {kMaxW, kMaxW, kMaxW, kMaxW, kMaxW}, {V, V, V, V, V}},
      {"NaN -> wu (sign-extended)", fcvt_wu_d, 0xfff8000000000000ull, {kAllOnes, kAllOnes, kAllOnes, kAllOnes, kAllOnes}, {V, V, V, V, V}},
      {"NaN -> l", fcvt_l_s, box(0x7f800001), {0x7fffffffffffffffull, 0x7fffffffffffffffull, 0x7fffffffffffffffull, 0x7fffffffffffffffull, 0x7fffffffffffffffull}, {V, V, V, V, V}},
      {"NaN -> lu", fcvt_lu_s, box(kQnanS), {kAllOnes, kAllOnes, kAllOnes, kAllOnes, kAllOnes}, {V, V, V, V, V}},
      {"-inf -> w", fcvt_w_d, 0xfff0000000000000ull, {kMinW, kMinW, kMinW, kMinW, kMinW}, {V, V, V, V, V}},
      {"+inf -> lu", fcvt_lu_s, box(kInfS), {kAllOnes, kAllOnes, kAllOnes, kAllOnes, kAllOnes}, {V, V, V, V, V}},
      {"-inf -> lu", fcvt_lu_d, 0xfff0000000000000ull, {0, 0, 0, 0, 0}, {V, V, V, V, V}},
      {"2^31 -> w", fcvt_w_s, box(0x4f000000), {kMaxW, kMaxW, kMaxW, kMaxW, kMaxW}, {V, V, V, V, V}},
      {"-2^31 -> w", fcvt_w_s, box(0xcf000000), {kMinW, kMinW, kMinW, kMinW, kMinW}, {0, 0, 0, 0, 0}},
      {"2^31 - 0.5 -> w", fcvt_w_d, 0x41dfffffffe00000ull, {kMaxW, kMaxW - 0 , kMaxW, kMaxW, kMaxW}, {V, X, X, V, V}},
      {"-2^31 - 0.5 -> w", fcvt_w_d, 0xc1e0000000100000ull, {kMinW, kMinW, kMinW, kMinW, kMinW}, {X, X, V, X, V}},
      {"2^32 - 1 -> wu (sign-extended)", fcvt_wu_d, 0x41efffffffe00000ull, {kAllOnes, kAllOnes, kAllOnes, kAllOnes, kAllOnes}, {0, 0, 0, 0, 0}},
      {"2^32 - 0.5 -> wu", fcvt_wu_d, 0x41effffffff00000ull, {kAllOnes, kAllOnes, kAllOnes, kAllOnes, kAllOnes}, {V, X, X, V, V}},
      {"2^63 -> l", fcvt_l_d, 0x43e0000000000000ull, {0x7fffffffffffffffull, 0x7fffffffffffffffull, 0x7fffffffffffffffull, 0x7fffffffffffffffull, 0x7fffffffffffffffull}, {V, V, V, V, V}},
      {"-2^63 -> l", fcvt_l_d, 0xc3e0000000000000ull, {kNegD, kNegD, kNegD, kNegD, kNegD}, {0, 0, 0, 0, 0}},
      {"2^64 - 2^40 -> lu", fcvt_lu_s, box(0x5f7fffff), {0xffffff0000000000ull, 0xffffff0000000000ull, 0xffffff0000000000ull, 0xffffff0000000000ull, 0xffffff0000000000ull}, {0, 0, 0, 0, 0}},
      {"2^64 -> lu", fcvt_lu_d, 0x43f0000000000000ull, {kAllOnes, kAllOnes, kAllOnes, kAllOnes, kAllOnes}, {V, V, V, V, V}},
      {"smallest subnormal -> l", fcvt_l_d, 1, {0, 0, 0, 1, 0}, {X, X, X, X, X}},
      {"-smallest subnormal -> l", fcvt_l_d, kNegD | 1, {0, 0, kAllOnes, 0, 0}, {X, X, X, X, X}},
  };
  for (const Case& c : cases) {
    for (unsigned rm : kModes) {
      SCOPED_TRACE(std::string(c.what) + " " + kModeNames[rm]);
      EXPECT_FP(to_x(c.op(a0, fa1, rm), c.operand), c.expected[rm], c.flags[rm]);
    }
  }
}

TEST_F(HartFloatTest, IntegerToFloatRoundsAndUsesTheLowWordForW) {
  using Fn = u32 (*)(u32, u32, u32);
  struct Case {
    const char* what;
    Fn op;
    u64 operand;
    u64 expected[5];  // RNE RTZ RDN RUP RMM
    unsigned flags;
  };
  const Case cases[] = {
      {"2^24 + 1 -> s (tie)", fcvt_s_w, 0x1000001, {box(0x4b800000), box(0x4b800000), box(0x4b800000), box(0x4b800001), box(0x4b800001)}, NX},
      {"-(2^24 + 1) -> s", fcvt_s_l, static_cast<u64>(-0x1000001ll), {box(0xcb800000), box(0xcb800000), box(0xcb800001), box(0xcb800000), box(0xcb800001)}, NX},
      {"w uses bits 31:0", fcvt_s_w, 0xabcdef0100000005ull, {box(0x40a00000), box(0x40a00000), box(0x40a00000), box(0x40a00000), box(0x40a00000)}, 0},
      {"wu of 2^32 - 1", fcvt_s_wu, 0x12345678ffffffffull, {box(0x4f800000), box(0x4f7fffff), box(0x4f7fffff), box(0x4f800000), box(0x4f800000)}, NX},
      {"w of -1", fcvt_d_w, 0x00000000ffffffffull, {0xbff0000000000000ull, 0xbff0000000000000ull, 0xbff0000000000000ull, 0xbff0000000000000ull, 0xbff0000000000000ull}, 0},
      {"wu of 2^32 - 1 (exact)", fcvt_d_wu, 0xffffffffffffffffull, {0x41efffffffe00000ull, 0x41efffffffe00000ull, 0x41efffffffe00000ull, 0x41efffffffe00000ull, 0x41efffffffe00000ull}, 0},
      {"l of -2^63", fcvt_d_l, 0x8000000000000000ull, {0xc3e0000000000000ull, 0xc3e0000000000000ull, 0xc3e0000000000000ull, 0xc3e0000000000000ull, 0xc3e0000000000000ull}, 0},
      {"l of 2^63 - 1", fcvt_d_l, 0x7fffffffffffffffull, {0x43e0000000000000ull, 0x43dfffffffffffffull, 0x43dfffffffffffffull, 0x43e0000000000000ull, 0x43e0000000000000ull}, NX},
      {"lu of 2^64 - 1", fcvt_d_lu, ~0ull, {0x43f0000000000000ull, 0x43efffffffffffffull, 0x43efffffffffffffull, 0x43f0000000000000ull, 0x43f0000000000000ull}, NX},
      {"lu of 2^53 + 1 (tie)", fcvt_d_lu, (1ull << 53) + 1, {0x4340000000000000ull, 0x4340000000000000ull, 0x4340000000000000ull, 0x4340000000000001ull, 0x4340000000000001ull}, NX},
      {"l of 0 is +0", fcvt_s_l, 0, {box(0), box(0), box(0), box(0), box(0)}, 0},
  };
  for (const Case& c : cases) {
    for (unsigned rm : kModes) {
      SCOPED_TRACE(std::string(c.what) + " " + kModeNames[rm]);
      EXPECT_FP(from_x(c.op(fa0, a1, rm), c.operand), c.expected[rm], c.flags);
    }
  }
}

TEST_F(HartFloatTest, ConversionsBetweenFormats) {
  EXPECT_FP(d3(fcvt_d_s(fa0, fa1), box(kMinSubS)), 0x36a0000000000000ull, 0) << "subnormal single: exact";
  EXPECT_FP(d3(fcvt_d_s(fa0, fa1), box(0xff800000)), 0xfff0000000000000ull, 0);
  EXPECT_FP(d3(fcvt_d_s(fa0, fa1), box(kNegS)), kNegD, 0);
  EXPECT_FP(d3(fcvt_s_d(fa0, fa1), 0x3ff0000000000000ull), box(kOneS), 0);
  EXPECT_FP(d3(fcvt_s_d(fa0, fa1), kMinSubD), box(0), UF | NX);
  EXPECT_FP(d3(fcvt_s_d(fa0, fa1, rup), kMinSubD), box(kMinSubS), UF | NX);
  EXPECT_FP(d3(fcvt_s_d(fa0, fa1, rdn), kMinSubD | kNegD), box(0x80000001), UF | NX);
  EXPECT_FP(d3(fcvt_s_d(fa0, fa1), 0x36a0000000000000ull), box(kMinSubS), 0) << "exact subnormal";
  EXPECT_FP(d3(fcvt_s_d(fa0, fa1), 0x7ff0000000000000ull), box(kInfS), 0);
}

// ================================================================ min, max, compare, classify

TEST_F(HartFloatTest, MinMaxFollowMinimumNumberAndMaximumNumber) {
  struct Case {
    u32 a, b, min, max;
    unsigned flags;
  } cases[] = {
      {kOneS, kTwoS, kOneS, kTwoS, 0},
      {0xbf800000, kOneS, 0xbf800000, kOneS, 0},
      {kNegS, 0, kNegS, 0, 0},  // -0 < +0
      {0, kNegS, kNegS, 0, 0},
      {kQnanS, kOneS, kOneS, kOneS, 0},  // a quiet NaN is ignored
      {kOneS, 0xffc00001, kOneS, kOneS, 0},
      {kSnanS, kOneS, kOneS, kOneS, NV},  // a signalling NaN too, but raises NV
      {kQnanS, 0xff800001, kQnanS, kQnanS, NV},  // two NaNs: the canonical NaN
      {0xffc00001, 0xffc00002, kQnanS, kQnanS, 0},
      {kInfS, 0xff800000, 0xff800000, kInfS, 0},
      {kMinSubS, 0x80000001, 0x80000001, kMinSubS, 0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(hex64(c.a) + " " + hex64(c.b));
    EXPECT_FP(s3(fmin_s(fa0, fa1, fa2), c.a, c.b), c.min, c.flags);
    EXPECT_FP(s3(fmax_s(fa0, fa1, fa2), c.a, c.b), c.max, c.flags);
    // The same in double precision.
    auto widen = [](u32 x) -> u64 {
      switch (x) {
        case kQnanS: return kQnanD;
        case kSnanS: return kSnanD;
        case 0xffc00001: return 0xfff8000000000001ull;
        case 0xffc00002: return 0xfff8000000000002ull;
        case 0xff800001: return 0xfff0000000000001ull;
        default: return bits_of(static_cast<double>(float_of(x)));
      }
    };
    u64 min = c.min == kQnanS ? kQnanD : widen(c.min), max = c.max == kQnanS ? kQnanD : widen(c.max);
    EXPECT_FP(d3(fmin_d(fa0, fa1, fa2), widen(c.a), widen(c.b)), min, c.flags);
    EXPECT_FP(d3(fmax_d(fa0, fa1, fa2), widen(c.a), widen(c.b)), max, c.flags);
  }
}

TEST_F(HartFloatTest, ComparisonsSignalOnlyWhenTheyShould) {
  struct Case {
    u64 a, b;
    unsigned eq, lt, le;
    unsigned eq_flags, lt_flags;  // fle signals like flt
  } cases[] = {
      {kOneD, kTwoD, 0, 1, 1, 0, 0},
      {kTwoD, kOneD, 0, 0, 0, 0, 0},
      {kOneD, kOneD, 1, 0, 1, 0, 0},
      {0, kNegD, 1, 0, 1, 0, 0},  // +0 == -0
      {kNegD, 0, 1, 0, 1, 0, 0},
      {0xfff0000000000000ull, kMaxD, 0, 1, 1, 0, 0},
      {kQnanD, kOneD, 0, 0, 0, 0, NV},  // quiet NaN: feq quiet, flt/fle signal
      {kOneD, kQnanD, 0, 0, 0, 0, NV},
      {kSnanD, kOneD, 0, 0, 0, NV, NV},  // signalling NaN: all signal
      {kQnanD, kQnanD, 0, 0, 0, 0, NV},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(hex64(c.a) + " " + hex64(c.b));
    EXPECT_FP(to_x(feq_d(a0, fa1, fa2), c.a, c.b), c.eq, c.eq_flags);
    EXPECT_FP(to_x(flt_d(a0, fa1, fa2), c.a, c.b), c.lt, c.lt_flags);
    EXPECT_FP(to_x(fle_d(a0, fa1, fa2), c.a, c.b), c.le, c.lt_flags);
  }
  EXPECT_FP(to_x(feq_s(a0, fa1, fa2), box(kSnanS), box(kOneS)), 0, NV);
  EXPECT_FP(to_x(feq_s(a0, fa1, fa2), box(kQnanS), box(kQnanS)), 0, 0);
  EXPECT_FP(to_x(flt_s(a0, fa1, fa2), box(0xbf800000), box(kNegS)), 1, 0);
  EXPECT_FP(to_x(fle_s(a0, fa1, fa2), box(kNegS), box(0)), 1, 0);
  EXPECT_FP(to_x(flt_s(a0, fa1, fa2), box(kNegS), box(0)), 0, 0);
  hart.f[fa1] = hart.f[fa2] = kOneD;
  run(feq_d(zero, fa1, fa2));
  EXPECT_EQ(hart.x[zero], 0u) << "x0 stays zero";
}

TEST_F(HartFloatTest, ClassifyEveryKindOfValue) {
  const std::pair<u64, unsigned> doubles[] = {
      {0xfff0000000000000ull, 0}, {0xbff0000000000000ull, 1}, {0x800fffffffffffffull, 2}, {kNegD, 3},
      {0, 4}, {1, 5}, {kMaxD, 6}, {kInfD, 7}, {kSnanD, 8}, {kQnanD, 9}, {0xfff8000000000001ull, 9},
      {0x7ff7ffffffffffffull, 8}};
  for (auto [value, bit] : doubles) EXPECT_FP(to_x(fclass_d(a0, fa1), value), 1u << bit, 0) << hex64(value);
  const std::pair<u32, unsigned> singles[] = {
      {0xff800000, 0}, {0xbf800000, 1}, {0x807fffff, 2}, {kNegS, 3}, {0, 4}, {kMinSubS, 5},
      {kMaxS, 6}, {kInfS, 7}, {kSnanS, 8}, {kQnanS, 9}, {0xffc00000, 9}};
  for (auto [value, bit] : singles) EXPECT_FP(to_x(fclass_s(a0, fa1), box(value)), 1u << bit, 0) << hex64(value);
}

// ================================================================ the host's environment

// The host's rounding mode is kept, whatever the guest does; flags other
// host code left in MXCSR never reach the guest's fflags, with or without
// flags accrued already.
TEST_F(HartFloatTest, HostEnvironmentAndGuestStateStayApart) {
  const int kStale[] = {0, FE_INEXACT, FE_UNDERFLOW, FE_INVALID | FE_DIVBYZERO | FE_OVERFLOW, FE_ALL_EXCEPT};
  for (int host : {FE_TONEAREST, FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO}) {
    for (int stale : kStale) {
      for (unsigned accrued : {0u, NX, NV | DZ | OF | UF | NX}) {
        SCOPED_TRACE("host mode " + std::to_string(host) + ", stale " + std::to_string(stale) + ", accrued " +
                     flag_text(accrued));
        auto with = [&](u32 insn, u64 a, u64 b, u64 c = 0) {
          hart.f[fa1] = a;
          hart.f[fa2] = b;
          hart.f[fa3] = c;
          set_flags(accrued);
          std::fesetround(host);
          std::feclearexcept(FE_ALL_EXCEPT);
          if (stale) std::feraiseexcept(stale);
#if defined(__x86_64__)
          // SSE control (rounding, masks, FTZ/DAZ): fegetround() only shows the x87 one.
          const unsigned control = _mm_getcsr() & ~0x3fu;
#endif
          run(insn);
#if defined(__x86_64__)
          EXPECT_EQ(_mm_getcsr() & ~0x3fu, control) << "MXCSR control bits are left alone";
#endif
          int mode = std::fegetround();
          std::fesetround(FE_TONEAREST);
          EXPECT_EQ(mode, host) << "the host's rounding mode is left alone";
          return FpOut{hart.f[fa0], flags()};
        };
        EXPECT_FP(with(fadd_d(fa0, fa1, fa2, rne), kOneD, kTwoD), 0x4008000000000000ull, accrued) << "exact";
        EXPECT_FP(with(fadd_d(fa0, fa1, fa2, rne), kOneD, 0x3ca0000000000000ull), kOneD, accrued | NX);
        EXPECT_FP(with(fadd_d(fa0, fa1, fa2, rup), kOneD, 0x3ca0000000000000ull), kOneD + 1, accrued | NX);
        EXPECT_FP(with(fmul_d(fa0, fa1, fa2, rne), 0x3ff0000000000001ull, kMaxSubD), kMinNormalD, accrued | NX);
        EXPECT_FP(with(fmul_d(fa0, fa1, fa2, rmm), kMinSubD, 0x3fe0000000000000ull), kMinSubD, accrued | UF | NX)
            << "a tie: away from zero";
        EXPECT_FP(with(fmadd_d(fa0, fa1, fa2, fa3, rtz), kMaxD, kTwoD, 0), kMaxD, accrued | OF | NX);
        EXPECT_FP(with(fdiv_d(fa0, fa1, fa2, rne), kOneD, 0), kInfD, accrued | DZ);
        EXPECT_FP(with(fsqrt_d(fa0, fa1, rne), kTwoD, 0), 0x3ff6a09e667f3bcdull, accrued | NX);
        EXPECT_FP(with(fsub_d(fa0, fa1, fa2, rne), kInfD, kInfD), kQnanD, accrued | NV);
        EXPECT_FP(with(fmadd_d(fa0, fa1, fa2, fa3, rne), kInfD, 0, kQnanD), kQnanD, accrued | NV);
        EXPECT_FP(with(fmul_s(fa0, fa1, fa2, rne), box(kOneS), box(kTwoS)), box(kTwoS), accrued) << "exact";
      }
    }
  }
  std::feclearexcept(FE_ALL_EXCEPT);
}

// ================================================================ randomized comparison

constexpr int kRandomCases = 3000;  // per operation, format and rounding mode

template <typename F> using Host = typename F::Host;
template <typename F> using BitsT = typename F::Bits;

template <typename F>
u64 boxed(BitsT<F> value) {
  if constexpr (sizeof(BitsT<F>) == 4) return box(value);
  else return value;
}
template <typename F>
Host<F> host_of(BitsT<F> bits) {
  Host<F> value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

class HartFloatRandomTest : public HartFloatTest {
 protected:
  // Runs the instruction placed at `at` again (operands already set) and
  // returns the result and the flags it raised. Half of the time some flags
  // are accrued already and the host has stale flags of its own (so both
  // the host's fast and exact paths run).
  Out rerun(std::uint64_t at, bool integer_result) {
    ++runs_;
    unsigned accrued = (runs_ & 1) ? 0 : (runs_ >> 1) % 32;
    set_flags(accrued);
    std::feclearexcept(FE_ALL_EXCEPT);
    if (runs_ % 3 == 0) std::feraiseexcept(FE_INEXACT);
    if (runs_ % 7 == 0) std::feraiseexcept(FE_UNDERFLOW | FE_INVALID);
    std::uint64_t exceptions = hart.exceptions();
    hart.pc = at;
    step();
    EXPECT_EQ(hart.exceptions(), exceptions) << trap_cause_name(hart.mcause());
    unsigned raised = flags();
    EXPECT_EQ(raised & accrued, accrued) << "accrued flags stay";
    // The flags the instruction raised, as far as they can be told apart.
    return {integer_result ? hart.x[a0] : hart.f[fa0], raised & ~accrued};
  }

  // Compares flags allowing for the accrued ones: a flag accrued before
  // cannot be seen again; equal means got == expected minus those.
  unsigned last_accrued() const { return (runs_ & 1) ? 0 : (runs_ >> 1) % 32; }
  std::uint64_t runs_ = 0;

  // Compares one result with the reference; false (and a failure) when they differ.
  template <typename F>
  bool same(const char* name, unsigned rm, const std::string& operands, u64 got_bits, unsigned got_flags,
            ref::Result expected, bool f_result = true, unsigned accrued = 0) {
    u64 expected_bits = f_result ? boxed<F>(static_cast<BitsT<F>>(expected.bits)) : expected.bits;
    expected.flags &= ~accrued;
    if (got_bits == expected_bits && got_flags == expected.flags) return true;
    ADD_FAILURE() << name << " " << kModeNames[rm] << " " << operands << ": got " << hex64(got_bits) << " "
                  << flag_text(got_flags) << ", expected " << hex64(expected_bits) << " " << flag_text(expected.flags);
    return false;
  }

  using Encode2 = u32 (*)(u32, u32, u32, u32);
  using Encode3 = u32 (*)(u32, u32, u32, u32, u32);

  // op(a, b) through the Hart and through fp::soft, against the reference.
  template <typename F>
  void random_binary(const char* name, Encode2 encode, ref::Result (*reference)(Host<F>, Host<F>, unsigned),
                     BitsT<F> (*soft)(BitsT<F>, BitsT<F>, unsigned, unsigned&), u64 seed) {
    Generator<F> gen(seed);
    for (unsigned rm : kModes) {
      std::uint64_t at = load({encode(fa0, fa1, fa2, rm)});
      int failures = 0;
      for (int i = 0; i < kRandomCases && failures < 5; ++i) {
        BitsT<F> a = gen.any(), b = gen.pick(2) ? gen.related(a) : gen.any();
        ref::Result expected = reference(host_of<F>(a), host_of<F>(b), rm);
        std::string operands = hex64(a) + " " + hex64(b);
        hart.f[fa1] = boxed<F>(a);
        hart.f[fa2] = boxed<F>(b);
        Out got = rerun(at, false);
        unsigned soft_flags = 0;
        BitsT<F> soft_bits = soft(a, b, rm, soft_flags);
        if (!same<F>(name, rm, operands, got.bits, got.flags, expected, true, last_accrued()) ||
            !same<F>((std::string(name) + " (fp::soft)").c_str(), rm, operands, boxed<F>(soft_bits), soft_flags, expected))
          ++failures;
      }
    }
  }

  template <typename F>
  void random_sqrt(const char* name, u32 (*encode)(u32, u32, u32), u64 seed) {
    Generator<F> gen(seed);
    for (unsigned rm : kModes) {
      std::uint64_t at = load({encode(fa0, fa1, rm)});
      int failures = 0;
      for (int i = 0; i < kRandomCases && failures < 5; ++i) {
        BitsT<F> a = gen.any();
        if (gen.pick(4)) a &= ~F::kSign;  // mostly positive
        ref::Result expected = ref::sqrt(host_of<F>(a), rm);
        hart.f[fa1] = boxed<F>(a);
        Out got = rerun(at, false);
        unsigned soft_flags = 0;
        BitsT<F> soft_bits = fp::soft::sqrt<F>(a, rm, soft_flags);
        if (!same<F>(name, rm, hex64(a), got.bits, got.flags, expected, true, last_accrued()) ||
            !same<F>("fsqrt (fp::soft)", rm, hex64(a), boxed<F>(soft_bits), soft_flags, expected))
          ++failures;
      }
    }
  }

  // The four fused forms: fmadd a*b+c, fmsub a*b-c, fnmsub -(a*b)+c, fnmadd -(a*b)-c.
  template <typename F>
  void random_fused(const char* name, Encode3 encode, bool negate_product, bool negate_addend, u64 seed) {
    Generator<F> gen(seed);
    for (unsigned rm : kModes) {
      std::uint64_t at = load({encode(fa0, fa1, fa2, fa3, rm)});
      int failures = 0;
      for (int i = 0; i < kRandomCases && failures < 5; ++i) {
        BitsT<F> a = gen.any(), b = gen.any(), c;
        if (gen.pick(2)) {
          // An addend close to the product (cancellation, ties): the product rounded, nudged.
          unsigned scratch = 0;
          c = fp::soft::mul<F>(a, b, gen.pick(5), scratch);
          c = gen.pick(2) ? c ^ F::kSign : gen.related(c);
        } else {
          c = gen.pick(2) ? gen.related(a) : gen.any();
        }
        BitsT<F> a_eff = negate_product ? a ^ F::kSign : a, c_eff = negate_addend ? c ^ F::kSign : c;
        ref::Result expected = ref::fma(host_of<F>(a_eff), host_of<F>(b), host_of<F>(c_eff), rm);
        std::string operands = hex64(a) + " " + hex64(b) + " " + hex64(c);
        hart.f[fa1] = boxed<F>(a);
        hart.f[fa2] = boxed<F>(b);
        hart.f[fa3] = boxed<F>(c);
        Out got = rerun(at, false);
        unsigned soft_flags = 0;
        BitsT<F> soft_bits = fp::soft::fma<F>(a_eff, b, c_eff, rm, soft_flags);
        if (!same<F>(name, rm, operands, got.bits, got.flags, expected, true, last_accrued()) ||
            !same<F>((std::string(name) + " (fp::soft)").c_str(), rm, operands, boxed<F>(soft_bits), soft_flags, expected))
          ++failures;
      }
    }
  }

  // Float to integer of every width.
  template <typename F, typename Int>
  void random_to_int(const char* name, u32 (*encode)(u32, u32, u32), u64 seed) {
    Generator<F> gen(seed);
    for (unsigned rm : kModes) {
      std::uint64_t at = load({encode(a0, fa1, rm)});
      int failures = 0;
      for (int i = 0; i < kRandomCases && failures < 5; ++i) {
        BitsT<F> a;
        if (gen.pick(2)) {  // near the integer range and around small halves
          int bits = 8 * static_cast<int>(sizeof(Int));
          int e = gen.pick(3) ? bits - 3 + static_cast<int>(gen.pick(5)) : static_cast<int>(gen.pick(6)) - 2;
          BitsT<F> fraction = static_cast<BitsT<F>>(gen.any()) & F::kFracMask;
          if (gen.pick(2)) fraction &= ~((BitsT<F>(1) << (F::kFractionBits - std::min(F::kFractionBits, std::max(e + 2, 1)))) - 1);
          a = (static_cast<BitsT<F>>(e + F::kBias) << F::kFractionBits) | fraction | (gen.pick(2) ? F::kSign : 0);
        } else {
          a = gen.any();
        }
        ref::Result expected = ref::to_int<Host<F>, Int>(host_of<F>(a), rm);
        if (sizeof(Int) == 4) expected.bits = static_cast<u64>(static_cast<i64>(static_cast<i32>(expected.bits)));
        hart.f[fa1] = boxed<F>(a);
        Out got = rerun(at, true);
        if (!same<F>(name, rm, hex64(a), got.bits, got.flags, expected, false, last_accrued())) ++failures;
      }
    }
  }

  // Integer (with garbage above bit 31 for the w forms) to float.
  template <typename F, typename Int>
  void random_from_int(const char* name, u32 (*encode)(u32, u32, u32), u64 seed) {
    Generator<F> gen(seed);
    for (unsigned rm : kModes) {
      std::uint64_t at = load({encode(fa0, a1, rm)});
      int failures = 0;
      for (int i = 0; i < kRandomCases && failures < 5; ++i) {
        u64 magnitude = gen.integer();
        Int value = static_cast<Int>(magnitude);
        if (std::is_signed_v<Int> && gen.pick(2)) value = static_cast<Int>(0 - static_cast<std::make_unsigned_t<Int>>(value));
        bool negative = std::is_signed_v<Int> && value < Int(0);
        u64 expected_magnitude = negative ? 0 - static_cast<u64>(static_cast<i64>(value)) : static_cast<u64>(value);
        ref::Result expected = ref::from_int<Host<F>>(negative, expected_magnitude, rm);
        u64 x = static_cast<u64>(static_cast<i64>(value));
        if (sizeof(Int) == 4) x = (gen.integer() << 32) | static_cast<u32>(value);
        hart.x[a1] = x;
        Out got = rerun(at, false);
        if (!same<F>(name, rm, hex64(x), got.bits, got.flags, expected, true, last_accrued())) ++failures;
      }
    }
  }
};

TEST_F(HartFloatRandomTest, AddSubMulDivSingle) {
  random_binary<F32>("fadd.s", fadd_s, ref::add<float>, fp::soft::add<F32>, 1);
  random_binary<F32>("fsub.s", fsub_s, ref::sub<float>, fp::soft::sub<F32>, 2);
  random_binary<F32>("fmul.s", fmul_s, ref::mul<float>, fp::soft::mul<F32>, 3);
  random_binary<F32>("fdiv.s", fdiv_s, ref::div<float>, fp::soft::div<F32>, 4);
}

TEST_F(HartFloatRandomTest, AddSubMulDivDouble) {
  random_binary<F64>("fadd.d", fadd_d, ref::add<double>, fp::soft::add<F64>, 5);
  random_binary<F64>("fsub.d", fsub_d, ref::sub<double>, fp::soft::sub<F64>, 6);
  random_binary<F64>("fmul.d", fmul_d, ref::mul<double>, fp::soft::mul<F64>, 7);
  random_binary<F64>("fdiv.d", fdiv_d, ref::div<double>, fp::soft::div<F64>, 8);
}

TEST_F(HartFloatRandomTest, SquareRoot) {
  random_sqrt<F32>("fsqrt.s", fsqrt_s, 9);
  random_sqrt<F64>("fsqrt.d", fsqrt_d, 10);
}

TEST_F(HartFloatRandomTest, FusedMultiplyAddSingle) {
  random_fused<F32>("fmadd.s", fmadd_s, false, false, 11);
  random_fused<F32>("fmsub.s", fmsub_s, false, true, 12);
  random_fused<F32>("fnmsub.s", fnmsub_s, true, false, 13);
  random_fused<F32>("fnmadd.s", fnmadd_s, true, true, 14);
}

TEST_F(HartFloatRandomTest, FusedMultiplyAddDouble) {
  random_fused<F64>("fmadd.d", fmadd_d, false, false, 15);
  random_fused<F64>("fmsub.d", fmsub_d, false, true, 16);
  random_fused<F64>("fnmsub.d", fnmsub_d, true, false, 17);
  random_fused<F64>("fnmadd.d", fnmadd_d, true, true, 18);
}

TEST_F(HartFloatRandomTest, FloatToInteger) {
  random_to_int<F32, i32>("fcvt.w.s", fcvt_w_s, 19);
  random_to_int<F32, u32>("fcvt.wu.s", fcvt_wu_s, 20);
  random_to_int<F32, i64>("fcvt.l.s", fcvt_l_s, 21);
  random_to_int<F32, u64>("fcvt.lu.s", fcvt_lu_s, 22);
  random_to_int<F64, i32>("fcvt.w.d", fcvt_w_d, 23);
  random_to_int<F64, u32>("fcvt.wu.d", fcvt_wu_d, 24);
  random_to_int<F64, i64>("fcvt.l.d", fcvt_l_d, 25);
  random_to_int<F64, u64>("fcvt.lu.d", fcvt_lu_d, 26);
}

TEST_F(HartFloatRandomTest, IntegerToFloat) {
  random_from_int<F32, i32>("fcvt.s.w", fcvt_s_w, 27);
  random_from_int<F32, u32>("fcvt.s.wu", fcvt_s_wu, 28);
  random_from_int<F32, i64>("fcvt.s.l", fcvt_s_l, 29);
  random_from_int<F32, u64>("fcvt.s.lu", fcvt_s_lu, 30);
  random_from_int<F64, i32>("fcvt.d.w", fcvt_d_w, 31);
  random_from_int<F64, u32>("fcvt.d.wu", fcvt_d_wu, 32);
  random_from_int<F64, i64>("fcvt.d.l", fcvt_d_l, 33);
  random_from_int<F64, u64>("fcvt.d.lu", fcvt_d_lu, 34);
}

TEST_F(HartFloatRandomTest, BetweenFormats) {
  Generator<F64> gen(35);
  Generator<F32> gen32(36);
  for (unsigned rm : kModes) {
    std::uint64_t narrow_at = load({fcvt_s_d(fa0, fa1, rm)});
    std::uint64_t widen_at = load({fcvt_d_s(fa0, fa1, rm)});
    int failures = 0;
    for (int i = 0; i < kRandomCases && failures < 5; ++i) {
      u64 d = gen.any();
      if (gen.pick(3)) {  // in or near the single-precision range, sometimes with few fraction bits
        u64 fraction = gen.any() & F64::kFracMask;
        if (gen.pick(2)) fraction &= ~((1ull << (20 + gen.pick(12))) - 1);
        u64 biased = 1023 - 155 + gen.pick(290);
        d = (biased << 52) | fraction | (gen.pick(2) ? kNegD : 0);
      }
      hart.f[fa1] = d;
      Out got = rerun(narrow_at, false);
      if (!same<F32>("fcvt.s.d", rm, hex64(d), got.bits, got.flags, ref::narrow(double_of(d), rm), true, last_accrued())) ++failures;
      u32 s = gen32.any();
      hart.f[fa1] = box(s);
      got = rerun(widen_at, false);
      if (!same<F64>("fcvt.d.s", rm, hex64(s), got.bits, got.flags, ref::widen(float_of(s)), true, last_accrued())) ++failures;
    }
  }
}

// The reference itself, on cases whose answers are known.
TEST(FloatReferenceTest, KnownAnswers) {
  auto r = ref::add<float>(1.0f, std::ldexp(1.0f, -24), rmm);
  EXPECT_EQ(r.bits, 0x3f800001u);
  EXPECT_EQ(r.flags, NX);
  r = ref::add<float>(1.0f, std::ldexp(1.0f, -24), rne);
  EXPECT_EQ(r.bits, 0x3f800000u);
  r = ref::mul<double>(double_of(0x3ff0000000000001ull), double_of(kMaxSubD), rne);
  EXPECT_EQ(r.bits, kMinNormalD);
  EXPECT_EQ(r.flags, NX) << "tiny after rounding: no underflow";
  r = ref::mul<double>(double_of(kMinSubD), 0.5, rne);
  EXPECT_EQ(r.bits, 0u);
  EXPECT_EQ(r.flags, UF | NX);
  r = ref::fma<double>(double_of(0x3ff0000000000001ull), double_of(0x3ff0000000000001ull),
                       -double_of(0x3ff0000000000002ull), rne);
  EXPECT_EQ(r.bits, 0x3970000000000000ull);
  r = ref::div<double>(1.0, 0.0, rne);
  EXPECT_EQ(r.bits, kInfD);
  EXPECT_EQ(r.flags, DZ);
  r = ref::to_int<double, i32>(-2.5, rmm);
  EXPECT_EQ(static_cast<i32>(r.bits), -3);
}

}  // namespace
}  // namespace npuvp
