// `make bench`, coherence part: the random coherence tester
// (tests/coherence/random_tester.h), i.e. a protocol's real controllers under a
// discrete-event network with random delays, every access checked.
//
// BM_CoherenceRandomTester/<cores>: host speed on MESI. 2 M random accesses
// (50% loads, 35% stores, 15% atomics) by <cores> cores to 8 lines, with
// 1-set x 2-way L1s and 1-set x 2-way LLC banks (evictions and recalls all
// the time), every load checked against the reference. Reported: accesses per
// second of host time (`accesses_per_second`, wall clock;
// `accesses_per_cpu_second`, processor time, which other load on the machine
// does not change), messages per access, and whether the run passed (a failed
// run is an error).
//
// BM_CoherenceAtScale/<protocol>: coherence at scale (issue 23), 10^8 checked
// accesses per registered protocol, as seeded runs of 10^6 accesses each
// (seeds seed, seed + 1, ...; 4, 8 or 16 cores by seed). MESI and MSI are
// checked for sequential consistency, other protocols (NSI) in the tester's
// data-race-free mode. The protocols' options run too:
// BM_CoherenceAtScale/mesi/thesis_baseline (SC) and
// BM_CoherenceAtScale/nsi/validation=data (data-race-free). A failed run
// prints its seed and the command that reproduces it alone. Arguments after Google Benchmark's flags:
//   accesses=N       total checked accesses per protocol (default 100000000)
//   run_accesses=N   accesses per seeded run (default 1000000)
//   seed=N           seed of the first run (default 1)
// e.g. `npuvp_coherence_bench --benchmark_filter=AtScale/nsi accesses=1e7`.
#include "parameter_arguments.h"
#include "coherence/protocol_registry.h"
#include "coherence/random_tester.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

namespace {

const bool kBannerDisabled = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;

using npuvp::coherence::testing::TesterConfig;
using npuvp::coherence::testing::TesterResult;

void BM_CoherenceRandomTester(benchmark::State& state) {
  TesterConfig config;
  config.cores = static_cast<unsigned>(state.range(0));
  config.lines = 8;
  config.operations = 2000000;
  config.seed = 2026;
  TesterResult result;
  for (auto _ : state) {
    result = npuvp::coherence::testing::run_random_test(config);
    if (!result.passed) {
      state.SkipWithError(result.failure.c_str());
      return;
    }
  }
  state.counters["accesses_per_second"] = static_cast<double>(result.operations) / result.host_seconds;
  state.counters["accesses_per_cpu_second"] = static_cast<double>(result.operations) / result.host_cpu_seconds;
  state.counters["messages_per_access"] = static_cast<double>(result.messages) / static_cast<double>(result.operations);
  state.counters["simulated_cycles"] = static_cast<double>(result.cycles);
}
BENCHMARK(BM_CoherenceRandomTester)->Arg(4)->Arg(16)->Iterations(1)->Unit(benchmark::kMillisecond);

struct ScaleSettings {
  std::uint64_t accesses = 100'000'000;
  std::uint64_t run_accesses = 1'000'000;
  std::uint64_t seed = 1;
};

// One seeded run of the at-scale test: everything but the seed and the length is
// derived from the seed, so the seed alone reproduces a failure.
// A protocol with its options set (docs/coherence.md, Parameters).
struct ProtocolVariant {
  std::string name;  // the benchmark's: the protocol, "/" and the option
  std::string protocol;
  npuvp::coherence::ProtocolOptions options;
};

TesterConfig scale_run(const ProtocolVariant& variant, std::uint64_t seed, std::uint64_t accesses) {
  static const unsigned kCores[] = {4, 8, 16};
  const std::string& protocol = variant.protocol;
  TesterConfig config;
  config.protocol = protocol;
  config.options = variant.options;
  config.seed = seed;
  config.operations = accesses;
  config.cores = kCores[seed % 3];
  config.lines = 8;
  // MESI and MSI promise sequential consistency; a weaker protocol (NSI) promises
  // correct results to data-race-free programs only.
  if (protocol != "mesi" && protocol != "msi") {
    config.data_race_free = true;
    config.locks = 2;
    config.load_percent = 60;
  }
  return config;
}

void BM_CoherenceAtScale(benchmark::State& state, const ProtocolVariant& variant, const ScaleSettings& settings) {
  const std::string& protocol = variant.name;
  std::uint64_t done = 0, runs = 0, messages = 0;
  double cpu_seconds = 0;
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    for (std::uint64_t seed = settings.seed; done < settings.accesses; ++seed, ++runs) {
      const TesterConfig config = scale_run(variant, seed, std::min(settings.run_accesses, settings.accesses - done));
      const TesterResult result = npuvp::coherence::testing::run_random_test(config);
      if (!result.passed) {
        std::cerr << "coherence at scale: " << protocol << " failed in run " << runs << " (seed " << seed << ") after "
                  << done << " checked accesses: " << result.failure << "\nreproduce with: npuvp_coherence_bench "
                  << "'--benchmark_filter=BM_CoherenceAtScale/" << protocol << "$' seed=" << seed
                  << " accesses=" << config.operations << "\n";
        state.SkipWithError(("seed " + std::to_string(seed) + " failed: " + result.failure).c_str());
        return;
      }
      done += result.operations;
      messages += result.messages;
      cpu_seconds += result.host_cpu_seconds;
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  state.counters["checked_accesses"] = static_cast<double>(done);
  state.counters["seeded_runs"] = static_cast<double>(runs);
  state.counters["accesses_per_second"] = static_cast<double>(done) / seconds;
  state.counters["accesses_per_cpu_second"] = static_cast<double>(done) / cpu_seconds;
  state.counters["messages_per_access"] = static_cast<double>(messages) / static_cast<double>(done);
}

bool read_settings(int argc, char** argv, ScaleSettings& settings) {
  std::vector<std::pair<std::string, std::string>> arguments;
  if (!npuvp::bench::parameter_arguments(argc, argv, arguments)) return false;
  for (const auto& [name, text] : arguments) {
    std::uint64_t* target = name == "accesses" ? &settings.accesses
                            : name == "run_accesses" ? &settings.run_accesses
                            : name == "seed" ? &settings.seed : nullptr;
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);  // 1e8 as well as 100000000
    if (!target || text.empty() || *end || !(value >= 0 && value < 1.8e19)) {
      std::cerr << argv[0] << ": bad argument '" << name << "=" << text
                << "' (accesses=N, run_accesses=N, seed=N: non-negative integers)\n";
      return false;
    }
    *target = static_cast<std::uint64_t>(value);
  }
  if (settings.run_accesses == 0) settings.run_accesses = 1;
  return true;
}

}  // namespace

// libsystemc owns main() and calls sc_main (declared extern "C" by SystemC):
// the coherence library links SystemC through the cluster's side.
extern "C" int sc_main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  static ScaleSettings settings;
  if (!read_settings(argc, argv, settings)) return 1;
  std::vector<ProtocolVariant> variants;
  for (const auto& protocol : npuvp::coherence::protocol_names()) variants.push_back({protocol, protocol, {}});
  variants.push_back({"mesi/thesis_baseline", "mesi", {{"thesis_baseline", "true"}}});
  variants.push_back({"nsi/validation=data", "nsi", {{"validation", "data"}}});
  for (const auto& variant : variants)
    benchmark::RegisterBenchmark(("BM_CoherenceAtScale/" + variant.name).c_str(), BM_CoherenceAtScale, variant, settings)
        ->Iterations(1)
        ->Unit(benchmark::kSecond)
        ->UseRealTime();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
