/*
 * npuvp NPU driver: the host program's interface to the AI Cores, through the task
 * scheduler (TS) and the command queue of <npuvp/npu_protocol.h>.
 * Reference: docs/driver-api.md.
 *
 * Bare-metal, machine mode, one hart, no threads. The driver owns PLIC context 0's
 * machine external interrupt (it registers the IRQ_M_EXT handler of <npuvp/trap.h>)
 * and, only while a wait with a timeout runs, the machine timer interrupt.
 *
 * Device addresses are host physical addresses: the host CPU, the TS and the AI Cores
 * share one address space without caches, so npuvp_host_ptr() is the identity and
 * data is exchanged with plain loads and stores (no copies, no flushes).
 *
 * Every function returns NPUVP_OK (0) or a negative enum npuvp_status
 * (npuvp_status.h); npuvp_status_name() names it.
 */
#ifndef NPUVP_DRIVER_H
#define NPUVP_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include <npuvp/npu_protocol.h>

#include "device_memory.h"
#include "npuvp_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- initialisation ------------------------------------------------------------------ */

/* Defaults of struct npuvp_config (docs/memory-map.md). */
#define NPUVP_DEFAULT_DDR_BASE NPU_DEVICE_POOL_BASE /* device DDR pool: 0x9000_0000 .. */
#define NPUVP_DEFAULT_DDR_SIZE (NPU_DEVICE_POOL_END - NPU_DEVICE_POOL_BASE) /* .. 0xC000_0000 */
#define NPUVP_DEFAULT_L2_BASE NPU_L2_BUFFER_BASE /* the whole L2 buffer (npu_protocol.h) */
#define NPUVP_DEFAULT_L2_SIZE NPU_L2_BUFFER_SIZE
#define NPUVP_DEFAULT_QUEUE_ENTRIES 64u
#define NPUVP_MAX_QUEUE_ENTRIES 256u          /* driver limit (below the protocol's) */
#define NPUVP_DEFAULT_INIT_TIMEOUT_US 100000u /* 100 ms of simulated time */
#define NPUVP_MEMORY_GRANULE 32u              /* allocation unit (MTE burst) */

/* Kernel images must load inside the kernel slots (0x8800_0000 + n MiB, n < 112). */
#define NPUVP_KERNEL_AREA_BASE NPU_KERNEL_AREA_BASE
#define NPUVP_KERNEL_AREA_END NPU_KERNEL_AREA_END

struct npuvp_config {
    uint64_t ddr_base, ddr_size;  /* device-memory pool in DDR; shrunk by halving if its end is
                                     not backed by memory (a smaller soc.ddr.size) */
    uint64_t l2_base, l2_size;    /* device-memory pool in the L2 buffer (size 0: none) */
    uint32_t queue_entries;       /* commands in flight: power of two, 2..NPUVP_MAX_QUEUE_ENTRIES;
                                     both rings get this size */
    uint32_t num_cores;           /* AI Cores to use; 0 = all found by probing */
    uint32_t initial_index;       /* start value of the ring counters (tests: near 2^32 to
                                     exercise their wrap-around) */
    uint32_t init_timeout_us;     /* how long npuvp_init waits for the TS (simulated time) */
    uint32_t wait_timeout_us;     /* bound on every other wait; 0 = none */
};

/* Fills *config with the defaults above (num_cores 0, initial_index 0, no wait timeout). */
void npuvp_default_config(struct npuvp_config *config);

/* Finds the mailbox and the AI Cores (CORE_ID of each control window, probing under a
 * load-access-fault handler), sets up the device-memory pools, allocates the queue (header,
 * rings, argument slots) in the DDR pool, enables the host interrupt and attaches the
 * queue to the TS (docs/npu-protocol.md, "Handshake"). config NULL: defaults.
 * NPUVP_ERR_NO_DEVICE: no mailbox, no AI Core, or the TS did not answer within
 * init_timeout_us (npuvp_device_info().ts_state tells whether it ever booted);
 * NPUVP_ERR_PROTOCOL: the TS rejected the queue (ts_detail = NPU_ATTACH_*).
 * A second call after success does nothing. The TS serves one queue per run, so once
 * the queue was offered to the TS (after a shutdown, or after an attach that failed or
 * timed out) npuvp_init returns NPUVP_ERR_INVALID. */
int npuvp_init(const struct npuvp_config *config);

/* Waits for every submitted command (npuvp_synchronize) and disables the host
 * interrupt. The TS keeps the queue attached: the driver cannot be initialised again
 * in the same run. */
int npuvp_shutdown(void);

struct npuvp_device_info {
    uint32_t num_cores;         /* AI Cores in use */
    uint32_t cores_found;       /* AI Cores that answered the probe */
    uint32_t ts_version;        /* protocol version the TS announced */
    uint32_t ts_state;          /* NPU_TS_STATE_* as last read */
    uint32_t ts_detail;         /* NPU_ATTACH_* when the attach failed */
    uint32_t queue_entries;
    uint64_t queue_address;     /* the struct npu_queue_header */
    uint64_t commands;          /* submitted so far */
    uint64_t completions;       /* completion records consumed */
    uint64_t interrupts;        /* host interrupts taken */
    uint64_t stray_completions; /* records with a sequence number we did not expect */
};
void npuvp_device_info(struct npuvp_device_info *info);

/* ---- device memory -------------------------------------------------------------------- */

enum npuvp_mem_kind {
    NPUVP_MEM_DDR = 0,  /* DDR pool (config.ddr_*) */
    NPUVP_MEM_L2 = 1,   /* L2 buffer pool (config.l2_*): on-chip, faster for the AI Cores */
};

/* Allocates `size` bytes aligned to `align` (a power of two, 0 = NPUVP_MEMORY_GRANULE)
 * in pool `kind`; *address is the device (= host) address. NPUVP_ERR_OUT_OF_MEMORY when
 * no free block is large enough (npuvp_mem_stats().largest_free says what would fit),
 * NPUVP_ERR_TOO_FRAGMENTED when the bookkeeping is full, NPUVP_ERR_INVALID for size 0 or a
 * bad alignment. Contents are not cleared. */
int npuvp_malloc(enum npuvp_mem_kind kind, uint64_t size, uint64_t align, uint64_t *address);

/* Frees an allocation (either pool); neighbouring free blocks merge.
 * NPUVP_ERR_NOT_ALLOCATED if `address` is not the start of a live allocation. */
int npuvp_free(uint64_t address);

int npuvp_mem_stats(enum npuvp_mem_kind kind, struct npuvp_dm_stats *stats);

static inline void *npuvp_host_ptr(uint64_t device_address) { return (void *)(uintptr_t)device_address; }
static inline uint64_t npuvp_device_address(const void *host_pointer) { return (uint64_t)(uintptr_t)host_pointer; }

/* ---- kernels ------------------------------------------------------------------------- */

struct npuvp_kernel {
    uint64_t entry;               /* first instruction of a task block */
    uint64_t load_start, load_end;/* range the image occupies (0, 0 when preloaded) */
    const uint8_t *elf;           /* the ELF (for symbols), NULL when preloaded */
    size_t elf_size;
};

/* Loads an AI Core kernel ELF (RISC-V, 64-bit, little-endian, executable): copies every
 * PT_LOAD segment to its physical address and zero-fills its memsz tail. Segments must
 * lie inside [NPUVP_KERNEL_AREA_BASE, NPUVP_KERNEL_AREA_END). NPUVP_ERR_BAD_IMAGE
 * otherwise (nothing is copied then). The ELF must stay readable while the kernel is
 * used for symbols (an embedded one always is). */
int npuvp_kernel_load(struct npuvp_kernel *kernel, const void *elf, size_t size);

/* A kernel the scenario loaded already (an `images` entry): only its entry point. */
int npuvp_kernel_preloaded(struct npuvp_kernel *kernel, uint64_t entry);

/* Address of a symbol of the kernel's ELF. NPUVP_ERR_INVALID if not found / no ELF. */
int npuvp_kernel_symbol(const struct npuvp_kernel *kernel, const char *name, uint64_t *address);

/* Name of the symbol at or below `pc` (the nearest one) and the offset from it; NULL
 * when unknown. */
const char *npuvp_kernel_symbolize(const struct npuvp_kernel *kernel, uint64_t pc, uint64_t *offset);

/* Kernel ELFs embedded in the host program (sw/driver/npuvp_embed_kernel.cmake puts
 * sw/kernels/<name>.elf into the program with .incbin under these symbols):
 *   NPUVP_DECLARE_KERNEL_IMAGE(gemm);
 *   npuvp_kernel_load(&k, NPUVP_KERNEL_IMAGE(gemm));                                    */
#define NPUVP_DECLARE_KERNEL_IMAGE(name) \
    extern const uint8_t npuvp_kernel_##name##_elf[], npuvp_kernel_##name##_elf_end[]
#define NPUVP_KERNEL_IMAGE(name) \
    npuvp_kernel_##name##_elf, (size_t)(npuvp_kernel_##name##_elf_end - npuvp_kernel_##name##_elf)

/* ---- results --------------------------------------------------------------------------- */

typedef uint64_t npuvp_ticket_t; /* a submitted command: its sequence number (>= 1) */

struct npuvp_result {
    int status;              /* NPUVP_OK, NPUVP_ERR_KERNEL_FAULT or NPUVP_ERR_BAD_COMMAND */
    npuvp_ticket_t ticket;
    uint32_t opcode, stream;
    uint32_t core;           /* KERNEL_FAULT: AI Core of the (first) faulting block; else NPU_NO_CORE */
    uint32_t block;          /* KERNEL_FAULT: its block index; else NPU_NO_CORE */
    uint64_t pc;             /* KERNEL_FAULT: the faulting instruction's address */
    uint32_t cause;          /* KERNEL_FAULT: NPU_FAULT_*; BAD_COMMAND: NPU_BAD_* */
    uint32_t blocks_done;    /* LAUNCH: blocks that ended normally */
    uint64_t kernel_cycles;  /* LAUNCH: AI Core cycles summed over its blocks */
    uint64_t ts_start_cycle; /* TS cycle counter: command start (first block's START) */
    uint64_t ts_end_cycle;   /* TS cycle counter: completion */
    uint64_t core_start_cycle; /* LAUNCH: the AI Cores' stamp of its first block's start (TS cycles) */
    uint64_t core_end_cycle;   /* LAUNCH: their stamp of its last block's end (TS cycles); the
                                  window [core_start, core_end] lies inside [ts_start, ts_end] */
    uint64_t host_submit_cycle; /* host cycle counter just before the doorbell write */
};

/* One line describing a result ("ok", "kernel fault (bus error) on AI Core 1, block 2,
 * pc 0x8ca00044"); a static buffer, overwritten by the next call. */
const char *npuvp_result_string(const struct npuvp_result *result);

/* ---- streams and events --------------------------------------------------------------- */

typedef uint32_t npuvp_stream_t; /* TS stream id */
typedef uint32_t npuvp_event_t;  /* TS event id */
#define NPUVP_STREAM_DEFAULT 0u  /* always exists */

/* Streams are in-order queues; different streams run concurrently on the AI Cores.
 * Up to NPU_MAX_STREAMS - 1 streams besides the default one. */
int npuvp_stream_create(npuvp_stream_t *stream);
/* Synchronises the stream, then releases its id. */
int npuvp_stream_destroy(npuvp_stream_t stream);
/* Waits until every command submitted on the stream has completed. Returns the first
 * error among those completed since the previous npuvp_stream_synchronize of the stream
 * (including ones already returned by npuvp_launch/npuvp_wait), details in *first_error
 * (may be NULL), and clears it. */
int npuvp_stream_synchronize(npuvp_stream_t stream, struct npuvp_result *first_error);

int npuvp_event_create(npuvp_event_t *event);
int npuvp_event_destroy(npuvp_event_t event);
/* Enqueues RECORD_EVENT on the stream: the event "happens" once every earlier command
 * of the stream has completed. */
int npuvp_event_record(npuvp_event_t event, npuvp_stream_t stream);
/* Enqueues WAIT_EVENT: later commands of `stream` wait until the event's most recent
 * record (at the time of this call) has happened. Without a record: no wait. */
int npuvp_stream_wait_event(npuvp_stream_t stream, npuvp_event_t event);
/* Waits until the event's most recent record has happened (NPUVP_OK at once if never
 * recorded). */
int npuvp_event_synchronize(npuvp_event_t event);
/* NPUVP_OK if it has happened, NPUVP_ERR_NOT_READY if not. */
int npuvp_event_query(npuvp_event_t event);

/* ---- launching -------------------------------------------------------------------------- */

#define NPUVP_MAX_ARGS 32u /* 64-bit argument words per launch */

/* Enqueues a launch of `blocks` task blocks (1..NPU_MAX_BLOCK_DIM) of `kernel` on
 * `stream`. args[0..nargs-1] are copied into a driver-owned argument block whose address
 * the kernel gets in a0, so the caller's array may be reused at once. Returns when the
 * command is in the queue (it waits, by interrupt, while all NPUVP queue slots are in
 * use); *ticket (may be NULL) identifies it for npuvp_wait/npuvp_query. */
int npuvp_launch_async(const struct npuvp_kernel *kernel, uint32_t blocks, const uint64_t *args,
                       uint32_t nargs, npuvp_stream_t stream, npuvp_ticket_t *ticket);

/* npuvp_launch_async + npuvp_wait: returns NPUVP_OK, or NPUVP_ERR_KERNEL_FAULT with the
 * failing core, block, pc and cause in *result (may be NULL). */
int npuvp_launch(const struct npuvp_kernel *kernel, uint32_t blocks, const uint64_t *args, uint32_t nargs,
                 npuvp_stream_t stream, struct npuvp_result *result);

/* Waits (WFI, woken by the host interrupt) until the command completed; its status,
 * details in *result (may be NULL). NPUVP_ERR_EXPIRED when the ticket is more than
 * queue_entries commands old and its result was dropped (it did complete). */
int npuvp_wait(npuvp_ticket_t ticket, struct npuvp_result *result);
/* Like npuvp_wait without waiting: NPUVP_ERR_NOT_READY while it runs. */
int npuvp_query(npuvp_ticket_t ticket, struct npuvp_result *result);

/* Enqueues a BARRIER: later commands (all streams) start after every earlier one ended. */
int npuvp_barrier(npuvp_ticket_t *ticket);

/* Waits until every submitted command has completed; returns the first error since the
 * previous npuvp_synchronize (any stream), details in *first_error (may be NULL). */
int npuvp_synchronize(struct npuvp_result *first_error);

/* Enqueues a raw command (tests: bad commands, hand-made launches). Its seq is set by the
 * driver; a LAUNCH's args must stay valid until it completes. */
int npuvp_submit_raw(struct npu_command *command, npuvp_ticket_t *ticket);

/* Exit status convention for host programs that stop because a kernel faulted
 * (firmware/host/kernel-fault.c exits with it after checking the report). */
#define NPUVP_EXIT_KERNEL_FAULT 3

#ifdef __cplusplus
}
#endif

#endif /* NPUVP_DRIVER_H */
