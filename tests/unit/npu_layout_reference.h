// Naive references for the AI Core's data layouts and arithmetic, shared by
// the unit tests of the Cube/MTE and by kernel integration tests. Everything
// here is written the obvious way (one element at a time, straight from the
// formulas of docs/ai-core.md) so that it can check the optimised models.
//
// Layout names follow CANN's FRACTAL_<big><small>: the first letter is the
// order of the fractals, the second the order inside a fractal (Z = by rows,
// N = by columns).
//   zZ "big-Z small-Z"  A in L0A: fractal (rb, cb) at rb*Cf + cb, row-major inside
//   zN "big-Z small-N"  B in L0B: fractal (rb, cb) at rb*Cf + cb, column-major inside
//   nZ "big-N small-Z"  L1 after nd2nz, C in L0C: fractals column-major,
//                       row-major inside; element (r, c) at
//                       (c/g)*Rp*g + r*g + c%g (g columns per group, Rp rows)
// Fractals hold 16 x 16 f16/f32/s32 elements, or 16 rows x 32 columns of s8
// for A (32 rows x 16 columns for B, stored as 16 columns of 32).
#pragma once

#include "npu/numerics.h"
#include "npu/xdavinci_isa.h"

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <utility>
#include <vector>

namespace npuvp::test_support {

// ---- Registers -------------------------------------------------------------

// Packs configuration-register fields: pack({{burst::n_burst, 2}, {burst::burst_len, 4}}).
inline std::uint64_t pack(std::initializer_list<std::pair<xdavinci::Field, std::uint64_t>> fields) {
  std::uint64_t value = 0;
  for (const auto& [field, v] : fields) value |= (v & field.max()) << field.lsb;
  return value;
}

// ---- Bytes and halves ------------------------------------------------------

template <typename T>
std::vector<std::uint8_t> to_bytes(const std::vector<T>& values) {
  std::vector<std::uint8_t> bytes(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

template <typename T>
std::vector<T> from_bytes(const std::uint8_t* data, std::size_t count) {
  std::vector<T> values(count);
  if (count) std::memcpy(values.data(), data, count * sizeof(T));
  return values;
}

inline std::vector<std::uint16_t> to_halves(const std::vector<float>& values) {
  std::vector<std::uint16_t> halves(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) halves[i] = numerics::float_to_half(values[i]);
  return halves;
}

inline std::vector<float> from_halves(const std::vector<std::uint16_t>& halves) {
  std::vector<float> values(halves.size());
  for (std::size_t i = 0; i < halves.size(); ++i) values[i] = numerics::half_to_float(halves[i]);
  return values;
}

inline std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// ---- Fractal layouts ------------------------------------------------------

// Row-major rows x cols -> "big-Z small-Z" (L0A) with fractals of 16 rows x
// frac_cols columns (16 for f16, 32 for s8); zero-padded.
template <typename T>
std::vector<T> to_fractal_zz(const std::vector<T>& matrix, std::size_t rows, std::size_t cols,
                             std::size_t frac_cols = 16) {
  const std::size_t rf = round_up(rows, 16) / 16, cf = round_up(cols, frac_cols) / frac_cols;
  std::vector<T> out(rf * cf * 16 * frac_cols, T{});
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c)
      out[((r / 16) * cf + c / frac_cols) * 16 * frac_cols + (r % 16) * frac_cols + c % frac_cols] =
          matrix[r * cols + c];
  return out;
}

template <typename T>
std::vector<T> from_fractal_zz(const T* fractals, std::size_t rows, std::size_t cols, std::size_t frac_cols = 16) {
  const std::size_t cf = round_up(cols, frac_cols) / frac_cols;
  std::vector<T> out(rows * cols);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c)
      out[r * cols + c] =
          fractals[((r / 16) * cf + c / frac_cols) * 16 * frac_cols + (r % 16) * frac_cols + c % frac_cols];
  return out;
}

// Row-major rows x cols (B: K x N) -> "big-Z small-N" (L0B) with fractals of
// frac_rows rows (16 f16, 32 s8) x 16 columns, column-major inside:
// fractal (kb, nb) at kb*Nf + nb, element at (n%16)*frac_rows + k%frac_rows.
template <typename T>
std::vector<T> to_fractal_zn(const std::vector<T>& matrix, std::size_t rows, std::size_t cols,
                             std::size_t frac_rows = 16) {
  const std::size_t rf = round_up(rows, frac_rows) / frac_rows, cf = round_up(cols, 16) / 16;
  std::vector<T> out(rf * cf * 16 * frac_rows, T{});
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c)
      out[((r / frac_rows) * cf + c / 16) * 16 * frac_rows + (c % 16) * frac_rows + r % frac_rows] =
          matrix[r * cols + c];
  return out;
}

template <typename T>
std::vector<T> from_fractal_zn(const T* fractals, std::size_t rows, std::size_t cols, std::size_t frac_rows = 16) {
  const std::size_t cf = round_up(cols, 16) / 16;
  std::vector<T> out(rows * cols);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c)
      out[r * cols + c] =
          fractals[((r / frac_rows) * cf + c / 16) * 16 * frac_rows + (c % 16) * frac_rows + r % frac_rows];
  return out;
}

// Row-major rows x cols -> "big-N small-Z": column groups of `group`
// elements (16 f16/f32/s32, 32 s8), each padded_rows rows (0: rows rounded up
// to 16). This is what copy_gm_to_cbuf_nd2nz produces in L1 and the layout of
// C in L0C (group 16, padded_rows = Mf*16).
template <typename T>
std::vector<T> to_fractal_nz(const std::vector<T>& matrix, std::size_t rows, std::size_t cols, std::size_t group = 16,
                             std::size_t padded_rows = 0) {
  if (padded_rows == 0) padded_rows = round_up(rows, 16);
  const std::size_t groups = round_up(cols, group) / group;
  std::vector<T> out(groups * padded_rows * group, T{});
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c)
      out[(c / group) * padded_rows * group + r * group + c % group] = matrix[r * cols + c];
  return out;
}

template <typename T>
std::vector<T> from_fractal_nz(const T* fractals, std::size_t rows, std::size_t cols, std::size_t group = 16,
                               std::size_t padded_rows = 0) {
  if (padded_rows == 0) padded_rows = round_up(rows, 16);
  std::vector<T> out(rows * cols);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c)
      out[r * cols + c] = fractals[(c / group) * padded_rows * group + r * group + c % group];
  return out;
}

// 16 x 16 transpose of one fractal of 16-bit elements (load2d transpose).
inline std::vector<std::uint16_t> transpose_fractal(const std::vector<std::uint16_t>& fractal) {
  std::vector<std::uint16_t> out(256);
  for (unsigned r = 0; r < 16; ++r)
    for (unsigned c = 0; c < 16; ++c) out[c * 16 + r] = fractal[r * 16 + c];
  return out;
}

// ---- Convolution -----------------------------------------------------------

// A feature map in "5HD" (C1 x H x W x 16) and the convolution window.
struct ConvGeometry {
  std::int64_t channels1 = 1, height = 1, width = 1;
  std::int64_t pad_left = 0, pad_right = 0, pad_top = 0, pad_bottom = 0;
  std::int64_t stride_w = 1, stride_h = 1, kernel_w = 1, kernel_h = 1, dilation_w = 1, dilation_h = 1;
  std::int64_t out_h() const {
    return (height + pad_top + pad_bottom - dilation_h * (kernel_h - 1) - 1) / stride_h + 1;
  }
  std::int64_t out_w() const { return (width + pad_left + pad_right - dilation_w * (kernel_w - 1) - 1) / stride_w + 1; }
  std::size_t im2col_rows() const { return static_cast<std::size_t>(out_h() * out_w()); }
  std::size_t im2col_cols() const { return static_cast<std::size_t>(channels1 * kernel_h * kernel_w * 16); }
  // Registers: set_fmatrix value, img2col Xm.
  std::uint64_t fmatrix() const {
    namespace f = xdavinci::fmatrix;
    return pack({{f::width, static_cast<std::uint64_t>(width)}, {f::height, static_cast<std::uint64_t>(height)},
                 {f::pad_left, static_cast<std::uint64_t>(pad_left)},
                 {f::pad_right, static_cast<std::uint64_t>(pad_right)},
                 {f::pad_top, static_cast<std::uint64_t>(pad_top)},
                 {f::pad_bottom, static_cast<std::uint64_t>(pad_bottom)}});
  }
  std::uint64_t window() const {
    namespace f = xdavinci::img2col_window;
    return pack({{f::stride_w, static_cast<std::uint64_t>(stride_w)},
                 {f::stride_h, static_cast<std::uint64_t>(stride_h)},
                 {f::kernel_w, static_cast<std::uint64_t>(kernel_w)},
                 {f::kernel_h, static_cast<std::uint64_t>(kernel_h)},
                 {f::dilation_w, static_cast<std::uint64_t>(dilation_w)},
                 {f::dilation_h, static_cast<std::uint64_t>(dilation_h)},
                 {f::channels1, static_cast<std::uint64_t>(channels1)}});
  }
};

// C x H x W (NCHW without N) -> 5HD, channels zero-padded to C1*16.
template <typename T>
std::vector<T> chw_to_5hd(const std::vector<T>& chw, std::size_t channels, std::size_t height, std::size_t width) {
  const std::size_t c1s = round_up(channels, 16) / 16;
  std::vector<T> out(c1s * height * width * 16, T{});
  for (std::size_t c = 0; c < channels; ++c)
    for (std::size_t h = 0; h < height; ++h)
      for (std::size_t w = 0; w < width; ++w)
        out[(((c / 16) * height + h) * width + w) * 16 + c % 16] = chw[(c * height + h) * width + w];
  return out;
}

// The whole im2col matrix, row-major (Ho*Wo) x (C1*kh*kw*16): row m = output
// position (oh, ow) = (m / Wo, m % Wo); column ((c1*kh + i)*kw + j)*16 + c0.
template <typename T>
std::vector<T> im2col(const std::vector<T>& fmap_5hd, const ConvGeometry& g) {
  const std::size_t rows = g.im2col_rows(), cols = g.im2col_cols();
  std::vector<T> out(rows * cols, T{});
  for (std::size_t m = 0; m < rows; ++m) {
    const std::int64_t oh = static_cast<std::int64_t>(m) / g.out_w(), ow = static_cast<std::int64_t>(m) % g.out_w();
    for (std::int64_t c1 = 0; c1 < g.channels1; ++c1)
      for (std::int64_t i = 0; i < g.kernel_h; ++i)
        for (std::int64_t j = 0; j < g.kernel_w; ++j)
          for (std::int64_t c0 = 0; c0 < 16; ++c0) {
            const std::int64_t h = oh * g.stride_h - g.pad_top + i * g.dilation_h;
            const std::int64_t w = ow * g.stride_w - g.pad_left + j * g.dilation_w;
            const std::size_t k = static_cast<std::size_t>(((c1 * g.kernel_h + i) * g.kernel_w + j) * 16 + c0);
            if (h >= 0 && h < g.height && w >= 0 && w < g.width)
              out[m * cols + k] = fmap_5hd[static_cast<std::size_t>(((c1 * g.height + h) * g.width + w) * 16 + c0)];
          }
  }
  return out;
}

// Weights O x C x kh x kw -> the GEMM B matrix (C1*kh*kw*16) x O, row-major,
// matching im2col's column order (channels beyond C are zero rows).
template <typename T>
std::vector<T> conv_weights_to_b(const std::vector<T>& oihw, std::size_t out_channels, std::size_t channels,
                                  std::size_t kernel_h, std::size_t kernel_w) {
  const std::size_t c1s = round_up(channels, 16) / 16, rows = c1s * kernel_h * kernel_w * 16;
  std::vector<T> out(rows * out_channels, T{});
  for (std::size_t o = 0; o < out_channels; ++o)
    for (std::size_t c = 0; c < channels; ++c)
      for (std::size_t i = 0; i < kernel_h; ++i)
        for (std::size_t j = 0; j < kernel_w; ++j) {
          const std::size_t k = (((c / 16) * kernel_h + i) * kernel_w + j) * 16 + c % 16;
          out[k * out_channels + o] = oihw[((o * channels + c) * kernel_h + i) * kernel_w + j];
        }
  return out;
}

// ---- GEMM ------------------------------------------------------------------

// The Cube's f16 semantics: C[i][n] starts at `initial` (row-major M x N;
// empty = zeros) and gets float(a)*float(b) added for k = 0, 1, ... in order,
// each addition rounded to nearest even in f32 (the products are exact).
inline std::vector<float> gemm_f16(const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& b,
                                   std::size_t m, std::size_t k, std::size_t n, std::vector<float> initial = {}) {
  if (initial.empty()) initial.assign(m * n, 0.0f);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      float acc = initial[i * n + j];
      for (std::size_t kk = 0; kk < k; ++kk) {
        const float product = numerics::half_to_float(a[i * k + kk]) * numerics::half_to_float(b[kk * n + j]);
        acc = acc + product;
      }
      initial[i * n + j] = acc;
    }
  return initial;
}

// s8 x s8 -> s32 with wrapping 32-bit accumulation.
inline std::vector<std::int32_t> gemm_s8(const std::vector<std::int8_t>& a, const std::vector<std::int8_t>& b,
                                         std::size_t m, std::size_t k, std::size_t n,
                                         std::vector<std::int32_t> initial = {}) {
  if (initial.empty()) initial.assign(m * n, 0);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      std::uint32_t acc = static_cast<std::uint32_t>(initial[i * n + j]);
      for (std::size_t kk = 0; kk < k; ++kk)
        acc += static_cast<std::uint32_t>(static_cast<std::int32_t>(a[i * k + kk]) * b[kk * n + j]);
      initial[i * n + j] = static_cast<std::int32_t>(acc);
    }
  return initial;
}

}  // namespace npuvp::test_support
