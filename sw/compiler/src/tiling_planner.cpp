#include "tiling_planner.h"

#include <algorithm>
#include <cmath>

namespace npuvp::compiler {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::int64_t round16(std::int64_t v) { return ceil_div(v, 16) * 16; }

// The modelled time of `units` tiles on `blocks` cores: the Cube and the DDR
// overlap when double buffered; each tile pays the DDR latency once.
double modelled_cycles(const SocBuffers& soc, double padded_macs, double ddr_bytes, std::int64_t units,
                       std::uint32_t blocks, bool double_buffering) {
  const double per_core_units = double(ceil_div(units, blocks));
  const double imbalance = per_core_units * blocks / double(units);
  const double compute = padded_macs / (soc.cube_macs_per_cycle * blocks) * imbalance;
  const double memory = ddr_bytes / soc.ddr_bytes_per_cycle;
  const double latency = per_core_units * soc.get("DDR").latency_cycles;
  return (double_buffering ? std::max(compute, memory) : compute + memory) + latency;
}

}  // namespace

std::uint32_t balanced_blocks(const SocBuffers& soc, std::int64_t units) {
  return std::uint32_t(std::clamp<std::int64_t>(units, 1, soc.ai_cores));
}

std::string ConvTiling::text() const {
  return "TILE_HO=" + std::to_string(tile_ho) + " TILE_COUT=" + std::to_string(tile_cout) +
         " blocks=" + std::to_string(blocks);
}

std::string MatmulTiling::text() const {
  return "TILE_M=" + std::to_string(tile_m) + " TILE_N=" + std::to_string(tile_n) +
         " blocks=" + std::to_string(blocks);
}

ConvTiling plan_conv(const SocBuffers& soc, const ConvProblem& p, bool double_buffering) {
  const std::uint64_t sets = double_buffering ? 2 : 1;
  const std::uint64_t l1 = soc.get("L1").bytes, l0c = soc.get("L0C").bytes;
  const std::int64_t kc = p.c1in * p.kh * p.kw * 16, cout16 = round16(p.cout);
  const std::int64_t c1out = cout16 / 16;
  const double true_macs = double(p.n) * p.ho * p.wo * p.cout * (p.c1in * 16) * p.kh * p.kw;
  const double out_bytes = double(p.n) * c1out * p.ho * p.wo * 32;
  ConvTiling best;
  for (std::int64_t tile_ho = 1; tile_ho <= p.ho; ++tile_ho) {
    const std::int64_t in_rows =
        std::min<std::int64_t>(p.h, (tile_ho - 1) * p.stride_h + (p.kh - 1) * p.dilation_h + 1);
    const std::uint64_t in_tile = std::uint64_t(p.c1in * in_rows * p.w * 32);
    const std::int64_t m16 = round16(tile_ho * p.wo);
    const std::int64_t n_ho = ceil_div(p.ho, tile_ho);
    // Rows of the M dimension the Cube computes, padding included.
    const std::int64_t last_rows = p.ho - (n_ho - 1) * tile_ho;
    const double padded_rows = double((n_ho - 1) * m16 + round16(last_rows * p.wo));
    for (std::int64_t tile_cout = 16; tile_cout <= cout16; tile_cout += 16) {
      const std::uint64_t w_stage = std::uint64_t(std::min(kc, kPlannerKStage) * tile_cout * 2);
      const std::uint64_t l1_use = in_tile + w_stage, l0c_use = std::uint64_t(m16 * tile_cout * 4);
      if (sets * l1_use > l1 || sets * l0c_use > l0c) continue;
      ++best.candidates;
      const std::int64_t n_co = ceil_div(cout16, tile_cout);
      const std::int64_t units = p.n * n_ho * n_co;
      const std::uint32_t blocks = balanced_blocks(soc, units);
      const std::int64_t per_block = ceil_div(units, blocks);
      const double input_reads = double(ceil_div(n_co, std::min(per_block, n_co)));
      const double ddr = double(p.n) * n_ho * in_tile * input_reads + double(units) * kc * tile_cout * 2 + out_bytes;
      const double padded_macs = double(p.n) * padded_rows * kc * (n_co * tile_cout);
      const double cycles = modelled_cycles(soc, padded_macs, ddr, units, blocks, double_buffering);
      if (best.tile_ho == 0 || cycles < best.cycles) {
        const int candidates = best.candidates;
        best = {tile_ho, tile_cout, blocks, l1_use, l0c_use, std::uint64_t(ddr), cycles,
                true_macs / (cycles * soc.cube_macs_per_cycle * soc.ai_cores), candidates};
      }
    }
  }
  if (best.tile_ho == 0) {  // nothing fits the model: let the kernel choose
    best.tile_ho = 0;
    best.tile_cout = 0;
    best.blocks = balanced_blocks(soc, p.n * p.ho);
  }
  return best;
}

MatmulTiling plan_matmul(const SocBuffers& soc, const MatmulProblem& p, bool double_buffering) {
  const std::uint64_t sets = double_buffering ? 2 : 1;
  const std::uint64_t l1 = soc.get("L1").bytes, l0c = soc.get("L0C").bytes;
  const std::int64_t k_stage = round16(std::min(p.k, kPlannerKStage));
  const std::int64_t m16 = round16(p.m), n16 = round16(p.n), k16 = round16(p.k);
  const double true_macs = double(p.batch) * p.m * p.k * p.n;
  MatmulTiling best;
  for (std::int64_t tile_m = 16; tile_m <= std::min<std::int64_t>(m16, 1024); tile_m += 16) {
    for (std::int64_t tile_n = 16; tile_n <= std::min<std::int64_t>(n16, 1024); tile_n += 16) {
      const std::uint64_t l1_use = std::uint64_t((tile_m + tile_n) * k_stage * 2);
      const std::uint64_t l0c_use = std::uint64_t(tile_m * tile_n * 4);
      if (sets * l1_use > l1 || sets * l0c_use > l0c) continue;
      ++best.candidates;
      const std::int64_t n_m = ceil_div(p.m, tile_m), n_n = ceil_div(p.n, tile_n);
      const std::int64_t units = p.batch * n_m * n_n;
      const std::uint32_t blocks = balanced_blocks(soc, units);
      const double a_bytes = double(p.batch) * p.m * p.k * 2;
      const double b_bytes = double(p.b_shared ? 1 : p.batch) * p.k * p.n * 2;
      const double ddr = a_bytes * n_n + b_bytes * n_m * (p.b_shared ? p.batch : 1) + double(p.batch) * p.m * p.n * 2;
      const double padded_macs = double(p.batch) * (n_m * tile_m) * k16 * (n_n * tile_n);
      const double cycles = modelled_cycles(soc, padded_macs, ddr, units, blocks, double_buffering);
      if (best.tile_m == 0 || cycles < best.cycles) {
        const int candidates = best.candidates;
        best = {tile_m, tile_n, blocks, l1_use, l0c_use, std::uint64_t(ddr), cycles,
                true_macs / (cycles * soc.cube_macs_per_cycle * soc.ai_cores), candidates};
      }
    }
  }
  if (best.tile_m == 0) best.blocks = balanced_blocks(soc, p.batch * ceil_div(p.m, 16));
  return best;
}

}  // namespace npuvp::compiler
