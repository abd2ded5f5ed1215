// Disassembler: text for a decoded instruction, from the same tables the
// decoder runs (InstructionSpec::format for the base ISA and F/D, the
// decoder's compressed forms for RVC, IsaExtension::disassemble_operands for
// extensions such as Xdavinci). There is no second decoder here: an
// instruction is decoded by Decoder and only formatted here.
//
// Two styles:
//  * kObjdump (--itrace, docs/observability.md): exactly what
//    `riscv64-unknown-elf-objdump -d -M no-aliases` prints for the
//    instruction: `addi a0,a0,16`, `c.addi a0,16`, `slli a0,a0,0x20`,
//    `beq a0,zero,80000118 <main+0x5a>`, `csrrs a0,mstatus,zero`,
//    `fence iorw,iorw`, `amoadd.w.aqrl a0,a1,(a2)`, `fadd.d fa0,fa1,fa2,rtz`.
//    No pseudo-instructions; compressed instructions keep their c. names.
//    Extension instructions (objdump only knows them as .insn) are shown as
//    their extension names them: `xd.vadd a0,a1,a2,a3`. An encoding that
//    is no instruction: `.word 0x...` / `.short 0x...`, as objdump does.
//  * kMessage (error messages, Decoder::disassemble): `addi a0, a0, 16`,
//    compressed instructions as their 32-bit expansion, targets as 0x...
#pragma once

#include "cpu/decoder.h"
#include "cpu/instruction.h"

#include <cstdint>
#include <functional>
#include <string>

namespace npuvp {

enum class DisassemblyStyle : std::uint8_t { kObjdump, kMessage };

class Disassembler {
 public:
  explicit Disassembler(const Decoder& decoder, DisassemblyStyle style = DisassemblyStyle::kObjdump)
      : decoder_(decoder), style_(style) {}

  // Names branch and jump targets (objdump style: "80000118 <main+0x5a>").
  void set_symbolizer(std::function<std::string(std::uint64_t)> symbolizer) { symbolizer_ = std::move(symbolizer); }

  std::string text(std::uint32_t raw, std::uint64_t pc) const;
  // `instruction` as Decoder::decode filled it (raw and length included).
  std::string text(const DecodedInstruction& instruction, std::uint64_t pc) const;
  // Appends the text to `out` (the instruction trace reuses one buffer).
  void append(std::string& out, const DecodedInstruction& instruction, std::uint64_t pc) const;

 private:
  void append_target(std::string& out, std::uint64_t target) const;
  void append_compressed(std::string& out, const DecodedInstruction& instruction, std::uint64_t pc) const;

  const Decoder& decoder_;
  DisassemblyStyle style_;
  std::function<std::string(std::uint64_t)> symbolizer_;
};

}  // namespace npuvp
