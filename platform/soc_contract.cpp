#include "platform/soc_contract.h"

#include "npu/ai_core.h"
#include "mesh/mesh_network.h"
#include "npu/npu_types.h"
#include "periph/clint.h"
#include "periph/npu_mailbox.h"
#include "periph/plic.h"
#include "periph/sim_finisher.h"
#include "periph/uart16550.h"
#include "platform/memory_map.h"

#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace npuvp::soc_contract {

namespace {

using namespace memory_map;

// "0x" and `digits` upper-case hex digits (at least), then the C suffix.
std::string c_hex(std::uint64_t value, int digits, const char* suffix = "") {
  char text[40];
  std::snprintf(text, sizeof text, "0x%0*llX%s", digits, static_cast<unsigned long long>(value), suffix);
  return text;
}

std::string decimal(std::uint64_t value, const char* suffix = "") {
  return std::to_string(value) + suffix;
}

// `#define NAME VALUE /* comment */`, the value in a column, so the block reads as a table.
class Defines {
 public:
  explicit Defines(std::size_t name_width) : name_width_(name_width) {}
  Defines& define(const std::string& name, const std::string& value, const std::string& comment = "") {
    std::string line = "#define " + name;
    line += std::string(name.size() < name_width_ ? name_width_ - name.size() : 1, ' ');
    line += value;
    if (!comment.empty()) {
      // Comments line up after short values; a long value keeps one space.
      const std::size_t column = 8 + name_width_ + kValueWidth;
      line += std::string(line.size() < column ? column - line.size() : 1, ' ');
      line += "/* " + comment + " */";
    }
    text_ << line << '\n';
    return *this;
  }
  Defines& comment(const std::string& text) {
    text_ << "/* " << text << " */\n";
    return *this;
  }
  Defines& raw(const std::string& text) {
    text_ << text;
    return *this;
  }
  Defines& blank() {
    text_ << '\n';
    return *this;
  }
  std::string str() const { return text_.str(); }

 private:
  static constexpr std::size_t kValueWidth = 16;
  std::size_t name_width_;
  std::ostringstream text_;
};

// `base + offset` as a C expression, leaving out a zero offset.
std::string plus(const std::string& base, std::uint64_t offset, const char* suffix) {
  return offset == 0 ? base : base + " + " + c_hex(offset, 1, suffix);
}

// Address in docs tables: 0x1000_0000 (code_address: in backticks).
std::string plain_address(std::uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%04llX_%04llX", static_cast<unsigned long long>(value >> 16),
                static_cast<unsigned long long>(value & 0xFFFF));
  return text;
}
std::string doc_address(std::uint64_t value) { return "`" + plain_address(value) + "`"; }

// An offset in docs: 0, 0x4000.
std::string doc_hex(std::uint64_t value) { return value == 0 ? "0" : c_hex(value, 1); }

std::string doc_size(std::uint64_t bytes) {
  if (bytes >= (1ull << 30) && bytes % (1ull << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
  if (bytes >= (1ull << 20) && bytes % (1ull << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= (1ull << 10) && bytes % (1ull << 10) == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " B";
}

constexpr unsigned cause(KernelFaultCause c) { return static_cast<unsigned>(c); }

// One hart per tile of the default mesh.
constexpr std::uint64_t default_cluster_harts() { return MeshNetwork::kDefaultWidth * MeshNetwork::kDefaultHeight; }
std::string default_mesh() {
  return std::to_string(MeshNetwork::kDefaultWidth) + " x " + std::to_string(MeshNetwork::kDefaultHeight);
}

}  // namespace

std::string platform_header() {
  Defines d(28);
  d.define("NPUVP_DDR_BASE", c_hex(kDdr, 8, "ul"))
      .define("NPUVP_DDR_SIZE", c_hex(kDdrDefaultSize, 8, "ul"), "default; soc.ddr.size")
      .define("NPUVP_CLUSTER_SHARED_BASE", c_hex(kClusterSharedRegion, 8, "ul"),
              "cluster mode: memory the harts share (no driver pool there)")
      .define("NPUVP_CLUSTER_SHARED_SIZE", c_hex(kClusterSharedRegionSize, 8, "ul"))
      .define("NPUVP_CLUSTER_HARTS", decimal(default_cluster_harts()),
              "harts of the default cluster (soc.mesh " + default_mesh() + ")")
      .blank()
      .comment("Simulation control / test finisher (sifive_test compatible).")
      .define("NPUVP_FINISHER_BASE", c_hex(kFinisher, 8, "ul"))
      .define("NPUVP_FINISHER_PASS", c_hex(SimFinisher::kPass, 4, "u"))
      .define("NPUVP_FINISHER_FAIL", c_hex(SimFinisher::kFail, 4, "u"), "written as (code << 16) | FAIL")
      .define("NPUVP_FINISHER_ROI", "(" + plus("NPUVP_FINISHER_BASE", SimFinisher::kRegionOfInterest, "ul") + ")",
              "32-bit; npuvp only, QEMU ignores it")
      .define("NPUVP_ROI_BEGIN", decimal(SimFinisher::kRegionBegin, "u"), "region-of-interest marks")
      .define("NPUVP_ROI_END", decimal(SimFinisher::kRegionEnd, "u"))
      .blank()
      .comment("CLINT")
      .define("NPUVP_CLINT_BASE", c_hex(kClint, 8, "ul"))
      .define("NPUVP_CLINT_MSIP(h)",
              "(" + plus("NPUVP_CLINT_BASE", Clint::kMsipBase, "ul") + " + " + decimal(Clint::kMsipStride, "ul") +
                  " * (h))",
              "32-bit")
      .define("NPUVP_CLINT_MTIMECMP(h)",
              "(" + plus("NPUVP_CLINT_BASE", Clint::kMtimecmpBase, "ul") + " + " +
                  decimal(Clint::kMtimecmpStride, "ul") + " * (h))",
              "64-bit")
      .define("NPUVP_CLINT_MTIME", "(" + plus("NPUVP_CLINT_BASE", Clint::kMtime, "ul") + ")", "64-bit")
      .define("NPUVP_TIMEBASE_HZ", decimal(Clint::kDefaultTimebase, "ul"), "default of soc.clint.timebase")
      .blank()
      .comment("PLIC (SiFive layout, as on QEMU virt): 32-bit registers, 32 sources per pending/enable word")
      .define("NPUVP_PLIC_BASE", c_hex(kPlic, 8, "ul"))
      .define("NPUVP_PLIC_PRIORITY(src)", "(NPUVP_PLIC_BASE + 4ul * (src))")
      .define("NPUVP_PLIC_PENDING(src)", "(" + plus("NPUVP_PLIC_BASE", Plic::kPendingBase, "ul") + " + 4ul * ((src) / 32))")
      .define("NPUVP_PLIC_ENABLE(ctx, src)", "(" + plus("NPUVP_PLIC_BASE", Plic::kEnableBase, "ul") + " + " +
                                                 c_hex(Plic::kEnableStride, 1, "ul") + " * (ctx) + 4ul * ((src) / 32))")
      .define("NPUVP_PLIC_THRESHOLD(ctx)", "(" +
                                               plus("NPUVP_PLIC_BASE", Plic::kContextBase + Plic::kThresholdOffset, "ul") +
                                               " + " + c_hex(Plic::kContextStride, 1, "ul") + " * (ctx))")
      .define("NPUVP_PLIC_CLAIM(ctx)", "(" + plus("NPUVP_PLIC_BASE", Plic::kContextBase + Plic::kClaimOffset, "ul") +
                                           " + " + c_hex(Plic::kContextStride, 1, "ul") + " * (ctx))")
      .define("NPUVP_PLIC_CONTEXT_HOST", decimal(kPlicContextHost, "u"), "the host CPU's machine mode")
      .define("NPUVP_PLIC_CONTEXT_MACHINE(h)", "(" + decimal(kPlicContextsPerHart, "u") + " * (h))",
              "host hart h's machine mode (cluster hart h; QEMU virt's order)")
      .define("NPUVP_UART0_PLIC_SOURCE", decimal(kUart0PlicSource, "u"))
      .blank()
      .comment("UART0, ns16550a with byte-wide registers")
      .define("NPUVP_UART0_BASE", c_hex(kUart0, 8, "ul"))
      .define("UART_RBR", decimal(Uart16550::kRbrThrDll), "receive buffer (read)")
      .define("UART_THR", decimal(Uart16550::kRbrThrDll), "transmit holding (write)")
      .define("UART_IER", decimal(Uart16550::kIerDlm), "interrupt enable")
      .define("UART_IER_THRE", c_hex(Uart16550::kIerThre, 2), "interrupt when THR is empty")
      .define("UART_IIR", decimal(Uart16550::kIirFcr), "interrupt identification (read)")
      .define("UART_IIR_ID_MASK", c_hex(Uart16550::kIirIdMask, 2), "its interrupt identification bits")
      .define("UART_IIR_THRE", c_hex(Uart16550::kIirThre, 2), "THR empty")
      .define("UART_LSR", decimal(Uart16550::kLsr), "line status")
      .define("UART_LSR_DR", c_hex(Uart16550::kLsrDr, 2), "receive data ready")
      .define("UART_LSR_THRE", c_hex(Uart16550::kLsrThre, 2), "transmit holding register empty")
      .blank()
      .comment("Other SoC windows (devices described in docs/)")
      .define("NPUVP_NPU_CTRL_BASE", c_hex(kNpuControl, 8, "ul"))
      .define("NPUVP_L2_BUFFER_BASE", c_hex(kL2Buffer, 8, "ul"))
      .define("NPUVP_L2_BUFFER_SIZE", c_hex(kL2BufferSize, 8, "ul"))
      .define("NPUVP_MESH_CTRL_BASE", c_hex(kMeshControl, 8, "ul"), "reserved, not modelled yet");
  return d.str();
}

std::string protocol_hardware() {
  using Mailbox = NpuMailbox;
  Defines d(34);
  d.define("NPU_MAILBOX_BASE", c_hex(kNpuMailbox, 8, "ull"),
           doc_size(Mailbox::kWindowSize) + "; 64-bit registers, 8-byte accesses only")
      .define("NPU_MB_DOORBELL", c_hex(Mailbox::kDoorbell, 2, "u"),
              "host W: any value -> TS interrupt; R: writes not yet acknowledged")
      .define("NPU_MB_DOORBELL_ACK", c_hex(Mailbox::kDoorbellAck, 2, "u"), "TS W: clears the doorbell count (interrupt level low)")
      .define("NPU_MB_HOST_IRQ", c_hex(Mailbox::kHostIrq, 2, "u"), "TS W 1: raise the host interrupt")
      .define("NPU_MB_HOST_IRQ_ACK", c_hex(Mailbox::kHostIrqAck, 2, "u"), "host W: clears it")
      .define("NPU_MB_SCRATCH(i)",
              "(" + c_hex(Mailbox::kScratch, 2, "u") + " + " + decimal(Mailbox::kRegisterBytes, "u") + " * (unsigned)(i))",
              "i = 0.." + std::to_string(Mailbox::kScratchWords - 1) + ", read/write, meaning below")
      .define("NPU_MB_SCRATCH_COUNT", decimal(Mailbox::kScratchWords, "u"))
      .blank()
      .define("NPU_PLIC_SOURCE_DOORBELL", decimal(kTsDoorbellSource, "u"),
              "-> PLIC context " + std::to_string(kPlicContextTaskScheduler) + " (TS machine external interrupt)")
      .define("NPU_PLIC_SOURCE_HOST_IRQ", decimal(kTsHostIrqSource, "u"),
              "-> PLIC context " + std::to_string(kPlicContextHost) + " (host machine external interrupt)")
      .define("NPU_PLIC_CONTEXT_HOST", decimal(kPlicContextHost, "u"))
      .define("NPU_PLIC_CONTEXT_TS", decimal(kPlicContextTaskScheduler, "u"))
      .blank()
      .comment("AI Core control windows (models/npu/ai_core.h, docs/ai-core.md).")
      .define("NPU_AICORE_CONTROL_BASE", c_hex(kAiCoreControl, 8, "ull"))
      .define("NPU_AICORE_CONTROL_STRIDE", c_hex(AiCore::kControlSize, 4, "ull"))
      .define("NPU_AICORE_CONTROL(i)", "(NPU_AICORE_CONTROL_BASE + NPU_AICORE_CONTROL_STRIDE * (uint64_t)(i))")
      .define("NPU_AICORE_ENTRY", c_hex(AiCore::kRegEntry, 2, "u"))
      .define("NPU_AICORE_ARGS", c_hex(AiCore::kRegArgs, 2, "u"))
      .define("NPU_AICORE_BLOCK_IDX", c_hex(AiCore::kRegBlockIdx, 2, "u"))
      .define("NPU_AICORE_BLOCK_DIM", c_hex(AiCore::kRegBlockDim, 2, "u"))
      .define("NPU_AICORE_START", c_hex(AiCore::kRegStart, 2, "u"))
      .raw("/* START value bits: bit 0 starts the block; bit 1 keeps the core's instruction cache (and\n"
           " * its decoded instructions) from the previous block instead of starting cold: only when\n"
           " * the code that block ran has not been written since (docs/ai-core.md). */\n")
      .define("NPU_AICORE_START_GO", c_hex(AiCore::kStartGo, 1, "u"))
      .define("NPU_AICORE_START_KEEP_ICACHE", c_hex(AiCore::kStartKeepInstructionCache, 1, "u"))
      .define("NPU_AICORE_STATUS", c_hex(AiCore::kRegStatus, 2, "u"))
      .define("NPU_AICORE_FAULT_PC", c_hex(AiCore::kRegFaultPc, 2, "u"))
      .define("NPU_AICORE_CYCLES", c_hex(AiCore::kRegCycles, 2, "u"))
      .define("NPU_AICORE_IRQ_CLEAR", c_hex(AiCore::kRegIrqClear, 2, "u"))
      .define("NPU_AICORE_CORE_ID", c_hex(AiCore::kRegCoreId, 2, "u"))
      .define("NPU_AICORE_BLOCK_START_CYCLE", c_hex(AiCore::kRegBlockStartCycle, 2, "u"),
              "R: TS cycles at the last block's START")
      .define("NPU_AICORE_BLOCK_END_CYCLE", c_hex(AiCore::kRegBlockEndCycle, 2, "u"),
              "R: TS cycles at its end (0 while running)")
      .define("NPU_AICORE_STATUS_RUNNING", c_hex(AiCore::kStatusRunning, 1, "u"))
      .define("NPU_AICORE_STATUS_DONE", c_hex(AiCore::kStatusDone, 1, "u"))
      .define("NPU_AICORE_STATUS_FAULT", c_hex(AiCore::kStatusFault, 1, "u"))
      .define("NPU_AICORE_STATUS_CAUSE(s)", "(((uint64_t)(s) >> " + decimal(AiCore::kStatusCauseShift) + ") & " +
                                                c_hex(AiCore::kStatusCauseMask, 2, "u") + ")")
      .define("NPU_AICORE_IRQ_CLEAR_DONE", c_hex(AiCore::kIrqClearDone, 1, "u"))
      .define("NPU_AICORE_IRQ_CLEAR_ERROR", c_hex(AiCore::kIrqClearError, 1, "u"))
      .define("NPU_PLIC_SOURCE_AICORE_DONE(i)",
              "(" + decimal(kAiCoreDoneSource, "u") + " + " + decimal(kSourcesPerAiCore, "u") + " * (unsigned)(i))")
      .define("NPU_PLIC_SOURCE_AICORE_ERROR(i)",
              "(" + decimal(kAiCoreErrorSource, "u") + " + " + decimal(kSourcesPerAiCore, "u") + " * (unsigned)(i))")
      .define("NPU_PLIC_SOURCES", decimal(kPlicSources, "u"),
              "source IDs 0.." + std::to_string(kPlicSources - 1) + " (0 reserved), as QEMU virt")
      .define("NPU_MAX_CORES", decimal(kMaxAiCores, "u"),
              "AI Cores a TS can drive (PLIC sources " + std::to_string(kAiCoreDoneSource) + ".." +
                  std::to_string(kPlicSources - 1) + ")")
      .blank()
      .comment("AI Core kernel fault causes (STATUS bits 15:8; the `detail` of a KERNEL_FAULT).")
      .define("NPU_FAULT_BUFFER_RANGE", decimal(cause(KernelFaultCause::kBufferRange), "u"))
      .define("NPU_FAULT_MISALIGNED", decimal(cause(KernelFaultCause::kMisaligned), "u"))
      .define("NPU_FAULT_INVALID_PARAMETER", decimal(cause(KernelFaultCause::kInvalidParameter), "u"))
      .define("NPU_FAULT_BUS_ERROR", decimal(cause(KernelFaultCause::kBusError), "u"))
      .define("NPU_FAULT_DEADLOCK", decimal(cause(KernelFaultCause::kDeadlock), "u"))
      .define("NPU_FAULT_SCALAR_TRAP", decimal(cause(KernelFaultCause::kScalarTrap), "u"))
      .define("NPU_FAULT_FLAG_OVERFLOW", decimal(cause(KernelFaultCause::kFlagOverflow), "u"))
      .blank()
      .comment("The L2 buffer (on-chip SRAM the driver allocates from).")
      .define("NPU_L2_BUFFER_BASE", c_hex(kL2Buffer, 8, "ull"))
      .define("NPU_L2_BUFFER_SIZE", c_hex(kL2BufferSize, 8, "ull"))
      .blank()
      .comment("Inside DDR, by software convention (docs/memory-map.md).")
      .define("NPU_KERNEL_AREA_BASE", c_hex(kKernelSlots, 8, "ull"),
              "kernel image slot n at + n * NPU_KERNEL_SLOT_SIZE")
      .define("NPU_KERNEL_SLOT_SIZE", c_hex(kKernelSlotSize, 8, "ull"))
      .define("NPU_KERNEL_AREA_END", c_hex(kKernelArguments, 8, "ull"), "the default kernel argument block follows")
      .define("NPU_DEVICE_POOL_BASE", c_hex(kDevicePool, 8, "ull"), "the driver's default device memory")
      .define("NPU_DEVICE_POOL_END", c_hex(kDevicePoolEnd, 8, "ull"), "the end of a 1 GiB DDR");
  return d.str();
}

std::string firmware_build_settings() {
  std::ostringstream t;
  auto set = [&](const char* name, const std::string& value, const char* meaning) {
    t << "set(" << name << " " << value << ")  # " << meaning << "\n";
  };
  set("NPUVP_TS_IMAGE_BASE", c_hex(kTaskSchedulerImage, 8), "the task scheduler's firmware image");
  set("NPUVP_TS_IMAGE_SIZE", decimal(kTaskSchedulerImageSize >> 20) + "M", "its size (code, data, stack)");
  set("NPUVP_KERNEL_AREA_BASE", c_hex(kKernelSlots, 8), "AI Core kernel slot n at + n * NPUVP_KERNEL_SLOT_SIZE");
  set("NPUVP_KERNEL_SLOT_SIZE", c_hex(kKernelSlotSize, 1), "1 MiB");
  return t.str();
}

std::string linker_defaults() {
  std::ostringstream t;
  // A program's own -Wl,--defsym wins; otherwise the SoC's default.
  auto set = [&](const std::string& name, const std::string& value, const std::string& meaning) {
    const std::string padded = name + std::string(name.size() < 18 ? 18 - name.size() : 1, ' ');
    t << padded << " = DEFINED(" << name << ") ? " << name << " : " << value << ";  /* " << meaning << " */\n";
  };
  const std::uint64_t cluster_harts = default_cluster_harts();
  const std::string mesh = default_mesh();
  set("__ram_base", c_hex(kDdr, 8), "the DDR base: host programs link and load here");
  set("__ram_size", decimal(kDdrDefaultSize >> 20) + "M", "the default DDR (soc.ddr.size)");
  set("__stack_harts", decimal(cluster_harts), "one slot per hart of the default cluster (soc.mesh " + mesh + ")");
  set("__npuvp_smp_harts", decimal(cluster_harts), "SMP programs: the default cluster's harts run main");
  return t.str();
}

std::string ddr_layout_table() {
  std::ostringstream t;
  auto row = [&](const std::string& address, const std::string& what) {
    t << "| " << address << " | " << what << " |\n";
  };
  auto range = [](std::uint64_t start, std::uint64_t end) {
    return doc_address(start) + "–" + doc_address(end - 1);
  };
  t << "| address | what |\n| --- | --- |\n";
  row(doc_address(kDdr), "host programs (firmware link address, `__ram_base` of `firmware/common/link.ld`)");
  row(doc_address(kTaskSchedulerImage), "task-scheduler firmware image (`firmware/ts`, " +
                                            doc_size(kTaskSchedulerImageSize) + ": code, data, stack)");
  row("`" + plain_address(kKernelSlots) + " + n·" + doc_size(kKernelSlotSize) + "`",
      "AI Core kernel image slot n, " + doc_size(kKernelSlotSize) +
          " each (`npuvp_kernel(... SLOT n ...)` in `sw/kernels/CMakeLists.txt`; the AI Core model's test kernels "
          "use slots 64 and up)");
  row(doc_address(kKernelArguments),
      "kernel argument block of an `aicore_launch` (64-bit words, passed in `a0`; `args_address` moves it)");
  row(range(kDevicePool, kDevicePoolEnd),
      "device-memory pool of the host driver's DDR allocator ([driver-api.md](driver-api.md)); the traffic "
      "generators' default base (" + doc_address(kTrafficDefaultBase) +
          ") lies inside it, so do not combine them with offload programs without moving `soc.tgN.base`");
  row(doc_address(kTrafficDefaultBase), "default `soc.tgN.base` of the traffic generators (" +
                                            doc_size(kTrafficDefaultBase - kDdr) + " into DDR)");
  row(range(kClusterSharedRegion, kClusterSharedRegion + kClusterSharedRegionSize),
      "in cluster mode (no host program, so no driver pool): memory the harts share, `NPUVP_CLUSTER_SHARED_*`; "
      "the synthetic program `mesh/synthetic.elf` uses up to " + doc_size(kClusterSharedRegionSize) +
          " of it ([reproduce-nsi.md](reproduce-nsi.md#the-program))");
  return t.str();
}

std::string address_map_table() {
  std::ostringstream t;
  auto row = [&](std::uint64_t base, const std::string& size, const std::string& device, const std::string& notes) {
    t << "| " << doc_address(base) << " | " << size << " | " << device << " | " << notes << " |\n";
  };
  t << "| base | size | device | notes |\n| --- | --- | --- | --- |\n";
  row(kBootRom, doc_size(kBootRomSize), "boot ROM",
      "reset vector (`soc.cpu.reset_pc`): `a0` = mhartid, `a1` = 0 (no device tree), jump to the ELF entry");
  row(kFinisher, doc_size(SimFinisher::kWindowSize), "sim-control finisher",
      "sifive_test: write `" + doc_hex(SimFinisher::kPass) + "` pass, `code<<16 \\| " + doc_hex(SimFinisher::kFail) +
          "` fail, `" + doc_hex(SimFinisher::kReset) + "` (reset) is an error; at +" +
          doc_hex(SimFinisher::kRegionOfInterest) + " `" + std::to_string(SimFinisher::kRegionBegin) +
          "` / `" + std::to_string(SimFinisher::kRegionEnd) +
          "` mark the region of interest's begin / end (npuvp only; QEMU ignores the write)");
  row(kClint, doc_size(Clint::kWindowSize), "CLINT",
      "`msip` at +" + doc_hex(Clint::kMsipBase) + " (" + std::to_string(Clint::kMsipStride) +
          " bytes per hart), `mtimecmp` at +" + doc_hex(Clint::kMtimecmpBase) + " (" +
          std::to_string(Clint::kMtimecmpStride) + " per hart), `mtime` at +" + doc_hex(Clint::kMtime) + "; " +
          std::to_string(Clint::kDefaultTimebase / 1'000'000) + " MHz timebase (`soc.clint.timebase`)");
  row(kPlic, doc_size(Plic::kWindowSize), "PLIC",
      "priorities +0, pending +" + doc_hex(Plic::kPendingBase) + ", enables +" + doc_hex(Plic::kEnableBase) + " + " +
          doc_hex(Plic::kEnableStride) + "·ctx, threshold/claim +" + doc_hex(Plic::kContextBase) + " + " +
          doc_hex(Plic::kContextStride) + "·ctx; " + std::to_string(kPlicSources) + " sources; context " +
          std::to_string(kPlicContextHost) + " = the host CPU's M-mode, " + std::to_string(kPlicContextTaskScheduler) +
          " = the task scheduler's M-mode; in cluster mode context " + std::to_string(plic_machine_context(1)) +
          "·h = cluster hart h's M-mode");
  row(kUart0, doc_size(Uart16550::kWindowSize), "UART0, ns16550a", "PLIC source " + std::to_string(kUart0PlicSource));
  row(kNpuControl, doc_size(kNpuControlSize), "NPU control",
      "AI Core N's control registers at `" + plain_address(kAiCoreControl) + " + N·" + doc_hex(AiCore::kControlSize) +
          "` (" + doc_size(AiCore::kControlSize) + " each, N < `soc.ai_cores` ≤ " + std::to_string(kMaxAiCores) +
          ", so up to " + doc_address(kAiCoreControl + kMaxAiCores * AiCore::kControlSize - 1) +
          ", [ai-core.md](ai-core.md#control-registers-and-interrupts)), on that core's ring stop. The host ↔ "
          "task-scheduler mailbox (`NpuMailbox`: DOORBELL +" +
          c_hex(NpuMailbox::kDoorbell, 2) + ", DOORBELL_ACK +" + c_hex(NpuMailbox::kDoorbellAck, 2) + ", HOST_IRQ +" +
          c_hex(NpuMailbox::kHostIrq, 2) + ", HOST_IRQ_ACK +" + c_hex(NpuMailbox::kHostIrqAck, 2) + ", SCRATCH[0.." +
          std::to_string(NpuMailbox::kScratchWords - 1) + "] +" + c_hex(NpuMailbox::kScratch, 2) + ") at " +
          doc_address(kNpuMailbox) + " (" + doc_size(NpuMailbox::kWindowSize) + "); the rest is unmapped");
  row(kL2Buffer, doc_size(kL2BufferSize), "L2 buffer",
      "on-chip SRAM shared by the AI Cores; " + std::to_string(static_cast<int>(kL2BufferLatency.to_seconds() * 1e9)) +
          " ns, " + std::to_string(static_cast<int>(kL2BufferBandwidth / 1e9)) + " GB/s (`soc.l2.*`)");
  row(kMeshControl, doc_size(kMeshControlSize), "mesh-cluster control", "(not yet modelled, unmapped)");
  row(kDdr, doc_size(kDdrDefaultSize) + " (`soc.ddr.size`)", "DDR",
      "DDR controller with an LPDDR4-3200-like timing model; zero-filled at start, allocated lazily; conventions "
      "inside it below");
  return t.str();
}

std::string interrupt_table() {
  std::ostringstream t;
  const std::string host = std::to_string(kPlicContextHost), ts = std::to_string(kPlicContextTaskScheduler);
  t << "| source | line | hart interrupt |\n| --- | --- | --- |\n"
    << "| CLINT `msip[0]` | — | machine software (mip bit 3) |\n"
    << "| CLINT `mtimecmp[0]` ≤ `mtime` | — | machine timer (mip bit 7) |\n"
    << "| PLIC context " << host << " | — | host CPU machine external (mip bit 11) |\n"
    << "| PLIC context " << ts << " | — | task scheduler machine external (mip bit 11) |\n"
    << "| PLIC context " << plic_machine_context(1) << "h (cluster mode) | — | cluster hart h machine external (mip bit 11) |\n"
    << "| UART0 | PLIC source " << kUart0PlicSource << " | via PLIC |\n"
    << "| mailbox DOORBELL pending (host → task scheduler) | PLIC source " << kTsDoorbellSource
    << " | via PLIC (enable it in context " << ts << ") |\n"
    << "| mailbox HOST_IRQ (task scheduler → host) | PLIC source " << kTsHostIrqSource << " | via PLIC (context "
    << host << ") |\n"
    << "| AI Core N done (a task block ended with `end_kernel`) | PLIC source `" << kAiCoreDoneSource << " + "
    << kSourcesPerAiCore << "N` | via PLIC |\n"
    << "| AI Core N error (a task block faulted) | PLIC source `" << kAiCoreErrorSource << " + " << kSourcesPerAiCore
    << "N` | via PLIC |\n";
  return t.str();
}

const std::vector<GeneratedSection>& generated_sections() {
  static const std::vector<GeneratedSection> sections = {
      {"firmware/common/include/npuvp/platform.h",
       "/* BEGIN GENERATED by npuvp-soc-gen from platform/memory_map.h and the device models (docs/memory-map.md) */",
       "/* END GENERATED */", platform_header},
      {"sw/include/npuvp/npu_protocol.h",
       "/* BEGIN GENERATED by npuvp-soc-gen from platform/memory_map.h and the device models (docs/memory-map.md) */",
       "/* END GENERATED */", protocol_hardware},
      {"firmware/cmake/npuvp_soc.cmake",
       "# BEGIN GENERATED by npuvp-soc-gen from platform/memory_map.h (docs/memory-map.md)", "# END GENERATED",
       firmware_build_settings},
      {"firmware/common/npuvp_soc.ld",
       "/* BEGIN GENERATED by npuvp-soc-gen from platform/memory_map.h (docs/memory-map.md) */",
       "/* END GENERATED */", linker_defaults},
      {"docs/memory-map.md", "<!-- BEGIN GENERATED: npuvp-soc-gen address map -->", "<!-- END GENERATED -->",
       address_map_table},
      {"docs/memory-map.md", "<!-- BEGIN GENERATED: npuvp-soc-gen inside DDR -->", "<!-- END GENERATED -->",
       ddr_layout_table},
      {"docs/memory-map.md", "<!-- BEGIN GENERATED: npuvp-soc-gen interrupts -->", "<!-- END GENERATED -->",
       interrupt_table},
  };
  return sections;
}

namespace {

// Offset of `marker` as a whole line of `text` at or after `from`, or npos.
std::size_t find_line(const std::string& text, const std::string& marker, std::size_t from = 0) {
  for (std::size_t at = text.find(marker, from); at != std::string::npos; at = text.find(marker, at + 1)) {
    const std::size_t end = at + marker.size();
    if ((at == 0 || text[at - 1] == '\n') && (end == text.size() || text[end] == '\n')) return at;
  }
  return std::string::npos;
}

// [start, end) of the body between the markers, or false with `error`.
bool locate(const std::string& text, const GeneratedSection& section, std::size_t& start, std::size_t& end,
            std::string& error) {
  const std::size_t begin = find_line(text, section.begin_marker);
  if (begin == std::string::npos) {
    error = section.path + ": no line " + section.begin_marker;
    return false;
  }
  if (find_line(text, section.begin_marker, begin + 1) != std::string::npos) {
    error = section.path + ": the line " + section.begin_marker + " appears twice";
    return false;
  }
  start = begin + section.begin_marker.size() + 1;
  end = find_line(text, section.end_marker, start);
  if (end == std::string::npos) {
    error = section.path + ": no line " + section.end_marker + " after " + section.begin_marker;
    return false;
  }
  return true;
}

}  // namespace

bool extract_section(const std::string& file_text, const GeneratedSection& section, std::string& body,
                     std::string& error) {
  std::size_t start = 0, end = 0;
  if (!locate(file_text, section, start, end, error)) return false;
  body = file_text.substr(start, end - start);
  return true;
}

std::string replace_section(const std::string& file_text, const GeneratedSection& section, const std::string& body) {
  std::size_t start = 0, end = 0;
  std::string error;
  if (!locate(file_text, section, start, end, error)) throw std::runtime_error(error);
  return file_text.substr(0, start) + body + file_text.substr(end);
}

}  // namespace npuvp::soc_contract
