// Base for register-mapped devices: one place for the TLM-2.0 target
// boilerplate (payload checks, debug transport, error responses), so each
// device only says what its registers do.
#pragma once

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>

namespace npuvp {

class MmioDevice : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<MmioDevice> socket;

  MmioDevice(sc_core::sc_module_name name, std::uint64_t size);
  std::uint64_t size() const { return size_; }

 protected:
  // Register accesses, offset relative to the device base. Sizes are 1, 2, 4
  // or 8 bytes and never cross the device end. `delay` is the initiator's
  // local time offset (loosely-timed); a device may add its access latency.
  // Return false for an access the device does not support (reported to the
  // initiator as TLM_ADDRESS_ERROR_RESPONSE, i.e. an access fault).
  virtual bool read(std::uint64_t offset, unsigned size, std::uint64_t& value,
                    sc_core::sc_time& delay) = 0;
  virtual bool write(std::uint64_t offset, unsigned size, std::uint64_t value,
                     sc_core::sc_time& delay) = 0;
  // Debug reads must not have side effects; the default refuses them.
  virtual bool peek(std::uint64_t offset, unsigned size, std::uint64_t& value) { return false; }

 private:
  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& payload);
  std::uint64_t size_;
};

}  // namespace npuvp
