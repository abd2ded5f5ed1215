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
#include "platform/scenario.h"
#include "platform/output_file.h"
#include "cpu/gdb_server.h"

#include <csignal>
#include <functional>
#include <tuple>
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
  if (options.itrace_path.empty()) {
    if (!options.itrace_cores.empty() || !options.itrace_pc_ranges.empty() || options.itrace_limit)
      throw ConfigError("--itrace-cores, --itrace-pc and --itrace-limit go with --itrace FILE");
    return;
  }
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

void apply_settings(const Scenario& scenario, const RunOptions& options) {
  auto& registry = ParameterRegistry::instance();
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

void write_stats_file(const std::string& path, const Scenario& scenario, int exit_status) {
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
  std::ofstream out(path);
  if (!out) {
    std::cerr << "npuvp: error: cannot write statistics to '" << path << "'\n";
    return;
  }
  out << document.dump(2) << "\n";
}

// Why the simulation ran out of events, in the user's terms.
std::string describe_starvation(HostPlatform& platform) {
  std::ostringstream text;
  text << "simulation has nothing left to do at " << sc_core::sc_time_stamp() << ": ";
  Hart& hart = platform.cpu.hart();
  if (platform.cpu.sleeping()) {
    std::uint64_t mie = 0;
    hart.csr_read(0x304, mie);
    text << platform.cpu.name() << " sleeps in WFI (pc=" << hart.describe(hart.pc) << ", mie=" << hex(mie)
         << ", mstatus.MIE=" << ((hart.mstatus() >> 3) & 1) << ") and no timer or device will wake it";
  } else {
    text << "no core is running";
  }
  return text.str();
}

}  // namespace

int run_scenario(const std::function<Scenario()>& make_scenario, const RunOptions& options, const RunHooks& hooks) {
  auto& control = simulation();
  SimulationControl::install_report_handler();
  std::signal(SIGINT, on_interrupt_signal);
  std::signal(SIGTERM, on_interrupt_signal);  // ends the run with statistics too (status 143)
  Scenario scenario;
  std::unique_ptr<HostPlatform> platform;
  std::vector<std::unique_ptr<ElfImage>> images;
  std::unique_ptr<ElfImage> kernel_image;
  std::unique_ptr<KernelLauncher> launcher;
  std::unique_ptr<GdbServer> gdb_server;  // after the platform: goes first
  bool kernel_broken = false;  // SystemC state after an exception escaped sc_start

  try {
    if (!options.stats_path.empty()) check_output_file("--stats", options.stats_path);  // before any work
    scenario = make_scenario();
    apply_settings(scenario, options);
    SimulationParameters parameters;
    control.set_instruction_limit(parameters.limit_instructions);
    control.set_wall_time_limit(parameters.limit_wall_time.get().to_seconds());  // from here on, loading included
    for (const auto& image : scenario.images) images.push_back(std::make_unique<ElfImage>(image.path));
    if (scenario.kernel_launch) kernel_image = std::make_unique<ElfImage>(scenario.kernel_launch->path);
    // The first host image boots the host CPU; a `core: ts` image boots the task scheduler.
    const ElfImage* boot_image = nullptr;
    const ElfImage* ts_image = nullptr;
    for (std::size_t i = 0; i < images.size(); ++i) {
      if (scenario.images[i].core == "ts") ts_image = images[i].get();
      else if (!boot_image) boot_image = images[i].get();  // host or cluster: both boot through the boot ROM
    }
    const bool cluster = scenario.uses_cluster();

    HtifSymbols htif;
    if (boot_image) htif = {boot_image->symbol("tohost"), boot_image->symbol("fromhost")};
    if (!options.vcd_path.empty()) Waveform::instance().open(options.vcd_path, options.vcd_patterns);
    open_instruction_trace(options);
    platform = std::make_unique<HostPlatform>("soc", htif, cluster);
    ParameterRegistry::instance().check_all_overrides_used();
    if (hooks.platform_built) hooks.platform_built(*platform, scenario);

    tlm_utils::tlm_quantumkeeper::set_global_quantum(parameters.quantum.get());

    for (std::size_t i = 0; i < images.size(); ++i) {
      images[i]->load([&](std::uint64_t address, const std::uint8_t* data, std::size_t size) {
        return platform->write_memory(address, data, size);
      }, load_placement(*platform));
      for (const auto& [symbol, value] : scenario.images[i].patches) {
        auto address = images[i]->symbol(symbol);
        auto size = images[i]->symbol_size(symbol).value_or(0);
        if (!address) throw ConfigError("patch: symbol '" + symbol + "' is not in " + images[i]->path());
        if (size != 1 && size != 2 && size != 4 && size != 8)
          throw ConfigError("patch: symbol '" + symbol + "' has size " + std::to_string(size) + "; only 1, 2, 4 or 8-byte objects can be patched");
        std::uint8_t bytes[8];
        std::memcpy(bytes, &value, 8);
        if (platform->write_memory(*address, bytes, size) != size)
          throw ConfigError("patch: symbol '" + symbol + "' at " + hex(*address) + " is not in memory");
      }
    }
    if (boot_image) {
      platform->set_boot_entry(boot_image->entry());
      auto symbolizer = [boot_image](std::uint64_t address) { return boot_image->symbolize(address); };
      platform->cpu.set_symbolizer(symbolizer);
      if (cluster) {
        platform->park_host_cpu();  // the cluster's harts 0..15 run the image
        platform->cluster->set_symbolizer(symbolizer);
      }
    } else {
      platform->park_host_cpu();  // AI Cores (or the task scheduler) only
    }
    if (ts_image) {
      platform->ts.set_start_pc(ts_image->entry());
      platform->ts.release();
      platform->ts.set_symbolizer([ts_image](std::uint64_t address) { return ts_image->symbolize(address); });
    }
    for (const auto& preload : scenario.preloads) {
      check_preload_placement(*platform, preload);
      if (preload.bytes) {  // given in memory (npuvp infer's package): no copy
        if (platform->write_memory(preload.address, preload.bytes->data(), preload.bytes->size()) != preload.bytes->size())
          throw ConfigError("memory preload at " + hex(preload.address) + " (" + std::to_string(preload.bytes->size()) +
                            " bytes) does not fit in one memory");
        continue;
      }
      auto bytes = preload_bytes(preload);
      if (platform->write_memory(preload.address, bytes.data(), bytes.size()) != bytes.size())
        throw ConfigError("memory preload at " + hex(preload.address) + " (" + std::to_string(bytes.size()) +
                          " bytes) does not fit in one memory");
    }
    if (kernel_image) {
      const auto& launch = *scenario.kernel_launch;
      kernel_image->load([&](std::uint64_t address, const std::uint8_t* data, std::size_t size) {
        return platform->write_memory(address, data, size);
      }, load_placement(*platform));
      if (!launch.args.empty() &&
          platform->write_memory(launch.args_address, reinterpret_cast<const std::uint8_t*>(launch.args.data()),
                                 launch.args.size() * 8) != launch.args.size() * 8)
        throw ConfigError("aicore_launch: args_address " + hex(launch.args_address) + " is not in memory");
      for (auto& core : platform->aicores)
        core->set_symbolizer([image = kernel_image.get()](std::uint64_t address) { return image->symbolize(address); });
      KernelLauncher::Plan plan;
      plan.entry = kernel_image->entry();
      plan.args = launch.args_address;
      plan.cores = static_cast<unsigned>(launch.cores.value_or(platform->aicores.size()));
      plan.blocks = launch.blocks.value_or(plan.cores);
      plan.end_simulation = boot_image == nullptr && ts_image == nullptr;
      launcher = std::make_unique<KernelLauncher>(*platform, plan);
    }

    if (!options.trace_path.empty()) {
      Timeline::instance().open(options.trace_path);
      Timeline::instance().set_ring_sampling(options.trace_ring);
      if (!options.trace_coherence.empty()) {
        const auto [start, end] = parse_coherence_range(options.trace_coherence);
        Timeline::instance().set_coherence_range(start, end);
      }
    } else if (options.trace_ring || !options.trace_coherence.empty()) {
      throw ConfigError("--trace-ring and --trace-coherence go with --trace FILE");
    }
    if (options.gdb_port >= 0) {
      // Every core is a thread; cores held in reset for the run are not listed.
      gdb_server = std::make_unique<GdbServer>(static_cast<unsigned>(options.gdb_port), options.gdb_wait);
      gdb_server->add_core(platform->cpu.name(), platform->cpu);
      gdb_server->add_core(platform->ts.name(), platform->ts);
      for (auto& core : platform->aicores) gdb_server->add_core(core->scalar.name(), core->scalar);
      if (platform->cluster)
        for (auto& hart : platform->cluster->harts) gdb_server->add_core(hart->name(), *hart);
    }
    control.start_wall_clock();
    sc_core::sc_time limit = parameters.limit_sim_time;
    try {
      if (limit > sc_core::SC_ZERO_TIME) sc_core::sc_start(limit);
      else sc_core::sc_start();
    } catch (...) {
      kernel_broken = true;
      throw;
    }
    if (!control.finished()) {
      if (limit > sc_core::SC_ZERO_TIME && sc_core::sc_time_stamp() >= limit && sc_core::sc_pending_activity())
        control.record_failure(ExitStatus::kLimitReached, "simulated-time limit reached at " + limit.to_string() +
                                                              " (sim.limit.sim_time); pc=" + platform->cpu.hart().describe(platform->cpu.hart().pc));
      else
        control.record_failure(ExitStatus::kGuestError, platform->cluster ? "simulation has nothing left to do at " +
                                                              sc_core::sc_time_stamp().to_string() + ": " +
                                                              platform->cluster->describe_harts()
                                                        : describe_starvation(*platform));
    }
    if (hooks.after_run) hooks.after_run(*platform);
  } catch (const SimulationError& error) {
    control.record_failure(error.status(), error.what());
  } catch (const sc_core::sc_report& report) {
    // A SimulationError thrown inside a SystemC process arrives here as a
    // report; the outcome was recorded before it was thrown.
    control.record_failure(ExitStatus::kInternalError, report.what());
  } catch (const std::exception& error) {
    control.record_failure(ExitStatus::kInternalError, error.what());
  }

  Timeline::instance().close();  // complete documents on every exit path
  if (gdb_server) gdb_server->simulation_ended(control.exit_requested(), control.guest_exit_code(), control.reason());
  Waveform::instance().close();
  InstructionTrace::instance().close();

  // Outcome and checks.
  int status = static_cast<int>(control.status());
  std::string verdict;
  if (control.exit_requested()) {
    int expected = scenario.expect_exit_code.value_or(0);
    const std::string& console = GuestConsole::instance().transcript();
    std::vector<std::string> failures;
    if (control.guest_exit_code() != expected)
      failures.push_back("exit code " + std::to_string(control.guest_exit_code()) + ", expected " + std::to_string(expected));
    for (const auto& text : scenario.console_contains)
      if (console.find(text) == std::string::npos) failures.push_back("console lacks \"" + text + "\"");
    for (const auto& text : scenario.console_excludes)
      if (console.find(text) != std::string::npos) failures.push_back("console contains \"" + text + "\"");
    if (failures.empty() && hooks.judge) {
      std::tie(status, verdict) = hooks.judge();
    } else if (failures.empty()) {
      status = 0;
      verdict = "PASS (" + control.reason() + ")";
    } else if (!hooks.judge && (options.elf_path.empty() || !scenario.console_contains.empty())) {
      status = static_cast<int>(ExitStatus::kCheckFailed);
      verdict = "FAIL: ";
      for (std::size_t i = 0; i < failures.size(); ++i) verdict += (i ? "; " : "") + failures[i];
    } else if (hooks.judge) {
      // A program run for a command (npuvp infer) passes its exit code through, with its last words.
      status = control.guest_exit_code() & 0xff;
      verdict = "FAIL: " + control.reason();
    } else {
      // A bare ELF passes its exit code through, as QEMU does.
      status = control.guest_exit_code() & 0xff;
      verdict = control.reason();
    }
  }

  std::cout.flush();
  std::fflush(stdout);
  if (hooks.report && platform && !kernel_broken) hooks.report(status);
  if (!options.stats_path.empty()) write_stats_file(options.stats_path, scenario, status);
  if (!options.quiet && platform) {
    std::cerr << "\n== npuvp statistics: " << scenario.name << " ==\n";
    StatisticsRegistry::instance().print_table(std::cerr);
  }
  double simulated = control.end_time().to_seconds();
  double wall = control.wall_seconds();
  std::ostringstream summary;
  summary << std::setprecision(3);
  if (verdict.empty()) summary << "npuvp: error: " << control.reason();
  else summary << "npuvp: " << scenario.name << ": " << verdict;
  if (platform)
    summary << " [" << format_count(control.total_instructions()) << " instructions, " << simulated * 1e3
            << " ms simulated, " << wall << " s wall, " << (wall > 0 ? control.total_instructions() / wall / 1e6 : 0)
            << " MIPS]";
  std::cerr << summary.str() << "\n";
  if (kernel_broken) platform.release();  // SystemC cannot tear down a kernel that threw
  return status;
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
  ParameterRegistry::instance().set_override("soc.mesh.memory_controllers", "0", "npuvp params");
  apply_settings(scenario, options);
  SimulationParameters parameters;
  // HTIF exists only for ELFs with `tohost`, the mesh cluster only in cluster
  // mode; build both so their parameters are listed (the CLINT then shows the
  // cluster's 16 harts).
  HostPlatform platform("soc", HtifSymbols{memory_map::kDdr, memory_map::kDdr + 8}, true);
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
