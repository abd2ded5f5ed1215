// A TLM-2.0 bus master for unit tests of targets and interconnect: one
// simple_initiator_socket and helpers that build a generic payload for
// b_transport, debug transport and DMI requests, plus a record of the DMI
// invalidations the initiator hears.
//
// Given a body, the initiator runs it in an SC_THREAD, so tests of devices
// that wait on SystemC time can drive their registers from it; without one it
// is passive and its helpers are called directly after elaboration.
#pragma once

#include <gtest/gtest.h>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace npuvp::test_support {

class TestInitiator : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(TestInitiator);
  using Body = std::function<void(TestInitiator&)>;
  using Range = std::pair<std::uint64_t, std::uint64_t>;

  tlm_utils::simple_initiator_socket<TestInitiator> socket{"socket"};
  // Every invalidate_direct_mem_ptr call received, as [start, end].
  std::vector<Range> invalidations;
  // For interconnect tests: every b_transport, DMI request and debug access
  // must come back with the address the initiator put in (and debug accesses
  // with the length), whatever the interconnect translated on the way.
  bool expect_address_restored = false;

  explicit TestInitiator(sc_core::sc_module_name name, Body body = {}) : TestInitiator(name, 8, std::move(body)) {}
  // `register_size` is the access size of read(address) and write(address, value).
  TestInitiator(sc_core::sc_module_name name, unsigned register_size, Body body)
      : sc_module(name), register_size_(register_size), body_(std::move(body)) {
    socket.register_invalidate_direct_mem_ptr(this, &TestInitiator::invalidate_direct_mem_ptr);
    if (body_) SC_THREAD(run);
  }

  // One b_transport of `length` bytes at `data`; `delay` is the local time
  // offset going in and what the target added to it coming out.
  tlm::tlm_response_status access(tlm::tlm_command command, std::uint64_t address, void* data, unsigned length,
                                  sc_core::sc_time& delay) {
    tlm::tlm_generic_payload payload;
    payload.set_command(command);
    payload.set_address(address);
    payload.set_data_ptr(static_cast<unsigned char*>(data));
    payload.set_data_length(length);
    payload.set_streaming_width(length);
    payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    socket->b_transport(payload, delay);
    if (expect_address_restored) {
      EXPECT_EQ(payload.get_address(), address) << "the interconnect must restore the initiator's address";
    }
    dmi_allowed_ = payload.is_dmi_allowed();
    return payload.get_response_status();
  }
  tlm::tlm_response_status access(tlm::tlm_command command, std::uint64_t address, void* data, unsigned length) {
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    return access(command, address, data, length, delay);
  }
  // The DMI hint of the last b_transport.
  bool dmi_allowed() const { return dmi_allowed_; }

  // Byte buffers, without delay; the response status is the caller's to check.
  tlm::tlm_response_status read_bytes(std::uint64_t address, void* data, unsigned length) {
    return access(tlm::TLM_READ_COMMAND, address, data, length);
  }
  tlm::tlm_response_status write_bytes(std::uint64_t address, const void* data, unsigned length) {
    return access(tlm::TLM_WRITE_COMMAND, address, const_cast<void*>(data), length);
  }

  // Device registers: the low `size` (at most 8) bytes of a little-endian
  // value, zero-extended on reads. Expects TLM_OK_RESPONSE.
  std::uint64_t read(std::uint64_t address, unsigned size, sc_core::sc_time delay = sc_core::SC_ZERO_TIME) {
    std::uint64_t value = 0;
    EXPECT_EQ(access(tlm::TLM_READ_COMMAND, address, &value, size, delay), tlm::TLM_OK_RESPONSE)
        << "read at 0x" << std::hex << address;
    return value;
  }
  void write(std::uint64_t address, std::uint64_t value, unsigned size,
             sc_core::sc_time delay = sc_core::SC_ZERO_TIME) {
    EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, address, &value, size, delay), tlm::TLM_OK_RESPONSE)
        << "write at 0x" << std::hex << address;
  }
  std::uint64_t read(std::uint64_t address) { return read(address, register_size_); }
  void write(std::uint64_t address, std::uint64_t value) { write(address, value, register_size_); }

  // Memory words. Reads start from all ones, so a target that answers OK
  // without writing the data is caught. Expect TLM_OK_RESPONSE.
  std::uint32_t read32(std::uint64_t address, sc_core::sc_time delay = sc_core::SC_ZERO_TIME) {
    return read_word<std::uint32_t>(address, delay);
  }
  std::uint64_t read64(std::uint64_t address, sc_core::sc_time delay = sc_core::SC_ZERO_TIME) {
    return read_word<std::uint64_t>(address, delay);
  }
  void write32(std::uint64_t address, std::uint32_t value, sc_core::sc_time delay = sc_core::SC_ZERO_TIME) {
    write(address, value, sizeof value, delay);
  }

  // Debug transport; returns the number of bytes the target transferred.
  unsigned debug_read(std::uint64_t address, void* data, unsigned length) {
    return debug(tlm::TLM_READ_COMMAND, address, data, length);
  }
  unsigned debug_write(std::uint64_t address, const void* data, unsigned length) {
    return debug(tlm::TLM_WRITE_COMMAND, address, const_cast<void*>(data), length);
  }

  // Asks for a DMI grant covering `address`; whether one was given.
  bool get_dmi(std::uint64_t address, tlm::tlm_dmi& out, tlm::tlm_command command = tlm::TLM_READ_COMMAND) {
    tlm::tlm_generic_payload payload;
    payload.set_command(command);
    payload.set_address(address);
    bool granted = socket->get_direct_mem_ptr(payload, out);
    if (expect_address_restored) {
      EXPECT_EQ(payload.get_address(), address);
    }
    return granted;
  }

 private:
  template <typename T>
  T read_word(std::uint64_t address, sc_core::sc_time delay) {
    T value = ~T{0};
    EXPECT_EQ(access(tlm::TLM_READ_COMMAND, address, &value, sizeof value, delay), tlm::TLM_OK_RESPONSE)
        << "read at 0x" << std::hex << address;
    return value;
  }
  unsigned debug(tlm::tlm_command command, std::uint64_t address, void* data, unsigned length) {
    tlm::tlm_generic_payload payload;
    payload.set_command(command);
    payload.set_address(address);
    payload.set_data_ptr(static_cast<unsigned char*>(data));
    payload.set_data_length(length);
    unsigned done = socket->transport_dbg(payload);
    if (expect_address_restored) {
      EXPECT_EQ(payload.get_address(), address);
      EXPECT_EQ(payload.get_data_length(), length);
    }
    return done;
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) { invalidations.emplace_back(start, end); }
  void run() { body_(*this); }

  unsigned register_size_;
  Body body_;
  bool dmi_allowed_ = false;
};

}  // namespace npuvp::test_support
