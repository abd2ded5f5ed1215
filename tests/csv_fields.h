// One line of the report's CSV (npuvp infer --profile) split into fields; a field in
// double quotes may hold commas (the shapes column does) and "" stands for one quote.
// Shared by the network tests and the network benchmark.
#pragma once

#include <string>
#include <vector>

namespace npuvp::test_support {

inline std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

}  // namespace npuvp::test_support
