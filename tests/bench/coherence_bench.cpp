// `make bench`, coherence part: host speed of the random coherence tester
// (tests/coherence/random_tester.h) on MESI, i.e. of the protocol's real
// controllers under a discrete-event network with random delays.
//
// BM_CoherenceRandomTester/<cores>: 2 M random accesses (50% loads, 35%
// stores, 15% atomics) by <cores> cores to 8 lines, with 1-set x 2-way L1s
// and 1-set x 2-way LLC banks (evictions and recalls all the time), every
// load checked against the reference. Reported: accesses per second of host
// time (`accesses_per_second`, wall clock; `accesses_per_cpu_second`,
// processor time, which other load on the machine does not change),
// messages per access, and
// whether the run passed (a failed run is an error).
#include "coherence/random_tester.h"

#include <benchmark/benchmark.h>

#include <cstdlib>

namespace {

const bool kBannerDisabled = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;

void BM_CoherenceRandomTester(benchmark::State& state) {
  npuvp::coherence::testing::TesterConfig config;
  config.cores = static_cast<unsigned>(state.range(0));
  config.lines = 8;
  config.operations = 2000000;
  config.seed = 2026;
  npuvp::coherence::testing::TesterResult result;
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

}  // namespace

// libsystemc owns main() and calls sc_main (declared extern "C" by SystemC):
// the coherence library links SystemC through the cluster's side.
extern "C" int sc_main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
