// The ONNX -> model package compiler (host tool, C++17): the public API that
// `npuvp infer`, the npuvp-compile CLI and the tests call. The package it
// returns is the image of sw/include/npuvp/model_package.h; its launches are
// the kernels of sw/include/npuvp/operator_kernels.h. docs/compiler.md tells
// the passes, the tiling planner and the package format.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace npuvp::compiler {

// The SoC the model is compiled for; the caller fills it from the platform's
// parameters (docs/parameters.md). Defaults are the platform's defaults.
struct SocDescription {
  unsigned ai_cores = 2;
  std::uint64_t l1_bytes = 1 << 20, l0a_bytes = 64 << 10, l0b_bytes = 64 << 10,
                l0c_bytes = 256 << 10, ub_bytes = 256 << 10;
  double aicore_clock_hz = 1e9;
  // f16: one 16x16x16 fractal step (4096 MACs) every cube.cycles_per_fractal (2) cycles.
  double cube_macs_per_cycle = 2048;
  // DDR: 3200 MT/s x 2 B x 2 channels; L2: soc.l2.bandwidth, soc.l2.size.
  double ddr_bytes_per_second = 12.8e9, l2_bytes_per_second = 64e9, l2_bytes = 8 << 20;
  double mte2_bytes_per_cycle = 64, mte3_bytes_per_cycle = 64, mte1_bytes_per_cycle = 256;
  // The ring's link into an AI Core (soc.ring.link_width x soc.ring.clock): what the core's MTE2
  // receives from the DDR or the L2 buffer at most (0: no limit).
  double ring_link_bytes_per_second = 32e9;
  // The write-back's L0C -> UB conversion (soc.aicoreN.vector.cc_to_ub_bandwidth, bytes of f32 read).
  double cc_to_ub_bytes_per_cycle = 128;
};

// The roofline's memory bound of a layer in AI Core cycles: its minimum bytes (`min_bytes`, of
// which `output_bytes` are outputs) at the SoC's DDR bandwidth, or, when slower, through the AI
// Cores' own ports: every input and weight byte enters a core through its MTE2
// (soc.aicoreN.mte2.bandwidth), every output byte leaves through its MTE3, and `ai_cores` cores
// have that many ports. (With HBM-class memory the ports, not the DDR, limit layers such as
// ResNet-50's 7x7 3x3 convolutions, 4.7 MB of weights.) One definition for the compiler's layer
// summary and the platform's report.
// With activations in the L2 buffer (docs/compiler.md "Memory planning") only `ddr_bytes` of
// them must pass the DDR, and `l2_bytes` must pass the L2's port (soc.l2.bandwidth, 0 =
// unlimited) instead; the two serve in parallel.
inline double roofline_memory_cycles(double min_bytes, double output_bytes, double ddr_bytes, double l2_bytes,
                                     const SocDescription& soc) {
  const double ddr = ddr_bytes / soc.ddr_bytes_per_second * soc.aicore_clock_hz;
  const double l2 = soc.l2_bytes_per_second > 0 ? l2_bytes / soc.l2_bytes_per_second * soc.aicore_clock_hz : 0;
  const double cores = soc.ai_cores ? double(soc.ai_cores) : 1.0;
  const double in_port = (min_bytes - output_bytes) / (cores * soc.mte2_bytes_per_cycle);
  const double out_port = output_bytes / (cores * soc.mte3_bytes_per_cycle);
  return std::max(std::max(ddr, l2), std::max(in_port, out_port));
}
inline double roofline_memory_cycles(double min_bytes, double output_bytes, const SocDescription& soc) {
  return roofline_memory_cycles(min_bytes, output_bytes, min_bytes, 0, soc);
}

// The most streams a package may use (model_package.h: header.streams 1 .. 15).
constexpr unsigned kMaxStreams = 15;

struct CompileOptions {
  SocDescription soc;
  bool double_buffering = true;
  // Streams the runtime replays the layers on, 1 .. kMaxStreams: independent layers
  // (graph branches) run concurrently, joined by events (docs/compiler.md
  // "Streams"). 1: every layer in order on one stream.
  unsigned streams = 1;
  // Keep activations in the L2 buffer where the cost model finds it pays (docs/compiler.md
  // "Memory planning"); false: every activation in DDR (for measuring what the L2 gains).
  bool l2_activations = true;
  // Pin the weights of the layers the tiling planner finds faster with them in the L2 buffer
  // there, as many as fit beside the L2 arena (the runtime copies them in once, at load;
  // docs/compiler.md "Pinned weights"); false: every weight in DDR.
  bool pin_weights = true;
};

// One layer of the compiled graph (after fusion), as in the package's layer table.
struct LayerSummary {
  std::string name, op, shapes;
  std::uint64_t macs = 0, min_bytes = 0;
  std::uint64_t min_ddr_bytes = 0, min_l2_bytes = 0;  // of min_bytes, those that must be in DDR / in L2
  double roofline_cycles = 0;  // max(macs / cube peak, roofline_memory_cycles), AI Core cycles
  bool compute_bound = false;
  unsigned launches = 0;       // kernel launches of this layer
  unsigned blocks = 0;         // task blocks of its main launch
  std::string tiling;          // the planner's choice, e.g. "TILE_HO=8 TILE_COUT=64", "" if none
  unsigned stream = 0;         // the stream its launches run on
};

struct CompiledModel {
  std::vector<std::uint8_t> package;  // the model package image (model_package.h)
  std::vector<LayerSummary> layers;
  std::string input_name, output_name;
  std::vector<std::int64_t> input_shape, output_shape;
  // Memory plan figures.
  std::uint64_t arena_bytes = 0;              // activation arena in DDR after liveness reuse
  std::uint64_t l2_arena_bytes = 0;           // activation arena in the L2 buffer (<= soc.l2_bytes)
  unsigned l2_buffers = 0;                    // activation buffers placed in the L2 arena
  std::uint64_t activation_bytes_total = 0;   // sum of all activation buffers (no reuse)
  std::uint64_t constants_bytes = 0;
  std::uint64_t pinned_bytes = 0;             // weights pinned in the L2 buffer (<= soc.l2_bytes - l2_arena_bytes)
  unsigned pinned_layers = 0;                 // layers whose weights are pinned
  unsigned layout_conversions = 0;            // COPY launches inserted for ND <-> 5HD
  unsigned streams = 1;                       // streams the package uses (at most CompileOptions::streams)
  unsigned stream_waits = 0;                  // cross-stream dependencies (event waits) in it
};

// Every compile failure: one line naming the file or the node, op type and attribute,
// e.g. "node 'pool1' (MaxPool): unsupported attribute ceil_mode=1".
class CompileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

CompiledModel compile_onnx_file(const std::string& path, const CompileOptions& options);
CompiledModel compile_onnx_bytes(const std::string& bytes, const CompileOptions& options);

}  // namespace npuvp::compiler
