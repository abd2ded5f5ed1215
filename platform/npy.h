// NumPy .npy files: the tensors `npuvp infer` reads (--input) and writes (--output), and the
// PyTorch references of the models in sw/networks. Format versions 1.0, 2.0 and 3.0 (2.0 with a
// UTF-8 header), little-endian or byte-order-free element types, C order only: what
// numpy.save writes for a numeric array. Anything else is an NpyError naming the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace npuvp {

struct NpyArray {
  std::vector<std::int64_t> shape;  // () for a scalar
  std::string dtype;                // NumPy descr as in the file: "<f4", "<f2", "<i8", "|u1", ...
  std::vector<std::uint8_t> data;   // element_count() elements of dtype, C order, little-endian

  std::size_t element_count() const;
  // The elements as float: f2 (exact), f4, f8 (rounded), i1..i8 and u1..u8 (rounded if large).
  std::vector<float> to_float() const;
};

class NpyError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws NpyError, one line naming the file and the problem: cannot open, bad magic, an
// unsupported version, a malformed header, fortran_order True, a big-endian or non-numeric
// dtype, a negative dimension, truncated or trailing data.
NpyArray read_npy(const std::string& path);

// Writes a "<f4" C-order array (format 1.0). Throws NpyError when the shape's element count is
// not values.size() or the file cannot be written.
void write_npy(const std::string& path, const std::vector<std::int64_t>& shape, const std::vector<float>& values);

}  // namespace npuvp
