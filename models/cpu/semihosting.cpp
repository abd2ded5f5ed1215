#include "cpu/semihosting.h"

#include "core/simulation.h"
#include "core/text.h"
#include "core/text.h"

#include <cmath>
#include <cstring>
#include <vector>

namespace npuvp {

namespace {
constexpr const char* kMessageType = "npuvp/semihosting";
// Contents of the ":semihosting-features" file: magic "SHFB" and one feature
// byte with SH_EXT_EXIT_EXTENDED (bit 0) and SH_EXT_STDOUT_STDERR (bit 1).
constexpr std::uint8_t kFeatures[] = {0x53, 0x48, 0x46, 0x42, 0x03};
constexpr std::size_t kChunk = 4096;
// SYS_WRITE0 strings longer than this are treated as runaway (missing NUL).
constexpr std::size_t kMaxWrite0 = 1 << 20;
constexpr const char* kTtyName = ":tt";
constexpr const char* kFeaturesName = ":semihosting-features";

const char* operation_name(std::uint64_t operation) {
  switch (operation) {
    case Semihosting::kSysOpen: return "SYS_OPEN";
    case Semihosting::kSysClose: return "SYS_CLOSE";
    case Semihosting::kSysWritec: return "SYS_WRITEC";
    case Semihosting::kSysWrite0: return "SYS_WRITE0";
    case Semihosting::kSysWrite: return "SYS_WRITE";
    case Semihosting::kSysRead: return "SYS_READ";
    case Semihosting::kSysReadc: return "SYS_READC";
    case Semihosting::kSysIserror: return "SYS_ISERROR";
    case Semihosting::kSysIstty: return "SYS_ISTTY";
    case Semihosting::kSysSeek: return "SYS_SEEK";
    case Semihosting::kSysFlen: return "SYS_FLEN";
    case Semihosting::kSysTmpnam: return "SYS_TMPNAM";
    case Semihosting::kSysRemove: return "SYS_REMOVE";
    case Semihosting::kSysRename: return "SYS_RENAME";
    case Semihosting::kSysClock: return "SYS_CLOCK";
    case Semihosting::kSysTime: return "SYS_TIME";
    case Semihosting::kSysSystem: return "SYS_SYSTEM";
    case Semihosting::kSysErrno: return "SYS_ERRNO";
    case Semihosting::kSysGetCmdline: return "SYS_GET_CMDLINE";
    case Semihosting::kSysHeapinfo: return "SYS_HEAPINFO";
    case Semihosting::kSysExit: return "SYS_EXIT";
    case Semihosting::kSysExitExtended: return "SYS_EXIT_EXTENDED";
    case Semihosting::kSysElapsed: return "SYS_ELAPSED";
    case Semihosting::kSysTickfreq: return "SYS_TICKFREQ";
    default: return nullptr;
  }
}
}  // namespace

Semihosting::Semihosting(const std::string& name, unsigned xlen)
    : output(name + ".output", "stdout", "",
             "where semihosting console output goes: stdout, stderr, none or a file path"),
      input(name + ".input", "", "",
            "bytes returned by SYS_READ/SYS_READC on the console; C escapes \\n \\r \\t \\\\ \\xHH are decoded"),
      cmdline(name + ".cmdline", "", "", "command line returned by SYS_GET_CMDLINE"),
      tick_frequency(name + ".tick_frequency", 1e9, "Hz", "tick rate of SYS_ELAPSED / SYS_TICKFREQ"),
      epoch(name + ".epoch", 0, "s", "SYS_TIME at simulated time 0, in seconds since 1970 (fixed for determinism)"),
      calls(name + ".calls", "calls", "semihosting calls"),
      console_bytes(name + ".console_bytes", "bytes", "bytes written to the console"),
      name_(name),
      xlen_(xlen),
      console_(output.get()),
      input_bytes_(decode_byte_escapes(input.get(), input.name())) {
  if (xlen != 32 && xlen != 64)
    throw SimulationError(ExitStatus::kInternalError, name + ": semihosting needs XLEN 32 or 64");
  double frequency = tick_frequency.get();
  if (!std::isfinite(frequency) || frequency < 1 || frequency > 1e15 || frequency != std::floor(frequency))
    throw ConfigError("parameter '" + tick_frequency.name() + "' must be a whole number of Hz between 1 and 1e15");
  tick_frequency_ = static_cast<std::uint64_t>(frequency);
  resolution_per_second_ =
      static_cast<std::uint64_t>(std::llround(1.0 / sc_core::sc_get_time_resolution().to_seconds()));
  handles_[0] = Handle{Stream::kStdin};
  handles_[1] = Handle{Stream::kStdout};
  handles_[2] = Handle{Stream::kStderr};
}

std::uint64_t Semihosting::fail(int error) {
  errno_ = error;
  return to_xlen(~std::uint64_t{0});
}

bool Semihosting::read_fields(GuestMemory& memory, std::uint64_t address, unsigned count, std::uint64_t* fields) {
  unsigned width = xlen_ / 8;
  for (unsigned i = 0; i < count; ++i) {
    std::uint64_t value = 0;  // little-endian guest, little-endian host
    if (!memory.read(address + i * width, &value, width)) return false;
    fields[i] = value;
  }
  return true;
}

bool Semihosting::write_field(GuestMemory& memory, std::uint64_t address, std::uint64_t value) {
  return memory.write(address, &value, xlen_ / 8);
}

void Semihosting::warn_once(std::uint64_t operation, const std::string& message) {
  if (!warned_.insert(operation).second) return;
  SC_REPORT_WARNING(kMessageType, (name_ + ": " + message).c_str());
}

std::uint64_t Semihosting::ticks(const sc_core::sc_time& now, std::uint64_t frequency) const {
  unsigned __int128 value = static_cast<unsigned __int128>(now.value()) * frequency / resolution_per_second_;
  return static_cast<std::uint64_t>(value);
}

void Semihosting::exit_with(Result& result, std::uint64_t reason, std::uint64_t subcode, const char* operation) {
  result.exit = true;
  if (reason == kApplicationExit) {
    result.exit_code = static_cast<int>(static_cast<std::int32_t>(subcode));
    result.exit_reason = std::string("semihosting ") + operation + " (ADP_Stopped_ApplicationExit)";
  } else {
    result.exit_code = 1;
    result.exit_reason = std::string("semihosting ") + operation + " (reason " + hex(reason) + ")";
  }
  result.value = 0;
}

Semihosting::Handle* Semihosting::find_handle(GuestMemory& memory, std::uint64_t parameter, std::uint64_t* fields,
                                              unsigned count) {
  if (!read_fields(memory, parameter, count, fields)) {
    errno_ = kEfault;
    return nullptr;
  }
  auto found = handles_.find(fields[0]);
  if (found == handles_.end()) {
    errno_ = kEbadf;
    return nullptr;
  }
  return &found->second;
}

std::uint64_t Semihosting::op_open(GuestMemory& memory, std::uint64_t parameter) {
  std::uint64_t fields[3];  // name, mode, length of name (without NUL)
  if (!read_fields(memory, parameter, 3, fields)) return fail(kEfault);
  std::uint64_t length = fields[2];
  if (length > 4096) return fail(kEinval);
  std::string file(static_cast<std::size_t>(length), '\0');
  if (length && !memory.read(fields[0], file.data(), file.size())) return fail(kEfault);
  std::uint64_t mode = fields[1];
  if (mode > 11) return fail(kEinval);
  Handle handle;
  if (file == kTtyName) {
    handle.stream = mode < 4 ? Stream::kStdin : mode < 8 ? Stream::kStdout : Stream::kStderr;
  } else if (file == kFeaturesName) {
    if (mode > 1) return fail(kEacces);  // read-only
    handle.stream = Stream::kFeatures;
  } else {
    warn_once(kSysOpen, "SYS_OPEN of host file '" + file +
                            "' refused: only \":tt\" and \":semihosting-features\" are available (errno EACCES)");
    return fail(kEacces);
  }
  std::uint64_t id = next_handle_++;
  handles_[id] = handle;
  return id;
}

std::uint64_t Semihosting::op_write(GuestMemory& memory, std::uint64_t parameter) {
  std::uint64_t fields[3];  // handle, buffer, length
  Handle* handle = find_handle(memory, parameter, fields, 3);
  if (!handle) return to_xlen(~std::uint64_t{0});
  std::uint64_t length = fields[2];
  if (handle->stream != Stream::kStdout && handle->stream != Stream::kStderr) {
    errno_ = kEbadf;
    return length;
  }
  std::vector<char> buffer;
  std::uint64_t done = 0;
  while (done < length) {
    std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, length - done));
    buffer.resize(chunk);
    if (!memory.read(fields[1] + done, buffer.data(), chunk)) {
      errno_ = kEfault;
      break;
    }
    console_.write(buffer.data(), chunk);
    console_bytes += chunk;
    done += chunk;
  }
  return length - done;
}

std::uint64_t Semihosting::op_read(GuestMemory& memory, std::uint64_t parameter) {
  std::uint64_t fields[3];  // handle, buffer, length
  Handle* handle = find_handle(memory, parameter, fields, 3);
  if (!handle) return to_xlen(~std::uint64_t{0});
  std::uint64_t length = fields[2];
  const char* source;
  std::size_t available;
  if (handle->stream == Stream::kStdin) {
    source = input_bytes_.data() + input_position_;
    available = input_bytes_.size() - input_position_;
  } else if (handle->stream == Stream::kFeatures) {
    std::size_t position = static_cast<std::size_t>(std::min<std::uint64_t>(handle->position, sizeof kFeatures));
    source = reinterpret_cast<const char*>(kFeatures) + position;
    available = sizeof kFeatures - position;
  } else {
    errno_ = kEbadf;
    return length;
  }
  std::size_t count = static_cast<std::size_t>(std::min<std::uint64_t>(length, available));
  if (count && !memory.write(fields[1], source, count)) {
    errno_ = kEfault;
    return length;
  }
  if (handle->stream == Stream::kStdin) input_position_ += count;
  else handle->position += count;
  return length - count;
}

std::uint64_t Semihosting::op_write0(GuestMemory& memory, std::uint64_t parameter) {
  std::string text;
  for (std::uint64_t address = parameter;; ++address) {
    char c;
    if (!memory.read(address, &c, 1)) {
      errno_ = kEfault;
      break;
    }
    if (c == '\0') break;
    text += c;
    if (text.size() >= kMaxWrite0) {
      warn_once(kSysWrite0, "SYS_WRITE0 string at " + hex(parameter) + " has no NUL in the first 1 MiB; truncated");
      break;
    }
  }
  console_.write(text.data(), text.size());
  console_bytes += text.size();
  return 0;
}

std::uint64_t Semihosting::op_get_cmdline(GuestMemory& memory, std::uint64_t parameter) {
  std::uint64_t fields[2];  // buffer, size
  if (!read_fields(memory, parameter, 2, fields)) return fail(kEfault);
  const std::string& text = cmdline.get();
  if (text.size() + 1 > fields[1]) return fail(kEinval);
  if (!memory.write(fields[0], text.c_str(), text.size() + 1)) return fail(kEfault);
  if (!write_field(memory, parameter + xlen_ / 8, text.size())) return fail(kEfault);
  return 0;
}

Semihosting::Result Semihosting::call(std::uint64_t operation, std::uint64_t parameter, GuestMemory& memory,
                                      const sc_core::sc_time& now) {
  ++calls;
  operation = to_xlen(operation);
  parameter = to_xlen(parameter);
  Result result;
  std::uint64_t fields[2];
  switch (operation) {
    case kSysOpen:
      result.value = op_open(memory, parameter);
      break;
    case kSysClose: {
      if (!read_fields(memory, parameter, 1, fields)) {
        result.value = fail(kEfault);
      } else if (handles_.erase(fields[0]) == 0) {
        result.value = fail(kEbadf);
      } else {
        result.value = 0;
      }
      break;
    }
    case kSysWritec: {
      char c;
      if (memory.read(parameter, &c, 1)) {
        console_.put(c);
        ++console_bytes;
      } else {
        errno_ = kEfault;
      }
      result.value = 0;
      break;
    }
    case kSysWrite0:
      result.value = op_write0(memory, parameter);
      break;
    case kSysWrite:
      result.value = op_write(memory, parameter);
      break;
    case kSysRead:
      result.value = op_read(memory, parameter);
      break;
    case kSysReadc:
      if (input_position_ < input_bytes_.size()) {
        result.value = static_cast<std::uint8_t>(input_bytes_[input_position_++]);
      } else {
        result.value = fail(kEio);  // end of input
      }
      break;
    case kSysIserror:
      if (!read_fields(memory, parameter, 1, fields)) result.value = fail(kEfault);
      else result.value = to_signed(fields[0]) < 0 ? 1 : 0;
      break;
    case kSysIstty: {
      Handle* handle = find_handle(memory, parameter, fields, 1);
      if (!handle) result.value = to_xlen(~std::uint64_t{0});
      else result.value = handle->stream == Stream::kFeatures ? 0 : 1;
      break;
    }
    case kSysSeek: {
      Handle* handle = find_handle(memory, parameter, fields, 2);
      if (!handle) {
        result.value = to_xlen(~std::uint64_t{0});
      } else if (handle->stream != Stream::kFeatures) {
        result.value = fail(kEspipe);
      } else {
        handle->position = fields[1];
        result.value = 0;
      }
      break;
    }
    case kSysFlen: {
      Handle* handle = find_handle(memory, parameter, fields, 1);
      if (!handle) result.value = to_xlen(~std::uint64_t{0});
      else if (handle->stream != Stream::kFeatures) result.value = fail(kEinval);  // a console has no length
      else result.value = sizeof kFeatures;
      break;
    }
    case kSysClock:
      result.value = ticks(now, 100);
      break;
    case kSysTime:
      result.value = to_xlen(epoch.get() + ticks(now, 1));
      break;
    case kSysErrno:
      result.value = to_xlen(static_cast<std::uint64_t>(errno_));
      break;
    case kSysGetCmdline:
      result.value = op_get_cmdline(memory, parameter);
      break;
    case kSysHeapinfo: {
      // The block holds a pointer to four fields: heap base, heap limit,
      // stack base, stack limit. Zeros tell the C library to use its own
      // linker-script symbols.
      if (!read_fields(memory, parameter, 1, fields)) {
        result.value = fail(kEfault);
        break;
      }
      bool ok = true;
      for (unsigned i = 0; i < 4; ++i) ok = ok && write_field(memory, fields[0] + i * (xlen_ / 8), 0);
      result.value = ok ? 0 : fail(kEfault);
      break;
    }
    case kSysExit:
      if (xlen_ == 32) {
        exit_with(result, parameter, 0, "SYS_EXIT");
      } else if (read_fields(memory, parameter, 2, fields)) {
        exit_with(result, fields[0], fields[1], "SYS_EXIT");
      } else {
        simulation().fail(ExitStatus::kGuestError, name_ + ": SYS_EXIT parameter block at " + hex(parameter) +
                                                       " is not readable, so the exit code is unknown");
      }
      break;
    case kSysExitExtended:
      if (read_fields(memory, parameter, 2, fields)) {
        exit_with(result, fields[0], fields[1], "SYS_EXIT_EXTENDED");
      } else {
        simulation().fail(ExitStatus::kGuestError, name_ + ": SYS_EXIT_EXTENDED parameter block at " +
                                                       hex(parameter) + " is not readable, so the exit code is unknown");
      }
      break;
    case kSysElapsed: {
      std::uint64_t elapsed = ticks(now, tick_frequency_);
      result.value = memory.write(parameter, &elapsed, 8) ? 0 : fail(kEfault);
      break;
    }
    case kSysTickfreq:
      result.value = tick_frequency_;
      break;
    case kSysTmpnam:
    case kSysRemove:
    case kSysRename:
    case kSysSystem:
      warn_once(operation, std::string(operation_name(operation)) +
                               " refused: the simulator gives guests no host file or shell access (errno EACCES)");
      result.value = fail(kEacces);
      break;
    default:
      warn_once(operation, "unsupported semihosting operation " + hex(operation) + " (a1 = " + hex(parameter) +
                               "); returning -1");
      result.value = to_xlen(~std::uint64_t{0});
      break;
  }
  result.value = to_xlen(result.value);
  return result;
}

}  // namespace npuvp
