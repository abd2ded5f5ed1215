// Interrupt wiring by direct call: a source drives an InterruptLine, which
// calls the target the moment the level changes. Unlike sc_signal this needs
// no delta cycle, so a core that writes a device register sees the resulting
// interrupt level on its very next instruction, even when running ahead of
// SystemC time (temporal decoupling).
#pragma once

#include <functional>
#include <vector>

namespace npuvp {

class InterruptTarget {
 public:
  virtual ~InterruptTarget() = default;
  // `line` is target-defined (for a RISC-V hart: the mip bit number).
  virtual void set_interrupt(unsigned line, bool level) = 0;
};

class InterruptLine {
 public:
  void connect(InterruptTarget& target, unsigned line) { sinks_.push_back({&target, line}); }
  // Observers see every level change (tracing, tests).
  void observe(std::function<void(bool)> observer) { observers_.push_back(std::move(observer)); }
  void set(bool level) {
    if (level == level_) return;
    level_ = level;
    for (auto& sink : sinks_) sink.target->set_interrupt(sink.line, level);
    for (auto& observer : observers_) observer(level);
  }
  bool level() const { return level_; }

 private:
  struct Sink {
    InterruptTarget* target;
    unsigned line;
  };
  std::vector<Sink> sinks_;
  std::vector<std::function<void(bool)>> observers_;
  bool level_ = false;
};

}  // namespace npuvp
