#include "mem/backing_store.h"

#include "core/simulation.h"

#include <sys/mman.h>

#include <algorithm>

namespace npuvp {

BackingStore::BackingStore(std::uint64_t size, const std::string& size_parameter) : size_(size) {
  if (size == 0) throw ConfigError(size_parameter + " must not be zero");
  void* mapping = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mapping == MAP_FAILED)
    throw ConfigError("cannot reserve " + std::to_string(size) + " bytes for " + size_parameter);
  data_ = static_cast<std::uint8_t*>(mapping);
}

BackingStore::~BackingStore() { munmap(data_, size_); }

bool BackingStore::write_backdoor(std::uint64_t offset, const void* bytes, std::size_t length) {
  if (!contains(offset, length)) return false;
  if (length) std::memcpy(data_ + offset, bytes, length);  // memcpy's pointers may not be null, even for 0 bytes
  return true;
}

void BackingStore::describe_dmi(tlm::tlm_dmi& dmi, const sc_core::sc_time& read_latency,
                                const sc_core::sc_time& write_latency, bool writable) const {
  dmi.set_dmi_ptr(data_);
  dmi.set_start_address(0);
  dmi.set_end_address(size_ - 1);
  dmi.set_read_latency(read_latency);
  dmi.set_write_latency(write_latency);
  dmi.allow_read();
  if (writable) dmi.allow_read_write();
}

unsigned int BackingStore::transport_dbg(tlm::tlm_generic_payload& payload) {
  const std::uint64_t address = payload.get_address();
  if (address >= size_) return 0;
  const std::uint64_t length = std::min<std::uint64_t>(payload.get_data_length(), size_ - address);
  if (payload.is_read()) std::memcpy(payload.get_data_ptr(), data_ + address, length);
  else if (payload.is_write()) std::memcpy(data_ + address, payload.get_data_ptr(), length);
  return static_cast<unsigned int>(length);
}

}  // namespace npuvp
