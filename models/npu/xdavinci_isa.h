// Xdavinci: the AI Core's custom RISC-V extension, declared once. These tables
// drive the scalar unit's decoder and disassembler (XdavinciExtension), the
// intrinsics header for kernels and the encoding tables of
// docs/isa-xdavinci.md (both written by platform/xdavinci_gen.cpp).
//
// Every data instruction has the reference's operand shape
// `OP [Xd], [Xn], [Xm], Xt` ([davinci] §6.2-6.3, docs/references.md): four source
// registers, encoded R4-style on a custom opcode with the rd field naming the
// first source. Xt (and Xm for some operations) are configuration registers
// whose bit fields are the Field tables below.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace npuvp::xdavinci {

// Pipes, numbered as in the public Ascend C / CCE programming model.
enum class Pipe : std::uint8_t { kS = 0, kV = 1, kM = 2, kMte1 = 3, kMte2 = 4, kMte3 = 5, kAll = 6 };
constexpr unsigned kPipeCount = 6;  // S, V, M, MTE1, MTE2, MTE3
const char* pipe_name(Pipe pipe);   // "PIPE_V"
const char* pipe_short_name(Pipe pipe);  // "v", "mte2": statistics names

constexpr unsigned kEventIds = 8;   // event ids per (src, dst) pipe pair

// Local buffers of an AI Core. Operands name buffers by instruction; the
// register holds a byte offset inside that buffer.
enum class Buffer : std::uint8_t { kGm, kL1, kL0A, kL0B, kL0C, kUb };
const char* buffer_name(Buffer buffer);  // "GM", "L1", ...

constexpr unsigned kBlockBytes = 32;     // unit of copies and vector blocks
constexpr unsigned kFractalBytes = 512;  // one 16x16 fp16 (or 16x32 int8) fractal in L1/L0A/L0B
constexpr unsigned kVectorBlocksPerRepeat = 8;  // one vector repeat = 8 blocks = 256 bytes

// Element types of the Cube, the Vector unit and conversions.
enum class DataType : std::uint8_t { kF16 = 0, kF32 = 1, kS32 = 2, kS8 = 3 };
unsigned data_type_size(DataType type);
const char* data_type_name(DataType type);

// A bit field of a configuration register.
struct Field {
  const char* name;
  unsigned lsb, width;
  const char* doc;
  constexpr std::uint64_t get(std::uint64_t reg) const {
    return width >= 64 ? reg : (reg >> lsb) & ((std::uint64_t{1} << width) - 1);
  }
  constexpr std::uint64_t max() const { return width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1; }
};

// A named layout of one configuration register (e.g. the burst descriptor).
struct RegisterLayout {
  const char* name;  // C name stem: xd_pack_<name>(...) in the intrinsics header
  const char* doc;
  std::vector<Field> fields;
};

// ---- Register layouts (the fields are referenced by name from C++) --------

// Burst descriptor (Xt of every copy): n_burst bursts of burst_len 32-byte
// blocks; after each burst the source skips src_gap and the destination
// dst_gap blocks (the CCE "stride" convention: gap between bursts).
namespace burst {
constexpr Field n_burst{"n_burst", 0, 12, "number of bursts (1..4095)"};
constexpr Field burst_len{"burst_len", 12, 16, "32-byte blocks per burst (1..65535)"};
constexpr Field src_gap{"src_gap", 28, 16, "blocks skipped in the source after each burst"};
constexpr Field dst_gap{"dst_gap", 44, 16, "blocks skipped in the destination after each burst"};
}  // namespace burst

// Global-memory side of a GM copy (Xm). GM rows rarely have 32-byte pitch,
// so the GM side can be byte-exact; the local side is always whole blocks.
namespace gm_side {
constexpr Field pitch{"pitch", 0, 32,
                      "bytes between the starts of consecutive bursts in GM (0: burst_len*32 + gap*32)"};
constexpr Field valid{"valid", 32, 20,
                      "bytes of each burst that exist in GM (0: all). GM->local zero-fills the rest "
                      "(padding); local->GM writes only these bytes"};
}  // namespace gm_side

// copy_gm_to_cbuf_nd2nz (Xm): a row-major GM matrix becomes "big-N small-Z"
// fractals in L1, zero-padded to whole fractals.
namespace nd2nz {
constexpr Field rows{"rows", 0, 16, "matrix rows (1..65535)"};
constexpr Field cols{"cols", 16, 16, "matrix columns in elements (1..65535)"};
constexpr Field pitch{"pitch", 32, 32, "bytes between GM rows (0: cols * element size)"};
}  // namespace nd2nz
namespace nd2nz_config {
constexpr Field type{"type", 0, 2, "element type: 0 f16, 3 s8 (fractal 16x16 or 16x32)"};
constexpr Field dst_rows{"dst_rows", 16, 16,
                         "rows per fractal column in L1 (0: rows rounded up to 16); must be >= rows"};
}  // namespace nd2nz_config

// load_cbuf_to_ca / load_cbuf_to_cb (Xt): move `repeat` fractals from L1 to
// L0A/L0B. Fractal i is read at src + i*src_stride*512 and written at
// dst + i*(1+dst_gap)*512; transpose transposes each 16x16 fp16 fractal.
namespace load2d {
constexpr Field repeat{"repeat", 0, 8, "fractals to move (1..255)"};
constexpr Field src_stride{"src_stride", 8, 16, "fractals between consecutive source fractals (0 means 1)"};
constexpr Field dst_gap{"dst_gap", 24, 16, "fractals skipped in the destination after each one"};
constexpr Field transpose{"transpose", 40, 1, "transpose each 16x16 fractal (16-bit elements only)"};
}  // namespace load2d

// set_fmatrix (Xn): the feature map that img2col reads, in L1 as
// C1 x H x W x C0 (C0 = 16 fp16 channels, the "5HD" layout).
namespace fmatrix {
constexpr Field width{"width", 0, 16, "feature-map width W (1..65535)"};
constexpr Field height{"height", 16, 16, "feature-map height H (1..65535)"};
constexpr Field pad_left{"pad_left", 32, 8, "zero columns left of the map"};
constexpr Field pad_right{"pad_right", 40, 8, "zero columns right of the map"};
constexpr Field pad_top{"pad_top", 48, 8, "zero rows above the map"};
constexpr Field pad_bottom{"pad_bottom", 56, 8, "zero rows below the map"};
}  // namespace fmatrix

// img2col_cbuf_to_ca (Xm): the convolution window.
namespace img2col_window {
constexpr Field stride_w{"stride_w", 0, 8, "horizontal stride (1..255)"};
constexpr Field stride_h{"stride_h", 8, 8, "vertical stride (1..255)"};
constexpr Field kernel_w{"kernel_w", 16, 8, "kernel width (1..255)"};
constexpr Field kernel_h{"kernel_h", 24, 8, "kernel height (1..255)"};
constexpr Field dilation_w{"dilation_w", 32, 8, "horizontal dilation (1..255)"};
constexpr Field dilation_h{"dilation_h", 40, 8, "vertical dilation (1..255)"};
constexpr Field channels1{"channels1", 48, 16, "C1: number of 16-channel groups in the map (1..65535)"};
}  // namespace img2col_window
// img2col_cbuf_to_ca (Xt): which part of the im2col matrix to produce. Row m
// is output position m (row-major over the output map); column k is
// (c1, kh, kw, c0) with c0 fastest. The result is m_fractals x k_fractals
// fractals in L0A, "big-Z small-Z".
namespace img2col_position {
constexpr Field m_start{"m_start", 0, 24, "first output position (multiple of 16)"};
constexpr Field k_start{"k_start", 24, 20, "first im2col column (multiple of 16)"};
constexpr Field m_fractals{"m_fractals", 44, 8, "fractal rows to produce (1..255)"};
constexpr Field k_fractals{"k_fractals", 52, 8, "fractal columns to produce (1..255)"};
}  // namespace img2col_position

// mmad (Xt): C[MxN] (+)= A[MxK] x B[KxN]. A in L0A "big-Z small-Z", B in L0B
// "big-Z small-N", C in L0C "big-N small-Z" (fp32/s32, 16x16 per fractal).
namespace mmad {
constexpr Field m{"m", 0, 12, "rows of A and C (1..4095)"};
constexpr Field k{"k", 12, 12, "columns of A, rows of B (1..4095)"};
constexpr Field n{"n", 24, 12, "columns of B and C (1..4095)"};
constexpr Field type{"type", 36, 2, "0: f16 x f16 -> f32, 3: s8 x s8 -> s32"};
constexpr Field init{"init", 38, 1, "1: C = A x B (+ bias); 0: C += A x B"};
constexpr Field bias{"bias", 39, 1, "with init: start from a bias row of N (rounded up to 16) f32/s32 in UB"};
constexpr Field bias_block{"bias_block", 40, 13, "UB offset of the bias vector, in 32-byte blocks"};
}  // namespace mmad

// copy_matrix_cc_to_ubuf (Xt): L0C fractals to UB through the Vector unit,
// converting. Units are fractals: 1024 bytes in L0C, 512 (f16) or 1024 in UB.
namespace cc_to_ub {
constexpr Field n_burst{"n_burst", 0, 12, "number of bursts (1..4095)"};
constexpr Field burst_len{"burst_len", 12, 16, "fractals per burst (1..65535)"};
constexpr Field src_gap{"src_gap", 28, 8, "fractals skipped in L0C after each burst"};
constexpr Field dst_gap{"dst_gap", 36, 8, "fractals skipped in UB after each burst"};
constexpr Field mode{"mode", 44, 2, "0: f32->f32, 1: f32->f16 (round to nearest even), 2: s32->s32, 3: s32->f16"};
constexpr Field relu{"relu", 46, 1, "apply max(x, 0) on the way"};
}  // namespace cc_to_ub

// Vector repeat parameters (Xt of every vector instruction). A repeat covers
// 8 blocks of 32 bytes; block strides and repeat strides are in blocks.
namespace vector {
constexpr Field repeat{"repeat", 0, 8, "repeats (1..255)"};
constexpr Field dst_block_stride{"dst_block_stride", 8, 8, "blocks between the blocks of one repeat (dst)"};
constexpr Field src0_block_stride{"src0_block_stride", 16, 8, "same for [Xn]"};
constexpr Field src1_block_stride{"src1_block_stride", 24, 8, "same for [Xm]"};
constexpr Field dst_repeat_stride{"dst_repeat_stride", 32, 8, "blocks between the starts of repeats (dst)"};
constexpr Field src0_repeat_stride{"src0_repeat_stride", 40, 8, "same for [Xn]"};
constexpr Field src1_repeat_stride{"src1_repeat_stride", 48, 8, "same for [Xm]"};
constexpr Field type{"type", 56, 2, "0 f16, 1 f32, 2 s32"};
constexpr Field compare{"compare", 58, 3, "vcmp only: 0 eq, 1 ne, 2 lt, 3 le, 4 gt, 5 ge"};
}  // namespace vector
// vconv (Xm): what to convert and how to round.
namespace convert {
constexpr Field kind{"kind", 0, 4,
                     "0 f32->f16, 1 f16->f32, 2 f16->s8, 3 s8->f16, 4 f16->s32, 5 s32->f16, 6 f32->s32, 7 s32->f32"};
constexpr Field round{"round", 4, 3,
                      "0 nearest-even, 1 toward zero, 2 down (floor), 3 up (ceil), 4 nearest-away"};
}  // namespace convert

// Immediate of set_flag / wait_flag / pipe_barrier (I-type imm[11:0]).
namespace sync {
constexpr Field src_pipe{"src_pipe", 0, 3, "pipe that sets the flag"};
constexpr Field dst_pipe{"dst_pipe", 3, 3, "pipe that waits for it"};
constexpr Field event{"event", 6, 3, "event id (0..7)"};
}  // namespace sync

const std::vector<RegisterLayout>& register_layouts();

// ---- Instructions ---------------------------------------------------------

enum class Op : std::uint8_t {
  // MTE2 / MTE3: copies with burst descriptors
  kCopyGmToCbuf, kCopyGmToUbuf, kCopyUbufToGm, kCopyUbufToCbuf, kCopyGmToCbufNd2nz,
  // MTE1: L1 -> L0A/L0B
  kLoadCbufToCa, kLoadCbufToCb, kImg2colCbufToCa,
  // Cube
  kMmad,
  // Vector pipe
  kCopyMatrixCcToUbuf,
  kVadd, kVsub, kVmul, kVdiv, kVmax, kVmin, kVand, kVor,
  kVabs, kVexp, kVln, kVsqrt, kVrsqrt, kVrec, kVrelu, kVnot,
  kVadds, kVmuls, kVmaxs, kVmins,
  kVcmp, kVsel, kVconv, kVdup,
  kVcadd, kVcmax, kVcmin,
  // Sync and special-register writes (executed by the scalar unit / issue logic)
  kSetFlag, kWaitFlag, kPipeBarrier, kEndKernel,
  kSetVectorMask, kSetFmatrix, kSetCmpmask,
  kCount
};

// How an instruction's registers are used and encoded.
enum class Form : std::uint8_t {
  kData,    // R4: [Xd]=rd field, [Xn]=rs1, Xm=rs2, Xt=rs3 (all sources)
  kSync,    // I-type on the sync opcode: imm = sync fields, rd = rs1 = x0
  kSpecial  // R-type on the sync opcode: reads rs1 (and rs2); rd = x0
};

// What each of the four source registers means for a kData instruction.
struct OperandRoles {
  const char* xd;  // nullptr when unused
  const char* xn;
  const char* xm;
  const char* xt;
};

struct OpSpec {
  Op op;
  const char* mnemonic;   // disassembly, e.g. "xd.vadd"
  const char* intrinsic;  // C name in sw/include, e.g. "vadd" (CCE naming where it has one)
  Pipe pipe;              // where it executes (kS: in the scalar unit at issue)
  Form form;
  std::uint8_t opcode, funct3, funct2;
  OperandRoles roles;
  const char* xm_layout;  // register layout name of Xm, or nullptr
  const char* xt_layout;  // register layout name of Xt (or of the sync immediate)
  const char* doc;
};

constexpr std::uint8_t kOpcodeData = 0x0b;    // custom-0: MTE and Cube
constexpr std::uint8_t kOpcodeVector = 0x2b;  // custom-1: Vector
constexpr std::uint8_t kOpcodeSync = 0x5b;    // custom-2: sync and special registers

const std::vector<OpSpec>& op_specs();  // indexed by Op
inline const OpSpec& spec_of(Op op) { return op_specs()[static_cast<unsigned>(op)]; }
std::uint32_t encoding_mask(const OpSpec& spec);
std::uint32_t encoding_match(const OpSpec& spec);

// Special registers, read with csrr (custom read-only CSR space).
struct SpecialRegister {
  const char* name;       // "core_id"
  std::uint16_t csr;
  const char* doc;
};
constexpr std::uint16_t kCsrCoreId = 0xfc0, kCsrBlockIdx = 0xfc1, kCsrBlockDim = 0xfc2, kCsrStatus = 0xfc3;
const std::vector<SpecialRegister>& special_registers();

// Generated artefacts (the one-source-of-truth outputs).
std::string intrinsics_header();  // sw include: encodings, packers, raw intrinsics
std::string markdown_tables();    // docs/isa-xdavinci.md tables

}  // namespace npuvp::xdavinci
