// Clint driven through a real TLM initiator socket, with SystemC time.
#include "core/interrupt.h"
#include "core/parameters.h"
#include "core/simulation.h"
#include "periph/clint.h"
#include "unit/tlm_test_initiator.h"

#include <gtest/gtest.h>
#include <systemc>
#include <tlm>

#include <vector>

namespace npuvp {
namespace {

using test_support::TestInitiator;
using sc_core::sc_time;
using sc_core::SC_NS;
using sc_core::SC_US;
using sc_core::SC_ZERO_TIME;

class LevelLog : public InterruptTarget {
 public:
  struct Change {
    unsigned line;
    bool level;
    sc_time time;
  };
  void set_interrupt(unsigned line, bool level) override {
    changes.push_back({line, level, sc_core::sc_time_stamp()});
  }
  std::vector<Change> changes;
};

constexpr std::uint64_t kMsip0 = 0x0, kMtimecmp0 = 0x4000, kMtime = 0xBFF8;
constexpr unsigned kMsipLine = 3, kMtipLine = 7;

TEST(Clint, MtimeFollowsSimulatedTimeAndLocalOffset) {
  Clint clint("clint");
  EXPECT_EQ(clint.harts.get(), 1u);
  EXPECT_EQ(clint.timebase.get(), 10e6);
  TestInitiator cpu("cpu", [&](TestInitiator& bus) {
    EXPECT_EQ(bus.read(kMtime, 8), 0u);
    sc_core::wait(1, SC_US);
    EXPECT_EQ(bus.read(kMtime, 8), 10u);  // 10 MHz
    // Temporal decoupling: the access happens at sc_time_stamp() + delay.
    EXPECT_EQ(bus.read(kMtime, 8, sc_time(250, SC_NS)), 12u);   // 1.25 us -> 12.5 ticks, floor
    EXPECT_EQ(bus.read(kMtime, 8, sc_time(299, SC_NS)), 12u);   // 1.299 us
    EXPECT_EQ(bus.read(kMtime, 8, sc_time(300, SC_NS)), 13u);   // 1.3 us exactly
    sc_core::wait(sc_time(1, sc_core::SC_SEC) - sc_time(1, SC_US));
    EXPECT_EQ(bus.read(kMtime, 8), 10000000u);
  });
  cpu.socket.bind(clint.socket);
  sc_core::sc_start();
  EXPECT_EQ(clint.mtime_at(sc_time(3.33, SC_US)), 33u);
  EXPECT_EQ(clint.mtime_at(sc_time(3600, sc_core::SC_SEC)), 36000000000u);
}

TEST(Clint, TimerInterruptAssertsExactlyAtTheDeadline) {
  Clint clint("clint");
  LevelLog hart;
  clint.mtip_irq[0].connect(hart, kMtipLine);
  TestInitiator cpu("cpu", [&](TestInitiator& bus) {
    EXPECT_EQ(bus.read(kMtimecmp0, 8), ~std::uint64_t{0});  // reset value: never
    sc_core::wait(1, SC_US);
    bus.write(kMtimecmp0, 123, 8);  // 12.3 us
    EXPECT_FALSE(clint.mtip_irq[0].level());
    sc_core::wait(sc_time(12.3, SC_US) - sc_time(1, SC_US) - sc_time(1, sc_core::SC_PS));
    EXPECT_FALSE(clint.mtip_irq[0].level());
    sc_core::wait(1, sc_core::SC_PS);
    // The timed event runs in this same time step; let it.
    sc_core::wait(SC_ZERO_TIME);
    EXPECT_TRUE(clint.mtip_irq[0].level());
  });
  cpu.socket.bind(clint.socket);
  sc_core::sc_start(100, SC_US);
  ASSERT_EQ(hart.changes.size(), 1u);
  EXPECT_EQ(hart.changes[0].line, kMtipLine);
  EXPECT_TRUE(hart.changes[0].level);
  EXPECT_EQ(hart.changes[0].time, sc_time(12.3, SC_US));
  EXPECT_EQ(clint.timer_interrupts.value(), 1u);
}

TEST(Clint, LaterMtimecmpWriteDeassertsImmediatelyAndReschedules) {
  Clint clint("clint");
  LevelLog hart;
  clint.mtip_irq[0].connect(hart, kMtipLine);
  TestInitiator cpu("cpu", [&](TestInitiator& bus) {
    bus.write(kMtimecmp0, 100, 8);  // 10 us
    sc_core::wait(12, SC_US);
    EXPECT_TRUE(clint.mtip_irq[0].level());
    bus.write(kMtimecmp0, 200, 8);  // 20 us: deasserts within the write
    EXPECT_FALSE(clint.mtip_irq[0].level());
    // A core running 5 us ahead (local time 17 us) sets a deadline already
    // passed at its time: MTIP asserts inside the write.
    bus.write(kMtimecmp0, 150, 8, sc_time(5, SC_US));
    EXPECT_TRUE(clint.mtip_irq[0].level());
    // ... and one in its future deasserts inside the write, although SystemC
    // time (12 us) is still before the old deadline.
    bus.write(kMtimecmp0, 300, 8, sc_time(5, SC_US));  // 30 us
    EXPECT_FALSE(clint.mtip_irq[0].level());
    sc_core::wait(50, SC_US);
  });
  cpu.socket.bind(clint.socket);
  sc_core::sc_start(100, SC_US);
  std::vector<std::pair<bool, sc_time>> seen;
  for (auto& change : hart.changes) seen.emplace_back(change.level, change.time);
  std::vector<std::pair<bool, sc_time>> expected = {{true, sc_time(10, SC_US)},
                                                     {false, sc_time(12, SC_US)},
                                                     {true, sc_time(12, SC_US)},
                                                     {false, sc_time(12, SC_US)},
                                                     {true, sc_time(30, SC_US)}};
  EXPECT_EQ(seen, expected);
}

TEST(Clint, ThirtyTwoBitHalvesOfMtimecmpAndMtime) {
  Clint clint("clint");
  TestInitiator cpu("cpu", [&](TestInitiator& bus) {
    // The RV32 idiom: low = all ones, high = new, low = new (no spurious interrupt).
    bus.write(kMtimecmp0, 0xFFFFFFFF, 4);
    bus.write(kMtimecmp0 + 4, 0x00000001, 4);
    EXPECT_FALSE(clint.mtip_irq[0].level());
    bus.write(kMtimecmp0, 0x00000010, 4);
    EXPECT_EQ(clint.mtimecmp(0), 0x100000010u);
    EXPECT_EQ(bus.read(kMtimecmp0, 4), 0x10u);
    EXPECT_EQ(bus.read(kMtimecmp0 + 4, 4), 0x1u);
    EXPECT_EQ(bus.read(kMtimecmp0, 8), 0x100000010u);

    // mtime halves: writing the high half keeps the low half counting.
    sc_core::wait(1, SC_US);                  // mtime = 10
    bus.write(kMtime + 4, 0x2, 4);            // mtime = 0x2_0000000A
    EXPECT_EQ(bus.read(kMtime, 8), 0x20000000Au);
    EXPECT_EQ(bus.read(kMtime + 4, 4), 0x2u);
    EXPECT_EQ(bus.read(kMtime, 4), 0xAu);
    // mtime is now past mtimecmp: the write asserted MTIP at once.
    EXPECT_TRUE(clint.mtip_irq[0].level());
    sc_core::wait(1, SC_US);
    EXPECT_EQ(bus.read(kMtime, 4, sc_time(100, SC_NS)), 0xAu + 11);

    // Misaligned or odd-sized accesses are errors.
    std::uint64_t value = 0;
    EXPECT_EQ(bus.access(tlm::TLM_READ_COMMAND, kMtimecmp0 + 4, &value, 8), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(bus.access(tlm::TLM_READ_COMMAND, kMtime, &value, 2), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(bus.access(tlm::TLM_WRITE_COMMAND, kMsip0, &value, 8), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    // Reserved space reads as zero.
    EXPECT_EQ(bus.read(0x8000, 4), 0u);
  });
  cpu.socket.bind(clint.socket);
  sc_core::sc_start(10, SC_US);
}

TEST(Clint, MtimeWriteMovesEveryDeadline) {
  Clint clint("clint", 2);
  LevelLog hart0, hart1;
  clint.mtip_irq[0].connect(hart0, kMtipLine);
  clint.mtip_irq[1].connect(hart1, kMtipLine);
  TestInitiator cpu("cpu", [&](TestInitiator& bus) {
    bus.write(kMtimecmp0, 1005, 8);
    bus.write(kMtimecmp0 + 8, 1020, 8);
    sc_core::wait(1, SC_US);
    bus.write(kMtime, 1000, 8);  // at 1 us
    EXPECT_EQ(bus.read(kMtime, 8), 1000u);
    sc_core::wait(20, SC_US);
  });
  cpu.socket.bind(clint.socket);
  sc_core::sc_start(50, SC_US);
  ASSERT_EQ(hart0.changes.size(), 1u);
  EXPECT_EQ(hart0.changes[0].time, sc_time(1.5, SC_US));
  ASSERT_EQ(hart1.changes.size(), 1u);
  EXPECT_EQ(hart1.changes[0].time, sc_time(3, SC_US));
  EXPECT_EQ(clint.mtime_at(sc_time(2, SC_US)), 1010u);
}

TEST(Clint, PerHartTimersAndSoftwareInterrupts) {
  ParameterRegistry::instance().set_override("clint.harts", "3", "test");
  Clint clint("clint");
  ASSERT_EQ(clint.msip_irq.size(), 3u);
  ASSERT_EQ(clint.mtip_irq.size(), 3u);
  LevelLog harts[3];
  for (unsigned h = 0; h < 3; ++h) {
    clint.msip_irq[h].connect(harts[h], kMsipLine);
    clint.mtip_irq[h].connect(harts[h], kMtipLine);
  }
  TestInitiator cpu("cpu", [&](TestInitiator& bus) {
    bus.write(kMtimecmp0 + 0, 50, 8);
    bus.write(kMtimecmp0 + 8, 30, 8);
    bus.write(kMsip0 + 8, 1, 4);  // hart 2
    EXPECT_TRUE(clint.msip_irq[2].level());
    EXPECT_FALSE(clint.msip_irq[0].level());
    EXPECT_EQ(bus.read(kMsip0 + 8, 4), 1u);
    EXPECT_EQ(bus.read(kMsip0 + 4, 4), 0u);
    sc_core::wait(1, SC_US);
    bus.write(kMsip0 + 8, 0xFFFFFFFE, 4);  // only bit 0 counts
    EXPECT_FALSE(clint.msip_irq[2].level());
    EXPECT_EQ(bus.read(kMsip0 + 8, 4), 0u);
    // Beyond the last hart: reserved.
    bus.write(kMsip0 + 12, 1, 4);
    EXPECT_EQ(bus.read(kMsip0 + 12, 4), 0u);
  });
  cpu.socket.bind(clint.socket);
  sc_core::sc_start(10, SC_US);
  ASSERT_EQ(harts[1].changes.size(), 1u);
  EXPECT_EQ(harts[1].changes[0].line, kMtipLine);
  EXPECT_EQ(harts[1].changes[0].time, sc_time(3, SC_US));
  ASSERT_EQ(harts[0].changes.size(), 1u);
  EXPECT_EQ(harts[0].changes[0].time, sc_time(5, SC_US));
  ASSERT_EQ(harts[2].changes.size(), 2u);
  EXPECT_EQ(harts[2].changes[0].line, kMsipLine);
  EXPECT_TRUE(harts[2].changes[0].level);
  EXPECT_EQ(harts[2].changes[0].time, SC_ZERO_TIME);
  EXPECT_FALSE(harts[2].changes[1].level);
  EXPECT_EQ(harts[2].changes[1].time, sc_time(1, SC_US));
  EXPECT_EQ(clint.software_interrupts.value(), 1u);
  EXPECT_EQ(clint.timer_interrupts.value(), 2u);
}

TEST(Clint, NonIntegralTimebase) {
  ParameterRegistry::instance().set_override("clint.timebase", "32.768kHz", "test");
  Clint clint("clint");
  LevelLog hart;
  clint.mtip_irq[0].connect(hart, kMtipLine);
  TestInitiator cpu("cpu", [&](TestInitiator& bus) { bus.write(kMtimecmp0, 32768, 8); });
  cpu.socket.bind(clint.socket);
  sc_core::sc_start(2, sc_core::SC_SEC);
  ASSERT_EQ(hart.changes.size(), 1u);
  EXPECT_EQ(hart.changes[0].time, sc_time(1, sc_core::SC_SEC));
  EXPECT_EQ(clint.mtime_at(sc_time(1, sc_core::SC_SEC) - sc_time(1, sc_core::SC_PS)), 32767u);
}

// Issue 23: a timebase so low that mtime hardly ticks is refused with the
// clocks' range (1 kHz .. 1 THz), like the cores' clocks.
TEST(Clint, TimebaseOutsideTheClockRangeIsAConfigError) {
  ParameterRegistry::instance().set_override("clint.timebase", "1e-30", "test");
  try {
    Clint clint("clint");
    FAIL() << "a timebase of 1e-30 Hz was accepted";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("parameter 'clint.timebase' = 1e-30 Hz is outside"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace npuvp
