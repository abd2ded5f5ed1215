// The timing model can never beat the roofline: for ResNet-18 through `npuvp infer`, every
// layer's simulated cycles in the --profile CSV are at least its roofline bound (the larger
// of its MACs at the Cube's peak on every AI Core and its minimum bytes at the DDR
// bandwidth). A layer below it means a bug in the report or in the timing model. Simulated
// cycles are deterministic, so this is a test; wall time is measured in tests/bench.
#include "integration/run_npuvp.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

using namespace npuvp::test_support;

namespace {

const std::string kNetworks = NPUVP_NETWORKS_DIR;

// One CSV line; a field in double quotes may hold commas (the shapes column does).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

std::size_t column(const std::vector<std::string>& header, const std::string& name) {
  const auto at = std::find(header.begin(), header.end(), name);
  EXPECT_NE(at, header.end()) << "the profile has no column " << name;
  return static_cast<std::size_t>(at - header.begin());
}

TEST(NetworkRoofline, EveryResNet18LayerTakesAtLeastItsRooflineBound) {
  const std::string profile = temp_path("resnet18.csv");
  const CommandResult result = run_npuvp("infer " + kNetworks + "/resnet18.onnx --input " + kNetworks +
                                         "/resnet18.input.npy --profile " + profile + " --quiet");
  ASSERT_EQ(result.status, 0) << result.err;

  std::ifstream in(profile);
  ASSERT_TRUE(in) << "no profile written to " << profile;
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = csv_fields(line);
  const std::size_t name = column(header, "layer"), cycles = column(header, "cycles"),
                    roofline = column(header, "roofline_cycles"), bound = column(header, "bound"),
                    macs = column(header, "macs");
  ASSERT_FALSE(HasFailure());

  int layers = 0, convolutions_with_macs = 0;
  while (std::getline(in, line)) {
    const std::vector<std::string> f = csv_fields(line);
    if (f.empty() || f[0] == "total") continue;
    ASSERT_EQ(f.size(), header.size()) << "malformed row: " << line;
    ++layers;
    SCOPED_TRACE(f[name]);
    ASSERT_NE(f[bound], "not run");
    const double simulated = std::stod(f[cycles]), bound_cycles = std::stod(f[roofline]);
    EXPECT_GT(bound_cycles, 0.0);
    EXPECT_GE(simulated, bound_cycles) << "simulated " << simulated << " cycles, roofline bound " << bound_cycles;
    convolutions_with_macs += std::stod(f[macs]) > 0;
  }
  std::remove(profile.c_str());
  // ResNet-18: 20 convolutions and the classifier carry MACs (more layers when split).
  EXPECT_GE(convolutions_with_macs, 21);
  EXPECT_GE(layers, convolutions_with_macs);
}

}  // namespace
