// Scenario files: every field of a valid scenario, and each kind of mistake
// giving a ConfigError with file:line and, for typos, the closest valid key.
#include "core/simulation.h"
#include "platform/scenario.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace npuvp {
namespace {

namespace fs = std::filesystem;

const std::string kFirmware = NPUVP_FIRMWARE_DIR;
const std::string kHello = kFirmware + "/host/hello.elf";

#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "'" << (text) << "' lacks '" << (part) << "'"

class ScenarioTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::is_regular_file(kHello))
        << kHello << " does not exist: build the firmware first (cmake --build <build dir> --target firmware)";
    std::string pattern = (fs::temp_directory_path() / "npuvp-scenario-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    setenv("NPUVP_FIRMWARE_DIR", kFirmware.c_str(), 1);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  std::string write(const std::string& name, const std::string& text) {
    fs::path path = dir_ / name;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
    return path.string();
  }
  // The message of the ConfigError that loading `path` throws.
  std::string load_error(const std::string& path) {
    try {
      Scenario::from_file(path);
    } catch (const ConfigError& error) {
      EXPECT_EQ(error.status(), ExitStatus::kBadInput);
      return error.what();
    } catch (const std::exception& error) {
      ADD_FAILURE() << "not a ConfigError: " << error.what();
      return error.what();
    }
    ADD_FAILURE() << path << " was accepted";
    return "";
  }
  std::string error_for(const std::string& text) { return load_error(write("scenario.yaml", text)); }
  std::string at_line(int line) { return (dir_ / "scenario.yaml").string() + ":" + std::to_string(line) + ": "; }

  fs::path dir_;
};

TEST_F(ScenarioTest, EveryFieldOfAValidScenario) {
  std::string path = write("demo.yaml",
                           "# a comment\n"                        // 1
                           "name: demo-run\n"                     // 2
                           "description: Every field at once\n"   // 3
                           "images:\n"                            // 4
                           "  - elf: host/hello.elf\n"            // 5
                           "    patch:\n"                         // 6
                           "      bench_iterations: 0x10\n"       // 7
                           "      tohost: 1_000\n"                // 8
                           "  - elf: " + kFirmware + "/host/timer-irq.elf\n"  // 9
                           "params:\n"                            // 10
                           "  soc.cpu.clock: 1.5GHz\n"            // 11
                           "  soc:\n"                             // 12
                           "    uart:\n"                          // 13
                           "      input: \"hi\\n\"\n"             // 14
                           "    ddr.size: 256MiB\n"               // 15
                           "limits:\n"                            // 16
                           "  sim_time: 1ms\n"                    // 17
                           "  instructions: 1000000\n"            // 18
                           "  wall_time: 10s\n"                   // 19
                           "checks:\n"                            // 20
                           "  exit_code: 3\n"                     // 21
                           "  console_contains: Hello\n"          // 22
                           "  console_excludes:\n"                // 23
                           "    - FAIL\n"                         // 24
                           "    - panic\n");                      // 25
  Scenario scenario = Scenario::from_file(path);
  EXPECT_EQ(scenario.name, "demo-run");
  EXPECT_EQ(scenario.description, "Every field at once");
  EXPECT_EQ(scenario.source, path);

  ASSERT_EQ(scenario.images.size(), 2u);
  EXPECT_EQ(scenario.images[0].elf, "host/hello.elf");
  EXPECT_TRUE(fs::equivalent(scenario.images[0].path, kHello)) << scenario.images[0].path;
  ASSERT_EQ(scenario.images[0].patches.size(), 2u);
  EXPECT_EQ(scenario.images[0].patches.at("bench_iterations"), 16u);
  EXPECT_EQ(scenario.images[0].patches.at("tohost"), 1000u);
  EXPECT_EQ(scenario.images[1].elf, kFirmware + "/host/timer-irq.elf");
  EXPECT_TRUE(fs::equivalent(scenario.images[1].path, kFirmware + "/host/timer-irq.elf"));
  EXPECT_TRUE(scenario.images[1].patches.empty());

  // params (flat and nested, in file order), then limits as sim.limit.* settings.
  struct Expected {
    std::string name, value;
    int line;
  };
  std::vector<Expected> expected = {
      {"soc.cpu.clock", "1.5GHz", 11},         {"soc.uart.input", "hi\n", 14},
      {"soc.ddr.size", "256MiB", 15},          {"sim.limit.sim_time", "1ms", 17},
      {"sim.limit.instructions", "1000000", 18}, {"sim.limit.wall_time", "10s", 19},
  };
  ASSERT_EQ(scenario.parameters.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(scenario.parameters[i].name, expected[i].name) << i;
    EXPECT_EQ(scenario.parameters[i].value, expected[i].value) << i;
    EXPECT_EQ(scenario.parameters[i].origin, path + ":" + std::to_string(expected[i].line)) << i;
  }

  EXPECT_EQ(scenario.expect_exit_code, std::optional<int>(3));
  EXPECT_EQ(scenario.console_contains, std::vector<std::string>{"Hello"});
  EXPECT_EQ(scenario.console_excludes, (std::vector<std::string>{"FAIL", "panic"}));
}

TEST_F(ScenarioTest, MinimalScenarioTakesDefaults) {
  std::string path = write("minimal.yaml", "images:\n  - elf: host/hello.elf\n");
  Scenario scenario = Scenario::from_file(path);
  EXPECT_EQ(scenario.name, "minimal");  // the file name without extension
  EXPECT_EQ(scenario.description, "");
  ASSERT_EQ(scenario.images.size(), 1u);
  EXPECT_TRUE(scenario.parameters.empty());
  EXPECT_EQ(scenario.expect_exit_code, std::nullopt);
  EXPECT_TRUE(scenario.console_contains.empty());
  EXPECT_TRUE(scenario.console_excludes.empty());
}

TEST_F(ScenarioTest, ProjectScenariosLoad) {
  for (const char* name : {"hello", "timer-irq", "bench-cpu", "aicore-smoke", "gemm-direct", "conv2d-direct"}) {
    std::string path = std::string(NPUVP_SOURCE_DIR) + "/scenarios/" + name + ".yaml";
    if (!fs::exists(path)) continue;  // scenarios come and go; the ones present must load
    Scenario scenario = Scenario::from_file(path);
    EXPECT_EQ(scenario.name, name);
    EXPECT_TRUE(!scenario.images.empty() || scenario.kernel_launch) << name << " runs nothing";
  }
}

TEST_F(ScenarioTest, ImagesAreFoundNextToTheScenario) {
  fs::create_directories(dir_ / "bin");
  fs::copy_file(kHello, dir_ / "bin" / "local.elf");
  std::string path = write("local.yaml", "images:\n  - elf: bin/local.elf\n");
  Scenario scenario = Scenario::from_file(path);
  ASSERT_EQ(scenario.images.size(), 1u);
  EXPECT_TRUE(fs::equivalent(scenario.images[0].path, dir_ / "bin" / "local.elf"));
}

TEST_F(ScenarioTest, ImagesAreFoundThroughTheFirmwareEnvironmentVariable) {
  fs::create_directories(dir_ / "fw" / "host");
  fs::copy_file(kHello, dir_ / "fw" / "host" / "only-here.elf");
  setenv("NPUVP_FIRMWARE_DIR", (dir_ / "fw").c_str(), 1);
  std::string path = write("elsewhere/env.yaml", "images:\n  - elf: host/only-here.elf\n");
  Scenario scenario = Scenario::from_file(path);
  EXPECT_TRUE(fs::equivalent(scenario.images[0].path, dir_ / "fw" / "host" / "only-here.elf"));
}

TEST_F(ScenarioTest, MalformedYamlNamesFileAndLine) {
  std::string message = error_for(
      "name: broken\n"
      "images:\n"
      "  - elf: host/hello.elf\n"
      "checks: {exit_code: 0\n"
      "limits:\n");
  EXPECT_CONTAINS(message, "malformed YAML");
  EXPECT_CONTAINS(message, (dir_ / "scenario.yaml").string() + ":");
  // The parser stops at the unclosed flow mapping, lines 4-5.
  bool line_named = message.find(at_line(4)) != std::string::npos || message.find(at_line(5)) != std::string::npos ||
                    message.find(at_line(6)) != std::string::npos;
  EXPECT_TRUE(line_named) << message;

  message = error_for("name: x\nimages:\n  - elf: a\n bad indentation: [1\n");
  EXPECT_CONTAINS(message, "malformed YAML");
}

TEST_F(ScenarioTest, MissingOrUnreadableFile) {
  std::string path = (dir_ / "absent.yaml").string();
  std::string message = load_error(path);
  EXPECT_CONTAINS(message, "cannot read scenario");
  EXPECT_CONTAINS(message, path);
}

TEST_F(ScenarioTest, TopLevelMustBeAMapping) {
  EXPECT_CONTAINS(error_for("- elf: host/hello.elf\n"), "top level must be a mapping");
  EXPECT_CONTAINS(error_for(""), "top level must be a mapping");
  EXPECT_CONTAINS(error_for("just text\n"), "top level must be a mapping");
}

TEST_F(ScenarioTest, UnknownTopLevelKeySuggestsTheClosest) {
  std::string message = error_for(
      "name: typo\n"
      "imagse:\n"
      "  - elf: host/hello.elf\n");
  EXPECT_CONTAINS(message, at_line(2));
  EXPECT_CONTAINS(message, "unknown key 'imagse'");
  EXPECT_CONTAINS(message, "did you mean 'images'?");

  message = error_for(
      "images:\n"
      "  - elf: host/hello.elf\n"
      "parms:\n"
      "  soc.cpu.clock: 1GHz\n");
  EXPECT_CONTAINS(message, at_line(3));
  EXPECT_CONTAINS(message, "unknown key 'parms'");
  EXPECT_CONTAINS(message, "did you mean 'params'?");

  message = error_for("images:\n  - elf: host/hello.elf\nzzzzzzzzzzzzzzzz: 1\n");
  EXPECT_CONTAINS(message, "unknown key 'zzzzzzzzzzzzzzzz'");
  EXPECT_EQ(message.find("did you mean"), std::string::npos) << message;
}

TEST_F(ScenarioTest, UnknownKeyInChecks) {
  std::string message = error_for(
      "images:\n"
      "  - elf: host/hello.elf\n"
      "checks:\n"
      "  exit_code: 0\n"
      "  console_contain: Hello\n");
  EXPECT_CONTAINS(message, at_line(5));
  EXPECT_CONTAINS(message, "unknown key 'console_contain' in checks");
  EXPECT_CONTAINS(message, "did you mean 'console_contains'?");
}

TEST_F(ScenarioTest, UnknownKeyInLimits) {
  std::string message = error_for(
      "images:\n"
      "  - elf: host/hello.elf\n"
      "limits:\n"
      "  instruction: 1000\n");
  EXPECT_CONTAINS(message, at_line(4));
  EXPECT_CONTAINS(message, "unknown key 'instruction' in limits");
  EXPECT_CONTAINS(message, "did you mean 'instructions'?");
}

TEST_F(ScenarioTest, UnknownKeyInAnImage) {
  std::string message = error_for(
      "images:\n"
      "  - elf: host/hello.elf\n"
      "    pach:\n"
      "      tohost: 0\n");
  EXPECT_CONTAINS(message, at_line(3));
  EXPECT_CONTAINS(message, "unknown key 'pach' in an image");
  EXPECT_CONTAINS(message, "did you mean 'patch'?");
}

TEST_F(ScenarioTest, MissingImages) {
  for (const char* text : {"name: nothing\n", "name: empty\nimages: []\n", "name: scalar\nimages: host/hello.elf\n"}) {
    std::string message = error_for(text);
    EXPECT_CONTAINS(message, "'images' must list at least one image");
    EXPECT_CONTAINS(message, (dir_ / "scenario.yaml").string());
  }
}

TEST_F(ScenarioTest, AnImageNeedsAnElf) {
  std::string message = error_for("images:\n  - patch: {tohost: 0}\n");
  EXPECT_CONTAINS(message, at_line(2));
  EXPECT_CONTAINS(message, "needs 'elf'");
  message = error_for("images:\n  - host/hello.elf\n");
  EXPECT_CONTAINS(message, at_line(2));
  EXPECT_CONTAINS(message, "must be a mapping");
}

TEST_F(ScenarioTest, ImageNotFoundListsWhereItLooked) {
  std::string message = error_for("images:\n  - elf: host/nope.elf\n");
  EXPECT_CONTAINS(message, "ELF 'host/nope.elf' not found");
  EXPECT_CONTAINS(message, "looked in:");
  EXPECT_CONTAINS(message, (dir_ / "host" / "nope.elf").string());     // next to the scenario
  EXPECT_CONTAINS(message, (fs::path(kFirmware) / "host" / "nope.elf").string());  // the firmware build

  message = error_for("images:\n  - elf: /definitely/not/here.elf\n");
  EXPECT_CONTAINS(message, "'/definitely/not/here.elf' not found");
}

TEST_F(ScenarioTest, PatchValueMustBeAnInteger) {
  std::string message = error_for(
      "images:\n"
      "  - elf: host/hello.elf\n"
      "    patch:\n"
      "      bench_iterations: 4\n"
      "      tohost: banana\n");
  EXPECT_CONTAINS(message, at_line(5));
  EXPECT_CONTAINS(message, "patch value for 'tohost' is not an integer");

  message = error_for("images:\n  - elf: host/hello.elf\n    patch:\n      tohost: [1, 2]\n");
  EXPECT_CONTAINS(message, at_line(4));
  EXPECT_CONTAINS(message, "single value");

  message = error_for("images:\n  - elf: host/hello.elf\n    patch: 5\n");
  EXPECT_CONTAINS(message, at_line(3));
  EXPECT_CONTAINS(message, "'patch' must map symbols to values");
}

TEST_F(ScenarioTest, ParamsMustBeAMappingOfSingleValues) {
  std::string message = error_for("images:\n  - elf: host/hello.elf\nparams:\n  - soc.cpu.clock\n");
  EXPECT_CONTAINS(message, at_line(4));
  EXPECT_CONTAINS(message, "'params' must be a mapping");

  message = error_for("images:\n  - elf: host/hello.elf\nparams:\n  soc.cpu.clock: [1, 2]\n");
  EXPECT_CONTAINS(message, at_line(4));
  EXPECT_CONTAINS(message, "parameter 'soc.cpu.clock' must be a single value");
}

// Issue 23: yaml-cpp shares aliased nodes, so a cyclic alias is a loop and an
// alias bomb a graph that unfolds exponentially; both are refused while the
// document is checked, before anything reads it.
TEST_F(ScenarioTest, CyclicAliasIsRefusedNotALoop) {
  std::string message = error_for("images:\n  - elf: host/hello.elf\nparams: &p {soc: *p}\n");
  EXPECT_CONTAINS(message, at_line(3));
  EXPECT_CONTAINS(message, "a YAML alias refers to a node that contains it");
  // Anywhere in a scenario, not only in params.
  message = error_for("images: &i\n  - elf: host/hello.elf\n  - *i\n");
  EXPECT_CONTAINS(message, "a YAML alias refers to a node that contains it");
}

TEST_F(ScenarioTest, AliasBombIsRefusedAtOnce) {
  // "Billion laughs": ten levels of ten aliases each, 10^10 nodes unfolded.
  std::string text = "images:\n  - elf: host/hello.elf\nlol0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int level = 1; level <= 10; ++level) {
    std::string previous = "*l" + std::to_string(level - 1);
    text += "lol" + std::to_string(level) + ": &l" + std::to_string(level) + " [";
    for (int i = 0; i < 10; ++i) text += (i ? ", " : "") + previous;
    text += "]\n";
  }
  text += "params:\n  bomb: *l10\n";
  const auto start = std::chrono::steady_clock::now();
  std::string message = error_for(text);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_CONTAINS(message, "the scenario unfolds into more than 10000 YAML nodes");
  EXPECT_LT(seconds, 1.0) << "the bomb was not stopped early";
}

TEST_F(ScenarioTest, DeepNestingIsRefused) {
  std::string text = "images:\n  - elf: host/hello.elf\nparams: ";
  for (int i = 0; i < 100; ++i) text += "[";
  for (int i = 0; i < 100; ++i) text += "]";
  EXPECT_CONTAINS(error_for(text + "\n"), "the scenario nests deeper than 64 levels");
  // So deep that yaml-cpp's parser stops first (it would overflow the stack).
  std::string deeper = "images:\n  - elf: host/hello.elf\nparams: " + std::string(100000, '[') + std::string(100000, ']');
  EXPECT_CONTAINS(error_for(deeper + "\n"), "the scenario nests deeper than 64 levels (yaml-cpp stopped at");
}

TEST_F(ScenarioTest, DuplicateKeysNameTheKeyAndBothLines) {
  // yaml-cpp keeps both entries: the top level used the first, params the last.
  std::string message = error_for("name: one\nimages:\n  - elf: host/hello.elf\nname: two\n");
  EXPECT_CONTAINS(message, at_line(4));
  EXPECT_CONTAINS(message, "duplicate key 'name' (also on line 1)");

  message = error_for("images:\n  - elf: host/hello.elf\nparams:\n  cpu.clock: 1GHz\n  cpu.clock: 2GHz\n");
  EXPECT_CONTAINS(message, at_line(5));
  EXPECT_CONTAINS(message, "duplicate key 'cpu.clock' (also on line 4)");

  // The same parameter spelled dotted and nested.
  message = error_for("images:\n  - elf: host/hello.elf\nparams:\n  cpu.clock: 1GHz\n  cpu:\n    clock: 2GHz\n");
  EXPECT_CONTAINS(message, at_line(6));
  EXPECT_CONTAINS(message, "parameter 'cpu.clock' is set twice in params (also at " + (dir_ / "scenario.yaml").string() + ":4)");
}

TEST_F(ScenarioTest, PreloadLargerThanTheAddressSpaceIsRefused) {
  std::string message = error_for("images:\n  - elf: host/hello.elf\nmemory:\n  - address: 0x80000000\n"
                                  "    random: {type: f32, count: 0x4000000000000001}\n");
  EXPECT_CONTAINS(message, at_line(5));
  EXPECT_CONTAINS(message, "count 4611686018427387905 of f32 elements is more than 2^64 bytes");
  message = error_for("images:\n  - elf: host/hello.elf\nmemory:\n  - address: 0xffffffffffffff00\n"
                      "    random: {type: s8, count: 0x200}\n");
  EXPECT_CONTAINS(message, at_line(4));
  EXPECT_CONTAINS(message, "memory preload [0xffffffffffffff00, 0x10000000000000100) runs past the end of the 64-bit address space");
}

TEST_F(ScenarioTest, ADirectoryIsNotAScenarioNorAnImage) {
  fs::create_directories(dir_ / "folder.yaml");
  EXPECT_CONTAINS(load_error((dir_ / "folder.yaml").string()), "is a directory, not a YAML file");
  fs::create_directories(dir_ / "images.elf");
  EXPECT_CONTAINS(error_for("images:\n  - elf: images.elf\n"), "is a directory, not an ELF file");
  EXPECT_CONTAINS(error_for("images:\n  - elf: /dev/null\n"), "ELF '/dev/null': '/dev/null' is a character device, not an ELF file");
  EXPECT_CONTAINS(error_for("images:\n  - elf: host/hello.elf\nmemory:\n  - address: 0x90000000\n    file: images.elf\n"),
                  "preload file 'images.elf'");
}

TEST_F(ScenarioTest, ChecksAreValidated) {
  std::string message = error_for("images:\n  - elf: host/hello.elf\nchecks:\n  exit_code: zero\n");
  EXPECT_CONTAINS(message, at_line(4));
  EXPECT_CONTAINS(message, "exit_code must be an integer");

  message = error_for("images:\n  - elf: host/hello.elf\nchecks:\n  console_contains: {a: b}\n");
  EXPECT_CONTAINS(message, at_line(4));
  EXPECT_CONTAINS(message, "console_contains must be a string or a list of strings");

  message = error_for("images:\n  - elf: host/hello.elf\nchecks: 0\n");
  EXPECT_CONTAINS(message, at_line(3));
  EXPECT_CONTAINS(message, "checks must be a mapping");

  message = error_for("images:\n  - elf: host/hello.elf\nchecks:\n  exit_code: 99999999999\n");
  EXPECT_CONTAINS(message, at_line(4));
  EXPECT_CONTAINS(message, "exit_code 99999999999 is out of range");

  Scenario negative = Scenario::from_file(write("negative.yaml", "images:\n  - elf: host/hello.elf\nchecks:\n  exit_code: -1\n"));
  EXPECT_EQ(negative.expect_exit_code, std::optional<int>(-1));
}

TEST_F(ScenarioTest, KeysMustBePlainNames) {
  std::string message = error_for("? [a, b]\n: 1\nimages:\n  - elf: host/hello.elf\n");
  EXPECT_CONTAINS(message, at_line(1));
  EXPECT_CONTAINS(message, "a key must be a plain name");

  message = error_for("images:\n  - elf: host/hello.elf\nparams:\n  soc:\n    [cpu]: 1\n");
  EXPECT_CONTAINS(message, at_line(5));
  EXPECT_CONTAINS(message, "a key must be a plain name");

  message = error_for("images:\n  - elf: host/hello.elf\n    patch:\n      {a: 1}: 2\n");
  EXPECT_CONTAINS(message, at_line(4));
  EXPECT_CONTAINS(message, "a key must be a plain name");

  message = error_for("images:\n  - elf: host/hello.elf\nlimits:\n  [instructions]: 1\n");
  EXPECT_CONTAINS(message, at_line(4));
  EXPECT_CONTAINS(message, "a key must be a plain name");
}

TEST_F(ScenarioTest, KernelLaunchMemoryPreloadsAndATaskSchedulerImage) {
  write("in.bin", "abcd");
  std::string path = write("k.yaml",
                           "aicore_launch:\n"
                           "  kernel: sw/kernels/smoke.elf\n"
                           "  cores: 2\n"
                           "  blocks: 5\n"
                           "  args: [0x90000000, 7]\n"
                           "  args_address: 0x8e000000\n"
                           "memory:\n"
                           "  - {address: 0x90000000, random: {type: s8, count: 16, seed: 3}}\n"
                           "  - {address: 0x90001000, file: in.bin}\n"
                           "images:\n"
                           "  - {elf: host/hello.elf, core: ts}\n");
  Scenario scenario = Scenario::from_file(path);
  ASSERT_TRUE(scenario.kernel_launch);
  EXPECT_TRUE(fs::equivalent(scenario.kernel_launch->path, kFirmware + "/sw/kernels/smoke.elf"));
  EXPECT_EQ(scenario.kernel_launch->cores, 2u);
  EXPECT_EQ(scenario.kernel_launch->blocks, 5u);
  EXPECT_EQ(scenario.kernel_launch->args, (std::vector<std::uint64_t>{0x9000'0000, 7}));
  EXPECT_EQ(scenario.kernel_launch->args_address, 0x8e00'0000u);
  ASSERT_EQ(scenario.preloads.size(), 2u);
  EXPECT_EQ(scenario.preloads[0].random_type, "s8");
  EXPECT_EQ(scenario.preloads[0].count, 16u);
  EXPECT_EQ(scenario.preloads[0].seed, 3u);
  EXPECT_TRUE(scenario.preloads[0].file.empty());
  EXPECT_TRUE(fs::equivalent(scenario.preloads[1].file, dir_ / "in.bin"));
  ASSERT_EQ(scenario.images.size(), 1u);
  EXPECT_EQ(scenario.images[0].core, "ts");
}

TEST_F(ScenarioTest, KernelLaunchAndPreloadMistakes) {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"aicore_launch: {cores: 1}\n", "needs 'kernel'"},
      {"aicore_launch: {kernel: sw/kernels/smoke.elf, cores: 0}\n", "cores must be at least 1"},
      {"aicore_launch: {kernel: sw/kernels/smoke.elf, blocks: 0}\n", "blocks must be at least 1"},
      {"aicore_launch: {kernel: sw/kernels/smoke.elf, blok: 2}\n", "did you mean 'blocks'"},
      {"aicore_launch: {kernel: sw/kernels/smoke.elf, args: 5}\n", "args must be a list"},
      {"aicore_launch: {kernel: sw/kernels/smoke.elf, cores: two}\n", "cores must be an unsigned integer"},
      {"aicore_launch: {kernel: sw/kernels/smoke.elf}\nmemory: [{address: 0x90000000}]\n", "exactly one of"},
      {"aicore_launch: {kernel: sw/kernels/smoke.elf}\nmemory: [{address: 1, random: {type: f64, count: 1}}]\n",
       "random type must be"},
      {"aicore_launch: {kernel: sw/kernels/smoke.elf}\nmemory: [{address: 1, random: {type: f16}}]\n",
       "random needs 'count'"},
      {"images: [{elf: host/hello.elf, core: gpu}]\n", "core must be 'host', 'ts' (the task scheduler) or 'cluster'"},
      {"images: [{elf: host/hello.elf, core: ts}, {elf: host/hello.elf, core: ts}]\n", "only one image can boot the ts"},
  };
  for (const auto& c : cases) {
    std::string error = load_error(write("bad.yaml", c.text));
    EXPECT_CONTAINS(error, c.message);
    EXPECT_CONTAINS(error, "bad.yaml:");
  }
}

TEST_F(ScenarioTest, ForElf) {
  Scenario scenario = Scenario::for_elf(kHello);
  EXPECT_EQ(scenario.name, "hello");
  EXPECT_EQ(scenario.source, "");
  ASSERT_EQ(scenario.images.size(), 1u);
  EXPECT_EQ(scenario.images[0].elf, kHello);
  EXPECT_TRUE(fs::equivalent(scenario.images[0].path, kHello));
  EXPECT_TRUE(scenario.parameters.empty());

  Scenario relative = Scenario::for_elf("host/timer-irq.elf");  // from the firmware build
  EXPECT_EQ(relative.name, "timer-irq");
  EXPECT_TRUE(fs::equivalent(relative.images[0].path, kFirmware + "/host/timer-irq.elf"));

  EXPECT_THROW(Scenario::for_elf("host/nope.elf"), ConfigError);
}

}  // namespace
}  // namespace npuvp

namespace npuvp {
namespace {

// The infer: section: model files found next to the scenario or in the networks folder
// ($NPUVP_NETWORKS_DIR), a reference turning the checks on, and its mistakes.
class InferScenarioTest : public ScenarioTest {};

TEST_F(InferScenarioTest, ModelInputAndReferenceWithChecks) {
  write("nets/tiny.onnx", "x");
  write("nets/tiny.input.npy", "x");
  write("nets/tiny.reference.npy", "x");
  setenv("NPUVP_NETWORKS_DIR", (dir_ / "nets").c_str(), 1);
  Scenario scenario = Scenario::from_file(write("tiny.yaml",
                                                "infer:\n  model: tiny.onnx\n  input: tiny.input.npy\n"
                                                "  reference: tiny.reference.npy\n  top1: false\n"
                                                "params:\n  soc.ai_cores: 4\n"));
  ASSERT_TRUE(scenario.infer.has_value());
  EXPECT_EQ(scenario.infer->model, (dir_ / "nets/tiny.onnx").string());
  EXPECT_EQ(scenario.infer->reference, (dir_ / "nets/tiny.reference.npy").string());
  EXPECT_EQ(scenario.infer->cosine_min, 0.999);
  EXPECT_FALSE(scenario.infer->top1);
  EXPECT_TRUE(scenario.images.empty());
  ASSERT_EQ(scenario.parameters.size(), 1u);

  Scenario unchecked = Scenario::from_file(write("plain.yaml", "infer:\n  model: nets/tiny.onnx\n  input: nets/tiny.input.npy\n"));
  EXPECT_FALSE(unchecked.infer->cosine_min.has_value());
  EXPECT_FALSE(unchecked.infer->top1);
  EXPECT_EQ(unchecked.infer->streams, 1u) << "one stream unless the scenario asks for more";
  for (unsigned streams : {1u, 4u, 15u}) {
    Scenario several = Scenario::from_file(write("streams.yaml", "infer:\n  model: nets/tiny.onnx\n  input: nets/tiny.input.npy\n"
                                                                 "  streams: " + std::to_string(streams) + "\n"));
    EXPECT_EQ(several.infer->streams, streams);
  }
  unsetenv("NPUVP_NETWORKS_DIR");
}

TEST_F(InferScenarioTest, Mistakes) {
  write("m.onnx", "x");
  write("x.npy", "x");
  EXPECT_CONTAINS(load_error(write("a.yaml", "infer:\n  model: m.onnx\n")), "infer needs 'model' (.onnx) and 'input'");
  EXPECT_CONTAINS(load_error(write("b.yaml", "infer:\n  model: nothere.onnx\n  input: x.npy\n")),
                  "model file 'nothere.onnx' not found");
  EXPECT_CONTAINS(load_error(write("c.yaml", "infer:\n  model: m.onnx\n  input: x.npy\n  cosine_min: 0.9\n")),
                  "cosine_min needs a 'reference'");
  EXPECT_CONTAINS(load_error(write("d.yaml", "infer:\n  model: m.onnx\n  input: x.npy\n  reference: x.npy\n  cosine_min: 2\n")),
                  "cosine_min must be a number in [-1, 1]");
  EXPECT_CONTAINS(load_error(write("e.yaml", "infer:\n  model: m.onnx\n  input: x.npy\n  reference: x.npy\n  top1: yes\n")),
                  "top1 must be true or false");
  EXPECT_CONTAINS(load_error(write("f.yaml", "infer:\n  model: m.onnx\n  input: x.npy\nimages:\n  - elf: host/hello.elf\n")),
                  "leave out 'images'");
  EXPECT_CONTAINS(load_error(write("g.yaml", "infer:\n  model: m.onnx\n  input: x.npy\n  refrence: x.npy\n")),
                  "did you mean 'reference'");
  for (const char* streams : {"0", "16", "-1", "two", "2.5", "+3", "[1, 2]"})
    EXPECT_CONTAINS(load_error(write("h.yaml", std::string("infer:\n  model: m.onnx\n  input: x.npy\n  streams: ") + streams + "\n")),
                    streams[0] == '[' ? "h.yaml:4: streams must be a single value"
                                      : std::string("h.yaml:4: streams must be a whole number of streams 1 .. 15, not '") +
                                            streams + "'");
}

}  // namespace
}  // namespace npuvp
