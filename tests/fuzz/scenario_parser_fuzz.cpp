// Fuzz target: the scenario parser (platform/scenario.cpp) on a YAML file, then the text
// parsers of parameter values (models/core/parameters.cpp, core/text.cpp) on every value
// the scenario set and on the raw input: every parameter type and unit a model declares.
// Every defect must be a ConfigError (or a parse failure the caller turns into one);
// anything else is a bug. Seeds: corpus/scenario_parser (the repository's scenarios/).
#include "core/parameters.h"
#include "core/simulation.h"
#include "core/text.h"
#include "fuzz_support.h"
#include "platform/scenario.h"

#include <string>

namespace {

// A value as each parameter type reads it (the units models declare: Hz, bytes, address,
// cycles, none), as ParameterBase::set_from_text does.
void parse_as_every_type(const std::string& text) {
  using npuvp::detail::parse_value;
  bool flag;
  std::uint64_t unsigned_value;
  std::int64_t signed_value;
  double real;
  std::string string_value;
  sc_core::sc_time time;
  parse_value(text, "", flag);
  for (const char* unit : {"", "bytes", "address", "cycles"}) parse_value(text, unit, unsigned_value);
  parse_value(text, "", signed_value);
  for (const char* unit : {"", "Hz", "B/s", "V"}) parse_value(text, unit, real);
  parse_value(text, "", string_value);
  parse_value(text, "", time);
  try {
    npuvp::decode_byte_escapes(text, "soc.uart.input");
  } catch (const npuvp::ConfigError&) {
  }
}

// The files the seeds name (images, kernels, preloads, models), found next to the scenario
// like a user's own files: the parser only checks that they exist, so empty ones will do,
// and without them every input would stop at its first image.
void create_named_files() {
  for (const char* name : {"host/hello.elf", "host/ts-protocol.elf", "ts/ts.elf", "mesh/hello.elf",
                           "sw/kernels/gemm.elf", "weights.bin", "lenet5.onnx", "lenet5.input.npy",
                           "lenet5.reference.npy"}) {
    const auto file = npuvp::fuzz::scratch_folder() / name;
    std::filesystem::create_directories(file.parent_path());
    npuvp::fuzz::write_file(std::filesystem::relative(file, npuvp::fuzz::scratch_folder()).string(), nullptr, 0);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool files_created = (create_named_files(), true);
  (void)files_created;
  const std::string path = npuvp::fuzz::write_file("scenario.yaml", data, size);
  try {
    const npuvp::Scenario scenario = npuvp::Scenario::from_file(path);
    for (const auto& setting : scenario.parameters) parse_as_every_type(setting.value);
  } catch (const npuvp::ConfigError&) {
    // A clear error naming the file and line: what the parser must do.
  }
  parse_as_every_type(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
