// CoherentMemorySystem: its parameters, the controllers of the chosen
// protocol, the memory controllers' line transfers over TLM, debug accesses,
// and attaching the harts (their data caches, TileCache in tile_cache.h, and
// their instruction caches' timing). The transport is in mesh_transport.cpp,
// the statistics in cluster_statistics.cpp.
#include "cluster/coherent_memory_system.h"

#include "cluster/tile_cache.h"
#include "coherence/extensions.h"
#include "coherence/memory_controller.h"
#include "coherence/protocol_registry.h"
#include "core/simulation.h"
#include "cpu/riscv_cpu.h"
#include "mem/instruction_cache.h"

#include <algorithm>
#include <cstring>

namespace npuvp {

using coherence::Cycles;
using coherence::L1Controller;
using coherence::Message;
using coherence::Port;

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
  instantiate_protocols(network);
  build_controllers();
  add_statistics();
  SC_HAS_PROCESS(CoherentMemorySystem);
  SC_METHOD(run_scheduled);
  sensitive << scheduled_event_;
  dont_initialize();
}

CoherentMemorySystem::~CoherentMemorySystem() = default;

void CoherentMemorySystem::instantiate_protocols(const MeshNetwork& network) {
  for (const std::string& protocol_name : coherence::protocol_names())
    protocols.push_back(coherence::instantiate(coherence::find_protocol(protocol_name),
                                               child_name(network, protocol_name),
                                               " (used when " + protocol.name() + " = " + protocol_name + ")"));
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

  // The chosen protocol's instance: its parameters are its own members.
  const coherence::ProtocolInstance* instance = nullptr;
  for (const auto& each : protocols)
    if (each->name() == p.name) instance = each.get();

  period_ticks_ = std::max<Ticks>(1, network_.cycle().value());
  set_fine_per_cycle(period_ticks_);  // the harts' access times are in ticks
  const unsigned nodes = geometry_.tiles + geometry_.memory_controllers;
  receivers_.assign(nodes * kPorts, nullptr);
  for (unsigned tile = 0; tile < geometry_.tiles; ++tile) {
    coherence::Environment& environment = *this;
    try {
      l1s_.push_back(instance->make_l1(tile, geometry_, l1_shape, environment));
    } catch (const std::invalid_argument& error) {
      // A value or a shape the protocol rejects: name its parameters.
      std::string names;
      for (const ParameterBase* parameter : instance->parameters())
        names += (names.empty() ? "" : ", ") + parameter->name();
      throw ConfigError("coherence protocol '" + p.name + "' (parameters " + (names.empty() ? "none" : names) +
                        "): " + error.what());
    }
    homes_.push_back(instance->make_home(tile, geometry_, bank_shape, environment));
    receivers_[tile * kPorts + static_cast<unsigned>(Port::kL1)] = l1s_.back().get();
    express_l1s_.push_back(dynamic_cast<const coherence::ExpressRequests*>(l1s_.back().get()));
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

}  // namespace npuvp
