// TrafficGenerator against a timed target written here: a fixed latency plus a
// fixed bandwidth (a busy-until reservation: each transaction occupies the
// target for `transfer` after the previous one), so every expected time is
// analytic. Address patterns, read/write mix, outstanding limits and the
// bandwidth they reach, start time, temporal decoupling, errors, parameters,
// statistics, and traffic through the real AddressRouter into a Memory.
#include "core/parameters.h"
#include "core/simulation.h"
#include "core/statistics.h"
#include "core/text.h"
#include "interconnect/address_router.h"
#include "interconnect/traffic_generator.h"
#include "mem/memory.h"

#include <gtest/gtest.h>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace npuvp {
namespace {

using sc_core::sc_time;
using sc_core::SC_MS;
using sc_core::SC_NS;
using sc_core::SC_US;
using sc_core::SC_ZERO_TIME;

#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "'" << (text) << "' lacks '" << (part) << "'"

const sc_time kLatency(100, SC_NS);
const sc_time kTransfer(4, SC_NS);  // 64 B per 4 ns: 16 GB/s
constexpr std::uint64_t kSize = 64;

class TimedTarget : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<TimedTarget> socket{"socket"};
  struct Access {
    std::uint64_t address;
    bool read;
    sc_time arrival;  // SystemC time + the initiator's offset
    sc_time stamp;    // SystemC time of the call
  };
  std::vector<Access> accesses;
  sc_time max_offset;                    // largest incoming delay
  std::optional<std::uint64_t> error_at;  // answer TLM_ADDRESS_ERROR_RESPONSE here
  std::uint64_t bad_write_data = 0;      // writes whose words do not hold their addresses
  // Accesses to this address take `slow_latency` instead of the latency.
  std::optional<std::uint64_t> slow_at;
  sc_time slow_latency;

  TimedTarget(sc_core::sc_module_name name, sc_time latency, sc_time transfer)
      : sc_module(name), latency_(latency), transfer_(transfer) {
    socket.register_b_transport(this, &TimedTarget::b_transport);
  }

  std::vector<std::uint64_t> addresses() const {
    std::vector<std::uint64_t> result;
    for (const auto& access : accesses) result.push_back(access.address);
    return result;
  }
  std::vector<bool> reads() const {
    std::vector<bool> result;
    for (const auto& access : accesses) result.push_back(access.read);
    return result;
  }

 private:
  void b_transport(tlm::tlm_generic_payload& payload, sc_time& delay) {
    sc_time now = sc_core::sc_time_stamp();
    std::uint64_t address = payload.get_address();
    accesses.push_back({address, payload.is_read(), now + delay, now});
    max_offset = std::max(max_offset, delay);
    if (error_at && *error_at == address) {
      payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    unsigned length = payload.get_data_length();
    unsigned char* data = payload.get_data_ptr();
    if (payload.is_read()) {
      std::memset(data, 0xa5, length);
    } else {
      for (unsigned i = 0; i < length; i += 8) {
        std::uint64_t word = 0, expected = address + i;
        unsigned bytes = std::min(8u, length - i);
        std::memcpy(&word, data + i, bytes);
        if (bytes < 8) expected &= (std::uint64_t{1} << (8 * bytes)) - 1;
        if (word != expected) ++bad_write_data;
      }
    }
    sc_time start = std::max(now + delay, busy_until_);
    busy_until_ = start + transfer_;
    delay = busy_until_ + (slow_at && *slow_at == address ? slow_latency : latency_) - now;
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
  }

  sc_time latency_, transfer_, busy_until_;
};

using Settings = std::vector<std::pair<std::string, std::string>>;

// Applies `settings` as overrides of <name>.<parameter>; returns `name`.
const char* configured(const char* name, const Settings& settings) {
  for (const auto& [parameter, value] : settings)
    ParameterRegistry::instance().set_override(std::string(name) + "." + parameter, value, "test");
  return name;
}

// A generator bound to its own timed target.
struct Rig {
  TimedTarget target;
  TrafficGenerator generator;
  Rig(const char* name, const Settings& settings, sc_time latency = kLatency, sc_time transfer = kTransfer)
      : target((std::string(name) + "_target").c_str(), latency, transfer),
        generator(configured(name, settings)) {
    generator.socket.bind(target.socket);
  }
};

// Every setting a test made must name a real parameter, then the run starts.
void start() {
  ParameterRegistry::instance().check_all_overrides_used();
  sc_core::sc_start();
}

std::vector<std::uint64_t> offsets(std::uint64_t base, const std::vector<std::uint64_t>& addresses) {
  std::vector<std::uint64_t> result;
  for (auto address : addresses) result.push_back(address - base);
  return result;
}

TEST(TrafficGenerator, SequentialAddressesWrapAtTheRangeEnd) {
  tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_time(1, SC_US));
  Rig whole("whole", {{"base", "0x1000"}, {"range", "256"}, {"count", "10"}, {"transaction_size", "64"}});
  // 200 bytes hold three whole 64-byte transactions; the tail is never touched.
  Rig partial("partial", {{"base", "0x8000"}, {"range", "200"}, {"count", "7"}, {"transaction_size", "64"}});
  start();
  EXPECT_EQ(offsets(0x1000, whole.target.addresses()),
            (std::vector<std::uint64_t>{0, 64, 128, 192, 0, 64, 128, 192, 0, 64}));
  EXPECT_EQ(offsets(0x8000, partial.target.addresses()), (std::vector<std::uint64_t>{0, 64, 128, 0, 64, 128, 0}));
  EXPECT_TRUE(whole.generator.finished());
  EXPECT_TRUE(partial.generator.finished());
}

TEST(TrafficGenerator, StridedAddressesWrapAtTheRangeEnd) {
  tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_time(1, SC_US));
  // Positions 0, 300, 600, 900 (900 + 64 <= 1000); 1200 would leave the range.
  Rig rig("strided", {{"pattern", "strided"}, {"base", "0x40000"}, {"range", "1000"}, {"stride", "300"},
                      {"transaction_size", "64"}, {"count", "9"}});
  // A stride smaller than the transaction overlaps them: 0, 16, 32, 48 (48 + 64 <= 112).
  Rig overlapping("overlapping", {{"pattern", "strided"}, {"base", "0"}, {"range", "112"}, {"stride", "16"},
                                  {"transaction_size", "64"}, {"count", "6"}});
  start();
  EXPECT_EQ(offsets(0x40000, rig.target.addresses()),
            (std::vector<std::uint64_t>{0, 300, 600, 900, 0, 300, 600, 900, 0}));
  EXPECT_EQ(overlapping.target.addresses(), (std::vector<std::uint64_t>{0, 16, 32, 48, 0, 16}));
}

TEST(TrafficGenerator, RandomAddressesStayAlignedInsideTheRangeAndFollowTheSeed) {
  tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_time(1, SC_US));
  const Settings common{{"pattern", "random"}, {"base", "0x80000000"}, {"range", "1056"},  // 16 slots + a tail
                        {"transaction_size", "64"}, {"count", "2000"}, {"outstanding", "4"}};
  auto with = [&](Settings extra) {
    Settings all = common;
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  };
  Rig first("first", with({{"seed", "7"}}));
  Rig again("again", with({{"seed", "7"}}));
  Rig other("other", with({{"seed", "8"}}));
  Rig reads_only("reads_only", with({{"seed", "7"}, {"read_fraction", "1"}}));
  start();

  const auto addresses = first.target.addresses();
  ASSERT_EQ(addresses.size(), 2000u);
  std::map<std::uint64_t, int> hits;
  for (auto address : addresses) {
    ASSERT_GE(address, 0x80000000u);
    ASSERT_LE(address + kSize, 0x80000000u + 1056) << hex(address);
    ASSERT_EQ((address - 0x80000000u) % kSize, 0u) << hex(address);
    ++hits[address];
  }
  // Uniform over all 16 slots: 125 expected each.
  EXPECT_EQ(hits.size(), 16u);
  for (const auto& [address, n] : hits) {
    EXPECT_GT(n, 70) << hex(address);
    EXPECT_LT(n, 180) << hex(address);
  }
  // Consecutive addresses are not a sequential walk.
  int sequential_steps = 0;
  for (std::size_t i = 1; i < addresses.size(); ++i) sequential_steps += addresses[i] == addresses[i - 1] + kSize;
  EXPECT_LT(sequential_steps, 300);

  EXPECT_EQ(again.target.addresses(), addresses) << "same seed, same addresses";
  EXPECT_EQ(again.target.reads(), first.target.reads()) << "same seed, same reads and writes";
  EXPECT_NE(other.target.addresses(), addresses) << "another seed, other addresses";
  EXPECT_NE(other.target.reads(), first.target.reads()) << "another seed, other reads and writes";
  EXPECT_EQ(reads_only.target.addresses(), addresses) << "the address sequence does not depend on read_fraction";
}

TEST(TrafficGenerator, ReadFractionDecidesReadsAndWrites) {
  tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_time(1, SC_US));
  const Settings common{{"count", "10000"}, {"transaction_size", "32"}, {"range", "4096"}, {"outstanding", "8"}};
  auto with = [&](const char* fraction) {
    Settings all = common;
    all.emplace_back("read_fraction", fraction);
    return all;
  };
  Rig writes("writes", with("0"));
  Rig reads("reads", with("1"));
  Rig half("half", with("0.5"));
  Rig quarter("quarter", with("0.25"));
  start();

  EXPECT_EQ(writes.generator.reads(), 0u);
  EXPECT_EQ(writes.generator.writes(), 10000u);
  EXPECT_EQ(writes.generator.bytes_written(), 320000u);
  EXPECT_EQ(writes.generator.bytes_read(), 0u);
  EXPECT_EQ(reads.generator.reads(), 10000u);
  EXPECT_EQ(reads.generator.writes(), 0u);
  EXPECT_EQ(reads.generator.bytes_read(), 320000u);
  EXPECT_EQ(reads.generator.bytes_written(), 0u);
  // Binomial, n = 10000: standard deviations of 50 and 43.
  EXPECT_EQ(half.generator.reads() + half.generator.writes(), 10000u);
  EXPECT_NEAR(static_cast<double>(half.generator.reads()), 5000, 250);
  EXPECT_EQ(half.generator.bytes_read(), half.generator.reads() * 32);
  EXPECT_EQ(half.generator.bytes_written(), half.generator.writes() * 32);
  EXPECT_NEAR(static_cast<double>(quarter.generator.reads()), 2500, 220);
  // The counts agree with what the target saw.
  auto target_reads = half.target.reads();
  EXPECT_EQ(static_cast<std::uint64_t>(std::count(target_reads.begin(), target_reads.end(), true)),
            half.generator.reads());
  EXPECT_EQ(half.generator.transactions(), 10000u);
}

TEST(TrafficGenerator, WrittenWordsHoldTheirOwnAddresses) {
  tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_time(1, SC_US));
  Rig whole("whole", {{"read_fraction", "0"}, {"count", "100"}, {"range", "4096"}, {"transaction_size", "64"}});
  // 20 bytes: two whole words and a 4-byte tail; unaligned bases.
  Rig odd("odd", {{"read_fraction", "0"}, {"count", "100"}, {"base", "0x1003"}, {"range", "1000"},
                  {"transaction_size", "20"}, {"pattern", "random"}});
  start();
  EXPECT_EQ(whole.target.accesses.size(), 100u);
  EXPECT_EQ(whole.target.bad_write_data, 0u);
  EXPECT_EQ(odd.target.accesses.size(), 100u);
  EXPECT_EQ(odd.target.bad_write_data, 0u);
}

TEST(TrafficGenerator, OneOutstandingGivesSizeOverLatency) {
  tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_time(10, SC_US));
  Rig rig("tg", {{"count", "1000"}, {"outstanding", "1"}, {"transaction_size", "64"}});
  start();
  const sc_time round_trip = kTransfer + kLatency;  // 104 ns
  ASSERT_TRUE(rig.generator.finished());
  EXPECT_EQ(rig.generator.first_issue(), SC_ZERO_TIME);
  EXPECT_EQ(rig.generator.last_completion(), 1000 * round_trip);
  EXPECT_EQ(rig.generator.mean_latency(), round_trip);
  EXPECT_DOUBLE_EQ(rig.generator.bandwidth(), 64 / round_trip.to_seconds());
  // Transaction i is issued when transaction i - 1 completes.
  for (std::size_t i = 0; i < rig.target.accesses.size(); ++i)
    ASSERT_EQ(rig.target.accesses[i].arrival, static_cast<double>(i) * round_trip) << i;
  EXPECT_EQ(rig.generator.latency_histogram().min(), 104u);
  EXPECT_EQ(rig.generator.latency_histogram().max(), 104u);
  // The generator waits for its last completion before it reports finished.
  EXPECT_EQ(sc_core::sc_time_stamp(), 1000 * round_trip);
}

TEST(TrafficGenerator, ManyOutstandingReachTheTargetBandwidth) {
  tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_time(10, SC_US));
  // 26 in flight cover the 104 ns round trip at one transaction per 4 ns.
  Rig rig("tg", {{"count", "10000"}, {"outstanding", "64"}, {"transaction_size", "64"}});
  start();
  const double target_bandwidth = 64 / kTransfer.to_seconds();  // 16 GB/s
  EXPECT_NEAR(rig.generator.bandwidth(), target_bandwidth, 0.01 * target_bandwidth);
  // Exactly: the target is never idle after the first arrival.
  EXPECT_EQ(rig.generator.last_completion(), 10000 * kTransfer + kLatency);
  EXPECT_DOUBLE_EQ(rig.generator.bandwidth(), 10000 * 64 / (10000 * kTransfer + kLatency).to_seconds());
  EXPECT_GT(rig.generator.mean_latency(), kLatency + kTransfer) << "queueing at the target adds latency";
}

TEST(TrafficGenerator, FewOutstandingAreLatencyBound) {
  tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_time(10, SC_US));
  // Four in flight: each round of four takes 104 ns, the first four queue at
  // the target (completions at 104, 108, 112, 116 ns), and each later
  // transaction is issued when the one four before it completes.
  Rig rig("tg", {{"count", "400"}, {"outstanding", "4"}, {"transaction_size", "64"}});
  start();
  const auto& accesses = rig.target.accesses;
  ASSERT_EQ(accesses.size(), 400u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(accesses[i].arrival, SC_ZERO_TIME) << i;
  for (std::size_t i = 4; i < accesses.size(); ++i)
    ASSERT_EQ(accesses[i].arrival, sc_time(104.0 * (i / 4) + 4.0 * (i % 4), SC_NS)) << i;
  EXPECT_EQ(rig.generator.last_completion(), sc_time(104.0 * 99 + 116, SC_NS));
  EXPECT_DOUBLE_EQ(rig.generator.bandwidth(), 400 * 64 / sc_time(104.0 * 99 + 116, SC_NS).to_seconds());
}

TEST(TrafficGenerator, AFreedSlotIsReusedBeforeAnOlderSlowTransactionCompletes) {
  tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_time(10, SC_US));
  // Two in flight; offset 0 takes 1000 ns, the others 10 ns, no transfer time.
  Rig rig("tg", {{"count", "6"}, {"outstanding", "2"}, {"base", "0"}, {"range", "256"}}, sc_time(10, SC_NS),
          SC_ZERO_TIME);
  rig.target.slow_at = 0;
  rig.target.slow_latency = sc_time(1000, SC_NS);
  start();
  // 0 (slow) and 64 at 0 ns; 128, 192 and 0 (slow) each when the fast one
  // before completes; offset 64 again when the first slow one completes.
  std::vector<sc_time> arrivals;
  for (const auto& access : rig.target.accesses) arrivals.push_back(access.arrival);
  EXPECT_EQ(arrivals, (std::vector<sc_time>{SC_ZERO_TIME, SC_ZERO_TIME, sc_time(10, SC_NS), sc_time(20, SC_NS),
                                            sc_time(30, SC_NS), sc_time(1000, SC_NS)}));
  EXPECT_EQ(rig.generator.last_completion(), sc_time(1030, SC_NS));
  EXPECT_EQ(rig.generator.mean_latency(), sc_time((1000 + 10 + 10 + 10 + 1000 + 10) / 6.0, SC_NS));
}

TEST(TrafficGenerator, StartTimeIsHonoured) {
  tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_time(1, SC_US));
  Rig rig("tg", {{"count", "100"}, {"outstanding", "1"}, {"start_time", "5us"}});
  start();
  ASSERT_EQ(rig.target.accesses.size(), 100u);
  EXPECT_EQ(rig.target.accesses.front().arrival, sc_time(5, SC_US));
  // Never more than a quantum ahead of SystemC time: it did not inject at 0.
  EXPECT_GE(rig.target.accesses.front().stamp, sc_time(4, SC_US));
  EXPECT_EQ(rig.generator.first_issue(), sc_time(5, SC_US));
  EXPECT_EQ(rig.generator.last_completion(), sc_time(5, SC_US) + 100 * (kTransfer + kLatency));
  // Bandwidth counts from the first issue, not from time zero.
  EXPECT_DOUBLE_EQ(rig.generator.bandwidth(), 64 / (kTransfer + kLatency).to_seconds());
}

TEST(TrafficGenerator, CountZeroDisablesTheGenerator) {
  Rig rig("tg", {{"count", "0"}});
  start();
  EXPECT_TRUE(rig.generator.finished());
  EXPECT_TRUE(rig.target.accesses.empty());
  EXPECT_EQ(rig.generator.transactions(), 0u);
  EXPECT_EQ(rig.generator.bandwidth(), 0.0);
  EXPECT_EQ(rig.generator.mean_latency(), SC_ZERO_TIME);
  EXPECT_EQ(sc_core::sc_time_stamp(), SC_ZERO_TIME);
}

// The timing is the same whatever the quantum; only how far the generator
// runs ahead of SystemC time changes, and never beyond the quantum.
class TrafficGeneratorQuantum : public ::testing::TestWithParam<const char*> {};

TEST_P(TrafficGeneratorQuantum, TimingDoesNotDependOnTheQuantum) {
  sc_time quantum = std::string(GetParam()) == "0" ? SC_ZERO_TIME : sc_time(*parse_duration_seconds(GetParam()), sc_core::SC_SEC);
  tlm_utils::tlm_quantumkeeper::set_global_quantum(quantum);
  Rig rig("tg", {{"count", "2000"}, {"outstanding", "8"}, {"pattern", "random"}, {"start_time", "3us"}});
  start();
  // Eight in flight, 104 ns round trip, 4 ns per transaction: the first eight
  // complete at 3 us + 104..132 ns, then eight per 104 ns.
  const sc_time start(3, SC_US);
  EXPECT_EQ(rig.generator.last_completion(), start + sc_time(104.0 * 249 + 132, SC_NS));
  // Latencies: 104..132 ns for the first eight, 104 ns for the other 1992.
  EXPECT_EQ(rig.generator.mean_latency(), sc_time((8 * 118 + 1992 * 104) * 1000 / 2000, sc_core::SC_PS));
  EXPECT_EQ(rig.generator.first_issue(), start);
  EXPECT_EQ(sc_core::sc_time_stamp(), rig.generator.last_completion());
  EXPECT_LE(rig.target.max_offset, quantum);
  if (quantum == SC_ZERO_TIME) {
    EXPECT_EQ(rig.target.max_offset, SC_ZERO_TIME);
  }
  if (quantum >= sc_time(10, SC_US)) {
    EXPECT_GT(rig.target.max_offset, sc_time(1, SC_US)) << "decoupling is used";
  }
}

INSTANTIATE_TEST_SUITE_P(Quanta, TrafficGeneratorQuantum, ::testing::Values("0", "1ns", "100ns", "10us", "1ms"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string("quantum_") + info.param;
                         });

TEST(TrafficGenerator, AnErrorResponseIsAGuestErrorNamingGeneratorAndAddress) {
  tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_time(1, SC_US));
  Rig rig("tg", {{"count", "100"}, {"base", "0x80000000"}, {"range", "4096"}, {"read_fraction", "0"}});
  rig.target.error_at = 0x80000140;  // the sixth transaction
  // The SimulationError leaves the SystemC process as a report; the outcome
  // was recorded before it was thrown.
  try {
    start();
    FAIL() << "the error response was ignored";
  } catch (const sc_core::sc_report& report) {
    EXPECT_CONTAINS(report.what(), "TLM_ADDRESS_ERROR_RESPONSE");
  }
  EXPECT_EQ(simulation().status(), ExitStatus::kGuestError);
  EXPECT_CONTAINS(simulation().reason(), "tg: transaction 5");
  EXPECT_CONTAINS(simulation().reason(), hex(0x80000140));
  EXPECT_CONTAINS(simulation().reason(), "TLM_ADDRESS_ERROR_RESPONSE");
  EXPECT_CONTAINS(simulation().reason(), "write");
  EXPECT_EQ(rig.target.accesses.size(), 6u);
  EXPECT_EQ(rig.generator.transactions(), 5u);
  EXPECT_FALSE(rig.generator.finished());
}

struct BadParameter {
  Settings settings;
  const char* named;  // the parameter the message must name
};

void PrintTo(const BadParameter& bad, std::ostream* out) {
  for (const auto& [parameter, value] : bad.settings) *out << parameter << "=" << value << " ";
}

class TrafficGeneratorBadParameter : public ::testing::TestWithParam<BadParameter> {};

TEST_P(TrafficGeneratorBadParameter, IsAConfigErrorNamingTheParameter) {
  try {
    TrafficGenerator generator(configured("tg", GetParam().settings));
    FAIL() << "accepted";
  } catch (const ConfigError& error) {
    EXPECT_EQ(error.status(), ExitStatus::kBadInput);
    EXPECT_CONTAINS(error.what(), std::string("tg.") + GetParam().named);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, TrafficGeneratorBadParameter,
    ::testing::Values(BadParameter{{{"transaction_size", "0"}}, "transaction_size"},
                      BadParameter{{{"transaction_size", "0x100000000"}, {"range", "0x200000000"}}, "transaction_size"},
                      BadParameter{{{"range", "32"}, {"transaction_size", "64"}}, "range"},
                      BadParameter{{{"range", "0"}}, "range"},
                      BadParameter{{{"base", "0xffffffffffffff00"}, {"range", "0x1000"}}, "range"},
                      BadParameter{{{"pattern", "strided"}, {"stride", "0"}}, "stride"},
                      BadParameter{{{"read_fraction", "1.5"}}, "read_fraction"},
                      BadParameter{{{"read_fraction", "-0.1"}}, "read_fraction"},
                      BadParameter{{{"outstanding", "0"}}, "outstanding"},
                      BadParameter{{{"pattern", "zigzag"}}, "pattern"}),
    [](const ::testing::TestParamInfo<BadParameter>& info) {
      return std::string(info.param.named) + "_" + std::to_string(info.index);
    });

TEST(TrafficGenerator, StrideZeroIsFineWhenNotStrided) {
  Rig rig("tg", {{"stride", "0"}, {"count", "3"}, {"range", "128"}});
  start();
  EXPECT_EQ(rig.target.addresses(), (std::vector<std::uint64_t>{0x80000000, 0x80000040, 0x80000000}));
}

TEST(TrafficGenerator, ParametersSetAfterConstructionAreCheckedAtStart) {
  Rig rig("tg", {{"count", "10"}});
  rig.generator.outstanding.set(0);
  try {
    start();
    FAIL() << "accepted";
  } catch (const ConfigError& error) {
    EXPECT_CONTAINS(error.what(), "tg.outstanding");
  }
  EXPECT_TRUE(rig.target.accesses.empty());
}

TEST(TrafficGenerator, ParametersSetAfterConstructionTakeEffect) {
  Rig rig("tg", {{"count", "10"}});
  rig.generator.pattern.set("strided");
  rig.generator.stride.set(256);
  rig.generator.range.set(1024);
  rig.generator.count.set(5);
  start();
  EXPECT_EQ(offsets(0x80000000, rig.target.addresses()), (std::vector<std::uint64_t>{0, 256, 512, 768, 0}));
}

double statistic(const std::string& name) {
  const Statistic* found = StatisticsRegistry::instance().find(name);
  EXPECT_NE(found, nullptr) << name;
  return found ? found->to_json().get<double>() : -1;
}

// A generator inside a parent module, for hierarchical names.
struct Soc : sc_core::sc_module {
  TimedTarget target{"target", kLatency, kTransfer};
  TrafficGenerator generator{"tg"};
  explicit Soc(sc_core::sc_module_name name) : sc_module(name) { generator.socket.bind(target.socket); }
};

TEST(TrafficGenerator, StatisticsAreRegisteredWithTheirValues) {
  tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_time(1, SC_US));
  configured("soc.tg", {{"count", "100"}, {"outstanding", "1"}, {"start_time", "1us"}, {"read_fraction", "0.5"}});
  Soc soc("soc");
  start();
  TrafficGenerator& generator = soc.generator;
  EXPECT_GT(generator.reads(), 30u);
  EXPECT_GT(generator.writes(), 30u);
  EXPECT_EQ(statistic("soc.tg.transactions"), 100);
  EXPECT_EQ(statistic("soc.tg.reads"), static_cast<double>(generator.reads()));
  EXPECT_EQ(statistic("soc.tg.writes"), static_cast<double>(generator.writes()));
  EXPECT_EQ(statistic("soc.tg.bytes_read") + statistic("soc.tg.bytes_written"), 6400);
  EXPECT_DOUBLE_EQ(statistic("soc.tg.first_issue"), 1000);
  EXPECT_DOUBLE_EQ(statistic("soc.tg.last_completion"), 1000 + 100 * 104);
  EXPECT_DOUBLE_EQ(statistic("soc.tg.mean_latency"), 104);
  EXPECT_DOUBLE_EQ(statistic("soc.tg.bandwidth"), 64 / 104e-9);
  const Statistic* latency = StatisticsRegistry::instance().find("soc.tg.latency");
  ASSERT_NE(latency, nullptr);
  EXPECT_EQ(latency->unit(), "ns");
  EXPECT_EQ(latency->to_json()["count"], 100);
  EXPECT_EQ(latency->to_json()["min"], 104);
  EXPECT_EQ(StatisticsRegistry::instance().find("soc.tg.bandwidth")->unit(), "bytes/s");
  const ParameterBase* pattern = ParameterRegistry::instance().find("soc.tg.pattern");
  ASSERT_NE(pattern, nullptr);
  EXPECT_EQ(pattern->type_name(), "string {sequential|random|strided}");
  for (const char* name : {"base", "range", "stride", "transaction_size", "read_fraction", "count", "outstanding",
                           "start_time", "seed"}) {
    const ParameterBase* parameter = ParameterRegistry::instance().find(std::string("soc.tg.") + name);
    ASSERT_NE(parameter, nullptr) << name;
    EXPECT_FALSE(parameter->doc().empty()) << name;
  }
}

TEST(TrafficGenerator, DrivesMemoryThroughTheAddressRouter) {
  tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_time(1, SC_US));
  ParameterRegistry::instance().set_override("ddr.write_latency", "20ns", "test");
  ParameterRegistry::instance().set_override("ddr.read_latency", "30ns", "test");
  AddressRouter router("router");
  Memory ddr("ddr", 1 << 20);
  // The writer fills 4 KiB; the reader reads it back after the writer is done.
  TrafficGenerator writer(configured("writer", {{"count", "64"}, {"range", "4096"}, {"read_fraction", "0"}}));
  TrafficGenerator reader(configured("reader", {{"count", "64"}, {"range", "4096"}, {"read_fraction", "1"},
                                                {"start_time", "2us"}, {"outstanding", "4"}}));
  writer.socket.bind(router.target_socket);
  reader.socket.bind(router.target_socket);
  router.map(ddr.socket, 0x80000000, 1 << 20, "ddr");
  start();

  ASSERT_TRUE(writer.finished());
  ASSERT_TRUE(reader.finished());
  for (std::uint64_t offset = 0; offset < 4096; offset += 8) {
    std::uint64_t word;
    std::memcpy(&word, ddr.data() + offset, 8);
    ASSERT_EQ(word, 0x80000000 + offset) << offset;
  }
  EXPECT_EQ(writer.mean_latency(), sc_time(20, SC_NS));
  EXPECT_EQ(writer.last_completion(), 64 * sc_time(20, SC_NS));
  EXPECT_EQ(reader.mean_latency(), sc_time(30, SC_NS));
  EXPECT_EQ(reader.bytes_read(), 4096u);
  // Four reads per 30 ns, from 2 us on.
  EXPECT_EQ(reader.last_completion(), sc_time(2, SC_US) + 16 * sc_time(30, SC_NS));
  EXPECT_EQ(router.unmapped_accesses(), 0u);
}

}  // namespace
}  // namespace npuvp
