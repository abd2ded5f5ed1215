// The coherence protocols known by name (`mesh.coherence`). Each protocol
// lives in its own folder (mesi/, nsi/, ...) and describes itself with a
// Protocol entry; protocol_registry.cpp lists the built-in ones, and
// register_protocol() adds a user's own at run time (before the cluster is
// built).
#pragma once

#include "coherence/coherence.h"

#include <memory>
#include <string>
#include <vector>

namespace npuvp::coherence {

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
};

// The protocol called `name`; std::invalid_argument listing the known names
// otherwise.
const Protocol& find_protocol(const std::string& name);
std::vector<std::string> protocol_names();
// Adds a protocol; std::invalid_argument if the name is taken or an entry is
// missing.
void register_protocol(const Protocol& protocol);

}  // namespace npuvp::coherence
