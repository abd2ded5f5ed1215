#include "memory_plan.h"

#include <algorithm>

#include "streams.h"

extern "C" {
#include "npuvp/model_package.h"
}

namespace npuvp::compiler {
namespace {

// The launches that name each buffer, in order.
std::vector<std::vector<int>> buffer_users(const Program& program) {
  std::vector<std::vector<int>> users(program.buffers.size());
  for (int l = 0; l < int(program.launches.size()); ++l)
    for (const auto& arg : program.launches[l].args)
      if (arg.kind == ArgWord::Kind::Buffer && (users[arg.buffer].empty() || users[arg.buffer].back() != l))
        users[arg.buffer].push_back(l);
  return users;
}

// The layers that name each buffer, in order, each once.
std::vector<std::vector<int>> buffer_layers(const Program& program, const std::vector<std::vector<int>>& users) {
  std::vector<std::vector<int>> layers(program.buffers.size());
  for (std::size_t b = 0; b < users.size(); ++b)
    for (int launch : users[b]) {
      const int layer = int(program.launches[launch].layer);
      if (layers[b].empty() || layers[b].back() != layer) layers[b].push_back(layer);
    }
  return layers;
}

// One arena being filled: each buffer goes to the lowest 64-byte-aligned offset
// where it overlaps no placed buffer it may not share with (greedy, the best
// known simple heuristic when fed largest first).
template <typename MayShare>
class Arena {
 public:
  Arena(Program& program, MayShare may_share) : program_(program), may_share_(may_share) {}

  // The offset buffer b would take.
  std::uint64_t offset_for(int b) const {
    const std::uint64_t bytes = npuvp_package_align(program_.buffers[b].bytes);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> busy;  // [start, end) of conflicting buffers
    for (int p : placed_)
      if (!may_share_(b, p))
        busy.push_back({program_.buffers[p].offset, program_.buffers[p].offset + npuvp_package_align(program_.buffers[p].bytes)});
    std::sort(busy.begin(), busy.end());
    std::uint64_t offset = 0;
    for (const auto& [start, end] : busy) {
      if (offset + bytes <= start) break;
      offset = std::max(offset, end);
    }
    return offset;
  }
  void place(int b, std::uint64_t offset) {
    program_.buffers[b].offset = offset;
    extent_ = std::max(extent_, offset + npuvp_package_align(program_.buffers[b].bytes));
    placed_.push_back(b);
  }
  std::uint64_t extent() const { return extent_; }

 private:
  Program& program_;
  MayShare may_share_;
  std::vector<int> placed_;
  std::uint64_t extent_ = 0;
};

// Per layer: the bytes it moves from DDR and from L2, and its modelled memory time.
struct LayerTraffic {
  const SocDescription& soc;
  std::vector<double> ddr, l2;

  // Every layer's bytes from DDR: its min_bytes, or the bytes of the buffers it names when more.
  LayerTraffic(const Program& program, const SocDescription& soc, const std::vector<std::vector<int>>& layers_of_buffer)
      : soc(soc), ddr(program.layers.size(), 0.0), l2(program.layers.size(), 0.0) {
    for (std::size_t b = 0; b < layers_of_buffer.size(); ++b)
      for (int layer : layers_of_buffer[b]) ddr[layer] += double(program.buffers[b].bytes);
    for (std::size_t layer = 0; layer < program.layers.size(); ++layer)
      ddr[layer] = std::max(ddr[layer], double(program.layers[layer].min_bytes));
  }
  // The roofline's memory time: the DDR and the L2 buffer serve in parallel, and every
  // byte also passes an AI Core's MTE2 port (moving bytes between them keeps the sum).
  double seconds(double ddr_bytes, double l2_bytes) const {
    return roofline_memory_cycles(ddr_bytes + l2_bytes, 0, std::max(ddr_bytes, 0.0), l2_bytes, soc) /
           soc.aicore_clock_hz;
  }
  double seconds(int layer) const { return seconds(ddr[layer], l2[layer]); }
  // How moving `bytes` of each of `layers` from DDR to L2 changes their time (> 0: slower).
  double time_change_of_moving(const std::vector<int>& layers, double bytes) const {
    double change = 0;
    for (int layer : layers)
      change += seconds(ddr[layer] - bytes, l2[layer] + bytes) - seconds(layer);
    return change;
  }
  void move(const std::vector<int>& layers, double bytes) {
    for (int layer : layers) {
      ddr[layer] -= bytes;
      l2[layer] += bytes;
    }
  }
};

// Each layer's minimum bytes split by where they must be (a lower bound either way,
// for the roofline): the constants other than the pinned weights and the activation
// terms whose buffers are all in DDR or the io area; the pinned weights and the
// activation terms whose buffers are all in L2. A term over buffers in both (a read
// spanning inputs of both) counts in neither.
void split_minimum_bytes(Program& program) {
  auto in_l2 = [&](int buffer) {
    return buffer >= 0 && program.buffers[buffer].home == DeviceBuffer::Home::L2;
  };
  for (LayerRecord& layer : program.layers) {
    layer.min_ddr_bytes = std::min(layer.min_constant_bytes - layer.min_pinned_bytes, layer.min_bytes);
    layer.min_l2_bytes = layer.min_pinned_bytes;
    for (const auto& term : layer.activation_bytes) {
      const auto l2_buffers = std::count_if(term.buffers.begin(), term.buffers.end(), in_l2);
      if (l2_buffers == 0) layer.min_ddr_bytes += term.bytes;
      else if (l2_buffers == std::ptrdiff_t(term.buffers.size())) layer.min_l2_bytes += term.bytes;
    }
    if (layer.activation_bytes.empty()) layer.min_ddr_bytes = layer.min_bytes;  // built without terms: all in DDR
  }
}

// The L2 arena: the buffers that move the most bytes first (their bytes times
// the layers that name them); each goes there when it fits beside the L2
// buffers it may be alive with and, with an L2 slower than the DDR, the cost
// model's memory time of its layers does not grow. (An L2 at least as fast
// serves every byte at least as soon, and each byte it takes is one the DDR,
// which every weight must pass, does not move.)
template <typename L2Arena>
void place_in_l2(Program& program, const SocDescription& soc, const std::vector<int>& candidates,
                 const std::vector<std::vector<int>>& users, L2Arena& l2_arena) {
  const auto layers = buffer_layers(program, users);
  LayerTraffic traffic(program, soc, layers);
  const bool l2_slower = soc.l2_bytes_per_second > 0 &&
                         soc.l2_bytes_per_second < soc.ddr_bytes_per_second;
  std::vector<int> by_traffic = candidates;
  auto moved = [&](int b) { return double(program.buffers[b].bytes) * double(layers[b].size()); };
  std::stable_sort(by_traffic.begin(), by_traffic.end(), [&](int x, int y) { return moved(x) > moved(y); });
  for (int b : by_traffic) {
    const double bytes = double(program.buffers[b].bytes);
    if (l2_slower && traffic.time_change_of_moving(layers[b], bytes) > 0) continue;
    const std::uint64_t offset = l2_arena.offset_for(b);
    if (offset + npuvp_package_align(program.buffers[b].bytes) > soc.l2_bytes) continue;
    l2_arena.place(b, offset);
    program.buffers[b].home = DeviceBuffer::Home::L2;
    traffic.move(layers[b], bytes);
  }
}

}  // namespace

std::set<std::uint32_t> choose_pinned_weights(const Program& program, std::uint64_t free_bytes) {
  auto candidates = program.pinned_candidates;
  auto saving_per_byte = [](const Program::PinnedWeightsCandidate& c) {
    return c.cycles_saved / double(npuvp_package_align(c.bytes));
  };
  std::stable_sort(candidates.begin(), candidates.end(), [&](const auto& x, const auto& y) {
    if (x.compute_bound != y.compute_bound) return x.compute_bound;
    return saving_per_byte(x) > saving_per_byte(y);
  });
  std::set<std::uint32_t> chosen;
  std::uint64_t used = 0;
  for (const auto& candidate : candidates) {
    if (used + npuvp_package_align(candidate.bytes) > free_bytes) continue;
    used += npuvp_package_align(candidate.bytes);
    chosen.insert(candidate.layer);
  }
  return chosen;
}

double modelled_memory_seconds(const Program& program, const SocDescription& soc) {
  const auto layers = buffer_layers(program, buffer_users(program));
  LayerTraffic traffic(program, soc, layers);
  for (std::size_t b = 0; b < program.buffers.size(); ++b)
    if (program.buffers[b].home == DeviceBuffer::Home::L2) traffic.move(layers[b], double(program.buffers[b].bytes));
  double total = 0;
  for (int layer = 0; layer < int(program.layers.size()); ++layer) total += traffic.seconds(layer);
  return total;
}

void plan_memory(Program& program, const MemoryPlanOptions& options) {
  // Two buffers may share memory only when every launch of one completes before
  // any launch of the other starts, in the order the streams and events enforce
  // (streams.h). On one stream that is: their lifetimes (first to last launch) do
  // not overlap; on several, buffers of layers that may run at the same time never share.
  const LaunchOrder order_of_launches(program);
  const std::vector<std::vector<int>> users = buffer_users(program);
  auto may_share = [&](int a, int b) {
    return order_of_launches.all_before(users[a], users[b]) || order_of_launches.all_before(users[b], users[a]);
  };
  std::vector<int> candidates;
  program.activation_bytes_total = 0;
  for (int b = 0; b < int(program.buffers.size()); ++b) {
    auto& buffer = program.buffers[b];
    if (buffer.home == DeviceBuffer::Home::L2) buffer.home = DeviceBuffer::Home::Arena;  // planned again
    if (buffer.home != DeviceBuffer::Home::Arena) continue;
    if (buffer.first_launch < 0) continue;  // never touched
    program.activation_bytes_total += npuvp_package_align(buffer.bytes);
    candidates.push_back(b);
  }

  Arena l2_arena(program, may_share);
  if (options.l2 && options.soc.l2_bytes > 0) place_in_l2(program, options.soc, candidates, users, l2_arena);
  program.l2_arena_bytes = l2_arena.extent();
  split_minimum_bytes(program);

  // The DDR arena: the rest, largest first.
  std::vector<int> order;
  for (int b : candidates)
    if (program.buffers[b].home == DeviceBuffer::Home::Arena) order.push_back(b);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    return program.buffers[x].bytes > program.buffers[y].bytes;
  });
  Arena ddr_arena(program, may_share);
  for (int b : order) ddr_arena.place(b, ddr_arena.offset_for(b));
  program.arena_bytes = ddr_arena.extent();
  // io area: the input then the output, each aligned.
  auto& input = program.buffers[program.input_buffer];
  auto& output = program.buffers[program.output_buffer];
  input.offset = 0;
  output.offset = npuvp_package_align(input.bytes);
}

}  // namespace npuvp::compiler
