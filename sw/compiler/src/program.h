// The lowered model: kernel launches whose address arguments name activation
// buffers or constants, the layers they belong to, and the buffers the memory
// planner places. The package writer turns it into model_package.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace npuvp::compiler {

struct ArgWord {
  // PinnedConstant: a constant of the pinned weights, which the runtime copies into the
  // L2 buffer at load (Program::pinned_constants).
  enum class Kind { Literal, Constant, Buffer, PinnedConstant };
  Kind kind = Kind::Literal;
  std::uint64_t value = 0;  // literal, or the byte offset into the constants / pinned weights / buffer
  int buffer = -1;          // Kind::Buffer
};

struct KernelLaunch {
  std::uint32_t kernel = 0;  // enum npuvp_operator_kernel
  std::uint32_t blocks = 1;
  std::uint32_t layer = 0;
  std::vector<ArgWord> args;  // the kernel's *_ARG_COUNT words
  // Set by the stream assignment (pass_assign_streams.cpp); one stream, no events
  // without it. Semantics as in model_package.h: wait for the latest record of each
  // event in `wait_events` earlier in the launch list, record `record_event` after.
  std::uint16_t stream = 0;
  std::uint64_t wait_events = 0;
  std::int16_t record_event = -1;
};

struct LayerRecord {
  std::string name, op, shapes, tiling;
  std::uint64_t macs = 0, min_bytes = 0;
  std::uint64_t min_output_bytes = 0;  // of min_bytes, the outputs
  std::uint64_t min_constant_bytes = 0;  // of min_bytes, the constants (weights, biases)
  std::uint64_t min_pinned_bytes = 0;  // of those, the pinned weights (in the L2 buffer, not DDR)
  // The rest of min_bytes: bytes of activations, each term read from or written to one of its
  // buffers (several when a read spans the node's inputs).
  struct ActivationBytes {
    std::vector<int> buffers;
    std::uint64_t bytes = 0;
  };
  std::vector<ActivationBytes> activation_bytes;
  // Of min_bytes, those that must be in DDR and those that must be in L2, whichever way
  // the activations named are read (set by the memory plan: min_bytes all in DDR before).
  std::uint64_t min_ddr_bytes = 0, min_l2_bytes = 0;
  std::uint32_t first_launch = 0, launch_count = 0;
};

// An activation's storage: in the DDR arena or the L2 arena (the memory planner
// chooses and places) or the io area (the model input / output).
struct DeviceBuffer {
  std::string name;
  std::uint64_t bytes = 0;
  int first_launch = -1, last_launch = -1;  // lifetime (inclusive)
  enum class Home { Arena, L2, Input, Output } home = Home::Arena;
  std::uint64_t offset = 0;  // in its arena or the io area
};

struct Program {
  std::vector<KernelLaunch> launches;
  std::vector<LayerRecord> layers;
  std::vector<DeviceBuffer> buffers;
  std::vector<std::uint8_t> constants;  // the constants region (64-byte aligned entries)
  // The pinned weights (64-byte aligned entries, a 64-byte multiple): the package appends them to the constants
  // and the runtime copies them into the L2 buffer at load (memory_plan.h, choose_pinned_weights).
  std::vector<std::uint8_t> pinned_constants;
  // Layers whose weights the tiling planner finds faster from the L2 buffer than from DDR
  // (lowered with CompileOptions::pin_weights; the memory plan picks among them).
  struct PinnedWeightsCandidate {
    std::uint32_t layer = 0;  // index into `layers` (names need not be unique)
    std::uint64_t bytes = 0;  // the weights, 64-byte aligned
    double cycles_saved = 0;  // the planner's modelled cycles with the weights in DDR minus in L2
    bool compute_bound = false;  // by the roofline, with its weights in DDR (pinned first)
  };
  std::vector<PinnedWeightsCandidate> pinned_candidates;
  int input_buffer = -1, output_buffer = -1;
  std::string input_name, output_name;
  std::vector<std::int64_t> input_shape, output_shape;
  std::uint64_t arena_bytes = 0, activation_bytes_total = 0;
  std::uint64_t l2_arena_bytes = 0;  // the arena in the L2 buffer
  unsigned ai_cores = 1;
  unsigned streams = 1;  // streams the launches use
  std::string model_name;
};

}  // namespace npuvp::compiler
