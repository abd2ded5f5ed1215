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
#include "cluster/mesh_cluster.h"
#include "core/region_of_interest.h"
#include "platform/memory_map.h"

#include <systemc>

#include <functional>
#include <memory>
#include <optional>
#include <string>
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
  // Cluster mode (soc.cluster.enable; --cluster and a scenario image with
  // `core: cluster` set it): the mesh cluster is built and runs the host program.
  Parameter<bool> cluster_enabled;
  RingBus ring;
  RiscvCpu cpu;
  RiscvCpu ts;  // task scheduler: boots its own image (scenario `core: ts`), else held in reset
  Memory boot_rom;
  DdrController ddr;
  Memory l2;
  Uart16550 uart0;
  // Cluster mode only (docs/cluster.md): the mesh network (soc.mesh, the
  // `mesh.*` parameters), built before the CLINT, which serves one hart per
  // tile (or the host CPU's one), and the cluster on it (soc.cluster, ring
  // stop "mesh").
  std::unique_ptr<MeshNetwork> mesh;
  Clint clint;
  Plic plic;
  SimFinisher finisher;
  NpuMailbox mailbox;
  std::unique_ptr<Htif> htif;
  std::vector<std::unique_ptr<TrafficGenerator>> generators;
  std::vector<std::unique_ptr<AiCore>> aicores;
  std::unique_ptr<MeshCluster> cluster;  // cluster mode only, on `mesh`
  // The program's region of interest (the finisher's marks, roi_begin() /
  // roi_end()): every additive soc.* statistic again as roi.soc.*.
  RegionOfInterest region_of_interest{"roi", {"soc."}};

  explicit HostPlatform(sc_core::sc_module_name name, const HtifSymbols& htif_symbols = {});

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

  // Who runs what, decided before the run. Symbolizers name addresses in the
  // cores' messages (an image's symbol table).
  using Symbolizer = std::function<std::string(std::uint64_t)>;
  // The host program: every hart that boots (the host CPU, or in cluster mode
  // the cluster's harts, the host CPU then parked) starts at `entry` through
  // the boot ROM.
  void boot_host_program(std::uint64_t entry, const Symbolizer& symbolizer);
  // Runs without a host program: the host CPU stays in reset.
  void park_host_cpu() { cpu.hold_in_reset(); }
  // The task scheduler's own program (a scenario's `core: ts` image).
  void boot_task_scheduler(std::uint64_t entry, const Symbolizer& symbolizer);
  // Names addresses in the AI Cores' messages (the kernel's image).
  void set_kernel_symbolizer(const Symbolizer& symbolizer);
  // Every core that can run a program, in a fixed order (host CPU, task
  // scheduler, the AI Cores' scalar units, the cluster's harts): the
  // debugger's threads.
  void for_each_core(const std::function<void(RiscvCpu&)>& visit);

  // Why the simulation ran out of events, in the user's terms ("soc.cpu
  // sleeps in WFI (pc=...) and no timer or device will wake it").
  std::string describe_starvation();
  // Where the host program is (its pc, symbolized) for limit messages.
  std::string describe_host_pc() const;
  // At the end of the run, before the statistics are written: closes an
  // open region of interest and registers the roi.* statistics.
  void finish_region_of_interest() { region_of_interest.finish(sc_core::sc_time_stamp()); }

 private:
  // --vcd: the line's level as signal `name` (when a waveform is open and selects it).
  static void record_in_waveform(InterruptLine& line, const std::string& name);
  // The cluster's connections to the SoC: its memory side and every hart on
  // the ring at the mesh bridge's stop, hart i's software and timer
  // interrupts from CLINT hart i, the CLINT's mtime as the harts' time.
  void wire_cluster(unsigned mesh_stop);
  // Hart i's machine external interrupt from PLIC context 2i (QEMU virt's
  // order, memory_map::plic_machine_context).
  void wire_cluster_external_interrupts();
  // Boot ROM code: a0 = mhartid, a1 = 0 (no device tree), jump to `entry`.
  void set_boot_entry(std::uint64_t entry);
  struct MemoryRegion {
    std::uint64_t base, size;
    std::uint8_t* data;
    const char* name;  // as in the memory map ("boot_rom", "l2", "ddr")
  };
  std::vector<MemoryRegion> memories_;
};

}  // namespace npuvp
