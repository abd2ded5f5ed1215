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

  // "addi a0, a0, 1" style text (compressed forms shown as their expansion,
  // as objdump does); "unknown" for illegal encodings.
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
  bool decode_compressed(std::uint16_t raw, DecodedInstruction& out) const;
  const InstructionSpec* lookup(std::uint32_t raw) const;
  void insert(const InstructionSpec* spec);
  std::vector<const InstructionSpec*> buckets_[128];
  std::vector<std::vector<InstructionSpec>> extension_specs_;
};

// Fills rd/rs1/rs2/imm from a 32-bit encoding according to its format.
void decode_operands(const InstructionSpec& spec, std::uint32_t raw, DecodedInstruction& out);

}  // namespace npuvp
