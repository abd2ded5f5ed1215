#include "interconnect/ring_bus.h"

#include "core/timeline.h"
#include "core/waveform.h"

#include "core/simulation.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace npuvp {

using sc_core::sc_time;

RingBus::RingBus(sc_core::sc_module_name name)
    : sc_module(name),
      target_socket("target_socket"),
      initiator_socket("initiator_socket"),
      clock(child_name(*this, "clock"), 1e9, "Hz", "ring clock frequency"),
      hop_latency(child_name(*this, "hop_latency"), 2, "cycles", "cycles a packet head takes to cross one hop"),
      link_width(child_name(*this, "link_width"), 32, "bytes",
                 "bytes per cycle of each link, per direction (serialization = ceil(bytes / link_width) cycles)"),
      trace_every(child_name(*this, "trace_every"), 0, "transactions",
                  "with a timeline (--trace): every N-th ring transaction, all initiators counted together, as a slice "
                  "on its initiator stop's row (0: none; --trace-ring N)"),
      unmapped_(child_name(*this, "unmapped_accesses"), "", "accesses to addresses no device decodes"),
      straddling_(child_name(*this, "straddling_accesses"), "",
                  "accesses running past the end of their window or into an overlay") {
  configure();
  target_socket.register_b_transport(this, &RingBus::b_transport);
  target_socket.register_get_direct_mem_ptr(this, &RingBus::get_direct_mem_ptr);
  target_socket.register_transport_dbg(this, &RingBus::transport_dbg);
  initiator_socket.register_invalidate_direct_mem_ptr(this, &RingBus::invalidate_direct_mem_ptr);
}

void RingBus::configure() {
  if (link_width.get() == 0) throw ConfigError(link_width.name() + " must not be zero");
  // Whole picoseconds, like the cores' clocks, then SystemC time units.
  period_ = sc_time(static_cast<double>(clock_period_ps(clock)), sc_core::SC_PS).value();
  hop_ = hop_latency.get() * period_;
  hop_time_ = sc_time::from_value(hop_);
  width_ = link_width.get();
  last_bytes_ = 0;  // ceil(0 / width) = 0 cycles
  last_cycles_ = 0;
  last_serialization_ = sc_core::SC_ZERO_TIME;
}

void RingBus::check_stop(unsigned stop, const std::string& what) const {
  if (stop >= stop_names_.size())
    throw ConfigError(std::string(name()) + ": " + what + " attached at stop " + std::to_string(stop) +
                      ", but the ring has " + std::to_string(stop_names_.size()) + " stop(s)");
}

unsigned RingBus::add_stop(const std::string& stop_name) {
  if (elaborated_) throw ConfigError(std::string(name()) + ": stop '" + stop_name + "' added after elaboration");
  bool valid = !stop_name.empty() && std::none_of(stop_name.begin(), stop_name.end(), [](char c) {
    return c == '.' || std::isspace(static_cast<unsigned char>(c));
  });
  if (!valid)
    throw ConfigError(std::string(name()) + ": invalid stop name '" + stop_name +
                      "' (it must be non-empty, without '.' or spaces)");
  if (std::find(stop_names_.begin(), stop_names_.end(), stop_name) != stop_names_.end())
    throw ConfigError(std::string(name()) + ": stop '" + stop_name + "' is declared twice");
  stop_names_.push_back(stop_name);
  return static_cast<unsigned>(stop_names_.size() - 1);
}

void RingBus::end_of_elaboration() {
  configure();  // parameters may have been set programmatically after construction
  // Without any binding, target_socket still holds the binder made when the
  // callbacks were registered (size 1), so "none attached" is checked first.
  if (initiator_stops_.empty())
    throw ConfigError(std::string(name()) +
                      ": no initiator is attached to a stop (bind initiators with connect_initiator(socket, stop))");
  if (target_socket.size() != initiator_stops_.size())
    throw ConfigError(std::string(name()) + ": initiator port " + std::to_string(initiator_stops_.size()) +
                      " of target_socket is not attached to a stop (" + std::to_string(target_socket.size()) +
                      " initiators bound, " + std::to_string(initiator_stops_.size()) +
                      " through connect_initiator(socket, stop))");
  elaborated_ = true;

  unsigned n = stop_count();
  links_.resize(2 * static_cast<std::size_t>(n));
  for (unsigned stop = 0; stop < n; ++stop) {
    for (bool clockwise : {true, false}) {
      // A one-stop ring has no links; with two stops both ways are one hop
      // and ties go clockwise, so only rings of 3+ stops use the other way.
      if (n < 2 || (!clockwise && n < 3)) continue;
      unsigned next = clockwise ? (stop + 1) % n : (stop + n - 1) % n;
      Link& link = links_[link_index(stop, clockwise)];
      std::string prefix = "link." + stop_names_[stop] + "_to_" + stop_names_[next] + ".";
      link.waveform = Waveform::instance().signal(child_name(*this, prefix + "busy"), 1);
      link.bytes = std::make_unique<Counter>(child_name(*this, prefix + "bytes"), "bytes",
                                             "data bytes serialized on the link");
      link.busy_cycles = std::make_unique<Counter>(child_name(*this, prefix + "busy_cycles"), "cycles",
                                                   "ring cycles the link was reserved for data");
      Counter* busy = link.busy_cycles.get();
      link.utilization = std::make_unique<DerivedStatistic>(
          child_name(*this, prefix + "utilization"), "",
          "busy_cycles / elapsed ring cycles (elapsed: the later of simulated time and the last completion)",
          [this, busy] {
            double elapsed = elapsed_cycles();
            return elapsed > 0 ? static_cast<double>(busy->value()) / elapsed : 0.0;
          });
    }
  }
  // links_ is not resized again, so the paths may point into it.
  paths_.resize(static_cast<std::size_t>(n) * n);
  for (unsigned from = 0; from < n; ++from) {
    for (unsigned to = 0; to < n; ++to) {
      Path& entry = paths_[static_cast<std::size_t>(from) * n + to];
      const Route way = route(from, to);
      unsigned stop = from;
      for (unsigned hop = 0; hop < way.hops; ++hop) {
        entry.links.push_back(&links_[link_index(stop, way.clockwise)]);
        stop = way.clockwise ? (stop + 1) % n : (stop + n - 1) % n;
      }
      entry.header = sc_time::from_value(way.hops * hop_);
    }
  }
  initiator_stats_.resize(n);
  for (unsigned stop : initiator_stops_) {
    InitiatorStatistics& stats = initiator_stats_[stop];
    if (stats.bytes) continue;
    std::string prefix = "initiator." + stop_names_[stop] + ".";
    stats.bytes = std::make_unique<Counter>(child_name(*this, prefix + "bytes"), "bytes",
                                            "data bytes of the transactions of initiators at this stop");
    stats.transactions = std::make_unique<Counter>(child_name(*this, prefix + "transactions"), "",
                                                   "routed b_transport transactions of initiators at this stop");
    stats.latency = std::make_unique<Histogram>(
        child_name(*this, prefix + "latency"), "cycles",
        "ring cycles from issue to response complete, target time included (rounded up)");
  }
  connections_.resize(initiator_stops_.size() * target_stops_.size());
  for (unsigned port = 0; port < initiator_stops_.size(); ++port) {
    for (unsigned target = 0; target < target_stops_.size(); ++target) {
      const unsigned source = initiator_stops_[port], destination = target_stops_[target];
      Connection& entry = connections_[static_cast<std::size_t>(port) * target_stops_.size() + target];
      entry.request = &paths_[static_cast<std::size_t>(source) * n + destination];
      entry.response = &paths_[static_cast<std::size_t>(destination) * n + source];
      entry.statistics = &initiator_stats_[source];
    }
  }
}

unsigned RingBus::link_index(unsigned stop, bool clockwise) const {
  return clockwise ? stop : stop_count() + stop;
}

RingBus::Route RingBus::route(unsigned from, unsigned to) const {
  unsigned n = stop_count();
  unsigned clockwise = (to + n - from) % n, counter = (from + n - to) % n;
  if (clockwise <= counter) return Route{clockwise, true};
  return Route{counter, false};
}

void RingBus::serialize(std::uint64_t bytes) {
  if (bytes == last_bytes_) return;
  last_bytes_ = bytes;
  last_cycles_ = (bytes + width_ - 1) / width_;
  last_serialization_ = sc_time::from_value(last_cycles_ * period_);
}

sc_time RingBus::send_data(const Path& path, const sc_time& start, std::uint64_t bytes, const sc_time& now) {
  serialize(bytes);
  sc_time head = start;
  for (Link* link : path.links) {
    const sc_time begin = link->calendar.reserve(head, last_serialization_, now);
    if (link->waveform >= 0) {
      Waveform::instance().adjust(link->waveform, begin, 1);
      Waveform::instance().adjust(link->waveform, begin + last_serialization_, -1);
    }
    *link->bytes += bytes;
    *link->busy_cycles += last_cycles_;
    head = begin + hop_time_;
  }
  return head + last_serialization_;
}

double RingBus::elapsed_cycles() const {
  Ticks now = std::max<Ticks>(sc_core::sc_time_stamp().value(), horizon_);
  return period_ ? static_cast<double>(now) / static_cast<double>(period_) : 0.0;
}

void RingBus::b_transport(int port, tlm::tlm_generic_payload& payload, sc_time& delay) {
  std::uint64_t address = payload.get_address();
  const AddressMap::Segment* segment = map_.lookup(address);
  if (!segment) {
    ++unmapped_;
    payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  // An access must stay inside one device: past a window's end or into an
  // overlay nested in it is an error, never a silent access to the wrong device.
  if (!segment->fits(address, payload.get_data_length())) {
    ++straddling_;
    payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  // The target may remap windows while it runs: keep what this access needs.
  const AddressMap::Window& window = map_.windows()[segment->window];
  const unsigned target = window.port;
  const std::uint64_t base = window.base;
  const Connection& way = connection(static_cast<unsigned>(port), target);
  const std::uint64_t bytes = payload.get_data_length();
  const bool is_write = payload.is_write(), is_read = payload.is_read();

  // The request: the data of a write, or a header.
  sc_time now = current_time();
  const sc_time issue = now + delay;
  if (is_write) delay = send_data(*way.request, issue, bytes, now) - now;
  else delay += way.request->header;

  payload.set_address(address - base);
  initiator_socket[target]->b_transport(payload, delay);
  payload.set_address(address);

  // The response: the data of a read, or a header.
  now = current_time();  // the target may have waited
  if (is_read) delay = send_data(*way.response, now + delay, bytes, now) - now;
  else delay += way.response->header;
  const Ticks done = (now + delay).value();
  horizon_ = std::max(horizon_, done);

  InitiatorStatistics& stats = *way.statistics;
  *stats.bytes += bytes;
  ++*stats.transactions;
  stats.latency->sample((done - issue.value() + period_ - 1) / period_);
  if (const std::uint64_t every = timeline_.enabled() ? trace_every.get() : 0; every && ++traced_count_ % every == 0)
    trace_transaction(port, target, address, bytes, is_write, issue, sc_time::from_value(done));
}

void RingBus::trace_transaction(int port, unsigned target, std::uint64_t address, std::uint64_t bytes, bool is_write,
                                const sc_time& issue, const sc_time& done) {
  Timeline& timeline = Timeline::instance();
  const std::string& from = stop_names_[initiator_stops_[static_cast<unsigned>(port)]];
  const std::string& to = stop_names_[target_stops_[target]];
  const int track = timeline.lane(name(), "from " + from, issue, done);
  timeline.slice(track, std::string(is_write ? "write" : "read") + " -> " + to, issue, done,
                 {{"from", Timeline::quoted(from)},
                  {"to", Timeline::quoted(to)},
                  {"address", Timeline::hex(address)},
                  {"bytes", std::to_string(bytes)},
                  {"transaction", std::to_string(traced_count_)}});
}

bool RingBus::get_direct_mem_ptr(int port, tlm::tlm_generic_payload& payload, tlm::tlm_dmi& dmi) {
  std::uint64_t address = payload.get_address();
  const AddressMap::Window* window = map_.decode(address);
  if (!window) return false;
  const unsigned target = window->port;
  const std::uint64_t base = window->base;
  payload.set_address(address - base);
  bool granted = initiator_socket[target]->get_direct_mem_ptr(payload, dmi);
  payload.set_address(address);
  // A remap from inside the target would make the window stale: decode again.
  window = map_.decode(address);
  if (!granted || !window || window->port != target || window->base != base ||
      !map_.to_global_dmi(*window, address, dmi))
    return false;
  Route path = route(initiator_stops_[static_cast<unsigned>(port)], target_stops_[target]);
  sc_time round_trip = sc_time::from_value(2 * path.hops * hop_);
  dmi.set_read_latency(dmi.get_read_latency() + round_trip);
  dmi.set_write_latency(dmi.get_write_latency() + round_trip);
  return true;
}

unsigned int RingBus::transport_dbg(int, tlm::tlm_generic_payload& payload) {
  return map_.forward_debug(initiator_socket, payload);
}

void RingBus::invalidate_everywhere(std::uint64_t start, std::uint64_t end) {
  for (unsigned i = 0; i < target_socket.size(); ++i) target_socket[i]->invalidate_direct_mem_ptr(start, end);
}

void RingBus::invalidate_direct_mem_ptr(int port, sc_dt::uint64 start, sc_dt::uint64 end) {
  for (const auto& range : map_.to_global(static_cast<unsigned>(port), start, end))
    invalidate_everywhere(range.start, range.end);
}

void RingBus::remap(const std::string& label, std::uint64_t new_base) {
  const AddressMap::Range old_range = map_.move(label, new_base);
  // Before the end of elaboration no initiator can hold a grant (and the
  // sockets are not bound yet).
  if (!elaborated_) return;
  const AddressMap::Window& window = *map_.find(label);
  invalidate_everywhere(old_range.start, old_range.end);
  invalidate_everywhere(window.base, window.last());
}

}  // namespace npuvp
