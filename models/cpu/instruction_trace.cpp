#include "cpu/instruction_trace.h"

#include "core/simulation.h"
#include "cpu/hart.h"

#include <fnmatch.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace npuvp {

const char* csr_name(std::uint16_t csr);  // csr.cpp

namespace {

constexpr std::uint64_t kInterruptBit = 1ull << 63;
constexpr std::size_t kDisassemblyWidth = 28;  // pads the column of register writes

void append_format(std::string& out, const char* format, unsigned long long value) {
  char buffer[32];
  int length = std::snprintf(buffer, sizeof buffer, format, value);
  out.append(buffer, static_cast<std::size_t>(length));
}

// Whether the instruction's format names an integer / an f destination register.
bool writes_x(OperandFormat format) {
  switch (format) {
    case OperandFormat::kR: case OperandFormat::kI: case OperandFormat::kLoad: case OperandFormat::kUpper:
    case OperandFormat::kJump: case OperandFormat::kJumpReg: case OperandFormat::kShift:
    case OperandFormat::kShiftWord: case OperandFormat::kCsr: case OperandFormat::kCsrImm:
    case OperandFormat::kAtomic: case OperandFormat::kLoadReserved: case OperandFormat::kFpToInt:
    case OperandFormat::kFpCompare:
      return true;
    default:
      return false;
  }
}
bool writes_f(OperandFormat format) {
  switch (format) {
    case OperandFormat::kFpLoad: case OperandFormat::kFpR: case OperandFormat::kFpR4: case OperandFormat::kFpR1:
    case OperandFormat::kFpFromInt:
      return true;
    default:
      return false;
  }
}

std::uint64_t parse_hex(const std::string& text, const std::string& whole) {
  std::string digits = text;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) digits = digits.substr(2);
  if (digits.empty() || digits.size() > 16 || digits.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    throw ConfigError("--itrace-pc expects START:END in hexadecimal (e.g. 80000000:80001000), got '" + whole + "'");
  return std::stoull(digits, nullptr, 16);
}

}  // namespace

InstructionTraceOptions::Range parse_pc_range(const std::string& text) {
  auto colon = text.find(':');
  if (colon == std::string::npos)
    throw ConfigError("--itrace-pc expects START:END in hexadecimal (e.g. 80000000:80001000), got '" + text + "'");
  InstructionTraceOptions::Range range{parse_hex(text.substr(0, colon), text), parse_hex(text.substr(colon + 1), text)};
  if (range.end <= range.start)
    throw ConfigError("--itrace-pc " + text + ": END must be above START (the range is [START, END))");
  return range;
}

// ---------------------------------------------------------------- InstructionTrace

InstructionTrace& InstructionTrace::instance() {
  static InstructionTrace trace;
  return trace;
}

void InstructionTrace::open(const InstructionTraceOptions& options) {
  close();
  if (options.path == "-") {
    out_ = stdout;
    owns_file_ = false;
  } else {
    out_ = std::fopen(options.path.c_str(), "w");
    if (!out_) throw ConfigError("--itrace: cannot create '" + options.path + "': " + std::strerror(errno));
    owns_file_ = true;
    static char buffer[1 << 16];
    std::setvbuf(out_, buffer, _IOFBF, sizeof buffer);
  }
  options_ = options;
  instructions_ = 0;
  std::fputs("# npuvp itrace: core cycle time_ns pc: raw instruction [register=value ...]\n", out_);
}

void InstructionTrace::close() {
  if (!out_) return;
  if (limit_reached()) std::fprintf(out_, "# itrace limit of %llu instructions reached\n",
                                    static_cast<unsigned long long>(options_.limit));
  if (owns_file_) std::fclose(out_);
  else std::fflush(out_);
  out_ = nullptr;
}

HartTracer* InstructionTrace::tracer_for(const std::string& name, const Hart& hart, std::uint64_t period_ps) {
  if (!out_) return nullptr;
  if (!options_.cores.empty() &&
      std::none_of(options_.cores.begin(), options_.cores.end(),
                   [&](const std::string& pattern) { return fnmatch(pattern.c_str(), name.c_str(), 0) == 0; }))
    return nullptr;
  tracers_.push_back(std::make_unique<HartTracer>(*this, hart, name, period_ps));
  return tracers_.back().get();
}

bool InstructionTrace::selects(std::uint64_t pc) const {
  if (options_.pc_ranges.empty()) return true;
  for (const auto& range : options_.pc_ranges)
    if (pc >= range.start && pc < range.end) return true;
  return false;
}

void InstructionTrace::write(const std::string& text) {
  if (out_) std::fwrite(text.data(), 1, text.size(), out_);
}

void InstructionTrace::count_instruction() { ++instructions_; }

// ---------------------------------------------------------------- HartTracer

HartTracer::HartTracer(InstructionTrace& trace, const Hart& hart, std::string core, std::uint64_t period_ps)
    : trace_(trace), core_(std::move(core)), period_ps_(period_ps), disassembler_(hart.decoder()) {
  symbolizer_ = hart.symbolizer();
  disassembler_.set_symbolizer(symbolizer_);
  line_.reserve(256);
}

bool HartTracer::active() const { return trace_.out_ && !trace_.limit_reached(); }
bool HartTracer::selects(std::uint64_t pc) const { return trace_.selects(pc); }

void HartTracer::append_prefix(std::uint64_t cycle, std::uint64_t pc) {
  line_ += core_;
  line_ += ' ';
  append_format(line_, "%llu ", cycle);
  std::uint64_t ps = cycle * period_ps_;
  append_format(line_, "%llu.", ps / 1000);
  append_format(line_, "%03llu ", ps % 1000);
  append_format(line_, "%8llx: ", pc);
}

void HartTracer::append_register(const char* name, std::uint64_t value) {
  line_ += ' ';
  line_ += name;
  append_format(line_, "=0x%llx", value);
}

void HartTracer::begin(const Hart& hart, const DecodedInstruction& instruction, std::uint64_t pc, std::uint64_t cycle) {
  cycle_start_ = cycle;
  std::memcpy(x_before_, hart.x, sizeof x_before_);
  std::memcpy(f_before_, hart.f, sizeof f_before_);
  fflags_before_ = hart.fflags();
  instruction_ = &instruction;
  pc_ = pc;
  in_instruction_ = true;
  pending_traps_.clear();
}

void HartTracer::end(Hart& hart, bool trapped) {
  in_instruction_ = false;
  const DecodedInstruction& d = *instruction_;
  line_.clear();
  // The cycle the instruction started at: its cost and latency came after.
  append_prefix(cycle_start_, pc_);
  append_format(line_, d.length == 2 ? "%04llx     " : "%08llx ", d.raw);
  std::size_t text_start = line_.size();
  disassembler_.append(line_, d, pc_);
  bool writes = false;
  auto pad = [&] {
    if (!writes && line_.size() - text_start < kDisassemblyWidth) line_.append(kDisassemblyWidth - (line_.size() - text_start), ' ');
    writes = true;
  };
  if (!trapped && d.spec) {
    // The destination named by the encoding, even when its value did not change.
    unsigned x_destination = writes_x(d.spec->format) && d.rd < 32 ? d.rd : 0;
    unsigned f_destination = writes_f(d.spec->format) ? d.rd + 1u : 0;  // +1: 0 = none
    for (unsigned i = 1; i < 32; ++i)
      if (i == x_destination || hart.x[i] != x_before_[i]) {
        pad();
        append_register(register_name(i), hart.x[i]);
      }
    for (unsigned i = 0; i < 32; ++i)
      if (i + 1 == f_destination || hart.f[i] != f_before_[i]) {
        pad();
        append_register(fp_register_name(i), hart.f[i]);
      }
    if (hart.fflags() != fflags_before_) {
      pad();
      append_register("fflags", hart.fflags());
    }
    // Zicsr: the CSR's new value when the instruction writes it (csrrs/csrrc
    // with rs1 = x0 and their immediate forms with 0 only read).
    if (d.spec->format == OperandFormat::kCsr || d.spec->format == OperandFormat::kCsrImm) {
      unsigned funct3 = (d.raw >> 12) & 3;
      std::uint64_t value = 0;
      if ((funct3 == 1 || d.rs1 != 0) && hart.csr_read(static_cast<std::uint16_t>(d.imm), value)) {
        pad();
        const char* name = csr_name(static_cast<std::uint16_t>(d.imm));
        char number[16];
        std::snprintf(number, sizeof number, "csr0x%03x", static_cast<unsigned>(d.imm));
        append_register(name ? name : number, value);
      }
    }
  } else if (trapped && d.spec) {
    // Registers an instruction changed before it trapped (none in the base ISA).
    for (unsigned i = 1; i < 32; ++i)
      if (hart.x[i] != x_before_[i]) {
        pad();
        append_register(register_name(i), hart.x[i]);
      }
  }
  line_ += '\n';
  line_ += pending_traps_;
  trace_.count_instruction();
  trace_.write(line_);
}

void HartTracer::trap(std::uint64_t cause, std::uint64_t epc, std::uint64_t tval, std::uint64_t target, bool taken,
                      std::uint64_t cycle) {
  if (!active() || !selects(epc)) return;
  std::string saved;
  saved.swap(line_);
  line_.clear();
  append_prefix(cycle, epc);
  line_ += taken ? ((cause & kInterruptBit) ? "interrupt " : "trap ") : "exception ";
  line_ += trap_cause_name(cause);
  append_register("mcause", cause);
  append_register("mtval", tval);
  if (taken) {
    line_ += " -> ";
    append_format(line_, "%llx", target);
    if (symbolizer_)
      if (std::string symbol = symbolizer_(target); !symbol.empty()) line_ += " <" + symbol + ">";
  } else {
    line_ += " (handled by the core's owner: no trap taken)";
  }
  line_ += '\n';
  if (in_instruction_) pending_traps_ += line_;
  else trace_.write(line_);
  line_.swap(saved);
}

// ---------------------------------------------------------------- the traced loop

// A copy of Hart::run's interpreter loop that reports each instruction; run()
// calls it for a whole batch only when the hart has a tracer. When the limit
// is reached it returns, and run()'s plain loop finishes the batch.
void Hart::run_traced_batch() {
  HartTracer& tracer = *tracer_;
  while (cycles_ < budget_) {
    if (!tracer.active()) return;
    DecodedInstruction* instruction = decoded_at(pc);
    if (!tracer.selects(pc)) {
      instruction->execute(*this, *instruction);
      cycles_ += instruction->cost;
      ++executed_;
      continue;
    }
    // Decode first (as the slot's trampoline would) so the line can name the
    // instruction even if it traps before finishing.
    if (instruction->execute == decode_on_first_use) decode_into(*instruction, pc);
    const std::uint64_t executed_before = executed_, exceptions_before = exceptions_;
    tracer.begin(*this, *instruction, pc, cycles_);
    instruction->execute(*this, *instruction);
    cycles_ += instruction->cost;
    ++executed_;
    // A debugger stop abandons the instruction (it runs again on resume).
    if (executed_ == executed_before) continue;
    tracer.end(*this, exceptions_ != exceptions_before);
  }
}

}  // namespace npuvp
