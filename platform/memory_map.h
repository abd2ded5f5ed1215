// The SoC's memory map and interrupt numbers: the one declaration of every
// address and PLIC source software relies on. platform/host_platform.cpp wires
// the devices here; platform/soc_contract.cpp turns these constants (and the
// devices' register offsets, declared by the device models) into the C headers
// firmware and the driver include and into the tables of docs/memory-map.md
// (`cmake --build build --target soc_contract` rewrites them; soc_contract_test
// fails when they are stale). Compatible with QEMU virt where the two overlap.
#pragma once

#include "npu/ai_core.h"

#include <systemc>

#include <cstdint>

namespace npuvp {
namespace memory_map {
constexpr std::uint64_t kBootRom = 0x0000'1000, kBootRomSize = 0x1000;
constexpr std::uint64_t kFinisher = 0x0010'0000;
constexpr std::uint64_t kClint = 0x0200'0000;
constexpr std::uint64_t kPlic = 0x0C00'0000;
constexpr std::uint64_t kUart0 = 0x1000'0000;
constexpr std::uint64_t kL2Buffer = 0x3000'0000, kL2BufferSize = 8ull << 20;
// The sources give only the L2 buffer's size; an on-chip SRAM shared by the
// AI Cores: 10 ns access, 64 B per ns (one 64-byte line per 1 GHz cycle).
inline const sc_core::sc_time kL2BufferLatency{10, sc_core::SC_NS};
constexpr double kL2BufferBandwidth = 64e9;
// Reserved for the mesh cluster's control registers (not modelled yet, unmapped).
constexpr std::uint64_t kMeshControl = 0x4000'0000, kMeshControlSize = 16ull << 20;
constexpr std::uint64_t kDdr = 0x8000'0000, kDdrDefaultSize = 1ull << 30;
// Traffic generators default to DDR above 256 MiB, away from the program.
constexpr std::uint64_t kTrafficDefaultBase = kDdr + (256ull << 20);
constexpr unsigned kUart0PlicSource = 10;  // as on QEMU virt
// NPU control space (16 MiB): AI Core i's control registers at kAiCoreControl + i * 4 KiB.
constexpr std::uint64_t kNpuControl = 0x2000'0000, kNpuControlSize = 16ull << 20;
constexpr std::uint64_t kNpuMailbox = kNpuControl;  // host <-> task scheduler doorbells
constexpr std::uint64_t kAiCoreControl = kNpuControl + 0x10'0000;
constexpr unsigned kTsDoorbellSource = 20, kTsHostIrqSource = 21;  // PLIC sources
// PLIC contexts, each one a hart's external interrupt, in QEMU virt's order:
// context 2h is host hart h's machine mode, 2h+1 its supervisor mode. Host hart 0
// is the host CPU, or in cluster mode cluster hart 0 (the host CPU is parked), and
// cluster hart h takes context 2h, so SMP programs find their context where QEMU
// has it. No hart here wires a supervisor-mode external interrupt, and context 1
// (hart 0's S-mode on QEMU) is the task scheduler's machine mode.
constexpr unsigned kPlicContextsPerHart = 2;
constexpr unsigned plic_machine_context(unsigned hart) { return kPlicContextsPerHart * hart; }
constexpr unsigned kPlicContextHost = plic_machine_context(0), kPlicContextTaskScheduler = 1;
// The contexts the platform wires for `harts` host harts (1, or the cluster's
// harts): the default of soc.plic.contexts.
constexpr unsigned plic_contexts(unsigned harts) {
  return kPlicContextsPerHart * (harts > 1 ? harts : 1);
}
static_assert(kPlicContextTaskScheduler < plic_contexts(1) && kPlicContextTaskScheduler != kPlicContextHost,
              "the task scheduler's context lies beside the host's");

// PLIC source IDs 0..kPlicSources-1 (0 reserved), as QEMU virt; the default of soc.plic.sources.
constexpr unsigned kPlicSources = 96;
// AI Core i raises PLIC source kAiCoreDoneSource + 2i (done) and +2i+1 (error).
constexpr unsigned kAiCoreDoneSource = 32, kAiCoreErrorSource = kAiCoreDoneSource + 1;
constexpr unsigned kSourcesPerAiCore = 2;
// The AI Core limit (soc.ai_cores) is what the PLIC's sources hold: 32 cores use
// sources 32..95. The software side's NPU_MAX_CORES (npu_protocol.h) is generated
// from it (platform/soc_contract.cpp).
constexpr unsigned kMaxAiCores = (kPlicSources - kAiCoreDoneSource) / kSourcesPerAiCore;
static_assert(kMaxAiCores == 32, "Ascend 910's 32 AI Cores fit the PLIC");
static_assert(kAiCoreControl + kMaxAiCores * AiCore::kControlSize <= kNpuControl + kNpuControlSize,
              "every AI Core's control window lies in the NPU control space");
// Inside DDR, by software convention (docs/memory-map.md, "Inside DDR"): the
// task scheduler's firmware image (code, data, stack) below the kernels; AI Core
// kernel images in 1 MiB slots from kKernelSlots (sw/kernels' npuvp_kernel SLOT n),
// then the default argument block of a kernel launch; the host driver's device
// memory pool (its default) up to the end of a 1 GiB DDR.
constexpr std::uint64_t kTaskSchedulerImage = 0x8700'0000, kTaskSchedulerImageSize = 16ull << 20;
constexpr std::uint64_t kKernelSlots = 0x8800'0000, kKernelSlotSize = 1ull << 20;
static_assert(kTaskSchedulerImage + kTaskSchedulerImageSize <= kKernelSlots, "the TS image ends below the kernels");
constexpr std::uint64_t kKernelArguments = 0x8f00'0000;
constexpr std::uint64_t kDevicePool = 0x9000'0000, kDevicePoolEnd = kDdr + kDdrDefaultSize;
static_assert(kKernelArguments < kDevicePool && kTrafficDefaultBase >= kDevicePool,
              "the argument block lies below the pool, the traffic generators' default base inside it");
// In cluster mode there is no host program, so no driver pool: the synthetic
// coherence program (firmware/mesh/synthetic.c) shares a region of up to 64 MiB
// inside the pool's addresses, 512 MiB above the program, clear of the task
// scheduler's image, the kernel slots and the traffic generators' default base.
constexpr std::uint64_t kClusterSharedRegion = 0xA000'0000, kClusterSharedRegionSize = 64ull << 20;
static_assert(kClusterSharedRegion >= kTrafficDefaultBase && kClusterSharedRegion + kClusterSharedRegionSize <= kDevicePoolEnd,
              "the cluster's shared region lies inside the default DDR, above the traffic generators' base");
}  // namespace memory_map
}  // namespace npuvp
