// LaunchOrder (streams.h): the happens-before relation of a launch list under
// the runtime's stream and event semantics, as bit sets.
#include <algorithm>

#include "streams.h"

namespace npuvp::compiler {

LaunchOrder::LaunchOrder(const Program& program) {
  const std::size_t launches = program.launches.size();
  words_ = (launches + 63) / 64;
  predecessors_.assign(launches * words_, 0);
  std::size_t streams = 1;
  for (const KernelLaunch& launch : program.launches) streams = std::max<std::size_t>(streams, launch.stream + 1u);
  std::vector<int> last_on_stream(streams, -1), last_record(kPackageEvents, -1);
  auto inherit = [&](std::size_t into, int from) {  // `from` and everything before it
    std::uint64_t* to = &predecessors_[into * words_];
    const std::uint64_t* source = &predecessors_[std::size_t(from) * words_];
    for (std::size_t w = 0; w < words_; ++w) to[w] |= source[w];
    to[std::size_t(from) / 64] |= std::uint64_t(1) << (from % 64);
  };
  for (std::size_t x = 0; x < launches; ++x) {
    const KernelLaunch& launch = program.launches[x];
    if (last_on_stream[launch.stream] >= 0) inherit(x, last_on_stream[launch.stream]);
    for (unsigned e = 0; e < kPackageEvents; ++e)
      if ((launch.wait_events >> e & 1) && last_record[e] >= 0) inherit(x, last_record[e]);
    last_on_stream[launch.stream] = int(x);
    if (launch.record_event >= 0 && unsigned(launch.record_event) < kPackageEvents) last_record[launch.record_event] = int(x);
  }
}

bool LaunchOrder::before(int a, int b) const {
  return predecessors_[std::size_t(b) * words_ + std::size_t(a) / 64] >> (a % 64) & 1;
}

bool LaunchOrder::all_before(const std::vector<int>& first, const std::vector<int>& second) const {
  for (int b : second)
    for (int a : first)
      if (!before(a, b)) return false;
  return true;
}

}  // namespace npuvp::compiler
