// CoherentMemorySystem: the SystemC side of the mesh cluster's coherent
// memory (docs/cluster.md). For the protocol named by `<mesh>.coherence`
// (default "mesi"; a name the protocol registry does not know is a
// ConfigError listing the known ones) it builds one L1Controller per tile,
// one HomeController per tile (its S-NUCA LLC bank: the total LLC size /
// tiles) and the memory controllers of the mesh's edge, and carries every
// protocol message over the MeshNetwork (node = tile or memory controller,
// port = coherence::Port, vnet = Message::vnet, a line-sized payload when the
// message has data). It is the controllers' Environment and MemoryBackend,
// and each hart's DataCache. Its parts, one file each: the composition and
// the memory side (coherent_memory_system.cpp: parameters, controllers, line
// transfers, debug accesses, attaching harts and their instruction-fetch
// timing), the mesh transport and its scheduler (mesh_transport.cpp: the
// Environment), the per-hart adapter (tile_cache.h: TileCache, gem5's
// Sequencer role) and the statistics (cluster_statistics.cpp).
//
// Protocol parameters. Every registered protocol is instantiated
// (coherence::instantiate), its instance owning its parameters as real
// Parameters named `<mesh>.<protocol>.<name>` (e.g.
// `mesh.nsi.periodic_synchronisation_cycles`), so that `npuvp params` lists
// them all and a value for a protocol not chosen is accepted; the chosen
// instance builds the controllers from its own members. The
// `<mesh>.coherence` doc lists the protocols.
//
// Time. The cluster clock is the mesh clock (`<mesh>.clock`): Environment::
// now() is sc_time_stamp() in mesh cycles, except during a hart's access,
// when it is the hart's own local time (the hart runs ahead of SystemC time
// under temporal decoupling): a miss starts at the hart's time, its messages
// leave then (the network accepts future send times), and the hart waits in
// its SC_THREAD on an event the miss-completion handler notifies; the access
// then took (completion − the hart's time) cycles, except a load the L1
// reports as speculated correctly (NSI's suspect copy confirmed current):
// that costs the L1 latency, so the hart's timeline runs as if it had used
// its copy at once (docs/cluster.md, Time). Hits return the L1 latency
// and make no SystemC call. Express requests (NSI's validations,
// coherence::ExpressRequests) are carried at once when `<memory>.express`
// is on and the receiver will answer the request alone
// (Controller::answers_alone): the request and the replies to its sender are
// reserved on the mesh like any other message (MeshNetwork::
// transfer_in_order) and handed over right after the L1's access() call, in
// arrival-time order, with the controllers' time set to each arrival; a
// message whose (source, destination, vnet) still has one in flight goes
// through the mesh's timed delivery instead. The hart then waits on nothing:
// no SystemC event, no thread switch. Its access took (the completion's time
// − its own), as for a timed miss (docs/cluster.md, Express requests).
// schedule() keeps one time-ordered queue served by one SC_METHOD; messages wait in a slot pool (the MeshMessage carries the
// slot number), so neither costs a process or an allocation per event.
//
// Memory. The memory controllers read and write lines through `memory_socket`
// (bound to the ring at the mesh bridge's stop): b_transport with a delay
// annotation from an SC_METHOD, which is legal because nothing on that path
// waits (RingBus::b_transport and DdrController::b_transport compute their
// timing from reservations and never call wait()); the annotated delay is the
// access's latency. Debug accesses use transport_dbg.
//
// Instruction caches: timing only (the hart decodes an instruction from the
// coherent value, debug_access, after a fetch through DMI that sets the
// timing: Hart::fetch_raw). Each tile has tags (mem/instruction_cache.h); the hart's fetch
// observer (called when an instruction is decoded) looks the line up, and a
// miss costs the zero-load time of a line fill from the line's LLC bank
// (request, LLC latency, data). An eviction makes the hart decode that line
// again, so it misses again on its next use.
#pragma once

#include "coherence/coherence.h"
#include "coherence/extensions.h"
#include "coherence/protocol_registry.h"
#include "core/parameters.h"
#include "core/statistics.h"
#include "cpu/hart.h"
#include "mesh/mesh_network.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <vector>

namespace npuvp {

class InstructionCache;
class RiscvCpu;

class CoherentMemorySystem : public sc_core::sc_module,
                             private coherence::Environment,
                             private coherence::MemoryBackend {
 public:
  // Line transfers to DDR (bind to the ring, or directly to a memory).
  tlm_utils::simple_initiator_socket<CoherentMemorySystem> memory_socket;

  Parameter<std::string> protocol;  // <mesh>.coherence
  Parameter<std::uint64_t> line_size;
  Parameter<std::uint64_t> l1_size, l1_ways, l1_latency;
  Parameter<std::uint64_t> llc_size, llc_ways, llc_latency;
  Parameter<bool> express;  // carry express requests at once
  Parameter<bool> instruction_cache;
  Parameter<std::uint64_t> instruction_cache_size, instruction_cache_ways;
  // Every registered protocol set up with its parameters (`<mesh>.<protocol>.<name>`).
  std::vector<std::unique_ptr<coherence::ProtocolInstance>> protocols;

  // Attaches every controller to `network` (one L1 and one LLC bank per tile,
  // one memory controller per entry of its memory_controllers list, at least one).
  CoherentMemorySystem(sc_core::sc_module_name name, MeshNetwork& network);
  ~CoherentMemorySystem() override;

  unsigned tiles() const { return geometry_.tiles; }
  const coherence::Geometry& geometry() const { return geometry_; }
  const std::string& protocol_name() const { return protocol.get(); }

  // Connects tile `tile`'s hart: its data accesses to [start, start + size)
  // go to the tile's L1 (Hart::set_data_cache), a lost line drops its LR
  // reservation, and its fetches go through the tile's instruction cache.
  void attach_hart(unsigned tile, RiscvCpu& cpu, std::uint64_t start, std::uint64_t size);
  // Accesses in [start, start + size) bypass the caches and go to the hart's
  // bus (e.g. HTIF mailboxes overlaying DDR).
  void add_uncached_range(std::uint64_t start, std::uint64_t size);
  // With a timeline (--trace): the L1 misses to lines in [start, end) become
  // slices on their hart's "L1 misses" row (MeshCluster's trace_misses_*).
  void trace_misses(std::uint64_t start, std::uint64_t end) {
    traced_start_ = start;
    traced_size_ = end > start ? end - start : 0;
  }

  coherence::L1Controller& l1(unsigned tile) { return *l1s_.at(tile); }
  coherence::HomeController& home(unsigned tile) { return *homes_.at(tile); }
  // The coherent value of memory (an owner L1's copy, else the LLC's, else
  // memory's); a write updates every copy. For tests, loaders and debuggers.
  bool debug_access(bool write, std::uint64_t address, void* data, std::size_t size) override;
  // No controller has anything in flight.
  bool quiescent() const;

  // Statistics a test can read directly (also exported by name).
  std::uint64_t l1_misses() const;
  std::uint64_t l1_hits() const;
  std::uint64_t lines_lost() const;
  // Loads charged as hits because the L1 speculated correctly (NSI), and the
  // core cycles they did not charge (waited − L1 latency).
  std::uint64_t speculated_loads() const;
  std::uint64_t speculation_cycles_saved() const;

 private:
  class TileCache;  // tile_cache.h
  static constexpr unsigned kPorts = 3;  // coherence::Port values per mesh node
  std::uint64_t traced_start_ = 0, traced_size_ = 0;  // trace_misses()
  bool miss_traced(std::uint64_t address) const { return address - traced_start_ < traced_size_; }
  using Ticks = sc_core::sc_time::value_type;
  struct Scheduled {
    Ticks time;
    std::uint64_t sequence;
    std::uint32_t slot;
    bool operator>(const Scheduled& other) const {
      return time != other.time ? time > other.time : sequence > other.sequence;
    }
  };

  // coherence::Environment
  coherence::Cycles now() const override;
  void send(const coherence::Message& message, coherence::Cycles delay) override;
  void schedule(coherence::Cycles delay, std::function<void()> action) override;
  // coherence::MemoryBackend
  coherence::Cycles read_line(std::uint64_t line, std::uint8_t* data, unsigned bytes, bool& ok) override;
  coherence::Cycles write_line(std::uint64_t line, const std::uint8_t* data, unsigned bytes, bool& ok) override;
  coherence::Cycles memory_transfer(bool write, std::uint64_t line, std::uint8_t* data, unsigned bytes, bool& ok);

  void instantiate_protocols(const MeshNetwork& network);
  void build_controllers();
  void deliver(MeshMessage& message);
  // Hands the message in `slot` to the controller at (node, port).
  void deliver(unsigned node, unsigned port, std::uint32_t slot);
  // Delivers the express messages queued during a hart's access, and what
  // they cause, in (arrival, send) order. Called after every access.
  void carry_express() {
    if (!express_.empty()) carry_queued_express();
  }
  void carry_queued_express();
  bool queued_express_like(const MeshMessage& message) const;
  void run_scheduled();
  // The mesh's type of a protocol message type, registered with the mesh
  // at its first use (so that only types sent appear in the statistics).
  unsigned mesh_type(unsigned protocol_type) {
    if (protocol_type < mesh_types_.size() && mesh_types_[protocol_type] >= 0)
      return static_cast<unsigned>(mesh_types_[protocol_type]);
    return register_mesh_type(protocol_type);
  }
  unsigned register_mesh_type(unsigned protocol_type);
  // The time the controllers live in: SystemC time, or a hart's local time during its access.
  Ticks base_ticks() const {
    const Ticks now = sc_core::sc_get_curr_simcontext()->time_stamp().value();
    return access_ticks_ > now ? access_ticks_ : now;
  }
  void add_statistics();
  // The counters of every registered protocol (Protocol::l1_counters), each name once.
  static std::vector<coherence::CounterDeclaration> protocol_counters();
  // Tile `tile`'s L1's counter `name`, or null when its protocol has none.
  const std::uint64_t* protocol_counter(unsigned tile, const std::string& name) const;
  // An L1's request it wants carried at once (coherence::ExpressRequests).
  bool express_request(const coherence::Message& message) const;
  // The sum of `value` over the harts' tile caches (those attached).
  std::uint64_t sum_tile_caches(std::uint64_t (*value)(const TileCache&)) const;
  void ignore_dmi_invalidation(sc_dt::uint64, sc_dt::uint64) {}

  MeshNetwork& network_;
  coherence::Geometry geometry_;
  Ticks period_ticks_ = 1;  // one cluster (mesh) cycle
  // While a hart calls its L1: the hart's time (also handed to an L1 that
  // wants it, coherence::TimedAccesses, so that a deadline on core accesses is
  // reached in the core's time); while carrying express messages: the
  // arrival of the one handled; else 0.
  std::uint64_t access_ticks_ = 0;

  std::vector<std::unique_ptr<coherence::L1Controller>> l1s_;
  std::vector<std::unique_ptr<coherence::HomeController>> homes_;
  std::vector<std::unique_ptr<coherence::Controller>> memory_controllers_;
  std::vector<coherence::Controller*> receivers_;  // node * 3 + port
  std::vector<const coherence::ExpressRequests*> express_l1s_;  // per tile: its L1's, or null
  std::vector<std::unique_ptr<TileCache>> tile_caches_;
  std::vector<std::unique_ptr<InstructionCache>> instruction_caches_;
  std::function<std::string(unsigned)> message_name_;

  // Messages in flight: the MeshMessage carries the slot. A deque keeps a
  // delivered message in place while its receiver sends more.
  std::deque<coherence::Message> message_slots_;
  std::vector<std::uint32_t> free_message_slots_;
  std::vector<int> mesh_types_;  // protocol message type -> mesh type (-1: not registered yet)

  // Express messages reserved on the mesh and waiting for carry_express(),
  // with their MeshMessage (node, port, vnet). A handful at a time.
  struct Express {
    Ticks time;
    std::uint64_t sequence;
    MeshMessage message;  // tag = slot in message_slots_
  };
  std::vector<Express> express_;
  std::uint64_t express_sequence_ = 0, express_messages_ = 0;
  bool express_enabled_ = true;  // the express parameter, read once
  int answering_ = -1;  // carrying an express request: its sender's node (its replies join); else -1

  // schedule(): one SC_METHOD over a time-ordered queue.
  std::priority_queue<Scheduled, std::vector<Scheduled>, std::greater<Scheduled>> scheduled_;
  std::vector<std::function<void()>> action_slots_;
  std::vector<std::uint32_t> free_action_slots_;
  std::uint64_t next_sequence_ = 0;
  sc_core::sc_event scheduled_event_;

  tlm::tlm_generic_payload payload_;  // memory transfers, reused
  std::vector<std::pair<std::uint64_t, std::uint64_t>> uncached_;  // [start, start + size)

  std::uint64_t memory_reads_ = 0, memory_writes_ = 0;
  std::vector<std::uint64_t> home_messages_;
  std::vector<std::unique_ptr<Statistic>> statistics_;
};

}  // namespace npuvp
