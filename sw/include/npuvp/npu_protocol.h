/*
 * npuvp host <-> task-scheduler (TS) protocol, version 1.0.
 *
 * The one definition shared by the host driver (sw/driver/), the TS firmware
 * (firmware/ts/) and host-side tests; docs/npu-protocol.md explains it in prose.
 * Plain C11 / C++17, <stdint.h> only, no platform headers: every structure has a
 * fixed layout (checked below) and all multi-byte fields are little-endian.
 *
 * Overview
 *   - The host owns a queue in DDR: a header (struct npu_queue_header), a command
 *     ring of cmd_entries 64-byte commands and a completion ring of cpl_entries
 *     64-byte completion records. Addresses are host physical addresses, which the
 *     TS and the AI Cores use unchanged (one address space, no caches to manage).
 *   - Each ring has a producer index (tail) and a consumer index (head): 32-bit
 *     free-running counters, only ever incremented (modulo 2^32) and each written by
 *     one side only. Entry `i` of a ring lives in slot `i & (entries - 1)`; the ring
 *     holds `tail - head` entries (modulo 2^32): empty when equal, full when the
 *     difference equals `entries`. So every slot is usable, and the counters may
 *     start at any value (they wrap around at 2^32 like any other increment).
 *   - Host -> TS: write commands, advance cmd_tail, then write the mailbox DOORBELL.
 *     TS -> host: write completion records, advance cpl_tail, then write HOST_IRQ.
 *   - Every command produces exactly one completion record, carrying the command's
 *     sequence number. Completions of commands of different streams may appear in
 *     any order; those of one stream appear in command order, except that a bad
 *     command (NPU_STATUS_BAD_COMMAND) completes at once, possibly ahead of earlier
 *     commands of its stream.
 *   - Handshake (attach) through the mailbox SCRATCH registers, see below.
 */
#ifndef NPUVP_NPU_PROTOCOL_H
#define NPUVP_NPU_PROTOCOL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#define NPU_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define NPU_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

/* ---------------------------------------------------------------------------
 * Version. The TS accepts a queue whose header names the same major version and a
 * minor version not above its own (minor versions only add to the protocol).
 */
#define NPU_PROTOCOL_VERSION_MAJOR 1u
#define NPU_PROTOCOL_VERSION_MINOR 0u
#define NPU_PROTOCOL_VERSION ((NPU_PROTOCOL_VERSION_MAJOR << 16) | NPU_PROTOCOL_VERSION_MINOR)
#define NPU_VERSION_MAJOR(v) ((uint32_t)(v) >> 16)
#define NPU_VERSION_MINOR(v) ((uint32_t)(v) & 0xffffu)

/* ---------------------------------------------------------------------------
 * Hardware the protocol runs over (docs/memory-map.md).
 */
#define NPU_MAILBOX_BASE 0x20000000ull /* 4 KiB; 64-bit registers, 8-byte accesses only */
#define NPU_MB_DOORBELL 0x00u      /* host W: any value -> TS interrupt; R: writes not yet acknowledged */
#define NPU_MB_DOORBELL_ACK 0x08u  /* TS W: clears the doorbell count (interrupt level low) */
#define NPU_MB_HOST_IRQ 0x10u      /* TS W 1: raise the host interrupt */
#define NPU_MB_HOST_IRQ_ACK 0x18u  /* host W: clears it */
#define NPU_MB_SCRATCH(i) (0x40u + 8u * (unsigned)(i)) /* i = 0..7, read/write, meaning below */
#define NPU_MB_SCRATCH_COUNT 8u

#define NPU_PLIC_SOURCE_DOORBELL 20u /* -> PLIC context 1 (TS machine external interrupt) */
#define NPU_PLIC_SOURCE_HOST_IRQ 21u /* -> PLIC context 0 (host machine external interrupt) */
#define NPU_PLIC_CONTEXT_HOST 0u
#define NPU_PLIC_CONTEXT_TS 1u

/* AI Core control windows (models/npu/ai_core.h, docs/ai-core.md). */
#define NPU_AICORE_CONTROL_BASE 0x20100000ull
#define NPU_AICORE_CONTROL_STRIDE 0x1000ull
#define NPU_AICORE_CONTROL(i) (NPU_AICORE_CONTROL_BASE + NPU_AICORE_CONTROL_STRIDE * (uint64_t)(i))
#define NPU_AICORE_ENTRY 0x00u
#define NPU_AICORE_ARGS 0x08u
#define NPU_AICORE_BLOCK_IDX 0x10u
#define NPU_AICORE_BLOCK_DIM 0x18u
#define NPU_AICORE_START 0x20u
/* START value bits: bit 0 starts the block; bit 1 keeps the core's instruction cache (and
 * its decoded instructions) from the previous block instead of starting cold: only when
 * the code that block ran has not been written since (docs/ai-core.md). */
#define NPU_AICORE_START_GO 0x1u
#define NPU_AICORE_START_KEEP_ICACHE 0x2u
#define NPU_AICORE_STATUS 0x28u
#define NPU_AICORE_FAULT_PC 0x30u
#define NPU_AICORE_CYCLES 0x38u
#define NPU_AICORE_IRQ_CLEAR 0x40u
#define NPU_AICORE_CORE_ID 0x48u
#define NPU_AICORE_STATUS_RUNNING 0x1u
#define NPU_AICORE_STATUS_DONE 0x2u
#define NPU_AICORE_STATUS_FAULT 0x4u
#define NPU_AICORE_STATUS_CAUSE(s) (((uint64_t)(s) >> 8) & 0xffu)
#define NPU_AICORE_IRQ_CLEAR_DONE 0x1u
#define NPU_AICORE_IRQ_CLEAR_ERROR 0x2u
#define NPU_PLIC_SOURCE_AICORE_DONE(i) (32u + 2u * (unsigned)(i))
#define NPU_PLIC_SOURCE_AICORE_ERROR(i) (33u + 2u * (unsigned)(i))
#define NPU_PLIC_SOURCES 96u /* source IDs 0..95 (0 reserved), as QEMU virt */

/* AI Core kernel fault causes (STATUS bits 15:8; the `detail` of a KERNEL_FAULT). */
#define NPU_FAULT_BUFFER_RANGE 1u
#define NPU_FAULT_MISALIGNED 2u
#define NPU_FAULT_INVALID_PARAMETER 3u
#define NPU_FAULT_BUS_ERROR 4u
#define NPU_FAULT_DEADLOCK 5u
#define NPU_FAULT_SCALAR_TRAP 6u
#define NPU_FAULT_FLAG_OVERFLOW 7u

/* ---------------------------------------------------------------------------
 * Limits.
 */
#define NPU_MAX_CORES 32u            /* AI Cores a TS can drive (PLIC sources 32..95) */
#define NPU_MAX_STREAMS 16u          /* stream ids 0..15 */
#define NPU_MAX_EVENTS 64u           /* event ids 0..63 */
#define NPU_MAX_BLOCK_DIM 65535u     /* task blocks per launch */
#define NPU_MAX_QUEUE_ENTRIES 4096u  /* per ring; entries are a power of two, >= 2 */

/* ---------------------------------------------------------------------------
 * Handshake registers (mailbox SCRATCH[i]). All start at 0 (reset).
 *
 *   SCRATCH[NPU_SCRATCH_TS_STATE]    TS writes: NPU_TS_STATE_*(bits 7:0) | detail << 32
 *   SCRATCH[NPU_SCRATCH_TS_VERSION]  TS writes at boot: the NPU_PROTOCOL_VERSION it speaks
 *   SCRATCH[NPU_SCRATCH_QUEUE]       host writes: address of its struct npu_queue_header
 *   SCRATCH[3..7]                    reserved (0)
 *
 * Attach: the TS boots, writes TS_VERSION and TS_STATE = BOOTED and sleeps. The host
 * fills the queue header (indices equal), writes SCRATCH[QUEUE] and rings the doorbell
 * (it need not wait for BOOTED: the doorbell stays pending until the TS enables it).
 * On a doorbell while not attached, the TS reads SCRATCH[QUEUE]; if non-zero it checks
 * the address's alignment, reads the header with access faults caught, applies
 * npu_queue_header_check, then probes the hardware (NPU_ATTACH_BAD_ADDRESS: the index
 * lines and the completion ring must be readable and writable, the command ring
 * readable; NPU_ATTACH_BAD_NUM_CORES: every core below num_cores answers with its
 * CORE_ID). It writes TS_STATE = READY, or ATTACH_FAILED with the NPU_ATTACH_* reason
 * as detail, then raises HOST_IRQ. After READY the TS serves
 * that queue until it is reset; SCRATCH[QUEUE] is not read again.
 */
#define NPU_SCRATCH_TS_STATE 0u
#define NPU_SCRATCH_TS_VERSION 1u
#define NPU_SCRATCH_QUEUE 2u

#define NPU_TS_STATE_RESET 0u          /* TS has not started (or is not there) */
#define NPU_TS_STATE_BOOTED 1u         /* TS runs, no queue attached */
#define NPU_TS_STATE_READY 2u          /* queue attached and served */
#define NPU_TS_STATE_ATTACH_FAILED 3u  /* header rejected; detail = NPU_ATTACH_* */
#define NPU_TS_STATE(v) ((uint32_t)((uint64_t)(v) & 0xffu))
#define NPU_TS_STATE_DETAIL(v) ((uint32_t)((uint64_t)(v) >> 32))
#define NPU_TS_STATE_MAKE(state, detail) ((uint64_t)(state) | ((uint64_t)(detail) << 32))

/* Attach failure reasons (detail of NPU_TS_STATE_ATTACH_FAILED). */
#define NPU_ATTACH_OK 0u
#define NPU_ATTACH_BAD_MAGIC 1u        /* header magic is not NPU_QUEUE_MAGIC */
#define NPU_ATTACH_BAD_VERSION 2u      /* other major version, or a newer minor one */
#define NPU_ATTACH_BAD_CMD_ENTRIES 3u  /* not a power of two in [2, NPU_MAX_QUEUE_ENTRIES] */
#define NPU_ATTACH_BAD_CPL_ENTRIES 4u  /* same for the completion ring */
#define NPU_ATTACH_BAD_NUM_CORES 5u    /* 0 or above NPU_MAX_CORES (TS: or a core that does not answer) */
#define NPU_ATTACH_BAD_ALIGNMENT 6u    /* header or a ring not 64-byte aligned, or 0 */
#define NPU_ATTACH_BAD_INDICES 7u      /* a ring holds more than `entries` or completions pending */
#define NPU_ATTACH_BAD_ADDRESS 8u      /* the header or a ring is not memory the TS can use (read; and
                                          write, for the index lines and the completion ring), found
                                          by the TS probing it, not by npu_queue_header_check */

/* ---------------------------------------------------------------------------
 * Queue header, 320 bytes, 64-byte aligned, in DDR. Line 0 is written by the host
 * before attaching and read-only afterwards; each index has a 64-byte line of its own
 * and one writer.
 */
#define NPU_QUEUE_MAGIC 0x5155504eu /* "NPUQ" */

struct npu_queue_header {
    /* line 0: configuration (host writes before attach) */
    uint32_t magic;        /* NPU_QUEUE_MAGIC */
    uint32_t version;      /* NPU_PROTOCOL_VERSION of the host */
    uint32_t cmd_entries;  /* command ring size: power of two, 2..NPU_MAX_QUEUE_ENTRIES */
    uint32_t cpl_entries;  /* completion ring size: same rule */
    uint64_t cmd_ring;     /* address of cmd_entries struct npu_command, 64-byte aligned */
    uint64_t cpl_ring;     /* address of cpl_entries struct npu_completion, 64-byte aligned */
    uint32_t num_cores;    /* AI Cores the TS uses: 0..num_cores-1, 1..NPU_MAX_CORES */
    uint32_t flags;        /* reserved, 0 */
    uint64_t reserved0[3]; /* 0 */
    /* line 1: host -> TS */
    uint32_t cmd_tail;     /* commands written (free-running); host writes */
    uint32_t pad1[15];
    /* line 2: TS -> host */
    uint32_t cmd_head;     /* commands taken by the TS (their slots may be reused); TS writes */
    uint32_t pad2[15];
    /* line 3: TS -> host */
    uint32_t cpl_tail;     /* completion records written (free-running); TS writes */
    uint32_t ts_flags;     /* NPU_TS_FLAG_*; TS writes */
    uint32_t pad3[14];
    /* line 4: host -> TS */
    uint32_t cpl_head;     /* completion records consumed; host writes */
    uint32_t pad4[15];
};

/* ts_flags bit: the TS stopped taking commands because the completion ring has no room
 * for the completions of the commands it holds plus one. The host must ring the doorbell
 * after advancing cpl_head while this bit is set (the TS re-checks cpl_head on a doorbell;
 * it sets the bit before its last check, so a host that drains after that sees it). */
#define NPU_TS_FLAG_CPL_STALLED 0x1u

/* ---------------------------------------------------------------------------
 * Commands: 64 bytes each.
 *
 * Ordering rules (what the TS guarantees, docs/npu-protocol.md "Dispatch"):
 *   - Commands are taken from the ring in order. A command starts only after every
 *     earlier command of the same stream has completed (a stream is an in-order queue),
 *     and after every earlier BARRIER has completed.
 *   - Commands of different streams may run concurrently (their LAUNCHes share the AI
 *     Cores: the oldest runnable launch gets the next idle core).
 *   - LAUNCH: its block_dim task blocks (indices 0..block_dim-1, in increasing order)
 *     are started one per idle AI Core, the next block on whichever core finishes one.
 *     Completes when all blocks have ended; if a block faults, no further block of the
 *     launch is started, the blocks still running are waited for, and the launch
 *     completes with NPU_STATUS_KERNEL_FAULT and the first fault's details. Later
 *     commands (same stream included) still run: an error is reported, never sticky
 *     on the TS side.
 *   - RECORD_EVENT e: completes (when it may start) and increments event e's counter.
 *   - WAIT_EVENT e, count: completes once event e's counter is >= count, i.e. once
 *     `count` RECORD_EVENTs of e have executed. Later commands of its stream wait.
 *   - BARRIER: completes once every earlier command (all streams) has completed; every
 *     later command waits for it.
 *   - NOP: completes when it may start (a stream marker for tests and flushes).
 * A command that breaks a rule below completes at once with NPU_STATUS_BAD_COMMAND and
 * an NPU_BAD_* detail; it does not take part in ordering.
 */
enum npu_opcode {
    NPU_CMD_INVALID = 0,       /* zeroed slot: always a bad command */
    NPU_CMD_LAUNCH = 1,
    NPU_CMD_RECORD_EVENT = 2,
    NPU_CMD_WAIT_EVENT = 3,
    NPU_CMD_BARRIER = 4,
    NPU_CMD_NOP = 5,
};

struct npu_launch_body {
    uint64_t entry;        /* kernel entry pc (ENTRY register); non-zero, 2-byte aligned */
    uint64_t args;         /* argument block address, passed in a0 (ARGS); must stay valid
                              until the launch's completion record is written */
    uint32_t block_dim;    /* task blocks, 1..NPU_MAX_BLOCK_DIM (a2 / BLOCK_DIM) */
    uint32_t reserved;     /* 0 */
    uint64_t reserved2[3]; /* 0 */
};

struct npu_event_body {
    uint32_t event;        /* event id, 0..NPU_MAX_EVENTS-1 */
    uint32_t reserved;     /* 0 */
    uint64_t count;        /* WAIT_EVENT: counter value to wait for; at most the number of
                              RECORD_EVENTs of this event earlier in the ring. RECORD: 0 */
    uint64_t reserved2[4]; /* 0 */
};

/* LAUNCH flags (struct npu_command.flags; other opcodes take none).
 * NPU_LAUNCH_CODE_UNCHANGED: no kernel code was written since the previous LAUNCH was
 * submitted. The TS starts a block with NPU_AICORE_START_KEEP_ICACHE on a core that has
 * started a block since it took the last LAUNCH without the flag, so kernels do not
 * refetch their code at every block (instruction caches are kept coherent by software, as
 * on real NPUs: the driver leaves the flag off after any kernel load). */
#define NPU_LAUNCH_CODE_UNCHANGED 0x1u
#define NPU_LAUNCH_FLAGS_KNOWN NPU_LAUNCH_CODE_UNCHANGED

struct npu_command {
    uint16_t opcode;       /* enum npu_opcode */
    uint16_t stream;       /* stream id, 0..NPU_MAX_STREAMS-1 (ignored by BARRIER) */
    uint32_t flags;        /* LAUNCH: NPU_LAUNCH_* bits; other opcodes: 0 */
    uint64_t seq;          /* host-chosen sequence number, echoed in the completion */
    union {
        struct npu_launch_body launch;  /* NPU_CMD_LAUNCH */
        struct npu_event_body event;    /* NPU_CMD_RECORD_EVENT, NPU_CMD_WAIT_EVENT */
        uint64_t words[6];              /* raw view; BARRIER and NOP ignore the body */
    } u;
};

/* Bad-command reasons (detail of NPU_STATUS_BAD_COMMAND). */
#define NPU_BAD_OPCODE 1u      /* unknown opcode (0 included) */
#define NPU_BAD_FLAGS 2u       /* a flag the opcode does not know (LAUNCH: NPU_LAUNCH_FLAGS_KNOWN; others: none) */
#define NPU_BAD_STREAM 3u      /* stream >= NPU_MAX_STREAMS */
#define NPU_BAD_ENTRY 4u       /* LAUNCH entry 0 or odd */
#define NPU_BAD_BLOCK_DIM 5u   /* LAUNCH block_dim 0 or > NPU_MAX_BLOCK_DIM */
#define NPU_BAD_EVENT 6u       /* event id >= NPU_MAX_EVENTS */
#define NPU_BAD_WAIT_COUNT 7u  /* WAIT_EVENT count above the RECORDs of the event so far:
                                  it could never complete */

/* ---------------------------------------------------------------------------
 * Completion records: 64 bytes each, one per command.
 */
enum npu_status {
    NPU_STATUS_OK = 0,
    NPU_STATUS_KERNEL_FAULT = 1, /* a task block faulted: fault_* fields, detail = cause */
    NPU_STATUS_BAD_COMMAND = 2,  /* detail = NPU_BAD_* */
};

#define NPU_NO_CORE 0xffffffffu  /* fault_core / fault_block when there is no fault */

struct npu_completion {
    uint64_t seq;            /* the command's seq */
    uint16_t opcode;         /* the command's opcode */
    uint16_t stream;         /* the command's stream */
    uint32_t status;         /* enum npu_status */
    uint32_t detail;         /* KERNEL_FAULT: NPU_FAULT_* cause; BAD_COMMAND: NPU_BAD_*; else 0 */
    uint32_t fault_core;     /* KERNEL_FAULT: AI Core of the first faulting block, else NPU_NO_CORE */
    uint64_t fault_pc;       /* KERNEL_FAULT: that block's FAULT_PC, else 0 */
    uint32_t fault_block;    /* KERNEL_FAULT: that block's index, else NPU_NO_CORE */
    uint32_t blocks_done;    /* LAUNCH: blocks that ended with end_kernel */
    uint64_t kernel_cycles;  /* LAUNCH: sum of the CYCLES of every block that ran (faulted
                                ones up to the fault), AI Core cycles */
    uint64_t start_cycle;    /* TS cycle counter when the command started (LAUNCH: just
                                before it programs its first block: ENTRY ... START) */
    uint64_t end_cycle;      /* TS cycle counter when the command completed */
};

/* ---------------------------------------------------------------------------
 * Layout checks.
 */
NPU_STATIC_ASSERT(sizeof(struct npu_command) == 64, "npu_command is 64 bytes");
NPU_STATIC_ASSERT(sizeof(struct npu_completion) == 64, "npu_completion is 64 bytes");
NPU_STATIC_ASSERT(sizeof(struct npu_queue_header) == 320, "npu_queue_header is 320 bytes");
NPU_STATIC_ASSERT(__builtin_offsetof(struct npu_queue_header, cmd_tail) == 64, "cmd_tail line 1");
NPU_STATIC_ASSERT(__builtin_offsetof(struct npu_queue_header, cmd_head) == 128, "cmd_head line 2");
NPU_STATIC_ASSERT(__builtin_offsetof(struct npu_queue_header, cpl_tail) == 192, "cpl_tail line 3");
NPU_STATIC_ASSERT(__builtin_offsetof(struct npu_queue_header, cpl_head) == 256, "cpl_head line 4");
NPU_STATIC_ASSERT(__builtin_offsetof(struct npu_command, u) == 16, "command body at 16");
NPU_STATIC_ASSERT(__builtin_offsetof(struct npu_completion, fault_pc) == 24, "fault_pc at 24");
NPU_STATIC_ASSERT(__builtin_offsetof(struct npu_completion, end_cycle) == 56, "end_cycle at 56");
NPU_STATIC_ASSERT(NPU_PLIC_SOURCE_AICORE_ERROR(NPU_MAX_CORES - 1u) < NPU_PLIC_SOURCES,
                  "every AI Core's interrupts are PLIC sources");

/* ---------------------------------------------------------------------------
 * Ring arithmetic (free-running 32-bit counters, power-of-two sizes).
 */
static inline uint32_t npu_ring_used(uint32_t tail, uint32_t head) { return tail - head; }
static inline int npu_ring_empty(uint32_t tail, uint32_t head) { return tail == head; }
static inline int npu_ring_full(uint32_t tail, uint32_t head, uint32_t entries)
{
    return tail - head >= entries;
}
static inline uint32_t npu_ring_space(uint32_t tail, uint32_t head, uint32_t entries)
{
    return tail - head >= entries ? 0u : entries - (tail - head);
}
static inline uint32_t npu_ring_slot(uint32_t index, uint32_t entries) { return index & (entries - 1u); }
static inline int npu_ring_size_ok(uint32_t entries)
{
    return entries >= 2u && entries <= NPU_MAX_QUEUE_ENTRIES && (entries & (entries - 1u)) == 0;
}

/* The attach check the TS applies to a header; NPU_ATTACH_OK or an NPU_ATTACH_* reason.
 * `header_address` is where the header lives. */
static inline uint32_t npu_queue_header_check(const struct npu_queue_header* h, uint64_t header_address)
{
    if (h->magic != NPU_QUEUE_MAGIC) return NPU_ATTACH_BAD_MAGIC;
    if (NPU_VERSION_MAJOR(h->version) != NPU_PROTOCOL_VERSION_MAJOR ||
        NPU_VERSION_MINOR(h->version) > NPU_PROTOCOL_VERSION_MINOR)
        return NPU_ATTACH_BAD_VERSION;
    if (!npu_ring_size_ok(h->cmd_entries)) return NPU_ATTACH_BAD_CMD_ENTRIES;
    if (!npu_ring_size_ok(h->cpl_entries)) return NPU_ATTACH_BAD_CPL_ENTRIES;
    if (h->num_cores == 0 || h->num_cores > NPU_MAX_CORES) return NPU_ATTACH_BAD_NUM_CORES;
    if (header_address == 0 || (header_address & 63u) || h->cmd_ring == 0 || (h->cmd_ring & 63u) ||
        h->cpl_ring == 0 || (h->cpl_ring & 63u))
        return NPU_ATTACH_BAD_ALIGNMENT;
    if (npu_ring_used(h->cmd_tail, h->cmd_head) > h->cmd_entries || h->cpl_tail != h->cpl_head)
        return NPU_ATTACH_BAD_INDICES;
    return NPU_ATTACH_OK;
}

/* The checks of a command that need no TS state: 0 if it is well formed, else the
 * NPU_BAD_* reason. (The TS adds NPU_BAD_WAIT_COUNT, which depends on earlier commands.) */
static inline uint32_t npu_command_check(const struct npu_command* c)
{
    if (c->flags & ~(c->opcode == NPU_CMD_LAUNCH ? NPU_LAUNCH_FLAGS_KNOWN : 0u)) return NPU_BAD_FLAGS;
    switch (c->opcode) {
        case NPU_CMD_LAUNCH:
            if (c->stream >= NPU_MAX_STREAMS) return NPU_BAD_STREAM;
            if (c->u.launch.entry == 0 || (c->u.launch.entry & 1u)) return NPU_BAD_ENTRY;
            if (c->u.launch.block_dim == 0 || c->u.launch.block_dim > NPU_MAX_BLOCK_DIM)
                return NPU_BAD_BLOCK_DIM;
            return 0;
        case NPU_CMD_RECORD_EVENT:
        case NPU_CMD_WAIT_EVENT:
            if (c->stream >= NPU_MAX_STREAMS) return NPU_BAD_STREAM;
            if (c->u.event.event >= NPU_MAX_EVENTS) return NPU_BAD_EVENT;
            return 0;
        case NPU_CMD_NOP:
            if (c->stream >= NPU_MAX_STREAMS) return NPU_BAD_STREAM;
            return 0;
        case NPU_CMD_BARRIER:
            return 0;
        default:
            return NPU_BAD_OPCODE;
    }
}

/* Names for messages. */
static inline const char* npu_status_name(uint32_t status)
{
    switch (status) {
        case NPU_STATUS_OK: return "ok";
        case NPU_STATUS_KERNEL_FAULT: return "kernel fault";
        case NPU_STATUS_BAD_COMMAND: return "bad command";
        default: return "unknown status";
    }
}
static inline const char* npu_fault_name(uint32_t cause)
{
    switch (cause) {
        case NPU_FAULT_BUFFER_RANGE: return "buffer range";
        case NPU_FAULT_MISALIGNED: return "misaligned operand";
        case NPU_FAULT_INVALID_PARAMETER: return "invalid parameter";
        case NPU_FAULT_BUS_ERROR: return "bus error";
        case NPU_FAULT_DEADLOCK: return "event-flag deadlock";
        case NPU_FAULT_SCALAR_TRAP: return "scalar trap";
        case NPU_FAULT_FLAG_OVERFLOW: return "event-flag overflow";
        default: return "unknown cause";
    }
}
static inline const char* npu_bad_command_name(uint32_t reason)
{
    switch (reason) {
        case NPU_BAD_OPCODE: return "unknown opcode";
        case NPU_BAD_FLAGS: return "unknown flags";
        case NPU_BAD_STREAM: return "stream out of range";
        case NPU_BAD_ENTRY: return "bad entry pc";
        case NPU_BAD_BLOCK_DIM: return "bad block count";
        case NPU_BAD_EVENT: return "event out of range";
        case NPU_BAD_WAIT_COUNT: return "wait for an event never recorded";
        default: return "unknown reason";
    }
}

#ifdef __cplusplus
}
#endif

#endif /* NPUVP_NPU_PROTOCOL_H */
