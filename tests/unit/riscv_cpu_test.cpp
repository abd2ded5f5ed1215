// RiscvCpu in a small SystemC platform (router, RAM, CLINT, finisher):
// temporal decoupling, exact timer interrupts whatever the quantum, WFI sleep
// and the DMI fast path. Programs are hand-assembled (encodings from
// riscv64-unknown-elf-as, source in the comments).
#include "core/parameters.h"
#include "core/simulation.h"
#include "core/text.h"
#include "cpu/riscv_cpu.h"
#include "interconnect/address_router.h"
#include "mem/memory.h"
#include "periph/clint.h"
#include "periph/sim_finisher.h"

#include <gtest/gtest.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include <vector>

namespace npuvp {
namespace {

constexpr std::uint64_t kRam = 0x8000'0000, kResult = 0x8000'1000;

struct TestPlatform : sc_core::sc_module {
  AddressRouter bus{"bus"};
  RiscvCpu cpu{"cpu"};
  Memory ram{"ram", 1 << 20};
  Clint clint{"clint", 1};
  SimFinisher finisher{"finisher"};

  explicit TestPlatform(sc_core::sc_module_name name, const std::vector<std::uint32_t>& program) : sc_module(name) {
    cpu.socket.bind(bus.target_socket);
    bus.map(finisher.socket, 0x100000, SimFinisher::kWindowSize, "finisher");
    bus.map(clint.socket, 0x2000000, Clint::kWindowSize, "clint");
    bus.map(ram.socket, kRam, ram.size, "ram");
    clint.msip_irq.at(0).connect(cpu, 3);
    clint.mtip_irq.at(0).connect(cpu, 7);
    cpu.set_time_source([this](const sc_core::sc_time& time) { return clint.mtime_at(time); });
    ram.write_backdoor(0, program.data(), program.size() * 4);
  }
  std::uint64_t result() const {
    std::uint64_t value;
    std::memcpy(&value, const_cast<Memory&>(ram).data() + (kResult - kRam), 8);
    return value;
  }
};

// Sets mtimecmp = 1000 (100 us at 10 MHz), enables MTIE and MIE, spins in
// `j .`; the handler stores mcycle to 0x80001000 and writes the finisher.
const std::vector<std::uint32_t> kTimerProgram = {
    0x00000297,  // auipc t0, 0
    0x02828293,  // addi  t0, t0, 40      (handler)
    0x30529073,  // csrw  mtvec, t0
    0x02004337,  // lui   t1, 0x2004      (mtimecmp)
    0x3e800393,  // li    t2, 1000
    0x00733023,  // sd    t2, 0(t1)
    0x08000293,  // li    t0, 0x80        (MTIE)
    0x30429073,  // csrw  mie, t0
    0x30046073,  // csrsi mstatus, 8      (MIE)
    0x0000006f,  // loop: j loop
    0xb0002573,  // handler: csrr a0, mcycle
    0x00080337,  // lui   t1, 0x80
    0x0013031b,  // addiw t1, t1, 1
    0x00c31313,  // slli  t1, t1, 12      (0x80001000)
    0x00a33023,  // sd    a0, 0(t1)
    0x00100337,  // lui   t1, 0x100       (finisher)
    0x000053b7,  // lui   t2, 0x5
    0x5553839b,  // addiw t2, t2, 0x555   (0x5555: pass)
    0x00732023,  // sw    t2, 0(t1)
    0xfddff06f,  // j     handler
};

// Sets mtimecmp = 50000 (5 ms), enables MTIE but not MIE, executes WFI; after
// waking stores mcycle and passes.
const std::vector<std::uint32_t> kWfiProgram = {
    0x00000297,  // auipc t0, 0
    0x04c28293,  // addi  t0, t0, 76      (handler)
    0x30529073,  // csrw  mtvec, t0
    0x02004337,  // lui   t1, 0x2004
    0x0000c3b7,  // lui   t2, 0xc
    0x3503839b,  // addiw t2, t2, 848     (50000)
    0x00733023,  // sd    t2, 0(t1)
    0x08000293,  // li    t0, 0x80
    0x30429073,  // csrw  mie, t0
    0x10500073,  // wfi
    0xb0002573,  // csrr  a0, mcycle
    0x00080337,  // lui   t1, 0x80
    0x0013031b,  // addiw t1, t1, 1
    0x00c31313,  // slli  t1, t1, 12
    0x00a33023,  // sd    a0, 0(t1)
    0x00100337,  // lui   t1, 0x100
    0x000053b7,  // lui   t2, 0x5
    0x5553839b,  // addiw t2, t2, 0x555
    0x00732023,  // sw    t2, 0(t1)
    0x0000006f,  // handler: j handler
};

void run_with_quantum(const char* quantum, TestPlatform*& platform, const std::vector<std::uint32_t>& program) {
  auto& parameters = ParameterRegistry::instance();
  parameters.set_override("top.cpu.reset_pc", "0x80000000", "test");
  platform = new TestPlatform("top", program);  // SystemC owns module lifetime until exit
  tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_core::sc_time(*parse_duration_seconds(quantum), sc_core::SC_SEC));
  sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_SEC));
}

}  // namespace

class TimerPrecision : public ::testing::TestWithParam<const char*> {};

// The CLINT deadline is cycle 100000 (100 us at 1 GHz). The core stops its
// batch at the next scheduled event, so the interrupt is taken within a few
// cycles of it, whether the quantum is shorter or far longer.
TEST_P(TimerPrecision, InterruptIsTakenAtTheDeadlineWhateverTheQuantum) {
  TestPlatform* platform = nullptr;
  run_with_quantum(GetParam(), platform, kTimerProgram);
  ASSERT_TRUE(simulation().exit_requested()) << simulation().reason();
  std::uint64_t mcycle_in_handler = platform->result();
  EXPECT_GE(mcycle_in_handler, 100000u);
  EXPECT_LE(mcycle_in_handler, 100000u + 8);
  EXPECT_EQ(platform->cpu.hart().interrupts_taken(), 1u);
}
INSTANTIATE_TEST_SUITE_P(Quanta, TimerPrecision, ::testing::Values("1us", "10us", "1ms"));

TEST(RiscvCpu, DataAndFetchUseDmiAfterTheFirstAccess) {
  TestPlatform* platform = nullptr;
  run_with_quantum("10us", platform, kTimerProgram);
  const Hart& hart = platform->cpu.hart();
  EXPECT_GT(hart.retired(), 40000u);  // the spin loop ran ~50000 times
  // One fetch that asked for DMI, the mtimecmp and finisher writes.
  EXPECT_LE(hart.bus_accesses(), 4u);
}

TEST(RiscvCpu, WfiSleepsUntilTheTimerWithoutExecuting) {
  TestPlatform* platform = nullptr;
  run_with_quantum("10us", platform, kWfiProgram);
  ASSERT_TRUE(simulation().exit_requested()) << simulation().reason();
  const Hart& hart = platform->cpu.hart();
  // Woken at 5 ms = cycle 5,000,000; mcycle counted the sleep.
  EXPECT_GE(platform->result(), 5000000u);
  EXPECT_LE(platform->result(), 5000000u + 8);
  EXPECT_GT(hart.idle_cycles(), 4990000u);
  EXPECT_LT(hart.retired(), 30u);  // nothing executed while asleep
  EXPECT_EQ(hart.interrupts_taken(), 0u);  // MIE was clear: WFI woke without a trap
}

TEST(RiscvCpu, SimulatedTimeFollowsTheClockParameter) {
  ParameterRegistry::instance().set_override("top.cpu.clock", "250MHz", "test");
  TestPlatform* platform = nullptr;
  run_with_quantum("10us", platform, kWfiProgram);
  ASSERT_TRUE(simulation().exit_requested());
  // 5 ms at 250 MHz is 1.25 M cycles.
  EXPECT_GE(platform->result(), 1250000u);
  EXPECT_LE(platform->result(), 1250000u + 8);
}

}  // namespace npuvp
