// The base ISA, declared once: RV64I, M, A, Zicsr, Zifencei and the
// machine-mode system instructions. Each row is name, encoding pattern,
// operand format, timing class and semantics.
#include "cpu/decoder.h"
#include "cpu/hart.h"

namespace npuvp {

namespace {

using D = const DecodedInstruction&;
using i64 = std::int64_t;
using u64 = std::uint64_t;
using i32 = std::int32_t;
using u32 = std::uint32_t;

inline u64 sext32(u64 value) { return static_cast<u64>(static_cast<i64>(static_cast<i32>(value))); }
inline void next(Hart& h, D d) { h.pc += d.length; }

// ---- integer computational ----
template <typename Op>
constexpr ExecuteFn reg_reg() {
  return [](Hart& h, D d) {
    h.x[d.rd] = Op::apply(h.x[d.rs1], h.x[d.rs2]);
    next(h, d);
  };
}
template <typename Op>
constexpr ExecuteFn reg_imm() {
  return [](Hart& h, D d) {
    h.x[d.rd] = Op::apply(h.x[d.rs1], static_cast<u64>(d.imm));
    next(h, d);
  };
}
template <typename Op>
constexpr ExecuteFn reg_reg_word() {
  return [](Hart& h, D d) {
    h.x[d.rd] = sext32(Op::apply(h.x[d.rs1], h.x[d.rs2]));
    next(h, d);
  };
}
template <typename Op>
constexpr ExecuteFn reg_imm_word() {
  return [](Hart& h, D d) {
    h.x[d.rd] = sext32(Op::apply(h.x[d.rs1], static_cast<u64>(d.imm)));
    next(h, d);
  };
}

struct Add { static u64 apply(u64 a, u64 b) { return a + b; } };
struct Sub { static u64 apply(u64 a, u64 b) { return a - b; } };
struct Xor { static u64 apply(u64 a, u64 b) { return a ^ b; } };
struct Or { static u64 apply(u64 a, u64 b) { return a | b; } };
struct And { static u64 apply(u64 a, u64 b) { return a & b; } };
struct Slt { static u64 apply(u64 a, u64 b) { return static_cast<i64>(a) < static_cast<i64>(b); } };
struct Sltu { static u64 apply(u64 a, u64 b) { return a < b; } };
struct Sll { static u64 apply(u64 a, u64 b) { return a << (b & 63); } };
struct Srl { static u64 apply(u64 a, u64 b) { return a >> (b & 63); } };
struct Sra { static u64 apply(u64 a, u64 b) { return static_cast<u64>(static_cast<i64>(a) >> (b & 63)); } };
struct Sllw { static u64 apply(u64 a, u64 b) { return static_cast<u32>(a) << (b & 31); } };
struct Srlw { static u64 apply(u64 a, u64 b) { return static_cast<u32>(a) >> (b & 31); } };
struct Sraw { static u64 apply(u64 a, u64 b) { return static_cast<u64>(static_cast<i32>(a) >> (b & 31)); } };

// ---- M extension: RISC-V defines results for division by zero and overflow ----
struct Mul { static u64 apply(u64 a, u64 b) { return a * b; } };
struct Mulh {
  static u64 apply(u64 a, u64 b) {
    return static_cast<u64>((static_cast<__int128>(static_cast<i64>(a)) * static_cast<i64>(b)) >> 64);
  }
};
struct Mulhsu {
  static u64 apply(u64 a, u64 b) {
    return static_cast<u64>((static_cast<__int128>(static_cast<i64>(a)) *
                             static_cast<__int128>(static_cast<unsigned __int128>(b))) >> 64);
  }
};
struct Mulhu {
  static u64 apply(u64 a, u64 b) {
    return static_cast<u64>((static_cast<unsigned __int128>(a) * b) >> 64);
  }
};
struct Div {
  static u64 apply(u64 a, u64 b) {
    i64 x = static_cast<i64>(a), y = static_cast<i64>(b);
    if (y == 0) return ~0ull;
    if (x == INT64_MIN && y == -1) return a;
    return static_cast<u64>(x / y);
  }
};
struct Divu { static u64 apply(u64 a, u64 b) { return b == 0 ? ~0ull : a / b; } };
struct Rem {
  static u64 apply(u64 a, u64 b) {
    i64 x = static_cast<i64>(a), y = static_cast<i64>(b);
    if (y == 0) return a;
    if (x == INT64_MIN && y == -1) return 0;
    return static_cast<u64>(x % y);
  }
};
struct Remu { static u64 apply(u64 a, u64 b) { return b == 0 ? a : a % b; } };
struct Mulw { static u64 apply(u64 a, u64 b) { return static_cast<u32>(a) * static_cast<u32>(b); } };
struct Divw {
  static u64 apply(u64 a, u64 b) {
    i32 x = static_cast<i32>(a), y = static_cast<i32>(b);
    if (y == 0) return ~0ull;
    if (x == INT32_MIN && y == -1) return static_cast<u64>(static_cast<i64>(x));
    return static_cast<u64>(static_cast<i64>(x / y));
  }
};
struct Divuw {
  static u64 apply(u64 a, u64 b) {
    u32 x = static_cast<u32>(a), y = static_cast<u32>(b);
    return y == 0 ? ~0ull : x / y;
  }
};
struct Remw {
  static u64 apply(u64 a, u64 b) {
    i32 x = static_cast<i32>(a), y = static_cast<i32>(b);
    if (y == 0) return static_cast<u64>(static_cast<i64>(x));
    if (x == INT32_MIN && y == -1) return 0;
    return static_cast<u64>(static_cast<i64>(x % y));
  }
};
struct Remuw {
  static u64 apply(u64 a, u64 b) {
    u32 x = static_cast<u32>(a), y = static_cast<u32>(b);
    return y == 0 ? sext32(x) : x % y;
  }
};

// ---- control transfer ----
template <typename Cond>
constexpr ExecuteFn branch() {
  return [](Hart& h, D d) {
    if (Cond::apply(h.x[d.rs1], h.x[d.rs2])) {
      h.pc += d.imm;
      h.add_cycles(h.branch_taken_penalty());
    } else {
      next(h, d);
    }
  };
}
struct Eq { static bool apply(u64 a, u64 b) { return a == b; } };
struct Ne { static bool apply(u64 a, u64 b) { return a != b; } };
struct Lt { static bool apply(u64 a, u64 b) { return static_cast<i64>(a) < static_cast<i64>(b); } };
struct Ge { static bool apply(u64 a, u64 b) { return static_cast<i64>(a) >= static_cast<i64>(b); } };
struct Ltu { static bool apply(u64 a, u64 b) { return a < b; } };
struct Geu { static bool apply(u64 a, u64 b) { return a >= b; } };

void exec_lui(Hart& h, D d) { h.x[d.rd] = static_cast<u64>(d.imm); next(h, d); }
void exec_auipc(Hart& h, D d) { h.x[d.rd] = h.pc + d.imm; next(h, d); }
void exec_jal(Hart& h, D d) {
  h.x[d.rd] = h.pc + d.length;
  h.pc += d.imm;
}
void exec_jalr(Hart& h, D d) {
  u64 target = (h.x[d.rs1] + d.imm) & ~1ull;  // read rs1 before writing rd (they may alias)
  h.x[d.rd] = h.pc + d.length;
  h.pc = target;
}

// ---- loads and stores ----
template <typename T>
constexpr ExecuteFn load() {
  return [](Hart& h, D d) {
    T value;
    if (!h.load(h.x[d.rs1] + d.imm, value)) return;
    h.x[d.rd] = static_cast<u64>(static_cast<std::conditional_t<std::is_signed_v<T>, i64, u64>>(value));
    next(h, d);
  };
}
template <typename T>
constexpr ExecuteFn store() {
  return [](Hart& h, D d) {
    if (!h.store(h.x[d.rs1] + d.imm, static_cast<T>(h.x[d.rs2]))) return;
    next(h, d);
  };
}

// ---- A extension: the simulator runs one hart at a time, so a read and a
// write with no process switch in between are atomic. ----
template <typename T>
bool check_atomic_alignment(Hart& h, u64 address, TrapCause cause) {
  if (address & (sizeof(T) - 1)) {
    h.raise_exception(cause, address);
    return false;
  }
  return true;
}

template <typename T>
constexpr ExecuteFn load_reserved() {
  return [](Hart& h, D d) {
    u64 address = h.x[d.rs1];
    if (!check_atomic_alignment<T>(h, address, TrapCause::kLoadMisaligned)) return;
    T value;
    // The synchronisation comes first: a self-invalidating protocol must
    // not let the LR read a stale copy, and it ends an earlier atomic's hold
    // on a line. Then the line is fetched writable and held until the SC's
    // store (or the core's next access to another line or synchronisation),
    // as cores that guarantee LR/SC progress do; losing it drops the
    // reservation (DataCache).
    h.synchronise(DataCache::Sync::kLoadReserved);
    if (!h.prepare_atomic(address)) return;
    if (!h.load(address, value)) return;
    h.set_reservation(address);
    h.x[d.rd] = static_cast<u64>(static_cast<i64>(value));
    next(h, d);
  };
}

template <typename T>
constexpr ExecuteFn store_conditional() {
  return [](Hart& h, D d) {
    u64 address = h.x[d.rs1];
    if (!check_atomic_alignment<T>(h, address, TrapCause::kStoreMisaligned)) return;
    // The cached line is made writable first; a reservation lost while
    // waiting for it fails the store-conditional.
    if (h.reservation_in(address, 1)) {
      if (!h.prepare_atomic(address)) return;
    }
    if (h.take_reservation(address)) {
      if (!h.store(address, static_cast<T>(h.x[d.rs2]))) return;
      h.x[d.rd] = 0;
    } else {
      h.x[d.rd] = 1;
    }
    h.synchronise(DataCache::Sync::kStoreConditional);
    next(h, d);
  };
}

template <typename T, typename Op>
constexpr ExecuteFn atomic() {
  return [](Hart& h, D d) {
    u64 address = h.x[d.rs1];
    if (!check_atomic_alignment<T>(h, address, TrapCause::kStoreMisaligned)) return;
    T old;
    if (!h.prepare_atomic(address)) return;  // the read and write below then hit
    // An AMO that cannot read reports a store/AMO fault, as the spec requires.
    if (!h.load(address, old, TrapCause::kStoreAccessFault)) return;
    T operand = static_cast<T>(h.x[d.rs2]);
    if (!h.store(address, static_cast<T>(Op::apply(old, operand)))) return;
    h.x[d.rd] = static_cast<u64>(static_cast<i64>(static_cast<std::make_signed_t<T>>(old)));
    h.synchronise(DataCache::Sync::kAtomic);
    next(h, d);
  };
}
struct Swap { template <typename T> static T apply(T, T b) { return b; } };
struct AmoAdd { template <typename T> static T apply(T a, T b) { return a + b; } };
struct AmoXor { template <typename T> static T apply(T a, T b) { return a ^ b; } };
struct AmoAnd { template <typename T> static T apply(T a, T b) { return a & b; } };
struct AmoOr { template <typename T> static T apply(T a, T b) { return a | b; } };
struct AmoMin {
  template <typename T> static T apply(T a, T b) {
    using S = std::make_signed_t<T>;
    return static_cast<S>(a) < static_cast<S>(b) ? a : b;
  }
};
struct AmoMax {
  template <typename T> static T apply(T a, T b) {
    using S = std::make_signed_t<T>;
    return static_cast<S>(a) > static_cast<S>(b) ? a : b;
  }
};
struct AmoMinu { template <typename T> static T apply(T a, T b) { return a < b ? a : b; } };
struct AmoMaxu { template <typename T> static T apply(T a, T b) { return a > b ? a : b; } };

// ---- Zicsr: rd = x0 skips the read, rs1 = x0 (or uimm 0) skips the write ----
enum class CsrOp { kWrite, kSet, kClear };
template <CsrOp Op, bool Immediate>
constexpr ExecuteFn csr() {
  return [](Hart& h, D d) {
    auto number = static_cast<std::uint16_t>(d.imm);
    u64 operand = Immediate ? d.rs1 : h.x[d.rs1];
    bool writes = Op == CsrOp::kWrite || d.rs1 != 0;
    bool reads = Op != CsrOp::kWrite || d.rd != 32;
    u64 old = 0;
    if (reads && !h.csr_read(number, old)) return h.raise_illegal_instruction(d);
    if (writes) {
      u64 value = Op == CsrOp::kWrite ? operand : Op == CsrOp::kSet ? (old | operand) : (old & ~operand);
      if (!h.csr_write(number, value)) return h.raise_illegal_instruction(d);
    }
    h.x[d.rd] = old;
    next(h, d);
  };
}

// ---- system ----
// One hart runs at a time and caches are coherent, so memory is always
// ordered; a self-invalidating protocol (NSI) still acts at fences.
void exec_fence(Hart& h, D d) {
  h.synchronise(DataCache::Sync::kFence);
  next(h, d);
}
void exec_fence_i(Hart& h, D d) { h.execute_fence_i(d); }
void exec_ecall(Hart& h, D d) {
  h.raise_exception(h.privilege() == Privilege::kUser ? TrapCause::kEcallFromU : TrapCause::kEcallFromM, 0);
}
void exec_ebreak(Hart& h, D d) { h.execute_ebreak(d); }
void exec_mret(Hart& h, D d) { h.execute_mret(d); }
void exec_wfi(Hart& h, D d) { h.execute_wfi(d); }

constexpr auto R = OperandFormat::kR;
constexpr auto I = OperandFormat::kI;
constexpr auto kAlu = InstructionClass::kAlu;
constexpr auto kMul = InstructionClass::kMultiply;
constexpr auto kDiv = InstructionClass::kDivide;
constexpr u32 kRMask = 0xfe00707f, kIMask = 0x0000707f, kAmoMask = 0xf800707f, kLrMask = 0xf9f0707f;

}  // namespace

const std::vector<InstructionSpec>& Decoder::base_instructions() {
  static const std::vector<InstructionSpec> table = {
      // RV64I
      {"lui", 0x7f, 0x37, OperandFormat::kUpper, kAlu, exec_lui},
      {"auipc", 0x7f, 0x17, OperandFormat::kUpper, kAlu, exec_auipc},
      {"jal", 0x7f, 0x6f, OperandFormat::kJump, InstructionClass::kJump, exec_jal},
      {"jalr", kIMask, 0x67, OperandFormat::kJumpReg, InstructionClass::kJump, exec_jalr},
      {"beq", kIMask, 0x0063, OperandFormat::kBranch, InstructionClass::kBranch, branch<Eq>()},
      {"bne", kIMask, 0x1063, OperandFormat::kBranch, InstructionClass::kBranch, branch<Ne>()},
      {"blt", kIMask, 0x4063, OperandFormat::kBranch, InstructionClass::kBranch, branch<Lt>()},
      {"bge", kIMask, 0x5063, OperandFormat::kBranch, InstructionClass::kBranch, branch<Ge>()},
      {"bltu", kIMask, 0x6063, OperandFormat::kBranch, InstructionClass::kBranch, branch<Ltu>()},
      {"bgeu", kIMask, 0x7063, OperandFormat::kBranch, InstructionClass::kBranch, branch<Geu>()},
      {"lb", kIMask, 0x0003, OperandFormat::kLoad, InstructionClass::kLoad, load<std::int8_t>()},
      {"lh", kIMask, 0x1003, OperandFormat::kLoad, InstructionClass::kLoad, load<std::int16_t>()},
      {"lw", kIMask, 0x2003, OperandFormat::kLoad, InstructionClass::kLoad, load<std::int32_t>()},
      {"ld", kIMask, 0x3003, OperandFormat::kLoad, InstructionClass::kLoad, load<std::int64_t>()},
      {"lbu", kIMask, 0x4003, OperandFormat::kLoad, InstructionClass::kLoad, load<std::uint8_t>()},
      {"lhu", kIMask, 0x5003, OperandFormat::kLoad, InstructionClass::kLoad, load<std::uint16_t>()},
      {"lwu", kIMask, 0x6003, OperandFormat::kLoad, InstructionClass::kLoad, load<std::uint32_t>()},
      {"sb", kIMask, 0x0023, OperandFormat::kStore, InstructionClass::kStore, store<std::uint8_t>()},
      {"sh", kIMask, 0x1023, OperandFormat::kStore, InstructionClass::kStore, store<std::uint16_t>()},
      {"sw", kIMask, 0x2023, OperandFormat::kStore, InstructionClass::kStore, store<std::uint32_t>()},
      {"sd", kIMask, 0x3023, OperandFormat::kStore, InstructionClass::kStore, store<std::uint64_t>()},
      {"addi", kIMask, 0x0013, I, kAlu, reg_imm<Add>()},
      {"slti", kIMask, 0x2013, I, kAlu, reg_imm<Slt>()},
      {"sltiu", kIMask, 0x3013, I, kAlu, reg_imm<Sltu>()},
      {"xori", kIMask, 0x4013, I, kAlu, reg_imm<Xor>()},
      {"ori", kIMask, 0x6013, I, kAlu, reg_imm<Or>()},
      {"andi", kIMask, 0x7013, I, kAlu, reg_imm<And>()},
      {"slli", 0xfc00707f, 0x1013, OperandFormat::kShift, kAlu, reg_imm<Sll>()},
      {"srli", 0xfc00707f, 0x5013, OperandFormat::kShift, kAlu, reg_imm<Srl>()},
      {"srai", 0xfc00707f, 0x40005013, OperandFormat::kShift, kAlu, reg_imm<Sra>()},
      {"add", kRMask, 0x0033, R, kAlu, reg_reg<Add>()},
      {"sub", kRMask, 0x40000033, R, kAlu, reg_reg<Sub>()},
      {"sll", kRMask, 0x1033, R, kAlu, reg_reg<Sll>()},
      {"slt", kRMask, 0x2033, R, kAlu, reg_reg<Slt>()},
      {"sltu", kRMask, 0x3033, R, kAlu, reg_reg<Sltu>()},
      {"xor", kRMask, 0x4033, R, kAlu, reg_reg<Xor>()},
      {"srl", kRMask, 0x5033, R, kAlu, reg_reg<Srl>()},
      {"sra", kRMask, 0x40005033, R, kAlu, reg_reg<Sra>()},
      {"or", kRMask, 0x6033, R, kAlu, reg_reg<Or>()},
      {"and", kRMask, 0x7033, R, kAlu, reg_reg<And>()},
      {"addiw", kIMask, 0x001b, I, kAlu, reg_imm_word<Add>()},
      {"slliw", kRMask, 0x101b, OperandFormat::kShiftWord, kAlu, reg_imm_word<Sllw>()},
      {"srliw", kRMask, 0x501b, OperandFormat::kShiftWord, kAlu, reg_imm_word<Srlw>()},
      {"sraiw", kRMask, 0x4000501b, OperandFormat::kShiftWord, kAlu, reg_imm_word<Sraw>()},
      {"addw", kRMask, 0x003b, R, kAlu, reg_reg_word<Add>()},
      {"subw", kRMask, 0x4000003b, R, kAlu, reg_reg_word<Sub>()},
      {"sllw", kRMask, 0x103b, R, kAlu, reg_reg_word<Sllw>()},
      {"srlw", kRMask, 0x503b, R, kAlu, reg_reg_word<Srlw>()},
      {"sraw", kRMask, 0x4000503b, R, kAlu, reg_reg_word<Sraw>()},
      {"fence", kIMask, 0x000f, OperandFormat::kFence, InstructionClass::kFence, exec_fence},
      {"ecall", 0xffffffff, 0x00000073, OperandFormat::kNone, InstructionClass::kSystem, exec_ecall},
      {"ebreak", 0xffffffff, 0x00100073, OperandFormat::kNone, InstructionClass::kSystem, exec_ebreak},
      // Zifencei
      {"fence.i", kIMask, 0x100f, OperandFormat::kNone, InstructionClass::kFence, exec_fence_i},
      // Privileged (machine mode)
      {"mret", 0xffffffff, 0x30200073, OperandFormat::kNone, InstructionClass::kSystem, exec_mret},
      {"wfi", 0xffffffff, 0x10500073, OperandFormat::kNone, InstructionClass::kSystem, exec_wfi},
      // Zicsr
      {"csrrw", kIMask, 0x1073, OperandFormat::kCsr, InstructionClass::kCsr, csr<CsrOp::kWrite, false>()},
      {"csrrs", kIMask, 0x2073, OperandFormat::kCsr, InstructionClass::kCsr, csr<CsrOp::kSet, false>()},
      {"csrrc", kIMask, 0x3073, OperandFormat::kCsr, InstructionClass::kCsr, csr<CsrOp::kClear, false>()},
      {"csrrwi", kIMask, 0x5073, OperandFormat::kCsrImm, InstructionClass::kCsr, csr<CsrOp::kWrite, true>()},
      {"csrrsi", kIMask, 0x6073, OperandFormat::kCsrImm, InstructionClass::kCsr, csr<CsrOp::kSet, true>()},
      {"csrrci", kIMask, 0x7073, OperandFormat::kCsrImm, InstructionClass::kCsr, csr<CsrOp::kClear, true>()},
      // M
      {"mul", kRMask, 0x02000033, R, kMul, reg_reg<Mul>()},
      {"mulh", kRMask, 0x02001033, R, kMul, reg_reg<Mulh>()},
      {"mulhsu", kRMask, 0x02002033, R, kMul, reg_reg<Mulhsu>()},
      {"mulhu", kRMask, 0x02003033, R, kMul, reg_reg<Mulhu>()},
      {"div", kRMask, 0x02004033, R, kDiv, reg_reg<Div>()},
      {"divu", kRMask, 0x02005033, R, kDiv, reg_reg<Divu>()},
      {"rem", kRMask, 0x02006033, R, kDiv, reg_reg<Rem>()},
      {"remu", kRMask, 0x02007033, R, kDiv, reg_reg<Remu>()},
      {"mulw", kRMask, 0x0200003b, R, kMul, reg_reg_word<Mulw>()},
      {"divw", kRMask, 0x0200403b, R, kDiv, reg_reg_word<Divw>()},
      {"divuw", kRMask, 0x0200503b, R, kDiv, reg_reg_word<Divuw>()},
      {"remw", kRMask, 0x0200603b, R, kDiv, reg_reg_word<Remw>()},
      {"remuw", kRMask, 0x0200703b, R, kDiv, reg_reg_word<Remuw>()},
      // A (aq/rl bits are ignored: accesses are already sequentially consistent)
      {"lr.w", kLrMask, 0x1000202f, OperandFormat::kLoadReserved, InstructionClass::kAtomic, load_reserved<std::int32_t>()},
      {"sc.w", kAmoMask, 0x1800202f, OperandFormat::kAtomic, InstructionClass::kAtomic, store_conditional<std::uint32_t>()},
      {"amoswap.w", kAmoMask, 0x0800202f, OperandFormat::kAtomic, InstructionClass::kAtomic, atomic<std::uint32_t, Swap>()},
      {"amoadd.w", kAmoMask, 0x0000202f, OperandFormat::kAtomic, InstructionClass::kAtomic, atomic<std::uint32_t, AmoAdd>()},
      {"amoxor.w", kAmoMask, 0x2000202f, OperandFormat::kAtomic, InstructionClass::kAtomic, atomic<std::uint32_t, AmoXor>()},
      {"amoand.w", kAmoMask, 0x6000202f, OperandFormat::kAtomic, InstructionClass::kAtomic, atomic<std::uint32_t, AmoAnd>()},
      {"amoor.w", kAmoMask, 0x4000202f, OperandFormat::kAtomic, InstructionClass::kAtomic, atomic<std::uint32_t, AmoOr>()},
      {"amomin.w", kAmoMask, 0x8000202f, OperandFormat::kAtomic, InstructionClass::kAtomic, atomic<std::uint32_t, AmoMin>()},
      {"amomax.w", kAmoMask, 0xa000202f, OperandFormat::kAtomic, InstructionClass::kAtomic, atomic<std::uint32_t, AmoMax>()},
      {"amominu.w", kAmoMask, 0xc000202f, OperandFormat::kAtomic, InstructionClass::kAtomic, atomic<std::uint32_t, AmoMinu>()},
      {"amomaxu.w", kAmoMask, 0xe000202f, OperandFormat::kAtomic, InstructionClass::kAtomic, atomic<std::uint32_t, AmoMaxu>()},
      {"lr.d", kLrMask, 0x1000302f, OperandFormat::kLoadReserved, InstructionClass::kAtomic, load_reserved<std::int64_t>()},
      {"sc.d", kAmoMask, 0x1800302f, OperandFormat::kAtomic, InstructionClass::kAtomic, store_conditional<std::uint64_t>()},
      {"amoswap.d", kAmoMask, 0x0800302f, OperandFormat::kAtomic, InstructionClass::kAtomic, atomic<std::uint64_t, Swap>()},
      {"amoadd.d", kAmoMask, 0x0000302f, OperandFormat::kAtomic, InstructionClass::kAtomic, atomic<std::uint64_t, AmoAdd>()},
      {"amoxor.d", kAmoMask, 0x2000302f, OperandFormat::kAtomic, InstructionClass::kAtomic, atomic<std::uint64_t, AmoXor>()},
      {"amoand.d", kAmoMask, 0x6000302f, OperandFormat::kAtomic, InstructionClass::kAtomic, atomic<std::uint64_t, AmoAnd>()},
      {"amoor.d", kAmoMask, 0x4000302f, OperandFormat::kAtomic, InstructionClass::kAtomic, atomic<std::uint64_t, AmoOr>()},
      {"amomin.d", kAmoMask, 0x8000302f, OperandFormat::kAtomic, InstructionClass::kAtomic, atomic<std::uint64_t, AmoMin>()},
      {"amomax.d", kAmoMask, 0xa000302f, OperandFormat::kAtomic, InstructionClass::kAtomic, atomic<std::uint64_t, AmoMax>()},
      {"amominu.d", kAmoMask, 0xc000302f, OperandFormat::kAtomic, InstructionClass::kAtomic, atomic<std::uint64_t, AmoMinu>()},
      {"amomaxu.d", kAmoMask, 0xe000302f, OperandFormat::kAtomic, InstructionClass::kAtomic, atomic<std::uint64_t, AmoMaxu>()},
  };
  return table;
}

}  // namespace npuvp
