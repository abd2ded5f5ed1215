// The SoC as far as it exists today: host CPU, boot ROM, DDR controller, the
// 8 MiB L2 buffer, UART, CLINT, PLIC, sim-control finisher and (when the ELF
// has `tohost`) HTIF, every master reaching every target over the ring bus,
// on the memory map of docs/memory-map.md (QEMU virt compatible); in cluster
// mode also the 16-core mesh cluster (mesh_cluster.h, docs/cluster.md). The
// only place that knows addresses, ring stops and wiring.
#pragma once

#include "cpu/riscv_cpu.h"
#include "interconnect/ring_bus.h"
#include "interconnect/traffic_generator.h"
#include "mem/ddr_controller.h"
#include "mem/memory.h"
#include "npu/ai_core.h"
#include "periph/clint.h"
#include "periph/htif.h"
#include "periph/npu_mailbox.h"
#include "periph/plic.h"
#include "periph/sim_finisher.h"
#include "periph/uart16550.h"
#include "platform/mesh_cluster.h"

#include <systemc>

#include <memory>
#include <optional>
#include <vector>

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
constexpr std::uint64_t kDdr = 0x8000'0000, kDdrDefaultSize = 1ull << 30;
// Traffic generators default to DDR above 256 MiB, away from the program.
constexpr std::uint64_t kTrafficDefaultBase = kDdr + (256ull << 20);
constexpr unsigned kUart0PlicSource = 10;  // as on QEMU virt
// NPU control space (16 MiB): AI Core i's control registers at kAiCoreControl + i * 4 KiB.
constexpr std::uint64_t kNpuControl = 0x2000'0000, kNpuControlSize = 16ull << 20;
constexpr std::uint64_t kNpuMailbox = kNpuControl;  // host <-> task scheduler doorbells
constexpr std::uint64_t kAiCoreControl = kNpuControl + 0x10'0000;
constexpr unsigned kTsDoorbellSource = 20, kTsHostIrqSource = 21;  // PLIC sources

// PLIC source IDs 0..kPlicSources-1 (0 reserved), as QEMU virt; the default of soc.plic.sources.
constexpr unsigned kPlicSources = 96;
// AI Core i raises PLIC source kAiCoreDoneSource + 2i (done) and +2i+1 (error).
constexpr unsigned kAiCoreDoneSource = 32;
// The AI Core limit (soc.ai_cores) is what the PLIC's sources hold: 32 cores use
// sources 32..95. The software side's NPU_MAX_CORES (npu_protocol.h) must equal it
// (tests/unit/npu_protocol_test.cpp checks).
constexpr unsigned kMaxAiCores = (kPlicSources - kAiCoreDoneSource) / 2;
static_assert(kMaxAiCores == 32, "Ascend 910's 32 AI Cores fit the PLIC");
static_assert(kAiCoreControl + kMaxAiCores * AiCore::kControlSize <= kNpuControl + kNpuControlSize,
              "every AI Core's control window lies in the NPU control space");
// Default place of a kernel launch's argument block (docs/memory-map.md).
constexpr std::uint64_t kKernelArguments = 0x8f00'0000;
}  // namespace memory_map

struct HtifSymbols {
  std::optional<std::uint64_t> tohost, fromhost;
};

class HostPlatform : public sc_core::sc_module {
 public:
  // Traffic generators for fabric studies, each on its own ring stop.
  Parameter<std::uint64_t> traffic_generators;
  Parameter<std::uint64_t> ai_cores;
  RingBus ring;
  RiscvCpu cpu;
  RiscvCpu ts;  // task scheduler: boots its own image (scenario `core: ts`), else held in reset
  Memory boot_rom;
  DdrController ddr;
  Memory l2;
  Uart16550 uart0;
  Clint clint;
  Plic plic;
  SimFinisher finisher;
  NpuMailbox mailbox;
  std::unique_ptr<Htif> htif;
  std::vector<std::unique_ptr<TrafficGenerator>> generators;
  std::vector<std::unique_ptr<AiCore>> aicores;
  // Cluster mode only (docs/cluster.md): the mesh network (soc.mesh, the
  // `mesh.*` parameters) and the 16-core cluster on it (soc.cluster), on
  // ring stop "mesh"; the CLINT then serves one hart per tile.
  std::unique_ptr<MeshNetwork> mesh;
  std::unique_ptr<MeshCluster> cluster;

  HostPlatform(sc_core::sc_module_name name, const HtifSymbols& htif_symbols = {}, bool mesh_cluster = false);

  // Writes into whichever memory holds `address` (loaders, before or during
  // the run); returns the bytes written, short at the end of that memory and
  // 0 when no memory is there.
  std::size_t write_memory(std::uint64_t address, const std::uint8_t* data, std::size_t size);
  bool read_memory(std::uint64_t address, std::uint8_t* data, std::size_t size);
  // Why a loader (ELF segments, preloads) cannot fill [address, address + size)
  // ("" when it can): no memory there, past the end of that memory, or over the
  // boot ROM, which holds the platform's reset vector (QEMU refuses images over
  // its ROM too). Defined in platform/load_placement.cpp.
  std::string load_problem(std::uint64_t address, std::uint64_t size) const;
  // Boot ROM code: a0 = mhartid, a1 = 0 (no device tree), jump to `entry`.
  void set_boot_entry(std::uint64_t entry);
  // Runs without a host program: the host CPU stays in reset.
  void park_host_cpu() { cpu.hold_in_reset(); }

 private:
  // --vcd: the line's level as signal `name` (when a waveform is open and selects it).
  static void record_in_waveform(InterruptLine& line, const std::string& name);
  struct MemoryRegion {
    std::uint64_t base, size;
    std::uint8_t* data;
    const char* name;  // as in the memory map ("boot_rom", "l2", "ddr")
  };
  std::vector<MemoryRegion> memories_;
};

}  // namespace npuvp
