// The ISA is declared once, as tables of InstructionSpec (name, encoding
// pattern, operand format, timing class, semantics). The decoder, the
// disassembler and extension plug-ins (e.g. the AI Core's Xdavinci opcodes)
// all read the same tables.
#pragma once

#include <cstdint>

namespace npuvp {

class Hart;
class IsaExtension;
struct DecodedInstruction;

// Semantics of one instruction. It updates the hart (including pc) or raises
// a trap through Hart::raise_exception, in which case it leaves pc alone.
using ExecuteFn = void (*)(Hart& hart, const DecodedInstruction& instruction);

// How operands are laid out in the encoding; drives immediate extraction and
// disassembly.
enum class OperandFormat : std::uint8_t {
  kNone,       // ecall, mret, wfi
  kR,          // rd, rs1, rs2
  kI,          // rd, rs1, imm
  kLoad,       // rd, imm(rs1)
  kStore,      // rs2, imm(rs1)
  kBranch,     // rs1, rs2, pc-relative target
  kUpper,      // rd, imm[31:12]
  kJump,       // rd, pc-relative target
  kJumpReg,    // rd, imm(rs1)
  kShift,      // rd, rs1, shamt (6 bits on RV64)
  kShiftWord,  // rd, rs1, shamt (5 bits, *W forms)
  kCsr,        // rd, csr, rs1
  kCsrImm,     // rd, csr, uimm5
  kAtomic,     // rd, rs2, (rs1)
  kLoadReserved,  // rd, (rs1)
  kFence,      // pred, succ
  kCustom,     // extension-defined: the extension disassembles it
  // F/D (fN = f register; imm = the rm field, shown when the encoding has
  // one and it is not "dyn"):
  kFpLoad,     // fd, imm(rs1)
  kFpStore,    // fs2, imm(rs1)
  kFpR,        // fd, fs1, fs2 [, rm]
  kFpR4,       // fd, fs1, fs2, fs3 [, rm] (fs3 in aux)
  kFpR1,       // fd, fs1 [, rm]
  kFpToInt,    // rd, fs1 [, rm]
  kFpFromInt,  // fd, rs1 [, rm]
  kFpCompare,  // rd, fs1, fs2
};

// Timing class: each maps to a cycles-per-instruction parameter.
enum class InstructionClass : std::uint8_t {
  kAlu, kMultiply, kDivide, kLoad, kStore, kBranch, kJump, kCsr, kAtomic, kFence, kSystem,
  kCustom, kCount
};

const char* instruction_class_name(InstructionClass cls);

struct InstructionSpec {
  const char* mnemonic;
  std::uint32_t mask;   // bits that identify the instruction...
  std::uint32_t match;  // ...and their values
  OperandFormat format;
  InstructionClass cls;
  ExecuteFn execute;
  IsaExtension* owner = nullptr;  // set for extension instructions (their state)
  std::uint32_t flags = 0;        // extension-defined (base tables: kSpec* below)
};

// flags of base-table specs: an F/D instruction whose result is always exact
// (fcvt.d.s, fcvt.d.w, fcvt.d.wu): the assembler takes no rm operand for it,
// so the disassembler shows none (the rm field is still checked).
constexpr std::uint32_t kSpecExactConversion = 1;

// One decoded instruction, cached per instruction address. Kept small and
// flat: the interpreter touches it on every instruction.
struct DecodedInstruction {
  ExecuteFn execute;
  const InstructionSpec* spec;  // null for an illegal encoding
  std::int64_t imm;             // sign-extended immediate, CSR number, or shamt
  std::uint32_t raw;            // the encoding as fetched (16 or 32 bits)
  std::uint8_t rd;              // 32 when the destination is x0 (a write sink); f registers: 0-31
  std::uint8_t rs1, rs2;
  std::uint8_t length;          // 2 (compressed) or 4
  std::uint8_t cost;            // base cycles of the instruction's class
  std::uint8_t aux = 0;         // extension-defined (e.g. a fourth operand)
};

// RISC-V ABI register names, for messages and disassembly.
const char* register_name(unsigned index);
const char* fp_register_name(unsigned index);

}  // namespace npuvp
