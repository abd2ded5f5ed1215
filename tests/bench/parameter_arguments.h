// The NAME=VALUE arguments a benchmark takes after Google Benchmark's own
// flags (e.g. `npuvp_fabric_bench ring.link_width=16`): shared by the
// benchmarks that build their models in-process.
#pragma once

#include <iostream>
#include <string>
#include <utility>
#include <vector>

namespace npuvp::bench {

// Call after benchmark::Initialize (which removes its own flags). Returns
// false, with a message on stderr, for an argument that is not NAME=VALUE.
inline bool parameter_arguments(int argc, char** argv, std::vector<std::pair<std::string, std::string>>& settings) {
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    auto equals = argument.find('=');
    if (argument.rfind("--", 0) == 0 || equals == std::string::npos || equals == 0) {
      std::cerr << argv[0] << ": unknown argument '" << argument << "' (expected a benchmark flag or name=value)\n";
      return false;
    }
    settings.emplace_back(argument.substr(0, equals), argument.substr(equals + 1));
  }
  return true;
}

}  // namespace npuvp::bench
