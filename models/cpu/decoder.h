// Table-driven decoder: 32-bit instructions are bucketed by major opcode and
// matched against (mask, match) patterns; compressed (16-bit) instructions are
// expanded into their 32-bit equivalents, so one set of semantics serves both.
#pragma once

#include "cpu/instruction.h"

#include <cstdint>
#include <string>
#include <vector>

namespace npuvp {

class IsaExtension;

// A compressed instruction as objdump -M no-aliases names it ("c.addi"), and
// how it lays out its operands. The decoder expands RVC into the 32-bit
// instruction it stands for (that runs); this is for the disassembler.
enum class CompressedOperands : std::uint8_t {
  kNone,      // c.nop, c.ebreak
  kRdImm,     // c.li, c.addi, c.addiw, c.andi: rd,imm
  kRdHex,     // c.lui (rd,imm[31:12]), c.slli/c.srli/c.srai (rd,shamt): hexadecimal
  kRdSpImm,   // c.addi4spn: rd,sp,imm
  kSpImm,     // c.addi16sp: sp,imm
  kLoad,      // c.lw, c.ld, c.lwsp, c.ldsp: rd,imm(rs1)
  kStore,     // c.sw, c.sd, c.swsp, c.sdsp: rs2,imm(rs1)
  kFpLoad,    // c.fld, c.fldsp: fd,imm(rs1)
  kFpStore,   // c.fsd, c.fsdsp: fs2,imm(rs1)
  kJump,      // c.j: target
  kBranch,    // c.beqz, c.bnez: rs1,target
  kRs1,       // c.jr, c.jalr: rs1
  kRdRs2,     // c.mv, c.add, c.sub, c.and, ...: rd,rs2
};
struct CompressedForm {
  const char* mnemonic = nullptr;  // null: not a valid compressed instruction
  CompressedOperands operands = CompressedOperands::kNone;
};

class Decoder {
 public:
  Decoder();
  // Adds an extension's instructions; throws std::logic_error on an encoding
  // that overlaps an existing instruction.
  void add(IsaExtension& extension, std::vector<InstructionSpec> specs);

  // Decodes `raw` (16 bits in the low half when compressed). Fills everything
  // but `cost`; returns false for an illegal encoding (spec = nullptr).
  bool decode(std::uint32_t raw, DecodedInstruction& out) const;
  static bool is_compressed(std::uint32_t raw) { return (raw & 3) != 3; }
  // The compressed form of a 16-bit encoding (decoded by the same code as decode()).
  CompressedForm compressed_form(std::uint16_t raw) const;

  // "addi a0, a0, 1" style text for messages (compressed forms shown as
  // their expansion); "unknown" for illegal encodings. The objdump-style
  // text of --itrace is Disassembler's (disassembler.h), same code.
  std::string disassemble(std::uint32_t raw, std::uint64_t pc) const;
  std::string disassemble(const DecodedInstruction& instruction, std::uint64_t pc) const;
  // Mnemonic alone, or empty when the encoding is not an instruction we know.
  std::string mnemonic(std::uint32_t raw) const;

  // The base ISA tables (RV64I, M, A, Zicsr, Zifencei, privileged) and the
  // F and D extensions (isa_float.cpp).
  static const std::vector<InstructionSpec>& base_instructions();
  static const std::vector<InstructionSpec>& float_instructions();
  const InstructionSpec* find(const char* mnemonic) const;

 private:
  bool decode_compressed(std::uint16_t raw, DecodedInstruction& out, CompressedForm* form = nullptr) const;
  const InstructionSpec* lookup(std::uint32_t raw) const;
  void insert(const InstructionSpec* spec);
  std::vector<const InstructionSpec*> buckets_[128];
  std::vector<std::vector<InstructionSpec>> extension_specs_;
};

// Fills rd/rs1/rs2/imm from a 32-bit encoding according to its format.
void decode_operands(const InstructionSpec& spec, std::uint32_t raw, DecodedInstruction& out);

}  // namespace npuvp
