#include "mem/memory.h"

#include "core/simulation.h"

#include <algorithm>

namespace npuvp {

Memory::Memory(sc_core::sc_module_name name, std::uint64_t default_size, bool default_read_only,
               sc_core::sc_time default_latency, double default_bandwidth)
    : sc_module(name),
      socket("socket"),
      size(child_name(*this, "size"), default_size, "bytes", "capacity"),
      read_latency(child_name(*this, "read_latency"), default_latency, "time", "latency of a read access"),
      write_latency(child_name(*this, "write_latency"), default_latency, "time", "latency of a write access"),
      read_only(child_name(*this, "read_only"), default_read_only, "", "reject writes (ROM)"),
      bandwidth(child_name(*this, "bandwidth"), default_bandwidth, "B/s",
                "port bandwidth: an access occupies the port for bytes / bandwidth (0 = unlimited)"),
      store_(size, size.name()),
      reads_(child_name(*this, "reads"), "", "read transactions (b_transport; DMI accesses are not counted)"),
      writes_(child_name(*this, "writes"), "", "write transactions (b_transport)"),
      bytes_read_(child_name(*this, "bytes_read"), "bytes", "bytes read through b_transport"),
      bytes_written_(child_name(*this, "bytes_written"), "bytes", "bytes written through b_transport") {
  socket.register_b_transport(this, &Memory::b_transport);
  socket.register_get_direct_mem_ptr(this, &Memory::get_direct_mem_ptr);
  socket.register_transport_dbg(this, &Memory::transport_dbg);
  // Below 1 B/s one access would take longer than SystemC's 64-bit picosecond
  // time holds (issue 23: such values used to wrap and give wrong times).
  if (bandwidth.get() < 0 || (bandwidth.get() > 0 && bandwidth.get() < 1))
    throw ConfigError(bandwidth.name() + " must be 0 (unlimited) or at least 1 B/s, got " + bandwidth.value_text());
}

sc_core::sc_time Memory::complete(const sc_core::sc_time& start, const sc_core::sc_time& latency, unsigned length) {
  if (bandwidth.get() <= 0) return start + latency;
  const sc_core::sc_time occupancy(length / bandwidth.get(), sc_core::SC_SEC);
  const sc_core::sc_time begin = port_.reserve(start, occupancy, current_time());
  return begin + occupancy + latency;
}

void Memory::b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  tlm::tlm_response_status status = store_.check(payload);
  if (status == tlm::TLM_OK_RESPONSE && payload.is_write() && read_only) status = tlm::TLM_COMMAND_ERROR_RESPONSE;
  if (status != tlm::TLM_OK_RESPONSE) {
    payload.set_response_status(status);
    return;
  }
  store_.transfer(payload);
  const unsigned length = payload.get_data_length();
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (payload.is_read()) {
    delay = complete(now + delay, read_latency.get(), length) - now;
    ++reads_;
    bytes_read_ += length;
  } else if (payload.is_write()) {
    delay = complete(now + delay, write_latency.get(), length) - now;
    ++writes_;
    bytes_written_ += length;
  }
  payload.set_dmi_allowed(true);
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

bool Memory::get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
  store_.describe_dmi(dmi, read_latency.get(), write_latency.get(), !read_only);
  return true;
}

unsigned int Memory::transport_dbg(tlm::tlm_generic_payload& payload) { return store_.transport_dbg(payload); }

}  // namespace npuvp
