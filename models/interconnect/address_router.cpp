#include "interconnect/address_router.h"

#include "core/parameters.h"

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
  unsigned port = static_cast<unsigned>(map_.windows().size());
  map_.add(base, size, port, label);
  return port;
}

void AddressRouter::b_transport(int, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  std::uint64_t address = payload.get_address();
  const Window* window = map_.decode(address);
  // An access must stay inside one device: past a window's end or into an
  // overlay nested in it is an error, never a silent access to the wrong device.
  if (!window || !map_.fits(*window, address, payload.get_data_length())) {
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
  const Window* window = map_.decode(address);
  if (!window) return false;
  payload.set_address(address - window->base);
  bool granted = initiator_socket[window->port]->get_direct_mem_ptr(payload, dmi);
  payload.set_address(address);
  // Target-relative -> global, clipped to the window and around any overlay.
  return granted && map_.to_global_dmi(*window, address, dmi);
}

unsigned int AddressRouter::transport_dbg(int, tlm::tlm_generic_payload& payload) {
  return map_.forward_debug(initiator_socket, payload);
}

void AddressRouter::invalidate_direct_mem_ptr(int port, sc_dt::uint64 start, sc_dt::uint64 end) {
  for (const auto& range : map_.to_global(static_cast<unsigned>(port), start, end))
    for (unsigned i = 0; i < target_socket.size(); ++i) target_socket[i]->invalidate_direct_mem_ptr(range.start, range.end);
}

}  // namespace npuvp
