#include "platform/simulator.h"

#include "core/console.h"
#include "core/parameters.h"
#include "core/simulation.h"
#include "core/timeline.h"
#include "core/waveform.h"
#include "cpu/instruction_trace.h"
#include "core/statistics.h"
#include "core/text.h"
#include "mem/elf_image.h"
#include "npu/numerics.h"
#include "platform/host_platform.h"
#include "platform/kernel_launcher.h"
#include "platform/load_placement.h"
#include "platform/output_file.h"
#include "platform/scenario.h"
#include "cpu/gdb_server.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <functional>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>

namespace npuvp {

namespace {

// Simulation-wide parameters (not owned by any model).
struct SimulationParameters {
  Parameter<sc_core::sc_time> quantum{"sim.quantum", sc_core::sc_time(10, sc_core::SC_US), "time",
                                      "temporal-decoupling quantum: how far a core may run ahead of SystemC time"};
  Parameter<sc_core::sc_time> limit_sim_time{"sim.limit.sim_time", sc_core::SC_ZERO_TIME, "time",
                                             "stop with an error at this simulated time (0 = no limit)"};
  Parameter<std::uint64_t> limit_instructions{"sim.limit.instructions", 0, "instructions",
                                              "stop with an error after this many instructions, all cores (0 = no limit)"};
  Parameter<sc_core::sc_time> limit_wall_time{"sim.limit.wall_time", sc_core::SC_ZERO_TIME, "time",
                                              "stop with an error after this much host time (0 = no limit)"};
};

void on_interrupt_signal(int signal_number) { SimulationControl::request_interrupt(signal_number); }

// --itrace and its filters (the cores' tracers attach at start of simulation).
void open_instruction_trace(const RunOptions& options) {
  if (options.itrace_path.empty()) return;  // its filters go with it (checked by the command line)
  InstructionTraceOptions trace;
  trace.path = options.itrace_path;
  trace.cores = options.itrace_cores;
  for (const auto& range : options.itrace_pc_ranges) trace.pc_ranges.push_back(parse_pc_range(range));
  trace.limit = options.itrace_limit;
  InstructionTrace::instance().open(trace);
}

// --trace-coherence START:END, hexadecimal, END exclusive.
std::pair<std::uint64_t, std::uint64_t> parse_coherence_range(const std::string& text) {
  const std::string usage = "--trace-coherence expects START:END in hexadecimal (e.g. 80000000:80010000), got '";
  const auto colon = text.find(':');
  if (colon == std::string::npos) throw ConfigError(usage + text + "'");
  auto number = [&](std::string digits) {
    if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) digits = digits.substr(2);
    if (digits.empty() || digits.size() > 16 || digits.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
      throw ConfigError(usage + text + "'");
    return static_cast<std::uint64_t>(std::stoull(digits, nullptr, 16));
  };
  const std::uint64_t start = number(text.substr(0, colon)), end = number(text.substr(colon + 1));
  if (end <= start) throw ConfigError("--trace-coherence " + text + ": END must be above START (the range is [START, END))");
  return {start, end};
}

// Deterministic preload contents: a file, or random elements (floats in
// [-1, 1), integers in [-8, 8)) from a seeded mt19937_64.
std::vector<std::uint8_t> preload_bytes(const Scenario::Preload& preload) {
  std::vector<std::uint8_t> bytes;
  if (preload.bytes) return *preload.bytes;
  if (!preload.file.empty()) {
    std::ifstream in(preload.file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) throw ConfigError("memory preload: cannot read '" + preload.file + "'");
    return bytes;
  }
  std::mt19937_64 random(preload.seed);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> integer(-8, 7);
  auto append = [&](const void* value, std::size_t size) {
    const auto* p = static_cast<const std::uint8_t*>(value);
    bytes.insert(bytes.end(), p, p + size);
  };
  for (std::uint64_t i = 0; i < preload.count; ++i) {
    if (i % (1u << 20) == 0) simulation().check_wall_time("memory preload");  // limits and Ctrl-C hold while loading
    if (preload.random_type == "f16") {
      std::uint16_t half = numerics::float_to_half(real(random));
      append(&half, 2);
    } else if (preload.random_type == "f32") {
      float value = real(random);
      append(&value, 4);
    } else if (preload.random_type == "s32") {
      std::int32_t value = integer(random);
      append(&value, 4);
    } else {
      std::int8_t value = static_cast<std::int8_t>(integer(random));
      append(&value, 1);
    }
  }
  return bytes;
}

// A `core: cluster` image (--cluster) selects cluster mode; the scenario's
// parameters, then the command line's --set, come after it (later wins).
void apply_settings(const Scenario& scenario, const RunOptions& options) {
  auto& registry = ParameterRegistry::instance();
  if (scenario.uses_cluster()) registry.set_override("soc.cluster.enable", "true", "an image with `core: cluster`");
  for (const auto& setting : scenario.parameters) registry.set_override(setting.name, setting.value, setting.origin);
  for (const auto& [name, value] : options.settings) registry.set_override(name, value, "--set " + name + "=" + value);
}

std::string format_count(std::uint64_t value) {
  std::string digits = std::to_string(value), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// {name: unit} of the statistics that declare a unit (npuvp sweep labels plot axes with them).
nlohmann::json statistic_units(const nlohmann::json& statistics) {
  nlohmann::json units = nlohmann::json::object();
  for (const auto& [name, value] : statistics.items()) {
    const Statistic* statistic = StatisticsRegistry::instance().find(name);
    if (statistic && !statistic->unit().empty()) units[name] = statistic->unit();
  }
  return units;
}

// False (with the error on stderr) when the file could not be written whole: a disk that
// filled up during the run, a folder removed meanwhile.
bool write_stats_file(const std::string& path, const Scenario& scenario, int exit_status) {
  auto& control = simulation();
  nlohmann::json document;
  document["npuvp"] = {{"version", NPUVP_VERSION},
                       {"scenario", scenario.name},
                       {"source", scenario.source},
                       {"exit_status", exit_status},
                       {"guest_exit_code", control.exit_requested() ? nlohmann::json(control.guest_exit_code()) : nlohmann::json()},
                       {"reason", control.reason()},
                       {"sim_time_seconds", control.end_time().to_seconds()},
                       {"wall_seconds", control.wall_seconds()},
                       {"instructions", control.total_instructions()}};
  document["statistics"] = StatisticsRegistry::instance().to_json();
  document["units"] = statistic_units(document["statistics"]);
  std::ofstream out(path);
  // Names, parameter values and messages come from the user's files and may not be UTF-8 (a
  // Latin-1 file name): replaced by U+FFFD rather than an exception from the JSON writer.
  if (out) out << document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n" << std::flush;
  if (!out) {
    std::cerr << "npuvp: error: cannot write statistics to '" << path << "' (" << std::strerror(errno) << ")\n";
    return false;
  }
  return true;
}

// The images a scenario names, read once: the first host image boots the host
// CPU (or the cluster), a `core: ts` image the task scheduler, the kernel of
// an `aicore_launch` the AI Cores.
struct Images {
  std::vector<std::unique_ptr<ElfImage>> host;  // scenario.images, in order
  std::unique_ptr<ElfImage> kernel;
  const ElfImage* boot = nullptr;
  const ElfImage* task_scheduler = nullptr;

  explicit Images(const Scenario& scenario) {
    for (const auto& image : scenario.images) host.push_back(std::make_unique<ElfImage>(image.path));
    if (scenario.kernel_launch) kernel = std::make_unique<ElfImage>(scenario.kernel_launch->path);
    for (std::size_t i = 0; i < host.size(); ++i) {
      if (scenario.images[i].core == "ts") task_scheduler = host[i].get();
      else if (!boot) boot = host[i].get();  // host or cluster: both boot through the boot ROM
    }
  }
  // HTIF's mailboxes are the boot image's `tohost` and `fromhost` words.
  HtifSymbols htif() const { return boot ? HtifSymbols{boot->symbol("tohost"), boot->symbol("fromhost")} : HtifSymbols{}; }
};

HostPlatform::Symbolizer symbolizer_of(const ElfImage& image) {
  return [&image](std::uint64_t address) { return image.symbolize(address); };
}

std::function<std::size_t(std::uint64_t, const std::uint8_t*, std::size_t)> writer_into(HostPlatform& platform) {
  return [&platform](std::uint64_t address, const std::uint8_t* data, std::size_t size) {
    return platform.write_memory(address, data, size);
  };
}

// A scenario's `patches:`: the symbol's object (1, 2, 4 or 8 bytes) gets the value.
void apply_patch(HostPlatform& platform, const ElfImage& image, const std::string& symbol, std::uint64_t value) {
  auto address = image.symbol(symbol);
  auto size = image.symbol_size(symbol).value_or(0);
  if (!address) throw ConfigError("patch: symbol '" + symbol + "' is not in " + image.path());
  if (size != 1 && size != 2 && size != 4 && size != 8)
    throw ConfigError("patch: symbol '" + symbol + "' has size " + std::to_string(size) + "; only 1, 2, 4 or 8-byte objects can be patched");
  std::uint8_t bytes[8];
  std::memcpy(bytes, &value, 8);
  if (platform.write_memory(*address, bytes, size) != size)
    throw ConfigError("patch: symbol '" + symbol + "' at " + hex(*address) + " is not in memory");
}

void apply_preload(HostPlatform& platform, const Scenario::Preload& preload) {
  check_preload_placement(platform, preload);  // before the contents are read or generated
  // Bytes given in memory (npuvp infer's package) are written without a copy.
  const std::vector<std::uint8_t> generated = preload.bytes ? std::vector<std::uint8_t>{} : preload_bytes(preload);
  const std::vector<std::uint8_t>& bytes = preload.bytes ? *preload.bytes : generated;
  if (platform.write_memory(preload.address, bytes.data(), bytes.size()) != bytes.size())
    throw ConfigError("memory preload at " + hex(preload.address) + " (" + std::to_string(bytes.size()) +
                      " bytes) does not fit in one memory");
}

// --trace-ring and --trace-coherence are shorthands for the ring's and the
// cluster's trace parameters (they go with --trace: checked by the command line).
void apply_trace_shorthands(const RunOptions& options) {
  auto& registry = ParameterRegistry::instance();
  if (options.trace_ring)
    registry.set_override("soc.ring.trace_every", std::to_string(options.trace_ring), "--trace-ring");
  if (!options.trace_coherence.empty()) {
    const auto [start, end] = parse_coherence_range(options.trace_coherence);
    registry.set_override("soc.cluster.trace_coherence_start", hex(start), "--trace-coherence");
    registry.set_override("soc.cluster.trace_coherence_end", hex(end), "--trace-coherence");
  }
}

struct Verdict {
  int status;
  std::string text;  // "PASS (...)", "FAIL: ...", or empty when the run failed before the guest exited
};

// One run, stage by stage (run_scenario calls them in order):
// load the scenario -> configure -> build the platform -> load images, patches
// and preloads -> attach observability -> run -> close the observers -> judge
// the checks -> report. A stage that fails records the outcome (exit status
// and reason) and the run goes straight to closing the observers.
class Run {
 public:
  Run(const RunOptions& options, const RunHooks& hooks) : options_(options), hooks_(hooks) {}
  ~Run() {
    if (kernel_broken_) platform_.release();  // SystemC cannot tear down a kernel that threw
  }

  int execute(const std::function<Scenario()>& make_scenario) {
    try {
      load_scenario(make_scenario);
      configure();
      build();
      load_memory();
      attach_observability();
      run();
    } catch (const SimulationError& error) {
      control_.record_failure(error.status(), error.what());
    } catch (const sc_core::sc_report& report) {
      // A SimulationError thrown inside a SystemC process arrives here as a
      // report; the outcome was recorded before it was thrown.
      control_.record_failure(ExitStatus::kInternalError, report.what());
    } catch (const std::exception& error) {
      control_.record_failure(ExitStatus::kInternalError, error.what());
    }
    close_observers();
    const Verdict verdict = judge();
    // Statistics or a profile asked for and lost make a passing run a failing one: status
    // 125, as for an output path refused before the run (docs/errors.md).
    if (!report(verdict) && verdict.status == 0) return static_cast<int>(ExitStatus::kBadInput);
    return verdict.status;
  }

 private:
  // The scenario and the ELF files it names.
  void load_scenario(const std::function<Scenario()>& make_scenario) {
    if (!options_.stats_path.empty()) {  // before any work; a path refused here is not tried again at the end
      check_output_file("--stats", options_.stats_path);
      stats_writable_ = true;
    }
    scenario_ = make_scenario();
    images_ = std::make_unique<Images>(scenario_);
  }

  // The scenario's parameters, then the command line's; the recorders models
  // register with while they are built (waveform signals) open before the build.
  void configure() {
    apply_settings(scenario_, options_);
    apply_trace_shorthands(options_);
    parameters_ = std::make_unique<SimulationParameters>();
    // The limits hold from here on, loading included.
    control_.set_instruction_limit(parameters_->limit_instructions);
    control_.set_wall_time_limit(parameters_->limit_wall_time.get().to_seconds());
    if (!options_.vcd_path.empty()) Waveform::instance().open(options_.vcd_path, options_.vcd_patterns);
    open_instruction_trace(options_);
  }

  // The SoC with its parameters final (a setting nothing claimed is an error),
  // and the run's quantum and limits.
  void build() {
    platform_ = std::make_unique<HostPlatform>("soc", images_->htif());
    if (scenario_.uses_cluster() && !platform_->cluster)
      throw ConfigError("an image with `core: cluster` needs the mesh cluster, but " + platform_->cluster_enabled.name() +
                        " is false");
    if (!options_.trace_coherence.empty() && !platform_->cluster)
      throw ConfigError("--trace-coherence traces the mesh cluster's L1 misses: it goes with a cluster run (--cluster, "
                        "or a scenario image with `core: cluster`)");
    ParameterRegistry::instance().check_all_overrides_used();
    if (hooks_.platform_built) hooks_.platform_built(*platform_, scenario_);
    tlm_utils::tlm_quantumkeeper::set_global_quantum(parameters_->quantum.get());
  }

  // Images with their patches, who boots what, preloads, the kernel launch.
  void load_memory() {
    HostPlatform& platform = *platform_;
    for (std::size_t i = 0; i < images_->host.size(); ++i) {
      images_->host[i]->load(writer_into(platform), load_placement(platform));
      for (const auto& [symbol, value] : scenario_.images[i].patches) apply_patch(platform, *images_->host[i], symbol, value);
    }
    if (images_->boot) platform.boot_host_program(images_->boot->entry(), symbolizer_of(*images_->boot));
    else platform.park_host_cpu();  // AI Cores (or the task scheduler) only
    if (images_->task_scheduler)
      platform.boot_task_scheduler(images_->task_scheduler->entry(), symbolizer_of(*images_->task_scheduler));
    for (const auto& preload : scenario_.preloads) apply_preload(platform, preload);
    if (images_->kernel) launch_kernel(*scenario_.kernel_launch, *images_->kernel);
  }

  // A scenario's `aicore_launch`: the kernel's blocks on the AI Cores, without a task scheduler.
  void launch_kernel(const Scenario::KernelLaunch& launch, const ElfImage& kernel) {
    HostPlatform& platform = *platform_;
    kernel.load(writer_into(platform), load_placement(platform));
    const std::size_t argument_bytes = launch.args.size() * 8;
    if (!launch.args.empty()) check_load(platform, "aicore_launch: the argument block", launch.args_address, argument_bytes);
    if (!launch.args.empty() &&
        platform.write_memory(launch.args_address, reinterpret_cast<const std::uint8_t*>(launch.args.data()),
                              argument_bytes) != argument_bytes)
      throw ConfigError("aicore_launch: args_address " + hex(launch.args_address) + " is not in memory");
    platform.set_kernel_symbolizer(symbolizer_of(kernel));
    KernelLauncher::Plan plan;
    plan.entry = kernel.entry();
    plan.args = launch.args_address;
    plan.cores = static_cast<unsigned>(launch.cores.value_or(platform.aicores.size()));
    plan.blocks = launch.blocks.value_or(plan.cores);
    plan.end_simulation = images_->boot == nullptr && images_->task_scheduler == nullptr;
    launcher_ = std::make_unique<KernelLauncher>(platform, plan);
  }

  // The timeline and the debugger (the waveform and instruction trace opened in configure()).
  void attach_observability() {
    if (!options_.trace_path.empty()) Timeline::instance().open(options_.trace_path);
    if (options_.gdb_port >= 0) {
      // Every core is a thread; cores held in reset for the run are not listed.
      gdb_server_ = std::make_unique<GdbServer>(static_cast<unsigned>(options_.gdb_port), options_.gdb_wait);
      platform_->for_each_core([this](RiscvCpu& core) { gdb_server_->add_core(core.name(), core); });
    }
  }

  // Simulates within the limits; a run that stops without an outcome says why.
  void run() {
    control_.start_wall_clock();
    const sc_core::sc_time limit = parameters_->limit_sim_time;
    try {
      if (limit > sc_core::SC_ZERO_TIME) sc_core::sc_start(limit);
      else sc_core::sc_start();
    } catch (...) {
      kernel_broken_ = true;
      throw;
    }
    if (!control_.finished()) {
      if (limit > sc_core::SC_ZERO_TIME && sc_core::sc_time_stamp() >= limit && sc_core::sc_pending_activity())
        control_.record_failure(ExitStatus::kLimitReached, "simulated-time limit reached at " + limit.to_string() +
                                                               " (sim.limit.sim_time); pc=" + platform_->describe_host_pc());
      else
        control_.record_failure(ExitStatus::kGuestError, platform_->describe_starvation());
    }
    if (hooks_.after_run) hooks_.after_run(*platform_);
  }

  // Complete documents on every exit path.
  void close_observers() {
    Timeline::instance().close();
    if (gdb_server_) gdb_server_->simulation_ended(control_.exit_requested(), control_.guest_exit_code(), control_.reason());
    Waveform::instance().close();
    InstructionTrace::instance().close();
  }

  // The outcome against the scenario's checks (exit code, console text) and the command's judge.
  Verdict judge() const {
    if (!control_.exit_requested()) return {static_cast<int>(control_.status()), ""};
    const int expected = scenario_.expect_exit_code.value_or(0);
    const std::string& console = GuestConsole::instance().transcript();
    std::vector<std::string> failures;
    if (control_.guest_exit_code() != expected)
      failures.push_back("exit code " + std::to_string(control_.guest_exit_code()) + ", expected " + std::to_string(expected));
    for (const auto& text : scenario_.console_contains)
      if (console.find(text) == std::string::npos) failures.push_back("console lacks \"" + text + "\"");
    for (const auto& text : scenario_.console_excludes)
      if (console.find(text) != std::string::npos) failures.push_back("console contains \"" + text + "\"");
    if (failures.empty() && hooks_.judge) {
      const auto [status, text] = hooks_.judge();
      return {status, text};
    }
    if (failures.empty()) return {0, "PASS (" + control_.reason() + ")"};
    if (!hooks_.judge && (options_.elf_path.empty() || !scenario_.console_contains.empty())) {
      std::string text = "FAIL: ";
      for (std::size_t i = 0; i < failures.size(); ++i) text += (i ? "; " : "") + failures[i];
      return {static_cast<int>(ExitStatus::kCheckFailed), text};
    }
    // A program run for a command (npuvp infer) passes its exit code through,
    // with its last words; a bare ELF passes its exit code through, as QEMU does.
    if (hooks_.judge) return {control_.guest_exit_code() & 0xff, "FAIL: " + control_.reason()};
    return {control_.guest_exit_code() & 0xff, control_.reason()};
  }

  // The command's report, the statistics (file and table) and the one-line summary.
  // False when a file asked for (statistics, the command's report) could not be written.
  bool report(const Verdict& verdict) {
    std::cout.flush();
    std::fflush(stdout);
    if (platform_) platform_->finish_region_of_interest();
    const bool report_written = !(hooks_.report && platform_ && !kernel_broken_) || hooks_.report(verdict.status);
    const bool stats_written = !stats_writable_ || write_stats_file(options_.stats_path, scenario_, verdict.status);
    if (!options_.quiet && platform_) {
      std::cerr << "\n== npuvp statistics: " << scenario_.name << " ==\n";
      StatisticsRegistry::instance().print_table(std::cerr);
    }
    const double simulated = control_.end_time().to_seconds();
    const double wall = control_.wall_seconds();
    std::ostringstream summary;
    summary << std::setprecision(3);
    if (verdict.text.empty()) summary << "npuvp: error: " << control_.reason();
    else summary << "npuvp: " << scenario_.name << ": " << verdict.text;
    if (platform_)
      summary << " [" << format_count(control_.total_instructions()) << " instructions, " << simulated * 1e3
              << " ms simulated, " << wall << " s wall, " << (wall > 0 ? control_.total_instructions() / wall / 1e6 : 0)
              << " MIPS]";
    std::cerr << summary.str() << "\n";
    return report_written && stats_written;
  }

  const RunOptions& options_;
  const RunHooks& hooks_;
  SimulationControl& control_ = simulation();
  Scenario scenario_;
  std::unique_ptr<SimulationParameters> parameters_;
  std::unique_ptr<Images> images_;
  // Destroyed in reverse: the debugger, the launcher, then the platform (the images outlive it).
  std::unique_ptr<HostPlatform> platform_;
  std::unique_ptr<KernelLauncher> launcher_;
  std::unique_ptr<GdbServer> gdb_server_;
  bool kernel_broken_ = false;  // SystemC state after an exception escaped sc_start
  bool stats_writable_ = false;  // --stats given and check_output_file accepted it
};

}  // namespace

int run_scenario(const std::function<Scenario()>& make_scenario, const RunOptions& options, const RunHooks& hooks) {
  SimulationControl::install_report_handler();
  std::signal(SIGINT, on_interrupt_signal);
  std::signal(SIGTERM, on_interrupt_signal);  // ends the run with statistics too (status 143)
  std::signal(SIGHUP, on_interrupt_signal);   // the terminal went away: likewise (status 129)
  return Run(options, hooks).execute(make_scenario);
}

int run_simulation(const RunOptions& options) {
  return run_scenario(
      [&] {
        return options.elf_path.empty() ? Scenario::from_file(options.scenario_path)
                                        : Scenario::for_elf(options.elf_path, options.cluster);
      },
      options, {});
}

int list_parameters(const RunOptions& options, bool markdown) {
  Scenario scenario;
  if (!options.scenario_path.empty()) scenario = Scenario::from_file(options.scenario_path);
  // One traffic generator so its parameters (soc.tg0.*, the same for every
  // soc.tgN) are listed; a scenario or --set still decides the count.
  ParameterRegistry::instance().set_override("soc.traffic_generators", "1", "npuvp params");
  // Likewise one mesh-cluster hart (soc.cluster.hart0.*, the same for every hart).
  ParameterRegistry::instance().set_override("soc.mesh.width", "1", "npuvp params");
  ParameterRegistry::instance().set_override("soc.mesh.height", "1", "npuvp params");
  // HTIF exists only for ELFs with `tohost`, the mesh cluster only in cluster
  // mode; build both so their parameters are listed.
  ParameterRegistry::instance().set_override("soc.cluster.enable", "true", "npuvp params");
  apply_settings(scenario, options);
  SimulationParameters parameters;
  HostPlatform platform("soc", HtifSymbols{memory_map::kDdr, memory_map::kDdr + 8});
  ParameterRegistry::instance().check_all_overrides_used();
  auto all = ParameterRegistry::instance().all();
  if (markdown) {
    std::cout << "| parameter | type | default | unit | meaning |\n| --- | --- | --- | --- | --- |\n";
    for (const auto* p : all)
      std::cout << "| `" << p->name() << "` | " << p->type_name() << " | `" << p->default_text() << "` | "
                << (p->unit() == "time" ? "" : p->unit()) << " | " << p->doc() << " |\n";
    return 0;
  }
  std::size_t width = 0;
  for (const auto* p : all) width = std::max(width, p->name().size());
  for (const auto* p : all) {
    std::cout << std::left << std::setw(static_cast<int>(width) + 2) << p->name() << std::setw(8) << p->type_name()
              << " default " << p->default_text();
    if (p->value_text() != p->default_text()) std::cout << " (set: " << p->value_text() << ")";
    if (!p->unit().empty() && p->unit() != "time") std::cout << " [" << p->unit() << "]";
    std::cout << "\n" << std::string(width + 4, ' ') << p->doc() << "\n";
  }
  return 0;
}

}  // namespace npuvp
