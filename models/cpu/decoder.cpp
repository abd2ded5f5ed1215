#include "cpu/decoder.h"

#include "cpu/disassembler.h"
#include "cpu/extension.h"
#include "cpu/hart.h"
#include "core/text.h"

#include <cstring>
#include <sstream>
#include <stdexcept>

namespace npuvp {

namespace {

std::int64_t imm_i(std::uint32_t raw) { return static_cast<std::int32_t>(raw) >> 20; }
// Immediates are assembled as 32-bit patterns, then sign-extended through int32.
std::int64_t imm_s(std::uint32_t raw) {
  return static_cast<std::int32_t>(((raw >> 25) << 5) | ((raw >> 7) & 0x1f)) << 20 >> 20;
}
std::int64_t imm_b(std::uint32_t raw) {
  std::uint32_t bits = ((raw >> 31) << 12) | (((raw >> 7) & 1) << 11) | (((raw >> 25) & 0x3f) << 5) |
                       (((raw >> 8) & 0xf) << 1);
  return static_cast<std::int32_t>(bits << 19) >> 19;
}
std::int64_t imm_u(std::uint32_t raw) { return static_cast<std::int32_t>(raw & 0xfffff000); }
std::int64_t imm_j(std::uint32_t raw) {
  std::uint32_t bits = ((raw >> 31) << 20) | (raw & 0xff000) | (((raw >> 20) & 1) << 11) | (((raw >> 21) & 0x3ff) << 1);
  return static_cast<std::int32_t>(bits << 11) >> 11;
}

std::uint8_t destination(unsigned field) { return field == 0 ? 32 : static_cast<std::uint8_t>(field); }

bool patterns_overlap(const InstructionSpec& a, const InstructionSpec& b) {
  return ((a.match ^ b.match) & a.mask & b.mask) == 0;
}

}  // namespace

const char* register_name(unsigned index) {
  static const char* const kNames[33] = {
      "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0",  "a1",  "a2", "a3", "a4", "a5", "a6",
      "a7",   "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6", "zero"};
  return index < 33 ? kNames[index] : "?";
}

const char* fp_register_name(unsigned index) {
  static const char* const kNames[32] = {
      "ft0", "ft1", "ft2",  "ft3",  "ft4", "ft5", "ft6", "ft7", "fs0", "fs1", "fa0",
      "fa1", "fa2", "fa3",  "fa4",  "fa5", "fa6", "fa7", "fs2", "fs3", "fs4", "fs5",
      "fs6", "fs7", "fs8",  "fs9",  "fs10", "fs11", "ft8", "ft9", "ft10", "ft11"};
  return index < 32 ? kNames[index] : "?";
}

const char* instruction_class_name(InstructionClass cls) {
  static const char* const kNames[] = {"alu", "mul", "div", "load", "store", "branch", "jump",
                                       "csr", "amo", "fence", "system", "custom"};
  return kNames[static_cast<int>(cls)];
}

void decode_operands(const InstructionSpec& spec, std::uint32_t raw, DecodedInstruction& out) {
  unsigned rd = (raw >> 7) & 31, rs1 = (raw >> 15) & 31, rs2 = (raw >> 20) & 31;
  out.rd = destination(rd);
  out.rs1 = static_cast<std::uint8_t>(rs1);
  out.rs2 = static_cast<std::uint8_t>(rs2);
  out.imm = 0;
  switch (spec.format) {
    case OperandFormat::kNone:
    case OperandFormat::kR:
    case OperandFormat::kAtomic:
    case OperandFormat::kLoadReserved:
      break;
    case OperandFormat::kI:
    case OperandFormat::kLoad:
    case OperandFormat::kJumpReg:
    case OperandFormat::kCustom:
      out.imm = imm_i(raw);
      break;
    case OperandFormat::kStore:
      out.imm = imm_s(raw);
      out.rd = 32;
      break;
    case OperandFormat::kBranch:
      out.imm = imm_b(raw);
      out.rd = 32;
      break;
    case OperandFormat::kUpper:
      out.imm = imm_u(raw);
      break;
    case OperandFormat::kJump:
      out.imm = imm_j(raw);
      break;
    case OperandFormat::kShift:
      out.imm = (raw >> 20) & 0x3f;
      break;
    case OperandFormat::kShiftWord:
      out.imm = (raw >> 20) & 0x1f;
      break;
    case OperandFormat::kCsr:
    case OperandFormat::kCsrImm:
    case OperandFormat::kFence:
      out.imm = raw >> 20;
      break;
    // F/D: f0 is a register like the others (no write sink).
    case OperandFormat::kFpLoad:
      out.rd = static_cast<std::uint8_t>(rd);
      out.imm = imm_i(raw);
      break;
    case OperandFormat::kFpStore:
      out.rd = 32;
      out.imm = imm_s(raw);
      break;
    case OperandFormat::kFpR4:
      out.aux = static_cast<std::uint8_t>(raw >> 27);
      [[fallthrough]];
    case OperandFormat::kFpR:
    case OperandFormat::kFpR1:
    case OperandFormat::kFpFromInt:
      out.rd = static_cast<std::uint8_t>(rd);
      out.imm = (raw >> 12) & 7;  // rm
      break;
    case OperandFormat::kFpToInt:
    case OperandFormat::kFpCompare:
      out.imm = (raw >> 12) & 7;
      break;
  }
}

Decoder::Decoder() {
  for (const auto& spec : base_instructions()) insert(&spec);
  for (const auto& spec : float_instructions()) insert(&spec);
}

void Decoder::insert(const InstructionSpec* spec) {
  // Patterns with a fixed opcode go to one bucket; others (rare) to all they match.
  for (std::uint32_t opcode = 0; opcode < 128; ++opcode) {
    if (((opcode ^ spec->match) & spec->mask & 0x7f) == 0 && (opcode & 3) == 3)
      buckets_[opcode].push_back(spec);
  }
}

void Decoder::add(IsaExtension& extension, std::vector<InstructionSpec> specs) {
  for (auto& spec : specs) spec.owner = &extension;
  for (const auto& spec : specs) {
    for (std::uint32_t opcode = 3; opcode < 128; opcode += 4) {
      if (((opcode ^ spec.match) & spec.mask & 0x7f) != 0) continue;
      for (const auto* existing : buckets_[opcode]) {
        if (patterns_overlap(spec, *existing))
          throw std::logic_error("extension " + extension.name() + ": instruction '" + spec.mnemonic +
                                 "' overlaps '" + existing->mnemonic + "'");
      }
    }
  }
  extension_specs_.push_back(std::move(specs));
  for (const auto& spec : extension_specs_.back()) insert(&spec);
}

const InstructionSpec* Decoder::lookup(std::uint32_t raw) const {
  for (const auto* spec : buckets_[raw & 0x7f])
    if ((raw & spec->mask) == spec->match) return spec;
  return nullptr;
}

const InstructionSpec* Decoder::find(const char* mnemonic) const {
  for (const auto& bucket : buckets_)
    for (const auto* spec : bucket)
      if (std::strcmp(spec->mnemonic, mnemonic) == 0) return spec;
  return nullptr;
}

bool Decoder::decode(std::uint32_t raw, DecodedInstruction& out) const {
  out.raw = raw;
  out.aux = 0;
  if (is_compressed(raw)) return decode_compressed(static_cast<std::uint16_t>(raw), out);
  out.length = 4;
  const InstructionSpec* spec = lookup(raw);
  out.spec = spec;
  if (!spec) {
    out.rd = 32;
    out.rs1 = out.rs2 = 0;
    out.imm = 0;
    return false;
  }
  out.execute = spec->execute;
  decode_operands(*spec, raw, out);
  return true;
}

// RV64C: each compressed form is rewritten as the 32-bit instruction it
// stands for (RISC-V unprivileged spec, chapter "C" tables 16.5-16.7).
bool Decoder::decode_compressed(std::uint16_t c, DecodedInstruction& out, CompressedForm* form) const {
  out.length = 2;
  out.raw = c;
  out.spec = nullptr;
  auto bits = [c](int high, int low) -> std::uint32_t { return (c >> low) & ((1u << (high - low + 1)) - 1); };
  auto sign = [](std::uint32_t value, int width) -> std::int64_t {
    return static_cast<std::int64_t>(static_cast<std::int32_t>(value << (32 - width)) >> (32 - width));
  };
  unsigned rd_full = bits(11, 7), rs2_full = bits(6, 2);
  unsigned rd_short = 8 + bits(4, 2), rs1_short = 8 + bits(9, 7);
  using Ops = CompressedOperands;
  // `name` and `operands`: how the disassembler shows the compressed form.
  auto emit = [&](const char* name, Ops operands, const char* mnemonic, unsigned rd, unsigned rs1, unsigned rs2,
                  std::int64_t imm) {
    if (form) *form = CompressedForm{name, operands};
    const InstructionSpec* spec = find(mnemonic);
    out.spec = spec;
    out.execute = spec->execute;
    out.rd = destination(rd);
    out.rs1 = static_cast<std::uint8_t>(rs1);
    out.rs2 = static_cast<std::uint8_t>(rs2);
    out.imm = imm;
    return true;
  };
  unsigned funct3 = bits(15, 13);
  switch (c & 3) {
    case 0:
      switch (funct3) {
        case 0: {  // c.addi4spn
          std::uint32_t imm = (bits(12, 11) << 4) | (bits(10, 7) << 6) | (bits(6, 6) << 2) | (bits(5, 5) << 3);
          if (imm == 0) break;  // includes the all-zero illegal instruction
          return emit("c.addi4spn", Ops::kRdSpImm, "addi", rd_short, 2, 0, imm);
        }
        case 1:  // c.fld
          return emit("c.fld", Ops::kFpLoad, "fld", rd_short, rs1_short, 0, (bits(12, 10) << 3) | (bits(6, 5) << 6));
        case 2:  // c.lw
          return emit("c.lw", Ops::kLoad, "lw", rd_short, rs1_short, 0, (bits(12, 10) << 3) | (bits(6, 6) << 2) | (bits(5, 5) << 6));
        case 3:  // c.ld
          return emit("c.ld", Ops::kLoad, "ld", rd_short, rs1_short, 0, (bits(12, 10) << 3) | (bits(6, 5) << 6));
        case 5:  // c.fsd
          return emit("c.fsd", Ops::kFpStore, "fsd", 0, rs1_short, rd_short, (bits(12, 10) << 3) | (bits(6, 5) << 6));
        case 6:  // c.sw
          return emit("c.sw", Ops::kStore, "sw", 0, rs1_short, rd_short, (bits(12, 10) << 3) | (bits(6, 6) << 2) | (bits(5, 5) << 6));
        case 7:  // c.sd
          return emit("c.sd", Ops::kStore, "sd", 0, rs1_short, rd_short, (bits(12, 10) << 3) | (bits(6, 5) << 6));
        default:
          break;  // 4 is reserved
      }
      break;
    case 1:
      switch (funct3) {
        case 0:  // c.addi / c.nop
          if (rd_full == 0) return emit("c.nop", Ops::kNone, "addi", rd_full, rd_full, 0, sign((bits(12, 12) << 5) | bits(6, 2), 6));
          return emit("c.addi", Ops::kRdImm, "addi", rd_full, rd_full, 0, sign((bits(12, 12) << 5) | bits(6, 2), 6));
        case 1:  // c.addiw
          if (rd_full == 0) break;
          return emit("c.addiw", Ops::kRdImm, "addiw", rd_full, rd_full, 0, sign((bits(12, 12) << 5) | bits(6, 2), 6));
        case 2:  // c.li
          return emit("c.li", Ops::kRdImm, "addi", rd_full, 0, 0, sign((bits(12, 12) << 5) | bits(6, 2), 6));
        case 3:
          if (rd_full == 2) {  // c.addi16sp
            std::uint32_t imm = (bits(12, 12) << 9) | (bits(6, 6) << 4) | (bits(5, 5) << 6) |
                                (bits(4, 3) << 7) | (bits(2, 2) << 5);
            if (imm == 0) break;
            return emit("c.addi16sp", Ops::kSpImm, "addi", 2, 2, 0, sign(imm, 10));
          } else {  // c.lui
            std::uint32_t imm = (bits(12, 12) << 17) | (bits(6, 2) << 12);
            if (imm == 0) break;
            return emit("c.lui", Ops::kRdHex, "lui", rd_full, 0, 0, sign(imm, 18));
          }
        case 4: {
          unsigned shamt = (bits(12, 12) << 5) | bits(6, 2);
          switch (bits(11, 10)) {
            case 0: return emit("c.srli", Ops::kRdHex, "srli", rs1_short, rs1_short, 0, shamt);
            case 1: return emit("c.srai", Ops::kRdHex, "srai", rs1_short, rs1_short, 0, shamt);
            case 2: return emit("c.andi", Ops::kRdImm, "andi", rs1_short, rs1_short, 0, sign((bits(12, 12) << 5) | bits(6, 2), 6));
            default: {
              static const char* const kOps[2][4] = {{"sub", "xor", "or", "and"}, {"subw", "addw", nullptr, nullptr}};
              static const char* const kNames[2][4] = {{"c.sub", "c.xor", "c.or", "c.and"}, {"c.subw", "c.addw", nullptr, nullptr}};
              const char* op = kOps[bits(12, 12)][bits(6, 5)];
              if (!op) break;
              return emit(kNames[bits(12, 12)][bits(6, 5)], Ops::kRdRs2, op, rs1_short, rs1_short, rd_short, 0);
            }
          }
          break;
        }
        case 5: {  // c.j
          std::uint32_t imm = (bits(12, 12) << 11) | (bits(11, 11) << 4) | (bits(10, 9) << 8) |
                              (bits(8, 8) << 10) | (bits(7, 7) << 6) | (bits(6, 6) << 7) |
                              (bits(5, 3) << 1) | (bits(2, 2) << 5);
          return emit("c.j", Ops::kJump, "jal", 0, 0, 0, sign(imm, 12));
        }
        case 6:
        case 7: {  // c.beqz / c.bnez
          std::uint32_t imm = (bits(12, 12) << 8) | (bits(11, 10) << 3) | (bits(6, 5) << 6) |
                              (bits(4, 3) << 1) | (bits(2, 2) << 5);
          return emit(funct3 == 6 ? "c.beqz" : "c.bnez", Ops::kBranch, funct3 == 6 ? "beq" : "bne", 0, rs1_short, 0, sign(imm, 9));
        }
      }
      break;
    case 2:
      switch (funct3) {
        case 0:  // c.slli
          return emit("c.slli", Ops::kRdHex, "slli", rd_full, rd_full, 0, (bits(12, 12) << 5) | bits(6, 2));
        case 1:  // c.fldsp (any fd, f0 included)
          emit("c.fldsp", Ops::kFpLoad, "fld", 0, 2, 0, (bits(12, 12) << 5) | (bits(6, 5) << 3) | (bits(4, 2) << 6));
          out.rd = static_cast<std::uint8_t>(rd_full);
          return true;
        case 2:  // c.lwsp
          if (rd_full == 0) break;
          return emit("c.lwsp", Ops::kLoad, "lw", rd_full, 2, 0, (bits(12, 12) << 5) | (bits(6, 4) << 2) | (bits(3, 2) << 6));
        case 3:  // c.ldsp
          if (rd_full == 0) break;
          return emit("c.ldsp", Ops::kLoad, "ld", rd_full, 2, 0, (bits(12, 12) << 5) | (bits(6, 5) << 3) | (bits(4, 2) << 6));
        case 4:
          if (bits(12, 12) == 0) {
            if (rs2_full == 0) {  // c.jr
              if (rd_full == 0) break;
              return emit("c.jr", Ops::kRs1, "jalr", 0, rd_full, 0, 0);
            }
            return emit("c.mv", Ops::kRdRs2, "add", rd_full, 0, rs2_full, 0);
          }
          if (rs2_full == 0) {
            if (rd_full == 0) {  // c.ebreak
              emit("c.ebreak", Ops::kNone, "ebreak", 0, 0, 0, 0);
              return true;
            }
            return emit("c.jalr", Ops::kRs1, "jalr", 1, rd_full, 0, 0);
          }
          return emit("c.add", Ops::kRdRs2, "add", rd_full, rd_full, rs2_full, 0);
        case 6:  // c.swsp
          return emit("c.swsp", Ops::kStore, "sw", 0, 2, rs2_full, (bits(12, 9) << 2) | (bits(8, 7) << 6));
        case 5:  // c.fsdsp
          return emit("c.fsdsp", Ops::kFpStore, "fsd", 0, 2, rs2_full, (bits(12, 10) << 3) | (bits(9, 7) << 6));
        case 7:  // c.sdsp
          return emit("c.sdsp", Ops::kStore, "sd", 0, 2, rs2_full, (bits(12, 10) << 3) | (bits(9, 7) << 6));
      }
      break;
  }
  out.spec = nullptr;
  out.rd = 32;
  out.rs1 = out.rs2 = 0;
  out.imm = 0;
  if (form) *form = CompressedForm{};
  return false;
}

CompressedForm Decoder::compressed_form(std::uint16_t raw) const {
  CompressedForm form;
  DecodedInstruction ignored{};
  if (!decode_compressed(raw, ignored, &form)) return CompressedForm{};
  return form;
}

std::string Decoder::mnemonic(std::uint32_t raw) const {
  DecodedInstruction decoded{};
  if (!decode(raw, decoded)) return "";
  return decoded.spec->mnemonic;
}

std::string Decoder::disassemble(std::uint32_t raw, std::uint64_t pc) const {
  DecodedInstruction decoded{};
  decode(raw, decoded);
  return disassemble(decoded, pc);
}

std::string Decoder::disassemble(const DecodedInstruction& d, std::uint64_t pc) const {
  return Disassembler(*this, DisassemblyStyle::kMessage).text(d, pc);
}

}  // namespace npuvp
