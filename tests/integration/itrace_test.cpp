// `npuvp run --itrace FILE`: the instruction trace of a real run agrees with
// independent references: its disassembly with GNU objdump's at every traced
// pc, its line count with the core's statistics, register values with what
// the instructions must have written; the filters select what they say; an
// AI Core's scalar unit shows its Xdavinci instructions by their documented
// names; traps get their own line.
#include "integration/run_npuvp.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace npuvp::test_support;
using ::testing::HasSubstr;

namespace {

struct TraceLine {
  std::string core;
  std::uint64_t cycle = 0;
  double time_ns = 0;
  std::uint64_t pc = 0;
  std::string raw;                                // empty on trap lines
  std::string text;                               // disassembly, or the trap description
  std::map<std::string, std::uint64_t> writes;    // register=value
};

std::string strip_symbols(std::string text) {
  for (auto open = text.find(" <"); open != std::string::npos; open = text.find(" <")) {
    auto close = text.find('>', open);
    text.erase(open, close == std::string::npos ? std::string::npos : close - open + 1);
  }
  return text;
}

// "soc.cpu 67 67.000 80000004: 9e018193 addi gp,gp,-1568             gp=0x800029e0"
std::vector<TraceLine> parse_trace(const std::string& text, std::size_t* comments = nullptr) {
  static const std::regex kLine(R"(^(\S+) (\d+) ([0-9.]+) +([0-9a-f]+): (.*)$)");
  static const std::regex kInstruction(R"(^([0-9a-f]{4}|[0-9a-f]{8}) +(.*)$)");
  static const std::regex kWrite(R"(([a-z0-9]+)=0x([0-9a-f]+))");
  std::vector<TraceLine> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') {
      if (comments) ++*comments;
      continue;
    }
    std::smatch match;
    if (!std::regex_match(line, match, kLine)) {
      ADD_FAILURE() << "unexpected trace line: " << line;
      continue;
    }
    TraceLine entry;
    entry.core = match[1];
    entry.cycle = std::stoull(match[2]);
    entry.time_ns = std::stod(match[3]);
    entry.pc = std::stoull(match[4], nullptr, 16);
    std::string rest = match[5];
    std::smatch instruction;
    if (std::regex_match(rest, instruction, kInstruction)) {
      entry.raw = instruction[1];
      std::string body = instruction[2];
      // Register writes follow the padded disassembly; the disassembly has
      // no '=' (symbols like <main+0x4> neither).
      auto first_write = body.find('=');
      std::string disassembly = body, writes;
      if (first_write != std::string::npos) {
        auto start = body.rfind(' ', first_write);
        disassembly = body.substr(0, start);
        writes = body.substr(start);
      }
      while (!disassembly.empty() && disassembly.back() == ' ') disassembly.pop_back();
      entry.text = disassembly;
      for (std::sregex_iterator it(writes.begin(), writes.end(), kWrite), end; it != end; ++it)
        entry.writes[(*it)[1]] = std::stoull((*it)[2], nullptr, 16);
    } else {  // a trap line: its mcause=, mtval= are parsed like writes
      entry.text = rest;
      for (std::sregex_iterator it(rest.begin(), rest.end(), kWrite), end; it != end; ++it)
        entry.writes[(*it)[1]] = std::stoull((*it)[2], nullptr, 16);
    }
    lines.push_back(entry);
  }
  return lines;
}

// pc -> objdump -M no-aliases text (symbols and comments removed).
std::map<std::uint64_t, std::string> objdump(const std::string& elf) {
  std::map<std::uint64_t, std::string> out;
  CommandResult result = run_command("riscv64-unknown-elf-objdump -d -M no-aliases " + elf);
  EXPECT_EQ(result.status, 0) << result.err;
  static const std::regex kLine(R"(^\s*([0-9a-f]+):\t[0-9a-f]+\s*\t(\S+)\s*(.*)$)");
  std::istringstream in(result.out);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch match;
    if (!std::regex_match(line, match, kLine)) continue;
    std::string operands = match[3];
    if (auto comment = operands.find(" #"); comment != std::string::npos) operands.erase(comment);
    operands = strip_symbols(operands);
    while (!operands.empty() && operands.back() == ' ') operands.pop_back();
    out[std::stoull(match[1], nullptr, 16)] = match[2].str() + (operands.empty() ? "" : " " + operands);
  }
  return out;
}

struct TracedRun {
  CommandResult result;
  std::string trace;
  std::vector<TraceLine> lines;
  std::size_t comments = 0;
  nlohmann::json stats;
};

TracedRun run_traced(const std::string& arguments, const std::string& name) {
  TracedRun run;
  std::string trace = temp_path(name + ".itrace"), stats = temp_path(name + ".json");
  run.result = run_npuvp(arguments + " -q --itrace " + trace + " --stats " + stats);
  run.trace = read_file(trace);
  run.lines = parse_trace(run.trace, &run.comments);
  std::ifstream in(stats);
  if (in) run.stats = nlohmann::json::parse(in, nullptr, false);
  std::remove(trace.c_str());
  std::remove(stats.c_str());
  return run;
}

std::uint64_t statistic(const TracedRun& run, const std::string& name) {
  return run.stats["statistics"].value(name, nlohmann::json(0)).get<std::uint64_t>();
}

TEST(InstructionTrace, HelloMatchesObjdumpAtEveryTracedPc) {
  TracedRun run = run_traced("run --elf " + firmware("host/hello.elf"), "hello");
  ASSERT_EQ(run.result.status, 0) << run.result.err;
  ASSERT_EQ(run.trace.rfind("# npuvp itrace:", 0), 0u) << "header line first";
  auto reference = objdump(firmware("host/hello.elf"));
  ASSERT_GT(reference.size(), 500u);
  std::size_t compared = 0, instructions = 0;
  for (const auto& line : run.lines) {
    ASSERT_EQ(line.core, "soc.cpu");
    ASSERT_FALSE(line.raw.empty()) << "hello takes no trap: " << line.text;
    ++instructions;
    auto found = reference.find(line.pc);
    if (found == reference.end()) continue;  // the boot ROM at 0x1000 is not in the ELF
    EXPECT_EQ(strip_symbols(line.text), found->second) << "pc " << std::hex << line.pc;
    ++compared;
  }
  EXPECT_GT(compared, 3000u);
  // One line per instruction the core executed (hello traps never).
  EXPECT_EQ(instructions, statistic(run, "soc.cpu.instructions"));
  // Lines of one core are in program order: cycles never go back.
  for (std::size_t i = 1; i < run.lines.size(); ++i) ASSERT_LE(run.lines[i - 1].cycle, run.lines[i].cycle);
}

TEST(InstructionTrace, RegisterWritesHaveTheValuesTheInstructionsDefine) {
  TracedRun run = run_traced("run --elf " + firmware("host/hello.elf"), "registers");
  ASSERT_EQ(run.result.status, 0) << run.result.err;
  static const std::regex kAuipc(R"(^auipc (\w+),0x([0-9a-f]+)$)");
  static const std::regex kLi(R"(^c\.li (\w+),(-?\d+)$)");
  static const std::regex kJal(R"(^jal ra,)");
  std::map<std::string, unsigned> checked;
  for (const auto& line : run.lines) {
    std::smatch match;
    if (std::regex_match(line.text, match, kAuipc)) {
      std::int64_t offset = static_cast<std::int32_t>(std::stoul(match[2], nullptr, 16) << 12);
      ASSERT_EQ(line.writes.count(match[1]), 1u) << line.text;
      EXPECT_EQ(line.writes.at(match[1]), line.pc + offset) << line.text;
      ++checked["auipc"];
    } else if (std::regex_match(line.text, match, kLi) && match[1] != "zero") {
      ASSERT_EQ(line.writes.count(match[1]), 1u) << line.text << ": c.li names its destination even if unchanged";
      EXPECT_EQ(line.writes.at(match[1]), static_cast<std::uint64_t>(std::stoll(match[2]))) << line.text;
      ++checked["c.li"];
    } else if (std::regex_search(line.text, kJal)) {
      EXPECT_EQ(line.writes.at("ra"), line.pc + 4) << line.text;
      ++checked["jal"];
    } else if (line.text == "c.jalr a5" || line.text.rfind("c.jalr ", 0) == 0) {
      EXPECT_EQ(line.writes.at("ra"), line.pc + 2) << line.text;
      ++checked["c.jalr"];
    } else if (line.text.rfind("csrrw zero,mtvec,", 0) == 0) {
      EXPECT_EQ(line.writes.count("mtvec"), 1u) << "a CSR write shows the CSR's new value";
      ++checked["mtvec"];
    }
  }
  EXPECT_GT(checked["auipc"], 3u);
  EXPECT_GT(checked["c.li"], 3u);
  EXPECT_GT(checked["jal"], 3u);
  EXPECT_GT(checked["mtvec"], 0u);
}

TEST(InstructionTrace, PcRangeAndLimitSelectInstructions) {
  // [0x80000000, 0x80000040): crt0's first instructions; then the limit.
  TracedRun ranged = run_traced("run --elf " + firmware("host/hello.elf") + " --itrace-pc 80000000:0x80000040", "range");
  ASSERT_EQ(ranged.result.status, 0) << ranged.result.err;
  ASSERT_GT(ranged.lines.size(), 10u);
  for (const auto& line : ranged.lines) {
    EXPECT_GE(line.pc, 0x80000000u);
    EXPECT_LT(line.pc, 0x80000040u);
  }
  TracedRun limited = run_traced("run --elf " + firmware("host/hello.elf") + " --itrace-limit 100", "limit");
  ASSERT_EQ(limited.result.status, 0) << limited.result.err << " (the run goes on after the limit)";
  EXPECT_EQ(limited.lines.size(), 100u);
  EXPECT_THAT(limited.trace, HasSubstr("# itrace limit of 100 instructions reached"));
}

TEST(InstructionTrace, AiCoreScalarUnitShowsXdavinciInstructions) {
  // gemm-direct: the GEMM kernel on two AI Cores; trace only AI Core 0.
  TracedRun run = run_traced("run " + scenario("gemm-direct") + " --itrace-cores 'soc.aicore0*'", "aicore");
  ASSERT_EQ(run.result.status, 0) << run.result.err;
  // The documented Xdavinci names (docs/isa-xdavinci.md instruction table).
  std::set<std::string> documented;
  std::istringstream doc(read_file(std::string(NPUVP_SOURCE_DIR) + "/docs/isa-xdavinci.md"));
  std::string row;
  static const std::regex kRow(R"(^\| `(xd\.\w+)` \|)");
  while (std::getline(doc, row)) {
    std::smatch match;
    if (std::regex_search(row, match, kRow)) documented.insert(match[1]);
  }
  ASSERT_GT(documented.size(), 40u);
  auto reference = objdump(firmware("sw/kernels/gemm.elf"));
  std::map<std::string, unsigned> xdavinci;
  std::size_t compared = 0;
  for (const auto& line : run.lines) {
    ASSERT_EQ(line.core, "soc.aicore0.scalar") << "--itrace-cores selects AI Core 0 only";
    std::string mnemonic = line.text.substr(0, line.text.find(' '));
    auto found = reference.find(line.pc);
    ASSERT_NE(found, reference.end()) << "pc " << std::hex << line.pc << " outside the kernel";
    if (mnemonic.rfind("xd.", 0) == 0) {
      EXPECT_EQ(documented.count(mnemonic), 1u) << mnemonic << " is not a documented Xdavinci instruction";
      // objdump does not know them: it shows the word, which must be ours.
      EXPECT_EQ(found->second, ".4byte 0x" + line.raw.substr(line.raw.find_first_not_of('0'))) << line.text;
      ++xdavinci[mnemonic];
    } else {
      EXPECT_EQ(strip_symbols(line.text), found->second) << "pc " << std::hex << line.pc;
      ++compared;
    }
  }
  for (const char* mnemonic : {"xd.mmad", "xd.copy_gm_to_cbuf_nd2nz", "xd.load_cbuf_to_ca", "xd.set_flag",
                               "xd.wait_flag", "xd.end_kernel"})
    EXPECT_GT(xdavinci[mnemonic], 0u) << mnemonic;
  EXPECT_GT(compared, 20u);
  EXPECT_EQ(run.lines.size(), statistic(run, "soc.aicore0.scalar.instructions"));
}

TEST(InstructionTrace, TrapsHaveTheirOwnLine) {
  TracedRun run = run_traced("run --elf " + firmware("tests/access-fault.elf"), "trap");
  ASSERT_FALSE(run.lines.empty()) << run.result.err;
  bool found = false;
  for (std::size_t i = 1; i < run.lines.size(); ++i) {
    const auto& line = run.lines[i];
    if (!line.raw.empty() || line.text.rfind("trap load access fault", 0) != 0) continue;
    found = true;
    EXPECT_EQ(line.writes.at("mcause"), 5u);
    // Right after the faulting load (same pc), which wrote nothing.
    EXPECT_EQ(run.lines[i - 1].pc, line.pc);
    EXPECT_THAT(run.lines[i - 1].text, HasSubstr("lw "));
    EXPECT_TRUE(run.lines[i - 1].writes.empty());
    // The handler's first instruction is next, at the trap's target.
    ASSERT_LT(i + 1, run.lines.size());
    EXPECT_THAT(line.text, HasSubstr(" -> "));
    std::uint64_t target = std::stoull(line.text.substr(line.text.find(" -> ") + 4), nullptr, 16);
    EXPECT_EQ(run.lines[i + 1].pc, target);
  }
  EXPECT_TRUE(found) << run.trace.substr(0, 2000);
}

TEST(InstructionTrace, BadOptionsAreBadInput) {
  auto bad_range = run_npuvp("run --elf " + firmware("host/hello.elf") + " --itrace /dev/null --itrace-pc 80000000");
  EXPECT_EQ(bad_range.status, 125);
  EXPECT_THAT(bad_range.err, HasSubstr("--itrace-pc expects START:END"));
  auto filter_alone = run_npuvp("run --elf " + firmware("host/hello.elf") + " --itrace-cores 'soc.cpu'");
  EXPECT_EQ(filter_alone.status, 125);
  EXPECT_THAT(filter_alone.err, HasSubstr("go with --itrace FILE"));
  auto unwritable = run_npuvp("run --elf " + firmware("host/hello.elf") + " --itrace /nonexistent/dir/trace.txt");
  EXPECT_EQ(unwritable.status, 125);
  EXPECT_THAT(unwritable.err, HasSubstr("cannot create"));
}

}  // namespace
