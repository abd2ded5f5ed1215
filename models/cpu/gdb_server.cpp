#include "cpu/gdb_server.h"

#include "core/simulation.h"
#include "core/text.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <sstream>

namespace npuvp {

const char* csr_name(std::uint16_t csr);  // csr.cpp

namespace gdb {

std::uint8_t checksum(std::string_view payload) {
  unsigned sum = 0;
  for (char c : payload) sum += static_cast<unsigned char>(c);
  return static_cast<std::uint8_t>(sum);
}

std::string escape(std::string_view data) {
  std::string out;
  out.reserve(data.size());
  for (char c : data) {
    if (c == '$' || c == '#' || c == '}' || c == '*') {
      out += '}';
      out += static_cast<char>(c ^ 0x20);
    } else {
      out += c;
    }
  }
  return out;
}

std::string frame(std::string_view payload) {
  std::string body = escape(payload);
  static const char kDigits[] = "0123456789abcdef";
  std::uint8_t sum = checksum(body);
  std::string out = "$" + body + "#";
  out += kDigits[sum >> 4];
  out += kDigits[sum & 15];
  return out;
}

bool unescape(std::string_view escaped, std::string& out) {
  out.clear();
  for (std::size_t i = 0; i < escaped.size(); ++i) {
    if (escaped[i] != '}') {
      out += escaped[i];
      continue;
    }
    if (++i == escaped.size()) return false;
    out += static_cast<char>(escaped[i] ^ 0x20);
  }
  return true;
}

std::string to_hex(const void* data, std::size_t size) {
  static const char kDigits[] = "0123456789abcdef";
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  std::string out;
  out.reserve(size * 2);
  for (std::size_t i = 0; i < size; ++i) {
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 15];
  }
  return out;
}

std::string to_hex(std::string_view text) { return to_hex(text.data(), text.size()); }

namespace {
int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A hex number (addresses, lengths, register numbers); false when empty or malformed.
bool parse_number(std::string_view text, std::uint64_t& value) {
  if (text.empty() || text.size() > 16) return false;
  value = 0;
  for (char c : text) {
    int digit = hex_digit(c);
    if (digit < 0) return false;
    value = (value << 4) | static_cast<unsigned>(digit);
  }
  return true;
}
}  // namespace

bool from_hex(std::string_view hex, std::vector<std::uint8_t>& bytes) {
  bytes.clear();
  if (hex.size() % 2) return false;
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    int high = hex_digit(hex[i]), low = hex_digit(hex[i + 1]);
    if (high < 0 || low < 0) return false;
    bytes.push_back(static_cast<std::uint8_t>(high << 4 | low));
  }
  return true;
}

std::string register_hex(std::uint64_t value, unsigned bytes) { return to_hex(&value, bytes); }  // little-endian host

bool parse_register_hex(std::string_view hex, unsigned bytes, std::uint64_t& value) {
  std::vector<std::uint8_t> data;
  if (hex.size() != bytes * 2 || !from_hex(hex, data)) return false;
  value = 0;
  std::memcpy(&value, data.data(), bytes);
  return true;
}

PacketReader::Event PacketReader::feed(char byte) {
  switch (state_) {
    case State::kIdle:
      if (byte == '$') {
        payload_.clear();
        sum_ = 0;
        state_ = State::kPayload;
      } else if (byte == 0x03) {
        return Event::kInterrupt;
      }
      return Event::kNone;  // '+', '-' and noise between packets
    case State::kPayload:
      if (byte == '#') {
        state_ = State::kChecksumHigh;
      } else {
        payload_ += byte;
        sum_ = static_cast<std::uint8_t>(sum_ + static_cast<unsigned char>(byte));
      }
      return Event::kNone;
    case State::kChecksumHigh: {
      int digit = hex_digit(byte);
      received_ = static_cast<std::uint8_t>((digit < 0 ? 0 : digit) << 4);
      state_ = digit < 0 ? State::kIdle : State::kChecksumLow;
      return digit < 0 ? Event::kBadChecksum : Event::kNone;
    }
    case State::kChecksumLow: {
      int digit = hex_digit(byte);
      state_ = State::kIdle;
      if (digit < 0 || static_cast<std::uint8_t>(received_ | digit) != sum_) return Event::kBadChecksum;
      return Event::kPacket;
    }
  }
  return Event::kNone;
}

}  // namespace gdb

namespace {
constexpr unsigned kPcRegister = 32, kFirstFpRegister = 33, kFirstCsrRegister = 65;
constexpr unsigned kCsrCount = 4096;
const std::chrono::milliseconds kPollInterval(20);  // host time between looks for Ctrl-C while running

std::string hex_number(std::uint64_t value) {
  char text[20];
  std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(value));
  return text;
}

std::string error_reply(int code) {
  char text[4];
  std::snprintf(text, sizeof text, "E%02x", code & 0xff);
  return text;
}
}  // namespace

GdbServer::GdbServer(unsigned port, bool wait_for_attach) : wait_for_attach_(wait_for_attach) {
  if (port > 65535) throw ConfigError("--gdb: port " + std::to_string(port) + " is not a TCP port (0..65535)");
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw ConfigError(std::string("--gdb: cannot create a socket: ") + std::strerror(errno));
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(listen_fd_, 1) != 0) {
    std::string reason = std::strerror(errno);
    ::close(listen_fd_);
    throw ConfigError("--gdb: cannot listen on 127.0.0.1:" + std::to_string(port) + ": " + reason);
  }
  socklen_t length = sizeof address;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length);
  port_ = ntohs(address.sin_port);
  std::cerr << "npuvp: gdb server listening on 127.0.0.1:" << port_
            << (wait_for_attach_ ? " (waiting for gdb to attach before the first instruction)" : "") << std::endl;
  for (unsigned number = 0; number < kCsrCount; ++number)
    if (csr_name(static_cast<std::uint16_t>(number))) csrs_.push_back(static_cast<std::uint16_t>(number));
  next_poll_ = std::chrono::steady_clock::now();
}

GdbServer::~GdbServer() {
  if (client_fd_ >= 0) ::close(client_fd_);
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

void GdbServer::add_core(const std::string& name, RiscvCpu& cpu) {
  cpu.set_debugger(this, static_cast<unsigned>(cores_.size()));
  cores_.push_back(Core{name, &cpu});
}

bool GdbServer::listed(unsigned core) const { return core < cores_.size() && !cores_[core].cpu->held_in_reset(); }

// ---------------------------------------------------------------- connection

void GdbServer::accept_connection(bool blocking) {
  while (client_fd_ < 0) {
    pollfd watch{listen_fd_, POLLIN, 0};
    int ready = ::poll(&watch, 1, blocking ? 200 : 0);
    if (ready > 0) {
      client_fd_ = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (client_fd_ >= 0) break;
    }
    if (!blocking) return;
    if (SimulationControl::interrupt_pending())
      simulation().fail_interrupted("while waiting for gdb to attach");
  }
  int one = 1;
  ::setsockopt(client_fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  ack_mode_ = true;
  reader_ = gdb::PacketReader();
  pending_input_.clear();
  general_thread_ = 0;
  running_ = false;
}

void GdbServer::close_connection() {
  if (client_fd_ >= 0) ::close(client_fd_);
  client_fd_ = -1;
  running_ = false;
}

void GdbServer::send(std::string_view payload) {
  std::string packet = gdb::frame(payload);
  std::size_t sent = 0;
  while (client_fd_ >= 0 && sent < packet.size()) {
    ssize_t count = ::send(client_fd_, packet.data() + sent, packet.size() - sent, MSG_NOSIGNAL);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) {
      close_connection();
      return;
    }
    sent += static_cast<std::size_t>(count);
  }
}

bool GdbServer::read_packet(std::string& packet) {
  for (;;) {
    while (!pending_input_.empty()) {
      char byte = pending_input_.front();
      pending_input_.erase(0, 1);
      switch (reader_.feed(byte)) {
        case gdb::PacketReader::Event::kPacket:
          if (ack_mode_) ::send(client_fd_, "+", 1, MSG_NOSIGNAL);
          packet = reader_.packet();
          return true;
        case gdb::PacketReader::Event::kBadChecksum:
          if (ack_mode_) ::send(client_fd_, "-", 1, MSG_NOSIGNAL);
          break;
        default:
          break;  // Ctrl-C while already stopped: nothing to do
      }
    }
    if (client_fd_ < 0) return false;
    pollfd watch{client_fd_, POLLIN, 0};
    int ready = ::poll(&watch, 1, 200);
    if (ready == 0) {
      if (SimulationControl::interrupt_pending())
        simulation().fail_interrupted("while stopped in gdb");
      continue;
    }
    char buffer[4096];
    ssize_t count = ready > 0 ? ::recv(client_fd_, buffer, sizeof buffer, 0) : -1;
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) {
      close_connection();
      return false;
    }
    pending_input_.append(buffer, static_cast<std::size_t>(count));
  }
}

bool GdbServer::poll_due() {
  auto now = std::chrono::steady_clock::now();
  if (now < next_poll_) return false;
  next_poll_ = now + kPollInterval;
  return true;
}

bool GdbServer::check_while_running() {
  if (client_fd_ < 0) {
    accept_connection(false);
    return client_fd_ >= 0;  // a debugger attached: stop so it can look
  }
  char buffer[256];
  for (;;) {
    ssize_t count = ::recv(client_fd_, buffer, sizeof buffer, MSG_DONTWAIT);
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) return false;  // nothing pending
    if (count == 0) {  // gdb went away: run on without it
      detach();
      return false;
    }
    bool interrupt = false;
    for (ssize_t i = 0; i < count; ++i) {
      if (reader_.feed(buffer[i]) == gdb::PacketReader::Event::kInterrupt) interrupt = true;
    }
    if (interrupt) return true;
  }
}

// ---------------------------------------------------------------- core hooks

void GdbServer::core_started(RiscvCpu& cpu, unsigned id) {
  if (started_) return;
  started_ = true;
  if (!wait_for_attach_) return;
  auto waiting_since = std::chrono::steady_clock::now();
  accept_connection(true);
  simulation().exclude_wall_time(std::chrono::steady_clock::now() - waiting_since);
  // The first listed core is the one gdb sees first, whichever thread got here.
  unsigned first = 0;
  while (first < cores_.size() && !listed(first)) ++first;
  if (first == cores_.size()) first = id;
  last_stop_ = Stop{Signal::kTrap, ""};
  stop_and_serve(first, last_stop_);
}

void GdbServer::batch_ended(RiscvCpu& cpu, unsigned id) {
  if (simulation().finished()) return;
  Core& core = cores_[id];
  Hart& hart = cpu.hart();
  Stop stop;
  switch (hart.debug_stop()) {
    case Hart::DebugStop::kNone:
      if (core.stepping && hart.executed() != core.step_start) break;
      if (!poll_due() || !check_while_running()) return;
      stop.signal = Signal::kInterrupt;
      break;
    case Hart::DebugStop::kSoftwareBreakpoint: stop.reason = "swbreak:;"; break;
    case Hart::DebugStop::kHardwareBreakpoint: stop.reason = "hwbreak:;"; break;
    case Hart::DebugStop::kWatchWrite: stop.reason = "watch:" + hex_number(hart.debug_stop_address()) + ";"; break;
    case Hart::DebugStop::kWatchRead: stop.reason = "rwatch:" + hex_number(hart.debug_stop_address()) + ";"; break;
    case Hart::DebugStop::kWatchAccess: stop.reason = "awatch:" + hex_number(hart.debug_stop_address()) + ";"; break;
  }
  if (client_fd_ < 0) {  // a stop for a debugger that left
    hart.resume_from_debug_stop();
    return;
  }
  stop_and_serve(id, stop);
}

void GdbServer::stop_and_serve(unsigned core, const Stop& stop) {
  auto stopped_at = std::chrono::steady_clock::now();
  for (auto& each : cores_) {
    each.stepping = false;
    each.cpu->set_single_step(false);
  }
  stopped_core_ = core;
  last_stop_ = stop;
  if (running_) {
    running_ = false;
    send(stop_reply());
  }
  std::string packet;
  Outcome outcome = Outcome::kStayStopped;
  while (outcome == Outcome::kStayStopped) {
    if (!read_packet(packet)) {
      outcome = Outcome::kDetach;
      break;
    }
    outcome = handle(packet);
  }
  if (outcome == Outcome::kDetach) detach();
  simulation().exclude_wall_time(std::chrono::steady_clock::now() - stopped_at);
  if (killed_) simulation().fail(ExitStatus::kInterrupted, "killed by gdb");
}

void GdbServer::detach() {
  for (auto& core : cores_) {
    core.cpu->hart().remove_debug_points();
    core.stepping = false;
    core.cpu->set_single_step(false);
  }
  close_connection();
}

void GdbServer::simulation_ended(bool guest_exited, int exit_code, const std::string& reason) {
  if (client_fd_ < 0) return;
  if (running_) {
    if (guest_exited) {
      send("W" + gdb::register_hex(static_cast<std::uint8_t>(exit_code), 1));
    } else {
      send("O" + gdb::to_hex("npuvp: " + reason + "\n"));
      send("X09");  // SIGKILL: the run ended without a guest exit
    }
  }
  close_connection();
}

std::string GdbServer::stop_reply() const {
  std::ostringstream reply;
  reply << "T" << (static_cast<int>(last_stop_.signal) < 16 ? "0" : "") << std::hex << static_cast<int>(last_stop_.signal)
        << last_stop_.reason << "thread:" << thread_id(stopped_core_) << ";";
  return reply.str();
}

// ---------------------------------------------------------------- packets

GdbServer::Outcome GdbServer::handle(const std::string& packet) {
  std::string reply;
  if (packet.empty()) {
    send("");
    return Outcome::kStayStopped;
  }
  std::string_view arguments(packet);
  arguments.remove_prefix(1);
  switch (packet[0]) {
    case '?': reply = stop_reply(); break;
    case 'q':
    case 'Q':
      if (packet == "QStartNoAckMode") {  // acknowledged in the old mode, then none
        send("OK");
        ack_mode_ = false;
        return Outcome::kStayStopped;
      }
      reply = query(packet);
      break;
    case 'H': {
      int thread = parse_thread(arguments.substr(1));
      if (thread == -2) {
        reply = error_reply(1);
      } else {
        if (packet[1] == 'g') general_thread_ = thread;
        reply = "OK";  // Hc: vCont names its threads; plain c/s resume everyone
      }
      break;
    }
    case 'T': reply = parse_thread(arguments) > 0 ? "OK" : error_reply(1); break;
    case 'g': reply = read_registers(); break;
    case 'G': reply = write_registers(arguments); break;
    case 'p': {
      std::uint64_t number = 0;
      reply = gdb::parse_number(arguments, number) ? read_register(static_cast<unsigned>(number)) : error_reply(1);
      break;
    }
    case 'P': {
      auto equals = arguments.find('=');
      std::uint64_t number = 0;
      reply = equals != std::string_view::npos && gdb::parse_number(arguments.substr(0, equals), number)
                  ? write_register(static_cast<unsigned>(number), arguments.substr(equals + 1))
                  : error_reply(1);
      break;
    }
    case 'm': reply = read_memory(arguments); break;
    case 'M': reply = write_memory(arguments, false); break;
    case 'X': reply = write_memory(arguments, true); break;
    case 'Z': reply = breakpoint(arguments, true); break;
    case 'z': reply = breakpoint(arguments, false); break;
    case 'c':
    case 's':
    case 'v': {
      Outcome outcome = resume(packet, reply);
      if (outcome != Outcome::kStayStopped) return outcome;
      break;
    }
    case 'D':
      send("OK");
      return Outcome::kDetach;
    case 'k':
      killed_ = true;
      close_connection();
      return Outcome::kResume;
    default: break;  // unsupported: the empty reply
  }
  send(reply);
  return Outcome::kStayStopped;
}

std::string GdbServer::query(const std::string& packet) {
  auto starts = [&](const char* prefix) { return packet.rfind(prefix, 0) == 0; };
  if (starts("qSupported"))
    return "PacketSize=4000;qXfer:features:read+;swbreak+;hwbreak+;QStartNoAckMode+;vContSupported+";
  if (packet == "qAttached") return "1";
  if (packet == "qC") return "QC" + hex_number(thread_id(stopped_core_));
  if (packet == "qfThreadInfo") {
    std::string reply = "m";
    for (unsigned core = 0; core < cores_.size(); ++core) {
      if (!listed(core)) continue;
      if (reply.size() > 1) reply += ",";
      reply += hex_number(thread_id(core));
    }
    return reply;
  }
  if (packet == "qsThreadInfo") return "l";
  if (starts("qThreadExtraInfo,")) {
    int thread = parse_thread(std::string_view(packet).substr(17));
    if (thread <= 0) return error_reply(1);
    const Core& core = cores_[static_cast<unsigned>(thread - 1)];
    std::string state = core.cpu->sleeping() ? " (asleep in WFI)" : "";
    return gdb::to_hex(core.name + state);
  }
  if (starts("qXfer:features:read:target.xml:")) {
    std::string_view range = std::string_view(packet).substr(31);
    auto comma = range.find(',');
    std::uint64_t offset = 0, length = 0;
    if (comma == std::string_view::npos || !gdb::parse_number(range.substr(0, comma), offset) ||
        !gdb::parse_number(range.substr(comma + 1), length))
      return error_reply(1);
    std::string document = target_description();
    if (offset >= document.size()) return "l";
    std::string part = document.substr(offset, length);
    return (offset + part.size() >= document.size() ? "l" : "m") + part;
  }
  if (starts("qSymbol")) return "OK";
  return "";
}

// The target description: org.gnu.gdb.riscv.cpu (x0-x31, pc), .fpu (f0-f31,
// fflags, frm, fcsr) and .csr (the CSRs the hart implements). Register numbers
// follow gdb's own RISC-V numbering: CSR n is 65 + n.
std::string GdbServer::target_description() const {
  std::ostringstream xml;
  xml << "<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n<target version=\"1.0\">\n"
      << "<architecture>riscv:rv64</architecture>\n<feature name=\"org.gnu.gdb.riscv.cpu\">\n";
  for (unsigned i = 0; i < 32; ++i) {
    const char* type = i == 1 ? "code_ptr" : i == 2 || i == 8 ? "data_ptr" : "int";
    xml << "<reg name=\"" << register_name(i) << "\" bitsize=\"64\" type=\"" << type << "\" regnum=\"" << i << "\"/>\n";
  }
  xml << "<reg name=\"pc\" bitsize=\"64\" type=\"code_ptr\" regnum=\"" << kPcRegister << "\"/>\n</feature>\n"
      << "<feature name=\"org.gnu.gdb.riscv.fpu\">\n<union id=\"riscv_double\"><field name=\"float\" type=\"ieee_single\"/>"
      << "<field name=\"double\" type=\"ieee_double\"/></union>\n";
  for (unsigned i = 0; i < 32; ++i)
    xml << "<reg name=\"" << fp_register_name(i) << "\" bitsize=\"64\" type=\"riscv_double\" regnum=\""
        << kFirstFpRegister + i << "\"/>\n";
  for (std::uint16_t csr : csrs_)
    if (csr <= 3) xml << "<reg name=\"" << csr_name(csr) << "\" bitsize=\"32\" type=\"int\" regnum=\"" << kFirstCsrRegister + csr << "\"/>\n";
  xml << "</feature>\n<feature name=\"org.gnu.gdb.riscv.csr\">\n";
  for (std::uint16_t csr : csrs_)
    if (csr > 3)
      xml << "<reg name=\"" << csr_name(csr) << "\" bitsize=\"64\" type=\"int\" regnum=\"" << kFirstCsrRegister + csr
          << "\" group=\"csr\"/>\n";
  xml << "</feature>\n</target>\n";
  return xml.str();
}

int GdbServer::parse_thread(std::string_view text) const {
  if (text == "-1") return -1;
  if (text.rfind("p", 0) == 0) {  // multiprocess form pPID.TID
    auto dot = text.find('.');
    if (dot == std::string_view::npos) return -2;
    text = text.substr(dot + 1);
    if (text == "-1") return -1;
  }
  std::uint64_t value = 0;
  if (!gdb::parse_number(text, value)) return -2;
  if (value == 0) return 0;
  if (value > cores_.size() || !listed(static_cast<unsigned>(value - 1))) return -2;
  return static_cast<int>(value);
}

Hart& GdbServer::general_hart() {
  unsigned core = general_thread_ > 0 ? static_cast<unsigned>(general_thread_ - 1) : stopped_core_;
  return cores_[core].cpu->hart();
}

std::string GdbServer::read_registers() {
  Hart& hart = general_hart();
  std::string reply;
  for (unsigned i = 0; i < 32; ++i) reply += gdb::register_hex(i ? hart.x[i] : 0, 8);
  reply += gdb::register_hex(hart.pc, 8);
  return reply;
}

std::string GdbServer::write_registers(std::string_view hex) {
  Hart& hart = general_hart();
  if (hex.size() < 33 * 16) return error_reply(1);
  for (unsigned i = 0; i < 33; ++i) {
    std::uint64_t value = 0;
    if (!gdb::parse_register_hex(hex.substr(i * 16, 16), 8, value)) return error_reply(1);
    if (i == kPcRegister) hart.pc = value;
    else if (i) hart.x[i] = value;
  }
  return "OK";
}

std::string GdbServer::read_register(unsigned number) {
  Hart& hart = general_hart();
  if (number < 32) return gdb::register_hex(number ? hart.x[number] : 0, 8);
  if (number == kPcRegister) return gdb::register_hex(hart.pc, 8);
  if (number < kFirstCsrRegister) return gdb::register_hex(hart.f[number - kFirstFpRegister], 8);
  std::uint64_t value = 0;
  unsigned csr = number - kFirstCsrRegister;
  if (csr >= kCsrCount || !hart.debug_csr_read(static_cast<std::uint16_t>(csr), value)) return error_reply(1);
  return gdb::register_hex(value, csr <= 3 ? 4 : 8);
}

std::string GdbServer::write_register(unsigned number, std::string_view hex) {
  Hart& hart = general_hart();
  unsigned csr = number >= kFirstCsrRegister ? number - kFirstCsrRegister : kCsrCount;
  std::uint64_t value = 0;
  if (!gdb::parse_register_hex(hex, csr <= 3 ? 4 : 8, value)) return error_reply(1);
  if (number < 32) {
    if (number) hart.x[number] = value;
  } else if (number == kPcRegister) {
    hart.pc = value;
  } else if (number < kFirstCsrRegister) {
    hart.f[number - kFirstFpRegister] = value;
  } else if (csr >= kCsrCount || !hart.debug_csr_write(static_cast<std::uint16_t>(csr), value)) {
    return error_reply(1);
  }
  return "OK";
}

namespace {
// "ADDR,LENGTH" (then ':' and data for writes).
bool parse_address_length(std::string_view text, std::uint64_t& address, std::uint64_t& length) {
  auto comma = text.find(',');
  return comma != std::string_view::npos && gdb::parse_number(text.substr(0, comma), address) &&
         gdb::parse_number(text.substr(comma + 1), length);
}
}  // namespace

std::string GdbServer::read_memory(std::string_view arguments) {
  std::uint64_t address = 0, length = 0;
  if (!parse_address_length(arguments, address, length) || length > 0x2000) return error_reply(1);
  std::vector<std::uint8_t> data(length);
  Hart& hart = general_hart();
  // Byte by byte after a failure, so gdb gets what is readable (it reads across unmapped holes).
  if (!hart.debug_read(address, data.data(), length)) {
    std::size_t readable = 0;
    while (readable < length && hart.debug_read(address + readable, &data[readable], 1)) ++readable;
    if (readable == 0) return error_reply(14);  // EFAULT
    data.resize(readable);
  }
  return gdb::to_hex(data.data(), data.size());
}

std::string GdbServer::write_memory(std::string_view arguments, bool binary) {
  auto colon = arguments.find(':');
  std::uint64_t address = 0, length = 0;
  if (colon == std::string_view::npos || !parse_address_length(arguments.substr(0, colon), address, length))
    return error_reply(1);
  std::vector<std::uint8_t> data;
  if (binary) {
    std::string raw;
    if (!gdb::unescape(arguments.substr(colon + 1), raw)) return error_reply(1);
    data.assign(raw.begin(), raw.end());
  } else if (!gdb::from_hex(arguments.substr(colon + 1), data)) {
    return error_reply(1);
  }
  if (data.size() != length) return error_reply(1);
  if (length && !general_hart().debug_write(address, data.data(), length)) return error_reply(14);
  // Other cores may have decoded the old bytes as instructions.
  for (auto& core : cores_)
    if (length) core.cpu->hart().invalidate_decoded_range(address, length);
  return "OK";
}

std::string GdbServer::breakpoint(std::string_view arguments, bool insert) {
  // TYPE,ADDR,KIND
  if (arguments.size() < 2 || arguments[1] != ',') return error_reply(1);
  char type = arguments[0];
  std::string_view rest = arguments.substr(2);
  auto comma = rest.find(',');
  std::uint64_t address = 0, kind = 0;
  if (comma == std::string_view::npos || !gdb::parse_number(rest.substr(0, comma), address)) return error_reply(1);
  auto kind_text = rest.substr(comma + 1);
  kind_text = kind_text.substr(0, kind_text.find(';'));  // conditions (cond_list) are not supported
  if (!gdb::parse_number(kind_text, kind)) return error_reply(1);
  Hart::Watch watch = Hart::Watch::kWrite;
  switch (type) {
    case '0':
    case '1':
      for (auto& core : cores_) {
        if (insert) core.cpu->hart().insert_breakpoint(address, type == '1');
        else core.cpu->hart().remove_breakpoint(address);
      }
      return "OK";
    case '2': watch = Hart::Watch::kWrite; break;
    case '3': watch = Hart::Watch::kRead; break;
    case '4': watch = Hart::Watch::kAccess; break;
    default: return "";  // unsupported type
  }
  for (auto& core : cores_) {
    if (insert) core.cpu->hart().insert_watchpoint(address, kind, watch);
    else core.cpu->hart().remove_watchpoint(address, kind, watch);
  }
  return "OK";
}

// c, s, vCont?, vCont;ACTION[:THREAD]... and the other v packets.
GdbServer::Outcome GdbServer::resume(std::string_view packet, std::string& reply) {
  std::vector<bool> step(cores_.size(), false);
  if (packet[0] == 'c' || packet[0] == 's') {
    if (packet.size() > 1) {  // resume at ADDR
      std::uint64_t address = 0;
      if (!gdb::parse_number(packet.substr(1), address)) {
        reply = error_reply(1);
        return Outcome::kStayStopped;
      }
      general_hart().pc = address;
    }
    if (packet[0] == 's') step[general_thread_ > 0 ? static_cast<unsigned>(general_thread_ - 1) : stopped_core_] = true;
  } else if (packet == "vCont?") {
    reply = "vCont;c;C;s;S";
    return Outcome::kStayStopped;
  } else if (packet.rfind("vCont;", 0) == 0) {
    // Actions apply to the threads they name; the first action that matches
    // a thread wins. Threads without an action run on too (all-stop: the
    // simulation cannot hold one core while others run, see the docs).
    std::vector<bool> decided(cores_.size(), false);
    std::string_view actions = packet.substr(6);
    while (!actions.empty()) {
      auto end = actions.find(';');
      std::string_view action = actions.substr(0, end);
      actions = end == std::string_view::npos ? std::string_view() : actions.substr(end + 1);
      auto colon = action.find(':');
      std::string_view verb = action.substr(0, colon);
      int thread = colon == std::string_view::npos ? -1 : parse_thread(action.substr(colon + 1));
      if (verb.empty() || thread == -2) {
        reply = error_reply(1);
        return Outcome::kStayStopped;
      }
      bool stepping = verb[0] == 's' || verb[0] == 'S';
      if (!stepping && verb[0] != 'c' && verb[0] != 'C') {
        reply = error_reply(1);  // r (range step) and t (stop) are not offered
        return Outcome::kStayStopped;
      }
      for (unsigned core = 0; core < cores_.size(); ++core) {
        bool matches = thread == -1 || (thread == 0 && core == stopped_core_) ||
                       (thread > 0 && core == static_cast<unsigned>(thread - 1));
        if (!matches || decided[core]) continue;
        decided[core] = true;
        step[core] = stepping;
      }
    }
  } else if (packet.rfind("vKill", 0) == 0) {
    killed_ = true;
    send("OK");
    close_connection();
    return Outcome::kResume;
  } else {
    reply = "";  // vMustReplyEmpty and everything else we do not know
    return Outcome::kStayStopped;
  }
  for (unsigned core = 0; core < cores_.size(); ++core) {
    Core& entry = cores_[core];
    Hart& hart = entry.cpu->hart();
    if (hart.debug_stop() != Hart::DebugStop::kNone) hart.resume_from_debug_stop();
    entry.stepping = step[core];
    entry.step_start = hart.executed();
    entry.cpu->set_single_step(step[core]);
  }
  running_ = true;
  return Outcome::kResume;
}

}  // namespace npuvp
