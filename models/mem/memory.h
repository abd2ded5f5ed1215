// Memory: a RAM or ROM target (SRAM, L2 buffer, boot ROM) with DMI, debug
// transport, a fixed access latency and an optional port bandwidth: an
// access occupies the port for bytes / bandwidth (a ReservationCalendar, so
// accesses queue behind each other in time order, and one that arrives late
// under temporal decoupling uses an earlier free gap) and completes latency +
// that time after it starts. The bytes and the TLM data path are a BackingStore (an anonymous
// mapping, so a 1 GiB DDR costs nothing until touched and starts instantly).
#pragma once

#include "core/parameters.h"
#include "core/reservation_calendar.h"
#include "core/statistics.h"
#include "mem/backing_store.h"

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
  Parameter<double> bandwidth;

  // The defaults of `read_latency`/`write_latency` and `bandwidth` may be
  // given per instance (e.g. the L2 buffer); configured values still win.
  Memory(sc_core::sc_module_name name, std::uint64_t default_size, bool default_read_only = false,
         sc_core::sc_time default_latency = sc_core::SC_ZERO_TIME, double default_bandwidth = 0);

  // Backdoor for loaders and tests (no timing, ignores read_only).
  std::uint8_t* data() { return store_.data(); }
  // Bytes read and written through b_transport so far (DMI accesses are not seen).
  std::uint64_t bytes_read() const { return bytes_read_.value(); }
  std::uint64_t bytes_written() const { return bytes_written_.value(); }
  bool write_backdoor(std::uint64_t offset, const void* bytes, std::size_t length) {
    return store_.write_backdoor(offset, bytes, length);
  }

 private:
  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& payload, tlm::tlm_dmi& dmi);
  unsigned int transport_dbg(tlm::tlm_generic_payload& payload);

  // When the access starting at `start` (absolute) completes, given its length.
  sc_core::sc_time complete(const sc_core::sc_time& start, const sc_core::sc_time& latency, unsigned length);

  BackingStore store_;  // after `size`, which it is built from
  ReservationCalendar port_;  // when the port is busy (bandwidth), in time-resolution units
  Counter reads_, writes_, bytes_read_, bytes_written_;
};

}  // namespace npuvp
