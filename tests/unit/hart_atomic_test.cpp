// The A extension: LR/SC reservations and every AMO, in word and doubleword
// forms, with their alignment and access-fault behaviour.
#include "unit/hart_test_support.h"

namespace npuvp {
namespace {

using namespace rv;
using namespace hart_test;

class HartAtomicTest : public HartTest {
 protected:
  void SetUp() override {
    hart.x[a1] = kDataBase;
    bus.poke<std::uint64_t>(kDataBase, 0x1111111122222222ull);
    bus.poke<std::uint64_t>(kDataBase + 8, 0x3333333344444444ull);
  }
};

// ---------------------------------------------------------------- LR/SC

TEST_F(HartAtomicTest, LoadReservedThenStoreConditionalSucceeds) {
  hart.x[a2] = 0xabcdef01;
  exec({lr_w(a0, a1), sc_w(a3, a2, a1)});
  EXPECT_EQ(hart.x[a0], 0x22222222u);
  EXPECT_EQ(hart.x[a3], 0u) << "0 means success";
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase), 0x11111111abcdef01ull) << "sc.w writes one word";

  hart.x[a2] = 0x0123456789abcdefull;
  exec({lr_d(a0, a1), addi(a0, a0, 1), sc_d(a3, a2, a1)});
  EXPECT_EQ(hart.x[a0], 0x11111111abcdef02ull);
  EXPECT_EQ(hart.x[a3], 0u);
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase), 0x0123456789abcdefull);
  EXPECT_EQ(hart.exceptions(), 0u);
}

TEST_F(HartAtomicTest, LoadReservedWordSignExtends) {
  bus.poke<std::uint32_t>(kDataBase + 8, 0x80000001u);
  hart.x[a2] = kDataBase + 8;
  exec({lr_w(a0, a2)});
  EXPECT_EQ(hart.x[a0], 0xffffffff80000001ull);
}

TEST_F(HartAtomicTest, StoreConditionalWithoutReservationFails) {
  hart.x[a2] = 0x5555;
  exec({sc_w(a3, a2, a1)});
  EXPECT_EQ(hart.x[a3], 1u) << "nonzero means failure";
  exec({sc_d(a4, a2, a1)});
  EXPECT_EQ(hart.x[a4], 1u);
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase), 0x1111111122222222ull) << "memory unchanged";
  EXPECT_EQ(hart.exceptions(), 0u);
}

TEST_F(HartAtomicTest, ReservationIsConsumedByStoreConditional) {
  hart.x[a2] = 7;
  hart.x[a4] = 8;
  exec({lr_d(a0, a1), sc_d(a3, a2, a1), sc_d(a5, a4, a1)});
  EXPECT_EQ(hart.x[a3], 0u);
  EXPECT_EQ(hart.x[a5], 1u) << "the first sc used the reservation up";
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase), 7u);
}

TEST_F(HartAtomicTest, FailedStoreConditionalAlsoDropsTheReservation) {
  hart.x[a2] = kDataBase + 8;
  hart.x[a4] = 9;
  // lr A; sc B (fails: different address); sc A (fails: no reservation left).
  exec({lr_d(a0, a1), sc_d(a3, a4, a2), sc_d(a5, a4, a1)});
  EXPECT_EQ(hart.x[a3], 1u) << "sc to a different address fails";
  EXPECT_EQ(hart.x[a5], 1u) << "any sc invalidates the reservation";
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase), 0x1111111122222222ull);
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase + 8), 0x3333333344444444ull);
}

TEST_F(HartAtomicTest, ReservationIsLostOnATrap) {
  install_skip_handler();
  hart.x[a2] = 0x77;
  // lr; ecall (trap, handler returns past it); sc fails.
  std::uint64_t start = load({lr_w(a0, a1), ecall(), sc_w(a3, a2, a1)});
  step(2);
  ASSERT_TRUE(trapped(TrapCause::kEcallFromM, start + 4, 0));
  step(4 + 1);
  EXPECT_EQ(hart.pc, start + 12);
  EXPECT_EQ(hart.x[a3], 1u);
  EXPECT_EQ(bus.peek<std::uint32_t>(kDataBase), 0x22222222u);
}

TEST_F(HartAtomicTest, ReservationIsLostOnAnInterrupt) {
  place(kTrapVector, {csrrc(zero, kMie, t5), mret()});  // disable the interrupt and return
  hart.x[t5] = 1ull << kMti;
  hart.x[a2] = 0x77;
  ASSERT_TRUE(hart.csr_write(kMie, 1ull << kMti));
  ASSERT_TRUE(hart.csr_write(kMstatus, kMstatusMie));
  std::uint64_t start = load({lr_w(a0, a1), sc_w(a3, a2, a1)});
  step();
  hart.set_interrupt_pending(kMti, true);
  step(2 + 1);  // handler, then sc
  EXPECT_EQ(hart.interrupts_taken(), 1u);
  EXPECT_EQ(hart.pc, start + 8);
  EXPECT_EQ(hart.x[a3], 1u);
  EXPECT_EQ(bus.peek<std::uint32_t>(kDataBase), 0x22222222u);
}

TEST_F(HartAtomicTest, ReservationSurvivesUnrelatedInstructions) {
  hart.x[a2] = 0x99;
  hart.x[a4] = kDataBase + 64;
  exec({lr_w(a0, a1), addi(t0, t0, 1), ld(t1, a4, 0), sc_w(a3, a2, a1)});
  EXPECT_EQ(hart.x[a3], 0u);
  EXPECT_EQ(bus.peek<std::uint32_t>(kDataBase), 0x99u);
}

TEST_F(HartAtomicTest, MisalignedLrScTrap) {
  hart.set_allow_misaligned(true);  // LR/SC are never emulated
  hart.x[a2] = kDataBase + 4;
  std::uint64_t at = exec({lr_d(a0, a2)});
  EXPECT_TRUE(trapped(TrapCause::kLoadMisaligned, at, kDataBase + 4));
  hart.x[a2] = kDataBase + 2;
  at = exec({lr_w(a0, a2)});
  EXPECT_TRUE(trapped(TrapCause::kLoadMisaligned, at, kDataBase + 2));
  at = exec({sc_w(a3, a0, a2)});
  EXPECT_TRUE(trapped(TrapCause::kStoreMisaligned, at, kDataBase + 2));
  hart.x[a2] = kDataBase + 12;
  at = exec({sc_d(a3, a0, a2)});
  EXPECT_TRUE(trapped(TrapCause::kStoreMisaligned, at, kDataBase + 12));
}

TEST_F(HartAtomicTest, LrScAccessFaults) {
  hart.x[a2] = kHole;
  hart.x[a0] = 5;
  std::uint64_t at = exec({lr_w(a0, a2)});
  EXPECT_TRUE(trapped(TrapCause::kLoadAccessFault, at, kHole));
  EXPECT_EQ(hart.x[a0], 5u);
  // Read-only memory: the reservation is made, the conditional store faults.
  bus.poke<std::uint64_t>(kRomBase + 16, 42);
  hart.x[a2] = kRomBase + 16;
  hart.x[a3] = 3;
  at = exec({lr_d(a0, a2), sc_d(a3, a0, a2)}) + 4;
  EXPECT_EQ(hart.x[a0], 42u);
  EXPECT_TRUE(trapped(TrapCause::kStoreAccessFault, at, kRomBase + 16));
  EXPECT_EQ(hart.x[a3], 3u) << "rd unchanged by a faulting sc";
}

// ---------------------------------------------------------------- AMOs

struct AmoCase {
  std::uint32_t funct5;
  const char* name;
  std::uint64_t memory, operand, expected_memory;
};

TEST_F(HartAtomicTest, EveryDoublewordAmo) {
  const std::uint64_t m5 = static_cast<std::uint64_t>(-5), big = 0x8000000000000000ull;
  const AmoCase cases[] = {
      {kAmoSwap, "amoswap.d", 0x1234, 0xabcd, 0xabcd},
      {kAmoAdd, "amoadd.d", 0xfffffffffffffff0ull, 0x20, 0x10},
      {kAmoXor, "amoxor.d", 0xff00ff00ff00ff00ull, 0x0ff00ff00ff00ff0ull, 0xf0f0f0f0f0f0f0f0ull},
      {kAmoAnd, "amoand.d", 0xff00ff00ff00ff00ull, 0x0ff00ff00ff00ff0ull, 0x0f000f000f000f00ull},
      {kAmoOr, "amoor.d", 0xff00ff00ff00ff00ull, 0x0ff00ff00ff00ff0ull, 0xfff0fff0fff0fff0ull},
      {kAmoMin, "amomin.d", m5, 3, m5},
      {kAmoMin, "amomin.d", 3, m5, m5},
      {kAmoMax, "amomax.d", m5, 3, 3},
      {kAmoMax, "amomax.d", big, 0, 0},
      {kAmoMinu, "amominu.d", m5, 3, 3},
      {kAmoMinu, "amominu.d", big, big + 1, big},
      {kAmoMaxu, "amomaxu.d", m5, 3, m5},
      {kAmoMaxu, "amomaxu.d", 1, big, big},
  };
  for (const AmoCase& c : cases) {
    bus.poke<std::uint64_t>(kDataBase, c.memory);
    hart.x[a2] = c.operand;
    exec({amo(c.funct5, kDouble, a0, a2, a1)});
    EXPECT_EQ(hart.x[a0], c.memory) << c.name << ": rd gets the old value";
    EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase), c.expected_memory) << c.name;
    EXPECT_EQ(hart.x[a2], c.operand) << c.name;
  }
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase + 8), 0x3333333344444444ull);
  EXPECT_EQ(hart.exceptions(), 0u);
}

TEST_F(HartAtomicTest, EveryWordAmoWorksOnThirtyTwoBitsAndSignExtendsTheOldValue) {
  const std::uint64_t m5 = 0xfffffffbu;  // -5 as a word
  const AmoCase cases[] = {
      {kAmoSwap, "amoswap.w", 0x80000000u, 0xffffffff00001234ull, 0x1234},
      {kAmoAdd, "amoadd.w", 0xfffffff0u, 0x20, 0x10},
      {kAmoAdd, "amoadd.w", 0x7fffffffu, 1, 0x80000000u},
      {kAmoXor, "amoxor.w", 0xff00ff00u, 0x0ff00ff0u, 0xf0f0f0f0u},
      {kAmoAnd, "amoand.w", 0xff00ff00u, 0x0ff00ff0u, 0x0f000f00u},
      {kAmoOr, "amoor.w", 0xff00ff00u, 0x0ff00ff0u, 0xfff0fff0u},
      // Comparisons look at the low words only (rs2's upper half is ignored).
      {kAmoMin, "amomin.w", m5, 3, m5},
      {kAmoMin, "amomin.w", 3, 0x00000000fffffffbull, m5},
      {kAmoMax, "amomax.w", m5, 0xffffffff00000003ull, 3},
      {kAmoMax, "amomax.w", 0x80000000u, 0, 0},
      {kAmoMinu, "amominu.w", m5, 3, 3},
      {kAmoMinu, "amominu.w", 0x80000000u, 0x1ffffffffull, 0x80000000u},
      {kAmoMaxu, "amomaxu.w", m5, 3, m5},
      {kAmoMaxu, "amomaxu.w", 1, 0x80000000u, 0x80000000u},
  };
  for (const AmoCase& c : cases) {
    bus.poke<std::uint32_t>(kDataBase + 8, static_cast<std::uint32_t>(c.memory));
    bus.poke<std::uint32_t>(kDataBase + 12, 0x5a5a5a5a);
    hart.x[a2] = c.operand;
    hart.x[a4] = kDataBase + 8;
    exec({amo(c.funct5, kWord, a0, a2, a4)});
    std::uint64_t old_sign_extended =
        static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(c.memory)));
    EXPECT_EQ(hart.x[a0], old_sign_extended) << c.name << ": rd gets the sign-extended old word";
    EXPECT_EQ(bus.peek<std::uint32_t>(kDataBase + 8), static_cast<std::uint32_t>(c.expected_memory)) << c.name;
    EXPECT_EQ(bus.peek<std::uint32_t>(kDataBase + 12), 0x5a5a5a5au) << c.name << ": next word untouched";
  }
  EXPECT_EQ(hart.exceptions(), 0u);
}

TEST_F(HartAtomicTest, AmoOperandRegistersMayAliasTheDestination) {
  // amoadd.d a2, a2, (a1): the operand is read before rd is written.
  bus.poke<std::uint64_t>(kDataBase, 100);
  hart.x[a2] = 5;
  exec({amo(kAmoAdd, kDouble, a2, a2, a1)});
  EXPECT_EQ(hart.x[a2], 100u);
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase), 105u);
  // amoswap.d a1, a3, (a1): the address is read before rd is written.
  hart.x[a3] = 9;
  exec({amo(kAmoSwap, kDouble, a1, a3, a1)});
  EXPECT_EQ(hart.x[a1], 105u);
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase), 9u);
  // rd = x0: memory still updated.
  hart.x[a1] = kDataBase;
  exec({amo(kAmoAdd, kDouble, zero, a3, a1, true, true)});
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase), 18u);
  EXPECT_EQ(hart.x[0], 0u);
}

TEST_F(HartAtomicTest, MisalignedAmoRaisesStoreMisaligned) {
  hart.set_allow_misaligned(true);  // AMOs are never emulated
  hart.x[a0] = 0x66;
  for (std::uint64_t offset : {1, 2, 4}) {
    hart.x[a2] = kDataBase + offset;
    std::uint64_t at = exec({amo(kAmoAdd, kDouble, a0, a3, a2)});
    EXPECT_TRUE(trapped(TrapCause::kStoreMisaligned, at, kDataBase + offset)) << "amoadd.d at +" << offset;
  }
  hart.x[a2] = kDataBase + 2;
  std::uint64_t at = exec({amo(kAmoSwap, kWord, a0, a3, a2)});
  EXPECT_TRUE(trapped(TrapCause::kStoreMisaligned, at, kDataBase + 2));
  EXPECT_EQ(hart.x[a0], 0x66u);
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase), 0x1111111122222222ull);
}

TEST_F(HartAtomicTest, AmoToReadOnlyOrMissingMemoryRaisesStoreAccessFault) {
  bus.poke<std::uint64_t>(kRomBase + 8, 0x1234);
  hart.x[a2] = kRomBase + 8;
  hart.x[a3] = 1;
  hart.x[a0] = 0x66;
  std::uint64_t at = exec({amo(kAmoAdd, kDouble, a0, a3, a2)});
  EXPECT_TRUE(trapped(TrapCause::kStoreAccessFault, at, kRomBase + 8));
  EXPECT_EQ(bus.peek<std::uint64_t>(kRomBase + 8), 0x1234u);
  EXPECT_EQ(hart.x[a0], 0x66u) << "rd unchanged";
  // Nothing at the address: still a store/AMO fault, not a load fault.
  hart.x[a2] = kHole;
  at = exec({amo(kAmoOr, kWord, a0, a3, a2)});
  EXPECT_TRUE(trapped(TrapCause::kStoreAccessFault, at, kHole));
  hart.x[a2] = kMmioError;
  at = exec({amo(kAmoSwap, kDouble, a0, a3, a2)});
  EXPECT_TRUE(trapped(TrapCause::kStoreAccessFault, at, kMmioError));
  EXPECT_EQ(hart.x[a0], 0x66u);
}

TEST_F(HartAtomicTest, AmoOnMmioReadsThenWrites) {
  bus.poke<std::uint32_t>(kMmioBase + 0x30, 40);
  hart.x[a2] = kMmioBase + 0x30;
  hart.x[a3] = 2;
  exec({amo(kAmoAdd, kWord, a0, a3, a2)});
  EXPECT_EQ(hart.x[a0], 40u);
  ASSERT_EQ(bus.log.size(), 2u);
  EXPECT_EQ(bus.log[0].access, BusInterface::Access::kRead);
  EXPECT_EQ(bus.log[1].access, BusInterface::Access::kWrite);
  EXPECT_EQ(bus.log[1].data, 42u);
  EXPECT_EQ(bus.log[1].size, 4u);
}

}  // namespace
}  // namespace npuvp
