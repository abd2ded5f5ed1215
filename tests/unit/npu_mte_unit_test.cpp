// MteUnit: burst copies (gaps, pitch, valid/padding), UB -> L1, nd2nz,
// load2d (strides, gaps, transpose), img2col against the naive references
// of npu_layout_reference.h, timing (local formula and GM transaction issue
// times through a fake bus port) and every fault class.
#include "npu/mte_unit.h"
#include "unit/npu_layout_reference.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

namespace npuvp {
namespace {

using test_support::pack;
using xdavinci::Op;
namespace bu = xdavinci::burst;
namespace gs = xdavinci::gm_side;

constexpr std::size_t kL1Size = 256 * 1024, kL0Size = 64 * 1024, kL0cSize = 128 * 1024, kUbSize = 64 * 1024;
constexpr std::uint64_t kGmBase = 0x80000000;
constexpr std::size_t kGmSize = 1024 * 1024;

// Global memory behind a fixed-latency port that records every transaction
// and answers addresses in [error_begin, error_end) with a bus error.
class FakeGlobalMemory : public GlobalMemoryPort {
 public:
  struct Transaction {
    bool write;
    std::uint64_t address;
    std::uint32_t length;
    std::uint64_t issue_cycle;
  };
  std::vector<std::uint8_t> memory = std::vector<std::uint8_t>(kGmSize);
  std::uint64_t latency = 10;
  std::uint64_t error_begin = 0, error_end = 0;
  std::vector<Transaction> log;

  std::uint64_t transfer(bool write, std::uint64_t address, std::uint8_t* data, std::uint32_t length,
                         std::uint64_t issue_cycle) override {
    log.push_back({write, address, length, issue_cycle});
    if (address < kGmBase || address + length > kGmBase + kGmSize ||
        (address < error_end && address + length > error_begin))
      throw KernelFault(KernelFaultCause::kBusError, "fake bus error");
    std::uint8_t* cell = memory.data() + (address - kGmBase);
    if (write)
      std::memcpy(cell, data, length);
    else
      std::memcpy(data, cell, length);
    return issue_cycle + latency;
  }
  std::uint8_t* at(std::uint64_t address) { return memory.data() + (address - kGmBase); }
};

struct MteBench {
  LocalBuffers buffers{kL1Size, kL0Size, kL0Size, kL0cSize, kUbSize};
  FakeGlobalMemory gm;
  MteTiming timing;
  MteUnit mte{buffers, gm, timing};
  MteBench() {
    // Recognisable contents everywhere: GM bytes encode their address.
    for (std::size_t i = 0; i < kGmSize; ++i) gm.memory[i] = static_cast<std::uint8_t>(i * 7 + (i >> 8));
    for (LocalBuffer* b : {&buffers.l1, &buffers.l0a, &buffers.l0b, &buffers.l0c, &buffers.ub})
      std::memset(b->data(), 0xee, b->size());
  }
};

NpuInstruction instr(Op op, std::uint64_t xd, std::uint64_t xn, std::uint64_t xm, std::uint64_t xt) {
  NpuInstruction instruction;
  instruction.op = op;
  instruction.xd = xd;
  instruction.xn = xn;
  instruction.xm = xm;
  instruction.xt = xt;
  return instruction;
}

std::uint64_t bursts(std::uint64_t n, std::uint64_t len, std::uint64_t src_gap = 0, std::uint64_t dst_gap = 0) {
  return pack({{bu::n_burst, n}, {bu::burst_len, len}, {bu::src_gap, src_gap}, {bu::dst_gap, dst_gap}});
}

std::uint64_t gm_side(std::uint64_t pitch, std::uint64_t valid) { return pack({{gs::pitch, pitch}, {gs::valid, valid}}); }

bool all_bytes(const std::uint8_t* p, std::size_t n, std::uint8_t value) {
  for (std::size_t i = 0; i < n; ++i)
    if (p[i] != value) return false;
  return true;
}

// ---- Burst copies ----------------------------------------------------------

TEST(MteUnit, GmToUbCopiesBurstsWithGaps) {
  MteBench bench;
  const std::uint64_t src = kGmBase + 0x1000, dst = 0x200;
  // 3 bursts of 2 blocks; GM skips 1 block, UB skips 2 blocks between bursts.
  const UnitResult r = bench.mte.execute(instr(Op::kCopyGmToUbuf, dst, src, 0, bursts(3, 2, 1, 2)), 0);
  EXPECT_EQ(r.bytes, 3u * 64u);
  const std::uint8_t* ub = bench.buffers.ub.data();
  for (int b = 0; b < 3; ++b) {
    EXPECT_EQ(std::memcmp(ub + dst + b * 128, bench.gm.at(src + b * 96), 64), 0) << "burst " << b;
    if (b < 2) {
      EXPECT_TRUE(all_bytes(ub + dst + b * 128 + 64, 64, 0xee)) << "destination gap " << b;
    }
  }
  EXPECT_TRUE(all_bytes(ub, dst, 0xee));
  EXPECT_TRUE(all_bytes(ub + dst + 2 * 128 + 64, 64, 0xee));
  ASSERT_EQ(bench.gm.log.size(), 3u);
  for (int b = 0; b < 3; ++b) {
    EXPECT_FALSE(bench.gm.log[b].write);
    EXPECT_EQ(bench.gm.log[b].address, src + b * 96);
    EXPECT_EQ(bench.gm.log[b].length, 64u);
  }
}

TEST(MteUnit, GmToL1UsesPitchAndZeroPadsBeyondValid) {
  MteBench bench;
  const std::uint64_t src = kGmBase + 0x333, dst = 0x1000;  // GM side is byte-exact
  // 4 bursts of 2 blocks; each GM row is 40 bytes at a pitch of 100 bytes.
  const UnitResult r =
      bench.mte.execute(instr(Op::kCopyGmToCbuf, dst, src, gm_side(100, 40), bursts(4, 2, 0, 1)), 0);
  EXPECT_EQ(r.bytes, 4u * 64u);  // padding counts as written
  const std::uint8_t* l1 = bench.buffers.l1.data();
  for (int b = 0; b < 4; ++b) {
    EXPECT_EQ(std::memcmp(l1 + dst + b * 96, bench.gm.at(src + b * 100), 40), 0) << "burst " << b;
    EXPECT_TRUE(all_bytes(l1 + dst + b * 96 + 40, 24, 0)) << "padding " << b;
    if (b < 3) {
      EXPECT_TRUE(all_bytes(l1 + dst + b * 96 + 64, 32, 0xee)) << "gap " << b;
    }
  }
  ASSERT_EQ(bench.gm.log.size(), 4u);
  EXPECT_EQ(bench.gm.log[3].address, src + 300);
  EXPECT_EQ(bench.gm.log[3].length, 40u);
}

TEST(MteUnit, UbToGmWritesOnlyValidBytesAtThePitch) {
  MteBench bench;
  std::uint8_t* ub = bench.buffers.ub.data();
  for (std::size_t i = 0; i < 1024; ++i) ub[i] = static_cast<std::uint8_t>(i ^ 0x5a);
  const std::vector<std::uint8_t> before = bench.gm.memory;
  const std::uint64_t dst = kGmBase + 0x2001;
  // 3 bursts of 1 block, UB skips 1 block; GM rows of 20 bytes at pitch 50.
  const UnitResult r = bench.mte.execute(instr(Op::kCopyUbufToGm, dst, 64, gm_side(50, 20), bursts(3, 1, 1, 0)), 0);
  EXPECT_EQ(r.bytes, 60u);
  std::vector<std::uint8_t> expected = before;
  for (int b = 0; b < 3; ++b) std::memcpy(expected.data() + (dst - kGmBase) + b * 50, ub + 64 + b * 64, 20);
  EXPECT_TRUE(bench.gm.memory == expected);
  ASSERT_EQ(bench.gm.log.size(), 3u);
  EXPECT_TRUE(bench.gm.log[0].write);
  EXPECT_EQ(bench.gm.log[2].address, dst + 100);
}

TEST(MteUnit, UbToGmDefaultPitchUsesTheDestinationGap) {
  MteBench bench;
  std::uint8_t* ub = bench.buffers.ub.data();
  for (std::size_t i = 0; i < 256; ++i) ub[i] = static_cast<std::uint8_t>(i);
  const std::vector<std::uint8_t> before = bench.gm.memory;
  const std::uint64_t dst = kGmBase + 0x4000;
  bench.mte.execute(instr(Op::kCopyUbufToGm, dst, 0, 0, bursts(2, 2, 0, 3)), 0);  // GM pitch (2+3)*32
  std::vector<std::uint8_t> expected = before;
  std::memcpy(expected.data() + 0x4000, ub, 64);
  std::memcpy(expected.data() + 0x4000 + 160, ub + 64, 64);
  EXPECT_TRUE(bench.gm.memory == expected);
}

TEST(MteUnit, UbToL1CopiesWithGapsOnBothSides) {
  MteBench bench;
  std::uint8_t* ub = bench.buffers.ub.data();
  for (std::size_t i = 0; i < 4096; ++i) ub[i] = static_cast<std::uint8_t>(i * 3);
  // 2 bursts of 3 blocks, UB gap 1 block, L1 gap 2 blocks: 192 bytes.
  const UnitResult r = bench.mte.execute(instr(Op::kCopyUbufToCbuf, 0x400, 0x100, 0, bursts(2, 3, 1, 2)), 0);
  EXPECT_EQ(r.bytes, 192u);
  EXPECT_EQ(r.cycles, 16u + 3u);  // mte3: 16 + ceil(192 / 64)
  const std::uint8_t* l1 = bench.buffers.l1.data();
  EXPECT_EQ(std::memcmp(l1 + 0x400, ub + 0x100, 96), 0);
  EXPECT_TRUE(all_bytes(l1 + 0x400 + 96, 64, 0xee));
  EXPECT_EQ(std::memcmp(l1 + 0x400 + 160, ub + 0x100 + 128, 96), 0);
  EXPECT_TRUE(bench.gm.log.empty());
}

// ---- Timing ----------------------------------------------------------------

TEST(MteUnit, GmTransactionsIssueAtThePathBandwidth) {
  MteBench bench;
  // One burst of 40 blocks = 1280 bytes -> 512 + 512 + 256, issued at
  // start + 16 + {0, 8, 16}; each completes 10 cycles later.
  UnitResult r = bench.mte.execute(instr(Op::kCopyGmToUbuf, 0, kGmBase, 0, bursts(1, 40)), 100);
  ASSERT_EQ(bench.gm.log.size(), 3u);
  EXPECT_EQ(bench.gm.log[0].issue_cycle, 116u);
  EXPECT_EQ(bench.gm.log[1].issue_cycle, 124u);
  EXPECT_EQ(bench.gm.log[2].issue_cycle, 132u);
  EXPECT_EQ(bench.gm.log[1].address, kGmBase + 512);
  EXPECT_EQ(bench.gm.log[2].length, 256u);
  EXPECT_EQ(r.cycles, 42u);  // last completion 142 - 100 beats 16 + 1280 / 64 = 36
  EXPECT_EQ(r.bytes, 1280u);

  // A zero-latency bus: the bandwidth formula decides.
  bench.gm.latency = 0;
  bench.gm.log.clear();
  r = bench.mte.execute(instr(Op::kCopyGmToUbuf, 0, kGmBase, 0, bursts(1, 40)), 100);
  EXPECT_EQ(r.cycles, 36u);

  // A slow bus: completion decides.
  bench.gm.latency = 500;
  r = bench.mte.execute(instr(Op::kCopyGmToUbuf, 0, kGmBase, 0, bursts(1, 40)), 0);
  EXPECT_EQ(r.cycles, 16u + 16u + 500u);
}

// A bus slower than the path paces the issue: transaction j waits for the completion of
// transaction j - max_outstanding (backpressure), so a copy books the bus at its own pace.
TEST(MteUnit, OutstandingTransactionsWaitForEarlierCompletions) {
  MteBench bench;
  bench.timing.max_outstanding = 2;
  MteUnit mte(bench.buffers, bench.gm, bench.timing);
  bench.gm.latency = 100;
  // 5 transactions of 512 B: path issues at 16 + {0, 8, ...}; the third waits for the first's
  // completion (16 + 100), the fourth for the second's (24 + 100), the fifth for the third's.
  const UnitResult r = mte.execute(instr(Op::kCopyGmToUbuf, 0, kGmBase, 0, bursts(1, 80)), 0);
  ASSERT_EQ(bench.gm.log.size(), 5u);
  const std::uint64_t issue[] = {16, 24, 116, 124, 216};
  for (int j = 0; j < 5; ++j) EXPECT_EQ(bench.gm.log[j].issue_cycle, issue[j]) << j;
  EXPECT_EQ(r.cycles, 316u);

  // 0: no limit, the path's pace alone (the fifth at 16 + 4 * 8).
  bench.timing.max_outstanding = 0;
  MteUnit unlimited(bench.buffers, bench.gm, bench.timing);
  bench.gm.log.clear();
  unlimited.execute(instr(Op::kCopyGmToUbuf, 0, kGmBase, 0, bursts(1, 80)), 0);
  ASSERT_EQ(bench.gm.log.size(), 5u);
  EXPECT_EQ(bench.gm.log[4].issue_cycle, 48u);
}

TEST(MteUnit, IssueTimesCountOnlyTransferredBytes) {
  MteBench bench;
  bench.timing.mte3 = {4, 32};
  bench.timing.max_transaction_bytes = 64;
  MteUnit mte(bench.buffers, bench.gm, bench.timing);
  // 2 bursts of 4 blocks (128 B) writing 100 valid bytes each: 64 + 36 per burst.
  const UnitResult r = mte.execute(instr(Op::kCopyUbufToGm, kGmBase, 0, gm_side(0, 100), bursts(2, 4)), 1000);
  ASSERT_EQ(bench.gm.log.size(), 4u);
  const std::uint64_t issue[] = {1004, 1006, 1007, 1009};  // 4 + floor({0, 64, 100, 164} / 32)
  const std::uint32_t length[] = {64, 36, 64, 36};
  const std::uint64_t address[] = {kGmBase, kGmBase + 64, kGmBase + 128, kGmBase + 192};
  for (int j = 0; j < 4; ++j) {
    EXPECT_EQ(bench.gm.log[j].issue_cycle, issue[j]) << j;
    EXPECT_EQ(bench.gm.log[j].length, length[j]) << j;
    EXPECT_EQ(bench.gm.log[j].address, address[j]) << j;
  }
  EXPECT_EQ(r.bytes, 200u);
  EXPECT_EQ(r.cycles, 19u);  // max(4 + ceil(200 / 32) = 11, 1009 + 10 - 1000)
}

TEST(MteUnit, LocalCopiesTakeLatencyPlusBytesOverBandwidth) {
  MteBench bench;
  bench.timing.mte1 = {3, 100};
  MteUnit mte(bench.buffers, bench.gm, bench.timing);
  const UnitResult r = mte.execute(
      instr(Op::kLoadCbufToCa, 0, 0, 0, pack({{xdavinci::load2d::repeat, 3}})), 12345);
  EXPECT_EQ(r.bytes, 1536u);
  EXPECT_EQ(r.cycles, 3u + 16u);  // ceil(1536 / 100)
  // Default mte1: 8 + 1536 / 256.
  EXPECT_EQ(bench.mte.execute(instr(Op::kLoadCbufToCb, 0, 0, 0, pack({{xdavinci::load2d::repeat, 3}})), 0).cycles,
            14u);
}

// ---- nd2nz ------------------------------------------------------------------

std::uint64_t nd2nz_xm(std::uint64_t rows, std::uint64_t cols, std::uint64_t pitch = 0) {
  namespace f = xdavinci::nd2nz;
  return pack({{f::rows, rows}, {f::cols, cols}, {f::pitch, pitch}});
}
std::uint64_t nd2nz_xt(std::uint64_t type, std::uint64_t dst_rows = 0) {
  namespace f = xdavinci::nd2nz_config;
  return pack({{f::type, type}, {f::dst_rows, dst_rows}});
}

TEST(MteUnit, Nd2nzF16MatchesReference) {
  struct Case {
    std::size_t rows, cols, pitch_elems, dst_rows;
  };
  for (const Case c : {Case{19, 21, 21, 0}, Case{16, 16, 16, 0}, Case{5, 40, 64, 48}, Case{33, 300, 300, 0}}) {
    SCOPED_TRACE(testing::Message() << c.rows << "x" << c.cols << " pitch " << c.pitch_elems);
    MteBench bench;
    std::vector<std::uint16_t> matrix(c.rows * c.pitch_elems);
    for (std::size_t i = 0; i < matrix.size(); ++i) matrix[i] = static_cast<std::uint16_t>(i * 2654435761u >> 7);
    const std::uint64_t src = kGmBase + 0x10002;
    std::memcpy(bench.gm.at(src), matrix.data(), matrix.size() * 2);
    std::vector<std::uint16_t> dense(c.rows * c.cols);
    for (std::size_t r = 0; r < c.rows; ++r)
      for (std::size_t k = 0; k < c.cols; ++k) dense[r * c.cols + k] = matrix[r * c.pitch_elems + k];
    const std::size_t padded = c.dst_rows ? c.dst_rows : (c.rows + 15) / 16 * 16;
    const auto expected = test_support::to_fractal_nz(dense, c.rows, c.cols, 16, padded);

    const std::uint64_t pitch = c.pitch_elems == c.cols ? 0 : c.pitch_elems * 2;
    const UnitResult r = bench.mte.execute(
        instr(Op::kCopyGmToCbufNd2nz, 0x800, src, nd2nz_xm(c.rows, c.cols, pitch), nd2nz_xt(0, c.dst_rows)), 0);
    EXPECT_EQ(r.bytes, expected.size() * 2);
    EXPECT_EQ(std::memcmp(bench.buffers.l1.data() + 0x800, expected.data(), expected.size() * 2), 0);
    EXPECT_TRUE(all_bytes(bench.buffers.l1.data() + 0x800 + expected.size() * 2, 64, 0xee));
    // One transaction per row (two when a row exceeds 512 bytes).
    const std::size_t per_row = (c.cols * 2 + 511) / 512;
    ASSERT_EQ(bench.gm.log.size(), c.rows * per_row);
    EXPECT_EQ(bench.gm.log[per_row].address, src + c.pitch_elems * 2);
  }
}

TEST(MteUnit, Nd2nzS8MatchesReference) {
  MteBench bench;
  const std::size_t rows = 21, cols = 45;
  std::vector<std::uint8_t> matrix(rows * cols);
  for (std::size_t i = 0; i < matrix.size(); ++i) matrix[i] = static_cast<std::uint8_t>(i * 31 + 1);
  std::memcpy(bench.gm.at(kGmBase + 7), matrix.data(), matrix.size());
  const UnitResult r =
      bench.mte.execute(instr(Op::kCopyGmToCbufNd2nz, 0, kGmBase + 7, nd2nz_xm(rows, cols), nd2nz_xt(3)), 0);
  const auto expected = test_support::to_fractal_nz(matrix, rows, cols, 32);  // 2 groups x 32 rows x 32
  ASSERT_EQ(expected.size(), 2u * 32u * 32u);
  EXPECT_EQ(r.bytes, expected.size());
  EXPECT_EQ(std::memcmp(bench.buffers.l1.data(), expected.data(), expected.size()), 0);
  // 21 rows of 45 bytes: row 20 issues at 16 + floor(900 / 64) = 30 and
  // completes at 40, before the formula's 16 + 2048 / 64 = 48.
  ASSERT_EQ(bench.gm.log.size(), rows);
  EXPECT_EQ(bench.gm.log[20].issue_cycle, 30u);
  EXPECT_EQ(bench.gm.log[20].address, kGmBase + 7 + 20 * cols);
  EXPECT_EQ(r.cycles, 48u);
}

// ---- load2d ----------------------------------------------------------------

std::vector<std::uint16_t> fractal_pattern(unsigned seed) {
  std::vector<std::uint16_t> f(256);
  for (unsigned i = 0; i < 256; ++i) f[i] = static_cast<std::uint16_t>(seed * 1000 + i);
  return f;
}

TEST(MteUnit, Load2dHonoursStrideAndGap) {
  for (const Op op : {Op::kLoadCbufToCa, Op::kLoadCbufToCb}) {
    MteBench bench;
    for (unsigned i = 0; i < 8; ++i) {
      const auto f = fractal_pattern(i);
      std::memcpy(bench.buffers.l1.data() + 0x1000 + i * 512, f.data(), 512);
    }
    namespace l = xdavinci::load2d;
    // Fractals 0, 2, 4 of L1 (stride 2) to L0 slots 0, 2, 4 (gap 1) at 1024.
    bench.mte.execute(instr(op, 1024, 0x1000, 0, pack({{l::repeat, 3}, {l::src_stride, 2}, {l::dst_gap, 1}})), 0);
    const std::uint8_t* l0 = (op == Op::kLoadCbufToCa ? bench.buffers.l0a : bench.buffers.l0b).data();
    for (unsigned i = 0; i < 3; ++i) {
      const auto f = fractal_pattern(2 * i);
      EXPECT_EQ(std::memcmp(l0 + 1024 + 2 * i * 512, f.data(), 512), 0) << i;
      if (i < 2) {
        EXPECT_TRUE(all_bytes(l0 + 1024 + (2 * i + 1) * 512, 512, 0xee)) << i;
      }
    }
    EXPECT_TRUE(all_bytes(l0, 1024, 0xee));
    EXPECT_TRUE(all_bytes(l0 + 1024 + 5 * 512, 512, 0xee));
  }
}

TEST(MteUnit, Load2dTransposesSixteenBitFractals) {
  MteBench bench;
  for (unsigned i = 0; i < 2; ++i) {
    const auto f = fractal_pattern(i + 3);
    std::memcpy(bench.buffers.l1.data() + i * 512, f.data(), 512);
  }
  namespace l = xdavinci::load2d;
  bench.mte.execute(instr(Op::kLoadCbufToCb, 0, 0, 0, pack({{l::repeat, 2}, {l::transpose, 1}})), 0);
  for (unsigned i = 0; i < 2; ++i) {
    const auto expected = test_support::transpose_fractal(fractal_pattern(i + 3));
    EXPECT_EQ(std::memcmp(bench.buffers.l0b.data() + i * 512, expected.data(), 512), 0) << i;
  }
  // A row-major K x N matrix loaded with transpose becomes L0B's column-major fractal.
  std::vector<std::uint16_t> b(16 * 16);
  std::iota(b.begin(), b.end(), 1);
  std::memcpy(bench.buffers.l1.data(), b.data(), 512);
  bench.mte.execute(instr(Op::kLoadCbufToCb, 0, 0, 0, pack({{l::repeat, 1}, {l::transpose, 1}})), 0);
  const auto zn = test_support::to_fractal_zn(b, 16, 16);
  EXPECT_EQ(std::memcmp(bench.buffers.l0b.data(), zn.data(), 512), 0);
}

// ---- img2col ---------------------------------------------------------------

struct Img2colCase {
  test_support::ConvGeometry g;
  std::uint64_t m_start, k_start, m_fractals, k_fractals;
};

void run_img2col(const Img2colCase& c) {
  MteBench bench;
  const auto& g = c.g;
  std::vector<std::uint16_t> fmap(static_cast<std::size_t>(g.channels1 * g.height * g.width * 16));
  for (std::size_t i = 0; i < fmap.size(); ++i) fmap[i] = static_cast<std::uint16_t>(i + 1);
  const std::uint64_t map_offset = 0x2020;
  std::memcpy(bench.buffers.l1.data() + map_offset, fmap.data(), fmap.size() * 2);

  NpuInstruction instruction = instr(
      Op::kImg2colCbufToCa, 0x400, map_offset, g.window(),
      pack({{xdavinci::img2col_position::m_start, c.m_start}, {xdavinci::img2col_position::k_start, c.k_start},
            {xdavinci::img2col_position::m_fractals, c.m_fractals},
            {xdavinci::img2col_position::k_fractals, c.k_fractals}}));
  instruction.fmatrix = g.fmatrix();
  const UnitResult r = bench.mte.execute(instruction, 0);
  EXPECT_EQ(r.bytes, c.m_fractals * c.k_fractals * 512);

  // The requested window of the full im2col matrix (zeros outside it).
  const auto full = test_support::im2col(fmap, g);
  const std::size_t rows = g.im2col_rows(), cols = g.im2col_cols();
  const std::size_t wr = c.m_fractals * 16, wc = c.k_fractals * 16;
  std::vector<std::uint16_t> window(wr * wc, 0);
  for (std::size_t r = 0; r < wr; ++r)
    for (std::size_t k = 0; k < wc; ++k)
      if (c.m_start + r < rows && c.k_start + k < cols) window[r * wc + k] = full[(c.m_start + r) * cols + c.k_start + k];
  const auto expected = test_support::to_fractal_zz(window, wr, wc);
  const auto actual = test_support::from_bytes<std::uint16_t>(bench.buffers.l0a.data() + 0x400, expected.size());
  std::size_t errors = 0;
  for (std::size_t i = 0; i < expected.size() && errors < 5; ++i)
    if (actual[i] != expected[i]) {
      ADD_FAILURE() << "element " << i << " (fractal " << i / 256 << ", row " << i % 256 / 16 << ", col " << i % 16
                    << "): " << actual[i] << " expected " << expected[i];
      ++errors;
    }
  EXPECT_TRUE(all_bytes(bench.buffers.l0a.data() + 0x400 + expected.size() * 2, 32, 0xee));
  EXPECT_TRUE(all_bytes(bench.buffers.l0a.data(), 0x400, 0xee));
}

TEST(MteUnit, Img2colPadding3x3) {
  Img2colCase c;
  c.g.height = 5, c.g.width = 6, c.g.kernel_h = c.g.kernel_w = 3;
  c.g.pad_left = c.g.pad_right = c.g.pad_top = c.g.pad_bottom = 1;
  ASSERT_EQ(c.g.im2col_rows(), 30u);  // rows 30 and 31 of the second fractal row are zero
  c.m_start = 0, c.k_start = 0, c.m_fractals = 2, c.k_fractals = 9;
  run_img2col(c);
}

TEST(MteUnit, Img2colStride2) {
  Img2colCase c;
  c.g.height = 7, c.g.width = 9, c.g.kernel_h = 3, c.g.kernel_w = 3, c.g.stride_h = c.g.stride_w = 2;
  ASSERT_EQ(c.g.out_h(), 3);
  ASSERT_EQ(c.g.out_w(), 4);
  c.m_start = 0, c.k_start = 0, c.m_fractals = 1, c.k_fractals = 9;
  run_img2col(c);
}

TEST(MteUnit, Img2colDilation2AsymmetricPadding) {
  Img2colCase c;
  c.g.height = 8, c.g.width = 9, c.g.kernel_h = 3, c.g.kernel_w = 2, c.g.dilation_h = c.g.dilation_w = 2;
  c.g.pad_top = 2, c.g.pad_bottom = 0, c.g.pad_left = 1, c.g.pad_right = 3, c.g.stride_w = 2;
  c.m_start = 16, c.k_start = 32, c.m_fractals = 3, c.k_fractals = 4;
  run_img2col(c);
  // Different dilations and strides per direction.
  c.g.dilation_h = 2, c.g.dilation_w = 3, c.g.stride_h = 1, c.g.stride_w = 2, c.g.kernel_h = 2, c.g.kernel_w = 3;
  c.m_start = 0, c.k_start = 0, c.m_fractals = 3, c.k_fractals = 6;
  run_img2col(c);
}

TEST(MteUnit, Img2colTwoChannelGroupsPartialWindows) {
  Img2colCase c;
  c.g.channels1 = 2, c.g.height = 6, c.g.width = 5, c.g.kernel_h = c.g.kernel_w = 2, c.g.pad_bottom = 1;
  ASSERT_EQ(c.g.im2col_cols(), 128u);
  // Columns 48..175: group t = 3..10; t >= 8 is beyond C1 and reads as zero.
  c.m_start = 16, c.k_start = 48, c.m_fractals = 2, c.k_fractals = 8;
  run_img2col(c);
  // Entirely beyond Ho*Wo (30 positions).
  c.m_start = 32, c.k_start = 0, c.m_fractals = 1, c.k_fractals = 2;
  run_img2col(c);
}

// ---- Faults: cause reported, destinations unchanged --------------------------

struct Snapshot {
  std::vector<std::uint8_t> l1, l0a, l0b, ub, gm;
  explicit Snapshot(MteBench& b)
      : l1(b.buffers.l1.data(), b.buffers.l1.data() + kL1Size),
        l0a(b.buffers.l0a.data(), b.buffers.l0a.data() + kL0Size),
        l0b(b.buffers.l0b.data(), b.buffers.l0b.data() + kL0Size),
        ub(b.buffers.ub.data(), b.buffers.ub.data() + kUbSize),
        gm(b.gm.memory) {}
  bool operator==(const Snapshot& o) const { return l1 == o.l1 && l0a == o.l0a && l0b == o.l0b && ub == o.ub && gm == o.gm; }
};

void expect_fault(MteBench& bench, const NpuInstruction& instruction, KernelFaultCause cause) {
  const Snapshot before(bench);
  try {
    bench.mte.execute(instruction, 0);
    ADD_FAILURE() << "no fault";
  } catch (const KernelFault& fault) {
    EXPECT_EQ(fault.cause(), cause) << fault.what();
  }
  EXPECT_TRUE(Snapshot(bench) == before) << "a buffer was modified";
}

TEST(MteUnit, CopyParameterFaults) {
  MteBench bench;
  expect_fault(bench, instr(Op::kCopyGmToUbuf, 0, kGmBase, 0, bursts(0, 1)), KernelFaultCause::kInvalidParameter);
  expect_fault(bench, instr(Op::kCopyGmToUbuf, 0, kGmBase, 0, bursts(1, 0)), KernelFaultCause::kInvalidParameter);
  expect_fault(bench, instr(Op::kCopyGmToCbuf, 0, kGmBase, gm_side(0, 65), bursts(1, 2)),
               KernelFaultCause::kInvalidParameter);  // valid > burst
  expect_fault(bench, instr(Op::kCopyUbufToGm, kGmBase, 0, gm_side(0, 33), bursts(2, 1)),
               KernelFaultCause::kInvalidParameter);
  expect_fault(bench, instr(Op::kCopyUbufToCbuf, 0, 0, 0, bursts(0, 4)), KernelFaultCause::kInvalidParameter);
  expect_fault(bench, instr(Op::kVadd, 0, 0, 0, bursts(1, 1)), KernelFaultCause::kInvalidParameter);
  expect_fault(bench, instr(Op::kMmad, 0, 0, 0, 0), KernelFaultCause::kInvalidParameter);
  EXPECT_TRUE(bench.gm.log.empty());
}

TEST(MteUnit, CopyAlignmentAndRangeFaultBeforeAnyTransfer) {
  MteBench bench;
  expect_fault(bench, instr(Op::kCopyGmToUbuf, 16, kGmBase, 0, bursts(1, 1)), KernelFaultCause::kMisaligned);
  expect_fault(bench, instr(Op::kCopyUbufToGm, kGmBase, 8, 0, bursts(1, 1)), KernelFaultCause::kMisaligned);
  expect_fault(bench, instr(Op::kCopyUbufToCbuf, 32, 48, 0, bursts(1, 1)), KernelFaultCause::kMisaligned);
  // 4 bursts of 1 block with 1-block gaps end 32 bytes past UB's end.
  expect_fault(bench, instr(Op::kCopyGmToUbuf, kUbSize - 192, kGmBase, 0, bursts(4, 1, 0, 1)),
               KernelFaultCause::kBufferRange);
  expect_fault(bench, instr(Op::kCopyGmToCbuf, kL1Size - 32, kGmBase, 0, bursts(1, 2)),
               KernelFaultCause::kBufferRange);
  expect_fault(bench, instr(Op::kCopyUbufToGm, kGmBase, kUbSize - 64, 0, bursts(2, 1, 1, 0)),
               KernelFaultCause::kBufferRange);
  expect_fault(bench, instr(Op::kCopyUbufToCbuf, kL1Size - 64, 0, 0, bursts(2, 1, 0, 1)),
               KernelFaultCause::kBufferRange);
  EXPECT_TRUE(bench.gm.log.empty());
}

TEST(MteUnit, BusErrorsStopTheCopy) {
  MteBench bench;
  bench.gm.error_begin = kGmBase + 0x8000;
  bench.gm.error_end = kGmBase + 0x9000;
  expect_fault(bench, instr(Op::kCopyGmToUbuf, 0, kGmBase + 0x8000, 0, bursts(2, 4)), KernelFaultCause::kBusError);
  expect_fault(bench, instr(Op::kCopyGmToCbuf, 0, kGmBase + 0x8f00, 0, bursts(1, 16)), KernelFaultCause::kBusError);
  expect_fault(bench, instr(Op::kCopyUbufToGm, kGmBase + 0x8100, 0, 0, bursts(1, 1)), KernelFaultCause::kBusError);
  expect_fault(bench, instr(Op::kCopyGmToCbufNd2nz, 0, kGmBase + 0x8800, nd2nz_xm(4, 16), nd2nz_xt(0)),
               KernelFaultCause::kBusError);
  ASSERT_FALSE(bench.gm.log.empty());
  EXPECT_EQ(bench.gm.log.size(), 4u);  // each instruction stops at its first (failing) transaction
}

TEST(MteUnit, Nd2nzFaults) {
  MteBench bench;
  expect_fault(bench, instr(Op::kCopyGmToCbufNd2nz, 0, kGmBase, nd2nz_xm(16, 16), nd2nz_xt(1)),
               KernelFaultCause::kInvalidParameter);
  expect_fault(bench, instr(Op::kCopyGmToCbufNd2nz, 0, kGmBase, nd2nz_xm(0, 16), nd2nz_xt(0)),
               KernelFaultCause::kInvalidParameter);
  expect_fault(bench, instr(Op::kCopyGmToCbufNd2nz, 0, kGmBase, nd2nz_xm(16, 0), nd2nz_xt(0)),
               KernelFaultCause::kInvalidParameter);
  expect_fault(bench, instr(Op::kCopyGmToCbufNd2nz, 0, kGmBase, nd2nz_xm(8, 16), nd2nz_xt(0, 8)),
               KernelFaultCause::kInvalidParameter);  // not a multiple of 16
  expect_fault(bench, instr(Op::kCopyGmToCbufNd2nz, 0, kGmBase, nd2nz_xm(17, 16), nd2nz_xt(0, 16)),
               KernelFaultCause::kInvalidParameter);  // fewer than rows
  expect_fault(bench, instr(Op::kCopyGmToCbufNd2nz, 256, kGmBase, nd2nz_xm(16, 16), nd2nz_xt(0)),
               KernelFaultCause::kMisaligned);
  // 16 x 48 f16 = 3 groups x 512 bytes from 1024 before the end of L1.
  expect_fault(bench, instr(Op::kCopyGmToCbufNd2nz, kL1Size - 1024, kGmBase, nd2nz_xm(16, 48), nd2nz_xt(0)),
               KernelFaultCause::kBufferRange);
  EXPECT_TRUE(bench.gm.log.empty());
}

TEST(MteUnit, Load2dFaults) {
  MteBench bench;
  namespace l = xdavinci::load2d;
  expect_fault(bench, instr(Op::kLoadCbufToCa, 0, 0, 0, pack({{l::repeat, 0}})), KernelFaultCause::kInvalidParameter);
  expect_fault(bench, instr(Op::kLoadCbufToCa, 0, 256, 0, pack({{l::repeat, 1}})), KernelFaultCause::kMisaligned);
  expect_fault(bench, instr(Op::kLoadCbufToCb, 32, 0, 0, pack({{l::repeat, 1}})), KernelFaultCause::kMisaligned);
  // Source: fractals 0 and 3 (stride 3) from 2 fractals before L1's end.
  expect_fault(bench, instr(Op::kLoadCbufToCa, 0, kL1Size - 1024, 0, pack({{l::repeat, 2}, {l::src_stride, 3}})),
               KernelFaultCause::kBufferRange);
  // Destination: slots 0 and 2 (gap 1) from 2 fractals before L0B's end.
  expect_fault(bench, instr(Op::kLoadCbufToCb, kL0Size - 1024, 0, 0, pack({{l::repeat, 2}, {l::dst_gap, 1}})),
               KernelFaultCause::kBufferRange);
}

TEST(MteUnit, Img2colFaults) {
  MteBench bench;
  test_support::ConvGeometry g;
  g.height = 4, g.width = 4, g.kernel_h = g.kernel_w = 3;
  namespace p = xdavinci::img2col_position;
  auto make = [&](const test_support::ConvGeometry& geometry, std::uint64_t xt, std::uint64_t xd = 0,
                  std::uint64_t xn = 0) {
    NpuInstruction instruction = instr(Op::kImg2colCbufToCa, xd, xn, geometry.window(), xt);
    instruction.fmatrix = geometry.fmatrix();
    return instruction;
  };
  const std::uint64_t ok = pack({{p::m_fractals, 1}, {p::k_fractals, 1}});
  auto bad = g;
  bad.stride_w = 0;
  expect_fault(bench, make(bad, ok), KernelFaultCause::kInvalidParameter);
  bad = g, bad.kernel_h = 0;
  expect_fault(bench, make(bad, ok), KernelFaultCause::kInvalidParameter);
  bad = g, bad.dilation_w = 0;
  expect_fault(bench, make(bad, ok), KernelFaultCause::kInvalidParameter);
  bad = g, bad.channels1 = 0;
  expect_fault(bench, make(bad, ok), KernelFaultCause::kInvalidParameter);
  bad = g, bad.width = 0;
  expect_fault(bench, make(bad, ok), KernelFaultCause::kInvalidParameter);
  bad = g, bad.kernel_h = 5;  // larger than the map: Ho <= 0
  expect_fault(bench, make(bad, ok), KernelFaultCause::kInvalidParameter);
  bad = g, bad.kernel_w = 3, bad.width = 2, bad.pad_right = 0;  // (2 - 2 - 1) / 1 + 1 would truncate to 1
  expect_fault(bench, make(bad, ok), KernelFaultCause::kInvalidParameter);
  expect_fault(bench, make(g, pack({{p::m_fractals, 0}, {p::k_fractals, 1}})), KernelFaultCause::kInvalidParameter);
  expect_fault(bench, make(g, pack({{p::m_fractals, 1}, {p::k_fractals, 0}})), KernelFaultCause::kInvalidParameter);
  expect_fault(bench, make(g, ok | pack({{p::m_start, 8}})), KernelFaultCause::kInvalidParameter);
  expect_fault(bench, make(g, ok | pack({{p::k_start, 24}})), KernelFaultCause::kInvalidParameter);
  expect_fault(bench, make(g, ok, 256), KernelFaultCause::kMisaligned);
  // The whole map (4 x 4 pixels x 32 bytes = 512) must be inside L1.
  expect_fault(bench, make(g, ok, 0, kL1Size - 480), KernelFaultCause::kBufferRange);
  // 2 x 2 fractals from 1024 before L0A's end.
  expect_fault(bench, make(g, pack({{p::m_fractals, 2}, {p::k_fractals, 2}}), kL0Size - 1024),
               KernelFaultCause::kBufferRange);
}

}  // namespace
}  // namespace npuvp
