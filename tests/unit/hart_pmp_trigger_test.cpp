// Physical memory protection (privileged spec 1.12, 3.7) and the Sdtrig
// trigger module (debug spec 1.0): the CSRs' WARL behaviour, and what they
// enforce — U-mode regions, locked entries in M-mode, mstatus.MPRV, execute /
// load / store address triggers raising breakpoint exceptions.
#include "unit/hart_test_support.h"

namespace npuvp {
namespace hart_test {
namespace {

using namespace rv;

enum : std::uint16_t { kPmpcfg2 = 0x3a2, kPmpcfg4 = 0x3a4, kPmpaddr1 = 0x3b1, kPmpaddr15 = 0x3bf, kPmpaddr16 = 0x3c0 };
enum : std::uint16_t { kTselect = 0x7a0, kTdata1 = 0x7a1, kTdata2 = 0x7a2, kTdata3 = 0x7a3, kTinfo = 0x7a4 };
constexpr std::uint64_t kR = 1, kW = 2, kX = 4, kTor = 0x08, kNa4 = 0x10, kNapot = 0x18, kLock = 0x80;
constexpr std::uint64_t kPmpAddressMask = (1ull << 54) - 1;
// pmpaddr of a NAPOT region [base, base + size), size a power of two >= 8.
constexpr std::uint64_t napot(std::uint64_t base, std::uint64_t size) { return (base >> 2) | ((size >> 3) - 1); }

// tdata1 of an mcontrol (type 2) / mcontrol6 (type 6) trigger.
constexpr std::uint64_t kMcontrol = 2ull << 60, kMcontrol6 = 6ull << 60, kDisabled = 15ull << 60;
constexpr std::uint64_t kTrigLoad = 1, kTrigStore = 2, kTrigExecute = 4, kTrigU = 8, kTrigS = 0x10, kTrigM = 0x40;
constexpr std::uint64_t kMcontrolHit = 1ull << 20, kMcontrol6Hit0 = 1ull << 22, kDmode = 1ull << 59;

class HartPmpTest : public HartTest {
 protected:
  HartPmpTest() { EXPECT_TRUE(hart.configure_pmp(16, 4)); }
  void write(std::uint16_t number, std::uint64_t value) { ASSERT_TRUE(hart.csr_write(number, value)) << hex64(number); }
  // Runs `insn` in U-mode (an ecall follows it); returns its address.
  std::uint64_t run_in_user(Insn insn) {
    std::uint64_t at = load({insn, ecall()});
    enter_user(at);
    step();
    return at;
  }
};

TEST_F(HartPmpTest, ConfigurationWarl) {
  // Bits 6:5 are reserved (zero); R=0 W=1 is reserved: W is dropped.
  write(kPmpcfg0, 0x7f00 | kW);
  EXPECT_EQ(csr(kPmpcfg0), 0x1f00u);
  // All 8 bytes of pmpcfg0 and pmpcfg2 are entries 0..15.
  write(kPmpcfg2, 0x0d0c0b0a09080705ull);
  EXPECT_EQ(csr(kPmpcfg2), 0x0d0c0b0809080705ull) << "entry 12 (0x0a: TOR, W without R) loses W";
  // Entries above the 16 implemented read as zero and ignore writes.
  write(kPmpcfg4, 0x0f0f);
  EXPECT_EQ(csr(kPmpcfg4), 0u);
  write(kPmpaddr16, 0x1234);
  EXPECT_EQ(csr(kPmpaddr16), 0u);
  // pmpaddr holds bits 55:2 of an address.
  write(kPmpaddr15, ~0ull);
  EXPECT_EQ(csr(kPmpaddr15), kPmpAddressMask);
  std::uint64_t value = 0;
  EXPECT_FALSE(hart.csr_read(0x3a1, value)) << "pmpcfg1 does not exist on RV64";
}

TEST_F(HartPmpTest, LockedEntriesIgnoreWrites) {
  write(kPmpaddr0, 0x100);
  write(kPmpaddr1, 0x200);
  // Entry 1: locked TOR, so pmpaddr1 (its own) and pmpaddr0 (its bottom) are locked.
  write(kPmpcfg0, (kLock | kTor | kR) << 8);
  write(kPmpaddr0, 0x111);
  write(kPmpaddr1, 0x222);
  write(kPmpcfg0, 0x0f0f);
  EXPECT_EQ(csr(kPmpaddr0), 0x100u);
  EXPECT_EQ(csr(kPmpaddr1), 0x200u);
  EXPECT_EQ(csr(kPmpcfg0), 0x0fu | ((kLock | kTor | kR) << 8)) << "entry 0 unlocked, entry 1 unchanged";
  // Only a reset unlocks.
  hart.reset(kRamBase);
  EXPECT_EQ(csr(kPmpcfg0), 0u);
  write(kPmpaddr1, 0x222);
  EXPECT_EQ(csr(kPmpaddr1), 0x222u);
}

TEST_F(HartPmpTest, CoarseGranularityReadBack) {
  ASSERT_TRUE(hart.configure_pmp(16, 4096));  // G = 10
  write(kPmpaddr0, ~0ull);
  EXPECT_EQ(csr(kPmpaddr0), kPmpAddressMask & ~0x3ffull) << "OFF: bits G-1:0 read as zero";
  write(kPmpaddr0, 0x12345000 >> 2);
  write(kPmpcfg0, kNapot | kR);
  EXPECT_EQ(csr(kPmpaddr0), (0x12345000 >> 2) | 0x1ffu) << "NAPOT: bits G-2:0 read as ones";
  write(kPmpcfg0, kNa4 | kR);
  EXPECT_EQ(csr(kPmpcfg0), kNapot | kR) << "NA4 cannot be selected above 4-byte granularity";
  EXPECT_FALSE(hart.configure_pmp(12, 4));
  EXPECT_FALSE(hart.configure_pmp(16, 6));
}

TEST_F(HartPmpTest, UserModeNeedsAMatchingEntry) {
  std::uint64_t at = run_in_user(addi(a0, a0, 1));
  EXPECT_TRUE(trapped(TrapCause::kInstructionAccessFault, at, at)) << "16 entries, none matches";
}

TEST_F(HartPmpTest, UserModeRegions) {
  // Entry 0: one word of data read/write; entry 1: all of RAM read/execute.
  write(kPmpaddr0, kDataBase >> 2);
  write(kPmpaddr1, napot(kRamBase, kRamSize));
  write(kPmpcfg0, (kNa4 | kR | kW) | (kNapot | kR | kX) << 8);
  hart.x[a1] = kDataBase;
  hart.x[a2] = 0x55;
  std::uint64_t at = run_in_user(sw(a2, a1, 0));
  EXPECT_EQ(hart.pc, at + 4) << "store inside entry 0";
  EXPECT_EQ(bus.peek<std::uint32_t>(kDataBase), 0x55u);
  step();  // the ecall: back to M-mode
  ASSERT_TRUE(trapped(TrapCause::kEcallFromU, at + 4, 0));
  hart.x[a1] = kDataBase + 4;
  at = run_in_user(sw(a2, a1, 0));
  EXPECT_TRUE(trapped(TrapCause::kStoreAccessFault, at, kDataBase + 4)) << "entry 1 has no W";
  EXPECT_EQ(bus.peek<std::uint32_t>(kDataBase + 4), 0u);
}

TEST_F(HartPmpTest, UserModeLoadsFetchesAndPartialMatches) {
  write(kPmpaddr0, kDataBase >> 2);
  write(kPmpaddr1, napot(kRamBase, kRamSize));
  write(kPmpcfg0, (kNa4 | kR | kW) | (kNapot | kR | kX) << 8);
  hart.x[a1] = kRomBase;
  std::uint64_t at = run_in_user(lw(a0, a1, 0));
  EXPECT_TRUE(trapped(TrapCause::kLoadAccessFault, at, kRomBase)) << "no entry covers the ROM";
  // A doubleword at the 4-byte entry 0 overlaps it partly: it fails although
  // entry 1 would allow the read.
  hart.x[a1] = kDataBase;
  at = run_in_user(ld(a0, a1, 0));
  EXPECT_TRUE(trapped(TrapCause::kLoadAccessFault, at, kDataBase));
  // Execute permission: entry 1 without X.
  write(kPmpcfg0, (kNa4 | kR | kW) | (kNapot | kR) << 8);
  at = run_in_user(addi(a0, a0, 1));
  EXPECT_TRUE(trapped(TrapCause::kInstructionAccessFault, at, at));
}

TEST_F(HartPmpTest, MachineModeOnlyRestrictedByLockedEntries) {
  write(kPmpaddr0, napot(kDataBase, 0x1000));
  write(kPmpcfg0, kNapot | kR);  // unlocked, read-only
  hart.x[a1] = kDataBase;
  hart.x[a2] = 7;
  exec({sw(a2, a1, 0)});
  EXPECT_EQ(bus.peek<std::uint32_t>(kDataBase), 7u) << "M-mode ignores unlocked entries";
  write(kPmpcfg0, kLock | kNapot | kR);
  hart.x[a2] = 9;
  std::uint64_t at = exec({sw(a2, a1, 0)});
  EXPECT_TRUE(trapped(TrapCause::kStoreAccessFault, at, kDataBase)) << "locked entries bind M-mode";
  EXPECT_EQ(bus.peek<std::uint32_t>(kDataBase), 7u);
}

TEST_F(HartPmpTest, MprvChecksMachineLoadsAsUser) {
  write(kPmpaddr0, napot(kRamBase, kRamSize));
  write(kPmpcfg0, kNapot | kR | kX);
  hart.x[a1] = kDataBase;
  hart.x[a2] = 3;
  ASSERT_TRUE(hart.csr_write(kMstatus, (hart.mstatus() & ~kMstatusMpp) | kMstatusMprv));  // MPP = U
  std::uint64_t at = exec({sw(a2, a1, 0)});
  EXPECT_TRUE(trapped(TrapCause::kStoreAccessFault, at, kDataBase));
  EXPECT_EQ(bus.peek<std::uint32_t>(kDataBase), 0u);
}

// ---------------------------------------------------------------- triggers

class HartTriggerTest : public HartTest {
 protected:
  void write(std::uint16_t number, std::uint64_t value) { ASSERT_TRUE(hart.csr_write(number, value)) << hex64(number); }
};

TEST_F(HartTriggerTest, CsrsWarl) {
  EXPECT_EQ(csr(kTinfo), (1ull << 24) | (1u << 2) | (1u << 6) | (1u << 15)) << "version 1; types 2, 6, 15";
  EXPECT_EQ(csr(kTselect), 0u);
  EXPECT_EQ(csr(kTdata1) >> 60, 2u) << "an mcontrol trigger at reset";
  write(kTselect, 1);
  EXPECT_EQ(csr(kTselect), 1u);
  write(kTselect, 2);
  EXPECT_EQ(csr(kTselect), 1u) << "no trigger 2: the write is ignored";
  // Exactly what is written comes back for the supported fields...
  write(kTdata1, kMcontrol | kTrigM | kTrigExecute);
  EXPECT_EQ(csr(kTdata1), kMcontrol | kTrigM | kTrigExecute);
  // ...but dmode (debug mode only), S (no S-mode), match != 0, chain, action != 0 read as zero.
  write(kTdata1, kMcontrol | kDmode | kTrigS | kTrigU | kTrigLoad | (2u << 7) | (1u << 11) | (1u << 12));
  EXPECT_EQ(csr(kTdata1), kMcontrol | kTrigU | kTrigLoad);
  write(kTdata1, kMcontrol6 | kTrigM | kTrigStore);
  EXPECT_EQ(csr(kTdata1), kMcontrol6 | kTrigM | kTrigStore);
  write(kTdata1, (3ull << 60) | kTrigM | kTrigStore);  // icount: not supported
  EXPECT_EQ(csr(kTdata1), kDisabled);
  write(kTdata2, 0x1234567);
  EXPECT_EQ(csr(kTdata2), 0x1234567u);
  write(kTdata3, 5);
  EXPECT_EQ(csr(kTdata3), 0u);
  write(kTselect, 0);
  EXPECT_EQ(csr(kTdata2), 0u) << "each trigger has its own tdata2";
}

TEST_F(HartTriggerTest, ExecuteTriggerStopsBeforeTheInstruction) {
  hart.x[a0] = 0;
  std::uint64_t at = load({addi(a0, a0, 1), addi(a0, a0, 2), addi(a0, a0, 4)});
  step(3);  // decoded before the trigger is set: it must still fire
  EXPECT_EQ(hart.x[a0], 7u);
  hart.x[a0] = 0;
  write(kTdata2, at + 4);
  write(kTdata1, kMcontrol | kTrigM | kTrigExecute);
  hart.pc = at;
  step(2);
  EXPECT_TRUE(trapped(TrapCause::kBreakpoint, at + 4, at + 4));
  EXPECT_EQ(hart.x[a0], 1u) << "the instruction at the trigger did not execute";
  EXPECT_EQ(csr(kTdata1), kMcontrol | kMcontrolHit | kTrigM | kTrigExecute) << "hit is set";
  // A trigger for U-mode only does not fire in M-mode.
  write(kTdata1, kMcontrol | kTrigU | kTrigExecute);
  hart.pc = at;
  hart.x[a0] = 0;
  step(3);
  EXPECT_EQ(hart.x[a0], 7u);
}

TEST_F(HartTriggerTest, LoadAndStoreTriggers) {
  hart.x[a1] = kDataBase;
  hart.x[a2] = 0x77;
  bus.poke<std::uint32_t>(kDataBase, 5);
  write(kTdata2, kDataBase + 2);  // any byte of the access matches
  write(kTdata1, kMcontrol | kTrigM | kTrigLoad);
  hart.x[a0] = 0;
  std::uint64_t at = exec({lw(a0, a1, 0)});
  EXPECT_TRUE(trapped(TrapCause::kBreakpoint, at, kDataBase)) << "mtval = the access's address";
  EXPECT_EQ(hart.x[a0], 0u);
  exec({sw(a2, a1, 0)});
  EXPECT_EQ(bus.peek<std::uint32_t>(kDataBase), 0x77u) << "a load trigger ignores stores";
  // A second trigger, mcontrol6, on stores.
  write(kTselect, 1);
  write(kTdata2, kDataBase + 8);
  write(kTdata1, kMcontrol6 | kTrigM | kTrigStore);
  hart.x[a1] = kDataBase + 8;
  at = exec({sd(a2, a1, 0)});
  EXPECT_TRUE(trapped(TrapCause::kBreakpoint, at, kDataBase + 8));
  EXPECT_EQ(bus.peek<std::uint64_t>(kDataBase + 8), 0u) << "the store did not happen";
  EXPECT_EQ(csr(kTdata1), kMcontrol6 | kMcontrol6Hit0 | kTrigM | kTrigStore);
  // The first trigger still fires.
  hart.x[a1] = kDataBase;
  at = exec({lbu(a0, a1, 2)});
  EXPECT_TRUE(trapped(TrapCause::kBreakpoint, at, kDataBase + 2));
}

}  // namespace
}  // namespace hart_test
}  // namespace npuvp
