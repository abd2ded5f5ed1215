// RISC-V semihosting (the ARM semihosting protocol carried by a RISC-V
// instruction sequence), independent of the ISS.
//
// Trigger: an uncompressed `ebreak` preceded by `slli x0, x0, 0x1f` and
// followed by `srai x0, x0, 7`, all three 32-bit instructions in the same
// page (Semihosting::is_call checks the words). The ISS then calls
// Semihosting::call(a0, a1, memory, now), writes Result::value to a0 and
// resumes after the `ebreak` instead of taking a breakpoint trap. If
// Result::exit is set the guest asked to end the run: the ISS stops the hart
// and calls simulation().request_exit(result.exit_code, ...).
//
// Conventions: a0 = operation number, a1 = parameter (usually the address of
// a parameter block of XLEN-sized little-endian fields), result in a0. Guest
// memory is reached through GuestMemory; an unreadable or unwritable block
// makes the operation fail with -1 and errno EFAULT. Results are XLEN wide
// (for RV32 the low 32 bits, e.g. -1 is 0xffffffff). errno values are the
// target C library's (newlib/picolibc numbering), returned by SYS_ERRNO.
//
// Supported operations (those picolibc's --oslib=semihost uses, plus the
// rest of the console and time services):
//   SYS_OPEN     only the special names ":tt" (console: modes 0-3 "r*" give
//                stdin, 4-7 "w*" stdout, 8-11 "a*" stderr) and
//                ":semihosting-features" (read-only, reports the
//                EXIT_EXTENDED and STDOUT_STDERR extensions); host files are
//                refused with -1 and errno EACCES. Handles 0, 1, 2 are open
//                from the start as stdin, stdout, stderr (picolibc 1.8 writes
//                to fd 1 without opening it).
//   SYS_CLOSE, SYS_ISTTY, SYS_SEEK, SYS_FLEN on those handles (console handles
//                cannot seek and have no length: -1).
//   SYS_WRITEC, SYS_WRITE0, SYS_WRITE: to the ConsoleOutput `output` (stdout
//                and stderr handles both); SYS_WRITE returns the bytes NOT written.
//   SYS_READ     from the `input` bytes; returns the bytes NOT read (the full
//                length at end of input). SYS_READC returns the next input
//                byte, or -1 at end of input.
//   SYS_ISERROR, SYS_ERRNO, SYS_GET_CMDLINE (`cmdline`, NUL-terminated),
//   SYS_HEAPINFO (writes four zero fields: "use the linker's symbols"),
//   SYS_CLOCK    centiseconds of simulated time,
//   SYS_TIME     `epoch` + whole seconds of simulated time (deterministic),
//   SYS_ELAPSED  simulated time in ticks of `tick_frequency` (64-bit, written
//                to the block), SYS_TICKFREQ that frequency,
//   SYS_EXIT     reason ADP_Stopped_ApplicationExit (0x20026) exits with the
//                block's second field as code on RV64 (on RV32 the parameter
//                is the reason itself and the code is 0); any other reason
//                exits with code 1, as QEMU does.
//   SYS_EXIT_EXTENDED  block {reason, code} on every XLEN, same rule.
// SYS_REMOVE, SYS_RENAME, SYS_SYSTEM and SYS_TMPNAM need host file or shell
// access: refused with -1 and errno EACCES. Any other operation returns -1;
// each distinct refused or unknown operation is reported once with
// SC_REPORT_WARNING (message type "npuvp/semihosting").
#pragma once

#include "core/console.h"
#include "core/parameters.h"
#include "core/statistics.h"

#include <systemc>

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace npuvp {

// How semihosting reaches guest memory (the ISS implements it with debug or
// DMI accesses). Both return false if any byte of the range is inaccessible.
struct GuestMemory {
  virtual ~GuestMemory() = default;
  virtual bool read(std::uint64_t address, void* data, std::size_t length) = 0;
  virtual bool write(std::uint64_t address, const void* data, std::size_t length) = 0;
};

class Semihosting {
 public:
  static constexpr std::uint32_t kEntryInstruction = 0x01F01013;   // slli x0, x0, 0x1f
  static constexpr std::uint32_t kEbreakInstruction = 0x00100073;  // ebreak (uncompressed)
  static constexpr std::uint32_t kExitInstruction = 0x40705013;    // srai x0, x0, 7
  static bool is_call(std::uint32_t before, std::uint32_t ebreak, std::uint32_t after) {
    return before == kEntryInstruction && ebreak == kEbreakInstruction && after == kExitInstruction;
  }

  enum Operation : std::uint64_t {
    kSysOpen = 0x01, kSysClose = 0x02, kSysWritec = 0x03, kSysWrite0 = 0x04, kSysWrite = 0x05,
    kSysRead = 0x06, kSysReadc = 0x07, kSysIserror = 0x08, kSysIstty = 0x09, kSysSeek = 0x0A,
    kSysFlen = 0x0C, kSysTmpnam = 0x0D, kSysRemove = 0x0E, kSysRename = 0x0F, kSysClock = 0x10,
    kSysTime = 0x11, kSysSystem = 0x12, kSysErrno = 0x13, kSysGetCmdline = 0x15, kSysHeapinfo = 0x16,
    kSysExit = 0x18, kSysExitExtended = 0x20, kSysElapsed = 0x30, kSysTickfreq = 0x31,
  };
  static constexpr std::uint64_t kApplicationExit = 0x20026;  // ADP_Stopped_ApplicationExit

  // Target errno values (newlib/picolibc).
  static constexpr int kEnoent = 2, kEio = 5, kEbadf = 9, kEacces = 13, kEfault = 14, kEinval = 22,
                       kEspipe = 29;

  struct Result {
    std::uint64_t value = 0;  // for a0
    bool exit = false;        // the guest asked to end the run
    int exit_code = 0;
    std::string exit_reason;  // e.g. "semihosting SYS_EXIT_EXTENDED (ADP_Stopped_ApplicationExit)"
  };

  // `name` is the hierarchical name of the service, e.g.
  // child_name(cpu, "semihosting"); parameters and statistics live under it.
  explicit Semihosting(const std::string& name, unsigned xlen = 64);
  Semihosting(const Semihosting&) = delete;
  Semihosting& operator=(const Semihosting&) = delete;

  // Executes one call. `now` is the caller's current simulated time
  // (sc_time_stamp() plus its local offset). Throws SimulationError only for
  // an exit request whose parameter block cannot be read.
  Result call(std::uint64_t operation, std::uint64_t parameter, GuestMemory& memory, const sc_core::sc_time& now);

  const std::string& name() const { return name_; }
  unsigned xlen() const { return xlen_; }
  int last_errno() const { return errno_; }

  Parameter<std::string> output;
  Parameter<std::string> input;
  Parameter<std::string> cmdline;
  Parameter<double> tick_frequency;
  Parameter<std::uint64_t> epoch;

  Counter calls;
  Counter console_bytes;

 private:
  enum class Stream { kStdin, kStdout, kStderr, kFeatures };
  struct Handle {
    Stream stream;
    std::uint64_t position = 0;  // features file only
  };

  std::uint64_t fail(int error);  // sets errno, returns -1
  std::uint64_t to_xlen(std::uint64_t value) const { return xlen_ == 32 ? value & 0xFFFFFFFFu : value; }
  std::int64_t to_signed(std::uint64_t value) const {
    return xlen_ == 32 ? static_cast<std::int32_t>(value) : static_cast<std::int64_t>(value);
  }
  bool read_fields(GuestMemory& memory, std::uint64_t address, unsigned count, std::uint64_t* fields);
  bool write_field(GuestMemory& memory, std::uint64_t address, std::uint64_t value);
  void warn_once(std::uint64_t operation, const std::string& message);
  void exit_with(Result& result, std::uint64_t reason, std::uint64_t subcode, const char* operation);
  std::uint64_t ticks(const sc_core::sc_time& now, std::uint64_t frequency) const;

  std::uint64_t op_open(GuestMemory& memory, std::uint64_t parameter);
  std::uint64_t op_write(GuestMemory& memory, std::uint64_t parameter);
  std::uint64_t op_read(GuestMemory& memory, std::uint64_t parameter);
  std::uint64_t op_write0(GuestMemory& memory, std::uint64_t parameter);
  std::uint64_t op_get_cmdline(GuestMemory& memory, std::uint64_t parameter);
  Handle* find_handle(GuestMemory& memory, std::uint64_t parameter, std::uint64_t* fields, unsigned count);

  std::string name_;
  unsigned xlen_;
  ConsoleOutput console_;
  std::string input_bytes_;
  std::size_t input_position_ = 0;
  std::map<std::uint64_t, Handle> handles_;
  std::uint64_t next_handle_ = 3;
  int errno_ = 0;
  std::uint64_t tick_frequency_ = 0;
  std::uint64_t resolution_per_second_ = 0;
  std::set<std::uint64_t> warned_;
};

}  // namespace npuvp
