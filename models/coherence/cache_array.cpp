#include "coherence/cache_array.h"

#include "coherence/protocol_table.h"

#include <sstream>
#include <stdexcept>

namespace npuvp::coherence {

CacheArray::CacheArray(const std::string& what, const CacheShape& shape, unsigned line_bytes, unsigned interleave)
    : ways_(shape.ways), line_bytes_(line_bytes), interleave_(interleave) {
  const auto fail = [&](const std::string& why) {
    throw std::invalid_argument(what + ": " + why + " (size " + std::to_string(shape.size_bytes) + " bytes, " +
                                std::to_string(shape.ways) + " ways, " + std::to_string(line_bytes) +
                                "-byte lines)");
  };
  if (line_bytes == 0 || (line_bytes & (line_bytes - 1)) != 0 || line_bytes > kMaxLineBytes)
    fail("the line size must be a power of two of at most " + std::to_string(kMaxLineBytes) + " bytes");
  if (shape.ways == 0) fail("a cache needs at least one way");
  if (interleave == 0) fail("the interleave must be at least 1");
  const std::uint64_t set_bytes = static_cast<std::uint64_t>(shape.ways) * line_bytes;
  if (shape.size_bytes < set_bytes || shape.size_bytes % set_bytes != 0)
    fail("the size must be a whole number of sets (ways x line size)");
  if (shape.size_bytes / set_bytes > (1u << 30)) fail("too many sets");
  sets_ = static_cast<unsigned>(shape.size_bytes / set_bytes);
  const auto power_of_two = [](unsigned value) { return value != 0 && (value & (value - 1)) == 0; };
  shift_and_mask_ = power_of_two(interleave_) && power_of_two(sets_);
  if (shift_and_mask_)
    for (unsigned bytes = line_bytes_ * interleave_; bytes > 1; bytes >>= 1) ++set_shift_;
  line_.assign(entries(), 0);
  state_.assign(entries(), 0);
  last_use_.assign(entries(), 0);
  data_.assign(static_cast<std::size_t>(entries()) * line_bytes_, 0);
}

std::string protocol_error_text(const std::string& controller, std::uint64_t line, const char* state,
                                const char* event, const std::string& message, Cycles cycle) {
  std::ostringstream out;
  out << controller << ": no transition for event " << event << " in state " << state << ", line 0x" << std::hex
      << line << std::dec;
  if (!message.empty()) out << ", " << message;
  out << ", cycle " << cycle;
  return out.str();
}

}  // namespace npuvp::coherence
