#include "platform/npy.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <type_traits>

#include "models/npu/numerics.h"

namespace npuvp {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicSize = 6;
constexpr std::size_t kHeaderAlignment = 64;  // numpy pads magic + header to a multiple of 64

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  throw NpyError(path + ": " + problem);
}

// The element types we convert: NumPy's kind letter and size in bytes.
struct ElementType {
  char kind = 0;  // 'f', 'i' or 'u'
  std::size_t size = 0;
};

ElementType parse_dtype(const std::string& path, const std::string& descr) {
  if (descr.size() < 3) fail(path, "unsupported dtype '" + descr + "'");
  const char order = descr[0];
  const char kind = descr[1];
  const std::string size_text = descr.substr(2);
  if (size_text.find_first_not_of("0123456789") != std::string::npos) fail(path, "unsupported dtype '" + descr + "'");
  const std::size_t size = std::stoul(size_text);
  const bool known = (kind == 'f' && (size == 2 || size == 4 || size == 8)) ||
                     ((kind == 'i' || kind == 'u') && (size == 1 || size == 2 || size == 4 || size == 8));
  if (!known) fail(path, "unsupported dtype '" + descr + "' (float16/32/64 and 8- to 64-bit integers only)");
  if (order == '>' && size > 1) fail(path, "big-endian dtype '" + descr + "' is not supported");
  if (order != '<' && order != '|' && order != '=' && order != '>') fail(path, "malformed dtype '" + descr + "'");
  return {kind, size};
}

// A reader for the one Python literal numpy writes as the header:
// {'descr': '<f4', 'fortran_order': False, 'shape': (1, 3), }
class HeaderParser {
 public:
  HeaderParser(const std::string& path, const std::string& text) : path_(path), text_(text) {}

  void parse(NpyArray& array, bool& fortran_order) {
    bool have_descr = false, have_order = false, have_shape = false;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      const std::string key = quoted();
      expect(':');
      if (key == "descr") {
        array.dtype = quoted();
        have_descr = true;
      } else if (key == "fortran_order") {
        fortran_order = boolean();
        have_order = true;
      } else if (key == "shape") {
        array.shape = shape();
        have_shape = true;
      } else {
        bad("unexpected key '" + key + "'");
      }
      skip_space();
      if (peek() == ',') ++position_;
    }
    if (!have_descr || !have_order || !have_shape) bad("missing 'descr', 'fortran_order' or 'shape'");
  }

 private:
  [[noreturn]] void bad(const std::string& what) const { fail(path_, "malformed header: " + what); }

  void skip_space() {
    while (position_ < text_.size() && (text_[position_] == ' ' || text_[position_] == '\t')) ++position_;
  }
  char peek() const {
    if (position_ >= text_.size()) bad("ends early");
    return text_[position_];
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) bad(std::string("expected '") + c + "' at offset " + std::to_string(position_));
    ++position_;
  }
  std::string quoted() {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"') bad("expected a string at offset " + std::to_string(position_));
    const std::size_t end = text_.find(quote, position_ + 1);
    if (end == std::string::npos) bad("unterminated string");
    std::string value = text_.substr(position_ + 1, end - position_ - 1);
    position_ = end + 1;
    return value;
  }
  bool boolean() {
    skip_space();
    if (text_.compare(position_, 4, "True") == 0) {
      position_ += 4;
      return true;
    }
    if (text_.compare(position_, 5, "False") == 0) {
      position_ += 5;
      return false;
    }
    bad("expected True or False at offset " + std::to_string(position_));
  }
  std::vector<std::int64_t> shape() {
    std::vector<std::int64_t> dims;
    expect('(');
    while (true) {
      skip_space();
      if (peek() == ')') break;
      const std::size_t start = position_;
      if (peek() == '-') ++position_;
      while (position_ < text_.size() && text_[position_] >= '0' && text_[position_] <= '9') ++position_;
      // Python 2 era writers append L to longs.
      const std::string digits = text_.substr(start, position_ - start);
      if (position_ < text_.size() && text_[position_] == 'L') ++position_;
      if (digits.empty() || digits == "-") bad("expected a dimension at offset " + std::to_string(start));
      const long long value = std::stoll(digits);
      if (value < 0) fail(path_, "negative dimension " + digits + " in the shape");
      dims.push_back(value);
      skip_space();
      if (peek() == ',') ++position_;
    }
    ++position_;
    return dims;
  }

  const std::string& path_;
  const std::string& text_;
  std::size_t position_ = 0;
};

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::ostringstream out;
  out << '(';
  for (std::size_t i = 0; i < shape.size(); ++i) out << (i ? ", " : "") << shape[i];
  if (shape.size() == 1) out << ',';
  out << ')';
  return out.str();
}

std::uint64_t element_count_checked(const std::string& path, const std::vector<std::int64_t>& shape) {
  std::uint64_t count = 1;
  for (std::int64_t dim : shape) {
    if (dim < 0) fail(path, "negative dimension in shape " + shape_text(shape));
    if (dim != 0 && count > std::numeric_limits<std::uint64_t>::max() / static_cast<std::uint64_t>(dim)) {
      fail(path, "shape " + shape_text(shape) + " is too large");
    }
    count *= static_cast<std::uint64_t>(dim);
  }
  return count;
}

template <typename T>
T load_little_endian(const std::uint8_t* bytes) {
  using Bits = std::conditional_t<sizeof(T) == 1, std::uint8_t,
               std::conditional_t<sizeof(T) == 2, std::uint16_t,
               std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;
  Bits bits = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) bits |= static_cast<Bits>(static_cast<Bits>(bytes[i]) << (8 * i));
  T value;
  std::memcpy(&value, &bits, sizeof(T));
  return value;
}

template <typename T>
void convert(const std::vector<std::uint8_t>& data, std::vector<float>& out) {
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(load_little_endian<T>(&data[i * sizeof(T)]));
}

}  // namespace

std::size_t NpyArray::element_count() const {
  std::size_t count = 1;
  for (std::int64_t dim : shape) count *= static_cast<std::size_t>(dim);
  return count;
}

std::vector<float> NpyArray::to_float() const {
  const ElementType type = parse_dtype("npy array", dtype);
  std::vector<float> out(element_count());
  if (data.size() < out.size() * type.size) throw NpyError("npy array: data holds fewer elements than its shape");
  switch (type.kind) {
    case 'f':
      if (type.size == 2) {
        for (std::size_t i = 0; i < out.size(); ++i) {
          out[i] = numerics::half_to_float(load_little_endian<std::uint16_t>(&data[i * 2]));
        }
      } else if (type.size == 4) {
        convert<float>(data, out);
      } else {
        convert<double>(data, out);
      }
      break;
    case 'i':
      if (type.size == 1) convert<std::int8_t>(data, out);
      else if (type.size == 2) convert<std::int16_t>(data, out);
      else if (type.size == 4) convert<std::int32_t>(data, out);
      else convert<std::int64_t>(data, out);
      break;
    default:
      if (type.size == 1) convert<std::uint8_t>(data, out);
      else if (type.size == 2) convert<std::uint16_t>(data, out);
      else if (type.size == 4) convert<std::uint32_t>(data, out);
      else convert<std::uint64_t>(data, out);
      break;
  }
  return out;
}

NpyArray read_npy(const std::string& path) {
  // A directory opens as a stream whose "size" is huge (bad_alloc, issue 23).
  std::error_code status_error;
  if (std::filesystem::is_directory(path, status_error)) fail(path, "is a directory, not a .npy file");
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) fail(path, std::string("cannot open: ") + std::strerror(errno));
  const std::streamoff size = in.tellg();
  if (size < 0) fail(path, "cannot determine the file size");
  std::vector<std::uint8_t> file(static_cast<std::size_t>(size));
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(file.data()), size)) fail(path, "read error");

  if (file.size() < kMagicSize + 2 || std::memcmp(file.data(), kMagic, kMagicSize) != 0) {
    fail(path, "not a NumPy .npy file (bad magic)");
  }
  const unsigned major = file[6], minor = file[7];
  if (major < 1 || major > 3) {
    fail(path, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor));
  }
  const std::size_t length_size = major == 1 ? 2 : 4;
  const std::size_t header_start = kMagicSize + 2 + length_size;
  if (file.size() < header_start) fail(path, "truncated header");
  std::size_t header_length = 0;
  for (std::size_t i = 0; i < length_size; ++i) header_length |= static_cast<std::size_t>(file[8 + i]) << (8 * i);
  if (file.size() < header_start + header_length) fail(path, "truncated header");
  const std::string header(file.begin() + header_start, file.begin() + header_start + header_length);

  NpyArray array;
  bool fortran_order = false;
  HeaderParser(path, header).parse(array, fortran_order);
  if (fortran_order) fail(path, "fortran_order True is not supported (save a C-order array)");
  const ElementType type = parse_dtype(path, array.dtype);
  const std::uint64_t count = element_count_checked(path, array.shape);
  const std::uint64_t needed = count * type.size;
  const std::size_t available = file.size() - header_start - header_length;
  if (available < needed) {
    fail(path, "truncated data: " + std::to_string(available) + " bytes where shape " + shape_text(array.shape) +
                   " of " + array.dtype + " needs " + std::to_string(needed));
  }
  if (available > needed) {
    fail(path, std::to_string(available - needed) + " bytes after the data of shape " + shape_text(array.shape));
  }
  array.data.assign(file.begin() + header_start + header_length, file.end());
  return array;
}

void write_npy(const std::string& path, const std::vector<std::int64_t>& shape, const std::vector<float>& values) {
  if (element_count_checked(path, shape) != values.size()) {
    fail(path, "shape " + shape_text(shape) + " does not hold " + std::to_string(values.size()) + " values");
  }
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape_text(shape) + ", }";
  // Version 1.0 (2-byte length) unless the header is longer than 65535 bytes.
  const bool version2 = header.size() + kHeaderAlignment > 0xffff;
  const std::size_t prefix = kMagicSize + 2 + (version2 ? 4 : 2);
  header.append(kHeaderAlignment - (prefix + header.size() + 1) % kHeaderAlignment, ' ');
  header += '\n';

  std::vector<std::uint8_t> bytes(kMagic, kMagic + kMagicSize);
  bytes.push_back(version2 ? 2 : 1);
  bytes.push_back(0);
  for (std::size_t i = 0; i < (version2 ? 4u : 2u); ++i) bytes.push_back(static_cast<std::uint8_t>(header.size() >> (8 * i)));
  bytes.insert(bytes.end(), header.begin(), header.end());
  const std::size_t data_start = bytes.size();
  bytes.resize(data_start + values.size() * 4);
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, &values[i], 4);
    for (std::size_t b = 0; b < 4; ++b) bytes[data_start + i * 4 + b] = static_cast<std::uint8_t>(bits >> (8 * b));
  }

  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) fail(path, std::string("cannot create: ") + std::strerror(errno));
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) fail(path, "write failed");
}

}  // namespace npuvp
