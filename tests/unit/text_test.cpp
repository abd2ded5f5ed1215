// Text helpers: edit distance and suggestions, hex formatting, and the number,
// duration and boolean parsers behind every parameter and scenario value.
#include "core/text.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace npuvp {
namespace {

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();
constexpr std::int64_t kI64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kI64Min = std::numeric_limits<std::int64_t>::min();

// Ranges past 2^64 print their true end (issue 23: a wrapped end read as a small number).
TEST(HexRange, EndIsComputedWithoutWrapping) {
  EXPECT_EQ(hex_range(0x8000'0000, 0x1000), "[0x80000000, 0x80001000)");
  EXPECT_EQ(hex_range(0, 0), "[0x0, 0x0)");
  EXPECT_EQ(hex_range(0xffff'ffff'ffff'f000, 0x1000), "[0xfffffffffffff000, 0x10000000000000000)");
  EXPECT_EQ(hex_range(0xffff'ffff'ffff'ffff, 0xffff'ffff'ffff'ffff), "[0xffffffffffffffff, 0x1fffffffffffffffe)");
}

TEST(EditDistance, ClassicExamples) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", "abc"), 0u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("flaw", "lawn"), 2u);
  EXPECT_EQ(edit_distance("clok", "clock"), 1u);   // one insertion
  EXPECT_EQ(edit_distance("clock", "clokc"), 2u);  // a transposition is two edits
}

TEST(EditDistance, IsSymmetric) {
  const std::vector<std::string> words = {"", "a", "soc.cpu.clock", "cpu.clok", "memory", "mem"};
  for (const auto& a : words)
    for (const auto& b : words) EXPECT_EQ(edit_distance(a, b), edit_distance(b, a)) << a << " / " << b;
}

const std::vector<std::string> kParameterNames = {
    "soc.cpu.clock", "soc.cpu.quantum", "soc.ddr.size", "soc.uart.baud_rate", "sim.limit.instructions"};

TEST(ClosestMatch, SuggestsTheFullNameForATypo) {
  EXPECT_EQ(closest_match("soc.cpu.clok", kParameterNames), std::optional<std::string>("soc.cpu.clock"));
  EXPECT_EQ(closest_match("soc.ddr.sise", kParameterNames), std::optional<std::string>("soc.ddr.size"));
  EXPECT_EQ(closest_match("sim.limit.instruction", kParameterNames),
            std::optional<std::string>("sim.limit.instructions"));
}

TEST(ClosestMatch, SuggestsTheFullNameForATypoInATrailingPart) {
  EXPECT_EQ(closest_match("cpu.clok", kParameterNames), std::optional<std::string>("soc.cpu.clock"));
  EXPECT_EQ(closest_match("cpu.quantm", kParameterNames), std::optional<std::string>("soc.cpu.quantum"));
}

TEST(ClosestMatch, SuggestsNothingForAFarName) {
  EXPECT_EQ(closest_match("zzzzzzzz", kParameterNames), std::nullopt);
  EXPECT_EQ(closest_match("network.interface.mtu", kParameterNames), std::nullopt);
  EXPECT_EQ(closest_match("soc.cpu.clock", {}), std::nullopt);
}

TEST(ClosestMatch, AnExactNameMatchesItself) {
  EXPECT_EQ(closest_match("soc.ddr.size", kParameterNames), std::optional<std::string>("soc.ddr.size"));
}

TEST(Hex, FormatsWithPrefixAndMinimumDigits) {
  EXPECT_EQ(hex(0), "0x0");
  EXPECT_EQ(hex(0x80000000), "0x80000000");
  EXPECT_EQ(hex(0xdeadbeef), "0xdeadbeef");
  EXPECT_EQ(hex(0x1f, 4), "0x001f");
  EXPECT_EQ(hex(0x12345, 2), "0x12345");  // never truncates
  EXPECT_EQ(hex(kU64Max), "0xffffffffffffffff");
  EXPECT_EQ(hex(0, 16), "0x0000000000000000");
}

TEST(Trim, RemovesSurroundingWhitespaceOnly) {
  EXPECT_EQ(trim("  a b \t\r\n"), "a b");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim(" \t "), "");
  EXPECT_EQ(trim("x"), "x");
}

TEST(ParseUnsigned, DecimalHexBinaryAndSeparators) {
  EXPECT_EQ(parse_unsigned("0"), 0u);
  EXPECT_EQ(parse_unsigned("42"), 42u);
  EXPECT_EQ(parse_unsigned("  42\t"), 42u);
  EXPECT_EQ(parse_unsigned("0x1F"), 0x1fu);
  EXPECT_EQ(parse_unsigned("0X1f"), 0x1fu);
  EXPECT_EQ(parse_unsigned("0xdeadBEEF"), 0xdeadbeefu);
  EXPECT_EQ(parse_unsigned("0b1011"), 11u);
  EXPECT_EQ(parse_unsigned("1_000_000"), 1000000u);
  EXPECT_EQ(parse_unsigned("0x8000_0000"), 0x80000000u);
  EXPECT_EQ(parse_unsigned("0b1111_0000"), 0xf0u);
  EXPECT_EQ(parse_unsigned("18446744073709551615"), kU64Max);
  EXPECT_EQ(parse_unsigned("0xffff_ffff_ffff_ffff"), kU64Max);
}

TEST(ParseUnsigned, DecimalSizeSuffixes) {
  EXPECT_EQ(parse_unsigned("4K"), 4000u);
  EXPECT_EQ(parse_unsigned("4k"), 4000u);
  EXPECT_EQ(parse_unsigned("2M"), 2000000u);
  EXPECT_EQ(parse_unsigned("3G"), 3000000000u);
}

TEST(ParseUnsigned, BinarySizeSuffixes) {
  EXPECT_EQ(parse_unsigned("4Ki"), 4096u);
  EXPECT_EQ(parse_unsigned("2Mi"), 2u << 20);
  EXPECT_EQ(parse_unsigned("1Gi"), 1u << 30);
  EXPECT_EQ(parse_unsigned("4KiB"), 4096u);
  EXPECT_EQ(parse_unsigned("64MiB"), 64u << 20);
  EXPECT_EQ(parse_unsigned("1GiB"), 1u << 30);
  EXPECT_EQ(parse_unsigned("64 KiB"), 64u << 10);
  EXPECT_EQ(parse_unsigned("1_024KiB"), 1u << 20);
  EXPECT_EQ(parse_unsigned("0b10Ki"), 2048u);
}

TEST(ParseUnsigned, ExponentNotationWhenExact) {
  EXPECT_EQ(parse_unsigned("1e9"), 1000000000u);
  EXPECT_EQ(parse_unsigned("1E3"), 1000u);
  EXPECT_EQ(parse_unsigned("2.5e3"), 2500u);
  EXPECT_EQ(parse_unsigned("1e6K"), 1000000000u);
  EXPECT_EQ(parse_unsigned("1.5"), std::nullopt);   // not an integer
  EXPECT_EQ(parse_unsigned("1e-3"), std::nullopt);  // not an integer
  EXPECT_EQ(parse_unsigned("-1e3"), std::nullopt);  // negative
  EXPECT_EQ(parse_unsigned("1e20"), std::nullopt);  // does not fit
}

TEST(ParseUnsigned, OverflowIsRejected) {
  EXPECT_EQ(parse_unsigned("18446744073709551616"), std::nullopt);
  EXPECT_EQ(parse_unsigned("0x1_0000_0000_0000_0000"), std::nullopt);
  EXPECT_EQ(parse_unsigned("17179869183GiB"), 17179869183ull << 30);
  EXPECT_EQ(parse_unsigned("17179869184GiB"), std::nullopt);  // 2^64
  EXPECT_EQ(parse_unsigned("18446744073709552K"), std::nullopt);
  EXPECT_EQ(parse_unsigned("1e10GiB"), 10000000000ull << 30);
  EXPECT_EQ(parse_unsigned("1e11GiB"), std::nullopt);  // exponent form times a suffix
  EXPECT_EQ(parse_unsigned("1e19K"), std::nullopt);
}

TEST(ParseUnsigned, JunkIsRejected) {
  for (const char* text : {"", "   ", "abc", "12abc", "0x", "0xg1", "0b", "0b102", "-1", "+1", "1 2", "K",
                           "KiB", "12B", "4 K i B", "0x10KiB", "1.2.3", "_"}) {
    EXPECT_EQ(parse_unsigned(text), std::nullopt) << "'" << text << "'";
  }
}

TEST(ParseSigned, SignsAndRange) {
  EXPECT_EQ(parse_signed("0"), 0);
  EXPECT_EQ(parse_signed("5"), 5);
  EXPECT_EQ(parse_signed("-5"), -5);
  EXPECT_EQ(parse_signed("+7"), 7);
  EXPECT_EQ(parse_signed(" -12 "), -12);
  EXPECT_EQ(parse_signed("-0x10"), -16);
  EXPECT_EQ(parse_signed("-4Ki"), -4096);
  EXPECT_EQ(parse_signed("9223372036854775807"), kI64Max);
  EXPECT_EQ(parse_signed("9223372036854775808"), std::nullopt);
  EXPECT_EQ(parse_signed("-9223372036854775808"), kI64Min);
  EXPECT_EQ(parse_signed("-9223372036854775809"), std::nullopt);
  EXPECT_EQ(parse_signed("0xffffffffffffffff"), std::nullopt);
}

TEST(ParseSigned, JunkIsRejected) {
  for (const char* text : {"", "-", "+", "--1", "+-1", "abc", "-abc", "1-"})
    EXPECT_EQ(parse_signed(text), std::nullopt) << "'" << text << "'";
}

TEST(ParseReal, PlainNumbers) {
  EXPECT_DOUBLE_EQ(*parse_real("2.5"), 2.5);
  EXPECT_DOUBLE_EQ(*parse_real("-0.25"), -0.25);
  EXPECT_DOUBLE_EQ(*parse_real("1e3"), 1000.0);
  EXPECT_DOUBLE_EQ(*parse_real(" 7 "), 7.0);
  EXPECT_DOUBLE_EQ(*parse_real("1_000.5"), 1000.5);
}

TEST(ParseReal, UnitsAndSiPrefixes) {
  EXPECT_DOUBLE_EQ(*parse_real("1.5GHz", "Hz"), 1.5e9);
  EXPECT_DOUBLE_EQ(*parse_real("250", "Hz"), 250.0);
  EXPECT_DOUBLE_EQ(*parse_real("250Hz", "Hz"), 250.0);
  EXPECT_DOUBLE_EQ(*parse_real("100 MHz", "Hz"), 1e8);
  EXPECT_DOUBLE_EQ(*parse_real("1.5 GHz", "Hz"), 1.5e9);
  EXPECT_DOUBLE_EQ(*parse_real("3.3kHz", "Hz"), 3300.0);
  EXPECT_DOUBLE_EQ(*parse_real("2THz", "Hz"), 2e12);
  EXPECT_DOUBLE_EQ(*parse_real("10mV", "V"), 0.01);
  EXPECT_DOUBLE_EQ(*parse_real("5uW", "W"), 5e-6);
  EXPECT_DOUBLE_EQ(*parse_real("2nJ", "J"), 2e-9);
  EXPECT_DOUBLE_EQ(*parse_real("500G", "Hz"), 5e11);  // the unit itself may be left out
}

TEST(ParseReal, JunkIsRejected) {
  EXPECT_EQ(parse_real(""), std::nullopt);
  EXPECT_EQ(parse_real("abc"), std::nullopt);
  EXPECT_EQ(parse_real("1.5GHz"), std::nullopt);  // no unit expected, so "GHz" is junk
  EXPECT_EQ(parse_real("5M"), std::nullopt);       // prefixes only come with a unit
  EXPECT_EQ(parse_real("GHz", "Hz"), std::nullopt);
  EXPECT_EQ(parse_real("1.5XHz", "Hz"), std::nullopt);
  EXPECT_EQ(parse_real("1.5GHz", "V"), std::nullopt);
  EXPECT_EQ(parse_real("inf"), std::nullopt);
  EXPECT_EQ(parse_real("nan"), std::nullopt);
  EXPECT_EQ(parse_real("1e999"), std::nullopt);
}

TEST(ParseDuration, UnitsToSeconds) {
  EXPECT_DOUBLE_EQ(*parse_duration_seconds("10us"), 10e-6);
  EXPECT_DOUBLE_EQ(*parse_duration_seconds("1.5 ms"), 1.5e-3);
  EXPECT_DOUBLE_EQ(*parse_duration_seconds("2s"), 2.0);
  EXPECT_DOUBLE_EQ(*parse_duration_seconds("100ns"), 100e-9);
  EXPECT_DOUBLE_EQ(*parse_duration_seconds("250ps"), 250e-12);
  EXPECT_DOUBLE_EQ(*parse_duration_seconds("3fs"), 3e-15);
  EXPECT_DOUBLE_EQ(*parse_duration_seconds(" 1_000 ns "), 1e-6);
  EXPECT_DOUBLE_EQ(*parse_duration_seconds("0s"), 0.0);
}

TEST(ParseDuration, JunkAndNegativeAreRejected) {
  for (const char* text : {"", "junk", "10", "ms", "s", "1.5 xs", "10 minutes", "abcus", "-1ms", "-0.5s",
                           "infs", "1e999s"})
    EXPECT_EQ(parse_duration_seconds(text), std::nullopt) << "'" << text << "'";
}

TEST(ParseBool, AcceptedSpellings) {
  for (const char* text : {"true", "TRUE", "True", "yes", "Yes", "on", "ON", "1", " true "})
    EXPECT_EQ(parse_bool(text), std::optional<bool>(true)) << text;
  for (const char* text : {"false", "FALSE", "no", "No", "off", "OFF", "0", "\tfalse"})
    EXPECT_EQ(parse_bool(text), std::optional<bool>(false)) << text;
  for (const char* text : {"", "2", "maybe", "t", "y", "truee", "0x1"})
    EXPECT_EQ(parse_bool(text), std::nullopt) << "'" << text << "'";
}

}  // namespace
}  // namespace npuvp
