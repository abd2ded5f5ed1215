// Rewrites values of a scenario's `patch:` entries in its YAML text, so a test
// or benchmark can run a shipped scenario at another size without a copy of it
// in the source tree. Shared by tests/integration and tests/bench.
#pragma once

#include <map>
#include <sstream>
#include <string>

namespace npuvp::test_support {

// Replaces the value of every indented `name: value` line whose name is a key
// of `patch`. Keys that matched no line are left in `*unmatched` (if given).
inline std::string patch_scenario_text(const std::string& yaml, std::map<std::string, std::string> patch,
                                       std::map<std::string, std::string>* unmatched = nullptr) {
  std::istringstream in(yaml);
  std::string line, text;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    const auto start = line.find_first_not_of(' ');
    if (colon != std::string::npos && start != std::string::npos && start > 0) {
      auto it = patch.find(line.substr(start, colon - start));
      if (it != patch.end()) {
        line = line.substr(0, colon + 1) + " " + it->second;
        patch.erase(it);
      }
    }
    text += line + "\n";
  }
  if (unmatched) *unmatched = patch;
  return text;
}

}  // namespace npuvp::test_support
