// BackingStore: the bytes behind a memory target and the TLM plumbing every
// memory model shares (Memory, DdrController): range and byte-enable checks,
// the data copy of b_transport, DMI descriptors, debug transport and the
// loader backdoor. One source of truth for how our memories hold and move data;
// timing stays with the owner.
//
// The bytes live in an anonymous private mapping reserved without swap
// (MAP_NORESERVE), so a 1 GiB DDR costs nothing until touched, starts
// instantly and reads zero where nothing was written.
#pragma once

#include <systemc>
#include <tlm>

#include <cstdint>
#include <cstring>
#include <string>

namespace npuvp {

class BackingStore {
 public:
  // Throws ConfigError naming `size_parameter` when `size` is zero or cannot
  // be reserved.
  BackingStore(std::uint64_t size, const std::string& size_parameter);
  ~BackingStore();
  BackingStore(const BackingStore&) = delete;
  BackingStore& operator=(const BackingStore&) = delete;

  std::uint8_t* data() const { return data_; }
  std::uint64_t size() const { return size_; }

  // Whether [offset, offset + length) lies inside the store (no wrap-around).
  bool contains(std::uint64_t offset, std::uint64_t length) const {
    return offset <= size_ && length <= size_ - offset;
  }

  // Copies `length` bytes to `offset` without timing; false (and nothing
  // written) when the range does not fit.
  bool write_backdoor(std::uint64_t offset, const void* bytes, std::size_t length);

  // The status a b_transport of `payload` gets before any command-specific
  // check: TLM_ADDRESS_ERROR_RESPONSE when the access does not lie inside the
  // store, TLM_BYTE_ENABLE_ERROR_RESPONSE with byte enables or a streaming
  // width shorter than the data, TLM_OK_RESPONSE otherwise.
  // Inline: it runs on every transaction.
  tlm::tlm_response_status check(const tlm::tlm_generic_payload& payload) const {
    const std::uint64_t address = payload.get_address();
    const unsigned length = payload.get_data_length();
    if (address >= size_ || !contains(address, length)) return tlm::TLM_ADDRESS_ERROR_RESPONSE;
    if (payload.get_byte_enable_ptr() || payload.get_streaming_width() < length)
      return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
    return tlm::TLM_OK_RESPONSE;
  }

  // Moves a checked payload's data: reads copy out of the store, writes into
  // it, TLM_IGNORE_COMMAND does nothing.
  void transfer(tlm::tlm_generic_payload& payload) {
    const std::uint64_t address = payload.get_address();
    if (payload.is_read()) std::memcpy(payload.get_data_ptr(), data_ + address, payload.get_data_length());
    else if (payload.is_write()) std::memcpy(data_ + address, payload.get_data_ptr(), payload.get_data_length());
  }

  // Describes a DMI region covering the whole store with the given latencies;
  // write access is granted only when `writable`.
  void describe_dmi(tlm::tlm_dmi& dmi, const sc_core::sc_time& read_latency, const sc_core::sc_time& write_latency,
                    bool writable) const;

  // Debug transport: copies without timing, clipped at the end of the store;
  // returns the number of bytes copied (0 outside).
  unsigned int transport_dbg(tlm::tlm_generic_payload& payload);

 private:
  std::uint8_t* data_ = nullptr;
  std::uint64_t size_ = 0;
};

}  // namespace npuvp
