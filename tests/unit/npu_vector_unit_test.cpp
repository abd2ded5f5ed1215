// VectorUnit: every V-pipe operation against naive element-loop references
// written here (lane by lane, straight from the semantics in
// vector_unit.cpp), on random UB contents; the whole UB is compared, so lanes
// the mask turns off and bytes between strided blocks must stay unchanged.
// Plus hand-computed results, faults (cause + nothing written) and timing.
#include "npu/numerics.h"
#include "npu/vector_unit.h"
#include "npu/xdavinci_isa.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace npuvp {
namespace {

using numerics::Rounding;
using xdavinci::Op;
namespace xv = xdavinci::vector;

constexpr std::size_t kUbSize = 256 * 1024;
constexpr std::size_t kL0cSize = 64 * 1024;
constexpr unsigned kF16 = 0, kF32 = 1, kS32 = 2;
constexpr std::int32_t kIntMin = std::numeric_limits<std::int32_t>::min();
constexpr std::int32_t kIntMax = std::numeric_limits<std::int32_t>::max();

unsigned type_size(unsigned type) { return type == kF16 ? 2 : 4; }
const char* type_name(unsigned type) { return type == kF16 ? "f16" : type == kF32 ? "f32" : "s32"; }

std::uint64_t put(const xdavinci::Field& field, std::uint64_t value) {
  EXPECT_LE(value, field.max()) << field.name;
  return value << field.lsb;
}

// ---- Lane values as raw bits ------------------------------------------------

float F(std::uint64_t h) { return numerics::half_to_float(static_cast<std::uint16_t>(h)); }
std::uint64_t H(float f, Rounding r = Rounding::kNearestEven) { return numerics::float_to_half(f, r); }
float f32(std::uint64_t b) {
  const auto u = static_cast<std::uint32_t>(b);
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
std::uint64_t b32(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
std::int32_t s32(std::uint64_t b) { return static_cast<std::int32_t>(static_cast<std::uint32_t>(b)); }
std::uint64_t u32(std::int64_t v) { return static_cast<std::uint32_t>(static_cast<std::uint64_t>(v)); }
std::uint16_t half_of(double v) { return numerics::float_to_half(static_cast<float>(v)); }

// A lane's value as a double (compare, max/min references).
double value_of(unsigned type, std::uint64_t bits) {
  return type == kF16 ? F(bits) : type == kF32 ? f32(bits) : s32(bits);
}

// IEEE 754-2019 maximum / minimum on raw bits: NaN -> that NaN quietened
// (src0 first), -0 < +0.
std::uint64_t ref_maxmin(bool is_max, unsigned type, std::uint64_t a, std::uint64_t b) {
  const double x = value_of(type, a), y = value_of(type, b);
  const std::uint64_t quiet = type == kF16 ? 0x0200 : 0x00400000;
  if (type != kS32) {
    if (std::isnan(x)) return a | quiet;
    if (std::isnan(y)) return b | quiet;
    if (x == 0 && y == 0) {
      const bool a_negative = std::signbit(x);
      return is_max ? (a_negative ? b : a) : (a_negative ? a : b);
    }
  }
  if (is_max) return x >= y ? a : b;
  return x <= y ? a : b;
}

std::uint64_t ref_binary(Op op, unsigned type, std::uint64_t a, std::uint64_t b) {
  const std::uint64_t width = type == kF16 ? 0xffff : 0xffffffff;
  switch (op) {
    case Op::kVand: return a & b & width;
    case Op::kVor: return (a | b) & width;
    case Op::kVmax: return ref_maxmin(true, type, a, b);
    case Op::kVmin: return ref_maxmin(false, type, a, b);
    default: break;
  }
  if (type == kF16) {
    const float x = F(a), y = F(b);
    switch (op) {
      case Op::kVadd: return H(x + y);
      case Op::kVsub: return H(x - y);
      case Op::kVmul: return H(x * y);
      case Op::kVdiv: return H(x / y);
      default: break;
    }
  } else if (type == kF32) {
    const float x = f32(a), y = f32(b);
    switch (op) {
      case Op::kVadd: return b32(x + y);
      case Op::kVsub: return b32(x - y);
      case Op::kVmul: return b32(x * y);
      case Op::kVdiv: return b32(x / y);
      default: break;
    }
  } else {
    const std::int64_t x = s32(a), y = s32(b);
    switch (op) {
      case Op::kVadd: return u32(x + y);
      case Op::kVsub: return u32(x - y);
      case Op::kVmul: return u32(x * y);
      case Op::kVdiv: return y == 0 ? 0 : u32(x / y);  // INT_MIN / -1 = 2^31 -> INT_MIN
      default: break;
    }
  }
  ADD_FAILURE() << "no reference for op " << static_cast<int>(op);
  return 0;
}

std::uint64_t ref_unary(Op op, unsigned type, std::uint64_t a) {
  if (op == Op::kVnot) return ~a & (type == kF16 ? 0xffff : 0xffffffff);
  if (type == kS32) {
    const std::int64_t x = s32(a);
    if (op == Op::kVabs) return u32(x < 0 ? -x : x);
    if (op == Op::kVrelu) return u32(x > 0 ? x : 0);
  } else {
    const double x = value_of(type, a);
    const std::uint64_t sign = type == kF16 ? 0x8000 : 0x80000000;
    if (op == Op::kVabs) return a & ~sign;
    if (op == Op::kVrelu) {
      if (std::isnan(x)) return a | (type == kF16 ? 0x0200 : 0x00400000);
      return x > 0 ? a : 0;
    }
    const float v = static_cast<float>(x);
    float r = 0;
    switch (op) {
      case Op::kVexp: r = std::exp(v); break;
      case Op::kVln: r = std::log(v); break;
      case Op::kVsqrt: r = std::sqrt(v); break;
      case Op::kVrsqrt: r = 1.0f / std::sqrt(v); break;
      case Op::kVrec: r = 1.0f / v; break;
      default: ADD_FAILURE() << "no reference"; break;
    }
    return type == kF16 ? H(r) : b32(r);
  }
  ADD_FAILURE() << "no reference";
  return 0;
}

// ---- Operand layouts and the reference memory model ------------------------

struct Side {
  std::uint64_t base = 0, block_stride = 1, repeat_stride = 8;
};

struct Layout {
  const char* name;
  std::uint64_t repeats;
  Side dst, src0, src1;
  std::uint64_t mask0 = ~0ull, mask1 = ~0ull;
  std::uint64_t cmpmask = 0x3f000;  // vsel's lane bits
};

std::uint64_t lane_address(const Side& side, std::uint64_t repeat, unsigned lane, unsigned size) {
  const unsigned per_block = 32 / size;
  return side.base + (repeat * side.repeat_stride + (lane / per_block) * side.block_stride) * 32 +
         (lane % per_block) * size;
}

bool lane_on(const Layout& layout, unsigned lane, unsigned lanes) {
  if (lanes == 64) return (layout.mask0 >> lane) & 1;
  return ((lane < 64 ? layout.mask0 : layout.mask1) >> (lane % 64)) & 1;
}

std::uint64_t load(const std::vector<std::uint8_t>& mem, std::uint64_t address, unsigned size) {
  std::uint64_t v = 0;
  for (unsigned i = 0; i < size; ++i) v |= static_cast<std::uint64_t>(mem.at(address + i)) << (8 * i);
  return v;
}
void store(std::vector<std::uint8_t>& mem, std::uint64_t address, unsigned size, std::uint64_t v) {
  for (unsigned i = 0; i < size; ++i) mem.at(address + i) = static_cast<std::uint8_t>(v >> (8 * i));
}

// Element-wise reference: per repeat, read every source lane, then write the
// active destination lanes in lane order.
void ref_elementwise(std::vector<std::uint8_t>& mem, const Layout& layout, unsigned src_size, unsigned dst_size,
                     int sources, const std::function<std::uint64_t(std::uint64_t, std::uint64_t)>& fn) {
  const unsigned lanes = 256 / std::max(src_size, dst_size);
  for (std::uint64_t r = 0; r < layout.repeats; ++r) {
    std::vector<std::uint64_t> a(lanes), b(lanes);
    for (unsigned l = 0; l < lanes; ++l) {
      if (sources >= 1) a[l] = load(mem, lane_address(layout.src0, r, l, src_size), src_size);
      if (sources >= 2) b[l] = load(mem, lane_address(layout.src1, r, l, src_size), src_size);
    }
    for (unsigned l = 0; l < lanes; ++l)
      if (lane_on(layout, l, lanes)) store(mem, lane_address(layout.dst, r, l, dst_size), dst_size, fn(a[l], b[l]));
  }
}

// Layouts used for every operation: contiguous, strided with a mask, block
// stride 0 / repeat stride 0 sources, in place with overlapping repeats,
// aliasing destination lanes, and 255 repeats in place.
std::vector<Layout> layouts(std::mt19937& rng) {
  auto mask = [&rng] {
    std::uint64_t m = (static_cast<std::uint64_t>(rng()) << 32) | rng();
    return m == 0 ? 1 : m;
  };
  std::vector<Layout> list;
  list.push_back({"contiguous", 3, {0x0000, 1, 8}, {0x1000, 1, 8}, {0x2000, 1, 8}});
  list.push_back({"strided, masked", 4, {0x3000, 2, 17}, {0x6000, 3, 25}, {0x9000, 1, 9}, mask(), mask()});
  list.push_back({"source block stride 0, repeat stride 0", 3, {0xc000, 1, 8}, {0xe000, 0, 1}, {0xf000, 1, 0},
                  mask(), mask()});
  list.push_back({"in place, overlapping repeats", 5, {0x10000, 1, 4}, {0x10000, 1, 4}, {0x12000, 1, 8}, mask(),
                  mask()});
  list.push_back({"destination block stride 0", 2, {0x14000, 0, 1}, {0x15000, 1, 8}, {0x16000, 1, 8}, mask(),
                  mask()});
  list.push_back({"255 repeats in place", 255, {0x20000, 1, 8}, {0x20000, 1, 8}, {0x20000, 1, 8}});
  list.push_back({"every lane off", 2, {0x30000, 1, 8}, {0x31000, 1, 8}, {0x32000, 1, 8}, 0, 0});
  return list;
}

NpuInstruction instruction(Op op, const Layout& layout, unsigned type, unsigned compare = 0) {
  NpuInstruction in;
  in.op = op;
  in.xd = layout.dst.base;
  in.xn = layout.src0.base;
  in.xm = layout.src1.base;
  in.xt = put(xv::repeat, layout.repeats) | put(xv::dst_block_stride, layout.dst.block_stride) |
          put(xv::src0_block_stride, layout.src0.block_stride) | put(xv::src1_block_stride, layout.src1.block_stride) |
          put(xv::dst_repeat_stride, layout.dst.repeat_stride) |
          put(xv::src0_repeat_stride, layout.src0.repeat_stride) |
          put(xv::src1_repeat_stride, layout.src1.repeat_stride) | put(xv::type, type) | put(xv::compare, compare);
  in.vector_mask[0] = layout.mask0;
  in.vector_mask[1] = layout.mask1;
  in.cmpmask = layout.cmpmask;
  return in;
}

std::uint64_t simple_xt(std::uint64_t repeats, unsigned type) {
  return put(xv::repeat, repeats) | put(xv::dst_block_stride, 1) | put(xv::src0_block_stride, 1) |
         put(xv::src1_block_stride, 1) | put(xv::dst_repeat_stride, 8) | put(xv::src0_repeat_stride, 8) |
         put(xv::src1_repeat_stride, 8) | put(xv::type, type);
}

class VectorUnitTest : public ::testing::Test {
 protected:
  LocalBuffers buffers{4096, 4096, 4096, kL0cSize, kUbSize};
  VectorTiming timing;
  VectorUnit unit{buffers, timing};
  std::mt19937 rng{20240611};

  std::vector<std::uint8_t> ub() const { return {buffers.ub.data(), buffers.ub.data() + buffers.ub.size()}; }

  std::uint32_t random32() { return static_cast<std::uint32_t>(rng()); }

  // A random lane value. pool: values from a small set with ties, zeros of
  // both signs, infinities and NaNs; otherwise wide-ranging numbers (NaN only
  // with `nan`).
  std::uint64_t random_value(unsigned type, bool nan, bool pool) {
    const std::uint32_t pick = random32();
    if (type == kF16) {
      static const std::uint16_t kPool[] = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x4000, 0x7c00, 0xfc00,
                                            0x7e00, 0xfe01, 0x7d00, 0x0001, 0x3c01, 0x7bff};
      if (pool) return kPool[pick % std::size(kPool)];
      if (pick % 16 == 0) return kPool[(pick >> 8) % 7];
      std::uint16_t h = static_cast<std::uint16_t>(random32());
      if ((h & 0x7c00) == 0x7c00 && !(nan && (h & 0x3ff))) h &= 0xbfff;  // finite (exponent 15)
      return h;
    }
    if (type == kF32) {
      static const std::uint32_t kPool[] = {0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x40000000,
                                            0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001,
                                            0x00000001, 0x3f800001, 0x7f7fffff};
      if (pool) return kPool[pick % std::size(kPool)];
      if (pick % 16 == 0) return kPool[(pick >> 8) % 7];
      if (nan && pick % 16 == 1) return 0x7fc00000u | (random32() & 0x803fffffu);
      const std::uint32_t exponent = 127 - 20 + random32() % 41;
      return (random32() & 0x807fffffu) | (exponent << 23);
    }
    static const std::int32_t kPool[] = {0, 1, -1, 2, kIntMin, kIntMax, 100, -7};
    if (pool) return u32(kPool[pick % std::size(kPool)]);
    if (pick % 8 == 0) return u32(kPool[(pick >> 8) % std::size(kPool)]);
    if (pick % 8 == 1) return u32(static_cast<std::int32_t>(random32() % 2001) - 1000);
    return random32();
  }

  void fill_ub(unsigned type, bool nan = false, bool pool = false) {
    const unsigned size = type_size(type);
    for (std::size_t a = 0; a < kUbSize; a += size) {
      const std::uint64_t v = random_value(type, nan, pool);
      std::memcpy(buffers.ub.data() + a, &v, size);
    }
  }

  void fill_random_bytes(LocalBuffer& buffer) {
    for (std::size_t a = 0; a < buffer.size(); a += 4) {
      const std::uint32_t v = random32();
      std::memcpy(buffer.data() + a, &v, 4);
    }
  }

  // Executes and compares the whole UB with the expected image.
  UnitResult run_and_compare(const NpuInstruction& in, const std::vector<std::uint8_t>& expected) {
    UnitResult result;
    try {
      result = unit.execute(in);
    } catch (const KernelFault& fault) {
      ADD_FAILURE() << "unexpected fault: " << fault.what();
      return result;
    }
    const std::uint8_t* actual = buffers.ub.data();
    for (std::size_t a = 0; a < kUbSize; ++a)
      if (actual[a] != expected[a]) {
        ADD_FAILURE() << "UB byte 0x" << std::hex << a << ": 0x" << unsigned{actual[a]} << ", expected 0x"
                      << unsigned{expected[a]} << std::dec;
        break;
      }
    return result;
  }

  // Expects a fault with `cause` that leaves UB (and L0C) unchanged.
  void expect_fault(const NpuInstruction& in, KernelFaultCause cause) {
    const std::vector<std::uint8_t> before = ub();
    const std::vector<std::uint8_t> l0c_before(buffers.l0c.data(), buffers.l0c.data() + buffers.l0c.size());
    try {
      unit.execute(in);
      ADD_FAILURE() << "no fault, expected " << kernel_fault_cause_name(cause);
    } catch (const KernelFault& fault) {
      EXPECT_EQ(fault.cause(), cause) << fault.what();
    }
    EXPECT_TRUE(ub() == before) << "UB changed by a faulting instruction";
    EXPECT_TRUE(std::equal(l0c_before.begin(), l0c_before.end(), buffers.l0c.data()));
  }

  std::uint64_t get(std::uint64_t offset, unsigned size) const {
    std::uint64_t v = 0;
    std::memcpy(&v, buffers.ub.data() + offset, size);
    return v;
  }
  void set(std::uint64_t offset, unsigned size, std::uint64_t v) { std::memcpy(buffers.ub.data() + offset, &v, size); }
};

// ---- Element-wise operations against the reference -------------------------

TEST_F(VectorUnitTest, BinaryOperationsMatchReference) {
  const Op ops[] = {Op::kVadd, Op::kVsub, Op::kVmul, Op::kVdiv, Op::kVmax, Op::kVmin, Op::kVand, Op::kVor};
  for (Op op : ops)
    for (unsigned type : {kF16, kF32, kS32})
      for (const Layout& layout : layouts(rng))
        for (bool pool : {false, true}) {
          const bool maxmin = op == Op::kVmax || op == Op::kVmin;
          // Pool data: ties, zeros, NaN, inf for max/min; 0, -1, INT_MIN for s32 division.
          if (pool && !maxmin && !(op == Op::kVdiv && type == kS32)) continue;
          SCOPED_TRACE(std::string(xdavinci::spec_of(op).mnemonic) + "." + type_name(type) + " " + layout.name +
                       (pool ? " (pool)" : ""));
          fill_ub(type, maxmin || op == Op::kVand || op == Op::kVor, pool);
          std::vector<std::uint8_t> expected = ub();
          const unsigned size = type_size(type);
          ref_elementwise(expected, layout, size, size, 2,
                          [&](std::uint64_t a, std::uint64_t b) { return ref_binary(op, type, a, b); });
          run_and_compare(instruction(op, layout, type), expected);
          if (HasFailure()) return;
        }
}

TEST_F(VectorUnitTest, UnaryOperationsMatchReference) {
  const Op ops[] = {Op::kVabs, Op::kVexp, Op::kVln, Op::kVsqrt, Op::kVrsqrt, Op::kVrec, Op::kVrelu, Op::kVnot};
  for (Op op : ops)
    for (unsigned type : {kF16, kF32, kS32}) {
      if (type == kS32 && op != Op::kVabs && op != Op::kVrelu && op != Op::kVnot) continue;
      for (const Layout& layout : layouts(rng))
        for (bool pool : {false, true}) {
          SCOPED_TRACE(std::string(xdavinci::spec_of(op).mnemonic) + "." + type_name(type) + " " + layout.name +
                       (pool ? " (pool)" : ""));
          const bool bitwise = op == Op::kVabs || op == Op::kVrelu || op == Op::kVnot;
          fill_ub(type, bitwise, pool);
          std::vector<std::uint8_t> expected = ub();
          const unsigned size = type_size(type);
          ref_elementwise(expected, layout, size, size, 1,
                          [&](std::uint64_t a, std::uint64_t) { return ref_unary(op, type, a); });
          run_and_compare(instruction(op, layout, type), expected);
          if (HasFailure()) return;
        }
    }
}

TEST_F(VectorUnitTest, ScalarFormsMatchReference) {
  const std::pair<Op, Op> ops[] = {
      {Op::kVadds, Op::kVadd}, {Op::kVmuls, Op::kVmul}, {Op::kVmaxs, Op::kVmax}, {Op::kVmins, Op::kVmin}};
  for (auto [op, base] : ops)
    for (unsigned type : {kF16, kF32, kS32})
      for (const Layout& layout : layouts(rng))
        for (int round = 0; round < 3; ++round) {
          SCOPED_TRACE(std::string(xdavinci::spec_of(op).mnemonic) + "." + type_name(type) + " " + layout.name);
          const bool maxmin = base == Op::kVmax || base == Op::kVmin;
          fill_ub(type, maxmin, false);
          const std::uint64_t scalar = random_value(type, maxmin, round == 2);
          // Bits above the element are ignored (and Xm is no UB offset here).
          const std::uint64_t junk = type == kF16 ? 0xdead'beef'1234'0000ull : 0xdead'beef'0000'0000ull;
          std::vector<std::uint8_t> expected = ub();
          const unsigned size = type_size(type);
          ref_elementwise(expected, layout, size, size, 1,
                          [&](std::uint64_t a, std::uint64_t) { return ref_binary(base, type, a, scalar); });
          NpuInstruction in = instruction(op, layout, type);
          in.xm = scalar | junk;
          run_and_compare(in, expected);
          if (HasFailure()) return;
        }
}

TEST_F(VectorUnitTest, DupMatchesReference) {
  for (unsigned type : {kF16, kF32, kS32})
    for (const Layout& layout : layouts(rng)) {
      SCOPED_TRACE(std::string("vdup.") + type_name(type) + " " + layout.name);
      fill_ub(type);
      const std::uint64_t scalar = random_value(type, true, false);
      std::vector<std::uint8_t> expected = ub();
      const unsigned size = type_size(type);
      ref_elementwise(expected, layout, size, size, 0, [&](std::uint64_t, std::uint64_t) { return scalar; });
      NpuInstruction in = instruction(Op::kVdup, layout, type);
      in.xm = scalar | (0xffffull << 48);
      in.xn = 0x13;  // unused: no source, so no alignment or range check
      run_and_compare(in, expected);
      if (HasFailure()) return;
    }
}

// ---- Hand-computed results (independent of the reference model) -------------

TEST_F(VectorUnitTest, ContiguousS32AddHandComputed) {
  for (int i = 0; i < 128; ++i) {
    set(0x1000 + 4 * i, 4, u32(i));
    set(0x2000 + 4 * i, 4, u32(1000 * i));
  }
  NpuInstruction in;
  in.op = Op::kVadd;
  in.xd = 0x3000;
  in.xn = 0x1000;
  in.xm = 0x2000;
  in.xt = simple_xt(2, kS32);
  unit.execute(in);
  for (int i = 0; i < 128; ++i) EXPECT_EQ(s32(get(0x3000 + 4 * i, 4)), 1001 * i) << i;
  EXPECT_EQ(get(0x3000 + 512, 4), 0u);  // nothing past two repeats
}

TEST_F(VectorUnitTest, F16AddHandComputed) {
  const std::uint16_t a[] = {0x3c00 /*1*/, 0x7bff /*65504*/, 0x3c00, 0x0001, 0xc000 /*-2*/};
  const std::uint16_t b[] = {0x4000 /*2*/, 0x5000 /*32*/, 0x1000 /*2^-11: tie*/, 0x0001, 0x4000};
  const std::uint16_t sum[] = {0x4200 /*3*/, 0x7c00 /*inf*/, 0x3c00 /*even*/, 0x0002, 0x0000};
  for (int i = 0; i < 5; ++i) {
    set(0x100 + 2 * i, 2, a[i]);
    set(0x200 + 2 * i, 2, b[i]);
  }
  NpuInstruction in;
  in.op = Op::kVadd;
  in.xd = 0x400;
  in.xn = 0x100;
  in.xm = 0x200;
  in.xt = simple_xt(1, kF16);
  unit.execute(in);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(get(0x400 + 2 * i, 2), sum[i]) << i;
}

TEST_F(VectorUnitTest, BlockStridesAddressLanesHandComputed) {
  // f32 src0 block stride 2, repeat stride 20: lane l of repeat r at
  // 0x1000 + (20 r + 2 (l / 8)) * 32 + 4 (l % 8).
  for (int r = 0; r < 2; ++r)
    for (int l = 0; l < 64; ++l) set(0x1000 + (20 * r + 2 * (l / 8)) * 32 + 4 * (l % 8), 4, b32(r * 100.0f + l));
  NpuInstruction in;
  in.op = Op::kVmuls;
  in.xd = 0x4000;
  in.xn = 0x1000;
  in.xm = b32(2.0f);
  in.xt = put(xv::repeat, 2) | put(xv::dst_block_stride, 1) | put(xv::src0_block_stride, 2) |
          put(xv::dst_repeat_stride, 8) | put(xv::src0_repeat_stride, 20) | put(xv::type, kF32);
  unit.execute(in);
  for (int r = 0; r < 2; ++r)
    for (int l = 0; l < 64; ++l) EXPECT_EQ(f32(get(0x4000 + 256 * r + 4 * l, 4)), 2 * (r * 100.0f + l)) << r << " " << l;
}

TEST_F(VectorUnitTest, MaskKeepsInactiveLanes) {
  for (int i = 0; i < 128; ++i) {
    set(0x1000 + 2 * i, 2, 0x3c00);  // 1.0
    set(0x2000 + 2 * i, 2, 0xaaaa);  // sentinel
  }
  NpuInstruction in;
  in.op = Op::kVabs;
  in.xd = 0x2000;
  in.xn = 0x1000;
  in.xt = simple_xt(1, kF16);
  in.vector_mask[0] = 0x1;                 // lane 0
  in.vector_mask[1] = 0x8000000000000001;  // lanes 64 and 127
  unit.execute(in);
  for (int i = 0; i < 128; ++i)
    EXPECT_EQ(get(0x2000 + 2 * i, 2), (i == 0 || i == 64 || i == 127) ? 0x3c00u : 0xaaaau) << i;
}

TEST_F(VectorUnitTest, SixtyFourLaneTypesIgnoreTheHighMaskWord) {
  for (int i = 0; i < 64; ++i) set(0x2000 + 4 * i, 4, 0x55555555);
  NpuInstruction in;
  in.op = Op::kVdup;
  in.xd = 0x2000;
  in.xm = b32(1.0f);
  in.xt = simple_xt(1, kF32);
  in.vector_mask[0] = 0;
  in.vector_mask[1] = ~0ull;
  unit.execute(in);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(get(0x2000 + 4 * i, 4), 0x55555555u) << i;
  in.vector_mask[0] = 1ull << 63;
  unit.execute(in);
  EXPECT_EQ(get(0x2000 + 4 * 63, 4), b32(1.0f));
  EXPECT_EQ(get(0x2000 + 4 * 62, 4), 0x55555555u);
}

TEST_F(VectorUnitTest, AliasingDestinationLanesLastActiveLaneWins) {
  // s32 vdup-like via vadds with dst block stride 0: every block of the
  // repeat lands on the same 32 bytes; lane l in block l / 8.
  for (int l = 0; l < 64; ++l) set(0x1000 + 4 * l, 4, u32(l));
  NpuInstruction in;
  in.op = Op::kVadds;
  in.xd = 0x2000;
  in.xn = 0x1000;
  in.xm = 0;
  in.xt = put(xv::repeat, 1) | put(xv::dst_block_stride, 0) | put(xv::src0_block_stride, 1) | put(xv::type, kS32);
  in.vector_mask[0] = ~(1ull << 62);  // lane 62 (block 7, position 6) off
  unit.execute(in);
  for (int p = 0; p < 8; ++p) EXPECT_EQ(s32(get(0x2000 + 4 * p, 4)), p == 6 ? 54 : 56 + p) << p;
  EXPECT_EQ(get(0x2020, 4), 0u);
}

TEST_F(VectorUnitTest, InPlaceRepeatsSeeEarlierRepeats) {
  // dst = src0, repeat stride 4 blocks: repeat 1 reads blocks 4-7 of repeat
  // 0 after repeat 0 wrote them (each repeat adds 1).
  for (int i = 0; i < 12 * 8; ++i) set(0x1000 + 4 * i, 4, 0);
  NpuInstruction in;
  in.op = Op::kVadds;
  in.xd = in.xn = 0x1000;
  in.xm = 1;
  in.xt = put(xv::repeat, 2) | put(xv::dst_block_stride, 1) | put(xv::src0_block_stride, 1) |
          put(xv::dst_repeat_stride, 4) | put(xv::src0_repeat_stride, 4) | put(xv::type, kS32);
  unit.execute(in);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(s32(get(0x1000 + 4 * i, 4)), 1) << i;
  for (int i = 32; i < 64; ++i) EXPECT_EQ(s32(get(0x1000 + 4 * i, 4)), 2) << i;
  for (int i = 64; i < 96; ++i) EXPECT_EQ(s32(get(0x1000 + 4 * i, 4)), 1) << i;
}

TEST_F(VectorUnitTest, S32DivisionEdgeCases) {
  const std::int32_t a[] = {7, -7, 7, kIntMin, kIntMin, 5, 0};
  const std::int32_t b[] = {2, 2, 0, -1, 1, -1, 0};
  const std::int32_t q[] = {3, -3, 0, kIntMin, kIntMin, -5, 0};
  for (int i = 0; i < 7; ++i) {
    set(0x100 + 4 * i, 4, u32(a[i]));
    set(0x200 + 4 * i, 4, u32(b[i]));
  }
  NpuInstruction in;
  in.op = Op::kVdiv;
  in.xd = 0x400;
  in.xn = 0x100;
  in.xm = 0x200;
  in.xt = simple_xt(1, kS32);
  unit.execute(in);
  for (int i = 0; i < 7; ++i) EXPECT_EQ(s32(get(0x400 + 4 * i, 4)), q[i]) << i;
}

TEST_F(VectorUnitTest, MaxMinNaNAndSignedZeroHandComputed) {
  // f32 lanes: (a, b) -> max, min
  const std::uint32_t a[] = {0x80000000, 0x00000000, 0x7fc00001, 0x3f800000, 0x7f800001, 0xbf800000};
  const std::uint32_t b[] = {0x00000000, 0x80000000, 0x3f800000, 0xffc00002, 0x3f800000, 0x3f800000};
  const std::uint32_t mx[] = {0x00000000, 0x00000000, 0x7fc00001, 0xffc00002, 0x7fc00001, 0x3f800000};
  const std::uint32_t mn[] = {0x80000000, 0x80000000, 0x7fc00001, 0xffc00002, 0x7fc00001, 0xbf800000};
  for (int i = 0; i < 6; ++i) {
    set(0x100 + 4 * i, 4, a[i]);
    set(0x200 + 4 * i, 4, b[i]);
  }
  NpuInstruction in;
  in.op = Op::kVmax;
  in.xd = 0x400;
  in.xn = 0x100;
  in.xm = 0x200;
  in.xt = simple_xt(1, kF32);
  unit.execute(in);
  in.op = Op::kVmin;
  in.xd = 0x600;
  unit.execute(in);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(get(0x400 + 4 * i, 4), mx[i]) << i;
    EXPECT_EQ(get(0x600 + 4 * i, 4), mn[i]) << i;
  }
}

TEST_F(VectorUnitTest, ReluAndAbsHandComputed) {
  const std::uint16_t in_values[] = {0xbc00, 0x8000, 0x3c00, 0x7d00, 0xfe00, 0xfc00};
  const std::uint16_t relu[] = {0x0000, 0x0000, 0x3c00, 0x7f00, 0xfe00, 0x0000};
  const std::uint16_t abs[] = {0x3c00, 0x0000, 0x3c00, 0x7d00, 0x7e00, 0x7c00};
  for (int i = 0; i < 6; ++i) set(0x100 + 2 * i, 2, in_values[i]);
  NpuInstruction in;
  in.op = Op::kVrelu;
  in.xd = 0x400;
  in.xn = 0x100;
  in.xt = simple_xt(1, kF16);
  unit.execute(in);
  in.op = Op::kVabs;
  in.xd = 0x600;
  unit.execute(in);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(get(0x400 + 2 * i, 2), relu[i]) << i;
    EXPECT_EQ(get(0x600 + 2 * i, 2), abs[i]) << i;
  }
}

// ---- vcmp / vsel -------------------------------------------------------------

bool ref_compare(unsigned how, double x, double y) {
  switch (how) {
    case 0: return x == y;
    case 1: return !(x == y);
    case 2: return x < y;
    case 3: return x <= y;
    case 4: return x > y;
    case 5: return x >= y;
  }
  return false;
}

TEST_F(VectorUnitTest, CompareMatchesReference) {
  for (unsigned type : {kF16, kF32, kS32})
    for (unsigned how = 0; how < 6; ++how)
      for (const Layout& layout : layouts(rng)) {
        SCOPED_TRACE(std::string("vcmp.") + type_name(type) + " compare " + std::to_string(how) + " " + layout.name);
        fill_ub(type, true, true);
        std::vector<std::uint8_t> expected = ub();
        const unsigned size = type_size(type), lanes = 256 / size;
        for (std::uint64_t r = 0; r < layout.repeats; ++r) {
          std::vector<std::uint8_t> bits(lanes / 8, 0);
          for (unsigned l = 0; l < lanes; ++l) {
            const double x = value_of(type, load(expected, lane_address(layout.src0, r, l, size), size));
            const double y = value_of(type, load(expected, lane_address(layout.src1, r, l, size), size));
            if (lane_on(layout, l, lanes) && ref_compare(how, x, y)) bits[l / 8] |= 1 << (l % 8);
          }
          for (unsigned i = 0; i < lanes / 8; ++i) expected[layout.dst.base + r * lanes / 8 + i] = bits[i];
        }
        const UnitResult result = run_and_compare(instruction(Op::kVcmp, layout, type, how), expected);
        EXPECT_EQ(result.bytes, layout.repeats * lanes / 8);
        if (HasFailure()) return;
      }
}

TEST_F(VectorUnitTest, CompareBitLayoutHandComputed) {
  // f16 lanes i: src0 = i, src1 = 5; lt sets lanes 0..4; mask turns lane 1 off.
  for (int i = 0; i < 128; ++i) {
    set(0x1000 + 2 * i, 2, half_of(i));
    set(0x2000 + 2 * i, 2, half_of(5));
  }
  for (int i = 0; i < 64; ++i) set(0x3000 + i, 1, 0xee);
  NpuInstruction in;
  in.op = Op::kVcmp;
  in.xd = 0x3000;
  in.xn = 0x1000;
  in.xm = 0x2000;
  in.xt = simple_xt(1, kF16) | put(xv::compare, 2);
  in.vector_mask[0] = ~2ull;
  unit.execute(in);
  EXPECT_EQ(get(0x3000, 1), 0x1du);  // lanes 0, 2, 3, 4
  for (int i = 1; i < 16; ++i) EXPECT_EQ(get(0x3000 + i, 1), 0u) << i;
  EXPECT_EQ(get(0x3010, 1), 0xeeu);  // only 16 bytes per f16 repeat
  // ge on f32, 2 repeats: 8 bytes per repeat.
  for (int i = 0; i < 128; ++i) set(0x1000 + 4 * i, 4, b32(static_cast<float>(i % 64)));
  for (int i = 0; i < 128; ++i) set(0x2000 + 4 * i, 4, b32(60.0f));
  in.xt = simple_xt(2, kF32) | put(xv::compare, 5);
  in.vector_mask[0] = ~0ull;
  unit.execute(in);
  EXPECT_EQ(get(0x3000, 8), 0xf000000000000000ull);
  EXPECT_EQ(get(0x3008, 8), 0xf000000000000000ull);
  EXPECT_EQ(get(0x3010, 1), 0xeeu);
}

TEST_F(VectorUnitTest, SelectMatchesReference) {
  for (unsigned type : {kF16, kF32, kS32})
    for (const Layout& layout : layouts(rng)) {
      SCOPED_TRACE(std::string("vsel.") + type_name(type) + " " + layout.name);
      fill_ub(type, true, false);
      for (std::uint64_t i = 0; i < 255 * 16; ++i) buffers.ub.data()[layout.cmpmask + i] = static_cast<std::uint8_t>(rng());
      std::vector<std::uint8_t> expected = ub();
      const unsigned size = type_size(type), lanes = 256 / size;
      for (std::uint64_t r = 0; r < layout.repeats; ++r) {
        std::vector<std::uint64_t> a(lanes), b(lanes);
        std::vector<bool> bit(lanes);
        for (unsigned l = 0; l < lanes; ++l) {
          a[l] = load(expected, lane_address(layout.src0, r, l, size), size);
          b[l] = load(expected, lane_address(layout.src1, r, l, size), size);
          bit[l] = (expected[layout.cmpmask + r * lanes / 8 + l / 8] >> (l % 8)) & 1;
        }
        for (unsigned l = 0; l < lanes; ++l)
          if (lane_on(layout, l, lanes))
            store(expected, lane_address(layout.dst, r, l, size), size, bit[l] ? a[l] : b[l]);
      }
      run_and_compare(instruction(Op::kVsel, layout, type), expected);
      if (HasFailure()) return;
    }
}

TEST_F(VectorUnitTest, CompareThenSelectIsMaximum) {
  // vcmp gt writes the bits vsel consumes: together a lane-wise maximum.
  for (int i = 0; i < 64; ++i) {
    set(0x1000 + 4 * i, 4, u32(i * 7 % 13));
    set(0x2000 + 4 * i, 4, u32(i % 9));
  }
  NpuInstruction cmp;
  cmp.op = Op::kVcmp;
  cmp.xd = 0x3000;
  cmp.xn = 0x1000;
  cmp.xm = 0x2000;
  cmp.xt = simple_xt(1, kS32) | put(xv::compare, 4);
  unit.execute(cmp);
  NpuInstruction sel = cmp;
  sel.op = Op::kVsel;
  sel.xd = 0x4000;
  sel.xt = simple_xt(1, kS32);
  sel.cmpmask = 0x3000;
  unit.execute(sel);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(s32(get(0x4000 + 4 * i, 4)), std::max(i * 7 % 13, i % 9)) << i;
}

// ---- vconv ------------------------------------------------------------------

struct Kind {
  unsigned src_size, dst_size;
  const char* name;
};
const Kind kKinds[8] = {{4, 2, "f32->f16"}, {2, 4, "f16->f32"}, {2, 1, "f16->s8"}, {1, 2, "s8->f16"},
                        {2, 4, "f16->s32"}, {4, 2, "s32->f16"}, {4, 4, "f32->s32"}, {4, 4, "s32->f32"}};

std::uint64_t ref_convert(unsigned kind, Rounding r, std::uint64_t a) {
  switch (kind) {
    case 0: return H(f32(a), r);
    case 1: return b32(F(a));
    case 2: return static_cast<std::uint8_t>(numerics::float_to_int8(F(a), r));
    case 3: return H(static_cast<float>(static_cast<std::int8_t>(a)));  // exact
    case 4: return u32(numerics::float_to_int32(F(a), r));
    case 5: return numerics::int32_to_half(s32(a), r);
    case 6: return u32(numerics::float_to_int32(f32(a), r));
    case 7: return b32(numerics::int32_to_float(s32(a), r));
  }
  return 0;
}

TEST_F(VectorUnitTest, ConvertMatchesReferenceEveryKindAndRounding) {
  for (unsigned kind = 0; kind < 8; ++kind)
    for (unsigned round = 0; round < 5; ++round)
      for (const Layout& layout : layouts(rng)) {
        SCOPED_TRACE(std::string("vconv ") + kKinds[kind].name + " round " + std::to_string(round) + " " +
                     layout.name);
        // Sources: f16 (pool-heavy: NaN, inf, halfway values), f32 in a
        // range that hits the s32 / f16 limits, s32, s8 random bytes.
        const unsigned src = kKinds[kind].src_size;
        if (src == 2) {
          fill_ub(kF16, true, rng() % 2 == 0);
        } else if (src == 1) {
          fill_random_bytes(buffers.ub);
        } else if (kind == 0 || kind == 6) {
          fill_ub(kF32, true, false);
          for (std::size_t a = 0; a < kUbSize; a += 16) {  // values near integers and halves, large values
            const float v = static_cast<float>(static_cast<int>(rng() % 2000001) - 1000000) / 4.0f;
            set(a, 4, b32(kind == 6 && a % 64 == 0 ? v * 1e4f : v));
          }
        } else {
          fill_ub(kS32, false, false);
          for (std::size_t a = 0; a < kUbSize; a += 16) set(a, 4, u32(static_cast<int>(rng() % 200001) - 100000));
        }
        std::vector<std::uint8_t> expected = ub();
        const auto rounding = static_cast<Rounding>(round);
        ref_elementwise(expected, layout, src, kKinds[kind].dst_size, 1,
                        [&](std::uint64_t a, std::uint64_t) { return ref_convert(kind, rounding, a); });
        NpuInstruction in = instruction(Op::kVconv, layout, 3 /* ignored */);
        in.xm = put(xdavinci::convert::kind, kind) | put(xdavinci::convert::round, round);
        const UnitResult result = run_and_compare(in, expected);
        const unsigned lanes = 256 / std::max(src, kKinds[kind].dst_size);
        EXPECT_EQ(result.bytes, layout.repeats * lanes * kKinds[kind].dst_size);
        if (HasFailure()) return;
      }
}

TEST_F(VectorUnitTest, ConvertHandPicked) {
  auto convert = [&](unsigned kind, unsigned round, std::uint64_t value) {
    const Kind& k = kKinds[kind];
    set(0x100, k.src_size, value);
    set(0x400, 8, 0x1111111111111111ull);
    NpuInstruction in;
    in.op = Op::kVconv;
    in.xd = 0x400;
    in.xn = 0x100;
    in.xm = put(xdavinci::convert::kind, kind) | put(xdavinci::convert::round, round);
    in.xt = put(xv::repeat, 1) | put(xv::dst_block_stride, 1) | put(xv::src0_block_stride, 1);
    in.vector_mask[0] = 1;  // lane 0 only
    in.vector_mask[1] = 0;
    unit.execute(in);
    EXPECT_EQ(get(0x400 + k.dst_size, 1), 0x11u) << "lane 1 written";
    return get(0x400, k.dst_size);
  };
  EXPECT_EQ(convert(0, 0, b32(65520.0f)), 0x7c00u);
  EXPECT_EQ(convert(0, 1, b32(65520.0f)), 0x7bffu);
  EXPECT_EQ(convert(0, 2, b32(-1e9f)), 0xfc00u);
  EXPECT_EQ(convert(0, 3, b32(1.0f + std::ldexp(1.0f, -20))), 0x3c01u);
  EXPECT_EQ(convert(1, 0, 0x0001), b32(std::ldexp(1.0f, -24)));
  EXPECT_EQ(convert(2, 0, half_of(300)), 127u);
  EXPECT_EQ(convert(2, 0, half_of(-300)), 0x80u);
  EXPECT_EQ(convert(2, 0, half_of(-2.5)), 0xfeu);  // -2
  EXPECT_EQ(convert(2, 4, half_of(-2.5)), 0xfdu);  // -3
  EXPECT_EQ(convert(2, 3, half_of(2.25)), 3u);
  EXPECT_EQ(convert(2, 0, 0x7e00), 0u);  // NaN
  EXPECT_EQ(convert(3, 0, 0x80), 0xd800u);  // -128
  EXPECT_EQ(convert(3, 0, 0x7f), 0x57f0u);  // 127
  EXPECT_EQ(convert(4, 2, half_of(-0.5)), 0xffffffffu);
  EXPECT_EQ(convert(4, 0, 0xfc00), u32(kIntMin));
  EXPECT_EQ(convert(5, 0, u32(65520)), 0x7c00u);
  EXPECT_EQ(convert(5, 1, u32(65520)), 0x7bffu);
  EXPECT_EQ(convert(5, 0, u32(2049)), 0x6800u);
  EXPECT_EQ(convert(5, 4, u32(2049)), 0x6801u);
  EXPECT_EQ(convert(6, 0, b32(3e9f)), u32(kIntMax));
  EXPECT_EQ(convert(6, 0, 0x7fc00000), 0u);
  EXPECT_EQ(convert(6, 4, b32(-1.5f)), u32(-2));
  EXPECT_EQ(convert(7, 1, u32(16777217)), b32(16777216.0f));
  EXPECT_EQ(convert(7, 3, u32(16777217)), b32(16777218.0f));
}

TEST_F(VectorUnitTest, ConvertLaneCountsAndMasks) {
  // f16 -> s8: 128 lanes, 8 source blocks -> 4 destination blocks; the high
  // mask word applies. f32 -> f16: 64 lanes, 8 -> 4 blocks; it does not.
  for (int i = 0; i < 128; ++i) set(0x1000 + 2 * i, 2, half_of(i - 64));
  for (int i = 0; i < 256; ++i) set(0x2000 + i, 1, 0x77);
  NpuInstruction in;
  in.op = Op::kVconv;
  in.xd = 0x2000;
  in.xn = 0x1000;
  in.xm = put(xdavinci::convert::kind, 2);
  in.xt = put(xv::repeat, 1) | put(xv::dst_block_stride, 1) | put(xv::src0_block_stride, 1);
  in.vector_mask[0] = 0;
  in.vector_mask[1] = ~0ull;
  const UnitResult result = unit.execute(in);
  EXPECT_EQ(result.bytes, 128u);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(get(0x2000 + i, 1), 0x77u) << i;
  for (int i = 64; i < 128; ++i) EXPECT_EQ(static_cast<std::int8_t>(get(0x2000 + i, 1)), i - 64) << i;
  EXPECT_EQ(get(0x2000 + 128, 1), 0x77u);

  for (int i = 0; i < 64; ++i) set(0x1000 + 4 * i, 4, b32(static_cast<float>(i)));
  in.xm = put(xdavinci::convert::kind, 0);
  in.xd = 0x3000;
  for (int i = 0; i < 256; ++i) set(0x3000 + i, 1, 0x77);
  in.vector_mask[0] = ~0ull;
  unit.execute(in);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(get(0x3000 + 2 * i, 2), half_of(i)) << i;
  EXPECT_EQ(get(0x3000 + 128, 1), 0x77u);
}

// ---- Reductions --------------------------------------------------------------

std::uint64_t ref_reduce(Op op, unsigned type, const std::vector<std::uint64_t>& lanes) {
  if (lanes.empty()) {
    if (op == Op::kVcadd) return 0;
    const bool is_max = op == Op::kVcmax;
    if (type == kF16) return is_max ? 0xfc00 : 0x7c00;
    if (type == kF32) return is_max ? 0xff800000 : 0x7f800000;
    return u32(is_max ? kIntMin : kIntMax);
  }
  if (op == Op::kVcadd) {
    if (type == kS32) {
      std::uint32_t sum = 0;
      for (std::uint64_t v : lanes) sum += static_cast<std::uint32_t>(v);
      return sum;
    }
    float sum = value_of(type, lanes[0]);
    for (std::size_t i = 1; i < lanes.size(); ++i) sum += static_cast<float>(value_of(type, lanes[i]));
    return type == kF16 ? H(sum) : b32(sum);
  }
  std::uint64_t acc = lanes[0];
  if (type == kF16 && std::isnan(value_of(type, acc))) acc |= 0x0200;
  if (type == kF32 && std::isnan(value_of(type, acc))) acc |= 0x00400000;
  for (std::size_t i = 1; i < lanes.size(); ++i) acc = ref_maxmin(op == Op::kVcmax, type, acc, lanes[i]);
  return acc;
}

TEST_F(VectorUnitTest, ReductionsMatchReference) {
  for (Op op : {Op::kVcadd, Op::kVcmax, Op::kVcmin})
    for (unsigned type : {kF16, kF32, kS32})
      for (const Layout& layout : layouts(rng))
        for (bool pool : {false, true}) {
          SCOPED_TRACE(std::string(xdavinci::spec_of(op).mnemonic) + "." + type_name(type) + " " + layout.name +
                       (pool ? " (pool)" : ""));
          fill_ub(type, op != Op::kVcadd, pool && op != Op::kVcadd);
          std::vector<std::uint8_t> expected = ub();
          const unsigned size = type_size(type), lanes = 256 / size;
          for (std::uint64_t r = 0; r < layout.repeats; ++r) {
            std::vector<std::uint64_t> values;
            for (unsigned l = 0; l < lanes; ++l)
              if (lane_on(layout, l, lanes)) values.push_back(load(expected, lane_address(layout.src0, r, l, size), size));
            store(expected, layout.dst.base + r * size, size, ref_reduce(op, type, values));
          }
          const UnitResult result = run_and_compare(instruction(op, layout, type), expected);
          EXPECT_EQ(result.bytes, layout.repeats * size);
          if (HasFailure()) return;
        }
}

TEST_F(VectorUnitTest, ReductionsHandComputed) {
  auto reduce = [&](Op op, unsigned type, std::uint64_t mask0, std::uint64_t mask1) {
    NpuInstruction in;
    in.op = op;
    in.xd = 0x8000;
    in.xn = 0x1000;
    in.xt = simple_xt(1, type);
    in.vector_mask[0] = mask0;
    in.vector_mask[1] = mask1;
    unit.execute(in);
    return get(0x8000, type_size(type));
  };
  for (int i = 0; i < 128; ++i) set(0x1000 + 2 * i, 2, 0x3c00);
  EXPECT_EQ(reduce(Op::kVcadd, kF16, ~0ull, ~0ull), half_of(128));
  EXPECT_EQ(reduce(Op::kVcadd, kF16, ~0ull, 0), half_of(64));
  EXPECT_EQ(reduce(Op::kVcadd, kF16, 0x5, 0x1), half_of(3));
  EXPECT_EQ(reduce(Op::kVcadd, kF16, 0, 0), 0u);
  EXPECT_EQ(reduce(Op::kVcmax, kF16, 0, 0), 0xfc00u);
  EXPECT_EQ(reduce(Op::kVcmin, kF16, 0, 0), 0x7c00u);
  // Accumulated in float, rounded once: 2048 + 1 + 1 = 2050 (stepwise in f16
  // it would stay 2048).
  set(0x1000, 2, half_of(2048));
  EXPECT_EQ(reduce(Op::kVcadd, kF16, 0x7, 0), half_of(2050));
  set(0x1000 + 2 * 70, 2, half_of(-5));
  set(0x1000 + 2 * 71, 2, half_of(9));
  EXPECT_EQ(reduce(Op::kVcmin, kF16, 0, ~0ull), half_of(-5));
  EXPECT_EQ(reduce(Op::kVcmax, kF16, 0, ~0ull), half_of(9));
  EXPECT_EQ(reduce(Op::kVcmax, kF16, 0x2, 0), half_of(1));
  for (int i = 0; i < 64; ++i) set(0x1000 + 4 * i, 4, u32(i == 5 ? kIntMax : 1));
  EXPECT_EQ(s32(reduce(Op::kVcadd, kS32, ~0ull, 0)), kIntMin + 62);  // INT_MAX + 63 wraps
  EXPECT_EQ(s32(reduce(Op::kVcmax, kS32, 0, ~0ull)), kIntMin);        // high word ignored: no lane
  EXPECT_EQ(s32(reduce(Op::kVcmin, kS32, 0, 0)), kIntMax);
  for (int i = 0; i < 64; ++i) set(0x1000 + 4 * i, 4, b32(i == 9 ? -3.5f : 0.25f));
  EXPECT_EQ(f32(reduce(Op::kVcadd, kF32, ~0ull, 0)), 63 * 0.25f - 3.5f);
  EXPECT_EQ(f32(reduce(Op::kVcmin, kF32, ~0ull, 0)), -3.5f);
  EXPECT_EQ(f32(reduce(Op::kVcmax, kF32, 0x200, 0)), -3.5f);
  EXPECT_EQ(reduce(Op::kVcadd, kF32, 0, ~0ull), 0u);
  EXPECT_EQ(reduce(Op::kVcmax, kF32, 0, ~0ull), 0xff800000u);
  EXPECT_EQ(reduce(Op::kVcmin, kF32, 0, ~0ull), 0x7f800000u);
}

// ---- copy_matrix_cc_to_ubuf -------------------------------------------------

std::uint64_t cc_xt(std::uint64_t n_burst, std::uint64_t burst_len, std::uint64_t src_gap, std::uint64_t dst_gap,
                    unsigned mode, bool relu) {
  namespace cc = xdavinci::cc_to_ub;
  return put(cc::n_burst, n_burst) | put(cc::burst_len, burst_len) | put(cc::src_gap, src_gap) |
         put(cc::dst_gap, dst_gap) | put(cc::mode, mode) | put(cc::relu, relu ? 1 : 0);
}

TEST_F(VectorUnitTest, CcToUbMatchesReference) {
  struct Shape {
    std::uint64_t n_burst, burst_len, src_gap, dst_gap, l0c, ub;
  };
  const Shape shapes[] = {{1, 1, 0, 0, 0, 0}, {3, 2, 1, 2, 0x2000, 0x8000}, {2, 5, 3, 0, 0x400, 0x20},
                          {1, 64, 0, 0, 0, 0x10000}};
  for (unsigned mode = 0; mode < 4; ++mode)
    for (bool relu : {false, true})
      for (const Shape& s : shapes) {
        SCOPED_TRACE("mode " + std::to_string(mode) + (relu ? " relu" : "") + " bursts " + std::to_string(s.n_burst) +
                     "x" + std::to_string(s.burst_len));
        fill_ub(kF16);
        const bool is_float = mode < 2;
        for (std::size_t a = 0; a < kL0cSize; a += 4) {
          const std::uint64_t v = rng() % 8 == 0 ? u32(static_cast<int>(rng() % 140001) - 70000)
                                                : random_value(is_float ? kF32 : kS32, true, rng() % 4 == 0);
          std::memcpy(buffers.l0c.data() + a, &v, 4);
        }
        std::vector<std::uint8_t> expected = ub();
        const std::uint64_t dst_fractal = (mode == 1 || mode == 3) ? 512 : 1024;
        for (std::uint64_t i = 0; i < s.n_burst; ++i)
          for (std::uint64_t j = 0; j < s.burst_len; ++j)
            for (unsigned e = 0; e < 256; ++e) {
              std::uint32_t v;
              std::memcpy(&v, buffers.l0c.data() + s.l0c + (i * (s.burst_len + s.src_gap) + j) * 1024 + 4 * e, 4);
              std::uint64_t out;
              if (is_float) {
                float x = f32(v);
                if (relu) x = std::isnan(x) ? f32(v | 0x00400000) : (x > 0 ? x : 0.0f);
                out = mode == 0 ? b32(x) : H(x);
              } else {
                std::int32_t x = s32(v);
                if (relu) x = std::max(x, 0);
                out = mode == 2 ? u32(x) : numerics::int32_to_half(x, Rounding::kNearestEven);
              }
              const std::uint64_t unit_size = dst_fractal / 256;
              store(expected, s.ub + (i * (s.burst_len + s.dst_gap) + j) * dst_fractal + e * unit_size, unit_size, out);
            }
        NpuInstruction in;
        in.op = Op::kCopyMatrixCcToUbuf;
        in.xd = s.ub;
        in.xn = s.l0c;
        in.xt = cc_xt(s.n_burst, s.burst_len, s.src_gap, s.dst_gap, mode, relu);
        in.vector_mask[0] = in.vector_mask[1] = 0;  // not masked
        const UnitResult result = run_and_compare(in, expected);
        const std::uint64_t fractals = s.n_burst * s.burst_len;
        EXPECT_EQ(result.bytes, fractals * dst_fractal);
        EXPECT_EQ(result.cycles, timing.startup_cycles + (fractals * 1024 + 127) / 128);
        EXPECT_EQ(result.macs, 0u);
        if (HasFailure()) return;
      }
}

TEST_F(VectorUnitTest, CcToUbHandComputed) {
  const float values[] = {1.0f, -2.0f, 65520.0f, NAN, -0.0f, 0.1f};
  const std::uint16_t plain[] = {0x3c00, 0xc000, 0x7c00, 0x7e00, 0x8000, 0x2e66};
  const std::uint16_t relu[] = {0x3c00, 0x0000, 0x7c00, 0x7e00, 0x0000, 0x2e66};
  for (int i = 0; i < 6; ++i) std::memcpy(buffers.l0c.data() + 4 * i, &values[i], 4);
  NpuInstruction in;
  in.op = Op::kCopyMatrixCcToUbuf;
  in.xd = 0x100;
  in.xn = 0;
  in.xt = cc_xt(1, 1, 0, 0, 1, false);
  unit.execute(in);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(get(0x100 + 2 * i, 2), plain[i]) << i;
  in.xt = cc_xt(1, 1, 0, 0, 1, true);
  unit.execute(in);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(get(0x100 + 2 * i, 2), relu[i]) << i;
  const std::int32_t ints[] = {-5, 70000, 2049, 7};
  for (int i = 0; i < 4; ++i) std::memcpy(buffers.l0c.data() + 4 * i, &ints[i], 4);
  in.xt = cc_xt(1, 1, 0, 0, 3, false);
  unit.execute(in);
  EXPECT_EQ(get(0x100, 2), half_of(-5));
  EXPECT_EQ(get(0x102, 2), 0x7c00u);
  EXPECT_EQ(get(0x104, 2), half_of(2048));
  in.xt = cc_xt(1, 1, 0, 0, 2, true);
  unit.execute(in);
  EXPECT_EQ(s32(get(0x100, 4)), 0);
  EXPECT_EQ(s32(get(0x104, 4)), 70000);
}

// ---- Faults --------------------------------------------------------------

TEST_F(VectorUnitTest, FaultsWriteNothing) {
  fill_random_bytes(buffers.ub);
  fill_random_bytes(buffers.l0c);
  NpuInstruction good;
  good.op = Op::kVadd;
  good.xd = 0x1000;
  good.xn = 0x2000;
  good.xm = 0x3000;
  good.xt = simple_xt(4, kF16);
  using C = KernelFaultCause;
  {
    SCOPED_TRACE("valid baseline");
    const auto before = ub();
    unit.execute(good);
    EXPECT_FALSE(ub() == before);
    fill_random_bytes(buffers.ub);
  }
  auto with = [&](auto change) {
    NpuInstruction in = good;
    change(in);
    return in;
  };
  struct Case {
    const char* name;
    NpuInstruction in;
    C cause;
  };
  const std::uint64_t last_repeat_out = kUbSize - 3 * 256;  // repeat 3 of 4 leaves UB
  const Case cases[] = {
      {"dst misaligned", with([](NpuInstruction& i) { i.xd += 16; }), C::kMisaligned},
      {"src0 misaligned", with([](NpuInstruction& i) { i.xn += 2; }), C::kMisaligned},
      {"src1 misaligned", with([](NpuInstruction& i) { i.xm += 1; }), C::kMisaligned},
      {"dst out of range", with([](NpuInstruction& i) { i.xd = kUbSize; }), C::kBufferRange},
      {"dst far out of range", with([](NpuInstruction& i) { i.xd = 1ull << 40; }), C::kBufferRange},
      {"src0 last repeat out of range", with([&](NpuInstruction& i) { i.xn = last_repeat_out; }), C::kBufferRange},
      {"src1 last repeat out of range", with([&](NpuInstruction& i) { i.xm = last_repeat_out; }), C::kBufferRange},
      {"dst block stride leaves UB",  // fits with block stride 1
       with([](NpuInstruction& i) {
         i.xd = kUbSize - 256;
         i.xt = put(xv::repeat, 1) | put(xv::dst_block_stride, 2) | put(xv::src0_block_stride, 1) |
                put(xv::src1_block_stride, 1);
       }),
       C::kBufferRange},
      {"repeat 0", with([](NpuInstruction& i) { i.xt &= ~(xv::repeat.max() << xv::repeat.lsb); }),
       C::kInvalidParameter},
      {"type 3", with([](NpuInstruction& i) { i.xt |= put(xv::type, 3); }), C::kInvalidParameter},
      {"s32 vexp", with([](NpuInstruction& i) { i.op = Op::kVexp; i.xt = simple_xt(1, kS32); }), C::kInvalidParameter},
      {"s32 vln", with([](NpuInstruction& i) { i.op = Op::kVln; i.xt = simple_xt(1, kS32); }), C::kInvalidParameter},
      {"s32 vsqrt", with([](NpuInstruction& i) { i.op = Op::kVsqrt; i.xt = simple_xt(1, kS32); }),
       C::kInvalidParameter},
      {"s32 vrsqrt", with([](NpuInstruction& i) { i.op = Op::kVrsqrt; i.xt = simple_xt(1, kS32); }),
       C::kInvalidParameter},
      {"s32 vrec", with([](NpuInstruction& i) { i.op = Op::kVrec; i.xt = simple_xt(1, kS32); }), C::kInvalidParameter},
      {"vcmp compare 6", with([](NpuInstruction& i) { i.op = Op::kVcmp; i.xt |= put(xv::compare, 6); }),
       C::kInvalidParameter},
      {"vcmp compare 7", with([](NpuInstruction& i) { i.op = Op::kVcmp; i.xt |= put(xv::compare, 7); }),
       C::kInvalidParameter},
      {"vcmp dst misaligned", with([](NpuInstruction& i) { i.op = Op::kVcmp; i.xd += 8; }), C::kMisaligned},
      {"vcmp dst out of range", with([](NpuInstruction& i) { i.op = Op::kVcmp; i.xd = kUbSize - 32; }),
       C::kBufferRange},
      {"vsel cmpmask misaligned", with([](NpuInstruction& i) { i.op = Op::kVsel; i.cmpmask = 0x4008; }),
       C::kMisaligned},
      {"vsel cmpmask out of range", with([](NpuInstruction& i) { i.op = Op::kVsel; i.cmpmask = kUbSize - 32; }),
       C::kBufferRange},
      {"vconv kind 8",
       with([](NpuInstruction& i) { i.op = Op::kVconv; i.xm = put(xdavinci::convert::kind, 8); }),
       C::kInvalidParameter},
      {"vconv round 5",
       with([](NpuInstruction& i) { i.op = Op::kVconv; i.xm = put(xdavinci::convert::round, 5); }),
       C::kInvalidParameter},
      {"vconv repeat 0",
       with([](NpuInstruction& i) { i.op = Op::kVconv; i.xm = 0; i.xt = put(xv::dst_block_stride, 1); }),
       C::kInvalidParameter},
      {"vcadd dst misaligned", with([](NpuInstruction& i) { i.op = Op::kVcadd; i.xd += 2; }), C::kMisaligned},
      {"vcmax dst out of range",
       with([](NpuInstruction& i) { i.op = Op::kVcmax; i.xd = kUbSize - 32; i.xt = simple_xt(17, kF16); }),
       C::kBufferRange},
      {"vdup dst out of range", with([](NpuInstruction& i) { i.op = Op::kVdup; i.xd = kUbSize - 512; }),
       C::kBufferRange},
      {"vadds src0 misaligned", with([](NpuInstruction& i) { i.op = Op::kVadds; i.xn += 4; }), C::kMisaligned},
      {"not a V op: mmad", with([](NpuInstruction& i) { i.op = Op::kMmad; }), C::kInvalidParameter},
      {"not a V op: copy_gm_to_ubuf", with([](NpuInstruction& i) { i.op = Op::kCopyGmToUbuf; }),
       C::kInvalidParameter},
      {"not a V op: set_flag", with([](NpuInstruction& i) { i.op = Op::kSetFlag; }), C::kInvalidParameter},
      {"not a V op: kCount", with([](NpuInstruction& i) { i.op = Op::kCount; }), C::kInvalidParameter},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    expect_fault(c.in, c.cause);
  }
}

TEST_F(VectorUnitTest, CcToUbFaultsWriteNothing) {
  fill_random_bytes(buffers.ub);
  fill_random_bytes(buffers.l0c);
  NpuInstruction good;
  good.op = Op::kCopyMatrixCcToUbuf;
  good.xd = 0x1000;
  good.xn = 0x400;
  good.xt = cc_xt(2, 2, 1, 1, 1, true);
  unit.execute(good);  // valid
  using C = KernelFaultCause;
  auto with = [&](auto change) {
    NpuInstruction in = good;
    change(in);
    return in;
  };
  const std::pair<const char*, std::pair<NpuInstruction, C>> cases[] = {
      {"n_burst 0", {with([](NpuInstruction& i) { i.xt = cc_xt(0, 2, 0, 0, 1, false); }), C::kInvalidParameter}},
      {"burst_len 0", {with([](NpuInstruction& i) { i.xt = cc_xt(2, 0, 0, 0, 1, false); }), C::kInvalidParameter}},
      {"L0C misaligned", {with([](NpuInstruction& i) { i.xn = 0x410; }), C::kMisaligned}},
      {"UB misaligned", {with([](NpuInstruction& i) { i.xd = 0x1004; }), C::kMisaligned}},
      {"L0C range (gaps)", {with([](NpuInstruction& i) { i.xn = kL0cSize - 4 * 1024; i.xt = cc_xt(2, 2, 1, 0, 0, false); }),
                            C::kBufferRange}},
      {"UB range", {with([](NpuInstruction& i) { i.xd = kUbSize - 1024; i.xt = cc_xt(1, 3, 0, 0, 1, false); }),
                    C::kBufferRange}},
      {"UB range (f32 fractals)",
       {with([](NpuInstruction& i) { i.xd = kUbSize - 1024; i.xt = cc_xt(2, 1, 0, 0, 0, false); }), C::kBufferRange}},
  };
  for (const auto& [name, c] : cases) {
    SCOPED_TRACE(name);
    expect_fault(c.first, c.second);
  }
}

// ---- Timing and coverage ------------------------------------------------------

TEST_F(VectorUnitTest, Timing) {
  VectorTiming t;
  t.startup_cycles = 3;
  t.cycles_per_repeat = 2;
  t.complex_cycles_per_repeat = 7;
  t.cc_to_ub_bytes_per_cycle = 100;
  VectorUnit custom(buffers, t);
  NpuInstruction in;
  in.op = Op::kVadd;
  in.xd = 0x1000;
  in.xn = 0x2000;
  in.xm = 0x3000;
  in.xt = simple_xt(5, kF16);
  UnitResult r = custom.execute(in);
  EXPECT_EQ(r.cycles, 3u + 5 * 2);
  EXPECT_EQ(r.bytes, 5u * 256);
  EXPECT_EQ(r.macs, 0u);
  for (Op op : {Op::kVdiv, Op::kVexp, Op::kVln, Op::kVsqrt, Op::kVrsqrt, Op::kVrec}) {
    in.op = op;
    in.xt = simple_xt(4, kF32);
    EXPECT_EQ(custom.execute(in).cycles, 3u + 4 * 7) << xdavinci::spec_of(op).mnemonic;
  }
  for (Op op : {Op::kVmul, Op::kVmax, Op::kVrelu, Op::kVcmp, Op::kVsel, Op::kVdup, Op::kVcadd, Op::kVconv}) {
    in.op = op;
    in.xm = op == Op::kVconv ? 0 : 0x3000;
    in.xt = simple_xt(4, kF32);
    EXPECT_EQ(custom.execute(in).cycles, 3u + 4 * 2) << xdavinci::spec_of(op).mnemonic;
  }
  in.op = Op::kVcadd;
  in.xt = simple_xt(6, kF32);
  EXPECT_EQ(custom.execute(in).bytes, 6u * 4);
  in.op = Op::kVcmp;
  in.xt = simple_xt(3, kF16);
  EXPECT_EQ(custom.execute(in).bytes, 3u * 16);
  in.op = Op::kCopyMatrixCcToUbuf;
  in.xn = 0;
  in.xt = cc_xt(2, 3, 0, 0, 1, false);
  r = custom.execute(in);
  EXPECT_EQ(r.cycles, 3u + (6 * 1024 + 99) / 100);
  EXPECT_EQ(r.bytes, 6u * 512);
}

TEST_F(VectorUnitTest, ExactlyTheVectorPipeOperationsAreAccepted) {
  unsigned accepted = 0;
  for (unsigned i = 0; i < static_cast<unsigned>(Op::kCount); ++i) {
    const auto op = static_cast<Op>(i);
    const xdavinci::OpSpec& spec = xdavinci::spec_of(op);
    NpuInstruction in;
    in.op = op;
    in.xd = 0x1000;
    in.xn = 0x2000;
    in.xm = 0x3000;
    in.xt = op == Op::kCopyMatrixCcToUbuf ? cc_xt(1, 1, 0, 0, 0, false) : simple_xt(1, kF16);
    if (op == Op::kVconv) in.xm = 0;
    in.cmpmask = 0x4000;
    if (spec.pipe == xdavinci::Pipe::kV) {
      EXPECT_NO_THROW(unit.execute(in)) << spec.mnemonic;
      ++accepted;
    } else {
      try {
        unit.execute(in);
        ADD_FAILURE() << spec.mnemonic << " accepted";
      } catch (const KernelFault& fault) {
        EXPECT_EQ(fault.cause(), KernelFaultCause::kInvalidParameter) << spec.mnemonic;
      }
    }
  }
  EXPECT_EQ(accepted, 28u);
}

}  // namespace
}  // namespace npuvp
