// Plain f32 reference implementations of the ONNX ops the compiler tests use
// (NCHW / row-major, no layouts, no fusion): the independent side of the
// numeric comparisons.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

namespace npuvp::compiler::test::ref {

struct Tensor {
  std::vector<std::int64_t> shape;
  std::vector<float> data;
  std::int64_t size() const { std::int64_t n = 1; for (auto d : shape) n *= d; return n; }
};

inline Tensor conv2d(const Tensor& x, const std::vector<float>& w, const std::vector<float>& bias, std::int64_t cout,
                     std::int64_t kh, std::int64_t kw, std::int64_t stride, std::int64_t pad, std::int64_t group = 1,
                     std::int64_t dilation = 1) {
  const auto n = x.shape[0], cin = x.shape[1], h = x.shape[2], wd = x.shape[3];
  const auto ho = (h + 2 * pad - dilation * (kh - 1) - 1) / stride + 1, wo = (wd + 2 * pad - dilation * (kw - 1) - 1) / stride + 1;
  const auto cin_g = cin / group, cout_g = cout / group;
  Tensor y{{n, cout, ho, wo}, std::vector<float>(n * cout * ho * wo)};
  for (std::int64_t b = 0; b < n; ++b)
    for (std::int64_t co = 0; co < cout; ++co)
      for (std::int64_t i = 0; i < ho; ++i)
        for (std::int64_t j = 0; j < wo; ++j) {
          float acc = bias.empty() ? 0.f : bias[co];
          const auto g = co / cout_g;
          for (std::int64_t ci = 0; ci < cin_g; ++ci)
            for (std::int64_t p = 0; p < kh; ++p)
              for (std::int64_t q = 0; q < kw; ++q) {
                const auto iy = i * stride - pad + p * dilation, ix = j * stride - pad + q * dilation;
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                acc += x.data[((b * cin + g * cin_g + ci) * h + iy) * wd + ix] * w[((co * cin_g + ci) * kh + p) * kw + q];
              }
          y.data[((b * cout + co) * ho + i) * wo + j] = acc;
        }
  return y;
}

// ceil_mode as PyTorch: the output rounds up, but no window starts in the end padding.
inline std::int64_t pool_output(std::int64_t size, std::int64_t k, std::int64_t stride, std::int64_t pad, bool ceil_mode) {
  std::int64_t out = (size + 2 * pad - k + (ceil_mode ? stride - 1 : 0)) / stride + 1;
  if (ceil_mode && (out - 1) * stride >= size + pad) --out;
  return out;
}

inline Tensor pool2d(const Tensor& x, std::int64_t k, std::int64_t stride, std::int64_t pad, bool max, bool include_pad = false,
                     bool ceil_mode = false) {
  const auto n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  const auto ho = pool_output(h, k, stride, pad, ceil_mode), wo = pool_output(w, k, stride, pad, ceil_mode);
  Tensor y{{n, c, ho, wo}, std::vector<float>(n * c * ho * wo)};
  for (std::int64_t b = 0; b < n * c; ++b)
    for (std::int64_t i = 0; i < ho; ++i)
      for (std::int64_t j = 0; j < wo; ++j) {
        float acc = max ? -INFINITY : 0.f;
        int count = 0;
        for (std::int64_t p = 0; p < k; ++p)
          for (std::int64_t q = 0; q < k; ++q) {
            const auto iy = i * stride - pad + p, ix = j * stride - pad + q;
            if (iy < 0 || iy >= h || ix < 0 || ix >= w) { count += include_pad; continue; }
            const float v = x.data[(b * h + iy) * w + ix];
            acc = max ? std::max(acc, v) : acc + v;
            ++count;
          }
        y.data[(b * ho + i) * wo + j] = max ? acc : acc / float(count);
      }
  return y;
}

inline Tensor global_average(const Tensor& x) {
  const auto n = x.shape[0], c = x.shape[1], hw = x.shape[2] * x.shape[3];
  Tensor y{{n, c, 1, 1}, std::vector<float>(n * c)};
  for (std::int64_t b = 0; b < n * c; ++b) {
    float s = 0;
    for (std::int64_t k = 0; k < hw; ++k) s += x.data[b * hw + k];
    y.data[b] = s / float(hw);
  }
  return y;
}

// [..., M, K] x [K, N] (+ bias[N]).
inline Tensor matmul(const Tensor& a, const std::vector<float>& b, std::int64_t n, const std::vector<float>& bias = {}) {
  const auto k = a.shape.back(), m = a.size() / k;
  Tensor y{a.shape, std::vector<float>(m * n)};
  y.shape.back() = n;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      float acc = bias.empty() ? 0.f : bias[j];
      for (std::int64_t p = 0; p < k; ++p) acc += a.data[i * k + p] * b[p * n + j];
      y.data[i * n + j] = acc;
    }
  return y;
}

// Batched [B, M, K] x [B, K, N].
inline Tensor batched_matmul(const Tensor& a, const Tensor& b) {
  const auto batch = a.shape[0], m = a.shape[1], k = a.shape[2], n = b.shape[2];
  Tensor y{{batch, m, n}, std::vector<float>(batch * m * n)};
  for (std::int64_t q = 0; q < batch; ++q)
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        float acc = 0;
        for (std::int64_t p = 0; p < k; ++p) acc += a.data[(q * m + i) * k + p] * b.data[(q * k + p) * n + j];
        y.data[(q * m + i) * n + j] = acc;
      }
  return y;
}

inline Tensor map(Tensor x, const std::function<float(float)>& f) {
  for (auto& v : x.data) v = f(v);
  return x;
}

inline Tensor zip(Tensor x, const Tensor& y, const std::function<float(float, float)>& f) {
  for (size_t k = 0; k < x.data.size(); ++k) x.data[k] = f(x.data[k], y.data[k]);
  return x;
}

// Per-channel (axis 1) affine: x * scale[c] + shift[c].
inline Tensor channel_affine(Tensor x, const std::vector<float>& scale, const std::vector<float>& shift) {
  const auto c = x.shape[1];
  std::int64_t inner = 1;
  for (size_t d = 2; d < x.shape.size(); ++d) inner *= x.shape[d];
  for (std::int64_t k = 0; k < x.size(); ++k) {
    const auto ch = (k / inner) % c;
    x.data[k] = x.data[k] * scale[ch] + shift[ch];
  }
  return x;
}

inline Tensor softmax_rows(Tensor x) {
  const auto cols = x.shape.back(), rows = x.size() / cols;
  for (std::int64_t r = 0; r < rows; ++r) {
    float* row = x.data.data() + r * cols;
    const float top = *std::max_element(row, row + cols);
    float sum = 0;
    for (std::int64_t c = 0; c < cols; ++c) sum += row[c] = std::exp(row[c] - top);
    for (std::int64_t c = 0; c < cols; ++c) row[c] /= sum;
  }
  return x;
}

inline Tensor layernorm_rows(Tensor x, const std::vector<float>& gamma, const std::vector<float>& beta, float eps) {
  const auto cols = x.shape.back(), rows = x.size() / cols;
  for (std::int64_t r = 0; r < rows; ++r) {
    float* row = x.data.data() + r * cols;
    double mean = 0, var = 0;
    for (std::int64_t c = 0; c < cols; ++c) mean += row[c];
    mean /= double(cols);
    for (std::int64_t c = 0; c < cols; ++c) var += (row[c] - mean) * (row[c] - mean);
    var /= double(cols);
    for (std::int64_t c = 0; c < cols; ++c) row[c] = float((row[c] - mean) / std::sqrt(var + eps)) * gamma[c] + beta[c];
  }
  return x;
}

// Permutes the axes of x (perm[d] = the input axis of output axis d).
inline Tensor transpose(const Tensor& x, const std::vector<std::int64_t>& perm) {
  const size_t rank = x.shape.size();
  std::vector<std::int64_t> in_strides(rank, 1), shape(rank);
  for (int d = int(rank) - 2; d >= 0; --d) in_strides[d] = in_strides[d + 1] * x.shape[d + 1];
  for (size_t d = 0; d < rank; ++d) shape[d] = x.shape[perm[d]];
  Tensor y{shape, std::vector<float>(x.size())};
  std::vector<std::int64_t> index(rank, 0);
  for (std::int64_t k = 0; k < y.size(); ++k) {
    std::int64_t src = 0;
    for (size_t d = 0; d < rank; ++d) src += index[d] * in_strides[perm[d]];
    y.data[k] = x.data[src];
    for (int d = int(rank) - 1; d >= 0; --d) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return y;
}

inline float gelu(float x) { return x * 0.5f * (1 + std::erf(x / std::sqrt(2.f))); }

// Cosine similarity and the largest absolute error relative to the largest |expected|.
struct Agreement { double cosine, relative_error; };
inline Agreement agreement(const std::vector<float>& got, const std::vector<float>& expected) {
  double dot = 0, g2 = 0, e2 = 0, worst = 0, scale = 1e-6;
  for (size_t k = 0; k < got.size(); ++k) {
    dot += double(got[k]) * expected[k];
    g2 += double(got[k]) * got[k];
    e2 += double(expected[k]) * expected[k];
    worst = std::max(worst, std::fabs(double(got[k]) - expected[k]));
    scale = std::max(scale, std::fabs(double(expected[k])));
  }
  return {dot / std::sqrt(g2 * e2 + 1e-30), worst / scale};
}

}  // namespace npuvp::compiler::test::ref
