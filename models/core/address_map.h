// AddressMap: the address decoding shared by every interconnect (AddressRouter,
// RingBus). A window maps the global range [base, base + size) onto an output
// port; the target sees addresses relative to `base`.
//
// Rules:
// - Windows may nest (a small device overlaying a larger memory, e.g. HTIF's
//   tohost inside DDR); the most specific (smallest) window containing an
//   address decodes it. Partial overlaps, identical ranges, zero sizes, ranges
//   wrapping past 2^64 and duplicate labels are configuration errors
//   (ConfigError naming both windows where two are involved).
// - An access must stay inside what one window decodes: `decoded_until` gives
//   the last address from a start address on that still belongs to the window
//   (its end, or the byte before the next overlay nested inside it).
// - DMI grants from a target are translated to global addresses, clipped to
//   the window and around every nested overlay, so a grant never covers an
//   address another target decodes.
// - DMI invalidations from a target are translated to the global ranges of
//   every window of its port.
//
// Decoding is on every transaction's path, so add() and move() also flatten
// the windows into segments: consecutive address ranges, each decoded by one
// window and ending where decoded_until() ends it. decode() is then a binary
// search, and lookup() gives the decoded extent with it.
#pragma once

#include <tlm>

#include <cstdint>
#include <string>
#include <vector>

namespace npuvp {

class AddressMap {
 public:
  struct Window {
    std::uint64_t base = 0, size = 0;
    unsigned port = 0;
    std::string label;
    std::uint64_t last() const { return base + size - 1; }
    bool contains(std::uint64_t address) const { return address - base < size; }
  };
  // Addresses [first, last] all decode to windows()[window], and for each of
  // them decoded_until() of that window is `last`.
  struct Segment {
    std::uint64_t first = 0, last = 0;
    std::size_t window = 0;
    // fits() for an access from `address` (inside the segment) on.
    bool fits(std::uint64_t address, std::uint64_t length) const {
      return length == 0 || length - 1 <= last - address;
    }
  };
  // An inclusive global address range.
  struct Range {
    std::uint64_t start = 0, end = 0;
    bool operator==(const Range& other) const { return start == other.start && end == other.end; }
  };

  // Adds a window; throws ConfigError (and leaves the map unchanged) when the
  // window is invalid or conflicts with an existing one.
  void add(std::uint64_t base, std::uint64_t size, unsigned port, const std::string& label);
  // Moves the window named `label` to `new_base` (same size and port), checked
  // like add(); on error the map is unchanged. Returns the old range.
  Range move(const std::string& label, std::uint64_t new_base);

  // In the order they were added; pointers and references stay valid until
  // the next add() (move() changes a window in place).
  const std::vector<Window>& windows() const { return windows_; }
  const Window* find(const std::string& label) const;
  // The segment containing `address`, or null when no window decodes it.
  const Segment* lookup(std::uint64_t address) const {
    // Binary search for the last segment starting at or before `address`.
    std::size_t low = 0, high = segments_.size();
    while (low < high) {
      const std::size_t middle = (low + high) / 2;
      if (segments_[middle].first <= address) low = middle + 1;
      else high = middle;
    }
    if (low == 0) return nullptr;
    const Segment& segment = segments_[low - 1];
    return address <= segment.last ? &segment : nullptr;
  }
  // The most specific window containing `address`, or null.
  const Window* decode(std::uint64_t address) const {
    const Segment* segment = lookup(address);
    return segment ? &windows_[segment->window] : nullptr;
  }
  // The last address from `address` on that `window` decodes: its end, or the
  // byte before the next smaller window (an overlay) nested inside it.
  std::uint64_t decoded_until(const Window& window, std::uint64_t address) const;
  // Whether [address, address + length) lies entirely in what `window`
  // decodes from `address` on (an empty access fits when `address` is in it).
  bool fits(const Window& window, std::uint64_t address, std::uint64_t length) const;
  // `length` shortened to what `window` decodes from `address` on (debug
  // transport reads or writes up to the end of the decoded device).
  std::uint64_t clip_length(const Window& window, std::uint64_t address, std::uint64_t length) const;

  // Debug transport routed through the map: decode, clip to the window,
  // translate, forward to `targets[port]`, restore. Shared by every
  // interconnect so all of them answer debug accesses the same way.
  template <typename InitiatorSockets>
  unsigned forward_debug(InitiatorSockets& targets, tlm::tlm_generic_payload& payload) const {
    const std::uint64_t address = payload.get_address();
    const Window* window = decode(address);
    if (!window) return 0;
    const unsigned length = payload.get_data_length();
    payload.set_data_length(static_cast<unsigned>(clip_length(*window, address, length)));
    payload.set_address(address - window->base);
    const unsigned done = targets[window->port]->transport_dbg(payload);
    payload.set_address(address);
    payload.set_data_length(length);
    return done;
  }

  // Turns a target's DMI grant (target-relative addresses, for an access to
  // global `address` that decode() resolved to `window`) into a global grant
  // clipped to the window and around nested overlays; the pointer is moved to
  // the clipped start. False (dmi untouched) when no part of the grant lies
  // inside the window or the grant does not cover `address`.
  bool to_global_dmi(const Window& window, std::uint64_t address, tlm::tlm_dmi& dmi) const;
  // The global ranges an invalidation [start, end] from `port`'s target
  // covers: one per window of that port, clipped to the window.
  std::vector<Range> to_global(unsigned port, std::uint64_t start, std::uint64_t end) const;

 private:
  // Throws ConfigError if a window [base, base+size) named `label` cannot
  // coexist with the windows other than `ignore`.
  void check(std::uint64_t base, std::uint64_t size, const std::string& label, const Window* ignore) const;
  // Recomputes segments_ from windows_.
  void flatten();

  std::vector<Window> windows_;
  std::vector<Segment> segments_;  // in address order, gaps where nothing decodes
};

}  // namespace npuvp
