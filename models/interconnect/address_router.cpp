#include "interconnect/address_router.h"

#include "core/parameters.h"
#include "core/simulation.h"
#include "core/text.h"

#include <algorithm>

namespace npuvp {

AddressRouter::AddressRouter(sc_core::sc_module_name name)
    : sc_module(name),
      target_socket("target_socket"),
      initiator_socket("initiator_socket"),
      unmapped_(child_name(*this, "unmapped_accesses"), "", "accesses to addresses no device decodes") {
  target_socket.register_b_transport(this, &AddressRouter::b_transport);
  target_socket.register_get_direct_mem_ptr(this, &AddressRouter::get_direct_mem_ptr);
  target_socket.register_transport_dbg(this, &AddressRouter::transport_dbg);
  initiator_socket.register_invalidate_direct_mem_ptr(this, &AddressRouter::invalidate_direct_mem_ptr);
}

unsigned AddressRouter::add_window(std::uint64_t base, std::uint64_t size, const std::string& label) {
  if (size == 0 || base + size - 1 < base)
    throw ConfigError("address window '" + label + "' at " + hex(base) + " has an invalid size");
  for (const auto& window : windows_) {
    bool overlap = base <= window.last() && window.base <= base + size - 1;
    bool nested = (base >= window.base && base + size - 1 <= window.last()) ||
                  (window.base >= base && window.last() <= base + size - 1);
    if (overlap && !nested)
      throw ConfigError("address window '" + label + "' [" + hex(base) + ", " + hex(base + size - 1) +
                        "] partially overlaps '" + window.label + "'");
  }
  unsigned port = static_cast<unsigned>(windows_.size());
  windows_.push_back(Window{base, size, port, label});
  return port;
}

const AddressRouter::Window* AddressRouter::decode(std::uint64_t address) const {
  const Window* best = nullptr;
  for (const auto& window : windows_)
    if (address - window.base < window.size && (!best || window.size < best->size)) best = &window;
  return best;
}

std::uint64_t AddressRouter::decoded_until(const Window& window, std::uint64_t address) const {
  std::uint64_t end = window.last();
  for (const auto& other : windows_)
    if (other.size < window.size && other.base > address && other.base <= end) end = other.base - 1;
  return end;
}

void AddressRouter::b_transport(int, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  std::uint64_t address = payload.get_address();
  const Window* window = decode(address);
  // An access must stay inside one device: past a window's end or into an
  // overlay nested in it is an error, never a silent access to the wrong device.
  if (!window || payload.get_data_length() > decoded_until(*window, address) - address + 1) {
    ++unmapped_;
    payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  payload.set_address(address - window->base);
  initiator_socket[window->port]->b_transport(payload, delay);
  payload.set_address(address);
}

bool AddressRouter::get_direct_mem_ptr(int, tlm::tlm_generic_payload& payload, tlm::tlm_dmi& dmi) {
  std::uint64_t address = payload.get_address();
  const Window* window = decode(address);
  if (!window) return false;
  payload.set_address(address - window->base);
  bool granted = initiator_socket[window->port]->get_direct_mem_ptr(payload, dmi);
  payload.set_address(address);
  if (!granted) return false;
  // Target-relative -> global, clipped to the window and around any overlay.
  std::uint64_t start = std::max<std::uint64_t>(dmi.get_start_address() + window->base, window->base);
  std::uint64_t end = std::min<std::uint64_t>(dmi.get_end_address() + window->base, window->last());
  for (const auto& other : windows_) {
    if (&other == window || other.size >= window->size) continue;
    if (other.last() < start || other.base > end) continue;
    if (other.last() < address) start = std::max(start, other.last() + 1);
    else if (other.base > address) end = std::min(end, other.base - 1);
  }
  unsigned char* pointer = dmi.get_dmi_ptr() + (start - (dmi.get_start_address() + window->base));
  dmi.set_dmi_ptr(pointer);
  dmi.set_start_address(start);
  dmi.set_end_address(end);
  return true;
}

unsigned int AddressRouter::transport_dbg(int, tlm::tlm_generic_payload& payload) {
  std::uint64_t address = payload.get_address();
  const Window* window = decode(address);
  if (!window) return 0;
  unsigned length = payload.get_data_length();
  std::uint64_t available = decoded_until(*window, address) - address + 1;
  if (length > available) payload.set_data_length(static_cast<unsigned>(available));
  payload.set_address(address - window->base);
  unsigned done = initiator_socket[window->port]->transport_dbg(payload);
  payload.set_address(address);
  payload.set_data_length(length);
  return done;
}

void AddressRouter::invalidate_direct_mem_ptr(int port, sc_dt::uint64 start, sc_dt::uint64 end) {
  for (const auto& window : windows_) {
    if (window.port != static_cast<unsigned>(port)) continue;
    std::uint64_t global_start = window.base + start;
    std::uint64_t global_end = end >= window.size - 1 ? window.last() : window.base + end;
    for (unsigned i = 0; i < target_socket.size(); ++i)
      target_socket[i]->invalidate_direct_mem_ptr(global_start, global_end);
  }
}

}  // namespace npuvp
