// `npuvp infer` as a user runs it: a small ONNX model (written by the test)
// end to end with its output checked, and every kind of bad input a one-line
// error with exit status 125 (docs/cli.md).
#include "integration/run_npuvp.h"
#include "model_files.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace npuvp::test_support;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace {

constexpr int kBadInput = 125;

// The verdict is one line starting with "npuvp: error:" and nothing else is on stderr (--quiet).
void expect_one_line_error(const CommandResult& result, const std::string& text) {
  EXPECT_EQ(result.status, kBadInput) << result.err;
  EXPECT_THAT(last_line(result.err), StartsWith("npuvp: error: "));
  EXPECT_THAT(last_line(result.err), HasSubstr(text));
  std::size_t lines = 0;
  for (char c : result.err) lines += c == '\n';
  EXPECT_EQ(lines, 1u) << result.err;
}

struct Files {
  std::string model = temp_path("relu.onnx"), input = temp_path("x.npy"), output = temp_path("y.npy");
  std::vector<float> x;
  Files() {
    std::ofstream(model, std::ios::binary) << onnx_unary_model("Relu", {1, 4, 8, 8});
    for (int i = 0; i < 256; ++i) x.push_back(static_cast<float>((i * 37) % 19) / 4.0f - 2.0f);
    write_float_npy(input, {1, 4, 8, 8}, x);
  }
  ~Files() {
    for (const auto& path : {model, input, output}) std::remove(path.c_str());
  }
};

}  // namespace

TEST(InferCli, ASmallModelRunsEndToEnd) {
  Files files;
  auto result = run_npuvp("infer " + files.model + " --input " + files.input + " --output " + files.output);
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("per-layer report"));
  EXPECT_THAT(result.out, HasSubstr("infer: done:"));
  const std::vector<float> y = read_float_npy(files.output);
  ASSERT_EQ(y.size(), files.x.size());
  for (std::size_t i = 0; i < y.size(); ++i) EXPECT_EQ(y[i], std::max(files.x[i], 0.0f)) << i;  // exact in f16
}

TEST(InferCli, MissingModel) {
  Files files;
  expect_one_line_error(run_npuvp("infer /nonexistent/model.onnx --input " + files.input + " --quiet"),
                        "model /nonexistent/model.onnx: no such file");
}

TEST(InferCli, MissingInput) {
  Files files;
  expect_one_line_error(run_npuvp("infer " + files.model + " --input /nonexistent/x.npy --quiet"),
                        "input /nonexistent/x.npy");
}

TEST(InferCli, MalformedOnnx) {
  Files files;
  std::ofstream(files.model, std::ios::binary) << "this is not a protobuf\x01\x02";
  expect_one_line_error(run_npuvp("infer " + files.model + " --input " + files.input + " --quiet"), files.model);
}

TEST(InferCli, UnsupportedOperator) {
  Files files;
  std::ofstream(files.model, std::ios::binary) << onnx_unary_model("Hardmax", {1, 4, 8, 8});
  expect_one_line_error(run_npuvp("infer " + files.model + " --input " + files.input + " --quiet"), "Hardmax");
}

TEST(InferCli, WrongInputShape) {
  Files files;
  write_float_npy(files.input, {1, 4, 8, 4}, std::vector<float>(128, 1.0f));
  expect_one_line_error(run_npuvp("infer " + files.model + " --input " + files.input + " --quiet"),
                        "shape [1, 4, 8, 4], but the model's input 'x' is [1, 4, 8, 8]");
}

TEST(InferCli, WrongInputDtype) {
  Files files;
  write_npy_file(files.input, "<i8", {1, 4, 8, 8}, std::string(256 * 8, '\0'));
  expect_one_line_error(run_npuvp("infer " + files.model + " --input " + files.input + " --quiet"), "dtype");
}

// A SoC without AI Cores is a valid platform (its driver finds no NPU), but not one to run a model on.
TEST(InferCli, NoAiCores) {
  Files files;
  expect_one_line_error(run_npuvp("infer " + files.model + " --input " + files.input + " --quiet --set soc.ai_cores=0"),
                        "soc.ai_cores = 0: a model needs at least one AI Core to run on");
}

TEST(InferCli, ModelTooLargeForDeviceMemory) {
  Files files;
  // 1 GiB of DDR leaves no room at NPUVP_PACKAGE_ADDRESS (0xC000_0000) for any package.
  expect_one_line_error(run_npuvp("infer " + files.model + " --input " + files.input + " --quiet --set ddr.size=1GiB"),
                        "model too large for device memory");
}

// Issue 23: an output that cannot be written is bad input before the model is
// compiled or run (the profile's used to fail after the run, with status 0).
TEST(InferCli, UnwritableOutputOrProfileFailsBeforeTheRun) {
  Files files;
  expect_one_line_error(run_npuvp("infer " + files.model + " --input " + files.input + " --quiet --profile /nonexistent/p.csv"),
                        "--profile '/nonexistent/p.csv': the folder '/nonexistent' does not exist");
  expect_one_line_error(run_npuvp("infer " + files.model + " --input " + files.input + " --quiet --output /tmp"),
                        "--output '/tmp': is a directory");
}

// /dev/full opens for writing but takes no byte: a disk that fills up during the run. The
// network ran and passed, but the profile asked for is lost: the run fails (125).
TEST(InferCli, ProfileLostAtTheEndMakesThePassingRunFail) {
  Files files;
  auto result = run_npuvp("infer " + files.model + " --input " + files.input + " --quiet --profile /dev/full");
  EXPECT_EQ(result.status, kBadInput) << result.err;
  EXPECT_THAT(result.err, HasSubstr("cannot write the profile to '/dev/full' (No space left on device)"));
}

// Issue 23: a directory as the input used to end in std::bad_alloc (127).
TEST(InferCli, DirectoryAsModelOrInput) {
  Files files;
  expect_one_line_error(run_npuvp("infer /tmp --input " + files.input + " --quiet"),
                        "model /tmp: is a directory, not an ONNX file");
  expect_one_line_error(run_npuvp("infer " + files.model + " --input /tmp --quiet"), "is a directory, not a .npy file");
}

TEST(InferCli, UsageErrors) {
  for (const auto& [arguments, text] : {std::pair{"infer", "needs a model"}, std::pair{"infer m.onnx", "needs --input"},
                                        std::pair{"infer m.onnx --input x.npy --frobnicate", "unknown option '--frobnicate'"},
                                        std::pair{"infer m.onnx --input x.npy --streams 0", "--streams expects a number of streams 1 .. 15, got '0'"},
                                        std::pair{"infer m.onnx --input x.npy --streams 16", "--streams expects a number of streams 1 .. 15, got '16'"}}) {
    auto result = run_npuvp(arguments);
    EXPECT_EQ(result.status, kBadInput) << arguments;
    EXPECT_THAT(result.err, StartsWith("npuvp: error: ")) << arguments;
    EXPECT_THAT(result.err, HasSubstr(text)) << arguments;
  }
}

// A reference is compared only with an output of its shape, dimensions of 1 aside: one of
// [4, 64] (the same 256 values in another shape) is bad input, one of [4, 8, 8] is compared.
// A reference .npy that npuvp cannot read (Fortran order, big-endian) is refused before the
// run, as such an --input is: it used to be read only after the whole simulation.
TEST(InferCli, UnreadableReferenceIsRefusedBeforeTheRun) {
  Files files;
  const std::string reference = temp_path("reference.npy");
  auto write_with_header = [&](const std::string& dict) {
    std::string header = dict;
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::ofstream out(reference, std::ios::binary);
    out << std::string("\x93NUMPY\x01\x00", 8);
    out.put(char(header.size() & 0xff)).put(char(header.size() >> 8)) << header;
    const std::vector<float> zeros(256, 0.f);
    out.write(reinterpret_cast<const char*>(zeros.data()), std::streamsize(zeros.size() * sizeof(float)));
  };
  write_with_header("{'descr': '<f4', 'fortran_order': True, 'shape': (1, 4, 8, 8), }");
  expect_one_line_error(run_npuvp("infer " + files.model + " --input " + files.input + " --reference " + reference +
                                  " --quiet"),
                        "fortran_order True is not supported (save a C-order array)");
  write_with_header("{'descr': '>f4', 'fortran_order': False, 'shape': (1, 4, 8, 8), }");
  expect_one_line_error(run_npuvp("infer " + files.model + " --input " + files.input + " --reference " + reference +
                                  " --quiet"),
                        "big-endian dtype '>f4' is not supported");
  std::remove(reference.c_str());
}

TEST(InferCli, ReferenceOfAnotherShapeIsBadInput) {
  Files files;
  const std::string reference = temp_path("reference.npy");
  std::vector<float> relu(files.x);
  for (float& v : relu) v = std::max(v, 0.0f);
  write_float_npy(reference, {4, 64}, relu);
  auto other = run_npuvp("infer " + files.model + " --input " + files.input + " --reference " + reference + " --quiet");
  EXPECT_EQ(other.status, kBadInput) << other.err;
  EXPECT_THAT(last_line(other.err), HasSubstr("reference " + reference + ": shape [4, 64], the output is [1, 4, 8, 8]"));
  write_float_npy(reference, {4, 8, 8}, relu);
  auto squeezed = run_npuvp("infer " + files.model + " --input " + files.input + " --reference " + reference +
                            " --cosine-min 0.999 --quiet");
  EXPECT_EQ(squeezed.status, 0) << squeezed.err;
  EXPECT_THAT(squeezed.out, HasSubstr("cosine 1.000000, max abs error 0.0000"));
  std::remove(reference.c_str());
}

// An input beyond float16's range becomes inf on the NPU (a warning says how many), and outputs
// that are inf or NaN are counted; the cosine is then NaN and the max abs error inf (NaN for a
// NaN output), so the run fails its --cosine-min instead of printing a max abs error of 0.
TEST(InferCli, InputsBeyondFloat16AndNonFiniteOutputsAreReported) {
  Files files;
  std::vector<float> x(files.x);
  x[5] = 1e5f;
  write_float_npy(files.input, {1, 4, 8, 8}, x);
  const std::string reference = temp_path("reference.npy");
  for (float& v : x) v = std::max(v, 0.0f);
  write_float_npy(reference, {1, 4, 8, 8}, x);
  auto result = run_npuvp("infer " + files.model + " --input " + files.input + " --reference " + reference +
                          " --cosine-min 0.999 --quiet");
  EXPECT_EQ(result.status, 1) << result.err;
  EXPECT_THAT(result.err, HasSubstr("warning: input " + files.input +
                                    ": 1 of 256 values beyond float16's range (+-65504) become +-inf"));
  EXPECT_THAT(result.out, HasSubstr("cosine nan, max abs error inf, top-1 32/32, 1 of 256 outputs inf or NaN"));
  EXPECT_THAT(last_line(result.err), HasSubstr("FAIL: cosine nan < 0.999000"));
  std::remove(reference.c_str());
}
