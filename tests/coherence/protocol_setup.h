// A protocol set up for the random tester and the explorer: an instance of
// a registered protocol (protocol_registry.h) whose parameters take the
// values a test configuration names, e.g. {"periodic_synchronisation_cycles": 0}
// or {"validation": "data"}.
#pragma once

#include "coherence/protocol_registry.h"
#include "core/parameters.h"

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace npuvp::coherence {

// A test's value of one protocol parameter: a number, or the text a
// scenario would give (e.g. "data", "true").
struct ProtocolOption {
  template <typename Integer, typename = std::enable_if_t<std::is_integral_v<Integer>>>
  ProtocolOption(Integer value) : numeric(true), number(static_cast<std::uint64_t>(value)), text(std::to_string(value)) {}
  ProtocolOption(const char* value) : text(value) {}
  ProtocolOption(std::string value) : text(std::move(value)) {}
  ProtocolOption() = default;

  bool numeric = false;
  std::uint64_t number = 0;
  std::string text;
};

// A test's values of a protocol's parameters, by the parameters' own names.
using ProtocolOptions = std::map<std::string, ProtocolOption>;

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
    auto* integer = dynamic_cast<Parameter<std::uint64_t>*>(found);
    if (integer && value.numeric)
      integer->set(value.number);
    else
      found->set_from_text(value.text, "the test's configuration");
  }
  return instance;
}

}  // namespace npuvp::coherence
