// GDB remote serial protocol server (`npuvp run ... --gdb PORT`): every core
// of a scenario is a thread of one inferior, debugged with gdb-multiarch in
// all-stop mode (docs/observability.md "Debugging with GDB").
//
// The whole SystemC simulation runs in one OS thread, so while gdb holds the
// target stopped the server simply does not return to the core that stopped:
// every other core and device waits with it and simulated time stands still.
// Cores call in only at their batch boundaries (RiscvCpu's CoreDebugger
// hooks): breakpoints live in the harts' decoded-instruction caches and
// watchpoints in their slow memory path, so an attached debugger costs
// nothing per instruction and no debugger costs one branch per batch.
#pragma once

#include "cpu/riscv_cpu.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace npuvp {

namespace gdb {

// ---- packet layer (framing, checksums, escaping, hex) ----

// Modulo-256 sum of the payload's characters, as the protocol defines it.
std::uint8_t checksum(std::string_view payload);
// "$payload#cc" with '$', '#', '}' and '*' escaped ('}' then the byte ^ 0x20).
std::string frame(std::string_view payload);
// Undoes the escaping of binary data (X packets). False on a dangling '}'.
bool unescape(std::string_view escaped, std::string& out);
std::string escape(std::string_view data);
std::string to_hex(const void* data, std::size_t size);
std::string to_hex(std::string_view text);
// Two hex digits per byte; false on an odd length or a non-hex character.
bool from_hex(std::string_view hex, std::vector<std::uint8_t>& bytes);
// A little-endian register value of `bytes` bytes as hex (the target's byte order).
std::string register_hex(std::uint64_t value, unsigned bytes);
bool parse_register_hex(std::string_view hex, unsigned bytes, std::uint64_t& value);

// Splits the byte stream from gdb into packets, acknowledgements and Ctrl-C.
class PacketReader {
 public:
  enum class Event {
    kNone,         // need more bytes
    kPacket,       // packet() holds a payload whose checksum matched
    kBadChecksum,  // a complete packet with a wrong checksum (answer '-')
    kInterrupt,    // 0x03 outside a packet
  };
  Event feed(char byte);
  const std::string& packet() const { return payload_; }

 private:
  enum class State { kIdle, kPayload, kChecksumHigh, kChecksumLow } state_ = State::kIdle;
  std::string payload_;
  std::uint8_t sum_ = 0, received_ = 0;
};

}  // namespace gdb

class GdbServer : public CoreDebugger {
 public:
  // Listens on 127.0.0.1:`port` (0: any free port, see port()). With
  // `wait_for_attach`, no core executes an instruction before gdb attached
  // and resumed; otherwise gdb may attach at any time (the run stops then).
  GdbServer(unsigned port, bool wait_for_attach);
  ~GdbServer() override;
  GdbServer(const GdbServer&) = delete;
  GdbServer& operator=(const GdbServer&) = delete;

  unsigned port() const { return port_; }
  // Makes `cpu` a thread named `name` (before simulation). Cores held in
  // reset for the whole run are not listed.
  void add_core(const std::string& name, RiscvCpu& cpu);
  // The run ended: an attached gdb that waits for a stop is told how (exit
  // code, or killed with the reason as console output) and the connection closes.
  void simulation_ended(bool guest_exited, int exit_code, const std::string& reason);

  // CoreDebugger
  void core_started(RiscvCpu& cpu, unsigned id) override;
  void batch_ended(RiscvCpu& cpu, unsigned id) override;

 private:
  struct Core {
    std::string name;
    RiscvCpu* cpu;
    bool stepping = false;
    std::uint64_t step_start = 0;  // instructions executed (incl. trapped) when the step began
  };
  enum class Signal : int { kInterrupt = 2, kTrap = 5 };
  struct Stop {
    Signal signal = Signal::kTrap;
    std::string reason;  // "swbreak:;", "watch:ADDR;", ...
  };
  enum class Outcome { kStayStopped, kResume, kDetach };

  void accept_connection(bool blocking);
  void close_connection();
  bool poll_due();
  // Non-blocking look at the socket while running: Ctrl-C, a disconnect,
  // or (when nobody is attached) a new connection. True when the run must stop.
  bool check_while_running();
  void stop_and_serve(unsigned core, const Stop& stop);
  Outcome handle(const std::string& packet);
  void send(std::string_view payload);
  bool read_packet(std::string& packet);  // blocking; false on disconnect
  std::string stop_reply() const;
  void resume_all(const std::vector<int>& step_threads, bool step_only);
  void detach();

  // Packet handlers.
  std::string query(const std::string& packet);
  std::string read_registers();
  std::string write_registers(std::string_view hex);
  std::string read_register(unsigned number);
  std::string write_register(unsigned number, std::string_view hex);
  std::string read_memory(std::string_view arguments);
  std::string write_memory(std::string_view arguments, bool binary);
  std::string breakpoint(std::string_view arguments, bool insert);
  Outcome resume(std::string_view packet, std::string& reply);
  std::string target_description() const;

  int thread_id(unsigned core) const { return static_cast<int>(core) + 1; }
  // A thread-id argument: -1 all, 0 any, else N; -2 when malformed or unknown.
  int parse_thread(std::string_view text) const;
  Hart& general_hart();
  bool listed(unsigned core) const;

  unsigned port_ = 0;
  bool wait_for_attach_;
  int listen_fd_ = -1, client_fd_ = -1;
  bool ack_mode_ = true;
  bool started_ = false;
  bool running_ = false;    // gdb waits for a stop reply
  bool killed_ = false;
  std::vector<Core> cores_;
  unsigned stopped_core_ = 0;  // the thread the last stop was reported for
  int general_thread_ = 0;     // Hg (0: the stopped thread)
  Stop last_stop_;
  gdb::PacketReader reader_;
  std::string pending_input_;
  std::chrono::steady_clock::time_point next_poll_;
  std::vector<std::uint16_t> csrs_;  // CSRs in the target description
};

}  // namespace npuvp
