// RingBus: a bidirectional ring interconnect, loosely timed (TLM-2.0
// b_transport + DMI + debug transport), with per-hop latency, per-link
// bandwidth and contention, and per-link / per-initiator statistics.
//
// Topology. The platform declares stops in ring order (add_stop); stop i has
// a clockwise link to stop i+1 and a counter-clockwise link to stop i-1
// (indices mod N), each a separate, unidirectional resource ("directed
// link"). Initiators attach at a stop (connect_initiator) and targets are
// mapped at a stop (map); several initiators, windows and targets may share a
// stop.
//
// Routing. The address map (AddressMap: the most specific window wins, as in
// AddressRouter) gives the target and its stop. Every packet goes the shorter
// way round from its source stop to its destination stop; on a tie (the
// opposite side of an even ring) it goes clockwise (increasing stop index).
// The request and the response are routed independently by this rule. The
// number of hops h is the ring distance (0 when initiator and target share a
// stop).
//
// Timing. All times are absolute simulated times computed inside b_transport;
// there is no per-cycle process and no SystemC event per transfer. With
//   T    = 1 / clock                     (one ring cycle)
//   hop  = hop_latency · T
//   ser  = ceil(bytes / link_width) · T  (bytes = payload data length)
// an access starts at t0 = sc_time_stamp() + delay. A transaction is a
// request packet from the initiator's stop to the target's stop and a
// response packet back. The packet that carries the data (write: request;
// read: response) is serialized over every link of its path, cut-through:
//   at link k, the head starts at s_k = the first time >= arrival_k at
//   which the link is free for ser (in time order: max(arrival_k, the end of
//   the link's last transfer)), the link is busy for [s_k, s_k + ser), and
//   the head reaches the next stop
//   at arrival_{k+1} = s_k + hop;
//   the packet is complete at its destination at arrival_h + ser
//   (also when h = 0: the stop's port takes ser as well).
// The packet without data is a header that takes no link time (occupancy 0)
// and arrives after h · hop. The target is called with delay = (time the
// request, including write data, is complete at the target's stop) −
// sc_time_stamp(); the response leaves at sc_time_stamp() + (delay the target
// returns). Without contention:
//   read latency  = h·hop (request) + target + h·hop + ser (response)
//   write latency = h·hop + ser (request) + target + h·hop (response)
// where "target" is what the target adds to the delay. Example (6 stops,
// 1 GHz, hop_latency 2, link_width 32, memory read latency 10 ns): a 100-byte
// read across 2 hops has ser = 4 cycles and takes 4 + 10 + 4 + 4 = 22 ns.
// Errors keep the formulas: a read that fails at the target still returns
// its (error) data beats, like AXI. Unmapped and straddling accesses are
// answered at once, with no ring time.
//
// Each directed link keeps a ReservationCalendar of its busy intervals, so
// the two directions of the ring never contend, and a transfer takes the
// first free gap at or after its own time even when b_transport calls come
// out of time order under temporal decoupling (an initiator running ahead
// does not delay one that is behind; see core/reservation_calendar.h). In
// time order a link behaves as "busy until the last transfer ends".
//
// DMI is passed through (addresses translated and clipped around overlays as
// in AddressRouter); the grant's read and write latencies are the target's
// plus the round trip 2·h·hop. DMI traffic bypasses link occupancy and the
// statistics. Debug transport is routed with no timing.
//
// Statistics (<ring> is this module's name; cycles are ring cycles):
//   <ring>.link.<from>_to_<to>.bytes          data bytes serialized on the link
//   <ring>.link.<from>_to_<to>.busy_cycles    cycles the link was reserved
//   <ring>.link.<from>_to_<to>.utilization    busy_cycles / elapsed cycles,
//       elapsed = the later of SystemC time and the latest completion time
//       the ring has computed, when the statistic is read
//   <ring>.initiator.<stop>.bytes / .transactions / .latency (histogram,
//       t0 to response complete, target time included, rounded up to cycles)
//       summed over the initiators attached at that stop
//   <ring>.unmapped_accesses, <ring>.straddling_accesses
// Counter-clockwise links exist only for rings of 3 or more stops (with 2
// stops both directions are one hop and ties go clockwise).
//
// Host speed: b_transport is on the path of every routed access. It calls
// nothing in the SystemC library: it reads the kernel's clock through the
// simulation context (inline) instead of sc_time_stamp(), and computes with
// sc_time values whose arithmetic and comparisons are inline operations on
// their integer value, so no sc_time is ever built from a double or a raw
// value (sc_time::from_value and the constructors are library calls). Each
// (source, destination) pair has its path precomputed at the end of
// elaboration: its links in order and its header time h·hop, and each
// (initiator port, target port) pair its two paths and statistics.
#pragma once

#include "core/address_map.h"
#include "core/parameters.h"
#include "core/reservation_calendar.h"
#include "core/timeline.h"
#include "core/statistics.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace npuvp {

class RingBus : public sc_core::sc_module {
 public:
  // Initiators bind here (through connect_initiator)...
  tlm_utils::multi_passthrough_target_socket<RingBus> target_socket;
  // ...and targets here (through map).
  tlm_utils::multi_passthrough_initiator_socket<RingBus> initiator_socket;

  Parameter<double> clock;                // Hz: ring clock frequency
  Parameter<std::uint64_t> hop_latency;   // cycles a packet head takes per hop
  Parameter<std::uint64_t> link_width;    // bytes per cycle per direction of a link
  Parameter<std::uint64_t> trace_every;   // with a timeline: every N-th transaction as a slice (0: none)

  explicit RingBus(sc_core::sc_module_name name);

  // Appends a stop after the previous one (ring order); returns its index.
  // Names must be unique, non-empty, without '.' or white space (they appear
  // in statistic names). Stops are fixed once elaboration ends.
  unsigned add_stop(const std::string& name);

  // Binds `initiator` (any TLM initiator socket) to target_socket and attaches
  // it at `stop`; returns its port index on target_socket. Every initiator of
  // the ring must be bound this way (checked at end of elaboration).
  template <typename Socket>
  unsigned connect_initiator(Socket& initiator, unsigned stop) {
    check_stop(stop, "initiator");
    initiator.bind(target_socket);
    initiator_stops_.push_back(stop);
    return static_cast<unsigned>(initiator_stops_.size() - 1);
  }

  // Binds `target` and maps it at [base, base + size) at `stop`; returns its
  // port index on initiator_socket. The window and the stop are checked first
  // (ConfigError), so a rejected map() leaves no binding behind.
  template <typename Socket>
  unsigned map(Socket& target, std::uint64_t base, std::uint64_t size, const std::string& label, unsigned stop) {
    check_stop(stop, "target '" + label + "'");
    unsigned port = static_cast<unsigned>(target_stops_.size());
    map_.add(base, size, port, label);
    target_stops_.push_back(stop);
    initiator_socket.bind(target);
    return port;
  }

  // Moves window `label` to `new_base` (same size, target and stop) and
  // invalidates DMI for both the old and the new global range on every
  // initiator. ConfigError (map unchanged) on an unknown label or a conflict.
  void remap(const std::string& label, std::uint64_t new_base);

  struct Route {
    unsigned hops = 0;
    bool clockwise = true;
  };
  // The path a packet takes from stop `from` to stop `to`.
  Route route(unsigned from, unsigned to) const;

  unsigned stop_count() const { return static_cast<unsigned>(stop_names_.size()); }
  const std::string& stop_name(unsigned stop) const { return stop_names_.at(stop); }
  unsigned initiator_stop(unsigned port) const { return initiator_stops_.at(port); }
  unsigned target_stop(unsigned port) const { return target_stops_.at(port); }
  const AddressMap& address_map() const { return map_; }
  // One ring cycle (valid from the end of elaboration on).
  sc_core::sc_time cycle() const { return sc_core::sc_time::from_value(period_); }
  std::uint64_t unmapped_accesses() const { return unmapped_.value(); }
  std::uint64_t straddling_accesses() const { return straddling_.value(); }

 private:
  using Ticks = sc_core::sc_time::value_type;  // SystemC time-resolution units

  struct Link {
    ReservationCalendar calendar;  // when the link is busy
    int waveform = -1;             // --vcd: the link's busy signal, or -1
    std::unique_ptr<Counter> bytes, busy_cycles;
    std::unique_ptr<DerivedStatistic> utilization;
  };
  struct InitiatorStatistics {
    std::unique_ptr<Counter> bytes, transactions;
    std::unique_ptr<Histogram> latency;
  };

  void check_stop(unsigned stop, const std::string& what) const;
  // Reads and checks the parameters into period_, hop_, hop_time_, width_.
  void configure();
  void end_of_elaboration() override;
  unsigned link_index(unsigned stop, bool clockwise) const;
  // The path of a packet between two stops: its directed links in order and
  // the time a header-only packet takes on it (hops · hop).
  struct Path {
    std::vector<Link*> links;
    sc_core::sc_time header;
  };
  // What an access from initiator port `port` to target port `target` uses.
  struct Connection {
    const Path* request = nullptr;
    const Path* response = nullptr;
    InitiatorStatistics* statistics = nullptr;
  };
  const Connection& connection(unsigned port, unsigned target) const {
    return connections_[static_cast<std::size_t>(port) * target_stops_.size() + target];
  }
  // Sends a packet carrying `bytes` of data along `path`, starting at
  // `start` (`now`: the current simulated time): it reserves every link on
  // its way. Returns the time it is complete at the end of the path.
  sc_core::sc_time send_data(const Path& path, const sc_core::sc_time& start, std::uint64_t bytes,
                             const sc_core::sc_time& now);
  // Updates the serialization of a packet of `bytes` (ceil(bytes /
  // link_width) cycles) in last_cycles_ and last_serialization_.
  void serialize(std::uint64_t bytes);
  // trace_every (--trace-ring): one sampled transaction as a slice on its initiator stop's row.
  void trace_transaction(int port, unsigned target, std::uint64_t address, std::uint64_t bytes, bool is_write,
                         const sc_core::sc_time& issue, const sc_core::sc_time& done);
  double elapsed_cycles() const;

  void b_transport(int port, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  bool get_direct_mem_ptr(int port, tlm::tlm_generic_payload& payload, tlm::tlm_dmi& dmi);
  unsigned int transport_dbg(int port, tlm::tlm_generic_payload& payload);
  void invalidate_direct_mem_ptr(int port, sc_dt::uint64 start, sc_dt::uint64 end);
  void invalidate_everywhere(std::uint64_t start, std::uint64_t end);

  AddressMap map_;
  std::vector<std::string> stop_names_;
  std::vector<unsigned> initiator_stops_;  // per target_socket port
  std::vector<unsigned> target_stops_;     // per initiator_socket port
  bool elaborated_ = false;
  Ticks period_ = 0, hop_ = 0;
  sc_core::sc_time hop_time_;  // hop_
  std::uint64_t width_ = 1;
  // The serialization of the last packet size: one size usually dominates,
  // and this saves a division per packet.
  std::uint64_t last_bytes_ = 0, last_cycles_ = 0;
  sc_core::sc_time last_serialization_;
  Ticks horizon_ = 0;  // latest completion time computed
  std::uint64_t traced_count_ = 0;  // transactions counted while trace_every samples
  Timeline& timeline_ = Timeline::instance();  // asked once per transaction: no call when off
  // From the end of elaboration: paths_[from * stops + to], and
  // connections_[initiator port * target ports + target port].
  std::vector<Path> paths_;
  std::vector<Connection> connections_;
  std::vector<Link> links_;                            // [stop] clockwise, [N + stop] counter-clockwise
  std::vector<InitiatorStatistics> initiator_stats_;  // per stop; empty where no initiator
  Counter unmapped_, straddling_;
};

}  // namespace npuvp
