// Reading ONNX node attributes with defaults; a wrong attribute type is a
// CompileError naming the node.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph.h"

namespace npuvp::compiler {

bool has_attribute(const Node& node, const std::string& name);
std::int64_t attribute_int(const Node& node, const std::string& name, std::int64_t fallback);
float attribute_float(const Node& node, const std::string& name, float fallback);
std::string attribute_string(const Node& node, const std::string& name, const std::string& fallback);
std::vector<std::int64_t> attribute_ints(const Node& node, const std::string& name,
                                         const std::vector<std::int64_t>& fallback);
const onnx::TensorProto* attribute_tensor(const Node& node, const std::string& name);

void set_attribute_int(Node& node, const std::string& name, std::int64_t value);
void set_attribute_float(Node& node, const std::string& name, float value);
void set_attribute_ints(Node& node, const std::string& name, const std::vector<std::int64_t>& value);

// Errors for attributes the lowering does not support.
[[noreturn]] void fail_attribute(const Node& node, const std::string& name, const std::string& value);

}  // namespace npuvp::compiler
