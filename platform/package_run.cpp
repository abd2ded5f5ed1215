#include "platform/package_run.h"

#include "core/parameters.h"
#include "core/simulation.h"
#include "core/text.h"
#include "core/timeline.h"
#include "platform/host_platform.h"
#include "platform/infer_progress.h"
#include "npuvp/compiler/compiler.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include <unistd.h>

namespace npuvp {

namespace {

// The driver's default DDR pool (sw/driver/npuvp_driver.h: NPUVP_DEFAULT_DDR_BASE .. the
// package's address) and what its queue takes from it, for the arena's size check.
constexpr std::uint64_t kDriverPoolBytes = NPUVP_PACKAGE_ADDRESS - memory_map::kDevicePool;
constexpr std::uint64_t kDriverQueueReserve = 64 * 1024;

// The parameter's value as the platform uses it (after --set and the scenario).
template <typename T>
T parameter_value(const std::string& name) {
  const ParameterBase* parameter = ParameterRegistry::instance().find(name);
  if (!parameter) throw SimulationError(ExitStatus::kInternalError, "parameter '" + name + "' does not exist");
  T value{};
  if (!detail::parse_value(parameter->value_text(), parameter->unit(), value))
    throw SimulationError(ExitStatus::kInternalError, "parameter '" + name + "': cannot read its value '" + parameter->value_text() + "'");
  return value;
}

SocFigures soc_figures(const HostPlatform& platform) {
  SocFigures soc;
  soc.ai_cores = static_cast<unsigned>(platform.aicores.size());
  // A SoC without AI Cores boots (the driver reports no NPU device), but has nothing to compile for.
  if (soc.ai_cores == 0) throw ConfigError("soc.ai_cores = 0: a model needs at least one AI Core to run on");
  const std::string core = "soc.aicore0.";
  soc.l1_bytes = parameter_value<std::uint64_t>(core + "l1_size");
  soc.l0a_bytes = parameter_value<std::uint64_t>(core + "l0a_size");
  soc.l0b_bytes = parameter_value<std::uint64_t>(core + "l0b_size");
  soc.l0c_bytes = parameter_value<std::uint64_t>(core + "l0c_size");
  soc.ub_bytes = parameter_value<std::uint64_t>(core + "ub_size");
  soc.aicore_clock_hz = parameter_value<double>(core + "scalar.clock");
  soc.ts_clock_hz = 1.0 / platform.ts.cycle_time().to_seconds();
  soc.cube_macs_per_cycle = 16.0 * 16 * 16 / static_cast<double>(parameter_value<std::uint64_t>(core + "cube.cycles_per_fractal"));
  soc.mte1_bytes_per_cycle = static_cast<double>(parameter_value<std::uint64_t>(core + "mte1.bandwidth"));
  soc.mte2_bytes_per_cycle = static_cast<double>(parameter_value<std::uint64_t>(core + "mte2.bandwidth"));
  soc.mte3_bytes_per_cycle = static_cast<double>(parameter_value<std::uint64_t>(core + "mte3.bandwidth"));
  soc.cc_to_ub_bytes_per_cycle = static_cast<double>(parameter_value<std::uint64_t>(core + "vector.cc_to_ub_bandwidth"));
  // Peak DDR bandwidth: channels x bus width x transfers per second.
  soc.ddr_bytes_per_second = static_cast<double>(parameter_value<std::uint64_t>("soc.ddr.channels")) *
                             static_cast<double>(parameter_value<std::uint64_t>("soc.ddr.bus_width")) *
                             static_cast<double>(parameter_value<std::uint64_t>("soc.ddr.data_rate")) * 1e6;
  // The L2 buffer as configured (0: unlimited bandwidth); at most the window the driver's L2 pool manages.
  soc.l2_bytes_per_second = parameter_value<double>("soc.l2.bandwidth");
  soc.ring_link_bytes_per_second = static_cast<double>(parameter_value<std::uint64_t>("soc.ring.link_width")) *
                                   parameter_value<double>("soc.ring.clock");
  soc.l2_bytes = static_cast<double>(std::min(parameter_value<std::uint64_t>("soc.l2.size"), memory_map::kL2BufferSize));
  soc.ddr_base = memory_map::kDdr;
  soc.ddr_bytes = platform.ddr.size;
  return soc;
}

std::string format_shape_count(double value) {
  std::ostringstream text;
  if (value >= 1e9) text << std::fixed << std::setprecision(2) << value / 1e9 << "G";
  else if (value >= 1e6) text << std::fixed << std::setprecision(2) << value / 1e6 << "M";
  else if (value >= 1e3) text << std::fixed << std::setprecision(1) << value / 1e3 << "k";
  else text << static_cast<std::uint64_t>(value);
  return text.str();
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

// Reads the package's io and profile areas back from device memory.
void read_back(HostPlatform& platform, std::vector<std::uint8_t>& package) {
  const auto& header = *reinterpret_cast<const npuvp_package_header*>(package.data());
  for (auto [offset, bytes] : {std::pair{header.io_offset, header.io_bytes}, std::pair{header.profile_offset, header.profile_bytes}})
    if (bytes && !platform.read_memory(NPUVP_PACKAGE_ADDRESS + offset, package.data() + offset, bytes))
      throw SimulationError(ExitStatus::kInternalError, "cannot read the package back at " + hex(NPUVP_PACKAGE_ADDRESS + offset));
}

// One slice per layer on track "layers" of group "model", over the AI Cores' window (the
// `cycles` of the report: first block's start to last block's end, the cores' stamps in TS
// cycles), the task scheduler's window in its arguments; the gaps between slices are the
// scheduler's dispatch and completion. Layers of package stream s > 0 on track
// "layers, stream s" (they overlap in time).
void add_layer_slices(const ModelReport& report, const SocFigures& soc) {
  auto& timeline = Timeline::instance();
  if (!timeline.enabled()) return;
  std::map<unsigned, int> track_of_stream;
  auto track_for = [&](unsigned stream) {
    auto it = track_of_stream.find(stream);
    if (it != track_of_stream.end()) return it->second;
    const std::string name = stream == 0 ? "layers" : "layers, stream " + std::to_string(stream);
    return track_of_stream[stream] = timeline.track("model " + report.model, name);
  };
  const double ts_period = 1.0 / soc.ts_clock_hz;
  for (const auto& layer : report.layers) {
    if (!layer.ran) continue;
    const int track = track_for(layer.stream);
    const sc_core::sc_time begin(static_cast<double>(layer.core_start) * ts_period, sc_core::SC_SEC);
    const sc_core::sc_time end(static_cast<double>(layer.core_end) * ts_period, sc_core::SC_SEC);
    timeline.slice(track, layer.name, begin, end,
                   {{"op", Timeline::quoted(layer.op)},
                    {"shapes", Timeline::quoted(layer.shapes)},
                    {"macs", std::to_string(layer.macs)},
                    {"cycles", std::to_string(static_cast<std::uint64_t>(layer.cycles))},
                    {"ts_start_cycle", std::to_string(layer.ts_start)},
                    {"ts_end_cycle", std::to_string(layer.ts_end)},
                    {"cube_utilisation", std::to_string(layer.cube_utilisation)},
                    {"ddr_bytes", std::to_string(layer.ddr_bytes)},
                    {"l2_bytes", std::to_string(layer.l2_bytes)},
                    {"roofline_cycles", std::to_string(static_cast<std::uint64_t>(layer.roofline_cycles))},
                    {"bound", Timeline::quoted(layer.compute_bound ? "compute" : "memory")}});
  }
}

}  // namespace

// ---- PackageView --------------------------------------------------------------------------

bool PackageView::fits(std::string* why) const {
  auto fail = [&](const std::string& reason) {
    if (why) *why = reason;
    return false;
  };
  if (bytes_.size() < sizeof(npuvp_package_header)) return fail("smaller than its header");
  const auto& h = header();
  if (h.magic != NPUVP_PACKAGE_MAGIC) return fail("bad magic");
  if (h.total_bytes > bytes_.size()) return fail("total_bytes beyond the image");
  auto inside = [&](std::uint64_t offset, std::uint64_t bytes) {
    return offset <= h.total_bytes && bytes <= h.total_bytes - offset;
  };
  if (!inside(h.strings_offset, h.strings_bytes) || h.strings_bytes == 0 ||
      bytes_[h.strings_offset + h.strings_bytes - 1] != 0)
    return fail("bad string table");
  if (!inside(h.layers_offset, std::uint64_t{h.layer_count} * sizeof(npuvp_package_layer)) ||
      !inside(h.launches_offset, std::uint64_t{h.launch_count} * sizeof(npuvp_package_launch)) ||
      !inside(h.tensors_offset, std::uint64_t{h.tensor_count} * sizeof(npuvp_package_tensor)) ||
      !inside(h.io_offset, h.io_bytes) || !inside(h.profile_offset, h.profile_bytes) ||
      h.profile_bytes < std::uint64_t{h.launch_count} * sizeof(npuvp_package_profile))
    return fail("a table outside the image");
  for (std::uint32_t i = 0; i < h.layer_count; ++i)
    if (layer(i).first_launch + std::uint64_t{layer(i).launch_count} > h.launch_count)
      return fail("layer " + std::to_string(i) + "'s launches outside the launch table");
  for (std::uint32_t i = 0; i < h.tensor_count; ++i)
    if (tensor(i).io_offset > h.io_bytes || tensor(i).bytes > h.io_bytes - tensor(i).io_offset)
      return fail("tensor " + std::to_string(i) + " outside the io area");
  return true;
}

const npuvp_package_layer& PackageView::layer(std::uint32_t i) const {
  return at<npuvp_package_layer>(header().layers_offset + i * sizeof(npuvp_package_layer));
}
const npuvp_package_launch& PackageView::launch(std::uint32_t i) const {
  return at<npuvp_package_launch>(header().launches_offset + i * sizeof(npuvp_package_launch));
}
const npuvp_package_tensor& PackageView::tensor(std::uint32_t i) const {
  return at<npuvp_package_tensor>(header().tensors_offset + i * sizeof(npuvp_package_tensor));
}
const npuvp_package_profile& PackageView::profile(std::uint32_t i) const {
  return at<npuvp_package_profile>(header().profile_offset + i * sizeof(npuvp_package_profile));
}
std::string PackageView::string(std::uint32_t offset) const {
  if (offset >= header().strings_bytes) return "?";
  return std::string(reinterpret_cast<const char*>(bytes_.data() + header().strings_offset + offset));
}
const npuvp_package_tensor* PackageView::find_tensor(std::uint32_t role) const {
  for (std::uint32_t i = 0; i < header().tensor_count; ++i)
    if (tensor(i).role == role) return &tensor(i);
  return nullptr;
}

// ---- the report ---------------------------------------------------------------------------

double roofline_compute_cycles(std::uint64_t macs, const SocFigures& soc) {
  return static_cast<double>(macs) / (soc.cube_macs_per_cycle * std::max(1u, soc.ai_cores));
}

double roofline_memory_cycles(const npuvp_package_layer& layer, const SocFigures& soc) {
  compiler::SocDescription d;
  d.ai_cores = std::max(1u, soc.ai_cores);
  d.aicore_clock_hz = soc.aicore_clock_hz;
  d.ddr_bytes_per_second = soc.ddr_bytes_per_second;
  d.mte2_bytes_per_cycle = soc.mte2_bytes_per_cycle;
  d.mte3_bytes_per_cycle = soc.mte3_bytes_per_cycle;
  d.l2_bytes_per_second = soc.l2_bytes_per_second;
  return compiler::roofline_memory_cycles(static_cast<double>(layer.min_bytes), static_cast<double>(layer.min_output_bytes),
                                          static_cast<double>(layer.min_ddr_bytes),
                                          static_cast<double>(layer.min_l2_bytes), d);
}

ModelReport make_model_report(const PackageView& package, const SocFigures& soc, const LayerProfiler* profiler) {
  ModelReport report;
  const auto& h = package.header();
  report.model = package.string(h.model_name);
  if (const npuvp_package_tensor* input = package.find_tensor(NPUVP_TENSOR_INPUT); input && input->rank > 0)
    report.images = std::max<std::uint64_t>(1, input->dims[0]);
  const double aicore_per_ts_cycle = soc.aicore_clock_hz / soc.ts_clock_hz;
  std::uint64_t first_start = UINT64_MAX, last_end = 0;
  // The layer each event's latest record so far belongs to, as the runtime replays the
  // table (package events 0 .. 63: wait_events is a 64-bit mask).
  std::vector<std::int64_t> recorded_by(64, -1);
  for (std::uint32_t i = 0; i < h.layer_count; ++i) {
    const auto& layer = package.layer(i);
    LayerReport row;
    row.name = package.string(layer.name);
    row.op = package.string(layer.op);
    row.shapes = package.string(layer.shapes);
    row.macs = layer.macs;
    row.min_bytes = layer.min_bytes;
    row.launches = layer.launch_count;
    row.ran = layer.launch_count > 0;
    std::uint32_t max_blocks = 0;
    row.ts_start = row.core_start = UINT64_MAX;
    for (std::uint32_t l = layer.first_launch; l < layer.first_launch + layer.launch_count; ++l) {
      const auto& profile = package.profile(l);
      const auto& launch = package.launch(l);
      max_blocks = std::max(max_blocks, launch.blocks);
      row.stream = launch.stream;
      for (unsigned e = 0; e < 64; ++e)
        if ((launch.wait_events >> e & 1) && recorded_by[e] >= 0)
          row.waits_for.push_back(static_cast<std::uint32_t>(recorded_by[e]));
      if (launch.record_event >= 0 && launch.record_event < 64) recorded_by[launch.record_event] = i;
      if (profile.ticket == 0 || profile.status != 0) {
        row.ran = false;
        continue;
      }
      row.ts_start = std::min(row.ts_start, profile.ts_start_cycle);
      row.ts_end = std::max(row.ts_end, profile.ts_end_cycle);
      row.core_start = std::min(row.core_start, profile.core_start_cycle);
      row.core_end = std::max(row.core_end, profile.core_end_cycle);
    }
    if (!row.ran) row.ts_start = row.ts_end = row.core_start = row.core_end = 0;
    row.cores_used = std::max(1u, std::min(soc.ai_cores, max_blocks));
    // The layer's time is the cores' (as a profiler on the cores measures it): the TS's
    // dispatch before and its completion after are the network's, between layers.
    row.cycles = static_cast<double>(row.core_end - row.core_start) * aicore_per_ts_cycle;
    if (row.cycles > 0)
      row.cube_utilisation = static_cast<double>(row.macs) / (row.cycles * soc.cube_macs_per_cycle * row.cores_used);
    const double compute = roofline_compute_cycles(row.macs, soc), memory = roofline_memory_cycles(layer, soc);
    row.roofline_cycles = std::max(compute, memory);
    row.compute_bound = compute > memory;  // as the compiler's LayerSummary (sw/compiler/src/compiler.cpp)
    if (profiler && i < profiler->layers().size()) {
      const LayerProfiler::LayerActivity& measured = profiler->layers()[i];
      row.ddr_bytes = measured.ddr_bytes;
      row.l2_bytes = measured.l2_bytes;
      row.measured_macs = measured.macs;
    }
    if (row.ran) {
      first_start = std::min(first_start, row.ts_start);
      last_end = std::max(last_end, row.ts_end);
    }
    report.layers.push_back(std::move(row));
  }
  if (last_end > first_start && first_start != UINT64_MAX)
    report.latency_seconds = static_cast<double>(last_end - first_start) / soc.ts_clock_hz;
  return report;
}

void print_model_report(const ModelReport& report, std::ostream& out) {
  std::size_t name_width = 5, op_width = 2, shapes_width = 6;
  for (const auto& row : report.layers) {
    name_width = std::max(name_width, std::min<std::size_t>(row.name.size(), 28));
    op_width = std::max(op_width, std::min<std::size_t>(row.op.size(), 22));
    shapes_width = std::max(shapes_width, std::min<std::size_t>(row.shapes.size(), 36));
  }
  auto cut = [](const std::string& text, std::size_t width) {
    return text.size() <= width ? text : text.substr(0, width - 1) + "~";
  };
  const bool several_streams =
      std::any_of(report.layers.begin(), report.layers.end(), [](const LayerReport& row) { return row.stream > 0; });
  out << "== npuvp infer: " << report.model << ": per-layer report ==\n" << std::left;
  out << std::setw(4) << "#" << std::setw(name_width + 2) << "layer" << std::setw(op_width + 2) << "op"
      << std::setw(shapes_width + 2) << "shapes" << std::right << std::setw(9) << "MACs" << std::setw(11) << "cycles"
      << std::setw(7) << "cube%" << std::setw(9) << "DDR MB" << std::setw(8) << "L2 MB" << std::setw(11) << "bound"
      << std::setw(7) << "ratio" << "  limit" << (several_streams ? "    stream (waits for)" : "") << "\n";
  // With several streams: the layer's stream and the layers whose events it waits for.
  auto stream_text = [&](const LayerReport& row) {
    if (!several_streams) return std::string();
    // After "compute" / "memory" (7 / 6 characters), one column.
    std::string text = std::string(row.ran && !row.compute_bound ? 3 : 2, ' ') + std::to_string(row.stream);
    for (std::size_t w = 0; w < row.waits_for.size(); ++w)
      text += (w ? ", " : " (") + std::to_string(row.waits_for[w]) + (w + 1 == row.waits_for.size() ? ")" : "");
    return text;
  };
  std::uint64_t macs = 0, ddr_bytes = 0, l2_bytes = 0;
  double cycles = 0, bound = 0;
  for (std::size_t i = 0; i < report.layers.size(); ++i) {
    const auto& row = report.layers[i];
    macs += row.macs;
    cycles += row.cycles;
    bound += row.roofline_cycles;
    ddr_bytes += row.ddr_bytes;
    l2_bytes += row.l2_bytes;
    out << std::left << std::setw(4) << i << std::setw(name_width + 2) << cut(row.name, name_width)
        << std::setw(op_width + 2) << cut(row.op, op_width) << std::setw(shapes_width + 2) << cut(row.shapes, shapes_width)
        << std::right << std::setw(9) << format_shape_count(static_cast<double>(row.macs));
    if (!row.ran) {
      out << std::setw(11) << "-" << std::setw(7) << "-" << std::setw(9) << "-" << std::setw(8) << "-"
          << std::setw(11) << format_shape_count(row.roofline_cycles)
          << std::setw(7) << "-" << "  (did not run)" << stream_text(row) << "\n";
      continue;
    }
    out << std::setw(11) << format_shape_count(row.cycles) << std::setw(7) << std::fixed << std::setprecision(1)
        << row.cube_utilisation * 100 << std::setw(9) << std::setprecision(2) << row.ddr_bytes / 1e6 << std::setw(8)
        << row.l2_bytes / 1e6 << std::setw(11) << format_shape_count(row.roofline_cycles) << std::setw(7)
        << std::setprecision(2) << (row.roofline_cycles > 0 ? row.cycles / row.roofline_cycles : 0.0) << "  "
        << (row.compute_bound ? "compute" : "memory") << stream_text(row) << "\n";
    out.unsetf(std::ios::fixed);
  }
  out << std::setprecision(4) << "total: " << report.layers.size() << " layers, " << format_shape_count(static_cast<double>(macs))
      << " MACs, " << format_shape_count(cycles) << " layer cycles (roofline " << format_shape_count(bound)
      << "), DDR " << ddr_bytes / 1e6 << " MB, L2 " << l2_bytes / 1e6 << " MB; latency " << report.latency_seconds * 1e3 << " ms, "
      << report.images_per_second() << " images/s\n";
}

void write_model_report_csv(const ModelReport& report, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw ConfigError("cannot write the profile to '" + path + "'");
  out << "index,layer,op,shapes,macs,min_bytes,launches,cores_used,ts_start_cycle,ts_end_cycle,core_start_cycle,"
         "core_end_cycle,cycles,"
         "cube_utilisation,ddr_bytes,l2_bytes,measured_macs,roofline_cycles,roofline_ratio,bound,stream,waits_for\n";
  for (std::size_t i = 0; i < report.layers.size(); ++i) {
    const auto& row = report.layers[i];
    out << i << "," << csv_field(row.name) << "," << csv_field(row.op) << "," << csv_field(row.shapes) << "," << row.macs
        << "," << row.min_bytes << "," << row.launches << "," << row.cores_used << "," << row.ts_start << ","
        << row.ts_end << "," << row.core_start << "," << row.core_end << "," << static_cast<std::uint64_t>(row.cycles)
        << "," << row.cube_utilisation << ","
        << row.ddr_bytes << "," << row.l2_bytes << "," << row.measured_macs << ","
        << static_cast<std::uint64_t>(row.roofline_cycles) << ","
        << (row.ran && row.roofline_cycles > 0 ? row.cycles / row.roofline_cycles : 0.0) << ","
        << (row.ran ? (row.compute_bound ? "compute" : "memory") : "not run") << "," << row.stream << ",";
    for (std::size_t w = 0; w < row.waits_for.size(); ++w) out << (w ? " " : "") << row.waits_for[w];
    out << "\n";
  }
  out << "total,,,,,,,,,,,,,,,,,,,,,latency_seconds=" << report.latency_seconds << "\n";
  out.flush();  // a disk that filled up during the run shows here
  if (!out) throw ConfigError("cannot write the profile to '" + path + "' (" + std::strerror(errno) + ")");
}

// ---- the run ------------------------------------------------------------------------------

int run_package(const PackageJob& job, const RunOptions& options) {
  auto package = std::make_shared<std::vector<std::uint8_t>>();
  SocFigures soc;
  bool have_report = false;
  ModelReport report;
  std::unique_ptr<LayerProfiler> profiler;
  std::unique_ptr<InferProgress> progress;

  RunHooks hooks;
  hooks.platform_built = [&](HostPlatform& platform, Scenario& scenario) {
    soc = soc_figures(platform);
    *package = job.make_package(soc);
    std::string why;
    if (!PackageView(*package).fits(&why)) throw ConfigError("model package: " + why);
    const std::uint64_t ddr_end = soc.ddr_base + soc.ddr_bytes;
    const std::uint64_t room =
        ddr_end > NPUVP_PACKAGE_ADDRESS ? std::min<std::uint64_t>(ddr_end - NPUVP_PACKAGE_ADDRESS, NPUVP_PACKAGE_MAX_BYTES) : 0;
    if (package->size() > room)
      throw ConfigError("model too large for device memory: the package (weights, program, io) is " +
                        std::to_string(package->size()) + " bytes, DDR has room for " + std::to_string(room) +
                        " at " + hex(NPUVP_PACKAGE_ADDRESS) + " (soc.ddr.size " + std::to_string(soc.ddr_bytes) + ")");
    const std::uint64_t arena = PackageView(*package).header().arena_bytes;
    if (arena > kDriverPoolBytes - kDriverQueueReserve)
      throw ConfigError("model too large for device memory: its activation arena is " + std::to_string(arena) +
                        " bytes, the driver's device-memory pool " + std::to_string(kDriverPoolBytes) + " bytes");
    profiler = std::make_unique<LayerProfiler>(platform, PackageView(*package).header().layer_count);
    if (job.progress) {
      const PackageView view(*package);
      std::vector<InferProgress::Layer> layers;
      for (std::uint32_t i = 0; i < view.header().layer_count; ++i)
        layers.push_back({view.string(view.layer(i).name), view.string(view.layer(i).op)});
      progress = std::make_unique<InferProgress>(std::move(layers), std::cerr, isatty(STDERR_FILENO) != 0);
      profiler->on_layer_block_end([&progress](std::size_t layer) {
        progress->block_ended(layer, sc_core::sc_time_stamp().to_seconds());
      });
    }
    Scenario::Preload preload;
    preload.address = NPUVP_PACKAGE_ADDRESS;
    preload.bytes = package;
    scenario.preloads.push_back(preload);
    // The guest's progress lines (by simulated layers) are off: InferProgress writes one by wall time.
    if (!job.guest_progress) scenario.images.front().patches["infer_progress_layers"] = 0xffffffffu;
  };
  hooks.after_run = [&](HostPlatform& platform) {
    if (progress) progress->finish();
    if (package->empty() || !simulation().exit_requested()) return;
    read_back(platform, *package);
    report = make_model_report(PackageView(*package), soc, profiler.get());
    report.model = job.name;  // the run's name (model file or scenario), not the ONNX graph's (often "torch_jit")
    have_report = true;
    add_layer_slices(report, soc);
  };
  hooks.judge = [&]() -> std::pair<int, std::string> {
    if (!job.judge) return {0, "PASS (" + simulation().reason() + ")"};
    return job.judge(PackageView(*package), soc);
  };
  hooks.report = [&](int status) {
    if (!have_report) return true;
    if (job.report) print_model_report(report, std::cout);
    std::cout.flush();
    try {
      if (!job.profile_csv.empty()) write_model_report_csv(report, job.profile_csv);
    } catch (const SimulationError& error) {
      std::cerr << "npuvp: error: " << error.what() << "\n";
      return false;
    }
    return true;
  };

  return run_scenario(
      [&] {
        Scenario scenario;
        scenario.name = job.name;
        scenario.images.push_back({"host/infer.elf", resolve_image_path("host/infer.elf", ""), {}, "host"});
        scenario.images.push_back({"ts/ts.elf", resolve_image_path("ts/ts.elf", ""), {}, "ts"});
        // The package lies at 0xC000_0000, above the driver's pool: DDR of 2 GiB (a setting may override it).
        scenario.parameters.push_back({"soc.ddr.size", "2GiB", "npuvp infer"});
        for (const auto& setting : job.parameters) scenario.parameters.push_back(setting);
        return scenario;
      },
      options, hooks);
}

}  // namespace npuvp
