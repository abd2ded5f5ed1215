// A scenario: what to load, which parameters to set, the run limits and the
// checks that decide pass/fail. Read from YAML (docs/scenario-format.md);
// models never see this format, only parameters.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace npuvp {

struct Scenario {
  struct Image {
    std::string elf;  // as written in the scenario
    std::string path;  // resolved file path
    std::map<std::string, std::uint64_t> patches;  // symbol -> value written after loading
    // Which CPU boots it: host (through the boot ROM), ts (at its entry) or
    // cluster (the mesh cluster's harts, all through the boot ROM; host parked).
    std::string core = "host";
  };
  struct Setting {
    std::string name, value, origin;
  };

  // Starting AI Cores directly, without a task scheduler (docs/scenario-format.md).
  struct KernelLaunch {
    std::string elf, path;
    std::optional<std::uint64_t> cores;   // AI Cores used, from aicore0 (default: all)
    std::optional<std::uint64_t> blocks;  // task blocks (default: one per core used)
    std::vector<std::uint64_t> args;      // 64-bit words of the argument block
    std::uint64_t args_address = 0x8f00'0000;
  };
  // Memory contents placed before the run: a file, or deterministic random
  // values of an element type.
  struct Preload {
    std::uint64_t address = 0;
    std::string file;         // resolved path, or empty
    std::string random_type;  // f16, f32, s32, s8 (values in [-1, 1) for floats, small for ints)
    std::uint64_t count = 0, seed = 1;
    // Or contents given in memory (npuvp infer's model package; not from YAML).
    std::shared_ptr<const std::vector<std::uint8_t>> bytes;

    // Bytes of one random element of `type` (f16, f32, s32, s8); 0 for another name.
    static std::uint64_t element_bytes(const std::string& type);
    // Bytes placed in memory: the contents, the file's size or count elements
    // (from_file refused a count whose size overflows).
    std::uint64_t size() const;
  };

  // A model run through npuvp infer's path (docs/scenario-format.md#models):
  // compiled for the configured SoC, run by host/infer.elf, checked against a
  // reference output. Paths are resolved like images, in the build's networks
  // folder instead of the firmware folder.
  struct Infer {
    std::string model, input, reference;  // resolved paths (reference may be empty)
    std::optional<double> cosine_min;     // default 0.999 when a reference is given
    bool top1 = true;                     // the output's top-1 (argmax over the last axis) as the reference's
    unsigned streams = 1;                 // streams the package is compiled for (npuvp infer --streams)
  };

  std::string name = "run";
  std::string description;
  std::string source;  // file the scenario came from ("" for --elf)
  std::vector<Image> images;  // host images (the first boots the host CPU)
  std::optional<KernelLaunch> kernel_launch;
  std::optional<Infer> infer;
  std::vector<Preload> preloads;
  std::vector<Setting> parameters;  // params: and limits:, in file order
  std::optional<int> expect_exit_code;  // default: 0
  std::vector<std::string> console_contains;
  std::vector<std::string> console_excludes;

  // Throws ConfigError with file:line and, for unknown keys, the closest valid key.
  static Scenario from_file(const std::string& path);
  // `cluster`: the image boots the mesh cluster (npuvp run --elf F --cluster).
  static Scenario for_elf(const std::string& elf_path, bool cluster = false);
  bool uses_cluster() const {
    for (const auto& image : images)
      if (image.core == "cluster") return true;
    return false;
  }
};

// Finds an image file: as given, relative to the scenario's folder, then in
// the firmware build folder (NPUVP_FIRMWARE_DIR environment variable or the
// build's own). Throws ConfigError listing where it looked, or saying that the
// first existing candidate is a directory or not a regular file. `kind` names
// the file in messages ("ELF", "preload file").
std::string resolve_image_path(const std::string& elf, const std::string& scenario_path,
                               const std::string& kind = "ELF");

// Finds a model file (.onnx, .npy): as given, relative to the scenario's
// folder, then in the build's networks folder (NPUVP_NETWORKS_DIR environment
// variable or the build's own, where the models are generated).
std::string resolve_network_path(const std::string& file, const std::string& scenario_path);

}  // namespace npuvp
