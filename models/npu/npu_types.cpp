#include "npu/npu_types.h"

#include "core/text.h"

namespace npuvp {

const char* kernel_fault_cause_name(KernelFaultCause cause) {
  switch (cause) {
    case KernelFaultCause::kNone: return "none";
    case KernelFaultCause::kBufferRange: return "buffer range";
    case KernelFaultCause::kMisaligned: return "misaligned operand";
    case KernelFaultCause::kInvalidParameter: return "invalid parameter";
    case KernelFaultCause::kBusError: return "bus error";
    case KernelFaultCause::kDeadlock: return "event-flag deadlock";
    case KernelFaultCause::kScalarTrap: return "scalar trap";
    case KernelFaultCause::kFlagOverflow: return "event-flag overflow";
  }
  return "unknown";
}

std::uint8_t* LocalBuffer::span(std::uint64_t offset, std::uint64_t length, unsigned alignment, const char* what) {
  if (alignment > 1 && offset % alignment != 0)
    throw KernelFault(KernelFaultCause::kMisaligned, std::string(what) + " offset " + hex(offset) + " in " + name() +
                                                         " is not " + std::to_string(alignment) + "-byte aligned");
  if (offset > bytes_.size() || length > bytes_.size() - offset)
    throw KernelFault(KernelFaultCause::kBufferRange,
                      std::string(what) + " [" + hex(offset) + ", " + hex(offset + length) + ") leaves " + name() +
                          " (" + std::to_string(bytes_.size()) + " bytes)");
  return bytes_.data() + offset;
}

LocalBuffer& LocalBuffers::get(xdavinci::Buffer buffer) {
  switch (buffer) {
    case xdavinci::Buffer::kL1: return l1;
    case xdavinci::Buffer::kL0A: return l0a;
    case xdavinci::Buffer::kL0B: return l0b;
    case xdavinci::Buffer::kL0C: return l0c;
    case xdavinci::Buffer::kUb: return ub;
    case xdavinci::Buffer::kGm: break;
  }
  throw KernelFault(KernelFaultCause::kInvalidParameter, "global memory is not a local buffer");
}

}  // namespace npuvp
