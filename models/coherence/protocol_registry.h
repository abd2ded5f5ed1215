// The coherence protocols known by name (`mesh.coherence`). Each protocol
// lives in its own folder (mesi/, nsi/, ...) and describes itself with a
// Protocol entry; protocol_registry.cpp lists the built-in ones, and
// register_protocol() adds a user's own at run time (before the cluster is
// built).
#pragma once

#include "coherence/coherence.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace npuvp::coherence {

// A protocol's own tuning parameter (e.g. NSI's periodic synchronisation
// interval); the cluster exposes each as `mesh.<protocol>.<name>`.
struct ProtocolParameter {
  std::string name;           // "periodic_synchronisation_cycles"
  std::uint64_t default_value = 0;
  std::string unit;           // "cycles"
  std::string doc;            // one line
};
// An event count of a protocol's own (ProtocolCounters, extensions.h),
// exported per L1 as `l1_<tile>.<name>` and summed as `l1.<name>`.
struct CounterDeclaration {
  std::string name;       // "suspect_lines_created"
  std::string doc;        // one line, per L1
  std::string total_doc;  // one line, all L1s
};
// Values of a protocol's parameters by name; absent ones take the default.
using ProtocolOptions = std::map<std::string, std::uint64_t>;

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
  // Optional: the protocol's parameters, and an L1 factory taking their
  // values (make_l1 then builds an L1 with the defaults). Use
  // make_configured_l1() below, which checks the names.
  std::vector<ProtocolParameter> parameters;
  std::unique_ptr<L1Controller> (*make_l1_with_options)(unsigned tile, const Geometry& geometry,
                                                        const CacheShape& shape, Environment& environment,
                                                        const ProtocolOptions& options) = nullptr;
};

// The L1 of `protocol` with `options`: std::invalid_argument naming the
// protocol and its known parameters for a name it does not declare.
std::unique_ptr<L1Controller> make_configured_l1(const Protocol& protocol, unsigned tile, const Geometry& geometry,
                                                 const CacheShape& shape, Environment& environment,
                                                 const ProtocolOptions& options);
// The value of parameter `name` in `options`, or its default.
std::uint64_t option_value(const Protocol& protocol, const ProtocolOptions& options, const std::string& name);

// The protocol called `name`; std::invalid_argument listing the known names
// otherwise.
const Protocol& find_protocol(const std::string& name);
std::vector<std::string> protocol_names();
// Adds a protocol; std::invalid_argument if the name is taken or an entry is
// missing.
void register_protocol(const Protocol& protocol);

}  // namespace npuvp::coherence
