#include "mem/memory.h"

#include "core/simulation.h"
#include "core/text.h"

#include <sys/mman.h>

#include <cstring>

namespace npuvp {

Memory::Memory(sc_core::sc_module_name name, std::uint64_t default_size, bool default_read_only)
    : sc_module(name),
      socket("socket"),
      size(child_name(*this, "size"), default_size, "bytes", "capacity"),
      read_latency(child_name(*this, "read_latency"), sc_core::SC_ZERO_TIME, "time", "latency of a read access"),
      write_latency(child_name(*this, "write_latency"), sc_core::SC_ZERO_TIME, "time", "latency of a write access"),
      read_only(child_name(*this, "read_only"), default_read_only, "", "reject writes (ROM)"),
      reads_(child_name(*this, "reads"), "", "read transactions (b_transport; DMI accesses are not counted)"),
      writes_(child_name(*this, "writes"), "", "write transactions (b_transport)"),
      bytes_read_(child_name(*this, "bytes_read"), "bytes", "bytes read through b_transport"),
      bytes_written_(child_name(*this, "bytes_written"), "bytes", "bytes written through b_transport") {
  if (size.get() == 0) throw ConfigError(size.name() + " must not be zero");
  mapped_size_ = size;
  void* mapping = mmap(nullptr, mapped_size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mapping == MAP_FAILED)
    throw ConfigError("cannot reserve " + std::to_string(mapped_size_) + " bytes for " + std::string(this->name()));
  data_ = static_cast<std::uint8_t*>(mapping);
  socket.register_b_transport(this, &Memory::b_transport);
  socket.register_get_direct_mem_ptr(this, &Memory::get_direct_mem_ptr);
  socket.register_transport_dbg(this, &Memory::transport_dbg);
}

Memory::~Memory() { munmap(data_, mapped_size_); }

bool Memory::write_backdoor(std::uint64_t offset, const void* bytes, std::size_t length) {
  if (offset > mapped_size_ || length > mapped_size_ - offset) return false;
  std::memcpy(data_ + offset, bytes, length);
  return true;
}

void Memory::b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  std::uint64_t address = payload.get_address();
  unsigned length = payload.get_data_length();
  if (address >= mapped_size_ || length > mapped_size_ - address) {
    payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (payload.get_byte_enable_ptr() || payload.get_streaming_width() < length) {
    payload.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return;
  }
  if (payload.is_read()) {
    std::memcpy(payload.get_data_ptr(), data_ + address, length);
    delay += read_latency.get();
    ++reads_;
    bytes_read_ += length;
  } else if (payload.is_write()) {
    if (read_only) {
      payload.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
      return;
    }
    std::memcpy(data_ + address, payload.get_data_ptr(), length);
    delay += write_latency.get();
    ++writes_;
    bytes_written_ += length;
  }
  payload.set_dmi_allowed(true);
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

bool Memory::get_direct_mem_ptr(tlm::tlm_generic_payload& payload, tlm::tlm_dmi& dmi) {
  dmi.set_dmi_ptr(data_);
  dmi.set_start_address(0);
  dmi.set_end_address(mapped_size_ - 1);
  dmi.set_read_latency(read_latency.get());
  dmi.set_write_latency(write_latency.get());
  dmi.allow_read();
  if (!read_only) dmi.allow_read_write();
  return true;
}

unsigned int Memory::transport_dbg(tlm::tlm_generic_payload& payload) {
  std::uint64_t address = payload.get_address();
  if (address >= mapped_size_) return 0;
  std::uint64_t length = std::min<std::uint64_t>(payload.get_data_length(), mapped_size_ - address);
  if (payload.is_read()) std::memcpy(payload.get_data_ptr(), data_ + address, length);
  else if (payload.is_write()) std::memcpy(data_ + address, payload.get_data_ptr(), length);
  return static_cast<unsigned int>(length);
}

}  // namespace npuvp
