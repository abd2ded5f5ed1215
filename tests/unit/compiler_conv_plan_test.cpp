// op_conv's plan (sw/include/npuvp/conv_plan.h), which the compiler computes and packs into
// the launch's NPUVP_CONV_PLAN_* words and the kernel only unpacks: the words carry every
// field, impossible layers are refused with their reason, and the choices the kernel relies on
// (256-column C tiles for small bands, their K parts, the planner's part count) hold.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "npuvp/conv_plan.h"
#include "tiling_planner.h"

namespace npuvp::compiler::test {
namespace {

npuvp_conv_geometry square(std::uint64_t cin, std::uint64_t size, std::uint64_t cout, std::uint64_t k,
                           std::uint64_t stride) {
  const std::uint64_t pad = k / 2;
  return {1, cin, size, size, cout, k, k, stride, stride, pad, pad, pad, pad, 1, 1};
}

std::vector<std::uint64_t> fields(const npuvp_conv_plan& p) {
  return {p.ho,  p.wo,          p.tile_ho,           p.n_st,           p.group,        p.n_cg,
          p.units, p.parts,     p.part_groups,       p.part_kf,        p.panel_token_parts, p.panel_token_kf,
          p.panel_tokens, p.n_chunks, p.slice_slots, p.slice_slot_bytes, p.resident,   p.tn};
}

TEST(CompilerConvPlan, WordsCarryEveryField) {
  // ResNet-50's shapes (resident and streamed weights, stride 2, the stem) on 1, 2 and 8 blocks,
  // double buffered or not, with the kernel's default tiling and explicit tiles.
  const npuvp_conv_geometry layers[] = {square(3, 224, 64, 7, 2),     square(64, 56, 64, 3, 1),
                                        square(256, 56, 128, 1, 1),   square(1024, 14, 256, 1, 1),
                                        square(256, 14, 256, 3, 1),   square(1024, 14, 2048, 1, 2),
                                        square(512, 7, 512, 3, 1),    square(20, 13, 18, 3, 1)};
  for (const auto& g : layers)
    for (std::uint64_t blocks : {1, 2, 8})
      for (int db : {0, 1})
        for (std::uint64_t tile_ho : {0, 3}) {
          SCOPED_TRACE(std::to_string(g.cin) + "x" + std::to_string(g.h) + " -> " + std::to_string(g.cout) + " k" +
                       std::to_string(g.kh) + " blocks " + std::to_string(blocks) + " db " + std::to_string(db) +
                       " tile_ho " + std::to_string(tile_ho));
          npuvp_conv_plan plan{};
          ASSERT_EQ(npuvp_conv_plan_make(&g, tile_ho, 0, blocks, db, &plan), nullptr);
          EXPECT_GT(plan.units, 0u);
          EXPECT_LE(plan.slice_slots * plan.slice_slot_bytes, std::uint64_t(NPUVP_CONV_L1_BYTES));
          std::uint64_t args[NPUVP_CONV_ARG_COUNT] = {};
          ASSERT_EQ(npuvp_conv_plan_pack(&plan, args), nullptr);
          npuvp_conv_plan back{};
          ASSERT_TRUE(npuvp_conv_plan_unpack(args, &back));
          EXPECT_EQ(fields(back), fields(plan));
        }
}

TEST(CompilerConvPlan, WordsWithoutAPlanSayNone) {
  const std::uint64_t args[NPUVP_CONV_ARG_COUNT] = {};
  npuvp_conv_plan plan{};
  EXPECT_FALSE(npuvp_conv_plan_unpack(args, &plan));  // the kernel stops at conv_plan_missing
}

TEST(CompilerConvPlan, ImpossibleLayersAreRefusedWithTheReason) {
  npuvp_conv_plan plan{};
  npuvp_conv_geometry g = square(16, 4, 16, 1, 1);
  g.pt = 300;
  EXPECT_EQ(std::string(npuvp_conv_plan_make(&g, 0, 0, 1, 1, &plan)),
            "a pad, kernel size, stride or dilation is above 255 (set_fmatrix and img2col hold 8 bits)");
  g = square(16, 4, 16, 7, 1);
  g.pt = g.pb = 0;
  EXPECT_EQ(std::string(npuvp_conv_plan_make(&g, 0, 0, 1, 1, &plan)), "the window is larger than the padded input");
  // 4096 channels x 512 columns: one input row is 4 MiB
  g = square(4096, 512, 16, 1, 1);
  EXPECT_EQ(std::string(npuvp_conv_plan_make(&g, 0, 0, 1, 1, &plan)),
            "the input rows of one output row do not fit L1 beside the weights");
  // a field beyond its bits in the words
  g = square(64, 14, 64, 1, 1);
  ASSERT_EQ(npuvp_conv_plan_make(&g, 0, 0, 1, 1, &plan), nullptr);
  plan.wo = 70000;
  std::uint64_t args[NPUVP_CONV_ARG_COUNT] = {};
  EXPECT_EQ(std::string(npuvp_conv_plan_pack(&plan, args)), "output rows or columns above 65535");
  EXPECT_EQ(args[NPUVP_CONV_PLAN_L1], 0u);
}

TEST(CompilerConvPlan, SmallBandsWithResidentWeightsGetWideTilesAndSmallerParts) {
  const npuvp_conv_geometry g = square(1024, 14, 256, 1, 1);  // 512 KiB of weights: resident
  npuvp_conv_plan plan{};
  ASSERT_EQ(npuvp_conv_plan_make(&g, 8, 32, 2, 1, &plan), nullptr);  // 8 rows: 112 positions
  EXPECT_EQ(plan.resident, 1u);
  EXPECT_EQ(plan.tn, std::uint64_t(NPUVP_CONV_WIDE_TN));
  EXPECT_EQ(plan.part_groups, 5u);  // 64 channel groups in 13 parts
  EXPECT_EQ(plan.parts, 13u);
  ASSERT_EQ(npuvp_conv_plan_make(&g, 14, 32, 2, 1, &plan), nullptr);  // 196 positions
  EXPECT_EQ(plan.tn, std::uint64_t(NPUVP_CONV_MAX_TN));
  EXPECT_EQ(plan.parts, 8u);
  // the planner models the kernel's parts with the same function
  EXPECT_EQ(conv_k_parts(64, 64), std::int64_t(plan.parts));
  const npuvp_conv_geometry streamed = square(1024, 14, 512, 1, 1);  // 1 MiB: streamed
  ASSERT_EQ(npuvp_conv_plan_make(&streamed, 8, 32, 2, 1, &plan), nullptr);
  EXPECT_EQ(plan.resident, 0u);
  EXPECT_EQ(plan.tn, std::uint64_t(NPUVP_CONV_MAX_TN));
}

}  // namespace
}  // namespace npuvp::compiler::test
