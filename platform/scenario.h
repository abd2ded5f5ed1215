// A scenario: what to load, which parameters to set, the run limits and the
// checks that decide pass/fail. Read from YAML (docs/scenario-format.md);
// models never see this format, only parameters.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace npuvp {

struct Scenario {
  struct Image {
    std::string elf;  // as written in the scenario
    std::string path;  // resolved file path
    std::map<std::string, std::uint64_t> patches;  // symbol -> value written after loading
  };
  struct Setting {
    std::string name, value, origin;
  };

  std::string name = "run";
  std::string description;
  std::string source;  // file the scenario came from ("" for --elf)
  std::vector<Image> images;
  std::vector<Setting> parameters;  // params: and limits:, in file order
  std::optional<int> expect_exit_code;  // default: 0
  std::vector<std::string> console_contains;
  std::vector<std::string> console_excludes;

  // Throws ConfigError with file:line and, for unknown keys, the closest valid key.
  static Scenario from_file(const std::string& path);
  static Scenario for_elf(const std::string& elf_path);
};

// Finds an image file: as given, relative to the scenario's folder, then in
// the firmware build folder (NPUVP_FIRMWARE_DIR environment variable or the
// build's own). Throws ConfigError listing where it looked.
std::string resolve_image_path(const std::string& elf, const std::string& scenario_path);

}  // namespace npuvp
