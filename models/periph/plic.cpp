#include "periph/plic.h"

#include "core/simulation.h"

#include <sstream>

namespace npuvp {

Plic::Plic(sc_core::sc_module_name name, std::uint64_t default_sources, std::uint64_t default_contexts)
    : MmioDevice(name, kWindowSize),
      sources(child_name(*this, "sources"), default_sources, "",
              "interrupt source IDs including the reserved ID 0 (QEMU virt: 96, i.e. sources 1..95)"),
      contexts(child_name(*this, "contexts"), default_contexts, "",
               "interrupt targets; QEMU order: 2*hart = M-mode, 2*hart+1 = S-mode (default: two per hart the "
               "platform wires, so 2 x the tiles in cluster mode)") {
  auto check = [](const ParameterBase& parameter, std::uint64_t value, std::uint64_t low, std::uint64_t high) {
    if (value < low || value > high) {
      std::ostringstream text;
      text << "parameter '" << parameter.name() << "' is " << value << "; it must be between " << low << " and "
           << high;
      throw ConfigError(text.str());
    }
  };
  check(sources, sources.get(), 2, kMaxSources);
  check(contexts, contexts.get(), 1, kMaxContexts);
  check(priority_bits, priority_bits.get(), 1, 32);

  unsigned source_count = static_cast<unsigned>(sources.get());
  words_ = (source_count + 31) / 32;
  priority_mask_ = priority_bits.get() == 32 ? 0xFFFFFFFFu : (1u << priority_bits.get()) - 1;
  priority_.assign(source_count, 0);
  level_.assign(source_count, false);
  pending_.assign(source_count, false);
  in_service_.assign(source_count, false);
  enable_.assign(contexts.get() * words_, 0);
  threshold_.assign(contexts.get(), 0);
  irq.resize(contexts.get());
}

void Plic::set_interrupt(unsigned line, bool level) {
  if (line == 0 || line >= priority_.size()) {
    std::ostringstream text;
    text << name() << ": interrupt source " << line << " does not exist (valid: 1.." << priority_.size() - 1
         << "; see parameter '" << sources.name() << "')";
    simulation().fail(ExitStatus::kInternalError, text.str());
  }
  level_[line] = level;
  if (level) gateway(line);
  update();
}

void Plic::gateway(unsigned source) {
  if (level_[source] && !pending_[source] && !in_service_[source]) {
    pending_[source] = true;
    ++requests;
  }
}

bool Plic::enabled(unsigned context, unsigned source) const {
  return (enable_[context * words_ + source / 32] >> (source % 32)) & 1;
}

unsigned Plic::best_source(unsigned context) const {
  unsigned best = 0;
  std::uint32_t best_priority = threshold_[context];
  for (unsigned source = 1; source < priority_.size(); ++source) {
    if (pending_[source] && enabled(context, source) && priority_[source] > best_priority) {
      best = source;
      best_priority = priority_[source];
    }
  }
  return best;
}

void Plic::update() {
  for (unsigned context = 0; context < irq.size(); ++context) irq[context].set(best_source(context) != 0);
}

unsigned Plic::claim(unsigned context) {
  unsigned source = best_source(context);
  if (source == 0) {
    ++empty_claims;
    return 0;
  }
  pending_[source] = false;
  in_service_[source] = true;
  ++claims;
  update();
  return source;
}

void Plic::complete(unsigned context, std::uint64_t source) {
  if (source == 0 || source >= priority_.size()) return;
  unsigned id = static_cast<unsigned>(source);
  if (!enabled(context, id)) return;
  if (in_service_[id]) ++completions;
  in_service_[id] = false;
  gateway(id);
  update();
}

bool Plic::access(std::uint64_t offset, unsigned size, bool is_write, std::uint64_t& value, bool side_effects) {
  if (size != 4 || offset % 4) return false;
  std::uint32_t data = static_cast<std::uint32_t>(value);
  const std::uint64_t context_count = threshold_.size();

  if (offset < 4 * priority_.size()) {
    unsigned source = static_cast<unsigned>(offset / 4);
    if (!is_write) {
      value = priority_[source];
    } else if (source != 0) {
      priority_[source] = data & priority_mask_;
      update();
    }
    return true;
  }
  if (offset >= kPendingBase && offset < kPendingBase + 4 * words_) {
    if (!is_write) {
      unsigned word = static_cast<unsigned>((offset - kPendingBase) / 4);
      std::uint32_t bits = 0;
      for (unsigned bit = 0; bit < 32; ++bit) {
        unsigned source = word * 32 + bit;
        if (source < pending_.size() && pending_[source]) bits |= 1u << bit;
      }
      value = bits;
    }
    return true;
  }
  if (offset >= kEnableBase && offset < kEnableBase + kEnableStride * context_count) {
    std::uint64_t context = (offset - kEnableBase) / kEnableStride;
    std::uint64_t word = (offset - kEnableBase) % kEnableStride / 4;
    if (word >= words_) {
      if (!is_write) value = 0;
      return true;
    }
    std::uint32_t& bits = enable_[context * words_ + word];
    if (!is_write) {
      value = bits;
      return true;
    }
    // Bits of nonexistent sources (and of the reserved source 0) stay zero.
    std::uint32_t valid = 0xFFFFFFFFu;
    std::uint64_t first = word * 32;
    if (first + 32 > priority_.size()) valid = (1u << (priority_.size() - first)) - 1;
    if (word == 0) valid &= ~1u;
    bits = data & valid;
    update();
    return true;
  }
  if (offset >= kContextBase && offset < kContextBase + kContextStride * context_count) {
    unsigned context = static_cast<unsigned>((offset - kContextBase) / kContextStride);
    std::uint64_t reg = (offset - kContextBase) % kContextStride;
    if (reg == kThresholdOffset) {
      if (!is_write) {
        value = threshold_[context];
      } else {
        threshold_[context] = data & priority_mask_;
        update();
      }
    } else if (reg == kClaimOffset) {
      if (!is_write) value = side_effects ? claim(context) : best_source(context);
      else complete(context, data);
    } else if (!is_write) {
      value = 0;
    }
    return true;
  }
  if (!is_write) value = 0;
  return true;
}

bool Plic::read(std::uint64_t offset, unsigned size, std::uint64_t& value, sc_core::sc_time& delay) {
  return access(offset, size, false, value, true);
}

bool Plic::write(std::uint64_t offset, unsigned size, std::uint64_t value, sc_core::sc_time& delay) {
  return access(offset, size, true, value, true);
}

bool Plic::peek(std::uint64_t offset, unsigned size, std::uint64_t& value) {
  return access(offset, size, false, value, false);
}

}  // namespace npuvp
