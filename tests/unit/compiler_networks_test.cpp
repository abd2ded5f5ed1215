// The compiler on the models the build generates into build/networks
// (sw/networks/generate.py; skipped when they are absent): every per-operator
// model and the small networks compiled, run on the host emulator of the kernel
// contract and compared with PyTorch's fp32 output; ResNet-50 and BERT-base
// compiled with their compile time and layer counts printed (a figure, not an
// assertion).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "compiler_package_emulator.h"
#include "compiler_reference_ops.h"
#include "compiler_test_support.h"

namespace npuvp::compiler::test {
namespace {

const std::string kNetworks = std::string(NPUVP_NETWORKS_DIR);

// A float32 little-endian C-order .npy (the generator's format).
std::vector<float> read_npy(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error(path + ": cannot open");
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) throw std::runtime_error(path + ": not .npy");
  const int major = bytes[6];
  const std::size_t header_len = major == 1 ? std::size_t(std::uint8_t(bytes[8]) | std::uint8_t(bytes[9]) << 8)
                                            : std::size_t(*reinterpret_cast<const std::uint32_t*>(&bytes[8]));
  const std::size_t start = (major == 1 ? 10 : 12) + header_len;
  const std::string header = bytes.substr(major == 1 ? 10 : 12, header_len);
  if (header.find("'<f4'") == std::string::npos || header.find("'fortran_order': False") == std::string::npos)
    throw std::runtime_error(path + ": not little-endian float32 C order");
  std::vector<float> values((bytes.size() - start) / 4);
  std::memcpy(values.data(), bytes.data() + start, values.size() * 4);
  return values;
}

bool have_networks() { return std::filesystem::exists(kNetworks + "/lenet5.onnx"); }

void check_against_pytorch(const std::string& name) {
  const std::string base = kNetworks + "/" + name;
  const CompiledModel model = compile_onnx_file(base + ".onnx", {});
  const auto input = read_npy(base + ".input.npy");
  const auto reference = read_npy(base + ".reference.npy");
  const auto output = PackageEmulator(model.package).run(input);
  ASSERT_EQ(output.size(), reference.size()) << name;
  const auto a = ref::agreement(output, reference);
  EXPECT_GE(a.cosine, 0.999) << name << ": relative error " << a.relative_error;
}

TEST(CompilerNetworks, EveryOperatorModelMatchesPyTorch) {
  ASSERT_TRUE(have_networks()) << kNetworks << " not generated (the networks target builds it)";
  int models = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kNetworks)) {
    const std::string file = entry.path().filename().string();
    if (file.rfind("op_", 0) != 0 || entry.path().extension() != ".onnx") continue;
    SCOPED_TRACE(file);
    check_against_pytorch(file.substr(0, file.size() - 5));
    ++models;
  }
  EXPECT_GT(models, 20);
}

TEST(CompilerNetworks, LeNet5MatchesPyTorch) {
  ASSERT_TRUE(have_networks()) << kNetworks << " not generated (the networks target builds it)";
  check_against_pytorch("lenet5");
}

TEST(CompilerNetworks, MobileNetV2MatchesPyTorch) {
  ASSERT_TRUE(have_networks()) << kNetworks << " not generated (the networks target builds it)";
  check_against_pytorch("mobilenetv2");
}

TEST(CompilerNetworks, Gpt2BlockMatchesPyTorch) {
  ASSERT_TRUE(have_networks()) << kNetworks << " not generated (the networks target builds it)";
  check_against_pytorch("gpt2_block");
}

TEST(CompilerNetworks, TwoLayerEncoderMatchesPyTorch) {
  ASSERT_TRUE(have_networks()) << kNetworks << " not generated (the networks target builds it)";
  check_against_pytorch("bert_2layer");
}

TEST(CompilerNetworks, CompileTimeAndLayersOfTheLargeNetworks) {
  ASSERT_TRUE(have_networks()) << kNetworks << " not generated (the networks target builds it)";
  for (const char* name : {"resnet18", "resnet50", "bert_base"}) {
    const auto start = std::chrono::steady_clock::now();
    const CompiledModel model = compile_onnx_file(kNetworks + "/" + name + ".onnx", {});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::map<std::string, int> ops;
    std::uint64_t macs = 0;
    int compute_bound = 0;
    for (const auto& layer : model.layers) {
      ++ops[layer.op];
      macs += layer.macs;
      compute_bound += layer.compute_bound;
    }
    std::printf("%-10s compiled in %.2f s: %zu layers (%d compute-bound), %.2f GMAC, package %.1f MB, arena %.1f MB "
                "(activations %.1f MB without reuse), %u layout conversions\n",
                name, seconds, model.layers.size(), compute_bound, macs / 1e9, model.package.size() / 1e6,
                model.arena_bytes / 1e6, model.activation_bytes_total / 1e6, model.layout_conversions);
    for (const auto& [op, count] : ops) std::printf("    %4d x %s\n", count, op.c_str());
    EXPECT_LT(model.arena_bytes, model.activation_bytes_total);
    EXPECT_LE(model.layout_conversions, 2u);
  }
}

}  // namespace
}  // namespace npuvp::compiler::test
