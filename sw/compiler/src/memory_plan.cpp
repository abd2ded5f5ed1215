#include "memory_plan.h"

#include <algorithm>

#include "streams.h"

extern "C" {
#include "npuvp/model_package.h"
}

namespace npuvp::compiler {
namespace {

std::uint64_t align(std::uint64_t v) { return (v + NPUVP_PACKAGE_ALIGN - 1) / NPUVP_PACKAGE_ALIGN * NPUVP_PACKAGE_ALIGN; }

// The launches that name each buffer, in order.
std::vector<std::vector<int>> buffer_users(const Program& program) {
  std::vector<std::vector<int>> users(program.buffers.size());
  for (int l = 0; l < int(program.launches.size()); ++l)
    for (const auto& arg : program.launches[l].args)
      if (arg.kind == ArgWord::Kind::Buffer && (users[arg.buffer].empty() || users[arg.buffer].back() != l))
        users[arg.buffer].push_back(l);
  return users;
}

}  // namespace

void plan_memory(Program& program) {
  // Two buffers may share memory only when every launch of one completes before
  // any launch of the other starts, in the order the streams and events enforce
  // (streams.h). On one stream that is: their lifetimes (first to last launch) do
  // not overlap; on several, buffers of layers that may run at the same time never share.
  const LaunchOrder order_of_launches(program);
  const std::vector<std::vector<int>> users = buffer_users(program);
  auto may_share = [&](int a, int b) {
    return order_of_launches.all_before(users[a], users[b]) || order_of_launches.all_before(users[b], users[a]);
  };
  // Largest first; each goes to the lowest offset where it overlaps no placed
  // buffer it may not share with (greedy by size, best known simple heuristic).
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
      if (!may_share(b, p))
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
