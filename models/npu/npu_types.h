// Types shared by the AI Core's execution units (Cube, Vector, MTE) and the
// AiCore module that sequences them. The units are plain C++ (no SystemC):
// they compute real results on the local buffers and return the cycles the
// instruction occupies its pipe; the AiCore turns that into simulated time.
#pragma once

#include "npu/xdavinci_isa.h"

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace npuvp {

// Why a kernel stopped abnormally; the value is what STATUS reports
// (docs/ai-core.md).
enum class KernelFaultCause : std::uint8_t {
  kNone = 0,
  kBufferRange = 1,       // an operand leaves its local buffer
  kMisaligned = 2,        // an operand offset is not aligned as the instruction needs
  kInvalidParameter = 3,  // e.g. M = 0, repeat = 0, unknown pipe or type
  kBusError = 4,          // a global-memory transfer got an error response
  kDeadlock = 5,          // every pipe waits for a flag nobody can set
  kScalarTrap = 6,        // the scalar unit took an exception (illegal instruction, access fault)
  kFlagOverflow = 7,      // set_flag on a flag whose counter is at its maximum
};
const char* kernel_fault_cause_name(KernelFaultCause cause);

// Thrown by an execution unit when an instruction cannot execute; the pipe
// catches it, stops the kernel and records cause + the instruction's pc.
class KernelFault : public std::runtime_error {
 public:
  KernelFault(KernelFaultCause cause, const std::string& message) : std::runtime_error(message), cause_(cause) {}
  KernelFaultCause cause() const { return cause_; }

 private:
  KernelFaultCause cause_;
};

// One on-core buffer (L1, L0A, L0B, L0C, UB): a byte array with checked
// access. Offsets are byte offsets from the buffer's start.
class LocalBuffer {
 public:
  LocalBuffer(xdavinci::Buffer id, std::size_t size) : id_(id), bytes_(size, 0) {}
  xdavinci::Buffer id() const { return id_; }
  const char* name() const { return xdavinci::buffer_name(id_); }
  std::size_t size() const { return bytes_.size(); }

  // Pointer to [offset, offset + length) after checking range and alignment;
  // throws KernelFault (kBufferRange / kMisaligned) naming `what`.
  std::uint8_t* span(std::uint64_t offset, std::uint64_t length, unsigned alignment, const char* what);
  const std::uint8_t* data() const { return bytes_.data(); }
  std::uint8_t* data() { return bytes_.data(); }

 private:
  xdavinci::Buffer id_;
  std::vector<std::uint8_t> bytes_;
};

// All local buffers of one AI Core.
struct LocalBuffers {
  LocalBuffer l1, l0a, l0b, l0c, ub;
  LocalBuffers(std::size_t l1_size, std::size_t l0a_size, std::size_t l0b_size, std::size_t l0c_size,
               std::size_t ub_size)
      : l1(xdavinci::Buffer::kL1, l1_size),
        l0a(xdavinci::Buffer::kL0A, l0a_size),
        l0b(xdavinci::Buffer::kL0B, l0b_size),
        l0c(xdavinci::Buffer::kL0C, l0c_size),
        ub(xdavinci::Buffer::kUb, ub_size) {}
  LocalBuffer& get(xdavinci::Buffer buffer);
};

// One issued Xdavinci instruction: the register values captured at issue
// (so later scalar code cannot change an instruction already queued) plus the
// special registers it depends on.
struct NpuInstruction {
  xdavinci::Op op = xdavinci::Op::kCount;
  std::uint64_t xd = 0, xn = 0, xm = 0, xt = 0;
  std::uint64_t pc = 0;                // where the scalar unit issued it
  std::uint64_t vector_mask[2] = {~0ull, ~0ull};  // lanes 0-63, 64-127
  std::uint64_t fmatrix = 0;           // set_fmatrix value (img2col)
  std::uint64_t cmpmask = 0;           // set_cmpmask value: UB offset of vsel's lane mask
};

// What executing one instruction did, for timing and statistics.
struct UnitResult {
  std::uint64_t cycles = 0;  // cycles the instruction occupies its pipe
  std::uint64_t bytes = 0;   // bytes moved (MTE, cc->ub) or processed (vector)
  std::uint64_t macs = 0;    // useful multiply-accumulates (Cube): M*K*N
};

// Global memory as the MTE sees it: the AI Core's bus interface. A transfer is
// issued at `issue_cycle` (the core's cycle count) and returns the cycle at
// which it completes; a bus error throws KernelFault(kBusError).
class GlobalMemoryPort {
 public:
  virtual ~GlobalMemoryPort() = default;
  virtual std::uint64_t transfer(bool write, std::uint64_t address, std::uint8_t* data, std::uint32_t length,
                                 std::uint64_t issue_cycle) = 0;
};

}  // namespace npuvp
