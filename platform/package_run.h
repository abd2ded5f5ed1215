// Running a model package (sw/include/npuvp/model_package.h) on the platform:
// the standard inference host program (firmware/host/infer.elf) and the task
// scheduler boot with the package preloaded at NPUVP_PACKAGE_ADDRESS; after
// the run the package's io and profile areas are read back, and the per-layer
// report (op, shapes, MACs, simulated cycles, Cube utilisation, roofline bound)
// is printed, written as CSV (--profile) and put on the timeline (--trace).
// `npuvp infer` (platform/infer.h) and the runtime's integration test use it.
// docs/networks.md "Reading the report", docs/runtime.md.
#pragma once

#include "platform/layer_profiler.h"
#include "platform/scenario.h"
#include "platform/simulator.h"

#include <npuvp/model_package.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace npuvp {

// The SoC as configured (the built platform's parameters), in the terms the
// compiler and the roofline need.
struct SocFigures {
  unsigned ai_cores = 0;
  std::uint64_t l1_bytes = 0, l0a_bytes = 0, l0b_bytes = 0, l0c_bytes = 0, ub_bytes = 0;
  double aicore_clock_hz = 0, ts_clock_hz = 0;
  double cube_macs_per_cycle = 0;  // one AI Core: a 16x16x16 fractal every cube.cycles_per_fractal cycles
  double ddr_bytes_per_second = 0, l2_bytes_per_second = 0, l2_bytes = 0;
  double mte1_bytes_per_cycle = 0, mte2_bytes_per_cycle = 0, mte3_bytes_per_cycle = 0;
  double cc_to_ub_bytes_per_cycle = 0;  // the Vector unit's L0C -> UB conversion
  double ring_link_bytes_per_second = 0;  // soc.ring.link_width x soc.ring.clock
  std::uint64_t ddr_base = 0, ddr_bytes = 0;
};

// Read-only access to a package image's tables (checked by the runtime on the
// device; here only what the report reads, bounds-checked by package_fits).
class PackageView {
 public:
  explicit PackageView(const std::vector<std::uint8_t>& bytes) : bytes_(bytes) {}
  // Whether the header and tables lie inside the image (a one-line reason if not).
  bool fits(std::string* why = nullptr) const;
  const npuvp_package_header& header() const { return *reinterpret_cast<const npuvp_package_header*>(bytes_.data()); }
  const npuvp_package_layer& layer(std::uint32_t i) const;
  const npuvp_package_launch& launch(std::uint32_t i) const;
  const npuvp_package_tensor& tensor(std::uint32_t i) const;
  const npuvp_package_profile& profile(std::uint32_t i) const;
  std::string string(std::uint32_t offset) const;
  // The first model input / output (nullptr if none).
  const npuvp_package_tensor* find_tensor(std::uint32_t role) const;

 private:
  template <typename T>
  const T& at(std::uint64_t offset) const { return *reinterpret_cast<const T*>(bytes_.data() + offset); }
  const std::vector<std::uint8_t>& bytes_;
};

// One row of the per-layer report.
struct LayerReport {
  std::string name, op, shapes;
  std::uint64_t macs = 0, min_bytes = 0;
  unsigned launches = 0, cores_used = 0;
  std::uint64_t ts_start = 0, ts_end = 0;  // TS cycles: first launch's start, last launch's end
  // The AI Cores' own stamps, in TS cycles: the first block's start, the last block's end
  // (inside [ts_start, ts_end]: the TS starts the first block after ts_start and notices
  // the last one's end, then completes, before ts_end).
  std::uint64_t core_start = 0, core_end = 0;
  double cycles = 0;                        // AI Core cycles from core_start to core_end
  double cube_utilisation = 0;              // macs / (cycles x cube peak x cores used)
  double roofline_cycles = 0;               // max(compute bound, memory bound), AI Core cycles
  bool compute_bound = false;               // the compute bound is the larger
  bool ran = false;                         // every launch completed
  unsigned stream = 0;                      // the package stream of its launches
  std::vector<std::uint32_t> waits_for;     // layers on other streams whose event records it waits for
  // Measured by the LayerProfiler while the layer's task blocks ran.
  std::uint64_t ddr_bytes = 0, l2_bytes = 0;  // served by DDR and by the L2 buffer
  std::uint64_t measured_macs = 0;            // the Cube's useful MACs (equals macs when the plan is exact)
};

struct ModelReport {
  std::string model;
  std::vector<LayerReport> layers;
  double latency_seconds = 0;  // first launch's start to the last launch's end
  // What one inference handles: the model input's first dimension (the batch of a
  // classifier's images; 1 for a [1, sequence, features] transformer input).
  std::uint64_t images = 1;
  double images_per_second() const { return latency_seconds > 0 ? images / latency_seconds : 0.0; }
};

// The roofline of one layer on the SoC: the larger of its MACs at the Cube's
// peak on every AI Core and its minimum bytes at the DDR bandwidth, in AI Core cycles.
double roofline_compute_cycles(std::uint64_t macs, const SocFigures& soc);
// The compiler's roofline_memory_cycles (sw/compiler) for the SoC as configured: the layer's
// minimum bytes through the cores' ports, those that must be in DDR at the DDR's bandwidth and
// those that must be in the L2 buffer at the L2's.
double roofline_memory_cycles(const npuvp_package_layer& layer, const SocFigures& soc);

// `profiler` (may be null) adds the measured bytes and MACs of each layer.
ModelReport make_model_report(const PackageView& package, const SocFigures& soc,
                              const LayerProfiler* profiler = nullptr);
void print_model_report(const ModelReport& report, std::ostream& out);
// The same rows as CSV (a header line, one line per layer, a total line).
void write_model_report_csv(const ModelReport& report, const std::string& path);

// What to run and what to do with the result.
struct PackageJob {
  // Makes the package for the SoC as configured, inputs already in its io area
  // (called once the platform is built). Throws ConfigError for bad input.
  std::function<std::vector<std::uint8_t>(const SocFigures&)> make_package;
  // After a run whose program exited 0: the package with its io and profile
  // areas as the run left them; returns the exit status and the verdict.
  std::function<std::pair<int, std::string>(const PackageView&, const SocFigures&)> judge;
  std::string name = "infer";
  std::string profile_csv;           // --profile FILE
  bool report = true;                // print the per-layer report
  bool progress = true;              // the progress line on stderr, by wall time (InferProgress)
  bool guest_progress = false;       // infer.elf's own lines (every tenth of the layers) instead of switched off
  std::vector<Scenario::Setting> parameters;  // e.g. from a scenario's params:
};

// Runs the package through host/infer.elf and ts/ts.elf; statuses as npuvp run
// (a failing infer.elf's exit code passed through). Sets soc.ddr.size to 2 GiB
// unless a setting names it.
int run_package(const PackageJob& job, const RunOptions& options);

}  // namespace npuvp
