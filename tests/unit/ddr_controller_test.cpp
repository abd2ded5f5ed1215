// DdrController through a real TLM initiator socket. Every expected time is
// worked out here by hand from the formulas in ddr_controller.h /
// docs/fabric.md ("DDR controller") and the LPDDR4-3200 defaults, never asked from the model.
#include "core/parameters.h"
#include "core/simulation.h"
#include "core/statistics.h"
#include "mem/ddr_controller.h"
#include "unit/tlm_test_initiator.h"

#include <gtest/gtest.h>
#include <systemc>
#include <tlm>

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace npuvp {
namespace {

using sc_core::sc_time;
using sc_core::SC_NS;
using sc_core::SC_PS;
using sc_core::SC_ZERO_TIME;
using test_support::TestInitiator;

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

// The documented defaults (LPDDR4-3200, x16 channels).
struct Lpddr4 {
  sc_time rcd{18, SC_NS};
  sc_time cl{17.5, SC_NS};
  sc_time cwl{8.75, SC_NS};
  sc_time rp{18, SC_NS};
  sc_time ras{42, SC_NS};
  // tBURST = burst_length / data_rate = 16 / 3200 MT/s = 5 ns.
  sc_time burst{5, SC_NS};
  // bus_width x burst_length = 2 B x 16.
  static constexpr std::uint64_t kBurstBytes = 32;
  // bus_width x data_rate x channels = 2 B x 3200 MT/s x 2 = 12.8 GB/s.
  static constexpr double kPeakGBps = 12.8;
};

// Offset of (channel, bank, row, column) under the default mapping:
// [5:0] column low, [6] channel, [11:7] column high, [14:12] bank, [..:15] row.
std::uint64_t at(unsigned channel, unsigned bank, std::uint64_t row, std::uint64_t column = 0) {
  return (row << 15) | (std::uint64_t{bank} << 12) | ((column >> 6) << 7) | (std::uint64_t{channel} << 6) |
         (column & 63);
}

double ns(const sc_time& time) { return time.to_seconds() * 1e9; }

struct Bench {
  TestInitiator cpu{"cpu"};
  DdrController ddr;
  explicit Bench(const char* name = "ddr") : ddr(name) {
    cpu.socket.bind(ddr.socket);
    sc_core::sc_start(SC_ZERO_TIME);
  }
  // One b_transport starting `start` after the current time; returns the
  // latency the target added to the delay.
  sc_time access(tlm::tlm_command command, std::uint64_t address, unsigned length, sc_time start) {
    std::vector<std::uint8_t> buffer(length, 0x5a);
    sc_time delay = start;
    EXPECT_EQ(cpu.access(command, address, buffer.data(), length, delay), tlm::TLM_OK_RESPONSE)
        << "access at 0x" << std::hex << address;
    return delay - start;
  }
  sc_time read(std::uint64_t address, unsigned length, sc_time start) {
    return access(tlm::TLM_READ_COMMAND, address, length, start);
  }
  sc_time write(std::uint64_t address, unsigned length, sc_time start) {
    return access(tlm::TLM_WRITE_COMMAND, address, length, start);
  }
};

nlohmann::json stat(const std::string& name) {
  const Statistic* statistic = StatisticsRegistry::instance().find(name);
  EXPECT_NE(statistic, nullptr) << name;
  return statistic ? statistic->to_json() : nlohmann::json();
}
std::uint64_t counter(const std::string& name) { return stat(name).get<std::uint64_t>(); }
double real(const std::string& name) { return stat(name).get<double>(); }

void set(const std::string& name, const std::string& value) {
  ParameterRegistry::instance().set_override(name, value, "test");
}

TEST(Ddr, DefaultParametersDescribeLpddr4_3200) {
  Bench bench;
  const Lpddr4 t;
  DdrController& ddr = bench.ddr;
  EXPECT_EQ(ddr.size.get(), kGiB);
  EXPECT_EQ(ddr.channels.get(), 2u);
  EXPECT_EQ(ddr.banks.get(), 8u);
  EXPECT_EQ(ddr.row_size.get(), 2048u);
  EXPECT_EQ(ddr.bus_width.get(), 2u);
  EXPECT_EQ(ddr.data_rate.get(), 3200u);
  EXPECT_EQ(ddr.burst_length.get(), 16u);
  EXPECT_EQ(ddr.channel_interleave.get(), 64u);
  EXPECT_EQ(ddr.tRCD.get(), t.rcd);
  EXPECT_EQ(ddr.tCL.get(), t.cl);
  EXPECT_EQ(ddr.tCWL.get(), t.cwl);
  EXPECT_EQ(ddr.tRP.get(), t.rp);
  EXPECT_EQ(ddr.tRAS.get(), t.ras);
  EXPECT_EQ(ddr.page_policy.get(), "open");
  EXPECT_TRUE(ddr.dmi.get());
  EXPECT_EQ(ddr.data_rate.unit(), "MT/s");
  EXPECT_EQ(ddr.row_size.unit(), "bytes");
  // Parameters are registered under the module's name.
  EXPECT_NE(ParameterRegistry::instance().find("ddr.tRCD"), nullptr);
  EXPECT_NE(ParameterRegistry::instance().find("ddr.page_policy"), nullptr);
}

TEST(Ddr, FirstAccessToAClosedBankActivatesTheRow) {
  Bench bench;
  const Lpddr4 t;
  const sc_time latency = bench.read(at(0, 0, 0), 32, SC_ZERO_TIME);
  EXPECT_EQ(latency, t.rcd + t.cl + t.burst);
  EXPECT_EQ(latency, sc_time(40.5, SC_NS));
  EXPECT_EQ(counter("ddr.row_misses"), 1u);
  EXPECT_EQ(counter("ddr.row_hits"), 0u);
  EXPECT_EQ(counter("ddr.bursts"), 1u);
}

TEST(Ddr, SecondAccessToTheOpenRowIsARowHit) {
  Bench bench;
  const Lpddr4 t;
  bench.read(at(0, 3, 7), 32, SC_ZERO_TIME);
  // Later, once the first is done: another burst of the same row.
  const sc_time latency = bench.read(at(0, 3, 7, 1024), 32, sc_time(100, SC_NS));
  EXPECT_EQ(latency, t.cl + t.burst);
  EXPECT_EQ(latency, sc_time(22.5, SC_NS));
  EXPECT_EQ(counter("ddr.row_hits"), 1u);
  EXPECT_EQ(counter("ddr.row_misses"), 1u);
}

TEST(Ddr, AnotherRowOfTheSameBankIsAConflict) {
  Bench bench;
  const Lpddr4 t;
  bench.read(at(1, 5, 0), 32, SC_ZERO_TIME);
  const sc_time conflict = bench.read(at(1, 5, 1), 32, sc_time(100, SC_NS));
  EXPECT_EQ(conflict, t.rp + t.rcd + t.cl + t.burst);
  EXPECT_EQ(conflict, sc_time(58.5, SC_NS));
  const sc_time hit = bench.read(at(1, 5, 1, 64), 32, sc_time(200, SC_NS));
  EXPECT_EQ(hit, t.cl + t.burst);
  EXPECT_EQ(conflict - hit, t.rp + t.rcd);
  EXPECT_EQ(conflict - hit, sc_time(36, SC_NS));
  EXPECT_EQ(counter("ddr.row_conflicts"), 1u);
  EXPECT_EQ(counter("ddr.row_misses"), 1u);
  EXPECT_EQ(counter("ddr.row_hits"), 1u);
}

TEST(Ddr, ConflictWaitsForTrasSinceTheActivate) {
  Bench bench;
  const Lpddr4 t;
  // Activated at 0, done at tRCD + tCL + tBURST = 40.5 ns < tRAS = 42 ns.
  const sc_time first_done = bench.read(at(0, 2, 0), 32, SC_ZERO_TIME);
  ASSERT_LT(first_done, t.ras);
  // A conflict right then may precharge only at tRAS.
  const sc_time latency = bench.read(at(0, 2, 9), 32, first_done);
  EXPECT_EQ(latency, (t.ras - first_done) + t.rp + t.rcd + t.cl + t.burst);
  EXPECT_EQ(latency, sc_time(60, SC_NS));
  // Another conflict long after its activate (at 42 + 18 = 60 ns) pays no tRAS wait.
  EXPECT_EQ(bench.read(at(0, 2, 3), 32, sc_time(1, sc_core::SC_US)), t.rp + t.rcd + t.cl + t.burst);
}

TEST(Ddr, ConflictWaitsForTheLastBurstOfTheOpenRow) {
  Bench bench;
  const Lpddr4 t;
  // 2 KiB from 0: 1 KiB of row 0 in bank 0 of each channel, 32 bursts per
  // channel streaming after one activate.
  const sc_time run = bench.read(0, 2048, SC_ZERO_TIME);
  EXPECT_EQ(run, t.rcd + t.cl + 32 * t.burst);
  // Row 1 of channel 0's bank 0, asked for at the same time: the precharge
  // follows the run's last column command (issued tCL before its data) after
  // tCCD = tBURST, i.e. at run - tBURST - tCL + tBURST = run - tCL.
  const sc_time conflict = bench.read(at(0, 0, 1), 32, SC_ZERO_TIME);
  EXPECT_EQ(conflict, (run - t.cl) + t.rp + t.rcd + t.cl + t.burst);
  EXPECT_EQ(conflict, sc_time(236.5, SC_NS));
}

TEST(Ddr, WritesUseTheWriteLatency) {
  Bench bench;
  const Lpddr4 t;
  EXPECT_EQ(bench.write(at(0, 0, 0), 32, SC_ZERO_TIME), t.rcd + t.cwl + t.burst);
  EXPECT_EQ(bench.write(at(0, 0, 0, 32), 32, sc_time(100, SC_NS)), t.cwl + t.burst);
  EXPECT_EQ(bench.write(at(0, 0, 4), 32, sc_time(200, SC_NS)), t.rp + t.rcd + t.cwl + t.burst);
  EXPECT_EQ(bench.write(at(0, 0, 4, 96), 32, sc_time(300, SC_NS)), sc_time(13.75, SC_NS));
  EXPECT_EQ(counter("ddr.writes"), 4u);
  EXPECT_EQ(counter("ddr.bytes_written"), 128u);
}

TEST(Ddr, ReadAfterWriteToTheOpenRowFollowsTheWriteColumn) {
  Bench bench;
  const Lpddr4 t;
  // The write: activate at 0, column at tRCD, data tCWL later.
  const sc_time write = bench.write(at(0, 1, 0), 32, SC_ZERO_TIME);
  EXPECT_EQ(write, t.rcd + t.cwl + t.burst);
  // A read of the row issued at the same time: its column command follows the
  // write's after tCCD = tBURST, and its data comes tCL after that, later
  // than the bus frees up.
  EXPECT_EQ(bench.read(at(0, 1, 0, 32), 32, SC_ZERO_TIME), t.rcd + t.burst + t.cl + t.burst);
  EXPECT_EQ(counter("ddr.row_hits"), 1u);
}

TEST(Ddr, BurstsOfOneAccessFollowEachOtherOnTheirChannel) {
  Bench bench;
  const Lpddr4 t;
  // A 64 B cache line is two bursts of one row: a miss, then a hit whose data
  // follows the first burst's on the bus.
  EXPECT_EQ(bench.read(at(0, 1, 0), 64, SC_ZERO_TIME), t.rcd + t.cl + 2 * t.burst);
  EXPECT_EQ(counter("ddr.row_misses"), 1u);
  EXPECT_EQ(counter("ddr.row_hits"), 1u);
  // 8 bytes straddling a burst boundary also take two bursts.
  EXPECT_EQ(bench.read(at(0, 2, 0, 28), 8, sc_time(100, SC_NS)), t.rcd + t.cl + 2 * t.burst);
  EXPECT_EQ(counter("ddr.bursts"), 4u);
}

TEST(Ddr, ChannelsTransferInParallel) {
  Bench bench;
  const Lpddr4 t;
  // 128 B from offset 0: 64 B on each channel, two bursts each, side by side.
  EXPECT_EQ(bench.read(0, 128, SC_ZERO_TIME), t.rcd + t.cl + 2 * t.burst);
  EXPECT_DOUBLE_EQ(real("ddr.channel0.busy_time"), ns(2 * t.burst));
  EXPECT_DOUBLE_EQ(real("ddr.channel1.busy_time"), ns(2 * t.burst));
  // 8 bytes straddling the channel boundary at 64: one burst on each channel.
  EXPECT_EQ(bench.read(at(0, 4, 0, 60), 8, sc_time(100, SC_NS)), t.rcd + t.cl + t.burst);
  EXPECT_EQ(counter("ddr.row_misses"), 4u);
  EXPECT_EQ(counter("ddr.bursts"), 6u);
}

TEST(Ddr, TransfersToDifferentBanksSerializeOnTheDataBus) {
  Bench bench;
  const Lpddr4 t;
  // Both banks activate at 0 and have data ready at tRCD + tCL; the second
  // waits for the first burst to leave channel 0's data bus.
  EXPECT_EQ(bench.read(at(0, 0, 0), 32, SC_ZERO_TIME), t.rcd + t.cl + t.burst);
  EXPECT_EQ(bench.read(at(0, 1, 0), 32, SC_ZERO_TIME), t.rcd + t.cl + 2 * t.burst);
  EXPECT_EQ(bench.read(at(0, 2, 0), 32, SC_ZERO_TIME), t.rcd + t.cl + 3 * t.burst);
  // Channel 1's bus is free: no queueing there.
  EXPECT_EQ(bench.read(at(1, 3, 0), 32, SC_ZERO_TIME), t.rcd + t.cl + t.burst);
  EXPECT_DOUBLE_EQ(real("ddr.channel0.busy_time"), ns(3 * t.burst));
  EXPECT_DOUBLE_EQ(real("ddr.channel1.busy_time"), ns(t.burst));
}

TEST(Ddr, SameBankAccessesQueueBehindTheColumnBeforeThem) {
  Bench bench;
  const Lpddr4 t;
  // Two bursts of one row issued together: the second column command follows
  // the first after tBURST, its data right after the first's.
  EXPECT_EQ(bench.read(at(1, 6, 2), 32, SC_ZERO_TIME), t.rcd + t.cl + t.burst);
  EXPECT_EQ(bench.read(at(1, 6, 2, 32), 32, SC_ZERO_TIME), t.rcd + t.cl + 2 * t.burst);
  EXPECT_EQ(counter("ddr.row_hits"), 1u);
}

TEST(Ddr, AddressMappingFollowsTheDocumentedBits) {
  Bench bench;
  // 0x1234: column low 0x34, channel bit 6 = 0, column high (0x1234 >> 7) & 31 = 4,
  // bank (0x1234 >> 12) & 7 = 1, row 0.
  DdrController::Location where = bench.ddr.decode(0x1234);
  EXPECT_EQ(where.channel, 0u);
  EXPECT_EQ(where.bank, 1u);
  EXPECT_EQ(where.row, 0u);
  EXPECT_EQ(where.column, (4u << 6) | 0x34u);
  // The last byte of 1 GiB: channel 1, bank 7, row 2^15 - 1, column 2047.
  where = bench.ddr.decode(kGiB - 1);
  EXPECT_EQ(where.channel, 1u);
  EXPECT_EQ(where.bank, 7u);
  EXPECT_EQ(where.row, (1u << 15) - 1);
  EXPECT_EQ(where.column, 2047u);
  for (unsigned channel = 0; channel < 2; ++channel) {
    for (unsigned bank = 0; bank < 8; bank += 3) {
      for (std::uint64_t row : {0ull, 1ull, 12345ull}) {
        for (std::uint64_t column : {0ull, 63ull, 64ull, 2047ull}) {
          where = bench.ddr.decode(at(channel, bank, row, column));
          EXPECT_EQ(where.channel, channel);
          EXPECT_EQ(where.bank, bank);
          EXPECT_EQ(where.row, row);
          EXPECT_EQ(where.column, column);
        }
      }
    }
  }
  // The timing agrees: 64 apart is the other channel (no bus sharing), 4 KiB
  // apart is the next bank of the same channel, 32 KiB apart the next row of
  // the same bank.
  const Lpddr4 t;
  bench.read(0, 32, SC_ZERO_TIME);
  EXPECT_EQ(bench.read(64, 32, SC_ZERO_TIME), t.rcd + t.cl + t.burst);
  EXPECT_EQ(bench.read(4096, 32, SC_ZERO_TIME), t.rcd + t.cl + 2 * t.burst);
  EXPECT_EQ(bench.read(32 * 1024, 32, sc_time(1, sc_core::SC_US)), t.rp + t.rcd + t.cl + t.burst);
}

TEST(Ddr, ChannelInterleaveIsConfigurable) {
  set("ddr.channel_interleave", "4KiB");
  Bench bench;
  // [11:0] column-low, [12] channel, then as before: 4 KiB blocks alternate.
  EXPECT_EQ(bench.ddr.decode(64).channel, 0u);
  EXPECT_EQ(bench.ddr.decode(4096).channel, 1u);
  EXPECT_EQ(bench.ddr.decode(4096).column, 0u);
  EXPECT_EQ(bench.ddr.decode(8192).channel, 0u);
  // Channel-local offset 4096 = row 0, bank 2 (two 2 KiB rows further).
  EXPECT_EQ(bench.ddr.decode(8192).bank, 2u);
  EXPECT_EQ(bench.ddr.decode(2048).bank, 1u);
  EXPECT_EQ(bench.ddr.decode(2048).channel, 0u);
}

// Reads of 64 B at 0, 64, 128, ... issued every `interval`; returns the time
// from the first start to the last data beat.
sc_time stream(Bench& bench, unsigned count, sc_time interval) {
  sc_time end = SC_ZERO_TIME;
  for (unsigned index = 0; index < count; ++index) {
    const sc_time start = index * interval;
    const sc_time done = start + bench.read(std::uint64_t{index} * 64, 64, start);
    if (done > end) end = done;
  }
  return end;
}

TEST(Ddr, SequentialStreamAcrossChannelsReachesThePeakBandwidth) {
  Bench bench;
  const Lpddr4 t;
  // 256 KiB in 64 B reads, one every 64 B / 12.8 GB/s = 5 ns: each channel gets
  // a line every 10 ns, exactly what its bus moves (two 5 ns bursts).
  constexpr unsigned kCount = 4096;
  const sc_time span = stream(bench, kCount, sc_time(5, SC_NS));
  // The first misses put each channel's queue tRCD behind; the first visit to
  // row 1 of a bank adds the precharge (tRP) minus what the queue already
  // absorbed; from then on every row change is hidden behind data. So the last
  // read completes a conflict latency with two bursts after it was issued.
  EXPECT_EQ(span, (kCount - 1) * sc_time(5, SC_NS) + t.rp + t.rcd + t.cl + 2 * t.burst);
  const double bytes = kCount * 64.0;
  const double achieved = bytes / ns(span);  // bytes per ns = GB/s
  EXPECT_GE(achieved, 0.95 * Lpddr4::kPeakGBps);
  EXPECT_LE(achieved, Lpddr4::kPeakGBps);
  EXPECT_DOUBLE_EQ(real("ddr.bandwidth"), achieved);
  EXPECT_DOUBLE_EQ(real("ddr.active_time"), ns(span));
  // Each channel carried 2048 lines = 4096 bursts of 5 ns.
  EXPECT_DOUBLE_EQ(real("ddr.channel0.busy_time"), 4096 * 5.0);
  EXPECT_DOUBLE_EQ(real("ddr.channel1.busy_time"), 4096 * 5.0);
  EXPECT_GE(real("ddr.channel0.utilization"), 0.95);
  EXPECT_GE(real("ddr.channel1.utilization"), 0.95);
  // 128 KiB per channel covers 8 rows of each of its 8 banks: row 0 is a miss,
  // rows 1..7 conflicts, every other burst a hit.
  EXPECT_EQ(counter("ddr.bursts"), 8192u);
  EXPECT_EQ(counter("ddr.row_misses"), 2u * 8);
  EXPECT_EQ(counter("ddr.row_conflicts"), 2u * 8 * 7);
  EXPECT_EQ(counter("ddr.row_hits"), 8192u - 16 - 112);
  EXPECT_DOUBLE_EQ(real("ddr.row_hit_rate"), (8192.0 - 128) / 8192);
}

TEST(Ddr, OneChannelCapsTheStreamAtItsOwnPeak) {
  // With 512 MiB blocks per channel the same stream stays on channel 0, whose
  // bus moves 2 B x 3200 MT/s = 6.4 GB/s: half the requests' rate.
  set("ddr.channel_interleave", "512MiB");
  Bench bench;
  constexpr unsigned kCount = 4096;
  const sc_time span = stream(bench, kCount, sc_time(5, SC_NS));
  const double achieved = kCount * 64.0 / ns(span);
  EXPECT_GE(achieved, 0.95 * 6.4);
  EXPECT_LE(achieved, 6.4);
  EXPECT_DOUBLE_EQ(real("ddr.channel1.busy_time"), 0.0);
  EXPECT_DOUBLE_EQ(real("ddr.channel0.busy_time"), 8192 * 5.0);
}

TEST(Ddr, StartTimeIsSimulationTimePlusDelay) {
  const Lpddr4 t;
  std::vector<sc_time> delays;
  TestInitiator cpu("cpu", [&](TestInitiator& self) {
    std::uint32_t value = 0;
    sc_time delay = SC_ZERO_TIME;
    self.access(tlm::TLM_READ_COMMAND, at(0, 0, 0), &value, 4, delay);  // miss at 0
    delays.push_back(delay);
    sc_core::wait(delay);  // now at the end of the first access
    delay = SC_ZERO_TIME;
    self.access(tlm::TLM_READ_COMMAND, at(0, 0, 0, 4), &value, 4, delay);  // hit, relative to now
    delays.push_back(delay);
    sc_core::wait(sc_time(1, sc_core::SC_US));
    delay = sc_time(3, SC_NS);  // local offset: starts 3 ns after now
    self.access(tlm::TLM_READ_COMMAND, at(0, 0, 1), &value, 4, delay);  // conflict
    delays.push_back(delay);
  });
  DdrController ddr("ddr");
  cpu.socket.bind(ddr.socket);
  sc_core::sc_start();
  ASSERT_EQ(delays.size(), 3u);
  EXPECT_EQ(delays[0], t.rcd + t.cl + t.burst);
  EXPECT_EQ(delays[1], t.cl + t.burst);
  EXPECT_EQ(delays[2], sc_time(3, SC_NS) + t.rp + t.rcd + t.cl + t.burst);
}

TEST(Ddr, ClosePagePrechargesAfterEachAccess) {
  set("ddr.page_policy", "close");
  Bench bench;
  const Lpddr4 t;
  // Activate at 0, column at tRCD = 18 ns, bank ready for a precharge after its
  // burst slot (23 ns) but tRAS holds it to 42 ns; ready again at 42 + tRP = 60 ns.
  EXPECT_EQ(bench.read(at(0, 0, 0), 32, SC_ZERO_TIME), t.rcd + t.cl + t.burst);
  const sc_time start(45, SC_NS);
  EXPECT_EQ(bench.read(at(0, 0, 0, 32), 32, start), (t.ras + t.rp - start) + t.rcd + t.cl + t.burst);
  // Long after: the same row again is a miss, not a hit.
  EXPECT_EQ(bench.read(at(0, 0, 0, 64), 32, sc_time(1, sc_core::SC_US)), t.rcd + t.cl + t.burst);
  // Another row of the bank is a miss too, never a conflict.
  EXPECT_EQ(bench.read(at(0, 0, 5), 32, sc_time(2, sc_core::SC_US)), t.rcd + t.cl + t.burst);
  // The bursts of one access share the row while it is open.
  EXPECT_EQ(bench.read(at(0, 3, 0), 64, sc_time(3, sc_core::SC_US)), t.rcd + t.cl + 2 * t.burst);
  EXPECT_EQ(counter("ddr.row_misses"), 5u);
  EXPECT_EQ(counter("ddr.row_hits"), 1u);
  EXPECT_EQ(counter("ddr.row_conflicts"), 0u);

  // One access of 32 KiB + 64 B from 1 MiB: channel 0 gets row 32 of its 8
  // banks and then row 33 of bank 0, channel 1 row 32 of its 8 banks. Each row
  // is closed once the access moves on, so row 33 finds bank 0 closed.
  const sc_time latency = bench.read(std::uint64_t{1} << 20, 32 * 1024 + 64, sc_time(4, sc_core::SC_US));
  EXPECT_EQ(counter("ddr.row_misses"), 5u + 9 + 8);
  EXPECT_EQ(counter("ddr.row_conflicts"), 0u);
  // Channel 0 moves 16 KiB + 64 B = 514 bursts back to back after the first
  // activate; every later activate happens while earlier data is on the bus.
  EXPECT_EQ(latency, t.rcd + t.cl + 514 * t.burst);
}

TEST(Ddr, TimingsAndGeometryAreParameters) {
  // A DDR4-2400-like x64 channel: tBURST = 8 / 2400 MT/s = 3.333 ns (3333 ps
  // at the 1 ps time resolution), 64 B bursts.
  set("ddr4.channels", "1");
  set("ddr4.bus_width", "8");
  set("ddr4.burst_length", "8");
  set("ddr4.data_rate", "2400");
  set("ddr4.tRCD", "15ns");
  set("ddr4.tCL", "16.25ns");
  set("ddr4.tRP", "15ns");
  set("ddr4.tRAS", "35ns");
  Bench bench("ddr4");
  const sc_time burst(3333, SC_PS);
  const sc_time rcd(15, SC_NS), cl(16.25, SC_NS), rp(15, SC_NS);
  // A 128 B read is two 64 B bursts of one row.
  EXPECT_EQ(bench.read(0, 128, SC_ZERO_TIME), rcd + cl + 2 * burst);
  EXPECT_EQ(counter("ddr4.bursts"), 2u);
  // Rows of 2 KiB, 8 banks, one channel: 16 KiB further is row 1 of bank 0.
  EXPECT_EQ(bench.read(16 * 1024, 64, sc_time(1, sc_core::SC_US)), rp + rcd + cl + burst);
  // Timings are read at every access.
  bench.ddr.tCL.set(sc_time(20, SC_NS));
  EXPECT_EQ(bench.read(16 * 1024 + 64, 64, sc_time(2, sc_core::SC_US)), sc_time(20, SC_NS) + burst);
  tlm::tlm_dmi dmi;
  ASSERT_TRUE(bench.cpu.get_dmi(0, dmi));
  EXPECT_EQ(dmi.get_read_latency(), sc_time(20, SC_NS) + burst);
}

TEST(Ddr, DmiCoversTheWholeMemoryWithRowHitLatencies) {
  Bench bench;
  const Lpddr4 t;
  tlm::tlm_dmi dmi;
  ASSERT_TRUE(bench.cpu.get_dmi(0x1234, dmi));
  EXPECT_EQ(dmi.get_dmi_ptr(), bench.ddr.data());
  EXPECT_EQ(dmi.get_start_address(), 0u);
  EXPECT_EQ(dmi.get_end_address(), kGiB - 1);
  EXPECT_TRUE(dmi.is_read_write_allowed());
  EXPECT_EQ(dmi.get_read_latency(), t.cl + t.burst);
  EXPECT_EQ(dmi.get_read_latency(), sc_time(22.5, SC_NS));
  EXPECT_EQ(dmi.get_write_latency(), t.cwl + t.burst);
  EXPECT_EQ(dmi.get_write_latency(), sc_time(13.75, SC_NS));

  // The pointer is the memory, both ways.
  std::uint64_t value = 0x1122334455667788ull;
  std::memcpy(dmi.get_dmi_ptr() + 0x200, &value, 8);
  EXPECT_EQ(bench.cpu.read64(0x200), value);
  bench.cpu.write32(0x300, 0xcafef00d);
  std::uint32_t through_dmi = 0;
  std::memcpy(&through_dmi, dmi.get_dmi_ptr() + 0x300, 4);
  EXPECT_EQ(through_dmi, 0xcafef00du);
  EXPECT_TRUE(bench.cpu.dmi_allowed());
}

TEST(Ddr, DmiCanBeTurnedOffSoEveryAccessIsTimed) {
  set("ddr.dmi", "false");
  Bench bench;
  tlm::tlm_dmi dmi;
  EXPECT_FALSE(bench.cpu.get_dmi(0x1000, dmi));
  EXPECT_FALSE(dmi.is_read_allowed());
  EXPECT_EQ(dmi.get_start_address(), 0u);
  EXPECT_EQ(dmi.get_end_address(), kGiB - 1);
  bench.cpu.read64(0);
  EXPECT_FALSE(bench.cpu.dmi_allowed());
}

TEST(Ddr, DebugTransportReadsWhatBTransportWroteWithoutTiming) {
  Bench bench;
  const Lpddr4 t;
  std::array<std::uint8_t, 48> out{};
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::uint8_t>(0x30 + i);
  sc_time delay = SC_ZERO_TIME;
  ASSERT_EQ(bench.cpu.access(tlm::TLM_WRITE_COMMAND, at(1, 2, 3, 40), out.data(), 48, delay), tlm::TLM_OK_RESPONSE);
  std::array<std::uint8_t, 48> in{};
  EXPECT_EQ(bench.cpu.debug_read(at(1, 2, 3, 40), in.data(), 48), 48u);
  EXPECT_EQ(in, out);
  EXPECT_EQ(counter("ddr.reads"), 0u);
  EXPECT_EQ(counter("ddr.writes"), 1u);
  const std::uint64_t bursts = counter("ddr.bursts");

  // Debug accesses leave the banks alone: a debug write to another row of
  // bank 2 does not close row 3, which still hits.
  std::uint32_t word = 0xabcdef01;
  EXPECT_EQ(bench.cpu.debug_write(at(1, 2, 9), &word, 4), 4u);
  EXPECT_EQ(bench.read(at(1, 2, 3), 32, sc_time(1, sc_core::SC_US)), t.cl + t.burst);
  EXPECT_EQ(counter("ddr.bursts"), bursts + 1);
  EXPECT_EQ(bench.ddr.data()[at(1, 2, 9)], 0x01);

  // Clipped at the end of the memory.
  EXPECT_EQ(bench.cpu.debug_read(kGiB - 4, in.data(), 16), 4u);
  EXPECT_EQ(bench.cpu.debug_read(kGiB, in.data(), 16), 0u);
}

TEST(Ddr, BackdoorWritesAreSeenByTransactions) {
  Bench bench;
  const char text[] = "kernel image";
  EXPECT_TRUE(bench.ddr.write_backdoor(0x4000, text, sizeof text));
  char back[sizeof text] = {};
  sc_time delay = SC_ZERO_TIME;
  EXPECT_EQ(bench.cpu.access(tlm::TLM_READ_COMMAND, 0x4000, back, sizeof back, delay), tlm::TLM_OK_RESPONSE);
  EXPECT_STREQ(back, "kernel image");
  std::uint32_t word = 0x12345678;
  EXPECT_TRUE(bench.ddr.write_backdoor(kGiB - 4, &word, 4));
  EXPECT_FALSE(bench.ddr.write_backdoor(kGiB - 3, &word, 4));
  EXPECT_FALSE(bench.ddr.write_backdoor(8, &word, ~std::size_t{0}));
  EXPECT_EQ(bench.cpu.read32(kGiB - 4), 0x12345678u);
  EXPECT_EQ(bench.cpu.read64(kGiB / 2), 0u);  // untouched memory reads zero
  EXPECT_EQ(counter("ddr.writes"), 0u);
}

TEST(Ddr, BadAccessesAreErrorsThatTakeNoTime) {
  Bench bench;
  std::uint64_t value = 0;
  sc_time delay(7, SC_NS);
  EXPECT_EQ(bench.cpu.access(tlm::TLM_READ_COMMAND, kGiB, &value, 8, delay), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(bench.cpu.access(tlm::TLM_WRITE_COMMAND, kGiB - 4, &value, 8, delay), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(bench.cpu.access(tlm::TLM_READ_COMMAND, ~0ull - 3, &value, 8, delay), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(delay, sc_time(7, SC_NS));

  std::uint32_t word = 0xffffffff;
  unsigned char enables[4] = {0xff, 0, 0xff, 0};
  tlm::tlm_generic_payload payload;
  payload.set_command(tlm::TLM_WRITE_COMMAND);
  payload.set_address(0);
  payload.set_data_ptr(reinterpret_cast<unsigned char*>(&word));
  payload.set_data_length(4);
  payload.set_streaming_width(4);
  payload.set_byte_enable_ptr(enables);
  payload.set_byte_enable_length(4);
  bench.cpu.socket->b_transport(payload, delay);
  EXPECT_EQ(payload.get_response_status(), tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
  EXPECT_EQ(delay, sc_time(7, SC_NS));
  EXPECT_EQ(counter("ddr.reads"), 0u);
  EXPECT_EQ(counter("ddr.writes"), 0u);
  EXPECT_EQ(counter("ddr.bursts"), 0u);
  EXPECT_EQ(bench.cpu.read64(0), 0u);
}

TEST(Ddr, StatisticsSummariseTheTraffic) {
  Bench bench;
  // Before any traffic the derived values are zero, not NaN.
  EXPECT_DOUBLE_EQ(real("ddr.row_hit_rate"), 0.0);
  EXPECT_DOUBLE_EQ(real("ddr.bandwidth"), 0.0);
  EXPECT_DOUBLE_EQ(real("ddr.channel0.utilization"), 0.0);

  // Calls need not come in start order (temporal decoupling): the first one
  // starts last.
  bench.read(at(1, 7, 0), 16, sc_time(300, SC_NS));      // miss on channel 1, 40.5 ns, ends 340.5 ns
  bench.read(at(0, 0, 0), 64, SC_ZERO_TIME);             // miss + hit, 45.5 ns
  bench.write(at(0, 0, 0, 64), 8, sc_time(100, SC_NS));  // hit, 8.75 + 5 = 13.75 ns
  bench.read(at(0, 0, 1), 32, sc_time(200, SC_NS));      // conflict, 58.5 ns
  EXPECT_EQ(counter("ddr.reads"), 3u);
  EXPECT_EQ(counter("ddr.writes"), 1u);
  EXPECT_EQ(counter("ddr.bytes_read"), 64u + 32 + 16);
  EXPECT_EQ(counter("ddr.bytes_written"), 8u);
  EXPECT_EQ(counter("ddr.bursts"), 5u);
  EXPECT_EQ(counter("ddr.row_hits"), 2u);
  EXPECT_EQ(counter("ddr.row_misses"), 2u);
  EXPECT_EQ(counter("ddr.row_conflicts"), 1u);
  EXPECT_DOUBLE_EQ(real("ddr.row_hit_rate"), 2.0 / 5);

  // Latencies in ns, rounded: 45.5 -> 46, 13.75 -> 14, 58.5 -> 59, 40.5 -> 41.
  const nlohmann::json latency = stat("ddr.latency");
  EXPECT_EQ(latency["count"].get<std::uint64_t>(), 4u);
  EXPECT_EQ(latency["min"].get<std::uint64_t>(), 14u);
  EXPECT_EQ(latency["max"].get<std::uint64_t>(), 59u);
  EXPECT_DOUBLE_EQ(latency["mean"].get<double>(), (46.0 + 14 + 59 + 41) / 4);

  // Busy: channel 0 carried 4 bursts, channel 1 one; active from 0 to 340.5 ns.
  EXPECT_DOUBLE_EQ(real("ddr.channel0.busy_time"), 20.0);
  EXPECT_DOUBLE_EQ(real("ddr.channel1.busy_time"), 5.0);
  EXPECT_DOUBLE_EQ(real("ddr.active_time"), 340.5);
  EXPECT_DOUBLE_EQ(real("ddr.channel0.utilization"), 20.0 / 340.5);
  EXPECT_DOUBLE_EQ(real("ddr.channel1.utilization"), 5.0 / 340.5);
  EXPECT_DOUBLE_EQ(real("ddr.bandwidth"), (64.0 + 32 + 16 + 8) / 340.5);
}

// Constructs a controller named `name` after the given overrides and returns
// the ConfigError message ("" when construction succeeded).
std::string config_error(const std::string& name, const std::vector<std::pair<std::string, std::string>>& values) {
  for (const auto& [parameter, value] : values) set(name + "." + parameter, value);
  try {
    DdrController ddr(name.c_str());
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

void expect_error_naming(const std::string& message, const std::string& parameter) {
  EXPECT_FALSE(message.empty()) << "no error; expected one naming " << parameter;
  EXPECT_NE(message.find(parameter), std::string::npos) << message;
}

TEST(Ddr, ZeroGeometryIsAConfigError) {
  expect_error_naming(config_error("z0", {{"size", "0"}}), "z0.size");
  expect_error_naming(config_error("z1", {{"channels", "0"}}), "z1.channels");
  expect_error_naming(config_error("z2", {{"banks", "0"}}), "z2.banks");
  expect_error_naming(config_error("z3", {{"row_size", "0"}}), "z3.row_size");
  expect_error_naming(config_error("z4", {{"bus_width", "0"}}), "z4.bus_width");
  expect_error_naming(config_error("z5", {{"data_rate", "0"}}), "z5.data_rate");
  expect_error_naming(config_error("z6", {{"burst_length", "0"}}), "z6.burst_length");
  expect_error_naming(config_error("z7", {{"channel_interleave", "0"}}), "z7.channel_interleave");
  // The controls: valid neighbours construct.
  EXPECT_EQ(config_error("ok0", {{"channels", "1"}, {"banks", "16"}, {"data_rate", "4266"}}), "");
}

TEST(Ddr, NonPowerOfTwoGeometryIsAConfigError) {
  expect_error_naming(config_error("p1", {{"channels", "3"}}), "p1.channels");
  expect_error_naming(config_error("p2", {{"banks", "6"}}), "p2.banks");
  expect_error_naming(config_error("p3", {{"row_size", "1000"}}), "p3.row_size");
  expect_error_naming(config_error("p4", {{"bus_width", "3"}}), "p4.bus_width");
  expect_error_naming(config_error("p5", {{"burst_length", "12"}}), "p5.burst_length");
  expect_error_naming(config_error("p6", {{"channel_interleave", "96"}}), "p6.channel_interleave");
  EXPECT_NE(config_error("p7", {{"banks", "12"}}).find("power of two"), std::string::npos);
  // A non-power-of-two size is fine: the last rows are just partial.
  EXPECT_EQ(config_error("ok1", {{"size", "3MiB"}}), "");
}

TEST(Ddr, RowsAndInterleaveBlocksMustHoldABurst) {
  // Bursts are 32 B by default.
  expect_error_naming(config_error("b1", {{"channel_interleave", "16"}}), "b1.channel_interleave");
  expect_error_naming(config_error("b2", {{"row_size", "16"}}), "b2.row_size");
  // x32 channels with BL16: 64 B bursts, more than the 32 B interleave asked for.
  expect_error_naming(config_error("b3", {{"bus_width", "4"}, {"channel_interleave", "32"}}), "b3.channel_interleave");
  EXPECT_EQ(config_error("ok2", {{"channel_interleave", "32"}, {"row_size", "32"}}), "");
}

TEST(Ddr, UnknownPagePolicyIsAConfigError) {
  expect_error_naming(config_error("pp", {{"page_policy", "lazy"}}), "pp.page_policy");
}

}  // namespace
}  // namespace npuvp
