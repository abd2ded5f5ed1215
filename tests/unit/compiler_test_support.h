// Helpers of the compiler tests: build small ONNX models with the protobuf
// API, and read back the model package the compiler writes.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "compiler_reference_ops.h"
#include "npuvp/compiler/compiler.h"

extern "C" {
#include "npuvp/model_package.h"
#include "npuvp/operator_kernels.h"
}

namespace npuvp::compiler::test {

using Dims = std::vector<std::int64_t>;

class OnnxBuilder {
 public:
  explicit OnnxBuilder(int opset = 13) {
    model_.set_ir_version(8);
    auto* o = model_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    model_.mutable_graph()->set_name("test_model");
  }

  void input(const std::string& name, const Dims& dims) { add_value_info(model_.mutable_graph()->add_input(), name, dims); }
  void input_symbolic(const std::string& name, const Dims& dims, int symbolic_dim) {
    auto* info = model_.mutable_graph()->add_input();
    add_value_info(info, name, dims);
    auto* dim = info->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(symbolic_dim);
    dim->clear_dim_value();
    dim->set_dim_param("batch");
  }
  void output(const std::string& name, const Dims& dims) { add_value_info(model_.mutable_graph()->add_output(), name, dims); }
  void constant(const std::string& name, const Dims& dims, const std::vector<float>& values) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (auto d : dims) t->add_dims(d);
    for (auto v : values) t->add_float_data(v);
  }
  void constant_ints(const std::string& name, const Dims& dims, const std::vector<std::int64_t>& values) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (auto d : dims) t->add_dims(d);
    for (auto v : values) t->add_int64_data(v);
  }
  // Seeded uniform values in [-scale, scale].
  std::vector<float> random(const Dims& dims, float scale = 1.f) {
    std::int64_t n = 1;
    for (auto d : dims) n *= d;
    std::uniform_real_distribution<float> dist(-scale, scale);
    std::vector<float> v(n);
    for (auto& x : v) x = dist(rng_);
    return v;
  }
  std::vector<float> random_constant(const std::string& name, const Dims& dims, float scale = 1.f) {
    auto v = random(dims, scale);
    constant(name, dims, v);
    return v;
  }
  onnx::NodeProto& node(const std::string& op, std::initializer_list<std::string> inputs,
                        std::initializer_list<std::string> outputs, const std::string& name = "") {
    auto* n = model_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name.empty() ? op + "_" + std::to_string(model_.graph().node_size()) : name);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return *n;
  }
  static void attr(onnx::NodeProto& n, const std::string& name, std::int64_t v) {
    auto* a = n.add_attribute(); a->set_name(name); a->set_type(onnx::AttributeProto::INT); a->set_i(v);
  }
  static void attr(onnx::NodeProto& n, const std::string& name, float v) {
    auto* a = n.add_attribute(); a->set_name(name); a->set_type(onnx::AttributeProto::FLOAT); a->set_f(v);
  }
  static void attr(onnx::NodeProto& n, const std::string& name, const std::string& v) {
    auto* a = n.add_attribute(); a->set_name(name); a->set_type(onnx::AttributeProto::STRING); a->set_s(v);
  }
  static void attr(onnx::NodeProto& n, const std::string& name, const Dims& v) {
    auto* a = n.add_attribute(); a->set_name(name); a->set_type(onnx::AttributeProto::INTS);
    for (auto x : v) a->add_ints(x);
  }
  std::string bytes() const { return model_.SerializeAsString(); }
  onnx::ModelProto& model() { return model_; }

 private:
  static void add_value_info(onnx::ValueInfoProto* info, const std::string& name, const Dims& dims) {
    info->set_name(name);
    auto* t = info->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    auto* shape = t->mutable_shape();
    for (auto d : dims) shape->add_dim()->set_dim_value(d);
  }
  onnx::ModelProto model_;
  std::mt19937 rng_{1234};
};

// A read-only view of a model package image.
struct PackageView {
  explicit PackageView(const std::vector<std::uint8_t>& image) : bytes(image) {
    std::memcpy(&header, bytes.data(), sizeof header);
  }
  template <typename T>
  T record(std::uint64_t offset, std::uint64_t index) const {
    T t;
    std::memcpy(&t, bytes.data() + offset + index * sizeof(T), sizeof(T));
    return t;
  }
  npuvp_package_layer layer(std::uint64_t k) const { return record<npuvp_package_layer>(header.layers_offset, k); }
  npuvp_package_launch launch(std::uint64_t k) const { return record<npuvp_package_launch>(header.launches_offset, k); }
  npuvp_package_tensor tensor(std::uint64_t k) const { return record<npuvp_package_tensor>(header.tensors_offset, k); }
  std::string string(std::uint32_t offset) const {
    return std::string(reinterpret_cast<const char*>(bytes.data() + header.strings_offset + offset));
  }
  std::vector<npuvp_package_launch> launches_of(std::uint32_t kernel) const {
    std::vector<npuvp_package_launch> result;
    for (std::uint32_t k = 0; k < header.launch_count; ++k)
      if (launch(k).kernel == kernel) result.push_back(launch(k));
    return result;
  }
  std::uint16_t constant_half(std::uint64_t byte_offset) const {
    std::uint16_t h;
    std::memcpy(&h, bytes.data() + header.constants_offset + byte_offset, 2);
    return h;
  }
  float constant_f32(std::uint64_t byte_offset) const {
    float f;
    std::memcpy(&f, bytes.data() + header.constants_offset + byte_offset, 4);
    return f;
  }
  const std::vector<std::uint8_t>& bytes;
  npuvp_package_header header{};
};

inline unsigned relocation_of(const npuvp_package_launch& l, unsigned arg) { return NPUVP_RELOC_OF(l.relocation, arg); }


// The compiled model's output against the f32 reference: cosine above 0.9995 and the largest
// error within `tolerance` of the largest |expected| (f16 arithmetic on the device).
inline void expect_close_to_reference(const std::vector<float>& got, const ref::Tensor& expected, double tolerance) {
  ASSERT_EQ(got.size(), expected.data.size());
  const auto a = ref::agreement(got, expected.data);
  EXPECT_GT(a.cosine, 0.9995);
  EXPECT_LT(a.relative_error, tolerance);
}

}  // namespace npuvp::compiler::test
