// Small model files written by tests, independent of the code under test: a
// one-node ONNX model (protobuf encoded here, field numbers of onnx.proto) and
// NumPy .npy arrays of any element type (format version 1.0).
#pragma once

#include <cstdint>
#include <cstring>
#include <iterator>
#include <fstream>
#include <string>
#include <vector>

namespace npuvp::test_support {

namespace protobuf {

inline void varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
}
inline void field_varint(std::string& out, unsigned field, std::uint64_t value) {
  varint(out, field << 3);
  varint(out, value);
}
inline void field_bytes(std::string& out, unsigned field, const std::string& bytes) {
  varint(out, (field << 3) | 2);
  varint(out, bytes.size());
  out += bytes;
}

}  // namespace protobuf

// ValueInfoProto of a float tensor: name, type.tensor_type {elem_type FLOAT, shape}.
inline std::string onnx_float_tensor(const std::string& name, const std::vector<std::int64_t>& shape) {
  std::string dims;
  for (auto d : shape) {
    std::string dimension;
    protobuf::field_varint(dimension, 1, static_cast<std::uint64_t>(d));  // dim_value
    protobuf::field_bytes(dims, 1, dimension);                            // TensorShapeProto.dim
  }
  std::string tensor;
  protobuf::field_varint(tensor, 1, 1);  // elem_type = FLOAT
  protobuf::field_bytes(tensor, 2, dims);
  std::string type;
  protobuf::field_bytes(type, 1, tensor);  // TypeProto.tensor_type
  std::string info;
  protobuf::field_bytes(info, 1, name);
  protobuf::field_bytes(info, 2, type);
  return info;
}

// An ONNX model (IR 8, opset 17) of one unary node `op_type`: x -> y, both `shape`.
inline std::string onnx_unary_model(const std::string& op_type, const std::vector<std::int64_t>& shape) {
  std::string node;
  protobuf::field_bytes(node, 1, "x");        // input
  protobuf::field_bytes(node, 2, "y");        // output
  protobuf::field_bytes(node, 3, "unary0");   // name
  protobuf::field_bytes(node, 4, op_type);    // op_type
  std::string graph;
  protobuf::field_bytes(graph, 1, node);
  protobuf::field_bytes(graph, 2, "unary");
  protobuf::field_bytes(graph, 11, onnx_float_tensor("x", shape));
  protobuf::field_bytes(graph, 12, onnx_float_tensor("y", shape));
  std::string opset;
  protobuf::field_varint(opset, 2, 17);
  std::string model;
  protobuf::field_varint(model, 1, 8);  // ir_version
  protobuf::field_bytes(model, 7, graph);
  protobuf::field_bytes(model, 8, opset);
  return model;
}

// A .npy file: `descr` as numpy writes it ("<f4", "<i8", ...), `data` the raw elements.
inline void write_npy_file(const std::string& path, const std::string& descr, const std::vector<std::int64_t>& shape,
                           const std::string& data) {
  std::string dims;
  for (auto d : shape) dims += std::to_string(d) + ", ";
  if (shape.size() > 1) dims.erase(dims.size() - 2);  // "(1, 4)"; one dimension keeps its comma: "(4,)"
  else if (!dims.empty()) dims.erase(dims.size() - 1);
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  const std::size_t unpadded = 10 + header.size() + 1;
  header += std::string((64 - unpadded % 64) % 64, ' ') + "\n";
  std::string file = "\x93NUMPY";
  file += '\x01';
  file += '\x00';
  file += static_cast<char>(header.size() & 0xff);
  file += static_cast<char>(header.size() >> 8);
  file += header + data;
  std::ofstream(path, std::ios::binary) << file;
}

inline void write_float_npy(const std::string& path, const std::vector<std::int64_t>& shape,
                            const std::vector<float>& values) {
  write_npy_file(path, "<f4", shape,
                 std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
}

// The float32 elements of a .npy file this format writes (no checks beyond the magic).
inline std::vector<float> read_float_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (file.size() < 10 || file.compare(0, 6, "\x93NUMPY") != 0) return {};
  const std::size_t header = static_cast<unsigned char>(file[8]) | static_cast<unsigned char>(file[9]) << 8;
  std::vector<float> values((file.size() - 10 - header) / sizeof(float));
  std::memcpy(values.data(), file.data() + 10 + header, values.size() * sizeof(float));
  return values;
}

}  // namespace npuvp::test_support
