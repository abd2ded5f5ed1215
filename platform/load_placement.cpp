// Where loaders may put bytes: the checks that refuse an ELF segment or a
// memory preload before anything is written, with the numbers.
#include "platform/load_placement.h"

#include "core/simulation.h"
#include "core/text.h"

namespace npuvp {

std::string HostPlatform::load_problem(std::uint64_t address, std::uint64_t size) const {
  for (const auto& region : memories_) {
    const std::uint64_t offset = address - region.base;
    const bool starts_inside = address >= region.base && offset < region.size;
    const bool covers_start = address < region.base && region.base - address < size;
    if (!starts_inside && !covers_start) continue;
    if (region.base == memory_map::kBootRom)
      return "overlaps the boot ROM " + hex_range(region.base, region.size) +
             " (the platform's reset vector; load images into l2 or ddr)";
    if (covers_start) continue;  // starts in a hole below this memory: reported below
    if (size > region.size - offset)
      return "does not fit in '" + std::string(region.name) + "' " + hex_range(region.base, region.size) + ": " +
             std::to_string(size) + " bytes requested, " + std::to_string(region.size - offset) +
             " available from " + hex(address);
    return "";
  }
  std::string map;
  for (const auto& region : memories_)
    if (region.base != memory_map::kBootRom)
      map += (map.empty() ? "" : ", ") + std::string(region.name) + " " + hex_range(region.base, region.size);
  return "is not in any memory (first unmapped byte at " + hex(address) + "; loadable memories: " + map + ")";
}

ElfImage::PlacementCheck load_placement(const HostPlatform& platform) {
  return [&platform](std::uint64_t address, std::uint64_t size) { return platform.load_problem(address, size); };
}

void check_load(const HostPlatform& platform, const std::string& what, std::uint64_t address, std::uint64_t size) {
  const std::string problem = platform.load_problem(address, size);
  if (!problem.empty()) throw ConfigError(what + " " + hex_range(address, size) + " " + problem);
}

void check_preload_placement(const HostPlatform& platform, const Scenario::Preload& preload) {
  const std::uint64_t size = preload.size();
  std::string what = std::to_string(size) + " bytes";
  if (!preload.random_type.empty() && !preload.bytes)
    what = std::to_string(preload.count) + " " + preload.random_type + " elements, " + what;
  const std::string problem = platform.load_problem(preload.address, size);
  if (!problem.empty())
    throw ConfigError("memory preload " + hex_range(preload.address, size) + " (" + what + ") " + problem);
}

}  // namespace npuvp
