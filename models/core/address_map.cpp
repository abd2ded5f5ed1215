#include "core/address_map.h"

#include "core/simulation.h"
#include "core/text.h"

#include <algorithm>

namespace npuvp {

namespace {
std::string describe(const std::string& label, std::uint64_t base, std::uint64_t last) {
  return "'" + label + "' [" + hex(base) + ", " + hex(last) + "]";
}
}  // namespace

void AddressMap::check(std::uint64_t base, std::uint64_t size, const std::string& label,
                       const Window* ignore) const {
  if (size == 0) throw ConfigError("address window '" + label + "' at " + hex(base) + " has size zero");
  std::uint64_t last = base + size - 1;
  if (last < base)
    throw ConfigError("address window '" + label + "' at " + hex(base) + " of size " + hex(size) +
                      " wraps past the end of the address space");
  for (const auto& window : windows_) {
    if (&window == ignore) continue;
    if (window.label == label)
      throw ConfigError("address window label '" + label + "' is used twice: " +
                        describe(label, base, last) + " and " + describe(window.label, window.base, window.last()));
    bool overlap = base <= window.last() && window.base <= last;
    if (!overlap) continue;
    if (base == window.base && size == window.size)
      throw ConfigError("address window " + describe(label, base, last) + " covers the same range as '" +
                        window.label + "'");
    bool inside = base >= window.base && last <= window.last();
    bool around = window.base >= base && window.last() <= last;
    if (!inside && !around)
      throw ConfigError("address window " + describe(label, base, last) + " partially overlaps " +
                        describe(window.label, window.base, window.last()));
  }
}

void AddressMap::add(std::uint64_t base, std::uint64_t size, unsigned port, const std::string& label) {
  check(base, size, label, nullptr);
  windows_.push_back(Window{base, size, port, label});
  flatten();
}

AddressMap::Range AddressMap::move(const std::string& label, std::uint64_t new_base) {
  auto found = std::find_if(windows_.begin(), windows_.end(), [&](const Window& w) { return w.label == label; });
  if (found == windows_.end()) throw ConfigError("no address window named '" + label + "' to move");
  check(new_base, found->size, label, &*found);
  Range old{found->base, found->last()};
  found->base = new_base;
  flatten();
  return old;
}

void AddressMap::flatten() {
  // The decoding window can change only where a window begins or ends.
  std::vector<std::uint64_t> starts;
  for (const auto& window : windows_) {
    starts.push_back(window.base);
    if (window.last() != UINT64_MAX) starts.push_back(window.last() + 1);
  }
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  segments_.clear();
  for (std::size_t i = 0; i < starts.size(); ++i) {
    // The most specific window containing the start decodes the whole range.
    const Window* best = nullptr;
    for (const auto& window : windows_)
      if (window.contains(starts[i]) && (!best || window.size < best->size)) best = &window;
    if (!best) continue;
    const std::uint64_t last = i + 1 < starts.size() ? starts[i + 1] - 1 : UINT64_MAX;
    segments_.push_back(Segment{starts[i], last, static_cast<std::size_t>(best - windows_.data())});
  }
}

const AddressMap::Window* AddressMap::find(const std::string& label) const {
  for (const auto& window : windows_)
    if (window.label == label) return &window;
  return nullptr;
}

std::uint64_t AddressMap::decoded_until(const Window& window, std::uint64_t address) const {
  // A smaller window overlapping this one is nested in it (partial overlaps
  // and identical ranges are rejected), so only its base matters.
  std::uint64_t end = window.last();
  for (const auto& other : windows_)
    if (other.size < window.size && other.base > address && other.base <= end) end = other.base - 1;
  return end;
}

bool AddressMap::fits(const Window& window, std::uint64_t address, std::uint64_t length) const {
  if (!window.contains(address)) return false;
  return length == 0 || length - 1 <= decoded_until(window, address) - address;
}

std::uint64_t AddressMap::clip_length(const Window& window, std::uint64_t address, std::uint64_t length) const {
  if (fits(window, address, length)) return length;
  return window.contains(address) ? decoded_until(window, address) - address + 1 : 0;
}

bool AddressMap::to_global_dmi(const Window& window, std::uint64_t address, tlm::tlm_dmi& dmi) const {
  std::uint64_t relative_start = dmi.get_start_address(), relative_end = dmi.get_end_address();
  if (relative_start > relative_end || relative_start >= window.size) return false;
  std::uint64_t granted_start = window.base + relative_start;
  std::uint64_t end = relative_end >= window.size - 1 ? window.last() : window.base + relative_end;
  if (address < granted_start || address > end) return false;
  std::uint64_t start = granted_start;
  for (const auto& other : windows_) {
    if (other.size >= window.size || other.last() < start || other.base > end) continue;
    if (other.last() < address) start = std::max(start, other.last() + 1);
    else if (other.base > address) end = std::min(end, other.base - 1);
  }
  dmi.set_dmi_ptr(dmi.get_dmi_ptr() + (start - granted_start));
  dmi.set_start_address(start);
  dmi.set_end_address(end);
  return true;
}

std::vector<AddressMap::Range> AddressMap::to_global(unsigned port, std::uint64_t start, std::uint64_t end) const {
  std::vector<Range> ranges;
  if (start > end) return ranges;
  for (const auto& window : windows_) {
    if (window.port != port || start >= window.size) continue;
    std::uint64_t global_end = end >= window.size - 1 ? window.last() : window.base + end;
    ranges.push_back(Range{window.base + start, global_end});
  }
  return ranges;
}

}  // namespace npuvp
