// MteUnit: burst copies between GM and L1/UB, UB -> L1, nd2nz, load2d and
// img2col (docs/ai-core.md).
//
// Faults: every local range an instruction touches is checked before any
// byte moves, so a range, alignment or parameter fault leaves all buffers
// unchanged. A bus error stops the instruction at the failing transaction:
// earlier transactions have completed (as on hardware), later ones are not
// issued.
//
// Timing: local-only instructions take latency + ceil(bytes / bandwidth).
// GM instructions split every contiguous GM piece into transactions of at
// most max_transaction_bytes, issued back to back at the path bandwidth:
// transaction j is issued at start + latency + floor(B_j / bandwidth), B_j
// being the bytes of the instruction's earlier transactions, but not before
// transaction j - max_outstanding has completed (when the bus is slower than
// the path, it paces the issue). The instruction
// ends at the later of latency + ceil(bytes / bandwidth) and the last
// completion. `bytes` is what the destination receives (GM->local counts the
// zero padding; local->GM only the bytes written).
#include "npu/mte_unit.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace npuvp {

using xdavinci::Op;

namespace {

constexpr std::uint64_t kBlock = xdavinci::kBlockBytes;
constexpr std::uint64_t kFractal = xdavinci::kFractalBytes;

[[noreturn]] void invalid(const char* what, const std::string& message) {
  throw KernelFault(KernelFaultCause::kInvalidParameter, std::string(what) + ": " + message);
}

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

std::uint64_t local_cycles(const MtePath& path, std::uint64_t bytes) {
  return path.latency_cycles + ceil_div(bytes, std::max<std::uint64_t>(path.bytes_per_cycle, 1));
}

// The burst descriptor of a copy, validated.
struct Bursts {
  std::uint64_t count, bytes, src_gap, dst_gap;  // bytes per burst; gaps in bytes
  Bursts(std::uint64_t xt, const char* what) {
    namespace b = xdavinci::burst;
    count = b::n_burst.get(xt);
    bytes = b::burst_len.get(xt) * kBlock;
    src_gap = b::src_gap.get(xt) * kBlock;
    dst_gap = b::dst_gap.get(xt) * kBlock;
    if (count == 0 || bytes == 0) invalid(what, "n_burst and burst_len must be at least 1");
  }
  // Bytes from the first burst's start to the last burst's end on a side
  // whose bursts are `gap` bytes apart.
  std::uint64_t extent(std::uint64_t gap) const { return (count - 1) * (bytes + gap) + bytes; }
};

// The GM side (Xm) of a burst copy: pitch and valid bytes per burst.
struct GmSide {
  std::uint64_t pitch, valid;
  GmSide(std::uint64_t xm, const Bursts& bursts, std::uint64_t gm_gap, const char* what) {
    pitch = xdavinci::gm_side::pitch.get(xm);
    if (pitch == 0) pitch = bursts.bytes + gm_gap;
    valid = xdavinci::gm_side::valid.get(xm);
    if (valid == 0) valid = bursts.bytes;
    if (valid > bursts.bytes)
      invalid(what, "valid " + std::to_string(valid) + " bytes exceed the burst of " + std::to_string(bursts.bytes));
  }
};

}  // namespace

void MteUnit::gm_transfer(GmStream& stream, bool write, std::uint64_t address, std::uint8_t* data,
                          std::uint64_t length) {
  const std::uint64_t max_bytes =
      std::min<std::uint64_t>(timing_.max_transaction_bytes ? timing_.max_transaction_bytes : length, 0x80000000u);
  while (length > 0) {
    const std::uint64_t piece = std::min(length, max_bytes);
    std::uint64_t issue = stream.issue_base + stream.bytes_issued / stream.bytes_per_cycle;
    const std::uint64_t outstanding = timing_.max_outstanding;
    if (outstanding && stream.transactions >= outstanding)
      issue = std::max(issue, stream.completions[(stream.transactions - outstanding) % kMaxOutstandingLimit]);
    const std::uint64_t done =
        global_.transfer(write, address, data, static_cast<std::uint32_t>(piece), issue);
    stream.completions[stream.transactions++ % kMaxOutstandingLimit] = done;
    stream.last_completion = std::max(stream.last_completion, done);
    stream.bytes_issued += piece;
    address += piece;
    data += piece;
    length -= piece;
  }
}

UnitResult MteUnit::execute(const NpuInstruction& instruction, std::uint64_t start_cycle) {
  switch (instruction.op) {
    case Op::kCopyGmToCbuf:
    case Op::kCopyGmToUbuf: return copy_gm_to_local(instruction, start_cycle);
    case Op::kCopyUbufToGm: return copy_ub_to_gm(instruction, start_cycle);
    case Op::kCopyUbufToCbuf: return copy_ub_to_l1(instruction);
    case Op::kCopyGmToCbufNd2nz: return copy_gm_to_l1_nd2nz(instruction, start_cycle);
    case Op::kLoadCbufToCa:
    case Op::kLoadCbufToCb: return load_2d(instruction);
    case Op::kImg2colCbufToCa: return img2col(instruction);
    default: break;
  }
  const char* name = instruction.op < Op::kCount ? xdavinci::spec_of(instruction.op).mnemonic : "unknown op";
  throw KernelFault(KernelFaultCause::kInvalidParameter, std::string("the MTE cannot execute ") + name);
}

// Ends a GM instruction: the formula time or the last completion, later one.
static UnitResult gm_result(std::uint64_t start_cycle, const MtePath& path, std::uint64_t bytes,
                            std::uint64_t last_completion) {
  UnitResult result;
  result.bytes = bytes;
  result.cycles = local_cycles(path, bytes);
  if (last_completion > start_cycle) result.cycles = std::max(result.cycles, last_completion - start_cycle);
  return result;
}

UnitResult MteUnit::copy_gm_to_local(const NpuInstruction& instruction, std::uint64_t start_cycle) {
  const bool to_l1 = instruction.op == Op::kCopyGmToCbuf;
  const char* what = to_l1 ? "copy_gm_to_cbuf" : "copy_gm_to_ubuf";
  const Bursts bursts(instruction.xt, what);
  const GmSide gm(instruction.xm, bursts, bursts.src_gap, what);
  LocalBuffer& dst_buffer = to_l1 ? buffers_.l1 : buffers_.ub;
  std::uint8_t* dst = dst_buffer.span(instruction.xd, bursts.extent(bursts.dst_gap), kBlock, what);

  const MtePath& path = timing_.mte2;
  GmStream stream{start_cycle, start_cycle + path.latency_cycles, std::max<std::uint64_t>(path.bytes_per_cycle, 1)};
  for (std::uint64_t b = 0; b < bursts.count; ++b) {
    std::uint8_t* burst = dst + b * (bursts.bytes + bursts.dst_gap);
    gm_transfer(stream, false, instruction.xn + b * gm.pitch, burst, gm.valid);
    std::memset(burst + gm.valid, 0, bursts.bytes - gm.valid);  // padding
  }
  return gm_result(start_cycle, path, bursts.count * bursts.bytes, stream.last_completion);
}

UnitResult MteUnit::copy_ub_to_gm(const NpuInstruction& instruction, std::uint64_t start_cycle) {
  const char* what = "copy_ubuf_to_gm";
  const Bursts bursts(instruction.xt, what);
  const GmSide gm(instruction.xm, bursts, bursts.dst_gap, what);
  std::uint8_t* src = buffers_.ub.span(instruction.xn, bursts.extent(bursts.src_gap), kBlock, what);

  const MtePath& path = timing_.mte3;
  GmStream stream{start_cycle, start_cycle + path.latency_cycles, std::max<std::uint64_t>(path.bytes_per_cycle, 1)};
  for (std::uint64_t b = 0; b < bursts.count; ++b)
    gm_transfer(stream, true, instruction.xd + b * gm.pitch, src + b * (bursts.bytes + bursts.src_gap), gm.valid);
  return gm_result(start_cycle, path, bursts.count * gm.valid, stream.last_completion);
}

UnitResult MteUnit::copy_ub_to_l1(const NpuInstruction& instruction) {
  const char* what = "copy_ubuf_to_cbuf";
  const Bursts bursts(instruction.xt, what);
  const std::uint8_t* src = buffers_.ub.span(instruction.xn, bursts.extent(bursts.src_gap), kBlock, what);
  std::uint8_t* dst = buffers_.l1.span(instruction.xd, bursts.extent(bursts.dst_gap), kBlock, what);
  for (std::uint64_t b = 0; b < bursts.count; ++b)
    std::memcpy(dst + b * (bursts.bytes + bursts.dst_gap), src + b * (bursts.bytes + bursts.src_gap), bursts.bytes);
  UnitResult result;
  result.bytes = bursts.count * bursts.bytes;
  result.cycles = local_cycles(timing_.mte3, result.bytes);
  return result;
}

UnitResult MteUnit::copy_gm_to_l1_nd2nz(const NpuInstruction& instruction, std::uint64_t start_cycle) {
  const char* what = "copy_gm_to_cbuf_nd2nz";
  const std::uint64_t rows = xdavinci::nd2nz::rows.get(instruction.xm);
  const std::uint64_t cols = xdavinci::nd2nz::cols.get(instruction.xm);
  const std::uint64_t type = xdavinci::nd2nz_config::type.get(instruction.xt);
  if (type != static_cast<unsigned>(xdavinci::DataType::kF16) && type != static_cast<unsigned>(xdavinci::DataType::kS8))
    invalid(what, "type " + std::to_string(type) + " is not 0 (f16) or 3 (s8)");
  if (rows == 0 || cols == 0) invalid(what, "rows and cols must be at least 1");
  const std::uint64_t element = type == static_cast<unsigned>(xdavinci::DataType::kF16) ? 2 : 1;
  std::uint64_t dst_rows = xdavinci::nd2nz_config::dst_rows.get(instruction.xt);
  if (dst_rows == 0) dst_rows = ceil_div(rows, 16) * 16;
  if (dst_rows % 16 != 0 || dst_rows < rows)
    invalid(what, "dst_rows " + std::to_string(dst_rows) + " must be a multiple of 16 and at least rows (" +
                      std::to_string(rows) + ")");
  const std::uint64_t row_bytes = cols * element;
  std::uint64_t pitch = xdavinci::nd2nz::pitch.get(instruction.xm);
  if (pitch == 0) pitch = row_bytes;

  // Column group j (16 f16 / 32 s8 elements = 32 bytes) of row r lands at
  // j*dst_rows*32 + r*32.
  const std::uint64_t groups = ceil_div(row_bytes, kBlock);
  const std::uint64_t group_bytes = dst_rows * kBlock;
  const std::uint64_t total = groups * group_bytes;
  std::uint8_t* dst = buffers_.l1.span(instruction.xd, total, kFractal, what);

  row_scratch_.assign(groups * kBlock, 0);  // tail of the last group stays zero
  const MtePath& path = timing_.mte2;
  GmStream stream{start_cycle, start_cycle + path.latency_cycles, std::max<std::uint64_t>(path.bytes_per_cycle, 1)};
  for (std::uint64_t r = 0; r < rows; ++r) {
    gm_transfer(stream, false, instruction.xn + r * pitch, row_scratch_.data(), row_bytes);
    for (std::uint64_t j = 0; j < groups; ++j)
      std::memcpy(dst + j * group_bytes + r * kBlock, row_scratch_.data() + j * kBlock, kBlock);
  }
  for (std::uint64_t j = 0; j < groups; ++j)  // padding rows
    std::memset(dst + j * group_bytes + rows * kBlock, 0, (dst_rows - rows) * kBlock);
  return gm_result(start_cycle, path, total, stream.last_completion);
}

UnitResult MteUnit::load_2d(const NpuInstruction& instruction) {
  namespace f = xdavinci::load2d;
  const bool to_a = instruction.op == Op::kLoadCbufToCa;
  const char* what = to_a ? "load_cbuf_to_ca" : "load_cbuf_to_cb";
  const std::uint64_t repeat = f::repeat.get(instruction.xt);
  if (repeat == 0) invalid(what, "repeat must be at least 1");
  std::uint64_t src_stride = f::src_stride.get(instruction.xt);
  if (src_stride == 0) src_stride = 1;
  const std::uint64_t dst_stride = 1 + f::dst_gap.get(instruction.xt);
  const bool transpose = f::transpose.get(instruction.xt) != 0;
  const std::uint8_t* src = buffers_.l1.span(instruction.xn, ((repeat - 1) * src_stride + 1) * kFractal, kFractal, what);
  LocalBuffer& dst_buffer = to_a ? buffers_.l0a : buffers_.l0b;
  std::uint8_t* dst = dst_buffer.span(instruction.xd, ((repeat - 1) * dst_stride + 1) * kFractal, kFractal, what);

  for (std::uint64_t i = 0; i < repeat; ++i) {
    const std::uint8_t* s = src + i * src_stride * kFractal;
    std::uint8_t* d = dst + i * dst_stride * kFractal;
    if (!transpose) {
      std::memcpy(d, s, kFractal);
    } else {
      // 16 x 16 matrix of 16-bit elements: (r, c) -> (c, r).
      for (unsigned r = 0; r < 16; ++r)
        for (unsigned c = 0; c < 16; ++c) std::memcpy(d + (c * 16 + r) * 2, s + (r * 16 + c) * 2, 2);
    }
  }
  UnitResult result;
  result.bytes = repeat * kFractal;
  result.cycles = local_cycles(timing_.mte1, result.bytes);
  return result;
}

UnitResult MteUnit::img2col(const NpuInstruction& instruction) {
  const char* what = "img2col_cbuf_to_ca";
  namespace fm = xdavinci::fmatrix;
  namespace win = xdavinci::img2col_window;
  namespace pos = xdavinci::img2col_position;
  const std::int64_t width = static_cast<std::int64_t>(fm::width.get(instruction.fmatrix));
  const std::int64_t height = static_cast<std::int64_t>(fm::height.get(instruction.fmatrix));
  const std::int64_t pad_left = static_cast<std::int64_t>(fm::pad_left.get(instruction.fmatrix));
  const std::int64_t pad_right = static_cast<std::int64_t>(fm::pad_right.get(instruction.fmatrix));
  const std::int64_t pad_top = static_cast<std::int64_t>(fm::pad_top.get(instruction.fmatrix));
  const std::int64_t pad_bottom = static_cast<std::int64_t>(fm::pad_bottom.get(instruction.fmatrix));
  const std::int64_t stride_w = static_cast<std::int64_t>(win::stride_w.get(instruction.xm));
  const std::int64_t stride_h = static_cast<std::int64_t>(win::stride_h.get(instruction.xm));
  const std::int64_t kernel_w = static_cast<std::int64_t>(win::kernel_w.get(instruction.xm));
  const std::int64_t kernel_h = static_cast<std::int64_t>(win::kernel_h.get(instruction.xm));
  const std::int64_t dilation_w = static_cast<std::int64_t>(win::dilation_w.get(instruction.xm));
  const std::int64_t dilation_h = static_cast<std::int64_t>(win::dilation_h.get(instruction.xm));
  const std::int64_t channels1 = static_cast<std::int64_t>(win::channels1.get(instruction.xm));
  const std::uint64_t m_start = pos::m_start.get(instruction.xt);
  const std::uint64_t k_start = pos::k_start.get(instruction.xt);
  const std::uint64_t m_fractals = pos::m_fractals.get(instruction.xt);
  const std::uint64_t k_fractals = pos::k_fractals.get(instruction.xt);

  if (width == 0 || height == 0) invalid(what, "the feature map (set_fmatrix) has zero width or height");
  if (stride_w == 0 || stride_h == 0 || kernel_w == 0 || kernel_h == 0 || dilation_w == 0 || dilation_h == 0 ||
      channels1 == 0)
    invalid(what, "stride, kernel, dilation and channels1 must be at least 1");
  if (m_fractals == 0 || k_fractals == 0) invalid(what, "m_fractals and k_fractals must be at least 1");
  if (m_start % 16 != 0 || k_start % 16 != 0)
    invalid(what, "m_start " + std::to_string(m_start) + " and k_start " + std::to_string(k_start) +
                      " must be multiples of 16");
  const std::int64_t span_h = height + pad_top + pad_bottom - dilation_h * (kernel_h - 1) - 1;
  const std::int64_t span_w = width + pad_left + pad_right - dilation_w * (kernel_w - 1) - 1;
  if (span_h < 0 || span_w < 0) invalid(what, "the dilated kernel does not fit the padded feature map");
  const std::int64_t out_h = span_h / stride_h + 1, out_w = span_w / stride_w + 1;
  const std::uint64_t positions = static_cast<std::uint64_t>(out_h * out_w);

  const std::uint64_t pixel = 16 * 2;  // C0 = 16 f16 channels
  const std::uint8_t* map = buffers_.l1.span(
      instruction.xn, static_cast<std::uint64_t>(channels1 * height * width) * pixel, kBlock, what);
  const std::uint64_t total = m_fractals * k_fractals * kFractal;
  std::uint8_t* dst = buffers_.l0a.span(instruction.xd, total, kFractal, what);

  // Row m = output position, 16-column group t = k/16 = (c1*kh + i)*kw + j:
  // each 32-byte row of a fractal is one input pixel's C0 channels or zeros.
  for (std::uint64_t b = 0; b < k_fractals; ++b) {
    const std::uint64_t t = k_start / 16 + b;
    const std::int64_t j = static_cast<std::int64_t>(t % kernel_w);
    const std::int64_t i = static_cast<std::int64_t>(t / kernel_w % kernel_h);
    const std::uint64_t c1 = t / kernel_w / kernel_h;
    for (std::uint64_t a = 0; a < m_fractals; ++a) {
      std::uint8_t* frac = dst + (a * k_fractals + b) * kFractal;
      for (std::uint64_t r = 0; r < 16; ++r) {
        std::uint8_t* out = frac + r * pixel;
        const std::uint64_t m = m_start + a * 16 + r;
        bool inside = m < positions && c1 < static_cast<std::uint64_t>(channels1);
        std::int64_t h = 0, w = 0;
        if (inside) {
          const std::int64_t oh = static_cast<std::int64_t>(m) / out_w, ow = static_cast<std::int64_t>(m) % out_w;
          h = oh * stride_h - pad_top + i * dilation_h;
          w = ow * stride_w - pad_left + j * dilation_w;
          inside = h >= 0 && h < height && w >= 0 && w < width;
        }
        if (inside)
          std::memcpy(out, map + ((static_cast<std::int64_t>(c1) * height + h) * width + w) * pixel, pixel);
        else
          std::memset(out, 0, pixel);
      }
    }
  }
  UnitResult result;
  result.bytes = total;
  result.cycles = local_cycles(timing_.mte1, result.bytes);
  return result;
}

}  // namespace npuvp
