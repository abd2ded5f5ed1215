// Loads, stores and fetches: widths and sign extension, misaligned accesses
// (trapping by default, performed when allowed), access faults, MMIO over
// the bus, self-modifying code and decode-cache coherence, DMI window
// invalidation.
#include "unit/hart_test_support.h"

namespace npuvp {
namespace {

using namespace rv;
using namespace hart_test;

class HartMemoryTest : public HartTest {
 protected:
  void SetUp() override {
    for (unsigned i = 0; i < 16; ++i) bus.poke<std::uint8_t>(kDataBase + i, static_cast<std::uint8_t>(0x80 + i));
    hart.x[a1] = kDataBase;
  }
};

TEST_F(HartMemoryTest, LoadsSignOrZeroExtend) {
  // Memory at kDataBase: 80 81 82 83 84 85 86 87 88 ...
  struct Case {
    std::uint32_t insn;
    std::uint64_t expected;
  };
  const Case cases[] = {
      {lb(a0, a1, 0), 0xffffffffffffff80ull},     {lbu(a0, a1, 0), 0x80u},
      {lb(a0, a1, 1), 0xffffffffffffff81ull},     {lh(a0, a1, 0), 0xffffffffffff8180ull},
      {lhu(a0, a1, 0), 0x8180u},                  {lh(a0, a1, 6), 0xffffffffffff8786ull},
      {lw(a0, a1, 0), 0xffffffff83828180ull},     {lwu(a0, a1, 0), 0x83828180u},
      {lw(a0, a1, 4), 0xffffffff87868584ull},     {ld(a0, a1, 0), 0x8786858483828180ull},
      {ld(a0, a1, 8), 0x8f8e8d8c8b8a8988ull},
  };
  for (const Case& c : cases) {
    hart.x[a0] = 0;
    exec({c.insn});
    EXPECT_EQ(hart.x[a0], c.expected) << hart.decoder().disassemble(c.insn, 0);
  }
  bus.poke<std::uint32_t>(kDataBase + 32, 0x7fff7f7f);
  exec({lb(a2, a1, 32), lh(a3, a1, 32), lw(a4, a1, 32), lwu(a5, a1, 32)});
  EXPECT_EQ(hart.x[a2], 0x7fu);
  EXPECT_EQ(hart.x[a3], 0x7f7fu);
  EXPECT_EQ(hart.x[a4], 0x7fff7f7fu);
  EXPECT_EQ(hart.x[a5], 0x7fff7f7fu);
  EXPECT_EQ(hart.exceptions(), 0u);
}

TEST_F(HartMemoryTest, OffsetsAreSignedTwelveBitImmediates) {
  bus.poke<std::uint64_t>(kDataBase + 0x800, 0x1111111111111111ull);
  bus.poke<std::uint64_t>(kDataBase - 8, 0x2222222222222222ull);
  bus.poke<std::uint64_t>(kDataBase + 0x7f8, 0x3333333333333333ull);
  hart.x[a2] = kDataBase + 0x1000;
  exec({ld(a3, a2, -2048), ld(a4, a1, -8), ld(a5, a1, 2040), lbu(a6, a1, -1)});
  EXPECT_EQ(hart.x[a3], 0x1111111111111111ull);
  EXPECT_EQ(hart.x[a4], 0x2222222222222222ull);
  EXPECT_EQ(hart.x[a5], 0x3333333333333333ull);
  EXPECT_EQ(hart.x[a6], 0x22u);

  hart.x[t0] = 0x0123456789abcdefull;
  exec({sd(t0, a2, -2048), sw(t0, a1, -4), sb(t0, a1, -5), sh(t0, a1, 2046)});
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase + 0x800), 0x0123456789abcdefull);
  EXPECT_EQ(bus.peek<std::uint32_t>(kDataBase - 4), 0x89abcdefu);
  EXPECT_EQ(bus.peek<std::uint8_t>(kDataBase - 5), 0xefu);
  EXPECT_EQ(bus.peek<std::uint8_t>(kDataBase - 6), 0x22u) << "sb wrote one byte only";
  EXPECT_EQ(bus.peek<std::uint16_t>(kDataBase + 2046), 0xcdefu);
  EXPECT_EQ(hart.exceptions(), 0u);
}

TEST_F(HartMemoryTest, StoresWriteExactlyTheirWidth) {
  hart.x[a2] = kDataBase + 64;
  hart.x[t0] = 0x0123456789abcdefull;
  bus.poke<std::uint64_t>(kDataBase + 64, ~0ull);
  bus.poke<std::uint64_t>(kDataBase + 72, ~0ull);
  exec({sb(t0, a2, 0)});
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase + 64), 0xffffffffffffffefull);
  exec({sh(t0, a2, 2)});
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase + 64), 0xffffffffcdefffefull);
  exec({sw(t0, a2, 4)});
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase + 64), 0x89abcdefcdefffefull);
  exec({sd(t0, a2, 8)});
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase + 72), 0x0123456789abcdefull);
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase + 80), 0u);
  // Storing x0 writes zeros.
  exec({sd(zero, a2, 8)});
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase + 72), 0u);
}

TEST_F(HartMemoryTest, LoadIntoItsAddressRegister) {
  bus.poke<std::uint64_t>(kDataBase + 32, kDataBase + 48);
  bus.poke<std::uint64_t>(kDataBase + 48, 0xabcdu);
  hart.x[a0] = kDataBase + 32;
  exec({ld(a0, a0, 0), ld(a0, a0, 0)});
  EXPECT_EQ(hart.x[a0], 0xabcdu);
}

TEST_F(HartMemoryTest, LoadToX0StillPerformsTheAccess) {
  hart.x[t0] = kMmioBase + 0x10;
  exec({lw(zero, t0, 0)});
  ASSERT_EQ(bus.log.size(), 1u);
  EXPECT_EQ(bus.log[0].access, BusInterface::Access::kRead);
  EXPECT_EQ(bus.log[0].address, kMmioBase + 0x10);
  EXPECT_EQ(bus.log[0].size, 4u);
  EXPECT_EQ(hart.x[0], 0u);
}

TEST_F(HartMemoryTest, MmioAccessesGoOverTheBusWithTheirLatency) {
  bus.mmio_cycles = 9;
  bus.poke<std::uint32_t>(kMmioBase + 0x20, 0xfeedbeef);
  hart.x[t0] = kMmioBase;
  hart.x[t1] = 0x1122334455667788ull;
  std::uint64_t cycles = hart.cycles();
  load({lw(a0, t0, 0x20), sh(t1, t0, 0x40), sd(t1, t0, 0x48), lbu(a2, t0, 0x41)});
  hart.run(hart.cycles() + 4 * (1 + 9));
  EXPECT_EQ(hart.x[a0], 0xfffffffffeedbeefull);
  EXPECT_EQ(hart.x[a2], 0x77u);
  ASSERT_EQ(bus.log.size(), 4u);
  EXPECT_EQ(bus.log[1].access, BusInterface::Access::kWrite);
  EXPECT_EQ(bus.log[1].address, kMmioBase + 0x40);
  EXPECT_EQ(bus.log[1].size, 2u);
  EXPECT_EQ(bus.log[1].data, 0x7788u);
  EXPECT_EQ(bus.log[2].size, 8u);
  EXPECT_EQ(bus.log[2].data, 0x1122334455667788ull);
  EXPECT_EQ(bus.log[3].size, 1u);
  EXPECT_EQ(hart.cycles() - cycles, 4u + 4 * 9) << "each MMIO access adds the bus latency";
  EXPECT_GE(hart.bus_accesses(), 4u);
}

TEST_F(HartMemoryTest, WindowLatencyIsAddedPerAccess) {
  MemoryWindow window = bus.ram_window();
  window.read_cycles = 3;
  window.write_cycles = 5;
  Hart timed(0, bus);
  timed.set_cycle_model(unit_cycle_model());
  timed.add_window(window);
  place(kRamBase + 0x100, {ld(a0, a1, 0), ld(a0, a1, 8), sd(a0, a1, 16), sw(a0, a1, 24), addi(a0, a0, 1)});
  timed.reset(kRamBase + 0x100);
  timed.x[a1] = kDataBase;
  timed.run(1);  // first load: slow path
  EXPECT_EQ(timed.cycles(), 1u + 3);
  timed.run(timed.cycles() + 1);  // fast path
  EXPECT_EQ(timed.cycles(), 2u + 6);
  timed.run(timed.cycles() + 1);
  EXPECT_EQ(timed.cycles(), 3u + 6 + 5);
  timed.run(timed.cycles() + 1);
  EXPECT_EQ(timed.cycles(), 4u + 6 + 10);
  timed.run(timed.cycles() + 1);
  EXPECT_EQ(timed.cycles(), 5u + 6 + 10);
  EXPECT_EQ(timed.retired(), 5u);
}

// ---------------------------------------------------------------- misaligned

TEST_F(HartMemoryTest, MisalignedLoadsTrapWithTheAddress) {
  struct Case {
    std::uint32_t insn;
    std::int32_t offset;
  };
  const Case cases[] = {{lh(a0, a1, 1), 1},   {lhu(a0, a1, 3), 3}, {lw(a0, a1, 2), 2}, {lwu(a0, a1, 1), 1},
                        {lw(a0, a1, 7), 7},   {ld(a0, a1, 4), 4},  {ld(a0, a1, 1), 1}, {ld(a0, a1, -2), -2}};
  exec({ld(t3, a1, 8), sd(t3, a1, 8)});  // aligned accesses first: the fast paths are set up
  hart.x[a0] = 0x77;
  std::uint64_t exceptions = 0;
  for (const Case& c : cases) {
    std::uint64_t at = exec({c.insn});
    EXPECT_TRUE(trapped(TrapCause::kLoadMisaligned, at, kDataBase + c.offset)) << hart.decoder().disassemble(c.insn, 0);
    EXPECT_EQ(hart.x[a0], 0x77u) << "destination unchanged";
    EXPECT_EQ(hart.exceptions(), ++exceptions);
  }
  EXPECT_EQ(hart.retired(), 2u) << "only the two warm-up accesses retired";
}

TEST_F(HartMemoryTest, MisalignedStoresTrapWithTheAddressAndWriteNothing) {
  hart.x[t0] = ~0ull;
  struct Case {
    std::uint32_t insn;
    std::int32_t offset;
  };
  const Case cases[] = {{sh(t0, a1, 1), 1}, {sw(t0, a1, 2), 2}, {sw(t0, a1, 5), 5}, {sd(t0, a1, 4), 4}, {sd(t0, a1, 7), 7}};
  exec({ld(t3, a1, 8), sd(t3, a1, 8)});  // aligned accesses first: the fast paths are set up
  for (const Case& c : cases) {
    std::uint64_t at = exec({c.insn});
    EXPECT_TRUE(trapped(TrapCause::kStoreMisaligned, at, kDataBase + c.offset)) << hart.decoder().disassemble(c.insn, 0);
  }
  for (unsigned i = 0; i < 16; ++i) EXPECT_EQ(bus.peek<std::uint8_t>(kDataBase + i), 0x80 + i);
}

TEST_F(HartMemoryTest, MisalignedAccessesArePerformedWhenAllowed) {
  hart.set_allow_misaligned(true);
  exec({lh(a2, a1, 1), lw(a3, a1, 3), ld(a4, a1, 5), lhu(a5, a1, 7), lwu(a6, a1, 6)});
  EXPECT_EQ(hart.x[a2], 0xffffffffffff8281ull);
  EXPECT_EQ(hart.x[a3], 0xffffffff86858483ull);
  EXPECT_EQ(hart.x[a4], 0x8c8b8a8988878685ull);
  EXPECT_EQ(hart.x[a5], 0x8887u);
  EXPECT_EQ(hart.x[a6], 0x89888786u);

  hart.x[t0] = 0x0123456789abcdefull;
  exec({sd(t0, a1, 3), sw(t0, a1, 13), sh(t0, a1, 19)});
  EXPECT_EQ(bus.peek<std::uint8_t>(kDataBase + 2), 0x82u);
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase + 3), 0x0123456789abcdefull);
  EXPECT_EQ(bus.peek<std::uint32_t>(kDataBase + 13), 0x89abcdefu);
  EXPECT_EQ(bus.peek<std::uint16_t>(kDataBase + 19), 0xcdefu);
  EXPECT_EQ(bus.peek<std::uint8_t>(kDataBase + 21), 0u);

  // Across a page boundary.
  hart.x[a2] = kDataBase + 0x1000 - 3;
  exec({sd(t0, a2, 0), ld(a3, a2, 0)});
  EXPECT_EQ(hart.x[a3], 0x0123456789abcdefull);
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase + 0x1000 - 3), 0x0123456789abcdefull);
  EXPECT_EQ(hart.exceptions(), 0u);
}

TEST_F(HartMemoryTest, AllowedMisalignedAccessFaultReportsTheFaultingPart) {
  hart.set_allow_misaligned(true);
  hart.x[a2] = kRamEnd - 4;
  hart.x[a0] = 5;
  std::uint64_t at = exec({ld(a0, a2, 0)});
  EXPECT_EQ(hart.mcause(), cause(TrapCause::kLoadAccessFault));
  EXPECT_EQ(hart.mepc(), at);
  EXPECT_GE(hart.mtval(), kRamEnd) << "mtval names the part of the access that faulted";
  EXPECT_LT(hart.mtval(), kRamEnd + 4);
  EXPECT_EQ(hart.x[a0], 5u);
  at = exec({sd(a0, a2, 0)});
  EXPECT_EQ(hart.mcause(), cause(TrapCause::kStoreAccessFault));
  EXPECT_EQ(hart.mepc(), at);
  EXPECT_GE(hart.mtval(), kRamEnd);
  EXPECT_LT(hart.mtval(), kRamEnd + 4);
}

// ---------------------------------------------------------------- access faults

TEST_F(HartMemoryTest, LoadsFromNothingRaiseLoadAccessFault) {
  hart.x[a2] = kHole;
  hart.x[a0] = 0x55;
  std::uint64_t at = exec({lw(a0, a2, 8)});
  EXPECT_TRUE(trapped(TrapCause::kLoadAccessFault, at, kHole + 8));
  EXPECT_EQ(hart.x[a0], 0x55u);
  hart.x[a2] = kMmioError;
  at = exec({ld(a0, a2, 0)});
  EXPECT_TRUE(trapped(TrapCause::kLoadAccessFault, at, kMmioError)) << "a device error response";
  hart.x[a2] = kRamEnd;
  at = exec({lbu(a0, a2, 0)});
  EXPECT_TRUE(trapped(TrapCause::kLoadAccessFault, at, kRamEnd)) << "first byte past RAM";
  hart.x[a2] = 0;
  at = exec({lb(a0, a2, 0)});
  EXPECT_TRUE(trapped(TrapCause::kLoadAccessFault, at, 0));
  EXPECT_EQ(hart.x[a0], 0x55u);
  EXPECT_EQ(hart.retired(), 0u);
}

TEST_F(HartMemoryTest, StoresToNothingOrReadOnlyMemoryRaiseStoreAccessFault) {
  hart.x[t0] = 0x1234;
  hart.x[a2] = kHole;
  std::uint64_t at = exec({sw(t0, a2, 4)});
  EXPECT_TRUE(trapped(TrapCause::kStoreAccessFault, at, kHole + 4));
  hart.x[a2] = kMmioError;
  at = exec({sb(t0, a2, 1)});
  EXPECT_TRUE(trapped(TrapCause::kStoreAccessFault, at, kMmioError + 1));
  bus.rom[8] = 0xaa;
  hart.x[a2] = kRomBase;
  at = exec({sb(t0, a2, 8)});
  EXPECT_TRUE(trapped(TrapCause::kStoreAccessFault, at, kRomBase + 8));
  EXPECT_EQ(bus.rom[8], 0xaa);
  at = exec({sd(t0, a2, 16)});
  EXPECT_TRUE(trapped(TrapCause::kStoreAccessFault, at, kRomBase + 16));
  // Reading ROM works.
  exec({lbu(a3, a2, 8)});
  EXPECT_EQ(hart.x[a3], 0xaau);
}

// ---------------------------------------------------------------- fetch

TEST_F(HartMemoryTest, FetchFromNothingRaisesInstructionAccessFault) {
  hart.x[t0] = kHole;
  exec({jalr(ra, t0, 0x40)});
  ASSERT_EQ(hart.pc, kHole + 0x40);
  step();
  EXPECT_TRUE(trapped(TrapCause::kInstructionAccessFault, kHole + 0x40, kHole + 0x40));
  EXPECT_EQ(hart.retired(), 1u);
  // MMIO space does not answer fetches either.
  hart.pc = kMmioBase + 0x100;
  step();
  EXPECT_TRUE(trapped(TrapCause::kInstructionAccessFault, kMmioBase + 0x100, kMmioBase + 0x100));
}

TEST_F(HartMemoryTest, FetchFaultOnTheSecondHalfOfAnInstructionNamesThatHalf) {
  // A 32-bit instruction whose upper half lies past the end of RAM.
  bus.poke<std::uint16_t>(kRamEnd - 2, static_cast<std::uint16_t>(addi(a0, a0, 1)));
  hart.pc = kRamEnd - 2;
  step();
  EXPECT_TRUE(trapped(TrapCause::kInstructionAccessFault, kRamEnd - 2, kRamEnd))
      << "mepc is the instruction, mtval the part that could not be fetched";
  // A compressed instruction there is fine.
  bus.poke<std::uint16_t>(kRamEnd - 2, c_li(a0, 9).bits);
  hart.flush_decode_cache();
  hart.pc = kRamEnd - 2;
  step();
  EXPECT_EQ(hart.x[a0], 9u);
  EXPECT_EQ(hart.pc, kRamEnd);
}

TEST_F(HartMemoryTest, CodeRunsFromReadOnlyMemory) {
  place(kRomBase + 0x20, {addi(a0, zero, 7), slli(a0, a0, 2), c_addi(a0, 1)});
  hart.pc = kRomBase + 0x20;
  step(3);
  EXPECT_EQ(hart.x[a0], 29u);
  EXPECT_EQ(hart.pc, kRomBase + 0x2a);
}

TEST_F(HartMemoryTest, CodeAndDataWorkWithoutAnyWindow) {
  Hart bare(0, bus);
  bare.set_cycle_model(unit_cycle_model());
  place(kRamBase + 0x200, {addi(a0, zero, 3), sd(a0, a1, 0), ld(a2, a1, 0), add(a2, a2, a0), c_addi(a2, 1)});
  bare.reset(kRamBase + 0x200);
  bare.x[a1] = kDataBase;
  std::uint64_t before = bus.ram_accesses;
  bare.run(5);
  EXPECT_EQ(bare.x[a2], 7u);
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase), 3u);
  EXPECT_EQ(bare.pc, kRamBase + 0x212);
  EXPECT_EQ(bare.exceptions(), 0u);
  EXPECT_GE(bus.ram_accesses - before, 5u + 2) << "fetches and data went over the bus";
}

TEST_F(HartMemoryTest, CodeOutsideWindowsIsFetchedEveryTime) {
  // Without DMI the hart cannot see every change to the bytes, so it keeps
  // no decoded copy: a change by another agent is picked up without fence.i.
  Hart bare(0, bus);
  bare.set_cycle_model(unit_cycle_model());
  place(kRamBase + 0x300, {addi(a0, zero, 1)});
  bare.reset(kRamBase + 0x300);
  bare.run(1);
  ASSERT_EQ(bare.x[a0], 1u);
  bus.poke<std::uint32_t>(kRamBase + 0x300, addi(a0, zero, 2));
  bare.pc = kRamBase + 0x300;
  bare.run(2);
  EXPECT_EQ(bare.x[a0], 2u);
}

// ---------------------------------------------------------------- self-modifying code

TEST_F(HartMemoryTest, StoreOverAnExecutedInstructionTakesEffect) {
  // target: addi a0, a0, 1 -- run it, overwrite it with addi a0, a0, 100, run again.
  std::uint64_t target = load({addi(a0, a0, 1)});
  step();
  ASSERT_EQ(hart.x[a0], 1u);
  hart.x[t0] = target;
  hart.x[t1] = addi(a0, a0, 100);
  load({sw(t1, t0, 0)});
  step();
  hart.pc = target;
  step();
  EXPECT_EQ(hart.x[a0], 101u) << "the new instruction ran";
  EXPECT_GE(hart.code_invalidations(), 1u);
}

TEST_F(HartMemoryTest, StoreThenFenceIThenExecute) {
  // loop body: the store rewrites the instruction at `patched`, then fence.i,
  // then the patched instruction runs, and the loop goes back to rewrite it again.
  std::uint64_t start = load({sw(t1, t0, 0), fence_i(), addi(a0, a0, 1), jal(zero, -12)});
  std::uint64_t patched = start + 8;
  hart.x[t0] = patched;
  hart.x[t1] = addi(a0, a0, 1000);
  hart.pc = patched;  // run the original once so it is decoded
  step();
  ASSERT_EQ(hart.x[a0], 1u);
  hart.pc = start;
  step(4);
  EXPECT_EQ(hart.x[a0], 1001u);
  EXPECT_EQ(hart.pc, start);
  hart.x[t1] = addi(a0, a0, -1);
  step(3);
  EXPECT_EQ(hart.x[a0], 1000u);
}

TEST_F(HartMemoryTest, StoreRewritingTheNextInstructionTakesEffectImmediately) {
  std::uint64_t start = load({sw(t1, t0, 0), addi(a0, zero, 1)});
  hart.pc = start + 4;
  step();  // decode the original
  ASSERT_EQ(hart.x[a0], 1u);
  hart.x[t0] = start + 4;
  hart.x[t1] = addi(a0, zero, 2);
  hart.pc = start;
  step(2);
  EXPECT_EQ(hart.x[a0], 2u);
}

TEST_F(HartMemoryTest, HalfwordStoreRewritesACompressedInstruction) {
  std::uint64_t start = load({c_li(a0, 1), c_li(a1, 1)});
  step(2);
  hart.x[t0] = start + 2;
  hart.x[t1] = c_li(a1, 7).bits;
  exec({sh(t1, t0, 0)});
  hart.pc = start;
  step(2);
  EXPECT_EQ(hart.x[a0], 1u);
  EXPECT_EQ(hart.x[a1], 7u);
}

TEST_F(HartMemoryTest, DoublewordStoreRewritesTwoInstructions) {
  std::uint64_t start = load({addi(a0, zero, 1), addi(a1, zero, 1)});
  step(2);
  hart.x[t0] = start;
  hart.x[t1] = static_cast<std::uint64_t>(addi(a1, zero, 22)) << 32 | addi(a0, zero, 11);
  exec({sd(t1, t0, 0)});
  hart.pc = start;
  step(2);
  EXPECT_EQ(hart.x[a0], 11u);
  EXPECT_EQ(hart.x[a1], 22u);
}

TEST_F(HartMemoryTest, StoreToTheUpperHalfOfAnInstructionStraddlingAPage) {
  // A 32-bit instruction at the last halfword of a page; only its upper half
  // is rewritten, by a store into the next page (which holds no code).
  std::uint64_t page_end = kRamBase + 0x3000;
  std::uint32_t original = addi(a0, zero, 0x123), patched = addi(a0, zero, 0x456);
  ASSERT_EQ(original & 0xffff, patched & 0xffff);
  place(page_end - 2, {original});
  hart.pc = page_end - 2;
  step();
  ASSERT_EQ(hart.x[a0], 0x123u);
  hart.x[t0] = page_end;
  hart.x[t1] = patched >> 16;
  hart.x[t2] = kDataBase;
  // The first store warms the fast store path; the second one patches.
  exec({sd(zero, t2, 0), sh(t1, t0, 0)});
  hart.pc = page_end - 2;
  step();
  EXPECT_EQ(hart.x[a0], 0x456u);
}

TEST_F(HartMemoryTest, DebugWriteOverCodeTakesEffect) {
  std::uint64_t start = load({addi(a0, zero, 1)});
  step();
  std::uint32_t patched = addi(a0, zero, 2);
  ASSERT_TRUE(hart.debug_write(start, &patched, 4));
  hart.pc = start;
  step();
  EXPECT_EQ(hart.x[a0], 2u);
  std::uint32_t readback = 0;
  ASSERT_TRUE(hart.debug_read(start, &readback, 4));
  EXPECT_EQ(readback, patched);
}

TEST_F(HartMemoryTest, FenceIPicksUpCodeWrittenByAnotherAgent) {
  // Another initiator (e.g. a DMA engine) rewrites code through its own path.
  std::uint64_t start = load({addi(a0, zero, 1), fence_i(), jal(zero, -8)});
  step();
  ASSERT_EQ(hart.x[a0], 1u);
  bus.poke<std::uint32_t>(start, addi(a0, zero, 2));
  std::uint64_t decoded = hart.decoded_instructions();
  step(3);  // fence.i, jal, the rewritten instruction
  EXPECT_EQ(hart.x[a0], 2u);
  EXPECT_GT(hart.decoded_instructions(), decoded);
}

TEST_F(HartMemoryTest, FlushDecodeCachePicksUpCodeWrittenByAnotherAgent) {
  std::uint64_t start = load({addi(a0, zero, 1)});
  step();
  bus.poke<std::uint32_t>(start, addi(a0, zero, 3));
  hart.flush_decode_cache();
  hart.pc = start;
  step();
  EXPECT_EQ(hart.x[a0], 3u);
}

// ---------------------------------------------------------------- windows

TEST_F(HartMemoryTest, InvalidatedWindowFallsBackToTheBusAndCanBeReAdded) {
  std::uint64_t start = load({addi(a0, a0, 1), ld(a2, a1, 0), sd(a0, a1, 8), jal(zero, -12)});
  step(8);
  ASSERT_EQ(hart.x[a0], 2u);
  std::uint64_t before = bus.ram_accesses;
  hart.invalidate_windows(kRamBase, kRamEnd - 1);
  step(8);
  EXPECT_EQ(hart.x[a0], 4u);
  EXPECT_EQ(hart.x[a2], 0x8786858483828180ull);
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase + 8), 4u);
  EXPECT_GT(bus.ram_accesses, before) << "RAM is reached over the bus";

  hart.add_window(bus.ram_window());
  before = bus.ram_accesses;
  step(8);
  EXPECT_EQ(hart.x[a0], 6u);
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase + 8), 6u);
  EXPECT_EQ(hart.pc, start);
  EXPECT_EQ(hart.exceptions(), 0u);
  // Once the window is back, only the first access of each kind may go over the bus.
  EXPECT_LE(bus.ram_accesses - before, 2u);
}

TEST_F(HartMemoryTest, WindowReAddedWithAnotherHostBufferIsUsed) {
  std::uint64_t second = load({ld(a3, a1, 0), sd(t0, a1, 16)});
  exec({ld(a2, a1, 0), sd(a2, a1, 8)});  // both fast paths now point at bus.ram
  std::vector<std::uint8_t> copy = bus.ram;  // includes the code
  std::uint64_t marker = 0x0badc0de0badc0deull;
  std::memcpy(copy.data() + (kDataBase - kRamBase), &marker, 8);
  hart.invalidate_windows(kRamBase, kRamEnd - 1);
  MemoryWindow window = bus.ram_window();
  window.host = copy.data();
  hart.add_window(window);
  hart.x[t0] = 77;
  hart.pc = second;
  step(2);
  EXPECT_EQ(hart.x[a3], marker) << "loaded through the new host pointer";
  std::uint64_t stored = 0;
  std::memcpy(&stored, copy.data() + (kDataBase - kRamBase) + 16, 8);
  EXPECT_EQ(stored, 77u) << "stored through the new host pointer";
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase + 16), 0u) << "not through the old one";
}

TEST_F(HartMemoryTest, InvalidationDuringAnInstructionTakesEffectAfterIt) {
  // A device access invalidates DMI (as a TLM target would) in the middle of
  // the program; execution continues correctly over the bus.
  bus.on_mmio_write = [&](const BusRecord&) { hart.invalidate_windows(kRamBase, kRamEnd - 1); };
  hart.x[t0] = kMmioBase;
  std::uint64_t start = load({addi(a0, zero, 5), sw(a0, t0, 0), addi(a0, a0, 1), sd(a0, a1, 0), ld(a3, a1, 0),
                              c_addi(a3, 1)});
  std::uint64_t before = bus.ram_accesses;
  step(6);
  EXPECT_EQ(hart.x[a0], 6u);
  EXPECT_EQ(hart.x[a3], 7u);
  EXPECT_EQ(hart.pc, start + 22);
  EXPECT_EQ(hart.exceptions(), 0u);
  EXPECT_GE(bus.ram_accesses - before, 4u) << "after the invalidation, RAM is reached over the bus";
}

}  // namespace
}  // namespace npuvp
