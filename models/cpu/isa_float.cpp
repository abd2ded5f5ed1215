// The F and D extensions (RV64), declared once like the base ISA: each row is
// name, encoding pattern, operand format, timing class and semantics. The
// arithmetic itself (rounding, flags, NaNs) is in float_ops.h.
//
// Rules common to every instruction here:
// * mstatus.FS = Off makes them illegal (and the fcsr CSRs, csr.cpp).
// * The rm field: 0-4 select RNE, RTZ, RDN, RUP, RMM; 7 (dyn) takes frm;
//   5, 6, or dyn with frm >= 5 are illegal. Instructions with an rm field
//   check it even when the result is exact (fcvt.d.s, fcvt.d.w), as the
//   Sail model and Spike do.
// * NaN boxing: single-precision operands come from the low 32 bits of an
//   f register whose upper 32 bits are all ones; any other pattern reads as
//   the canonical NaN. Single-precision results are written boxed. Loads,
//   stores and fmv.x.w move bits unchanged (fsw and fmv.x.w ignore the
//   upper half).
// * NaN results are the canonical NaN; sign injection and moves copy bits.
// * Writing an f register or raising a flag sets FS (and SD) to Dirty.
#include "cpu/decoder.h"
#include "cpu/float_ops.h"
#include "cpu/hart.h"

#include <type_traits>

namespace npuvp {

namespace {

using D = const DecodedInstruction&;
using u32 = std::uint32_t;
using u64 = std::uint64_t;
using i32 = std::int32_t;
using i64 = std::int64_t;
using fp::F32;
using fp::F64;

inline void next(Hart& h, D d) { h.pc += d.length; }
inline u64 sext32(u64 value) { return static_cast<u64>(static_cast<i64>(static_cast<i32>(value))); }

// ---- register access ----
template <typename F> typename F::Bits get(const Hart& h, unsigned r);
template <> inline u32 get<F32>(const Hart& h, unsigned r) {
  u64 value = h.f[r];
  return (value >> 32) == 0xffffffffu ? static_cast<u32>(value) : F32::kCanonicalNaN;
}
template <> inline u64 get<F64>(const Hart& h, unsigned r) { return h.f[r]; }

inline u64 box(u32 value) { return 0xffffffff00000000ull | value; }
inline u64 box(u64 value) { return value; }

template <typename F>
inline void put(Hart& h, unsigned r, typename F::Bits value) {
  h.f[r] = box(value);
  h.set_fp_dirty();
}

// FS must not be Off.
inline bool enabled(Hart& h, D d) {
  if (__builtin_expect(h.fp_enabled(), 1)) return true;
  h.raise_illegal_instruction(d);
  return false;
}

// FS must not be Off and the rounding mode must be valid; rm gets the mode.
inline bool enabled_with_rounding(Hart& h, D d, unsigned& rm) {
  rm = static_cast<unsigned>(d.imm);
  if (rm == fp::kDyn) rm = h.frm();
  if (__builtin_expect(h.fp_enabled() && rm <= fp::kRmm, 1)) return true;
  h.raise_illegal_instruction(d);
  return false;
}

// ---- loads and stores (raw bits; flw NaN-boxes) ----
template <typename F>
constexpr ExecuteFn fp_load() {
  return [](Hart& h, D d) {
    if (!enabled(h, d)) return;
    typename F::Bits value;
    if (!h.load(h.x[d.rs1] + d.imm, value)) return;
    put<F>(h, d.rd, value);
    next(h, d);
  };
}
template <typename F>
constexpr ExecuteFn fp_store() {
  return [](Hart& h, D d) {
    if (!enabled(h, d)) return;
    if (!h.store(h.x[d.rs1] + d.imm, static_cast<typename F::Bits>(h.f[d.rs2]))) return;
    next(h, d);
  };
}

// ---- arithmetic ----
struct Add { template <typename F> static auto apply(typename F::Bits a, typename F::Bits b, unsigned rm, unsigned& fl) { return fp::add<F>(a, b, rm, fl); } };
struct Sub { template <typename F> static auto apply(typename F::Bits a, typename F::Bits b, unsigned rm, unsigned& fl) { return fp::sub<F>(a, b, rm, fl); } };
struct Mul { template <typename F> static auto apply(typename F::Bits a, typename F::Bits b, unsigned rm, unsigned& fl) { return fp::mul<F>(a, b, rm, fl); } };
struct Div { template <typename F> static auto apply(typename F::Bits a, typename F::Bits b, unsigned rm, unsigned& fl) { return fp::div<F>(a, b, rm, fl); } };

template <typename F, typename Op>
constexpr ExecuteFn binary() {
  return [](Hart& h, D d) {
    unsigned rm;
    if (!enabled_with_rounding(h, d, rm)) return;
    unsigned flags = h.fflags();  // accrued: lets the host path skip exact flag detection
    typename F::Bits result = Op::template apply<F>(get<F>(h, d.rs1), get<F>(h, d.rs2), rm, flags);
    put<F>(h, d.rd, result);
    h.accrue_fflags(flags);
    next(h, d);
  };
}

template <typename F>
constexpr ExecuteFn square_root() {
  return [](Hart& h, D d) {
    unsigned rm;
    if (!enabled_with_rounding(h, d, rm)) return;
    unsigned flags = h.fflags();  // accrued: lets the host path skip exact flag detection
    typename F::Bits result = fp::sqrt<F>(get<F>(h, d.rs1), rm, flags);
    put<F>(h, d.rd, result);
    h.accrue_fflags(flags);
    next(h, d);
  };
}

// fmadd: a*b+c; fmsub: a*b-c; fnmsub: -(a*b)+c; fnmadd: -(a*b)-c. Negating
// an operand is exact, so each is one fused operation with one rounding.
template <typename F, bool kNegateProduct, bool kNegateAddend>
constexpr ExecuteFn fused() {
  return [](Hart& h, D d) {
    unsigned rm;
    if (!enabled_with_rounding(h, d, rm)) return;
    unsigned flags = h.fflags();  // accrued: lets the host path skip exact flag detection
    typename F::Bits a = get<F>(h, d.rs1), b = get<F>(h, d.rs2), c = get<F>(h, d.aux);
    if (kNegateProduct) a ^= F::kSign;
    if (kNegateAddend) c ^= F::kSign;
    typename F::Bits result = fp::fma<F>(a, b, c, rm, flags);
    put<F>(h, d.rd, result);
    h.accrue_fflags(flags);
    next(h, d);
  };
}

// ---- sign injection (no canonicalisation, no flags) ----
enum class Sign { kCopy, kNegate, kXor };
template <typename F, Sign kOp>
constexpr ExecuteFn sign_inject() {
  return [](Hart& h, D d) {
    if (!enabled(h, d)) return;
    typename F::Bits a = get<F>(h, d.rs1), b = get<F>(h, d.rs2);
    typename F::Bits sign = kOp == Sign::kCopy ? (b & F::kSign) : kOp == Sign::kNegate ? (~b & F::kSign) : ((a ^ b) & F::kSign);
    put<F>(h, d.rd, static_cast<typename F::Bits>((a & ~F::kSign) | sign));
    next(h, d);
  };
}

template <typename F, bool kMax>
constexpr ExecuteFn min_max() {
  return [](Hart& h, D d) {
    if (!enabled(h, d)) return;
    unsigned flags = 0;
    typename F::Bits result = fp::min_max<F>(get<F>(h, d.rs1), get<F>(h, d.rs2), kMax, flags);
    put<F>(h, d.rd, result);
    h.accrue_fflags(flags);
    next(h, d);
  };
}

// ---- comparisons and classification (integer results) ----
enum class Compare { kEq, kLt, kLe };
template <typename F, Compare kOp>
constexpr ExecuteFn compare() {
  return [](Hart& h, D d) {
    if (!enabled(h, d)) return;
    unsigned flags = 0;
    typename F::Bits a = get<F>(h, d.rs1), b = get<F>(h, d.rs2);
    bool result = kOp == Compare::kEq ? fp::equal<F>(a, b, flags) : fp::less<F>(a, b, kOp == Compare::kLe, flags);
    h.x[d.rd] = result;
    h.accrue_fflags(flags);
    next(h, d);
  };
}

template <typename F>
constexpr ExecuteFn classify() {
  return [](Hart& h, D d) {
    if (!enabled(h, d)) return;
    h.x[d.rd] = fp::classify<F>(get<F>(h, d.rs1));
    next(h, d);
  };
}

// ---- conversions ----
// Float to integer; 32-bit results are sign-extended (fcvt.wu.s too).
template <typename F, typename Int>
constexpr ExecuteFn to_integer() {
  return [](Hart& h, D d) {
    unsigned rm;
    if (!enabled_with_rounding(h, d, rm)) return;
    unsigned flags = 0;
    Int value = fp::to_int<F, Int>(get<F>(h, d.rs1), rm, flags);
    h.x[d.rd] = sizeof(Int) == 4 ? sext32(static_cast<u64>(value)) : static_cast<u64>(value);
    h.accrue_fflags(flags);
    next(h, d);
  };
}

// Integer (the low 32 bits of rs1 for w/wu) to float.
template <typename F, typename Int>
constexpr ExecuteFn from_integer() {
  return [](Hart& h, D d) {
    unsigned rm;
    if (!enabled_with_rounding(h, d, rm)) return;
    unsigned flags = 0;
    Int value = static_cast<Int>(h.x[d.rs1]);
    bool negative = false;
    if constexpr (std::is_signed_v<Int>) negative = value < 0;
    u64 magnitude = negative ? 0 - static_cast<u64>(static_cast<i64>(value)) : static_cast<u64>(value);
    typename F::Bits result = fp::from_int<F>(negative, magnitude, rm, flags);
    put<F>(h, d.rd, result);
    h.accrue_fflags(flags);
    next(h, d);
  };
}

template <typename To, typename From>
constexpr ExecuteFn convert() {
  return [](Hart& h, D d) {
    unsigned rm;
    if (!enabled_with_rounding(h, d, rm)) return;
    unsigned flags = 0;
    typename To::Bits result = fp::convert<To, From>(get<From>(h, d.rs1), rm, flags);
    put<To>(h, d.rd, result);
    h.accrue_fflags(flags);
    next(h, d);
  };
}

// ---- moves (bits unchanged; fmv.x.w sign-extends the low 32 bits, boxed or not) ----
template <typename F>
constexpr ExecuteFn move_to_integer() {
  return [](Hart& h, D d) {
    if (!enabled(h, d)) return;
    h.x[d.rd] = sizeof(typename F::Bits) == 4 ? sext32(h.f[d.rs1]) : h.f[d.rs1];
    next(h, d);
  };
}
template <typename F>
constexpr ExecuteFn move_from_integer() {
  return [](Hart& h, D d) {
    if (!enabled(h, d)) return;
    put<F>(h, d.rd, static_cast<typename F::Bits>(h.x[d.rs1]));
    next(h, d);
  };
}

constexpr auto kFpAlu = InstructionClass::kAlu;
constexpr auto kFpMul = InstructionClass::kMultiply;
constexpr auto kFpDiv = InstructionClass::kDivide;
constexpr auto R = OperandFormat::kFpR;
constexpr auto R1 = OperandFormat::kFpR1;
constexpr auto R4 = OperandFormat::kFpR4;
constexpr auto ToInt = OperandFormat::kFpToInt;
constexpr auto FromInt = OperandFormat::kFpFromInt;
constexpr auto Cmp = OperandFormat::kFpCompare;
// Masks: funct7 + opcode (rm free); + funct3; + rs2 (unary, rm free); + rs2 + funct3; R4: fmt + opcode.
constexpr u32 kRm = 0xfe00007f, kF3 = 0xfe00707f, kRs2Rm = 0xfff0007f, kRs2F3 = 0xfff0707f, kR4 = 0x0600007f,
              kMem = 0x0000707f;

}  // namespace

// Timing classes: fmul and the fused ops cost a multiply, fdiv and fsqrt a
// divide, loads and stores a load/store, everything else an ALU operation.
const std::vector<InstructionSpec>& Decoder::float_instructions() {
  static const std::vector<InstructionSpec> table = {
      // F
      {"flw", kMem, 0x2007, OperandFormat::kFpLoad, InstructionClass::kLoad, fp_load<F32>()},
      {"fsw", kMem, 0x2027, OperandFormat::kFpStore, InstructionClass::kStore, fp_store<F32>()},
      {"fmadd.s", kR4, 0x00000043, R4, kFpMul, fused<F32, false, false>()},
      {"fmsub.s", kR4, 0x00000047, R4, kFpMul, fused<F32, false, true>()},
      {"fnmsub.s", kR4, 0x0000004b, R4, kFpMul, fused<F32, true, false>()},
      {"fnmadd.s", kR4, 0x0000004f, R4, kFpMul, fused<F32, true, true>()},
      {"fadd.s", kRm, 0x00000053, R, kFpAlu, binary<F32, Add>()},
      {"fsub.s", kRm, 0x08000053, R, kFpAlu, binary<F32, Sub>()},
      {"fmul.s", kRm, 0x10000053, R, kFpMul, binary<F32, Mul>()},
      {"fdiv.s", kRm, 0x18000053, R, kFpDiv, binary<F32, Div>()},
      {"fsqrt.s", kRs2Rm, 0x58000053, R1, kFpDiv, square_root<F32>()},
      {"fsgnj.s", kF3, 0x20000053, R, kFpAlu, sign_inject<F32, Sign::kCopy>()},
      {"fsgnjn.s", kF3, 0x20001053, R, kFpAlu, sign_inject<F32, Sign::kNegate>()},
      {"fsgnjx.s", kF3, 0x20002053, R, kFpAlu, sign_inject<F32, Sign::kXor>()},
      {"fmin.s", kF3, 0x28000053, R, kFpAlu, min_max<F32, false>()},
      {"fmax.s", kF3, 0x28001053, R, kFpAlu, min_max<F32, true>()},
      {"fcvt.w.s", kRs2Rm, 0xc0000053, ToInt, kFpAlu, to_integer<F32, i32>()},
      {"fcvt.wu.s", kRs2Rm, 0xc0100053, ToInt, kFpAlu, to_integer<F32, u32>()},
      {"fcvt.l.s", kRs2Rm, 0xc0200053, ToInt, kFpAlu, to_integer<F32, i64>()},
      {"fcvt.lu.s", kRs2Rm, 0xc0300053, ToInt, kFpAlu, to_integer<F32, u64>()},
      {"fmv.x.w", kRs2F3, 0xe0000053, ToInt, kFpAlu, move_to_integer<F32>()},
      {"feq.s", kF3, 0xa0002053, Cmp, kFpAlu, compare<F32, Compare::kEq>()},
      {"flt.s", kF3, 0xa0001053, Cmp, kFpAlu, compare<F32, Compare::kLt>()},
      {"fle.s", kF3, 0xa0000053, Cmp, kFpAlu, compare<F32, Compare::kLe>()},
      {"fclass.s", kRs2F3, 0xe0001053, ToInt, kFpAlu, classify<F32>()},
      {"fcvt.s.w", kRs2Rm, 0xd0000053, FromInt, kFpAlu, from_integer<F32, i32>()},
      {"fcvt.s.wu", kRs2Rm, 0xd0100053, FromInt, kFpAlu, from_integer<F32, u32>()},
      {"fcvt.s.l", kRs2Rm, 0xd0200053, FromInt, kFpAlu, from_integer<F32, i64>()},
      {"fcvt.s.lu", kRs2Rm, 0xd0300053, FromInt, kFpAlu, from_integer<F32, u64>()},
      {"fmv.w.x", kRs2F3, 0xf0000053, FromInt, kFpAlu, move_from_integer<F32>()},
      // D
      {"fld", kMem, 0x3007, OperandFormat::kFpLoad, InstructionClass::kLoad, fp_load<F64>()},
      {"fsd", kMem, 0x3027, OperandFormat::kFpStore, InstructionClass::kStore, fp_store<F64>()},
      {"fmadd.d", kR4, 0x02000043, R4, kFpMul, fused<F64, false, false>()},
      {"fmsub.d", kR4, 0x02000047, R4, kFpMul, fused<F64, false, true>()},
      {"fnmsub.d", kR4, 0x0200004b, R4, kFpMul, fused<F64, true, false>()},
      {"fnmadd.d", kR4, 0x0200004f, R4, kFpMul, fused<F64, true, true>()},
      {"fadd.d", kRm, 0x02000053, R, kFpAlu, binary<F64, Add>()},
      {"fsub.d", kRm, 0x0a000053, R, kFpAlu, binary<F64, Sub>()},
      {"fmul.d", kRm, 0x12000053, R, kFpMul, binary<F64, Mul>()},
      {"fdiv.d", kRm, 0x1a000053, R, kFpDiv, binary<F64, Div>()},
      {"fsqrt.d", kRs2Rm, 0x5a000053, R1, kFpDiv, square_root<F64>()},
      {"fsgnj.d", kF3, 0x22000053, R, kFpAlu, sign_inject<F64, Sign::kCopy>()},
      {"fsgnjn.d", kF3, 0x22001053, R, kFpAlu, sign_inject<F64, Sign::kNegate>()},
      {"fsgnjx.d", kF3, 0x22002053, R, kFpAlu, sign_inject<F64, Sign::kXor>()},
      {"fmin.d", kF3, 0x2a000053, R, kFpAlu, min_max<F64, false>()},
      {"fmax.d", kF3, 0x2a001053, R, kFpAlu, min_max<F64, true>()},
      {"fcvt.s.d", kRs2Rm, 0x40100053, R1, kFpAlu, convert<F32, F64>()},
      {"fcvt.d.s", kRs2Rm, 0x42000053, R1, kFpAlu, convert<F64, F32>(), nullptr, kSpecExactConversion},
      {"feq.d", kF3, 0xa2002053, Cmp, kFpAlu, compare<F64, Compare::kEq>()},
      {"flt.d", kF3, 0xa2001053, Cmp, kFpAlu, compare<F64, Compare::kLt>()},
      {"fle.d", kF3, 0xa2000053, Cmp, kFpAlu, compare<F64, Compare::kLe>()},
      {"fclass.d", kRs2F3, 0xe2001053, ToInt, kFpAlu, classify<F64>()},
      {"fcvt.w.d", kRs2Rm, 0xc2000053, ToInt, kFpAlu, to_integer<F64, i32>()},
      {"fcvt.wu.d", kRs2Rm, 0xc2100053, ToInt, kFpAlu, to_integer<F64, u32>()},
      {"fcvt.l.d", kRs2Rm, 0xc2200053, ToInt, kFpAlu, to_integer<F64, i64>()},
      {"fcvt.lu.d", kRs2Rm, 0xc2300053, ToInt, kFpAlu, to_integer<F64, u64>()},
      {"fmv.x.d", kRs2F3, 0xe2000053, ToInt, kFpAlu, move_to_integer<F64>()},
      {"fcvt.d.w", kRs2Rm, 0xd2000053, FromInt, kFpAlu, from_integer<F64, i32>(), nullptr, kSpecExactConversion},
      {"fcvt.d.wu", kRs2Rm, 0xd2100053, FromInt, kFpAlu, from_integer<F64, u32>(), nullptr, kSpecExactConversion},
      {"fcvt.d.l", kRs2Rm, 0xd2200053, FromInt, kFpAlu, from_integer<F64, i64>()},
      {"fcvt.d.lu", kRs2Rm, 0xd2300053, FromInt, kFpAlu, from_integer<F64, u64>()},
      {"fmv.d.x", kRs2F3, 0xf2000053, FromInt, kFpAlu, move_from_integer<F64>()},
  };
  return table;
}

}  // namespace npuvp
