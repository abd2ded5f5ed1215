#include "periph/clint.h"

#include "core/simulation.h"

#include <cmath>
#include <limits>
#include <sstream>

namespace npuvp {

namespace {
using u128 = unsigned __int128;
using i128 = __int128;
constexpr u128 kMaxTimeValue = std::numeric_limits<sc_core::sc_time::value_type>::max();
}  // namespace

Clint::Clint(sc_core::sc_module_name name, std::uint64_t default_harts)
    : MmioDevice(name, kWindowSize),
      harts(child_name(*this, "harts"), default_harts, "",
            "number of harts served (one msip word and one mtimecmp each; default: the platform's harts, "
            "the host CPU or one per mesh-cluster tile)") {
  if (harts.get() < 1 || harts.get() > kMaxHarts) {
    std::ostringstream text;
    text << "parameter '" << harts.name() << "' is " << harts.get() << "; it must be between 1 and " << kMaxHarts;
    throw ConfigError(text.str());
  }
  double frequency = timebase.get();
  clock_period_ps(timebase);  // the clocks' range: below 1 kHz mtime would hardly tick
  msip_irq.resize(harts.get());
  mtip_irq.resize(harts.get());
  mtimecmp_.assign(harts.get(), ~std::uint64_t{0});

  resolution_per_second_ =
      static_cast<std::uint64_t>(std::llround(1.0 / sc_core::sc_get_time_resolution().to_seconds()));
  integral_timebase_ = frequency == std::floor(frequency) && frequency <= 1e15;
  timebase_integer_ = integral_timebase_ ? static_cast<std::uint64_t>(frequency) : 0;

  SC_METHOD(on_timer_event);
  sensitive << timer_event_;
  dont_initialize();
}

std::uint64_t Clint::ticks_at(const sc_core::sc_time& time) const {
  if (integral_timebase_)
    return static_cast<std::uint64_t>(u128{time.value()} * timebase_integer_ / resolution_per_second_);
  long double ticks = std::floor(static_cast<long double>(time.value()) * timebase.get() / resolution_per_second_);
  if (ticks >= 18446744073709551615.0L) return ~std::uint64_t{0};
  return static_cast<std::uint64_t>(ticks);
}

bool Clint::time_of_ticks(std::uint64_t ticks, sc_core::sc_time& time) const {
  u128 value;
  if (integral_timebase_) {
    value = (u128{ticks} * resolution_per_second_ + timebase_integer_ - 1) / timebase_integer_;
  } else {
    long double guess = std::ceil(static_cast<long double>(ticks) * resolution_per_second_ / timebase.get());
    if (guess > 1.8446744073709551615e19L) return false;
    value = static_cast<u128>(guess);
    // Correct the rounding of the floating-point estimate.
    while (value <= kMaxTimeValue &&
           ticks_at(sc_core::sc_time::from_value(static_cast<std::uint64_t>(value))) < ticks)
      ++value;
    while (value > 0 && ticks_at(sc_core::sc_time::from_value(static_cast<std::uint64_t>(value - 1))) >= ticks)
      --value;
  }
  if (value > kMaxTimeValue) return false;
  time = sc_core::sc_time::from_value(static_cast<std::uint64_t>(value));
  return true;
}

std::uint64_t Clint::mtime_at(const sc_core::sc_time& time) const {
  return static_cast<std::uint64_t>(i128{ticks_at(time)} + offset_);
}

bool Clint::deadline(unsigned hart, sc_core::sc_time& time) const {
  // mtime reaches mtimecmp once ticks >= mtimecmp - offset.
  i128 target = i128{mtimecmp_[hart]} - offset_;
  if (target <= 0) {
    time = sc_core::SC_ZERO_TIME;
    return true;
  }
  if (target > i128{std::numeric_limits<std::uint64_t>::max()}) return false;
  return time_of_ticks(static_cast<std::uint64_t>(target), time);
}

void Clint::set_mtip(unsigned hart, bool level) {
  if (level && !mtip_irq[hart].level()) ++timer_interrupts;
  mtip_irq[hart].set(level);
}

void Clint::evaluate(unsigned hart, const sc_core::sc_time& now) {
  set_mtip(hart, mtime_at(now) >= mtimecmp_[hart]);
}

void Clint::reschedule() {
  timer_event_.cancel();
  bool any = false;
  sc_core::sc_time earliest;
  for (unsigned hart = 0; hart < mtimecmp_.size(); ++hart) {
    if (mtip_irq[hart].level()) continue;  // stays high until mtimecmp or mtime is written
    sc_core::sc_time when;
    if (!deadline(hart, when)) continue;
    if (!any || when < earliest) earliest = when;
    any = true;
  }
  if (!any) return;
  sc_core::sc_time now = sc_core::sc_time_stamp();
  timer_event_.notify(earliest > now ? earliest - now : sc_core::SC_ZERO_TIME);
}

void Clint::on_timer_event() {
  sc_core::sc_time now = sc_core::sc_time_stamp();
  for (unsigned hart = 0; hart < mtimecmp_.size(); ++hart) evaluate(hart, now);
  reschedule();
}

// Applies a write of `size` bytes at `offset` to the 64-bit register at `base`.
bool Clint::merge64(std::uint64_t offset, std::uint64_t base, unsigned size, std::uint64_t& reg,
                    std::uint64_t value) {
  if (size == 8 && offset == base) {
    reg = value;
    return true;
  }
  if (size == 4 && (offset == base || offset == base + 4)) {
    unsigned shift = offset == base ? 0 : 32;
    reg = (reg & ~(std::uint64_t{0xFFFFFFFF} << shift)) | ((value & 0xFFFFFFFF) << shift);
    return true;
  }
  return false;
}

bool Clint::access(std::uint64_t offset, unsigned size, bool is_write, std::uint64_t& value,
                   const sc_core::sc_time& now) {
  const std::uint64_t hart_count = mtimecmp_.size();
  auto read64 = [&](std::uint64_t base, std::uint64_t reg) {
    if (size == 8 && offset == base) value = reg;
    else if (size == 4 && offset == base) value = reg & 0xFFFFFFFF;
    else if (size == 4 && offset == base + 4) value = reg >> 32;
    else return false;
    return true;
  };

  if (offset < kMsipBase + kMsipStride * hart_count) {
    if (size != 4 || offset % 4) return false;
    unsigned hart = static_cast<unsigned>((offset - kMsipBase) / kMsipStride);
    if (!is_write) {
      value = msip_irq[hart].level() ? 1 : 0;
      return true;
    }
    bool level = value & 1;
    if (level && !msip_irq[hart].level()) ++software_interrupts;
    msip_irq[hart].set(level);
    return true;
  }
  if (offset >= kMtimecmpBase && offset < kMtimecmpBase + kMtimecmpStride * hart_count) {
    unsigned hart = static_cast<unsigned>((offset - kMtimecmpBase) / kMtimecmpStride);
    std::uint64_t base = kMtimecmpBase + kMtimecmpStride * hart;
    if (!is_write) return read64(base, mtimecmp_[hart]);
    if (!merge64(offset, base, size, mtimecmp_[hart], value)) return false;
    evaluate(hart, now);
    reschedule();
    return true;
  }
  if (offset >= kMtime && offset < kMtime + 8) {
    std::uint64_t current = mtime_at(now);
    if (!is_write) return read64(kMtime, current);
    if (!merge64(offset, kMtime, size, current, value)) return false;
    offset_ = i128{current} - i128{ticks_at(now)};
    for (unsigned hart = 0; hart < hart_count; ++hart) evaluate(hart, now);
    reschedule();
    return true;
  }
  // Reserved space inside the window.
  if (!is_write) value = 0;
  return true;
}

bool Clint::read(std::uint64_t offset, unsigned size, std::uint64_t& value, sc_core::sc_time& delay) {
  return access(offset, size, false, value, sc_core::sc_time_stamp() + delay);
}

bool Clint::write(std::uint64_t offset, unsigned size, std::uint64_t value, sc_core::sc_time& delay) {
  return access(offset, size, true, value, sc_core::sc_time_stamp() + delay);
}

bool Clint::peek(std::uint64_t offset, unsigned size, std::uint64_t& value) {
  return access(offset, size, false, value, sc_core::sc_time_stamp());
}

}  // namespace npuvp
