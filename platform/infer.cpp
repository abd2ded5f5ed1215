#include "platform/infer.h"

#include "core/simulation.h"
#include "npu/numerics.h"
#include "platform/npy.h"
#include "platform/output_file.h"
#include "platform/package_run.h"

#include <npuvp/compiler/compiler.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace npuvp {

namespace {

compiler::SocDescription soc_description(const SocFigures& soc) {
  compiler::SocDescription d;
  d.ai_cores = soc.ai_cores;
  d.l1_bytes = soc.l1_bytes;
  d.l0a_bytes = soc.l0a_bytes;
  d.l0b_bytes = soc.l0b_bytes;
  d.l0c_bytes = soc.l0c_bytes;
  d.ub_bytes = soc.ub_bytes;
  d.aicore_clock_hz = soc.aicore_clock_hz;
  d.cube_macs_per_cycle = soc.cube_macs_per_cycle;
  d.ddr_bytes_per_second = soc.ddr_bytes_per_second;
  d.l2_bytes_per_second = soc.l2_bytes_per_second;
  d.l2_bytes = soc.l2_bytes;
  d.mte1_bytes_per_cycle = soc.mte1_bytes_per_cycle;
  d.mte2_bytes_per_cycle = soc.mte2_bytes_per_cycle;
  d.mte3_bytes_per_cycle = soc.mte3_bytes_per_cycle;
  d.cc_to_ub_bytes_per_cycle = soc.cc_to_ub_bytes_per_cycle;
  d.ring_link_bytes_per_second = soc.ring_link_bytes_per_second;
  return d;
}

// A shape without its dimensions of 1: a reference of [1000] compares with an output of
// [1, 1000], one of [2, 720] not with [2, 5, 16, 9].
std::vector<std::int64_t> squeezed(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> dims;
  for (std::int64_t d : shape)
    if (d != 1) dims.push_back(d);
  return dims;
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

// numpy's type string without its byte-order mark: "<f4" -> "f4".
std::string plain_dtype(const std::string& dtype) {
  return !dtype.empty() && (dtype[0] == '<' || dtype[0] == '|' || dtype[0] == '=') ? dtype.substr(1) : dtype;
}

// "what PATH: problem", whether or not the reader's message names the file already.
std::string npy_problem(const std::string& what, const std::string& path, const NpyError& error) {
  const std::string message = error.what();
  return message.find(path) == std::string::npos ? what + " " + path + ": " + message : what + " " + message;
}

NpyArray read_input(const std::string& path, const std::string& what) {
  try {
    return read_npy(path);
  } catch (const NpyError& error) {
    throw ConfigError(npy_problem(what, path, error));
  }
}

// The input array as the model's f16 input tensor, into the package's io area.
void place_input(const NpyArray& input, const std::string& path, const compiler::CompiledModel& model,
                 std::vector<std::uint8_t>& package) {
  const std::string dtype = plain_dtype(input.dtype);
  const bool floating = dtype == "f4" || dtype == "f2" || dtype == "f8" || dtype == "float32" || dtype == "float16" ||
                        dtype == "float64";
  if (!floating)
    throw ConfigError("input " + path + ": dtype " + input.dtype + ", but the model's input '" + model.input_name +
                      "' is floating point (float32, float16 or float64 .npy)");
  if (input.shape != model.input_shape)
    throw ConfigError("input " + path + ": shape " + shape_text(input.shape) + ", but the model's input '" +
                      model.input_name + "' is " + shape_text(model.input_shape));
  const PackageView view(package);
  const npuvp_package_tensor* tensor = view.find_tensor(NPUVP_TENSOR_INPUT);
  if (!tensor) throw ConfigError("model package: no input tensor");
  const std::vector<float> values = input.to_float();
  if (tensor->bytes != values.size() * 2)
    throw ConfigError("model package: input tensor of " + std::to_string(tensor->bytes) + " bytes for " +
                      std::to_string(values.size()) + " elements");
  auto* halves = reinterpret_cast<std::uint16_t*>(package.data() + view.header().io_offset + tensor->io_offset);
  std::size_t overflowing = 0;  // finite values float16 cannot hold: the NPU computes in float16
  for (std::size_t i = 0; i < values.size(); ++i) {
    halves[i] = numerics::float_to_half(values[i]);
    overflowing += std::isfinite(values[i]) && (halves[i] & 0x7fffu) == 0x7c00u;  // rounded to +-inf
  }
  if (overflowing)
    std::cerr << "npuvp infer: warning: input " << path << ": " << overflowing << " of " << values.size()
              << " values beyond float16's range (+-65504) become +-inf\n";
}

std::vector<float> output_values(const PackageView& package) {
  const npuvp_package_tensor* tensor = package.find_tensor(NPUVP_TENSOR_OUTPUT);
  if (!tensor) return {};
  const auto* base = reinterpret_cast<const std::uint8_t*>(&package.header());
  std::vector<float> values(tensor->bytes / 2);
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::uint16_t half;
    std::memcpy(&half, base + package.header().io_offset + tensor->io_offset + 2 * i, 2);
    values[i] = numerics::half_to_float(half);
  }
  return values;
}

// The output against a reference: cosine similarity, max abs error and top-1 (the
// argmax over the last axis, per row) agreement.
struct Comparison {
  double cosine = 0, max_abs_error = 0;  // NaN when an output is not finite
  std::size_t rows = 0, rows_agreeing = 0;
  std::size_t not_finite = 0;  // outputs that are inf or NaN
};

Comparison compare(const std::vector<float>& output, const std::vector<float>& reference, std::int64_t last_axis) {
  Comparison c;
  double dot = 0, norm_out = 0, norm_ref = 0;
  for (std::size_t i = 0; i < output.size(); ++i) {
    dot += static_cast<double>(output[i]) * reference[i];
    norm_out += static_cast<double>(output[i]) * output[i];
    norm_ref += static_cast<double>(reference[i]) * reference[i];
    const double error = std::fabs(static_cast<double>(output[i]) - reference[i]);
    c.max_abs_error = std::isnan(error) || std::isnan(c.max_abs_error) ? NAN : std::max(c.max_abs_error, error);
    c.not_finite += !std::isfinite(output[i]);
  }
  c.cosine = c.not_finite                      ? NAN  // no direction to compare
             : norm_out > 0 && norm_ref > 0 ? dot / std::sqrt(norm_out * norm_ref)
                                            : (norm_out == norm_ref ? 1.0 : 0.0);
  const std::size_t row = last_axis > 0 ? static_cast<std::size_t>(last_axis) : output.size();
  for (std::size_t start = 0; row && start + row <= output.size(); start += row) {
    auto argmax = [&](const std::vector<float>& v) {
      return std::max_element(v.begin() + start, v.begin() + start + row) - v.begin();
    };
    ++c.rows;
    c.rows_agreeing += argmax(output) == argmax(reference);
  }
  return c;
}

std::string format_fixed(double value, int digits) {
  if (std::isnan(value)) return "nan";
  std::ostringstream text;
  text << std::fixed << std::setprecision(digits) << value;
  return text.str();
}

// "cosine 0.998765 < 0.999000", with more digits where six would print the two alike.
std::string below_text(const std::string& what, double value, double limit) {
  int digits = 6;
  while (digits < 12 && format_fixed(value, digits) == format_fixed(limit, digits)) digits += 2;
  return what + " " + format_fixed(value, digits) + " < " + format_fixed(limit, digits);
}

}  // namespace

int run_infer(const InferOptions& infer, const RunOptions& options) {
  compiler::CompiledModel compiled;
  NpyArray reference;
  PackageJob job;
  job.name = infer.name.empty() ? std::filesystem::path(infer.model_path).stem().string() : infer.name;
  job.profile_csv = infer.profile_path;
  job.report = !options.quiet;
  job.progress = !options.quiet;
  job.parameters = infer.parameters;
  job.make_package = [&](const SocFigures& soc) {
    if (!infer.output_path.empty()) check_output_file("--output", infer.output_path);  // before compiling
    if (!infer.profile_path.empty()) check_output_file("--profile", infer.profile_path);
    std::error_code unreadable;  // a name too long or a forbidden folder reads as "no such file"
    if (std::filesystem::is_directory(infer.model_path, unreadable))
      throw ConfigError("model " + infer.model_path + ": is a directory, not an ONNX file");
    if (!std::filesystem::is_regular_file(infer.model_path, unreadable))
      throw ConfigError("model " + infer.model_path + ": no such file");
    const NpyArray input = read_input(infer.input_path, "input");
    // The reference too, before the run: a file npuvp cannot read (Fortran order, big-endian)
    // is bad input like such an --input, not a run that fails at its end.
    if (!infer.reference_path.empty()) reference = read_input(infer.reference_path, "reference");
    compiler::CompileOptions compile_options;
    compile_options.soc = soc_description(soc);
    compile_options.double_buffering = infer.double_buffering;
    compile_options.l2_activations = infer.l2_activations;
    compile_options.pin_weights = infer.pin_weights;
    compile_options.streams = infer.streams;
    try {
      compiled = compiler::compile_onnx_file(infer.model_path, compile_options);
    } catch (const compiler::CompileError& error) {
      // The compiler names the file or the node; a message without the file gets it in front.
      const std::string message = error.what();
      throw ConfigError(message.find(infer.model_path) == std::string::npos ? infer.model_path + ": " + message : message);
    }
    place_input(input, infer.input_path, compiled, compiled.package);
    if (!infer.reference_path.empty() && squeezed(reference.shape) != squeezed(compiled.output_shape))
      throw ConfigError("reference " + infer.reference_path + ": shape " + shape_text(reference.shape) +
                        ", the output is " + shape_text(compiled.output_shape));
    return std::move(compiled.package);
  };
  job.judge = [&](const PackageView& package, const SocFigures&) -> std::pair<int, std::string> {
    const std::vector<float> output = output_values(package);
    if (!infer.output_path.empty()) {
      try {
        write_npy(infer.output_path, compiled.output_shape, output);
      } catch (const std::exception& error) {
        return {static_cast<int>(ExitStatus::kBadInput), "FAIL: output " + infer.output_path + ": " + error.what()};
      }
    }
    if (infer.reference_path.empty()) return {0, "PASS (" + simulation().reason() + ")"};
    const std::int64_t last_axis = compiled.output_shape.empty() ? 0 : compiled.output_shape.back();
    const Comparison c = compare(output, reference.to_float(), last_axis);
    std::string figures = "cosine " + format_fixed(c.cosine, 6) + ", max abs error " + format_fixed(c.max_abs_error, 4) +
                          ", top-1 " + std::to_string(c.rows_agreeing) + "/" + std::to_string(c.rows);
    if (c.not_finite)
      figures += ", " + std::to_string(c.not_finite) + " of " + std::to_string(output.size()) + " outputs inf or NaN";
    std::cout << "npuvp infer: against " << infer.reference_path << ": " << figures << "\n";
    std::vector<std::string> failures;
    if (infer.cosine_min && !(c.cosine >= *infer.cosine_min))
      failures.push_back(below_text("cosine", c.cosine, *infer.cosine_min));
    if (infer.top1 && c.rows_agreeing != c.rows)
      failures.push_back("top-1 differs in " + std::to_string(c.rows - c.rows_agreeing) + " of " +
                         std::to_string(c.rows) + " rows");
    if (!infer.cosine_min && !infer.top1) return {0, "PASS (" + figures + "; not judged: no --cosine-min, no --top1)"};
    if (failures.empty()) return {0, "PASS (" + figures + ")"};
    std::string verdict = "FAIL: ";
    for (std::size_t i = 0; i < failures.size(); ++i) verdict += (i ? "; " : "") + failures[i];
    return {static_cast<int>(ExitStatus::kCheckFailed), verdict};
  };
  return run_package(job, options);
}

int run_infer_scenario(const Scenario& scenario, const RunOptions& options) {
  const Scenario::Infer& section = *scenario.infer;
  InferOptions infer;
  infer.name = scenario.name;
  infer.model_path = section.model;
  infer.input_path = section.input;
  infer.reference_path = section.reference;
  infer.cosine_min = section.cosine_min;
  infer.top1 = section.top1;
  infer.streams = section.streams;
  infer.parameters = scenario.parameters;
  return run_infer(infer, options);
}

}  // namespace npuvp
