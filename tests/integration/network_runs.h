// What the network tests share: `npuvp infer` of a network the build generated
// (sw/networks, NPUVP_NETWORKS_DIR) against its PyTorch reference, and reading what
// the run reports (infer's comparison line, the --profile CSV).
#pragma once

#include "integration/run_npuvp.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

namespace npuvp::test_support {

inline const std::string kNetworks = NPUVP_NETWORKS_DIR;

// `npuvp infer` of the generated network `model` on its input, compared with its
// reference; `options` follow (e.g. " --quiet --set soc.ai_cores=2").
inline CommandResult infer_generated_network(const std::string& model, const std::string& options) {
  return run_npuvp("infer " + kNetworks + "/" + model + ".onnx --input " + kNetworks + "/" + model + ".input.npy" +
                   " --reference " + kNetworks + "/" + model + ".reference.npy" + options);
}

// The cosine similarity of infer's comparison line ("...: cosine 0.999819 ..."); 0, and a
// test failure, when the run printed none.
inline double reported_cosine(const CommandResult& result) {
  const auto cosine = result.out.find(": cosine ");
  EXPECT_NE(cosine, std::string::npos) << "no comparison line: " << result.out;
  return cosine == std::string::npos ? 0 : std::atof(result.out.c_str() + cosine + 9);
}

// The latency of a profile's total line (`latency_seconds=`); 0, and a test failure, without one.
inline double profile_latency(const std::string& csv) {
  const auto latency = csv.find("latency_seconds=");
  EXPECT_NE(latency, std::string::npos) << "no latency in the profile";
  return latency == std::string::npos ? 0 : std::atof(csv.c_str() + latency + 16);
}

// The index of the column `name` in a profile's header (a test failure when it has none).
inline std::size_t column(const std::vector<std::string>& header, const std::string& name) {
  const auto at = std::find(header.begin(), header.end(), name);
  EXPECT_NE(at, header.end()) << "the profile has no column " << name;
  return static_cast<std::size_t>(at - header.begin());
}

}  // namespace npuvp::test_support
