// Small text helpers shared by configuration, statistics and diagnostics.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace npuvp {

// Edit distance, used to suggest the closest valid name for a typo.
std::size_t edit_distance(const std::string& a, const std::string& b);

// The candidate closest to `name`, or nothing when none is reasonably close.
std::optional<std::string> closest_match(const std::string& name,
                                         const std::vector<std::string>& candidates);

// "0x8000_0000"-style hexadecimal formatting for addresses in messages.
std::string hex(std::uint64_t value, int min_digits = 0);
// "[0x80000000, 0x80001000)": the bytes [address, address + size). The end is
// computed in 128 bits, so a range past 2^64 shows as it is (0x1_0000_0000_0000_0000
// and up) instead of wrapping to a small number.
std::string hex_range(std::uint64_t address, std::uint64_t size);

std::string trim(const std::string& text);

// Parses an unsigned integer: decimal, 0x/0b prefixes, '_' separators, and the
// size suffixes K/M/G (x1000) and Ki/Mi/Gi/KiB/MiB/GiB (x1024). Nothing on error.
std::optional<std::uint64_t> parse_unsigned(const std::string& text);
std::optional<std::int64_t> parse_signed(const std::string& text);

// Parses a real number with an optional SI prefix before an expected unit,
// e.g. parse_real("1.5GHz", "Hz") == 1.5e9, parse_real("250", "Hz") == 250.
std::optional<double> parse_real(const std::string& text, const std::string& unit = "");

// Parses a duration such as "10us", "1.5 ms", "2s", "100ns" into seconds.
std::optional<double> parse_duration_seconds(const std::string& text);

std::optional<bool> parse_bool(const std::string& text);

// Decodes the escapes \n \r \t \0 \\ \xHH in a parameter value (device
// input strings); throws ConfigError naming `parameter` on a bad escape.
std::string decode_byte_escapes(const std::string& text, const std::string& parameter);

}  // namespace npuvp
