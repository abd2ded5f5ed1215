// DdrController: DRAM behind a memory controller. Functionally a RAM like
// Memory (the same BackingStore: lazy anonymous mapping, DMI, debug transport,
// loader backdoor); in time, a bank / row-buffer / data-bus model evaluated
// inside b_transport with reservations, without per-cycle processes. Defaults
// are an LPDDR4-3200 part: 2 x16 channels, 8 banks, 2 KiB rows, BL16.
// docs/fabric.md ("DDR controller") has the formulas with a worked example.
//
// Loosely-timed convention: an access starts at sc_time_stamp() + delay and
// b_transport adds to `delay` the time until its last data beat is delivered
// (reads and writes alike).
//
// Address mapping of an offset inside the DDR (row : bank : column-high :
// channel : column-low, "RoBaCoCh" with a channel interleave; I =
// channel_interleave, C = channels, R = row_size, B = banks, all powers of two):
//   channel = (offset / I) mod C
//   local   = (offset / (I*C)) * I + offset mod I     offset inside its channel
//   column  = local mod R,  bank = (local / R) mod B,  row = local / (R*B)
// With the defaults (I = 64, C = 2, R = 2 KiB, B = 8) these are the bit fields
//   [5:0] column low, [6] channel, [11:7] column high, [14:12] bank, [..:15] row,
// so cache lines alternate between channels and a sequential stream fills a
// row of every bank in turn.
//
// Timing. An access is split into bursts: the aligned blocks of
// burst_bytes = bus_width * burst_length bytes it touches (a burst never spans
// two channels or rows). tBURST = burst_length / data_rate is the time a burst
// holds its channel's data bus; tCAS = tCL for reads, tCWL for writes. Each
// burst, in address order, with t0 = the access's start:
//   row hit (its row open):  col = max(t0, bank.ready)
//   row miss (bank closed):  act = max(t0, bank.ready);  col = act + tRCD
//   row conflict (other row open):
//       pre = max(t0, bank.ready, bank.activated + tRAS);  act = pre + tRP;  col = act + tRCD
//   data = the first time >= col + tCAS the channel's data bus is free for
//   the burst (in time order: max(col + tCAS, end of the bus's last burst));
//   end = data + tBURST;  bank.ready = end - tCAS  (the column command is
//   re-timed to meet the free bus; the next column command to the bank may
//   follow it after tBURST, i.e. tCCD = tBURST)
// The access completes at the latest `end` of its bursts. On an idle device a
// one-burst read costs tCL + tBURST on a hit, tRCD + tCL + tBURST on a miss and
// tRP + tRCD + tCL + tBURST on a conflict (hit-to-conflict difference exactly
// tRP + tRCD); more bursts on one channel add tBURST each, bursts on other
// channels proceed in parallel. page_policy "close" precharges a bank after
// the last burst an access makes to its row (pre = max(bank.ready,
// bank.activated + tRAS), bank.ready = pre + tRP), so every access opens its
// row (a miss) and never meets a conflict.
// Not modelled: refresh, tRRD/tFAW, tRTP/tWR, read-write bus turnaround and
// command-bus conflicts.
// Temporal decoupling: initiators call b_transport out of time order. The data
// bus is a ReservationCalendar, so an earlier access uses a free gap before a
// later one's bursts instead of queueing behind them. A bank remembers the
// start time of the access that last changed it and a calendar of when it
// works; an access that starts earlier (it arrives from an initiator that is
// behind) takes the first gap in that calendar long enough for its row
// preparation by the bank's current row (none, tRCD, or tRP + tRCD) plus its
// data; the row it opens is the bank's open row afterwards. Its error is about one access's
// row preparation, where queueing behind the later access could cost up to a
// quantum.
//
// DMI covers the whole memory with read latency tCL + tBURST and write
// latency tCWL + tBURST (a row-hit burst). DMI accesses, such as a CPU's,
// bypass the bank and bus model: they neither see nor change bank state and
// are not counted. Set `dmi` false to time every access.
//
// Geometry (size, channels, banks, row_size, bus_width, data_rate,
// burst_length, channel_interleave) is read at construction; timings,
// page_policy and dmi are read at every access.
//
// Host speed: b_transport is on the path of every timed access. It calls
// nothing in the SystemC library: it reads the kernel's clock through the
// simulation context (inline) instead of sc_time_stamp(), and computes with
// sc_time values whose arithmetic and comparisons are inline operations on
// their integer value, so no sc_time is ever built from a double or a raw
// value (sc_time::from_value and the constructors are library calls).
#pragma once

#include "core/parameters.h"
#include "core/reservation_calendar.h"
#include "core/statistics.h"
#include "mem/backing_store.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace npuvp {

class DdrController : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<DdrController> socket;

  Parameter<std::uint64_t> size;
  Parameter<std::uint64_t> channels;
  Parameter<std::uint64_t> banks;
  Parameter<std::uint64_t> row_size;
  Parameter<std::uint64_t> bus_width;
  Parameter<std::uint64_t> data_rate;
  Parameter<std::uint64_t> burst_length;
  Parameter<std::uint64_t> channel_interleave;
  Parameter<sc_core::sc_time> tRCD;
  Parameter<sc_core::sc_time> tCL;
  Parameter<sc_core::sc_time> tCWL;
  Parameter<sc_core::sc_time> tRP;
  Parameter<sc_core::sc_time> tRAS;
  Parameter<std::string> page_policy;
  Parameter<bool> dmi;

  // `default_size` is the default of the `size` parameter.
  explicit DdrController(sc_core::sc_module_name name, std::uint64_t default_size = std::uint64_t{1} << 30);

  // Backdoor for loaders and tests (no timing, not counted).
  std::uint8_t* data() { return store_.data(); }
  // Bytes read and written through b_transport so far (DMI accesses are not seen).
  std::uint64_t bytes_read() const { return bytes_read_.value(); }
  std::uint64_t bytes_written() const { return bytes_written_.value(); }
  bool write_backdoor(std::uint64_t offset, const void* bytes, std::size_t length) {
    return store_.write_backdoor(offset, bytes, length);
  }

  // Where an offset inside the DDR lives, by the mapping above.
  struct Location {
    unsigned channel = 0, bank = 0;
    std::uint64_t row = 0, column = 0;
  };
  Location decode(std::uint64_t offset) const {
    Location location;
    location.channel = static_cast<unsigned>((offset >> channel_shift_) & channel_mask_);
    const std::uint64_t local = ((offset >> (channel_shift_ + channel_bits_)) << channel_shift_) | (offset & block_mask_);
    location.column = local & column_mask_;
    location.bank = static_cast<unsigned>((local >> row_shift_) & bank_mask_);
    location.row = local >> (row_shift_ + bank_bits_);
    return location;
  }

 private:
  using Ticks = sc_core::sc_time::value_type;  // SystemC time-resolution units

  struct Bank {
    bool open = false;
    std::uint64_t row = 0;
    sc_core::sc_time ready;      // earliest next command (column, precharge or activate)
    sc_core::sc_time activated;  // last activate, for tRAS
    sc_core::sc_time last_start; // start of the latest access that set this state
    ReservationCalendar busy;    // when the bank works, for accesses that arrive late
  };
  struct Channel {
    ReservationCalendar bus;    // when the data bus is reserved
    sc_core::sc_time busy;      // total data-bus occupancy
  };

  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& payload, tlm::tlm_dmi& dmi);
  unsigned int transport_dbg(tlm::tlm_generic_payload& payload);
  void validate_geometry();
  // Closes `bank`'s row: the precharge waits for tRAS after the activate.
  static void precharge(Bank& bank, const sc_core::sc_time& ras, const sc_core::sc_time& rp);
  double active_ns() const;

  BackingStore store_;  // after `size`, which it is built from
  // Frozen geometry, with the masks of the address mapping.
  unsigned channel_shift_ = 0, channel_bits_ = 0, row_shift_ = 0, bank_bits_ = 0;
  std::uint64_t block_mask_ = 0, channel_mask_ = 0, column_mask_ = 0, bank_mask_ = 0;
  std::uint64_t burst_bytes_ = 0;
  unsigned burst_shift_ = 0;  // log2(burst_bytes_)
  // The bursts of an access inside one aligned block of run_bytes_ =
  // min(channel_interleave, row_size) bytes share their channel, bank and row:
  // a run. After its first burst each one is a row hit with column =
  // bank.ready = previous end - tCAS (the previous end is past t0 + tCAS), so
  // data = the previous end = bus_free: the bursts follow each other on the
  // bus, and b_transport times a run of k bursts at once (k · tBURST of data).
  std::uint64_t run_bytes_ = 0;
  std::uint64_t full_run_bursts_ = 0;  // in a whole block: run_bytes_ / burst_bytes_
  sc_core::sc_time full_run_time_;     // full_run_bursts_ · tBURST
  sc_core::sc_time burst_time_;
  Ticks ns_ticks_ = 0;  // one nanosecond in time-resolution units, for the latency histogram
  std::vector<Channel> channels_;
  std::vector<Bank> banks_;  // bank b of channel c at (c << bank_bits_) | b
  std::vector<Bank*> open_in_access_;  // close page: per channel, the bank this access last used

  // Span of b_transport activity, for bandwidth and utilisation.
  bool active_ = false;
  sc_core::sc_time first_start_, last_end_;

  Counter reads_, writes_, bytes_read_, bytes_written_, bursts_, row_hits_, row_misses_, row_conflicts_;
  Histogram latency_;
  std::vector<std::unique_ptr<Statistic>> derived_;
};

}  // namespace npuvp
