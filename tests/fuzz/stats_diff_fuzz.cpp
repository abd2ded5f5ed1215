// Fuzz target: the reader of `npuvp stats diff` (platform/stats_diff.cpp). The input is
// one statistics file, compared against a valid one in both orders and against itself,
// through stats_diff() as main.cpp calls it. The result must be 0 (compared) or 125 (bad
// input, with a one-line error); an exception out of stats_diff() or any other status is
// a bug. Seeds: corpus/stats_diff.
#include "core/simulation.h"
#include "fuzz_support.h"
#include "platform/stats_diff.h"

#include <sstream>

namespace {

const char kValidStatistics[] = R"({"npuvp": {"sim_time_seconds": 0.001, "instructions": 1200, "exit_status": 0},
  "statistics": {"soc.cpu.instructions": 1200, "soc.ddr.latency": {"count": 4, "mean": 31.5}}})";

void diff(const std::string& before, const std::string& after, const std::vector<std::string>& patterns) {
  npuvp::StatsDiffOptions options;
  options.before_path = before;
  options.after_path = after;
  options.patterns = patterns;
  options.include_unchanged = patterns.empty();
  std::ostringstream out, error;
  const int status = npuvp::stats_diff(options, out, error);
  if (status != 0 && status != static_cast<int>(npuvp::ExitStatus::kBadInput))
    npuvp::fuzz::property_failed("stats_diff returned neither 0 nor 125");
  if (status != 0 && error.str().empty()) npuvp::fuzz::property_failed("bad input without an error message");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string valid = npuvp::fuzz::write_file(
      "valid.json", reinterpret_cast<const std::uint8_t*>(kValidStatistics), sizeof kValidStatistics - 1);
  const std::string input = npuvp::fuzz::write_file("input.json", data, size);
  diff(input, valid, {});
  diff(valid, input, {"soc.*"});
  diff(input, input, {});
  return 0;
}
