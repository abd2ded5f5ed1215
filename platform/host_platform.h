// The SoC as far as it exists today: host CPU, boot ROM, DDR controller, the
// 8 MiB L2 buffer, UART, CLINT, PLIC, sim-control finisher and (when the ELF
// has `tohost`) HTIF, every master reaching every target over the ring bus,
// on the memory map of platform/memory_map.h (docs/memory-map.md, QEMU virt
// compatible); in cluster mode also the 16-core mesh cluster (mesh_cluster.h,
// docs/cluster.md). The only place that wires devices to addresses, ring stops
// and interrupts.
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
#include "platform/memory_map.h"
#include "platform/mesh_cluster.h"

#include <systemc>

#include <memory>
#include <optional>
#include <vector>

namespace npuvp {

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
  };
  std::vector<MemoryRegion> memories_;
};

}  // namespace npuvp
