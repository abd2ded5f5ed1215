// A tensor held on the host during compilation: initializers, folded shape
// arithmetic, weights before they are rearranged for the kernels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace npuvp::compiler {

struct HostTensor {
  enum class Type { Float, Int64 };
  Type type = Type::Float;
  std::vector<std::int64_t> shape;
  std::vector<float> f;          // Type::Float (float16/32/64 initializers)
  std::vector<std::int64_t> i;   // Type::Int64 (int8..int64, bool)

  std::int64_t size() const;
  bool is_int() const { return type == Type::Int64; }
  double at(std::int64_t k) const { return is_int() ? double(i[k]) : double(f[k]); }
  static HostTensor floats(std::vector<std::int64_t> shape, std::vector<float> data);
  static HostTensor ints(std::vector<std::int64_t> shape, std::vector<std::int64_t> data);
};

// A value a damaged file may put beyond int64's range (a uint64 above 2^63, 1e30 in a
// float tensor) saturates instead of the undefined behaviour of the cast; NaN gives 0.
inline std::int64_t saturated_int64(double value) {
  if (!(value == value)) return 0;
  if (value >= 9223372036854775807.0) return INT64_MAX;
  if (value <= -9223372036854775808.0) return INT64_MIN;
  return static_cast<std::int64_t>(value);
}

// The largest tensor the compiler accepts: 2^32 elements is 8 GiB of fp16, more than
// any device memory the SoC maps, so a larger shape can only come from a damaged file.
constexpr std::int64_t kMaxTensorElements = std::int64_t(1) << 32;

// The product of the dimensions; a negative dimension or more than kMaxTensorElements
// is a CompileError naming `what`.
std::int64_t checked_element_count(const std::vector<std::int64_t>& shape, const std::string& what);

// Decodes an ONNX TensorProto (raw_data or typed fields; external data is an
// error). `where` names it in the error message.
HostTensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& where);
onnx::TensorProto tensor_to_proto(const HostTensor& tensor, const std::string& name);

}  // namespace npuvp::compiler
