// The compiler's graph IR: values (tensors with static shapes, constants held
// on the host) and nodes (an ONNX NodeProto for the op type and attributes,
// plus what fusion adds). Every pass rewrites a Graph; lowering turns it into
// kernel launches.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "host_tensor.h"

namespace npuvp::compiler {

using Shape = std::vector<std::int64_t>;

std::int64_t element_count(const Shape& shape);
std::string shape_text(const Shape& shape);  // "1x64x56x56"

// How an activation is stored in device memory (operator_kernels.h).
enum class Layout { ND, NC1HWC0 };

struct Value {
  std::string name;
  Shape shape;
  bool shape_known = false;
  std::shared_ptr<const HostTensor> constant;  // set: a constant (initializer or folded)
  Layout layout = Layout::ND;
  int producer = -1;  // node index, -1 for graph inputs and constants
  bool is_constant() const { return constant != nullptr; }
};

enum class Activation { None, Relu, Clip };

// What epilogue fusion attached to a Conv / MatMul / Gemm node.
struct Epilogue {
  int bias = -1;      // value id of a constant per-output-channel bias (f32 in the package)
  int residual = -1;  // value id of a tensor of the output's shape
  Activation activation = Activation::None;
  float clip_min = 0, clip_max = 0;
  float alpha = 1;    // scale of the product (MatMul)
};

struct Node {
  onnx::NodeProto proto;  // op_type, name, attributes
  std::vector<int> inputs, outputs;  // value ids; -1: an absent optional input
  Epilogue epilogue;
  std::vector<std::string> fused_ops;  // ops fused into this one, in order ("Add", "Relu")
  // A Conv fold_conv_windows rewrote: the model's products per output (C x kh x kw of the
  // original window), which its folded weights' zero taps exceed (0: its weights' own).
  std::int64_t window_products = 0;
  bool removed = false;
  const std::string& op() const { return proto.op_type(); }
  const std::string& name() const { return proto.name(); }
  std::string display_op() const;  // "Conv+Add+Relu"
};

struct Graph {
  std::string model_name;
  std::int64_t opset = 0;         // of the default ONNX domain
  std::int64_t ir_version = 0;
  std::vector<Value> values;
  std::vector<Node> nodes;  // topological order (removed ones skipped)
  int input = -1, output = -1;

  int add_value(Value value);
  int add_constant(const std::string& name, HostTensor tensor);
  int find_value(const std::string& name) const;  // -1 if absent
  // Nodes reading value `id` (live ones), in order.
  std::vector<int> consumers(int id) const;
  bool is_graph_output(int id) const { return id == output; }
  // Replaces every use of `from` by `to` (node inputs, the graph output).
  void replace_uses(int from, int to);
  // Drops removed nodes and renumbers producers.
  void compact();
  std::string unique_name(const std::string& base);

 private:
  std::map<std::string, int> by_name_;
  int name_counter_ = 0;
};

// "node 'name' (Op): <what>" - the prefix of every per-node error.
std::string node_context(const Node& node);
[[noreturn]] void fail(const Node& node, const std::string& what);

}  // namespace npuvp::compiler
