// `npuvp stats diff A.json B.json`: the statistics that changed between two
// runs (files written by `npuvp run --stats`), with their ratio B / A. The
// daily tool of a parameter sweep: run twice, diff, read what moved.
// docs/cli.md ("Comparing runs") describes the output.
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace npuvp {

struct StatsDiffOptions {
  std::string before_path, after_path;
  // Shell-style patterns (fnmatch) on statistic names; empty: every name.
  std::vector<std::string> patterns;
  // Report a change only when |B - A| / max(|A|, |B|) is at least this.
  double threshold = 0.0;
  bool include_unchanged = false;  // --all: every statistic, changed or not
};

// One compared value. A histogram gives two: "<name>.count" and "<name>.mean".
struct StatChange {
  std::string name;
  bool in_before = false, in_after = false;
  double before = 0, after = 0;
  bool changed() const { return in_before != in_after || before != after; }
  // after / before; 0 when before is 0 (shown as "new" or "-").
  double ratio() const { return before != 0 ? after / before : 0.0; }
};

// The comparison of two stats documents (the run summaries included, under
// "npuvp.sim_time_seconds", "npuvp.instructions", "npuvp.exit_status"), sorted
// by name, filtered by `options` (patterns, threshold, include_unchanged).
std::vector<StatChange> compare_statistics(const nlohmann::json& before, const nlohmann::json& after,
                                           const StatsDiffOptions& options);

// Reads both files, prints the table to `out`. Returns the process exit
// status: 0, or ExitStatus::kBadInput with a one-line error on `error` for a
// missing or malformed file.
int stats_diff(const StatsDiffOptions& options, std::ostream& out, std::ostream& error);

}  // namespace npuvp
