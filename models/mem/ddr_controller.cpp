#include "mem/ddr_controller.h"

#include "core/simulation.h"

#include <algorithm>
#include <string_view>

namespace npuvp {

namespace {

using sc_core::sc_time;

bool is_power_of_two(std::uint64_t value) { return value != 0 && (value & (value - 1)) == 0; }

unsigned log2_of(std::uint64_t power_of_two) { return static_cast<unsigned>(__builtin_ctzll(power_of_two)); }

void require_nonzero(const Parameter<std::uint64_t>& parameter) {
  if (parameter.get() == 0) throw ConfigError(parameter.name() + " must not be zero");
}

void require_power_of_two(const Parameter<std::uint64_t>& parameter) {
  require_nonzero(parameter);
  if (!is_power_of_two(parameter.get()))
    throw ConfigError(parameter.name() + " must be a power of two (the address mapping slices address bits), got " +
                      std::to_string(parameter.get()));
}

// Nanoseconds in a time, rounded to the nearest integer; `ns` is one
// nanosecond in time-resolution units (0 when the resolution is coarser).
std::uint64_t rounded_ns(const sc_time& time, sc_time::value_type ns) { return ns ? (time.value() + ns / 2) / ns : 0; }

// count · time by inline additions (the library's sc_time products go through
// a double); count is the bursts of one run, so the loop is short.
sc_time times(std::uint64_t count, sc_time time) {
  sc_time product;
  for (; count != 0; count >>= 1, time += time)
    if (count & 1) product += time;
  return product;
}

double to_ns(const sc_time& time) { return time.to_seconds() * 1e9; }

}  // namespace

DdrController::DdrController(sc_core::sc_module_name name, std::uint64_t default_size)
    : sc_module(name),
      socket("socket"),
      size(child_name(*this, "size"), default_size, "bytes", "capacity"),
      channels(child_name(*this, "channels"), 2, "channels",
               "independent channels, each with its own banks and data bus (power of two)"),
      banks(child_name(*this, "banks"), 8, "banks", "banks per channel (power of two)"),
      row_size(child_name(*this, "row_size"), 2048, "bytes",
               "bytes in one row (page) of a bank of one channel (power of two, at least one burst)"),
      bus_width(child_name(*this, "bus_width"), 2, "bytes",
                "data-bus width of one channel (2 = x16 as in LPDDR4; power of two)"),
      data_rate(child_name(*this, "data_rate"), 3200, "MT/s",
                "data-bus transfers per second (3200 = LPDDR4-3200, clock 1600 MHz)"),
      burst_length(child_name(*this, "burst_length"), 16, "beats",
                   "data-bus transfers per column access (BL16; power of two)"),
      channel_interleave(child_name(*this, "channel_interleave"), 64, "bytes",
                         "consecutive blocks of this size alternate between channels (power of two, at least one "
                         "burst)"),
      tRCD(child_name(*this, "tRCD"), sc_time(18, sc_core::SC_NS), "time", "activate to column command"),
      tCL(child_name(*this, "tCL"), sc_time(17.5, sc_core::SC_NS), "time",
          "read column command to first data (read latency RL = 28 tCK at 1600 MHz)"),
      tCWL(child_name(*this, "tCWL"), sc_time(8.75, sc_core::SC_NS), "time",
           "write column command to first data (write latency WL = 14 tCK at 1600 MHz)"),
      tRP(child_name(*this, "tRP"), sc_time(18, sc_core::SC_NS), "time", "precharge to activate"),
      tRAS(child_name(*this, "tRAS"), sc_time(42, sc_core::SC_NS), "time", "activate to precharge, at least"),
      page_policy(child_name(*this, "page_policy"), "open", "",
                  "open: a row stays open until another row of its bank is needed; close: precharge after each "
                  "access",
                  {"open", "close"}),
      dmi(child_name(*this, "dmi"), true, "",
          "grant DMI (accesses through DMI bypass the bank and bus model); false times every access"),
      store_(size, size.name()),
      reads_(child_name(*this, "reads"), "", "read transactions (b_transport; DMI accesses are not counted)"),
      writes_(child_name(*this, "writes"), "", "write transactions (b_transport)"),
      bytes_read_(child_name(*this, "bytes_read"), "bytes", "bytes read through b_transport"),
      bytes_written_(child_name(*this, "bytes_written"), "bytes", "bytes written through b_transport"),
      bursts_(child_name(*this, "bursts"), "bursts", "column accesses of bus_width x burst_length bytes"),
      row_hits_(child_name(*this, "row_hits"), "bursts", "bursts that found their row open"),
      row_misses_(child_name(*this, "row_misses"), "bursts", "bursts that found their bank closed (activate)"),
      row_conflicts_(child_name(*this, "row_conflicts"), "bursts",
                     "bursts that found another row open (precharge + activate)"),
      latency_(child_name(*this, "latency"), "ns",
               "b_transport latency, start to last data beat (rounded to ns)") {
  validate_geometry();
  // The time resolution is fixed from here on (the timing parameters above
  // hold non-zero times), so one nanosecond is a constant number of units.
  ns_ticks_ = sc_time(1, sc_core::SC_NS).value();
  channel_shift_ = log2_of(channel_interleave);
  channel_bits_ = log2_of(channels);
  row_shift_ = log2_of(row_size);
  bank_bits_ = log2_of(banks);
  block_mask_ = (std::uint64_t{1} << channel_shift_) - 1;
  channel_mask_ = (std::uint64_t{1} << channel_bits_) - 1;
  column_mask_ = (std::uint64_t{1} << row_shift_) - 1;
  bank_mask_ = (std::uint64_t{1} << bank_bits_) - 1;
  burst_bytes_ = bus_width.get() * burst_length.get();
  burst_shift_ = log2_of(burst_bytes_);
  run_bytes_ = std::min(channel_interleave.get(), row_size.get());
  full_run_bursts_ = run_bytes_ / burst_bytes_;
  full_run_time_ = times(full_run_bursts_, burst_time_);
  channels_.resize(channels.get());
  banks_.resize(channels.get() * banks.get());

  auto add = [this](const std::string& local, const char* unit, const char* doc, std::function<double()> value) {
    derived_.emplace_back(new DerivedStatistic(child_name(*this, local), unit, doc, std::move(value)));
  };
  add("row_hit_rate", "", "row_hits / bursts (0 before any burst)", [this] {
    return bursts_.value() ? static_cast<double>(row_hits_.value()) / bursts_.value() : 0.0;
  });
  add("active_time", "ns", "from the earliest b_transport start to the latest data beat", [this] { return active_ns(); });
  add("bandwidth", "GB/s", "bytes read and written through b_transport / active_time", [this] {
    double span = active_ns();
    return span > 0 ? static_cast<double>(bytes_read_.value() + bytes_written_.value()) / span : 0.0;
  });
  for (std::size_t index = 0; index < channels_.size(); ++index) {
    const std::string prefix = "channel" + std::to_string(index) + ".";
    add(prefix + "busy_time", "ns", "time the channel's data bus carried bursts",
        [this, index] { return to_ns(channels_[index].busy); });
    add(prefix + "utilization", "", "busy_time / active_time", [this, index] {
      double span = active_ns();
      return span > 0 ? to_ns(channels_[index].busy) / span : 0.0;
    });
  }

  socket.register_b_transport(this, &DdrController::b_transport);
  socket.register_get_direct_mem_ptr(this, &DdrController::get_direct_mem_ptr);
  socket.register_transport_dbg(this, &DdrController::transport_dbg);
}

void DdrController::validate_geometry() {
  require_power_of_two(channels);
  require_power_of_two(banks);
  require_power_of_two(row_size);
  require_power_of_two(bus_width);
  require_nonzero(data_rate);
  require_power_of_two(burst_length);
  require_power_of_two(channel_interleave);
  const std::uint64_t burst = bus_width.get() * burst_length.get();
  const std::string burst_text =
      "one burst (" + bus_width.name() + " x " + burst_length.name() + " = " + std::to_string(burst) + " bytes)";
  if (row_size.get() < burst)
    throw ConfigError(row_size.name() + " (" + std::to_string(row_size.get()) + " bytes) must hold at least " +
                      burst_text);
  if (channel_interleave.get() < burst)
    throw ConfigError(channel_interleave.name() + " (" + std::to_string(channel_interleave.get()) +
                      " bytes) must be at least " + burst_text);
  // burst_length / data_rate, in picoseconds: data_rate is in MT/s.
  burst_time_ = sc_time(static_cast<double>(burst_length.get()) * 1e6 / static_cast<double>(data_rate.get()),
                        sc_core::SC_PS);
  if (burst_time_ == sc_core::SC_ZERO_TIME)
    throw ConfigError(data_rate.name() + " is so high that a burst takes no simulated time");
}

void DdrController::precharge(Bank& bank, const sc_time& ras, const sc_time& rp) {
  const sc_time start = std::max(bank.ready, bank.activated + ras);
  bank.ready = start + rp;
  bank.open = false;
}

double DdrController::active_ns() const { return active_ ? to_ns(last_end_ - first_start_) : 0.0; }

void DdrController::b_transport(tlm::tlm_generic_payload& payload, sc_time& delay) {
  const tlm::tlm_response_status status = store_.check(payload);
  if (status != tlm::TLM_OK_RESPONSE) {
    payload.set_response_status(status);
    return;
  }
  payload.set_dmi_allowed(dmi.get());
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
  if (!payload.is_read() && !payload.is_write()) return;  // TLM_IGNORE_COMMAND: no data, no time
  // The data moves after the timing model: the host fetches its first line
  // meanwhile (over a large memory the copy is mostly a host cache miss).
  __builtin_prefetch(store_.data() + payload.get_address(), 1);

  const bool read = payload.is_read();
  const std::uint64_t address = payload.get_address();
  const unsigned length = payload.get_data_length();
  const sc_time now = current_time();
  const sc_time start = now + delay;
  // Timings and the page policy are read at every access (they may be set
  // between accesses): loads, and a comparison that checks the length first.
  const sc_time& cas = read ? tCL.get() : tCWL.get();
  const sc_time &rcd = tRCD.get(), &rp = tRP.get(), &ras = tRAS.get();
  const bool close_page = std::string_view(page_policy.get()) == std::string_view("close");
  if (close_page) open_in_access_.assign(channels_.size(), nullptr);

  sc_time end = start;
  if (length > 0) {
    const std::uint64_t first = address & ~(burst_bytes_ - 1);
    const std::uint64_t last = (address + length - 1) & ~(burst_bytes_ - 1);
    // The bursts go in runs: those of one aligned block of run_bytes_ share a
    // channel, bank and row. The first burst of a run is timed by the rules
    // above; every further one is a row hit that the run adds up at once (see
    // run_bytes_).
    for (std::uint64_t burst = first; burst <= last;) {
      const std::uint64_t run_last = std::min(last, (burst | (run_bytes_ - 1)) - (burst_bytes_ - 1));
      const std::uint64_t run_bursts = ((run_last - burst) >> burst_shift_) + 1;
      const Location where = decode(burst);
      Channel& channel = channels_[where.channel];
      Bank& bank = banks_[(std::size_t{where.channel} << bank_bits_) | where.bank];
      // Close page: the bank this access used last on this channel is done
      // with its row when this burst goes elsewhere.
      Bank** previous = close_page ? &open_in_access_[where.channel] : nullptr;
      if (previous && *previous && (*previous != &bank || bank.row != where.row)) {
        precharge(**previous, ras, rp);
        *previous = nullptr;
      }
      // An access that is behind in simulated time (temporal decoupling) may
      // arrive after one that is ahead changed this bank: it takes the first
      // gap in the bank's busy calendar long enough for its row preparation
      // (by the bank's current row) and its data, so it never queues behind
      // work that happens later than it; the row it opens stays open.
      const bool in_order = start >= bank.last_start;
      const sc_time run_time = run_bursts == full_run_bursts_ ? full_run_time_ : times(run_bursts, burst_time_);
      sc_time column, command;  // command: when the bank starts working for this run
      if (!in_order) {
        sc_time prepare;  // row hit: none
        if (!bank.open) {
          ++row_misses_;
          prepare = rcd;
        } else if (bank.row != where.row) {
          ++row_conflicts_;
          prepare = rp + rcd;
        } else {
          ++row_hits_;
        }
        command = bank.busy.reserve(start, prepare + run_time, now);
        column = command + prepare;
        if (prepare != sc_core::SC_ZERO_TIME) {  // it opened its row: the next access sees that row
          bank.open = true;
          bank.row = where.row;
          bank.activated = std::max(bank.activated, column - rcd);
        }
      } else if (bank.open && bank.row == where.row) {
        ++row_hits_;
        column = command = std::max(start, bank.ready);
      } else {
        sc_time activate;
        if (!bank.open) {
          ++row_misses_;
          activate = command = std::max(start, bank.ready);
        } else {
          ++row_conflicts_;
          command = std::max({start, bank.ready, bank.activated + ras});
          activate = command + rp;
        }
        bank.open = true;
        bank.row = where.row;
        bank.activated = activate;
        column = activate + rcd;
      }
      row_hits_ += run_bursts - 1;
      const sc_time data = channel.bus.reserve(column + cas, run_time, now);
      const sc_time data_end = data + run_time;
      channel.busy += run_time;
      if (in_order) {
        bank.ready = data_end - cas;
        bank.last_start = start;
        bank.busy.reserve(command, bank.ready - command, now);  // for late arrivals
      }
      end = std::max(end, data_end);
      bursts_ += run_bursts;
      if (previous) *previous = &bank;
      burst = run_last + burst_bytes_;
    }
    if (close_page)
      for (Bank* bank : open_in_access_)
        if (bank) precharge(*bank, ras, rp);
  }

  if (read) {
    ++reads_;
    bytes_read_ += length;
  } else {
    ++writes_;
    bytes_written_ += length;
  }
  latency_.sample(rounded_ns(end - start, ns_ticks_));
  if (!active_ || start < first_start_) first_start_ = start;
  if (!active_ || end > last_end_) last_end_ = end;
  active_ = true;
  delay = end - now;
  store_.transfer(payload);
}

bool DdrController::get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi_data) {
  if (!dmi.get()) {
    // Denied for the whole memory, so the initiator does not ask again per address.
    dmi_data.set_start_address(0);
    dmi_data.set_end_address(store_.size() - 1);
    dmi_data.allow_none();
    return false;
  }
  store_.describe_dmi(dmi_data, tCL.get() + burst_time_, tCWL.get() + burst_time_, true);
  return true;
}

unsigned int DdrController::transport_dbg(tlm::tlm_generic_payload& payload) { return store_.transport_dbg(payload); }

}  // namespace npuvp
