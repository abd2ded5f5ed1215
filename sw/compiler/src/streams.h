// Streams: which layers of a lowered Program may run concurrently, their
// assignment to the runtime's streams with events on the cross-stream
// dependencies (pass_assign_streams.cpp), and the order of launches those
// streams and events enforce (launch_order.cpp), which the memory planner
// respects. docs/compiler.md "Streams".
#pragma once

#include <cstdint>
#include <vector>

#include "npuvp/compiler/compiler.h"
#include "program.h"

namespace npuvp::compiler {

// Package events 0 .. 63 (the runtime's NPUVP_MODEL_MAX_EVENTS).
constexpr unsigned kPackageEvents = 64;

// The argument word a kernel of operator_kernels.h writes (its OUT / C); every
// other address argument is read.
unsigned output_argument(std::uint32_t kernel);

// For every layer, the earlier layers it must wait for: those that wrote a
// buffer it reads (read after write), and, for a buffer it writes, the last
// writer and the readers since (write after write, write after read). Sorted,
// no duplicates, never the layer itself.
std::vector<std::vector<int>> layer_dependencies(const Program& program);

// Puts the layers on up to `streams` (1 .. kMaxStreams) streams: a layer
// continues the stream of a producer that is still that stream's last layer;
// otherwise a layer with as many task blocks as program.ai_cores follows the
// previous layer's stream (beside another layer it would only compete for the
// cores), and any other takes a stream whose last layer it already waits for,
// else the stream idle longest. Each cross-stream dependency not already implied by
// earlier waits (vector clocks) becomes a record on the producer's last launch
// and a wait on the consumer's first. Sets every launch's stream, wait_events,
// record_event and program.streams (the streams used). Returns the waits
// (cross-stream edges) placed. streams = 1 leaves the program as it is.
int assign_streams(Program& program, unsigned streams);

// The order the runtime and the task scheduler enforce on a launch list
// (model_package.h): a launch starts after every earlier launch of its stream
// has completed, and after the latest record, earlier in the list, of each
// event it waits for (a record happens once its launch, and so every earlier
// launch of that stream, completed). Transitive.
class LaunchOrder {
 public:
  explicit LaunchOrder(const Program& program);
  // Launch a completes before launch b starts.
  bool before(int a, int b) const;
  // Every launch of `first` completes before any launch of `second` starts.
  bool all_before(const std::vector<int>& first, const std::vector<int>& second) const;

 private:
  std::size_t words_ = 0;                    // 64-bit words per launch's set
  std::vector<std::uint64_t> predecessors_;  // launch x's set: bit a when a completes before x starts
};

}  // namespace npuvp::compiler
