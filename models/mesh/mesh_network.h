// MeshNetwork: the 2D-mesh network-on-chip of the mesh cluster, a message
// network for the coherence controllers (private L1s, S-NUCA LLC banks,
// memory controllers at the mesh edge). Event-driven, no per-cycle process:
// the arrival time of a message is computed when it is sent, from per-channel
// reservations, and the message is handed to its receiver at that time by one
// SC_METHOD. docs/mesh.md is the user documentation; this comment is the
// contract the tests check.
//
// Topology and numbering. width x height routers (mesh.width, mesh.height);
// router (x, y) has x = column 0..width-1 (west to east) and y = row
// 0..height-1 (north to south), and is tile y·width + x. Neighbouring routers
// are joined by one link per direction (a "directed link"). Nodes are the
// places messages leave from and go to: node t < width·height is tile t
// (its L1 controller and LLC bank share the node; `port` in the message picks
// the receiver), and node width·height + k is the k-th memory controller of
// mesh.memory_controllers, a comma-separated list of edge routers (e.g.
// "0,3,12,15"); it attaches to that router through its own injection and
// ejection ports. Statistic names call router (x, y) "x<x>y<y>" and memory
// controller k "mc<k>".
//
// Routing: XY dimension order. A message first moves along X to the
// destination's column, then along Y to its row. hops h = |dx| + |dy| between
// the source's and the destination's routers (0 within a tile, or between a
// memory controller and the tile of its router).
//
// Flits. A message is one header flit plus the data flits of its payload:
//   F = 1 + ceil(8 · data_bytes / link_width)        (link_width in bits)
// so a control message (data_bytes = 0) is 1 flit and a 32-byte cache line on
// 128-bit links is 1 + 2 = 3 flits.
//
// Virtual networks. mesh.virtual_networks (default 3: 0 requests, 1
// forwards, 2 responses; the numbering is the protocol's choice). Every vnet
// has its own channel on every directed link and port, i.e. its own
// occupancy: traffic of one vnet never delays another (separate physical
// sub-networks of link_width bits each), so a protocol that puts requests,
// forwards and responses on different vnets cannot deadlock on the network.
//
// Timing. Per channel (one directed link, injection port or ejection port,
// of one vnet) a ReservationCalendar of its busy intervals (core/
// reservation_calendar.h). With
//   T   = 1 / mesh.clock                 (one mesh cycle)
//   R   = router_latency · T,  L = link_latency · T
//   ser = F · T                          (a flit crosses a channel per cycle)
// a message sent at t0 (absolute) is virtual cut-through, per hop:
//   injection:  s_in = first time >= t0 the source's injection port (this
//               vnet) is free for ser; the head is at the source router at s_in.
//   hop k (k = 0..h-1, router k to router k+1 along the XY path): the head
//               leaves router k R after it reached it; s_k = first time >=
//               head_k + R at which link k (this vnet) is free for ser; the
//               link is busy [s_k, s_k + ser); head_{k+1} = s_k + L.
//   ejection:   s_out = first time >= head_h the destination's ejection port
//               (this vnet) is free for ser; the message is complete (all its
//               flits delivered) at arrival = s_out + ser.
// Without contention:   latency = h · (R + L) + F · T
// e.g. defaults (1 GHz, R = L = 2 cycles, 128-bit links), corner to corner of
// the 4x4 mesh (h = 6): a control message 6·4 + 1 = 25 ns, a 32-byte line
// 6·4 + 3 = 27 ns; within a tile (h = 0): 1 ns and 3 ns.
// Buffers are infinite: a blocked head waits in the router's input buffer and
// the upstream link is free once the message's flits crossed it (no credits,
// no backpressure). Calendars take the first free gap at or after a time, so
// messages sent out of time order (temporal decoupling) do not queue behind
// later reservations.
//
// Ordering. Messages of one (source node, destination node, vnet) are
// delivered in the order of their send() calls: arrival = max(the time
// above, the previous arrival of that triple); ties are delivered in call
// order. (Contention can otherwise let a short message overtake a long one.)
//
// Delivery. attach(node, port, receiver) registers the receiver of messages
// addressed to (node, port). send(message, t0) reserves the path, returns the
// arrival time and calls the receiver at that simulated time from the
// network's SC_METHOD (one timed sc_event over a queue ordered by (arrival,
// send order); no process per message). A receiver may send from the
// callback. transfer(message, t0) reserves and counts exactly as send() but
// delivers nothing (for callers that keep their own time, e.g. loosely-timed
// b_transport-style code), transfer_in_order the same only while the
// message's triple has nothing in flight; arrival_time(message, t0) answers what send would
// return now, without reserving or counting anything; zero_load_latency()
// is the formula without contention. t0 must not be before the current
// simulated time.
//
// Statistics (<mesh> is this module's name; cycles are mesh cycles; "elapsed"
// = the later of simulated time and the latest arrival computed):
//   <mesh>.messages, <mesh>.flits                     totals
//   <mesh>.vnet<k>.messages / .flits                  per virtual network
//   <mesh>.type.<name>.messages / .flits              per message type
//   <mesh>.link.<a>_to_<b>.flits                      flits over the directed
//       link, all vnets; .vnet<k>.flits per vnet; .utilization = flits /
//       (elapsed · virtual_networks), the used share of the link's capacity
//       (one flit per cycle per vnet); one vnet's channel is busy
//       vnet<k>.flits / elapsed of the time
//   <mesh>.inject.<node>.*, <mesh>.eject.<node>.*      the same for the
//       node's injection and ejection ports
//   <mesh>.hops         histogram of h per message
//   <mesh>.latency      histogram of arrival − t0, cycles (rounded up)
//   <mesh>.contention   histogram of latency − zero-load latency, cycles
//   <mesh>.router_traversals  F · (h + 1) per message (flit passes a router;
//                              h = 0 still crosses its own router)
//   <mesh>.link_traversals    F · h per message (flit crosses an inter-router
//                              link; the injection/ejection ports are not links)
//   <mesh>.flit_hops          the same count under the name traffic studies
//                              use (flits x hops); per type .type.<name>.flit_hops
//   <mesh>.arbitrations       (h + 1) per message (the head wins the switch
//                              of every router it passes; body flits follow)
//   <mesh>.energy.router / .link / .arbitration   J: the counts above
//       times mesh.router_energy, mesh.link_energy, mesh.arbitration_energy
//       (defaults: the thesis's Orion values, 65 nm, 1 V, 1 GHz);
//       .dynamic their sum
//   <mesh>.energy.static   J: width·height · mesh.router_static_power ·
//       elapsed time (leakage of the routers and their links; docs/mesh.md
//       gives the default's reasoning)
//   <mesh>.energy.total    J: dynamic + static
//
// Configuration is read when the network is built: at the first call that
// needs the topology (attach, send, ...) or at the end of elaboration,
// whichever comes first; changing a structural parameter after that is a
// ConfigError at the end of elaboration; receivers are attached before the
// end of elaboration. Errors (ConfigError, naming the parameter or the
// limit): zero-sized mesh or more than 1024 routers, zero clock, link width
// or vnets, a memory controller off the edge, a node / port / vnet / message
// type out of range, a receiver missing or attached twice. A send time
// before the current simulated time is a SimulationError (a caller's bug).
#pragma once

#include "core/parameters.h"
#include "core/reservation_calendar.h"
#include "core/statistics.h"

#include <systemc>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace npuvp {

// A router's position: x = column (west to east), y = row (north to south).
struct MeshCoordinate {
  unsigned x = 0, y = 0;
  bool operator==(const MeshCoordinate& other) const { return x == other.x && y == other.y; }
  bool operator!=(const MeshCoordinate& other) const { return !(*this == other); }
};

// One message. The network reads only the addressing, the vnet, the type (for
// statistics) and the payload size (for the flit count); `tag` is the
// sender's handle of its own message (e.g. the slot it keeps it in), carried
// untouched to the receiver. An integer rather than a type-erased payload:
// every message pays for moving it.
struct MeshMessage {
  unsigned source = 0;            // node it is sent from (tile, or width·height + memory controller)
  unsigned destination = 0;       // node it goes to
  unsigned port = 0;              // which receiver at the destination node (e.g. 0 L1, 1 LLC bank)
  unsigned vnet = 0;              // virtual network, < mesh.virtual_networks
  unsigned type = 0;              // from MeshNetwork::message_type()
  std::uint64_t data_bytes = 0;   // payload data (0: a control message, one flit)
  std::uint64_t tag = 0;          // opaque to the network
};

class MeshNetwork : public sc_core::sc_module {
 public:
  using Receiver = std::function<void(MeshMessage&)>;
  // The default mesh, 4 x 4 routers: the cluster's 16 harts (the SoC contract
  // gives firmware its hart count, platform/soc_contract.cpp).
  static constexpr std::uint64_t kDefaultWidth = 4, kDefaultHeight = 4;

  Parameter<std::uint64_t> width;             // routers per row (X)
  Parameter<std::uint64_t> height;            // routers per column (Y)
  Parameter<double> clock;                    // Hz
  Parameter<std::uint64_t> router_latency;    // cycles per router a head passes (per hop)
  Parameter<std::uint64_t> link_latency;      // cycles per link a head crosses
  Parameter<std::uint64_t> link_width;        // bits per cycle per link, per direction and vnet
  Parameter<std::uint64_t> virtual_networks;  // separate channels per link
  Parameter<std::string> memory_controllers;  // edge routers with a memory controller, "0,3,12,15"
  Parameter<double> router_energy;            // J per flit per router traversal
  Parameter<double> link_energy;              // J per flit per link traversal
  Parameter<double> arbitration_energy;       // J per arbitration
  Parameter<double> router_static_power;      // W per router (with its links), leakage

  explicit MeshNetwork(sc_core::sc_module_name name);
  ~MeshNetwork() override;

  // Topology (each builds the network from the parameters if not built yet).
  unsigned tile_count() const;
  unsigned memory_controller_count() const;
  unsigned node_count() const;  // tiles + memory controllers
  unsigned tile(MeshCoordinate router) const;                 // y·width + x
  unsigned memory_controller_node(unsigned index) const;      // width·height + index
  MeshCoordinate coordinate(unsigned node) const;             // its router
  unsigned hops(unsigned source, unsigned destination) const;  // XY path length
  // The XY path as router coordinates, source router first, destination last.
  std::vector<MeshCoordinate> route(unsigned source, unsigned destination) const;
  // F = 1 + ceil(8 · data_bytes / link_width).
  std::uint64_t flits(std::uint64_t data_bytes) const;
  sc_core::sc_time cycle() const;  // one mesh cycle
  // h · (R + L) + F · T: the latency without contention.
  sc_core::sc_time zero_load_latency(unsigned source, unsigned destination, std::uint64_t data_bytes) const;
  // The node's name in statistics: "x<x>y<y>" or "mc<k>".
  std::string node_name(unsigned node) const;

  // The id of message type `name` (letters, digits, '_' and '-'), registered
  // on first use with its statistics; the same name gives the same id.
  unsigned message_type(const std::string& name);
  const std::string& message_type_name(unsigned type) const { return types_.at(type).name; }

  // Messages addressed to (node, port) go to `receiver`.
  void attach(unsigned node, unsigned port, Receiver receiver);

  // Reserves the message's path from `send_time` (absolute, >= the current
  // simulated time), counts it and delivers it to its receiver at the
  // returned arrival time.
  sc_core::sc_time send(MeshMessage message, const sc_core::sc_time& send_time);
  sc_core::sc_time send(MeshMessage message) { return send(std::move(message), sc_core::sc_time_stamp()); }
  // Reserves and counts as send(), delivers nothing; returns the arrival time.
  sc_core::sc_time transfer(const MeshMessage& message, const sc_core::sc_time& send_time);
  // transfer(), for a caller that hands the message over itself at
  // `arrival`, before anything sent after it: only when nothing sent earlier
  // from the message's source to its destination on its vnet is still in
  // flight, which keeps the triple's order; otherwise returns false and
  // reserves nothing. Later messages of the triple are not held behind its
  // arrival (its caller may run ahead of them in simulated time).
  bool transfer_in_order(const MeshMessage& message, const sc_core::sc_time& send_time, sc_core::sc_time& arrival);
  // The same in SystemC time-resolution units (sc_time::value()), for a
  // caller on the fast path that keeps its times as such: no sc_time is made.
  bool transfer_in_order(const MeshMessage& message, sc_core::sc_time::value_type send_time,
                         sc_core::sc_time::value_type& arrival);
  // What send() would return now; changes nothing.
  sc_core::sc_time arrival_time(const MeshMessage& message, const sc_core::sc_time& send_time) const;

  // Messages sent and not yet delivered.
  std::size_t in_flight() const { return pending_.size(); }
  std::uint64_t messages_delivered() const { return delivered_; }

 private:
  using Ticks = sc_core::sc_time::value_type;

  // What the structural parameters gave when the network was built.
  struct Shape {
    std::uint64_t width = 0, height = 0, router_latency = 0, link_latency = 0, link_width = 0, vnets = 0;
    Ticks period = 0;
    std::vector<unsigned> controller_routers;  // the router of each memory controller
  };
  // The statistics of a directed link, injection port or ejection port (the
  // resource); its state per vnet (a channel) is in calendars_ and flits_.
  struct ResourceStatistics {
    std::vector<std::unique_ptr<DerivedStatistic>> vnet_flits;
    std::unique_ptr<DerivedStatistic> total_flits, utilization;
  };
  struct TypeStatistics {
    std::string name;
    std::unique_ptr<Counter> messages, flits, flit_hops;
  };
  struct VnetStatistics {
    std::unique_ptr<Counter> messages, flits;
  };
  // A node's router and its column and row (walks do not divide).
  struct Place {
    unsigned router = 0, x = 0, y = 0;
  };
  // One channel's state. Messages find the channels of their path out of the
  // host's L1 cache (the harts run in between), so the flit count and the
  // calendar's common case (empty or one interval) share one cache line.
  struct alignas(64) Channel {
    std::uint64_t flits = 0;
    ReservationCalendar calendar;
  };
  // A message waiting for its arrival time.
  struct Pending {
    Ticks time;
    std::uint64_t sequence;  // send order: ties are delivered in it
    std::uint32_t slot;      // in slots_
    bool operator>(const Pending& other) const {
      return time != other.time ? time > other.time : sequence > other.sequence;
    }
  };
  // Output link directions of a router; channel id = router · 4 + direction.
  enum Direction : unsigned { kEast = 0, kWest = 1, kSouth = 2, kNorth = 3, kDirections = 4 };

  Shape read_parameters() const;
  // The first structural parameter whose value differs from `built`, or "".
  std::string changed_parameter(const Shape& built) const;
  void build();
  // The topology is a function of the parameters: const accessors build it on
  // first use (a MeshNetwork is never a const object).
  void ensure_built() const {
    if (!built_) const_cast<MeshNetwork*>(this)->build();
  }
  void end_of_elaboration() override;
  void make_resource(std::size_t id, const std::string& prefix);
  std::string describe_nodes() const;
  void check_node(unsigned node, const char* role) const;
  void check_message(const MeshMessage& message, bool needs_receiver) const;
  // Throws the error check_message found (each check in turn).
  void explain_invalid_message(const MeshMessage& message, bool needs_receiver) const;
  void check_send_time(const sc_core::sc_time& send_time) const;
  std::size_t injection_resource(unsigned node) const { return kDirections * std::size_t{tiles_} + node; }
  std::size_t ejection_resource(unsigned node) const {
    return kDirections * std::size_t{tiles_} + node_count_ + node;
  }
  unsigned router_of(unsigned node) const {
    return node < tiles_ ? node : shape_.controller_routers[node - tiles_];
  }
  std::size_t pair_index(const MeshMessage& message) const {
    return (static_cast<std::size_t>(message.source) * node_count_ + message.destination) * shape_.vnets +
           message.vnet;
  }
  std::uint64_t flit_count(std::uint64_t data_bytes) const {
    if (data_bytes == 0) return 1;  // a header alone (most coherence requests): no division
    return 1 + (8 * data_bytes + shape_.link_width - 1) / shape_.link_width;
  }
  // The timing walk along the message's resources (injection, XY links,
  // ejection): `take(resource id, earliest, duration)` returns the start of
  // the reservation on the resource's channel of the message's vnet. Returns the time the last flit is ejected (before
  // the ordering rule); sets `hop_count`.
  template <typename Take>
  Ticks walk(const MeshMessage& message, Ticks send_time, Ticks serialization, unsigned& hop_count,
             Take&& take) const;
  // Reserves, counts, and returns the arrival.
  // `hold_later`: later messages of the triple arrive no earlier (the ordering rule).
  Ticks reserve(const MeshMessage& message, Ticks send_time, bool hold_later = true);
  double elapsed_cycles() const;
  void schedule(Ticks time);
  void deliver();

  bool built_ = false, elaborated_ = false;
  Shape shape_;
  unsigned tiles_ = 0, node_count_ = 0;
  std::vector<Place> places_;  // per node
  Ticks router_ticks_ = 0, link_ticks_ = 0;
  // Resources: [router · 4 + direction] links (unused where the mesh has no
  // neighbour), then the injection port of every node, then the ejection port
  // of every node. Channel = resource · vnets + vnet.
  std::vector<Channel> channels_;
  std::vector<ResourceStatistics> resources_;
  std::vector<Ticks> last_arrival_;               // per (source, destination, vnet)
  std::vector<std::uint32_t> in_flight_;          // per (source, destination, vnet): sent, not delivered
  std::vector<std::vector<Receiver>> receivers_;  // [node][port]
  std::vector<TypeStatistics> types_;
  std::vector<VnetStatistics> vnets_;
  Ticks horizon_ = 0;  // latest arrival computed
  // --vcd: the busy signal of each link resource (-1: none); waveform_links_
  // tells whether any is recorded, so that the reserve path pays one test.
  std::vector<int> link_waveform_;
  bool waveform_links_ = false;

  // Delivery: slots_ hold the messages, pending_ is a min-heap on (time, sequence).
  std::vector<MeshMessage> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<Pending> pending_;
  std::uint64_t sequence_ = 0, delivered_ = 0;
  sc_core::sc_event delivery_event_;
  Ticks scheduled_ = 0;  // time of the pending notification of delivery_event_
  bool notification_pending_ = false;

  Counter messages_, flits_, router_traversals_, link_traversals_, arbitrations_;
  Histogram hops_, latency_, contention_;
  DerivedStatistic flit_hops_;
  DerivedStatistic energy_router_, energy_link_, energy_arbitration_, energy_dynamic_, energy_static_, energy_total_;
  double dynamic_energy() const;
  double static_energy() const;
};

}  // namespace npuvp
