// npuvp: the command-line front end. See docs/cli.md.
#include "core/simulation.h"
#include "platform/simulator.h"
#include "platform/stats_diff.h"

#include <systemc>

#include <cstdlib>
#include <cstring>
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
  npuvp params [SCENARIO.yaml] [--set ...] [--markdown]
                                      list every parameter (default, unit, meaning)
  npuvp stats diff A.json B.json [--match PATTERN]... [--threshold R] [--all]
                                      the statistics that changed between two runs, B/A
  npuvp --help | --version

options:
  --set NAME=VALUE   set a parameter (repeatable; a leading "soc." may be omitted)
  --stats FILE       write statistics as JSON (also on errors)
  --trace FILE       write a timeline (Chrome/Perfetto JSON: ui.perfetto.dev) of AI Core
                     pipes, task blocks and host/TS notifications
  --vcd FILE         write a waveform (VCD, GTKWave): AI Core pipe busy/waiting, interrupt
                     lines, ring link activity
  --vcd-match PAT    record only signals whose name matches PAT (repeatable, e.g. 'soc.ring.*')
  --quiet            do not print the statistics table at exit

exit status: 0 pass; the guest's exit code for a bare ELF; 1 a failed check;
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
      } else if (argument == "--stats") {
        options.stats_path = value("--stats");
      } else if (argument == "--trace" && command == "run") {
        options.trace_path = value("--trace");
      } else if (argument == "--vcd" && command == "run") {
        options.vcd_path = value("--vcd");
      } else if (argument == "--vcd-match" && command == "run") {
        options.vcd_patterns.push_back(value("--vcd-match"));
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
  return npuvp::run_simulation(options);
}
