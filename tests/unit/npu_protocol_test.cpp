// The host <-> task-scheduler protocol header (sw/include/npuvp/npu_protocol.h,
// docs/npu-protocol.md), compiled for the host: ring arithmetic on free-running
// 32-bit counters (including the counter wrap at 2^32 and a producer/consumer run
// through it against a std::deque model), ring sizes, every attach reason of
// npu_queue_header_check, every reason npu_command_check can return, the structure
// layouts and constants the document states, and the name functions.
//
// sw/include is not on the unit tests' include path, so the header is included by
// its path relative to this file (as device_memory_test.cpp does for the driver).
// The platform's memory map is included to check the two sides agree.
#include "../../sw/include/npuvp/npu_protocol.h"
#include "platform/host_platform.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace {

// ---------------------------------------------------------------------------
// Ring arithmetic

TEST(NpuRing, UsedEmptyFullSpaceWithoutWrap) {
  EXPECT_EQ(npu_ring_used(10, 10), 0u);
  EXPECT_TRUE(npu_ring_empty(10, 10));
  EXPECT_FALSE(npu_ring_full(10, 10, 4));
  EXPECT_EQ(npu_ring_space(10, 10, 4), 4u);

  EXPECT_EQ(npu_ring_used(13, 10), 3u);
  EXPECT_FALSE(npu_ring_empty(13, 10));
  EXPECT_FALSE(npu_ring_full(13, 10, 4));
  EXPECT_EQ(npu_ring_space(13, 10, 4), 1u);

  // Full when tail - head == entries: every slot is usable.
  EXPECT_EQ(npu_ring_used(14, 10), 4u);
  EXPECT_FALSE(npu_ring_empty(14, 10));
  EXPECT_TRUE(npu_ring_full(14, 10, 4));
  EXPECT_EQ(npu_ring_space(14, 10, 4), 0u);

  // The same indices in a bigger ring are not full.
  EXPECT_FALSE(npu_ring_full(14, 10, 8));
  EXPECT_EQ(npu_ring_space(14, 10, 8), 4u);
}

TEST(NpuRing, CountersWrapAroundAt2To32) {
  // head just below 2^32, tail just past it: 4 entries held.
  const uint32_t head = 0xFFFFFFFEu;
  const uint32_t tail = 0x00000002u;
  EXPECT_EQ(npu_ring_used(tail, head), 4u);
  EXPECT_FALSE(npu_ring_empty(tail, head));
  EXPECT_TRUE(npu_ring_full(tail, head, 4));
  EXPECT_EQ(npu_ring_space(tail, head, 4), 0u);
  EXPECT_FALSE(npu_ring_full(tail, head, 8));
  EXPECT_EQ(npu_ring_space(tail, head, 8), 4u);

  // One entry across the wrap, and equal counters at the top of the range.
  EXPECT_EQ(npu_ring_used(0x00000000u, 0xFFFFFFFFu), 1u);
  EXPECT_FALSE(npu_ring_empty(0x00000000u, 0xFFFFFFFFu));
  EXPECT_EQ(npu_ring_space(0x00000000u, 0xFFFFFFFFu, 2), 1u);
  EXPECT_TRUE(npu_ring_empty(0xFFFFFFFFu, 0xFFFFFFFFu));
  EXPECT_EQ(npu_ring_used(0xFFFFFFFFu, 0xFFFFFFFFu), 0u);
  EXPECT_EQ(npu_ring_space(0xFFFFFFFFu, 0xFFFFFFFFu, 4096), 4096u);
  // A full 4096-entry ring straddling the wrap.
  EXPECT_TRUE(npu_ring_full(0x00000800u, 0xFFFFF800u, 4096));
  EXPECT_FALSE(npu_ring_full(0x000007FFu, 0xFFFFF800u, 4096));
  EXPECT_EQ(npu_ring_space(0x000007FFu, 0xFFFFF800u, 4096), 1u);
}

TEST(NpuRing, OverfilledRingIsFullWithNoSpaceNotAHugeSpace) {
  // tail - head above entries (a broken producer): space must not underflow.
  EXPECT_TRUE(npu_ring_full(15, 10, 4));
  EXPECT_EQ(npu_ring_space(15, 10, 4), 0u);
  EXPECT_TRUE(npu_ring_full(0x00000003u, 0xFFFFFFFEu, 4));
  EXPECT_EQ(npu_ring_space(0x00000003u, 0xFFFFFFFEu, 4), 0u);
  // tail behind head reads as (almost) 2^32 entries, also full.
  EXPECT_TRUE(npu_ring_full(9, 10, 4096));
  EXPECT_EQ(npu_ring_space(9, 10, 4096), 0u);
}

TEST(NpuRing, SlotIsIndexModuloEntries) {
  EXPECT_EQ(npu_ring_slot(0, 4), 0u);
  EXPECT_EQ(npu_ring_slot(5, 4), 1u);
  EXPECT_EQ(npu_ring_slot(7, 8), 7u);
  EXPECT_EQ(npu_ring_slot(8, 8), 0u);
  EXPECT_EQ(npu_ring_slot(0xFFFFFFFEu, 4), 2u);
  EXPECT_EQ(npu_ring_slot(0xFFFFFFFFu, 4), 3u);
  EXPECT_EQ(npu_ring_slot(0xFFFFFFFFu, 2), 1u);
  EXPECT_EQ(npu_ring_slot(0xFFFFFFFFu, 4096), 4095u);
  EXPECT_EQ(npu_ring_slot(0x12345678u, 4096), 0x678u);
  EXPECT_EQ(npu_ring_slot(0x12345678u, 16), 0x8u);
}

TEST(NpuRing, SlotsStayConsecutiveAcrossTheCounterWrap) {
  // 2^32 is a multiple of every ring size, so index x+1 is always the next slot
  // after x, also when x = 0xFFFFFFFF and x+1 = 0.
  for (uint32_t entries = 2; entries <= NPU_MAX_QUEUE_ENTRIES; entries *= 2) {
    SCOPED_TRACE(entries);
    EXPECT_EQ(npu_ring_slot(0xFFFFFFFFu, entries), entries - 1);
    EXPECT_EQ(npu_ring_slot(0x00000000u, entries), 0u);
    for (uint32_t x = 0u - 2 * entries; x != 2 * entries; ++x) {
      const uint32_t next = x + 1;
      ASSERT_EQ(npu_ring_slot(next, entries), (npu_ring_slot(x, entries) + 1) % entries) << "index " << x;
      ASSERT_LT(npu_ring_slot(x, entries), entries);
    }
  }
}

// A producer and a consumer share a ring of `entries` slots with counters starting
// at `start`; they push and pop random bursts (the producer asks for more than may
// fit and stops at npu_ring_full) until both counters have gone through 2^32 and a
// few more rings' worth. A std::deque is the reference FIFO; values are
// consecutive, so a lost, duplicated, reordered or overwritten entry fails.
void RunProducerConsumer(uint32_t entries, uint32_t start, unsigned seed) {
  SCOPED_TRACE(testing::Message() << "entries " << entries << " start 0x" << std::hex << start);
  std::vector<uint64_t> slots(entries, 0);
  std::deque<uint64_t> model;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<uint32_t> burst(0, entries + 2);

  uint32_t tail = start;
  uint32_t head = start;
  uint64_t next_push = 1;
  uint64_t next_pop = 1;
  bool tail_wrapped = false;
  bool head_wrapped = false;
  uint64_t pops_after_wrap = 0;
  bool saw_full = false;

  auto check_against_model = [&] {
    ASSERT_EQ(npu_ring_used(tail, head), model.size());
    ASSERT_LE(npu_ring_used(tail, head), entries);
    ASSERT_EQ(bool(npu_ring_empty(tail, head)), model.empty());
    ASSERT_EQ(bool(npu_ring_full(tail, head, entries)), model.size() == entries);
    ASSERT_EQ(npu_ring_space(tail, head, entries), entries - model.size());
  };

  for (int step = 0; step < 1000000 && !(head_wrapped && pops_after_wrap >= 8u * entries); ++step) {
    const uint32_t want_push = burst(rng);
    for (uint32_t i = 0; i < want_push; ++i) {
      if (npu_ring_full(tail, head, entries)) {
        ASSERT_EQ(model.size(), entries) << "full reported with room left";
        saw_full = true;
        break;
      }
      ASSERT_LT(model.size(), entries) << "not full but every slot holds an entry";
      slots[npu_ring_slot(tail, entries)] = next_push;
      model.push_back(next_push++);
      if (++tail == 0) tail_wrapped = true;
    }
    check_against_model();

    const uint32_t want_pop = burst(rng);
    for (uint32_t i = 0; i < want_pop; ++i) {
      if (npu_ring_empty(tail, head)) {
        ASSERT_TRUE(model.empty()) << "empty reported with entries left";
        break;
      }
      ASSERT_FALSE(model.empty());
      ASSERT_EQ(slots[npu_ring_slot(head, entries)], model.front()) << "slot overwritten or misplaced";
      ASSERT_EQ(model.front(), next_pop++) << "FIFO order broken";
      model.pop_front();
      if (++head == 0) head_wrapped = true;
      if (head_wrapped) ++pops_after_wrap;
    }
    check_against_model();
  }
  EXPECT_TRUE(tail_wrapped) << "the producer counter never went through 2^32";
  EXPECT_TRUE(head_wrapped) << "the consumer counter never went through 2^32";
  EXPECT_GE(pops_after_wrap, 8u * entries);
  EXPECT_TRUE(saw_full) << "the run never filled the ring";
}

TEST(NpuRing, ProducerConsumerThroughTheCounterWrapMatchesAFifo) {
  unsigned seed = 1;
  for (uint32_t entries : {2u, 4u, 8u, 16u, 64u}) {
    for (uint32_t start : {0xFFFFFFFFu, 0u - entries, 0u - 3 * entries - 1, 0xFFFFFFFCu, 0xFFFFF000u}) {
      RunProducerConsumer(entries, start, seed++);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(NpuRing, SizeOkOnlyForPowersOfTwoFrom2To4096) {
  EXPECT_FALSE(npu_ring_size_ok(0));
  EXPECT_FALSE(npu_ring_size_ok(1));
  EXPECT_TRUE(npu_ring_size_ok(2));
  EXPECT_FALSE(npu_ring_size_ok(3));
  EXPECT_TRUE(npu_ring_size_ok(4));
  EXPECT_TRUE(npu_ring_size_ok(4096));
  EXPECT_FALSE(npu_ring_size_ok(8192));
  for (uint32_t bad : {5u, 6u, 7u, 12u, 100u, 1000u, 4095u, 4097u, 6144u, 0x80000000u, 0xFFFFFFFFu}) {
    EXPECT_FALSE(npu_ring_size_ok(bad)) << bad;
  }
  int accepted = 0;
  for (uint32_t n = 0; n <= 2 * NPU_MAX_QUEUE_ENTRIES; ++n) {
    const bool power_of_two = n != 0 && (n & (n - 1)) == 0;
    EXPECT_EQ(bool(npu_ring_size_ok(n)), power_of_two && n >= 2 && n <= NPU_MAX_QUEUE_ENTRIES) << n;
    accepted += npu_ring_size_ok(n) ? 1 : 0;
  }
  EXPECT_EQ(accepted, 12);  // 2, 4, ..., 4096
}

// ---------------------------------------------------------------------------
// Attach check

constexpr uint64_t kHeaderAddress = 0x9000'0000;

npu_queue_header ValidHeader() {
  npu_queue_header h{};
  h.magic = NPU_QUEUE_MAGIC;
  h.version = NPU_PROTOCOL_VERSION;
  h.cmd_entries = 4;
  h.cpl_entries = 8;
  h.cmd_ring = kHeaderAddress + 0x140;  // right after the 320-byte header
  h.cpl_ring = kHeaderAddress + 0x240;  // after 4 commands
  h.num_cores = 4;
  h.cmd_tail = h.cmd_head = 0xFFFFFFFCu;
  h.cpl_tail = h.cpl_head = 0xFFFFFFFCu;
  return h;
}

uint32_t Check(const npu_queue_header& h, uint64_t address = kHeaderAddress) {
  return npu_queue_header_check(&h, address);
}

TEST(NpuQueueHeaderCheck, ValidHeaderAttaches) {
  EXPECT_EQ(Check(ValidHeader()), NPU_ATTACH_OK);

  npu_queue_header h = ValidHeader();
  h.cmd_tail = h.cmd_head = h.cpl_tail = h.cpl_head = 0;
  EXPECT_EQ(Check(h), NPU_ATTACH_OK);
  h.cmd_tail = h.cmd_head = 0x12345678u;
  h.cpl_tail = h.cpl_head = 0xFFFFFFFFu;
  EXPECT_EQ(Check(h), NPU_ATTACH_OK);

  // Limits of every range.
  h = ValidHeader();
  h.cmd_entries = 2;
  h.cpl_entries = NPU_MAX_QUEUE_ENTRIES;
  h.num_cores = 1;
  EXPECT_EQ(Check(h), NPU_ATTACH_OK);
  h.cmd_entries = NPU_MAX_QUEUE_ENTRIES;
  h.cpl_entries = 2;
  h.num_cores = NPU_MAX_CORES;
  EXPECT_EQ(Check(h), NPU_ATTACH_OK);
  EXPECT_EQ(Check(ValidHeader(), 0x40), NPU_ATTACH_OK);
}

TEST(NpuQueueHeaderCheck, BadMagic) {
  npu_queue_header h = ValidHeader();
  for (uint32_t magic : {0u, 0x4e505551u /* byte-swapped */, NPU_QUEUE_MAGIC ^ 1u, 0xFFFFFFFFu}) {
    h.magic = magic;
    EXPECT_EQ(Check(h), NPU_ATTACH_BAD_MAGIC) << std::hex << magic;
  }
}

TEST(NpuQueueHeaderCheck, OtherMajorVersionIsRejected) {
  npu_queue_header h = ValidHeader();
  for (uint32_t major : {0u, NPU_PROTOCOL_VERSION_MAJOR + 1, 0xFFFFu}) {
    h.version = (major << 16) | NPU_PROTOCOL_VERSION_MINOR;
    EXPECT_EQ(Check(h), NPU_ATTACH_BAD_VERSION) << "major " << major;
  }
  h.version = 0;  // a zeroed header field
  EXPECT_EQ(Check(h), NPU_ATTACH_BAD_VERSION);
}

TEST(NpuQueueHeaderCheck, NewerMinorIsRejectedOlderOrEqualMinorAccepted) {
  npu_queue_header h = ValidHeader();
  h.version = (NPU_PROTOCOL_VERSION_MAJOR << 16) | (NPU_PROTOCOL_VERSION_MINOR + 1);
  EXPECT_EQ(Check(h), NPU_ATTACH_BAD_VERSION);
  h.version = (NPU_PROTOCOL_VERSION_MAJOR << 16) | 0xFFFFu;
  EXPECT_EQ(Check(h), NPU_ATTACH_BAD_VERSION);
  // Every minor up to the TS's own is accepted (with 1.0 that is minor 0 only).
  for (uint32_t minor = 0; minor <= NPU_PROTOCOL_VERSION_MINOR; ++minor) {
    h.version = (NPU_PROTOCOL_VERSION_MAJOR << 16) | minor;
    EXPECT_EQ(Check(h), NPU_ATTACH_OK) << "minor " << minor;
  }
}

TEST(NpuQueueHeaderCheck, BadCommandAndCompletionRingSizes) {
  for (uint32_t entries : {0u, 1u, 3u, 6u, 100u, 4097u, 8192u, 0x80000000u}) {
    npu_queue_header h = ValidHeader();
    h.cmd_entries = entries;
    EXPECT_EQ(Check(h), NPU_ATTACH_BAD_CMD_ENTRIES) << entries;
    h = ValidHeader();
    h.cpl_entries = entries;
    EXPECT_EQ(Check(h), NPU_ATTACH_BAD_CPL_ENTRIES) << entries;
  }
}

TEST(NpuQueueHeaderCheck, NumCoresMustBe1To32) {
  npu_queue_header h = ValidHeader();
  for (uint32_t cores : {0u, 33u, NPU_MAX_CORES + 1, 0xFFFFFFFFu}) {
    h.num_cores = cores;
    EXPECT_EQ(Check(h), NPU_ATTACH_BAD_NUM_CORES) << cores;
  }
  for (uint32_t cores = 1; cores <= NPU_MAX_CORES; ++cores) {
    h.num_cores = cores;
    EXPECT_EQ(Check(h), NPU_ATTACH_OK) << cores;
  }
}

TEST(NpuQueueHeaderCheck, HeaderAndRingsMustBe64ByteAlignedAndNonZero) {
  for (uint64_t address : {uint64_t{0}, kHeaderAddress + 1, kHeaderAddress + 8, kHeaderAddress + 32}) {
    EXPECT_EQ(Check(ValidHeader(), address), NPU_ATTACH_BAD_ALIGNMENT) << std::hex << address;
  }
  for (uint64_t ring : {uint64_t{0}, kHeaderAddress + 0x148, kHeaderAddress + 0x160, uint64_t{0x21}}) {
    npu_queue_header h = ValidHeader();
    h.cmd_ring = ring;
    EXPECT_EQ(Check(h), NPU_ATTACH_BAD_ALIGNMENT) << "cmd_ring " << std::hex << ring;
    h = ValidHeader();
    h.cpl_ring = ring;
    EXPECT_EQ(Check(h), NPU_ATTACH_BAD_ALIGNMENT) << "cpl_ring " << std::hex << ring;
  }
  // Addresses above 4 GiB are fine as long as they are aligned.
  npu_queue_header h = ValidHeader();
  h.cmd_ring = 0x1'0000'0040ull;
  h.cpl_ring = 0xFFFF'FFFF'FFFF'FFC0ull;
  EXPECT_EQ(Check(h, 0x8'0000'0000ull), NPU_ATTACH_OK);
}

TEST(NpuQueueHeaderCheck, CommandRingMayHoldUpToEntriesButNotMore) {
  npu_queue_header h = ValidHeader();  // cmd_entries 4
  h.cmd_head = 0xFFFFFFFEu;
  h.cmd_tail = 0x00000002u;  // 4 commands across the wrap: a full ring is acceptable
  EXPECT_EQ(Check(h), NPU_ATTACH_OK);
  h.cmd_tail = 0x00000003u;  // 5 commands in a 4-entry ring
  EXPECT_EQ(Check(h), NPU_ATTACH_BAD_INDICES);
  h.cmd_tail = 0xFFFFFFFDu;  // tail one behind head: 2^32 - 1 entries
  EXPECT_EQ(Check(h), NPU_ATTACH_BAD_INDICES);
  h.cmd_head = 10;
  h.cmd_tail = 11;
  EXPECT_EQ(Check(h), NPU_ATTACH_OK);
}

TEST(NpuQueueHeaderCheck, PendingCompletionsAreRejected) {
  npu_queue_header h = ValidHeader();
  h.cpl_tail = h.cpl_head + 1;
  EXPECT_EQ(Check(h), NPU_ATTACH_BAD_INDICES);
  h.cpl_tail = h.cpl_head - 1;
  EXPECT_EQ(Check(h), NPU_ATTACH_BAD_INDICES);
  h.cpl_head = 0xFFFFFFFFu;
  h.cpl_tail = 0;
  EXPECT_EQ(Check(h), NPU_ATTACH_BAD_INDICES);
}

// docs/npu-protocol.md lists the reasons but states no precedence between them
// when several are wrong at once, so no order is checked here.

// ---------------------------------------------------------------------------
// Command check

// 0 for a well-formed command, else the NPU_BAD_* reason.
uint32_t CheckCommand(const npu_command& c) { return npu_command_check(&c); }

// Well-formed commands of each kind; tests break one field at a time.
npu_command Launch(uint16_t stream = 0, uint64_t entry = 0x8000'1000, uint32_t block_dim = 4) {
  npu_command c{};
  c.opcode = NPU_CMD_LAUNCH;
  c.stream = stream;
  c.seq = 1;
  c.u.launch.entry = entry;
  c.u.launch.args = 0x9000'2000;
  c.u.launch.block_dim = block_dim;
  return c;
}

npu_command EventCommand(uint16_t opcode, uint32_t event, uint16_t stream = 0, uint64_t count = 0) {
  npu_command c{};
  c.opcode = opcode;
  c.stream = stream;
  c.seq = 2;
  c.u.event.event = event;
  c.u.event.count = count;
  return c;
}

npu_command Plain(uint16_t opcode, uint16_t stream = 0) {
  npu_command c{};
  c.opcode = opcode;
  c.stream = stream;
  c.seq = 3;
  return c;
}

TEST(NpuCommandCheck, WellFormedCommandsPass) {
  for (uint16_t stream = 0; stream < NPU_MAX_STREAMS; ++stream) {
    EXPECT_EQ(CheckCommand(Launch(stream)), 0u) << stream;
    EXPECT_EQ(CheckCommand(EventCommand(NPU_CMD_RECORD_EVENT, 0, stream)), 0u);
    EXPECT_EQ(CheckCommand(EventCommand(NPU_CMD_WAIT_EVENT, 0, stream, 1)), 0u);
    EXPECT_EQ(CheckCommand(Plain(NPU_CMD_NOP, stream)), 0u);
    EXPECT_EQ(CheckCommand(Plain(NPU_CMD_BARRIER, stream)), 0u);
  }
  for (uint32_t event = 0; event < NPU_MAX_EVENTS; ++event) {
    EXPECT_EQ(CheckCommand(EventCommand(NPU_CMD_RECORD_EVENT, event)), 0u) << event;
    EXPECT_EQ(CheckCommand(EventCommand(NPU_CMD_WAIT_EVENT, event, 15, event)), 0u) << event;
  }
  // Entry: any non-zero even address; block_dim 1 .. NPU_MAX_BLOCK_DIM.
  for (uint64_t entry : {uint64_t{2}, uint64_t{0x8000'0000}, uint64_t{0xFFFF'FFFF'FFFF'FFFE}}) {
    EXPECT_EQ(CheckCommand(Launch(0, entry)), 0u) << std::hex << entry;
  }
  EXPECT_EQ(CheckCommand(Launch(0, 0x8000'1000, 1)), 0u);
  EXPECT_EQ(CheckCommand(Launch(0, 0x8000'1000, NPU_MAX_BLOCK_DIM)), 0u);
  // The seq is the host's choice.
  npu_command c = Launch();
  c.seq = ~0ull;
  EXPECT_EQ(CheckCommand(c), 0u);
}

TEST(NpuCommandCheck, UnknownOpcodeIncludingZero) {
  for (uint16_t opcode : {uint16_t{0}, uint16_t{6}, uint16_t{7}, uint16_t{0x100}, uint16_t{0xFFFF}}) {
    EXPECT_EQ(CheckCommand(Plain(opcode)), NPU_BAD_OPCODE) << opcode;
  }
  npu_command zeroed{};  // a slot the host never wrote
  EXPECT_EQ(CheckCommand(zeroed), NPU_BAD_OPCODE);
}

TEST(NpuCommandCheck, UnknownFlagsForEveryOpcode) {
  const npu_command good[] = {Launch(), EventCommand(NPU_CMD_RECORD_EVENT, 1), EventCommand(NPU_CMD_WAIT_EVENT, 1),
                              Plain(NPU_CMD_BARRIER), Plain(NPU_CMD_NOP)};
  for (npu_command c : good) {
    for (uint32_t flags : {2u, 0x80000000u, 0xFFFFFFFFu}) {
      c.flags = flags;
      EXPECT_EQ(CheckCommand(c), NPU_BAD_FLAGS) << "opcode " << c.opcode << " flags " << flags;
    }
    // NPU_LAUNCH_CODE_UNCHANGED is a LAUNCH flag only.
    c.flags = NPU_LAUNCH_CODE_UNCHANGED;
    EXPECT_EQ(CheckCommand(c), c.opcode == NPU_CMD_LAUNCH ? 0u : NPU_BAD_FLAGS) << "opcode " << c.opcode;
  }
}

TEST(NpuCommandCheck, StreamOutOfRangeForLaunchRecordWaitNop) {
  for (uint16_t stream : {uint16_t(NPU_MAX_STREAMS), uint16_t{17}, uint16_t{0xFFFF}}) {
    EXPECT_EQ(CheckCommand(Launch(stream)), NPU_BAD_STREAM) << stream;
    EXPECT_EQ(CheckCommand(EventCommand(NPU_CMD_RECORD_EVENT, 0, stream)), NPU_BAD_STREAM) << stream;
    EXPECT_EQ(CheckCommand(EventCommand(NPU_CMD_WAIT_EVENT, 0, stream)), NPU_BAD_STREAM) << stream;
    EXPECT_EQ(CheckCommand(Plain(NPU_CMD_NOP, stream)), NPU_BAD_STREAM) << stream;
  }
}

TEST(NpuCommandCheck, BarrierIgnoresStreamAndBody) {
  for (uint16_t stream : {uint16_t(NPU_MAX_STREAMS), uint16_t{0xFFFF}}) {
    EXPECT_EQ(CheckCommand(Plain(NPU_CMD_BARRIER, stream)), 0u) << stream;
  }
  npu_command c = Plain(NPU_CMD_BARRIER);
  for (uint64_t& w : c.u.words) w = ~0ull;
  EXPECT_EQ(CheckCommand(c), 0u);
}

TEST(NpuCommandCheck, NopIgnoresBody) {
  npu_command c = Plain(NPU_CMD_NOP, 3);
  for (uint64_t& w : c.u.words) w = ~0ull;  // entry odd, block_dim and event out of range
  EXPECT_EQ(CheckCommand(c), 0u);
}

TEST(NpuCommandCheck, LaunchEntryZeroOrOdd) {
  for (uint64_t entry : {uint64_t{0}, uint64_t{1}, uint64_t{0x8000'1001}, ~uint64_t{0}}) {
    EXPECT_EQ(CheckCommand(Launch(0, entry)), NPU_BAD_ENTRY) << std::hex << entry;
  }
}

TEST(NpuCommandCheck, LaunchBlockDimZeroOrAboveMax) {
  for (uint32_t block_dim : {0u, NPU_MAX_BLOCK_DIM + 1, 0x10000u, 0xFFFFFFFFu}) {
    EXPECT_EQ(CheckCommand(Launch(0, 0x8000'1000, block_dim)), NPU_BAD_BLOCK_DIM) << block_dim;
  }
}

TEST(NpuCommandCheck, EventIdOutOfRangeForRecordAndWait) {
  for (uint32_t event : {NPU_MAX_EVENTS, 65u, 0xFFFFFFFFu}) {
    EXPECT_EQ(CheckCommand(EventCommand(NPU_CMD_RECORD_EVENT, event)), NPU_BAD_EVENT) << event;
    EXPECT_EQ(CheckCommand(EventCommand(NPU_CMD_WAIT_EVENT, event, 0, 1)), NPU_BAD_EVENT) << event;
  }
}

TEST(NpuCommandCheck, WaitCountIsLeftToTheTs) {
  // NPU_BAD_WAIT_COUNT needs the TS's event counts: npu_command_check never returns it.
  EXPECT_EQ(CheckCommand(EventCommand(NPU_CMD_WAIT_EVENT, 5, 0, ~0ull)), 0u);
}

// ---------------------------------------------------------------------------
// Layout and constants (the tables of docs/npu-protocol.md)

// Offset and size of one field, as the document's tables state them.
#define EXPECT_FIELD(type, field, offset, size)                       \
  do {                                                                \
    EXPECT_EQ(offsetof(type, field), std::size_t(offset)) << #field; \
    EXPECT_EQ(sizeof(type::field), std::size_t(size)) << #field;     \
  } while (0)

TEST(NpuProtocolLayout, StructureSizes) {
  EXPECT_EQ(sizeof(npu_command), 64u);
  EXPECT_EQ(sizeof(npu_completion), 128u);
  EXPECT_EQ(sizeof(npu_queue_header), 320u);
  EXPECT_EQ(sizeof(npu_launch_body), 48u);
  EXPECT_EQ(sizeof(npu_event_body), 48u);
}

TEST(NpuProtocolLayout, QueueHeaderFieldsAndIndexLines) {
  EXPECT_FIELD(npu_queue_header, magic, 0, 4);
  EXPECT_FIELD(npu_queue_header, version, 4, 4);
  EXPECT_FIELD(npu_queue_header, cmd_entries, 8, 4);
  EXPECT_FIELD(npu_queue_header, cpl_entries, 12, 4);
  EXPECT_FIELD(npu_queue_header, cmd_ring, 16, 8);
  EXPECT_FIELD(npu_queue_header, cpl_ring, 24, 8);
  EXPECT_FIELD(npu_queue_header, num_cores, 32, 4);
  EXPECT_FIELD(npu_queue_header, flags, 36, 4);
  EXPECT_FIELD(npu_queue_header, reserved0, 40, 24);
  // Each index on its own 64-byte line, with one writer.
  EXPECT_FIELD(npu_queue_header, cmd_tail, 64, 4);
  EXPECT_FIELD(npu_queue_header, cmd_head, 128, 4);
  EXPECT_FIELD(npu_queue_header, cpl_tail, 192, 4);
  EXPECT_FIELD(npu_queue_header, ts_flags, 196, 4);
  EXPECT_FIELD(npu_queue_header, cpl_head, 256, 4);
  EXPECT_EQ(offsetof(npu_queue_header, cmd_tail) % 64, 0u);
  EXPECT_EQ(offsetof(npu_queue_header, cmd_head) % 64, 0u);
  EXPECT_EQ(offsetof(npu_queue_header, cpl_tail) % 64, 0u);
  EXPECT_EQ(offsetof(npu_queue_header, cpl_head) % 64, 0u);
}

TEST(NpuProtocolLayout, CommandFieldsAndBodies) {
  EXPECT_FIELD(npu_command, opcode, 0, 2);
  EXPECT_FIELD(npu_command, stream, 2, 2);
  EXPECT_FIELD(npu_command, flags, 4, 4);
  EXPECT_FIELD(npu_command, seq, 8, 8);
  EXPECT_FIELD(npu_command, u, 16, 48);
  const std::size_t body = offsetof(npu_command, u);
  // LAUNCH body, offsets within the command.
  EXPECT_EQ(body + offsetof(npu_launch_body, entry), 16u);
  EXPECT_EQ(body + offsetof(npu_launch_body, args), 24u);
  EXPECT_EQ(body + offsetof(npu_launch_body, block_dim), 32u);
  EXPECT_EQ(body + offsetof(npu_launch_body, reserved), 36u);
  EXPECT_EQ(sizeof(npu_launch_body::entry), 8u);
  EXPECT_EQ(sizeof(npu_launch_body::args), 8u);
  EXPECT_EQ(sizeof(npu_launch_body::block_dim), 4u);
  // RECORD_EVENT / WAIT_EVENT body.
  EXPECT_EQ(body + offsetof(npu_event_body, event), 16u);
  EXPECT_EQ(body + offsetof(npu_event_body, count), 24u);
  EXPECT_EQ(sizeof(npu_event_body::event), 4u);
  EXPECT_EQ(sizeof(npu_event_body::count), 8u);
}

TEST(NpuProtocolLayout, CompletionFieldByField) {
  EXPECT_FIELD(npu_completion, seq, 0, 8);
  EXPECT_FIELD(npu_completion, opcode, 8, 2);
  EXPECT_FIELD(npu_completion, stream, 10, 2);
  EXPECT_FIELD(npu_completion, status, 12, 4);
  EXPECT_FIELD(npu_completion, detail, 16, 4);
  EXPECT_FIELD(npu_completion, fault_core, 20, 4);
  EXPECT_FIELD(npu_completion, fault_pc, 24, 8);
  EXPECT_FIELD(npu_completion, fault_block, 32, 4);
  EXPECT_FIELD(npu_completion, blocks_done, 36, 4);
  EXPECT_FIELD(npu_completion, kernel_cycles, 40, 8);
  EXPECT_FIELD(npu_completion, start_cycle, 48, 8);
  EXPECT_FIELD(npu_completion, end_cycle, 56, 8);
  EXPECT_FIELD(npu_completion, core_start_cycle, 64, 8);
  EXPECT_FIELD(npu_completion, core_end_cycle, 72, 8);
  EXPECT_FIELD(npu_completion, reserved, 80, 48);
}

#undef EXPECT_FIELD

TEST(NpuProtocolConstants, VersionMacros) {
  EXPECT_EQ(NPU_PROTOCOL_VERSION_MAJOR, 2u);
  EXPECT_EQ(NPU_PROTOCOL_VERSION_MINOR, 0u);
  EXPECT_EQ(NPU_PROTOCOL_VERSION, 0x20000u);  // "2.0 = 0x20000"
  EXPECT_EQ(NPU_VERSION_MAJOR(NPU_PROTOCOL_VERSION), NPU_PROTOCOL_VERSION_MAJOR);
  EXPECT_EQ(NPU_VERSION_MINOR(NPU_PROTOCOL_VERSION), NPU_PROTOCOL_VERSION_MINOR);
  EXPECT_EQ(NPU_VERSION_MAJOR(0x0003'0007u), 3u);
  EXPECT_EQ(NPU_VERSION_MINOR(0x0003'0007u), 7u);
  EXPECT_EQ(NPU_VERSION_MAJOR(0xFFFF'0000u), 0xFFFFu);
  EXPECT_EQ(NPU_VERSION_MINOR(0x0001'FFFFu), 0xFFFFu);
}

TEST(NpuProtocolConstants, MagicSpellsNpuqInLittleEndianMemory) {
  EXPECT_EQ(NPU_QUEUE_MAGIC, 0x5155504eu);
  const char bytes[4] = {char(NPU_QUEUE_MAGIC & 0xff), char((NPU_QUEUE_MAGIC >> 8) & 0xff),
                         char((NPU_QUEUE_MAGIC >> 16) & 0xff), char((NPU_QUEUE_MAGIC >> 24) & 0xff)};
  EXPECT_EQ(std::string(bytes, 4), "NPUQ");
}

TEST(NpuProtocolConstants, ValuesTheDocumentStates) {
  // Opcodes, statuses, reasons.
  EXPECT_EQ(NPU_CMD_INVALID, 0);
  EXPECT_EQ(NPU_CMD_LAUNCH, 1);
  EXPECT_EQ(NPU_CMD_RECORD_EVENT, 2);
  EXPECT_EQ(NPU_CMD_WAIT_EVENT, 3);
  EXPECT_EQ(NPU_CMD_BARRIER, 4);
  EXPECT_EQ(NPU_CMD_NOP, 5);
  EXPECT_EQ(NPU_STATUS_OK, 0);
  EXPECT_EQ(NPU_STATUS_KERNEL_FAULT, 1);
  EXPECT_EQ(NPU_STATUS_BAD_COMMAND, 2);
  const uint32_t attach[] = {NPU_ATTACH_OK,           NPU_ATTACH_BAD_MAGIC,       NPU_ATTACH_BAD_VERSION,
                             NPU_ATTACH_BAD_CMD_ENTRIES, NPU_ATTACH_BAD_CPL_ENTRIES, NPU_ATTACH_BAD_NUM_CORES,
                             NPU_ATTACH_BAD_ALIGNMENT, NPU_ATTACH_BAD_INDICES};
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(attach[i], i);
  const uint32_t bad[] = {NPU_BAD_OPCODE, NPU_BAD_FLAGS,     NPU_BAD_STREAM,    NPU_BAD_ENTRY,
                          NPU_BAD_BLOCK_DIM, NPU_BAD_EVENT, NPU_BAD_WAIT_COUNT};
  for (uint32_t i = 0; i < 7; ++i) EXPECT_EQ(bad[i], i + 1);
  const uint32_t fault[] = {NPU_FAULT_BUFFER_RANGE, NPU_FAULT_MISALIGNED,   NPU_FAULT_INVALID_PARAMETER,
                            NPU_FAULT_BUS_ERROR,    NPU_FAULT_DEADLOCK,     NPU_FAULT_SCALAR_TRAP,
                            NPU_FAULT_FLAG_OVERFLOW};
  for (uint32_t i = 0; i < 7; ++i) EXPECT_EQ(fault[i], i + 1);
  EXPECT_EQ(NPU_NO_CORE, 0xFFFFFFFFu);
  EXPECT_EQ(NPU_TS_FLAG_CPL_STALLED, 1u);

  // Limits. NPU_MAX_CORES was 16 until the PLIC sources 64..95 were given to AI Cores
  // 16..31 (issue 19: Ascend 910's 32 AI Cores); a header with 17..32 cores was
  // NPU_ATTACH_BAD_NUM_CORES before, so no valid 1.0 host changes meaning.
  EXPECT_EQ(NPU_MAX_CORES, 32u);
  EXPECT_EQ(NPU_MAX_STREAMS, 16u);
  EXPECT_EQ(NPU_MAX_EVENTS, 64u);
  EXPECT_EQ(NPU_MAX_BLOCK_DIM, 65535u);
  EXPECT_EQ(NPU_MAX_QUEUE_ENTRIES, 4096u);

  // Hardware: mailbox, PLIC sources, AI Core windows.
  EXPECT_EQ(NPU_MAILBOX_BASE, 0x2000'0000ull);
  EXPECT_EQ(NPU_MB_DOORBELL, 0x00u);
  EXPECT_EQ(NPU_MB_DOORBELL_ACK, 0x08u);
  EXPECT_EQ(NPU_MB_HOST_IRQ, 0x10u);
  EXPECT_EQ(NPU_MB_HOST_IRQ_ACK, 0x18u);
  EXPECT_EQ(NPU_MB_SCRATCH(0), 0x40u);
  EXPECT_EQ(NPU_MB_SCRATCH(7), 0x78u);
  EXPECT_EQ(NPU_PLIC_SOURCE_DOORBELL, 20u);
  EXPECT_EQ(NPU_PLIC_SOURCE_HOST_IRQ, 21u);
  EXPECT_EQ(NPU_PLIC_CONTEXT_HOST, 0u);
  EXPECT_EQ(NPU_PLIC_CONTEXT_TS, 1u);
  EXPECT_EQ(NPU_AICORE_CONTROL(0), 0x2010'0000ull);
  EXPECT_EQ(NPU_AICORE_CONTROL(3), 0x2010'3000ull);
  EXPECT_EQ(NPU_PLIC_SOURCE_AICORE_DONE(0), 32u);
  EXPECT_EQ(NPU_PLIC_SOURCE_AICORE_ERROR(0), 33u);
  EXPECT_EQ(NPU_PLIC_SOURCE_AICORE_DONE(15), 62u);
  EXPECT_EQ(NPU_PLIC_SOURCE_AICORE_ERROR(15), 63u);
  EXPECT_EQ(NPU_PLIC_SOURCE_AICORE_DONE(31), 94u);
  EXPECT_EQ(NPU_PLIC_SOURCE_AICORE_ERROR(31), 95u);
  EXPECT_EQ(NPU_PLIC_SOURCES, 96u);
  EXPECT_EQ(NPU_AICORE_CONTROL(31), 0x2011'F000ull);
  EXPECT_EQ(NPU_AICORE_STATUS_CAUSE(0x0000'0504u), 5u);
}

// The software's limits and addresses (this header) and the hardware's (the platform's
// memory map) are each defined once, on their own side; they must agree.
TEST(NpuProtocolConstants, AgreeWithThePlatformsMemoryMap) {
  namespace map = npuvp::memory_map;
  EXPECT_EQ(NPU_MAX_CORES, map::kMaxAiCores);
  EXPECT_EQ(NPU_PLIC_SOURCES, map::kPlicSources);
  EXPECT_EQ(NPU_PLIC_SOURCE_AICORE_DONE(0), map::kAiCoreDoneSource);
  EXPECT_EQ(NPU_PLIC_SOURCE_DOORBELL, map::kTsDoorbellSource);
  EXPECT_EQ(NPU_PLIC_SOURCE_HOST_IRQ, map::kTsHostIrqSource);
  EXPECT_EQ(NPU_MAILBOX_BASE, map::kNpuMailbox);
  EXPECT_EQ(NPU_AICORE_CONTROL_BASE, map::kAiCoreControl);
  EXPECT_EQ(NPU_AICORE_CONTROL_STRIDE, npuvp::AiCore::kControlSize);
}

TEST(NpuProtocolConstants, TsStateWordPacksStateAndDetail) {
  EXPECT_EQ(NPU_TS_STATE_RESET, 0u);
  EXPECT_EQ(NPU_TS_STATE_BOOTED, 1u);
  EXPECT_EQ(NPU_TS_STATE_READY, 2u);
  EXPECT_EQ(NPU_TS_STATE_ATTACH_FAILED, 3u);
  EXPECT_EQ(NPU_SCRATCH_TS_STATE, 0u);
  EXPECT_EQ(NPU_SCRATCH_TS_VERSION, 1u);
  EXPECT_EQ(NPU_SCRATCH_QUEUE, 2u);

  const uint64_t word = NPU_TS_STATE_MAKE(NPU_TS_STATE_ATTACH_FAILED, NPU_ATTACH_BAD_INDICES);
  EXPECT_EQ(word, 0x0000'0007'0000'0003ull);  // state in bits 7:0, detail in 63:32
  EXPECT_EQ(NPU_TS_STATE(word), NPU_TS_STATE_ATTACH_FAILED);
  EXPECT_EQ(NPU_TS_STATE_DETAIL(word), NPU_ATTACH_BAD_INDICES);
  EXPECT_EQ(NPU_TS_STATE(0xFFFF'FFFF'FFFF'FF02ull), NPU_TS_STATE_READY);  // only bits 7:0
  EXPECT_EQ(NPU_TS_STATE_DETAIL(0xFFFF'FFFF'0000'0002ull), 0xFFFFFFFFu);
  EXPECT_EQ(NPU_TS_STATE_DETAIL(NPU_TS_STATE_MAKE(NPU_TS_STATE_READY, 0)), 0u);
}

// ---------------------------------------------------------------------------
// Names

// Every defined value has its own non-empty name, never the fallback; every other
// value gets the fallback `unknown`, which reads "unknown ...". (A real name may
// itself contain "unknown": NPU_BAD_OPCODE is "unknown opcode".)
void ExpectNames(const char* (*name)(uint32_t), const std::vector<uint32_t>& defined,
                 const std::vector<uint32_t>& undefined, const std::string& unknown) {
  ASSERT_EQ(unknown.rfind("unknown ", 0), 0u);
  std::set<std::string> seen;
  for (uint32_t v : defined) {
    ASSERT_NE(name(v), nullptr) << v;
    const std::string s = name(v);
    EXPECT_FALSE(s.empty()) << v;
    EXPECT_NE(s, unknown) << v;
    EXPECT_TRUE(seen.insert(s).second) << v << ": duplicate name " << s;
  }
  for (uint32_t v : undefined) {
    ASSERT_NE(name(v), nullptr) << v;
    EXPECT_EQ(std::string(name(v)), unknown) << v;
  }
}

TEST(NpuProtocolNames, StatusNames) {
  ExpectNames(npu_status_name, {NPU_STATUS_OK, NPU_STATUS_KERNEL_FAULT, NPU_STATUS_BAD_COMMAND},
              {3u, 0x100u, 0xFFFFFFFFu}, "unknown status");
}

TEST(NpuProtocolNames, FaultCauseNames) {
  ExpectNames(npu_fault_name,
              {NPU_FAULT_BUFFER_RANGE, NPU_FAULT_MISALIGNED, NPU_FAULT_INVALID_PARAMETER, NPU_FAULT_BUS_ERROR,
               NPU_FAULT_DEADLOCK, NPU_FAULT_SCALAR_TRAP, NPU_FAULT_FLAG_OVERFLOW},
              {0u, 8u, 0xFFu, 0xFFFFFFFFu}, "unknown cause");
}

TEST(NpuProtocolNames, BadCommandReasonNames) {
  ExpectNames(npu_bad_command_name,
              {NPU_BAD_OPCODE, NPU_BAD_FLAGS, NPU_BAD_STREAM, NPU_BAD_ENTRY, NPU_BAD_BLOCK_DIM, NPU_BAD_EVENT,
               NPU_BAD_WAIT_COUNT},
              {0u, 8u, 0xFFFFFFFFu}, "unknown reason");
}

}  // namespace
