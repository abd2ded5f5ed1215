// The stream count of a multi-stream package (docs/networks.md#streams) set from a
// scenario's `infer: streams:` and swept as the study parameter `infer.streams`
// (docs/exploration.md), on the GPT-2 block (q, k and v projections on 3 streams) at
// 8 AI Cores. The reference is `npuvp infer --streams N` itself: the scenario and every
// row of the sweeps must report its simulated time and instruction count exactly, and
// 3 streams must differ from 1 (the setting reached the compiler). Bad values are one
// line with exit status 125 before anything runs.
#include "integration/run_npuvp.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "csv_fields.h"

namespace {

namespace fs = std::filesystem;
using namespace npuvp::test_support;
using ::testing::HasSubstr;

const std::string kModel = std::string(NPUVP_NETWORKS_DIR) + "/gpt2_block.onnx";
const std::string kInput = std::string(NPUVP_NETWORKS_DIR) + "/gpt2_block.input.npy";
const std::string kReference = std::string(NPUVP_NETWORKS_DIR) + "/gpt2_block.reference.npy";

fs::path make_folder(const std::string& name) {
  fs::path folder = fs::temp_directory_path() / ("npuvp_infer_streams_" + std::to_string(getpid()) + "_" + name);
  fs::remove_all(folder);
  fs::create_directories(folder);
  return folder;
}

fs::path write(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

struct Figures {
  int status = -1;
  double sim_time_seconds = 0;
  std::uint64_t instructions = 0;
};

Figures figures_of(const CommandResult& result, const fs::path& stats) {
  Figures figures;
  figures.status = result.status;
  const nlohmann::json document = nlohmann::json::parse(read_file(stats.string()));
  figures.sim_time_seconds = document.at("npuvp").at("sim_time_seconds").get<double>();
  figures.instructions = document.at("npuvp").at("instructions").get<std::uint64_t>();
  return figures;
}

// `npuvp infer --streams N` on 8 AI Cores: the reference.
Figures direct_infer(unsigned streams, const fs::path& folder) {
  const fs::path stats = folder / ("direct" + std::to_string(streams) + ".json");
  const CommandResult result = run_npuvp("infer " + kModel + " --input " + kInput + " --set soc.ai_cores=8 --streams " +
                                         std::to_string(streams) + " --quiet --stats " + stats.string());
  EXPECT_EQ(result.status, 0) << result.err;
  return figures_of(result, stats);
}

std::string scenario_text(const std::string& streams_line) {
  // As scenarios/gpt2-block.yaml: the cosine checked, not the top-1 (one of 128 rows differs from PyTorch's).
  return "name: gpt2-streams\ninfer:\n  model: " + kModel + "\n  input: " + kInput + "\n  reference: " + kReference +
         "\n  top1: false\n" + streams_line + "params:\n  soc.ai_cores: 8\n";
}

TEST(InferStreamsSettings, AScenarioCompilesForItsStreams) {
  const fs::path folder = make_folder("scenario");
  const Figures one = direct_infer(1, folder), three = direct_infer(3, folder);
  ASSERT_NE(one.instructions, three.instructions) << "3 streams must run differently from 1";
  for (const auto& [line, expected] : {std::pair<std::string, Figures>{"", one},
                                       std::pair<std::string, Figures>{"  streams: 1\n", one},
                                       std::pair<std::string, Figures>{"  streams: 3\n", three}}) {
    SCOPED_TRACE("infer section line '" + line + "'");
    const fs::path path = write(folder / "gpt2.yaml", scenario_text(line)), stats = folder / "scenario.json";
    const CommandResult result = run_npuvp("run " + path.string() + " --quiet --stats " + stats.string());
    EXPECT_EQ(result.status, 0) << result.err;
    EXPECT_THAT(last_line(result.err), HasSubstr("gpt2-streams: PASS (cosine "));
    const Figures run = figures_of(result, stats);
    EXPECT_EQ(run.instructions, expected.instructions);
    EXPECT_DOUBLE_EQ(run.sim_time_seconds, expected.sim_time_seconds);
  }
  fs::remove_all(folder);
}

TEST(InferStreamsSettings, ABadStreamCountInAScenarioIsOneLineWithStatus125) {
  const fs::path folder = make_folder("bad_scenario");
  for (const char* value : {"0", "16", "many"}) {
    const fs::path path = write(folder / "bad.yaml", scenario_text(std::string("  streams: ") + value + "\n"));
    const CommandResult result = run_npuvp("run " + path.string() + " --quiet");
    EXPECT_EQ(result.status, 125) << value;
    EXPECT_EQ(result.err, "npuvp: error: scenario " + path.string() +
                              ":7: streams must be a whole number of streams 1 .. 15, not '" + value + "'\n");
  }
  fs::remove_all(folder);
}

// results.csv as rows of {column: value}.
std::vector<std::map<std::string, std::string>> read_table(const fs::path& csv) {
  std::istringstream in(read_file(csv.string()));
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> columns = csv_fields(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto fields = csv_fields(line);
    std::map<std::string, std::string> row;
    for (std::size_t c = 0; c < columns.size() && c < fields.size(); ++c) row[columns[c]] = fields[c];
    rows.push_back(row);
  }
  return rows;
}

CommandResult sweep(const fs::path& study, const fs::path& out) {
  return run_command("timeout 300 " + std::string(NPUVP_EXECUTABLE) + " sweep " + study.string() + " --out " +
                     out.string());
}

// Both bases: `npuvp infer` (the --streams option) and a scenario with an infer section
// (its copy in the run's folder gets `streams:`).
TEST(InferStreamsSettings, ASweepVariesTheStreamsOfBothBases) {
  const fs::path folder = make_folder("sweep");
  const Figures one = direct_infer(1, folder), three = direct_infer(3, folder);
  const fs::path scenario = write(folder / "gpt2.yaml", scenario_text(""));
  const std::string space =
      "space:\n  grid:\n    infer.streams: [1, 3]\n    soc.ai_cores: [8]\n"
      "statistics: [npuvp.sim_time_seconds, npuvp.instructions]\n";
  for (const auto& [name, base] :
       {std::pair<std::string, std::string>{"infer", "  infer: {model: " + kModel + ", input: " + kInput + "}\n"},
        std::pair<std::string, std::string>{"scenario", "  scenario: " + scenario.string() + "\n"}}) {
    SCOPED_TRACE(name + " base");
    const fs::path study = write(folder / (name + ".yaml"), "name: streams-" + name + "\nbase:\n" + base + space);
    const fs::path out = folder / ("out-" + name);
    const CommandResult result = sweep(study, out);
    ASSERT_EQ(result.status, 0) << result.err;
    const auto rows = read_table(out / "results.csv");
    ASSERT_EQ(rows.size(), 2u);
    for (const auto& row : rows) {
      const Figures& expected = row.at("infer.streams") == "3" ? three : one;
      EXPECT_EQ(row.at("exit_status"), "0");
      EXPECT_EQ(row.at("npuvp.instructions"), std::to_string(expected.instructions)) << row.at("infer.streams");
      EXPECT_DOUBLE_EQ(std::stod(row.at("npuvp.sim_time_seconds")), expected.sim_time_seconds);
    }
  }
  fs::remove_all(folder);
}

TEST(InferStreamsSettings, ABadStreamsParameterIsOneLineBeforeAnythingRuns) {
  const fs::path folder = make_folder("bad_sweep");
  const std::string infer_base = "  infer: {model: " + kModel + ", input: " + kInput + "}\n";
  const std::string no_model_base = "  scenario: " + scenario("hello") + "\n";
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {infer_base, "[0, 2]", "infer.streams expects a whole number of streams 1 .. 15, not 0"},
      {infer_base, "[16]", "infer.streams expects a whole number of streams 1 .. 15, not 16"},
      {infer_base, "[two]", "infer.streams expects a whole number of streams 1 .. 15, not 'two'"},
      {no_model_base, "[2]", "hello.yaml has no 'infer' section"},
  };
  for (const auto& [base, values, message] : cases) {
    SCOPED_TRACE(values);
    const fs::path study = write(folder / "bad.yaml", "name: bad\nbase:\n" + base + "space:\n  grid:\n    infer.streams: " +
                                                          values + "\n");
    const fs::path out = folder / "out";
    const CommandResult result = sweep(study, out);
    EXPECT_EQ(result.status, 125) << result.err;
    EXPECT_EQ(result.err.rfind("npuvp sweep: error: " + study.string() + ": ", 0), 0u) << result.err;
    EXPECT_THAT(result.err, HasSubstr(message));
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_FALSE(fs::exists(out)) << "nothing may run before the study is checked";
  }
  fs::remove_all(folder);
}

}  // namespace
