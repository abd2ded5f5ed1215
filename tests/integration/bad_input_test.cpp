// Bad input gets one clear line on stderr, a documented non-zero exit status,
// and (where a run started) the statistics it has. Never a crash or a hang.
#include "integration/run_npuvp.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <elf.h>

#include <cstring>

using namespace npuvp::test_support;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace {

constexpr int kLimitReached = 124, kBadInput = 125, kGuestError = 126;

// The verdict is one line starting with "npuvp: error:".
void expect_one_line_error(const CommandResult& result, int status, const std::string& text) {
  EXPECT_EQ(result.status, status) << result.err;
  std::string line = last_line(result.err);
  EXPECT_THAT(line, StartsWith("npuvp: error: "));
  EXPECT_THAT(line, HasSubstr(text));
}

std::string write_temp(const std::string& name, const std::string& contents) {
  std::string path = temp_path(name);
  std::ofstream(path, std::ios::binary) << contents;
  return path;
}

}  // namespace

TEST(BadInput, MissingElf) {
  expect_one_line_error(run_npuvp("run --elf /nonexistent/prog.elf"), kBadInput, "'/nonexistent/prog.elf' not found");
}

TEST(BadInput, NotAnElf) {
  std::string path = write_temp("text.elf", "this is not an executable\n");
  expect_one_line_error(run_npuvp("run --elf " + path), kBadInput, "not an ELF file");
}

TEST(BadInput, TruncatedElf) {
  std::string image = read_file(firmware("host/hello.elf"));
  for (std::size_t length : {std::size_t{40}, std::size_t{200}, image.size() / 2}) {
    std::string path = write_temp("truncated.elf", image.substr(0, length));
    auto result = run_npuvp("run --elf " + path);
    EXPECT_EQ(result.status, kBadInput) << "length " << length << ": " << result.err;
    EXPECT_THAT(last_line(result.err), StartsWith("npuvp: error: ELF '"));
  }
}

TEST(BadInput, ElfForAnotherMachine) {
  expect_one_line_error(run_npuvp("run --elf /bin/true"), kBadInput, "not a RISC-V ELF");
}

TEST(BadInput, ElfSegmentsHitNoMemory) {
  std::string image = read_file(firmware("host/hello.elf"));
  Elf64_Ehdr header;
  std::memcpy(&header, image.data(), sizeof header);
  for (int i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr program;
    std::size_t offset = header.e_phoff + i * header.e_phentsize;
    std::memcpy(&program, image.data() + offset, sizeof program);
    if (program.p_type != PT_LOAD) continue;
    program.p_paddr = program.p_paddr - 0x8000'0000 + 0x5000'0000;  // a hole in the memory map
    std::memcpy(image.data() + offset, &program, sizeof program);
  }
  std::string path = write_temp("nomemory.elf", image);
  expect_one_line_error(run_npuvp("run --elf " + path), kBadInput, "is not in any memory");
}

TEST(BadInput, MalformedYaml) {
  std::string path = write_temp("bad.yaml", "name: x\nimages: [\n  - elf: a\n");
  auto result = run_npuvp("run " + path);
  expect_one_line_error(result, kBadInput, "malformed YAML");
  EXPECT_THAT(last_line(result.err), HasSubstr(path + ":"));
}

TEST(BadInput, UnknownScenarioKeySuggestsTheRightOne) {
  std::string path = write_temp("typo.yaml", "name: x\nimage:\n  - elf: host/hello.elf\n");
  expect_one_line_error(run_npuvp("run " + path), kBadInput, "did you mean 'images'?");
}

TEST(BadInput, UnknownParameterSuggestsTheClosest) {
  auto result = run_npuvp("run " + scenario("hello") + " --set soc.cpu.clok=2GHz");
  expect_one_line_error(result, kBadInput, "unknown parameter 'soc.cpu.clok'");
  EXPECT_THAT(last_line(result.err), HasSubstr("did you mean 'soc.cpu.clock'?"));
}

TEST(BadInput, MistypedParameterValue) {
  auto result = run_npuvp("run " + scenario("hello") + " --set sim.quantum=fast");
  expect_one_line_error(result, kBadInput, "parameter 'sim.quantum' expects a time");
}

TEST(BadInput, IllegalInstructionWithoutHandlerShowsPcEncodingAndMnemonic) {
  // The program points mtvec at address 0 (no memory) before the illegal
  // instruction: the run stops with the original cause instead of looping.
  auto result = run_npuvp("run --elf " + firmware("tests/illegal.elf"));
  expect_one_line_error(result, kGuestError, "illegal instruction at pc=0x");
  std::string line = last_line(result.err);
  EXPECT_THAT(line, HasSubstr("<main+"));
  EXPECT_THAT(line, HasSubstr("instruction 0xc0001073 (csrrw zero, cycle, zero)"));
  EXPECT_THAT(line, HasSubstr("trap handler at mtvec=0x0 cannot run"));
}

TEST(BadInput, RunawayFirmwareHitsTheInstructionLimitAndStillWritesStats) {
  std::string stats = temp_path("runaway.json");
  auto result = run_npuvp("run --elf " + firmware("tests/runaway.elf") +
                          " --set sim.limit.instructions=2000000 --stats " + stats);
  expect_one_line_error(result, kLimitReached, "instruction limit reached");
  auto json = nlohmann::json::parse(read_file(stats));
  EXPECT_EQ(json["npuvp"]["exit_status"], kLimitReached);
  EXPECT_EQ(json["statistics"]["soc.cpu.instructions"], 2000000);
  EXPECT_THAT(result.err, HasSubstr("== npuvp statistics"));
}

TEST(BadInput, RunawayFirmwareHitsTheSimulatedTimeLimit) {
  auto result = run_npuvp("run --elf " + firmware("tests/runaway.elf") + " --set sim.limit.sim_time=5ms --quiet");
  expect_one_line_error(result, kLimitReached, "simulated-time limit reached at 5 ms");
}

TEST(BadInput, RunawayFirmwareHitsTheWallTimeLimit) {
  auto result = run_npuvp("run --elf " + firmware("tests/runaway.elf") + " --set sim.limit.wall_time=200ms --quiet");
  expect_one_line_error(result, kLimitReached, "wall-time limit reached");
}

TEST(BadInput, SleepingForeverIsDetected) {
  auto result = run_npuvp("run --elf " + firmware("tests/wfi-forever.elf") + " --quiet");
  expect_one_line_error(result, kGuestError, "sleeps in WFI");
}

TEST(BadInput, CommandLineErrors) {
  EXPECT_EQ(run_npuvp("frobnicate").status, kBadInput);
  EXPECT_EQ(run_npuvp("run").status, kBadInput);
  EXPECT_EQ(run_npuvp("run " + scenario("hello") + " --bogus").status, kBadInput);
  EXPECT_EQ(run_npuvp("run " + scenario("hello") + " --set novalue").status, kBadInput);
  auto help = run_npuvp("--help");
  EXPECT_EQ(help.status, 0);
  EXPECT_THAT(help.out, HasSubstr("npuvp run SCENARIO.yaml"));
}

// Issue 19: the limit is Ascend 910's 32 AI Cores, two PLIC sources each (32..95).
TEST(BadInput, MoreAiCoresThanThePlicHoldsIsAOneLineError) {
  auto result = run_npuvp("run " + scenario("gemm-offload") + " --set soc.ai_cores=33");
  expect_one_line_error(result, kBadInput, "soc.ai_cores = 33: must be at most 32 (two PLIC sources per core, 32..95)");
  EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << "more than one line:\n" << result.err;
  EXPECT_EQ(result.out, "");
}

TEST(BadInput, AiCoresNeedingMorePlicSourcesThanConfigured) {
  auto result = run_npuvp("run " + scenario("gemm-offload") + " --set soc.ai_cores=16 --set soc.plic.sources=63");
  expect_one_line_error(result, kBadInput,
                        "soc.ai_cores = 16 needs PLIC sources up to 63, but soc.plic.sources = 63 gives 1..62");
}

TEST(BadInput, TrafficGeneratorRangeLargerThanItsTarget) {
  auto result = run_npuvp("run " + scenario("hello") + " --set traffic_generators=1 --set tg0.count=10"
                          " --set tg0.base=0x30000000 --set tg0.range=16MiB");
  expect_one_line_error(result, kBadInput, "soc.tg0: range [0x30000000, 0x31000000) is not inside one target ('l2' ends at 0x307fffff)");
}

namespace npuvp {
namespace {

TEST(BadInput, KernelFaultOnAnAiCoreIsReportedWithCauseAndPcAndStillWritesStats) {
  // The faults test kernel, case 1: a vadd whose destination leaves UB.
  std::string scenario = write_temp("fault.yaml",
                                    "name: fault\n"
                                    "aicore_launch:\n"
                                    "  kernel: " + firmware("sw/kernels/tests/faults.elf") + "\n"
                                    "  cores: 1\n"
                                    "  args: [1, 0x90000000]\n");
  std::string stats = temp_path("fault.json");
  auto result = run_npuvp("run " + scenario + " --stats " + stats);
  expect_one_line_error(result, kGuestError, "soc.aicore0: kernel fault (buffer range) at pc 0x");
  EXPECT_THAT(last_line(result.err), HasSubstr("<run_case+"));  // the function holding the faulting vadd
  EXPECT_THAT(last_line(result.err), HasSubstr("leaves UB"));
  auto json = nlohmann::json::parse(read_file(stats));
  EXPECT_EQ(json["npuvp"]["exit_status"], kGuestError);
  EXPECT_EQ(json["statistics"]["soc.aicore0.blocks_faulted"], 1);
  EXPECT_EQ(json["statistics"]["soc.aicore0.blocks_done"], 0);
}

}  // namespace
}  // namespace npuvp
