// Checks that refuse what loaders cannot place, before anything is written:
// ELF segments (ElfImage::load's PlacementCheck) and memory preloads, against
// the platform's memories (HostPlatform::load_problem).
#pragma once

#include "mem/elf_image.h"
#include "platform/host_platform.h"
#include "platform/scenario.h"

namespace npuvp {

// The check ElfImage::load asks for every segment.
ElfImage::PlacementCheck load_placement(const HostPlatform& platform);

// Throws ConfigError "<what> [address, end) <why>" when a loader may not write
// those bytes (HostPlatform::load_problem).
void check_load(const HostPlatform& platform, const std::string& what, std::uint64_t address, std::uint64_t size);

// Throws ConfigError with the preload's range, its size in bytes and why the
// memory there cannot hold it; before its contents are read or generated, so a
// request that cannot fit (`random: {count: 1e11}`) fails at once.
void check_preload_placement(const HostPlatform& platform, const Scenario::Preload& preload);

}  // namespace npuvp
