#include "cluster/mesh_cluster.h"

#include "core/simulation.h"
#include "core/text.h"

#include <algorithm>
#include <sstream>
#include <vector>

namespace npuvp {

namespace {
// "0,3,12,15" on a 4x4 mesh: the corner routers in tile order, each once.
std::string corner_routers(const MeshNetwork& network) {
  const std::uint64_t width = network.width, height = network.height;
  if (width == 0 || height == 0) return "";  // the mesh names the bad shape when built
  std::vector<std::uint64_t> corners{0, width - 1, (height - 1) * width, height * width - 1};
  std::sort(corners.begin(), corners.end());
  corners.erase(std::unique(corners.begin(), corners.end()), corners.end());
  std::string list;
  for (const std::uint64_t tile : corners) list += (list.empty() ? "" : ",") + std::to_string(tile);
  return list;
}
}  // namespace

MeshCluster::MeshCluster(sc_core::sc_module_name name, MeshNetwork& network, std::uint64_t memory_base,
                         std::uint64_t memory_size)
    : sc_module(name),
      trace_coherence_start(child_name(*this, "trace_coherence_start"), 0, "address",
                            "with a timeline (--trace): trace the harts' L1 misses to lines from this address on "
                            "(--trace-coherence START:END)"),
      trace_coherence_end(child_name(*this, "trace_coherence_end"), 0, "address",
                          "end (exclusive) of the traced L1 miss range (0 with a start of 0: none)") {
  if (trace_coherence_end.get() <= trace_coherence_start.get() && trace_coherence_end.get() != 0)
    throw ConfigError(trace_coherence_end.name() + " = " + hex(trace_coherence_end.get()) + " must be above " +
                      trace_coherence_start.name() + " = " + hex(trace_coherence_start.get()) +
                      " (the traced range is [start, end))");
  // The cluster's memory reaches DDR through the mesh's edge: without a
  // memory controller in the mesh's list, give it the mesh's corners.
  if (network.memory_controllers.get().empty()) network.memory_controllers.set(corner_routers(network));
  const unsigned tiles = network.tile_count();
  memory = std::make_unique<CoherentMemorySystem>("memory", network);
  memory->trace_misses(trace_coherence_start, trace_coherence_end);
  for (unsigned tile = 0; tile < tiles; ++tile) {
    std::string hart_name = "hart" + std::to_string(tile);
    // Run to a 1 us quantum rather than stop at every mesh event: with 16
    // harts and the protocol's messages there is always an event a few ns
    // ahead (docs/cluster.md, "Time").
    harts.push_back(std::make_unique<RiscvCpu>(hart_name.c_str(), tile, sc_core::sc_time(1, sc_core::SC_US), false));
    memory->attach_hart(tile, *harts.back(), memory_base, memory_size);
  }
}

MeshCluster::~MeshCluster() = default;

void MeshCluster::set_symbolizer(const std::function<std::string(std::uint64_t)>& symbolizer) {
  for (auto& hart : harts) hart->set_symbolizer(symbolizer);
}

void MeshCluster::add_uncached_range(std::uint64_t start, std::uint64_t size) {
  memory->add_uncached_range(start, size);
}

std::string MeshCluster::describe_harts() const {
  std::ostringstream text;
  unsigned sleeping = 0;
  for (const auto& cpu : harts) {
    if (!cpu->sleeping()) continue;
    const Hart& hart = cpu->hart();
    if (sleeping++) text << "; ";
    text << cpu->name() << " sleeps in WFI (pc=" << hart.describe(hart.pc) << ")";
  }
  if (!sleeping) text << "no cluster hart is running";
  return text.str();
}

}  // namespace npuvp
