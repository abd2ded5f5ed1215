#include "platform/layer_profiler.h"

#include "npuvp/operator_kernels.h"

namespace npuvp {

LayerProfiler::LayerProfiler(HostPlatform& platform, std::size_t layer_count)
    : platform_(platform), layers_(layer_count), running_(platform.aicores.size()), running_per_layer_(layer_count) {
  for (auto& core : platform_.aicores) {
    core->on_block_start([this](AiCore& started) { block_started(started); });
    core->on_block_end([this](AiCore& ended) { block_ended(ended); });
  }
}

std::uint64_t LayerProfiler::read_tag(const AiCore& core) {
  std::uint64_t tag = ~std::uint64_t{0};
  const std::uint64_t address = core.current_launch().args + 8 * NPUVP_OP_ARG_TAG;
  if (!platform_.read_memory(address, reinterpret_cast<std::uint8_t*>(&tag), sizeof tag)) return ~std::uint64_t{0};
  return tag;
}

void LayerProfiler::attribute_memory_traffic() {
  const std::uint64_t ddr = platform_.ddr.bytes_read() + platform_.ddr.bytes_written();
  const std::uint64_t l2 = platform_.l2.bytes_read() + platform_.l2.bytes_written();
  const std::uint64_t ddr_delta = ddr - last_ddr_bytes_, l2_delta = l2 - last_l2_bytes_;
  last_ddr_bytes_ = ddr;
  last_l2_bytes_ = l2;
  if (running_tagged_ == 0) return;  // traffic between layers: the host's and the task scheduler's
  for (std::size_t layer = 0; layer < layers_.size(); ++layer) {
    if (running_per_layer_[layer] == 0) continue;
    layers_[layer].ddr_bytes += ddr_delta * running_per_layer_[layer] / running_tagged_;
    layers_[layer].l2_bytes += l2_delta * running_per_layer_[layer] / running_tagged_;
  }
}

void LayerProfiler::block_started(AiCore& core) {
  attribute_memory_traffic();
  RunningBlock& block = running_.at(core.core_id());
  const std::uint64_t tag = read_tag(core);
  block.tagged = tag < layers_.size();
  block.layer = block.tagged ? static_cast<std::size_t>(tag) : 0;
  block.at_start = core.activity();
  if (!block.tagged) {
    ++untagged_blocks_;
    return;
  }
  LayerActivity& layer = layers_[block.layer];
  if (layer.blocks == 0) layer.first_start = sc_core::sc_time_stamp();
  ++layer.blocks;
  ++running_per_layer_[block.layer];
  ++running_tagged_;
}

void LayerProfiler::block_ended(AiCore& core) {
  attribute_memory_traffic();
  RunningBlock& block = running_.at(core.core_id());
  if (!block.tagged) return;
  block.tagged = false;
  LayerActivity& layer = layers_[block.layer];
  const AiCore::Activity now = core.activity();
  layer.last_end = sc_core::sc_time_stamp();
  layer.block_cycles += core.outcome().kernel_cycles;
  layer.macs += now.macs - block.at_start.macs;
  layer.peak_mac_cycles += now.peak_mac_cycles - block.at_start.peak_mac_cycles;
  layer.cube_busy_cycles += now.cube_busy_cycles - block.at_start.cube_busy_cycles;
  layer.gm_read_bytes += now.gm_read_bytes - block.at_start.gm_read_bytes;
  layer.gm_write_bytes += now.gm_write_bytes - block.at_start.gm_write_bytes;
  if (core.outcome().faulted) ++layer.faults;
  --running_per_layer_[block.layer];
  --running_tagged_;
  if (listener_) listener_(block.layer);
}

}  // namespace npuvp
