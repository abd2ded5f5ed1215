// ISA extensions plug into a hart without editing the base decoder: a core
// role (e.g. the AI Core's scalar unit) registers an IsaExtension that brings
// its own instruction specs, CSRs and state.
#pragma once

#include "cpu/instruction.h"

#include <cstdint>
#include <string>
#include <vector>

namespace npuvp {

class Hart;

class IsaExtension {
 public:
  virtual ~IsaExtension() = default;
  virtual std::string name() const = 0;
  // misa letter to set ('X' for non-standard extensions), or 0 for none.
  virtual char misa_letter() const { return 'X'; }
  // Instruction specs; `owner` is filled in by the hart. Encodings must not
  // overlap the base ISA or other extensions (checked when registered).
  virtual std::vector<InstructionSpec> instructions() = 0;
  // Extension CSRs: return true when `csr` is the extension's.
  virtual bool read_csr(Hart& hart, std::uint16_t csr, std::uint64_t& value) { return false; }
  virtual bool write_csr(Hart& hart, std::uint16_t csr, std::uint64_t value) { return false; }
  // Operand text for OperandFormat::kCustom instructions.
  virtual std::string disassemble_operands(const DecodedInstruction& instruction) const { return ""; }
  virtual void reset(Hart& hart) {}
};

}  // namespace npuvp
