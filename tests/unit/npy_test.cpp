// NumPy .npy reading and writing (platform/npy.h) against NumPy itself: files NumPy writes
// (every supported dtype, format 2.0) read back with the values NumPy was given, files we
// write loaded by NumPy, and each malformed input rejected with one line naming the file.
#include "platform/npy.h"

#include <gtest/gtest.h>

#include <stdlib.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace npuvp {
namespace {

namespace fs = std::filesystem;

#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "'" << (text) << "' lacks '" << (part) << "'"

class NpyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "npuvp-npy-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Runs a Python snippet with NumPy imported as np and the test folder as the working
  // directory; the test fails if it exits non-zero.
  void run_numpy(const std::string& code) {
    const std::string script = path("script.py");
    std::ofstream(script) << "import numpy as np\n" << code << "\n";
    const std::string command = "cd '" + dir_.string() + "' && " NPUVP_PYTHON " -B '" + script + "'";
    ASSERT_EQ(std::system(command.c_str()), 0) << "NumPy script failed:\n" << code;
  }

  void write_bytes(const std::string& name, const std::string& bytes) {
    std::ofstream(path(name), std::ios::binary) << bytes;
  }

  // The NpyError message read_npy gives for `name` (empty if it did not throw).
  std::string read_error(const std::string& name) {
    try {
      read_npy(path(name));
    } catch (const NpyError& error) {
      const std::string message = error.what();
      EXPECT_EQ(message.find('\n'), std::string::npos) << "not one line: " << message;
      EXPECT_EQ(message.rfind(path(name), 0), 0u) << "does not start with the file: " << message;
      return message;
    }
    ADD_FAILURE() << name << " was accepted";
    return "";
  }

  fs::path dir_;
};

// A version-1.0 file around `header` (padded as numpy pads it) and `data`.
std::string npy_bytes(const std::string& header, const std::string& data, char major = 1) {
  std::string padded = header;
  while ((10 + padded.size() + 1) % 64 != 0) padded += ' ';
  padded += '\n';
  std::string bytes = std::string("\x93NUMPY", 6) + major + '\0';
  bytes += static_cast<char>(padded.size() & 0xff);
  bytes += static_cast<char>(padded.size() >> 8);
  return bytes + padded + data;
}

TEST_F(NpyTest, WriteThenReadRoundTripsEveryShape) {
  const std::vector<std::vector<std::int64_t>> shapes = {{}, {7}, {1, 3, 5, 7}, {2, 0, 3}};
  for (const auto& shape : shapes) {
    std::size_t count = 1;
    for (auto d : shape) count *= static_cast<std::size_t>(d);
    std::vector<float> values(count);
    for (std::size_t i = 0; i < count; ++i) values[i] = static_cast<float>(i) * 0.37f - 4.0f;
    if (count > 2) values[1] = -0.0f, values[2] = 1e-40f;  // a negative zero and a denormal survive
    write_npy(path("a.npy"), shape, values);
    const NpyArray array = read_npy(path("a.npy"));
    EXPECT_EQ(array.shape, shape);
    EXPECT_EQ(array.dtype, "<f4");
    EXPECT_EQ(array.element_count(), count);
    const std::vector<float> back = array.to_float();
    ASSERT_EQ(back.size(), count);
    for (std::size_t i = 0; i < count; ++i) {
      EXPECT_EQ(std::signbit(back[i]), std::signbit(values[i]));
      EXPECT_EQ(back[i], values[i]) << "element " << i;
    }
  }
}

TEST_F(NpyTest, NumpyLoadsWhatWeWrite) {
  std::vector<float> values(3 * 5 * 7);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.25f - 3.0f;
  write_npy(path("ours.npy"), {3, 5, 7}, values);
  run_numpy(
      "a = np.load('ours.npy')\n"
      "assert a.dtype == np.float32 and a.shape == (3, 5, 7) and a.flags['C_CONTIGUOUS'], (a.dtype, a.shape)\n"
      "assert np.array_equal(a.reshape(-1), np.arange(105, dtype=np.float32) * 0.25 - 3), a\n");
}

TEST_F(NpyTest, ReadsEveryDtypeNumpyWrites) {
  // Values -3 .. 26 (0 .. 29 for unsigned): exact in every supported type.
  const std::vector<std::string> dtypes = {"f2", "f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"};
  std::string code;
  for (const auto& dtype : dtypes) {
    const std::string offset = dtype[0] == 'u' ? "0" : "3";
    code += "np.save('" + dtype + ".npy', (np.arange(30) - " + offset + ").astype('<" + dtype + "').reshape(2, 3, 5))\n";
  }
  run_numpy(code);
  for (const auto& dtype : dtypes) {
    SCOPED_TRACE(dtype);
    const NpyArray array = read_npy(path(dtype + ".npy"));
    EXPECT_EQ(array.shape, (std::vector<std::int64_t>{2, 3, 5}));
    EXPECT_EQ(array.dtype, (dtype[1] == '1' ? "|" : "<") + dtype);
    const std::vector<float> values = array.to_float();
    ASSERT_EQ(values.size(), 30u);
    const float offset = dtype[0] == 'u' ? 0.0f : 3.0f;
    for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(values[i], static_cast<float>(i) - offset);
  }
}

TEST_F(NpyTest, ReadsFloat16Exactly) {
  run_numpy("np.save('h.npy', np.array([65504, -2.0**-24, 0.1, -0.0, np.inf], dtype='<f2'))");
  const std::vector<float> values = read_npy(path("h.npy")).to_float();
  ASSERT_EQ(values.size(), 5u);
  EXPECT_EQ(values[0], 65504.0f);
  EXPECT_EQ(values[1], -std::ldexp(1.0f, -24));
  EXPECT_EQ(values[2], 0.0999755859375f);  // fp16's nearest to 0.1
  EXPECT_TRUE(std::signbit(values[3]));
  EXPECT_TRUE(std::isinf(values[4]));
}

TEST_F(NpyTest, ReadsFormatVersion2) {
  run_numpy(
      "with open('v2.npy', 'wb') as f:\n"
      "    np.lib.format.write_array(f, np.arange(6, dtype='<f4').reshape(3, 2), version=(2, 0))\n");
  const NpyArray array = read_npy(path("v2.npy"));
  EXPECT_EQ(array.shape, (std::vector<std::int64_t>{3, 2}));
  EXPECT_EQ(array.to_float(), (std::vector<float>{0, 1, 2, 3, 4, 5}));
}

TEST_F(NpyTest, RejectsFortranOrder) {
  run_numpy("np.save('f.npy', np.asfortranarray(np.ones((3, 4), dtype=np.float32)))");
  EXPECT_CONTAINS(read_error("f.npy"), "fortran_order True is not supported");
}

TEST_F(NpyTest, RejectsBigEndian) {
  run_numpy("np.save('b.npy', np.ones(5, dtype='>f4'))");
  EXPECT_CONTAINS(read_error("b.npy"), "big-endian dtype '>f4'");
}

TEST_F(NpyTest, RejectsNonNumericDtype) {
  run_numpy("np.save('c.npy', np.ones(4, dtype=np.complex64))\nnp.save('t.npy', np.ones(4, dtype=bool))");
  EXPECT_CONTAINS(read_error("c.npy"), "unsupported dtype '<c8'");
  EXPECT_CONTAINS(read_error("t.npy"), "unsupported dtype '|b1'");
}

TEST_F(NpyTest, RejectsTruncatedData) {
  run_numpy(
      "np.save('full.npy', np.ones((4, 5), dtype=np.float32))\n"
      "b = open('full.npy', 'rb').read()\n"
      "open('cut.npy', 'wb').write(b[:-3])\n"
      "open('long.npy', 'wb').write(b + b'xyz')\n");
  EXPECT_CONTAINS(read_error("cut.npy"), "truncated data: 77 bytes where shape (4, 5) of <f4 needs 80");
  EXPECT_CONTAINS(read_error("long.npy"), "3 bytes after the data");
}

TEST_F(NpyTest, RejectsBadMagicAndTruncatedHeader) {
  write_bytes("magic.npy", "PK\x03\x04 this is a zip file");
  EXPECT_CONTAINS(read_error("magic.npy"), "not a NumPy .npy file (bad magic)");
  write_bytes("empty.npy", "");
  EXPECT_CONTAINS(read_error("empty.npy"), "bad magic");
  write_bytes("short.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", "").substr(0, 30));
  EXPECT_CONTAINS(read_error("short.npy"), "truncated header");
}

TEST_F(NpyTest, RejectsUnsupportedVersion) {
  write_bytes("v9.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", "abcd", 9));
  EXPECT_CONTAINS(read_error("v9.npy"), "unsupported .npy format version 9.0");
}

TEST_F(NpyTest, RejectsMalformedHeaders) {
  const std::string data(16, '\0');
  struct Case {
    std::string header, problem;
  };
  const std::vector<Case> cases = {
      {"{'descr': '<f4', 'fortran_order': False}", "missing 'descr', 'fortran_order' or 'shape'"},
      {"{'descr': '<f4', 'fortran_order': Maybe, 'shape': (4,), }", "expected True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [4], }", "expected '('"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'extra': 1}", "unexpected key 'extra'"},
      {"{'descr': '<f4, 'fortran_order': False, 'shape': (4,), }", "malformed header"},
      {"['descr', '<f4']", "expected '{'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-4,), }", "negative dimension -4"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (x,), }", "expected a dimension"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.header);
    write_bytes("h.npy", npy_bytes(c.header, data));
    EXPECT_CONTAINS(read_error("h.npy"), c.problem);
  }
}

TEST_F(NpyTest, RejectsAMissingFile) {
  EXPECT_CONTAINS(read_error("absent.npy"), "cannot open: No such file or directory");
}

// Issue 23: a directory used to be read as a huge stream (std::bad_alloc, status 127).
TEST_F(NpyTest, RejectsADirectory) {
  fs::create_directories(dir_ / "folder.npy");
  EXPECT_CONTAINS(read_error("folder.npy"), "is a directory, not a .npy file");
}

TEST_F(NpyTest, WriteRejectsAShapeThatDoesNotFitTheValues) {
  try {
    write_npy(path("w.npy"), {2, 3}, std::vector<float>(5));
    ADD_FAILURE() << "accepted 5 values for shape (2, 3)";
  } catch (const NpyError& error) {
    EXPECT_CONTAINS(error.what(), path("w.npy") + ": shape (2, 3) does not hold 5 values");
  }
  EXPECT_THROW(write_npy((dir_ / "no-such-folder" / "w.npy").string(), {1}, {1.0f}), NpyError);
}

}  // namespace
}  // namespace npuvp
