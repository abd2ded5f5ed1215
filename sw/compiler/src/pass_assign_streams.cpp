// Stream assignment (streams.h): independent layers of the lowered program on
// their own streams, events on every cross-stream dependency.
#include <algorithm>
#include <string>

#include "compile_error.h"
#include "streams.h"

extern "C" {
#include "npuvp/operator_kernels.h"
}

namespace npuvp::compiler {

unsigned output_argument(std::uint32_t kernel) {
  switch (kernel) {
    case NPUVP_OP_KERNEL_CONV: return NPUVP_CONV_OUT;
    case NPUVP_OP_KERNEL_MATMUL: return NPUVP_MATMUL_C;
    case NPUVP_OP_KERNEL_ELTWISE: return NPUVP_ELT_OUT;
    case NPUVP_OP_KERNEL_SOFTMAX: return NPUVP_SOFTMAX_OUT;
    case NPUVP_OP_KERNEL_LAYERNORM: return NPUVP_LAYERNORM_OUT;
    case NPUVP_OP_KERNEL_POOL: return NPUVP_POOL_OUT;
    case NPUVP_OP_KERNEL_COPY: return NPUVP_COPY_OUT;
    case NPUVP_OP_KERNEL_DWCONV: return NPUVP_DWCONV_OUT;
    default: throw CompileError("internal: no output argument known for kernel " + std::to_string(kernel));
  }
}

std::vector<std::vector<int>> layer_dependencies(const Program& program) {
  const int buffers = int(program.buffers.size());
  std::vector<int> last_writer(buffers, -1);
  std::vector<std::vector<int>> readers_since_write(buffers);
  std::vector<std::vector<int>> dependencies(program.layers.size());
  for (int layer = 0; layer < int(program.layers.size()); ++layer) {
    const LayerRecord& record = program.layers[layer];
    std::vector<int>& depends = dependencies[layer];
    std::vector<int> reads, writes;
    for (std::uint32_t l = record.first_launch; l < record.first_launch + record.launch_count; ++l) {
      const KernelLaunch& launch = program.launches[l];
      const unsigned out = output_argument(launch.kernel);
      for (unsigned a = 0; a < launch.args.size(); ++a) {
        const ArgWord& arg = launch.args[a];
        if (arg.kind != ArgWord::Kind::Buffer) continue;
        (a == out ? writes : reads).push_back(arg.buffer);
      }
    }
    for (int b : reads)
      if (last_writer[b] >= 0) depends.push_back(last_writer[b]);
    for (int b : writes) {
      if (last_writer[b] >= 0) depends.push_back(last_writer[b]);
      depends.insert(depends.end(), readers_since_write[b].begin(), readers_since_write[b].end());
    }
    std::sort(depends.begin(), depends.end());
    depends.erase(std::unique(depends.begin(), depends.end()), depends.end());
    depends.erase(std::remove(depends.begin(), depends.end(), layer), depends.end());
    for (int b : reads) readers_since_write[b].push_back(layer);
    for (int b : writes) {
      last_writer[b] = layer;
      readers_since_write[b].clear();
    }
  }
  return dependencies;
}

namespace {

// A vector clock over the streams: entry s is the position (0, 1, ...) on stream
// s of the latest layer known to complete before the owner ends; -1: none.
using Clock = std::vector<int>;

void merge(Clock& into, const Clock& from) {
  for (size_t s = 0; s < into.size(); ++s) into[s] = std::max(into[s], from[s]);
}

struct Assignment {
  std::vector<int> stream, position;               // per layer
  std::vector<std::vector<int>> waits_for;         // per layer: producers on other streams it waits for
};

// The stream of every layer and the cross-stream waits, in layer order. A `wide`
// layer (as many task blocks as AI Cores) never starts a branch of its own: it
// would only compete for the cores with the layers beside it.
Assignment choose_streams(const std::vector<std::vector<int>>& dependencies, const std::vector<bool>& wide,
                          unsigned streams) {
  const int layers = int(dependencies.size());
  Assignment a;
  a.stream.assign(layers, 0);
  a.position.assign(layers, 0);
  a.waits_for.assign(layers, {});
  std::vector<Clock> clock(layers, Clock(streams, -1));
  std::vector<int> tail(streams, -1), length(streams, 0);
  for (int layer = 0; layer < layers; ++layer) {
    const auto& depends = dependencies[layer];
    // What the layer waits for anyway: its producers and everything before them.
    Clock known(streams, -1);
    for (int p : depends) merge(known, clock[p]);
    int chosen = -1;
    // Continue a producer's stream while the producer is its last layer (the latest producer first).
    for (auto p = depends.rbegin(); p != depends.rend() && chosen < 0; ++p)
      if (tail[a.stream[*p]] == *p) chosen = a.stream[*p];
    // Else a stream whose last layer the layer waits for anyway (no false dependency),
    // idle longest; else the stream idle longest.
    auto idle_longest = [&](bool only_free) {
      int best = -1;
      for (int s = 0; s < int(streams); ++s) {
        const bool free = tail[s] < 0 || known[s] >= length[s] - 1;
        if (only_free && !free) continue;
        if (best < 0 || tail[s] < tail[best]) best = s;
      }
      return best;
    };
    if (chosen < 0 && wide[layer] && layer > 0) chosen = a.stream[layer - 1];  // in table order, after the previous
    if (chosen < 0) chosen = idle_longest(true);
    if (chosen < 0) chosen = idle_longest(false);
    a.stream[layer] = chosen;
    a.position[layer] = length[chosen]++;
    Clock& mine = clock[layer];
    if (tail[chosen] >= 0) mine = clock[tail[chosen]];
    for (auto it = depends.rbegin(); it != depends.rend(); ++it) {  // the latest first: it implies the most
      const int p = *it;
      const int s = a.stream[p];
      if (s == chosen || mine[s] >= a.position[p]) continue;  // ordered by the stream or an earlier wait
      a.waits_for[layer].push_back(p);
      merge(mine, clock[p]);
    }
    mine[chosen] = a.position[layer];
    tail[chosen] = layer;
  }
  return a;
}

// Event ids for the producers' records. Each stream has its own pool of
// kPackageEvents / streams ids; an id is reused once every wait for its
// previous record was placed. When a stream's pool is exhausted the id of its
// most recent record is recorded again: the waits still pending for it then
// wait for this later layer of the same stream, which is stronger, never weaker.
std::vector<int> choose_events(const Assignment& a, unsigned streams) {
  const int layers = int(a.stream.size());
  std::vector<int> last_waiter(layers, -1);
  for (int layer = 0; layer < layers; ++layer)
    for (int p : a.waits_for[layer]) last_waiter[p] = std::max(last_waiter[p], layer);
  const int per_stream = int(kPackageEvents / streams);
  std::vector<int> busy_until(kPackageEvents, -1), holder(kPackageEvents, -1), event_of(layers, -1);
  for (int layer = 0; layer < layers; ++layer) {
    if (last_waiter[layer] < 0) continue;
    const int first = a.stream[layer] * per_stream;
    int chosen = -1;
    for (int e = first; e < first + per_stream && chosen < 0; ++e)
      if (busy_until[e] <= layer) chosen = e;
    if (chosen < 0)
      chosen = int(std::max_element(holder.begin() + first, holder.begin() + first + per_stream) - holder.begin());
    event_of[layer] = chosen;
    holder[chosen] = layer;
    busy_until[chosen] = std::max(busy_until[chosen], last_waiter[layer]);
  }
  return event_of;
}

}  // namespace

int assign_streams(Program& program, unsigned streams) {
  if (streams < 1 || streams > kMaxStreams)
    throw CompileError("streams: " + std::to_string(streams) + " (1 .. " + std::to_string(kMaxStreams) + ")");
  if (streams == 1) return 0;
  std::vector<bool> wide(program.layers.size(), false);
  for (std::size_t layer = 0; layer < program.layers.size(); ++layer) {
    const LayerRecord& record = program.layers[layer];
    for (std::uint32_t l = record.first_launch; l < record.first_launch + record.launch_count; ++l)
      if (program.launches[l].blocks >= program.ai_cores) wide[layer] = true;
  }
  const Assignment a = choose_streams(layer_dependencies(program), wide, streams);
  const std::vector<int> event_of = choose_events(a, streams);
  int waits = 0, used = 1;
  for (int layer = 0; layer < int(program.layers.size()); ++layer) {
    const LayerRecord& record = program.layers[layer];
    if (record.launch_count == 0) continue;
    for (std::uint32_t l = record.first_launch; l < record.first_launch + record.launch_count; ++l)
      program.launches[l].stream = std::uint16_t(a.stream[layer]);
    KernelLaunch& first = program.launches[record.first_launch];
    for (int p : a.waits_for[layer]) {
      first.wait_events |= std::uint64_t(1) << event_of[p];
      ++waits;
    }
    if (event_of[layer] >= 0)
      program.launches[record.first_launch + record.launch_count - 1].record_event = std::int16_t(event_of[layer]);
    used = std::max(used, a.stream[layer] + 1);
  }
  program.streams = unsigned(used);
  return waits;
}

}  // namespace npuvp::compiler
