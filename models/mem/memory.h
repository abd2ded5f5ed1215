// Memory: a RAM or ROM target with DMI, debug transport and a fixed access
// latency. Backed by an anonymous mapping, so a 1 GiB DDR costs nothing until
// touched and starts instantly.
#pragma once

#include "core/parameters.h"
#include "core/statistics.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>

namespace npuvp {

class Memory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Memory> socket;

  Parameter<std::uint64_t> size;
  Parameter<sc_core::sc_time> read_latency;
  Parameter<sc_core::sc_time> write_latency;
  Parameter<bool> read_only;

  Memory(sc_core::sc_module_name name, std::uint64_t default_size, bool default_read_only = false);
  ~Memory() override;

  // Backdoor for loaders and tests (no timing, ignores read_only).
  std::uint8_t* data() { return data_; }
  bool write_backdoor(std::uint64_t offset, const void* bytes, std::size_t length);

 private:
  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& payload, tlm::tlm_dmi& dmi);
  unsigned int transport_dbg(tlm::tlm_generic_payload& payload);

  std::uint8_t* data_ = nullptr;
  std::uint64_t mapped_size_ = 0;
  Counter reads_, writes_, bytes_read_, bytes_written_;
};

}  // namespace npuvp
