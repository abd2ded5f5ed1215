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

constexpr const char* kUsage =
    "usage: npuvp-compile model.onnx -o model.pkg [--ai-cores N] [--ddr-gbps G] [--l2-gbps G] [--ring-gbps G] "
    "[--no-double-buffering] [--no-l2] [--no-pinned-weights] [--streams N]\n";

int usage(const char* why) {
  std::fprintf(stderr, "npuvp-compile: %s\n%s", why, kUsage);
  return 2;
}

// --help: what each option does (docs/cli.md has the same with links).
int help() {
  std::printf(
      "npuvp-compile: compiles an ONNX model into an npuvp model package (docs/compiler.md) and prints its layers\n%s"
      "  -o model.pkg             the package to write\n"
      "  --ai-cores N             AI Cores the plan splits layers over, 1 .. 64 (default 2)\n"
      "  --ddr-gbps G             the SoC's DDR bandwidth in GB/s (the planner's cost model)\n"
      "  --l2-gbps G              the L2 buffer's bandwidth in GB/s\n"
      "  --ring-gbps G            a ring link's bandwidth into an AI Core in GB/s\n"
      "  --no-double-buffering    tiles for one buffer set; the Conv and MatMul kernels run serially\n"
      "  --no-l2                  every activation and weight in DDR\n"
      "  --no-pinned-weights      no weights pinned in the L2 buffer (activations still in its arena)\n"
      "  --streams N              up to N streams for independent layers, 1 .. %u (default 1)\n"
      "exit status: 0 done, 1 compile error (one line naming the node), 2 usage error\n",
      kUsage, unsigned(npuvp::compiler::kMaxStreams));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace npuvp::compiler;
  std::string input, output;
  CompileOptions options;
  for (int k = 1; k < argc; ++k) {
    const std::string arg = argv[k];
    if (arg == "--help" || arg == "-h") {
      return help();
    } else if (arg == "-o" && k + 1 < argc) {
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
