// The model runtime's package check (sw/runtime/package_check.c), compiled for
// the host: a well-formed package passes, and each kind of damage gives its own
// status and a one-line message naming what and where.
extern "C" {
#include "../../sw/runtime/package_check.c"
}

#include "package_builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace {

using npuvp::test_support::header_of;
using npuvp::test_support::PackageBuilder;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr std::uint32_t kRelu = 3;

// Two layers, three launches on two streams with an event, a constant, pinned weights, an input
// and an output; the Relu reads its input from the L2 arena.
std::vector<std::uint8_t> good_package() {
  PackageBuilder b("good");
  const std::uint64_t in = b.add_tensor("x", NPUVP_TENSOR_INPUT, {1, 3, 8, 8});
  const std::uint64_t out = b.add_tensor("y", NPUVP_TENSOR_OUTPUT, {1, 192});
  const std::uint64_t constant = b.add_constant(std::vector<std::uint16_t>(192, 0x3c00));
  const std::uint64_t pinned = b.add_pinned_constant(std::vector<std::uint16_t>(96, 0x3c00));
  b.set_arena_bytes(4096);
  b.set_l2_arena_bytes(2048);
  b.add_layer("conv1", "Conv+Relu", "1x3x8x8 -> 1x192", 1000, 2000);
  b.add_launch(NPUVP_OP_KERNEL_CONV, 4, {{in, NPUVP_RELOC_IO}, {constant, NPUVP_RELOC_CONSTANTS}, {0}, {pinned, NPUVP_RELOC_CONSTANTS}, {0, NPUVP_RELOC_ARENA}}, 1, 0, 5)
      .l2_args = 1u << 3;
  b.add_launch(kRelu, 2, {{0, NPUVP_RELOC_ARENA}, {1024, NPUVP_RELOC_ARENA}, {192}}, 1).l2_args = 1u << 0;
  b.add_layer("fc", "Gemm", "1x192 -> 1x192");
  b.add_launch(NPUVP_OP_KERNEL_MATMUL, 1, {{1024, NPUVP_RELOC_ARENA}, {out, NPUVP_RELOC_IO}}, 0, PackageBuilder::event_bit(5), -1);
  return b.build();
}

struct Checked {
  int status;
  std::string message;
};

Checked check(const std::vector<std::uint8_t>& image, std::uint64_t available = 0) {
  char message[NPUVP_MODEL_MESSAGE_BYTES];
  std::memset(message, 'x', sizeof message);
  const int status = npuvp_package_check(image.data(), available ? available : image.size(), message, sizeof message);
  EXPECT_NE(std::memchr(message, 0, sizeof message), nullptr);
  return {status, message};
}

// Applies `damage` to a good package and expects `status` and a message containing `text`.
void expect_refused(const std::function<void(std::vector<std::uint8_t>&)>& damage, int status, const std::string& text) {
  auto image = good_package();
  damage(image);
  const Checked result = check(image);
  EXPECT_EQ(result.status, status) << result.message;
  EXPECT_THAT(result.message, HasSubstr(text));
  EXPECT_THAT(result.message, Not(HasSubstr("\n")));
  EXPECT_STRNE(npuvp_model_status_name(result.status), "unknown runtime status");
}

npuvp_package_launch& launch_of(std::vector<std::uint8_t>& image, unsigned i) {
  auto& h = header_of(image);
  return reinterpret_cast<npuvp_package_launch*>(image.data() + h.launches_offset)[i];
}
npuvp_package_layer& layer_of(std::vector<std::uint8_t>& image, unsigned i) {
  auto& h = header_of(image);
  return reinterpret_cast<npuvp_package_layer*>(image.data() + h.layers_offset)[i];
}
npuvp_package_tensor& tensor_of(std::vector<std::uint8_t>& image, unsigned i) {
  auto& h = header_of(image);
  return reinterpret_cast<npuvp_package_tensor*>(image.data() + h.tensors_offset)[i];
}

TEST(PackageCheck, AWellFormedPackagePasses) {
  const Checked result = check(good_package());
  EXPECT_EQ(result.status, NPUVP_MODEL_OK) << result.message;
  EXPECT_EQ(result.message, "");
}

TEST(PackageCheck, NullAndTruncated) {
  char message[200];
  EXPECT_EQ(npuvp_package_check(nullptr, 100, message, sizeof message), NPUVP_MODEL_ERR_ARGUMENT);
  auto image = good_package();
  Checked small = check(image, sizeof(npuvp_package_header) - 1);
  EXPECT_EQ(small.status, NPUVP_MODEL_ERR_TRUNCATED);
  EXPECT_THAT(small.message, HasSubstr("smaller than its"));
  Checked shorter = check(image, image.size() - 1);
  EXPECT_EQ(shorter.status, NPUVP_MODEL_ERR_TRUNCATED);
  EXPECT_THAT(shorter.message, HasSubstr("total_bytes " + std::to_string(image.size())));
  expect_refused([](auto& p) { header_of(p).total_bytes = 8; }, NPUVP_MODEL_ERR_TRUNCATED, "total_bytes 8");
}

TEST(PackageCheck, MagicAndVersion) {
  expect_refused([](auto& p) { header_of(p).magic = 0x12345678; }, NPUVP_MODEL_ERR_MAGIC, "magic 0x12345678");
  expect_refused([](auto& p) { header_of(p).version = 7; }, NPUVP_MODEL_ERR_VERSION, "format version 7");
  // A version 1 package (one wait event per launch, before multi-stream packages) is refused
  // with what to do, not misread.
  static_assert(NPUVP_PACKAGE_VERSION == 6, "the format changed: add the previous version here");
  expect_refused([](auto& p) { header_of(p).version = 1; }, NPUVP_MODEL_ERR_VERSION,
                 "package: format version 1, this runtime reads version 6 only (compile the model again with this "
                 "build's compiler)");
  // Nor a version 2 package (no L2 arena: its header is shorter).
  expect_refused([](auto& p) { header_of(p).version = 2; }, NPUVP_MODEL_ERR_VERSION,
                 "package: format version 2, this runtime reads version 6 only");
  // Nor a version 3 package (its profile area has no room for the AI Cores' window).
  expect_refused([](auto& p) { header_of(p).version = 3; }, NPUVP_MODEL_ERR_VERSION,
                 "package: format version 3, this runtime reads version 6 only");
  // Nor a version 4 package (Conv launches without op_conv's plan words: the kernel would fault).
  expect_refused([](auto& p) { header_of(p).version = 4; }, NPUVP_MODEL_ERR_VERSION,
                 "package: format version 4, this runtime reads version 6 only");
  // Nor a version 5 package (no pinned weights: its header is shorter).
  expect_refused([](auto& p) { header_of(p).version = 5; }, NPUVP_MODEL_ERR_VERSION,
                 "package: format version 5, this runtime reads version 6 only");
}

TEST(PackageCheck, EveryRegionInsideTotalBytes) {
  expect_refused([](auto& p) { header_of(p).strings_bytes = header_of(p).total_bytes; }, NPUVP_MODEL_ERR_REGION, "string table");
  expect_refused([](auto& p) { header_of(p).layer_count = 1u << 30; }, NPUVP_MODEL_ERR_REGION, "layer table");
  expect_refused([](auto& p) { header_of(p).launches_offset = ~0ull - 8; }, NPUVP_MODEL_ERR_REGION, "launch table");
  expect_refused([](auto& p) { header_of(p).tensor_count = 0xffffffffu; }, NPUVP_MODEL_ERR_REGION, "tensor table");
  expect_refused([](auto& p) { header_of(p).constants_bytes = ~0ull; }, NPUVP_MODEL_ERR_REGION, "constants");
  expect_refused([](auto& p) { header_of(p).io_offset = header_of(p).total_bytes + 64; }, NPUVP_MODEL_ERR_REGION, "io area");
  expect_refused([](auto& p) { header_of(p).profile_bytes += 64; }, NPUVP_MODEL_ERR_REGION, "profile area");
}

TEST(PackageCheck, Alignment) {
  expect_refused([](auto& p) { header_of(p).launches_offset += 4; }, NPUVP_MODEL_ERR_ALIGNMENT, "launch table at offset");
  expect_refused([](auto& p) { header_of(p).constants_offset += 8; header_of(p).constants_bytes -= 8; },
                 NPUVP_MODEL_ERR_ALIGNMENT, "64-byte aligned");
}

TEST(PackageCheck, ProfileAreaHoldsEveryLaunch) {
  expect_refused([](auto& p) { header_of(p).profile_bytes -= 8; }, NPUVP_MODEL_ERR_PROFILE, "its 3 launches");
}

TEST(PackageCheck, Strings) {
  expect_refused([](auto& p) { p[header_of(p).strings_offset + header_of(p).strings_bytes - 1] = 'z'; },
                 NPUVP_MODEL_ERR_STRING, "does not end with a NUL");
  expect_refused([](auto& p) { layer_of(p, 1).op = 100000; }, NPUVP_MODEL_ERR_STRING, "layer 1: string offset 100000");
  expect_refused([](auto& p) { header_of(p).model_name = 99999; }, NPUVP_MODEL_ERR_STRING, "string offset 99999");
  expect_refused([](auto& p) { tensor_of(p, 0).name = 77777; }, NPUVP_MODEL_ERR_STRING, "tensor 0");
}

TEST(PackageCheck, Streams) {
  expect_refused([](auto& p) { header_of(p).streams = 0; }, NPUVP_MODEL_ERR_STREAMS, "0 streams");
  expect_refused([](auto& p) { header_of(p).streams = 16; }, NPUVP_MODEL_ERR_STREAMS, "16 streams (1 .. 15)");
}

TEST(PackageCheck, LayersLaunchRange) {
  expect_refused([](auto& p) { layer_of(p, 1).launch_count = 5; }, NPUVP_MODEL_ERR_LAYER, "layer 1 'fc': launches 2 .. 7");
  expect_refused([](auto& p) { layer_of(p, 0).first_launch = 0xffffffffu; }, NPUVP_MODEL_ERR_LAYER, "layer 0 'conv1'");
}

TEST(PackageCheck, Launches) {
  expect_refused([](auto& p) { launch_of(p, 2).kernel = 4; }, NPUVP_MODEL_ERR_KERNEL, "launch 2: kernel id 4");
  expect_refused([](auto& p) { launch_of(p, 0).kernel = 13; }, NPUVP_MODEL_ERR_KERNEL, "kernel id 13");
  expect_refused([](auto& p) { launch_of(p, 1).blocks = 0; }, NPUVP_MODEL_ERR_BLOCKS, "launch 1: 0 task blocks");
  expect_refused([](auto& p) { launch_of(p, 1).blocks = 65536; }, NPUVP_MODEL_ERR_BLOCKS, "65536 task blocks");
  expect_refused([](auto& p) { launch_of(p, 2).layer = 2; }, NPUVP_MODEL_ERR_LAUNCH_LAYER, "launch 2: layer 2 of 2");
  expect_refused([](auto& p) { launch_of(p, 0).stream = 2; }, NPUVP_MODEL_ERR_STREAM, "launch 0: stream 2, but the package has 2");
  expect_refused([](auto& p) { launch_of(p, 1).nargs = 33; }, NPUVP_MODEL_ERR_NARGS, "launch 1: 33 argument words");
  expect_refused([](auto& p) { launch_of(p, 2).record_event = 64; }, NPUVP_MODEL_ERR_EVENT, "record event 64");
  expect_refused([](auto& p) { launch_of(p, 0).record_event = -2; }, NPUVP_MODEL_ERR_EVENT, "record event -2");
  // Every bit of the wait mask names one of the 64 events: all waits are valid.
  auto all_waits = good_package();
  launch_of(all_waits, 2).wait_events = ~std::uint64_t{0};
  EXPECT_EQ(check(all_waits).status, NPUVP_MODEL_OK);
}

TEST(PackageCheck, RelocatedArgumentsStayInTheirRegion) {
  expect_refused([](auto& p) { launch_of(p, 1).args[1] = 4096; }, NPUVP_MODEL_ERR_RELOCATION,
                 "launch 1 (layer 'conv1'): argument 1 = offset 4096 outside the arena (4096 bytes)");
  expect_refused([](auto& p) { launch_of(p, 0).args[1] = header_of(p).constants_bytes; }, NPUVP_MODEL_ERR_RELOCATION,
                 "outside the constants");
  expect_refused([](auto& p) { launch_of(p, 2).args[1] = header_of(p).io_bytes + 2; }, NPUVP_MODEL_ERR_RELOCATION,
                 "outside the io area");
  expect_refused([](auto& p) { launch_of(p, 1).relocation |= std::uint64_t{NPUVP_RELOC_IO} << (2 * 5); },
                 NPUVP_MODEL_ERR_RELOCATION, "argument 5 is relocated but the launch has 3 arguments");
  // An argument in the L2 arena stays inside the L2 arena's bytes, not the DDR arena's.
  expect_refused([](auto& p) { launch_of(p, 1).args[0] = 2048; }, NPUVP_MODEL_ERR_RELOCATION,
                 "launch 1 (layer 'conv1'): argument 0 = offset 2048 outside the L2 arena (2048 bytes)");
  expect_refused([](auto& p) { header_of(p).l2_arena_bytes = 0; }, NPUVP_MODEL_ERR_RELOCATION,
                 "argument 0 = offset 0 outside the L2 arena (0 bytes)");
  // Only an arena or constants argument has an L2 counterpart.
  expect_refused([](auto& p) { launch_of(p, 1).l2_args |= 1u << 2; }, NPUVP_MODEL_ERR_RELOCATION,
                 "launch 1: argument 2 is marked L2 but is not relative to an arena or the constants");
  // A pinned weights argument stays inside the pinned weights (192 bytes, a 64-byte multiple).
  expect_refused([](auto& p) { launch_of(p, 0).args[3] = 192; }, NPUVP_MODEL_ERR_RELOCATION,
                 "launch 0 (layer 'conv1'): argument 3 = offset 192 outside the pinned weights (192 bytes)");
  expect_refused([](auto& p) { header_of(p).pinned_bytes = 0; header_of(p).pinned_offset = 0; },
                 NPUVP_MODEL_ERR_RELOCATION, "argument 3 = offset 0 outside the pinned weights (0 bytes)");
}

TEST(PackageCheck, PinnedWeightsLieInsideTheConstants) {
  expect_refused([](auto& p) { header_of(p).pinned_offset = header_of(p).constants_bytes; }, NPUVP_MODEL_ERR_REGION,
                 "package: pinned weights at constants offset 576 (192 bytes) reach past the constants (576 bytes)");
  expect_refused([](auto& p) { header_of(p).pinned_bytes = ~std::uint64_t(0) - 63; }, NPUVP_MODEL_ERR_REGION,
                 "reach past the constants");
  expect_refused([](auto& p) { header_of(p).pinned_offset -= 32; }, NPUVP_MODEL_ERR_ALIGNMENT,
                 "package: pinned weights at constants offset 352 (192 bytes) are not 64-byte aligned");
  expect_refused([](auto& p) { header_of(p).pinned_bytes -= 2; }, NPUVP_MODEL_ERR_ALIGNMENT, "are not 64-byte aligned");
}

TEST(PackageCheck, Tensors) {
  expect_refused([](auto& p) { tensor_of(p, 1).role = 2; }, NPUVP_MODEL_ERR_TENSOR, "tensor 1 'y': role 2");
  expect_refused([](auto& p) { tensor_of(p, 0).type = 2; }, NPUVP_MODEL_ERR_TENSOR, "tensor 0 'x': type 2");
  expect_refused([](auto& p) { tensor_of(p, 0).rank = 7; }, NPUVP_MODEL_ERR_TENSOR, "rank 7");
  expect_refused([](auto& p) { tensor_of(p, 0).dims[1] = 4; }, NPUVP_MODEL_ERR_TENSOR, "384 bytes, but its shape holds 256");
  expect_refused([](auto& p) { tensor_of(p, 1).io_offset = header_of(p).io_bytes; }, NPUVP_MODEL_ERR_TENSOR,
                 "reaches past the io area");
}

TEST(PackageCheck, KernelNames) {
  EXPECT_STREQ(npuvp_model_kernel_name(NPUVP_OP_KERNEL_CONV), "op_conv");
  EXPECT_STREQ(npuvp_model_kernel_name(NPUVP_OP_KERNEL_DWCONV), "op_dwconv");
  EXPECT_STREQ(npuvp_model_kernel_name(2), "vector_add");
  EXPECT_EQ(npuvp_model_kernel_name(4), nullptr);  // conv2d: not an operator kernel
  EXPECT_EQ(npuvp_model_kernel_name(0), nullptr);
}

}  // namespace
