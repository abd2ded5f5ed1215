// npuvp-compile model.onnx -o model.pkg [--ai-cores N] [--ddr-gbps G] [--l2-gbps G] [--ring-gbps G] [--no-double-buffering] [--no-l2] [--no-pinned-weights] [--streams N]:
// compiles an ONNX model into a model package and prints the layer summary.
// Exit status: 0 done, 1 compile error, 2 usage error.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include "npuvp/compiler/compiler.h"

namespace {

int usage(const char* why) {
  std::fprintf(stderr, "npuvp-compile: %s\nusage: npuvp-compile model.onnx -o model.pkg [--ai-cores N] [--ddr-gbps G] [--l2-gbps G] [--ring-gbps G] [--no-double-buffering] [--no-l2] [--no-pinned-weights] [--streams N]\n", why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace npuvp::compiler;
  std::string input, output;
  CompileOptions options;
  for (int k = 1; k < argc; ++k) {
    const std::string arg = argv[k];
    if (arg == "-o" && k + 1 < argc) {
      output = argv[++k];
    } else if (arg == "--ai-cores" && k + 1 < argc) {
      const long cores = std::strtol(argv[++k], nullptr, 10);
      if (cores < 1 || cores > 64) return usage("--ai-cores takes 1 .. 64");
      options.soc.ai_cores = unsigned(cores);
    } else if ((arg == "--ddr-gbps" || arg == "--l2-gbps" || arg == "--ring-gbps") && k + 1 < argc) {
      // The SoC's DDR (L2 buffer, ring link into a core) bandwidth in GB/s, e.g. 512 (512, 128) for
      // the HBM-class configuration of docs/networks.md: the plan depends on it.
      const double gbps = std::strtod(argv[++k], nullptr);
      if (!(gbps > 0)) return usage((arg + " takes a positive bandwidth in GB/s").c_str());
      (arg == "--ddr-gbps"  ? options.soc.ddr_bytes_per_second
       : arg == "--l2-gbps" ? options.soc.l2_bytes_per_second
                            : options.soc.ring_link_bytes_per_second) = gbps * 1e9;
    } else if (arg == "--streams" && k + 1 < argc) {
      const long streams = std::strtol(argv[++k], nullptr, 10);
      if (streams < 1 || streams > long(kMaxStreams)) return usage(("--streams takes 1 .. " + std::to_string(kMaxStreams)).c_str());
      options.streams = unsigned(streams);
    } else if (arg == "--no-double-buffering") {
      options.double_buffering = false;
    } else if (arg == "--no-l2") {  // nothing in the L2 buffer
      options.l2_activations = false;
      options.pin_weights = false;
    } else if (arg == "--no-pinned-weights") {
      options.pin_weights = false;
    } else if (!arg.empty() && arg[0] != '-' && input.empty()) {
      input = arg;
    } else {
      return usage(("unknown argument '" + arg + "'").c_str());
    }
  }
  if (input.empty() || output.empty()) return usage("an input model and -o are required");
  try {
    const CompiledModel model = compile_onnx_file(input, options);
    std::ofstream file(output, std::ios::binary);
    file.write(reinterpret_cast<const char*>(model.package.data()), std::streamsize(model.package.size()));
    if (!file) {
      std::fprintf(stderr, "npuvp-compile: %s: cannot write the package\n", output.c_str());
      return 1;
    }
    std::printf("%-4s %-32s %-28s %-36s %14s %12s %12s %-8s %s\n", "#", "layer", "op", "shapes", "MACs", "min bytes",
                "bound cyc", "bound", "tiling");
    for (size_t k = 0; k < model.layers.size(); ++k) {
      const auto& l = model.layers[k];
      std::printf("%-4zu %-32.32s %-28.28s %-36.36s %14llu %12llu %12.0f %-8s %s", k, l.name.c_str(), l.op.c_str(),
                  l.shapes.c_str(), (unsigned long long)l.macs, (unsigned long long)l.min_bytes, l.roofline_cycles,
                  l.compute_bound ? "compute" : "memory", l.tiling.c_str());
      if (model.streams > 1) std::printf("%sstream %u", l.tiling.empty() ? "" : " ", l.stream);
      std::printf("\n");
    }
    std::printf("%zu layers, package %zu bytes (constants %llu), arena %llu bytes in DDR and %llu in L2 (%u buffers; "
                "activations without reuse %llu), %u layout conversions\n",
                model.layers.size(), model.package.size(), (unsigned long long)model.constants_bytes,
                (unsigned long long)model.arena_bytes, (unsigned long long)model.l2_arena_bytes, model.l2_buffers,
                (unsigned long long)model.activation_bytes_total, model.layout_conversions);
    if (model.pinned_layers)
      std::printf("weights of %u layers pinned in L2: %llu bytes\n", model.pinned_layers,
                  (unsigned long long)model.pinned_bytes);
    if (model.streams > 1) std::printf("%u streams, %u cross-stream waits\n", model.streams, model.stream_waits);
  } catch (const CompileError& error) {
    std::fprintf(stderr, "npuvp-compile: %s\n", error.what());
    return 1;
  }
  return 0;
}
