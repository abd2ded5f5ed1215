// Instruction trace (`npuvp run --itrace FILE`, docs/observability.md): one
// line per executed instruction of the selected cores, with its pc, raw
// encoding, objdump-style disassembly (Disassembler) and the registers it
// wrote, plus a line per trap or interrupt taken.
//
// Nothing is looked at per instruction while tracing is off: a hart with no
// tracer runs its plain interpreter loop, and only a hart given a tracer
// (set_tracer, at start of simulation) runs the traced copy of the loop
// (Hart::run_traced_batch, below), batch by batch. Lines are written to a
// buffered file as they come; close() flushes it and is safe on every exit
// path.
#pragma once

#include "cpu/disassembler.h"

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace npuvp {

class Hart;
class InstructionTrace;

// What to trace (the --itrace options).
struct InstructionTraceOptions {
  std::string path;                   // "-" = standard output
  std::vector<std::string> cores;     // shell patterns on core names; empty = every core
  struct Range {
    std::uint64_t start, end;         // [start, end)
  };
  std::vector<Range> pc_ranges;       // empty = every pc
  std::uint64_t limit = 0;            // instructions, all cores together; 0 = no limit
};

// Parses "START:END" (hexadecimal, 0x optional; END exclusive). Throws
// ConfigError naming the option on bad input.
InstructionTraceOptions::Range parse_pc_range(const std::string& text);

// One traced hart: formats its lines into the shared trace.
class HartTracer {
 public:
  HartTracer(InstructionTrace& trace, const Hart& hart, std::string core, std::uint64_t period_ps);

  // False once the trace's instruction limit is reached (or it was closed).
  bool active() const;
  bool selects(std::uint64_t pc) const;

  // Around one instruction (the traced loop): `begin` snapshots the
  // registers, `end` writes the line with the registers that changed (and
  // the destination register even when its value did not change).
  void begin(const Hart& hart, const DecodedInstruction& instruction, std::uint64_t pc, std::uint64_t cycle);
  void end(Hart& hart, bool trapped);
  // A trap taken (exception or interrupt) at `epc`, going to `target`;
  // `taken` false: an exception the core's owner consumed (no trap taken).
  void trap(std::uint64_t cause, std::uint64_t epc, std::uint64_t tval, std::uint64_t target, bool taken,
            std::uint64_t cycle);

 private:
  void append_prefix(std::uint64_t cycle, std::uint64_t pc);
  void append_register(const char* name, std::uint64_t value);

  InstructionTrace& trace_;
  std::string core_;
  std::uint64_t period_ps_;
  Disassembler disassembler_;
  std::string line_;
  std::string pending_traps_;  // trap lines raised by the current instruction
  bool in_instruction_ = false;
  const DecodedInstruction* instruction_ = nullptr;
  std::uint64_t pc_ = 0, cycle_start_ = 0;
  std::function<std::string(std::uint64_t)> symbolizer_;
  std::uint64_t x_before_[33] = {}, f_before_[32] = {};
  unsigned fflags_before_ = 0;
};

class InstructionTrace {
 public:
  static InstructionTrace& instance();

  bool enabled() const { return out_ != nullptr; }
  // Starts tracing; throws ConfigError when the file cannot be created.
  void open(const InstructionTraceOptions& options);
  // Flushes and closes (does nothing when not open). Harts keep their
  // tracers, which stop writing.
  void close();

  // A tracer for the core `name` (its hart runs the traced loop), or null
  // when tracing is off or the core patterns exclude it.
  HartTracer* tracer_for(const std::string& name, const Hart& hart, std::uint64_t period_ps);

  std::uint64_t instructions() const { return instructions_; }

 private:
  friend class HartTracer;
  InstructionTrace() = default;
  bool limit_reached() const { return options_.limit && instructions_ >= options_.limit; }
  bool selects(std::uint64_t pc) const;
  void write(const std::string& text);
  void count_instruction();

  InstructionTraceOptions options_;
  std::FILE* out_ = nullptr;
  bool owns_file_ = false;
  std::uint64_t instructions_ = 0;
  std::vector<std::unique_ptr<HartTracer>> tracers_;
};

}  // namespace npuvp
