// `make bench`, coherence part: the exhaustive explorer
// (tests/coherence/explorer.h) on the real MESI controllers, with larger
// configurations than the unit test (longer scripts, 3 caches x 2 lines).
// Each benchmark explores one configuration to completion once and reports
// the distinct states, transitions, depth and states per second of host
// time; a configuration that fails (an invariant, a deadlock, a protocol
// error) stops the run with the trace.
//
// Extra arguments `name=value`: `protocol=NAME` explores another registered
// protocol, `max_states=N` bounds every exploration (0: to completion),
// `option.PARAMETER=VALUE` sets one of the protocol's parameters (e.g.
// `option.thesis_baseline=true` for mesi, `option.validation=data` for nsi).
#include "coherence/explorer.h"

#include "parameter_arguments.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace npuvp::coherence::exploration;

std::string g_protocol = "mesi";
std::uint64_t g_max_states = 0;
npuvp::coherence::ProtocolOptions g_options;

void explore_configuration(benchmark::State& state, Configuration configuration) {
  configuration.protocol = g_protocol;
  configuration.max_states = g_max_states;
  configuration.options = g_options;
  Result result;
  for (auto _ : state) result = explore(configuration);
  if (result.failed()) {
    std::cerr << result.trace;
    state.SkipWithError(summary(result).c_str());
    return;
  }
  state.counters["states"] = static_cast<double>(result.states);
  state.counters["transitions"] = static_cast<double>(result.transitions);
  state.counters["terminal"] = static_cast<double>(result.terminal_states);
  state.counters["depth"] = result.max_depth;
  // Per CPU second: the machine may be shared.
  state.counters["states_per_second"] = result.cpu_seconds > 0 ? result.states / result.cpu_seconds : 0;
  state.counters["replayed_steps"] = static_cast<double>(result.replayed_steps);
  state.SetLabel(summary(result));
}

Configuration two_caches_one_line() {
  Configuration configuration;
  configuration.caches = 2;
  configuration.lines = 1;
  configuration.scripts = {{store(0), load(0), make_writable_store(0), load(0, 1), store(0, 1), load(0)},
                           {load(0), store(0, 1), load(0), store(0), make_writable_store(0, 1), load(0)}};
  return configuration;
}

Configuration two_caches_two_lines() {
  Configuration configuration;
  configuration.caches = 2;
  configuration.lines = 2;
  configuration.scripts = {{store(0), load(1), store(1), load(0), make_writable_store(0), load(1)},
                           {load(0), store(1), load(1), store(0), load(0), make_writable_store(1)}};
  return configuration;
}

Configuration three_caches_one_line() {
  Configuration configuration;
  configuration.caches = 3;
  configuration.lines = 1;
  configuration.scripts = {{store(0), load(0), store(0), load(0)},
                           {load(0), store(0), load(0), make_writable_store(0)},
                           {load(0), make_writable_store(0), load(0), store(0)}};
  return configuration;
}

Configuration three_caches_two_lines() {
  Configuration configuration;
  configuration.caches = 3;
  configuration.lines = 2;
  configuration.scripts = {{store(0), load(1), store(1)}, {load(0), store(1), load(0)}, {load(1), store(0), load(1)}};
  return configuration;
}

Configuration three_caches_two_lines_llc_recalls() {
  Configuration configuration = three_caches_two_lines();
  configuration.l1_sets = 2;
  configuration.llc_sets = 1;
  configuration.llc_ways = 1;
  return configuration;
}

}  // namespace

// libsystemc owns main() and calls sc_main (declared extern "C" by SystemC):
// the protocols' parameters (core/parameters.h) link SystemC in.
extern "C" int sc_main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  std::vector<std::pair<std::string, std::string>> settings;
  if (!npuvp::bench::parameter_arguments(argc, argv, settings)) return 2;
  for (const auto& [name, value] : settings) {
    if (name == "protocol") {
      g_protocol = value;
    } else if (name == "max_states") {
      char* end = nullptr;
      g_max_states = std::strtoull(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0') {
        std::cerr << argv[0] << ": max_states=" << value << " is not a number of states\n";
        return 2;
      }
    } else if (name.rfind("option.", 0) == 0 && name.size() > 7) {
      g_options[name.substr(7)] = value;
    } else {
      std::cerr << argv[0] << ": unknown setting '" << name << "' (known: protocol, max_states, option.PARAMETER)\n";
      return 2;
    }
  }
  const std::vector<std::pair<const char*, Configuration>> configurations{
      {"BM_Explore/2caches_1line", two_caches_one_line()},
      {"BM_Explore/2caches_2lines", two_caches_two_lines()},
      {"BM_Explore/3caches_1line", three_caches_one_line()},
      {"BM_Explore/3caches_2lines", three_caches_two_lines()},
      {"BM_Explore/3caches_2lines_llc_recalls", three_caches_two_lines_llc_recalls()},
  };
  for (const auto& [name, configuration] : configurations)
    benchmark::RegisterBenchmark(name, explore_configuration, configuration)
        ->Iterations(1)
        ->Unit(benchmark::kSecond);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
