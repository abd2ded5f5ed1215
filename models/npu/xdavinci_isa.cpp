#include "npu/xdavinci_isa.h"

#include <sstream>
#include <stdexcept>

namespace npuvp::xdavinci {

const char* pipe_name(Pipe pipe) {
  switch (pipe) {
    case Pipe::kS: return "PIPE_S";
    case Pipe::kV: return "PIPE_V";
    case Pipe::kM: return "PIPE_M";
    case Pipe::kMte1: return "PIPE_MTE1";
    case Pipe::kMte2: return "PIPE_MTE2";
    case Pipe::kMte3: return "PIPE_MTE3";
    case Pipe::kAll: return "PIPE_ALL";
  }
  return "PIPE_?";
}

const char* pipe_short_name(Pipe pipe) {
  switch (pipe) {
    case Pipe::kS: return "scalar";
    case Pipe::kV: return "vector";
    case Pipe::kM: return "cube";
    case Pipe::kMte1: return "mte1";
    case Pipe::kMte2: return "mte2";
    case Pipe::kMte3: return "mte3";
    case Pipe::kAll: return "all";
  }
  return "?";
}

const char* buffer_name(Buffer buffer) {
  switch (buffer) {
    case Buffer::kGm: return "GM";
    case Buffer::kL1: return "L1";
    case Buffer::kL0A: return "L0A";
    case Buffer::kL0B: return "L0B";
    case Buffer::kL0C: return "L0C";
    case Buffer::kUb: return "UB";
  }
  return "?";
}

unsigned data_type_size(DataType type) {
  switch (type) {
    case DataType::kF16: return 2;
    case DataType::kF32: return 4;
    case DataType::kS32: return 4;
    case DataType::kS8: return 1;
  }
  return 0;
}

const char* data_type_name(DataType type) {
  switch (type) {
    case DataType::kF16: return "f16";
    case DataType::kF32: return "f32";
    case DataType::kS32: return "s32";
    case DataType::kS8: return "s8";
  }
  return "?";
}

const std::vector<RegisterLayout>& register_layouts() {
  static const std::vector<RegisterLayout> layouts = {
      {"burst", "Xt of copies: burst descriptor (32-byte blocks)",
       {burst::n_burst, burst::burst_len, burst::src_gap, burst::dst_gap}},
      {"gm_side", "Xm of GM copies: byte-exact global-memory side", {gm_side::pitch, gm_side::valid}},
      {"nd2nz", "Xm of copy_gm_to_cbuf_nd2nz: the row-major source matrix", {nd2nz::rows, nd2nz::cols, nd2nz::pitch}},
      {"nd2nz_config", "Xt of copy_gm_to_cbuf_nd2nz", {nd2nz_config::type, nd2nz_config::dst_rows}},
      {"load2d", "Xt of load_cbuf_to_ca / load_cbuf_to_cb (512-byte fractals)",
       {load2d::repeat, load2d::src_stride, load2d::dst_gap, load2d::transpose}},
      {"fmatrix", "operand of set_fmatrix: the feature map img2col reads",
       {fmatrix::width, fmatrix::height, fmatrix::pad_left, fmatrix::pad_right, fmatrix::pad_top,
        fmatrix::pad_bottom}},
      {"img2col_window", "Xm of img2col_cbuf_to_ca: the convolution window",
       {img2col_window::stride_w, img2col_window::stride_h, img2col_window::kernel_w, img2col_window::kernel_h,
        img2col_window::dilation_w, img2col_window::dilation_h, img2col_window::channels1}},
      {"img2col_position", "Xt of img2col_cbuf_to_ca: the part of the im2col matrix produced",
       {img2col_position::m_start, img2col_position::k_start, img2col_position::m_fractals,
        img2col_position::k_fractals}},
      {"mmad", "Xt of mmad", {mmad::m, mmad::k, mmad::n, mmad::type, mmad::init, mmad::bias, mmad::bias_block}},
      {"cc_to_ub", "Xt of copy_matrix_cc_to_ubuf (units: fractals)",
       {cc_to_ub::n_burst, cc_to_ub::burst_len, cc_to_ub::src_gap, cc_to_ub::dst_gap, cc_to_ub::mode,
        cc_to_ub::relu}},
      {"vector", "Xt of vector instructions: repeat parameters (blocks of 32 bytes)",
       {vector::repeat, vector::dst_block_stride, vector::src0_block_stride, vector::src1_block_stride,
        vector::dst_repeat_stride, vector::src0_repeat_stride, vector::src1_repeat_stride, vector::type,
        vector::compare}},
      {"convert", "Xm of vconv", {convert::kind, convert::round}},
      {"sync", "immediate of set_flag / wait_flag / pipe_barrier", {sync::src_pipe, sync::dst_pipe, sync::event}},
  };
  return layouts;
}

namespace {
constexpr Pipe S = Pipe::kS, V = Pipe::kV, M = Pipe::kM, MTE1 = Pipe::kMte1, MTE2 = Pipe::kMte2,
               MTE3 = Pipe::kMte3;
constexpr std::uint8_t D = kOpcodeData, VO = kOpcodeVector, SY = kOpcodeSync;

// Operand roles shared by families of instructions.
constexpr OperandRoles kBinary{"dst (UB)", "src0 (UB)", "src1 (UB)", "vector"};
constexpr OperandRoles kUnary{"dst (UB)", "src (UB)", nullptr, "vector"};
constexpr OperandRoles kWithScalar{"dst (UB)", "src (UB)", "scalar (bits of the element)", "vector"};
constexpr OperandRoles kNone{nullptr, nullptr, nullptr, nullptr};
}  // namespace

const std::vector<OpSpec>& op_specs() {
  static const std::vector<OpSpec> specs = [] {
    std::vector<OpSpec> s = {
        {Op::kCopyGmToCbuf, "xd.copy_gm_to_cbuf", "copy_gm_to_cbuf", MTE2, Form::kData, D, 0, 0,
         {"dst (L1)", "src (GM address)", "gm_side", "burst"}, "gm_side", "burst",
         "GM -> L1 in bursts; bytes past `valid` are zero-filled"},
        {Op::kCopyGmToUbuf, "xd.copy_gm_to_ubuf", "copy_gm_to_ubuf", MTE2, Form::kData, D, 0, 1,
         {"dst (UB)", "src (GM address)", "gm_side", "burst"}, "gm_side", "burst",
         "GM -> UB in bursts; bytes past `valid` are zero-filled"},
        {Op::kCopyUbufToGm, "xd.copy_ubuf_to_gm", "copy_ubuf_to_gm", MTE3, Form::kData, D, 0, 2,
         {"dst (GM address)", "src (UB)", "gm_side", "burst"}, "gm_side", "burst",
         "UB -> GM in bursts; only `valid` bytes of each burst are written"},
        {Op::kCopyUbufToCbuf, "xd.copy_ubuf_to_cbuf", "copy_ubuf_to_cbuf", MTE3, Form::kData, D, 0, 3,
         {"dst (L1)", "src (UB)", nullptr, "burst"}, nullptr, "burst",
         "UB -> L1 in bursts (a layer's output becomes the next layer's input)"},
        {Op::kCopyGmToCbufNd2nz, "xd.copy_gm_to_cbuf_nd2nz", "copy_gm_to_cbuf_nd2nz", MTE2, Form::kData, D, 1, 0,
         {"dst (L1)", "src (GM address)", "nd2nz", "nd2nz_config"}, "nd2nz", "nd2nz_config",
         "row-major GM matrix -> L1 \"big-N small-Z\" fractals, zero-padded to whole fractals"},
        {Op::kLoadCbufToCa, "xd.load_cbuf_to_ca", "load_cbuf_to_ca", MTE1, Form::kData, D, 2, 0,
         {"dst (L0A)", "src (L1)", nullptr, "load2d"}, nullptr, "load2d",
         "L1 fractals -> L0A (order them \"big-Z small-Z\" with the strides), optional transpose"},
        {Op::kLoadCbufToCb, "xd.load_cbuf_to_cb", "load_cbuf_to_cb", MTE1, Form::kData, D, 2, 1,
         {"dst (L0B)", "src (L1)", nullptr, "load2d"}, nullptr, "load2d",
         "L1 fractals -> L0B (\"big-Z small-N\": transpose zN fractals), optional transpose"},
        {Op::kImg2colCbufToCa, "xd.img2col_cbuf_to_ca", "img2col_cbuf_to_ca", MTE1, Form::kData, D, 2, 2,
         {"dst (L0A)", "feature map (L1)", "img2col_window", "img2col_position"}, "img2col_window",
         "img2col_position",
         "im2col of the L1 feature map set by set_fmatrix, with padding, stride and dilation, into L0A"},
        {Op::kMmad, "xd.mmad", "mmad", M, Form::kData, D, 3, 0, {"C (L0C)", "A (L0A)", "B (L0B)", "mmad"}, nullptr,
         "mmad", "C = A x B (+ bias) or C += A x B on the Cube, f16 -> f32 or s8 -> s32"},

        {Op::kCopyMatrixCcToUbuf, "xd.copy_matrix_cc_to_ubuf", "copy_matrix_cc_to_ubuf", V, Form::kData, VO, 7, 0,
         {"dst (UB)", "src (L0C)", nullptr, "cc_to_ub"}, nullptr, "cc_to_ub",
         "L0C -> UB through the Vector unit: f32 -> f16 conversion, optional ReLU"},
        {Op::kVadd, "xd.vadd", "vadd", V, Form::kData, VO, 0, 0, kBinary, nullptr, "vector", "dst = src0 + src1"},
        {Op::kVsub, "xd.vsub", "vsub", V, Form::kData, VO, 0, 1, kBinary, nullptr, "vector", "dst = src0 - src1"},
        {Op::kVmul, "xd.vmul", "vmul", V, Form::kData, VO, 0, 2, kBinary, nullptr, "vector", "dst = src0 * src1"},
        {Op::kVdiv, "xd.vdiv", "vdiv", V, Form::kData, VO, 0, 3, kBinary, nullptr, "vector",
         "dst = src0 / src1 (s32: x / 0 = 0)"},
        {Op::kVmax, "xd.vmax", "vmax", V, Form::kData, VO, 1, 0, kBinary, nullptr, "vector", "dst = max(src0, src1)"},
        {Op::kVmin, "xd.vmin", "vmin", V, Form::kData, VO, 1, 1, kBinary, nullptr, "vector", "dst = min(src0, src1)"},
        {Op::kVand, "xd.vand", "vand", V, Form::kData, VO, 1, 2, kBinary, nullptr, "vector", "dst = src0 AND src1 (bitwise)"},
        {Op::kVor, "xd.vor", "vor", V, Form::kData, VO, 1, 3, kBinary, nullptr, "vector", "dst = src0 OR src1 (bitwise)"},
        {Op::kVabs, "xd.vabs", "vabs", V, Form::kData, VO, 2, 0, kUnary, nullptr, "vector", "dst = abs(src)"},
        {Op::kVexp, "xd.vexp", "vexp", V, Form::kData, VO, 2, 1, kUnary, nullptr, "vector", "dst = e^src (f16, f32)"},
        {Op::kVln, "xd.vln", "vln", V, Form::kData, VO, 2, 2, kUnary, nullptr, "vector", "dst = ln(src) (f16, f32)"},
        {Op::kVsqrt, "xd.vsqrt", "vsqrt", V, Form::kData, VO, 2, 3, kUnary, nullptr, "vector",
         "dst = sqrt(src) (f16, f32)"},
        {Op::kVrsqrt, "xd.vrsqrt", "vrsqrt", V, Form::kData, VO, 3, 0, kUnary, nullptr, "vector",
         "dst = 1 / sqrt(src) (f16, f32)"},
        {Op::kVrec, "xd.vrec", "vrec", V, Form::kData, VO, 3, 1, kUnary, nullptr, "vector", "dst = 1 / src (f16, f32)"},
        {Op::kVrelu, "xd.vrelu", "vrelu", V, Form::kData, VO, 3, 2, kUnary, nullptr, "vector", "dst = max(src, 0)"},
        {Op::kVnot, "xd.vnot", "vnot", V, Form::kData, VO, 3, 3, kUnary, nullptr, "vector", "dst = NOT src (bitwise)"},
        {Op::kVadds, "xd.vadds", "vadds", V, Form::kData, VO, 4, 0, kWithScalar, nullptr, "vector",
         "dst = src + scalar"},
        {Op::kVmuls, "xd.vmuls", "vmuls", V, Form::kData, VO, 4, 1, kWithScalar, nullptr, "vector",
         "dst = src * scalar"},
        {Op::kVmaxs, "xd.vmaxs", "vmaxs", V, Form::kData, VO, 4, 2, kWithScalar, nullptr, "vector",
         "dst = max(src, scalar)"},
        {Op::kVmins, "xd.vmins", "vmins", V, Form::kData, VO, 4, 3, kWithScalar, nullptr, "vector",
         "dst = min(src, scalar)"},
        {Op::kVcmp, "xd.vcmp", "vcmp", V, Form::kData, VO, 5, 0, {"lane mask (UB)", "src0 (UB)", "src1 (UB)", "vector"},
         nullptr, "vector", "one bit per lane: src0 <compare> src1; repeat r's bits at dst + r * lanes / 8"},
        {Op::kVsel, "xd.vsel", "vsel", V, Form::kData, VO, 5, 1, kBinary, nullptr, "vector",
         "dst = mask bit ? src0 : src1, bits from the UB mask set by set_cmpmask"},
        {Op::kVconv, "xd.vconv", "vconv", V, Form::kData, VO, 5, 2, {"dst (UB)", "src (UB)", "convert", "vector"},
         "convert", "vector", "type conversion with a rounding mode; float -> integer saturates"},
        {Op::kVdup, "xd.vdup", "vector_dup", V, Form::kData, VO, 5, 3, {"dst (UB)", nullptr, "scalar", "vector"},
         nullptr, "vector", "dst = scalar (broadcast)"},
        {Op::kVcadd, "xd.vcadd", "vcadd", V, Form::kData, VO, 6, 0, kUnary, nullptr, "vector",
         "sum of each repeat's active lanes -> one element per repeat at dst + r * size"},
        {Op::kVcmax, "xd.vcmax", "vcmax", V, Form::kData, VO, 6, 1, kUnary, nullptr, "vector",
         "maximum of each repeat's active lanes -> one element per repeat"},
        {Op::kVcmin, "xd.vcmin", "vcmin", V, Form::kData, VO, 6, 2, kUnary, nullptr, "vector",
         "minimum of each repeat's active lanes -> one element per repeat"},

        {Op::kSetFlag, "xd.set_flag", "set_flag", S, Form::kSync, SY, 0, 0, kNone, nullptr, "sync",
         "queued on src_pipe: when reached, increments flag (src, dst, event)"},
        {Op::kWaitFlag, "xd.wait_flag", "wait_flag", S, Form::kSync, SY, 1, 0, kNone, nullptr, "sync",
         "queued on dst_pipe: blocks only that pipe until the flag is non-zero, then decrements it"},
        {Op::kPipeBarrier, "xd.pipe_barrier", "pipe_barrier", S, Form::kSync, SY, 2, 0, kNone, nullptr, "sync",
         "the scalar unit waits until src_pipe (PIPE_ALL: every pipe) has drained"},
        {Op::kEndKernel, "xd.end_kernel", "end_kernel", S, Form::kSync, SY, 3, 0, kNone, nullptr, nullptr,
         "waits for every pipe to drain, then ends the task block (done interrupt)"},
        {Op::kSetVectorMask, "xd.set_vector_mask", "set_vector_mask", S, Form::kSpecial, SY, 4, 0,
         {nullptr, "lanes 0-63", "lanes 64-127", nullptr}, nullptr, nullptr,
         "vector mask for instructions issued after it (rs1 = low lanes, rs2 = high lanes)"},
        {Op::kSetFmatrix, "xd.set_fmatrix", "set_fmatrix", S, Form::kSpecial, SY, 5, 0,
         {nullptr, "fmatrix", nullptr, nullptr}, nullptr, "fmatrix", "feature map geometry for img2col (rs1)"},
        {Op::kSetCmpmask, "xd.set_cmpmask", "set_cmpmask", S, Form::kSpecial, SY, 6, 0,
         {nullptr, "UB offset", nullptr, nullptr}, nullptr, nullptr, "UB offset of the lane mask vsel reads (rs1)"},
    };
    for (unsigned i = 0; i < s.size(); ++i)
      if (static_cast<unsigned>(s[i].op) != i) throw std::logic_error("xdavinci op table out of order");
    return s;
  }();
  return specs;
}

std::uint32_t encoding_mask(const OpSpec& spec) {
  std::uint32_t mask = 0x707f;  // opcode + funct3
  if (spec.form == Form::kData) mask |= 0x3u << 25;  // funct2
  return mask;
}

std::uint32_t encoding_match(const OpSpec& spec) {
  std::uint32_t match = spec.opcode | static_cast<std::uint32_t>(spec.funct3) << 12;
  if (spec.form == Form::kData) match |= static_cast<std::uint32_t>(spec.funct2) << 25;
  return match;
}

const std::vector<SpecialRegister>& special_registers() {
  static const std::vector<SpecialRegister> registers = {
      {"core_id", kCsrCoreId, "index of this AI Core"},
      {"block_idx", kCsrBlockIdx, "index of the task block being run (0 .. block_dim-1)"},
      {"block_dim", kCsrBlockDim, "number of task blocks of the launch"},
      {"status", kCsrStatus, "AI Core status: bit 0 running, bits 15:8 fault cause of the last kernel"},
  };
  return registers;
}

namespace {
std::string hex_string(std::uint64_t value) {
  std::ostringstream text;
  text << "0x" << std::hex << value;
  return text.str();
}
}  // namespace

std::string intrinsics_header() {
  std::ostringstream h;
  h << "// Generated by `npuvp-xdavinci-gen --header` from models/npu/xdavinci_isa.cpp. Do not edit.\n"
       "// Xdavinci encodings, configuration-register packers and raw intrinsics for\n"
       "// AI Core kernels; sw/include/npuvp/davinci.h builds the friendly API on it.\n"
       "#pragma once\n#include <stdint.h>\n\n";
  h << "enum { PIPE_S = 0, PIPE_V = 1, PIPE_M = 2, PIPE_MTE1 = 3, PIPE_MTE2 = 4, PIPE_MTE3 = 5, PIPE_ALL = 6 };\n";
  h << "enum {";
  for (unsigned i = 0; i < kEventIds; ++i) h << (i ? ", " : " ") << "EVENT_ID" << i << " = " << i;
  h << " };\n";
  h << "enum { XD_F16 = 0, XD_F32 = 1, XD_S32 = 2, XD_S8 = 3 };\n";
  h << "enum { XD_CMP_EQ = 0, XD_CMP_NE = 1, XD_CMP_LT = 2, XD_CMP_LE = 3, XD_CMP_GT = 4, XD_CMP_GE = 5 };\n";
  h << "enum { XD_ROUND_RINT = 0, XD_ROUND_TRUNC = 1, XD_ROUND_FLOOR = 2, XD_ROUND_CEIL = 3, XD_ROUND_ROUND = 4 };\n";
  h << "enum { XD_CONV_F32_F16 = 0, XD_CONV_F16_F32 = 1, XD_CONV_F16_S8 = 2, XD_CONV_S8_F16 = 3,\n"
       "       XD_CONV_F16_S32 = 4, XD_CONV_S32_F16 = 5, XD_CONV_F32_S32 = 6, XD_CONV_S32_F32 = 7 };\n";
  h << "enum { XD_CC_F32 = 0, XD_CC_F32_TO_F16 = 1, XD_CC_S32 = 2, XD_CC_S32_TO_F16 = 3 };\n\n";

  for (const auto& layout : register_layouts()) {
    h << "// " << layout.doc << "\n";
    for (const auto& field : layout.fields)
      h << "//   " << field.name << " [" << field.lsb + field.width - 1 << ":" << field.lsb << "] " << field.doc
        << "\n";
    h << "static inline uint64_t xd_pack_" << layout.name << "(";
    for (std::size_t i = 0; i < layout.fields.size(); ++i)
      h << (i ? ", " : "") << "uint64_t " << layout.fields[i].name;
    h << ") {\n  return ";
    for (std::size_t i = 0; i < layout.fields.size(); ++i) {
      const Field& f = layout.fields[i];
      h << (i ? "\n       | " : "") << "((" << f.name << " & " << hex_string(f.max()) << "ull) << " << f.lsb << ")";
    }
    h << ";\n}\n\n";
  }

  for (const auto& spec : op_specs()) {
    if (spec.form != Form::kData) continue;
    h << "// " << spec.mnemonic << " (" << pipe_name(spec.pipe) << "): " << spec.doc << "\n";
    h << "static inline void __xd_" << spec.intrinsic
      << "(uint64_t xd, uint64_t xn, uint64_t xm, uint64_t xt) {\n"
      << "  __asm__ volatile(\".insn r4 " << hex_string(spec.opcode) << ", " << int(spec.funct3) << ", "
      << int(spec.funct2) << ", %0, %1, %2, %3\" :: \"r\"(xd), \"r\"(xn), \"r\"(xm), \"r\"(xt) : \"memory\");\n}\n";
  }
  h << "\n// Sync instructions take compile-time pipes and event ids (an immediate).\n";
  h << "#define XD_SYNC_IMM(src, dst, event) (((src) & 7) | (((dst) & 7) << 3) | (((event) & 7) << 6))\n";
  for (const auto& spec : op_specs()) {
    if (spec.form != Form::kSync) continue;
    std::string prefix = std::string(".insn i ") + hex_string(spec.opcode) + ", " + std::to_string(spec.funct3) +
                         ", x0, x0, ";
    switch (spec.op) {
      case Op::kSetFlag:
      case Op::kWaitFlag:
        h << "#define __xd_" << spec.intrinsic << "(src, dst, event) __asm__ volatile(\"" << prefix
          << "%0\" :: \"i\"(XD_SYNC_IMM(src, dst, event)) : \"memory\")\n";
        break;
      case Op::kPipeBarrier:
        h << "#define __xd_" << spec.intrinsic << "(pipe) __asm__ volatile(\"" << prefix
          << "%0\" :: \"i\"(XD_SYNC_IMM(pipe, 0, 0)) : \"memory\")\n";
        break;
      default:
        h << "#define __xd_" << spec.intrinsic << "() __asm__ volatile(\"" << prefix << "0\" ::: \"memory\")\n";
    }
  }
  for (const auto& spec : op_specs()) {
    if (spec.form != Form::kSpecial) continue;
    h << "static inline void __xd_" << spec.intrinsic << "(uint64_t rs1, uint64_t rs2) {\n"
      << "  __asm__ volatile(\".insn r " << hex_string(spec.opcode) << ", " << int(spec.funct3)
      << ", 0, x0, %0, %1\" :: \"r\"(rs1), \"r\"(rs2) : \"memory\");\n}\n";
  }
  h << "\n";
  for (const auto& reg : special_registers())
    h << "static inline uint64_t get_" << reg.name << "(void) {\n  uint64_t value;\n  __asm__ volatile(\"csrr %0, "
      << hex_string(reg.csr) << "\" : \"=r\"(value));\n  return value;\n}\n";
  return h.str();
}

std::string markdown_tables() {
  std::ostringstream md;
  auto role = [](const char* text) { return text ? std::string(text) : std::string("-"); };
  md << "| mnemonic | intrinsic | pipe | opcode | funct3 | funct2 | [Xd] | [Xn] | Xm | Xt | operation |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto& spec : op_specs()) {
    md << "| `" << spec.mnemonic << "` | `" << spec.intrinsic << "` | " << pipe_name(spec.pipe) << " | "
       << hex_string(spec.opcode) << " | " << int(spec.funct3) << " | "
       << (spec.form == Form::kData ? std::to_string(spec.funct2) : std::string("-")) << " | ";
    if (spec.form == Form::kData)
      md << role(spec.roles.xd) << " | " << role(spec.roles.xn) << " | " << role(spec.roles.xm) << " | "
         << role(spec.roles.xt);
    else if (spec.form == Form::kSync)
      md << "- | - | - | " << (spec.xt_layout ? "imm: sync" : "-");
    else
      md << "- | rs1: " << role(spec.roles.xn) << " | rs2: " << role(spec.roles.xm) << " | -";
    md << " | " << spec.doc << " |\n";
  }
  md << "\n";
  for (const auto& layout : register_layouts()) {
    md << "#### `" << layout.name << "`: " << layout.doc << "\n\n| field | bits | meaning |\n| --- | --- | --- |\n";
    for (const auto& field : layout.fields)
      md << "| `" << field.name << "` | " << field.lsb + field.width - 1 << ":" << field.lsb << " | " << field.doc
         << " |\n";
    md << "\n";
  }
  md << "#### Special registers (read with `csrr`)\n\n| name | CSR | meaning |\n| --- | --- | --- |\n";
  for (const auto& reg : special_registers())
    md << "| `" << reg.name << "` | " << hex_string(reg.csr) << " | " << reg.doc << " |\n";
  return md.str();
}

}  // namespace npuvp::xdavinci
