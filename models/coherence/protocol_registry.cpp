#include "coherence/protocol_registry.h"

#include "coherence/mesi/mesi.h"
#include "coherence/msi/msi.h"
#include "coherence/nsi/nsi.h"

#include <stdexcept>

namespace npuvp::coherence {
namespace {

std::vector<Protocol>& protocols() {
  // Built-in protocols, listed here rather than registered by static
  // initialisers (which a static library would drop).
  static std::vector<Protocol> list{mesi::protocol(), nsi::protocol(), msi::protocol()};
  return list;
}

}  // namespace

std::vector<std::string> protocol_names() {
  std::vector<std::string> names;
  for (const Protocol& protocol : protocols()) names.push_back(protocol.name);
  return names;
}

const Protocol& find_protocol(const std::string& name) {
  for (const Protocol& protocol : protocols())
    if (protocol.name == name) return protocol;
  std::string known;
  for (const std::string& each : protocol_names()) known += (known.empty() ? "" : ", ") + each;
  throw std::invalid_argument("unknown coherence protocol '" + name + "' (known: " + known + ")");
}

std::unique_ptr<L1Controller> make_configured_l1(const Protocol& protocol, unsigned tile, const Geometry& geometry,
                                                 const CacheShape& shape, Environment& environment,
                                                 const ProtocolOptions& options) {
  for (const auto& [name, value] : options) {
    bool known = false;
    for (const ProtocolParameter& parameter : protocol.parameters) known |= parameter.name == name;
    if (!known) {
      std::string names;
      for (const ProtocolParameter& parameter : protocol.parameters)
        names += (names.empty() ? "" : ", ") + parameter.name;
      throw std::invalid_argument("coherence protocol '" + protocol.name + "' has no parameter '" + name +
                                  "' (its parameters: " + (names.empty() ? "none" : names) + ")");
    }
  }
  if (protocol.make_l1_with_options) return protocol.make_l1_with_options(tile, geometry, shape, environment, options);
  return protocol.make_l1(tile, geometry, shape, environment);
}

std::uint64_t option_value(const Protocol& protocol, const ProtocolOptions& options, const std::string& name) {
  const auto it = options.find(name);
  if (it != options.end()) return it->second;
  for (const ProtocolParameter& parameter : protocol.parameters)
    if (parameter.name == name) return parameter.default_value;
  throw std::invalid_argument("coherence protocol '" + protocol.name + "' has no parameter '" + name + "'");
}

void register_protocol(const Protocol& protocol) {
  if (protocol.name.empty() || !protocol.message_name || !protocol.make_l1 || !protocol.make_home ||
      !protocol.tables_markdown)
    throw std::invalid_argument("coherence protocol '" + protocol.name +
                                "': a protocol needs a name, message names, both factories and its tables");
  for (const Protocol& existing : protocols())
    if (existing.name == protocol.name)
      throw std::invalid_argument("coherence protocol '" + protocol.name + "' is already registered");
  protocols().push_back(protocol);
}

}  // namespace npuvp::coherence
