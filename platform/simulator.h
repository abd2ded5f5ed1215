// Runs one scenario end to end: configure, build the platform, load images,
// simulate within the limits, check the outcome, report. One per process.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace npuvp {

struct RunOptions {
  std::string scenario_path;  // or
  std::string elf_path;       // a bare ELF on the default platform
  bool cluster = false;       // --cluster: the bare ELF is a `core: cluster` image (sets soc.cluster.enable)
  std::vector<std::pair<std::string, std::string>> settings;  // --set name=value
  std::string stats_path;     // --stats FILE (JSON)
  std::string trace_path;     // --trace FILE (Chrome/Perfetto timeline JSON)
  unsigned long long trace_ring = 0;  // --trace-ring N: shorthand for soc.ring.trace_every (0: not given)
  std::string trace_coherence;        // --trace-coherence START:END (hex): soc.cluster.trace_coherence_start/_end
  std::string vcd_path;       // --vcd FILE (waveform)
  std::vector<std::string> vcd_patterns;  // --vcd-match PATTERN: signals to record (none: all)
  std::string itrace_path;    // --itrace FILE ("-": standard output): instruction trace
  std::vector<std::string> itrace_cores;      // --itrace-cores PATTERN: cores to trace (none: all)
  std::vector<std::string> itrace_pc_ranges;  // --itrace-pc START:END (hexadecimal, END exclusive)
  unsigned long long itrace_limit = 0;        // --itrace-limit N instructions (0: no limit)
  bool quiet = false;         // no statistics table
  int gdb_port = -1;          // --gdb PORT: GDB remote protocol server (0: any free port; -1: none)
  bool gdb_wait = true;       // --gdb-no-wait clears it: run before gdb attaches
};

// Returns the process exit status (see ExitStatus and docs/cli.md).
int run_simulation(const RunOptions& options);

class HostPlatform;
struct Scenario;

// What a command built on a simulation (npuvp infer) adds to a run's stages
// (platform/simulator.cpp, class Run): load the scenario -> configure -> build
// the platform -> platform_built -> load images, patches and preloads -> attach
// observability -> run -> after_run -> close the observers -> judge -> report.
struct RunHooks {
  // Once the platform is built (parameters final), before images and preloads
  // are loaded: may add preloads or patches to the scenario.
  std::function<void(HostPlatform&, Scenario&)> platform_built;
  // After the simulation stopped, before the trace closes (it may add to the
  // timeline). Throws SimulationError to fail the run.
  std::function<void(HostPlatform&)> after_run;
  // When the guest exited with the expected code and every console check
  // held: the exit status and verdict (default: 0, PASS). With a judge, an
  // unexpected guest exit code is passed through as the exit status.
  std::function<std::pair<int, std::string>()> judge;
  // Before the statistics: prints what the command reports and writes its files (status:
  // the run's). False when a file it was asked for could not be written.
  std::function<bool(int status)> report;
};

// Runs the scenario `make_scenario` returns (called inside the run's error
// handling: a ConfigError it throws is reported as bad input).
int run_scenario(const std::function<Scenario()>& make_scenario, const RunOptions& options, const RunHooks& hooks);

// `npuvp params`: prints every parameter (name, type, default, unit, meaning);
// with a scenario or --set, also the value it would run with.
int list_parameters(const RunOptions& options, bool markdown);

}  // namespace npuvp
