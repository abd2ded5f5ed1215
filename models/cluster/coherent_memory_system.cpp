#include "cluster/coherent_memory_system.h"

#include "coherence/memory_controller.h"
#include "coherence/protocol_registry.h"
#include "core/simulation.h"
#include "core/text.h"
#include "core/timeline.h"
#include "cpu/riscv_cpu.h"
#include "mem/instruction_cache.h"

#include <algorithm>
#include <cstring>
#include <exception>

namespace npuvp {

using coherence::Cycles;
using coherence::L1Controller;
using coherence::Message;
using coherence::Port;

namespace {
constexpr unsigned kPorts = 3;  // coherence::Port values per mesh node
}  // namespace

// A hart's DataCache over its tile's L1 controller (see the header: time).
class CoherentMemorySystem::TileCache : public DataCache {
 public:
  TileCache(CoherentMemorySystem& system, unsigned tile, RiscvCpu& cpu)
      : system_(system), l1_(system.l1(tile)), hart_(cpu.hart()) {
    core_period_ticks_ = cpu.cycle_time().value();
    hart_name_ = cpu.name();
    l1_latency_ = (system.l1_latency.get() * system.period_ticks_ + core_period_ticks_ - 1) / core_period_ticks_;
    l1_.set_miss_completion([this] {
      completed_ = true;
      // SystemC's time, or an express message's arrival (carry_express).
      completion_ticks_ = system_.base_ticks();
      // The hart's thread waits for it (immediate: same delta), unless the
      // miss completed inside the hart's own access (an express message).
      if (waiting_) done_.notify();
    });
    const std::uint64_t line_bytes = system.geometry_.line_bytes;
    l1_.set_line_lost_observer([this, line_bytes](std::uint64_t line) {
      ++lines_lost_;
      if (line == missed_line_) {
        lost_during_miss_ = true;
        lost_after_completion_ = completed_;
      }
      if (hart_.reservation_in(line, line_bytes)) hart_.clear_reservation();
    });
  }

  bool read(std::uint64_t address, void* data, unsigned size, std::uint64_t& cycles) override {
    if (uncached(address)) return bus(BusInterface::Access::kRead, address, data, size, cycles);
    return perform(L1Controller::Access::kLoad, address, data, size, cycles);
  }
  bool write(std::uint64_t address, const void* data, unsigned size, std::uint64_t& cycles) override {
    if (uncached(address)) return bus(BusInterface::Access::kWrite, address, const_cast<void*>(data), size, cycles);
    return perform(L1Controller::Access::kStore, address, const_cast<void*>(data), size, cycles);
  }
  bool make_writable(std::uint64_t address, std::uint64_t& cycles) override {
    if (uncached(address)) {
      cycles = 0;
      return true;
    }
    std::uint64_t scratch = 0;
    return perform(L1Controller::Access::kMakeWritable, address & ~std::uint64_t{7}, &scratch, 8, cycles);
  }
  void synchronise(Sync kind, std::uint64_t& cycles) override {
    // LR/SC: the hart makes an LR's line writable before loading it (as
    // for an AMO), so the reservation is on a line this L1 owns; losing the
    // line (line-lost observer) drops it and the SC fails.
    Cycles cluster_cycles = l1_.synchronise();
    cycles += to_core_cycles(cluster_cycles * system_.period_ticks_);
  }
  bool debug_access(bool write, std::uint64_t address, void* data, std::size_t size) override {
    if (uncached(address)) return hart_.bus().debug_access(write, address, data, size);
    return system_.debug_access(write, address, data, size);
  }

  std::uint64_t misses = 0, hits = 0, stall_cycles = 0, retries = 0;
  std::uint64_t speculated = 0, speculation_cycles_saved = 0;
  std::uint64_t lines_lost() const { return lines_lost_; }

 private:
  bool uncached(std::uint64_t address) const {
    for (const auto& [start, size] : system_.uncached_)
      if (address - start < size) return true;
    return false;
  }
  bool bus(BusInterface::Access access, std::uint64_t address, void* data, unsigned size, std::uint64_t& cycles) {
    return hart_.bus().bus_access(access, address, data, size, cycles);
  }
  std::uint64_t to_core_cycles(Ticks ticks) const { return (ticks + core_period_ticks_ - 1) / core_period_ticks_; }

  bool perform(L1Controller::Access access, std::uint64_t address, void* data, unsigned size, std::uint64_t& cycles) {
    const Ticks start = hart_.cycles() * core_period_ticks_;
    MissTrace miss_trace(*this, access, address, start);  // trace_misses (--trace-coherence); nothing when off
    Ticks issued = start;  // when the (first) miss left: the hart's time, or SystemC's if that is later
    for (bool first = true;; first = false) {
      // The controllers see the hart's own time during the call (a miss
      // starts then; now() is SystemC's if the hart lags it, after a load
      // charged as a speculated hit).
      const Ticks ticks = first ? start : std::max(start, completion_ticks_);
      system_.access_ticks_ = ticks;
      l1_.set_access_time(ticks);
      completed_ = false;
      lost_during_miss_ = lost_after_completion_ = false;
      missed_line_ = address & ~std::uint64_t{system_.geometry_.line_bytes - 1};
      bool hit;
      try {
        hit = l1_.access(access, address, data, size);
      } catch (const coherence::ProtocolError& error) {
        system_.access_ticks_ = 0;
        simulation().fail(ExitStatus::kInternalError, std::string(system_.name()) + ": " + error.what());
      }
      system_.access_ticks_ = 0;
      system_.carry_express();  // may complete a miss at once
      if (hit) {
        missed_line_ = kNoLine;
        if (first) {
          ++hits;
          cycles = l1_latency_;
          return true;
        }
        break;
      }
      miss_trace.missed = true;
      if (first) issued = std::max<Ticks>(start, sc_core::sc_time_stamp().value());
      // Blocks this hart's thread until the protocol has performed the access.
      waiting_ = true;
      while (!completed_) sc_core::wait(done_);
      waiting_ = false;
      completed_ = false;
      // The line may be gone when this thread resumes: a make-writable
      // whose line other processes of this time step took again after
      // completion is done again, so that the AMO's read and write, or the
      // LR's load and the SC's store, find the line writable without blocking.
      const bool again = access == L1Controller::Access::kMakeWritable && lost_after_completion_;
      missed_line_ = kNoLine;
      if (!again) break;
      ++retries;
    }
    const Ticks now = completion_ticks_;
    const std::uint64_t waited = now > start ? to_core_cycles(now - start) : 0;
    if (l1_.last_miss_speculated_correctly()) {
      // A speculating core would have used its suspect copy as soon as the
      // load issued and the validation confirmed it: charge a hit from
      // then. The hart's cycles now lag SystemC time by at most this round
      // trip; see docs/cluster.md (Time).
      ++hits;
      ++speculated;
      cycles = (issued > start ? to_core_cycles(issued - start) : 0) + l1_latency_;
      if (waited > cycles) speculation_cycles_saved += waited - cycles;
      return true;
    }
    ++misses;
    cycles = waited;
    stall_cycles += cycles;
    return true;
  }

  // trace_misses (--trace-coherence): an access to a line in the traced range that missed
  // becomes a slice on the hart's "L1 misses" row, from the hart's time at
  // the access to the completion, with the line's states before and after.
  struct MissTrace {
    MissTrace(TileCache& cache, L1Controller::Access access, std::uint64_t address, Ticks start)
        : cache(cache), access(access), start(start), active(cache.timeline_.enabled() && cache.system_.miss_traced(address)) {
      if (!active) return;
      line = address & ~std::uint64_t{cache.system_.geometry_.line_bytes - 1};
      before = cache.l1_.describe(line);
    }
    ~MissTrace() {
      if (!active || !missed || std::uncaught_exceptions() || !cache.timeline_.enabled()) return;
      Timeline& timeline = cache.timeline_;
      if (cache.miss_track_ < 0) cache.miss_track_ = timeline.track(cache.hart_name_, "L1 misses");
      static const char* const kAccess[] = {"load", "store", "make writable"};
      const char* kind = kAccess[static_cast<unsigned>(access)];
      timeline.slice(cache.miss_track_, std::string(kind) + " " + hex(line), sc_core::sc_time::from_value(start),
                     sc_core::sc_time::from_value(cache.completion_ticks_),
                     {{"line", Timeline::hex(line)},
                      {"access", Timeline::quoted(kind)},
                      {"before", Timeline::quoted(before)},
                      {"after", Timeline::quoted(cache.l1_.describe(line))},
                      {"speculated", cache.l1_.last_miss_speculated_correctly() ? "true" : "false"}});
    }
    TileCache& cache;
    L1Controller::Access access;
    Ticks start;
    bool active, missed = false;
    std::uint64_t line = 0;
    std::string before;
  };
  Timeline& timeline_ = Timeline::instance();
  std::string hart_name_;
  int miss_track_ = -1;

  static constexpr std::uint64_t kNoLine = ~std::uint64_t{0};
  std::uint64_t missed_line_ = kNoLine;  // the line of the miss in progress
  bool lost_during_miss_ = false, lost_after_completion_ = false;

  CoherentMemorySystem& system_;
  L1Controller& l1_;
  Hart& hart_;
  Ticks core_period_ticks_ = 1;
  std::uint64_t l1_latency_ = 0;
  std::uint64_t lines_lost_ = 0;
  bool completed_ = false;
  bool waiting_ = false;  // the hart's thread waits for done_
  Ticks completion_ticks_ = 0;  // when the last miss completed
  sc_core::sc_event done_;
};

namespace {
// The protocol parameter belongs to the mesh the system is attached to:
// `<mesh>.coherence` ("mesh.coherence" on the SoC).
std::string protocol_parameter_name(const MeshNetwork& network) { return child_name(network, "coherence"); }

// The protocol parameter's doc, listing the registered protocols.
std::string protocol_parameter_doc() {
  std::vector<std::string> names = coherence::protocol_names();
  std::sort(names.begin(), names.end());
  std::string doc = "coherence protocol of the mesh cluster's L1s and LLC banks (docs/coherence.md), one of: ";
  for (std::size_t i = 0; i < names.size(); ++i)
    doc += (i ? "; " : "") + names[i] + " — " + coherence::find_protocol(names[i]).description;
  return doc;
}
}  // namespace

CoherentMemorySystem::CoherentMemorySystem(sc_core::sc_module_name name, MeshNetwork& network)
    : sc_module(name),
      memory_socket("memory_socket"),
      protocol(protocol_parameter_name(network), "mesi", "", protocol_parameter_doc()),
      line_size(child_name(*this, "line_size"), 32, "bytes", "cache line size of the L1s and the LLC"),
      l1_size(child_name(*this, "l1.size"), 64 * 1024, "bytes", "private L1 data cache per tile"),
      l1_ways(child_name(*this, "l1.ways"), 4, "", "associativity of the L1 data caches"),
      l1_latency(child_name(*this, "l1.latency"), 3, "cycles", "L1 hit latency (cluster cycles)"),
      llc_size(child_name(*this, "llc.size"), 16ull << 20, "bytes",
               "shared S-NUCA LLC, all banks together (one bank per tile: size / tiles)"),
      llc_ways(child_name(*this, "llc.ways"), 4, "", "associativity of the LLC banks"),
      llc_latency(child_name(*this, "llc.latency"), 10, "cycles", "LLC bank access latency (cluster cycles)"),
      express(child_name(*this, "express"), true, "",
              "carry express requests (NSI's validations of suspect copies) that the home answers alone, and "
              "the reply, at once, right after the core's access, when nothing is in flight before them on "
              "their (source, destination, vnet); their mesh reservations and times are those of timed "
              "messages (docs/cluster.md, Express requests). false: every message waits for its arrival in "
              "simulated time"),
      instruction_cache(child_name(*this, "icache.enable"), true, "",
                        "model the private instruction caches' timing (a line fill from the LLC per miss)"),
      instruction_cache_size(child_name(*this, "icache.size"), 64 * 1024, "bytes",
                             "private L1 instruction cache per tile"),
      instruction_cache_ways(child_name(*this, "icache.ways"), 4, "", "associativity of the instruction caches"),
      network_(network) {
  // Line transfers use no DMI: nothing to drop when the ring invalidates.
  memory_socket.register_invalidate_direct_mem_ptr(this, &CoherentMemorySystem::ignore_dmi_invalidation);
  payload_.set_byte_enable_ptr(nullptr);
  declare_protocol_parameters(network);
  build_controllers();
  add_statistics();
  SC_HAS_PROCESS(CoherentMemorySystem);
  SC_METHOD(run_scheduled);
  sensitive << scheduled_event_;
  dont_initialize();
}

CoherentMemorySystem::~CoherentMemorySystem() = default;

void CoherentMemorySystem::declare_protocol_parameters(const MeshNetwork& network) {
  for (const std::string& protocol_name : coherence::protocol_names())
    for (const coherence::ProtocolParameter& parameter : coherence::find_protocol(protocol_name).parameters)
      protocol_parameters.push_back(std::make_unique<Parameter<std::uint64_t>>(
          child_name(network, protocol_name + "." + parameter.name), parameter.default_value, parameter.unit,
          parameter.doc + " (used when " + protocol.name() + " = " + protocol_name + ")"));
}

void CoherentMemorySystem::build_controllers() {
  const coherence::Protocol* chosen = nullptr;
  try {
    chosen = &coherence::find_protocol(protocol.get());
  } catch (const std::invalid_argument& error) {
    throw ConfigError("parameter '" + protocol.name() + "': " + error.what());
  }
  const coherence::Protocol& p = *chosen;
  message_name_ = [name = p.message_name](unsigned type) {
    std::string text = name ? name(type) : "?";
    return text;
  };

  auto power_of_two = [](std::uint64_t value) { return value && (value & (value - 1)) == 0; };
  if (!power_of_two(line_size) || line_size.get() < 8 || line_size.get() > coherence::kMaxLineBytes)
    throw ConfigError("parameter '" + line_size.name() + "' is " + std::to_string(line_size.get()) +
                      "; it must be a power of two from 8 to " + std::to_string(coherence::kMaxLineBytes) + " bytes");
  geometry_.tiles = network_.tile_count();
  geometry_.memory_controllers = network_.memory_controller_count();
  geometry_.line_bytes = static_cast<unsigned>(line_size.get());
  express_enabled_ = express.get();
  if (geometry_.memory_controllers == 0)
    throw ConfigError("the coherent memory system needs at least one memory controller in '" +
                      network_.memory_controllers.name() + "' (e.g. 0,3,12,15)");
  auto shape_of = [&](const Parameter<std::uint64_t>& size, const Parameter<std::uint64_t>& ways,
                      const Parameter<std::uint64_t>& latency, std::uint64_t bytes) {
    if (ways.get() == 0 || bytes == 0 || bytes % (ways.get() * line_size.get()) != 0 ||
        !power_of_two(bytes / (ways.get() * line_size.get())))
      throw ConfigError("parameters '" + size.name() + "' and '" + ways.name() + "': " + std::to_string(bytes) +
                        " bytes in " + std::to_string(ways.get()) + " ways of " + std::to_string(line_size.get()) +
                        "-byte lines must give a power-of-two number of sets" +
                        (&size == &llc_size ? " per bank (one bank per tile)" : ""));
    coherence::CacheShape shape;
    shape.size_bytes = bytes;
    shape.ways = static_cast<unsigned>(ways.get());
    shape.latency = latency.get();
    return shape;
  };
  const coherence::CacheShape l1_shape = shape_of(l1_size, l1_ways, l1_latency, l1_size.get());
  if (llc_size.get() % geometry_.tiles != 0)
    throw ConfigError("parameter '" + llc_size.name() + "' must divide evenly into " +
                      std::to_string(geometry_.tiles) + " banks");
  const coherence::CacheShape bank_shape = shape_of(llc_size, llc_ways, llc_latency, llc_size.get() / geometry_.tiles);

  // The chosen protocol's parameter values, by the protocol's own names.
  coherence::ProtocolOptions options;
  const std::string prefix = child_name(network_, p.name + ".");
  for (const auto& parameter : protocol_parameters)
    if (parameter->name().compare(0, prefix.size(), prefix) == 0)
      options[parameter->name().substr(prefix.size())] = parameter->get();

  period_ticks_ = std::max<Ticks>(1, network_.cycle().value());
  set_fine_per_cycle(period_ticks_);  // the harts' access times are in ticks
  const unsigned nodes = geometry_.tiles + geometry_.memory_controllers;
  receivers_.assign(nodes * kPorts, nullptr);
  for (unsigned tile = 0; tile < geometry_.tiles; ++tile) {
    coherence::Environment& environment = *this;
    try {
      l1s_.push_back(coherence::make_configured_l1(p, tile, geometry_, l1_shape, environment, options));
    } catch (const std::invalid_argument& error) {
      // A value the protocol rejects: name the parameters it reads.
      std::string names;
      for (const auto& [local, value] : options) names += (names.empty() ? "" : ", ") + prefix + local;
      throw ConfigError("coherence protocol '" + p.name + "' (parameters " + (names.empty() ? "none" : names) +
                        "): " + error.what());
    }
    homes_.push_back(p.make_home(tile, geometry_, bank_shape, environment));
    receivers_[tile * kPorts + static_cast<unsigned>(Port::kL1)] = l1s_.back().get();
    receivers_[tile * kPorts + static_cast<unsigned>(Port::kHome)] = homes_.back().get();
  }
  for (unsigned index = 0; index < geometry_.memory_controllers; ++index) {
    coherence::Environment& environment = *this;
    coherence::MemoryBackend& backend = *this;
    memory_controllers_.push_back(std::make_unique<coherence::MemoryController>(index, geometry_, environment, backend));
    receivers_[(geometry_.tiles + index) * kPorts + static_cast<unsigned>(Port::kMemory)] =
        memory_controllers_.back().get();
  }
  for (unsigned node = 0; node < nodes; ++node)
    for (unsigned port = 0; port < kPorts; ++port)
      if (receivers_[node * kPorts + port])
        network_.attach(node, port, [this](MeshMessage& message) { deliver(message); });
  mesh_types_.assign(std::max(p.message_types, coherence::kFirstProtocolMessage), -1);
  home_messages_.assign(geometry_.tiles, 0);
  instruction_caches_.resize(geometry_.tiles);
  tile_caches_.resize(geometry_.tiles);
}

unsigned CoherentMemorySystem::register_mesh_type(unsigned protocol_type) {
  if (protocol_type >= mesh_types_.size()) mesh_types_.resize(protocol_type + 1, -1);
  int& type = mesh_types_[protocol_type];
  if (type < 0) {
    const char* memory_name = coherence::memory_message_name(protocol_type);
    std::string name = memory_name ? memory_name : message_name_(protocol_type);
    if (name.empty() || name == "?") name = "type" + std::to_string(protocol_type);
    type = static_cast<int>(network_.message_type(name));
  }
  return static_cast<unsigned>(type);
}

coherence::Cycles CoherentMemorySystem::now() const { return base_ticks() / period_ticks_; }

void CoherentMemorySystem::send(const Message& message, Cycles delay) {
  std::uint32_t slot;
  if (free_message_slots_.empty()) {
    slot = static_cast<std::uint32_t>(message_slots_.size());
    message_slots_.push_back(message);
  } else {
    slot = free_message_slots_.back();
    free_message_slots_.pop_back();
    message_slots_[slot] = message;
  }
  MeshMessage mesh_message;
  mesh_message.source = message.source;
  mesh_message.destination = message.destination;
  mesh_message.port = static_cast<unsigned>(message.destination_port);
  mesh_message.vnet = static_cast<unsigned>(message.vnet);
  mesh_message.type = mesh_type(message.type);
  mesh_message.data_bytes = message.has_data ? geometry_.line_bytes : 0;
  mesh_message.tag = slot;
  const Ticks at = base_ticks() + delay * period_ticks_;
  // Express: an L1's request during its hart's access (access_ticks_ set)
  // that its receiver will answer alone, and that answer.
  const bool carried =
      express_enabled_ &&
      (answering_ >= 0 ? message.destination == static_cast<unsigned>(answering_) &&
                             message.destination_port == Port::kL1
                       : message.express && access_ticks_ != 0 &&
                             receivers_[message.destination * kPorts + mesh_message.port]->answers_alone(message));
  Ticks arrival = 0;
  if (carried && !queued_express_like(mesh_message) && network_.transfer_in_order(mesh_message, at, arrival)) {
    express_.push_back(Express{arrival, express_sequence_++, mesh_message});
    ++express_messages_;
    return;
  }
  network_.send(std::move(mesh_message), sc_core::sc_time::from_value(at));
}

bool CoherentMemorySystem::queued_express_like(const MeshMessage& message) const {
  for (const Express& queued : express_)
    if (queued.message.source == message.source && queued.message.destination == message.destination &&
        queued.message.vnet == message.vnet)
      return true;
  return false;
}

void CoherentMemorySystem::carry_queued_express() {
  while (!express_.empty()) {
    auto next = std::min_element(express_.begin(), express_.end(), [](const Express& a, const Express& b) {
      return a.time != b.time ? a.time < b.time : a.sequence < b.sequence;
    });
    const Express express = *next;
    express_.erase(next);
    const auto slot = static_cast<std::uint32_t>(express.message.tag);
    // While the receiver answers a request, its replies to the requester join.
    answering_ = message_slots_[slot].express ? static_cast<int>(express.message.source) : -1;
    access_ticks_ = express.time;  // the controllers' time: the message's arrival
    deliver(express.message.destination, express.message.port, slot);
  }
  answering_ = -1;
  access_ticks_ = 0;
}

void CoherentMemorySystem::deliver(MeshMessage& mesh_message) {
  deliver(mesh_message.destination, mesh_message.port, static_cast<std::uint32_t>(mesh_message.tag));
}

void CoherentMemorySystem::deliver(unsigned node, unsigned port, std::uint32_t slot) {
  const Message& message = message_slots_[slot];  // stays in place (and its slot taken) while handled
  coherence::Controller* receiver = receivers_[node * kPorts + port];
  if (port == static_cast<unsigned>(Port::kHome)) ++home_messages_[node];
  try {
    receiver->handle(message);
  } catch (const coherence::ProtocolError& error) {
    simulation().fail(ExitStatus::kInternalError, std::string(name()) + ": " + error.what());
  }
  free_message_slots_.push_back(slot);
}

void CoherentMemorySystem::schedule(Cycles delay, std::function<void()> action) {
  std::uint32_t slot;
  if (free_action_slots_.empty()) {
    slot = static_cast<std::uint32_t>(action_slots_.size());
    action_slots_.push_back(std::move(action));
  } else {
    slot = free_action_slots_.back();
    free_action_slots_.pop_back();
    action_slots_[slot] = std::move(action);
  }
  const Ticks at = base_ticks() + delay * period_ticks_;
  const bool earliest = scheduled_.empty() || at < scheduled_.top().time;
  scheduled_.push({at, next_sequence_++, slot});
  if (earliest) {
    const Ticks now = sc_core::sc_time_stamp().value();
    scheduled_event_.notify(sc_core::sc_time::from_value(at > now ? at - now : 0));
  }
}

void CoherentMemorySystem::run_scheduled() {
  const Ticks now = sc_core::sc_time_stamp().value();
  while (!scheduled_.empty() && scheduled_.top().time <= now) {
    const std::uint32_t slot = scheduled_.top().slot;
    scheduled_.pop();
    std::function<void()> action = std::move(action_slots_[slot]);
    action_slots_[slot] = nullptr;
    free_action_slots_.push_back(slot);
    try {
      action();
    } catch (const coherence::ProtocolError& error) {
      simulation().fail(ExitStatus::kInternalError, std::string(name()) + ": " + error.what());
    }
  }
  if (!scheduled_.empty()) scheduled_event_.notify(sc_core::sc_time::from_value(scheduled_.top().time - now));
}

coherence::Cycles CoherentMemorySystem::memory_transfer(bool write, std::uint64_t line, std::uint8_t* data,
                                                        unsigned bytes, bool& ok) {
  payload_.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  payload_.set_address(line);
  payload_.set_data_ptr(data);
  payload_.set_data_length(bytes);
  payload_.set_streaming_width(bytes);
  payload_.set_dmi_allowed(false);
  payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  const Ticks now = sc_core::sc_time_stamp().value();
  const Ticks start = base_ticks();
  sc_core::sc_time delay = sc_core::sc_time::from_value(start - now);
  // Legal from an SC_METHOD: the ring and the DDR controller never wait().
  memory_socket->b_transport(payload_, delay);
  ok = payload_.is_response_ok();
  if (write) ++memory_writes_;
  else ++memory_reads_;
  const Ticks done = now + delay.value();
  return done > start ? (done - start + period_ticks_ - 1) / period_ticks_ : 0;
}

coherence::Cycles CoherentMemorySystem::read_line(std::uint64_t line, std::uint8_t* data, unsigned bytes, bool& ok) {
  return memory_transfer(false, line, data, bytes, ok);
}

coherence::Cycles CoherentMemorySystem::write_line(std::uint64_t line, const std::uint8_t* data, unsigned bytes,
                                                   bool& ok) {
  return memory_transfer(true, line, const_cast<std::uint8_t*>(data), bytes, ok);
}

bool CoherentMemorySystem::debug_access(bool write, std::uint64_t address, void* data, std::size_t size) {
  auto* bytes = static_cast<std::uint8_t*>(data);
  const std::uint64_t line_bytes = geometry_.line_bytes;
  // Memory first: a write goes everywhere, a read is overwritten by newer copies below.
  tlm::tlm_generic_payload payload;
  payload.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  payload.set_address(address);
  payload.set_data_ptr(bytes);
  payload.set_data_length(static_cast<unsigned>(size));
  payload.set_streaming_width(static_cast<unsigned>(size));
  if (memory_socket->transport_dbg(payload) != size) return false;
  for (std::uint64_t offset = 0; offset < size;) {
    const std::uint64_t at = address + offset;
    const unsigned chunk = static_cast<unsigned>(std::min<std::uint64_t>(size - offset, line_bytes - at % line_bytes));
    const std::uint64_t line = geometry_.line_of(at);
    coherence::HomeController& bank = *homes_[geometry_.home_of(line)];
    if (write) {
      std::uint8_t scratch[coherence::kMaxLineBytes];
      if (bank.peek(at, scratch, chunk)) bank.poke(at, bytes + offset, chunk);
      for (auto& l1 : l1s_) {
        bool owner = false;
        if (l1->peek(at, scratch, chunk, owner)) l1->poke(at, bytes + offset, chunk);
      }
    } else {
      bool found = false;
      for (auto& l1 : l1s_) {
        bool owner = false;
        std::uint8_t scratch[coherence::kMaxLineBytes];
        if (l1->peek(at, scratch, chunk, owner) && owner) {
          std::memcpy(bytes + offset, scratch, chunk);
          found = true;
          break;
        }
      }
      if (!found) bank.peek(at, bytes + offset, chunk);
    }
    offset += chunk;
  }
  return true;
}

bool CoherentMemorySystem::quiescent() const {
  for (const auto& l1 : l1s_)
    if (!l1->quiescent()) return false;
  for (const auto& home : homes_)
    if (!home->quiescent()) return false;
  return scheduled_.empty() && network_.in_flight() == 0;
}

void CoherentMemorySystem::add_uncached_range(std::uint64_t start, std::uint64_t size) {
  uncached_.emplace_back(start, size);
}

void CoherentMemorySystem::attach_hart(unsigned tile, RiscvCpu& cpu, std::uint64_t start, std::uint64_t size) {
  if (tile >= geometry_.tiles) throw ConfigError(std::string(name()) + ": no tile " + std::to_string(tile));
  tile_caches_[tile] = std::make_unique<TileCache>(*this, tile, cpu);
  Hart& hart = cpu.hart();
  hart.set_data_cache(tile_caches_[tile].get(), start, size);
  if (!instruction_cache) return;
  try {
    instruction_caches_[tile] = std::make_unique<InstructionCache>(instruction_cache_size.get(), line_size.get(),
                                                                   instruction_cache_ways.get());
  } catch (const std::invalid_argument& error) {
    throw ConfigError("parameters '" + instruction_cache_size.name() + "' and '" + instruction_cache_ways.name() +
                      "': " + error.what());
  }
  InstructionCache* cache = instruction_caches_[tile].get();
  // A miss: the zero-load time of a line fill from the line's LLC bank.
  const Ticks core_period = std::max<Ticks>(1, cpu.cycle_time().value());
  const unsigned line_bytes = geometry_.line_bytes;
  Hart* hart_pointer = &hart;
  hart.set_fetch_observer([this, cache, tile, core_period, line_bytes, hart_pointer](std::uint64_t address) {
    std::uint64_t evicted = 0;
    if (cache->access(address, evicted)) return std::uint64_t{0};
    if (evicted != InstructionCache::kInvalid) hart_pointer->invalidate_decoded_range(evicted, line_bytes);
    const unsigned bank = geometry_.home_of(geometry_.line_of(address));
    const Ticks fill = network_.zero_load_latency(tile, bank, 0).value() +
                       llc_latency.get() * period_ticks_ + network_.zero_load_latency(bank, tile, line_bytes).value();
    return static_cast<std::uint64_t>((fill + core_period - 1) / core_period);
  });
}

std::uint64_t CoherentMemorySystem::sum_tile_caches(std::uint64_t (*value)(const TileCache&)) const {
  std::uint64_t total = 0;
  for (const auto& cache : tile_caches_)
    if (cache) total += value(*cache);
  return total;
}

std::uint64_t CoherentMemorySystem::l1_misses() const {
  return sum_tile_caches([](const TileCache& cache) { return cache.misses; });
}
std::uint64_t CoherentMemorySystem::l1_hits() const {
  return sum_tile_caches([](const TileCache& cache) { return cache.hits; });
}
std::uint64_t CoherentMemorySystem::speculated_loads() const {
  return sum_tile_caches([](const TileCache& cache) { return cache.speculated; });
}
std::uint64_t CoherentMemorySystem::speculation_cycles_saved() const {
  return sum_tile_caches([](const TileCache& cache) { return cache.speculation_cycles_saved; });
}
std::uint64_t CoherentMemorySystem::lines_lost() const {
  return sum_tile_caches([](const TileCache& cache) { return cache.lines_lost(); });
}

void CoherentMemorySystem::add_statistics() {
  auto stat = [this](const std::string& local, const char* unit, const std::string& doc, std::function<double()> value,
                     bool integral = true) {
    statistics_.push_back(std::make_unique<DerivedStatistic>(child_name(*this, local), unit, doc, std::move(value), integral));
  };
  for (unsigned tile = 0; tile < geometry_.tiles; ++tile) {
    const coherence::L1Controller* l1 = l1s_[tile].get();
    const std::string prefix = "l1_" + std::to_string(tile) + ".";
    const coherence::L1Statistics& s = l1->statistics();
    stat(prefix + "load_hits", "", "loads that hit", [&s] { return s.load_hits; });
    stat(prefix + "load_misses", "", "loads that missed", [&s] { return s.load_misses; });
    stat(prefix + "store_hits", "", "stores that hit (line writable)", [&s] { return s.store_hits; });
    stat(prefix + "store_misses", "", "stores that missed or needed write permission", [&s] { return s.store_misses; });
    stat(prefix + "atomic_hits", "", "atomics/SC whose line was writable", [&s] { return s.atomic_hits; });
    stat(prefix + "atomic_misses", "", "atomics/SC that had to get the line writable", [&s] { return s.atomic_misses; });
    stat(prefix + "upgrades", "", "write permission asked for a line held readable", [&s] { return s.upgrades; });
    stat(prefix + "evictions", "", "lines replaced to make room", [&s] { return s.evictions; });
    stat(prefix + "writebacks", "", "replacements carrying dirty data", [&s] { return s.writebacks; });
    stat(prefix + "invalidations", "", "invalidations received", [&s] { return s.invalidations_received; });
    stat(prefix + "interventions", "", "interventions (forwarded requests) received", [&s] { return s.interventions_received; });
    stat(prefix + "synchronisations", "", "fences, AMOs, LRs and SCs the L1 acted on (NSI self-invalidates; MESI counts none)",
         [&s] { return s.synchronisations; });
    stat(prefix + "periodic_synchronisations", "", "periodic (timed) self-invalidations (NSI)",
         [&s] { return s.periodic_synchronisations; });
    stat(prefix + "suspect_lines_created", "", "SHD lines turned suspect (SUS) by synchronisations (NSI)",
         [&s] { return s.suspect_lines_created; });
    stat(prefix + "suspect_validated_current", "", "loads on SUS lines the home confirmed current (NSI: a hit)",
         [&s] { return s.suspect_validated_current; });
    stat(prefix + "suspect_validated_stale", "", "loads on SUS lines that were stale (NSI: a miss)",
         [&s] { return s.suspect_validated_stale; });
    stat(prefix + "suspect_dropped_unread", "", "SUS lines evicted or written without being read (NSI)",
         [&s] { return s.suspect_dropped_unread; });
    stat(prefix + "miss_rate", "", "misses / accesses (loads, stores, atomics)", [&s] {
      const double misses = static_cast<double>(s.load_misses + s.store_misses + s.atomic_misses);
      const double all = misses + static_cast<double>(s.load_hits + s.store_hits + s.atomic_hits);
      return all > 0 ? misses / all : 0.0;
    }, false);
    const coherence::HomeController* home = homes_[tile].get();
    const std::string bank = "llc_" + std::to_string(tile) + ".";
    const coherence::HomeStatistics& h = home->statistics();
    stat(bank + "hits", "", "requests served from the LLC bank", [&h] { return h.hits; });
    stat(bank + "misses", "", "requests that needed memory", [&h] { return h.misses; });
    stat(bank + "recalls", "", "LLC evictions of lines cached in L1s (inclusion)", [&h] { return h.recalls; });
    stat(bank + "evictions", "", "lines the LLC bank replaced to make room", [&h] { return h.evictions; });
    stat(bank + "memory_reads", "", "lines read from memory", [&h] { return h.memory_reads; });
    stat(bank + "memory_writes", "", "lines written to memory", [&h] { return h.memory_writes; });
    stat(bank + "invalidations_sent", "", "invalidations sent to sharers", [&h] { return h.invalidations_sent; });
    stat(bank + "interventions_sent", "", "requests forwarded to an owner L1", [&h] { return h.interventions_sent; });
    stat(bank + "messages", "", "messages received by the bank", [this, tile] { return home_messages_[tile]; });
    stat(bank + "miss_rate", "", "misses / (hits + misses)", [&h] {
      const double all = static_cast<double>(h.hits + h.misses);
      return all > 0 ? static_cast<double>(h.misses) / all : 0.0;
    }, false);
  }
  auto sum_l1 = [this](std::uint64_t coherence::L1Statistics::*field) {
    return [this, field] {
      std::uint64_t total = 0;
      for (const auto& l1 : l1s_) total += l1->statistics().*field;
      return static_cast<double>(total);
    };
  };
  auto sum_home = [this](std::uint64_t coherence::HomeStatistics::*field) {
    return [this, field] {
      std::uint64_t total = 0;
      for (const auto& home : homes_) total += home->statistics().*field;
      return static_cast<double>(total);
    };
  };
  using L1S = coherence::L1Statistics;
  using HS = coherence::HomeStatistics;
  stat("l1.load_hits", "", "all L1s", sum_l1(&L1S::load_hits));
  stat("l1.load_misses", "", "all L1s", sum_l1(&L1S::load_misses));
  stat("l1.store_hits", "", "all L1s", sum_l1(&L1S::store_hits));
  stat("l1.store_misses", "", "all L1s", sum_l1(&L1S::store_misses));
  stat("l1.atomic_misses", "", "all L1s", sum_l1(&L1S::atomic_misses));
  stat("l1.upgrades", "", "all L1s", sum_l1(&L1S::upgrades));
  stat("l1.evictions", "", "all L1s", sum_l1(&L1S::evictions));
  stat("l1.writebacks", "", "all L1s", sum_l1(&L1S::writebacks));
  stat("l1.invalidations", "", "all L1s: invalidations received", sum_l1(&L1S::invalidations_received));
  stat("l1.interventions", "", "all L1s: interventions received", sum_l1(&L1S::interventions_received));
  stat("l1.synchronisations", "", "all L1s (NSI)", sum_l1(&L1S::synchronisations));
  stat("l1.periodic_synchronisations", "", "all L1s (NSI)", sum_l1(&L1S::periodic_synchronisations));
  stat("l1.suspect_lines_created", "", "all L1s (NSI)", sum_l1(&L1S::suspect_lines_created));
  stat("l1.suspect_validated_current", "", "all L1s (NSI)", sum_l1(&L1S::suspect_validated_current));
  stat("l1.suspect_validated_stale", "", "all L1s (NSI)", sum_l1(&L1S::suspect_validated_stale));
  stat("l1.suspect_dropped_unread", "", "all L1s (NSI)", sum_l1(&L1S::suspect_dropped_unread));
  stat("l1.speculated_loads", "", "all harts: loads charged as hits because the L1 speculated correctly (NSI)",
       [this] { return static_cast<double>(speculated_loads()); });
  stat("l1.speculation_cycles_saved", "cycles",
       "all harts: core cycles those loads waited beyond the L1 latency and were not charged",
       [this] { return static_cast<double>(speculation_cycles_saved()); });
  stat("express_messages", "", "messages carried at once (express requests and what they caused; docs/cluster.md)",
       [this] { return static_cast<double>(express_messages_); });
  stat("l1.miss_rate", "", "all L1s: misses / accesses", [this] {
    double misses = 0, all = 0;
    for (const auto& l1 : l1s_) {
      const auto& s = l1->statistics();
      misses += static_cast<double>(s.load_misses + s.store_misses + s.atomic_misses);
      all += static_cast<double>(s.load_misses + s.store_misses + s.atomic_misses + s.load_hits + s.store_hits +
                                 s.atomic_hits);
    }
    return all > 0 ? misses / all : 0.0;
  }, false);
  stat("l1.miss_stall_cycles", "cycles", "all harts: core cycles spent waiting for L1 misses", [this] {
    std::uint64_t total = 0;
    for (const auto& cache : tile_caches_)
      if (cache) total += cache->stall_cycles;
    return static_cast<double>(total);
  });
  stat("llc.hits", "", "all LLC banks", sum_home(&HS::hits));
  stat("llc.misses", "", "all LLC banks", sum_home(&HS::misses));
  stat("llc.recalls", "", "all LLC banks", sum_home(&HS::recalls));
  stat("llc.evictions", "", "all LLC banks", sum_home(&HS::evictions));
  stat("llc.invalidations_sent", "", "all LLC banks", sum_home(&HS::invalidations_sent));
  stat("llc.interventions_sent", "", "all LLC banks", sum_home(&HS::interventions_sent));
  stat("ddr.reads", "", "lines read from DDR by the memory controllers", [this] { return memory_reads_; });
  stat("ddr.writes", "", "lines written to DDR by the memory controllers", [this] { return memory_writes_; });
  stat("icache.misses", "", "instruction-cache misses, all tiles", [this] {
    std::uint64_t total = 0;
    for (const auto& cache : instruction_caches_)
      if (cache) total += cache->misses();
    return static_cast<double>(total);
  });
}

}  // namespace npuvp
