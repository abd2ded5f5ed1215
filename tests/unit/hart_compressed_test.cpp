// RV64C: every compressed instruction that does not need F/D, checked by its
// effect; HINT encodings; reserved encodings raising illegal instruction
// with mtval = the 16-bit encoding.
#include "unit/hart_test_support.h"

#include <algorithm>
#include <iterator>

namespace npuvp {
namespace {

using namespace rv;
using namespace hart_test;

class HartCompressedTest : public HartTest {
 protected:
  // Runs one compressed instruction; checks it was 2 bytes long and did not trap.
  std::uint64_t run1(Half insn) {
    std::uint64_t at = exec({insn});
    EXPECT_EQ(hart.exceptions(), 0u) << trap_cause_name(hart.mcause()) << " for " << hex64(insn.bits);
    return at;
  }
};

TEST_F(HartCompressedTest, StackPointerRelativeAddi) {
  hart.x[sp] = kStackTop;
  std::uint64_t at = run1(c_addi4spn(a0, 1020));
  EXPECT_EQ(hart.x[a0], kStackTop + 1020);
  EXPECT_EQ(hart.pc, at + 2);
  run1(c_addi4spn(s0, 4));
  EXPECT_EQ(hart.x[s0], kStackTop + 4);

  run1(c_addi16sp(-512));
  EXPECT_EQ(hart.x[sp], kStackTop - 512);
  run1(c_addi16sp(496));
  EXPECT_EQ(hart.x[sp], kStackTop - 16);
  run1(c_addi16sp(16));
  EXPECT_EQ(hart.x[sp], kStackTop);
}

TEST_F(HartCompressedTest, RegisterBasedLoadsAndStores) {
  hart.x[a1] = kDataBase;
  bus.poke<std::uint32_t>(kDataBase + 124, 0x87654321);
  bus.poke<std::uint64_t>(kDataBase + 248, 0xfedcba9876543210ull);
  run1(c_lw(a0, a1, 124));
  EXPECT_EQ(hart.x[a0], 0xffffffff87654321ull) << "c.lw sign-extends";
  run1(c_ld(a2, a1, 248));
  EXPECT_EQ(hart.x[a2], 0xfedcba9876543210ull);
  run1(c_lw(a3, a1, 4));
  EXPECT_EQ(hart.x[a3], 0u);

  hart.x[s1] = 0x1122334455667788ull;
  run1(c_sw(s1, a1, 64));
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase + 64), 0x55667788u) << "c.sw writes 4 bytes";
  run1(c_sd(s1, a1, 8));
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase + 8), 0x1122334455667788ull);
}

TEST_F(HartCompressedTest, StackPointerBasedLoadsAndStores) {
  hart.x[sp] = kStackTop;
  hart.x[a0] = 0x8000000000000001ull;
  hart.x[ra] = 0xcafef00dd00dfeedull;
  run1(c_swsp(a0, 252));
  run1(c_sdsp(ra, 504));
  EXPECT_EQ(bus.peek<std::uint32_t>(kStackTop + 252), 1u);
  EXPECT_EQ(bus.peek<std::uint64_t>(kStackTop + 504), 0xcafef00dd00dfeedull);

  bus.poke<std::uint32_t>(kStackTop + 12, 0x80000000u);
  run1(c_lwsp(t3, 12));
  EXPECT_EQ(hart.x[t3], 0xffffffff80000000ull);
  run1(c_ldsp(t4, 504));
  EXPECT_EQ(hart.x[t4], 0xcafef00dd00dfeedull);
  run1(c_lwsp(t5, 252));
  EXPECT_EQ(hart.x[t5], 1u);
}

TEST_F(HartCompressedTest, ImmediateArithmetic) {
  hart.x[a0] = 100;
  run1(c_addi(a0, -32));
  EXPECT_EQ(hart.x[a0], 68u);
  run1(c_addi(a0, 31));
  EXPECT_EQ(hart.x[a0], 99u);

  hart.x[a0] = 0x7fffffff;
  run1(c_addiw(a0, 1));
  EXPECT_EQ(hart.x[a0], 0xffffffff80000000ull) << "c.addiw sign-extends the 32-bit sum";
  hart.x[a0] = 0x12345678fffffffeull;
  run1(c_addiw(a0, 0));
  EXPECT_EQ(hart.x[a0], 0xfffffffffffffffeull) << "sext.w";

  run1(c_li(a5, -1));
  EXPECT_EQ(hart.x[a5], ~0ull);
  run1(c_li(a5, 31));
  EXPECT_EQ(hart.x[a5], 31u);

  run1(c_lui(a0, -32));
  EXPECT_EQ(hart.x[a0], 0xfffffffffffe0000ull);
  run1(c_lui(a0, 31));
  EXPECT_EQ(hart.x[a0], 0x1f000u);
  run1(c_lui(t0, 1));
  EXPECT_EQ(hart.x[t0], 0x1000u);

  hart.x[a2] = 0x123456789abcdef7ull;
  run1(c_andi(a2, -32));
  EXPECT_EQ(hart.x[a2], 0x123456789abcdee0ull);
  run1(c_andi(a2, 0x1f));
  EXPECT_EQ(hart.x[a2], 0u);
}

TEST_F(HartCompressedTest, Shifts) {
  hart.x[a0] = 1;
  run1(c_slli(a0, 63));
  EXPECT_EQ(hart.x[a0], 0x8000000000000000ull);
  run1(c_srli(a0, 63));
  EXPECT_EQ(hart.x[a0], 1u);
  hart.x[t6] = 3;
  run1(c_slli(t6, 32));
  EXPECT_EQ(hart.x[t6], 0x300000000ull) << "c.slli reaches all 32 registers and shamt[5]";

  hart.x[a1] = 0x8000000000000000ull;
  run1(c_srai(a1, 32));
  EXPECT_EQ(hart.x[a1], 0xffffffff80000000ull);
  hart.x[a1] = 0x8000000000000000ull;
  run1(c_srli(a1, 32));
  EXPECT_EQ(hart.x[a1], 0x80000000u);
  hart.x[s0] = 0xf0;
  run1(c_srai(s0, 4));
  EXPECT_EQ(hart.x[s0], 0xfu);
}

TEST_F(HartCompressedTest, RegisterArithmetic) {
  auto ca = [&](Half insn, std::uint64_t a, std::uint64_t b) {
    hart.x[s0] = a;
    hart.x[a5] = b;
    run1(insn);
    EXPECT_EQ(hart.x[a5], b) << "source changed";
    return hart.x[s0];
  };
  EXPECT_EQ(ca(c_sub(s0, a5), 5, 7), static_cast<std::uint64_t>(-2));
  EXPECT_EQ(ca(c_xor(s0, a5), 0xff00, 0x0ff0), 0xf0f0u);
  EXPECT_EQ(ca(c_or(s0, a5), 0xff00, 0x0ff0), 0xfff0u);
  EXPECT_EQ(ca(c_and(s0, a5), 0xff00, 0x0ff0), 0x0f00u);
  EXPECT_EQ(ca(c_subw(s0, a5), 0x80000000u, 1), 0x7fffffffu);
  EXPECT_EQ(ca(c_subw(s0, a5), 0, 1), ~0ull);
  EXPECT_EQ(ca(c_addw(s0, a5), 0x7fffffff, 1), 0xffffffff80000000ull);
  EXPECT_EQ(ca(c_addw(s0, a5), 0xaaaa000000000002ull, 0x5555000000000003ull), 5u);

  hart.x[a1] = 42;
  hart.x[a0] = 1;
  run1(c_mv(a0, a1));
  EXPECT_EQ(hart.x[a0], 42u);
  run1(c_add(a0, a1));
  EXPECT_EQ(hart.x[a0], 84u);
  hart.x[t6] = 1;
  hart.x[gp] = 2;
  run1(c_add(t6, gp));
  EXPECT_EQ(hart.x[t6], 3u) << "c.add reaches all 32 registers";
}

TEST_F(HartCompressedTest, JumpsAndBranches) {
  std::uint64_t at = run1(c_j(2046));
  EXPECT_EQ(hart.pc, at + 2046);
  std::uint64_t base = load({nop()});
  hart.pc = base + 0x800;
  place(base + 0x800, {c_j(-2048)});
  step();
  EXPECT_EQ(hart.pc, base);
  code_cursor_ = base + 0x1000;

  hart.x[a0] = 0;
  at = run1(c_beqz(a0, 254));
  EXPECT_EQ(hart.pc, at + 254);
  at = run1(c_bnez(a0, 254));
  EXPECT_EQ(hart.pc, at + 2);
  hart.x[s1] = 5;
  at = load({c_nop(), c_nop(), c_bnez(s1, -4)}) + 4;
  hart.pc = at;
  step();
  EXPECT_EQ(hart.pc, at - 4);
  at = run1(c_beqz(s1, -256));
  EXPECT_EQ(hart.pc, at + 2);

  // c.jr: jalr x0, 0(rs1).
  hart.x[a0] = kRamBase + 0x4001;
  run1(c_jr(a0));
  EXPECT_EQ(hart.pc, kRamBase + 0x4000) << "bit 0 of the target is cleared";
  EXPECT_EQ(hart.x[a0], kRamBase + 0x4001);

  // c.jalr: jalr ra, 0(rs1); the link is pc + 2.
  hart.x[t0] = kRamBase + 0x5000;
  at = run1(c_jalr(t0));
  EXPECT_EQ(hart.pc, kRamBase + 0x5000);
  EXPECT_EQ(hart.x[ra], at + 2);
  // With rs1 == ra the old value is the target.
  hart.x[ra] = kRamBase + 0x6000;
  at = run1(c_jalr(ra));
  EXPECT_EQ(hart.pc, kRamBase + 0x6000);
  EXPECT_EQ(hart.x[ra], at + 2);
}

TEST_F(HartCompressedTest, ScatteredImmediateBitsLandInTheRightPlaces) {
  // Offsets with alternating bits catch swapped immediate bits.
  std::uint64_t at = run1(c_j(1364));
  EXPECT_EQ(hart.pc, at + 1364);
  at = run1(c_j(-1366));
  EXPECT_EQ(hart.pc, at - 1366);
  hart.x[a0] = 0;
  at = run1(c_beqz(a0, 84));
  EXPECT_EQ(hart.pc, at + 84);
  hart.x[a0] = 1;
  at = run1(c_bnez(a0, -86));
  EXPECT_EQ(hart.pc, at - 86);

  hart.x[sp] = kStackTop;
  run1(c_addi4spn(a5, 680));
  EXPECT_EQ(hart.x[a5], kStackTop + 680);
  run1(c_addi4spn(a4, 340));
  EXPECT_EQ(hart.x[a4], kStackTop + 340);
  for (std::uint32_t offset : {84u, 168u}) {
    hart.x[a1] = 0x1000 + offset;
    run1(c_swsp(a1, offset));
    EXPECT_EQ(bus.peek<std::uint32_t>(kStackTop + offset), 0x1000 + offset);
    run1(c_lwsp(a2, offset));
    EXPECT_EQ(hart.x[a2], 0x1000 + offset);
  }
  for (std::uint32_t offset : {168u, 336u}) {
    hart.x[a1] = 0x2000 + offset;
    run1(c_sdsp(a1, offset));
    EXPECT_EQ(bus.peek<std::uint64_t>(kStackTop + offset), 0x2000 + offset);
    run1(c_ldsp(a2, offset));
    EXPECT_EQ(hart.x[a2], 0x2000 + offset);
  }
  hart.x[s0] = kDataBase;
  for (std::uint32_t offset : {40u, 84u}) {
    hart.x[a3] = 0x3000 + offset;
    run1(c_sw(a3, s0, offset));
    EXPECT_EQ(bus.peek<std::uint32_t>(kDataBase + offset), 0x3000 + offset);
    run1(c_lw(a2, s0, offset));
    EXPECT_EQ(hart.x[a2], 0x3000 + offset);
  }
  for (std::uint32_t offset : {80u, 168u}) {
    hart.x[a3] = 0x4000 + offset;
    run1(c_sd(a3, s0, offset));
    EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase + offset), 0x4000 + offset);
    run1(c_ld(a2, s0, offset));
    EXPECT_EQ(hart.x[a2], 0x4000 + offset);
  }
  run1(c_addi16sp(-352));
  EXPECT_EQ(hart.x[sp], kStackTop - 352);
  run1(c_addi16sp(336));
  EXPECT_EQ(hart.x[sp], kStackTop - 16);
  run1(c_lui(a0, 21));
  EXPECT_EQ(hart.x[a0], 0x15000u);
  run1(c_lui(a0, -22));
  EXPECT_EQ(hart.x[a0], 0xfffffffffffea000ull);
  run1(c_li(a0, -22));
  EXPECT_EQ(hart.x[a0], static_cast<std::uint64_t>(-22));
  run1(c_andi(a0, 21));
  EXPECT_EQ(hart.x[a0], 0u);
  hart.x[a0] = 1;
  run1(c_slli(a0, 42));
  EXPECT_EQ(hart.x[a0], 1ull << 42);
  run1(c_srli(a0, 21));
  EXPECT_EQ(hart.x[a0], 1ull << 21);
}

TEST_F(HartCompressedTest, NopAndHintsHaveNoEffect) {
  for (std::uint64_t i = 0; i < 32; ++i) hart.x[i] = i == 0 ? 0 : 0x1000 + i;
  std::uint64_t before[32];
  std::copy(hart.x, hart.x + 32, before);
  const Half hints[] = {
      c_nop(),
      c_addi(zero, 5),   // c.nop with an immediate
      c_addi(a0, 0),     // c.addi with a zero immediate
      c_li(zero, 7),
      c_lui(zero, 3),
      c_mv(zero, a1),
      c_add(zero, a1),
      c_slli(zero, 3),
      c_slli(a0, 0),     // c.slli64
      c_srli(a0, 0),     // c.srli64
      c_srai(a0, 0),     // c.srai64
  };
  std::uint64_t at = load({});
  for (const Half& hint : hints) place(at + 2 * (&hint - hints), {hint});
  code_cursor_ = at + 2 * std::size(hints) + 16;
  hart.pc = at;
  step(std::size(hints));
  EXPECT_EQ(hart.exceptions(), 0u) << trap_cause_name(hart.mcause()) << " at " << hex64(hart.mepc());
  EXPECT_EQ(hart.pc, at + 2 * std::size(hints));
  EXPECT_EQ(hart.retired(), std::size(hints));
  for (int i = 0; i < 32; ++i) EXPECT_EQ(hart.x[i], before[i]) << register_name(i);
}

TEST_F(HartCompressedTest, EbreakReportsItsOwnPc) {
  std::uint64_t at = exec({c_nop(), c_ebreak()}) + 2;
  EXPECT_TRUE(trapped(TrapCause::kBreakpoint, at, at));
  EXPECT_EQ(hart.retired(), 1u);
}

TEST_F(HartCompressedTest, MixesWithUnalignedThirtyTwoBitInstructions) {
  // A 32-bit instruction at a 2-byte aligned address, between compressed ones.
  hart.x[a0] = 1;
  std::uint64_t at = exec({c_addi(a0, 1), addi(a0, a0, 100), c_slli(a0, 1), lui(a1, 0x12345), c_mv(a2, a0)});
  EXPECT_EQ(hart.x[a0], 204u);
  EXPECT_EQ(hart.x[a1], 0x12345000u);
  EXPECT_EQ(hart.x[a2], 204u);
  EXPECT_EQ(hart.pc, at + 2 + 4 + 2 + 4 + 2);
  EXPECT_EQ(hart.exceptions(), 0u);
}

TEST_F(HartCompressedTest, LoopOfCompressedInstructions) {
  // sum = 0; n = 10; do { sum += n; n -= 1; } while (n != 0)
  load({c_li(a0, 0), c_li(a1, 10), c_add(a0, a1), c_addi(a1, -1), c_bnez(a1, -4)});
  step(2 + 3 * 10);
  EXPECT_EQ(hart.x[a0], 55u);
  EXPECT_EQ(hart.x[a1], 0u);
  EXPECT_EQ(hart.pc, kRamBase + 10);
}

TEST_F(HartCompressedTest, ReservedEncodingsAreIllegalWithSixteenBitMtval) {
  struct Case {
    std::uint16_t raw;
    const char* what;
  };
  const Case cases[] = {
      {0x0000, "all-zero instruction"},
      {c_addi4spn(a0, 0).bits, "c.addi4spn with a zero immediate"},
      {c_lui(a0, 0).bits, "c.lui with a zero immediate"},
      {c_addi16sp(0).bits, "c.addi16sp with a zero immediate"},
      {c_addiw(zero, 1).bits, "c.addiw with rd = x0"},
      {c_lwsp(zero, 4).bits, "c.lwsp with rd = x0"},
      {c_ldsp(zero, 8).bits, "c.ldsp with rd = x0"},
      {c_jr(zero).bits, "c.jr with rs1 = x0"},
      {0x8000, "quadrant 0, funct3 4"},
      {0x9c41, "c.subw/c.addw space, funct2 2"},
      {0x9c61, "c.subw/c.addw space, funct2 3"},
      {0x2000, "c.fld (no D)"},
      {0xa000, "c.fsd (no D)"},
      {0x2002, "c.fldsp (no D)"},
      {0xa002, "c.fsdsp (no D)"},
  };
  for (const Case& c : cases) {
    // The next halfword is all ones, so a 32-bit mtval would show it.
    std::uint64_t at = load({Half(c.raw), Half(0xffff)});
    step();
    EXPECT_TRUE(trapped(TrapCause::kIllegalInstruction, at, c.raw)) << c.what << " " << hex64(c.raw);
  }
}

TEST_F(HartCompressedTest, CompressedMemoryAccessesTrapLikeTheirExpansions) {
  hart.x[a1] = kDataBase + 2;
  std::uint64_t at = exec({c_lw(a0, a1, 0)});
  EXPECT_TRUE(trapped(TrapCause::kLoadMisaligned, at, kDataBase + 2));
  at = exec({c_sd(a0, a1, 8)});
  EXPECT_TRUE(trapped(TrapCause::kStoreMisaligned, at, kDataBase + 10));
  hart.x[a1] = kHole;
  at = exec({c_ld(a0, a1, 16)});
  EXPECT_TRUE(trapped(TrapCause::kLoadAccessFault, at, kHole + 16));
  hart.x[sp] = kHole;
  at = exec({c_swsp(a0, 4)});
  EXPECT_TRUE(trapped(TrapCause::kStoreAccessFault, at, kHole + 4));
}

}  // namespace
}  // namespace npuvp
