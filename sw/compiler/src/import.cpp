#include "import.h"

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "compile_error.h"
#include "host_eval.h"
#include "import_checks.h"
#include "onnx_attributes.h"
#include "supported_ops.h"

namespace npuvp::compiler {
namespace {

std::string first_line(const std::string& text) {
  auto end = text.find('\n');
  return end == std::string::npos ? text : text.substr(0, end);
}

bool is_float_element(int type) {
  return type == onnx::TensorProto::FLOAT || type == onnx::TensorProto::FLOAT16 ||
         type == onnx::TensorProto::DOUBLE;
}

// The static shape of a value_info, or false when a dimension is symbolic/unknown.
bool static_shape(const onnx::ValueInfoProto& info, Shape& shape, std::string* dynamic_dim = nullptr) {
  if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape()) return false;
  shape.clear();
  const auto& dims = info.type().tensor_type().shape().dim();
  for (int k = 0; k < dims.size(); ++k) {
    if (!dims[k].has_dim_value() || dims[k].dim_value() < 0) {
      if (dynamic_dim)
        *dynamic_dim = "dimension " + std::to_string(k) +
                       (dims[k].has_dim_param() ? " ('" + dims[k].dim_param() + "')" : std::string());
      return false;
    }
    shape.push_back(dims[k].dim_value());
  }
  return true;
}

// The rank of every value that can be told without shape inference: declared (graph
// inputs, initializers, Constant nodes) and carried through the ops whose output rank
// follows from their inputs' ranks. Values missing from the map have an unknown rank.
class RankPropagation {
 public:
  explicit RankPropagation(const onnx::GraphProto& g) {
    for (const auto& input : g.input())
      if (input.type().tensor_type().has_shape()) ranks_[input.name()] = input.type().tensor_type().shape().dim_size();
    for (const auto& initializer : g.initializer()) {
      ranks_[initializer.name()] = initializer.dims_size();
      if (initializer.dims_size() == 1) vector_lengths_[initializer.name()] = initializer.dims(0);
    }
  }

  std::optional<int> rank(const std::string& name) const {
    auto found = ranks_.find(name);
    return found == ranks_.end() ? std::nullopt : std::optional<int>(found->second);
  }

  // Records the node's output ranks (after the caller checked its inputs).
  void pass(const onnx::NodeProto& node) {
    const std::optional<int> rank = output_rank(node);
    for (const auto& output : node.output()) {
      if (rank) ranks_[output] = *rank;
      else ranks_.erase(output);
    }
  }

 private:
  std::optional<int> output_rank(const onnx::NodeProto& node) const {
    static const std::set<std::string> kSameAsFirst = {
        "Conv", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "BatchNormalization",
        "LayerNormalization", "Softmax", "Clip", "Transpose", "Pad", "Slice", "Concat", "Split", "Dropout", "Identity",
        "Cast", "Relu", "Sigmoid", "Tanh", "Erf", "Gelu", "Exp", "Sqrt", "Reciprocal", "Neg", "Abs", "Floor", "Ceil",
        "Not"};
    static const std::set<std::string> kBroadcast = {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min",
                                                     "Equal", "Less", "Greater", "Where"};
    const std::string& op = node.op_type();
    if (op == "Constant") {
      const auto* value = attribute_tensor_proto(node);
      return value ? std::optional<int>(value->dims_size()) : std::nullopt;
    }
    if (op == "Flatten" || op == "Gemm") return 2;
    if (op == "Shape") return 1;
    if (op == "Size") return 0;
    if (node.input_size() == 0) return std::nullopt;
    if (kSameAsFirst.count(op)) return rank(node.input(0));
    if (op == "ReduceMean") return keeps_dims(node) ? rank(node.input(0)) : std::nullopt;
    if (op == "Reshape" && node.input_size() > 1) {
      auto length = vector_lengths_.find(node.input(1));
      return length == vector_lengths_.end() ? std::nullopt : std::optional<int>(int(length->second));
    }
    if (kBroadcast.count(op) || op == "MatMul") {
      int widest = 0;
      for (const auto& input : node.input()) {
        const auto r = rank(input);
        if (!r || (op == "MatMul" && *r < 2)) return std::nullopt;  // a 1-D MatMul operand drops an axis
        widest = std::max(widest, *r);
      }
      return widest;
    }
    return std::nullopt;
  }

  static const onnx::TensorProto* attribute_tensor_proto(const onnx::NodeProto& node) {
    for (const auto& attribute : node.attribute())
      if (attribute.name() == "value" && attribute.has_t()) return &attribute.t();
    return nullptr;
  }

  static bool keeps_dims(const onnx::NodeProto& node) {
    for (const auto& attribute : node.attribute())
      if (attribute.name() == "keepdims") return attribute.i() != 0;
    return true;
  }

  std::map<std::string, int> ranks_;
  std::map<std::string, std::int64_t> vector_lengths_;  // 1-D initializers: a Reshape's target rank
};

// libonnx 1.12's shape inference for convolutions and pooling reads past its arrays
// when the data input has fewer than 3 dimensions, or a convolution's weights another
// rank than its data (both found by fuzzing, tests/fuzz/onnx_importer_fuzz.cpp): refuse
// such nodes first wherever the ranks can be told (RankPropagation).
void check_spatial_ranks(const onnx::GraphProto& g, const std::string& where) {
  static const std::set<std::string> kSpatial = {"Conv", "MaxPool", "AveragePool", "GlobalAveragePool",
                                                 "GlobalMaxPool"};
  RankPropagation ranks(g);
  for (const auto& node : g.node()) {
    if (kSpatial.count(node.op_type()) && node.input_size() > 0) {
      const std::string what = where + ": node '" + node.name() + "' (" + node.op_type() + "): ";
      // libonnx divides by strides and dilations: a 0 among them ends in SIGFPE (fuzzing).
      for (const auto& attribute : node.attribute())
        if (attribute.name() == "strides" || attribute.name() == "dilations" || attribute.name() == "kernel_shape")
          for (const auto value : attribute.ints())
            if (value < 1)
              throw CompileError(what + "attribute '" + attribute.name() + "' has " + std::to_string(value) +
                                 "; every value must be at least 1");
      const auto data_rank = ranks.rank(node.input(0));
      if (data_rank && *data_rank < 3)
        throw CompileError(what + "input '" + node.input(0) + "' has " + std::to_string(*data_rank) +
                           " dimensions; it needs batch, channels and at least one spatial axis");
      const auto weight_rank = node.op_type() == "Conv" && node.input_size() > 1 ? ranks.rank(node.input(1)) : std::nullopt;
      if (data_rank && weight_rank && *weight_rank != *data_rank)
        throw CompileError(what + "weights '" + node.input(1) + "' have " + std::to_string(*weight_rank) +
                           " dimensions for an input of " + std::to_string(*data_rank));
    }
    ranks.pass(node);
  }
}

// Unknown ops are refused here, by name, before libonnx's shape inference sees them
// (supported_ops.h says why); ops of other domains meet their own error in the import.
void refuse_unknown_ops(const onnx::GraphProto& g) {
  for (const auto& node : g.node()) {
    const bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
    if (default_domain && !compiler_knows_op(node.op_type()))
      throw CompileError("node '" + (node.name().empty() ? (node.output_size() ? node.output(0) : std::string()) : node.name()) +
                         "' (" + node.op_type() + "): unsupported op");
  }
}

void run_shape_inference(onnx::ModelProto& model, const std::string& where) {
  refuse_unknown_ops(model.graph());
  check_spatial_ranks(model.graph(), where);
  try {
    onnx::ShapeInferenceOptions options(false, 0, true);
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& error) {
    throw CompileError(where + ": ONNX shape inference failed: " + first_line(error.what()));
  }
}

void read_inferred_shapes(Graph& graph, const onnx::GraphProto& g) {
  auto take = [&](const onnx::ValueInfoProto& info) {
    int id = graph.find_value(info.name());
    if (id < 0 || graph.values[id].shape_known) return;
    Shape shape;
    if (static_shape(info, shape)) {
      graph.values[id].shape = shape;
      graph.values[id].shape_known = true;
    }
  };
  for (const auto& info : g.value_info()) take(info);
  for (const auto& info : g.output()) take(info);
}

}  // namespace

namespace {

Graph import_model(onnx::ModelProto& model, const std::string& where);

}  // namespace

Graph import_onnx(const std::string& bytes, const std::string& where) {
  onnx::ModelProto model;
  if (bytes.empty() || !model.ParseFromString(bytes))
    throw CompileError(where + ": not an ONNX model (protobuf parse failed)");
  return import_model(model, where);
}

Graph import_onnx_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw CompileError(path + ": cannot open the file");
  onnx::ModelProto model;
  if (!model.ParseFromIstream(&file) || model.ByteSizeLong() == 0)
    throw CompileError(path + ": not an ONNX model (protobuf parse failed)");
  return import_model(model, path);
}

namespace {

Graph import_model(onnx::ModelProto& model, const std::string& where) {
  if (!model.has_graph() || model.graph().node_size() == 0)
    throw CompileError(where + ": not an ONNX model (no graph nodes)");
  accept_ir_version(model, where);
  const std::int64_t opset = default_domain_opset(model, where);
  refuse_external_data(model, where);
  const auto newer_ops = stand_in_newer_ops(model, opset, where);
  refuse_forms_of_newer_opsets(model, opset, where);
  const auto shapeless = fill_missing_shapes(model);
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& error) {
    throw CompileError(where + ": ONNX checker: " + first_line(error.what()));
  }
  restore_missing_shapes(shapeless);
  densify_sparse_initializers(model, where);
  run_shape_inference(model, where);
  restore_newer_ops(model, newer_ops);

  Graph graph;
  const auto& g = model.graph();
  graph.model_name = g.name().empty() ? "model" : g.name();
  graph.ir_version = model.ir_version();
  graph.opset = opset;

  std::set<std::string> initializer_names;
  for (auto& init : *model.mutable_graph()->mutable_initializer()) {
    initializer_names.insert(init.name());
    graph.add_constant(init.name(), tensor_from_proto(init, where + ": initializer '" + init.name() + "'"));
    // The weights now live in the graph: drop the proto's copy (half the peak memory).
    init.clear_raw_data();
    init.clear_float_data();
  }

  std::vector<const onnx::ValueInfoProto*> inputs;
  for (const auto& info : g.input())
    if (!initializer_names.count(info.name())) inputs.push_back(&info);
  if (inputs.size() != 1)
    throw CompileError(where + ": the model has " + std::to_string(inputs.size()) +
                       " graph inputs; npuvp compiles models with exactly one");
  if (g.output_size() != 1)
    throw CompileError(where + ": the model has " + std::to_string(g.output_size()) +
                       " graph outputs; npuvp compiles models with exactly one");
  {
    const auto& info = *inputs[0];
    Value input;
    input.name = info.name();
    std::string dynamic;
    if (!static_shape(info, input.shape, &dynamic))
      throw CompileError(where + ": graph input '" + info.name() + "' has a dynamic " +
                         (dynamic.empty() ? std::string("shape") : dynamic) + "; export it with a static shape");
    if (!is_float_element(info.type().tensor_type().elem_type()))
      throw CompileError(where + ": graph input '" + info.name() + "' is not a float tensor");
    for (size_t d = 0; d < input.shape.size(); ++d)
      if (input.shape[d] == 0)  // nothing to compute (the package would hold an empty input)
        throw CompileError(where + ": graph input '" + info.name() + "' is empty: dimension " + std::to_string(d) +
                           " of " + shape_text(input.shape) + " is 0");
    input.shape_known = true;
    graph.input = graph.add_value(std::move(input));
  }

  auto value_id = [&](const std::string& name) {
    int id = graph.find_value(name);
    if (id >= 0) return id;
    Value value;
    value.name = name;
    return graph.add_value(std::move(value));
  };
  for (const auto& proto : g.node()) {
    Node node;
    node.proto = proto;
    if (node.proto.name().empty())
      node.proto.set_name(proto.output_size() ? proto.output(0) : graph.unique_name(proto.op_type()));
    if (!proto.domain().empty() && proto.domain() != "ai.onnx")
      fail(node, "unsupported op (domain '" + proto.domain() + "')");
    if (proto.op_type() == "Constant") {
      int id = graph.add_constant(proto.output(0), constant_node_value(node));
      (void)id;
      continue;
    }
    for (const auto& name : proto.input()) node.inputs.push_back(name.empty() ? -1 : value_id(name));
    for (const auto& name : proto.output()) node.outputs.push_back(name.empty() ? -1 : value_id(name));
    node.proto.clear_input();
    node.proto.clear_output();
    graph.nodes.push_back(std::move(node));
  }
  graph.output = graph.find_value(g.output(0).name());
  if (graph.output < 0) throw CompileError(where + ": graph output '" + g.output(0).name() + "' is never produced");
  read_inferred_shapes(graph, g);
  graph.compact();
  return graph;
}

}  // namespace

namespace {

bool shapes_missing(const Graph& graph) {
  for (const auto& node : graph.nodes)
    for (int out : node.outputs)
      if (out >= 0 && !graph.values[out].shape_known) return true;
  return false;
}

void declare_shape(onnx::ValueInfoProto* info, const Value& value) {
  info->set_name(value.name);
  auto* tensor_type = info->mutable_type()->mutable_tensor_type();
  tensor_type->set_elem_type(onnx::TensorProto::FLOAT);
  auto* shape = tensor_type->mutable_shape();
  for (auto d : value.shape) shape->add_dim()->set_dim_value(d);
}

// The shapes libonnx leaves unknown that the compiler's own rules tell (shapes_from_attributes).
// Returns how many it found.
int infer_shapes_from_attributes(Graph& graph) {
  int found = 0;
  for (const auto& node : graph.nodes) {
    if (node.inputs.empty() || node.inputs[0] < 0 || node.outputs.empty() || node.outputs[0] < 0) continue;
    const Value& in = graph.values[node.inputs[0]];
    if (graph.values[node.outputs[0]].shape_known || !in.shape_known) continue;
    const std::vector<Shape> shapes = shapes_from_attributes(node, in.shape, graph.opset);
    for (size_t k = 0; k < shapes.size() && k < node.outputs.size(); ++k) {
      if (node.outputs[k] < 0) continue;
      Value& out = graph.values[node.outputs[k]];
      out.shape = shapes[k];
      out.shape_known = true;
      ++found;
    }
  }
  return found;
}

// One round of libonnx's shape inference over the graph's live nodes, the shapes known so
// far declared (an intermediate shape it cannot infer itself lets it carry on behind it).
void run_onnx_shape_inference(Graph& graph) {
  onnx::ModelProto model;
  model.set_ir_version(graph.ir_version ? graph.ir_version : 8);
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(graph.opset);
  auto* g = model.mutable_graph();
  g->set_name(graph.model_name);
  std::set<int> declared;
  auto declare = [&](int id) {
    if (id < 0 || declared.count(id)) return;
    declared.insert(id);
    const Value& value = graph.values[id];
    if (value.is_constant() && value.constant->is_int()) {
      *g->add_initializer() = tensor_to_proto(*value.constant, value.name);
      return;
    }
    if (!value.is_constant() && value.producer >= 0) {
      // Only the shapes the compiler's own rules gave (every known one would declare an
      // integer activation float).
      if (value.shape_known && has_shape_from_attributes(graph.nodes[value.producer], graph.opset))
        declare_shape(g->add_value_info(), value);
      return;
    }
    // Graph input and float constants: only their type and shape matter here.
    declare_shape(g->add_input(), value);
  };
  for (const auto& node : graph.nodes) {
    auto* proto = g->add_node();
    *proto = node.proto;
    for (int in : node.inputs) {
      declare(in);
      proto->add_input(in < 0 ? "" : graph.values[in].name);
    }
    for (int out : node.outputs) proto->add_output(out < 0 ? "" : graph.values[out].name);
  }
  auto* out = g->add_output();
  out->set_name(graph.values[graph.output].name);
  out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  run_shape_inference(model, graph.model_name);
  read_inferred_shapes(graph, model.graph());
}

}  // namespace

void infer_missing_shapes(Graph& graph) {
  if (!shapes_missing(graph)) return;
  run_onnx_shape_inference(graph);
  while (shapes_missing(graph) && infer_shapes_from_attributes(graph) > 0) run_onnx_shape_inference(graph);
}

void require_computed_output(const Graph& graph) {
  const Value& output = graph.values[graph.output];
  if (output.is_constant())
    throw CompileError("graph output '" + output.name + "' is a constant (it does not depend on the input '" +
                       graph.values[graph.input].name + "'); npuvp compiles models whose output is computed from their input");
}

void require_static_shapes(const Graph& graph) {
  for (const auto& node : graph.nodes)
    for (int out : node.outputs) {
      if (out < 0) continue;
      const Value& value = graph.values[out];
      if (!value.shape_known)
        fail(node, "output '" + value.name + "' has no static shape (dynamic shapes are not supported)");
      // The package cannot hold a buffer of 0 bytes (the runtime refuses it after the run started).
      if (element_count(value.shape) == 0)
        fail(node, "output '" + value.name + "' is empty (" + shape_text(value.shape) +
                       "); tensors without elements are not supported");
    }
}

}  // namespace npuvp::compiler
