// npuvp: the command-line front end. See docs/cli.md.
//
// Every option is declared once (OptionTable::add below: name, value, help,
// the option it goes with); Boost.Program_options parses them, and the help
// text and the errors (exit status 125) are generated from the declarations.
#include "core/simulation.h"
#include "npuvp/compiler/compiler.h"
#include "platform/infer.h"
#include "platform/scenario.h"
#include "platform/simulator.h"
#include "platform/stats_diff.h"
#include "platform/sweep_command.h"

#include <boost/program_options.hpp>
#include <systemc>

#include <cstdlib>
#include <csignal>
#include <exception>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace po = boost::program_options;

namespace {

// SystemC prints its banner before sc_main runs; this initialiser runs before
// main(), early enough to keep the banner out of guest output.
const bool kBannerDisabled = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;

const char* const kCommands = R"(npuvp - virtual platform of an Ascend-like AI SoC

usage:
  npuvp run SCENARIO.yaml [options]   run a scenario (images, parameters, limits, checks)
  npuvp run --elf FILE.elf [options]  run a bare RISC-V ELF on the default platform
  npuvp run --elf FILE.elf --cluster  run a bare SMP ELF (built for qemu-system-riscv64
                                      -M virt -smp 16 -bios none) on the 16-core mesh cluster
  npuvp infer MODEL.onnx --input X.npy [--output Y.npy] [--reference R.npy [--cosine-min C] [--top1]]
              [--profile LAYERS.csv] [--set ...] [--trace T.json] [--stats S.json] [--quiet]
              [--no-double-buffering] [--no-l2] [--no-pinned-weights] [--streams N]
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
)";

const char* const kExitStatus = R"(
exit status: 0 pass; the guest's exit code for a bare ELF (and infer's program when it
fails: 3 a kernel fault, 4 a bad package, 5 a missing kernel, 6 no device memory); 1 a failed check;
124 a run limit; 125 bad input; 126 a guest error the platform cannot continue
from; 127 an internal error; 130 interrupted (SIGINT); 143 terminated (SIGTERM).
Every bad input with its message and status: docs/errors.md.
)";

// A bad command line: the message, then exit status 125 (main prints it).
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int usage_error(const std::string& message) {
  std::cerr << "npuvp: error: " << message << " (`npuvp --help` for usage)\n";  // one line, as every error
  return static_cast<int>(npuvp::ExitStatus::kBadInput);
}

// ---- values checked as the command line is read -----------------------------------------------

bool parse_count(const std::string& text, unsigned long long& value) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 19) return false;
  value = std::stoull(text);
  return true;
}

// A value read as text and converted by `parse` into `target`; a text it
// refuses is an error "<option> <expects>, got '<text>'".
template <typename T>
po::typed_value<std::string>* checked(const char* value_name, T& target, std::function<bool(const std::string&, T&)> parse,
                                      std::string expects) {
  return po::value<std::string>()->value_name(value_name)->notifier([&target, parse, expects](const std::string& text) {
    if (!parse(text, target)) throw UsageError(expects + ", got '" + text + "'");
  });
}

// --set NAME=VALUE, repeatable.
po::typed_value<std::vector<std::string>>* settings(npuvp::RunOptions& options) {
  return po::value<std::vector<std::string>>()->value_name("NAME=VALUE")->notifier(
      [&options](const std::vector<std::string>& all) {
        for (const auto& setting : all) {
          const auto equals = setting.find('=');
          if (equals == std::string::npos || equals == 0)
            throw UsageError("--set expects NAME=VALUE, got '" + setting + "'");
          options.settings.emplace_back(setting.substr(0, equals), setting.substr(equals + 1));
        }
      });
}

// A repeatable option collected into `target`.
po::typed_value<std::vector<std::string>>* each(const char* value_name, std::vector<std::string>& target) {
  return po::value<std::vector<std::string>>(&target)->value_name(value_name);
}

po::typed_value<std::string>* text(const char* value_name, std::string& target) {
  return po::value<std::string>(&target)->value_name(value_name);
}

// ---- the declarations -------------------------------------------------------------------------

constexpr unsigned kHelpWidth = 100;  // columns of --help

// A command's options: each declared once with its value, its help and the
// option it goes with (using it without that one is an error naming both).
class OptionTable {
 public:
  OptionTable() = default;

  // `name`: "long" or "long,s" (with a one-letter form). `needs`: the long
  // name of the option this one goes with.
  OptionTable& add(const std::string& section, const char* name, const po::value_semantic* value, const char* help,
                   const char* needs = nullptr) {
    po::options_description& options = section_for(section);
    const std::string described = needs ? "with --" + std::string(needs) + ": " + help : std::string(help);
    options.add_options()(name, value, described.c_str());
    const std::string long_name = std::string(name).substr(0, std::string(name).find(','));
    value_names_[long_name] = options.options().back()->format_parameter();
    if (needs) requirements_.emplace_back(long_name, needs);
    return *this;
  }
  OptionTable& flag(const std::string& section, const char* name, bool& target, const char* help,
                    const char* needs = nullptr) {
    return add(section, name, po::bool_switch(&target), help, needs);
  }

  // The help of every section, in declaration order.
  void print(std::ostream& out) const {
    for (const auto& [name, section] : sections_) out << "\n" << *section;
  }

  // Options of `command` (the sections it takes) from `arguments`; positional
  // arguments go to `operands`. Throws UsageError.
  void parse(const std::string& command, const std::vector<std::string>& sections,
             const std::vector<std::string>& arguments, std::vector<std::string>& operands) const {
    po::options_description allowed;
    for (const auto& name : sections) allowed.add(*find_section(name));
    po::options_description hidden;
    hidden.add_options()("operand", po::value<std::vector<std::string>>(&operands));
    po::options_description everything;
    everything.add(allowed).add(hidden);
    po::positional_options_description positional;
    positional.add("operand", -1);
    po::variables_map values;
    try {
      const int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
      po::store(po::command_line_parser(arguments).options(everything).positional(positional).style(style).run(),
                values);
      po::notify(values);
    } catch (const po::unknown_option& error) {
      throw UsageError("unknown option '" + error.get_option_name() + "' for `npuvp " + command + "`");
    } catch (const po::error& error) {
      throw UsageError(error.what());
    }
    check_requirements(values);
  }

 private:
  po::options_description& section_for(const std::string& name) {
    for (auto& [caption, section] : sections_)
      if (caption == name) return *section;
    sections_.emplace_back(name, std::make_unique<po::options_description>(name, kHelpWidth, kHelpWidth / 2));
    return *sections_.back().second;
  }
  const po::options_description* find_section(const std::string& name) const {
    for (const auto& [caption, section] : sections_)
      if (caption == name) return section.get();
    throw std::logic_error("no option section '" + name + "'");
  }

  // "--trace-ring and --trace-coherence go with --trace FILE": every option
  // that goes with the missing one is named.
  void check_requirements(const po::variables_map& values) const {
    for (const auto& [option, needed] : requirements_) {
      if (!values.count(option) || values[option].defaulted() || values.count(needed)) continue;
      std::vector<std::string> companions;
      for (const auto& [other, other_needs] : requirements_)
        if (other_needs == needed) companions.push_back("--" + other);
      std::string names;
      for (std::size_t i = 0; i < companions.size(); ++i)
        names += (i == 0 ? "" : i + 1 == companions.size() ? " and " : ", ") + companions[i];
      const std::string& parameter = value_names_.at(needed);
      throw UsageError(names + (companions.size() == 1 ? " goes" : " go") + " with --" + needed +
                       (parameter.empty() ? "" : " " + parameter));
    }
  }

  std::vector<std::pair<std::string, std::unique_ptr<po::options_description>>> sections_;  // caption, options
  std::map<std::string, std::string> value_names_;  // long name -> "FILE", "N", ... ("" for a flag)
  std::vector<std::pair<std::string, std::string>> requirements_;
};

// What the command line says, for every command.
struct CommandLine {
  npuvp::RunOptions run;
  npuvp::InferOptions infer;
  npuvp::StatsDiffOptions diff;
  bool markdown = false;
  bool no_double_buffering = false;
  bool no_l2 = false, no_pinned_weights = false;
  bool no_wait = false;
  std::vector<std::string> operands;
};

// Section names: a command takes the sections listed for it in sc_main.
const char* const kConfiguration = "configuration";
const char* const kOutput = "output (run, infer)";
const char* const kRun = "run";
const char* const kObservability = "observability (run)";
const char* const kInfer = "infer";
const char* const kParams = "params";
const char* const kStatsDiff = "stats diff";

OptionTable declare_options(CommandLine& line) {
  npuvp::RunOptions& run = line.run;
  OptionTable table;
  table.add(kConfiguration, "set", settings(run), "set a parameter (repeatable; a leading \"soc.\" may be omitted)");
  table.add(kOutput, "stats", text("FILE", run.stats_path), "write statistics as JSON (also on errors)")
      .add(kOutput, "trace", text("FILE", run.trace_path),
           "write a timeline (Chrome/Perfetto JSON: ui.perfetto.dev) of AI Core pipes, task blocks, "
           "task-scheduler dispatches and host/TS notifications")
      .flag(kOutput, "quiet,q", run.quiet, "do not print the statistics table at exit");
  table.add(kRun, "elf", text("FILE", run.elf_path), "run a bare RISC-V ELF on the default platform")
      .flag(kRun, "cluster", run.cluster, "boot the ELF on the 16 harts of the mesh cluster (host CPU parked)", "elf");
  table
      .add(kObservability, "trace-ring",
           checked<unsigned long long>("N", run.trace_ring, parse_count,
                                       "--trace-ring expects a number N (every N-th ring transaction; 0: none)"),
           "every N-th ring transaction as a slice (default 0: none; soc.ring.trace_every)", "trace")
      .add(kObservability, "trace-coherence", text("S:E", run.trace_coherence),
           "mesh-cluster L1 misses to lines in [S, E) (hexadecimal; soc.cluster.trace_coherence_*)", "trace")
      .add(kObservability, "vcd", text("FILE", run.vcd_path),
           "write a waveform (VCD, GTKWave): AI Core pipe busy/waiting, interrupt lines, ring link activity, "
           "mesh link activity")
      .add(kObservability, "vcd-match", each("PATTERN", run.vcd_patterns),
           "record only signals whose name matches PATTERN (repeatable, e.g. 'soc.ring.*')", "vcd")
      .add(kObservability, "itrace", text("FILE", run.itrace_path),
           "write an instruction trace ('-': standard output): per executed instruction core, cycle, time, pc, "
           "encoding, disassembly, registers written")
      .add(kObservability, "itrace-cores", each("PATTERN", run.itrace_cores),
           "trace only cores whose name matches PATTERN (repeatable, e.g. 'soc.aicore*')", "itrace")
      .add(kObservability, "itrace-pc", each("S:E", run.itrace_pc_ranges),
           "trace only pcs in [S, E) (hexadecimal, repeatable)", "itrace")
      .add(kObservability, "itrace-limit",
           checked<unsigned long long>(
               "N", run.itrace_limit,
               [](const std::string& text, unsigned long long& value) { return parse_count(text, value) && value > 0; },
               "--itrace-limit expects a positive number of instructions"),
           "stop tracing after N instructions (all cores together)", "itrace")
      .add(kObservability, "gdb",
           checked<int>("PORT", run.gdb_port,
                        [](const std::string& text, int& port) {
                          unsigned long long value = 0;
                          if (!parse_count(text, value) || value > 65535) return false;
                          port = static_cast<int>(value);
                          return true;
                        },
                        "--gdb expects a TCP port number (0..65535; 0 picks a free one)"),
           "serve the GDB remote protocol on 127.0.0.1:PORT (0: any free port), every core a thread; the run waits "
           "for gdb before the first instruction")
      .flag(kObservability, "gdb-no-wait", line.no_wait, "run at once; gdb may attach (and stop the run) any time",
            "gdb");
  npuvp::InferOptions& infer = line.infer;
  table.add(kInfer, "input", text("X.npy", infer.input_path), "the model's input (its shape; float32, float16 or float64)")
      .add(kInfer, "output", text("Y.npy", infer.output_path), "write the model's output (float32)")
      .add(kInfer, "reference", text("R.npy", infer.reference_path),
           "compare the output with it (cosine, max abs error, top-1)")
      .add(kInfer, "cosine-min",
           checked<std::optional<double>>(
               "C", infer.cosine_min,
               [](const std::string& text, std::optional<double>& value) {
                 char* end = nullptr;
                 const double cosine = std::strtod(text.c_str(), &end);
                 if (end == text.c_str() || *end || !(cosine >= -1.0 && cosine <= 1.0)) return false;
                 value = cosine;
                 return true;
               },
               "--cosine-min expects a cosine similarity -1 .. 1 (e.g. 0.999)"),
           "fail (exit status 1) when the output's cosine similarity with the reference is below C", "reference")
      .flag(kInfer, "top1", infer.top1,
            "fail (exit status 1) when the top-1 index (arg-max over the last axis, per row) differs from the "
            "reference's",
            "reference")
      .add(kInfer, "profile", text("FILE", infer.profile_path), "the per-layer report as CSV")
      .add(kInfer, "streams",
           checked<unsigned>("N", infer.streams,
                             [](const std::string& text, unsigned& streams) {
                               unsigned long long value = 0;
                               if (!parse_count(text, value) || value < 1 || value > npuvp::compiler::kMaxStreams) return false;
                               streams = static_cast<unsigned>(value);
                               return true;
                             },
                             "--streams expects a number of streams 1 .. " +
                                 std::to_string(npuvp::compiler::kMaxStreams)),
           "replay the layers on up to N streams: independent branches run concurrently, joined by events "
           "(default 1)")
      .flag(kInfer, "no-double-buffering", line.no_double_buffering,
            "compile without double buffering (for measuring what it gains)")
      .flag(kInfer, "no-l2", line.no_l2,
            "compile with every activation and weight in DDR, none in the L2 buffer (for measuring what it gains)")
      .flag(kInfer, "no-pinned-weights", line.no_pinned_weights,
            "compile with every weight in DDR, none pinned in the L2 buffer (for measuring what pinning gains)");
  table.flag(kParams, "markdown", line.markdown, "print the table of docs/parameters.md");
  npuvp::StatsDiffOptions& diff = line.diff;
  table.add(kStatsDiff, "match", each("PATTERN", diff.patterns), "keep statistics whose name matches PATTERN (repeatable)")
      .add(kStatsDiff, "threshold",
           checked<double>("R", diff.threshold,
                           [](const std::string& text, double& value) {
                             char* end = nullptr;
                             value = std::strtod(text.c_str(), &end);
                             return end != text.c_str() && !*end && value >= 0;
                           },
                           "--threshold expects a non-negative number (0.05 = 5 %)"),
           "keep changes of at least R relative to the larger value (0.05 = 5 %)")
      .flag(kStatsDiff, "all", diff.include_unchanged, "list unchanged statistics too");
  return table;
}

void print_help(const OptionTable& table) {
  std::cout << kCommands;
  table.print(std::cout);
  std::cout << kExitStatus;
}

// ---- the commands -----------------------------------------------------------------------------

// `npuvp run SCENARIO` of a scenario with an `infer:` section runs it as npuvp infer does.
// A scenario that does not load is left to run_simulation, which reports why.
// The scenario file is read once: a pipe (`cat s.yaml | npuvp run /dev/stdin`) has nothing left for
// a second read.
int run_command(const npuvp::RunOptions& options) {
  if (options.scenario_path.empty()) return npuvp::run_simulation(options);
  std::optional<npuvp::Scenario> scenario;
  std::exception_ptr unloadable;
  try {
    scenario = npuvp::Scenario::from_file(options.scenario_path);
  } catch (const npuvp::SimulationError&) {
    unloadable = std::current_exception();
  }
  if (scenario && scenario->infer) return npuvp::run_infer_scenario(*scenario, options);
  return npuvp::run_scenario(
      [&]() -> npuvp::Scenario {
        if (unloadable) std::rethrow_exception(unloadable);  // reported as the run's bad input
        return *scenario;
      },
      options, {});
}

// At most one operand (a scenario or model file): its path, or empty.
std::string single_operand(const std::vector<std::string>& operands) {
  if (operands.size() > 1) throw UsageError("unexpected argument '" + operands[1] + "'");
  return operands.empty() ? std::string() : operands[0];
}

int dispatch(const std::string& command, const std::vector<std::string>& arguments) {
  CommandLine line;
  const OptionTable table = declare_options(line);
  npuvp::RunOptions& run = line.run;
  for (const auto& argument : arguments)
    if (argument == "--help" || argument == "-h") {
      print_help(table);
      return 0;
    }
  if (command == "run") {
    table.parse(command, {kConfiguration, kOutput, kRun, kObservability}, arguments, line.operands);
    run.scenario_path = single_operand(line.operands);
    run.gdb_wait = !line.no_wait;
    if (run.scenario_path.empty() == run.elf_path.empty())
      throw UsageError("`npuvp run` needs either a scenario file or --elf FILE");
    return run_command(run);
  }
  if (command == "infer") {
    table.parse(command, {kConfiguration, kOutput, kInfer}, arguments, line.operands);
    line.infer.model_path = single_operand(line.operands);
    line.infer.double_buffering = !line.no_double_buffering;
    line.infer.l2_activations = !line.no_l2;
    line.infer.pin_weights = !line.no_l2 && !line.no_pinned_weights;
    if (line.infer.model_path.empty()) throw UsageError("`npuvp infer` needs a model (MODEL.onnx)");
    if (line.infer.input_path.empty()) throw UsageError("`npuvp infer` needs --input X.npy");
    return npuvp::run_infer(line.infer, run);
  }
  if (command == "params") {
    table.parse(command, {kConfiguration, kParams}, arguments, line.operands);
    run.scenario_path = single_operand(line.operands);
    try {
      return npuvp::list_parameters(run, line.markdown);
    } catch (const npuvp::SimulationError& error) {
      std::cerr << "npuvp: error: " << error.what() << "\n";
      return static_cast<int>(error.status());
    }
  }
  if (command == "stats") {
    if (arguments.empty() || arguments[0] != "diff") throw UsageError("`npuvp stats` knows one subcommand: diff");
    table.parse("stats diff", {kStatsDiff}, {arguments.begin() + 1, arguments.end()}, line.operands);
    if (line.operands.size() != 2) throw UsageError("`npuvp stats diff` needs two statistics files (A.json B.json)");
    line.diff.before_path = line.operands[0];
    line.diff.after_path = line.operands[1];
    return npuvp::stats_diff(line.diff, std::cout, std::cerr);
  }
  throw UsageError("unknown command '" + command + "'");
}

}  // namespace

int sc_main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    CommandLine line;
    print_help(declare_options(line));
    return argc < 2 ? static_cast<int>(npuvp::ExitStatus::kBadInput) : 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::cout << "npuvp " << NPUVP_VERSION << " (SystemC " << sc_core::sc_release() << ")\n";
    return 0;
  }
  const std::string command = argv[1];
  // The sweep engine reads its own command line (tools/npuvp_sweep).
  if (command == "sweep") return npuvp::sweep_command(argc, argv);
  // A reader that stops early (`| head`) must not kill the run: writes to the closed pipe fail
  // instead, the run goes on and still writes its statistics, and a warning says what was lost.
  std::signal(SIGPIPE, SIG_IGN);
  int status;
  try {
    status = dispatch(command, std::vector<std::string>(argv + 2, argv + argc));
  } catch (const UsageError& error) {
    return usage_error(error.what());
  }
  if (!std::cout.flush() || std::fflush(stdout) != 0 || std::ferror(stdout))
    std::cerr << "npuvp: warning: standard output was closed during the run: the console output after that is lost\n";
  return status;
}
