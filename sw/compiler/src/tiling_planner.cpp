#include "tiling_planner.h"

#include <algorithm>
#include <cmath>

namespace npuvp::compiler {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::int64_t round16(std::int64_t v) { return ceil_div(v, 16) * 16; }

// The busiest core's work in a plan: `compute` the cycles its Cube needs (or MTE1
// feeding it from L1, or its scalar unit issuing the C tiles, whichever is slowest),
// `port` the cycles its MTE2 port (soc.aicoreN.mte2.bandwidth) needs for the bytes it reads.
struct CoreLoad {
  double compute = 0, port = 0;
  double tiles = 0;  // Conv: the C tiles the core computes (0: count the units)
  bool weights_resident = false;  // Conv: all its weights stay in L1
};

// The Cube (or MTE1) cycles of `padded_macs` MACs fed with `mte1_bytes` of fractals
// from L1: a core computes at the slower of the two.
double compute_cycles(const SocBuffers& soc, double padded_macs, double mte1_bytes) {
  return std::max(padded_macs / soc.cube_macs_per_cycle, mte1_bytes / soc.get("L0A").bytes_per_cycle);
}

// The write-back of a C tile of `elements` f32 accumulators after its last mmad: L0C -> UB
// conversion, then the MTE3 store, in two halves (write_back_tile, epilogue_write_back) so the
// store of the first overlaps the conversion of the second.
// `ddr_share`: the DDR bandwidth the core gets (bytes per cycle), when it is below MTE3's.
double write_back_cycles(const SocBuffers& soc, double elements, double ddr_share) {
  const double convert = elements * 4 / soc.cc_to_ub_bytes_per_cycle;
  const double store = elements * 2 / std::min(soc.mte3_bytes_per_cycle, ddr_share);
  return convert / 2 + std::max(convert, store) / 2 + store / 2;
}

// The modelled time of `units` tiles on `blocks` cores, the busiest core doing
// `core`. Double buffered, the Cube, the core's load port and the DDR overlap
// except for the software pipeline's fill and drain (DLIR's focus window): `fill`,
// the cycles before the Cube can start and after it stops (by default one tile's
// worth per core: its loads before the Cube starts and its results after it stops).
// Serial, they add up. Each tile pays the DDR latency once (DLIR's seg / B + L per
// load) and the kernels' fixed cost of a tile (kTileOverheadCycles).
// `l2_bytes` of the traffic come from the L2 buffer instead, in parallel with the DDR,
// when the L2 is the faster; with an L2 no faster (the HBM-class SoC: both 512 GB/s) they
// are priced as DDR bytes, as calibrated (priced at the L2's, ResNet-50 on 16 HBM-class
// AI Cores chose plans that ran 8 % slower).
double modelled_cycles(const SocBuffers& soc, const CoreLoad& core, double ddr_bytes, double l2_bytes,
                       std::int64_t units, std::uint32_t blocks, bool double_buffering, double fill = -1) {
  // Concurrent streams beyond the DDR's channels cost row misses and bank conflicts.
  const double channels = std::max(2.0, std::round(soc.ddr_bytes_per_cycle * soc.clock_hz / kDdrChannelBytesPerSecond));
  const double contention = 1 + kDdrStreamPenalty * std::max(0.0, double(blocks) - channels);
  const double l2_bandwidth = soc.get("L2").bytes_per_cycle;
  if (soc.l2_priced_as_ddr()) l2_bytes = 0;
  const double l2 = l2_bandwidth > 0 ? l2_bytes / l2_bandwidth : 0;
  const double ddr_time = (ddr_bytes - l2_bytes) / soc.ddr_bytes_per_cycle * contention;
  const double memory = std::max({ddr_time, l2, core.port});
  // A given fill (op_conv.c's first part and last write-back) and C tile count stand for a
  // pipelined core whose Cube (or what feeds it inside the core) is the limit, or whose weights
  // stay in L1 (op_conv.c then loads only slices and pipelines its C tiles whatever the limit;
  // plan_conv adds the wait for those weights), or whose memory limit is the L2 buffer, not the
  // DDR: it streams without the DDR's queueing (ResNet-18's layer3.0 3 x 3 stride 2 with pinned
  // weights: a single-unit block modelled 52 k cycles, measured 22.7 k). A DDR-bound plan
  // streaming its weights keeps a unit's worth of fill per core and the units as tiles: its loads
  // and stores wait for the DDR, and so calibrated on the default SoC, fewer and busier blocks
  // contend less.
  const bool l2_limits = l2 > 0 && l2 >= std::max(ddr_time, core.port);
  const bool core_bound = double_buffering && fill >= 0 && core.tiles > 0 &&
                          (core.weights_resident || core.compute >= memory || l2_limits);
  const double per_core_units = core_bound ? core.tiles : double(ceil_div(units, blocks));
  const double latency =
      per_core_units * (soc.get("DDR").latency_cycles + (core_bound ? kPipelinedCTileOverheadCycles : kTileOverheadCycles));
  // The task scheduler starts a launch's blocks one after the other: the last starts later.
  const double dispatch = double(std::min<std::uint32_t>(blocks, soc.ai_cores) - 1) * kBlockDispatchCycles;
  if (!double_buffering) return core.compute + memory + latency + dispatch;
  if (!core_bound) fill = (core.compute + memory) / per_core_units;
  return std::max(core.compute, memory) + fill + latency + dispatch;
}

// op_conv.c's split of a Conv: units (image, spatial tile of tile_ho output rows,
// Cout group of `group` channels), Cout group innermost; block b of B takes units
// [U*b/B, U*(b+1)/B). Their Cube work is padded positions x channels.
struct ConvUnits {
  std::int64_t n_ho, n_co, tile_ho, ho, wo, cout16, group;
  std::int64_t units(std::int64_t n) const { return n * n_ho * n_co; }
  double padded_positions(std::int64_t st) const { return double(round16(std::min(tile_ho, ho - st * tile_ho) * wo)); }
  // Padded positions x channels of units [0, u).
  double work_before(std::int64_t u) const {
    const std::int64_t per_image = n_ho * n_co, img = u / per_image, st = u % per_image / n_co, cg = u % n_co;
    const double image = double((n_ho - 1) * round16(tile_ho * wo)) + padded_positions(n_ho - 1);
    return double(img) * image * double(cout16) + double(st * round16(tile_ho * wo)) * double(cout16) +
           padded_positions(st) * double(std::min(cg * group, cout16));
  }
};

}  // namespace

std::uint32_t balanced_blocks(const SocBuffers& soc, std::int64_t units) {
  return std::uint32_t(std::clamp<std::int64_t>(units, 1, soc.ai_cores));
}

std::vector<std::uint32_t> block_candidates(const SocBuffers& soc, std::int64_t units) {
  const std::uint32_t most = balanced_blocks(soc, units);
  std::vector<std::uint32_t> candidates;
  for (std::uint32_t b = 1; b < most; b *= 2) candidates.push_back(b);
  candidates.push_back(most);
  return candidates;
}

std::string ConvTiling::text() const {
  return "TILE_HO=" + std::to_string(tile_ho) + " TILE_COUT=" + std::to_string(tile_cout) +
         " blocks=" + std::to_string(blocks) + (tall ? " tall=" + std::to_string(tall) : "") +
         (whole_l0c ? " whole-L0C" : "");
}

std::string MatmulTiling::text() const {
  return "TILE_M=" + std::to_string(tile_m) + " TILE_N=" + std::to_string(tile_n) +
         " blocks=" + std::to_string(blocks);
}

namespace {

// The share of a memory that each of `blocks` blocks gets, bytes per cycle: the L2's when
// `in_l2` and the L2 is faster than the DDR, else the DDR's.
double memory_share(const SocBuffers& soc, bool in_l2, std::uint32_t blocks) {
  const bool l2 = in_l2 && !soc.l2_priced_as_ddr();
  return (l2 ? soc.get("L2").bytes_per_cycle : soc.ddr_bytes_per_cycle) / blocks;
}

// The share of the memory a Conv's input is in that each of `blocks` blocks gets.
double input_memory_share(const SocBuffers& soc, const ConvProblem& p, std::uint32_t blocks) {
  return memory_share(soc, p.input_in_l2, blocks);
}

// The rate each of `blocks` blocks receives weights at: its share of the memory they are in
// (the DDR, or the L2 buffer for pinned weights), at most what its MTE2 gets from the ring.
double weights_rate(const SocBuffers& soc, const ConvProblem& p, std::uint32_t blocks) {
  return std::min(soc.core_fill_bytes_per_cycle, memory_share(soc, p.weights_in_l2, blocks));
}

// What every Conv candidate of a layer shares.
struct ConvLayer {
  const SocBuffers& soc;
  const ConvProblem& p;
  bool double_buffering;
  std::int64_t kc, cout16;
  double out_bytes;
  std::uint64_t weight_bytes;
  // All weight panels stay in L1 when they take at most half of it; otherwise
  // two panel slots stream them (one load per unit and panel).
  bool resident() const { return weight_bytes <= soc.get("L1").bytes / 2; }
};

// One tiling: TILE_HO, TILE_COUT, task blocks, the C tiles' height (conv_plan.h), and the L1 it
// takes: `slots` input slices of `slice` bytes beside the weights' `panel_area`.
struct ConvCandidate {
  std::int64_t tile_ho, tile_cout;
  std::uint32_t blocks;
  unsigned tall;
  std::uint64_t slice, slots, panel_area;
  bool whole_l0c = false;
};

// The rates a block's loads move at, bytes per AI Core cycle: its input (from the L2 or the
// DDR, at most its MTE2 port), its weights (the DDR), its output.
struct BlockRates {
  double input, weights, output;
};

struct ConvCost {
  double cycles, ddr_bytes;
  double timeline = 0;  // resident_block_cycles where it applies, else 0
  // The busiest block (units [busiest_u0, busiest_u1)), its rates, and whether every block is
  // one band's units (whole_l0c_pays decides on the chosen plan with them).
  std::int64_t busiest_u0 = 0, busiest_u1 = 0;
  BlockRates rates{};
  bool one_band_each = false;
};

// Whole-L0C tiles (conv_plan.h) for bands of tile_ho rows: where the kernel runs them (resident
// weights in 128-column tiles, double buffered, no residual) and where they differ from a half's
// (a band of more than one M chunk, up to 512 positions).
bool whole_l0c_applies(const ConvLayer& layer, std::int64_t tile_ho) {
  const std::uint64_t band = std::uint64_t(tile_ho * layer.p.wo);
  return !layer.p.residual && npuvp_conv_whole_l0c(layer.double_buffering, layer.resident(),
                                                   npuvp_conv_tile_columns(1, band, 0), band);
}

// What a core's MTE2 receives of its share of the L2's port when the cores stream together,
// measured: 27.6 B/cycle each of 32 (ResNet-50's layer2.0 3 x 3 on the default SoC, two cores;
// alone, a core gets 28.7 of its 32-byte ring link). Only whole_l0c_pays uses it: whether a first
// C tile's loads outrun its Cube work turns on a few percent of the rate; the plans' costs keep
// the nominal rates their other terms were calibrated with.
constexpr double kStreamingShareMeasured = 0.86;

// op_conv.c's C tiles of the block computing units [u0, u1) with resident weights, one after the
// other, each loading what it first needs (its piece of a new slice; the weight columns the block
// has not loaded yet) through MTE2 up to LOOKAHEAD (2) tiles ahead of the Cube: the block's time
// from its start to its last write-back. The block's first tile computes its K parts as they
// arrive; a later tile's weight columns come in panel tokens (conv_plan.h); a slice piece whole.
// With the DDR the limit this is what decides: a block's Cube waits for weight columns whose
// arrival it cannot overlap (layer3.0's 1 x 1 512 -> 256 with the default DDR: 68 k cycles in
// 7-row tiles, the weights of each 128-column half of the span arriving before its tiles).
// `split_tail`: the last tile's write-back after its last mmad is only its column-split tail's
// second pass's groups (more than 3 column groups: op_conv.c's column_split_tail).
double resident_block_cycles(const ConvLayer& layer, const ConvCandidate& c, std::int64_t u0, std::int64_t u1,
                             const BlockRates& rates, bool split_tail = false) {
  const ConvProblem& p = layer.p;
  const SocBuffers& soc = layer.soc;
  const std::int64_t n_co = ceil_div(layer.cout16, c.tile_cout), n_ho = ceil_div(p.ho, c.tile_ho);
  // the kernel's C tiles and K parts (conv_plan.h)
  const std::uint64_t tn = npuvp_conv_tile_columns(1, std::uint64_t(c.tile_ho * p.wo), c.tall);
  const std::int64_t columns_max = std::int64_t(tn), chunk = std::int64_t(npuvp_conv_chunk_positions(tn, c.whole_l0c));
  const double parts = double(conv_k_parts(p.c1in, layer.kc / 16, tn));
  const double start = kConvBlockStartCycles;
  // the Cube's start of the previous two tiles (a tile's loads are issued two tiles ahead)
  double started_before_last = start, started_last = start;
  std::int64_t tiles = 0;
  double load_end = start, compute_end = start, last_write_back = 0;
  std::int64_t loaded_lo = 0, loaded_hi = 0;  // the weight columns in L1 (channels)
  for (std::int64_t u = u0; u < u1;) {
    const std::int64_t rows_unit = u / n_co, st = rows_unit % n_ho, cg = u % n_co;
    const std::int64_t span_units = std::min(u1, (rows_unit + 1) * n_co) - u;
    const std::int64_t c0 = cg * c.tile_cout, channels = std::min(layer.cout16, (cg + span_units) * c.tile_cout) - c0;
    const std::int64_t positions = std::min(c.tile_ho, p.ho - st * c.tile_ho) * p.wo;
    const std::int64_t chunks = ceil_div(positions, chunk);
    for (std::int64_t n0 = c0; n0 < c0 + channels; n0 += columns_max) {
      const std::int64_t cols = std::min(columns_max, c0 + channels - n0);
      for (std::int64_t j = 0; j < chunks; ++j) {
        const std::int64_t rows = std::min(chunk, positions - j * chunk);
        double weight_bytes = 0;
        if (j == 0) {  // the columns the block has not loaded yet
          const std::int64_t missing = cols - std::max<std::int64_t>(0, std::min(loaded_hi, n0 + cols) - std::max(loaded_lo, n0));
          weight_bytes = double(layer.kc) * double(missing) * 2;
          loaded_lo = loaded_hi == loaded_lo ? n0 : std::min(loaded_lo, n0);
          loaded_hi = std::max(loaded_hi, n0 + cols);
        }
        const double piece = n0 == c0 ? double(c.slice) * double(rows) / double(positions) : 0;
        const double load = piece / rates.input + weight_bytes / rates.weights;
        const double load_start = std::max(load_end, started_before_last);
        load_end = load_start + load;
        const double work = std::max(double(round16(rows)) * double(layer.kc) * double(cols) / soc.cube_macs_per_cycle,
                                     kCTileScalarCycles);
        // the Cube starts on the first K part (first tile) or panel token (weights), else the whole piece
        const double tokens = tiles++ == 0 ? parts : weight_bytes > 0 ? double(NPUVP_CONV_PANEL_TOKENS) : 1;
        // (whole-L0C tiles: once the previous tile's write-back has emptied L0C)
        const double begin = std::max(compute_end + (c.whole_l0c ? last_write_back : 0), load_start + load / tokens);
        started_before_last = started_last;
        started_last = begin;
        compute_end = std::max(begin + work, load_end + work / tokens);
        const std::int64_t groups = ceil_div(cols, 16);
        const double tail_cols =
            split_tail && groups > 3
                ? double(std::min<std::int64_t>(cols, 16 * std::int64_t(npuvp_conv_tail_second_groups(
                                                              std::uint64_t(groups), c.whole_l0c))))
                : double(cols);
        last_write_back = write_back_cycles(soc, double(round16(rows)) * tail_cols, rates.output);
      }
    }
    u += span_units;
  }
  return compute_end + last_write_back;
}

// Whole-L0C tiles pay where the kernel runs them, every block is one band of at most 128 channels
// (so one tile, which needs no second L0C half) and its schedule, at the rates the cores measure
// when they stream together, ends sooner than in half tiles: a half's first tile (256 positions)
// brings its slice piece and all the weights for half the band's Cube work and waits for MTE2
// (ResNet-50's layer2.0 3 x 3 stride 2: 566 KB for 18.4 k Cube cycles at ~27.6 B/cycle), a whole
// tile brings the band's rows with the same weights for all of it; its write-back after the last
// mmad is longer. Decided once, on the plan the search chose (`cost` its ConvCost).
bool whole_l0c_pays(const ConvLayer& layer, const ConvCandidate& c, const ConvCost& cost) {
  if (c.tall != 0 || !cost.one_band_each || layer.cout16 > kConvMaxColumns ||
      !whole_l0c_applies(layer, c.tile_ho))
    return false;
  const BlockRates measured{cost.rates.input * kStreamingShareMeasured, cost.rates.weights * kStreamingShareMeasured,
                            cost.rates.output};
  ConvCandidate whole = c;
  whole.whole_l0c = true;
  return resident_block_cycles(layer, whole, cost.busiest_u0, cost.busiest_u1, measured, true) <
         resident_block_cycles(layer, c, cost.busiest_u0, cost.busiest_u1, measured, true);
}

// The modelled time of op_conv.c running the layer as `c` says (docs/compiler.md, "Tiling").
ConvCost conv_cost(const ConvLayer& layer, const ConvCandidate& c) {
  const SocBuffers& soc = layer.soc;
  const ConvProblem& p = layer.p;
  const bool resident = layer.resident();
  const std::int64_t kc = layer.kc, cout16 = layer.cout16, tile_ho = c.tile_ho, tile_cout = c.tile_cout;
  const std::uint32_t blocks = c.blocks;
  const double slice = double(c.slice);
  // A C tile: an M chunk of positions x up to `columns_max` channels of the block's span.
  const std::int64_t chunk = kConvTilePositions << c.tall;
  const std::int64_t columns_max = kConvMaxColumns >> c.tall;
  const std::int64_t tn = std::min<std::int64_t>(tile_cout, columns_max);
  const std::int64_t n_co = ceil_div(cout16, tile_cout), n_ho = ceil_div(p.ho, tile_ho);
  const std::int64_t units = p.n * n_ho * n_co;
  const ConvUnits split{n_ho, n_co, tile_ho, p.ho, p.wo, cout16, tile_cout};
  const double port = soc.get("L1").bytes_per_cycle;
  const double input_rate = std::min(port, input_memory_share(soc, p, blocks));
  const double output_share = memory_share(soc, p.output_in_l2, blocks);
  const double panel = double(kc) * tile_cout * 2;
  // The Cube computes each unit's positions rounded up to 16.
  const std::int64_t last_rows = p.ho - (n_ho - 1) * tile_ho;
  const double padded_rows = double((n_ho - 1) * round16(tile_ho * p.wo) + round16(last_rows * p.wo));
  const double padded_work = double(p.n) * padded_rows * double(n_co * tile_cout);
  // MTE1: the im2col rows once per C tile column, the B panel once per M chunk.
  const double columns = double(n_co) * double(ceil_div(tile_cout, tn));
  const double chunks = double(p.n) * double(n_ho) * double(ceil_div(tile_ho * p.wo, chunk));
  const double mte1 = double(p.n) * padded_rows * kc * 2 * columns + chunks * kc * 2 * double(n_co * tile_cout);
  // The busiest block: its share of the padded work (the last spatial tile is short, so
  // equal unit counts are not equal work) and the slices and weights its port reads.
  CoreLoad busiest;
  busiest.weights_resident = resident;
  double busiest_slices = 1, total_slices = 0, total_weights = 0, busiest_share = -1;
  std::int64_t busiest_u0 = 0, busiest_u1 = 0;
  bool one_band_each = true;  // every block's units are one band's (one span of channels)
  for (std::uint32_t b = 0; b < blocks; ++b) {
    const std::int64_t u0 = units * b / blocks, u1 = units * (b + 1) / blocks;
    if (u0 >= u1) continue;
    one_band_each = one_band_each && u0 / n_co == (u1 - 1) / n_co;
    const double share = (split.work_before(u1) - split.work_before(u0)) / padded_work;
    const double slices = double((u1 - 1) / n_co - u0 / n_co + 1);
    const double block_weights = resident ? double(std::min(n_co, u1 - u0)) * panel : double(u1 - u0) * panel;
    // The block's consecutive units of the same rows form one span (adjacent channels), computed
    // as C tiles of an M chunk x up to columns_max channels, each issued by the scalar unit.
    const std::int64_t span_channels = std::min<std::int64_t>(cout16, std::min(n_co, u1 - u0) * tile_cout);
    const double c_tiles = slices * double(ceil_div(tile_ho * p.wo, chunk) * ceil_div(span_channels, columns_max));
    busiest.compute = std::max({busiest.compute, share * compute_cycles(soc, padded_work * kc, mte1),
                                c_tiles * kCTileScalarCycles});
    busiest.tiles = std::max(busiest.tiles, c_tiles);
    busiest_slices = std::max(busiest_slices, slices);
    total_slices += slices;
    total_weights += block_weights;
    if (share > busiest_share) {
      busiest_share = share;
      busiest_u0 = u0;
      busiest_u1 = u1;
    }
    busiest.port = std::max(busiest.port, (slices * slice + block_weights) / port);
  }
  const double input_bytes = total_slices * slice;
  const double ddr = input_bytes + total_weights + layer.out_bytes;
  const double l2 = (p.input_in_l2 ? input_bytes : 0) + (p.weights_in_l2 ? total_weights : 0) +
                    (p.output_in_l2 ? layer.out_bytes : 0);
  // op_conv.c's fill: its first C tile loads the slice piece of its first M chunk and its
  // weight columns in K parts and the Cube starts after the first part; its drain: the
  // last C tile's write-back. Neither depends on how many units a block has. The input moves
  // at the core's port or its share of the memory it is in, the weights at its DDR share.
  const double parts = double(conv_k_parts(p.c1in, kc / 16));
  const double first_slice_part = slice * std::min(1.0, double(chunk) / double(tile_ho * p.wo)) / parts;
  const double first_weight_part = double(resident ? kc : std::min<std::int64_t>(kc, kPlannerKStage)) * tn * 2 / parts;
  const double weights_share = memory_share(soc, p.weights_in_l2, blocks);
  const double fill = first_slice_part / input_rate + first_weight_part / std::min(port, weights_share) +
                      soc.get("DDR").latency_cycles +
                      write_back_cycles(soc, double(round16(std::min(chunk, tile_ho * p.wo)) * tn), output_share);
  double cycles = modelled_cycles(soc, busiest, ddr, l2, units, blocks, layer.double_buffering, fill);
  // Resident weights: the busiest block's C tiles one after the other, as they wait for their loads.
  double timeline = 0;
  const BlockRates rates{std::min(input_rate, soc.core_fill_bytes_per_cycle), weights_rate(soc, p, blocks),
                         output_share};
  if (resident && layer.double_buffering) {
    timeline = resident_block_cycles(layer, c, busiest_u0, busiest_u1, rates);
    cycles = std::max(cycles, timeline);
  }
  // One slot: a block's later slices load while its Cube waits.
  if (c.slots < (layer.double_buffering ? 2u : 1u)) cycles += (busiest_slices - 1) * slice / input_rate;
  return {cycles, ddr, timeline, busiest_u0, busiest_u1, rates, one_band_each};
}

// One slice slot (a tile's whole input at once, none to load the next one into while the
// Cube works) pays only when the memory behind the input is slower than the core's port:
// the loads are the limit anyway. With a faster one (HBM-class), the single tile's K parts
// are load-bound (layer3's 1 x 1 1024 -> 256 split by Cout: 18.3 k -> 19.5 k cycles).
bool one_slot_pays(const SocBuffers& soc, const ConvProblem& p, std::uint32_t blocks) {
  return input_memory_share(soc, p, blocks) < soc.get("L1").bytes_per_cycle;
}

// Tall C tiles of height h (conv_plan.h) pay only when a core's weights arrive slower than
// tiles of height h - 1 consume them (256 << (h - 1) positions: 16 >> (h - 1) B/cycle at the
// Cube's peak, each weight byte half a MAC column of them); with faster memory their fewer,
// larger tiles overlap less (ResNet-50's layer1 3 x 3 on 16 HBM-class cores: 12.9 k -> 15.7 k cycles).
bool tall_tiles_pay(const SocBuffers& soc, const ConvProblem& p, std::uint32_t blocks, unsigned height) {
  return weights_rate(soc, p, blocks) < soc.cube_macs_per_cycle * 2 / double(kConvTilePositions << (height - 1));
}

}  // namespace

ConvTiling plan_conv(const SocBuffers& soc, const ConvProblem& p, bool double_buffering) {
  const std::uint64_t sets = double_buffering ? 2 : 1;
  const std::uint64_t l1 = soc.get("L1").bytes;
  const std::int64_t kc = p.c1in * p.kh * p.kw * 16, cout16 = round16(p.cout);
  const ConvLayer layer{soc, p, double_buffering, kc, cout16, double(p.n) * (cout16 / 16) * p.ho * p.wo * 32,
                        std::uint64_t(kc * cout16 * 2)};
  const double true_macs = double(p.n) * p.ho * p.wo * p.cout * (p.c1in * 16) * p.kh * p.kw;
  const bool resident = layer.resident();
  ConvTiling best;
  ConvCandidate best_candidate{};
  ConvCost best_cost{};
  // Largest tiles first; a smaller one must be modelled 0.5 % faster to win (the
  // model has no per-tile scalar overhead, which favours fewer, larger tiles).
  for (std::int64_t tile_cout = cout16; tile_cout >= 16; tile_cout -= 16) {
    const std::int64_t tn = std::min<std::int64_t>(tile_cout, kConvMaxColumns);
    const std::uint64_t panel_area = resident ? layer.weight_bytes : std::uint64_t(2 * kc * tn * 2);
    if (panel_area >= l1) continue;
    for (std::int64_t tile_ho = p.ho; tile_ho >= 1; --tile_ho) {
      const std::int64_t in_rows =
          std::min<std::int64_t>(p.h, (tile_ho - 1) * p.stride_h + (p.kh - 1) * p.dilation_h + 1);
      const std::uint64_t slice = std::uint64_t(p.c1in * in_rows * p.w * 32);
      // op_conv.c keeps two slice slots when they fit beside the weights, else one.
      const std::uint64_t slots = sets * slice + panel_area <= l1 ? sets : 1;
      if (slots * slice + panel_area > l1) continue;
      ++best.candidates;
      const std::int64_t units = p.n * ceil_div(p.ho, tile_ho) * ceil_div(cout16, tile_cout);
      // Tall C tiles differ only for resident weights and bands of more than one M chunk.
      const bool tall_differs = resident && tile_ho * p.wo > kConvTilePositions;
      for (const std::uint32_t blocks : block_candidates(soc, units)) {
        if (slots < sets && !one_slot_pays(soc, p, blocks)) continue;
        for (unsigned tall = 0; tall <= kConvPlannedTall; ++tall) {
          if (tall && !(tall_differs && tall_tiles_pay(soc, p, blocks, tall))) continue;
          const ConvCandidate candidate{tile_ho, tile_cout, blocks, tall, slice, slots, panel_area};
          const ConvCost cost = conv_cost(layer, candidate);
          if (best.tile_ho == 0 || cost.cycles < best.cycles * 0.995) {
            const int candidates = best.candidates;
            best = {tile_ho, tile_cout, blocks, slots * slice + panel_area, 0, std::uint64_t(cost.ddr_bytes), cost.cycles,
                    true_macs / (cost.cycles * soc.cube_macs_per_cycle * soc.ai_cores), candidates, tall,
                    false, cost.timeline};
            best_candidate = candidate;
            best_cost = cost;
          }
        }
      }
    }
  }
  if (best.tile_ho == 0) {  // nothing fits the model: the kernel chooses (and reports what it cannot do)
    best.blocks = balanced_blocks(soc, p.n * p.ho);
  } else {
    best.whole_l0c = whole_l0c_pays(layer, best_candidate, best_cost);
  }
  return best;
}

MatmulTiling plan_matmul(const SocBuffers& soc, const MatmulProblem& p, bool double_buffering) {
  const std::uint64_t sets = double_buffering ? 2 : 1;
  const std::uint64_t l1 = soc.get("L1").bytes, l0c = soc.get("L0C").bytes;
  const std::int64_t k_stage = round16(std::min(p.k, kPlannerKStage));
  const std::int64_t m16 = round16(p.m), n16 = round16(p.n), k16 = round16(p.k);
  const std::int64_t max_m = std::min<std::int64_t>(m16, kMatmulMaxTileM), max_n = std::min<std::int64_t>(n16, kMatmulMaxTileN);
  const double true_macs = double(p.batch) * p.m * p.k * p.n;
  MatmulTiling best;
  for (std::int64_t tile_m = max_m; tile_m >= 16; tile_m -= 16) {
    for (std::int64_t tile_n = max_n; tile_n >= 16; tile_n -= 16) {
      const std::uint64_t l1_use = std::uint64_t((tile_m + tile_n) * k_stage * 2);
      const std::uint64_t l0c_use = std::uint64_t(tile_m * tile_n * 4);
      // The accumulators take one L0C half (the other holds the tile being written back).
      if (sets * l1_use > l1 || 2 * l0c_use > l0c) continue;
      ++best.candidates;
      const std::int64_t n_m = ceil_div(p.m, tile_m), n_n = ceil_div(p.n, tile_n);
      const std::int64_t units = p.batch * n_m * n_n;
      for (const std::uint32_t blocks : block_candidates(soc, units)) {
      const double a_bytes = double(p.batch) * p.m * p.k * 2;
      const double b_bytes = double(p.b_shared ? 1 : p.batch) * p.k * p.n * 2;
      // A tile row's A block stays in L1 when its K stages fit the kernel's A slots
      // (and half of L1): A is then read once, otherwise once per N tile.
      const bool a_resident = ceil_div(p.k, kPlannerKStage) <= kMatmulResidentKStages &&
                              std::uint64_t(tile_m * p.k * 2) <= l1 / 2;
      const double ddr = a_bytes * (a_resident ? 1 : n_n) + b_bytes * n_m * (p.b_shared ? p.batch : 1) +
                         double(p.batch) * p.m * p.n * 2;
      const double padded_macs = double(p.batch) * (n_m * tile_m) * k16 * (n_n * tile_n);
      const double mte1 = double(units) * double(tile_m + tile_n) * double(k16) * 2;
      // The busiest block has ceil(units / blocks) tiles; its port reads its share of the bytes read.
      const double share = double(ceil_div(units, blocks)) / double(units);
      const CoreLoad busiest{share * compute_cycles(soc, padded_macs, mte1),
                             share * (ddr - double(p.batch) * p.m * p.n * 2) / soc.get("L1").bytes_per_cycle};
      // Its operands' bytes are modelled at the DDR's bandwidth wherever they are: with A's
      // re-reads priced at the L2's, BERT-base's K = 3072 FFN projection chose tiles that ran
      // 1.8x slower (docs/compiler.md "Memory planning").
      const double cycles = modelled_cycles(soc, busiest, ddr, 0, units, blocks, double_buffering);
      if (best.tile_m == 0 || cycles < best.cycles * 0.995) {
        const int candidates = best.candidates;
        best = {tile_m, tile_n, blocks, l1_use, l0c_use, std::uint64_t(ddr), cycles,
                true_macs / (cycles * soc.cube_macs_per_cycle * soc.ai_cores), candidates};
      }
      }
    }
  }
  if (best.tile_m == 0) best.blocks = balanced_blocks(soc, p.batch * ceil_div(p.m, 16));
  return best;
}

}  // namespace npuvp::compiler
