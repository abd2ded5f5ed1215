// The coherence protocols known by name (`mesh.coherence`). Each protocol
// lives in its own folder (mesi/, nsi/, ...) and describes itself with a
// Protocol entry; protocol_registry.cpp lists the built-in ones, and
// register_protocol() adds a user's own at run time (before the cluster is
// built).
#pragma once

#include "coherence/coherence.h"
#include "core/parameters.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace npuvp::coherence {

class ProtocolInstance;

// An event count of a protocol's own (ProtocolCounters, extensions.h),
// exported per L1 as `l1_<tile>.<name>` and summed as `l1.<name>`.
struct CounterDeclaration {
  std::string name;       // "suspect_lines_created"
  std::string doc;        // one line, per L1
  std::string total_doc;  // one line, all L1s
};
struct Protocol {
  std::string name;         // "mesi"
  std::string description;  // one line
  // Protocol message types are kFirstProtocolMessage .. message_types - 1.
  unsigned message_types = kFirstProtocolMessage;
  // The name of any message type (memory messages included); "?" if unknown.
  std::string (*message_name)(unsigned type) = nullptr;
  // The controllers of tile `tile`. The L1's shape is one private L1; the
  // home's shape is ONE LLC bank (the LLC's total size / tiles).
  std::unique_ptr<L1Controller> (*make_l1)(unsigned tile, const Geometry& geometry, const CacheShape& shape,
                                           Environment& environment) = nullptr;
  std::unique_ptr<HomeController> (*make_home)(unsigned tile, const Geometry& geometry, const CacheShape& shape,
                                               Environment& environment) = nullptr;
  // The protocol's tables as Markdown (docs/coherence.md).
  std::string (*tables_markdown)() = nullptr;
  // Optional: the counters its L1s offer through ProtocolCounters.
  std::vector<CounterDeclaration> l1_counters;
  // Optional, for a protocol with parameters: its instance (below), whose
  // parameters are named `<prefix>.<name>` and documented with `note`
  // appended. Without it, instantiate() gives an instance of make_l1 and
  // make_home with no parameters.
  std::unique_ptr<ProtocolInstance> (*make_instance)(const std::string& prefix, const std::string& note) = nullptr;
};

// A protocol set up for one system: it owns the protocol's parameters — real
// Parameters (core/parameters.h), members of the protocol's own instance
// class, registered as `<prefix>.<name>` under the module that owns them
// (the cluster: `<mesh>.<protocol>`) — and builds the controllers with their
// values, read from its members.
class ProtocolInstance {
 public:
  using L1Factory = std::unique_ptr<L1Controller> (*)(unsigned tile, const Geometry& geometry,
                                                      const CacheShape& shape, Environment& environment);
  using HomeFactory = std::unique_ptr<HomeController> (*)(unsigned tile, const Geometry& geometry,
                                                          const CacheShape& shape, Environment& environment);
  ProtocolInstance(std::string name, L1Factory make_l1, HomeFactory make_home)
      : name_(std::move(name)), make_l1_(make_l1), make_home_(make_home) {}
  virtual ~ProtocolInstance() = default;
  ProtocolInstance(const ProtocolInstance&) = delete;
  ProtocolInstance& operator=(const ProtocolInstance&) = delete;

  const std::string& name() const { return name_; }
  // The controllers of tile `tile` (the home's shape is ONE LLC bank).
  virtual std::unique_ptr<L1Controller> make_l1(unsigned tile, const Geometry& geometry, const CacheShape& shape,
                                                Environment& environment) const {
    return make_l1_(tile, geometry, shape, environment);
  }
  virtual std::unique_ptr<HomeController> make_home(unsigned tile, const Geometry& geometry, const CacheShape& shape,
                                                    Environment& environment) const {
    return make_home_(tile, geometry, shape, environment);
  }
  // Its parameters, for tools that list or set them.
  const std::vector<ParameterBase*>& parameters() const { return parameters_; }

 protected:
  // Lists `parameter`, a member of the derived instance, as one of its parameters.
  void own(ParameterBase& parameter) { parameters_.push_back(&parameter); }

 private:
  std::string name_;
  L1Factory make_l1_;
  HomeFactory make_home_;
  std::vector<ParameterBase*> parameters_;
};

// `protocol` set up with its parameters named `<prefix>.<name>` (docs
// followed by `note`), or without parameters when it has none.
std::unique_ptr<ProtocolInstance> instantiate(const Protocol& protocol, const std::string& prefix,
                                              const std::string& note = "");

// The protocol called `name`; std::invalid_argument listing the known names
// otherwise.
const Protocol& find_protocol(const std::string& name);
std::vector<std::string> protocol_names();
// Adds a protocol; std::invalid_argument if the name is taken or an entry is
// missing.
void register_protocol(const Protocol& protocol);

}  // namespace npuvp::coherence
