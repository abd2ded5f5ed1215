#include "core/text.h"

#include "core/simulation.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace npuvp {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      std::size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitution});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::optional<std::string> closest_match(const std::string& name,
                                         const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = SIZE_MAX;
  for (const auto& candidate : candidates) {
    // Compare against the full name and against its last components, so that
    // "cpu.clok" finds "soc.cpu.clock".
    std::size_t distance = edit_distance(name, candidate);
    if (candidate.size() > name.size()) {
      std::string tail = candidate.substr(candidate.size() - name.size());
      distance = std::min(distance, edit_distance(name, tail) + 1);
    }
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  if (!best || best_distance > std::max<std::size_t>(3, name.size() / 3)) return std::nullopt;
  return best;
}

std::string hex(std::uint64_t value, int min_digits) {
  char buffer[24];
  std::snprintf(buffer, sizeof buffer, "0x%0*llx", min_digits,
                static_cast<unsigned long long>(value));
  return buffer;
}

std::string hex_range(std::uint64_t address, std::uint64_t size) {
  const unsigned __int128 end = static_cast<unsigned __int128>(address) + size;
  const auto high = static_cast<std::uint64_t>(end >> 64), low = static_cast<std::uint64_t>(end);
  char end_text[48];
  if (high) std::snprintf(end_text, sizeof end_text, "0x%llx%016llx", static_cast<unsigned long long>(high),
                          static_cast<unsigned long long>(low));
  else std::snprintf(end_text, sizeof end_text, "0x%llx", static_cast<unsigned long long>(low));
  return "[" + hex(address) + ", " + end_text + ")";
}

std::string trim(const std::string& text) {
  auto begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  auto end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

namespace {

std::string without_separators(const std::string& text) {
  std::string out;
  for (char c : text)
    if (c != '_' && c != '\'') out += c;
  return out;
}

struct Suffix {
  const char* text;
  std::uint64_t factor;
};

// Longest suffixes first so "KiB" is not read as "K" + garbage.
constexpr Suffix kSizeSuffixes[] = {
    {"KiB", 1ull << 10}, {"MiB", 1ull << 20}, {"GiB", 1ull << 30}, {"TiB", 1ull << 40},
    {"Ki", 1ull << 10},  {"Mi", 1ull << 20},  {"Gi", 1ull << 30},  {"K", 1000ull},
    {"k", 1000ull},      {"M", 1000000ull},   {"G", 1000000000ull}};

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::optional<std::uint64_t> parse_unsigned(const std::string& raw) {
  std::string text = without_separators(trim(raw));
  if (text.empty()) return std::nullopt;
  std::uint64_t factor = 1;
  if (!(text.rfind("0x", 0) == 0 || text.rfind("0X", 0) == 0)) {
    for (const auto& suffix : kSizeSuffixes) {
      if (ends_with(text, suffix.text) && text.size() > std::char_traits<char>::length(suffix.text)) {
        factor = suffix.factor;
        text = trim(text.substr(0, text.size() - std::char_traits<char>::length(suffix.text)));
        break;
      }
    }
  }
  int base = 10;
  std::string digits = text;
  if (text.rfind("0x", 0) == 0 || text.rfind("0X", 0) == 0) {
    base = 16;
    digits = text.substr(2);
  } else if (text.rfind("0b", 0) == 0) {
    base = 2;
    digits = text.substr(2);
  }
  if (digits.empty()) return std::nullopt;
  // Accept "1e9" style for convenience when it is an exact integer.
  if (base == 10 && digits.find_first_of("eE.") != std::string::npos) {
    char* end = nullptr;
    double value = std::strtod(digits.c_str(), &end);
    if (*end != '\0' || value < 0 || value != std::floor(value) || value > 1.8e19)
      return std::nullopt;
    std::uint64_t integral = static_cast<std::uint64_t>(value);
    if (integral > UINT64_MAX / factor) return std::nullopt;
    return integral * factor;
  }
  for (char c : digits)
    if (!std::isxdigit(static_cast<unsigned char>(c)) || (base == 10 && !std::isdigit(c)) ||
        (base == 2 && c != '0' && c != '1'))
      return std::nullopt;
  errno = 0;
  char* end = nullptr;
  unsigned long long value = std::strtoull(digits.c_str(), &end, base);
  if (errno != 0 || *end != '\0') return std::nullopt;
  if (factor != 1 && value > UINT64_MAX / factor) return std::nullopt;
  return value * factor;
}

std::optional<std::int64_t> parse_signed(const std::string& raw) {
  std::string text = trim(raw);
  bool negative = !text.empty() && text[0] == '-';
  if (negative || (!text.empty() && text[0] == '+')) text = text.substr(1);
  auto magnitude = parse_unsigned(text);
  if (!magnitude) return std::nullopt;
  if (negative) {
    if (*magnitude > static_cast<std::uint64_t>(INT64_MAX) + 1) return std::nullopt;
    return static_cast<std::int64_t>(0 - *magnitude);
  }
  if (*magnitude > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
  return static_cast<std::int64_t>(*magnitude);
}

std::optional<double> parse_real(const std::string& raw, const std::string& unit) {
  std::string text = trim(raw);
  if (!unit.empty() && ends_with(text, unit)) text = trim(text.substr(0, text.size() - unit.size()));
  double factor = 1;
  if (!text.empty() && !unit.empty()) {
    switch (text.back()) {
      case 'T': factor = 1e12; break;
      case 'G': factor = 1e9; break;
      case 'M': factor = 1e6; break;
      case 'k': case 'K': factor = 1e3; break;
      case 'm': factor = 1e-3; break;
      case 'u': factor = 1e-6; break;
      case 'n': factor = 1e-9; break;
      case 'p': factor = 1e-12; break;
      default: break;
    }
    if (factor != 1) text = trim(text.substr(0, text.size() - 1));
  }
  text = without_separators(text);
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (*end != '\0' || !std::isfinite(value)) return std::nullopt;
  return value * factor;
}

std::optional<double> parse_duration_seconds(const std::string& raw) {
  std::string text = trim(raw);
  struct Unit {
    const char* text;
    double seconds;
  };
  static constexpr Unit kUnits[] = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3},
                                    {"ps", 1e-12}, {"fs", 1e-15}, {"s", 1.0}};
  for (const auto& unit : kUnits) {
    if (ends_with(text, unit.text)) {
      std::string number = without_separators(trim(text.substr(0, text.size() - std::char_traits<char>::length(unit.text))));
      if (number.empty()) return std::nullopt;
      char* end = nullptr;
      double value = std::strtod(number.c_str(), &end);
      if (*end != '\0' || !std::isfinite(value) || value < 0) return std::nullopt;
      return value * unit.seconds;
    }
  }
  return std::nullopt;
}

std::optional<bool> parse_bool(const std::string& raw) {
  std::string text = trim(raw);
  std::transform(text.begin(), text.end(), text.begin(), ::tolower);
  if (text == "true" || text == "yes" || text == "on" || text == "1") return true;
  if (text == "false" || text == "no" || text == "off" || text == "0") return false;
  return std::nullopt;
}

std::string decode_byte_escapes(const std::string& text, const std::string& parameter) {
  auto hex_digit = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i == text.size()) throw ConfigError("parameter '" + parameter + "': trailing backslash");
    switch (text[i]) {
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case '0': out += '\0'; break;
      case '\\': out += '\\'; break;
      case 'x': {
        int high = i + 1 < text.size() ? hex_digit(text[i + 1]) : -1;
        int low = i + 2 < text.size() ? hex_digit(text[i + 2]) : -1;
        if (high < 0 || low < 0)
          throw ConfigError("parameter '" + parameter + "': \\x must be followed by two hex digits");
        out += static_cast<char>(high * 16 + low);
        i += 2;
        break;
      }
      default:
        throw ConfigError("parameter '" + parameter + "': unknown escape '\\" + std::string(1, text[i]) +
                          "' (use \\n \\r \\t \\0 \\\\ or \\xHH)");
    }
  }
  return out;
}

}  // namespace npuvp
