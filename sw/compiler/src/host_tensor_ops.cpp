#include <cstring>

#include "compile_error.h"
#include "fp16.h"
#include "host_tensor.h"

namespace npuvp::compiler {

std::int64_t checked_element_count(const std::vector<std::int64_t>& shape, const std::string& what) {
  auto refuse = [&](const std::string& why) {
    std::string dims;
    for (auto d : shape) dims += (dims.empty() ? "" : "x") + std::to_string(d);
    throw CompileError(what + " of shape " + dims + " " + why);
  };
  std::int64_t n = 1;
  for (auto d : shape) {
    if (d < 0) refuse("has a negative dimension");
    if (__builtin_mul_overflow(n, d, &n) || n > kMaxTensorElements)
      refuse("has more than " + std::to_string(kMaxTensorElements) + " elements");
  }
  return n;
}

std::int64_t HostTensor::size() const { return checked_element_count(shape, "a tensor"); }

HostTensor HostTensor::floats(std::vector<std::int64_t> shape, std::vector<float> data) {
  HostTensor t;
  t.type = Type::Float;
  t.shape = std::move(shape);
  t.f = std::move(data);
  return t;
}

HostTensor HostTensor::ints(std::vector<std::int64_t> shape, std::vector<std::int64_t> data) {
  HostTensor t;
  t.type = Type::Int64;
  t.shape = std::move(shape);
  t.i = std::move(data);
  return t;
}

namespace {

template <typename T>
T read_raw(const std::string& raw, std::int64_t k) {
  T value;
  std::memcpy(&value, raw.data() + k * sizeof(T), sizeof(T));
  return value;
}

bool is_float_type(int type) {
  return type == onnx::TensorProto::FLOAT || type == onnx::TensorProto::FLOAT16 ||
         type == onnx::TensorProto::DOUBLE;
}

std::size_t element_bytes(int type) {
  switch (type) {
    case onnx::TensorProto::FLOAT: case onnx::TensorProto::INT32: case onnx::TensorProto::UINT32: return 4;
    case onnx::TensorProto::DOUBLE: case onnx::TensorProto::INT64: case onnx::TensorProto::UINT64: return 8;
    case onnx::TensorProto::FLOAT16: case onnx::TensorProto::INT16: case onnx::TensorProto::UINT16: return 2;
    case onnx::TensorProto::INT8: case onnx::TensorProto::UINT8: case onnx::TensorProto::BOOL: return 1;
    default: return 0;
  }
}

double raw_element(const std::string& raw, int type, std::int64_t k) {
  switch (type) {
    case onnx::TensorProto::FLOAT: return read_raw<float>(raw, k);
    case onnx::TensorProto::DOUBLE: return read_raw<double>(raw, k);
    case onnx::TensorProto::FLOAT16: return half_to_float(read_raw<std::uint16_t>(raw, k));
    case onnx::TensorProto::INT32: return read_raw<std::int32_t>(raw, k);
    case onnx::TensorProto::UINT32: return read_raw<std::uint32_t>(raw, k);
    case onnx::TensorProto::INT64: return double(read_raw<std::int64_t>(raw, k));
    case onnx::TensorProto::UINT64: return double(read_raw<std::uint64_t>(raw, k));
    case onnx::TensorProto::INT16: return read_raw<std::int16_t>(raw, k);
    case onnx::TensorProto::UINT16: return read_raw<std::uint16_t>(raw, k);
    case onnx::TensorProto::INT8: return read_raw<std::int8_t>(raw, k);
    case onnx::TensorProto::UINT8: case onnx::TensorProto::BOOL: return read_raw<std::uint8_t>(raw, k);
    default: return 0;
  }
}

// How many values the typed fields hold (the field ONNX uses for each data type).
std::int64_t typed_value_count(const onnx::TensorProto& proto, int type) {
  switch (type) {
    case onnx::TensorProto::FLOAT: return proto.float_data_size();
    case onnx::TensorProto::DOUBLE: return proto.double_data_size();
    case onnx::TensorProto::INT64: return proto.int64_data_size();
    case onnx::TensorProto::UINT32: case onnx::TensorProto::UINT64: return proto.uint64_data_size();
    default: return proto.int32_data_size();
  }
}

}  // namespace

HostTensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& where) {
  const int type = proto.data_type();
  const std::string what = where + ": tensor '" + proto.name() + "'";
  if (proto.data_location() == onnx::TensorProto::EXTERNAL) throw CompileError(what + " uses external data (not supported)");
  if (element_bytes(type) == 0) throw CompileError(what + " has unsupported data type " + std::to_string(type));
  HostTensor t;
  t.type = is_float_type(type) ? HostTensor::Type::Float : HostTensor::Type::Int64;
  t.shape.assign(proto.dims().begin(), proto.dims().end());
  const std::int64_t n = checked_element_count(t.shape, what);
  // Checked before anything is allocated: the dims of a damaged file may promise more
  // elements than the memory holds, while its data is a few bytes.
  if (proto.has_raw_data()) {
    const auto& raw = proto.raw_data();
    if (raw.size() != std::size_t(n) * element_bytes(type))
      throw CompileError(what + " has " + std::to_string(raw.size()) + " bytes of data for " + std::to_string(n) +
                         " elements");
  } else if (const std::int64_t have = typed_value_count(proto, type); have != n) {
    throw CompileError(what + " has " + std::to_string(have) + " values for " + std::to_string(n) + " elements");
  }
  auto put = [&](std::int64_t k, double v) {
    if (t.is_int()) t.i[k] = saturated_int64(v); else t.f[k] = float(v);
  };
  if (t.is_int()) t.i.resize(n); else t.f.resize(n);
  if (proto.has_raw_data()) {
    const auto& raw = proto.raw_data();
    if (raw.empty()) {
      // an empty tensor: nothing to copy (and its vector's data() may be null)
    } else if (type == onnx::TensorProto::INT64) {
      std::memcpy(t.i.data(), raw.data(), raw.size());
    } else if (type == onnx::TensorProto::FLOAT) {
      std::memcpy(t.f.data(), raw.data(), raw.size());
    } else {
      for (std::int64_t k = 0; k < n; ++k) put(k, raw_element(raw, type, k));
    }
    return t;
  }
  switch (type) {
    case onnx::TensorProto::FLOAT:
      for (std::int64_t k = 0; k < n; ++k) put(k, proto.float_data(int(k)));
      break;
    case onnx::TensorProto::DOUBLE:
      for (std::int64_t k = 0; k < n; ++k) put(k, proto.double_data(int(k)));
      break;
    case onnx::TensorProto::INT64:
      for (std::int64_t k = 0; k < n; ++k) t.i[k] = proto.int64_data(int(k));
      break;
    case onnx::TensorProto::UINT32: case onnx::TensorProto::UINT64:
      for (std::int64_t k = 0; k < n; ++k) put(k, double(proto.uint64_data(int(k))));
      break;
    case onnx::TensorProto::FLOAT16:
      for (std::int64_t k = 0; k < n; ++k) put(k, half_to_float(std::uint16_t(proto.int32_data(int(k)))));
      break;
    default:
      for (std::int64_t k = 0; k < n; ++k) put(k, proto.int32_data(int(k)));
  }
  return t;
}

onnx::TensorProto tensor_to_proto(const HostTensor& tensor, const std::string& name) {
  onnx::TensorProto proto;
  proto.set_name(name);
  for (auto d : tensor.shape) proto.add_dims(d);
  if (tensor.is_int()) {
    proto.set_data_type(onnx::TensorProto::INT64);
    proto.set_raw_data(std::string(reinterpret_cast<const char*>(tensor.i.data()), tensor.i.size() * 8));
  } else {
    proto.set_data_type(onnx::TensorProto::FLOAT);
    proto.set_raw_data(std::string(reinterpret_cast<const char*>(tensor.f.data()), tensor.f.size() * 4));
  }
  return proto;
}

}  // namespace npuvp::compiler
