// Machine-mode CSRs of an M+U hart (RISC-V privileged spec 1.12), plus the
// F/D extensions' fflags, frm and fcsr (legal only while mstatus.FS != Off), the
// PMP CSRs (cpu/pmp.h) and the trigger CSRs of Sdtrig (cpu/debug_triggers.h).
// Optional features we do not implement read as zero where the spec allows it:
// hardwired-zero mhpmcounter3..31.
#include "cpu/extension.h"
#include "cpu/hart.h"

namespace npuvp {

namespace csr {
enum : std::uint16_t {
  kFflags = 0x001, kFrm = 0x002, kFcsr = 0x003,
  kCycle = 0xC00, kTime = 0xC01, kInstret = 0xC02, kHpmCounter3 = 0xC03, kHpmCounter31 = 0xC1F,
  kMstatus = 0x300, kMisa = 0x301, kMedeleg = 0x302, kMideleg = 0x303, kMie = 0x304, kMtvec = 0x305,
  kMcounteren = 0x306, kMenvcfg = 0x30A, kMcountinhibit = 0x320, kMhpmEvent3 = 0x323, kMhpmEvent31 = 0x33F,
  kMscratch = 0x340, kMepc = 0x341, kMcause = 0x342, kMtval = 0x343, kMip = 0x344,
  kPmpcfg0 = 0x3A0, kPmpcfg15 = 0x3AF, kPmpaddr0 = 0x3B0, kPmpaddr63 = 0x3EF,
  kMcycle = 0xB00, kMinstret = 0xB02, kMhpmCounter3 = 0xB03, kMhpmCounter31 = 0xB1F,
  kMvendorid = 0xF11, kMarchid = 0xF12, kMimpid = 0xF13, kMhartid = 0xF14, kMconfigptr = 0xF15,
};
}  // namespace csr

namespace mstatus {
constexpr std::uint64_t kMie = 1ull << 3, kMpie = 1ull << 7, kMpp = 3ull << 11, kFs = Hart::kMstatusFs,
                        kMprv = 1ull << 17, kTw = 1ull << 21, kUxl = 3ull << 32, kSd = Hart::kMstatusSd;
constexpr std::uint64_t kWritable = kMie | kMpie | kMpp | kFs | kMprv | kTw;
}  // namespace mstatus

constexpr std::uint64_t kMachineInterrupts = (1ull << 3) | (1ull << 7) | (1ull << 11);

const char* csr_name(std::uint16_t number) {
  switch (number) {
    case csr::kFflags: return "fflags";
    case csr::kFrm: return "frm";
    case csr::kFcsr: return "fcsr";
    case csr::kCycle: return "cycle";
    case csr::kTime: return "time";
    case csr::kInstret: return "instret";
    case csr::kMstatus: return "mstatus";
    case csr::kMisa: return "misa";
    case csr::kMedeleg: return "medeleg";
    case csr::kMideleg: return "mideleg";
    case csr::kMie: return "mie";
    case csr::kMtvec: return "mtvec";
    case csr::kMcounteren: return "mcounteren";
    case csr::kMenvcfg: return "menvcfg";
    case csr::kMcountinhibit: return "mcountinhibit";
    case csr::kMscratch: return "mscratch";
    case csr::kMepc: return "mepc";
    case csr::kMcause: return "mcause";
    case csr::kMtval: return "mtval";
    case csr::kMip: return "mip";
    case csr::kMcycle: return "mcycle";
    case csr::kMinstret: return "minstret";
    case csr::kMvendorid: return "mvendorid";
    case csr::kMarchid: return "marchid";
    case csr::kMimpid: return "mimpid";
    case csr::kMhartid: return "mhartid";
    case csr::kMconfigptr: return "mconfigptr";
    case csr::kPmpcfg0: return "pmpcfg0";
    case csr::kPmpaddr0: return "pmpaddr0";
    case DebugTriggers::kTselect: return "tselect";
    case DebugTriggers::kTdata1: return "tdata1";
    case DebugTriggers::kTdata2: return "tdata2";
    case DebugTriggers::kTdata3: return "tdata3";
    case DebugTriggers::kTinfo: return "tinfo";
    default: return nullptr;
  }
}

// which: 0 = cycle, 1 = instret
std::uint64_t Hart::counter_value(int which) const {
  if (mcountinhibit_ & (which == 0 ? 1 : 4)) return counter_frozen_[which];
  return (which == 0 ? cycles_ : retired()) + counter_offset_[which];
}

void Hart::set_counter(int which, std::uint64_t value) {
  counter_frozen_[which] = value;
  counter_offset_[which] = value - (which == 0 ? cycles_ : retired());
}

bool Hart::csr_read(std::uint16_t number, std::uint64_t& value) {
  // Bits 9:8 give the lowest privilege that may access the CSR.
  if (((number >> 8) & 3) > static_cast<unsigned>(privilege_)) return false;
  for (auto* extension : extensions_)
    if (extension->read_csr(*this, number, value)) return true;
  switch (number) {
    case csr::kFflags:
    case csr::kFrm:
    case csr::kFcsr:
      if (!fp_enabled()) return false;
      value = number == csr::kFflags ? fflags_ : number == csr::kFrm ? frm_ : (frm_ << 5) | fflags_;
      return true;
    case csr::kCycle:
    case csr::kTime:
    case csr::kInstret:
      if (privilege_ == Privilege::kUser && !((mcounteren_ >> (number - csr::kCycle)) & 1)) return false;
      if (number == csr::kTime) value = time_source_ ? time_source_(cycles_) : 0;
      else value = counter_value(number == csr::kCycle ? 0 : 1);
      return true;
    case csr::kMstatus: value = mstatus_; return true;
    case csr::kMisa: value = misa_; return true;
    case csr::kMie: value = mie_; return true;
    case csr::kMtvec: value = mtvec_; return true;
    case csr::kMcounteren: value = mcounteren_; return true;
    case csr::kMenvcfg: value = 0; return true;
    case csr::kMcountinhibit: value = mcountinhibit_; return true;
    case csr::kMscratch: value = mscratch_; return true;
    case csr::kMepc: value = mepc_; return true;
    case csr::kMcause: value = mcause_; return true;
    case csr::kMtval: value = mtval_; return true;
    case csr::kMip: value = mip_; return true;
    case csr::kMcycle: value = counter_value(0); return true;
    case csr::kMinstret: value = counter_value(1); return true;
    case csr::kMvendorid:
    case csr::kMarchid:
    case csr::kMimpid:
    case csr::kMconfigptr: value = 0; return true;
    case csr::kMhartid: value = hart_id_; return true;
    default: break;
  }
  if (pmp_.read_csr(number, value) || triggers_.read_csr(number, value)) return true;
  if ((number >= csr::kMhpmCounter3 && number <= csr::kMhpmCounter31) ||
      (number >= csr::kMhpmEvent3 && number <= csr::kMhpmEvent31)) {
    value = 0;
    return true;
  }
  if (number >= csr::kHpmCounter3 && number <= csr::kHpmCounter31) {
    if (privilege_ == Privilege::kUser && !((mcounteren_ >> (number - csr::kCycle)) & 1)) return false;
    value = 0;
    return true;
  }
  return false;
}

bool Hart::csr_write(std::uint16_t number, std::uint64_t value) {
  if (((number >> 8) & 3) > static_cast<unsigned>(privilege_)) return false;
  if ((number >> 10) == 3) return false;  // read-only range
  for (auto* extension : extensions_)
    if (extension->write_csr(*this, number, value)) return true;
  switch (number) {
    case csr::kFflags:
    case csr::kFrm:
    case csr::kFcsr:
      // frm holds any 3-bit value; an instruction using an invalid one is illegal.
      if (!fp_enabled()) return false;
      if (number != csr::kFrm) fflags_ = value & 0x1f;
      if (number != csr::kFflags) frm_ = (number == csr::kFrm ? value : value >> 5) & 7;
      set_fp_dirty();
      return true;  // nothing for service_pending() to look at
    case csr::kMstatus: {
      std::uint64_t next = (mstatus_ & ~mstatus::kWritable) | (value & mstatus::kWritable);
      // MPP is WARL over the implemented modes (U = 0, M = 3).
      std::uint64_t mpp = (next & mstatus::kMpp) >> 11;
      if (mpp != 0 && mpp != 3) next = (next & ~mstatus::kMpp) | (mstatus_ & mstatus::kMpp);
      // SD (read-only) summarises FS == Dirty (XS and VS are always Off).
      next = (next & ~mstatus::kSd) | ((next & mstatus::kFs) == mstatus::kFs ? mstatus::kSd : 0);
      mstatus_ = next;
      break;
    }
    case csr::kMisa: break;  // WARL: the extension set is fixed
    case csr::kMie: mie_ = value & kMachineInterrupts; break;
    case csr::kMtvec:
      // Direct (0) or vectored (1); other modes are reserved, keep the old mode.
      mtvec_ = (value & ~3ull) | ((value & 3) <= 1 ? (value & 3) : (mtvec_ & 3));
      break;
    case csr::kMcounteren: mcounteren_ = value & 0xffffffff; break;
    case csr::kMenvcfg: break;  // no implemented fields
    case csr::kMcountinhibit: {
      std::uint64_t next = value & 5;  // CY and IR
      for (int which = 0; which < 2; ++which) {
        std::uint64_t bit = which == 0 ? 1 : 4;
        if ((next & bit) && !(mcountinhibit_ & bit)) counter_frozen_[which] = counter_value(which);
        if (!(next & bit) && (mcountinhibit_ & bit)) set_counter(which, counter_frozen_[which]);
      }
      mcountinhibit_ = next;
      break;
    }
    case csr::kMscratch: mscratch_ = value; break;
    case csr::kMepc: mepc_ = value & ~1ull; break;
    case csr::kMcause: mcause_ = value; break;
    case csr::kMtval: mtval_ = value; break;
    case csr::kMip: break;  // MSIP/MTIP/MEIP are driven by devices
    case csr::kMcycle:
    case csr::kMinstret: {
      // The write is done instead of the writing instruction's increment:
      // the next instruction reads `value` (set again after this one counts).
      int which = number == csr::kMcycle ? 0 : 1;
      set_counter(which, value);
      counter_written_[which] = value;
      counter_write_pending_[which] = true;
      break;
    }
    default:
      if (pmp_.write_csr(number, value)) break;
      if (triggers_.write_csr(number, value)) {
        flush_requested_ = true;  // execute triggers live in decoded slots: decode again
        break;
      }
      if ((number >= csr::kMhpmCounter3 && number <= csr::kMhpmCounter31) ||
          (number >= csr::kMhpmEvent3 && number <= csr::kMhpmEvent31))
        break;  // hardwired zero
      return false;
  }
  update_access_checks();  // PMP, MPRV, data triggers
  // Writes to mstatus/mie may enable a pending interrupt: look before the next instruction.
  pending_service_ = true;
  budget_ = 0;
  return true;
}

}  // namespace npuvp
