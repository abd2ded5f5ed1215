// Zicsr and the machine-mode CSRs (access rules, WARL fields, counters),
// trap entry and return, privilege transitions, the recursive-trap detector,
// the semihosting hook and the cycle model.
#include "unit/hart_test_support.h"

#include "cpu/extension.h"

namespace npuvp {
namespace {

using namespace rv;
using namespace hart_test;

class HartCsrTest : public HartTest {
 protected:
  // Runs `insn` once in U-mode; returns its address. An ecall follows it.
  std::uint64_t run_in_user_mode(std::uint32_t insn) {
    std::uint64_t at = load({insn, ecall()});
    enter_user(at);
    step();
    return at;
  }
  // Expects `insn` to raise illegal instruction (mtval = its encoding) and
  // leave a0 alone.
  void expect_illegal(std::uint32_t insn, bool user = false) {
    hart.x[a0] = 0xa0a0;
    std::uint64_t at = user ? run_in_user_mode(insn) : exec({insn});
    EXPECT_TRUE(trapped(TrapCause::kIllegalInstruction, at, insn)) << hart.decoder().disassemble(insn, at);
    EXPECT_EQ(hart.x[a0], 0xa0a0u) << hart.decoder().disassemble(insn, at);
  }
  void expect_legal(std::uint32_t insn, bool user = false) {
    std::uint64_t exceptions = hart.exceptions();
    std::uint64_t at = user ? run_in_user_mode(insn) : exec({insn});
    EXPECT_EQ(hart.exceptions(), exceptions) << hart.decoder().disassemble(insn, at) << ": "
                                             << trap_cause_name(hart.mcause());
    EXPECT_EQ(hart.pc, at + 4);
    if (user) {  // back to M-mode through the ecall
      step();
      EXPECT_TRUE(trapped(TrapCause::kEcallFromU, at + 4, 0));
    }
  }
};

// An extension CSR at 0x7c0 that counts how it is accessed, and one in the
// read-only range (0xfc0) that would accept writes if asked.
class CountingCsr : public IsaExtension {
 public:
  std::string name() const override { return "xcount"; }
  char misa_letter() const override { return 0; }
  std::vector<InstructionSpec> instructions() override { return {}; }
  bool read_csr(Hart&, std::uint16_t csr, std::uint64_t& value) override {
    if (csr == kCustomRo) {
      value = 0x70;
      return true;
    }
    if (csr != kCustomRw) return false;
    ++reads;
    value = stored;
    return true;
  }
  bool write_csr(Hart&, std::uint16_t csr, std::uint64_t value) override {
    if (csr == kCustomRo) ++read_only_writes;
    if (csr != kCustomRw && csr != kCustomRo) return false;
    ++writes;
    stored = value;
    return true;
  }
  static constexpr std::uint16_t kCustomRo = 0xfc0;
  int reads = 0, writes = 0, read_only_writes = 0;
  std::uint64_t stored = 0x40;
};

// ---------------------------------------------------------------- identification

TEST_F(HartCsrTest, MisaDescribesRv64ImafdcuAndIgnoresWrites) {
  std::uint64_t expected = 2ull << 62;
  for (char letter : {'I', 'M', 'A', 'F', 'D', 'C', 'U'}) expected |= 1ull << (letter - 'A');
  EXPECT_EQ(hart.misa(), expected);
  hart.x[a1] = 0;
  exec({csrr(a0, kMisa), csrw(kMisa, a1), csrr(a2, kMisa)});
  EXPECT_EQ(hart.x[a0], expected);
  EXPECT_EQ(hart.x[a2], expected) << "misa is WARL with a fixed value";
  EXPECT_EQ(hart.exceptions(), 0u);
}

TEST_F(HartCsrTest, MachineInformationRegisters) {
  Hart other(7, bus);
  std::uint64_t id = 0;
  ASSERT_TRUE(other.csr_read(kMhartid, id));
  EXPECT_EQ(id, 7u);
  EXPECT_EQ(other.hart_id(), 7u);
  for (std::uint32_t number : {kMhartid, kMvendorid, kMarchid, kMimpid, kMconfigptr}) {
    hart.x[a0] = 0xdead;
    exec({csrr(a0, number)});
    EXPECT_EQ(hart.x[a0], 0u) << hex64(number);
  }
  EXPECT_EQ(hart.exceptions(), 0u);
}

TEST_F(HartCsrTest, ReadOnlyCsrsRejectWritesButAllowPureReads) {
  hart.x[a1] = 0;  // even writing zero is a write
  for (std::uint32_t number : {kMhartid, kMvendorid, kMarchid, kMimpid, kMconfigptr, kCycle, kTime, kInstret}) {
    SCOPED_TRACE(hex64(number));
    expect_illegal(csrrw(a0, number, a1));
    expect_illegal(csrrw(zero, number, a1));
    expect_illegal(csrrs(a0, number, a1));
    expect_illegal(csrrc(a0, number, a1));
    expect_illegal(csrrwi(a0, number, 0));
    expect_illegal(csrrsi(a0, number, 1));
    expect_illegal(csrrci(a0, number, 1));
    expect_legal(csrrs(a0, number, zero));
    expect_legal(csrrc(a0, number, zero));
    expect_legal(csrrsi(a0, number, 0));
    expect_legal(csrrci(a0, number, 0));
  }
}

TEST_F(HartCsrTest, NonexistentCsrsAreIllegal) {
  // 0x7c0: custom (nothing registered); S-mode CSRs (no S-mode); medeleg and
  // mideleg (no delegation without S-mode); odd pmpcfg and *h counters (RV32
  // only); unused custom numbers.
  for (std::uint32_t number : std::initializer_list<std::uint32_t>{
           kCustomRw, kSstatus, 0x104 /* sie */, kSatp, kMedeleg, kMideleg, 0x3a1 /* pmpcfg1 */, 0x800, 0x5c0, 0xfff,
           0xc80 /* cycleh */, 0xb80 /* mcycleh */}) {
    expect_illegal(csrr(a0, number));
    expect_illegal(csrrw(zero, number, a1));
  }
}

TEST_F(HartCsrTest, OptionalMachineCsrsReadAsZero) {
  hart.x[a1] = ~0ull;
  for (std::uint32_t number : std::initializer_list<std::uint32_t>{kPmpcfg0, kPmpaddr0, 0x3efu /* pmpaddr63 */, 0x3aeu /* pmpcfg14 */, kMhpmCounter3,
                               0xb1fu /* mhpmcounter31 */, kMhpmEvent3, 0x33fu /* mhpmevent31 */, kMenvcfg}) {
    hart.x[a0] = 0xdead;
    exec({csrw(number, a1), csrr(a0, number)});
    EXPECT_EQ(hart.x[a0], 0u) << hex64(number);
  }
  for (std::uint32_t number : std::initializer_list<std::uint32_t>{kHpmCounter3, 0xc1fu /* hpmcounter31 */}) {
    hart.x[a0] = 0xdead;
    exec({csrr(a0, number)});
    EXPECT_EQ(hart.x[a0], 0u) << hex64(number);
  }
  EXPECT_EQ(hart.exceptions(), 0u);
}

// ---------------------------------------------------------------- Zicsr semantics

TEST_F(HartCsrTest, ReadModifyWriteInstructions) {
  ASSERT_TRUE(hart.csr_write(kMscratch, 0xf0f0));
  hart.x[a1] = 0x1234;
  exec({csrrw(a0, kMscratch, a1)});
  EXPECT_EQ(hart.x[a0], 0xf0f0u);
  EXPECT_EQ(csr(kMscratch), 0x1234u);
  hart.x[a2] = 0x0f01;
  exec({csrrs(a0, kMscratch, a2)});
  EXPECT_EQ(hart.x[a0], 0x1234u);
  EXPECT_EQ(csr(kMscratch), 0x1f35u);
  hart.x[a2] = 0x0035;
  exec({csrrc(a0, kMscratch, a2)});
  EXPECT_EQ(hart.x[a0], 0x1f35u);
  EXPECT_EQ(csr(kMscratch), 0x1f00u);
  exec({csrrwi(a0, kMscratch, 31)});
  EXPECT_EQ(hart.x[a0], 0x1f00u);
  EXPECT_EQ(csr(kMscratch), 31u);
  exec({csrrci(a0, kMscratch, 5)});
  EXPECT_EQ(hart.x[a0], 31u);
  EXPECT_EQ(csr(kMscratch), 26u);
  exec({csrrsi(a0, kMscratch, 1)});
  EXPECT_EQ(hart.x[a0], 26u);
  EXPECT_EQ(csr(kMscratch), 27u);
  // rd == rs1: a swap.
  hart.x[a0] = 0x5555;
  exec({csrrw(a0, kMscratch, a0)});
  EXPECT_EQ(hart.x[a0], 27u);
  EXPECT_EQ(csr(kMscratch), 0x5555u);
  EXPECT_EQ(hart.exceptions(), 0u);
}

TEST_F(HartCsrTest, X0OperandsSkipTheReadOrTheWrite) {
  CountingCsr counter;
  hart.add_extension(counter);
  hart.x[a1] = 0x99;
  hart.x[a2] = 0;
  struct Case {
    std::uint32_t insn;
    int reads, writes;
  };
  const Case cases[] = {
      {csrrw(zero, kCustomRw, a1), 0, 1},   // csrrw with rd = x0 does not read
      {csrrwi(zero, kCustomRw, 0), 0, 1},
      {csrrw(a0, kCustomRw, a1), 1, 1},
      {csrrs(a0, kCustomRw, zero), 1, 0},   // csrrs/csrrc with rs1 = x0 do not write
      {csrrc(a0, kCustomRw, zero), 1, 0},
      {csrrsi(a0, kCustomRw, 0), 1, 0},
      {csrrci(a0, kCustomRw, 0), 1, 0},
      {csrrs(zero, kCustomRw, zero), 1, 0},
      {csrrs(a0, kCustomRw, a2), 1, 1},     // a register holding zero still writes
      {csrrc(a0, kCustomRw, a2), 1, 1},
      {csrrsi(a0, kCustomRw, 1), 1, 1},
  };
  for (const Case& c : cases) {
    counter.reads = counter.writes = 0;
    exec({c.insn});
    EXPECT_EQ(counter.reads, c.reads) << hart.decoder().disassemble(c.insn, 0);
    EXPECT_EQ(counter.writes, c.writes) << hart.decoder().disassemble(c.insn, 0);
  }
  EXPECT_EQ(hart.exceptions(), 0u);
  EXPECT_EQ(counter.stored, 0x99u | 1);
}

TEST_F(HartCsrTest, ReadOnlyRangeIsEnforcedBeforeExtensionsSeeAWrite) {
  CountingCsr counter;
  hart.add_extension(counter);
  exec({csrr(a0, CountingCsr::kCustomRo)});
  EXPECT_EQ(hart.x[a0], 0x70u);
  expect_illegal(csrrw(a0, CountingCsr::kCustomRo, a1));
  expect_illegal(csrrsi(a0, CountingCsr::kCustomRo, 1));
  EXPECT_EQ(counter.read_only_writes, 0);
}

TEST_F(HartCsrTest, MstatusFieldsAreWarl) {
  hart.x[a1] = ~0ull;
  exec({csrw(kMstatus, a1), csrr(a0, kMstatus)});
  EXPECT_EQ(hart.x[a0], kMstatusMie | kMstatusMpie | kMstatusMpp | kMstatusFs | kMstatusMprv | kMstatusTw |
                           (2ull << 32) | kMstatusSd)
      << "only implemented fields are writable; UXL reads 64-bit; SD = (FS == Dirty)";
  // MPP holds only U (0) or M (3); S (1) and the reserved 2 keep the old value.
  hart.x[a1] = 1ull << 11;
  exec({csrw(kMstatus, a1), csrr(a0, kMstatus)});
  EXPECT_EQ(hart.x[a0] & kMstatusMpp, kMstatusMpp);
  hart.x[a1] = 0;
  exec({csrw(kMstatus, a1), csrr(a0, kMstatus)});
  EXPECT_EQ(hart.x[a0], 2ull << 32);
  hart.x[a1] = 2ull << 11;
  exec({csrw(kMstatus, a1), csrr(a0, kMstatus)});
  EXPECT_EQ(hart.x[a0] & kMstatusMpp, 0u);
  EXPECT_EQ(hart.exceptions(), 0u);
}

TEST_F(HartCsrTest, MtvecSupportsDirectAndVectoredModes) {
  const std::uint64_t base = kRamBase + 0x9000;
  for (std::uint64_t mode : {1u, 0u}) {
    hart.x[a1] = base | mode;
    exec({csrw(kMtvec, a1), csrr(a0, kMtvec)});
    EXPECT_EQ(hart.x[a0], base | mode);
  }
  hart.x[a1] = base | 1;
  exec({csrw(kMtvec, a1)});
  for (std::uint64_t reserved : {2u, 3u}) {
    hart.x[a1] = (base + 0x100) | reserved;
    exec({csrw(kMtvec, a1), csrr(a0, kMtvec)});
    EXPECT_EQ(hart.x[a0] & 3, 1u) << "a reserved mode keeps the previous mode";
  }
}

TEST_F(HartCsrTest, MepcBitZeroReadsZero) {
  hart.x[a1] = kRamBase + 0x2001;
  exec({csrw(kMepc, a1), csrr(a0, kMepc)});
  EXPECT_EQ(hart.x[a0], kRamBase + 0x2000);
}

TEST_F(HartCsrTest, MieAndMipHoldOnlyMachineInterrupts) {
  hart.x[a1] = ~0ull;
  exec({csrw(kMie, a1), csrr(a0, kMie)});
  EXPECT_EQ(hart.x[a0], (1u << kMsi) | (1u << kMti) | (1u << kMei));
  exec({csrw(kMip, a1), csrr(a0, kMip)});
  EXPECT_EQ(hart.x[a0], 0u) << "mip bits are driven by devices";
  hart.x[a1] = 0;
  exec({csrw(kMie, a1)});  // nothing enabled: the line below must not trap
  hart.set_interrupt_pending(kMti, true);
  hart.set_interrupt_pending(kMei, true);
  exec({csrr(a0, kMip)});
  EXPECT_EQ(hart.x[a0], (1u << kMti) | (1u << kMei));
  EXPECT_EQ(hart.mip(), (1u << kMti) | (1u << kMei));
  hart.set_interrupt_pending(kMti, false);
  exec({csrr(a0, kMip)});
  EXPECT_EQ(hart.x[a0], 1u << kMei);
  EXPECT_EQ(hart.exceptions(), 0u);
}

TEST_F(HartCsrTest, TrapRegistersAreReadWrite) {
  hart.x[a1] = 0x8000000000000005ull;
  hart.x[a2] = 0x123456789ull;
  exec({csrw(kMcause, a1), csrw(kMtval, a2), csrw(kMscratch, a2), csrr(a3, kMcause), csrr(a4, kMtval),
        csrr(a5, kMscratch)});
  EXPECT_EQ(hart.x[a3], 0x8000000000000005ull);
  EXPECT_EQ(hart.x[a4], 0x123456789ull);
  EXPECT_EQ(hart.x[a5], 0x123456789ull);
}

// ---------------------------------------------------------------- privilege

TEST_F(HartCsrTest, UserModeCannotAccessMachineCsrs) {
  for (std::uint32_t insn : {csrr(a0, kMstatus), csrr(a0, kMscratch), csrr(a0, kMhartid), csrw(kMtvec, a1),
                             csrr(a0, kMcycle), csrr(a0, kMinstret), csrrs(a0, kMie, zero), csrrwi(zero, kMstatus, 8),
                             csrr(a0, kMisa), csrr(a0, kMepc)}) {
    expect_illegal(insn, true);
    EXPECT_EQ(hart.mstatus() & kMstatusMpp, 0u) << "trapped from U-mode";
  }
}

TEST_F(HartCsrTest, McounterenGatesUserAccessToCounters) {
  hart.set_time_source([](std::uint64_t cycles) { return cycles * 10; });
  for (std::uint32_t number : {kCycle, kTime, kInstret, kHpmCounter3}) expect_illegal(csrr(a0, number), true);

  ASSERT_TRUE(hart.csr_write(kMcounteren, 1));  // CY
  expect_legal(csrr(a0, kCycle), true);
  EXPECT_EQ(hart.x[a0], hart.cycles() - 2) << "read before the csrr and the ecall ran";
  expect_illegal(csrr(a0, kTime), true);
  expect_illegal(csrr(a0, kInstret), true);
  expect_illegal(csrw(kCycle, a1), true);

  ASSERT_TRUE(hart.csr_write(kMcounteren, 2));  // TM
  expect_legal(csrr(a0, kTime), true);
  EXPECT_EQ(hart.x[a0], (hart.cycles() - 2) * 10);
  expect_illegal(csrr(a0, kCycle), true);

  ASSERT_TRUE(hart.csr_write(kMcounteren, 4));  // IR
  std::uint64_t retired = hart.retired();
  expect_legal(csrr(a0, kInstret), true);
  EXPECT_EQ(hart.x[a0], retired + 1) << "includes the mret that entered U-mode";
  expect_illegal(csrr(a0, kCycle), true);

  ASSERT_TRUE(hart.csr_write(kMcounteren, 8));  // HPM3
  hart.x[a0] = 5;
  expect_legal(csrr(a0, kHpmCounter3), true);
  EXPECT_EQ(hart.x[a0], 0u);

  // Machine mode is not gated.
  ASSERT_TRUE(hart.csr_write(kMcounteren, 0));
  for (std::uint32_t number : {kCycle, kTime, kInstret}) expect_legal(csrr(a0, number));
  EXPECT_EQ(csr(kMcounteren), 0u);
}

// ---------------------------------------------------------------- counters

TEST_F(HartCsrTest, CountersTrackCyclesAndRetiredInstructions) {
  exec({csrr(a0, kMcycle), csrr(a1, kMinstret), nop(), nop(), nop(), csrr(a2, kMcycle), csrr(a3, kMinstret),
        csrr(a4, kCycle), csrr(a5, kInstret)});
  EXPECT_EQ(hart.x[a2] - hart.x[a0], 5u);
  EXPECT_EQ(hart.x[a3] - hart.x[a1], 5u);
  EXPECT_EQ(hart.x[a4], hart.x[a2] + 2) << "cycle aliases mcycle";
  EXPECT_EQ(hart.x[a5], hart.x[a3] + 2) << "instret aliases minstret";
  EXPECT_EQ(hart.x[a5], hart.retired() - 1);
}

TEST_F(HartCsrTest, TimeReadsTheTimeSource) {
  hart.set_time_source([](std::uint64_t cycles) { return cycles * 100 + 7; });
  exec({nop(), nop()});
  std::uint64_t cycles = hart.cycles();
  exec({csrr(a0, kTime)});
  EXPECT_EQ(hart.x[a0], cycles * 100 + 7);
}

TEST_F(HartCsrTest, WrittenCounterValueIsReadByTheNextInstruction) {
  // "If a CSR access instruction writes such a CSR, the write is done instead
  // of the increment": a value written to minstret/mcycle by one instruction
  // is the value read by the following one.
  hart.x[a1] = 1000;
  hart.x[a2] = 5000;
  exec({csrw(kMinstret, a1), csrr(a0, kMinstret), nop(), csrr(a3, kMinstret), csrr(a4, kInstret)});
  EXPECT_EQ(hart.x[a0], 1000u);
  EXPECT_EQ(hart.x[a3], 1002u);
  EXPECT_EQ(hart.x[a4], 1003u);
  exec({csrw(kMcycle, a2), csrr(a0, kMcycle), nop(), csrr(a3, kMcycle), csrr(a4, kCycle)});
  EXPECT_EQ(hart.x[a0], 5000u);
  EXPECT_EQ(hart.x[a3], 5002u);
  EXPECT_EQ(hart.x[a4], 5003u);
  // csrrw returns the old value and writes the new one.
  hart.x[a1] = 0;
  exec({csrrw(a0, kMinstret, a1), csrr(a3, kMinstret)});
  EXPECT_EQ(hart.x[a0], 1009u) << "1004 after the first group, plus five";
  EXPECT_EQ(hart.x[a3], 0u);
}

TEST_F(HartCsrTest, McountinhibitFreezesAndResumesCounters) {
  hart.x[a1] = 7;  // CY, TM, IR: mcountinhibit.TM is read-only zero (the spec defines no time inhibit)
  exec({csrw(kMcountinhibit, a1), csrr(a0, kMcountinhibit), csrr(a2, kMcycle), csrr(a3, kMinstret), nop(), nop(),
        csrr(a4, kMcycle), csrr(a5, kMinstret)});
  EXPECT_EQ(hart.x[a0], 5u);
  EXPECT_EQ(hart.x[a4], hart.x[a2]) << "mcycle frozen";
  EXPECT_EQ(hart.x[a5], hart.x[a3]) << "minstret frozen";
  std::uint64_t frozen_cycles = hart.x[a4], frozen_instret = hart.x[a5];

  // Writes while inhibited are kept.
  hart.x[a1] = 300;
  exec({csrw(kMinstret, a1), nop(), csrr(a3, kMinstret)});
  EXPECT_EQ(hart.x[a3], 300u);

  // Resume: counting continues from the frozen values.
  exec({csrw(kMcountinhibit, zero), csrr(a2, kMcycle), csrr(a3, kMinstret), nop(), nop(), nop(), csrr(a4, kMcycle),
        csrr(a5, kMinstret)});
  // Whether the csrw that resumes counting is counted itself is not specified.
  EXPECT_LE(hart.x[a2] - frozen_cycles, 1u);
  EXPECT_GE(hart.x[a3], 301u) << "the first csrr after resuming is counted";
  EXPECT_LE(hart.x[a3], 302u);
  EXPECT_EQ(hart.x[a4] - hart.x[a2], 5u);
  EXPECT_EQ(hart.x[a5] - hart.x[a3], 5u);
  EXPECT_EQ(frozen_instret, 0u) << "frozen at its value when inhibited: nothing had retired";

  // Only CY inhibited: minstret still counts.
  hart.x[a1] = 1;
  exec({csrw(kMcountinhibit, a1), csrr(a2, kMcycle), csrr(a3, kMinstret), nop(), csrr(a4, kMcycle),
        csrr(a5, kMinstret)});
  EXPECT_EQ(hart.x[a4], hart.x[a2]);
  EXPECT_EQ(hart.x[a5] - hart.x[a3], 3u);
}

TEST_F(HartCsrTest, CycleModelCostsAndBranchPenalty) {
  CycleModel model;
  const std::uint8_t costs[] = {1, 3, 20, 2, 4, 5, 6, 7, 8, 9, 10, 11};
  std::copy(std::begin(costs), std::end(costs), std::begin(model.cpi));
  model.branch_taken_penalty = 13;
  hart.set_cycle_model(model);
  hart.x[a1] = kDataBase;
  hart.x[t2] = 3;
  load({csrr(a0, kMcycle),                  // csr 7
        mul(t0, t1, t2),                    // mul 3
        div(t0, t1, t2),                    // div 20
        ld(t0, a1, 0),                      // load 2
        sd(t0, a1, 0),                      // store 4
        beq(zero, zero, 8),                 // branch 5 + penalty 13
        nop(),                              // skipped
        bne(zero, zero, 8),                 // branch 5, not taken
        jal(zero, 4),                       // jump 6
        amo(kAmoAdd, kDouble, zero, zero, a1),  // amo 8
        fence(15, 15),                      // fence 9
        addi(t3, t3, 1),                    // alu 1
        csrr(a2, kMcycle),                  // csr 7
        addi(t4, t4, 1)});
  hart.run(hart.cycles() + 7 + 3 + 20 + 2 + 4 + 18 + 5 + 6 + 8 + 9 + 1 + 7);
  EXPECT_EQ(hart.x[a2] - hart.x[a0], 7u + 3 + 20 + 2 + 4 + 18 + 5 + 6 + 8 + 9 + 1);
  EXPECT_EQ(hart.retired(), 12u);
  EXPECT_EQ(hart.x[t4], 0u) << "the cycle budget ended before the last instruction";
  EXPECT_EQ(hart.exceptions(), 0u);

  // Idle time (WFI sleep) counts as cycles.
  std::uint64_t cycles = hart.cycles();
  hart.add_idle_cycles(100);
  EXPECT_EQ(hart.cycles(), cycles + 100);
  EXPECT_EQ(hart.idle_cycles(), 100u);
}

// ---------------------------------------------------------------- traps

TEST_F(HartCsrTest, EcallFromMachineMode) {
  ASSERT_TRUE(hart.csr_write(kMstatus, kMstatusMie));
  ASSERT_TRUE(hart.csr_write(kMtval, 0x1234));
  std::uint64_t at = exec({ecall()});
  EXPECT_TRUE(trapped(TrapCause::kEcallFromM, at, 0));
  EXPECT_EQ(hart.mstatus() & (kMstatusMie | kMstatusMpie | kMstatusMpp), kMstatusMpie | kMstatusMpp)
      << "MIE saved to MPIE and cleared; MPP = M";
  EXPECT_EQ(hart.retired(), 0u) << "ecall does not retire";
  EXPECT_EQ(hart.exceptions(), 1u);
  EXPECT_EQ(csr(kMcause), 11u);
  EXPECT_EQ(csr(kMepc), at);
}

TEST_F(HartCsrTest, EcallFromUserMode) {
  std::uint64_t at = run_in_user_mode(ecall());
  EXPECT_TRUE(trapped(TrapCause::kEcallFromU, at, 0));
  EXPECT_EQ(hart.mstatus() & kMstatusMpp, 0u) << "MPP = U";
  EXPECT_EQ(hart.mstatus() & kMstatusMpie, 0u) << "MIE was 0 in U-mode's copy";
}

TEST_F(HartCsrTest, MretRestoresPrivilegeAndInterruptEnable) {
  // To U: MIE <- MPIE, MPIE <- 1, MPP <- U, MPRV cleared.
  ASSERT_TRUE(hart.csr_write(kMstatus, kMstatusMpie | kMstatusMprv));  // MPP = U
  ASSERT_TRUE(hart.csr_write(kMepc, kRamBase + 0x7000));
  exec({mret()});
  EXPECT_EQ(hart.pc, kRamBase + 0x7000);
  EXPECT_EQ(hart.privilege(), Privilege::kUser);
  EXPECT_EQ(hart.mstatus() & (kMstatusMie | kMstatusMpie | kMstatusMpp | kMstatusMprv), kMstatusMie | kMstatusMpie);

  // Back to M through a trap, then mret to M: MPRV is kept, MIE <- MPIE (0).
  place(kRamBase + 0x7000, {ecall()});
  step();
  ASSERT_EQ(hart.privilege(), Privilege::kMachine);
  ASSERT_TRUE(hart.csr_write(kMstatus, kMstatusMpp | kMstatusMprv));
  ASSERT_TRUE(hart.csr_write(kMepc, kRamBase + 0x7100));
  exec({mret()});
  EXPECT_EQ(hart.pc, kRamBase + 0x7100);
  EXPECT_EQ(hart.privilege(), Privilege::kMachine);
  EXPECT_EQ(hart.mstatus() & (kMstatusMie | kMstatusMpie | kMstatusMpp | kMstatusMprv), kMstatusMpie | kMstatusMprv)
      << "MPP becomes U after mret";
}

TEST_F(HartCsrTest, MretInUserModeIsIllegal) { expect_illegal(mret(), true); }

TEST_F(HartCsrTest, UserProgramCallsIntoMachineModeAndBack) {
  // Handler: count the call in a1, step mepc past the ecall, return.
  place(kTrapVector, {addi(a1, a1, 1), csrr(t6, kMepc), addi(t6, t6, 4), csrw(kMepc, t6), mret()});
  std::uint64_t user = load({addi(a0, a0, 1), ecall(), addi(a0, a0, 10), ecall(), addi(a0, a0, 100), jal(zero, 0)});
  enter_user(user);
  step(2);
  EXPECT_TRUE(trapped(TrapCause::kEcallFromU, user + 4, 0));
  step(5);
  EXPECT_EQ(hart.privilege(), Privilege::kUser);
  EXPECT_EQ(hart.pc, user + 8);
  step(2);
  EXPECT_TRUE(trapped(TrapCause::kEcallFromU, user + 12, 0));
  step(5 + 2);
  EXPECT_EQ(hart.privilege(), Privilege::kUser);
  EXPECT_EQ(hart.pc, user + 20);
  EXPECT_EQ(hart.x[a0], 111u);
  EXPECT_EQ(hart.x[a1], 2u);
  EXPECT_EQ(hart.exceptions(), 2u);
}

TEST_F(HartCsrTest, EbreakReportsItsPc) {
  std::uint64_t at = exec({nop(), ebreak()}) + 4;
  EXPECT_TRUE(trapped(TrapCause::kBreakpoint, at, at));
  at = run_in_user_mode(ebreak());
  EXPECT_TRUE(trapped(TrapCause::kBreakpoint, at, at));
}

TEST_F(HartCsrTest, VectoredModeSendsExceptionsToTheBase) {
  ASSERT_TRUE(hart.csr_write(kMtvec, kTrapVector | 1));
  std::uint64_t at = exec({ecall()});
  EXPECT_TRUE(trapped(TrapCause::kEcallFromM, at, 0));
  at = exec({0x0000000b});
  EXPECT_TRUE(trapped(TrapCause::kIllegalInstruction, at, 0x0000000b));
}

TEST_F(HartCsrTest, TrappingInstructionsDoNotRetire) {
  place(kTrapVector, {csrr(a1, kMinstret)});
  hart.x[t0] = kHole;
  for (std::uint32_t faulting : {ecall(), ebreak(), lw(a2, t0, 0), sw(a2, t0, 0), 0x0000000bu, csrr(a2, 0x7c0)}) {
    exec({csrr(a0, kMinstret), faulting});
    step();  // first handler instruction
    EXPECT_EQ(hart.x[a1] - hart.x[a0], 1u) << hart.decoder().disassemble(faulting, 0) << " counted as retired";
  }
  EXPECT_EQ(hart.exceptions(), 6u);
}

TEST_F(HartCsrTest, RecursiveTrapCallsTheFatalHandler) {
  ASSERT_TRUE(hart.csr_write(kMtvec, 0));  // reset value: no memory there
  std::uint64_t at = exec({0x0000000b});
  ASSERT_EQ(hart.pc, 0u);
  try {
    step();
    FAIL() << "no fatal error";
  } catch (const FatalError& error) {
    std::string message = error.what();
    EXPECT_NE(message.find("illegal instruction"), std::string::npos) << message;
    EXPECT_NE(message.find(hex64(at)), std::string::npos) << message;
    EXPECT_NE(message.find("0x0000000b"), std::string::npos) << message;
    EXPECT_NE(message.find("instruction access fault"), std::string::npos) << message;
  }
}

TEST_F(HartCsrTest, RecursiveTrapMessageNamesTheInstruction) {
  ASSERT_TRUE(hart.csr_write(kMtvec, kHole));
  std::uint32_t insn = csrr(a0, 0x7c0);
  std::uint64_t at = exec({nop(), insn}) + 4;
  try {
    step();
    FAIL() << "no fatal error";
  } catch (const FatalError& error) {
    std::string message = error.what();
    EXPECT_NE(message.find("illegal instruction at pc=" + hex64(at)), std::string::npos) << message;
    EXPECT_NE(message.find("csrrs a0, 0x7c0, zero"), std::string::npos) << message;
    EXPECT_NE(message.find(hex64(kHole)), std::string::npos) << message;
  }
}

TEST_F(HartCsrTest, RecursiveTrapDetectorLooksForRetiredInstructions) {
  // Handler: ld t1, 0(t2); t2 = kHole; jump back to the ld. The ld works the
  // first time, faults the second time (after the handler retired
  // instructions: not recursive), and faults again right at entry (recursive).
  place(kTrapVector, {ld(t1, t2, 0), lui(t2, kHole >> 12), jal(zero, -8)});
  hart.x[t2] = kDataBase;
  exec({ecall()});
  step(3);
  ASSERT_EQ(hart.pc, kTrapVector);
  EXPECT_NO_THROW(step());
  EXPECT_TRUE(trapped(TrapCause::kLoadAccessFault, kTrapVector, kHole));
  EXPECT_THROW(step(), FatalError);
}

TEST_F(HartCsrTest, RepeatedTrapsWithAWorkingHandlerAreNotRecursive) {
  install_skip_handler();
  std::uint64_t start = load({ecall(), ecall(), ebreak(), nop()});
  EXPECT_NO_THROW(step(3 * 5 + 1));
  EXPECT_EQ(hart.pc, start + 16);
  EXPECT_EQ(hart.exceptions(), 3u);
}

TEST_F(HartCsrTest, SemihostingHookHandlesTheMarkedEbreak) {
  int calls = 0;
  std::uint64_t seen_pc = 0;
  bool accept = true;
  hart.set_semihosting([&](Hart& h) {
    ++calls;
    seen_pc = h.pc;
    h.x[a0] = 0x600d;
    return accept;
  });
  const std::uint32_t prologue = slli(zero, zero, 0x1f), epilogue = srai(zero, zero, 7);
  std::uint64_t at = exec({prologue, ebreak(), epilogue, addi(a1, zero, 1)});
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen_pc, at + 4);
  EXPECT_EQ(hart.x[a0], 0x600du);
  EXPECT_EQ(hart.x[a1], 1u);
  EXPECT_EQ(hart.exceptions(), 0u);

  // A plain ebreak is a breakpoint.
  at = exec({ebreak()});
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(trapped(TrapCause::kBreakpoint, at, at));
  // The hook may decline.
  accept = false;
  at = load({prologue, ebreak(), epilogue}) + 4;
  step(2);
  EXPECT_EQ(calls, 2);
  EXPECT_TRUE(trapped(TrapCause::kBreakpoint, at, at));
}

// Served from M-mode only, within one 4 KiB page (the semihosting specification; QEMU's default
// as well): a U-mode program's sequence is a plain breakpoint, so it can neither print through
// the host nor end the simulation.
TEST_F(HartCsrTest, SemihostingIsServedFromMachineModeWithinOnePage) {
  int calls = 0;
  hart.set_semihosting([&](Hart&) {
    ++calls;
    return true;
  });
  const std::uint32_t prologue = slli(zero, zero, 0x1f), epilogue = srai(zero, zero, 7);
  const std::uint64_t user = load({prologue, ebreak(), epilogue, ecall()});
  enter_user(user);
  step(2);
  EXPECT_EQ(calls, 0);
  EXPECT_TRUE(trapped(TrapCause::kBreakpoint, user + 4, user + 4));
  EXPECT_EQ(hart.privilege(), Privilege::kMachine);

  // In M-mode, the sequence across a page boundary (the ebreak the page's last word) is a breakpoint.
  const std::uint64_t page_end = (user + 2 * 4096) & ~std::uint64_t{4095};  // beyond the code loaded
  place(page_end - 8, {prologue, ebreak(), epilogue});
  hart.pc = page_end - 8;
  step(2);
  EXPECT_EQ(calls, 0);
  EXPECT_TRUE(trapped(TrapCause::kBreakpoint, page_end - 4, page_end - 4));
}

}  // namespace
}  // namespace npuvp
