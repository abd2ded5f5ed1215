// Decoder and disassembler: encodings produced by the test encoders are
// checked against riscv64-unknown-elf-as output (the constants), then
// decoded and disassembled; the base tables are checked for consistency; and
// an ISA extension plugs a custom-0 instruction in (with overlap rejection).
#include "unit/hart_test_support.h"

#include "cpu/extension.h"

#include <set>
#include <stdexcept>
#include <string>

namespace npuvp {
namespace {

using namespace rv;
using namespace hart_test;

std::uint32_t w(std::uint32_t word) { return word; }
std::uint32_t w(Half half) { return half.bits; }

struct Encoding {
  std::uint32_t ours;     // from the test encoders
  std::uint32_t gnu;      // from riscv64-unknown-elf-as + objdump
  const char* text;       // expected disassembly at pc 0x1000
};

// The assembly each row was produced from is in the comment. 16-bit rows are
// RVC (disassembled as their 32-bit expansion).
const Encoding kEncodings[] = {
    {w(lui(a0, 0x80000)), 0x80000537, "lui a0, 0x80000"},  // lui a0, 0x80000
    {w(auipc(t0, 0x12345)), 0x12345297, "auipc t0, 0x12345"},  // auipc t0, 0x12345
    {w(jal(ra, 2048)), 0x001000ef, "jal ra, 0x1800"},  // jal ra, .+2048
    {w(jal(zero, -4)), 0xffdff06f, "jal zero, 0xffc"},  // jal zero, .-4
    {w(jalr(a0, a0, -8)), 0xff850567, "jalr a0, -8(a0)"},  // jalr a0, -8(a0)
    {w(beq(a1, a2, 16)), 0x00c58863, "beq a1, a2, 0x1010"},  // beq a1, a2, .+16
    {w(bne(a1, a2, -16)), 0xfec598e3, "bne a1, a2, 0xff0"},  // bne a1, a2, .-16
    {w(blt(a3, a4, 4094)), 0x7ee6cfe3, "blt a3, a4, 0x1ffe"},  // blt a3, a4, .+4094
    {w(bge(a3, a4, -4096)), 0x80e6d063, "bge a3, a4, 0x0"},  // bge a3, a4, .-4096
    {w(bltu(t0, t1, 8)), 0x0062e463, "bltu t0, t1, 0x1008"},  // bltu t0, t1, .+8
    {w(bgeu(t0, t1, -8)), 0xfe62fce3, "bgeu t0, t1, 0xff8"},  // bgeu t0, t1, .-8
    {w(lb(a0, a1, -1)), 0xfff58503, "lb a0, -1(a1)"},  // lb a0, -1(a1)
    {w(lh(a0, a1, 2047)), 0x7ff59503, "lh a0, 2047(a1)"},  // lh a0, 2047(a1)
    {w(lw(a0, sp, -2048)), 0x80012503, "lw a0, -2048(sp)"},  // lw a0, -2048(sp)
    {w(ld(s0, sp, 8)), 0x00813403, "ld s0, 8(sp)"},  // ld s0, 8(sp)
    {w(lbu(a0, a1, 1)), 0x0015c503, "lbu a0, 1(a1)"},  // lbu a0, 1(a1)
    {w(lhu(a0, a1, 2)), 0x0025d503, "lhu a0, 2(a1)"},  // lhu a0, 2(a1)
    {w(lwu(a0, a1, 4)), 0x0045e503, "lwu a0, 4(a1)"},  // lwu a0, 4(a1)
    {w(sb(a0, a1, -1)), 0xfea58fa3, "sb a0, -1(a1)"},  // sb a0, -1(a1)
    {w(sh(a0, a1, 2047)), 0x7ea59fa3, "sh a0, 2047(a1)"},  // sh a0, 2047(a1)
    {w(sw(a0, sp, -2048)), 0x80a12023, "sw a0, -2048(sp)"},  // sw a0, -2048(sp)
    {w(sd(s0, sp, 8)), 0x00813423, "sd s0, 8(sp)"},  // sd s0, 8(sp)
    {w(addi(a0, a1, -1)), 0xfff58513, "addi a0, a1, -1"},  // addi a0, a1, -1
    {w(slti(a0, a1, 5)), 0x0055a513, "slti a0, a1, 5"},  // slti a0, a1, 5
    {w(sltiu(a0, a1, -1)), 0xfff5b513, "sltiu a0, a1, -1"},  // sltiu a0, a1, -1
    {w(xori(a0, a1, 0x7ff)), 0x7ff5c513, "xori a0, a1, 2047"},  // xori a0, a1, 0x7ff
    {w(ori(a0, a1, -2048)), 0x8005e513, "ori a0, a1, -2048"},  // ori a0, a1, -2048
    {w(andi(a0, a1, 0xf0)), 0x0f05f513, "andi a0, a1, 240"},  // andi a0, a1, 0xf0
    {w(slli(a0, a1, 63)), 0x03f59513, "slli a0, a1, 63"},  // slli a0, a1, 63
    {w(srli(a0, a1, 32)), 0x0205d513, "srli a0, a1, 32"},  // srli a0, a1, 32
    {w(srai(a0, a1, 63)), 0x43f5d513, "srai a0, a1, 63"},  // srai a0, a1, 63
    {w(add(a0, a1, a2)), 0x00c58533, "add a0, a1, a2"},  // add a0, a1, a2
    {w(sub(a0, a1, a2)), 0x40c58533, "sub a0, a1, a2"},  // sub a0, a1, a2
    {w(sll(a0, a1, a2)), 0x00c59533, "sll a0, a1, a2"},  // sll a0, a1, a2
    {w(slt(a0, a1, a2)), 0x00c5a533, "slt a0, a1, a2"},  // slt a0, a1, a2
    {w(sltu(a0, a1, a2)), 0x00c5b533, "sltu a0, a1, a2"},  // sltu a0, a1, a2
    {w(xor_(a0, a1, a2)), 0x00c5c533, "xor a0, a1, a2"},  // xor a0, a1, a2
    {w(srl(a0, a1, a2)), 0x00c5d533, "srl a0, a1, a2"},  // srl a0, a1, a2
    {w(sra(a0, a1, a2)), 0x40c5d533, "sra a0, a1, a2"},  // sra a0, a1, a2
    {w(or_(a0, a1, a2)), 0x00c5e533, "or a0, a1, a2"},  // or a0, a1, a2
    {w(and_(a0, a1, a2)), 0x00c5f533, "and a0, a1, a2"},  // and a0, a1, a2
    {w(addiw(a0, a1, -1)), 0xfff5851b, "addiw a0, a1, -1"},  // addiw a0, a1, -1
    {w(slliw(a0, a1, 31)), 0x01f5951b, "slliw a0, a1, 31"},  // slliw a0, a1, 31
    {w(srliw(a0, a1, 31)), 0x01f5d51b, "srliw a0, a1, 31"},  // srliw a0, a1, 31
    {w(sraiw(a0, a1, 31)), 0x41f5d51b, "sraiw a0, a1, 31"},  // sraiw a0, a1, 31
    {w(addw(a0, a1, a2)), 0x00c5853b, "addw a0, a1, a2"},  // addw a0, a1, a2
    {w(subw(a0, a1, a2)), 0x40c5853b, "subw a0, a1, a2"},  // subw a0, a1, a2
    {w(sllw(a0, a1, a2)), 0x00c5953b, "sllw a0, a1, a2"},  // sllw a0, a1, a2
    {w(srlw(a0, a1, a2)), 0x00c5d53b, "srlw a0, a1, a2"},  // srlw a0, a1, a2
    {w(sraw(a0, a1, a2)), 0x40c5d53b, "sraw a0, a1, a2"},  // sraw a0, a1, a2
    {w(fence(15, 15)), 0x0ff0000f, "fence iorw, iorw"},  // fence iorw, iorw
    {w(fence(2, 1)), 0x0210000f, "fence r, w"},  // fence r, w
    {w(fence_i()), 0x0000100f, "fence.i"},  // fence.i
    {w(ecall()), 0x00000073, "ecall"},  // ecall
    {w(ebreak()), 0x00100073, "ebreak"},  // ebreak
    {w(mret()), 0x30200073, "mret"},  // mret
    {w(wfi()), 0x10500073, "wfi"},  // wfi
    {w(csrrw(a0, 0x300, a1)), 0x30059573, "csrrw a0, mstatus, a1"},  // csrrw a0, mstatus, a1
    {w(csrrs(a0, 0xb00, zero)), 0xb0002573, "csrrs a0, mcycle, zero"},  // csrrs a0, mcycle, zero
    {w(csrrc(zero, 0x304, t0)), 0x3042b073, "csrrc zero, mie, t0"},  // csrrc zero, mie, t0
    {w(csrrwi(a0, 0x340, 31)), 0x340fd573, "csrrwi a0, mscratch, 31"},  // csrrwi a0, mscratch, 31
    {w(csrrsi(a0, 0x300, 8)), 0x30046573, "csrrsi a0, mstatus, 8"},  // csrrsi a0, mstatus, 8
    {w(csrrci(a0, 0x300, 8)), 0x30047573, "csrrci a0, mstatus, 8"},  // csrrci a0, mstatus, 8
    {w(mul(a0, a1, a2)), 0x02c58533, "mul a0, a1, a2"},  // mul a0, a1, a2
    {w(mulh(a0, a1, a2)), 0x02c59533, "mulh a0, a1, a2"},  // mulh a0, a1, a2
    {w(mulhsu(a0, a1, a2)), 0x02c5a533, "mulhsu a0, a1, a2"},  // mulhsu a0, a1, a2
    {w(mulhu(a0, a1, a2)), 0x02c5b533, "mulhu a0, a1, a2"},  // mulhu a0, a1, a2
    {w(div(a0, a1, a2)), 0x02c5c533, "div a0, a1, a2"},  // div a0, a1, a2
    {w(divu(a0, a1, a2)), 0x02c5d533, "divu a0, a1, a2"},  // divu a0, a1, a2
    {w(rem(a0, a1, a2)), 0x02c5e533, "rem a0, a1, a2"},  // rem a0, a1, a2
    {w(remu(a0, a1, a2)), 0x02c5f533, "remu a0, a1, a2"},  // remu a0, a1, a2
    {w(mulw(a0, a1, a2)), 0x02c5853b, "mulw a0, a1, a2"},  // mulw a0, a1, a2
    {w(divw(a0, a1, a2)), 0x02c5c53b, "divw a0, a1, a2"},  // divw a0, a1, a2
    {w(divuw(a0, a1, a2)), 0x02c5d53b, "divuw a0, a1, a2"},  // divuw a0, a1, a2
    {w(remw(a0, a1, a2)), 0x02c5e53b, "remw a0, a1, a2"},  // remw a0, a1, a2
    {w(remuw(a0, a1, a2)), 0x02c5f53b, "remuw a0, a1, a2"},  // remuw a0, a1, a2
    {w(lr_w(a0, a1)), 0x1005a52f, "lr.w a0, (a1)"},  // lr.w a0, (a1)
    {w(sc_w(a0, a2, a1)), 0x18c5a52f, "sc.w a0, a2, (a1)"},  // sc.w a0, a2, (a1)
    {w(amo(kAmoSwap, kWord, a0, a2, a1)), 0x08c5a52f, "amoswap.w a0, a2, (a1)"},  // amoswap.w a0, a2, (a1)
    {w(amo(kAmoAdd, kWord, a0, a2, a1)), 0x00c5a52f, "amoadd.w a0, a2, (a1)"},  // amoadd.w a0, a2, (a1)
    {w(amo(kAmoXor, kWord, a0, a2, a1)), 0x20c5a52f, "amoxor.w a0, a2, (a1)"},  // amoxor.w a0, a2, (a1)
    {w(amo(kAmoAnd, kWord, a0, a2, a1)), 0x60c5a52f, "amoand.w a0, a2, (a1)"},  // amoand.w a0, a2, (a1)
    {w(amo(kAmoOr, kWord, a0, a2, a1)), 0x40c5a52f, "amoor.w a0, a2, (a1)"},  // amoor.w a0, a2, (a1)
    {w(amo(kAmoMin, kWord, a0, a2, a1)), 0x80c5a52f, "amomin.w a0, a2, (a1)"},  // amomin.w a0, a2, (a1)
    {w(amo(kAmoMax, kWord, a0, a2, a1)), 0xa0c5a52f, "amomax.w a0, a2, (a1)"},  // amomax.w a0, a2, (a1)
    {w(amo(kAmoMinu, kWord, a0, a2, a1)), 0xc0c5a52f, "amominu.w a0, a2, (a1)"},  // amominu.w a0, a2, (a1)
    {w(amo(kAmoMaxu, kWord, a0, a2, a1)), 0xe0c5a52f, "amomaxu.w a0, a2, (a1)"},  // amomaxu.w a0, a2, (a1)
    {w(lr_d(a0, a1)), 0x1005b52f, "lr.d a0, (a1)"},  // lr.d a0, (a1)
    {w(sc_d(a0, a2, a1)), 0x18c5b52f, "sc.d a0, a2, (a1)"},  // sc.d a0, a2, (a1)
    {w(amo(kAmoSwap, kDouble, a0, a2, a1)), 0x08c5b52f, "amoswap.d a0, a2, (a1)"},  // amoswap.d a0, a2, (a1)
    {w(amo(kAmoAdd, kDouble, a0, a2, a1)), 0x00c5b52f, "amoadd.d a0, a2, (a1)"},  // amoadd.d a0, a2, (a1)
    {w(amo(kAmoXor, kDouble, a0, a2, a1)), 0x20c5b52f, "amoxor.d a0, a2, (a1)"},  // amoxor.d a0, a2, (a1)
    {w(amo(kAmoAnd, kDouble, a0, a2, a1)), 0x60c5b52f, "amoand.d a0, a2, (a1)"},  // amoand.d a0, a2, (a1)
    {w(amo(kAmoOr, kDouble, a0, a2, a1)), 0x40c5b52f, "amoor.d a0, a2, (a1)"},  // amoor.d a0, a2, (a1)
    {w(amo(kAmoMin, kDouble, a0, a2, a1)), 0x80c5b52f, "amomin.d a0, a2, (a1)"},  // amomin.d a0, a2, (a1)
    {w(amo(kAmoMax, kDouble, a0, a2, a1)), 0xa0c5b52f, "amomax.d a0, a2, (a1)"},  // amomax.d a0, a2, (a1)
    {w(amo(kAmoMinu, kDouble, a0, a2, a1)), 0xc0c5b52f, "amominu.d a0, a2, (a1)"},  // amominu.d a0, a2, (a1)
    {w(amo(kAmoMaxu, kDouble, a0, a2, a1, true, true)), 0xe6c5b52f, "amomaxu.d a0, a2, (a1)"},  // amomaxu.d.aqrl a0, a2, (a1)
    {w(c_addi4spn(a0, 1020)), 0x1fe8, "addi a0, sp, 1020"},  // c.addi4spn a0, sp, 1020
    {w(c_lw(a0, a1, 124)), 0x5de8, "lw a0, 124(a1)"},  // c.lw a0, 124(a1)
    {w(c_ld(a0, a1, 248)), 0x7de8, "ld a0, 248(a1)"},  // c.ld a0, 248(a1)
    {w(c_sw(a0, a1, 124)), 0xdde8, "sw a0, 124(a1)"},  // c.sw a0, 124(a1)
    {w(c_sd(a0, a1, 248)), 0xfde8, "sd a0, 248(a1)"},  // c.sd a0, 248(a1)
    {w(c_nop()), 0x0001, "addi zero, zero, 0"},  // c.nop
    {w(c_addi(a0, -32)), 0x1501, "addi a0, a0, -32"},  // c.addi a0, -32
    {w(c_addiw(a0, 31)), 0x257d, "addiw a0, a0, 31"},  // c.addiw a0, 31
    {w(c_li(a5, -1)), 0x57fd, "addi a5, zero, -1"},  // c.li a5, -1
    {w(c_addi16sp(-512)), 0x7101, "addi sp, sp, -512"},  // c.addi16sp sp, -512
    {w(c_addi16sp(496)), 0x617d, "addi sp, sp, 496"},  // c.addi16sp sp, 496
    {w(c_lui(a0, -32)), 0x7501, "lui a0, 0xfffe0"},  // c.lui a0, 0xfffe0
    {w(c_lui(a0, 31)), 0x657d, "lui a0, 0x1f"},  // c.lui a0, 0x1f
    {w(c_srli(a0, 63)), 0x917d, "srli a0, a0, 63"},  // c.srli a0, 63
    {w(c_srai(a1, 32)), 0x9581, "srai a1, a1, 32"},  // c.srai a1, 32
    {w(c_andi(a2, -32)), 0x9a01, "andi a2, a2, -32"},  // c.andi a2, -32
    {w(c_sub(s0, s1)), 0x8c05, "sub s0, s0, s1"},  // c.sub s0, s1
    {w(c_xor(a4, a5)), 0x8f3d, "xor a4, a4, a5"},  // c.xor a4, a5
    {w(c_or(a0, a1)), 0x8d4d, "or a0, a0, a1"},  // c.or a0, a1
    {w(c_and(a2, a3)), 0x8e75, "and a2, a2, a3"},  // c.and a2, a3
    {w(c_subw(a0, a1)), 0x9d0d, "subw a0, a0, a1"},  // c.subw a0, a1
    {w(c_addw(a0, a1)), 0x9d2d, "addw a0, a0, a1"},  // c.addw a0, a1
    {w(c_j(2046)), 0xaffd, "jal zero, 0x17fe"},  // c.j .+2046
    {w(c_j(-2048)), 0xb001, "jal zero, 0x800"},  // c.j .-2048
    {w(c_beqz(a0, 254)), 0xcd7d, "beq a0, zero, 0x10fe"},  // c.beqz a0, .+254
    {w(c_bnez(s1, -256)), 0xf081, "bne s1, zero, 0xf00"},  // c.bnez s1, .-256
    {w(c_slli(a0, 63)), 0x157e, "slli a0, a0, 63"},  // c.slli a0, 63
    {w(c_lwsp(a0, 252)), 0x557e, "lw a0, 252(sp)"},  // c.lwsp a0, 252(sp)
    {w(c_ldsp(a0, 504)), 0x757e, "ld a0, 504(sp)"},  // c.ldsp a0, 504(sp)
    {w(c_jr(a0)), 0x8502, "jalr zero, 0(a0)"},  // c.jr a0
    {w(c_mv(a0, a1)), 0x852e, "add a0, zero, a1"},  // c.mv a0, a1
    {w(c_ebreak()), 0x9002, "ebreak"},  // c.ebreak
    {w(c_jalr(t0)), 0x9282, "jalr ra, 0(t0)"},  // c.jalr t0
    {w(c_add(a0, a1)), 0x952e, "add a0, a0, a1"},  // c.add a0, a1
    {w(c_swsp(a0, 252)), 0xdfaa, "sw a0, 252(sp)"},  // c.swsp a0, 252(sp)
    {w(c_sdsp(a0, 504)), 0xffaa, "sd a0, 504(sp)"},  // c.sdsp a0, 504(sp)
};

// Immediates with alternating bit patterns (and their complements), so that
// any permutation of immediate bits shows; disassembled at pc 0x100000.
const Encoding kScatteredImmediates[] = {
    {w(c_addi4spn(a0, 340)), 0x0ac8, "addi a0, sp, 340"},  // c.addi4spn a0, sp, 340
    {w(c_addi4spn(a5, 680)), 0x153c, "addi a5, sp, 680"},  // c.addi4spn a5, sp, 680
    {w(c_lw(a0, a1, 84)), 0x49e8, "lw a0, 84(a1)"},  // c.lw a0, 84(a1)
    {w(c_lw(a2, s0, 40)), 0x5410, "lw a2, 40(s0)"},  // c.lw a2, 40(s0)
    {w(c_ld(a0, a1, 168)), 0x75c8, "ld a0, 168(a1)"},  // c.ld a0, 168(a1)
    {w(c_ld(a2, s0, 80)), 0x6830, "ld a2, 80(s0)"},  // c.ld a2, 80(s0)
    {w(c_sw(a0, a1, 84)), 0xc9e8, "sw a0, 84(a1)"},  // c.sw a0, 84(a1)
    {w(c_sw(a2, s0, 40)), 0xd410, "sw a2, 40(s0)"},  // c.sw a2, 40(s0)
    {w(c_sd(a0, a1, 168)), 0xf5c8, "sd a0, 168(a1)"},  // c.sd a0, 168(a1)
    {w(c_sd(a2, s0, 80)), 0xe830, "sd a2, 80(s0)"},  // c.sd a2, 80(s0)
    {w(c_addi(a0, 21)), 0x0555, "addi a0, a0, 21"},  // c.addi a0, 21
    {w(c_addi(a0, -22)), 0x1529, "addi a0, a0, -22"},  // c.addi a0, -22
    {w(c_addiw(a1, -22)), 0x35a9, "addiw a1, a1, -22"},  // c.addiw a1, -22
    {w(c_li(a2, 21)), 0x4655, "addi a2, zero, 21"},  // c.li a2, 21
    {w(c_addi16sp(336)), 0x6171, "addi sp, sp, 336"},  // c.addi16sp sp, 336
    {w(c_addi16sp(-352)), 0x710d, "addi sp, sp, -352"},  // c.addi16sp sp, -352
    {w(c_lui(a0, 21)), 0x6555, "lui a0, 0x15"},  // c.lui a0, 0x15
    {w(c_lui(a0, -22)), 0x7529, "lui a0, 0xfffea"},  // c.lui a0, 0xfffea
    {w(c_srli(a0, 21)), 0x8155, "srli a0, a0, 21"},  // c.srli a0, 21
    {w(c_srai(a0, 42)), 0x9529, "srai a0, a0, 42"},  // c.srai a0, 42
    {w(c_andi(a0, 21)), 0x8955, "andi a0, a0, 21"},  // c.andi a0, 21
    {w(c_andi(a0, -22)), 0x9929, "andi a0, a0, -22"},  // c.andi a0, -22
    {w(c_j(1364)), 0xab91, "jal zero, 0x100554"},  // c.j .+1364
    {w(c_j(-1366)), 0xb46d, "jal zero, 0xffaaa"},  // c.j .-1366
    {w(c_beqz(a0, 84)), 0xc931, "beq a0, zero, 0x100054"},  // c.beqz a0, .+84
    {w(c_bnez(a0, -86)), 0xf54d, "bne a0, zero, 0xfffaa"},  // c.bnez a0, .-86
    {w(c_slli(a0, 42)), 0x152a, "slli a0, a0, 42"},  // c.slli a0, 42
    {w(c_lwsp(a0, 84)), 0x4556, "lw a0, 84(sp)"},  // c.lwsp a0, 84(sp)
    {w(c_lwsp(a0, 168)), 0x552a, "lw a0, 168(sp)"},  // c.lwsp a0, 168(sp)
    {w(c_ldsp(a0, 168)), 0x752a, "ld a0, 168(sp)"},  // c.ldsp a0, 168(sp)
    {w(c_ldsp(a0, 336)), 0x6556, "ld a0, 336(sp)"},  // c.ldsp a0, 336(sp)
    {w(c_swsp(a0, 84)), 0xcaaa, "sw a0, 84(sp)"},  // c.swsp a0, 84(sp)
    {w(c_swsp(a0, 168)), 0xd52a, "sw a0, 168(sp)"},  // c.swsp a0, 168(sp)
    {w(c_sdsp(a0, 168)), 0xf52a, "sd a0, 168(sp)"},  // c.sdsp a0, 168(sp)
    {w(c_sdsp(a0, 336)), 0xeaaa, "sd a0, 336(sp)"},  // c.sdsp a0, 336(sp)
    {w(beq(a0, a1, 2730)), 0x2ab505e3, "beq a0, a1, 0x100aaa"},  // beq a0, a1, .+2730
    {w(bne(a0, a1, -2732)), 0xd4b51a63, "bne a0, a1, 0xff554"},  // bne a0, a1, .-2732
    {w(jal(ra, 349524)), 0x554550ef, "jal ra, 0x155554"},  // jal ra, .+349524
    {w(jal(ra, -349526)), 0xaabaa0ef, "jal ra, 0xaaaaa"},  // jal ra, .-349526
    {w(sw(a0, a1, 1365)), 0x54a5aaa3, "sw a0, 1365(a1)"},  // sw a0, 1365(a1)
    {w(sd(a0, a1, -1366)), 0xaaa5b523, "sd a0, -1366(a1)"},  // sd a0, -1366(a1)
    {w(addi(a0, a1, 1365)), 0x55558513, "addi a0, a1, 1365"},  // addi a0, a1, 1365
    {w(addi(a0, a1, -1366)), 0xaaa58513, "addi a0, a1, -1366"},  // addi a0, a1, -1366
    {w(lui(a0, 0x55555)), 0x55555537, "lui a0, 0x55555"},  // lui a0, 0x55555
    {w(auipc(a0, 0xaaaaa)), 0xaaaaa517, "auipc a0, 0xaaaaa"},  // auipc a0, 0xaaaaa
};

TEST(DecoderTest, EncodersMatchTheAssembler) {
  for (const auto& row : kEncodings) EXPECT_EQ(row.ours, row.gnu) << row.text;
  for (const auto& row : kScatteredImmediates) EXPECT_EQ(row.ours, row.gnu) << row.text;
}

TEST(DecoderTest, DisassemblesEveryInstructionForm) {
  Decoder decoder;
  for (const auto& row : kEncodings) EXPECT_EQ(decoder.disassemble(row.gnu, 0x1000), row.text) << hex64(row.gnu);
  for (const auto& row : kScatteredImmediates)
    EXPECT_EQ(decoder.disassemble(row.gnu, 0x100000), row.text) << hex64(row.gnu);
}

TEST(DecoderTest, EveryBaseInstructionIsDecodedFromAssemblerOutput) {
  Decoder decoder;
  std::set<std::string> seen;
  for (const auto& row : kEncodings) {
    DecodedInstruction decoded{};
    ASSERT_TRUE(decoder.decode(row.gnu, decoded)) << row.text;
    ASSERT_NE(decoded.spec, nullptr);
    seen.insert(decoded.spec->mnemonic);
  }
  for (const auto& spec : Decoder::base_instructions())
    EXPECT_TRUE(seen.count(spec.mnemonic)) << spec.mnemonic << " has no assembler-checked encoding";
}

TEST(DecoderTest, BaseTableIsConsistent) {
  const auto& table = Decoder::base_instructions();
  std::set<std::string> names;
  for (const auto& spec : table) {
    EXPECT_TRUE(names.insert(spec.mnemonic).second) << "duplicate " << spec.mnemonic;
    EXPECT_EQ(spec.match & ~spec.mask, 0u) << spec.mnemonic << ": match has bits outside the mask";
    EXPECT_EQ(spec.match & 3, 3u) << spec.mnemonic << ": not a 32-bit encoding";
    EXPECT_NE(spec.execute, nullptr) << spec.mnemonic;
    EXPECT_EQ(spec.owner, nullptr) << spec.mnemonic;
  }
  for (std::size_t i = 0; i < table.size(); ++i)
    for (std::size_t j = i + 1; j < table.size(); ++j)
      EXPECT_NE((table[i].match ^ table[j].match) & table[i].mask & table[j].mask, 0u)
          << table[i].mnemonic << " overlaps " << table[j].mnemonic;
}

TEST(DecoderTest, FindsSpecsByMnemonic) {
  Decoder decoder;
  const InstructionSpec* spec = decoder.find("amoadd.w");
  ASSERT_NE(spec, nullptr);
  EXPECT_STREQ(spec->mnemonic, "amoadd.w");
  EXPECT_EQ(spec->cls, InstructionClass::kAtomic);
  EXPECT_EQ(decoder.find("fmadd.s")->cls, InstructionClass::kMultiply);  // F/D: isa_float.cpp
  EXPECT_EQ(decoder.find("vadd.vv"), nullptr);
  EXPECT_EQ(decoder.mnemonic(add(a0, a1, a2)), "add");
  EXPECT_EQ(decoder.mnemonic(c_mv(a0, a1).bits), "add");
}

TEST(DecoderTest, DecodesOperandsAndSignExtendsImmediates) {
  Decoder decoder;
  DecodedInstruction d{};

  ASSERT_TRUE(decoder.decode(sb(a0, a1, -1), d));
  EXPECT_EQ(d.imm, -1);
  EXPECT_EQ(d.rs1, a1);
  EXPECT_EQ(d.rs2, a0);
  EXPECT_EQ(d.rd, 32) << "stores write no register";
  EXPECT_EQ(d.length, 4);

  ASSERT_TRUE(decoder.decode(sd(s0, sp, -2048), d));
  EXPECT_EQ(d.imm, -2048);
  ASSERT_TRUE(decoder.decode(sw(a0, sp, 2047), d));
  EXPECT_EQ(d.imm, 2047);

  ASSERT_TRUE(decoder.decode(bne(a1, a2, -16), d));
  EXPECT_EQ(d.imm, -16);
  EXPECT_EQ(d.rd, 32) << "branches write no register";
  ASSERT_TRUE(decoder.decode(bge(a3, a4, -4096), d));
  EXPECT_EQ(d.imm, -4096);
  ASSERT_TRUE(decoder.decode(blt(a3, a4, 4094), d));
  EXPECT_EQ(d.imm, 4094);

  ASSERT_TRUE(decoder.decode(jal(ra, -4), d));
  EXPECT_EQ(d.imm, -4);
  EXPECT_EQ(d.rd, ra);
  ASSERT_TRUE(decoder.decode(jal(zero, -(1 << 20)), d));
  EXPECT_EQ(d.imm, -(1 << 20));
  EXPECT_EQ(d.rd, 32) << "x0 destinations go to the write sink";
  ASSERT_TRUE(decoder.decode(jal(zero, (1 << 20) - 2), d));
  EXPECT_EQ(d.imm, (1 << 20) - 2);

  ASSERT_TRUE(decoder.decode(lui(a0, 0x80000), d));
  EXPECT_EQ(d.imm, -0x80000000ll);
  ASSERT_TRUE(decoder.decode(addi(a0, a1, -2048), d));
  EXPECT_EQ(d.imm, -2048);
  ASSERT_TRUE(decoder.decode(srai(a0, a1, 63), d));
  EXPECT_EQ(d.imm, 63);
  ASSERT_TRUE(decoder.decode(sraiw(a0, a1, 31), d));
  EXPECT_EQ(d.imm, 31);
  ASSERT_TRUE(decoder.decode(csrrwi(a0, kMscratch, 17), d));
  EXPECT_EQ(d.imm, kMscratch);
  EXPECT_EQ(d.rs1, 17) << "the immediate of csrr*i travels in rs1";
}

TEST(DecoderTest, CompressedInstructionsDecodeToTheirExpansion) {
  Decoder decoder;
  DecodedInstruction d{};
  ASSERT_TRUE(decoder.decode(c_addi16sp(-512).bits, d));
  EXPECT_STREQ(d.spec->mnemonic, "addi");
  EXPECT_EQ(d.rd, sp);
  EXPECT_EQ(d.rs1, sp);
  EXPECT_EQ(d.imm, -512);
  EXPECT_EQ(d.length, 2);
  EXPECT_EQ(d.raw, c_addi16sp(-512).bits);

  ASSERT_TRUE(decoder.decode(c_j(-2048).bits, d));
  EXPECT_STREQ(d.spec->mnemonic, "jal");
  EXPECT_EQ(d.imm, -2048);
  EXPECT_EQ(d.rd, 32);

  ASSERT_TRUE(decoder.decode(c_bnez(s1, -256).bits, d));
  EXPECT_STREQ(d.spec->mnemonic, "bne");
  EXPECT_EQ(d.rs1, s1);
  EXPECT_EQ(d.rs2, zero);
  EXPECT_EQ(d.imm, -256);

  EXPECT_TRUE(Decoder::is_compressed(0x0001));
  EXPECT_TRUE(Decoder::is_compressed(0x0002));
  EXPECT_TRUE(Decoder::is_compressed(0x0000));
  EXPECT_FALSE(Decoder::is_compressed(0x00000013));
}

TEST(DecoderTest, RejectsIllegalAndReservedEncodings) {
  Decoder decoder;
  const std::uint32_t illegal[] = {
      0x00000000,  // c.unimp (all zero)
      0x0000000b,  // custom-0: nothing registered
      0x0205951b,  // slliw with shamt[5] set
      0x6005d513,  // srli/srai with an unknown funct6
      0x22c5f53b,  // remuw with funct7 0x11
      0x10200073,  // sret (no S-mode)
      0x12000073,  // sfence.vma
      0x7b200073,  // dret
      0x1025a52f,  // lr.w with rs2 != 0
      0x00c5c52f,  // AMO opcode with funct3 4
      0xffffffff,
      0x02c5d557,  // opcode 0x57 (OP-V): no V extension
      0x8000,      // Q0 funct3 4: reserved
      0x0008,      // c.addi4spn with a zero immediate
      0x6501,      // c.lui a0, 0: reserved
      0x6101,      // c.addi16sp 0: reserved
      0x2001,      // c.addiw x0: reserved
      0x4002,      // c.lwsp x0: reserved
      0x6002,      // c.ldsp x0: reserved
      0x8002,      // c.jr x0: reserved
      0x9c41,      // Q1 funct3 4, funct2 3, bit 12 set, funct2 2: reserved
      0x9c61,      // ... funct2 3: reserved
  };
  for (std::uint32_t raw : illegal) {
    DecodedInstruction d{};
    EXPECT_FALSE(decoder.decode(raw, d)) << hex64(raw);
    EXPECT_EQ(d.spec, nullptr) << hex64(raw);
    EXPECT_EQ(decoder.mnemonic(raw), "") << hex64(raw);
    EXPECT_EQ(decoder.disassemble(raw, 0), "unknown") << hex64(raw);
  }
}

TEST(DecoderTest, NamesRegistersAndClasses) {
  EXPECT_STREQ(register_name(0), "zero");
  EXPECT_STREQ(register_name(2), "sp");
  EXPECT_STREQ(register_name(8), "s0");
  EXPECT_STREQ(register_name(10), "a0");
  EXPECT_STREQ(register_name(31), "t6");
  EXPECT_STREQ(register_name(32), "zero") << "the x0 write sink prints as zero";
  EXPECT_STREQ(instruction_class_name(InstructionClass::kDivide), "div");
  EXPECT_STREQ(instruction_class_name(InstructionClass::kCustom), "custom");
}

// ---------------------------------------------------------------- extensions

// "mac rd, rs1, imm": rd += rs1 * imm + bias, on the custom-0 opcode
// (funct3 0). The bias is extension state, visible as CSR 0x7c0.
class MacExtension : public IsaExtension {
 public:
  std::string name() const override { return "xmac"; }
  std::vector<InstructionSpec> instructions() override {
    return {{"mac", 0x0000707f, 0x0000000b, OperandFormat::kCustom, InstructionClass::kCustom, &execute_mac}};
  }
  bool read_csr(Hart& hart, std::uint16_t csr, std::uint64_t& value) override {
    if (csr != kCustomRw) return false;
    value = bias;
    return true;
  }
  bool write_csr(Hart& hart, std::uint16_t csr, std::uint64_t value) override {
    if (csr != kCustomRw) return false;
    bias = value;
    return true;
  }
  std::string disassemble_operands(const DecodedInstruction& d) const override {
    return std::string(register_name(d.rd)) + " += " + register_name(d.rs1) + " * " + std::to_string(d.imm);
  }
  void reset(Hart& hart) override {
    bias = 0;
    ++resets;
  }

  static void execute_mac(Hart& hart, const DecodedInstruction& d) {
    auto* self = static_cast<MacExtension*>(d.spec->owner);
    hart.x[d.rd] += hart.x[d.rs1] * static_cast<std::uint64_t>(d.imm) + self->bias;
    ++self->executed;
    hart.pc += d.length;
  }

  std::uint64_t bias = 0;
  int executed = 0, resets = 0;
};

constexpr std::uint32_t mac(std::uint32_t rd, std::uint32_t rs1, std::int32_t imm) {
  return i_type(imm, rs1, 0, rd, 0x0b);
}

class ExtensionTest : public HartTest {};

TEST_F(ExtensionTest, CustomInstructionIsIllegalUntilTheExtensionIsAdded) {
  hart.x[a0] = 10;
  hart.x[a1] = 7;
  std::uint64_t at = exec({mac(a0, a1, 3)});
  EXPECT_TRUE(trapped(TrapCause::kIllegalInstruction, at, mac(a0, a1, 3)));

  MacExtension extension;
  hart.add_extension(extension);
  hart.pc = at;  // same address: the decoded illegal instruction must be gone
  step();
  EXPECT_EQ(hart.x[a0], 10u + 7 * 3);
  EXPECT_EQ(hart.pc, at + 4);
  EXPECT_EQ(extension.executed, 1);
}

TEST_F(ExtensionTest, ExtensionInstructionsRunWithStateCsrsAndTiming) {
  MacExtension extension;
  hart.add_extension(extension);
  EXPECT_TRUE(hart.misa() & (1u << ('X' - 'A'))) << "misa.X marks non-standard extensions";

  CycleModel model = unit_cycle_model();
  model.cpi[static_cast<int>(InstructionClass::kCustom)] = 7;
  hart.set_cycle_model(model);

  hart.x[a1] = 5;
  hart.x[a2] = 100;
  hart.x[a0] = 1;
  load({csrrw(a3, kCustomRw, a2), mac(a0, a1, -2), csrr(a4, kCustomRw)});
  hart.run(hart.cycles() + 1 + 7 + 1);
  EXPECT_EQ(hart.x[a3], 0u) << "old bias";
  EXPECT_EQ(hart.x[a0], 1u + 5 * static_cast<std::uint64_t>(-2) + 100);
  EXPECT_EQ(hart.x[a4], 100u);
  EXPECT_EQ(hart.retired(), 3u);
  EXPECT_EQ(hart.exceptions(), 0u);
  EXPECT_EQ(hart.cycles(), 9u) << "the custom class costs its cpi";

  EXPECT_EQ(hart.decoder().disassemble(mac(a0, a1, -2), 0), "mac a0 += a1 * -2");
  EXPECT_EQ(hart.decoder().mnemonic(mac(a0, a1, -2)), "mac");

  int resets = extension.resets;
  hart.reset(kRamBase);
  EXPECT_EQ(extension.resets, resets + 1);
  EXPECT_EQ(extension.bias, 0u);
}

// Overlapping encodings are rejected, and nothing of the rejected batch is added.
class OverlapExtension : public IsaExtension {
 public:
  OverlapExtension(std::string name, std::vector<InstructionSpec> specs) : name_(std::move(name)), specs_(std::move(specs)) {}
  std::string name() const override { return name_; }
  std::vector<InstructionSpec> instructions() override { return specs_; }

 private:
  std::string name_;
  std::vector<InstructionSpec> specs_;
};

void no_op(Hart& hart, const DecodedInstruction& d) { hart.pc += d.length; }

TEST(DecoderExtensionTest, RejectsEncodingsThatOverlapTheBaseIsa) {
  Decoder decoder;
  // A custom-1 instruction plus one that collides with addi (opcode 0x13, funct3 0).
  OverlapExtension bad("xbad", {{"cust1", 0x0000707f, 0x0000002b, OperandFormat::kCustom, InstructionClass::kCustom, no_op},
                                {"myaddi", 0x0000707f, 0x00000013, OperandFormat::kCustom, InstructionClass::kCustom, no_op}});
  try {
    decoder.add(bad, bad.instructions());
    FAIL() << "overlap not detected";
  } catch (const std::logic_error& error) {
    std::string message = error.what();
    EXPECT_NE(message.find("xbad"), std::string::npos) << message;
    EXPECT_NE(message.find("myaddi"), std::string::npos) << message;
    EXPECT_NE(message.find("'addi'"), std::string::npos) << message;
  }
  EXPECT_EQ(decoder.mnemonic(0x0000002b), "") << "a rejected extension adds nothing";
  EXPECT_EQ(decoder.mnemonic(addi(a0, a0, 1)), "addi");

  // A wide pattern (any funct3 of the OP opcode) overlaps many base instructions.
  OverlapExtension wide("xwide", {{"wide", 0x0000007f, 0x00000033, OperandFormat::kCustom, InstructionClass::kCustom, no_op}});
  EXPECT_THROW(decoder.add(wide, wide.instructions()), std::logic_error);
  // So does a narrower pattern inside an existing one (fence ignores its fm/pred/succ bits).
  OverlapExtension narrow("xnarrow", {{"fence2", 0xffffffff, 0x8330000f, OperandFormat::kNone, InstructionClass::kFence, no_op}});
  EXPECT_THROW(decoder.add(narrow, narrow.instructions()), std::logic_error);
}

TEST(DecoderExtensionTest, RejectsOverlapBetweenExtensionsAndAcceptsDisjointOnes) {
  Decoder decoder;
  OverlapExtension first("xfirst", {{"first", 0x0000707f, 0x0000000b, OperandFormat::kCustom, InstructionClass::kCustom, no_op}});
  OverlapExtension second("xsecond", {{"second", 0x0000707f, 0x0000100b, OperandFormat::kCustom, InstructionClass::kCustom, no_op}});
  OverlapExtension clash("xclash", {{"clash", 0x0000007f, 0x0000000b, OperandFormat::kCustom, InstructionClass::kCustom, no_op}});
  decoder.add(first, first.instructions());
  decoder.add(second, second.instructions());
  EXPECT_EQ(decoder.mnemonic(0x0000000b), "first");
  EXPECT_EQ(decoder.mnemonic(0x0000100b), "second");
  EXPECT_EQ(decoder.mnemonic(0x0000200b), "");
  EXPECT_THROW(decoder.add(clash, clash.instructions()), std::logic_error);
  EXPECT_EQ(decoder.mnemonic(0x0000200b), "");

  DecodedInstruction d{};
  ASSERT_TRUE(decoder.decode(0x0000100b, d));
  EXPECT_EQ(d.spec->owner, &second) << "the owner identifies the extension's state";
}

TEST(DecoderExtensionTest, HartRejectsAnOverlappingExtensionAndStaysUsable) {
  FakeBus bus;
  Hart hart(0, bus);
  std::uint64_t misa = hart.misa();
  OverlapExtension bad("xbad", {{"myadd", 0xfe00707f, 0x00000033, OperandFormat::kR, InstructionClass::kAlu, no_op}});
  EXPECT_THROW(hart.add_extension(bad), std::logic_error);
  EXPECT_EQ(hart.misa(), misa);
  EXPECT_EQ(hart.decoder().mnemonic(add(a0, a1, a2)), "add");
}

}  // namespace
}  // namespace npuvp
