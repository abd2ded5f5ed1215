// Device-memory planning: activation buffers placed in two arenas by their
// lifetimes, reusing space whose buffer is dead: the L2 buffer (on-chip, shared
// by the AI Cores) for the buffers the cost model puts there, DDR for the rest;
// buffers of launches that may run at the same time on different streams never
// share; the model input and output in the io area. docs/compiler.md "Memory planning".
#pragma once

#include "npuvp/compiler/compiler.h"
#include "program.h"

#include <set>
#include <string>

namespace npuvp::compiler {

struct MemoryPlanOptions {
  SocDescription soc;
  // Plan the L2 arena: false keeps every activation in DDR (and so does an SoC
  // whose l2_bytes is 0).
  bool l2 = false;
};

// Sets every arena buffer's home (Arena or L2) and offset, program.arena_bytes,
// program.l2_arena_bytes (never above options.soc.l2_bytes) and
// program.activation_bytes_total (the sum without reuse).
void plan_memory(Program& program, const MemoryPlanOptions& options = {});

// The layers whose weights to pin in the L2 buffer (indices into program.layers): of program.pinned_candidates, the
// compute-bound ones first, then the others, each group by modelled cycles saved per byte, each
// taken when its weights (64-byte aligned) fit in what is left of `free_bytes` (the L2 beside the
// activation arena).
std::set<std::uint32_t> choose_pinned_weights(const Program& program, std::uint64_t free_bytes);

// The cost model's modelled memory time of the program's layers, in seconds, with
// the buffers where they are now: per layer the largest of its DDR bytes at the DDR
// bandwidth, its L2 bytes at the L2 bandwidth and all its bytes through the AI
// Cores' MTE2 ports. A layer's bytes are its min_bytes (or, when more, the bytes of
// the buffers it names), those of the buffers in the L2 arena counted as L2 bytes.
double modelled_memory_seconds(const Program& program, const SocDescription& soc);

}  // namespace npuvp::compiler
