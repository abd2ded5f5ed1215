// End to end through the harness: the smoke kernel (MTE2 -> Vector -> MTE3,
// chained by flags) doubles 128 halves on aicore0.
#include "integration/kernel_harness.h"
#include "npu/numerics.h"

#include <gtest/gtest.h>

namespace npuvp {
namespace {

using test_support::KernelRun;

TEST(AiCoreSmoke, DoublesHalvesThroughThreePipes) {
  KernelRun run("smoke");
  std::vector<std::uint16_t> x(128);
  for (unsigned i = 0; i < x.size(); ++i) x[i] = numerics::float_to_half(static_cast<float>(i) * 0.25f - 7.0f);
  run.write(0x9000'0000, x);
  run.set_args({0x9000'0000, 0x9000'1000});
  ASSERT_EQ(run.run(1), 0) << run.reason();
  auto y = run.read<std::uint16_t>(0x9000'1000, 128);
  for (unsigned i = 0; i < x.size(); ++i)
    EXPECT_EQ(y[i], numerics::float_to_half(2 * numerics::half_to_float(x[i]))) << "element " << i;
  EXPECT_EQ(run.stat("soc.aicore0.vector.instructions"), 1);
  EXPECT_EQ(run.stat("soc.aicore0.mte2.instructions"), 1);
  EXPECT_EQ(run.stat("soc.aicore0.mte3.instructions"), 1);
  EXPECT_EQ(run.stat("soc.aicore0.blocks_done"), 1);
  EXPECT_EQ(run.stat("soc.aicore0.bytes.gm_to_ub"), 256);
}

}  // namespace
}  // namespace npuvp
