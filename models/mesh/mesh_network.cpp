#include "mesh/mesh_network.h"

#include "core/simulation.h"
#include "core/text.h"
#include "core/waveform.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace npuvp {

using sc_core::sc_time;

namespace {
// The largest mesh: the ordering table holds one entry per (source,
// destination, vnet), so it grows with the square of the node count.
constexpr std::uint64_t kMaxRouters = 1024;
// The flit count is computed in bits: keep 8 · data_bytes far from overflow.
constexpr std::uint64_t kMaxDataBytes = 1ull << 40;
// Leakage per router with its links (mesh.router_static_power). The thesis
// gives no static figure, but its averages imply one: with the per-event
// energy following the flits, -12.39 % energy = -31.10 % flits x (1 - s)
// + -7.80 % time x s gives a static share s = 0.80 of the network energy.
// The default makes the static energy 4 x the dynamic energy at the mean
// dynamic power of our mesh workloads' parallel regions under MESI, 0.78 W
// for the 16 routers: 4 x 0.78 / 16 = 0.19 W (docs/mesh.md, Energy model).
constexpr double kDefaultRouterStaticPower = 0.2;
}  // namespace

MeshNetwork::MeshNetwork(sc_core::sc_module_name name)
    : sc_module(name),
      width(child_name(*this, "width"), kDefaultWidth, "routers", "routers per row (X dimension) of the mesh"),
      height(child_name(*this, "height"), kDefaultHeight, "routers",
             "routers per column (Y dimension); tile y*width+x sits at router (x, y)"),
      clock(child_name(*this, "clock"), 1e9, "Hz", "mesh clock frequency (routers and links)"),
      router_latency(child_name(*this, "router_latency"), 2, "cycles",
                     "cycles a message head spends in a router before its next link (per hop)"),
      link_latency(child_name(*this, "link_latency"), 2, "cycles", "cycles a message head takes to cross one link"),
      link_width(child_name(*this, "link_width"), 128, "bits",
                 "bits per cycle of a link, per direction and vnet; a message is 1 + ceil(8*data_bytes/link_width) "
                 "flits"),
      virtual_networks(child_name(*this, "virtual_networks"), 3, "",
                       "virtual networks, each with its own occupancy on every link (e.g. requests, forwards, "
                       "responses)"),
      memory_controllers(child_name(*this, "memory_controllers"), "", "",
                         "comma-separated edge routers (tile numbers) with a memory controller; controller k is "
                         "node width*height+k (empty in the mesh cluster: its corners)"),
      router_energy(child_name(*this, "router_energy"), 3.77e-10, "J",
                    "energy per flit per router traversal (Orion, 65 nm, 1 V, 1 GHz)"),
      link_energy(child_name(*this, "link_energy"), 2.22e-10, "J",
                  "energy per flit per inter-router link traversal (Orion, 2500 um wire)"),
      arbitration_energy(child_name(*this, "arbitration_energy"), 9.01e-13, "J",
                         "energy per switch arbitration (one per message per router it passes)"),
      router_static_power(child_name(*this, "router_static_power"), kDefaultRouterStaticPower, "W",
                          "leakage power per router with its output links, drawn for the whole run "
                          "(energy.static; docs/mesh.md, Energy, gives the default's reasoning)"),
      messages_(child_name(*this, "messages"), "", "messages sent"),
      flits_(child_name(*this, "flits"), "flits", "flits sent (header and data flits of every message)"),
      router_traversals_(child_name(*this, "router_traversals"), "flits",
                         "flit-router traversals: flits x (hops + 1) per message"),
      link_traversals_(child_name(*this, "link_traversals"), "flits",
                       "flit-link traversals between routers: flits x hops per message"),
      arbitrations_(child_name(*this, "arbitrations"), "", "switch arbitrations: hops + 1 per message"),
      hops_(child_name(*this, "hops"), "hops", "XY hops per message"),
      latency_(child_name(*this, "latency"), "cycles", "send time to arrival per message (rounded up)"),
      contention_(child_name(*this, "contention"), "cycles",
                  "latency above the zero-load latency per message (rounded up)"),
      flit_hops_(child_name(*this, "flit_hops"), "flits",
                 "flit-hops: flits x hops per message (the count link_traversals holds, named as traffic studies "
                 "name it)",
                 [this] { return static_cast<double>(link_traversals_.value()); }, true),
      energy_router_(child_name(*this, "energy.router"), "J", "router_traversals x router_energy",
                     [this] { return static_cast<double>(router_traversals_.value()) * router_energy.get(); }),
      energy_link_(child_name(*this, "energy.link"), "J", "link_traversals x link_energy",
                   [this] { return static_cast<double>(link_traversals_.value()) * link_energy.get(); }),
      energy_arbitration_(child_name(*this, "energy.arbitration"), "J", "arbitrations x arbitration_energy",
                          [this] { return static_cast<double>(arbitrations_.value()) * arbitration_energy.get(); }),
      energy_dynamic_(child_name(*this, "energy.dynamic"), "J", "per-event network energy: router + link + arbitration",
                      [this] { return dynamic_energy(); }),
      energy_static_(child_name(*this, "energy.static"), "J",
                     "leakage: routers x router_static_power x elapsed time", [this] { return static_energy(); }),
      energy_total_(child_name(*this, "energy.total"), "J", "network energy: dynamic + static",
                    [this] { return dynamic_energy() + static_energy(); }) {
  // Joules add up over time: a region of interest's energy is a difference.
  for (DerivedStatistic* energy : {&energy_router_, &energy_link_, &energy_arbitration_, &energy_dynamic_,
                                   &energy_static_, &energy_total_})
    energy->set_additive(true);
  SC_HAS_PROCESS(MeshNetwork);
  SC_METHOD(deliver);
  sensitive << delivery_event_;
  dont_initialize();
}

MeshNetwork::~MeshNetwork() = default;

double MeshNetwork::dynamic_energy() const {
  return static_cast<double>(router_traversals_.value()) * router_energy.get() +
         static_cast<double>(link_traversals_.value()) * link_energy.get() +
         static_cast<double>(arbitrations_.value()) * arbitration_energy.get();
}

double MeshNetwork::static_energy() const {
  if (!built_) return 0.0;  // never used: nothing elapsed for it
  const double seconds = elapsed_cycles() / clock.get();
  return static_cast<double>(tiles_) * router_static_power.get() * seconds;
}

// ---------------------------------------------------------------- topology

MeshNetwork::Shape MeshNetwork::read_parameters() const {
  Shape shape;
  shape.width = width.get();
  shape.height = height.get();
  if (shape.width == 0) throw ConfigError(width.name() + " must be at least 1 (a mesh needs a router)");
  if (shape.height == 0) throw ConfigError(height.name() + " must be at least 1 (a mesh needs a router)");
  if (shape.width > kMaxRouters || shape.height > kMaxRouters || shape.width * shape.height > kMaxRouters)
    throw ConfigError(width.name() + " x " + height.name() + " = " + std::to_string(shape.width) + " x " +
                      std::to_string(shape.height) + " is above the largest mesh, " + std::to_string(kMaxRouters) +
                      " routers");
  // Whole picoseconds, like the ring and the cores, then SystemC time units.
  shape.period = sc_time(static_cast<double>(clock_period_ps(clock)), sc_core::SC_PS).value();
  shape.router_latency = router_latency.get();
  shape.link_latency = link_latency.get();
  shape.link_width = link_width.get();
  if (shape.link_width == 0) throw ConfigError(link_width.name() + " must not be zero");
  shape.vnets = virtual_networks.get();
  if (shape.vnets == 0) throw ConfigError(virtual_networks.name() + " must be at least 1");
  if (shape.vnets > 64) throw ConfigError(virtual_networks.name() + " must be at most 64");

  const std::uint64_t tiles = shape.width * shape.height;
  std::string list = memory_controllers.get();
  std::size_t begin = 0;
  while (!trim(list).empty() && begin <= list.size()) {
    std::size_t comma = list.find(',', begin);
    if (comma == std::string::npos) comma = list.size();
    const std::string item = trim(list.substr(begin, comma - begin));
    begin = comma + 1;
    auto router = parse_unsigned(item);
    if (!router)
      throw ConfigError(memory_controllers.name() + " expects comma-separated router (tile) numbers such as " +
                        "\"0,3,12,15\", got '" + item + "' in '" + list + "'");
    if (*router >= tiles)
      throw ConfigError(memory_controllers.name() + ": router " + item + " is outside the " +
                        std::to_string(shape.width) + "x" + std::to_string(shape.height) + " mesh (routers 0.." +
                        std::to_string(tiles - 1) + ")");
    const std::uint64_t x = *router % shape.width, y = *router / shape.width;
    if (x != 0 && y != 0 && x != shape.width - 1 && y != shape.height - 1)
      throw ConfigError(memory_controllers.name() + ": router " + item + " (x" + std::to_string(x) + "y" +
                        std::to_string(y) + ") is not on the mesh edge; memory controllers attach to edge routers");
    shape.controller_routers.push_back(static_cast<unsigned>(*router));
    if (comma == list.size()) break;
  }
  if (shape.controller_routers.size() > kMaxRouters)
    throw ConfigError(memory_controllers.name() + " lists more than " + std::to_string(kMaxRouters) +
                      " memory controllers");
  return shape;
}

std::string MeshNetwork::changed_parameter(const Shape& built) const {
  const Shape now = read_parameters();
  if (now.width != built.width) return width.name();
  if (now.height != built.height) return height.name();
  if (now.period != built.period) return clock.name();
  if (now.router_latency != built.router_latency) return router_latency.name();
  if (now.link_latency != built.link_latency) return link_latency.name();
  if (now.link_width != built.link_width) return link_width.name();
  if (now.vnets != built.vnets) return virtual_networks.name();
  if (now.controller_routers != built.controller_routers) return memory_controllers.name();
  return "";
}

void MeshNetwork::build() {
  shape_ = read_parameters();
  tiles_ = static_cast<unsigned>(shape_.width * shape_.height);
  node_count_ = tiles_ + static_cast<unsigned>(shape_.controller_routers.size());
  router_ticks_ = shape_.router_latency * shape_.period;
  link_ticks_ = shape_.link_latency * shape_.period;
  built_ = true;  // node_name() and friends may be used from here on
  places_.clear();
  for (unsigned node = 0; node < node_count_; ++node) {
    const unsigned router = router_of(node), w = static_cast<unsigned>(shape_.width);
    places_.push_back(Place{router, router % w, router / w});
  }

  const std::size_t resources = kDirections * std::size_t{tiles_} + 2 * std::size_t{node_count_};
  channels_.assign(resources * shape_.vnets, Channel{});
  resources_.clear();
  resources_.resize(resources);
  const unsigned w = static_cast<unsigned>(shape_.width), h = static_cast<unsigned>(shape_.height);
  for (unsigned router = 0; router < tiles_; ++router) {
    const unsigned x = router % w, y = router / w;
    struct Neighbour {
      Direction direction;
      bool exists;
      unsigned router;
    };
    const Neighbour neighbours[] = {{kEast, x + 1 < w, router + 1},
                                    {kWest, x > 0, router - 1},
                                    {kSouth, y + 1 < h, router + w},
                                    {kNorth, y > 0, router - w}};
    for (const Neighbour& next : neighbours)
      if (next.exists)
        make_resource(kDirections * std::size_t{router} + next.direction,
                      "link." + node_name(router) + "_to_" + node_name(next.router));
  }
  // --vcd: per directed link, how many virtual networks are moving flits on it.
  link_waveform_.assign(kDirections * std::size_t{tiles_}, -1);
  waveform_links_ = false;
  if (Waveform::instance().enabled()) {
    unsigned width = 1;
    while ((std::uint64_t{1} << width) <= shape_.vnets) ++width;
    for (unsigned router = 0; router < tiles_; ++router)
      for (unsigned direction = 0; direction < kDirections; ++direction) {
        const std::size_t id = kDirections * std::size_t{router} + direction;
        if (resources_[id].vnet_flits.empty()) continue;  // no neighbour that way
        const unsigned next = direction == kEast   ? router + 1
                              : direction == kWest  ? router - 1
                              : direction == kSouth ? router + w
                                                    : router - w;
        link_waveform_[id] = Waveform::instance().signal(
            child_name(*this, "link." + node_name(router) + "_to_" + node_name(next) + ".busy"), width);
        waveform_links_ = waveform_links_ || link_waveform_[id] >= 0;
      }
  }
  for (unsigned node = 0; node < node_count_; ++node) {
    make_resource(injection_resource(node), "inject." + node_name(node));
    make_resource(ejection_resource(node), "eject." + node_name(node));
  }
  last_arrival_.assign(std::size_t{node_count_} * node_count_ * shape_.vnets, 0);
  in_flight_.assign(last_arrival_.size(), 0);
  receivers_.assign(node_count_, {});
  vnets_.clear();
  for (unsigned vnet = 0; vnet < shape_.vnets; ++vnet) {
    const std::string prefix = "vnet" + std::to_string(vnet) + ".";
    VnetStatistics stats;
    stats.messages = std::make_unique<Counter>(child_name(*this, prefix + "messages"), "",
                                               "messages sent on this virtual network");
    stats.flits = std::make_unique<Counter>(child_name(*this, prefix + "flits"), "flits",
                                            "flits sent on this virtual network");
    vnets_.push_back(std::move(stats));
  }
}

void MeshNetwork::make_resource(std::size_t id, const std::string& prefix) {
  ResourceStatistics& stats = resources_[id];
  const std::size_t first = id * shape_.vnets, vnets = shape_.vnets;
  for (unsigned vnet = 0; vnet < vnets; ++vnet)
    stats.vnet_flits.push_back(std::make_unique<DerivedStatistic>(
        child_name(*this, prefix + ".vnet" + std::to_string(vnet) + ".flits"), "flits",
        "flits over this resource on virtual network " + std::to_string(vnet),
        [this, channel = first + vnet] { return static_cast<double>(channels_[channel].flits); },
        /*integral=*/true));
  auto total = [this, first, vnets] {
    std::uint64_t sum = 0;
    for (std::size_t channel = first; channel < first + vnets; ++channel) sum += channels_[channel].flits;
    return static_cast<double>(sum);
  };
  stats.total_flits = std::make_unique<DerivedStatistic>(child_name(*this, prefix + ".flits"), "flits",
                                                         "flits over this resource, all virtual networks", total,
                                                         /*integral=*/true);
  stats.utilization = std::make_unique<DerivedStatistic>(
      child_name(*this, prefix + ".utilization"), "",
      "flits / (elapsed cycles x virtual_networks): used share of the capacity, one flit per cycle per vnet",
      [this, total] {
        const double capacity = elapsed_cycles() * static_cast<double>(shape_.vnets);
        return capacity > 0 ? total() / capacity : 0.0;
      });
}

void MeshNetwork::end_of_elaboration() {
  ensure_built();
  const std::string changed = changed_parameter(shape_);
  if (!changed.empty())
    throw ConfigError(std::string(name()) + ": " + changed +
                      " changed after the network was built (by its first attach/send/query); set the mesh "
                      "parameters before using the network");
  elaborated_ = true;
}

unsigned MeshNetwork::tile_count() const {
  ensure_built();
  return tiles_;
}
unsigned MeshNetwork::memory_controller_count() const {
  ensure_built();
  return node_count_ - tiles_;
}
unsigned MeshNetwork::node_count() const {
  ensure_built();
  return node_count_;
}

unsigned MeshNetwork::tile(MeshCoordinate router) const {
  ensure_built();
  if (router.x >= shape_.width || router.y >= shape_.height)
    throw ConfigError(std::string(name()) + ": router (x" + std::to_string(router.x) + ", y" +
                      std::to_string(router.y) + ") is outside the mesh of " + width.name() + " = " +
                      std::to_string(shape_.width) + " x " + height.name() + " = " + std::to_string(shape_.height));
  return router.y * static_cast<unsigned>(shape_.width) + router.x;
}

unsigned MeshNetwork::memory_controller_node(unsigned index) const {
  ensure_built();
  if (index >= node_count_ - tiles_)
    throw ConfigError(std::string(name()) + ": memory controller " + std::to_string(index) + " does not exist (" +
                      memory_controllers.name() + " lists " + std::to_string(node_count_ - tiles_) + ")");
  return tiles_ + index;
}

MeshCoordinate MeshNetwork::coordinate(unsigned node) const {
  check_node(node, "node");
  const unsigned router = router_of(node), w = static_cast<unsigned>(shape_.width);
  return MeshCoordinate{router % w, router / w};
}

std::string MeshNetwork::node_name(unsigned node) const {
  check_node(node, "node");
  if (node >= tiles_) return "mc" + std::to_string(node - tiles_);
  const unsigned w = static_cast<unsigned>(shape_.width);
  return "x" + std::to_string(node % w) + "y" + std::to_string(node / w);
}

unsigned MeshNetwork::hops(unsigned source, unsigned destination) const {
  const MeshCoordinate a = coordinate(source), b = coordinate(destination);
  return (a.x > b.x ? a.x - b.x : b.x - a.x) + (a.y > b.y ? a.y - b.y : b.y - a.y);
}

std::vector<MeshCoordinate> MeshNetwork::route(unsigned source, unsigned destination) const {
  MeshCoordinate at = coordinate(source);
  const MeshCoordinate to = coordinate(destination);
  std::vector<MeshCoordinate> routers{at};
  while (at.x != to.x) {
    at.x = at.x < to.x ? at.x + 1 : at.x - 1;
    routers.push_back(at);
  }
  while (at.y != to.y) {
    at.y = at.y < to.y ? at.y + 1 : at.y - 1;
    routers.push_back(at);
  }
  return routers;
}

std::uint64_t MeshNetwork::flits(std::uint64_t data_bytes) const {
  ensure_built();
  return flit_count(data_bytes);
}

sc_time MeshNetwork::cycle() const {
  ensure_built();
  return sc_time::from_value(shape_.period);
}

sc_time MeshNetwork::zero_load_latency(unsigned source, unsigned destination, std::uint64_t data_bytes) const {
  const Ticks h = hops(source, destination);
  return sc_time::from_value(h * (router_ticks_ + link_ticks_) + flit_count(data_bytes) * shape_.period);
}

// ---------------------------------------------------------------- checks

std::string MeshNetwork::describe_nodes() const {
  return width.name() + " x " + height.name() + " = " + std::to_string(tiles_) + " tiles (nodes 0.." +
         std::to_string(tiles_ - 1) + ") + " + std::to_string(node_count_ - tiles_) + " memory controller(s) in " +
         memory_controllers.name();
}

void MeshNetwork::check_node(unsigned node, const char* role) const {
  ensure_built();
  if (node >= node_count_)
    throw ConfigError(std::string(name()) + ": " + role + " " + std::to_string(node) +
                      " is outside the mesh: " + describe_nodes());
}

void MeshNetwork::check_message(const MeshMessage& message, bool needs_receiver) const {
  // Every send checks: the valid case in a few compares, the checks that
  // name the error below.
  if (built_ && message.source < node_count_ && message.destination < node_count_ &&
      message.vnet < shape_.vnets && message.type < types_.size() && message.data_bytes <= kMaxDataBytes) {
    if (!needs_receiver) return;
    const auto& ports = receivers_[message.destination];
    if (message.port < ports.size() && ports[message.port]) return;
  }
  explain_invalid_message(message, needs_receiver);
}

void MeshNetwork::explain_invalid_message(const MeshMessage& message, bool needs_receiver) const {
  check_node(message.source, "source node");
  check_node(message.destination, "destination node");
  if (message.vnet >= shape_.vnets)
    throw ConfigError(std::string(name()) + ": virtual network " + std::to_string(message.vnet) +
                      " does not exist (" + virtual_networks.name() + " = " + std::to_string(shape_.vnets) + ")");
  if (message.type >= types_.size())
    throw ConfigError(std::string(name()) + ": message type " + std::to_string(message.type) +
                      " is not registered (get ids from message_type(name); " + std::to_string(types_.size()) +
                      " registered)");
  if (message.data_bytes > kMaxDataBytes)
    throw ConfigError(std::string(name()) + ": a " + types_[message.type].name + " message carries " +
                      std::to_string(message.data_bytes) + " data bytes, above the limit of " +
                      std::to_string(kMaxDataBytes));
  if (needs_receiver) {
    const auto& ports = receivers_[message.destination];
    if (message.port >= ports.size() || !ports[message.port])
      throw ConfigError(std::string(name()) + ": no receiver is attached at node " +
                        std::to_string(message.destination) + " (" + node_name(message.destination) + ") port " +
                        std::to_string(message.port) + " for a " + types_[message.type].name + " message");
  }
}

void MeshNetwork::check_send_time(const sc_time& send_time) const {
  if (send_time < current_time())
    throw SimulationError(ExitStatus::kInternalError,
                          std::string(name()) + ": a message is sent at " + send_time.to_string() +
                              ", before the current simulated time " + current_time().to_string());
}

// ---------------------------------------------------------------- types, receivers

unsigned MeshNetwork::message_type(const std::string& type_name) {
  for (unsigned type = 0; type < types_.size(); ++type)
    if (types_[type].name == type_name) return type;
  const bool valid = !type_name.empty() && std::all_of(type_name.begin(), type_name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
  if (!valid)
    throw ConfigError(std::string(name()) + ": invalid message type name '" + type_name +
                      "' (letters, digits, '_' and '-' only: it is part of statistic names)");
  TypeStatistics stats;
  stats.name = type_name;
  const std::string prefix = "type." + type_name + ".";
  stats.messages = std::make_unique<Counter>(child_name(*this, prefix + "messages"), "",
                                             "messages of this type sent");
  stats.flits = std::make_unique<Counter>(child_name(*this, prefix + "flits"), "flits",
                                          "flits of the messages of this type");
  stats.flit_hops = std::make_unique<Counter>(child_name(*this, prefix + "flit_hops"), "flits",
                                              "flits x hops of the messages of this type");
  types_.push_back(std::move(stats));
  return static_cast<unsigned>(types_.size() - 1);
}

void MeshNetwork::attach(unsigned node, unsigned port, Receiver receiver) {
  check_node(node, "receiver node");
  if (elaborated_)
    throw ConfigError(std::string(name()) + ": receiver for node " + std::to_string(node) +
                      " attached after elaboration (attach receivers while building the platform)");
  if (!receiver) throw ConfigError(std::string(name()) + ": empty receiver for node " + std::to_string(node));
  if (port > 255) throw ConfigError(std::string(name()) + ": port " + std::to_string(port) + " is above 255");
  auto& ports = receivers_[node];
  if (port < ports.size() && ports[port])
    throw ConfigError(std::string(name()) + ": node " + std::to_string(node) + " (" + node_name(node) + ") port " +
                      std::to_string(port) + " already has a receiver");
  if (port >= ports.size()) ports.resize(port + 1);
  ports[port] = std::move(receiver);
}

// ---------------------------------------------------------------- timing

template <typename Take>
MeshNetwork::Ticks MeshNetwork::walk(const MeshMessage& message, Ticks send_time, Ticks serialization,
                                     unsigned& hop_count, Take&& take) const {
  // Injection port: the head is at the source router when it starts.
  Ticks head = take(injection_resource(message.source), send_time, serialization);
  const unsigned w = static_cast<unsigned>(shape_.width);
  const Place& from = places_[message.source];
  const Place& to = places_[message.destination];
  unsigned router = from.router;
  const unsigned x = from.x, y = from.y, to_x = to.x, to_y = to.y;
  // X first, then Y: |dx| hops east or west, then |dy| south or north.
  const unsigned x_hops = x < to_x ? to_x - x : x - to_x, y_hops = y < to_y ? to_y - y : y - to_y;
  const Direction x_direction = x < to_x ? kEast : kWest, y_direction = y < to_y ? kSouth : kNorth;
  const unsigned x_step = x < to_x ? 1u : -1u, y_step = y < to_y ? w : -w;  // modulo 2^32
  hop_count = x_hops + y_hops;
  for (unsigned k = 0; k < hop_count; ++k) {
    const bool along_x = k < x_hops;
    const Ticks start = take(kDirections * std::size_t{router} + (along_x ? x_direction : y_direction),
                             head + router_ticks_, serialization);
    head = start + link_ticks_;
    router += along_x ? x_step : y_step;
  }
  // Ejection port: the last flit is out `serialization` after it starts.
  return take(ejection_resource(message.destination), head, serialization) + serialization;
}

MeshNetwork::Ticks MeshNetwork::reserve(const MeshMessage& message, Ticks send_time, bool hold_later) {
  const std::uint64_t flit_total = flit_count(message.data_bytes);
  const Ticks serialization = flit_total * shape_.period;
  const Ticks now = current_time().value();
  const unsigned vnet = message.vnet;
  unsigned h = 0;
  const std::size_t vnets = shape_.vnets;
  Ticks arrival = walk(message, send_time, serialization, h, [&](std::size_t id, Ticks earliest, Ticks duration) __attribute__((always_inline)) {
    Channel& channel = channels_[id * vnets + vnet];
    channel.flits += flit_total;
    const Ticks start = channel.calendar.reserve(earliest, duration, now);
    if (waveform_links_ && id < link_waveform_.size() && link_waveform_[id] >= 0) {
      Waveform::instance().adjust(link_waveform_[id], sc_time::from_value(start), 1);
      Waveform::instance().adjust(link_waveform_[id], sc_time::from_value(start + duration), -1);
    }
    return start;
  });
  if (hold_later) {
    Ticks& last = last_arrival_[pair_index(message)];
    arrival = std::max(arrival, last);
    last = arrival;
  }
  horizon_ = std::max(horizon_, arrival);

  ++messages_;
  flits_ += flit_total;
  ++*vnets_[vnet].messages;
  *vnets_[vnet].flits += flit_total;
  ++*types_[message.type].messages;
  *types_[message.type].flits += flit_total;
  *types_[message.type].flit_hops += flit_total * h;
  router_traversals_ += flit_total * (h + 1);
  link_traversals_ += flit_total * h;
  arbitrations_ += h + 1;
  hops_.sample(h);
  // In cycles, rounded up. The zero-load latency is whole cycles, so the
  // contention is the latency's cycles less it: one division per message.
  const Ticks period = shape_.period;
  const Ticks latency_cycles = (arrival - send_time + period - 1) / period;
  const Ticks zero_load_cycles = h * (shape_.router_latency + shape_.link_latency) + flit_total;
  latency_.sample(latency_cycles);
  contention_.sample(latency_cycles - zero_load_cycles);
  return arrival;
}

sc_time MeshNetwork::transfer(const MeshMessage& message, const sc_time& send_time) {
  check_message(message, false);
  check_send_time(send_time);
  return sc_time::from_value(reserve(message, send_time.value()));
}

bool MeshNetwork::transfer_in_order(const MeshMessage& message, const sc_time& send_time, sc_time& arrival) {
  Ticks ticks = 0;
  if (!transfer_in_order(message, send_time.value(), ticks)) return false;
  arrival = sc_time::from_value(ticks);
  return true;
}

bool MeshNetwork::transfer_in_order(const MeshMessage& message, Ticks send_time, Ticks& arrival) {
  check_message(message, false);
  if (in_flight_[pair_index(message)] != 0) return false;
  if (send_time < current_time().value()) check_send_time(sc_time::from_value(send_time));  // throws
  // Delivered by the caller before anything sent after it: the triple's
  // order holds without holding later messages behind its arrival.
  arrival = reserve(message, send_time, false);
  return true;
}

sc_time MeshNetwork::arrival_time(const MeshMessage& message, const sc_time& send_time) const {
  check_message(message, false);
  check_send_time(send_time);
  const Ticks now = current_time().value();
  const unsigned vnet = message.vnet;
  unsigned h = 0;
  // An XY path uses each channel once, so each can be tried on a copy.
  Ticks arrival = walk(message, send_time.value(), flit_count(message.data_bytes) * shape_.period, h,
                       [&](std::size_t id, Ticks earliest, Ticks duration) {
                         ReservationCalendar calendar = channels_[id * shape_.vnets + vnet].calendar;
                         return calendar.reserve(earliest, duration, now);
                       });
  return sc_time::from_value(std::max(arrival, last_arrival_[pair_index(message)]));
}

double MeshNetwork::elapsed_cycles() const {
  const Ticks now = std::max<Ticks>(current_time().value(), horizon_);
  return shape_.period ? static_cast<double>(now) / static_cast<double>(shape_.period) : 0.0;
}

// ---------------------------------------------------------------- delivery

sc_time MeshNetwork::send(MeshMessage message, const sc_time& send_time) {
  check_message(message, true);
  check_send_time(send_time);
  const Ticks arrival = reserve(message, send_time.value());
  std::uint32_t slot;
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.push_back(std::move(message));
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
    slots_[slot] = std::move(message);
  }
  ++in_flight_[pair_index(slots_[slot])];
  pending_.push_back(Pending{arrival, sequence_++, slot});
  std::push_heap(pending_.begin(), pending_.end(), std::greater<Pending>());
  schedule(arrival);
  return sc_time::from_value(arrival);
}

void MeshNetwork::schedule(Ticks time) {
  if (notification_pending_ && scheduled_ <= time) return;
  // An earlier notification replaces a pending later one (sc_event rule).
  delivery_event_.notify(sc_time::from_value(time - current_time().value()));
  scheduled_ = time;
  notification_pending_ = true;
}

void MeshNetwork::deliver() {
  notification_pending_ = false;
  const Ticks now = current_time().value();
  while (!pending_.empty() && pending_.front().time <= now) {
    std::pop_heap(pending_.begin(), pending_.end(), std::greater<Pending>());
    const std::uint32_t slot = pending_.back().slot;
    pending_.pop_back();
    MeshMessage message = std::move(slots_[slot]);
    free_slots_.push_back(slot);
    --in_flight_[pair_index(message)];
    ++delivered_;
    // Receivers are fixed after elaboration, so the reference stays valid
    // while the receiver sends.
    receivers_[message.destination][message.port](message);
  }
  if (!pending_.empty()) schedule(pending_.front().time);
}

}  // namespace npuvp
