#include "coherence/memory_controller.h"

#include <sstream>

namespace npuvp::coherence {

const char* memory_message_name(unsigned type) {
  switch (type) {
    case kMemoryRead: return "MemoryRead";
    case kMemoryWrite: return "MemoryWrite";
    case kMemoryData: return "MemoryData";
    default: return nullptr;
  }
}

MemoryController::MemoryController(unsigned index, const Geometry& geometry, Environment& environment,
                                   MemoryBackend& backend)
    : index_(index), node_(geometry.tiles + index), geometry_(geometry), environment_(environment), backend_(backend) {}

std::string MemoryController::name() const { return "memory controller " + std::to_string(index_); }

std::string MemoryController::describe(std::uint64_t) const { return "memory"; }

void MemoryController::serialize(std::string& out) const { out += "MC" + std::to_string(index_) + ";"; }

void MemoryController::handle(const Message& message) {
  const auto fail = [&](const std::string& why) {
    std::ostringstream text;
    text << name() << ": " << why << ", line 0x" << std::hex << message.line << std::dec << ", message type "
         << message.type << " from node " << message.source << ", cycle " << environment_.now();
    throw ProtocolError(text.str());
  };
  const Cycles now = environment_.now();
  const Cycles start = busy_until_ > now ? busy_until_ : now;
  bool ok = true;
  Cycles cycles = 0;
  if (message.type == kMemoryRead) {
    Message reply;
    reply.type = kMemoryData;
    reply.line = message.line;
    reply.source = node_;
    reply.source_port = Port::kMemory;
    reply.destination = message.source;
    reply.destination_port = Port::kHome;
    reply.requester = message.requester;
    reply.vnet = VirtualNetwork::kResponse;
    reply.has_data = true;
    cycles = backend_.read_line(message.line, reply.data.data(), geometry_.line_bytes, ok);
    if (!ok) fail("the line is not backed by memory");
    ++statistics_.reads;
    busy_until_ = start + cycles;
    environment_.send(reply, busy_until_ - now);
  } else if (message.type == kMemoryWrite) {
    if (!message.has_data) fail("a memory write without data");
    cycles = backend_.write_line(message.line, message.data.data(), geometry_.line_bytes, ok);
    if (!ok) fail("the line is not backed by memory");
    ++statistics_.writes;
    busy_until_ = start + cycles;
  } else {
    fail("unexpected message (a memory controller takes MemoryRead and MemoryWrite only)");
  }
  statistics_.busy_cycles += cycles;
}

}  // namespace npuvp::coherence
