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

std::unique_ptr<ProtocolInstance> instantiate(const Protocol& protocol, const std::string& prefix,
                                              const std::string& note) {
  if (protocol.make_instance) return protocol.make_instance(prefix, note);
  return std::make_unique<ProtocolInstance>(protocol.name, protocol.make_l1, protocol.make_home);
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
