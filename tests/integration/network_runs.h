// What the network tests share: `npuvp infer` of a network the build generated
// (sw/networks, NPUVP_NETWORKS_DIR) against its PyTorch reference, and reading what
// the run reports (infer's comparison line, the --profile CSV).
#pragma once

#include "csv_fields.h"
#include "integration/run_npuvp.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>
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

// One layer row of a --profile CSV, its fields by column name.
class ProfileRow {
 public:
  ProfileRow(const std::vector<std::string>& header, const std::vector<std::string>& fields) {
    for (std::size_t i = 0; i < header.size(); ++i) by_column_[header[i]] = fields[i];
  }
  // The field of column `name` ("0", and a test failure, when the profile has no such column).
  const std::string& operator[](const std::string& name) const {
    static const std::string kMissing = "0";
    const auto at = by_column_.find(name);
    EXPECT_NE(at, by_column_.end()) << "the profile has no column " << name;
    return at == by_column_.end() ? kMissing : at->second;
  }
  double number(const std::string& name) const { return std::stod((*this)[name]); }
  std::uint64_t count(const std::string& name) const { return std::stoull((*this)[name]); }

 private:
  std::map<std::string, std::string> by_column_;
};

// The layer rows of a --profile CSV's text (the total line left out); a row whose field count
// differs from the header's is a test failure.
inline std::vector<ProfileRow> profile_rows(const std::string& csv) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = csv_fields(line);
  std::vector<ProfileRow> rows;
  while (std::getline(in, line)) {
    const std::vector<std::string> fields = csv_fields(line);
    if (fields.empty() || fields[0] == "total") continue;
    EXPECT_EQ(fields.size(), header.size()) << "malformed row: " << line;
    if (fields.size() == header.size()) rows.emplace_back(header, fields);
  }
  EXPECT_FALSE(rows.empty()) << "a profile without layers";
  return rows;
}

// `npuvp infer` of a generated network writing its profile: the run and the profile's rows.
struct ProfiledRun {
  CommandResult result;
  std::vector<ProfileRow> layers;
};
inline ProfiledRun infer_with_profile(const std::string& model, const std::string& options) {
  const std::string profile = temp_path(model + "_profile.csv");
  ProfiledRun run;
  run.result = infer_generated_network(model, " --profile " + profile + " --quiet" + options);
  EXPECT_EQ(run.result.status, 0) << run.result.err;
  if (run.result.status == 0) run.layers = profile_rows(read_file(profile));
  std::remove(profile.c_str());
  return run;
}

}  // namespace npuvp::test_support
