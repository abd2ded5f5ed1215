// Parameters: typed declarations with defaults, overrides given before or after
// a parameter exists (with or without the leading "soc."), value checking with
// messages that name the parameter, type and origin, choices, unknown-name
// suggestions, duplicate detection and the registry's lifetime rules.
#include "core/parameters.h"
#include "core/simulation.h"

#include <gtest/gtest.h>
#include <systemc>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

namespace npuvp {
namespace {

using sc_core::sc_time;

ParameterRegistry& registry() { return ParameterRegistry::instance(); }

// Every test starts and ends without pending overrides, so the tests also
// pass when the whole executable runs in one process.
class ParametersTest : public ::testing::Test {
 protected:
  void SetUp() override { registry().clear_overrides(); }
  void TearDown() override { registry().clear_overrides(); }
};

// The ConfigError message `body` throws; fails the test when it throws nothing.
template <typename Body>
std::optional<std::string> config_error(Body&& body) {
  try {
    body();
  } catch (const ConfigError& error) {
    EXPECT_EQ(error.status(), ExitStatus::kBadInput);
    return std::string(error.what());
  }
  ADD_FAILURE() << "no ConfigError thrown";
  return std::nullopt;
}

#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "'" << (text) << "' lacks '" << (part) << "'"

TEST_F(ParametersTest, DefaultsOfEveryType) {
  Parameter<bool> flag{"soc.defaults.flag", true, "", "a switch"};
  Parameter<std::uint64_t> depth{"soc.defaults.depth", 16, "entries", "FIFO depth"};
  Parameter<std::int64_t> offset{"soc.defaults.offset", -3, "", "signed offset"};
  Parameter<double> clock{"soc.defaults.clock", 1.5e9, "Hz", "core clock"};
  Parameter<std::string> mode{"soc.defaults.mode", "fast", "", "operating mode"};
  Parameter<sc_time> latency{"soc.defaults.latency", sc_time(10, sc_core::SC_NS), "time", "access latency"};

  EXPECT_TRUE(flag.get());
  EXPECT_EQ(depth.get(), 16u);
  EXPECT_EQ(offset.get(), -3);
  EXPECT_DOUBLE_EQ(clock.get(), 1.5e9);
  EXPECT_EQ(mode.get(), "fast");
  EXPECT_EQ(latency.get(), sc_time(10, sc_core::SC_NS));
  // Implicit conversion reads the same value.
  std::uint64_t depth_value = depth;
  EXPECT_EQ(depth_value, 16u);

  EXPECT_EQ(flag.type_name(), "bool");
  EXPECT_EQ(depth.type_name(), "uint");
  EXPECT_EQ(offset.type_name(), "int");
  EXPECT_EQ(clock.type_name(), "real");
  EXPECT_EQ(mode.type_name(), "string");
  EXPECT_EQ(latency.type_name(), "time");

  EXPECT_EQ(flag.default_text(), "true");
  EXPECT_EQ(depth.default_text(), "16");
  EXPECT_EQ(offset.default_text(), "-3");
  EXPECT_EQ(clock.default_text(), "1.5GHz");
  EXPECT_EQ(mode.default_text(), "fast");
  EXPECT_EQ(latency.default_text(), "10ns");
  EXPECT_EQ(depth.value_text(), depth.default_text());

  EXPECT_EQ(depth.name(), "soc.defaults.depth");
  EXPECT_EQ(depth.unit(), "entries");
  EXPECT_EQ(depth.doc(), "FIFO depth");
  EXPECT_EQ(registry().find("soc.defaults.depth"), &depth);
}

TEST_F(ParametersTest, FrequenciesPrintWithAPrefix) {
  Parameter<double> fast{"soc.freq.fast", 2e9, "Hz", ""};
  Parameter<double> medium{"soc.freq.medium", 12.5e6, "Hz", ""};
  Parameter<double> odd{"soc.freq.odd", 1234567, "Hz", ""};
  Parameter<double> plain{"soc.freq.plain", 0.25, "", ""};
  EXPECT_EQ(fast.default_text(), "2GHz");
  EXPECT_EQ(medium.default_text(), "12.5MHz");
  EXPECT_EQ(odd.default_text(), "1234567");
  EXPECT_EQ(plain.default_text(), "0.25");
}

// Issue 23: SystemC time is 2^64 ps; a clock outside 1 kHz .. 1 THz either
// has no whole-picosecond cycle or overflows that count within a long run.
TEST_F(ParametersTest, ClockPeriodsAreWholePicosecondsWithinTheClockRange) {
  Parameter<double> clock{"soc.test.clock", 1e9, "Hz", ""};
  EXPECT_EQ(clock_period_ps(clock), 1000u);
  clock.set(kLowestClockHz);
  EXPECT_EQ(clock_period_ps(clock), 1'000'000'000u);
  clock.set(kHighestClockHz);
  EXPECT_EQ(clock_period_ps(clock), 1u);
  clock.set(32768);  // a real-time clock
  EXPECT_EQ(clock_period_ps(clock), 30517578u);
  for (double refused : {999.0, 1e-3, 0.0, -1e9, 2e12}) {
    clock.set(refused);
    try {
      clock_period_ps(clock);
      ADD_FAILURE() << refused << " Hz was accepted";
    } catch (const ConfigError& error) {
      EXPECT_NE(std::string(error.what()).find("parameter 'soc.test.clock' = "), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find("between 1 kHz (a 1 ms cycle) and 1 THz"), std::string::npos) << error.what();
    }
  }
}

TEST_F(ParametersTest, TimesBeyondSystemCsRangeAreRefused) {
  Parameter<sc_time> limit{"soc.test.limit", sc_time(1, sc_core::SC_MS), "time", ""};
  limit.set_from_text("8640000s", "test");  // 100 days
  EXPECT_EQ(limit.get(), sc_time(8640000, sc_core::SC_SEC));
  try {
    limit.set_from_text("1e30s", "test");
    FAIL() << "1e30 s was accepted";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("above SystemC's largest time, 2^64 ps (about 213 days)"), std::string::npos)
        << error.what();
  }
  EXPECT_EQ(limit.get(), sc_time(8640000, sc_core::SC_SEC)) << "a refused value changed the parameter";
}

TEST_F(ParametersTest, AddressesAndLargeSizesPrintInHex) {
  Parameter<std::uint64_t> base{"soc.hex.base", 0x80000000, "address", "base address"};
  Parameter<std::uint64_t> size{"soc.hex.size", 1ull << 30, "bytes", "capacity"};
  Parameter<std::uint64_t> small{"soc.hex.small", 4096, "bytes", "small capacity"};
  EXPECT_EQ(base.default_text(), "0x80000000");
  EXPECT_EQ(size.default_text(), "0x40000000");
  EXPECT_EQ(small.default_text(), "4096");
}

TEST_F(ParametersTest, OverridesGivenBeforeConstructionAreApplied) {
  registry().set_override("soc.early.flag", "off", "early.yaml:1");
  registry().set_override("soc.early.depth", "4Ki", "early.yaml:2");
  registry().set_override("soc.early.offset", "-0x10", "early.yaml:3");
  registry().set_override("soc.early.clock", "2.5GHz", "early.yaml:4");
  registry().set_override("soc.early.mode", "slow and steady", "early.yaml:5");
  registry().set_override("soc.early.latency", "1.5 us", "early.yaml:6");

  Parameter<bool> flag{"soc.early.flag", true, "", ""};
  Parameter<std::uint64_t> depth{"soc.early.depth", 16, "entries", ""};
  Parameter<std::int64_t> offset{"soc.early.offset", 0, "", ""};
  Parameter<double> clock{"soc.early.clock", 1e9, "Hz", ""};
  Parameter<std::string> mode{"soc.early.mode", "fast", "", ""};
  Parameter<sc_time> latency{"soc.early.latency", sc_core::SC_ZERO_TIME, "time", ""};

  EXPECT_FALSE(flag.get());
  EXPECT_EQ(depth.get(), 4096u);
  EXPECT_EQ(offset.get(), -16);
  EXPECT_DOUBLE_EQ(clock.get(), 2.5e9);
  EXPECT_EQ(mode.get(), "slow and steady");
  EXPECT_EQ(latency.get(), sc_time(1500, sc_core::SC_NS));
  EXPECT_EQ(depth.default_text(), "16");  // the default is still known
  EXPECT_EQ(depth.value_text(), "4096");
  EXPECT_NO_THROW(registry().check_all_overrides_used());
}

TEST_F(ParametersTest, OverridesGivenAfterConstructionAreApplied) {
  Parameter<std::uint64_t> depth{"soc.late.depth", 16, "entries", ""};
  Parameter<sc_time> latency{"soc.late.latency", sc_core::SC_ZERO_TIME, "time", ""};
  Parameter<bool> flag{"soc.late.flag", false, "", ""};
  registry().set_override("soc.late.depth", "0x20", "--set");
  registry().set_override("soc.late.latency", "20ns", "--set");
  registry().set_override("soc.late.flag", "yes", "--set");
  EXPECT_EQ(depth.get(), 32u);
  EXPECT_EQ(latency.get(), sc_time(20, sc_core::SC_NS));
  EXPECT_TRUE(flag.get());
  EXPECT_NO_THROW(registry().check_all_overrides_used());
}

TEST_F(ParametersTest, ProgrammaticSetChangesTheValue) {
  Parameter<std::uint64_t> depth{"soc.programmatic.depth", 16, "entries", ""};
  depth.set(99);
  EXPECT_EQ(depth.get(), 99u);
  EXPECT_EQ(depth.value_text(), "99");
  EXPECT_EQ(depth.default_text(), "16");
}

TEST_F(ParametersTest, LeadingSocMayBeOmittedInOverrideNames) {
  registry().set_override("short.before", "7", "a.yaml:1");
  Parameter<std::uint64_t> before{"soc.short.before", 1, "", ""};
  EXPECT_EQ(before.get(), 7u);

  Parameter<std::uint64_t> after{"soc.short.after", 1, "", ""};
  registry().set_override("short.after", "8", "a.yaml:2");
  EXPECT_EQ(after.get(), 8u);

  EXPECT_EQ(registry().find("short.after"), &after);
  EXPECT_EQ(registry().find("soc.short.after"), &after);
  EXPECT_EQ(registry().find("short.nothing"), nullptr);
  EXPECT_NO_THROW(registry().check_all_overrides_used());
}

TEST_F(ParametersTest, NamesOutsideSocAreNotPrefixed) {
  registry().set_override("sim.limit.test_only", "5", "--set");
  Parameter<std::uint64_t> limit{"sim.limit.test_only", 0, "", ""};
  EXPECT_EQ(limit.get(), 5u);
  EXPECT_EQ(registry().find("soc.sim.limit.test_only"), nullptr);
}

TEST_F(ParametersTest, BadValueBeforeConstructionNamesParameterTypeAndOrigin) {
  registry().set_override("soc.bad.depth", "lots", "scenarios/bad.yaml:7");
  auto message = config_error([] { Parameter<std::uint64_t> depth{"soc.bad.depth", 16, "entries", ""}; });
  ASSERT_TRUE(message);
  EXPECT_CONTAINS(*message, "soc.bad.depth");
  EXPECT_CONTAINS(*message, "uint");
  EXPECT_CONTAINS(*message, "entries");
  EXPECT_CONTAINS(*message, "'lots'");
  EXPECT_CONTAINS(*message, "scenarios/bad.yaml:7");
  // The failed construction left nothing registered behind.
  EXPECT_EQ(registry().find("soc.bad.depth"), nullptr);
  registry().clear_overrides();
  Parameter<std::uint64_t> again{"soc.bad.depth", 16, "entries", ""};
  EXPECT_EQ(again.get(), 16u);
}

TEST_F(ParametersTest, BadValueAfterConstructionNamesParameterTypeAndOrigin) {
  Parameter<bool> flag{"soc.bad2.flag", false, "", ""};
  Parameter<std::int64_t> offset{"soc.bad2.offset", 0, "", ""};
  Parameter<double> clock{"soc.bad2.clock", 1e9, "Hz", ""};
  Parameter<sc_time> latency{"soc.bad2.latency", sc_core::SC_ZERO_TIME, "time", ""};

  auto message = config_error([] { registry().set_override("soc.bad2.flag", "maybe", "--set"); });
  ASSERT_TRUE(message);
  EXPECT_CONTAINS(*message, "soc.bad2.flag");
  EXPECT_CONTAINS(*message, "bool");
  EXPECT_CONTAINS(*message, "--set");

  message = config_error([] { registry().set_override("bad2.offset", "1.5", "x.yaml:3"); });
  ASSERT_TRUE(message);
  EXPECT_CONTAINS(*message, "soc.bad2.offset");
  EXPECT_CONTAINS(*message, "expects a int");
  EXPECT_CONTAINS(*message, "x.yaml:3");

  message = config_error([] { registry().set_override("soc.bad2.clock", "fast", "x.yaml:4"); });
  ASSERT_TRUE(message);
  EXPECT_CONTAINS(*message, "soc.bad2.clock");
  EXPECT_CONTAINS(*message, "real");
  EXPECT_CONTAINS(*message, "(Hz)");
  EXPECT_CONTAINS(*message, "x.yaml:4");

  message = config_error([] { registry().set_override("soc.bad2.latency", "10", "x.yaml:5"); });
  ASSERT_TRUE(message);
  EXPECT_CONTAINS(*message, "soc.bad2.latency");
  EXPECT_CONTAINS(*message, "time");
  EXPECT_CONTAINS(*message, "10us");  // says what a valid value looks like
  EXPECT_CONTAINS(*message, "x.yaml:5");

  // Values are unchanged by a rejected override.
  EXPECT_FALSE(flag.get());
  EXPECT_EQ(offset.get(), 0);
  EXPECT_DOUBLE_EQ(clock.get(), 1e9);
  EXPECT_EQ(latency.get(), sc_core::SC_ZERO_TIME);
}

TEST_F(ParametersTest, ChoicesAreEnforced) {
  Parameter<std::string> protocol{"soc.choice.protocol", "mesi", "", "coherence protocol", {"mesi", "nsi"}};
  EXPECT_EQ(protocol.type_name(), "string {mesi|nsi}");
  ASSERT_EQ(protocol.choices().size(), 2u);
  registry().set_override("soc.choice.protocol", "nsi", "--set");
  EXPECT_EQ(protocol.get(), "nsi");

  auto message = config_error([] { registry().set_override("soc.choice.protocol", "moesi", "c.yaml:9"); });
  ASSERT_TRUE(message);
  EXPECT_CONTAINS(*message, "soc.choice.protocol");
  EXPECT_CONTAINS(*message, "mesi|nsi");
  EXPECT_CONTAINS(*message, "'moesi'");
  EXPECT_CONTAINS(*message, "not one of the choices");
  EXPECT_CONTAINS(*message, "c.yaml:9");
  EXPECT_EQ(protocol.get(), "nsi");

  registry().clear_overrides();
  registry().set_override("soc.choice.ways", "3", "c.yaml:10");
  message = config_error([] {
    Parameter<std::uint64_t> ways{"soc.choice.ways", 4, "", "associativity", {1, 2, 4, 8}};
  });
  ASSERT_TRUE(message);
  EXPECT_CONTAINS(*message, "soc.choice.ways");
  EXPECT_CONTAINS(*message, "1|2|4|8");
  EXPECT_CONTAINS(*message, "c.yaml:10");
}

TEST_F(ParametersTest, UnknownOverrideNamesTheClosestValidName) {
  Parameter<double> clock{"soc.cpu.clock", 1e9, "Hz", ""};
  Parameter<std::uint64_t> size{"soc.ddr.size", 1ull << 30, "bytes", ""};
  registry().set_override("soc.cpu.clok", "2GHz", "scenarios/typo.yaml:4");
  auto message = config_error([] { registry().check_all_overrides_used(); });
  ASSERT_TRUE(message);
  EXPECT_CONTAINS(*message, "unknown parameter 'soc.cpu.clok'");
  EXPECT_CONTAINS(*message, "scenarios/typo.yaml:4");
  EXPECT_CONTAINS(*message, "did you mean 'soc.cpu.clock'?");
  EXPECT_DOUBLE_EQ(clock.get(), 1e9);
}

TEST_F(ParametersTest, UnknownShortOverrideNamesTheClosestFullName) {
  Parameter<double> clock{"soc.cpu.clock", 1e9, "Hz", ""};
  registry().set_override("cpu.clok", "2GHz", "--set");
  auto message = config_error([] { registry().check_all_overrides_used(); });
  ASSERT_TRUE(message);
  EXPECT_CONTAINS(*message, "'cpu.clok'");
  EXPECT_CONTAINS(*message, "did you mean 'soc.cpu.clock'?");
}

TEST_F(ParametersTest, UnknownOverrideFarFromEveryNameHasNoSuggestion) {
  Parameter<double> clock{"soc.cpu.clock", 1e9, "Hz", ""};
  registry().set_override("completely.unrelated.setting", "1", "--set");
  auto message = config_error([] { registry().check_all_overrides_used(); });
  ASSERT_TRUE(message);
  EXPECT_CONTAINS(*message, "unknown parameter 'completely.unrelated.setting'");
  EXPECT_EQ(message->find("did you mean"), std::string::npos) << *message;
}

TEST_F(ParametersTest, DuplicateNamesAreRejected) {
  Parameter<std::uint64_t> first{"soc.dup.depth", 1, "", ""};
  auto message = config_error([] { Parameter<std::uint64_t> second{"soc.dup.depth", 2, "", ""}; });
  ASSERT_TRUE(message);
  EXPECT_CONTAINS(*message, "soc.dup.depth");
  EXPECT_CONTAINS(*message, "declared twice");
  // Different types under one name are just as much a duplicate.
  EXPECT_THROW((Parameter<bool>{"soc.dup.depth", false, "", ""}), ConfigError);
  // The first declaration is still the registered one.
  EXPECT_EQ(registry().find("soc.dup.depth"), &first);
  registry().set_override("soc.dup.depth", "5", "--set");
  EXPECT_EQ(first.get(), 5u);
}

TEST_F(ParametersTest, AllIsSortedByName) {
  Parameter<std::uint64_t> c{"soc.sorted.c", 0, "", ""};
  Parameter<std::uint64_t> a{"soc.sorted.a", 0, "", ""};
  Parameter<std::uint64_t> b{"soc.sorted.b", 0, "", ""};
  Parameter<std::uint64_t> z{"sim.sorted.z", 0, "", ""};
  auto all = registry().all();
  std::vector<std::string> names;
  for (const auto* parameter : all) names.push_back(parameter->name());
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  auto position = [&](const std::string& name) {
    return std::find(names.begin(), names.end(), name) - names.begin();
  };
  ASSERT_LT(position("soc.sorted.c"), static_cast<long>(names.size()));
  EXPECT_LT(position("sim.sorted.z"), position("soc.sorted.a"));
  EXPECT_LT(position("soc.sorted.a"), position("soc.sorted.b"));
  EXPECT_LT(position("soc.sorted.b"), position("soc.sorted.c"));
}

TEST_F(ParametersTest, DestructionUnregisters) {
  std::size_t before = registry().all().size();
  {
    Parameter<std::uint64_t> scoped{"soc.scoped.depth", 1, "", ""};
    EXPECT_EQ(registry().find("soc.scoped.depth"), &scoped);
    EXPECT_EQ(registry().all().size(), before + 1);
  }
  EXPECT_EQ(registry().find("soc.scoped.depth"), nullptr);
  EXPECT_EQ(registry().all().size(), before);
  // The name is free again, and a later override no longer finds the old one.
  Parameter<std::uint64_t> again{"soc.scoped.depth", 2, "", ""};
  EXPECT_EQ(registry().find("soc.scoped.depth"), &again);
  EXPECT_EQ(again.get(), 2u);
}

TEST_F(ParametersTest, ChildNameFollowsTheModuleHierarchy) {
  struct Owner : sc_core::sc_module {
    explicit Owner(sc_core::sc_module_name name) : sc_module(name) {}
    Parameter<std::uint64_t> depth{child_name(*this, "depth"), 8, "entries", ""};
  };
  registry().set_override("owner.depth", "12", "--set");
  Owner owner("owner");
  EXPECT_EQ(owner.depth.name(), "owner.depth");
  EXPECT_EQ(owner.depth.get(), 12u);
}

}  // namespace
}  // namespace npuvp

namespace npuvp {
// A scenario sets the full name, the command line the short form: the later wins.
TEST(ParameterRegistryPrecedence, LaterSettingWinsAcrossSpellings) {
  auto& registry = ParameterRegistry::instance();
  registry.set_override("soc.precedence.a", "1", "scenario");
  registry.set_override("precedence.a", "2", "--set");
  registry.set_override("precedence.b", "3", "scenario");
  registry.set_override("soc.precedence.b", "4", "--set");
  Parameter<std::uint64_t> a{"soc.precedence.a", 0, "", "test"};
  Parameter<std::uint64_t> b{"soc.precedence.b", 0, "", "test"};
  EXPECT_EQ(a.get(), 2u);
  EXPECT_EQ(b.get(), 4u);
  EXPECT_NO_THROW(registry.check_all_overrides_used());
}
}  // namespace npuvp
