// npuvp: the command-line front end. See docs/cli.md.
#include "core/simulation.h"
#include "platform/scenario.h"
#include "platform/simulator.h"
#include "platform/infer.h"
#include "platform/stats_diff.h"
#include "platform/sweep_command.h"

#include <systemc>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <iostream>
#include <string>
#include <vector>

namespace {

// SystemC prints its banner before sc_main runs; this initialiser runs before
// main(), early enough to keep the banner out of guest output.
const bool kBannerDisabled = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;

const char* const kUsage = R"(npuvp - virtual platform of an Ascend-like AI SoC

usage:
  npuvp run SCENARIO.yaml [options]   run a scenario (images, parameters, limits, checks)
  npuvp run --elf FILE.elf [options]  run a bare RISC-V ELF on the default platform
  npuvp run --elf FILE.elf --cluster  run a bare SMP ELF (built for qemu-system-riscv64
                                      -M virt -smp 16 -bios none) on the 16-core mesh cluster
  npuvp infer MODEL.onnx --input X.npy [--output Y.npy] [--reference R.npy]
              [--profile LAYERS.csv] [--set ...] [--trace T.json] [--stats S.json] [--quiet]
              [--no-double-buffering]
                                      compile an ONNX model for the configured SoC, run it
                                      through the driver and the AI Cores, write its output
                                      and print a per-layer report (docs/networks.md)
  npuvp params [SCENARIO.yaml] [--set ...] [--markdown]
                                      list every parameter (default, unit, meaning)
  npuvp stats diff A.json B.json [--match PATTERN]... [--threshold R] [--all]
                                      the statistics that changed between two runs, B/A
  npuvp sweep STUDY.yaml [--engine local|slurm] [--out DIR] [--limit N] [--retry N] ...
                                      run an exploration study: one table, plots
                                      (docs/exploration.md; npuvp sweep --help)
  npuvp --help | --version

options:
  --set NAME=VALUE   set a parameter (repeatable; a leading "soc." may be omitted)
  --stats FILE       write statistics as JSON (also on errors)
  --trace FILE       write a timeline (Chrome/Perfetto JSON: ui.perfetto.dev) of AI Core
                     pipes, task blocks, task-scheduler dispatches and host/TS notifications
  --trace-ring N     with --trace: every N-th ring transaction as a slice (default 0: none)
  --trace-coherence S:E
                     with --trace: mesh-cluster L1 misses to lines in [S, E) (hexadecimal)
  --vcd FILE         write a waveform (VCD, GTKWave): AI Core pipe busy/waiting, interrupt
                     lines, ring link activity, mesh link activity
  --vcd-match PAT    record only signals whose name matches PAT (repeatable, e.g. 'soc.ring.*')
  --itrace FILE      write an instruction trace ('-': standard output): per executed
                     instruction core, cycle, time, pc, encoding, disassembly, registers written
  --itrace-cores PAT trace only cores whose name matches PAT (repeatable, e.g. 'soc.aicore*')
  --itrace-pc S:E    trace only pcs in [S, E) (hexadecimal, repeatable)
  --itrace-limit N   stop tracing after N instructions (all cores together)
  --gdb PORT         serve the GDB remote protocol on 127.0.0.1:PORT (0: any free port),
                     every core a thread; the run waits for gdb before the first instruction
  --gdb-no-wait      with --gdb: run at once; gdb may attach (and stop the run) any time
  --quiet            do not print the statistics table at exit

exit status: 0 pass; the guest's exit code for a bare ELF (and infer's program when it
fails: 3 a kernel fault, 4 a bad package, 5 a missing kernel, 6 no device memory); 1 a failed check;
124 a run limit; 125 bad input; 126 a guest error the platform cannot continue
from; 127 an internal error; 130 interrupted.
)";

int usage_error(const std::string& message) {
  std::cerr << "npuvp: error: " << message << "\nRun `npuvp --help` for usage.\n";
  return static_cast<int>(npuvp::ExitStatus::kBadInput);
}

// npuvp stats diff A.json B.json [--match PATTERN]... [--threshold R] [--all]
int stats_command(int argc, char** argv) {
  if (argc < 3 || std::strcmp(argv[2], "diff") != 0) return usage_error("`npuvp stats` knows one subcommand: diff");
  npuvp::StatsDiffOptions options;
  std::vector<std::string> files;
  for (int i = 3; i < argc; ++i) {
    std::string argument = argv[i];
    if (argument == "--match" || argument == "--threshold") {
      if (i + 1 >= argc) return usage_error(argument + " needs a value");
      std::string value = argv[++i];
      if (argument == "--match") {
        options.patterns.push_back(value);
      } else {
        char* end = nullptr;
        options.threshold = std::strtod(value.c_str(), &end);
        if (end == value.c_str() || *end || options.threshold < 0)
          return usage_error("--threshold expects a non-negative number (0.05 = 5 %), got '" + value + "'");
      }
    } else if (argument == "--all") {
      options.include_unchanged = true;
    } else if (!argument.empty() && argument[0] == '-') {
      return usage_error("unknown option '" + argument + "'");
    } else {
      files.push_back(argument);
    }
  }
  if (files.size() != 2) return usage_error("`npuvp stats diff` needs two statistics files (A.json B.json)");
  options.before_path = files[0];
  options.after_path = files[1];
  return npuvp::stats_diff(options, std::cout, std::cerr);
}

// npuvp infer MODEL.onnx --input X.npy [--output Y.npy] [--reference R.npy] [--profile F.csv]
//             [--set N=V]... [--trace F] [--stats F] [--quiet] [--no-double-buffering]
int infer_command(int argc, char** argv) {
  npuvp::InferOptions infer;
  npuvp::RunOptions options;
  for (int i = 2; i < argc; ++i) {
    std::string argument = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(argument + " needs a value");
      return argv[++i];
    };
    try {
      if (argument == "--input") infer.input_path = value();
      else if (argument == "--output") infer.output_path = value();
      else if (argument == "--reference") infer.reference_path = value();
      else if (argument == "--profile") infer.profile_path = value();
      else if (argument == "--trace") options.trace_path = value();
      else if (argument == "--stats") options.stats_path = value();
      else if (argument == "--quiet" || argument == "-q") options.quiet = true;
      else if (argument == "--no-double-buffering") infer.double_buffering = false;
      else if (argument == "--set") {
        std::string setting = value();
        auto equals = setting.find('=');
        if (equals == std::string::npos || equals == 0)
          return usage_error("--set expects NAME=VALUE, got '" + setting + "'");
        options.settings.emplace_back(setting.substr(0, equals), setting.substr(equals + 1));
      } else if (!argument.empty() && argument[0] == '-') {
        return usage_error("unknown option '" + argument + "' for `npuvp infer`");
      } else if (infer.model_path.empty()) {
        infer.model_path = argument;
      } else {
        return usage_error("unexpected argument '" + argument + "'");
      }
    } catch (const std::runtime_error& error) {
      return usage_error(error.what());
    }
  }
  if (infer.model_path.empty()) return usage_error("`npuvp infer` needs a model (MODEL.onnx)");
  if (infer.input_path.empty()) return usage_error("`npuvp infer` needs --input X.npy");
  return npuvp::run_infer(infer, options);
}

// `npuvp run SCENARIO` of a scenario with an `infer:` section runs it as npuvp infer does.
// A scenario that does not load is left to run_simulation, which reports why.
int run_command(const npuvp::RunOptions& options) {
  if (!options.scenario_path.empty()) {
    std::optional<npuvp::Scenario> scenario;
    try {
      scenario = npuvp::Scenario::from_file(options.scenario_path);
    } catch (const npuvp::SimulationError&) {
    }
    if (scenario && scenario->infer) return npuvp::run_infer_scenario(*scenario, options);
  }
  return npuvp::run_simulation(options);
}

}  // namespace

int sc_main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    std::cout << kUsage;
    return argc < 2 ? static_cast<int>(npuvp::ExitStatus::kBadInput) : 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::cout << "npuvp " << NPUVP_VERSION << " (SystemC " << sc_core::sc_release() << ")\n";
    return 0;
  }
  std::string command = argv[1];
  if (command == "stats") return stats_command(argc, argv);
  if (command == "infer") return infer_command(argc, argv);
  if (command == "sweep") return npuvp::sweep_command(argc, argv);
  if (command != "run" && command != "params") return usage_error("unknown command '" + command + "'");

  npuvp::RunOptions options;
  bool markdown = false;
  for (int i = 2; i < argc; ++i) {
    std::string argument = argv[i];
    auto value = [&](const char* option) -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(std::string(option) + " needs a value");
      return argv[++i];
    };
    try {
      if (argument == "--set") {
        std::string setting = value("--set");
        auto equals = setting.find('=');
        if (equals == std::string::npos || equals == 0)
          return usage_error("--set expects NAME=VALUE, got '" + setting + "'");
        options.settings.emplace_back(setting.substr(0, equals), setting.substr(equals + 1));
      } else if (argument == "--elf") {
        options.elf_path = value("--elf");
      } else if (argument == "--cluster" && command == "run") {
        options.cluster = true;
      } else if (argument == "--stats") {
        options.stats_path = value("--stats");
      } else if (argument == "--trace" && command == "run") {
        options.trace_path = value("--trace");
      } else if (argument == "--trace-ring" && command == "run") {
        std::string every = value("--trace-ring");
        char* end = nullptr;
        options.trace_ring = std::strtoull(every.c_str(), &end, 10);
        if (every.empty() || *end || every[0] == '-')
          return usage_error("--trace-ring expects a number N (every N-th ring transaction; 0: none), got '" + every +
                             "'");
      } else if (argument == "--trace-coherence" && command == "run") {
        options.trace_coherence = value("--trace-coherence");
      } else if (argument == "--vcd" && command == "run") {
        options.vcd_path = value("--vcd");
      } else if (argument == "--vcd-match" && command == "run") {
        options.vcd_patterns.push_back(value("--vcd-match"));
      } else if (argument == "--itrace" && command == "run") {
        options.itrace_path = value("--itrace");
      } else if (argument == "--itrace-cores" && command == "run") {
        options.itrace_cores.push_back(value("--itrace-cores"));
      } else if (argument == "--itrace-pc" && command == "run") {
        options.itrace_pc_ranges.push_back(value("--itrace-pc"));
      } else if (argument == "--itrace-limit" && command == "run") {
        std::string limit = value("--itrace-limit");
        char* end = nullptr;
        options.itrace_limit = std::strtoull(limit.c_str(), &end, 10);
        if (limit.empty() || *end || limit[0] == '-' || options.itrace_limit == 0)
          return usage_error("--itrace-limit expects a positive number of instructions, got '" + limit + "'");
      } else if (argument == "--gdb" && command == "run") {
        std::string port = value("--gdb");
        char* end = nullptr;
        long number = std::strtol(port.c_str(), &end, 10);
        if (port.empty() || *end || number < 0 || number > 65535)
          return usage_error("--gdb expects a TCP port number (0..65535; 0 picks a free one), got '" + port + "'");
        options.gdb_port = static_cast<int>(number);
      } else if (argument == "--gdb-no-wait" && command == "run") {
        options.gdb_wait = false;
      } else if (argument == "--quiet" || argument == "-q") {
        options.quiet = true;
      } else if (argument == "--markdown" && command == "params") {
        markdown = true;
      } else if (!argument.empty() && argument[0] == '-') {
        return usage_error("unknown option '" + argument + "'");
      } else if (options.scenario_path.empty()) {
        options.scenario_path = argument;
      } else {
        return usage_error("unexpected argument '" + argument + "'");
      }
    } catch (const std::runtime_error& error) {
      return usage_error(error.what());
    }
  }
  if (command == "params") {
    try {
      return npuvp::list_parameters(options, markdown);
    } catch (const npuvp::SimulationError& error) {
      std::cerr << "npuvp: error: " << error.what() << "\n";
      return static_cast<int>(error.status());
    }
  }
  if (options.scenario_path.empty() == options.elf_path.empty())
    return usage_error("`npuvp run` needs either a scenario file or --elf FILE");
  if (options.cluster && options.elf_path.empty())
    return usage_error("--cluster goes with --elf FILE (a scenario selects the cluster with `core: cluster` on its image)");
  return run_command(options);
}
