// MeshCluster: the 16-core coherent cluster of the SoC (docs/cluster.md).
// One RISC-V hart per mesh tile (soc.cluster.hart0 .. hart<N-1>, mhartid =
// tile), each with its private L1 data and instruction cache; the L1s and the
// S-NUCA LLC banks are the coherent memory system (soc.cluster.memory) whose
// protocol messages travel over the mesh network (soc.mesh, parameters
// `mesh.*`). The cluster reaches DDR and the peripherals through one ring
// stop, "mesh" (the mesh bridge): the memory controllers' line transfers, the
// harts' MMIO (UART, CLINT, finisher) and their instruction fetches (DMI).
//
// Built by HostPlatform in cluster mode (`npuvp run --elf F --cluster`, or a
// scenario image with `core: cluster`); the host CPU is then parked and the
// cluster harts are harts 0..N-1 of the CLINT, as on QEMU virt -smp N. The
// cluster knows nothing of the SoC around it: the platform binds
// `memory->memory_socket` and every hart's `socket` to the ring, and wires
// the harts' interrupts and time source (HostPlatform::wire_cluster).
#pragma once

#include "cluster/coherent_memory_system.h"
#include "cpu/riscv_cpu.h"
#include "mesh/mesh_network.h"

#include <systemc>

#include <memory>
#include <string>
#include <vector>

namespace npuvp {

class MeshCluster : public sc_core::sc_module {
 public:
  // One per mesh tile: hart i runs on tile i (router x = i mod width, y = i / width).
  std::vector<std::unique_ptr<RiscvCpu>> harts;
  std::unique_ptr<CoherentMemorySystem> memory;
  // With a timeline (--trace): the harts' L1 misses to lines in [start, end)
  // as slices (--trace-coherence START:END sets both).
  Parameter<std::uint64_t> trace_coherence_start, trace_coherence_end;

  // The harts' caches serve [memory_base, memory_base + memory_size) (DDR);
  // everything else (MMIO, boot ROM) goes out of each hart's own `socket`.
  MeshCluster(sc_core::sc_module_name name, MeshNetwork& network, std::uint64_t memory_base, std::uint64_t memory_size);
  ~MeshCluster() override;

  // Names addresses in every hart's messages.
  void set_symbolizer(const std::function<std::string(std::uint64_t)>& symbolizer);
  // An address range inside the cached memory that must not be cached (e.g.
  // HTIF tohost/fromhost mailboxes overlaying DDR): the harts' loads and
  // stores there go over the ring.
  void add_uncached_range(std::uint64_t start, std::uint64_t size);
  // For diagnostics: "hart3 (pc=...) sleeps in WFI; ..." for harts not done.
  std::string describe_harts() const;
};

}  // namespace npuvp
