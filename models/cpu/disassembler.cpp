#include "cpu/disassembler.h"

#include "cpu/extension.h"

#include <cstdio>

namespace npuvp {

const char* csr_name(std::uint16_t csr);  // csr.cpp

namespace {

void append_hex(std::string& out, std::uint64_t value, bool prefix = true) {
  char buffer[24];
  int length = std::snprintf(buffer, sizeof buffer, prefix ? "0x%llx" : "%llx", static_cast<unsigned long long>(value));
  out.append(buffer, static_cast<std::size_t>(length));
}

void append_signed(std::string& out, std::int64_t value) {
  char buffer[24];
  int length = std::snprintf(buffer, sizeof buffer, "%lld", static_cast<long long>(value));
  out.append(buffer, static_cast<std::size_t>(length));
}

void append_fence_set(std::string& out, unsigned bits) {
  if (!(bits & 15)) {
    out += '0';
    return;
  }
  if (bits & 8) out += 'i';
  if (bits & 4) out += 'o';
  if (bits & 2) out += 'r';
  if (bits & 1) out += 'w';
}

}  // namespace

std::string Disassembler::text(std::uint32_t raw, std::uint64_t pc) const {
  DecodedInstruction decoded{};
  decoder_.decode(raw, decoded);
  return text(decoded, pc);
}

std::string Disassembler::text(const DecodedInstruction& instruction, std::uint64_t pc) const {
  std::string out;
  append(out, instruction, pc);
  return out;
}

void Disassembler::append_target(std::string& out, std::uint64_t target) const {
  if (style_ == DisassemblyStyle::kMessage) return append_hex(out, target);
  append_hex(out, target, false);  // objdump: bare hexadecimal, then the symbol
  if (symbolizer_) {
    std::string symbol = symbolizer_(target);
    if (!symbol.empty()) out.append(" <").append(symbol).append(">");
  }
}

void Disassembler::append(std::string& out, const DecodedInstruction& d, std::uint64_t pc) const {
  const bool objdump = style_ == DisassemblyStyle::kObjdump;
  if (!d.spec) {
    if (!objdump) {
      out += "unknown";
    } else {
      out += d.length == 2 ? ".short " : ".word ";
      char buffer[16];
      int length = std::snprintf(buffer, sizeof buffer, d.length == 2 ? "0x%04x" : "0x%08x", d.raw);
      out.append(buffer, static_cast<std::size_t>(length));
    }
    return;
  }
  if (objdump && d.length == 2) return append_compressed(out, d, pc);
  const InstructionSpec& spec = *d.spec;
  const char* const comma = objdump ? "," : ", ";
  auto reg = [&](unsigned index) { out += register_name(index); };
  auto freg = [&](unsigned index) { out += fp_register_name(index); };
  auto sep = [&] { out += comma; };
  // The rounding mode, when the encoding has an rm field and it is not dyn (as objdump shows it).
  auto rm = [&] {
    static const char* const kModes[8] = {"rne", "rtz", "rdn", "rup", "rmm", "rm5", "rm6", "dyn"};
    if (((spec.mask >> 12) & 7) != 0 || d.imm == 7) return;
    if (!spec.owner && (spec.flags & kSpecExactConversion)) return;
    sep();
    out += kModes[d.imm & 7];
  };
  auto csr = [&](std::int64_t number) {
    const char* name = csr_name(static_cast<std::uint16_t>(number));
    if (name) out += name;
    else append_hex(out, static_cast<std::uint64_t>(number));
  };
  auto offset_base = [&](unsigned base) {  // imm(rs1)
    append_signed(out, d.imm);
    out += '(';
    reg(base);
    out += ')';
  };

  out += spec.mnemonic;
  // Atomics: the aq/rl bits are not part of the pattern, objdump adds them to the name.
  if (objdump && (spec.format == OperandFormat::kAtomic || spec.format == OperandFormat::kLoadReserved)) {
    unsigned ordering = (d.raw >> 25) & 3;
    if (ordering == 3) out += ".aqrl";
    else if (ordering == 2) out += ".aq";
    else if (ordering == 1) out += ".rl";
  }
  if (spec.format != OperandFormat::kNone &&
      !(spec.format == OperandFormat::kCustom && !spec.owner))
    out += ' ';
  switch (spec.format) {
    case OperandFormat::kNone: break;
    case OperandFormat::kR: reg(d.rd); sep(); reg(d.rs1); sep(); reg(d.rs2); break;
    case OperandFormat::kI: reg(d.rd); sep(); reg(d.rs1); sep(); append_signed(out, d.imm); break;
    case OperandFormat::kShift:
    case OperandFormat::kShiftWord:
      reg(d.rd); sep(); reg(d.rs1); sep();
      if (objdump) append_hex(out, static_cast<std::uint64_t>(d.imm));
      else append_signed(out, d.imm);
      break;
    case OperandFormat::kLoad:
    case OperandFormat::kJumpReg: reg(d.rd); sep(); offset_base(d.rs1); break;
    case OperandFormat::kStore: reg(d.rs2); sep(); offset_base(d.rs1); break;
    case OperandFormat::kBranch: reg(d.rs1); sep(); reg(d.rs2); sep(); append_target(out, pc + d.imm); break;
    case OperandFormat::kUpper: reg(d.rd); sep(); append_hex(out, static_cast<std::uint64_t>(d.imm >> 12) & 0xfffff); break;
    case OperandFormat::kJump: reg(d.rd); sep(); append_target(out, pc + d.imm); break;
    case OperandFormat::kCsr: reg(d.rd); sep(); csr(d.imm); sep(); reg(d.rs1); break;
    case OperandFormat::kCsrImm: reg(d.rd); sep(); csr(d.imm); sep(); append_signed(out, d.rs1); break;
    case OperandFormat::kAtomic: reg(d.rd); sep(); reg(d.rs2); sep(); out += '('; reg(d.rs1); out += ')'; break;
    case OperandFormat::kLoadReserved: reg(d.rd); sep(); out += '('; reg(d.rs1); out += ')'; break;
    case OperandFormat::kFence:
      append_fence_set(out, static_cast<unsigned>(d.imm >> 4) & 15);
      sep();
      append_fence_set(out, static_cast<unsigned>(d.imm) & 15);
      break;
    case OperandFormat::kFpLoad: freg(d.rd); sep(); offset_base(d.rs1); break;
    case OperandFormat::kFpStore: freg(d.rs2); sep(); offset_base(d.rs1); break;
    case OperandFormat::kFpR: freg(d.rd); sep(); freg(d.rs1); sep(); freg(d.rs2); rm(); break;
    case OperandFormat::kFpR4: freg(d.rd); sep(); freg(d.rs1); sep(); freg(d.rs2); sep(); freg(d.aux); rm(); break;
    case OperandFormat::kFpR1: freg(d.rd); sep(); freg(d.rs1); rm(); break;
    case OperandFormat::kFpToInt: reg(d.rd); sep(); freg(d.rs1); rm(); break;
    case OperandFormat::kFpFromInt: freg(d.rd); sep(); reg(d.rs1); rm(); break;
    case OperandFormat::kFpCompare: reg(d.rd); sep(); freg(d.rs1); sep(); freg(d.rs2); break;
    case OperandFormat::kCustom:
      if (spec.owner) {
        // Extensions write ", " between operands (their documented syntax);
        // objdump style writes ",".
        std::string operands = spec.owner->disassemble_operands(d);
        if (operands.empty()) {
          out.pop_back();
        } else if (objdump) {
          for (std::size_t i = 0; i < operands.size(); ++i) {
            out += operands[i];
            if (operands[i] == ',' && i + 1 < operands.size() && operands[i + 1] == ' ') ++i;
          }
        } else {
          out += operands;
        }
      }
      break;
  }
}

// Compressed instructions in objdump's no-aliases form. The operands are the
// decoded (expanded) instruction's: the compressed form only says which of
// them objdump shows and how.
void Disassembler::append_compressed(std::string& out, const DecodedInstruction& d, std::uint64_t pc) const {
  CompressedForm form = decoder_.compressed_form(static_cast<std::uint16_t>(d.raw));
  if (!form.mnemonic) {
    out += "unknown";
    return;
  }
  out += form.mnemonic;
  auto reg = [&](unsigned index) { out += register_name(index); };
  auto offset_base = [&](unsigned base) {
    append_signed(out, d.imm);
    out += '(';
    reg(base);
    out += ')';
  };
  using Ops = CompressedOperands;
  if (form.operands != Ops::kNone) out += ' ';
  switch (form.operands) {
    case Ops::kNone: break;
    case Ops::kRdImm: reg(d.rd); out += ','; append_signed(out, d.imm); break;
    case Ops::kRdHex:
      reg(d.rd);
      out += ',';
      append_hex(out, d.spec->format == OperandFormat::kUpper ? (static_cast<std::uint64_t>(d.imm) >> 12) & 0xfffff
                                                              : static_cast<std::uint64_t>(d.imm));
      break;
    case Ops::kRdSpImm: reg(d.rd); out += ",sp,"; append_signed(out, d.imm); break;
    case Ops::kSpImm: out += "sp,"; append_signed(out, d.imm); break;
    case Ops::kLoad: reg(d.rd); out += ','; offset_base(d.rs1); break;
    case Ops::kStore: reg(d.rs2); out += ','; offset_base(d.rs1); break;
    case Ops::kFpLoad: out += fp_register_name(d.rd); out += ','; offset_base(d.rs1); break;
    case Ops::kFpStore: out += fp_register_name(d.rs2); out += ','; offset_base(d.rs1); break;
    case Ops::kJump: append_target(out, pc + d.imm); break;
    case Ops::kBranch: reg(d.rs1); out += ','; append_target(out, pc + d.imm); break;
    case Ops::kRs1: reg(d.rs1); break;
    case Ops::kRdRs2: reg(d.rd); out += ','; reg(d.rs2); break;
  }
}

}  // namespace npuvp
