#include "periph/mmio_device.h"

#include <cstring>

namespace npuvp {

MmioDevice::MmioDevice(sc_core::sc_module_name name, std::uint64_t size)
    : sc_module(name), socket("socket"), size_(size) {
  socket.register_b_transport(this, &MmioDevice::b_transport);
  socket.register_transport_dbg(this, &MmioDevice::transport_dbg);
}

namespace {
bool plain_access(const tlm::tlm_generic_payload& payload, std::uint64_t device_size) {
  unsigned length = payload.get_data_length();
  return (length == 1 || length == 2 || length == 4 || length == 8) && !payload.get_byte_enable_ptr() &&
         payload.get_streaming_width() >= length && payload.get_address() + length <= device_size;
}
}  // namespace

void MmioDevice::b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  if (!plain_access(payload, size_)) {
    payload.set_response_status(payload.get_address() < size_ ? tlm::TLM_BURST_ERROR_RESPONSE
                                                               : tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  unsigned length = payload.get_data_length();
  std::uint64_t value = 0;
  bool ok;
  if (payload.is_read()) {
    ok = read(payload.get_address(), length, value, delay);
    if (ok) std::memcpy(payload.get_data_ptr(), &value, length);  // host is little-endian like RISC-V
  } else if (payload.is_write()) {
    std::memcpy(&value, payload.get_data_ptr(), length);
    ok = write(payload.get_address(), length, value, delay);
  } else {
    ok = true;  // TLM_IGNORE_COMMAND
  }
  payload.set_response_status(ok ? tlm::TLM_OK_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

unsigned int MmioDevice::transport_dbg(tlm::tlm_generic_payload& payload) {
  if (!payload.is_read() || !plain_access(payload, size_)) return 0;
  std::uint64_t value = 0;
  if (!peek(payload.get_address(), payload.get_data_length(), value)) return 0;
  std::memcpy(payload.get_data_ptr(), &value, payload.get_data_length());
  return payload.get_data_length();
}

}  // namespace npuvp
