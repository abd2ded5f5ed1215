// `npuvp sweep` (docs/exploration.md) as a user runs it: the study format's expansion and its
// bad-input errors, the local engine end to end (a failing point, resume, --retry, --limit),
// and the Slurm engine on a real single-node Slurm started for the test, whose table must
// equal the local engine's bit for bit (host-time columns aside) after a job was cancelled
// and resumed. The values in the tables are checked against `npuvp run` itself.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "csv_fields.h"
#include "integration/run_npuvp.h"

namespace {

namespace fs = std::filesystem;
using npuvp::test_support::CommandResult;
using npuvp::test_support::csv_fields;
using npuvp::test_support::read_file;
using npuvp::test_support::run_command;
using npuvp::test_support::scenario;
using ::testing::HasSubstr;

// A fresh folder per test (tests run in parallel processes).
fs::path make_folder(const std::string& name) {
  fs::path folder = fs::temp_directory_path() / ("npuvp_sweep_test_" + std::to_string(getpid()) + "_" + name);
  fs::remove_all(folder);
  fs::create_directories(folder);
  return folder;
}

fs::path write_study(const fs::path& folder, const std::string& name, const std::string& text) {
  fs::path path = folder / (name + ".yaml");
  std::ofstream(path) << text;
  return path;
}

CommandResult sweep(const std::string& arguments) {
  return run_command(std::string("timeout 300 ") + NPUVP_EXECUTABLE + " sweep " + arguments);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

struct Table {
  std::vector<std::string> columns;
  std::vector<std::map<std::string, std::string>> rows;
};

Table read_table(const fs::path& csv) {
  Table table;
  auto lines = lines_of(read_file(csv.string()));
  if (lines.empty()) return table;
  table.columns = csv_fields(lines[0]);
  for (std::size_t i = 1; i < lines.size(); ++i) {
    auto fields = csv_fields(lines[i]);
    std::map<std::string, std::string> row;
    for (std::size_t c = 0; c < table.columns.size() && c < fields.size(); ++c) row[table.columns[c]] = fields[c];
    table.rows.push_back(row);
  }
  return table;
}

// The table as text without the host columns (wall time, host name, attempt), which differ
// between two runs of the same point; everything else must be identical.
std::string without_host_columns(const Table& table) {
  std::string text;
  for (const auto& row : table.rows) {
    for (const auto& column : table.columns)
      if (column.rfind("host.", 0) != 0) text += column + "=" + row.at(column) + ";";
    text += "\n";
  }
  return text;
}

// What `npuvp run` itself reports for one point: the independent reference for the table.
std::map<std::string, std::string> direct_run(const std::string& arguments, const fs::path& folder) {
  fs::path stats = folder / "direct.json";
  CommandResult result = npuvp::test_support::run_npuvp("run " + scenario("hello") + " " + arguments + " --quiet --stats " +
                                                         stats.string());
  std::string text = read_file(stats.string());
  std::map<std::string, std::string> values;
  for (const char* field : {"sim_time_seconds", "instructions"}) {
    std::smatch match;
    if (std::regex_search(text, match, std::regex(std::string("\"") + field + "\": ([-0-9.e+]+)")))
      values[field] = match[1];
  }
  values["exit_status"] = std::to_string(result.status);
  return values;
}

double as_double(const std::string& text) { return std::strtod(text.c_str(), nullptr); }

// ---- the study format ----------------------------------------------------------------

const char* const kExpansionStudy = R"(name: expansion
base:
  scenario: SCENARIO
space:
  - grid:
      cpu.clock: [250MHz, 500MHz]
      soc.cpu.cpi.alu: [1, 2, 3]
  - zip:
      cpu.clock: [1GHz, 2GHz]
      soc.cpu.cpi.alu: [4, 5]
  - random:
      samples: 4
      seed: SEED
      parameters:
        soc.cpu.cpi.alu: {integers: [1, 8]}
        cpu.clock: {choice: [100MHz, 200MHz, 300MHz]}
repetitions: 2
)";

std::string expansion_study(const std::string& seed) {
  std::string text = kExpansionStudy;
  text.replace(text.find("SCENARIO"), 8, scenario("hello"));
  text.replace(text.find("SEED"), 4, seed);
  return text;
}

TEST(SweepStudy, ExpandsGridZipAndSeededRandomInOrder) {
  fs::path folder = make_folder("expansion");
  fs::path study = write_study(folder, "expansion", expansion_study("7"));
  CommandResult result = sweep(study.string() + " --dry-run");
  ASSERT_EQ(result.status, 0) << result.err;
  auto lines = lines_of(result.out);
  ASSERT_EQ(lines.size(), 24u) << result.out;  // (2 x 3 grid + 2 zipped + 4 random) x 2 repetitions

  // Grid: the last parameter varies fastest; each point twice (repetitions 0 and 1).
  std::vector<std::string> expected = {
      R"("cpu.clock": "250MHz", "soc.cpu.cpi.alu": 1)", R"("cpu.clock": "250MHz", "soc.cpu.cpi.alu": 2)",
      R"("cpu.clock": "250MHz", "soc.cpu.cpi.alu": 3)", R"("cpu.clock": "500MHz", "soc.cpu.cpi.alu": 1)",
      R"("cpu.clock": "500MHz", "soc.cpu.cpi.alu": 2)", R"("cpu.clock": "500MHz", "soc.cpu.cpi.alu": 3)",
      R"("cpu.clock": "1GHz", "soc.cpu.cpi.alu": 4)",   R"("cpu.clock": "2GHz", "soc.cpu.cpi.alu": 5)"};
  for (std::size_t point = 0; point < expected.size(); ++point)
    for (int repetition = 0; repetition < 2; ++repetition) {
      const std::string& line = lines[point * 2 + repetition];
      EXPECT_EQ(line.rfind(std::to_string(point) + "\t" + std::to_string(repetition) + "\t", 0), 0u) << line;
      EXPECT_THAT(line, HasSubstr(expected[point]));
    }

  // Random: within the distributions, and every run its own key.
  std::regex sample(R"re("soc.cpu.cpi.alu": (\d+), "cpu.clock": "(\d+)MHz")re");
  std::set<std::string> keys;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    keys.insert(csv_fields(std::regex_replace(lines[i], std::regex("\t"), ","))[2]);
    if (i < 16) continue;
    std::smatch match;
    ASSERT_TRUE(std::regex_search(lines[i], match, sample)) << lines[i];
    EXPECT_GE(std::stoi(match[1]), 1);
    EXPECT_LE(std::stoi(match[1]), 8);
    EXPECT_THAT((std::set<std::string>{"100", "200", "300"}), ::testing::Contains(match[2].str()));
  }
  EXPECT_EQ(keys.size(), 24u);

  // The same seed draws the same samples; another seed others.
  EXPECT_EQ(sweep(study.string() + " --dry-run").out, result.out);
  fs::path other = write_study(folder, "other-seed", expansion_study("8"));
  auto other_lines = lines_of(sweep(other.string() + " --dry-run").out);
  ASSERT_EQ(other_lines.size(), 24u);
  std::string samples, other_samples;
  for (std::size_t i = 16; i < 24; ++i) {
    samples += lines[i].substr(lines[i].find('{'));
    other_samples += other_lines[i].substr(other_lines[i].find('{'));
  }
  EXPECT_NE(samples, other_samples);
  // --limit keeps the first points.
  EXPECT_EQ(lines_of(sweep(study.string() + " --dry-run --limit 3").out).size(), 6u);
  fs::remove_all(folder);
}

struct BadStudy {
  const char* what;
  std::string space;       // the study's space and statistics, after the base
  std::string message;     // in the one error line
};

TEST(SweepStudy, BadInputIsOneLineBeforeAnythingRuns) {
  fs::path folder = make_folder("bad");
  const std::vector<BadStudy> cases = {
      {"unknown parameter", "space:\n  grid:\n    soc.cpu.no_such_knob: [1, 2]\n",
       "unknown parameter 'soc.cpu.no_such_knob'"},
      {"wrong type", "space:\n  grid:\n    soc.ai_cores: [2, two]\n", "soc.ai_cores expects a uint value"},
      {"wrong choice", "space:\n  grid:\n    soc.ddr.page_policy: [open, sideways]\n", "one of open, close"},
      {"empty list", "space:\n  grid:\n    soc.ai_cores: []\n", "empty list: the space has no points"},
      {"empty random", "space:\n  random: {samples: 0, seed: 1, parameters: {soc.ai_cores: {integers: [1, 4]}}}\n",
       "an empty space otherwise"},
      {"zip lengths", "space:\n  zip:\n    soc.ai_cores: [1, 2]\n    soc.ring.link_width: [16]\n",
       "the lists differ in length"},
      {"statistic nobody reports", "space:\n  grid:\n    soc.ai_cores: [1, 2]\nstatistics: [soc.no_such_unit.*]\n",
       "'soc.no_such_unit.*' matches no statistic the runs report"},
      {"unknown patch entry", "space:\n  grid:\n    patch.no_such_symbol: [1]\n",
       "unknown parameter 'patch.no_such_symbol'"},
      {"code in a derived column", "space:\n  grid:\n    soc.ai_cores: [1]\nderived:\n  x: {expression: \"__import__('os')\"}\n",
       "only numbers, column names"},
  };
  for (const auto& bad : cases) {
    SCOPED_TRACE(bad.what);
    fs::path study =
        write_study(folder, "bad", "name: bad\nbase:\n  scenario: " + scenario("hello") + "\n" + bad.space);
    fs::path out = folder / "out";
    CommandResult result = sweep(study.string() + " --out " + out.string());
    EXPECT_EQ(result.status, 125) << result.err;
    auto lines = lines_of(result.err);
    ASSERT_EQ(lines.size(), 1u) << result.err;
    EXPECT_EQ(lines[0].rfind("npuvp sweep: error: " + study.string() + ": ", 0), 0u) << lines[0];
    EXPECT_THAT(lines[0], HasSubstr(bad.message));
    EXPECT_FALSE(fs::exists(out)) << "nothing may run before the study is checked";
  }
  fs::remove_all(folder);
}

// ---- the local engine ------------------------------------------------------------------

// Four points of hello.yaml; the two with an instruction limit of 1000 fail (status 124).
std::string local_study() {
  return "name: local-e2e\nbase:\n  scenario: " + scenario("hello") + R"(
space:
  grid:
    cpu.clock: [500MHz, 1GHz]
    sim.limit.instructions: [0, 1000]
statistics: [npuvp.sim_time_seconds, npuvp.instructions, soc.cpu.cycles]
derived:
  cycles_per_instruction: {expression: soc.cpu.cycles / npuvp.instructions}
plots:
  - {kind: line, x: cpu.clock, y: npuvp.sim_time_seconds, series: sim.limit.instructions}
  - {kind: heatmap, x: cpu.clock, y: sim.limit.instructions, value: soc.cpu.cycles}
  - {kind: pareto, x: soc.cpu.cycles, y: npuvp.sim_time_seconds, label: cpu.clock}
)";
}

TEST(SweepLocal, RecordsFailuresResumesRetriesAndPlots) {
  fs::path folder = make_folder("local");
  fs::path study = write_study(folder, "local", local_study());
  fs::path out = folder / "out";
  CommandResult first = sweep(study.string() + " --out " + out.string());
  EXPECT_EQ(first.status, 1) << "some runs failed: " << first.err;
  EXPECT_THAT(first.err, HasSubstr("4 of 4 runs finished, 2 failed"));
  EXPECT_THAT(first.err, HasSubstr("[4/4]"));

  Table table = read_table(out / "results.csv");
  ASSERT_EQ(table.rows.size(), 4u);
  for (const auto& row : table.rows) {
    SCOPED_TRACE(row.at("cpu.clock") + " limit " + row.at("sim.limit.instructions"));
    auto reference = direct_run("--set cpu.clock=" + row.at("cpu.clock") + " --set sim.limit.instructions=" +
                                    row.at("sim.limit.instructions"),
                                folder);
    EXPECT_EQ(row.at("exit_status"), reference.at("exit_status"));
    EXPECT_DOUBLE_EQ(as_double(row.at("npuvp.sim_time_seconds")), as_double(reference.at("sim_time_seconds")));
    EXPECT_EQ(row.at("npuvp.instructions"), reference.at("instructions"));
    if (row.at("exit_status") == "0")
      EXPECT_DOUBLE_EQ(as_double(row.at("cycles_per_instruction")),
                       as_double(row.at("soc.cpu.cycles")) / as_double(row.at("npuvp.instructions")));
    else
      EXPECT_EQ(row.at("cycles_per_instruction"), "") << "derived only from runs that passed";
    if (row.at("sim.limit.instructions") == "1000") {
      EXPECT_EQ(row.at("exit_status"), "124");
      EXPECT_THAT(row.at("error"), HasSubstr("instruction limit reached"));
    } else {
      EXPECT_EQ(row.at("error"), "");
    }
  }
  for (const char* plot : {"plot-0-line.png", "plot-1-heatmap.png", "plot-2-pareto.png"}) {
    std::string png = read_file((out / plot).string());
    EXPECT_GT(png.size(), 1000u) << plot;
    EXPECT_EQ(png.substr(0, 4), "\x89PNG") << plot;
  }
  EXPECT_THAT(read_file((out / "results.json").string()), HasSubstr(R"("npuvp.sim_time_seconds": "s")"));

  // Resume: a run that never finished (its result record gone, as after Ctrl-C or a lost
  // node) runs again; the three finished ones are kept, and the table is the same.
  fs::remove(out / "runs" / table.rows[0].at("key") / "result.json");
  CommandResult resumed = sweep(study.string() + " --out " + out.string());
  EXPECT_EQ(resumed.status, 1);
  EXPECT_THAT(resumed.err, HasSubstr("3 of 4 runs finished earlier (kept)"));
  EXPECT_EQ(lines_of(resumed.err).size(), 4u) << "kept, one run's line, its time, the summary: " << resumed.err;
  EXPECT_THAT(resumed.err, HasSubstr("ran 1 run in"));
  EXPECT_EQ(without_host_columns(read_table(out / "results.csv")), without_host_columns(table));

  // --retry: the failed runs run again (their second attempt); they fail the same way.
  CommandResult retried = sweep(study.string() + " --out " + out.string() + " --retry 1");
  EXPECT_EQ(retried.status, 1);
  Table after_retry = read_table(out / "results.csv");
  for (const auto& row : after_retry.rows)
    EXPECT_EQ(row.at("host.attempt"), row.at("exit_status") == "0" ? "1" : "2") << row.at("key");
  EXPECT_EQ(without_host_columns(after_retry), without_host_columns(table));

  // --limit: the first point only, in another folder.
  CommandResult limited = sweep(study.string() + " --limit 1 --out " + (folder / "limited").string());
  EXPECT_EQ(limited.status, 0) << limited.err;
  EXPECT_EQ(read_table(folder / "limited" / "results.csv").rows.size(), 1u);
  fs::remove_all(folder);
}

int finished_runs(const fs::path& out) {
  int count = 0;
  if (!fs::exists(out / "runs")) return 0;
  for (const auto& run : fs::directory_iterator(out / "runs")) count += fs::exists(run.path() / "result.json");
  return count;
}

// Ctrl-C (SIGINT) stops the sweep and its running npuvp; what finished stays, and the same
// command runs only the rest; the finished study reports the Pareto front of its runs.
TEST(SweepLocal, InterruptedStudyResumesAndItsParetoFrontIsTheNonDominatedRuns) {
  fs::path folder = make_folder("interrupt");
  fs::path study = write_study(folder, "interrupt", "name: interrupt\nbase:\n  scenario: " + scenario("mesh-synthetic") + R"(
space:
  grid:
    patch.synthetic_interval: [50, 100, 200, 400]
    soc.mesh.coherence: [mesi, nsi]
statistics: [npuvp.sim_time_seconds, soc.mesh.flits]
plots:
  - {kind: pareto, x: soc.mesh.flits, y: npuvp.sim_time_seconds}
)");
  fs::path out = folder / "out";
  std::string command = std::string("echo $$; exec ") + NPUVP_EXECUTABLE + " sweep " + study.string() +
                        " --jobs 1 --out " + out.string() + " 2>" + (folder / "stderr.txt").string();
  std::FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char line[64] = {};
  ASSERT_NE(std::fgets(line, sizeof line, pipe), nullptr);
  pid_t sweep_pid = static_cast<pid_t>(std::atol(line));
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (finished_runs(out) == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_GT(finished_runs(out), 0);
  kill(sweep_pid, SIGINT);
  int status = pclose(pipe);
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 130) << read_file((folder / "stderr.txt").string());
  int kept = finished_runs(out);
  ASSERT_LT(kept, 8) << "the interrupt came after the last run";
  EXPECT_THAT(read_file((folder / "stderr.txt").string()), HasSubstr("interrupted; finished runs are kept"));

  CommandResult resumed = sweep(study.string() + " --jobs 1 --out " + out.string());
  EXPECT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_THAT(resumed.err, HasSubstr(std::to_string(kept) + " of 8 runs finished earlier (kept)"));
  Table table = read_table(out / "results.csv");
  ASSERT_EQ(table.rows.size(), 8u);
  for (const auto& row : table.rows) EXPECT_EQ(row.at("exit_status"), "0") << row.at("key");

  // The Pareto front the sweep reports: the runs no other run beats in both flits and time.
  std::set<std::string> expected_front;
  for (const auto& p : table.rows) {
    bool dominated = false;
    for (const auto& q : table.rows) {
      double qx = as_double(q.at("soc.mesh.flits")), qy = as_double(q.at("npuvp.sim_time_seconds"));
      double px = as_double(p.at("soc.mesh.flits")), py = as_double(p.at("npuvp.sim_time_seconds"));
      dominated = dominated || (qx <= px && qy <= py && (qx < px || qy < py));
    }
    if (!dominated) expected_front.insert(p.at("key"));
  }
  auto results = nlohmann::json::parse(read_file((out / "results.json").string()));
  ASSERT_EQ(results["plots"].size(), 1u);
  auto front = results["plots"][0]["front"].get<std::vector<std::string>>();
  EXPECT_EQ(std::set<std::string>(front.begin(), front.end()), expected_front);
  EXPECT_LT(expected_front.size(), 8u) << "a front that is every run tests nothing";
  fs::remove_all(folder);
}

// ---- the Slurm engine on a real single-node Slurm ------------------------------------------

// Starts munged, slurmctld and slurmd for this test only and stops them (by their PIDs) at the end.
class SingleNodeSlurm : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = make_folder("slurm");
    cluster_ = folder_ / "cluster";
    CommandResult started = run_command(std::string("/usr/bin/python3 ") + NPUVP_SOURCE_DIR +
                                        "/tests/slurm_single_node.py start " + cluster_.string());
    ASSERT_EQ(started.status, 0) << "single-node Slurm did not start (make deps installs slurm-wlm and munge): "
                                 << started.err;
    std::smatch match;
    ASSERT_TRUE(std::regex_search(started.out, match, std::regex("SLURM_CONF=(\\S+)"))) << started.out;
    setenv("SLURM_CONF", match[1].str().c_str(), 1);
  }
  void TearDown() override {
    run_command(std::string("/usr/bin/python3 ") + NPUVP_SOURCE_DIR + "/tests/slurm_single_node.py stop " +
                cluster_.string());
    fs::remove_all(folder_);
  }
  fs::path folder_, cluster_;
};

bool in_queue(const std::string& job) { return !run_command("squeue -h -j " + job + " -o %i").out.empty(); }

TEST_F(SingleNodeSlurm, JobArrayMatchesTheLocalEngineAndResumesAfterScancel) {
  const int kRuns = 6;
  fs::path study = write_study(folder_, "slurm", "name: slurm-e2e\nbase:\n  scenario: " + scenario("hello") + R"(
space:
  grid:
    cpu.clock: [250MHz, 500MHz, 1GHz]
    soc.cpu.cpi.alu: [1, 2]
statistics: [npuvp.*, soc.cpu.*]
)");
  CommandResult local = sweep(study.string() + " --out " + (folder_ / "local").string());
  ASSERT_EQ(local.status, 0) << local.err;

  // One task at a time, so the cancel lands with runs still queued.
  fs::path out = folder_ / "slurm";
  CommandResult submitted = sweep(study.string() + " --engine slurm --jobs 1 --out " + out.string());
  ASSERT_EQ(submitted.status, 0) << submitted.err;
  std::smatch match;
  ASSERT_TRUE(std::regex_search(submitted.err, match, std::regex("submitted Slurm job array (\\d+) \\(6 runs")))
      << submitted.err;
  std::string job = match[1];
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (finished_runs(out) == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_GT(finished_runs(out), 0) << "no task of job " << job << " finished within 60 s";
  EXPECT_EQ(run_command("scancel " + job).status, 0);
  while (in_queue(job) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_FALSE(in_queue(job));
  int before_resume = finished_runs(out);
  ASSERT_LT(before_resume, kRuns) << "the cancel came too late to leave work for the resume";

  // --collect gathers what finished and says the rest has not.
  CommandResult collected = sweep(study.string() + " --collect --out " + out.string());
  EXPECT_EQ(collected.status, 1);
  EXPECT_THAT(collected.err, HasSubstr(std::to_string(kRuns - before_resume) + " runs have not finished"));

  // The resume submits only the unfinished runs and waits for them.
  CommandResult resumed = sweep(study.string() + " --engine slurm --wait --out " + out.string());
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_THAT(resumed.err, HasSubstr(std::to_string(before_resume) + " of 6 runs finished earlier (kept)"));
  EXPECT_THAT(resumed.err, HasSubstr("(" + std::to_string(kRuns - before_resume) + " runs)"));
  EXPECT_EQ(finished_runs(out), kRuns);

  Table slurm_table = read_table(out / "results.csv");
  Table local_table = read_table(folder_ / "local" / "results.csv");
  ASSERT_EQ(slurm_table.rows.size(), static_cast<std::size_t>(kRuns));
  EXPECT_EQ(slurm_table.columns, local_table.columns);
  EXPECT_EQ(without_host_columns(slurm_table), without_host_columns(local_table));
  EXPECT_GT(slurm_table.columns.size(), 20u) << "npuvp.* and soc.cpu.* select many statistics";
}

}  // namespace
