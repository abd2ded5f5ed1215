// The Xdavinci ISA declaration (models/npu/xdavinci_isa.{h,cpp}) and its
// plug-in (XdavinciExtension): the op table is complete and ordered,
// encodings overlap neither each other nor the base ISA, configuration-field
// layouts are consistent, the decoder and disassembler handle every op, the
// hart hands operands to the backend, and the generated artefacts (the
// kernels' intrinsics header, the doc tables) cover everything.
#include "unit/hart_test_support.h"

#include "npu/xdavinci_extension.h"
#include "npu/xdavinci_isa.h"

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace npuvp {
namespace {

using namespace xdavinci;
using namespace hart_test;

// Records what the hart hands over.
class RecordingBackend : public XdavinciBackend {
 public:
  struct Issue {
    Op op;
    std::uint64_t registers[4];
    std::uint64_t pc;  // hart pc when issued
  };
  void issue(Hart& hart, Op op, const std::uint64_t registers[4]) override {
    Issue record{op, {registers[0], registers[1], registers[2], registers[3]}, hart.pc};
    issued.push_back(record);
  }
  bool read_special(std::uint16_t csr, std::uint64_t& value) override {
    reads.push_back(csr);
    if (csr < kCsrCoreId || csr > kCsrStatus) return false;
    value = 0x1000 + csr;
    return true;
  }
  std::vector<Issue> issued;
  std::vector<std::uint16_t> reads;
};

// A decoder with the base ISA and Xdavinci.
struct XdavinciDecoder {
  RecordingBackend backend;
  XdavinciExtension extension{backend};
  Decoder decoder;
  XdavinciDecoder() { decoder.add(extension, extension.instructions()); }
};

bool overlap(std::uint32_t mask_a, std::uint32_t match_a, std::uint32_t mask_b, std::uint32_t match_b) {
  return ((match_a ^ match_b) & mask_a & mask_b) == 0;
}

// An encoding of `spec` with register fields rd, rs1, rs2, rs3 (kData),
// rs1/rs2 (kSpecial) or the 12-bit immediate (kSync).
std::uint32_t encode(const OpSpec& spec, unsigned rd, unsigned rs1, unsigned rs2, unsigned rs3) {
  return encoding_match(spec) | rd << 7 | rs1 << 15 | rs2 << 20 | rs3 << 27;
}
std::uint32_t encode_sync(const OpSpec& spec, unsigned imm) { return encoding_match(spec) | (imm & 0xfff) << 20; }
unsigned sync_imm(Pipe src, Pipe dst, unsigned event) {
  return static_cast<unsigned>(src) | static_cast<unsigned>(dst) << 3 | event << 6;
}

const RegisterLayout* find_layout(const char* name) {
  for (const auto& layout : register_layouts())
    if (std::string(layout.name) == name) return &layout;
  return nullptr;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string hex(std::uint64_t value) {
  std::ostringstream text;
  text << "0x" << std::hex << value;
  return text.str();
}

// ---------------------------------------------------------------- op table

TEST(XdavinciIsa, OpTableIsCompleteAndOrdered) {
  const auto& specs = op_specs();
  ASSERT_EQ(specs.size(), static_cast<std::size_t>(Op::kCount));
  std::set<std::string> mnemonics, intrinsics;
  for (unsigned i = 0; i < specs.size(); ++i) {
    const OpSpec& spec = specs[i];
    SCOPED_TRACE(spec.mnemonic ? spec.mnemonic : "(null)");
    EXPECT_EQ(static_cast<unsigned>(spec.op), i) << "op_specs() is indexed by Op";
    EXPECT_EQ(&spec_of(spec.op), &spec);
    ASSERT_NE(spec.mnemonic, nullptr);
    ASSERT_NE(spec.intrinsic, nullptr);
    ASSERT_NE(spec.doc, nullptr);
    EXPECT_EQ(std::string(spec.mnemonic).rfind("xd.", 0), 0u);
    EXPECT_TRUE(mnemonics.insert(spec.mnemonic).second) << "duplicate mnemonic";
    EXPECT_TRUE(intrinsics.insert(spec.intrinsic).second) << "duplicate intrinsic";
    EXPECT_LT(spec.funct3, 8);
    EXPECT_LT(spec.funct2, 4);
    switch (spec.form) {
      case Form::kData:
        EXPECT_TRUE(spec.opcode == kOpcodeData || spec.opcode == kOpcodeVector);
        EXPECT_NE(spec.pipe, Pipe::kS) << "data instructions execute on a pipe";
        EXPECT_NE(spec.pipe, Pipe::kAll);
        EXPECT_EQ(spec.opcode == kOpcodeVector, spec.pipe == Pipe::kV) << "custom-1 holds the Vector pipe";
        EXPECT_NE(spec.roles.xd, nullptr) << "[Xd] is always an operand";
        EXPECT_NE(spec.xt_layout, nullptr) << "Xt always has a layout";
        break;
      case Form::kSync:
      case Form::kSpecial:
        EXPECT_EQ(spec.opcode, kOpcodeSync);
        EXPECT_EQ(spec.pipe, Pipe::kS);
        EXPECT_EQ(spec.funct2, 0);
        break;
    }
    if (spec.xt_layout) {
      EXPECT_NE(find_layout(spec.xt_layout), nullptr) << "no layout " << spec.xt_layout;
    }
    if (spec.xm_layout) {
      EXPECT_NE(find_layout(spec.xm_layout), nullptr) << "no layout " << spec.xm_layout;
    }
  }
  // The pipes of the reference: MTE2 brings data in, MTE3 takes it out, MTE1 feeds the Cube.
  EXPECT_EQ(spec_of(Op::kCopyGmToCbuf).pipe, Pipe::kMte2);
  EXPECT_EQ(spec_of(Op::kCopyGmToUbuf).pipe, Pipe::kMte2);
  EXPECT_EQ(spec_of(Op::kCopyGmToCbufNd2nz).pipe, Pipe::kMte2);
  EXPECT_EQ(spec_of(Op::kCopyUbufToGm).pipe, Pipe::kMte3);
  EXPECT_EQ(spec_of(Op::kCopyUbufToCbuf).pipe, Pipe::kMte3);
  EXPECT_EQ(spec_of(Op::kLoadCbufToCa).pipe, Pipe::kMte1);
  EXPECT_EQ(spec_of(Op::kLoadCbufToCb).pipe, Pipe::kMte1);
  EXPECT_EQ(spec_of(Op::kImg2colCbufToCa).pipe, Pipe::kMte1);
  EXPECT_EQ(spec_of(Op::kMmad).pipe, Pipe::kM);
  EXPECT_EQ(spec_of(Op::kCopyMatrixCcToUbuf).pipe, Pipe::kV);
  EXPECT_EQ(spec_of(Op::kSetFlag).form, Form::kSync);
  EXPECT_EQ(spec_of(Op::kWaitFlag).form, Form::kSync);
  EXPECT_EQ(spec_of(Op::kPipeBarrier).form, Form::kSync);
  EXPECT_EQ(spec_of(Op::kEndKernel).form, Form::kSync);
  EXPECT_EQ(spec_of(Op::kSetVectorMask).form, Form::kSpecial);
}

TEST(XdavinciIsa, PipeAndBufferNames) {
  EXPECT_STREQ(pipe_name(Pipe::kS), "PIPE_S");
  EXPECT_STREQ(pipe_name(Pipe::kMte2), "PIPE_MTE2");
  EXPECT_STREQ(pipe_name(Pipe::kAll), "PIPE_ALL");
  std::set<std::string> short_names;
  for (unsigned p = 0; p <= static_cast<unsigned>(Pipe::kAll); ++p)
    EXPECT_TRUE(short_names.insert(pipe_short_name(static_cast<Pipe>(p))).second) << p;
  EXPECT_STREQ(buffer_name(Buffer::kUb), "UB");
  EXPECT_EQ(data_type_size(DataType::kF16), 2u);
  EXPECT_EQ(data_type_size(DataType::kF32), 4u);
  EXPECT_EQ(data_type_size(DataType::kS32), 4u);
  EXPECT_EQ(data_type_size(DataType::kS8), 1u);
}

// ---------------------------------------------------------------- encodings

TEST(XdavinciIsa, EncodingsUseTheCustomOpcodesWithFixedFunctFields) {
  for (const auto& spec : op_specs()) {
    SCOPED_TRACE(spec.mnemonic);
    std::uint32_t mask = encoding_mask(spec), match = encoding_match(spec);
    EXPECT_EQ(match & ~mask, 0u) << "match has bits outside the mask";
    EXPECT_EQ(mask & 0x7f, 0x7fu) << "the major opcode is fixed";
    EXPECT_EQ(mask & 0x7000, 0x7000u) << "funct3 is fixed";
    EXPECT_EQ(match & 0x7f, spec.opcode);
    EXPECT_EQ((match >> 12) & 7, spec.funct3);
    // RISC-V custom-0 / custom-1 / custom-2 major opcodes only.
    EXPECT_TRUE(spec.opcode == 0x0b || spec.opcode == 0x2b || spec.opcode == 0x5b) << hex(spec.opcode);
    if (spec.form == Form::kData) {
      EXPECT_EQ(mask, 0x0600707fu) << "R4: opcode, funct3 and funct2; all register fields free";
      EXPECT_EQ((match >> 25) & 3, spec.funct2);
    } else {
      EXPECT_EQ(mask, 0x0000707fu) << "sync / special: opcode and funct3";
    }
  }
}

TEST(XdavinciIsa, EncodingsDoNotOverlapEachOther) {
  const auto& specs = op_specs();
  for (std::size_t i = 0; i < specs.size(); ++i)
    for (std::size_t j = i + 1; j < specs.size(); ++j)
      EXPECT_FALSE(overlap(encoding_mask(specs[i]), encoding_match(specs[i]), encoding_mask(specs[j]),
                           encoding_match(specs[j])))
          << specs[i].mnemonic << " and " << specs[j].mnemonic;
}

TEST(XdavinciIsa, EncodingsDoNotOverlapTheBaseIsa) {
  for (const auto& spec : op_specs())
    for (const auto& base : Decoder::base_instructions())
      EXPECT_FALSE(overlap(encoding_mask(spec), encoding_match(spec), base.mask, base.match))
          << spec.mnemonic << " overlaps " << base.mnemonic;
  // The decoder's own check agrees: adding the extension is accepted...
  RecordingBackend backend;
  XdavinciExtension extension(backend);
  Decoder decoder;
  EXPECT_NO_THROW(decoder.add(extension, extension.instructions()));
  // ...and adding it a second time is rejected (the check is live).
  XdavinciExtension twin(backend);
  EXPECT_THROW(decoder.add(twin, twin.instructions()), std::logic_error);
  // Base instructions still decode as before.
  EXPECT_EQ(decoder.disassemble(rv::addi(rv::a0, rv::a1, -1), 0x1000), "addi a0, a1, -1");
  EXPECT_EQ(decoder.mnemonic(rv::csrr(rv::a0, kCsrCoreId)), "csrrs");
}

TEST(XdavinciIsa, ExtensionInstructionSpecsMirrorTheTable) {
  RecordingBackend backend;
  XdavinciExtension extension(backend);
  auto specs = extension.instructions();
  ASSERT_EQ(specs.size(), op_specs().size());
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const OpSpec& op = op_specs()[i];
    SCOPED_TRACE(op.mnemonic);
    EXPECT_STREQ(specs[i].mnemonic, op.mnemonic);
    EXPECT_EQ(specs[i].mask, encoding_mask(op));
    EXPECT_EQ(specs[i].match, encoding_match(op));
    EXPECT_EQ(specs[i].format, OperandFormat::kCustom);
    EXPECT_EQ(specs[i].flags, static_cast<std::uint32_t>(op.op));
    EXPECT_NE(specs[i].execute, nullptr);
  }
  EXPECT_EQ(extension.name(), "Xdavinci");
  EXPECT_EQ(extension.misa_letter(), 'X');
}

TEST(XdavinciIsa, UnassignedCustomEncodingsStayIllegal) {
  XdavinciDecoder x;
  std::set<std::uint32_t> used;
  for (const auto& spec : op_specs()) used.insert(encoding_match(spec));
  DecodedInstruction decoded{};
  // Data opcodes: every (funct3, funct2) not in the table is illegal.
  for (std::uint32_t opcode : {0x0bu, 0x2bu})
    for (std::uint32_t funct3 = 0; funct3 < 8; ++funct3)
      for (std::uint32_t funct2 = 0; funct2 < 4; ++funct2) {
        std::uint32_t raw = opcode | funct3 << 12 | funct2 << 25;
        EXPECT_EQ(x.decoder.decode(raw | (0x5a5a5a5a & 0xf9ff8f80), decoded), used.count(raw) == 1)
            << hex(opcode) << " funct3 " << funct3 << " funct2 " << funct2;
      }
  for (std::uint32_t funct3 = 0; funct3 < 8; ++funct3) {
    std::uint32_t raw = 0x5b | funct3 << 12;
    EXPECT_EQ(x.decoder.decode(raw, decoded), used.count(raw) == 1) << "custom-2 funct3 " << funct3;
  }
  // custom-3 (0x7b) is not used.
  EXPECT_FALSE(x.decoder.decode(0x0000007b, decoded));
}

// ---------------------------------------------------------------- field layouts

TEST(XdavinciIsa, FieldLayoutsFitAndDoNotOverlap) {
  std::set<std::string> names;
  for (const auto& layout : register_layouts()) {
    SCOPED_TRACE(layout.name);
    EXPECT_TRUE(names.insert(layout.name).second) << "duplicate layout";
    ASSERT_FALSE(layout.fields.empty());
    std::uint64_t used = 0;
    std::set<std::string> fields;
    for (const Field& field : layout.fields) {
      SCOPED_TRACE(field.name);
      EXPECT_TRUE(fields.insert(field.name).second) << "duplicate field";
      ASSERT_GE(field.width, 1u);
      ASSERT_LE(field.lsb + field.width, 64u) << "field beyond bit 63";
      std::uint64_t bits = field.max() << field.lsb;
      EXPECT_EQ(used & bits, 0u) << "overlaps an earlier field";
      used |= bits;
      // get() extracts exactly the field.
      EXPECT_EQ(field.get(~0ull), field.max());
      EXPECT_EQ(field.get(~bits), 0u);
      EXPECT_EQ(field.get(bits), field.max());
      EXPECT_NE(field.doc, nullptr);
    }
  }
  // The sync immediate is 12 bits (I-type), and its fields are what XD_SYNC_IMM packs.
  const RegisterLayout* sync_layout = find_layout("sync");
  ASSERT_NE(sync_layout, nullptr);
  for (const Field& field : sync_layout->fields) EXPECT_LE(field.lsb + field.width, 12u) << field.name;
  EXPECT_EQ(sync::src_pipe.get(sync_imm(Pipe::kMte2, Pipe::kV, 5)), 4u);
  EXPECT_EQ(sync::dst_pipe.get(sync_imm(Pipe::kMte2, Pipe::kV, 5)), 1u);
  EXPECT_EQ(sync::event.get(sync_imm(Pipe::kMte2, Pipe::kV, 5)), 5u);
  EXPECT_GE(sync::event.max() + 1, kEventIds) << "every event id fits";
  EXPECT_GE(sync::src_pipe.max(), static_cast<unsigned>(Pipe::kAll));
  // Documented ranges fit their fields.
  EXPECT_GE(vector::repeat.max(), 255u);
  EXPECT_GE(burst::n_burst.max(), 4095u);
  EXPECT_GE(burst::burst_len.max(), 65535u);
  EXPECT_GE(mmad::m.max(), 4095u);
}

TEST(XdavinciIsa, SpecialRegistersAreReadOnlyCustomCsrs) {
  std::set<std::uint16_t> csrs;
  for (const auto& reg : special_registers()) {
    SCOPED_TRACE(reg.name);
    EXPECT_TRUE(csrs.insert(reg.csr).second) << "duplicate CSR";
    EXPECT_GE(reg.csr, 0xfc0) << "custom read-only machine CSR range 0xfc0-0xfff";
    EXPECT_LE(reg.csr, 0xfff);
  }
  EXPECT_EQ(csrs.count(kCsrCoreId) + csrs.count(kCsrBlockIdx) + csrs.count(kCsrBlockDim) + csrs.count(kCsrStatus),
            4u);
}

// ---------------------------------------------------------------- disassembly

TEST(XdavinciIsa, DisassemblesDataInstructions) {
  XdavinciDecoder x;
  using namespace rv;
  std::uint32_t vadd = encode(spec_of(Op::kVadd), a0, a1, a2, a3);
  EXPECT_EQ(vadd, 0x68c5852bu) << "docs/isa-xdavinci.md: .insn r4 0x2b, 0, 0, a0, a1, a2, a3";
  EXPECT_EQ(x.decoder.disassemble(vadd, 0x1000), "xd.vadd a0, a1, a2, a3");
  EXPECT_EQ(x.decoder.disassemble(encode(spec_of(Op::kMmad), t0, s1, a7, t6), 0x1000), "xd.mmad t0, s1, a7, t6");
  EXPECT_EQ(x.decoder.disassemble(encode(spec_of(Op::kCopyGmToUbuf), zero, sp, ra, s11), 0x1000),
            "xd.copy_gm_to_ubuf zero, sp, ra, s11");
}

TEST(XdavinciIsa, DisassemblesSyncAndSpecialInstructions) {
  XdavinciDecoder x;
  std::uint32_t set = encode_sync(spec_of(Op::kSetFlag), sync_imm(Pipe::kMte2, Pipe::kV, 0));
  EXPECT_EQ(set, 0x00c0005bu) << "docs/isa-xdavinci.md: set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)";
  EXPECT_EQ(x.decoder.disassemble(set, 0), "xd.set_flag PIPE_MTE2, PIPE_V, EVENT_ID0");
  EXPECT_EQ(x.decoder.disassemble(encode_sync(spec_of(Op::kWaitFlag), sync_imm(Pipe::kV, Pipe::kMte3, 7)), 0),
            "xd.wait_flag PIPE_V, PIPE_MTE3, EVENT_ID7");
  EXPECT_EQ(x.decoder.disassemble(encode_sync(spec_of(Op::kWaitFlag), sync_imm(Pipe::kMte2, Pipe::kS, 3)), 0),
            "xd.wait_flag PIPE_MTE2, PIPE_S, EVENT_ID3");
  EXPECT_EQ(x.decoder.disassemble(encode_sync(spec_of(Op::kPipeBarrier), sync_imm(Pipe::kAll, Pipe::kS, 0)), 0),
            "xd.pipe_barrier PIPE_ALL");
  EXPECT_EQ(x.decoder.disassemble(encode_sync(spec_of(Op::kPipeBarrier), sync_imm(Pipe::kV, Pipe::kS, 0)), 0),
            "xd.pipe_barrier PIPE_V");
  EXPECT_EQ(encode_sync(spec_of(Op::kEndKernel), 0), 0x0000305bu) << "docs/isa-xdavinci.md: end_kernel";
  EXPECT_EQ(x.decoder.disassemble(0x0000305b, 0), "xd.end_kernel");
  EXPECT_EQ(x.decoder.disassemble(encode(spec_of(Op::kSetVectorMask), 0, rv::a0, rv::a1, 0), 0),
            "xd.set_vector_mask a0, a1");
  EXPECT_EQ(x.decoder.disassemble(encode(spec_of(Op::kSetCmpmask), 0, rv::t2, 0, 0), 0),
            "xd.set_cmpmask t2, zero");
}

TEST(XdavinciIsa, EveryOpDecodesToItself) {
  XdavinciDecoder x;
  for (const auto& spec : op_specs()) {
    SCOPED_TRACE(spec.mnemonic);
    // Arbitrary register / immediate fields must not change the decoded op.
    for (std::uint32_t fields : {0u, 0xffffffffu, 0x5a5a5a5au, 0xa5a5a5a5u}) {
      std::uint32_t raw = encoding_match(spec) | (fields & ~encoding_mask(spec));
      DecodedInstruction decoded{};
      ASSERT_TRUE(x.decoder.decode(raw, decoded)) << hex(raw);
      ASSERT_NE(decoded.spec, nullptr);
      EXPECT_STREQ(decoded.spec->mnemonic, spec.mnemonic);
      EXPECT_EQ(decoded.spec->owner, &x.extension);
      EXPECT_EQ(decoded.length, 4);
      EXPECT_EQ(x.decoder.mnemonic(raw), spec.mnemonic);
    }
  }
}

// ---------------------------------------------------------------- on a hart

class XdavinciHartTest : public HartTest {
 protected:
  XdavinciHartTest() { hart.add_extension(extension); }
  RecordingBackend backend;
  XdavinciExtension extension{backend};
};

TEST_F(XdavinciHartTest, DataInstructionHandsAllFourRegistersToTheBackend) {
  using namespace rv;
  hart.x[a0] = 0x100;
  hart.x[a1] = 0x200;
  hart.x[a2] = 0x300;
  hart.x[a3] = 0xdead'beef'0000'0004ull;
  std::uint64_t at = exec({encode(spec_of(Op::kVadd), a0, a1, a2, a3)});
  ASSERT_EQ(backend.issued.size(), 1u);
  const auto& issue = backend.issued[0];
  EXPECT_EQ(issue.op, Op::kVadd);
  EXPECT_EQ(issue.registers[0], 0x100u);
  EXPECT_EQ(issue.registers[1], 0x200u);
  EXPECT_EQ(issue.registers[2], 0x300u);
  EXPECT_EQ(issue.registers[3], 0xdead'beef'0000'0004ull);
  EXPECT_EQ(issue.pc, at + 4) << "pc moves past the instruction before the backend is called";
  EXPECT_EQ(hart.pc, at + 4);
  EXPECT_EQ(hart.x[a0], 0x100u) << "[Xd] is a source: not written";
}

TEST_F(XdavinciHartTest, SyncInstructionPassesItsImmediate) {
  unsigned imm = sync_imm(Pipe::kMte3, Pipe::kV, 6);
  exec({encode_sync(spec_of(Op::kWaitFlag), imm), encode_sync(spec_of(Op::kEndKernel), 0)});
  ASSERT_EQ(backend.issued.size(), 2u);
  EXPECT_EQ(backend.issued[0].op, Op::kWaitFlag);
  EXPECT_EQ(backend.issued[0].registers[3], imm);
  EXPECT_EQ(backend.issued[1].op, Op::kEndKernel);
}

TEST_F(XdavinciHartTest, SpecialInstructionPassesRs1AndRs2) {
  using namespace rv;
  hart.x[a4] = 0x1234;
  hart.x[a5] = 0x5678;
  exec({encode(spec_of(Op::kSetVectorMask), 0, a4, a5, 0)});
  ASSERT_EQ(backend.issued.size(), 1u);
  EXPECT_EQ(backend.issued[0].op, Op::kSetVectorMask);
  EXPECT_EQ(backend.issued[0].registers[1], 0x1234u);
  EXPECT_EQ(backend.issued[0].registers[2], 0x5678u);
}

TEST_F(XdavinciHartTest, SpecialRegistersAreReadThroughTheBackendAndCannotBeWritten) {
  using namespace rv;
  exec({csrr(a0, kCsrCoreId), csrr(a1, kCsrBlockIdx), csrr(a2, kCsrBlockDim), csrr(a3, kCsrStatus)});
  EXPECT_EQ(hart.x[a0], 0x1000u + kCsrCoreId);
  EXPECT_EQ(hart.x[a1], 0x1000u + kCsrBlockIdx);
  EXPECT_EQ(hart.x[a2], 0x1000u + kCsrBlockDim);
  EXPECT_EQ(hart.x[a3], 0x1000u + kCsrStatus);
  std::uint64_t at = exec({csrw(kCsrBlockIdx, a0)});
  EXPECT_EQ(hart.mcause(), static_cast<std::uint64_t>(TrapCause::kIllegalInstruction));
  EXPECT_EQ(hart.pc, kTrapVector);
  EXPECT_EQ(csr(kMepc), at);
}

TEST(XdavinciIsa, WithoutTheExtensionCustomOpcodesAreIllegal) {
  Decoder decoder;
  DecodedInstruction decoded{};
  EXPECT_FALSE(decoder.decode(encode(spec_of(Op::kVadd), 10, 11, 12, 13), decoded));
  EXPECT_FALSE(decoder.decode(encode_sync(spec_of(Op::kSetFlag), 12), decoded));
}

// ---------------------------------------------------------------- generated artefacts

TEST(XdavinciIsa, GeneratedHeaderHasEveryIntrinsicPackerAndSpecialRegister) {
  const std::string header = intrinsics_header();
  for (const auto& spec : op_specs()) {
    SCOPED_TRACE(spec.mnemonic);
    std::string name = std::string("__xd_") + spec.intrinsic;
    switch (spec.form) {
      case Form::kData: {
        EXPECT_NE(header.find("static inline void " + name + "(uint64_t xd, uint64_t xn, uint64_t xm, uint64_t xt)"),
                  std::string::npos);
        std::string insn = ".insn r4 " + hex(spec.opcode) + ", " + std::to_string(spec.funct3) + ", " +
                           std::to_string(spec.funct2) + ", %0, %1, %2, %3";
        EXPECT_NE(header.find(insn), std::string::npos) << insn;
        break;
      }
      case Form::kSync:
        EXPECT_NE(header.find("#define " + name + "("), std::string::npos);
        EXPECT_NE(header.find(".insn i " + hex(spec.opcode) + ", " + std::to_string(spec.funct3) + ", x0, x0, "),
                  std::string::npos);
        break;
      case Form::kSpecial:
        EXPECT_NE(header.find("static inline void " + name + "(uint64_t rs1, uint64_t rs2)"), std::string::npos);
        EXPECT_NE(header.find(".insn r " + hex(spec.opcode) + ", " + std::to_string(spec.funct3) + ", 0, x0, %0, %1"),
                  std::string::npos);
        break;
    }
  }
  for (const auto& layout : register_layouts()) {
    SCOPED_TRACE(layout.name);
    std::string signature = std::string("static inline uint64_t xd_pack_") + layout.name + "(";
    for (std::size_t i = 0; i < layout.fields.size(); ++i)
      signature += std::string(i ? ", " : "") + "uint64_t " + layout.fields[i].name;
    EXPECT_NE(header.find(signature + ")"), std::string::npos) << signature;
    for (const Field& field : layout.fields) {
      std::string term = std::string("((") + field.name + " & " + hex(field.max()) + "ull) << " +
                         std::to_string(field.lsb) + ")";
      EXPECT_NE(header.find(term), std::string::npos) << term;
    }
  }
  for (const auto& reg : special_registers())
    EXPECT_NE(header.find(std::string("get_") + reg.name + "(void)"), std::string::npos) << reg.name;
  EXPECT_NE(
      header.find("PIPE_S = 0, PIPE_V = 1, PIPE_M = 2, PIPE_MTE1 = 3, PIPE_MTE2 = 4, PIPE_MTE3 = 5, PIPE_ALL = 6"),
      std::string::npos);
  EXPECT_NE(header.find("EVENT_ID7 = 7"), std::string::npos);
}

TEST(XdavinciIsa, KernelApiUsesOnlyGeneratedIntrinsics) {
  const std::string api = read_file(std::string(NPUVP_SOURCE_DIR) + "/sw/include/npuvp/davinci.h");
  ASSERT_FALSE(api.empty()) << "cannot read sw/include/npuvp/davinci.h";
  const std::string header = intrinsics_header();
  std::set<std::string> used;
  std::regex call(R"(__xd_([a-z0-9_]+)|\b(xd_pack_[a-z0-9_]+)|\b(get_[a-z_]+)\()");
  for (auto it = std::sregex_iterator(api.begin(), api.end(), call); it != std::sregex_iterator(); ++it) {
    std::string name = (*it)[1].matched ? "__xd_" + (*it)[1].str() : (*it)[2].matched ? (*it)[2].str() : (*it)[3].str();
    used.insert(name);
  }
  EXPECT_GT(used.size(), 20u);
  for (const auto& name : used) EXPECT_NE(header.find(name), std::string::npos) << name << " is not generated";
  // Every data op has a friendly wrapper in davinci.h (by intrinsic name).
  for (const auto& spec : op_specs())
    EXPECT_NE(api.find(spec.intrinsic), std::string::npos) << spec.intrinsic << " has no C API";
}

TEST(XdavinciIsa, MarkdownTablesListEveryOpLayoutAndSpecialRegister) {
  const std::string tables = markdown_tables();
  for (const auto& spec : op_specs()) {
    std::string row = std::string("| `") + spec.mnemonic + "` | `" + spec.intrinsic + "` | " + pipe_name(spec.pipe) +
                      " | " + hex(spec.opcode) + " | " + std::to_string(spec.funct3) + " | ";
    EXPECT_NE(tables.find(row), std::string::npos) << row;
  }
  for (const auto& layout : register_layouts()) {
    EXPECT_NE(tables.find(std::string("#### `") + layout.name + "`"), std::string::npos) << layout.name;
    for (const Field& field : layout.fields) {
      std::string row = std::string("| `") + field.name + "` | " + std::to_string(field.lsb + field.width - 1) + ":" +
                        std::to_string(field.lsb) + " | ";
      EXPECT_NE(tables.find(row), std::string::npos) << layout.name << "." << field.name;
    }
  }
  for (const auto& reg : special_registers())
    EXPECT_NE(tables.find(std::string("| `") + reg.name + "` | " + hex(reg.csr)), std::string::npos) << reg.name;
  // Exactly one table row per op.
  std::size_t rows = 0;
  for (std::size_t at = tables.find("| `xd."); at != std::string::npos; at = tables.find("| `xd.", at + 1)) ++rows;
  EXPECT_EQ(rows, op_specs().size());
}

TEST(XdavinciIsa, IsaDocumentCarriesTheGeneratedTables) {
  const std::string doc = read_file(std::string(NPUVP_SOURCE_DIR) + "/docs/isa-xdavinci.md");
  ASSERT_FALSE(doc.empty()) << "docs/isa-xdavinci.md is missing";
  EXPECT_NE(doc.find(markdown_tables()), std::string::npos)
      << "docs/isa-xdavinci.md does not contain the current tables: regenerate them with "
         "`npuvp-xdavinci-gen --markdown`";
}

}  // namespace
}  // namespace npuvp
