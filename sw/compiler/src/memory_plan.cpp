#include "memory_plan.h"

#include <algorithm>

extern "C" {
#include "npuvp/model_package.h"
}

namespace npuvp::compiler {
namespace {

std::uint64_t align(std::uint64_t v) { return (v + NPUVP_PACKAGE_ALIGN - 1) / NPUVP_PACKAGE_ALIGN * NPUVP_PACKAGE_ALIGN; }

bool lifetimes_overlap(const DeviceBuffer& a, const DeviceBuffer& b) {
  return a.first_launch <= b.last_launch && b.first_launch <= a.last_launch;
}

}  // namespace

void plan_memory(Program& program) {
  // Largest first; each goes to the lowest offset where it overlaps no placed
  // buffer that is alive at the same time (greedy by size, best known simple heuristic).
  std::vector<int> order;
  program.activation_bytes_total = 0;
  for (int b = 0; b < int(program.buffers.size()); ++b) {
    auto& buffer = program.buffers[b];
    if (buffer.home != DeviceBuffer::Home::Arena) continue;
    if (buffer.first_launch < 0) continue;  // never touched
    program.activation_bytes_total += align(buffer.bytes);
    order.push_back(b);
  }
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    return program.buffers[x].bytes > program.buffers[y].bytes;
  });
  std::vector<int> placed;
  std::uint64_t arena = 0;
  for (int b : order) {
    auto& buffer = program.buffers[b];
    std::vector<std::pair<std::uint64_t, std::uint64_t>> busy;  // [start, end) of conflicting buffers
    for (int p : placed)
      if (lifetimes_overlap(buffer, program.buffers[p]))
        busy.push_back({program.buffers[p].offset, program.buffers[p].offset + align(program.buffers[p].bytes)});
    std::sort(busy.begin(), busy.end());
    std::uint64_t offset = 0;
    for (const auto& [start, end] : busy) {
      if (offset + align(buffer.bytes) <= start) break;
      offset = std::max(offset, end);
    }
    buffer.offset = offset;
    arena = std::max(arena, offset + align(buffer.bytes));
    placed.push_back(b);
  }
  program.arena_bytes = arena;
  // io area: the input then the output, each aligned.
  auto& input = program.buffers[program.input_buffer];
  auto& output = program.buffers[program.output_buffer];
  input.offset = 0;
  output.offset = align(input.bytes);
}

}  // namespace npuvp::compiler
