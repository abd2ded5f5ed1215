// A protocol set up for the random tester and the explorer: an instance of
// a registered protocol (protocol_registry.h) whose parameters take the
// values a test configuration names, e.g. {"periodic_synchronisation_cycles": 0}.
#pragma once

#include "coherence/protocol_registry.h"
#include "core/parameters.h"

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

namespace npuvp::coherence {

// A test's values of a protocol's parameters, by the parameters' own names.
using ProtocolOptions = std::map<std::string, std::uint64_t>;

// An instance of `protocol` with `options` applied; std::invalid_argument
// naming the protocol and its parameters for a name it does not have. Each
// instance's parameters get a prefix of their own ("tester<N>.<protocol>"),
// so that several systems can live at once.
inline std::shared_ptr<ProtocolInstance> configured_instance(const Protocol& protocol,
                                                             const ProtocolOptions& options) {
  static unsigned instances = 0;
  std::shared_ptr<ProtocolInstance> instance =
      instantiate(protocol, "tester" + std::to_string(instances++) + "." + protocol.name);
  for (const auto& [name, value] : options) {
    ParameterBase* found = nullptr;
    std::string names;
    for (ParameterBase* parameter : instance->parameters()) {
      const std::string& full = parameter->name();
      const std::string local = full.substr(full.rfind('.') + 1);
      if (local == name) found = parameter;
      names += (names.empty() ? "" : ", ") + local;
    }
    if (!found)
      throw std::invalid_argument("coherence protocol '" + protocol.name + "' has no parameter '" + name +
                                  "' (its parameters: " + (names.empty() ? "none" : names) + ")");
    if (auto* integer = dynamic_cast<Parameter<std::uint64_t>*>(found))
      integer->set(value);
    else
      found->set_from_text(std::to_string(value), "the test's configuration");
  }
  return instance;
}

}  // namespace npuvp::coherence
