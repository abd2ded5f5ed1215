// The network scenarios (an `infer:` section, docs/scenario-format.md#models): one
// passes with its figures in the verdict, and the same model against a reference it
// does not match fails the check with status 1. (Every generated model through
// `npuvp infer` itself: networks_infer_test.cpp.)
#include "integration/run_npuvp.h"
#include "model_files.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

using namespace npuvp::test_support;
using ::testing::HasSubstr;

namespace {

std::string network_file(const std::string& name) { return std::string(NPUVP_NETWORKS_DIR) + "/" + name; }

TEST(NetworkScenarios, LenetPassesAndAWrongReferenceFailsTheCheck) {
  auto pass = run_npuvp("run " + scenario("lenet5") + " --quiet");
  EXPECT_EQ(pass.status, 0) << pass.err;
  EXPECT_THAT(last_line(pass.err), HasSubstr("lenet5: PASS (cosine "));

  std::vector<float> reference = read_float_npy(network_file("lenet5.reference.npy"));
  ASSERT_EQ(reference.size(), 10u);
  for (auto& value : reference) value = -value;
  const std::string wrong = temp_path("wrong.reference.npy"), yaml = temp_path("lenet5-wrong.yaml");
  write_float_npy(wrong, {1, 10}, reference);
  std::ofstream(yaml) << "infer:\n  model: lenet5.onnx\n  input: lenet5.input.npy\n  reference: " << wrong << "\n";
  auto fail = run_npuvp("run " + yaml + " --quiet");
  EXPECT_EQ(fail.status, 1) << fail.err;
  EXPECT_THAT(last_line(fail.err), HasSubstr("FAIL: cosine -1.000000 < 0.999000; top-1 differs in 1 of 1 rows"));
  std::remove(wrong.c_str());
  std::remove(yaml.c_str());
}

}  // namespace
