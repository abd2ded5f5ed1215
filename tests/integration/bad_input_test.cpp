// Bad input gets one clear line on stderr, a documented non-zero exit status,
// and (where a run started) the statistics it has. Never a crash or a hang.
#include "integration/run_npuvp.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <elf.h>

#include <chrono>
#include <cstring>
#include <functional>

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
  header.e_entry = header.e_entry - 0x8000'0000 + 0x5000'0000;  // the entry moves with its segment
  std::memcpy(image.data(), &header, sizeof header);
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
  auto unknown_option = run_npuvp("run " + scenario("hello") + " --bogus");
  EXPECT_EQ(unknown_option.status, kBadInput);
  EXPECT_THAT(unknown_option.err, HasSubstr("'--bogus'"));
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

// ---- Issue 23: the cases a probe with 215 bad inputs found ----

namespace {

// hello.elf with its two PT_LOAD program headers rewritten by `edit(program, n)`.
std::string hello_with_loads(const std::string& name, const std::function<void(Elf64_Phdr&, int)>& edit) {
  std::string image = read_file(firmware("host/hello.elf"));
  Elf64_Ehdr header;
  std::memcpy(&header, image.data(), sizeof header);
  int loads = 0;
  for (int i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr program;
    std::size_t offset = header.e_phoff + i * header.e_phentsize;
    std::memcpy(&program, image.data() + offset, sizeof program);
    if (program.p_type != PT_LOAD) continue;
    edit(program, loads++);
    std::memcpy(image.data() + offset, &program, sizeof program);
  }
  return write_temp(name, image);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The run ended with `status` and still wrote its statistics.
void expect_stats_with_status(const std::string& path, int status) {
  auto json = nlohmann::json::parse(read_file(path), nullptr, false);
  ASSERT_FALSE(json.is_discarded()) << path << " is not JSON";
  EXPECT_EQ(json["npuvp"]["exit_status"], status);
}

}  // namespace

TEST(BadInput, CyclicYamlAliasIsAnErrorWithStatisticsNotACrash) {
  std::string path = write_temp("cycle.yaml", "images:\n  - elf: host/hello.elf\nparams: &p {soc: *p}\n");
  std::string stats = temp_path("cycle.json");
  auto result = run_npuvp("run " + path + " --stats " + stats);
  expect_one_line_error(result, kBadInput, path + ":3: a YAML alias refers to a node that contains it");
  expect_stats_with_status(stats, kBadInput);
}

TEST(BadInput, YamlAliasBombFailsFast) {
  std::string text = "images:\n  - elf: host/hello.elf\nparams:\n  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int level = 1; level <= 10; ++level) {
    text += "  a" + std::to_string(level) + ": &a" + std::to_string(level) + " [";
    for (int i = 0; i < 10; ++i) text += (i ? ", *a" : "*a") + std::to_string(level - 1);
    text += "]\n";
  }
  std::string path = write_temp("bomb.yaml", text);
  const auto start = std::chrono::steady_clock::now();
  auto result = run_npuvp("run " + path + " --quiet");
  expect_one_line_error(result, kBadInput, "the scenario unfolds into more than 10000 YAML nodes");
  EXPECT_LT(seconds_since(start), 5.0) << "(process start included; the check itself takes milliseconds)";
}

TEST(BadInput, PreloadThatCannotFitIsRefusedUpFrontWithTheNumbers) {
  std::string path = write_temp("huge-preload.yaml",
                                "images:\n  - elf: host/hello.elf\nmemory:\n  - address: 0x90000000\n"
                                "    random: {type: f32, count: 1e11}\n");
  std::string stats = temp_path("huge-preload.json");
  const auto start = std::chrono::steady_clock::now();
  auto result = run_npuvp("run " + path + " --stats " + stats);
  expect_one_line_error(result, kBadInput,
                        "memory preload [0x90000000, 0x5db1dba000) (100000000000 f32 elements, 400000000000 bytes) "
                        "does not fit in 'ddr' [0x80000000, 0xc0000000): 400000000000 bytes requested, 805306368 "
                        "available from 0x90000000");
  EXPECT_LT(seconds_since(start), 10.0);
  expect_stats_with_status(stats, kBadInput);
}

TEST(BadInput, PreloadOverTheBootRomOrInAHoleIsRefused) {
  std::string path = write_temp("rom-preload.yaml",
                                "images:\n  - elf: host/hello.elf\nmemory:\n  - address: 0x1000\n"
                                "    random: {type: s8, count: 16}\n");
  expect_one_line_error(run_npuvp("run " + path + " --quiet"), kBadInput,
                        "memory preload [0x1000, 0x1010) (16 s8 elements, 16 bytes) overlaps the boot ROM [0x1000, 0x2000)");
  path = write_temp("hole-preload.yaml",
                    "images:\n  - elf: host/hello.elf\nmemory:\n  - address: 0x50000000\n"
                    "    random: {type: s8, count: 16}\n");
  expect_one_line_error(run_npuvp("run " + path + " --quiet"), kBadInput, "is not in any memory");
}

// The wall-time limit counts from the start: a preload that fits but takes
// long to generate (here 768 MiB of f16) is stopped by it.
TEST(BadInput, WallTimeLimitHoldsWhileLoading) {
  std::string path = write_temp("slow-preload.yaml",
                                "images:\n  - elf: host/hello.elf\nmemory:\n  - address: 0x90000000\n"
                                "    random: {type: f16, count: 402653184}\nlimits:\n  wall_time: 100ms\n");
  auto result = run_npuvp("run " + path + " --quiet");
  expect_one_line_error(result, kLimitReached, "wall-time limit reached");
  EXPECT_THAT(last_line(result.err), HasSubstr("last core: memory preload"));
}

TEST(BadInput, UnwritableStatsPathFailsBeforeTheRun) {
  auto result = run_npuvp("run " + scenario("hello") + " --quiet --stats /nonexistent-npuvp-folder/s.json");
  expect_one_line_error(result, kBadInput, "--stats '/nonexistent-npuvp-folder/s.json': the folder '/nonexistent-npuvp-folder' does not exist");
  EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << "more than one line:\n" << result.err;
  EXPECT_EQ(result.out, "") << "the guest ran";
  result = run_npuvp("run " + scenario("hello") + " --quiet --stats /tmp");
  expect_one_line_error(result, kBadInput, "--stats '/tmp': is a directory");
}

// /dev/full passes the check before the run (it opens for writing) and fails every write:
// a disk that fills up during the run. The run passed, but the statistics are lost.
TEST(BadInput, StatisticsLostAtTheEndMakeAPassingRunFail) {
  auto result = run_npuvp("run " + scenario("hello") + " --quiet --stats /dev/full");
  EXPECT_EQ(result.status, kBadInput) << result.err;
  EXPECT_THAT(result.err, HasSubstr("npuvp: error: cannot write statistics to '/dev/full' (No space left on device)"));
  EXPECT_THAT(result.out, HasSubstr("Hello from npuvp!")) << "the guest ran";
}

TEST(BadInput, PatchOfAMissingSymbol) {
  std::string path = write_temp("patch.yaml", "images:\n  - elf: host/hello.elf\n    patch:\n      no_such_symbol: 1\n");
  std::string stats = temp_path("patch.json");
  expect_one_line_error(run_npuvp("run " + path + " --stats " + stats), kBadInput,
                        "patch: symbol 'no_such_symbol' is not in");
  expect_stats_with_status(stats, kBadInput);
}

// The argument block of an aicore_launch is loaded like an image: not over the
// boot ROM (it used to overwrite the reset vector) and not past a memory's end.
TEST(BadInput, KernelArgumentBlockOverTheBootRomIsRefused) {
  std::string path = write_temp("args.yaml", "aicore_launch:\n  kernel: " + firmware("sw/kernels/tests/faults.elf") +
                                                 "\n  cores: 1\n  args: [1, 2]\n  args_address: 0x1ff8\n");
  expect_one_line_error(run_npuvp("run " + path + " --quiet"), kBadInput,
                        "aicore_launch: the argument block [0x1ff8, 0x2008) overlaps the boot ROM [0x1000, 0x2000)");
  path = write_temp("args-end.yaml", "aicore_launch:\n  kernel: " + firmware("sw/kernels/tests/faults.elf") +
                                         "\n  cores: 1\n  args: [1, 2]\n  args_address: 0xbffffff8\n");
  expect_one_line_error(run_npuvp("run " + path + " --quiet"), kBadInput,
                        "aicore_launch: the argument block [0xbffffff8, 0xc0000008) does not fit in 'ddr'");
}

TEST(BadInput, DirectoryAsScenarioIsBadInput) {
  expect_one_line_error(run_npuvp("run /tmp"), kBadInput, "scenario '/tmp' is a directory, not a YAML file");
}

TEST(BadInput, ElfThatIsADirectoryADeviceOrEmptySaysSo) {
  expect_one_line_error(run_npuvp("run --elf /tmp"), kBadInput, "ELF '/tmp': '/tmp' is a directory, not an ELF file");
  expect_one_line_error(run_npuvp("run --elf /dev/null"), kBadInput, "'/dev/null' is a character device, not an ELF file");
  std::string empty = write_temp("empty.elf", "");
  expect_one_line_error(run_npuvp("run --elf " + empty), kBadInput, "the file is empty (0 bytes), not an ELF file");
}

TEST(BadInput, OverlappingElfSegmentsAreRefused) {
  std::string path = hello_with_loads("overlap.elf", [](Elf64_Phdr& program, int n) {
    if (n == 1) program.p_paddr = 0x8000'0000 + 0x100;  // the data over the text
  });
  expect_one_line_error(run_npuvp("run --elf " + path), kBadInput, "loadable segments [0x80000000, ");
  EXPECT_THAT(last_line(run_npuvp("run --elf " + path).err), HasSubstr(") and [0x80000100, 0x80000368) overlap"));
}

TEST(BadInput, ElfSegmentOverTheBootRomIsRefused) {
  std::string path = hello_with_loads("bootrom.elf", [](Elf64_Phdr& program, int n) {
    if (n == 1) program.p_paddr = 0x1800;
  });
  expect_one_line_error(run_npuvp("run --elf " + path), kBadInput,
                        "segment 1 [0x1800, 0x1a68) overlaps the boot ROM [0x1000, 0x2000)");
}

TEST(BadInput, HugeElfSegmentIsRefusedBeforeAnythingIsWritten) {
  std::string path = hello_with_loads("huge.elf", [](Elf64_Phdr& program, int n) {
    if (n == 1) program.p_memsz = 0x1'0000'0000;  // a 4 GiB .bss
  });
  const auto start = std::chrono::steady_clock::now();
  expect_one_line_error(run_npuvp("run --elf " + path), kBadInput,
                        "segment 1 [0x80002180, 0x180002180) does not fit in 'ddr' [0x80000000, 0xc0000000): "
                        "4294967296 bytes requested");
  EXPECT_LT(seconds_since(start), 10.0);
  path = hello_with_loads("wrap.elf", [](Elf64_Phdr& program, int n) {
    if (n == 1) program.p_memsz = 0xffff'ffff'ff00'0000;
  });
  expect_one_line_error(run_npuvp("run --elf " + path), kBadInput,
                        "[0x80002180, 0x1000000007f002180) runs past the end of the 64-bit address space");
}

TEST(BadInput, ClockSoLowThatPicosecondsOverflowIsRefused) {
  expect_one_line_error(run_npuvp("run " + scenario("hello") + " --set cpu.clock=1mHz"), kBadInput,
                        "parameter 'soc.cpu.clock' = 0.001 Hz is outside the clocks SystemC's 64-bit picosecond time "
                        "can hold: it must be between 1 kHz (a 1 ms cycle) and 1 THz (a 1 ps cycle)");
  expect_one_line_error(run_npuvp("run " + scenario("hello") + " --set ring.clock=10Hz"), kBadInput,
                        "parameter 'soc.ring.clock' = 10 Hz is outside");
  expect_one_line_error(run_npuvp("run " + scenario("mesh-hello") + " --set mesh.clock=2THz"), kBadInput,
                        "parameter 'soc.mesh.clock' = 2e+12 Hz is outside");
}

// SystemC time is 2^64 ps (about 213 days); sc_time wraps a larger value
// silently (1e30s became 9.2e6 s).
TEST(BadInput, TimeAboveSystemCsRangeIsRefused) {
  expect_one_line_error(run_npuvp("run " + scenario("hello") + " --set sim.limit.sim_time=1e30s"), kBadInput,
                        "parameter 'sim.limit.sim_time' expects a time with a unit such as 10us or 1ms, got '1e30s': "
                        "above SystemC's largest time, 2^64 ps (about 213 days)");
}

// Runs the runaway guest and sends it `signal` (TERM, HUP) once it runs (its first line is on
// the console, which is flushed per line), so the handler is in place however slow the start.
CommandResult signalled_runaway(const std::string& signal, const std::string& stats) {
  const std::string console = stats + ".out";
  std::remove(stats.c_str());
  auto result = run_command("sh -c '" + std::string(NPUVP_EXECUTABLE) + " run --elf " + firmware("tests/runaway.elf") +
                            " --quiet --set sim.limit.wall_time=60s --stats " + stats + " > " + console +
                            " & pid=$!; for i in $(seq 600); do grep -q spinning " + console +
                            " && break; sleep 0.1; done; kill -" + signal + " $pid; wait $pid'");
  std::remove(console.c_str());
  return result;
}

// SIGTERM (kill, a batch system's time limit) ends the run like Ctrl-C:
// statistics written, status 143 (128 + SIGTERM), the signal named.
TEST(BadInput, SigtermEndsTheRunWithStatistics) {
  const std::string stats = temp_path("sigterm.json");
  expect_one_line_error(signalled_runaway("TERM", stats), 143, "terminated (SIGTERM) at simulated time");
  expect_stats_with_status(stats, 143);
}

// SIGHUP (the terminal or ssh session went away) likewise: statistics written, status 129.
TEST(BadInput, SighupEndsTheRunWithStatistics) {
  const std::string stats = temp_path("sighup.json");
  expect_one_line_error(signalled_runaway("HUP", stats), 129, "hung up (SIGHUP) at simulated time");
  expect_stats_with_status(stats, 129);
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

// A reader that stops early (`npuvp run ... | head`): the run is not killed by SIGPIPE (status
// 141, no statistics, no verdict) but finishes, writes its statistics and says on stderr that
// the console output was lost. The pipe's read end is closed before npuvp starts, so its first
// console write already finds no reader.
TEST(BadInput, StdoutReaderGoneBeforeTheRun) {
  const std::string stats = temp_path("stats_after_sigpipe.json");
  std::remove(stats.c_str());
  // `true` has exited by the time npuvp, 0.3 s later, writes its first byte; the group's stderr
  // (npuvp's and its status) is what run_command captures
  const CommandResult result = run_command("sh -c '{ sleep 0.3; timeout 120 " + std::string(NPUVP_EXECUTABLE) +
                                           " run --elf " + firmware("host/hello.elf") + " --quiet --stats " + stats +
                                           "; echo status=$? >&2; } | true'");
  EXPECT_THAT(result.err, HasSubstr("status=0")) << result.err;
  EXPECT_THAT(result.err, HasSubstr("npuvp: warning: standard output was closed during the run")) << result.err;
  std::ifstream file(stats);
  ASSERT_TRUE(file.good()) << "no statistics written";
  const auto document = nlohmann::json::parse(file, nullptr, false);
  EXPECT_FALSE(document.is_discarded());
  std::remove(stats.c_str());
}

// A file name (and so the scenario's name) that is not UTF-8, as a Latin-1 one: the statistics
// replace the byte (U+FFFD) instead of the JSON writer aborting the process (status 134).
TEST(BadInput, NonUtf8NameInTheStatistics) {
  const std::string elf = temp_path("pr\xfc" "fung.elf"), stats = temp_path("stats_latin1.json");
  std::ofstream(elf, std::ios::binary) << read_file(firmware("host/hello.elf"));
  const CommandResult result = run_npuvp("run --elf '" + elf + "' --quiet --stats " + stats);
  EXPECT_EQ(result.status, 0) << result.err;
  std::ifstream file(stats);
  const auto document = nlohmann::json::parse(file, nullptr, false);
  ASSERT_FALSE(document.is_discarded());
  EXPECT_THAT(document["npuvp"]["scenario"].get<std::string>(), HasSubstr("pr\xef\xbf\xbd" "fung"));
  std::remove(elf.c_str());
  std::remove(stats.c_str());
}

// The reset pc is an instruction address: an odd one is refused before the run, not a fetch
// fault whose cause the hart can never otherwise raise.
TEST(BadInput, OddResetPc) {
  expect_one_line_error(run_npuvp("run --elf " + firmware("host/hello.elf") + " --set soc.cpu.reset_pc=0x1001 --quiet"),
                        kBadInput, "soc.cpu.reset_pc = 0x1001: an instruction address must be even");
}
