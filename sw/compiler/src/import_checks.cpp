#include "import_checks.h"

#include <algorithm>
#include <map>
#include <optional>

#include <onnx/defs/schema.h>

#include "compile_error.h"
#include "host_tensor.h"
#include "onnx_attributes.h"

extern "C" {
#include "npuvp/model_package.h"
}

namespace npuvp::compiler {
namespace {

std::string first_line(const std::string& text) {
  auto end = text.find('\n');
  return end == std::string::npos ? text : text.substr(0, end);
}

bool is_default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

std::string node_label(const onnx::NodeProto& node) {
  const std::string name = node.name().empty() && node.output_size() ? node.output(0) : node.name();
  return "node '" + name + "' (" + node.op_type() + ")";
}

// The tensors a model holds: its initializers and the values of its Constant nodes.
template <typename F>
void for_each_tensor(const onnx::GraphProto& graph, const F& f) {
  for (const auto& initializer : graph.initializer()) f(initializer);
  for (const auto& node : graph.node())
    for (const auto& attribute : node.attribute())
      if (attribute.has_t()) f(attribute.t());
}

// The flat offset of the sparse tensor's value k: its indices are either flat offsets
// ([NNZ]) or coordinates ([NNZ, rank]).
std::int64_t flat_offset(const HostTensor& indices, const std::vector<std::int64_t>& dims, std::int64_t k) {
  if (indices.shape.size() == 1) return indices.i[k];
  std::int64_t offset = 0;
  const std::int64_t rank = std::int64_t(dims.size());
  for (std::int64_t d = 0; d < rank; ++d) {
    const std::int64_t coordinate = indices.i[k * rank + d];
    if (coordinate < 0 || coordinate >= dims[d]) return -1;
    offset = offset * dims[d] + coordinate;
  }
  return offset;
}

HostTensor dense_tensor(const onnx::SparseTensorProto& sparse, const std::string& what) {
  const HostTensor values = tensor_from_proto(sparse.values(), what);
  const HostTensor indices = tensor_from_proto(sparse.indices(), what);
  const std::vector<std::int64_t> dims(sparse.dims().begin(), sparse.dims().end());
  const std::int64_t nnz = values.size();
  const bool flat = indices.shape == std::vector<std::int64_t>{nnz};
  const bool coordinates = indices.shape == std::vector<std::int64_t>{nnz, std::int64_t(dims.size())};
  if (values.shape.size() != 1 || !indices.is_int() || !(flat || coordinates))
    throw CompileError(what + ": values " + std::to_string(nnz) + " and indices do not match");
  HostTensor dense;
  dense.type = values.type;
  dense.shape = dims;
  const std::int64_t n = checked_element_count(dims, what);
  // A few values may describe a huge tensor: one larger than a package holds is refused
  // before it is allocated.
  if (n > std::int64_t(NPUVP_PACKAGE_MAX_BYTES) / 2)
    throw CompileError(what + " has " + std::to_string(n) + " elements, more than a package holds");
  if (dense.is_int()) dense.i.assign(n, 0); else dense.f.assign(n, 0.f);
  for (std::int64_t k = 0; k < nnz; ++k) {
    const std::int64_t offset = flat_offset(indices, dims, k);
    if (offset < 0 || offset >= n) throw CompileError(what + ": index of value " + std::to_string(k) + " is out of range");
    if (dense.is_int()) dense.i[offset] = values.i[k]; else dense.f[offset] = values.f[k];
  }
  return dense;
}

}  // namespace

HostTensor constant_node_value(const Node& node) {
  if (const auto* tensor = attribute_tensor(node, "value")) return tensor_from_proto(*tensor, node_context(node));
  if (has_attribute(node, "value_float"))
    return HostTensor::floats({}, {attribute_float(node, "value_float", 0)});
  if (has_attribute(node, "value_floats")) {
    for (const auto& a : node.proto.attribute())
      if (a.name() == "value_floats")
        return HostTensor::floats({a.floats_size()}, {a.floats().begin(), a.floats().end()});
  }
  if (has_attribute(node, "value_int")) return HostTensor::ints({}, {attribute_int(node, "value_int", 0)});
  if (has_attribute(node, "value_ints")) {
    auto v = attribute_ints(node, "value_ints", {});
    return HostTensor::ints({std::int64_t(v.size())}, v);
  }
  fail(node, "unsupported Constant (sparse or string value)");
}

std::int64_t newest_ir_version() { return onnx::Version::IR_VERSION; }

std::int64_t newest_opset() {
  return onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map().at(onnx::ONNX_DOMAIN).second;
}

namespace {

// The data types IR versions 9 to 11 added (onnx.proto's TensorProto.DataType), 0 for an older one.
const char* newer_ir_data_type(std::int64_t type) {
  switch (type) {
    case 17: return "FLOAT8E4M3FN, added by IR version 9";
    case 18: return "FLOAT8E4M3FNUZ, added by IR version 9";
    case 19: return "FLOAT8E5M2, added by IR version 9";
    case 20: return "FLOAT8E5M2FNUZ, added by IR version 9";
    case 21: return "UINT4, added by IR version 10";
    case 22: return "INT4, added by IR version 10";
    case 23: return "FLOAT4E2M1, added by IR version 11";
    default: return type > onnx::TensorProto::DataType_MAX ? "added by a newer IR version" : nullptr;
  }
}

// The first use of a data type newer than IR 8 in the main graph: "tensor 'w' has data type X".
std::string first_newer_data_type(const onnx::GraphProto& graph) {
  std::string found;
  auto note = [&](const std::string& what, std::int64_t type) {
    if (const char* name = found.empty() ? newer_ir_data_type(type) : nullptr)
      found = what + " has data type " + std::to_string(type) + " (" + name + ")";
  };
  for_each_tensor(graph, [&](const onnx::TensorProto& tensor) { note("tensor '" + tensor.name() + "'", tensor.data_type()); });
  for (const auto& sparse : graph.sparse_initializer())
    note("sparse initializer '" + sparse.values().name() + "'", sparse.values().data_type());
  for (const auto* infos : {&graph.input(), &graph.output(), &graph.value_info()})
    for (const auto& info : *infos)
      if (info.type().has_tensor_type()) note("value '" + info.name() + "'", info.type().tensor_type().elem_type());
  for (const auto& node : graph.node())
    for (const auto& attribute : node.attribute())
      if (attribute.name() == "to" && (node.op_type() == "Cast") && attribute.has_i())
        note(node_label(node) + "'s target", attribute.i());
  return found;
}

}  // namespace

void accept_ir_version(onnx::ModelProto& model, const std::string& where) {
  if (model.ir_version() <= newest_ir_version()) return;
  const std::string version = "IR version " + std::to_string(model.ir_version());
  if (model.ir_version() > kNewestReadableIrVersion)
    throw CompileError(where + ": " + version + " is newer than npuvp reads (up to " +
                       std::to_string(kNewestReadableIrVersion) + "); save the model with ir_version " +
                       std::to_string(kNewestReadableIrVersion) + " or older if it uses nothing newer");
  const std::string newer = first_newer_data_type(model.graph());
  if (!newer.empty())
    throw CompileError(where + ": " + newer + "; npuvp compiles float32 and float16 models");
  model.set_ir_version(newest_ir_version());
}

std::vector<onnx::ValueInfoProto*> fill_missing_shapes(onnx::ModelProto& model) {
  std::vector<onnx::ValueInfoProto*> filled;
  auto& graph = *model.mutable_graph();
  for (auto* infos : {graph.mutable_input(), graph.mutable_output()})
    for (auto& info : *infos)
      if (info.type().has_tensor_type() && !info.type().tensor_type().has_shape()) {
        info.mutable_type()->mutable_tensor_type()->mutable_shape();
        filled.push_back(&info);
      }
  return filled;
}

void restore_missing_shapes(const std::vector<onnx::ValueInfoProto*>& values) {
  for (auto* info : values) info->mutable_type()->mutable_tensor_type()->clear_shape();
}

std::int64_t default_domain_opset(const onnx::ModelProto& model, const std::string& where) {
  std::int64_t opset = 0;
  for (const auto& import : model.opset_import()) {
    if (!is_default_domain(import.domain())) continue;
    if (opset != 0)
      throw CompileError(where + ": two opset imports of the default ONNX domain (" + std::to_string(opset) + " and " +
                         std::to_string(import.version()) + "); the model must import it once");
    opset = import.version();
  }
  return opset;
}

void refuse_forms_of_newer_opsets(const onnx::ModelProto& model, std::int64_t opset, const std::string& where) {
  const std::int64_t newest = newest_opset();
  if (opset <= newest) return;
  for (const auto& node : model.graph().node()) {
    if (!is_default_domain(node.domain())) continue;
    const std::string what = where + ": " + node_label(node) + " of opset " + std::to_string(opset) + ": ";
    const auto* schema = onnx::OpSchemaRegistry::Schema(node.op_type(), int(newest), onnx::ONNX_DOMAIN);
    if (!schema) throw CompileError(what + "not an op of the opsets npuvp reads (up to " + std::to_string(newest) + ")");
    try {
      schema->Verify(node);
    } catch (const std::exception& error) {
      throw CompileError(what + "this form is newer than opset " + std::to_string(newest) +
                         ", the newest npuvp reads (" + first_line(error.what()) + ")");
    }
  }
}

namespace {

// Attributes newer opsets added to ops npuvp compiles that leave the op as opset 17 reads it at
// these values, so they are dropped: AveragePool's dilations of 1 (opset 19), Cast's saturate
// (opset 19: it only concerns float 8 targets, which are refused). Other values are refused.
void drop_neutral_newer_attributes(onnx::NodeProto& node, std::int64_t opset, const std::string& what) {
  auto& attributes = *node.mutable_attribute();
  for (int a = attributes.size() - 1; a >= 0; --a) {
    const auto& attribute = attributes[a];
    bool neutral = false;
    if (node.op_type() == "AveragePool" && opset >= 19 && attribute.name() == "dilations") {
      neutral = std::all_of(attribute.ints().begin(), attribute.ints().end(), [](std::int64_t d) { return d == 1; });
      if (!neutral) throw CompileError(what + "dilations other than 1 (opset 19) are not supported");
    }
    if (node.op_type() == "Cast" && opset >= 19 && attribute.name() == "saturate") neutral = true;
    if (neutral) attributes.DeleteSubrange(a, 1);
  }
}

// The int64 values of a constant (an initializer or a Constant node's output) by name.
class Constants {
 public:
  explicit Constants(const onnx::GraphProto& graph) {
    for (const auto& initializer : graph.initializer()) initializers_[initializer.name()] = &initializer;
    for (const auto& node : graph.node())
      if (node.op_type() == "Constant" && node.output_size() == 1) nodes_[node.output(0)] = &node;
  }
  // The values, or nothing when `name` is no integer constant.
  std::optional<std::vector<std::int64_t>> ints(const std::string& name, const std::string& where) const {
    HostTensor tensor;
    if (const auto found = initializers_.find(name); found != initializers_.end()) {
      tensor = tensor_from_proto(*found->second, where);
    } else if (const auto node = nodes_.find(name); node != nodes_.end()) {
      Node constant;  // (a copy of the one node looked up: an axes list)
      constant.proto = *node->second;
      tensor = constant_node_value(constant);
    } else {
      return std::nullopt;
    }
    if (!tensor.is_int()) return std::nullopt;
    return tensor.i;
  }

 private:
  std::map<std::string, const onnx::TensorProto*> initializers_;
  std::map<std::string, const onnx::NodeProto*> nodes_;  // Constant nodes by their output
};

// Gelu of opset 20 checked and stood in as Erf; false for another node.
bool gelu_stand_in(onnx::NodeProto& node, std::int64_t opset, const std::string& what) {
  if (node.op_type() != "Gelu" || opset < 20) return false;
  if (node.input_size() != 1 || node.output_size() != 1) throw CompileError(what + "Gelu takes one input and gives one output");
  for (const auto& attribute : node.attribute()) {
    if (attribute.name() != "approximate")
      throw CompileError(what + "unsupported attribute '" + attribute.name() + "' (Gelu has approximate only)");
    if (attribute.s() != "none" && attribute.s() != "tanh")
      throw CompileError(what + "attribute 'approximate' is '" + attribute.s() + "'; it must be none or tanh");
  }
  node.set_op_type("Erf");
  node.clear_attribute();
  return true;
}

// ReduceMean of opset 18 with constant axes (an initializer, a Constant node's value, value_ints
// or value_int), stood in with the axes attribute; empty axes, or none, reduce every axis (no
// attribute). With noop_with_empty_axes and no axes it is an Identity, for good.
bool reduce_mean_stand_in(onnx::NodeProto& node, std::int64_t opset, const Constants& constants, const std::string& what) {
  if (node.op_type() != "ReduceMean" || opset < 18) return false;
  bool noop_with_empty_axes = false;
  for (const auto& attribute : node.attribute())
    if (attribute.name() == "noop_with_empty_axes") noop_with_empty_axes = attribute.i() != 0;
  std::vector<std::int64_t> axes;
  const bool axes_input = node.input_size() >= 2 && !node.input(1).empty();
  if (axes_input) {
    const auto values = constants.ints(node.input(1), what + "axes");
    if (!values) return false;  // computed axes: refused as a newer form
    axes = *values;
  }
  if (axes.empty() && noop_with_empty_axes) {
    node.set_op_type("Identity");
    node.clear_attribute();
    node.mutable_input()->DeleteSubrange(1, node.input_size() - 1);
    return false;  // not restored: the Identity is the node
  }
  if (node.input_size() > 1) node.mutable_input()->DeleteSubrange(1, node.input_size() - 1);
  auto& attributes = *node.mutable_attribute();
  for (int a = attributes.size() - 1; a >= 0; --a)
    if (attributes[a].name() == "noop_with_empty_axes") attributes.DeleteSubrange(a, 1);
  if (!axes.empty()) {
    auto* attribute = node.add_attribute();
    attribute->set_name("axes");
    attribute->set_type(onnx::AttributeProto::INTS);
    for (const std::int64_t axis : axes) attribute->add_ints(axis);
  }
  return axes_input || noop_with_empty_axes;
}

// Split of opset 18 into num_outputs parts, stood in as opset 13's equal split by its outputs.
bool split_stand_in(onnx::NodeProto& node, std::int64_t opset, const std::string& what) {
  if (node.op_type() != "Split" || opset < 18) return false;
  if (node.input_size() == 2 && node.input(1).empty()) node.mutable_input()->RemoveLast();  // absent split sizes
  if (node.input_size() != 1) return false;
  auto& attributes = *node.mutable_attribute();
  for (int a = 0; a < attributes.size(); ++a) {
    if (attributes[a].name() != "num_outputs") continue;
    if (attributes[a].i() != node.output_size())
      throw CompileError(what + "num_outputs is " + std::to_string(attributes[a].i()) + " for " +
                         std::to_string(node.output_size()) + " outputs");
    attributes.DeleteSubrange(a, 1);
    return true;
  }
  return false;
}

}  // namespace

std::vector<NewerOp> stand_in_newer_ops(onnx::ModelProto& model, std::int64_t opset, const std::string& where) {
  std::vector<NewerOp> stood_in;
  if (opset <= newest_opset()) return stood_in;
  const Constants constants(model.graph());
  auto& nodes = *model.mutable_graph()->mutable_node();
  for (int i = 0; i < nodes.size(); ++i) {
    auto& node = nodes[i];
    if (!is_default_domain(node.domain())) continue;
    const std::string what = where + ": " + node_label(node) + " of opset " + std::to_string(opset) + ": ";
    drop_neutral_newer_attributes(node, opset, what);
    const std::string& op = node.op_type();
    if (op != "Gelu" && op != "ReduceMean" && op != "Split") continue;  // (copies only of these)
    onnx::NodeProto original = node;
    if (gelu_stand_in(node, opset, what) || reduce_mean_stand_in(node, opset, constants, what) ||
        split_stand_in(node, opset, what))
      stood_in.push_back({i, std::move(original)});
  }
  return stood_in;
}

void restore_newer_ops(onnx::ModelProto& model, const std::vector<NewerOp>& ops) {
  auto& nodes = *model.mutable_graph()->mutable_node();
  for (const auto& op : ops) nodes[op.node] = op.original;
}

void refuse_external_data(const onnx::ModelProto& model, const std::string& where) {
  // Before the checker: it looks for the data file in the working directory, not beside
  // the model, and says the file is missing.
  for_each_tensor(model.graph(), [&](const onnx::TensorProto& tensor) {
    if (tensor.data_location() == onnx::TensorProto::EXTERNAL)
      throw CompileError(where + ": tensor '" + tensor.name() + "' uses external data (not supported)");
  });
}

void densify_sparse_initializers(onnx::ModelProto& model, const std::string& where) {
  auto& graph = *model.mutable_graph();
  for (const auto& sparse : graph.sparse_initializer()) {
    const std::string name = sparse.values().name();
    *graph.add_initializer() = tensor_to_proto(dense_tensor(sparse, where + ": sparse initializer '" + name + "'"), name);
  }
  graph.clear_sparse_initializer();
}

}  // namespace npuvp::compiler
