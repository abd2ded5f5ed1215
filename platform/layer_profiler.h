// LayerProfiler: what the AI Cores did for each layer of a compiled model.
//
// Every operator-kernel launch of a model package carries its layer index in
// argument word NPUVP_OP_ARG_TAG (sw/include/npuvp/operator_kernels.h). At
// each task block's start the profiler reads that word from the block's
// argument block (a debug read: no simulated time), and at its end it
// attributes the core's work in between (MACs, Cube cycles, MTE bytes) to the
// layer. Bytes the DDR and the L2 buffer served are attributed to the layers
// whose blocks ran at the time, in proportion to their running blocks (one
// stream runs one layer at a time, so this is exact up to the few bytes of
// the host and the task scheduler). Nothing here costs simulated time.
#pragma once

#include "platform/host_platform.h"

#include <systemc>

#include <cstdint>
#include <functional>
#include <vector>

namespace npuvp {

class LayerProfiler {
 public:
  struct LayerActivity {
    std::uint64_t blocks = 0;                 // task blocks that ran for the layer
    sc_core::sc_time first_start, last_end;   // of its blocks
    std::uint64_t block_cycles = 0;           // AI Core cycles, summed over its blocks
    std::uint64_t macs = 0;                   // useful multiply-accumulates
    double peak_mac_cycles = 0;               // cycles those MACs take at the Cube's peak
    std::uint64_t cube_busy_cycles = 0;
    std::uint64_t gm_read_bytes = 0, gm_write_bytes = 0;  // by the AI Cores' MTEs
    std::uint64_t ddr_bytes = 0, l2_bytes = 0;            // served by DDR and the L2 buffer
    std::uint64_t faults = 0;
  };

  // Observes `platform`'s AI Cores; layer indices at or above `layer_count`
  // (a kernel that is not part of the model) are counted as untagged blocks.
  LayerProfiler(HostPlatform& platform, std::size_t layer_count);

  const std::vector<LayerActivity>& layers() const { return layers_; }
  // Called when a task block of a layer (its index) has ended, after its figures are added.
  void on_layer_block_end(std::function<void(std::size_t layer)> listener) { listener_ = std::move(listener); }
  std::uint64_t untagged_blocks() const { return untagged_blocks_; }

 private:
  struct RunningBlock {
    std::size_t layer = 0;
    bool tagged = false;
    AiCore::Activity at_start;
  };
  void block_started(AiCore& core);
  void block_ended(AiCore& core);
  // Hands the memory traffic since the last call to the layers running now.
  void attribute_memory_traffic();
  std::uint64_t read_tag(const AiCore& core);

  HostPlatform& platform_;
  std::vector<LayerActivity> layers_;
  std::vector<RunningBlock> running_;      // by core id
  std::vector<std::uint64_t> running_per_layer_;
  std::uint64_t running_tagged_ = 0, untagged_blocks_ = 0;
  std::uint64_t last_ddr_bytes_ = 0, last_l2_bytes_ = 0;
  std::function<void(std::size_t layer)> listener_;
};

}  // namespace npuvp
