#include "onnx_attributes.h"

namespace npuvp::compiler {
namespace {

const onnx::AttributeProto* find(const Node& node, const std::string& name) {
  for (const auto& attribute : node.proto.attribute())
    if (attribute.name() == name) return &attribute;
  return nullptr;
}

onnx::AttributeProto* find_or_add(Node& node, const std::string& name) {
  for (auto& attribute : *node.proto.mutable_attribute())
    if (attribute.name() == name) return &attribute;
  auto* attribute = node.proto.add_attribute();
  attribute->set_name(name);
  return attribute;
}

void expect(const Node& node, const onnx::AttributeProto& attribute, onnx::AttributeProto::AttributeType type) {
  if (attribute.type() != type && attribute.type() != onnx::AttributeProto::UNDEFINED)
    fail(node, "attribute " + attribute.name() + " has the wrong type");
}

}  // namespace

bool has_attribute(const Node& node, const std::string& name) { return find(node, name) != nullptr; }

std::int64_t attribute_int(const Node& node, const std::string& name, std::int64_t fallback) {
  const auto* attribute = find(node, name);
  if (!attribute) return fallback;
  expect(node, *attribute, onnx::AttributeProto::INT);
  return attribute->i();
}

float attribute_float(const Node& node, const std::string& name, float fallback) {
  const auto* attribute = find(node, name);
  if (!attribute) return fallback;
  expect(node, *attribute, onnx::AttributeProto::FLOAT);
  return attribute->f();
}

std::string attribute_string(const Node& node, const std::string& name, const std::string& fallback) {
  const auto* attribute = find(node, name);
  if (!attribute) return fallback;
  expect(node, *attribute, onnx::AttributeProto::STRING);
  return attribute->s();
}

std::vector<std::int64_t> attribute_ints(const Node& node, const std::string& name,
                                         const std::vector<std::int64_t>& fallback) {
  const auto* attribute = find(node, name);
  if (!attribute) return fallback;
  expect(node, *attribute, onnx::AttributeProto::INTS);
  return {attribute->ints().begin(), attribute->ints().end()};
}

const onnx::TensorProto* attribute_tensor(const Node& node, const std::string& name) {
  const auto* attribute = find(node, name);
  if (!attribute) return nullptr;
  expect(node, *attribute, onnx::AttributeProto::TENSOR);
  return &attribute->t();
}

void set_attribute_int(Node& node, const std::string& name, std::int64_t value) {
  auto* attribute = find_or_add(node, name);
  attribute->set_type(onnx::AttributeProto::INT);
  attribute->set_i(value);
}

void set_attribute_float(Node& node, const std::string& name, float value) {
  auto* attribute = find_or_add(node, name);
  attribute->set_type(onnx::AttributeProto::FLOAT);
  attribute->set_f(value);
}

void set_attribute_ints(Node& node, const std::string& name, const std::vector<std::int64_t>& value) {
  auto* attribute = find_or_add(node, name);
  attribute->set_type(onnx::AttributeProto::INTS);
  attribute->clear_ints();
  for (auto v : value) attribute->add_ints(v);
}

void fail_attribute(const Node& node, const std::string& name, const std::string& value) {
  fail(node, "unsupported attribute " + name + "=" + value);
}

}  // namespace npuvp::compiler
