// Machine interrupts (MSI, MTI, MEI): enabling rules in M- and U-mode,
// priority, direct and vectored mtvec, interrupts raised by devices during an
// instruction, and WFI.
#include "unit/hart_test_support.h"

namespace npuvp {
namespace {

using namespace rv;
using namespace hart_test;

class HartInterruptTest : public HartTest {
 protected:
  void enable(std::uint64_t mie_bits, bool global = true) {
    ASSERT_TRUE(hart.csr_write(kMie, mie_bits));
    ASSERT_TRUE(hart.csr_write(kMstatus, global ? kMstatusMie : 0));
  }
  static constexpr std::uint64_t bit(unsigned n) { return 1ull << n; }
};

TEST_F(HartInterruptTest, TimerInterruptIsTakenWhenEnabled) {
  enable(bit(kMti));
  std::uint64_t start = exec({nop(), nop()});
  hart.set_interrupt_pending(kMti, true);
  service();
  EXPECT_TRUE(trapped(cause(InterruptCause::kMachineTimer), start + 8, 0));
  EXPECT_EQ(hart.mstatus() & (kMstatusMie | kMstatusMpie | kMstatusMpp), kMstatusMpie | kMstatusMpp);
  EXPECT_EQ(hart.interrupts_taken(), 1u);
  EXPECT_EQ(hart.exceptions(), 0u);
  EXPECT_EQ(hart.retired(), 2u);
}

TEST_F(HartInterruptTest, PendingInterruptIsTakenBeforeTheNextInstruction) {
  enable(bit(kMei));
  hart.set_interrupt_pending(kMei, true);
  hart.x[a0] = 0;
  std::uint64_t start = load({addi(a0, a0, 1)});
  place(kTrapVector, {addi(a1, a1, 1)});
  step();
  EXPECT_EQ(hart.x[a0], 0u) << "the interrupt came first";
  EXPECT_EQ(hart.x[a1], 1u) << "the handler's first instruction ran";
  EXPECT_EQ(hart.mepc(), start);
  EXPECT_EQ(hart.mcause(), cause(InterruptCause::kMachineExternal));
}

TEST_F(HartInterruptTest, MaskedInterruptsAreNotTaken) {
  // mie bit clear.
  enable(bit(kMsi) | bit(kMei));
  hart.set_interrupt_pending(kMti, true);
  std::uint64_t start = exec({nop(), nop()});
  EXPECT_EQ(hart.pc, start + 8);
  EXPECT_EQ(hart.interrupts_taken(), 0u);
  // Global MIE clear in M-mode.
  enable(bit(kMti), false);
  start = exec({nop(), nop()});
  EXPECT_EQ(hart.pc, start + 8);
  EXPECT_EQ(hart.interrupts_taken(), 0u);
  EXPECT_TRUE(hart.wake_condition());
}

TEST_F(HartInterruptTest, SettingMstatusMieTakesThePendingInterruptAfterTheWrite) {
  enable(bit(kMti), false);
  hart.set_interrupt_pending(kMti, true);
  place(kTrapVector, {nop()});
  std::uint64_t start = exec({csrrsi(zero, kMstatus, 8), nop()});
  EXPECT_EQ(hart.interrupts_taken(), 1u);
  EXPECT_EQ(hart.mepc(), start + 4) << "the csrrsi completed; the interrupt came before the nop";
  EXPECT_EQ(hart.mcause(), cause(InterruptCause::kMachineTimer));
  EXPECT_EQ(hart.pc, kTrapVector + 4) << "one handler instruction ran";
}

TEST_F(HartInterruptTest, SettingMieBitTakesThePendingInterrupt) {
  ASSERT_TRUE(hart.csr_write(kMstatus, kMstatusMie));
  hart.set_interrupt_pending(kMsi, true);
  hart.x[t0] = bit(kMsi);
  std::uint64_t start = load({nop(), csrrs(zero, kMie, t0), nop()});
  step(2);
  service();
  EXPECT_TRUE(trapped(cause(InterruptCause::kMachineSoftware), start + 8, 0));
}

TEST_F(HartInterruptTest, UserModeTakesEnabledInterruptsRegardlessOfMie) {
  ASSERT_TRUE(hart.csr_write(kMie, bit(kMti)));
  std::uint64_t user = load({nop(), nop(), nop()});
  enter_user(user);  // mstatus.MIE stays 0
  ASSERT_EQ(hart.mstatus() & kMstatusMie, 0u);
  step();
  hart.set_interrupt_pending(kMti, true);
  service();
  EXPECT_TRUE(trapped(cause(InterruptCause::kMachineTimer), user + 4, 0));
  EXPECT_EQ(hart.mstatus() & kMstatusMpp, 0u) << "interrupted U-mode";
}

TEST_F(HartInterruptTest, UserModeStillRespectsMieBits) {
  ASSERT_TRUE(hart.csr_write(kMie, bit(kMei)));
  std::uint64_t user = load({nop(), nop(), nop()});
  enter_user(user);
  hart.set_interrupt_pending(kMti, true);
  step(3);
  EXPECT_EQ(hart.privilege(), Privilege::kUser);
  EXPECT_EQ(hart.pc, user + 12);
  EXPECT_EQ(hart.interrupts_taken(), 0u);
}

TEST_F(HartInterruptTest, MretWithPendingInterruptTrapsAgainAtOnce) {
  enable(bit(kMti));
  // Handler returns without clearing the source.
  place(kTrapVector, {mret()});
  std::uint64_t start = load({nop(), nop()});
  hart.set_interrupt_pending(kMti, true);
  service();
  EXPECT_EQ(hart.interrupts_taken(), 1u);
  step();  // mret: MIE restored, the level is still high
  service();
  EXPECT_EQ(hart.interrupts_taken(), 2u);
  EXPECT_TRUE(trapped(cause(InterruptCause::kMachineTimer), start, 0));
  // Once the level drops, execution continues.
  hart.set_interrupt_pending(kMti, false);
  step(3);
  EXPECT_EQ(hart.pc, start + 8);
  EXPECT_EQ(hart.interrupts_taken(), 2u);
}

TEST_F(HartInterruptTest, PriorityIsExternalThenSoftwareThenTimer) {
  enable(bit(kMsi) | bit(kMti) | bit(kMei));
  std::uint64_t start = load({nop()});
  hart.set_interrupt_pending(kMti, true);
  hart.set_interrupt_pending(kMsi, true);
  hart.set_interrupt_pending(kMei, true);
  const InterruptCause order[] = {InterruptCause::kMachineExternal, InterruptCause::kMachineSoftware,
                                  InterruptCause::kMachineTimer};
  const unsigned lines[] = {kMei, kMsi, kMti};
  for (int i = 0; i < 3; ++i) {
    service();
    EXPECT_TRUE(trapped(cause(order[i]), start, 0)) << i;
    // The handler acknowledges the source and returns.
    hart.set_interrupt_pending(lines[i], false);
    ASSERT_TRUE(hart.csr_write(kMstatus, kMstatusMie));
    hart.pc = start;
  }
  service();
  EXPECT_EQ(hart.interrupts_taken(), 3u);
  EXPECT_EQ(hart.pc, start);
}

TEST_F(HartInterruptTest, PulseThatEndsBeforeTheHartLooksIsNotTaken) {
  enable(bit(kMti));
  std::uint64_t start = load({nop()});
  hart.set_interrupt_pending(kMti, true);
  hart.set_interrupt_pending(kMti, false);
  step();
  EXPECT_EQ(hart.pc, start + 4);
  EXPECT_EQ(hart.interrupts_taken(), 0u);
}

TEST_F(HartInterruptTest, VectoredModeJumpsToBasePlusFourTimesCause) {
  const std::uint64_t base = kRamBase + 0xa000;
  ASSERT_TRUE(hart.csr_write(kMtvec, base | 1));
  enable(bit(kMsi) | bit(kMti) | bit(kMei));
  std::uint64_t start = load({nop()});
  for (auto [line, expected] : {std::pair{kMsi, InterruptCause::kMachineSoftware},
                                std::pair{kMti, InterruptCause::kMachineTimer},
                                std::pair{kMei, InterruptCause::kMachineExternal}}) {
    hart.set_interrupt_pending(line, true);
    service();
    EXPECT_TRUE(trapped(cause(expected), start, 0, base + 4 * line));
    hart.set_interrupt_pending(line, false);
    ASSERT_TRUE(hart.csr_write(kMstatus, kMstatusMie));
    hart.pc = start;
  }
  // Direct mode: every interrupt goes to the base.
  ASSERT_TRUE(hart.csr_write(kMtvec, base));
  hart.set_interrupt_pending(kMei, true);
  service();
  EXPECT_TRUE(trapped(cause(InterruptCause::kMachineExternal), start, 0, base));
}

TEST_F(HartInterruptTest, DeviceRaisingAnInterruptDuringAStoreIsSeenAfterIt) {
  // Like a CLINT msip write: the store itself raises the interrupt.
  bus.on_mmio_write = [&](const BusRecord& record) { hart.set_interrupt_pending(kMsi, record.data != 0); };
  enable(bit(kMsi));
  hart.x[t0] = kMmioBase;
  hart.x[t1] = 1;
  std::uint64_t start = load({sw(t1, t0, 0), addi(a0, a0, 1), addi(a0, a0, 1)});
  step();
  EXPECT_TRUE(trapped(cause(InterruptCause::kMachineSoftware), start + 4, 0))
      << "taken after the store, before the next instruction";
  EXPECT_EQ(hart.x[a0], 0u);
}

// ---------------------------------------------------------------- WFI

TEST_F(HartInterruptTest, WfiSleepsUntilAnInterruptIsPending) {
  enable(bit(kMti), false);
  std::uint64_t start = load({wfi(), addi(a0, a0, 1)});
  step(5);
  EXPECT_TRUE(hart.waiting_for_interrupt());
  EXPECT_EQ(hart.pc, start + 4) << "pc is past the wfi while asleep";
  EXPECT_EQ(hart.retired(), 1u) << "run() returned at the wfi";
  std::uint64_t cycles = hart.cycles();
  step(5);
  EXPECT_EQ(hart.cycles(), cycles) << "asleep: nothing runs";
  EXPECT_EQ(hart.x[a0], 0u);
  EXPECT_FALSE(hart.wake_condition());

  // An enabled interrupt wakes the hart even with mstatus.MIE clear; no trap.
  hart.set_interrupt_pending(kMti, true);
  EXPECT_TRUE(hart.wake_condition());
  step();
  EXPECT_FALSE(hart.waiting_for_interrupt());
  EXPECT_EQ(hart.x[a0], 1u);
  EXPECT_EQ(hart.interrupts_taken(), 0u);
}

TEST_F(HartInterruptTest, WfiWakesIntoTheHandlerWhenInterruptsAreEnabled) {
  enable(bit(kMei));
  std::uint64_t start = load({wfi(), nop()});
  step();
  ASSERT_TRUE(hart.waiting_for_interrupt());
  hart.set_interrupt_pending(kMei, true);
  service();
  EXPECT_FALSE(hart.waiting_for_interrupt());
  EXPECT_TRUE(trapped(cause(InterruptCause::kMachineExternal), start + 4, 0)) << "mepc is after the wfi";
}

TEST_F(HartInterruptTest, WfiDoesNotSleepWithAnEnabledInterruptPending) {
  enable(bit(kMti), false);
  hart.set_interrupt_pending(kMti, true);
  std::uint64_t start = exec({wfi(), nop()});
  EXPECT_FALSE(hart.waiting_for_interrupt());
  EXPECT_EQ(hart.pc, start + 8);
}

TEST_F(HartInterruptTest, WfiSleepsWhenOnlyDisabledInterruptsArePending) {
  enable(bit(kMei), false);
  hart.set_interrupt_pending(kMti, true);
  exec({wfi()});
  EXPECT_TRUE(hart.waiting_for_interrupt());
  hart.set_interrupt_pending(kMti, false);
  hart.set_interrupt_pending(kMti, true);
  step();
  EXPECT_TRUE(hart.waiting_for_interrupt()) << "MTI is not enabled in mie";
}

TEST_F(HartInterruptTest, WfiInUserMode) {
  // Without mstatus.TW it may sleep.
  std::uint64_t user = load({wfi(), nop()});
  enter_user(user);
  step();
  EXPECT_TRUE(hart.waiting_for_interrupt());
  EXPECT_EQ(hart.privilege(), Privilege::kUser);
  hart.wake();
  EXPECT_FALSE(hart.waiting_for_interrupt());
  step();
  EXPECT_EQ(hart.pc, user + 8);
  EXPECT_EQ(hart.exceptions(), 0u);
}

TEST_F(HartInterruptTest, WfiIsIllegalInUserModeWithTimeoutWait) {
  ASSERT_TRUE(hart.csr_write(kMstatus, kMstatusTw));
  std::uint64_t user = load({wfi()});
  enter_user(user);
  ASSERT_NE(hart.mstatus() & kMstatusTw, 0u);
  step();
  EXPECT_TRUE(trapped(TrapCause::kIllegalInstruction, user, wfi()));
  EXPECT_FALSE(hart.waiting_for_interrupt());
  // In M-mode TW does not apply.
  exec({wfi()});
  EXPECT_TRUE(hart.waiting_for_interrupt());
}

}  // namespace
}  // namespace npuvp
