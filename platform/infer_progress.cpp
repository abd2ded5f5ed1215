#include "platform/infer_progress.h"

#include <algorithm>
#include <cstdio>

namespace npuvp {

InferProgress::InferProgress(std::vector<Layer> layers, std::ostream& out, bool terminal, Clock::duration first_after,
                             Clock::duration every)
    : layers_(std::move(layers)), out_(out), terminal_(terminal), start_(Clock::now()), next_(start_ + first_after),
      every_(every) {}

void InferProgress::block_ended(std::size_t layer, double simulated_seconds) {
  furthest_ = std::max(furthest_, layer);
  const Clock::time_point now = Clock::now();
  if (now < next_ || layers_.empty()) return;
  next_ = now + every_;
  const std::size_t at = std::min(furthest_, layers_.size() - 1);
  char figures[96];
  std::snprintf(figures, sizeof figures, "), %.0f us simulated, %.1f s", simulated_seconds * 1e6,
                std::chrono::duration<double>(now - start_).count());
  std::string line = "infer: layer " + std::to_string(at + 1) + "/" + std::to_string(layers_.size()) + " '" +
                     layers_[at].name + "' (" + layers_[at].op + figures;
  if (terminal_) {
    const std::size_t width = line.size();
    if (width < last_width_) line.append(last_width_ - width, ' ');  // clear the rest of a longer line
    last_width_ = width;
    out_ << '\r' << line << std::flush;
  } else {
    out_ << line << '\n' << std::flush;
  }
  ++lines_;
}

void InferProgress::finish() {
  if (terminal_ && lines_) out_ << '\n' << std::flush;
  last_width_ = 0;
}

}  // namespace npuvp
