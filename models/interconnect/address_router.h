// AddressRouter: an address-decoding TLM-2.0 interconnect with no timing of
// its own (the RingBus adds timing on top of the same decoding, both use
// AddressMap from core/address_map.h). The most specific
// (smallest) window containing an address wins, so a small device may overlay
// a larger memory (e.g. HTIF's tohost inside DDR); DMI grants are clipped so
// they never cover such an overlay. Unmapped addresses answer
// TLM_ADDRESS_ERROR_RESPONSE (the CPU turns that into an access fault).
#pragma once

#include "core/address_map.h"
#include "core/statistics.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <cstdint>
#include <string>
#include <vector>

namespace npuvp {

class AddressRouter : public sc_core::sc_module {
 public:
  // Initiators (CPUs, DMA engines) bind here...
  tlm_utils::multi_passthrough_target_socket<AddressRouter> target_socket;
  // ...and targets bind here, in the order of their map() calls.
  tlm_utils::multi_passthrough_initiator_socket<AddressRouter> initiator_socket;

  explicit AddressRouter(sc_core::sc_module_name name);

  // Binds `target` and maps it at [base, base + size). Returns its port index.
  // The window is checked first: a rejected map() leaves no binding behind, so
  // port indices keep matching the windows.
  template <typename Socket>
  unsigned map(Socket& target, std::uint64_t base, std::uint64_t size, const std::string& label) {
    unsigned port = add_window(base, size, label);
    initiator_socket.bind(target);
    return port;
  }

  using Window = AddressMap::Window;
  const AddressMap& address_map() const { return map_; }
  const std::vector<Window>& windows() const { return map_.windows(); }
  const Window* decode(std::uint64_t address) const { return map_.decode(address); }
  // The last address from `address` on that `window` decodes: its end, or the
  // byte before the next smaller window (an overlay) nested inside it.
  std::uint64_t decoded_until(const Window& window, std::uint64_t address) const {
    return map_.decoded_until(window, address);
  }
  std::uint64_t unmapped_accesses() const { return unmapped_.value(); }

 private:
  unsigned add_window(std::uint64_t base, std::uint64_t size, const std::string& label);
  void b_transport(int initiator, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  bool get_direct_mem_ptr(int initiator, tlm::tlm_generic_payload& payload, tlm::tlm_dmi& dmi);
  unsigned int transport_dbg(int initiator, tlm::tlm_generic_payload& payload);
  void invalidate_direct_mem_ptr(int port, sc_dt::uint64 start, sc_dt::uint64 end);

  AddressMap map_;
  Counter unmapped_;
};

}  // namespace npuvp
