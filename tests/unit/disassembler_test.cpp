// Disassembler (objdump style) against independent references:
//  * GNU objdump: every instruction of real firmware ELFs' code, as
//    `riscv64-unknown-elf-objdump -d -M no-aliases` prints it (ABI register
//    names, c. names for RVC), is disassembled from its encoding and
//    compared text for text: an ordinary program (bench-cpu: integer, M, A,
//    C, Zicsr), fp-selftest (F/D), the boot/trap code of hello and the
//    task-scheduler firmware (fences, AMOs);
//  * docs/isa-xdavinci.md: each documented Xdavinci instruction, encoded
//    from the doc's opcode/funct3/funct2 columns, disassembles as its
//    documented name with the operands of its form (objdump shows .insn).
#include "cpu/decoder.h"
#include "cpu/disassembler.h"
#include "npu/xdavinci_extension.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace npuvp {
namespace {

struct ObjdumpLine {
  std::uint64_t address;
  std::uint32_t raw;
  std::string text;  // mnemonic and operands, comment and symbol removed
};

// "    80000030:\t08547463          \tbgeu\ts0,t0,800000b8 <_start+0xb8>"
std::vector<ObjdumpLine> objdump(const std::string& elf) {
  std::string command = "riscv64-unknown-elf-objdump -d -M no-aliases " + elf + " 2>&1";
  std::FILE* pipe = popen(command.c_str(), "r");
  std::vector<ObjdumpLine> lines;
  if (!pipe) return lines;
  static const std::regex kLine(R"(^\s*([0-9a-f]+):\t([0-9a-f]+)\s*\t(\S+)\s*(.*)$)");
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe)) {
    std::string line(buffer);
    while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
    std::smatch match;
    if (!std::regex_match(line, match, kLine)) continue;
    std::string operands = match[4];
    if (auto comment = operands.find(" #"); comment != std::string::npos) operands.erase(comment);
    if (auto symbol = operands.find(" <"); symbol != std::string::npos) operands.erase(symbol);
    while (!operands.empty() && operands.back() == ' ') operands.pop_back();
    std::string text = match[3].str() + (operands.empty() ? "" : " " + operands);
    lines.push_back({std::stoull(match[1], nullptr, 16), static_cast<std::uint32_t>(std::stoul(match[2], nullptr, 16)), text});
  }
  pclose(pipe);
  return lines;
}

// Compares every instruction objdump knows; returns how many were compared
// and the mnemonics seen.
std::size_t compare_with_objdump(const std::string& elf, std::map<std::string, int>& mnemonics) {
  Decoder decoder;
  Disassembler disassembler(decoder);
  auto lines = objdump(elf);
  EXPECT_GT(lines.size(), 100u) << "objdump found no code in " << elf;
  std::size_t compared = 0, mismatches = 0;
  for (const auto& line : lines) {
    // objdump's own ".word"/".short"/".insn": encodings it does not know
    // (checked for Xdavinci below, and for invalid rounding modes in hart_float_test).
    if (line.text[0] == '.') continue;
    std::string ours = disassembler.text(line.raw, line.address);
    if (auto symbol = ours.find(" <"); symbol != std::string::npos) ours.erase(symbol);
    if (ours != line.text && ++mismatches <= 20)
      ADD_FAILURE() << elf << " at " << std::hex << line.address << ": " << line.raw << " objdump \"" << line.text
                    << "\", ours \"" << ours << "\"";
    ++compared;
    ++mnemonics[line.text.substr(0, line.text.find(' '))];
  }
  EXPECT_EQ(mismatches, 0u) << elf;
  return compared;
}

TEST(Disassembler, MatchesObjdumpOnAnOrdinaryProgram) {
  std::map<std::string, int> mnemonics;
  std::size_t compared = compare_with_objdump(NPUVP_FIRMWARE_DIR "/host/bench-cpu.elf", mnemonics);
  compared += compare_with_objdump(NPUVP_FIRMWARE_DIR "/host/hello.elf", mnemonics);
  compared += compare_with_objdump(NPUVP_FIRMWARE_DIR "/ts/ts.elf", mnemonics);
  EXPECT_GT(compared, 1000u);
  // The program covers the interesting formats: compressed forms, shifts,
  // branches, CSRs, M.
  for (const char* mnemonic : {"c.addi", "c.li", "c.ldsp", "c.sdsp", "c.j", "c.beqz", "c.jr", "c.slli", "c.lui",
                               "c.addi16sp", "c.addi4spn", "slli", "srai", "lui", "auipc", "jal", "jalr", "bne",
                               "csrrs", "csrrw", "mul", "divu", "mret", "wfi", "fence"})
    EXPECT_GT(mnemonics[mnemonic], 0) << mnemonic << " not covered";
}

TEST(Disassembler, MatchesObjdumpOnFloatingPoint) {
  std::map<std::string, int> mnemonics;
  std::size_t compared = compare_with_objdump(NPUVP_FIRMWARE_DIR "/tests/fp-selftest.elf", mnemonics);
  EXPECT_GT(compared, 500u);
  for (const char* mnemonic : {"fadd.d", "fmadd.s", "fnmsub.d", "fcvt.w.d", "fcvt.d.s", "fcvt.s.lu", "fmv.x.d",
                               "fsgnjx.s", "fclass.d", "feq.s", "flw", "fsd", "c.fld", "c.fsdsp"})
    EXPECT_GT(mnemonics[mnemonic], 0) << mnemonic << " not covered";
}

TEST(Disassembler, ObjdumpStyleDetails) {
  Decoder decoder;
  Disassembler disassembler(decoder);
  disassembler.set_symbolizer([](std::uint64_t address) { return address == 0x1010 ? std::string("loop") : std::string(); });
  // Word constants from riscv64-unknown-elf-as, text from objdump -M no-aliases.
  EXPECT_EQ(disassembler.text(0x00c58863, 0x1000), "beq a1,a2,1010 <loop>");
  EXPECT_EQ(disassembler.text(0x0ff0000f, 0), "fence iorw,iorw");
  EXPECT_EQ(disassembler.text(0x06c5a52f, 0), "amoadd.w.aqrl a0,a2,(a1)");
  EXPECT_EQ(disassembler.text(0x1405b52f, 0), "lr.d.aq a0,(a1)");
  EXPECT_EQ(disassembler.text(0x0001, 0), "c.nop");
  EXPECT_EQ(disassembler.text(0x9002, 0), "c.ebreak");
  EXPECT_EQ(disassembler.text(0x0000, 0), ".short 0x0000") << "the all-zero halfword is illegal";
  EXPECT_EQ(disassembler.text(0xffffffff, 0), ".word 0xffffffff");
  EXPECT_EQ(disassembler.text(0x7c002573, 0), "csrrs a0,0x7c0,zero") << "unnamed CSR in hexadecimal";
  // The message style (Decoder::disassemble) is the same code.
  EXPECT_EQ(decoder.disassemble(0x00c58863, 0x1000), "beq a1, a2, 0x1010");
  EXPECT_EQ(decoder.disassemble(0x0541, 0), "addi a0, a0, 16") << "c.addi a0,16 as its expansion";
}

// Xdavinci: names and operands as docs/isa-xdavinci.md documents them.
class IdleBackend : public XdavinciBackend {
 public:
  void issue(Hart&, xdavinci::Op, const std::uint64_t[4]) override { ADD_FAILURE() << "disassembly issued an instruction"; }
  bool read_special(std::uint16_t, std::uint64_t&) override { return false; }
};

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream stream(line);
  std::string cell;
  std::getline(stream, cell, '|');  // before the first bar
  while (std::getline(stream, cell, '|')) {
    auto begin = cell.find_first_not_of(" `"), end = cell.find_last_not_of(" `");
    out.push_back(begin == std::string::npos ? "" : cell.substr(begin, end - begin + 1));
  }
  return out;
}

TEST(Disassembler, XdavinciInstructionsAsDocumented) {
  std::ifstream doc(NPUVP_SOURCE_DIR "/docs/isa-xdavinci.md");
  ASSERT_TRUE(doc) << "docs/isa-xdavinci.md";
  std::map<unsigned, std::string> pipes;  // the Pipes table: number -> PIPE_x
  struct Row {
    std::string name;
    unsigned opcode, funct3;
    int funct2;
  };
  std::vector<Row> rows;
  std::string line;
  while (std::getline(doc, line)) {
    auto c = cells(line);
    if (c.size() >= 3 && c[1].rfind("PIPE_", 0) == 0 && std::isdigit(static_cast<unsigned char>(c[0][0])))
      pipes[std::stoul(c[0])] = c[1];
    if (c.size() >= 6 && c[0].rfind("xd.", 0) == 0 && c[3].rfind("0x", 0) == 0)
      rows.push_back({c[0], static_cast<unsigned>(std::stoul(c[3], nullptr, 16)), static_cast<unsigned>(std::stoul(c[4])),
                      c[5] == "-" ? -1 : std::stoi(c[5])});
  }
  ASSERT_GE(rows.size(), 40u) << "instruction table of docs/isa-xdavinci.md";
  ASSERT_GE(pipes.size(), 6u) << "pipe table of docs/isa-xdavinci.md";

  IdleBackend backend;
  XdavinciExtension extension(backend);
  Decoder decoder;
  decoder.add(extension, extension.instructions());
  Disassembler disassembler(decoder);
  const unsigned a0 = 10, a1 = 11, a2 = 12, a3 = 13;
  for (const auto& row : rows) {
    std::uint32_t raw;
    std::string expected;
    if (row.opcode != 0x5b) {  // R4 data form: .insn r4 OPCODE, FUNCT3, FUNCT2, a0, a1, a2, a3
      raw = row.opcode | a0 << 7 | row.funct3 << 12 | a1 << 15 | a2 << 20 | static_cast<unsigned>(row.funct2) << 25 | a3 << 27;
      expected = row.name + " a0,a1,a2,a3";
    } else if (row.funct3 >= 4) {  // special R-type: .insn r 0x5b, FUNCT3, 0, x0, a1, a2
      raw = row.opcode | row.funct3 << 12 | a1 << 15 | a2 << 20;
      expected = row.name + " a1,a2";
    } else {  // sync I-type: src_pipe 2:0, dst_pipe 5:3, event 8:6
      unsigned src = 2, dst = 1, event = 5;
      raw = row.opcode | row.funct3 << 12 | (src | dst << 3 | event << 6) << 20;
      if (row.name == "xd.set_flag" || row.name == "xd.wait_flag")
        expected = row.name + " " + pipes[src] + "," + pipes[dst] + ",EVENT_ID5";
      else if (row.name == "xd.pipe_barrier")
        expected = row.name + " " + pipes[src];
      else
        expected = row.name;
    }
    EXPECT_EQ(disassembler.text(raw, 0x1000), expected) << "encoding " << std::hex << raw;
  }
}

}  // namespace
}  // namespace npuvp
