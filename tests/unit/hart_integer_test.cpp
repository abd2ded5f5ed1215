// RV64I and M computational instructions, control transfer and x0 handling,
// executed on a Hart one instruction at a time.
#include "unit/hart_test_support.h"

#include <cstdint>
#include <limits>

namespace npuvp {
namespace {

using namespace rv;
using namespace hart_test;

constexpr std::uint64_t kMin64 = 0x8000000000000000ull, kMax64 = 0x7fffffffffffffffull, kAll = ~0ull;

class HartIntegerTest : public HartTest {
 protected:
  using RegRegFn = std::uint32_t (*)(std::uint32_t, std::uint32_t, std::uint32_t);
  using RegImmFn = std::uint32_t (*)(std::uint32_t, std::uint32_t, std::int32_t);

  // Runs "op a0, a1, a2" with a1 = a, a2 = b; returns a0.
  std::uint64_t rr(RegRegFn op, std::uint64_t a, std::uint64_t b) {
    hart.x[a1] = a;
    hart.x[a2] = b;
    hart.x[a0] = 0x5a5a5a5a5a5a5a5aull;
    std::uint64_t at = exec({op(a0, a1, a2)});
    EXPECT_EQ(hart.exceptions(), 0u) << trap_cause_name(hart.mcause());
    EXPECT_EQ(hart.pc, at + 4);
    EXPECT_EQ(hart.x[a1], a) << "source changed";
    EXPECT_EQ(hart.x[a2], b) << "source changed";
    return hart.x[a0];
  }
  // Runs "op a0, a1, imm" with a1 = a; returns a0.
  std::uint64_t ri(RegImmFn op, std::uint64_t a, std::int32_t imm) {
    hart.x[a1] = a;
    hart.x[a0] = 0x5a5a5a5a5a5a5a5aull;
    std::uint64_t at = exec({op(a0, a1, imm)});
    EXPECT_EQ(hart.exceptions(), 0u) << trap_cause_name(hart.mcause());
    EXPECT_EQ(hart.pc, at + 4);
    EXPECT_EQ(hart.x[a1], a) << "source changed";
    return hart.x[a0];
  }
};

TEST_F(HartIntegerTest, AddAndSubWrapAround) {
  EXPECT_EQ(rr(add, 5, 7), 12u);
  EXPECT_EQ(rr(add, kMax64, 1), kMin64);
  EXPECT_EQ(rr(add, kAll, 1), 0u);
  EXPECT_EQ(rr(sub, 5, 7), static_cast<std::uint64_t>(-2));
  EXPECT_EQ(rr(sub, kMin64, 1), kMax64);
  EXPECT_EQ(rr(sub, 0, kMin64), kMin64);
  EXPECT_EQ(ri(addi, 10, -11), kAll);
  EXPECT_EQ(ri(addi, 10, 2047), 2057u);
  EXPECT_EQ(ri(addi, 10, -2048), static_cast<std::uint64_t>(10 - 2048));
  EXPECT_EQ(ri(addi, kMax64, 1), kMin64);
}

TEST_F(HartIntegerTest, LogicalOperationsSignExtendImmediates) {
  EXPECT_EQ(rr(and_, 0xff00ff00ff00ff00ull, 0x0ff00ff00ff00ff0ull), 0x0f000f000f000f00ull);
  EXPECT_EQ(rr(or_, 0xff00ff00ff00ff00ull, 0x0ff00ff00ff00ff0ull), 0xfff0fff0fff0fff0ull);
  EXPECT_EQ(rr(xor_, 0xff00ff00ff00ff00ull, 0x0ff00ff00ff00ff0ull), 0xf0f0f0f0f0f0f0f0ull);
  EXPECT_EQ(ri(andi, 0x123456789abcdef0ull, -16), 0x123456789abcdef0ull);
  EXPECT_EQ(ri(andi, 0x123456789abcdeffull, -16), 0x123456789abcdef0ull);
  EXPECT_EQ(ri(andi, 0x123456789abcdeffull, 0x7ff), 0x6ffu);
  EXPECT_EQ(ri(ori, 0, -2048), 0xfffffffffffff800ull);
  EXPECT_EQ(ri(ori, 0x1000, 0x0ff), 0x10ffu);
  EXPECT_EQ(ri(xori, 0x123456789abcdef0ull, -1), ~0x123456789abcdef0ull) << "xori -1 is not";
  EXPECT_EQ(ri(xori, 0xff, 0x0f), 0xf0u);
}

TEST_F(HartIntegerTest, SetLessThanSignedAndUnsigned) {
  EXPECT_EQ(rr(slt, static_cast<std::uint64_t>(-1), 1), 1u);
  EXPECT_EQ(rr(sltu, static_cast<std::uint64_t>(-1), 1), 0u);
  EXPECT_EQ(rr(slt, 1, static_cast<std::uint64_t>(-1)), 0u);
  EXPECT_EQ(rr(sltu, 1, static_cast<std::uint64_t>(-1)), 1u);
  EXPECT_EQ(rr(slt, kMin64, kMax64), 1u);
  EXPECT_EQ(rr(sltu, kMin64, kMax64), 0u);
  EXPECT_EQ(rr(slt, 7, 7), 0u);
  EXPECT_EQ(rr(sltu, 7, 7), 0u);
  EXPECT_EQ(ri(slti, static_cast<std::uint64_t>(-5), -4), 1u);
  EXPECT_EQ(ri(slti, static_cast<std::uint64_t>(-4), -4), 0u);
  EXPECT_EQ(ri(slti, 0, 1), 1u);
  // sltiu sign-extends the immediate, then compares unsigned.
  EXPECT_EQ(ri(sltiu, 5, -1), 1u);
  EXPECT_EQ(ri(sltiu, kAll, -1), 0u);
  EXPECT_EQ(ri(sltiu, 0, 1), 1u) << "seqz";
  EXPECT_EQ(ri(sltiu, 3, 1), 0u) << "seqz";
}

TEST_F(HartIntegerTest, SixtyFourBitShiftsUseSixBitAmounts) {
  EXPECT_EQ(rr(sll, 1, 63), kMin64);
  EXPECT_EQ(rr(sll, 1, 64), 1u) << "shift amount is masked to 6 bits";
  EXPECT_EQ(rr(sll, 3, 0x7fff0041), 6u);
  EXPECT_EQ(rr(srl, kMin64, 63), 1u);
  EXPECT_EQ(rr(srl, kMin64, 64), kMin64);
  EXPECT_EQ(rr(sra, kMin64, 63), kAll);
  EXPECT_EQ(rr(sra, kMin64, 127), kAll);
  EXPECT_EQ(rr(sra, 0x4000000000000000ull, 62), 1u);
  EXPECT_EQ(rr(sra, 0xf0f0000000000000ull, 4), 0xff0f000000000000ull);
  EXPECT_EQ(rr(srl, 0xf0f0000000000000ull, 4), 0x0f0f000000000000ull);
  EXPECT_EQ(ri(slli, 1, 63), kMin64);
  EXPECT_EQ(ri(slli, 0x8000000000000001ull, 1), 2u);
  EXPECT_EQ(ri(srli, kAll, 63), 1u);
  EXPECT_EQ(ri(srli, kAll, 32), 0xffffffffu);
  EXPECT_EQ(ri(srai, kMin64, 63), kAll);
  EXPECT_EQ(ri(srai, 0x7000000000000000ull, 60), 7u);
  EXPECT_EQ(ri(srai, 0x1234u, 0), 0x1234u);
}

TEST_F(HartIntegerTest, WordShiftsUseFiveBitAmountsAndSignExtend) {
  EXPECT_EQ(rr(sllw, 1, 31), 0xffffffff80000000ull);
  EXPECT_EQ(rr(sllw, 1, 32), 1u) << "shift amount is masked to 5 bits";
  EXPECT_EQ(rr(sllw, 0xffffffff00000001ull, 1), 2u) << "upper source bits are ignored";
  EXPECT_EQ(rr(srlw, 0x80000000u, 31), 1u);
  EXPECT_EQ(rr(srlw, 0xffffffff80000000ull, 0), 0xffffffff80000000ull) << "result is sign-extended";
  EXPECT_EQ(rr(srlw, 0xffffffff00000010ull, 4), 1u);
  EXPECT_EQ(rr(srlw, 0x80000000u, 33), 0x40000000u);
  EXPECT_EQ(rr(sraw, 0x80000000u, 31), kAll);
  EXPECT_EQ(rr(sraw, 0x0000000080000000ull, 4), 0xfffffffff8000000ull);
  EXPECT_EQ(rr(sraw, 0xffffffff7fffffffull, 30), 1u) << "upper source bits are ignored";
  EXPECT_EQ(ri(slliw, 0x7fffffffu, 1), 0xfffffffffffffffeull);
  EXPECT_EQ(ri(slliw, 1, 31), 0xffffffff80000000ull);
  EXPECT_EQ(ri(srliw, kAll, 1), 0x7fffffffu);
  EXPECT_EQ(ri(srliw, kAll, 0), kAll);
  EXPECT_EQ(ri(srliw, 0x80000000u, 31), 1u);
  EXPECT_EQ(ri(sraiw, 0x80000000u, 31), kAll);
  EXPECT_EQ(ri(sraiw, 0x00000000f0000000ull, 28), kAll);
  EXPECT_EQ(ri(sraiw, 0xfffffff070000000ull, 28), 7u);
}

TEST_F(HartIntegerTest, WordAddSubSignExtendResults) {
  EXPECT_EQ(rr(addw, 0x7fffffff, 1), 0xffffffff80000000ull);
  EXPECT_EQ(rr(addw, 0xffffffff, 1), 0u);
  EXPECT_EQ(rr(addw, 0x1234567800000005ull, 0x8765432100000006ull), 11u) << "upper bits are ignored";
  EXPECT_EQ(rr(subw, 0, 1), kAll);
  EXPECT_EQ(rr(subw, 0x80000000u, 1), 0x7fffffffu);
  EXPECT_EQ(rr(subw, 0x100000000ull, 0), 0u);
  EXPECT_EQ(ri(addiw, 0x7fffffff, 1), 0xffffffff80000000ull);
  EXPECT_EQ(ri(addiw, 0xabcdef0012345678ull, 0), 0x12345678u) << "sext.w";
  EXPECT_EQ(ri(addiw, 0x00000000fffffffeull, 0), 0xfffffffffffffffeull) << "sext.w";
  EXPECT_EQ(ri(addiw, 0, -2048), static_cast<std::uint64_t>(-2048));
}

TEST_F(HartIntegerTest, LuiAndAuipcSignExtend) {
  hart.x[a0] = 1;
  exec({lui(a0, 0x80000)});
  EXPECT_EQ(hart.x[a0], 0xffffffff80000000ull);
  exec({lui(a0, 0x7ffff)});
  EXPECT_EQ(hart.x[a0], 0x7ffff000u);
  exec({lui(a0, 0xfffff)});
  EXPECT_EQ(hart.x[a0], 0xfffffffffffff000ull);
  exec({lui(a0, 0)});
  EXPECT_EQ(hart.x[a0], 0u);

  std::uint64_t at = exec({auipc(a1, 0)});
  EXPECT_EQ(hart.x[a1], at);
  at = exec({auipc(a1, 0x12345)});
  EXPECT_EQ(hart.x[a1], at + 0x12345000);
  at = exec({auipc(a1, 0x80000)});  // pc - 2^31
  EXPECT_EQ(hart.x[a1], at - 0x80000000ull);
  EXPECT_EQ(kRamBase - 0x80000000ull, 0u);
  at = exec({auipc(a1, 0xfffff)});  // pc - 4096
  EXPECT_EQ(hart.x[a1], at - 4096);
  EXPECT_EQ(hart.exceptions(), 0u);
}

TEST_F(HartIntegerTest, JalLinksAndJumpsForwardAndBackward) {
  std::uint64_t at = load({jal(ra, 16)});
  step();
  EXPECT_EQ(hart.pc, at + 16);
  EXPECT_EQ(hart.x[ra], at + 4);

  // Backward: the jal is the third instruction and jumps to the first.
  at = load({addi(a0, a0, 1), nop(), jal(t0, -8)});
  hart.pc = at + 8;
  step();
  EXPECT_EQ(hart.pc, at);
  EXPECT_EQ(hart.x[t0], at + 12);

  // Largest offsets (only the target pc is checked, nothing runs there).
  at = load({jal(a1, (1 << 20) - 2)});
  step();
  EXPECT_EQ(hart.pc, at + (1 << 20) - 2);
  at = load({jal(a1, -(1 << 20))});
  step();
  EXPECT_EQ(hart.pc, at - (1 << 20));

  // jal x0 does not link.
  at = load({jal(zero, 8)});
  step();
  EXPECT_EQ(hart.pc, at + 8);
  EXPECT_EQ(hart.x[0], 0u);
  EXPECT_EQ(hart.exceptions(), 0u);
}

TEST_F(HartIntegerTest, JalrClearsBitZeroAndReadsSourceBeforeLinking) {
  std::uint64_t target = kRamBase + 0x1000;
  // rd == rs1: the target comes from the old value; bit 0 of the sum is cleared.
  hart.x[a0] = target - 4 + 1;
  std::uint64_t at = exec({jalr(a0, a0, 4)});
  EXPECT_EQ(hart.pc, target);
  EXPECT_EQ(hart.x[a0], at + 4);

  hart.x[a1] = target + 0x800;
  at = exec({jalr(ra, a1, -2048)});
  EXPECT_EQ(hart.pc, target);
  EXPECT_EQ(hart.x[ra], at + 4);

  // Odd register value, zero offset.
  hart.x[t1] = target + 0x11;
  exec({jalr(zero, t1, 0)});
  EXPECT_EQ(hart.pc, target + 0x10);
  EXPECT_EQ(hart.x[0], 0u);

  // A 2-byte aligned target is fine with C.
  hart.x[t1] = target + 2;
  exec({jalr(zero, t1, 0)});
  EXPECT_EQ(hart.pc, target + 2);
  EXPECT_EQ(hart.exceptions(), 0u);
}

TEST_F(HartIntegerTest, BranchesCompareSignedAndUnsigned) {
  using BranchFn = std::uint32_t (*)(std::uint32_t, std::uint32_t, std::int32_t);
  struct Case {
    BranchFn op;
    const char* name;
    std::uint64_t a, b;
    bool taken;
  };
  const std::uint64_t minus1 = kAll;
  const Case cases[] = {
      {beq, "beq", 5, 5, true},          {beq, "beq", 5, 6, false},
      {bne, "bne", 5, 6, true},          {bne, "bne", 5, 5, false},
      {blt, "blt", minus1, 1, true},     {blt, "blt", 1, minus1, false},   {blt, "blt", 3, 3, false},
      {bge, "bge", 1, minus1, true},     {bge, "bge", 3, 3, true},         {bge, "bge", minus1, 1, false},
      {bltu, "bltu", 1, minus1, true},   {bltu, "bltu", minus1, 1, false}, {bltu, "bltu", 3, 3, false},
      {bgeu, "bgeu", minus1, 1, true},   {bgeu, "bgeu", 3, 3, true},       {bgeu, "bgeu", 1, minus1, false},
      {blt, "blt", kMin64, kMax64, true}, {bltu, "bltu", kMin64, kMax64, false},
  };
  for (const Case& c : cases) {
    for (std::int32_t offset : {12, -12, 4094, -4096}) {
      hart.x[a3] = c.a;
      hart.x[a4] = c.b;
      // The branch sits after three nops so that backward targets are code too.
      std::uint64_t at = load({nop(), nop(), nop(), c.op(a3, a4, offset)}) + 12;
      hart.pc = at;
      step();
      EXPECT_EQ(hart.pc, c.taken ? at + offset : at + 4)
          << c.name << " " << hex64(c.a) << ", " << hex64(c.b) << " offset " << offset;
    }
  }
  // Comparing a register with itself.
  hart.x[a5] = 42;
  std::uint64_t at = exec({beq(a5, a5, 8)});
  EXPECT_EQ(hart.pc, at + 8);
  EXPECT_EQ(hart.exceptions(), 0u);
}

TEST_F(HartIntegerTest, BranchLoopRunsToCompletion) {
  // a0 = 0; a1 = 10; loop: a0 += a1; a1 -= 1; bnez a1, loop
  load({addi(a0, zero, 0), addi(a1, zero, 10), add(a0, a0, a1), addi(a1, a1, -1), bne(a1, zero, -8), ebreak()});
  step(2 + 3 * 10);
  EXPECT_EQ(hart.x[a0], 55u);
  EXPECT_EQ(hart.x[a1], 0u);
  step();
  EXPECT_TRUE(trapped(TrapCause::kBreakpoint, kRamBase + 20, kRamBase + 20));
}

TEST_F(HartIntegerTest, WritesToX0AreDiscarded) {
  hart.x[a1] = 123;
  hart.x[a2] = kDataBase;
  bus.poke<std::uint64_t>(kDataBase, 0x1122334455667788ull);
  hart.csr_write(kMscratch, 77);
  exec({addi(zero, a1, 5), add(zero, a1, a1), lui(zero, 0x12345), auipc(zero, 1), slli(zero, a1, 3),
        mul(zero, a1, a1), addiw(zero, a1, 1), ld(zero, a2, 0), csrrs(zero, kMscratch, zero), jal(zero, 4)});
  EXPECT_EQ(hart.x[0], 0u);
  EXPECT_EQ(hart.exceptions(), 0u);
  // x0 as a source reads zero afterwards.
  hart.x[a0] = 99;
  exec({add(a0, zero, zero)});
  EXPECT_EQ(hart.x[a0], 0u);
}

TEST_F(HartIntegerTest, X0AsSourceReadsZero) {
  EXPECT_EQ(ri(addi, 7, 0), 7u);
  hart.x[a1] = 40;
  exec({addi(a0, zero, 5)});
  EXPECT_EQ(hart.x[a0], 5u);
  exec({sub(a0, zero, a1)});
  EXPECT_EQ(hart.x[a0], static_cast<std::uint64_t>(-40));
  exec({or_(a0, zero, zero)});
  EXPECT_EQ(hart.x[a0], 0u);
  exec({sltu(a0, zero, a1)});
  EXPECT_EQ(hart.x[a0], 1u) << "snez";
  std::uint64_t at = exec({beq(zero, zero, 16)});
  EXPECT_EQ(hart.pc, at + 16);
}

TEST_F(HartIntegerTest, MultiplyLowAndHighHalves) {
  EXPECT_EQ(rr(mul, 6, 7), 42u);
  EXPECT_EQ(rr(mul, kAll, kAll), 1u);
  EXPECT_EQ(rr(mul, 0x100000000ull, 0x100000000ull), 0u);
  EXPECT_EQ(rr(mul, 0x123456789abcdef0ull, 0x0fedcba987654321ull), 0x2236d88fe5618cf0ull);
  // mulh: signed x signed.
  EXPECT_EQ(rr(mulh, kAll, kAll), 0u) << "-1 * -1 = 1";
  EXPECT_EQ(rr(mulh, kMin64, kMin64), 0x4000000000000000ull);
  EXPECT_EQ(rr(mulh, kMin64, kAll), 0u) << "-2^63 * -1 = 2^63";
  EXPECT_EQ(rr(mulh, kAll, 5), kAll) << "-5 is negative";
  EXPECT_EQ(rr(mulh, 0x123456789abcdef0ull, 0x0fedcba987654321ull), 0x0121fa00ad77d742ull);
  // mulhsu: signed rs1 x unsigned rs2.
  EXPECT_EQ(rr(mulhsu, kAll, kAll), kAll) << "-1 * (2^64 - 1) = -2^64 + 1";
  EXPECT_EQ(rr(mulhsu, 5, kAll), 4u) << "5 * (2^64 - 1)";
  EXPECT_EQ(rr(mulhsu, kMin64, 2), kAll) << "-2^63 * 2 = -2^64";
  EXPECT_EQ(rr(mulhsu, static_cast<std::uint64_t>(-5), 3), kAll);
  EXPECT_EQ(rr(mulhsu, kMax64, kAll), 0x7ffffffffffffffeull);
  // mulhu: unsigned x unsigned.
  EXPECT_EQ(rr(mulhu, kAll, kAll), 0xfffffffffffffffeull);
  EXPECT_EQ(rr(mulhu, kMin64, 2), 1u);
  EXPECT_EQ(rr(mulhu, 0x123456789abcdef0ull, 0x0fedcba987654321ull), 0x0121fa00ad77d742ull);
  EXPECT_EQ(rr(mulhu, 0xfedcba9876543210ull, 0xfedcba9876543210ull), 0xfdbac097c8dc5accull);
  EXPECT_EQ(rr(mulh, 0xfedcba9876543210ull, 0xfedcba9876543210ull), 0x00014b66dc33f6acull);
  // mulw: low 32 bits of the product, sign-extended.
  EXPECT_EQ(rr(mulw, 0x7fffffff, 2), 0xfffffffffffffffeull);
  EXPECT_EQ(rr(mulw, 0xffffffff00010000ull, 0x0000000100010000ull), 0u);
  EXPECT_EQ(rr(mulw, 0x12345678ffffffffull, 0xabcdef0000000003ull), static_cast<std::uint64_t>(-3));
}

TEST_F(HartIntegerTest, DivideAndRemainderFollowTheSpecEdgeCases) {
  const std::uint64_t m7 = static_cast<std::uint64_t>(-7), m2 = static_cast<std::uint64_t>(-2);
  // Truncation towards zero; the remainder has the dividend's sign.
  EXPECT_EQ(rr(div, m7, 2), static_cast<std::uint64_t>(-3));
  EXPECT_EQ(rr(rem, m7, 2), static_cast<std::uint64_t>(-1));
  EXPECT_EQ(rr(div, 7, m2), static_cast<std::uint64_t>(-3));
  EXPECT_EQ(rr(rem, 7, m2), 1u);
  EXPECT_EQ(rr(divu, m7, 2), 0x7ffffffffffffffcull);
  EXPECT_EQ(rr(remu, m7, 2), 1u);
  // Division by zero.
  EXPECT_EQ(rr(div, 1234, 0), kAll);
  EXPECT_EQ(rr(div, m7, 0), kAll);
  EXPECT_EQ(rr(divu, 1234, 0), kAll);
  EXPECT_EQ(rr(rem, m7, 0), m7);
  EXPECT_EQ(rr(remu, 1234, 0), 1234u);
  // Signed overflow.
  EXPECT_EQ(rr(div, kMin64, kAll), kMin64);
  EXPECT_EQ(rr(rem, kMin64, kAll), 0u);
  EXPECT_EQ(rr(divu, kMin64, kAll), 0u);
  EXPECT_EQ(rr(remu, kMin64, kAll), kMin64);
}

TEST_F(HartIntegerTest, WordDivideAndRemainderIgnoreUpperBitsAndSignExtend) {
  const std::uint64_t junk = 0xdead000000000000ull;
  EXPECT_EQ(rr(divw, junk | 16, 0x1234000000000004ull), 4u);
  EXPECT_EQ(rr(divw, static_cast<std::uint32_t>(-7), 2), static_cast<std::uint64_t>(-3));
  EXPECT_EQ(rr(remw, static_cast<std::uint32_t>(-7), 2), static_cast<std::uint64_t>(-1));
  EXPECT_EQ(rr(divuw, 0xffffffffu, 2), 0x7fffffffu);
  EXPECT_EQ(rr(divuw, 0xfffffffeu, 1), 0xfffffffffffffffeull) << "32-bit result is sign-extended";
  EXPECT_EQ(rr(remuw, 0xffffffffu, 0x80000000u), 0x7fffffffu);
  EXPECT_EQ(rr(remuw, junk | 0x80000001u, 0x80000000u), 1u);
  // Division by zero.
  EXPECT_EQ(rr(divw, junk | 5, junk), kAll);
  EXPECT_EQ(rr(divuw, 5, 0x100000000ull), kAll) << "low word of the divisor is zero";
  EXPECT_EQ(rr(remw, junk | 0x80000000u, 0), 0xffffffff80000000ull);
  EXPECT_EQ(rr(remuw, junk | 0x80000000u, 0), 0xffffffff80000000ull);
  EXPECT_EQ(rr(remuw, junk | 5, 0), 5u);
  // Signed overflow.
  EXPECT_EQ(rr(divw, 0x80000000u, 0xffffffffu), 0xffffffff80000000ull);
  EXPECT_EQ(rr(remw, 0x80000000u, kAll), 0u);
}

TEST_F(HartIntegerTest, FencesAndNopsOnlyAdvancePc) {
  hart.x[a0] = 1;
  std::uint64_t at = exec({fence(15, 15), fence(2, 1), 0x8330000f /* fence.tso */, fence_i(), nop(), ori(zero, zero, 0)});
  EXPECT_EQ(hart.pc, at + 24);
  EXPECT_EQ(hart.x[a0], 1u);
  EXPECT_EQ(hart.exceptions(), 0u);
  EXPECT_EQ(hart.retired(), 6u);
}

TEST_F(HartIntegerTest, UnknownEncodingsRaiseIllegalInstruction) {
  const std::uint32_t encodings[] = {
      0x0205951b,  // slliw with shamt[5] set (reserved on RV64)
      0x6005d513,  // shift-right immediate with funct6 0x18
      0x22c5f53b,  // remuw with funct7 0x11
      0x0000000b,  // custom-0
      0x10200073,  // sret
      0x12000073,  // sfence.vma
      0x0000607f,  // 80-bit+ encoding space
      0xffffffff,
  };
  hart.x[a0] = 17;
  std::uint64_t exceptions = 0;
  for (std::uint32_t raw : encodings) {
    std::uint64_t at = exec({raw});
    EXPECT_TRUE(trapped(TrapCause::kIllegalInstruction, at, raw)) << hex64(raw);
    EXPECT_EQ(hart.exceptions(), ++exceptions);
  }
  EXPECT_EQ(hart.x[a0], 17u);
  EXPECT_EQ(hart.retired(), 0u);
}

}  // namespace
}  // namespace npuvp
