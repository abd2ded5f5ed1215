#include "platform/host_platform.h"

#include "core/simulation.h"
#include "core/text.h"
#include "core/waveform.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace npuvp {

using namespace memory_map;

namespace {
// The harts the CLINT and the PLIC serve: the host CPU's one, or in cluster
// mode one per mesh tile (the mesh's shape as configured; the mesh checks it
// when built).
std::uint64_t platform_harts(const MeshNetwork* mesh) {
  return mesh ? std::max<std::uint64_t>(mesh->width.get() * mesh->height.get(), 1) : 1;
}
}  // namespace

HostPlatform::HostPlatform(sc_core::sc_module_name name, const HtifSymbols& htif_symbols)
    : sc_module(name),
      traffic_generators(child_name(*this, "traffic_generators"), 0, "",
                         "number of traffic generators soc.tg0, soc.tg1, ... (ring stops after periph)"),
      ai_cores(child_name(*this, "ai_cores"), 2, "",
               "number of AI Cores soc.aicore0, soc.aicore1, ... (at most " + std::to_string(kMaxAiCores) + ")"),
      cluster_enabled(child_name(*this, "cluster.enable"), false, "",
                      "cluster mode: build the mesh cluster (one RISC-V hart per tile of soc.mesh, docs/cluster.md), "
                      "which runs the host program while the host CPU is parked (set by --cluster and by a "
                      "scenario image with `core: cluster`)"),
      ring("ring"),
      cpu("cpu"),
      ts("ts"),
      boot_rom("boot_rom", kBootRomSize, true),
      ddr("ddr", kDdrDefaultSize),
      l2("l2", kL2BufferSize, false, kL2BufferLatency, kL2BufferBandwidth),
      uart0("uart0"),
      mesh(cluster_enabled ? std::make_unique<MeshNetwork>("mesh") : nullptr),
      clint("clint", platform_harts(mesh.get())),
      plic("plic", kPlicSources, plic_contexts(static_cast<unsigned>(platform_harts(mesh.get())))),
      finisher("finisher"),
      mailbox("mailbox") {
  // Ring stops in ring order: cpu, the first half of the AI Cores, the L2
  // buffer, the second half, ddr, periph. The L2 buffer sits in the middle of
  // the AI Cores, as on a real die, so its data reaches half of them on each
  // of its two outgoing links; at the end of the row every core would share
  // one link (with 4 cores that link ran at 95 % and capped a 4-core GEMM at
  // 2.4x, docs/fabric.md "Ring order").
  unsigned cpu_stop = ring.add_stop("cpu");
  if (ai_cores.get() > kMaxAiCores)
    throw ConfigError(ai_cores.name() + " = " + std::to_string(ai_cores.get()) + ": must be at most " +
                      std::to_string(kMaxAiCores) + " (two PLIC sources per core, " + std::to_string(kAiCoreDoneSource) +
                      ".." + std::to_string(kPlicSources - 1) + ")");
  if (kAiCoreDoneSource + kSourcesPerAiCore * ai_cores.get() > plic.sources.get())
    throw ConfigError(ai_cores.name() + " = " + std::to_string(ai_cores.get()) + " needs PLIC sources up to " +
                      std::to_string(kAiCoreDoneSource + kSourcesPerAiCore * ai_cores.get() - 1) + ", but " +
                      plic.sources.name() + " = " + std::to_string(plic.sources.get()) + " gives 1.." +
                      std::to_string(plic.sources.get() - 1));
  std::vector<unsigned> aicore_stops;
  unsigned l2_stop = 0;
  const unsigned before_l2 = static_cast<unsigned>((ai_cores.get() + 1) / 2);
  for (unsigned i = 0; i < ai_cores.get(); ++i) {
    if (i == before_l2) l2_stop = ring.add_stop("l2");
    std::string core = "aicore" + std::to_string(i);
    aicores.push_back(std::make_unique<AiCore>(core.c_str(), i));
    aicore_stops.push_back(ring.add_stop(core));
  }
  if (before_l2 == ai_cores.get()) l2_stop = ring.add_stop("l2");
  unsigned ddr_stop = ring.add_stop("ddr");
  unsigned periph_stop = ring.add_stop("periph");
  // The task scheduler shares the peripherals' stop (its mailbox is there):
  // an extra stop would change the AI Cores' ring routes (see docs/fabric.md).
  unsigned ts_stop = periph_stop;
  if (traffic_generators.get() > 16) throw ConfigError(traffic_generators.name() + " must be at most 16");
  for (std::uint64_t i = 0; i < traffic_generators.get(); ++i) {
    std::string generator = "tg" + std::to_string(i);
    generators.push_back(std::make_unique<TrafficGenerator>(generator.c_str(), kTrafficDefaultBase));
    ring.connect_initiator(generators.back()->socket, ring.add_stop(generator));
  }

  ring.connect_initiator(cpu.socket, cpu_stop);
  ring.connect_initiator(ts.socket, ts_stop);
  ring.map(mailbox.socket, kNpuMailbox, NpuMailbox::kWindowSize, "mailbox", ts_stop);
  for (unsigned i = 0; i < aicores.size(); ++i) {
    AiCore& core = *aicores[i];
    ring.connect_initiator(core.bus, aicore_stops[i]);
    ring.map(core.control, kAiCoreControl + i * AiCore::kControlSize, AiCore::kControlSize,
             std::string(core.name()) + ".control", aicore_stops[i]);
    // Block timestamps in the task scheduler's cycles: one time base with its `cycle` CSR
    // (docs/npu-protocol.md, "AI Core control registers").
    core.set_timestamp_clock(ts.cycle_time());
    core.done_interrupt.connect(plic, kAiCoreDoneSource + kSourcesPerAiCore * i);
    core.error_interrupt.connect(plic, kAiCoreErrorSource + kSourcesPerAiCore * i);
    record_in_waveform(core.done_interrupt, std::string(core.name()) + ".done_irq");
    record_in_waveform(core.error_interrupt, std::string(core.name()) + ".error_irq");
  }
  ring.map(boot_rom.socket, kBootRom, boot_rom.size, "boot_rom", periph_stop);
  ring.map(finisher.socket, kFinisher, SimFinisher::kWindowSize, "finisher", periph_stop);
  finisher.on_region_of_interest([this](bool begin, const sc_core::sc_time& at) {
    if (begin) region_of_interest.begin(at);
    else region_of_interest.end(at);
  });
  ring.map(clint.socket, kClint, Clint::kWindowSize, "clint", periph_stop);
  ring.map(plic.socket, kPlic, Plic::kWindowSize, "plic", periph_stop);
  ring.map(uart0.socket, kUart0, Uart16550::kWindowSize, "uart0", periph_stop);
  ring.map(l2.socket, kL2Buffer, l2.size, "l2", l2_stop);
  ring.map(ddr.socket, kDdr, ddr.size, "ddr", ddr_stop);
  memories_ = {{kBootRom, boot_rom.size, boot_rom.data(), "boot_rom"},
               {kL2Buffer, l2.size, l2.data(), "l2"},
               {kDdr, ddr.size, ddr.data(), "ddr"}};

  // A generator whose range leaves its target would fail mid-run: say so now.
  for (const auto& generator : generators) {
    const std::uint64_t base = generator->base, range = generator->range;
    const AddressMap::Window* window = ring.address_map().decode(base);
    if (!window || !ring.address_map().fits(*window, base, range))
      throw ConfigError(std::string(generator->name()) + ": range [" + hex(base) + ", " + hex(base + range) + ") is not inside one target" +
                        (window ? " ('" + window->label + "' ends at " + hex(window->last()) + ")" : " (no target at the base)"));
  }

  // HTIF mailboxes overlay the 8-byte words the ELF reserved for them.
  if (htif_symbols.tohost) {
    htif = std::make_unique<Htif>("htif");
    ring.map(htif->tohost_socket, *htif_symbols.tohost, 8, "htif.tohost", ddr_stop);
    if (htif_symbols.fromhost) ring.map(htif->fromhost_socket, *htif_symbols.fromhost, 8, "htif.fromhost", ddr_stop);
  }

  // The mesh cluster: its own ring stop (the mesh bridge) after the
  // peripherals, so the other stops keep their routes.
  if (mesh) {
    unsigned mesh_stop = ring.add_stop("mesh");
    cluster = std::make_unique<MeshCluster>("cluster", *mesh, kDdr, ddr.size);
    wire_cluster(mesh_stop);
    if (htif_symbols.tohost) cluster->add_uncached_range(*htif_symbols.tohost, 8);
    if (htif_symbols.fromhost) cluster->add_uncached_range(*htif_symbols.fromhost, 8);
  }

  // Interrupts: CLINT -> MSIP/MTIP, PLIC context 0 (hart 0 M-mode) -> MEIP.
  clint.msip_irq.at(0).connect(cpu, 3);
  clint.mtip_irq.at(0).connect(cpu, 7);
  plic.irq.at(kPlicContextHost).connect(cpu, 11);
  plic.irq.at(kPlicContextTaskScheduler).connect(ts, 11);  // the task scheduler's M-mode
  mailbox.ts_irq.connect(plic, kTsDoorbellSource);
  mailbox.host_irq.connect(plic, kTsHostIrqSource);
  record_in_waveform(mailbox.ts_irq, "soc.mailbox.ts_irq");
  record_in_waveform(mailbox.host_irq, "soc.mailbox.host_irq");
  ts.hold_in_reset();  // until a scenario gives it an image
  ts.set_time_source([this](const sc_core::sc_time& time) { return clint.mtime_at(time); });
  uart0.irq.connect(plic, kUart0PlicSource);
  cpu.set_time_source([this](const sc_core::sc_time& time) { return clint.mtime_at(time); });
}

void HostPlatform::wire_cluster(unsigned mesh_stop) {
  const std::uint64_t tiles = cluster->harts.size();
  if (clint.harts.get() < tiles)
    throw ConfigError("parameter '" + clint.harts.name() + "' is " + std::to_string(clint.harts.get()) +
                      "; the mesh cluster needs one CLINT hart per tile (" + std::to_string(tiles) +
                      ", mesh.width x mesh.height)");
  ring.connect_initiator(cluster->memory->memory_socket, mesh_stop);
  for (unsigned tile = 0; tile < tiles; ++tile) {
    RiscvCpu& hart = *cluster->harts[tile];
    ring.connect_initiator(hart.socket, mesh_stop);
    clint.msip_irq.at(tile).connect(hart, 3);
    clint.mtip_irq.at(tile).connect(hart, 7);
    hart.set_time_source([this](const sc_core::sc_time& time) { return clint.mtime_at(time); });
  }
  wire_cluster_external_interrupts();
}

void HostPlatform::wire_cluster_external_interrupts() {
  const unsigned tiles = static_cast<unsigned>(cluster->harts.size());
  if (plic.contexts.get() < plic_contexts(tiles))
    throw ConfigError("parameter '" + plic.contexts.name() + "' is " + std::to_string(plic.contexts.get()) +
                      "; the mesh cluster needs " + std::to_string(kPlicContextsPerHart) +
                      " PLIC contexts per tile (" + std::to_string(plic_contexts(tiles)) +
                      ", mesh.width x mesh.height x " + std::to_string(kPlicContextsPerHart) + ")");
  // Context 0 also reaches the parked host CPU, as CLINT hart 0 does.
  for (unsigned tile = 0; tile < tiles; ++tile)
    plic.irq.at(plic_machine_context(tile)).connect(*cluster->harts[tile], 11);
}

std::size_t HostPlatform::write_memory(std::uint64_t address, const std::uint8_t* data, std::size_t size) {
  for (const auto& region : memories_) {
    std::uint64_t offset = address - region.base;
    if (offset >= region.size) continue;
    std::size_t length = static_cast<std::size_t>(std::min<std::uint64_t>(size, region.size - offset));
    if (length) std::memcpy(region.data + offset, data, length);  // an empty vector's data() may be null
    return length;
  }
  return 0;
}

bool HostPlatform::read_memory(std::uint64_t address, std::uint8_t* data, std::size_t size) {
  for (const auto& region : memories_) {
    std::uint64_t offset = address - region.base;
    if (offset >= region.size || size > region.size - offset) continue;
    if (size) std::memcpy(data, region.data + offset, size);  // an empty vector's data() may be null
    return true;
  }
  return false;
}

void HostPlatform::set_boot_entry(std::uint64_t entry) {
  // Like QEMU virt's reset vector. Encodings checked with riscv64-unknown-elf-as.
  const std::uint32_t code[] = {
      0x00000297,  // auipc t0, 0
      0xf1402573,  // csrr  a0, mhartid
      0x00000593,  // li    a1, 0
      0x0182b283,  // ld    t0, 24(t0)
      0x00028067,  // jr    t0
      0x00000013,  // nop (pads the entry address to 8-byte alignment)
  };
  std::uint8_t image[sizeof code + 8];
  std::memcpy(image, code, sizeof code);
  std::memcpy(image + sizeof code, &entry, 8);
  boot_rom.write_backdoor(0, image, sizeof image);
}

void HostPlatform::boot_host_program(std::uint64_t entry, const Symbolizer& symbolizer) {
  set_boot_entry(entry);
  cpu.set_symbolizer(symbolizer);
  if (cluster) {
    park_host_cpu();  // the cluster's harts run the program
    cluster->set_symbolizer(symbolizer);
  }
}

void HostPlatform::boot_task_scheduler(std::uint64_t entry, const Symbolizer& symbolizer) {
  ts.set_start_pc(entry);
  ts.release();
  ts.set_symbolizer(symbolizer);
}

void HostPlatform::set_kernel_symbolizer(const Symbolizer& symbolizer) {
  for (auto& core : aicores) core->set_symbolizer(symbolizer);
}

void HostPlatform::for_each_core(const std::function<void(RiscvCpu&)>& visit) {
  visit(cpu);
  visit(ts);
  for (auto& core : aicores) visit(core->scalar);
  if (cluster)
    for (auto& hart : cluster->harts) visit(*hart);
}

std::string HostPlatform::describe_starvation() {
  std::ostringstream text;
  text << "simulation has nothing left to do at " << sc_core::sc_time_stamp() << ": ";
  if (cluster) {
    text << cluster->describe_harts();
    return text.str();
  }
  Hart& hart = cpu.hart();
  if (cpu.sleeping()) {
    std::uint64_t mie = 0;
    hart.csr_read(0x304, mie);
    text << cpu.name() << " sleeps in WFI (pc=" << hart.describe(hart.pc) << ", mie=" << hex(mie)
         << ", mstatus.MIE=" << ((hart.mstatus() >> 3) & 1) << ") and no timer or device will wake it";
  } else {
    text << "no core is running";
  }
  return text.str();
}

std::string HostPlatform::describe_host_pc() const { return cpu.hart().describe(cpu.hart().pc); }

void HostPlatform::record_in_waveform(InterruptLine& line, const std::string& name) {
  const int signal = Waveform::instance().signal(name, 1);
  if (signal < 0) return;
  line.observe([signal](bool level) { Waveform::instance().change(signal, sc_core::sc_time_stamp(), level); });
}

}  // namespace npuvp
