// Test support for the RISC-V hart: instruction encoders, a fake bus with
// RAM, ROM, an MMIO region that records accesses and unmapped holes, and a
// fixture that runs instructions one at a time.
//
// The cycle model is set to one cycle per instruction class, no branch
// penalty and no memory latency, so hart.run(hart.cycles() + n) executes
// exactly n instructions (trapping ones included).
#pragma once

#include "cpu/decoder.h"
#include "cpu/hart.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace npuvp {

// ---------------------------------------------------------------- encoders
// Encoders for every RV64IMAC + Zicsr + Zifencei instruction. Operand order
// follows the assembly syntax: loads and stores are (reg, base, offset),
// atomics are (rd, rs2, rs1) as in "amoadd.w rd, rs2, (rs1)". The encodings
// are cross-checked against riscv64-unknown-elf-as in decoder_test.cpp.
namespace rv {

enum Reg : unsigned {
  zero, ra, sp, gp, tp, t0, t1, t2, s0, s1, a0, a1, a2, a3, a4, a5, a6, a7,
  s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, t3, t4, t5, t6
};

using u32 = std::uint32_t;
using i32 = std::int32_t;

constexpr u32 r_type(u32 funct7, u32 rs2, u32 rs1, u32 funct3, u32 rd, u32 opcode) {
  return funct7 << 25 | rs2 << 20 | rs1 << 15 | funct3 << 12 | rd << 7 | opcode;
}
constexpr u32 i_type(i32 imm, u32 rs1, u32 funct3, u32 rd, u32 opcode) {
  return (static_cast<u32>(imm) & 0xfff) << 20 | rs1 << 15 | funct3 << 12 | rd << 7 | opcode;
}
constexpr u32 s_type(i32 imm, u32 rs2, u32 rs1, u32 funct3, u32 opcode) {
  u32 u = static_cast<u32>(imm);
  return ((u >> 5) & 0x7f) << 25 | rs2 << 20 | rs1 << 15 | funct3 << 12 | (u & 0x1f) << 7 | opcode;
}
constexpr u32 b_type(i32 offset, u32 rs2, u32 rs1, u32 funct3) {
  u32 u = static_cast<u32>(offset);
  return ((u >> 12) & 1) << 31 | ((u >> 5) & 0x3f) << 25 | rs2 << 20 | rs1 << 15 | funct3 << 12 |
         ((u >> 1) & 0xf) << 8 | ((u >> 11) & 1) << 7 | 0x63;
}
constexpr u32 u_type(u32 imm20, u32 rd, u32 opcode) { return (imm20 & 0xfffff) << 12 | rd << 7 | opcode; }
constexpr u32 j_type(i32 offset, u32 rd) {
  u32 u = static_cast<u32>(offset);
  return ((u >> 20) & 1) << 31 | ((u >> 1) & 0x3ff) << 21 | ((u >> 11) & 1) << 20 | ((u >> 12) & 0xff) << 12 |
         rd << 7 | 0x6f;
}

// RV64I
constexpr u32 lui(u32 rd, u32 imm20) { return u_type(imm20, rd, 0x37); }
constexpr u32 auipc(u32 rd, u32 imm20) { return u_type(imm20, rd, 0x17); }
constexpr u32 jal(u32 rd, i32 offset) { return j_type(offset, rd); }
constexpr u32 jalr(u32 rd, u32 rs1, i32 imm) { return i_type(imm, rs1, 0, rd, 0x67); }
constexpr u32 beq(u32 rs1, u32 rs2, i32 offset) { return b_type(offset, rs2, rs1, 0); }
constexpr u32 bne(u32 rs1, u32 rs2, i32 offset) { return b_type(offset, rs2, rs1, 1); }
constexpr u32 blt(u32 rs1, u32 rs2, i32 offset) { return b_type(offset, rs2, rs1, 4); }
constexpr u32 bge(u32 rs1, u32 rs2, i32 offset) { return b_type(offset, rs2, rs1, 5); }
constexpr u32 bltu(u32 rs1, u32 rs2, i32 offset) { return b_type(offset, rs2, rs1, 6); }
constexpr u32 bgeu(u32 rs1, u32 rs2, i32 offset) { return b_type(offset, rs2, rs1, 7); }
constexpr u32 lb(u32 rd, u32 rs1, i32 imm) { return i_type(imm, rs1, 0, rd, 0x03); }
constexpr u32 lh(u32 rd, u32 rs1, i32 imm) { return i_type(imm, rs1, 1, rd, 0x03); }
constexpr u32 lw(u32 rd, u32 rs1, i32 imm) { return i_type(imm, rs1, 2, rd, 0x03); }
constexpr u32 ld(u32 rd, u32 rs1, i32 imm) { return i_type(imm, rs1, 3, rd, 0x03); }
constexpr u32 lbu(u32 rd, u32 rs1, i32 imm) { return i_type(imm, rs1, 4, rd, 0x03); }
constexpr u32 lhu(u32 rd, u32 rs1, i32 imm) { return i_type(imm, rs1, 5, rd, 0x03); }
constexpr u32 lwu(u32 rd, u32 rs1, i32 imm) { return i_type(imm, rs1, 6, rd, 0x03); }
constexpr u32 sb(u32 rs2, u32 rs1, i32 imm) { return s_type(imm, rs2, rs1, 0, 0x23); }
constexpr u32 sh(u32 rs2, u32 rs1, i32 imm) { return s_type(imm, rs2, rs1, 1, 0x23); }
constexpr u32 sw(u32 rs2, u32 rs1, i32 imm) { return s_type(imm, rs2, rs1, 2, 0x23); }
constexpr u32 sd(u32 rs2, u32 rs1, i32 imm) { return s_type(imm, rs2, rs1, 3, 0x23); }
constexpr u32 addi(u32 rd, u32 rs1, i32 imm) { return i_type(imm, rs1, 0, rd, 0x13); }
constexpr u32 slti(u32 rd, u32 rs1, i32 imm) { return i_type(imm, rs1, 2, rd, 0x13); }
constexpr u32 sltiu(u32 rd, u32 rs1, i32 imm) { return i_type(imm, rs1, 3, rd, 0x13); }
constexpr u32 xori(u32 rd, u32 rs1, i32 imm) { return i_type(imm, rs1, 4, rd, 0x13); }
constexpr u32 ori(u32 rd, u32 rs1, i32 imm) { return i_type(imm, rs1, 6, rd, 0x13); }
constexpr u32 andi(u32 rd, u32 rs1, i32 imm) { return i_type(imm, rs1, 7, rd, 0x13); }
constexpr u32 slli(u32 rd, u32 rs1, i32 shamt) { return i_type(shamt & 63, rs1, 1, rd, 0x13); }
constexpr u32 srli(u32 rd, u32 rs1, i32 shamt) { return i_type(shamt & 63, rs1, 5, rd, 0x13); }
constexpr u32 srai(u32 rd, u32 rs1, i32 shamt) { return i_type(0x400 | (shamt & 63), rs1, 5, rd, 0x13); }
constexpr u32 add(u32 rd, u32 rs1, u32 rs2) { return r_type(0x00, rs2, rs1, 0, rd, 0x33); }
constexpr u32 sub(u32 rd, u32 rs1, u32 rs2) { return r_type(0x20, rs2, rs1, 0, rd, 0x33); }
constexpr u32 sll(u32 rd, u32 rs1, u32 rs2) { return r_type(0x00, rs2, rs1, 1, rd, 0x33); }
constexpr u32 slt(u32 rd, u32 rs1, u32 rs2) { return r_type(0x00, rs2, rs1, 2, rd, 0x33); }
constexpr u32 sltu(u32 rd, u32 rs1, u32 rs2) { return r_type(0x00, rs2, rs1, 3, rd, 0x33); }
constexpr u32 xor_(u32 rd, u32 rs1, u32 rs2) { return r_type(0x00, rs2, rs1, 4, rd, 0x33); }
constexpr u32 srl(u32 rd, u32 rs1, u32 rs2) { return r_type(0x00, rs2, rs1, 5, rd, 0x33); }
constexpr u32 sra(u32 rd, u32 rs1, u32 rs2) { return r_type(0x20, rs2, rs1, 5, rd, 0x33); }
constexpr u32 or_(u32 rd, u32 rs1, u32 rs2) { return r_type(0x00, rs2, rs1, 6, rd, 0x33); }
constexpr u32 and_(u32 rd, u32 rs1, u32 rs2) { return r_type(0x00, rs2, rs1, 7, rd, 0x33); }
constexpr u32 addiw(u32 rd, u32 rs1, i32 imm) { return i_type(imm, rs1, 0, rd, 0x1b); }
constexpr u32 slliw(u32 rd, u32 rs1, i32 shamt) { return i_type(shamt & 31, rs1, 1, rd, 0x1b); }
constexpr u32 srliw(u32 rd, u32 rs1, i32 shamt) { return i_type(shamt & 31, rs1, 5, rd, 0x1b); }
constexpr u32 sraiw(u32 rd, u32 rs1, i32 shamt) { return i_type(0x400 | (shamt & 31), rs1, 5, rd, 0x1b); }
constexpr u32 addw(u32 rd, u32 rs1, u32 rs2) { return r_type(0x00, rs2, rs1, 0, rd, 0x3b); }
constexpr u32 subw(u32 rd, u32 rs1, u32 rs2) { return r_type(0x20, rs2, rs1, 0, rd, 0x3b); }
constexpr u32 sllw(u32 rd, u32 rs1, u32 rs2) { return r_type(0x00, rs2, rs1, 1, rd, 0x3b); }
constexpr u32 srlw(u32 rd, u32 rs1, u32 rs2) { return r_type(0x00, rs2, rs1, 5, rd, 0x3b); }
constexpr u32 sraw(u32 rd, u32 rs1, u32 rs2) { return r_type(0x20, rs2, rs1, 5, rd, 0x3b); }
// pred/succ are 4-bit sets: i = 8, o = 4, r = 2, w = 1.
constexpr u32 fence(u32 pred, u32 succ) { return i_type(static_cast<i32>(pred << 4 | succ), 0, 0, 0, 0x0f); }
constexpr u32 fence_i() { return 0x0000100f; }
constexpr u32 ecall() { return 0x00000073; }
constexpr u32 ebreak() { return 0x00100073; }
constexpr u32 mret() { return 0x30200073; }
constexpr u32 wfi() { return 0x10500073; }
constexpr u32 nop() { return addi(zero, zero, 0); }

// Zicsr
constexpr u32 csrrw(u32 rd, u32 csr, u32 rs1) { return csr << 20 | rs1 << 15 | 1 << 12 | rd << 7 | 0x73; }
constexpr u32 csrrs(u32 rd, u32 csr, u32 rs1) { return csr << 20 | rs1 << 15 | 2 << 12 | rd << 7 | 0x73; }
constexpr u32 csrrc(u32 rd, u32 csr, u32 rs1) { return csr << 20 | rs1 << 15 | 3 << 12 | rd << 7 | 0x73; }
constexpr u32 csrrwi(u32 rd, u32 csr, u32 uimm) { return csr << 20 | uimm << 15 | 5 << 12 | rd << 7 | 0x73; }
constexpr u32 csrrsi(u32 rd, u32 csr, u32 uimm) { return csr << 20 | uimm << 15 | 6 << 12 | rd << 7 | 0x73; }
constexpr u32 csrrci(u32 rd, u32 csr, u32 uimm) { return csr << 20 | uimm << 15 | 7 << 12 | rd << 7 | 0x73; }
constexpr u32 csrr(u32 rd, u32 csr) { return csrrs(rd, csr, zero); }
constexpr u32 csrw(u32 csr, u32 rs1) { return csrrw(zero, csr, rs1); }

// M
constexpr u32 mul(u32 rd, u32 rs1, u32 rs2) { return r_type(0x01, rs2, rs1, 0, rd, 0x33); }
constexpr u32 mulh(u32 rd, u32 rs1, u32 rs2) { return r_type(0x01, rs2, rs1, 1, rd, 0x33); }
constexpr u32 mulhsu(u32 rd, u32 rs1, u32 rs2) { return r_type(0x01, rs2, rs1, 2, rd, 0x33); }
constexpr u32 mulhu(u32 rd, u32 rs1, u32 rs2) { return r_type(0x01, rs2, rs1, 3, rd, 0x33); }
constexpr u32 div(u32 rd, u32 rs1, u32 rs2) { return r_type(0x01, rs2, rs1, 4, rd, 0x33); }
constexpr u32 divu(u32 rd, u32 rs1, u32 rs2) { return r_type(0x01, rs2, rs1, 5, rd, 0x33); }
constexpr u32 rem(u32 rd, u32 rs1, u32 rs2) { return r_type(0x01, rs2, rs1, 6, rd, 0x33); }
constexpr u32 remu(u32 rd, u32 rs1, u32 rs2) { return r_type(0x01, rs2, rs1, 7, rd, 0x33); }
constexpr u32 mulw(u32 rd, u32 rs1, u32 rs2) { return r_type(0x01, rs2, rs1, 0, rd, 0x3b); }
constexpr u32 divw(u32 rd, u32 rs1, u32 rs2) { return r_type(0x01, rs2, rs1, 4, rd, 0x3b); }
constexpr u32 divuw(u32 rd, u32 rs1, u32 rs2) { return r_type(0x01, rs2, rs1, 5, rd, 0x3b); }
constexpr u32 remw(u32 rd, u32 rs1, u32 rs2) { return r_type(0x01, rs2, rs1, 6, rd, 0x3b); }
constexpr u32 remuw(u32 rd, u32 rs1, u32 rs2) { return r_type(0x01, rs2, rs1, 7, rd, 0x3b); }

// A: funct5 values and width (funct3 2 = .w, 3 = .d).
enum Amo : u32 {
  kAmoAdd = 0x00, kAmoSwap = 0x01, kLr = 0x02, kSc = 0x03, kAmoXor = 0x04, kAmoOr = 0x08,
  kAmoAnd = 0x0c, kAmoMin = 0x10, kAmoMax = 0x14, kAmoMinu = 0x18, kAmoMaxu = 0x1c
};
constexpr u32 kWord = 2, kDouble = 3;
constexpr u32 amo(u32 funct5, u32 width, u32 rd, u32 rs2, u32 rs1, bool aq = false, bool rl = false) {
  return r_type(funct5 << 2 | (aq ? 2u : 0u) | (rl ? 1u : 0u), rs2, rs1, width, rd, 0x2f);
}
constexpr u32 lr_w(u32 rd, u32 rs1) { return amo(kLr, kWord, rd, 0, rs1); }
constexpr u32 lr_d(u32 rd, u32 rs1) { return amo(kLr, kDouble, rd, 0, rs1); }
constexpr u32 sc_w(u32 rd, u32 rs2, u32 rs1) { return amo(kSc, kWord, rd, rs2, rs1); }
constexpr u32 sc_d(u32 rd, u32 rs2, u32 rs1) { return amo(kSc, kDouble, rd, rs2, rs1); }

// ---- RV64C. Registers are full register numbers; the 3-bit forms take x8..x15.
struct Half {
  explicit constexpr Half(std::uint16_t value) : bits(value) {}
  std::uint16_t bits;
};
constexpr u32 creg(u32 reg) { return (reg - 8) & 7; }
constexpr Half half(u32 value) { return Half(static_cast<std::uint16_t>(value)); }

constexpr Half c_addi4spn(u32 rd, u32 nzuimm) {
  return half(((nzuimm >> 4) & 3) << 11 | ((nzuimm >> 6) & 0xf) << 7 | ((nzuimm >> 2) & 1) << 6 |
              ((nzuimm >> 3) & 1) << 5 | creg(rd) << 2);
}
constexpr Half c_lw(u32 rd, u32 rs1, u32 uimm) {
  return half(2u << 13 | ((uimm >> 3) & 7) << 10 | creg(rs1) << 7 | ((uimm >> 2) & 1) << 6 |
              ((uimm >> 6) & 1) << 5 | creg(rd) << 2);
}
constexpr Half c_ld(u32 rd, u32 rs1, u32 uimm) {
  return half(3u << 13 | ((uimm >> 3) & 7) << 10 | creg(rs1) << 7 | ((uimm >> 6) & 3) << 5 | creg(rd) << 2);
}
constexpr Half c_sw(u32 rs2, u32 rs1, u32 uimm) {
  return half(6u << 13 | ((uimm >> 3) & 7) << 10 | creg(rs1) << 7 | ((uimm >> 2) & 1) << 6 |
              ((uimm >> 6) & 1) << 5 | creg(rs2) << 2);
}
constexpr Half c_sd(u32 rs2, u32 rs1, u32 uimm) {
  return half(7u << 13 | ((uimm >> 3) & 7) << 10 | creg(rs1) << 7 | ((uimm >> 6) & 3) << 5 | creg(rs2) << 2);
}
constexpr Half ci_form(u32 funct3, u32 rd, i32 imm6, u32 op) {
  u32 u = static_cast<u32>(imm6);
  return half(funct3 << 13 | ((u >> 5) & 1) << 12 | rd << 7 | (u & 0x1f) << 2 | op);
}
constexpr Half c_nop() { return half(0x0001); }
constexpr Half c_addi(u32 rd, i32 imm) { return ci_form(0, rd, imm, 1); }
constexpr Half c_addiw(u32 rd, i32 imm) { return ci_form(1, rd, imm, 1); }
constexpr Half c_li(u32 rd, i32 imm) { return ci_form(2, rd, imm, 1); }
constexpr Half c_addi16sp(i32 imm) {
  u32 u = static_cast<u32>(imm);
  return half(3u << 13 | ((u >> 9) & 1) << 12 | sp << 7 | ((u >> 4) & 1) << 6 | ((u >> 6) & 1) << 5 |
              ((u >> 7) & 3) << 3 | ((u >> 5) & 1) << 2 | 1);
}
// imm6 is nzimm[17:12], sign-extended: c.lui rd, imm6 sets rd = imm6 << 12.
constexpr Half c_lui(u32 rd, i32 imm6) { return ci_form(3, rd, imm6, 1); }
constexpr Half c_srli(u32 rd, u32 shamt) {
  return half(4u << 13 | ((shamt >> 5) & 1) << 12 | 0u << 10 | creg(rd) << 7 | (shamt & 0x1f) << 2 | 1);
}
constexpr Half c_srai(u32 rd, u32 shamt) {
  return half(4u << 13 | ((shamt >> 5) & 1) << 12 | 1u << 10 | creg(rd) << 7 | (shamt & 0x1f) << 2 | 1);
}
constexpr Half c_andi(u32 rd, i32 imm) {
  u32 u = static_cast<u32>(imm);
  return half(4u << 13 | ((u >> 5) & 1) << 12 | 2u << 10 | creg(rd) << 7 | (u & 0x1f) << 2 | 1);
}
constexpr Half ca_form(u32 bit12, u32 funct2, u32 rd, u32 rs2) {
  return half(4u << 13 | bit12 << 12 | 3u << 10 | creg(rd) << 7 | funct2 << 5 | creg(rs2) << 2 | 1);
}
constexpr Half c_sub(u32 rd, u32 rs2) { return ca_form(0, 0, rd, rs2); }
constexpr Half c_xor(u32 rd, u32 rs2) { return ca_form(0, 1, rd, rs2); }
constexpr Half c_or(u32 rd, u32 rs2) { return ca_form(0, 2, rd, rs2); }
constexpr Half c_and(u32 rd, u32 rs2) { return ca_form(0, 3, rd, rs2); }
constexpr Half c_subw(u32 rd, u32 rs2) { return ca_form(1, 0, rd, rs2); }
constexpr Half c_addw(u32 rd, u32 rs2) { return ca_form(1, 1, rd, rs2); }
constexpr Half c_j(i32 offset) {
  u32 u = static_cast<u32>(offset);
  return half(5u << 13 | ((u >> 11) & 1) << 12 | ((u >> 4) & 1) << 11 | ((u >> 8) & 3) << 9 |
              ((u >> 10) & 1) << 8 | ((u >> 6) & 1) << 7 | ((u >> 7) & 1) << 6 | ((u >> 1) & 7) << 3 |
              ((u >> 5) & 1) << 2 | 1);
}
constexpr Half cb_branch(u32 funct3, u32 rs1, i32 offset) {
  u32 u = static_cast<u32>(offset);
  return half(funct3 << 13 | ((u >> 8) & 1) << 12 | ((u >> 3) & 3) << 10 | creg(rs1) << 7 | ((u >> 6) & 3) << 5 |
              ((u >> 1) & 3) << 3 | ((u >> 5) & 1) << 2 | 1);
}
constexpr Half c_beqz(u32 rs1, i32 offset) { return cb_branch(6, rs1, offset); }
constexpr Half c_bnez(u32 rs1, i32 offset) { return cb_branch(7, rs1, offset); }
constexpr Half c_slli(u32 rd, u32 shamt) { return ci_form(0, rd, static_cast<i32>(shamt), 2); }
constexpr Half c_lwsp(u32 rd, u32 uimm) {
  return half(2u << 13 | ((uimm >> 5) & 1) << 12 | rd << 7 | ((uimm >> 2) & 7) << 4 | ((uimm >> 6) & 3) << 2 | 2);
}
constexpr Half c_ldsp(u32 rd, u32 uimm) {
  return half(3u << 13 | ((uimm >> 5) & 1) << 12 | rd << 7 | ((uimm >> 3) & 3) << 5 | ((uimm >> 6) & 7) << 2 | 2);
}
constexpr Half c_jr(u32 rs1) { return half(4u << 13 | rs1 << 7 | 2); }
constexpr Half c_mv(u32 rd, u32 rs2) { return half(4u << 13 | rd << 7 | rs2 << 2 | 2); }
constexpr Half c_ebreak() { return half(0x9002); }
constexpr Half c_jalr(u32 rs1) { return half(4u << 13 | 1u << 12 | rs1 << 7 | 2); }
constexpr Half c_add(u32 rd, u32 rs2) { return half(4u << 13 | 1u << 12 | rd << 7 | rs2 << 2 | 2); }
constexpr Half c_swsp(u32 rs2, u32 uimm) {
  return half(6u << 13 | ((uimm >> 2) & 0xf) << 9 | ((uimm >> 6) & 3) << 7 | rs2 << 2 | 2);
}
constexpr Half c_sdsp(u32 rs2, u32 uimm) {
  return half(7u << 13 | ((uimm >> 3) & 7) << 10 | ((uimm >> 6) & 7) << 7 | rs2 << 2 | 2);
}

// ---- F and D. Operands named f* are f register numbers (0-31); rm is a
// rounding-mode field (dyn = use frm).
enum FReg : unsigned {
  ft0, ft1, ft2, ft3, ft4, ft5, ft6, ft7, fs0, fs1, fa0, fa1, fa2, fa3, fa4, fa5, fa6, fa7,
  fs2, fs3, fs4, fs5, fs6, fs7, fs8, fs9, fs10, fs11, ft8, ft9, ft10, ft11
};
enum Rm : u32 { rne = 0, rtz = 1, rdn = 2, rup = 3, rmm = 4, dyn = 7 };

constexpr u32 fp_op(u32 funct7, u32 rs2, u32 rs1, u32 rm, u32 rd) { return r_type(funct7, rs2, rs1, rm, rd, 0x53); }
constexpr u32 r4_type(u32 opcode, u32 fmt, u32 rd, u32 rs1, u32 rs2, u32 rs3, u32 rm) {
  return rs3 << 27 | fmt << 25 | rs2 << 20 | rs1 << 15 | rm << 12 | rd << 7 | opcode;
}
constexpr u32 flw(u32 fd, u32 rs1, i32 imm) { return i_type(imm, rs1, 2, fd, 0x07); }
constexpr u32 fld(u32 fd, u32 rs1, i32 imm) { return i_type(imm, rs1, 3, fd, 0x07); }
constexpr u32 fsw(u32 fs2, u32 rs1, i32 imm) { return s_type(imm, fs2, rs1, 2, 0x27); }
constexpr u32 fsd(u32 fs2, u32 rs1, i32 imm) { return s_type(imm, fs2, rs1, 3, 0x27); }
constexpr u32 fmadd_s(u32 fd, u32 f1, u32 f2, u32 f3, u32 rm = dyn) { return r4_type(0x43, 0, fd, f1, f2, f3, rm); }
constexpr u32 fmsub_s(u32 fd, u32 f1, u32 f2, u32 f3, u32 rm = dyn) { return r4_type(0x47, 0, fd, f1, f2, f3, rm); }
constexpr u32 fnmsub_s(u32 fd, u32 f1, u32 f2, u32 f3, u32 rm = dyn) { return r4_type(0x4b, 0, fd, f1, f2, f3, rm); }
constexpr u32 fnmadd_s(u32 fd, u32 f1, u32 f2, u32 f3, u32 rm = dyn) { return r4_type(0x4f, 0, fd, f1, f2, f3, rm); }
constexpr u32 fmadd_d(u32 fd, u32 f1, u32 f2, u32 f3, u32 rm = dyn) { return r4_type(0x43, 1, fd, f1, f2, f3, rm); }
constexpr u32 fmsub_d(u32 fd, u32 f1, u32 f2, u32 f3, u32 rm = dyn) { return r4_type(0x47, 1, fd, f1, f2, f3, rm); }
constexpr u32 fnmsub_d(u32 fd, u32 f1, u32 f2, u32 f3, u32 rm = dyn) { return r4_type(0x4b, 1, fd, f1, f2, f3, rm); }
constexpr u32 fnmadd_d(u32 fd, u32 f1, u32 f2, u32 f3, u32 rm = dyn) { return r4_type(0x4f, 1, fd, f1, f2, f3, rm); }
constexpr u32 fadd_s(u32 fd, u32 f1, u32 f2, u32 rm = dyn) { return fp_op(0x00, f2, f1, rm, fd); }
constexpr u32 fsub_s(u32 fd, u32 f1, u32 f2, u32 rm = dyn) { return fp_op(0x04, f2, f1, rm, fd); }
constexpr u32 fmul_s(u32 fd, u32 f1, u32 f2, u32 rm = dyn) { return fp_op(0x08, f2, f1, rm, fd); }
constexpr u32 fdiv_s(u32 fd, u32 f1, u32 f2, u32 rm = dyn) { return fp_op(0x0c, f2, f1, rm, fd); }
constexpr u32 fsqrt_s(u32 fd, u32 f1, u32 rm = dyn) { return fp_op(0x2c, 0, f1, rm, fd); }
constexpr u32 fadd_d(u32 fd, u32 f1, u32 f2, u32 rm = dyn) { return fp_op(0x01, f2, f1, rm, fd); }
constexpr u32 fsub_d(u32 fd, u32 f1, u32 f2, u32 rm = dyn) { return fp_op(0x05, f2, f1, rm, fd); }
constexpr u32 fmul_d(u32 fd, u32 f1, u32 f2, u32 rm = dyn) { return fp_op(0x09, f2, f1, rm, fd); }
constexpr u32 fdiv_d(u32 fd, u32 f1, u32 f2, u32 rm = dyn) { return fp_op(0x0d, f2, f1, rm, fd); }
constexpr u32 fsqrt_d(u32 fd, u32 f1, u32 rm = dyn) { return fp_op(0x2d, 0, f1, rm, fd); }
constexpr u32 fsgnj_s(u32 fd, u32 f1, u32 f2) { return fp_op(0x10, f2, f1, 0, fd); }
constexpr u32 fsgnjn_s(u32 fd, u32 f1, u32 f2) { return fp_op(0x10, f2, f1, 1, fd); }
constexpr u32 fsgnjx_s(u32 fd, u32 f1, u32 f2) { return fp_op(0x10, f2, f1, 2, fd); }
constexpr u32 fsgnj_d(u32 fd, u32 f1, u32 f2) { return fp_op(0x11, f2, f1, 0, fd); }
constexpr u32 fsgnjn_d(u32 fd, u32 f1, u32 f2) { return fp_op(0x11, f2, f1, 1, fd); }
constexpr u32 fsgnjx_d(u32 fd, u32 f1, u32 f2) { return fp_op(0x11, f2, f1, 2, fd); }
constexpr u32 fmin_s(u32 fd, u32 f1, u32 f2) { return fp_op(0x14, f2, f1, 0, fd); }
constexpr u32 fmax_s(u32 fd, u32 f1, u32 f2) { return fp_op(0x14, f2, f1, 1, fd); }
constexpr u32 fmin_d(u32 fd, u32 f1, u32 f2) { return fp_op(0x15, f2, f1, 0, fd); }
constexpr u32 fmax_d(u32 fd, u32 f1, u32 f2) { return fp_op(0x15, f2, f1, 1, fd); }
constexpr u32 fcvt_s_d(u32 fd, u32 f1, u32 rm = dyn) { return fp_op(0x20, 1, f1, rm, fd); }
constexpr u32 fcvt_d_s(u32 fd, u32 f1, u32 rm = dyn) { return fp_op(0x21, 0, f1, rm, fd); }
constexpr u32 feq_s(u32 rd, u32 f1, u32 f2) { return fp_op(0x50, f2, f1, 2, rd); }
constexpr u32 flt_s(u32 rd, u32 f1, u32 f2) { return fp_op(0x50, f2, f1, 1, rd); }
constexpr u32 fle_s(u32 rd, u32 f1, u32 f2) { return fp_op(0x50, f2, f1, 0, rd); }
constexpr u32 feq_d(u32 rd, u32 f1, u32 f2) { return fp_op(0x51, f2, f1, 2, rd); }
constexpr u32 flt_d(u32 rd, u32 f1, u32 f2) { return fp_op(0x51, f2, f1, 1, rd); }
constexpr u32 fle_d(u32 rd, u32 f1, u32 f2) { return fp_op(0x51, f2, f1, 0, rd); }
constexpr u32 fclass_s(u32 rd, u32 f1) { return fp_op(0x70, 0, f1, 1, rd); }
constexpr u32 fclass_d(u32 rd, u32 f1) { return fp_op(0x71, 0, f1, 1, rd); }
constexpr u32 fmv_x_w(u32 rd, u32 f1) { return fp_op(0x70, 0, f1, 0, rd); }
constexpr u32 fmv_x_d(u32 rd, u32 f1) { return fp_op(0x71, 0, f1, 0, rd); }
constexpr u32 fmv_w_x(u32 fd, u32 rs1) { return fp_op(0x78, 0, rs1, 0, fd); }
constexpr u32 fmv_d_x(u32 fd, u32 rs1) { return fp_op(0x79, 0, rs1, 0, fd); }
// Float to integer: width 0 = w, 1 = wu, 2 = l, 3 = lu.
constexpr u32 fcvt_w_s(u32 rd, u32 f1, u32 rm = dyn) { return fp_op(0x60, 0, f1, rm, rd); }
constexpr u32 fcvt_wu_s(u32 rd, u32 f1, u32 rm = dyn) { return fp_op(0x60, 1, f1, rm, rd); }
constexpr u32 fcvt_l_s(u32 rd, u32 f1, u32 rm = dyn) { return fp_op(0x60, 2, f1, rm, rd); }
constexpr u32 fcvt_lu_s(u32 rd, u32 f1, u32 rm = dyn) { return fp_op(0x60, 3, f1, rm, rd); }
constexpr u32 fcvt_w_d(u32 rd, u32 f1, u32 rm = dyn) { return fp_op(0x61, 0, f1, rm, rd); }
constexpr u32 fcvt_wu_d(u32 rd, u32 f1, u32 rm = dyn) { return fp_op(0x61, 1, f1, rm, rd); }
constexpr u32 fcvt_l_d(u32 rd, u32 f1, u32 rm = dyn) { return fp_op(0x61, 2, f1, rm, rd); }
constexpr u32 fcvt_lu_d(u32 rd, u32 f1, u32 rm = dyn) { return fp_op(0x61, 3, f1, rm, rd); }
constexpr u32 fcvt_s_w(u32 fd, u32 rs1, u32 rm = dyn) { return fp_op(0x68, 0, rs1, rm, fd); }
constexpr u32 fcvt_s_wu(u32 fd, u32 rs1, u32 rm = dyn) { return fp_op(0x68, 1, rs1, rm, fd); }
constexpr u32 fcvt_s_l(u32 fd, u32 rs1, u32 rm = dyn) { return fp_op(0x68, 2, rs1, rm, fd); }
constexpr u32 fcvt_s_lu(u32 fd, u32 rs1, u32 rm = dyn) { return fp_op(0x68, 3, rs1, rm, fd); }
constexpr u32 fcvt_d_w(u32 fd, u32 rs1, u32 rm = dyn) { return fp_op(0x69, 0, rs1, rm, fd); }
constexpr u32 fcvt_d_wu(u32 fd, u32 rs1, u32 rm = dyn) { return fp_op(0x69, 1, rs1, rm, fd); }
constexpr u32 fcvt_d_l(u32 fd, u32 rs1, u32 rm = dyn) { return fp_op(0x69, 2, rs1, rm, fd); }
constexpr u32 fcvt_d_lu(u32 fd, u32 rs1, u32 rm = dyn) { return fp_op(0x69, 3, rs1, rm, fd); }
// RV64C with D (f registers f8..f15 in the 3-bit fields).
constexpr Half c_fld(u32 fd, u32 rs1, u32 uimm) {
  return half(1u << 13 | ((uimm >> 3) & 7) << 10 | creg(rs1) << 7 | ((uimm >> 6) & 3) << 5 | creg(fd) << 2);
}
constexpr Half c_fsd(u32 fs2, u32 rs1, u32 uimm) {
  return half(5u << 13 | ((uimm >> 3) & 7) << 10 | creg(rs1) << 7 | ((uimm >> 6) & 3) << 5 | creg(fs2) << 2);
}
constexpr Half c_fldsp(u32 fd, u32 uimm) {
  return half(1u << 13 | ((uimm >> 5) & 1) << 12 | fd << 7 | ((uimm >> 3) & 3) << 5 | ((uimm >> 6) & 7) << 2 | 2);
}
constexpr Half c_fsdsp(u32 fs2, u32 uimm) {
  return half(5u << 13 | ((uimm >> 3) & 7) << 10 | ((uimm >> 6) & 7) << 7 | fs2 << 2 | 2);
}

}  // namespace rv

namespace hart_test {

// ---------------------------------------------------------------- memory map
constexpr std::uint64_t kRamBase = 0x80000000, kRamSize = 0x100000;
constexpr std::uint64_t kRamEnd = kRamBase + kRamSize;
constexpr std::uint64_t kDataBase = kRamBase + 0x80000;     // scratch data
constexpr std::uint64_t kStackTop = kRamBase + 0xe0000;
constexpr std::uint64_t kTrapVector = kRamBase + 0xf0000;   // mtvec of the fixture
constexpr std::uint64_t kRomBase = 0x90000000, kRomSize = 0x1000;  // read-only
constexpr std::uint64_t kMmioBase = 0x10000000, kMmioSize = 0x1000;
constexpr std::uint64_t kMmioError = kMmioBase + 0xff0;     // answers with a bus error
constexpr std::uint64_t kHole = 0x20000000;                 // nothing answers here

// CSR numbers.
enum Csr : std::uint16_t {
  kCycle = 0xc00, kTime = 0xc01, kInstret = 0xc02, kHpmCounter3 = 0xc03,
  kMstatus = 0x300, kMisa = 0x301, kMedeleg = 0x302, kMideleg = 0x303, kMie = 0x304, kMtvec = 0x305,
  kMcounteren = 0x306, kMenvcfg = 0x30a, kMcountinhibit = 0x320, kMhpmEvent3 = 0x323,
  kMscratch = 0x340, kMepc = 0x341, kMcause = 0x342, kMtval = 0x343, kMip = 0x344,
  kPmpcfg0 = 0x3a0, kPmpaddr0 = 0x3b0,
  kMcycle = 0xb00, kMinstret = 0xb02, kMhpmCounter3 = 0xb03,
  kMvendorid = 0xf11, kMarchid = 0xf12, kMimpid = 0xf13, kMhartid = 0xf14, kMconfigptr = 0xf15,
  kSstatus = 0x100, kSatp = 0x180, kCustomRw = 0x7c0,
};
constexpr std::uint64_t kMstatusMie = 1ull << 3, kMstatusMpie = 1ull << 7, kMstatusMpp = 3ull << 11,
                        kMstatusMprv = 1ull << 17, kMstatusTw = 1ull << 21;
constexpr unsigned kMsi = 3, kMti = 7, kMei = 11;
// F/D: the fcsr CSRs and mstatus.FS (Off 0, Initial 1, Clean 2, Dirty 3) / SD.
enum FpCsr : std::uint16_t { kFflags = 0x001, kFrm = 0x002, kFcsr = 0x003 };
constexpr std::uint64_t kMstatusFs = 3ull << 13, kMstatusFsInitial = 1ull << 13, kMstatusFsClean = 2ull << 13,
                        kMstatusSd = 1ull << 63;
constexpr std::uint64_t kInterrupt = 1ull << 63;

inline std::uint64_t cause(TrapCause value) { return static_cast<std::uint64_t>(value); }
inline std::uint64_t cause(InterruptCause value) { return kInterrupt | static_cast<std::uint64_t>(value); }

inline std::string hex64(std::uint64_t value) {
  std::ostringstream text;
  text << "0x" << std::hex << value;
  return text.str();
}

// ---------------------------------------------------------------- fake bus
struct BusRecord {
  BusInterface::Access access;
  std::uint64_t address;
  unsigned size;
  std::uint64_t data;
};

class FakeBus : public BusInterface {
 public:
  std::vector<std::uint8_t> ram = std::vector<std::uint8_t>(kRamSize);
  std::vector<std::uint8_t> rom = std::vector<std::uint8_t>(kRomSize);
  std::vector<std::uint8_t> mmio = std::vector<std::uint8_t>(kMmioSize);
  std::vector<BusRecord> log;          // MMIO accesses, in order
  std::uint64_t mmio_cycles = 0;       // latency reported for each MMIO access
  std::uint64_t ram_accesses = 0;      // RAM accesses that came over the bus
  std::function<void(const BusRecord&)> on_mmio_write;

  bool bus_access(Access access, std::uint64_t address, void* data, unsigned size,
                  std::uint64_t& cycles) override {
    cycles = 0;
    if (std::uint8_t* p = backing(ram, kRamBase, address, size)) {
      ++ram_accesses;
      if (access == Access::kWrite) std::memcpy(p, data, size);
      else std::memcpy(data, p, size);
      return true;
    }
    if (std::uint8_t* p = backing(rom, kRomBase, address, size)) {
      if (access == Access::kWrite) return false;
      std::memcpy(data, p, size);
      return true;
    }
    if (std::uint8_t* p = backing(mmio, kMmioBase, address, size)) {
      if (access == Access::kFetch || (address <= kMmioError + 7 && kMmioError <= address + size - 1)) return false;
      cycles = mmio_cycles;
      BusRecord record{access, address, size, 0};
      if (access == Access::kWrite) {
        std::memcpy(p, data, size);
        std::memcpy(&record.data, data, size);
        log.push_back(record);
        if (on_mmio_write) on_mmio_write(record);
      } else {
        std::memcpy(data, p, size);
        std::memcpy(&record.data, data, size);
        log.push_back(record);
      }
      return true;
    }
    return false;
  }

  bool debug_access(bool write, std::uint64_t address, void* data, std::size_t size) override {
    for (auto* region : {&ram, &rom, &mmio}) {
      std::uint64_t base = region == &ram ? kRamBase : region == &rom ? kRomBase : kMmioBase;
      if (std::uint8_t* p = backing(*region, base, address, size)) {
        if (write) std::memcpy(p, data, size);
        else std::memcpy(data, p, size);
        return true;
      }
    }
    return false;
  }

  MemoryWindow ram_window() {
    MemoryWindow window;
    window.start = kRamBase;
    window.size = kRamSize;
    window.host = ram.data();
    window.readable = window.writable = true;
    return window;
  }
  MemoryWindow rom_window() {
    MemoryWindow window;
    window.start = kRomBase;
    window.size = kRomSize;
    window.host = rom.data();
    window.readable = true;
    window.writable = false;
    return window;
  }

  // Host-side access to RAM/ROM/MMIO contents (no hart involvement).
  template <typename T>
  T peek(std::uint64_t address) {
    T value{};
    EXPECT_TRUE(debug_access(false, address, &value, sizeof(T))) << hex64(address);
    return value;
  }
  template <typename T>
  void poke(std::uint64_t address, T value) {
    EXPECT_TRUE(debug_access(true, address, &value, sizeof(T))) << hex64(address);
  }

 private:
  static std::uint8_t* backing(std::vector<std::uint8_t>& region, std::uint64_t base, std::uint64_t address,
                               std::uint64_t size) {
    if (address < base || address - base > region.size() || region.size() - (address - base) < size) return nullptr;
    return region.data() + (address - base);
  }
};

struct FatalError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One 16- or 32-bit instruction of a program.
struct Insn {
  Insn(std::uint32_t word) : bits(word), length(4) {}  // NOLINT: implicit on purpose
  Insn(rv::Half half) : bits(half.bits), length(2) {}   // NOLINT
  std::uint32_t bits;
  unsigned length;
};

// A cycle model where every instruction costs one cycle.
inline CycleModel unit_cycle_model() {
  CycleModel model;
  std::fill(std::begin(model.cpi), std::end(model.cpi), 1);
  model.branch_taken_penalty = 0;
  return model;
}

// ---------------------------------------------------------------- fixture
class HartTest : public ::testing::Test {
 protected:
  HartTest() : hart(0, bus) {
    hart.set_cycle_model(unit_cycle_model());
    hart.add_window(bus.ram_window());
    hart.add_window(bus.rom_window());
    hart.set_fatal_handler([](const std::string& message) { throw FatalError(message); });
    hart.reset(kRamBase);
    EXPECT_TRUE(hart.csr_write(kMtvec, kTrapVector));
  }

  // Writes `code` to memory at `address` directly (the hart does not see
  // the write); returns the address after it.
  std::uint64_t place(std::uint64_t address, std::initializer_list<Insn> code) {
    for (const Insn& insn : code) {
      if (insn.length == 2) bus.poke<std::uint16_t>(address, static_cast<std::uint16_t>(insn.bits));
      else bus.poke<std::uint32_t>(address, insn.bits);
      address += insn.length;
    }
    return address;
  }

  // Places `code` at addresses not used before in this test and points pc
  // at it; returns its address.
  std::uint64_t load(std::initializer_list<Insn> code) {
    std::uint64_t start = code_cursor_;
    code_cursor_ = place(start, code);
    code_cursor_ = (code_cursor_ + 15) & ~15ull;
    hart.pc = start;
    return start;
  }

  // Runs `n` instructions (each costs one cycle in the fixture's model).
  void step(std::uint64_t n = 1) { hart.run(hart.cycles() + n); }
  // Lets the hart act on pending events (interrupts, invalidations) without
  // executing an instruction.
  void service() { hart.run(hart.cycles()); }

  // Loads `code` and executes as many instructions as it has entries.
  std::uint64_t exec(std::initializer_list<Insn> code) {
    std::uint64_t start = load(code);
    step(code.size());
    return start;
  }

  // Machine-mode CSR read as the test's "debugger" (fails the test if illegal).
  std::uint64_t csr(std::uint16_t number) {
    std::uint64_t value = 0;
    EXPECT_TRUE(hart.csr_read(number, value)) << "csr " << hex64(number);
    return value;
  }

  // Drops to U-mode at `user_pc` by executing an mret with MPP = U.
  void enter_user(std::uint64_t user_pc, bool interrupts_enabled_after = false) {
    ASSERT_EQ(hart.privilege(), Privilege::kMachine);
    ASSERT_TRUE(hart.csr_write(kMepc, user_pc));
    std::uint64_t status = hart.mstatus() & ~(kMstatusMpp | kMstatusMpie);
    if (interrupts_enabled_after) status |= kMstatusMpie;
    ASSERT_TRUE(hart.csr_write(kMstatus, status));
    load({rv::mret()});
    step();
    ASSERT_EQ(hart.privilege(), Privilege::kUser);
    ASSERT_EQ(hart.pc, user_pc);
  }

  // A handler at kTrapVector that skips the trapping 4-byte instruction:
  // csrr t6, mepc; addi t6, t6, 4; csrw mepc, t6; mret (4 instructions).
  void install_skip_handler() {
    place(kTrapVector, {rv::csrr(rv::t6, kMepc), rv::addi(rv::t6, rv::t6, 4), rv::csrw(kMepc, rv::t6),
                        rv::mret()});
  }

  // Whether the hart has just entered the trap handler for `expected`.
  ::testing::AssertionResult trapped(std::uint64_t expected, std::uint64_t epc, std::uint64_t tval,
                                     std::uint64_t handler = kTrapVector) {
    std::ostringstream problems;
    if (hart.pc != handler) problems << " pc=" << hex64(hart.pc) << " (expected " << hex64(handler) << ")";
    if (hart.mcause() != expected)
      problems << " mcause=" << hex64(hart.mcause()) << " (" << trap_cause_name(hart.mcause()) << ", expected "
               << trap_cause_name(expected) << ")";
    if (hart.mepc() != epc) problems << " mepc=" << hex64(hart.mepc()) << " (expected " << hex64(epc) << ")";
    if (hart.mtval() != tval) problems << " mtval=" << hex64(hart.mtval()) << " (expected " << hex64(tval) << ")";
    if (hart.privilege() != Privilege::kMachine) problems << " not in M-mode";
    if (problems.str().empty()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "trap state:" << problems.str();
  }
  ::testing::AssertionResult trapped(TrapCause expected, std::uint64_t epc, std::uint64_t tval) {
    return trapped(cause(expected), epc, tval);
  }

  FakeBus bus;
  Hart hart;
  std::uint64_t code_cursor_ = kRamBase;
};

}  // namespace hart_test
}  // namespace npuvp
