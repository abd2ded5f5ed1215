// `npuvp infer model.onnx --input x.npy --output y.npy`: compiles the model for
// the SoC as configured (sw/compiler), puts the input into the package's io
// area, runs the package through host/infer.elf (platform/package_run.h),
// writes the output as .npy and prints the per-layer report. The scenario form
// (an `infer:` section, docs/scenario-format.md) adds checks against a
// reference output. docs/networks.md, docs/cli.md.
#pragma once

#include "platform/scenario.h"
#include "platform/simulator.h"

#include <optional>
#include <string>

namespace npuvp {

struct InferOptions {
  std::string model_path;      // .onnx
  std::string input_path;      // .npy, the model's input shape, float32/float16/float64
  std::string output_path;     // .npy (float32); empty: not written
  std::string reference_path;  // .npy: compare the output (cosine, max abs error, top-1)
  std::optional<double> cosine_min;  // fail below (scenarios: default 0.999)
  bool top1 = false;                 // fail when the top-1 index differs from the reference's
  std::string profile_path;    // --profile FILE.csv
  bool double_buffering = true;  // --no-double-buffering: the compiler's serial tiling (benchmarks)
  bool l2_activations = true;    // --no-l2: every activation in DDR (benchmarks)
  bool pin_weights = true;       // --no-l2, --no-pinned-weights: every weight in DDR
  unsigned streams = 1;          // --streams N: the compiler's CompileOptions::streams
  std::string name;            // run name (scenario name; default: the model's file stem)
  std::vector<Scenario::Setting> parameters;  // a scenario's params:
};

// Returns the process exit status (docs/cli.md#exit-status).
int run_infer(const InferOptions& infer, const RunOptions& options);

// `npuvp run SCENARIO` for a scenario with an `infer:` section.
int run_infer_scenario(const Scenario& scenario, const RunOptions& options);

}  // namespace npuvp
