// The shared checks and error texts of the protocols' controllers.
#include "coherence/controller_support.h"
#include "coherence/table_driven_controller.h"

#include <sstream>
#include <stdexcept>

namespace npuvp::coherence {

void L1ControllerBase::check_access(std::uint64_t address, unsigned size) const {
  if ((size != 1 && size != 2 && size != 4 && size != 8) || (address & (size - 1)) != 0) {
    std::ostringstream text;
    text << name() << ": misaligned or bad-sized access of " << size << " bytes at 0x" << std::hex << address;
    throw std::invalid_argument(text.str());
  }
  if (pending_.active) throw ProtocolError(name() + ": access while a miss is outstanding (one per L1)");
}

std::string L1ControllerBase::failure_cause(const Message* message, std::string (*message_name)(unsigned)) const {
  if (message) return "message " + message_name(message->type) + " from node " + std::to_string(message->source);
  if (!pending_.active) return {};
  static const char* const kinds[] = {"load", "store", "make-writable"};
  std::ostringstream text;
  text << "core " << kinds[static_cast<int>(pending_.kind)] << " of " << pending_.size << " bytes at 0x" << std::hex
       << pending_.address;
  return text.str();
}

void check_tile(const Controller& controller, unsigned tile, const Geometry& geometry, unsigned max_tiles) {
  if (tile >= geometry.tiles || (max_tiles != 0 && geometry.tiles > max_tiles))
    throw std::invalid_argument(controller.name() + ": tile out of range (tiles " + std::to_string(geometry.tiles) +
                                (max_tiles != 0 ? ", at most " + std::to_string(max_tiles) + " for the sharer mask)"
                                                : std::string(")")));
}

void check_addressed_to_l1(const Controller& controller, unsigned tile, const Message& message,
                           std::string (*message_name)(unsigned)) {
  if (message.destination_port != Port::kL1 || message.destination != tile)
    throw ProtocolError(controller.name() + ": message " + message_name(message.type) + " addressed to node " +
                        std::to_string(message.destination) + " delivered here");
}

void check_addressed_to_home(const Controller& controller, unsigned tile, const Geometry& geometry,
                             const Message& message, std::string (*message_name)(unsigned)) {
  if (message.destination_port != Port::kHome || message.destination != tile ||
      geometry.home_of(message.line) != tile || geometry.line_of(message.line) != message.line) {
    std::ostringstream text;
    text << controller.name() << ": message " << message_name(message.type) << " for line 0x" << std::hex << message.line
         << std::dec << " (home " << geometry.home_of(message.line) << ") addressed to node " << message.destination
         << " delivered here";
    throw ProtocolError(text.str());
  }
}

void throw_unexpected_message(const std::string& controller, const Message& message,
                              std::string (*message_name)(unsigned), Cycles now) {
  std::ostringstream text;
  text << controller << ": unexpected message " << message_name(message.type) << " from node " << message.source
       << ", line 0x" << std::hex << message.line << std::dec << ", cycle " << now;
  throw ProtocolError(text.str());
}

}  // namespace npuvp::coherence
