// InferProgress: the terminal's progress line of a model run (`npuvp infer`, scenarios
// with an `infer:` section). Layers report the end of their task blocks (LayerProfiler);
// the line is written by wall-clock time, not per layer: the first after `first_after`
// of wall time (a short run prints none), then at most once per `every`. On a terminal
// it overwrites itself (carriage return, the line is ended by finish()); otherwise each
// is a line of its own. Nothing here costs simulated time.
#pragma once

#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace npuvp {

class InferProgress {
 public:
  using Clock = std::chrono::steady_clock;
  struct Layer {
    std::string name, op;
  };
  InferProgress(std::vector<Layer> layers, std::ostream& out, bool terminal,
                Clock::duration first_after = std::chrono::seconds(2), Clock::duration every = std::chrono::seconds(1));
  // A task block of `layer` ended at `simulated_seconds`.
  void block_ended(std::size_t layer, double simulated_seconds);
  // Ends an overwritten line (a terminal), so what follows starts on a line of its own.
  void finish();
  unsigned lines_written() const { return lines_; }

 private:
  std::vector<Layer> layers_;
  std::ostream& out_;
  bool terminal_;
  Clock::time_point start_, next_;
  Clock::duration every_;
  std::size_t furthest_ = 0;
  unsigned lines_ = 0;
  std::size_t last_width_ = 0;
};

}  // namespace npuvp
