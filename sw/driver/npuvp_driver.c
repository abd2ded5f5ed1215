/* npuvp NPU driver (npuvp_driver.h, docs/driver-api.md). */
#include "npuvp_driver.h"

#include <stdio.h>
#include <string.h>

#include <npuvp/platform.h>
#include <npuvp/trap.h>

#define VREAD32(lvalue) (*(volatile uint32_t *)&(lvalue))
#define VWRITE32(lvalue, v) (*(volatile uint32_t *)&(lvalue) = (uint32_t)(v))

static inline void fence_rw(void) { __asm__ volatile("fence rw, rw" ::: "memory"); }

static inline uint64_t mailbox_read(unsigned offset) { return mmio_read64(NPU_MAILBOX_BASE + offset); }
static inline void mailbox_write(unsigned offset, uint64_t value) { mmio_write64(NPU_MAILBOX_BASE + offset, value); }

/* Argument block of each queue slot. */
#define ARGS_SLOT_BYTES (NPUVP_MAX_ARGS * 8u)

enum slot_state { SLOT_FREE = 0, SLOT_SUBMITTED = 1, SLOT_COMPLETED = 2 };

/* One per command in flight: slot seq % queue_entries. A slot is reused only once its
 * previous command has completed, which bounds the commands in flight by queue_entries,
 * so neither ring can overflow (docs/npu-protocol.md, "Flow control"). */
struct slot {
    uint64_t seq;
    uint32_t state;
    uint32_t stream;
    uint64_t submit_cycle;
    struct npu_completion cpl;
};

static struct {
    int initialised;
    int attach_tried; /* the TS serves one queue per run: one attach attempt per run */
    struct npuvp_config config;
    uint32_t cores_found, num_cores, ts_version, ts_state, ts_detail;

    struct npuvp_dm_node ddr_nodes[256], l2_nodes[64];
    struct npuvp_dm_pool ddr, l2;
    int have_l2;

    uint64_t queue_memory;
    struct npu_queue_header *header;
    struct npu_command *cmd_ring;
    struct npu_completion *cpl_ring;
    uint64_t *args_area;
    uint32_t entries;
    uint32_t cmd_tail, cpl_head;

    struct slot slots[NPUVP_MAX_QUEUE_ENTRIES];
    uint64_t next_seq;

    struct {
        int in_use, has_error;
        struct npuvp_result error;
    } streams[NPU_MAX_STREAMS];
    int has_error;
    struct npuvp_result error; /* first since npuvp_synchronize */

    struct {
        int in_use;
        uint64_t records;       /* RECORD_EVENTs submitted, ever (survives destroy) */
        npuvp_ticket_t last_record;
    } events[NPU_MAX_EVENTS];

    uint64_t completions, interrupts, stray_completions;
} drv;

/* ---- probing under an access-fault handler -------------------------------------------- */

static volatile int probe_faulted;

static void probe_fault_handler(struct npuvp_trap_frame *frame)
{
    probe_faulted = 1;
    frame->mepc += npuvp_insn_length(frame->mepc);
}

/* Reads 8 bytes at `address`; 0 if that raised a load access fault. */
static int probe_read64(uint64_t address, uint64_t *value)
{
    npuvp_trap_handler_t old = npuvp_set_exception_handler(CAUSE_LOAD_ACCESS, probe_fault_handler);
    probe_faulted = 0;
    uint64_t v = mmio_read64(address);
    int ok = !probe_faulted;
    npuvp_set_exception_handler(CAUSE_LOAD_ACCESS, old);
    if (ok && value) *value = v;
    return ok;
}

/* ---- interrupt-driven waiting ------------------------------------------------------------ */

static volatile int timer_fired;

static void timeout_handler(struct npuvp_trap_frame *frame)
{
    (void)frame;
    clear_csr(mie, MIE_MTIE);
    clint_set_mtimecmp(hart_id(), UINT64_MAX);
    timer_fired = 1;
}

/* Sleeps in WFI until done(arg) holds or timeout_us of simulated time pass (0: no limit).
 * The predicate is checked with interrupts off, so a completion between the check and
 * the WFI still ends the WFI (a pending enabled interrupt wakes it regardless of MIE).
 * A timeout borrows the machine timer; the program's own timer (handler, mtimecmp and
 * mie.MTIE) is put back afterwards, so a deadline of its that passed meanwhile fires then. */
static int wait_until(int (*done)(const void *), const void *arg, uint32_t timeout_us)
{
    npuvp_trap_handler_t old_timer = NULL;
    uint64_t deadline = 0, old_mtimecmp = 0, old_mtie = 0;
    if (timeout_us) {
        old_mtimecmp = clint_mtimecmp(hart_id());
        old_mtie = read_csr(mie) & MIE_MTIE;
        deadline = clint_mtime() + NPUVP_US_TO_TICKS(timeout_us);
        timer_fired = 0;
        old_timer = npuvp_set_irq_handler(IRQ_M_TIMER, timeout_handler);
        clint_set_mtimecmp(hart_id(), deadline);
        set_csr(mie, MIE_MTIE);
    }
    int status = NPUVP_OK;
    for (;;) {
        irq_disable();
        if (done(arg)) break;
        if (timeout_us && (timer_fired || clint_mtime() >= deadline)) {
            status = NPUVP_ERR_TIMEOUT;
            break;
        }
        wfi();
        irq_enable();
    }
    irq_enable();
    if (timeout_us) {
        clear_csr(mie, MIE_MTIE);
        clint_set_mtimecmp(hart_id(), old_mtimecmp);
        npuvp_set_irq_handler(IRQ_M_TIMER, old_timer);
        if (old_mtie) set_csr(mie, MIE_MTIE);
    }
    return status;
}

/* ---- completions ----------------------------------------------------------------------- */

static void fill_result(struct npuvp_result *r, const struct slot *s)
{
    const struct npu_completion *c = &s->cpl;
    memset(r, 0, sizeof *r);
    r->status = c->status == NPU_STATUS_OK             ? NPUVP_OK
                : c->status == NPU_STATUS_KERNEL_FAULT ? NPUVP_ERR_KERNEL_FAULT
                                                       : NPUVP_ERR_BAD_COMMAND;
    r->ticket = c->seq;
    r->opcode = c->opcode;
    r->stream = c->stream;
    r->core = c->fault_core;
    r->block = c->fault_block;
    r->pc = c->fault_pc;
    r->cause = c->detail;
    r->blocks_done = c->blocks_done;
    r->kernel_cycles = c->kernel_cycles;
    r->ts_start_cycle = c->start_cycle;
    r->ts_end_cycle = c->end_cycle;
    r->core_start_cycle = c->core_start_cycle;
    r->core_end_cycle = c->core_end_cycle;
    r->host_submit_cycle = s->submit_cycle;
}

/* The fields of a record a 2.0 TS writes, a word at a time: the host has no data cache, so
 * every word is a DDR access (~30 cycles), and the record's 48 reserved bytes are not read. */
static void copy_record(struct npu_completion *to, const struct npu_completion *from)
{
    uint64_t *t = (uint64_t *)to;
    const uint64_t *f = (const uint64_t *)from;
    for (unsigned i = 0; i < NPU_COMPLETION_WRITTEN_BYTES / 8u; i++) t[i] = f[i];
}

/* A record in the ring (the TS does not rewrite its slot before cpl_head has passed it). */
static void consume(const struct npu_completion *c)
{
    struct slot *s = &drv.slots[c->seq % drv.entries];
    if (c->seq == 0 || s->seq != c->seq || s->state != SLOT_SUBMITTED) {
        drv.stray_completions++;
        return;
    }
    copy_record(&s->cpl, c);
    s->state = SLOT_COMPLETED;
    drv.completions++;
    if (c->status != NPU_STATUS_OK) {
        struct npuvp_result r;
        fill_result(&r, s);
        if (!drv.has_error) {
            drv.has_error = 1;
            drv.error = r;
        }
        if (s->stream < NPU_MAX_STREAMS && !drv.streams[s->stream].has_error) {
            drv.streams[s->stream].has_error = 1;
            drv.streams[s->stream].error = r;
        }
    }
}

/* Takes every completion record the TS has written. Interrupt context (or interrupts off). */
static void drain_completions(void)
{
    struct npu_queue_header *h = drv.header;
    uint32_t tail = VREAD32(h->cpl_tail);
    fence_rw(); /* index before records */
    while (drv.cpl_head != tail) {
        consume(&drv.cpl_ring[npu_ring_slot(drv.cpl_head, drv.entries)]);
        drv.cpl_head++;
    }
    fence_rw();
    VWRITE32(h->cpl_head, drv.cpl_head);
    fence_rw();
    if (VREAD32(h->ts_flags) & NPU_TS_FLAG_CPL_STALLED) mailbox_write(NPU_MB_DOORBELL, 1);
}

static void external_interrupt(struct npuvp_trap_frame *frame)
{
    (void)frame;
    for (;;) {
        uint32_t source = mmio_read32(NPUVP_PLIC_CLAIM(NPU_PLIC_CONTEXT_HOST));
        if (source == 0) break;
        if (source == NPU_PLIC_SOURCE_HOST_IRQ) {
            drv.interrupts++;
            /* Acknowledge first: the TS raises the level again for any record it writes
             * after this, so none written before our read of cpl_tail is missed. */
            mailbox_write(NPU_MB_HOST_IRQ_ACK, 1);
            if (drv.header) drain_completions();
        }
        mmio_write32(NPUVP_PLIC_CLAIM(NPU_PLIC_CONTEXT_HOST), source);
    }
}

/* ---- initialisation ----------------------------------------------------------------------- */

void npuvp_default_config(struct npuvp_config *c)
{
    memset(c, 0, sizeof *c);
    c->ddr_base = NPUVP_DEFAULT_DDR_BASE;
    c->ddr_size = NPUVP_DEFAULT_DDR_SIZE;
    c->l2_base = NPUVP_DEFAULT_L2_BASE;
    c->l2_size = NPUVP_DEFAULT_L2_SIZE;
    c->queue_entries = NPUVP_DEFAULT_QUEUE_ENTRIES;
    c->init_timeout_us = NPUVP_DEFAULT_INIT_TIMEOUT_US;
}

static int ts_answered(const void *arg)
{
    (void)arg;
    uint32_t state = NPU_TS_STATE(mailbox_read(NPU_MB_SCRATCH(NPU_SCRATCH_TS_STATE)));
    return state == NPU_TS_STATE_READY || state == NPU_TS_STATE_ATTACH_FAILED;
}

static void read_ts_state(void)
{
    uint64_t v = mailbox_read(NPU_MB_SCRATCH(NPU_SCRATCH_TS_STATE));
    drv.ts_state = NPU_TS_STATE(v);
    drv.ts_detail = NPU_TS_STATE_DETAIL(v);
    drv.ts_version = (uint32_t)mailbox_read(NPU_MB_SCRATCH(NPU_SCRATCH_TS_VERSION));
}

int npuvp_init(const struct npuvp_config *config)
{
    if (drv.initialised) return NPUVP_OK;
    if (drv.attach_tried) return NPUVP_ERR_INVALID; /* after a shutdown or a failed attach */
    struct npuvp_config c;
    if (config) c = *config;
    else npuvp_default_config(&c);
    if (!npu_ring_size_ok(c.queue_entries) || c.queue_entries > NPUVP_MAX_QUEUE_ENTRIES ||
        c.num_cores > NPU_MAX_CORES)
        return NPUVP_ERR_INVALID;

    /* The mailbox and the AI Cores. */
    if (!probe_read64(NPU_MAILBOX_BASE + NPU_MB_SCRATCH(NPU_SCRATCH_TS_STATE), NULL)) return NPUVP_ERR_NO_DEVICE;
    drv.cores_found = 0;
    for (unsigned i = 0; i < NPU_MAX_CORES; i++) {
        uint64_t id;
        if (!probe_read64(NPU_AICORE_CONTROL(i) + NPU_AICORE_CORE_ID, &id) || id != i) break;
        drv.cores_found++;
    }
    if (drv.cores_found == 0) return NPUVP_ERR_NO_DEVICE;
    drv.num_cores = c.num_cores == 0 || c.num_cores > drv.cores_found ? drv.cores_found : c.num_cores;

    /* Device-memory pools. The DDR pool shrinks until its last word is backed. */
    while (c.ddr_size > (16u << 20) && !probe_read64(c.ddr_base + c.ddr_size - 8, NULL)) c.ddr_size /= 2;
    if (!probe_read64(c.ddr_base + c.ddr_size - 8, NULL)) return NPUVP_ERR_OUT_OF_MEMORY; /* no backed pool */
    int status = npuvp_dm_init(&drv.ddr, "ddr", c.ddr_base, c.ddr_size, NPUVP_MEMORY_GRANULE, NPUVP_DM_FIRST_FIT,
                               drv.ddr_nodes, sizeof drv.ddr_nodes / sizeof drv.ddr_nodes[0]);
    if (status != NPUVP_OK) return status;
    drv.have_l2 = 0;
    if (c.l2_size) {
        status = npuvp_dm_init(&drv.l2, "l2", c.l2_base, c.l2_size, NPUVP_MEMORY_GRANULE, NPUVP_DM_BEST_FIT,
                               drv.l2_nodes, sizeof drv.l2_nodes / sizeof drv.l2_nodes[0]);
        if (status != NPUVP_OK) return status;
        drv.have_l2 = 1;
    }
    drv.config = c;

    /* The queue: header, command ring, completion ring, argument slots. */
    const uint32_t n = c.queue_entries;
    const uint64_t header_bytes = (sizeof(struct npu_queue_header) + 63) & ~63ull;
    const uint64_t cmd_bytes = (uint64_t)n * sizeof(struct npu_command);
    const uint64_t cpl_bytes = (uint64_t)n * sizeof(struct npu_completion);
    const uint64_t args_bytes = (uint64_t)n * ARGS_SLOT_BYTES;
    status = npuvp_dm_alloc(&drv.ddr, header_bytes + cmd_bytes + cpl_bytes + args_bytes, 4096, &drv.queue_memory);
    if (status != NPUVP_OK) return status;
    uint8_t *base = (uint8_t *)npuvp_host_ptr(drv.queue_memory);
    /* Only the header: the TS reads command slots the host has written (below cmd_tail) and
     * the host completion slots the TS has written (below cpl_tail). The host has no data
     * cache and picolibc's memset stores a byte at a time, so clearing the rings and every
     * slot cost ~240 k instructions (~0.6 ms) before the first command. */
    memset(base, 0, header_bytes);
    drv.header = (struct npu_queue_header *)base;
    drv.cmd_ring = (struct npu_command *)(base + header_bytes);
    drv.cpl_ring = (struct npu_completion *)(base + header_bytes + cmd_bytes);
    drv.args_area = (uint64_t *)(base + header_bytes + cmd_bytes + cpl_bytes);
    drv.entries = n;
    drv.cmd_tail = drv.cpl_head = c.initial_index;
    for (uint32_t i = 0; i < n; i++) drv.slots[i].state = SLOT_FREE;
    drv.next_seq = 1;
    memset(drv.streams, 0, sizeof drv.streams);
    drv.streams[NPUVP_STREAM_DEFAULT].in_use = 1;
    drv.has_error = 0;
    for (unsigned i = 0; i < NPU_MAX_EVENTS; i++) drv.events[i].in_use = 0;

    struct npu_queue_header *h = drv.header;
    h->magic = NPU_QUEUE_MAGIC;
    h->version = NPU_PROTOCOL_VERSION;
    h->cmd_entries = n;
    h->cpl_entries = n;
    h->cmd_ring = npuvp_device_address(drv.cmd_ring);
    h->cpl_ring = npuvp_device_address(drv.cpl_ring);
    h->num_cores = drv.num_cores;
    h->cmd_tail = h->cmd_head = c.initial_index;
    h->cpl_tail = h->cpl_head = c.initial_index;

    /* Host interrupt: PLIC source 21 on context 0, machine external interrupt. */
    npuvp_set_irq_handler(IRQ_M_EXT, external_interrupt);
    mmio_write32(NPUVP_PLIC_PRIORITY(NPU_PLIC_SOURCE_HOST_IRQ), 1);
    uintptr_t enable = NPUVP_PLIC_ENABLE(NPU_PLIC_CONTEXT_HOST, NPU_PLIC_SOURCE_HOST_IRQ);
    mmio_write32(enable, mmio_read32(enable) | (1u << (NPU_PLIC_SOURCE_HOST_IRQ % 32)));
    mmio_write32(NPUVP_PLIC_THRESHOLD(NPU_PLIC_CONTEXT_HOST), 0);
    set_csr(mie, MIE_MEIE);
    irq_enable();

    /* Attach: publish the header, ring, wait for READY (or a refusal). */
    drv.attach_tried = 1;
    fence_rw();
    mailbox_write(NPU_MB_SCRATCH(NPU_SCRATCH_QUEUE), drv.queue_memory);
    mailbox_write(NPU_MB_DOORBELL, 1);
    status = wait_until(ts_answered, NULL, c.init_timeout_us);
    read_ts_state();
    if (status == NPUVP_OK && drv.ts_state != NPU_TS_STATE_READY) status = NPUVP_ERR_PROTOCOL;
    else if (status == NPUVP_ERR_TIMEOUT) status = NPUVP_ERR_NO_DEVICE;
    if (status != NPUVP_OK) {
        mailbox_write(NPU_MB_SCRATCH(NPU_SCRATCH_QUEUE), 0);
        clear_csr(mie, MIE_MEIE);
        drv.header = NULL;
        npuvp_dm_free(&drv.ddr, drv.queue_memory);
        return status;
    }
    drv.initialised = 1;
    return NPUVP_OK;
}

void npuvp_device_info(struct npuvp_device_info *info)
{
    memset(info, 0, sizeof *info);
    if (drv.header || drv.cores_found) read_ts_state();
    info->num_cores = drv.num_cores;
    info->cores_found = drv.cores_found;
    info->ts_version = drv.ts_version;
    info->ts_state = drv.ts_state;
    info->ts_detail = drv.ts_detail;
    info->queue_entries = drv.entries;
    info->queue_address = drv.initialised ? drv.queue_memory : 0;
    info->commands = drv.next_seq ? drv.next_seq - 1 : 0;
    info->completions = drv.completions;
    info->interrupts = drv.interrupts;
    info->stray_completions = drv.stray_completions;
}

/* ---- device memory ----------------------------------------------------------------------- */

int npuvp_malloc(enum npuvp_mem_kind kind, uint64_t size, uint64_t align, uint64_t *address)
{
    if (address) *address = 0;
    if (!drv.initialised) return NPUVP_ERR_NOT_INITIALISED;
    if (kind == NPUVP_MEM_DDR) return npuvp_dm_alloc(&drv.ddr, size, align, address);
    if (kind == NPUVP_MEM_L2 && drv.have_l2) return npuvp_dm_alloc(&drv.l2, size, align, address);
    return NPUVP_ERR_INVALID;
}

int npuvp_free(uint64_t address)
{
    if (!drv.initialised) return NPUVP_ERR_NOT_INITIALISED;
    if (address == drv.queue_memory) return NPUVP_ERR_NOT_ALLOCATED; /* the driver's own */
    if (npuvp_dm_contains(&drv.ddr, address)) return npuvp_dm_free(&drv.ddr, address);
    if (drv.have_l2 && npuvp_dm_contains(&drv.l2, address)) return npuvp_dm_free(&drv.l2, address);
    return NPUVP_ERR_NOT_ALLOCATED;
}

int npuvp_mem_stats(enum npuvp_mem_kind kind, struct npuvp_dm_stats *stats)
{
    if (!drv.initialised) return NPUVP_ERR_NOT_INITIALISED;
    if (kind == NPUVP_MEM_DDR) npuvp_dm_get_stats(&drv.ddr, stats);
    else if (kind == NPUVP_MEM_L2 && drv.have_l2) npuvp_dm_get_stats(&drv.l2, stats);
    else return NPUVP_ERR_INVALID;
    return NPUVP_OK;
}

/* ---- kernel images -------------------------------------------------------------------------- */

/* Copies n bytes a 64-bit word at a time when both ends are 8-byte aligned. The host has no
 * data cache, so every load and store reaches memory (tens of cycles each), and picolibc's
 * memcpy copies byte by byte: eight times the accesses for argument blocks and kernel images.
 * The volatile destination keeps GCC from turning the loop back into a memcpy call. */
static void copy_words(void *dst, const void *src, size_t n)
{
    if (((uintptr_t)dst | (uintptr_t)src) & 7u) {
        memcpy(dst, src, n);
        return;
    }
    volatile uint64_t *d = (volatile uint64_t *)dst;
    const uint64_t *s = (const uint64_t *)src;
    size_t words = n / 8;
    for (size_t i = 0; i < words; i++) d[i] = s[i];
    memcpy((uint8_t *)dst + words * 8, (const uint8_t *)src + words * 8, n % 8);
}

/* ELF64 little-endian structures (read with memcpy: the image may be unaligned). */
struct elf64_ehdr {
    uint8_t ident[16];
    uint16_t type, machine;
    uint32_t version;
    uint64_t entry, phoff, shoff;
    uint32_t flags;
    uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};
struct elf64_phdr {
    uint32_t type, flags;
    uint64_t offset, vaddr, paddr, filesz, memsz, align;
};
struct elf64_shdr {
    uint32_t name, type;
    uint64_t flags, addr, offset, size;
    uint32_t link, info;
    uint64_t addralign, entsize;
};
struct elf64_sym {
    uint32_t name;
    uint8_t info, other;
    uint16_t shndx;
    uint64_t value, size;
};
#define ELF_PT_LOAD 1u
#define ELF_SHT_SYMTAB 2u
#define ELF_EM_RISCV 243u
#define ELF_ET_EXEC 2u

static int in_range(uint64_t offset, uint64_t length, uint64_t size)
{
    return offset <= size && length <= size - offset;
}

static int read_header(const uint8_t *elf, size_t size, struct elf64_ehdr *eh)
{
    if (!elf || size < sizeof *eh) return 0;
    memcpy(eh, elf, sizeof *eh);
    return eh->ident[0] == 0x7f && eh->ident[1] == 'E' && eh->ident[2] == 'L' && eh->ident[3] == 'F' &&
           eh->ident[4] == 2 /* 64-bit */ && eh->ident[5] == 1 /* little-endian */ && eh->machine == ELF_EM_RISCV &&
           eh->type == ELF_ET_EXEC;
}

/* Whether kernel code may have been written since the last LAUNCH was submitted: the next
 * LAUNCH then goes without NPU_LAUNCH_CODE_UNCHANGED, so the TS starts every core's next
 * block with a cold instruction cache (software keeps the AI Cores' instruction caches
 * coherent, docs/npu-protocol.md). Not in `drv`: kernels may be loaded before npuvp_init. */
static int kernel_code_written = 1;

int npuvp_kernel_load(struct npuvp_kernel *kernel, const void *image, size_t size)
{
    const uint8_t *elf = (const uint8_t *)image;
    struct elf64_ehdr eh;
    if (!kernel) return NPUVP_ERR_INVALID;
    memset(kernel, 0, sizeof *kernel);
    if (!read_header(elf, size, &eh) || eh.phentsize != sizeof(struct elf64_phdr) ||
        !in_range(eh.phoff, (uint64_t)eh.phnum * sizeof(struct elf64_phdr), size))
        return NPUVP_ERR_BAD_IMAGE;

    /* Check every segment before copying any. */
    uint64_t lo = UINT64_MAX, hi = 0;
    for (unsigned pass = 0; pass < 2; pass++) {
        for (unsigned i = 0; i < eh.phnum; i++) {
            struct elf64_phdr ph;
            memcpy(&ph, elf + eh.phoff + i * sizeof ph, sizeof ph);
            if (ph.type != ELF_PT_LOAD || ph.memsz == 0) continue;
            if (pass == 0) {
                if (ph.filesz > ph.memsz || !in_range(ph.offset, ph.filesz, size) ||
                    ph.paddr < NPUVP_KERNEL_AREA_BASE || ph.paddr > NPUVP_KERNEL_AREA_END ||
                    ph.memsz > NPUVP_KERNEL_AREA_END - ph.paddr)
                    return NPUVP_ERR_BAD_IMAGE;
                if (ph.paddr < lo) lo = ph.paddr;
                if (ph.paddr + ph.memsz > hi) hi = ph.paddr + ph.memsz;
            } else {
                kernel_code_written = 1;
                uint8_t *dst = (uint8_t *)npuvp_host_ptr(ph.paddr);
                copy_words(dst, elf + ph.offset, ph.filesz);
                memset(dst + ph.filesz, 0, ph.memsz - ph.filesz);
            }
        }
        if (pass == 0 && (hi == 0 || eh.entry < lo || eh.entry >= hi)) return NPUVP_ERR_BAD_IMAGE;
    }
    fence_rw();
    kernel->entry = eh.entry;
    kernel->load_start = lo;
    kernel->load_end = hi;
    kernel->elf = elf;
    kernel->elf_size = size;
    return NPUVP_OK;
}

int npuvp_kernel_preloaded(struct npuvp_kernel *kernel, uint64_t entry)
{
    if (!kernel || entry == 0 || (entry & 1)) return NPUVP_ERR_INVALID;
    memset(kernel, 0, sizeof *kernel);
    kernel->entry = entry;
    kernel_code_written = 1; /* placed by someone else, at a time we do not know */
    return NPUVP_OK;
}

/* Calls visit(sym, name, ctx) for each symbol of the ELF's symbol table. */
static void for_each_symbol(const struct npuvp_kernel *k,
                            void (*visit)(const struct elf64_sym *, const char *, void *), void *ctx)
{
    struct elf64_ehdr eh;
    if (!k || !read_header(k->elf, k->elf_size, &eh) || eh.shentsize != sizeof(struct elf64_shdr) ||
        !in_range(eh.shoff, (uint64_t)eh.shnum * sizeof(struct elf64_shdr), k->elf_size))
        return;
    for (unsigned i = 0; i < eh.shnum; i++) {
        struct elf64_shdr sh, str;
        memcpy(&sh, k->elf + eh.shoff + i * sizeof sh, sizeof sh);
        if (sh.type != ELF_SHT_SYMTAB || sh.entsize != sizeof(struct elf64_sym) || sh.link >= eh.shnum ||
            !in_range(sh.offset, sh.size, k->elf_size))
            continue;
        memcpy(&str, k->elf + eh.shoff + sh.link * sizeof str, sizeof str);
        if (!in_range(str.offset, str.size, k->elf_size) || str.size == 0 ||
            k->elf[str.offset + str.size - 1] != 0)
            continue;
        for (uint64_t j = 0; j < sh.size / sizeof(struct elf64_sym); j++) {
            struct elf64_sym sym;
            memcpy(&sym, k->elf + sh.offset + j * sizeof sym, sizeof sym);
            if (sym.name == 0 || sym.name >= str.size) continue;
            visit(&sym, (const char *)k->elf + str.offset + sym.name, ctx);
        }
    }
}

struct find_ctx {
    const char *name;
    uint64_t address;
    int found;
};
static void find_visit(const struct elf64_sym *sym, const char *name, void *ctx)
{
    struct find_ctx *f = (struct find_ctx *)ctx;
    if (!f->found && sym->shndx != 0 && strcmp(name, f->name) == 0) {
        f->address = sym->value;
        f->found = 1;
    }
}

int npuvp_kernel_symbol(const struct npuvp_kernel *kernel, const char *name, uint64_t *address)
{
    struct find_ctx f = {name, 0, 0};
    if (!name) return NPUVP_ERR_INVALID;
    for_each_symbol(kernel, find_visit, &f);
    if (!f.found) return NPUVP_ERR_INVALID;
    if (address) *address = f.address;
    return NPUVP_OK;
}

struct nearest_ctx {
    uint64_t pc, best;
    const char *name;
};
static void nearest_visit(const struct elf64_sym *sym, const char *name, void *ctx)
{
    struct nearest_ctx *n = (struct nearest_ctx *)ctx;
    unsigned type = sym->info & 0xf;
    if (sym->shndx == 0 || type == 3 /* SECTION */ || type == 4 /* FILE */ || name[0] == '$' || name[0] == '.')
        return;
    if (sym->value <= n->pc && (!n->name || sym->value > n->best)) {
        n->best = sym->value;
        n->name = name;
    }
}

const char *npuvp_kernel_symbolize(const struct npuvp_kernel *kernel, uint64_t pc, uint64_t *offset)
{
    struct nearest_ctx n = {pc, 0, NULL};
    if (!kernel || pc < kernel->load_start || pc >= kernel->load_end) return NULL;
    for_each_symbol(kernel, nearest_visit, &n);
    if (n.name && offset) *offset = pc - n.best;
    return n.name;
}

/* ---- submission -------------------------------------------------------------------------------- */

static int slot_free(const void *arg)
{
    const struct slot *s = (const struct slot *)arg;
    return s->state != SLOT_SUBMITTED;
}

/* Puts a command in the ring: waits for its slot, sets seq, rings the doorbell. */
static int submit(struct npu_command *cmd, const uint64_t *args, uint32_t nargs, npuvp_ticket_t *ticket)
{
    const uint64_t seq = drv.next_seq;
    struct slot *s = &drv.slots[seq % drv.entries];
    int status = wait_until(slot_free, s, drv.config.wait_timeout_us);
    if (status != NPUVP_OK) return status;
    /* With every slot's previous command completed, the command ring has room. */
    if (npu_ring_full(drv.cmd_tail, VREAD32(drv.header->cmd_head), drv.entries)) return NPUVP_ERR_PROTOCOL;

    if (args) {
        uint64_t *block = drv.args_area + (seq % drv.entries) * NPUVP_MAX_ARGS;
        copy_words(block, args, nargs * sizeof(uint64_t));
        cmd->u.launch.args = npuvp_device_address(block);
    }
    cmd->seq = seq;
    unsigned long irq = irq_save();
    s->seq = seq;
    s->state = SLOT_SUBMITTED;
    s->stream = cmd->stream;
    drv.next_seq++;
    irq_restore(irq);

    drv.cmd_ring[npu_ring_slot(drv.cmd_tail, drv.entries)] = *cmd;
    fence_rw(); /* record before index */
    drv.cmd_tail++;
    VWRITE32(drv.header->cmd_tail, drv.cmd_tail);
    fence_rw(); /* index before doorbell */
    s->submit_cycle = rdcycle();
    mailbox_write(NPU_MB_DOORBELL, 1);
    if (ticket) *ticket = seq;
    return NPUVP_OK;
}

static int check_stream(npuvp_stream_t stream)
{
    return stream < NPU_MAX_STREAMS && drv.streams[stream].in_use;
}

int npuvp_submit_raw(struct npu_command *command, npuvp_ticket_t *ticket)
{
    if (!drv.initialised) return NPUVP_ERR_NOT_INITIALISED;
    if (!command) return NPUVP_ERR_INVALID;
    return submit(command, NULL, 0, ticket);
}

int npuvp_launch_async(const struct npuvp_kernel *kernel, uint32_t blocks, const uint64_t *args,
                       uint32_t nargs, npuvp_stream_t stream, npuvp_ticket_t *ticket)
{
    if (!drv.initialised) return NPUVP_ERR_NOT_INITIALISED;
    if (!kernel || blocks == 0 || blocks > NPU_MAX_BLOCK_DIM || nargs > NPUVP_MAX_ARGS || (nargs && !args) ||
        !check_stream(stream))
        return NPUVP_ERR_INVALID;
    struct npu_command cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.opcode = NPU_CMD_LAUNCH;
    cmd.stream = (uint16_t)stream;
    cmd.u.launch.entry = kernel->entry;
    cmd.u.launch.block_dim = blocks;
    if (!kernel_code_written) cmd.flags = NPU_LAUNCH_CODE_UNCHANGED;
    static const uint64_t no_args[1] = {0};
    const int status = submit(&cmd, nargs ? args : no_args, nargs, ticket);
    if (status == NPUVP_OK) kernel_code_written = 0;
    return status;
}

static int slot_done_or_reused(const void *arg)
{
    const npuvp_ticket_t ticket = *(const npuvp_ticket_t *)arg;
    const struct slot *s = &drv.slots[ticket % drv.entries];
    return s->seq != ticket || s->state == SLOT_COMPLETED;
}

static int result_of(npuvp_ticket_t ticket, struct npuvp_result *result)
{
    const struct slot *s = &drv.slots[ticket % drv.entries];
    if (s->seq != ticket) return NPUVP_ERR_EXPIRED;
    if (s->state != SLOT_COMPLETED) return NPUVP_ERR_NOT_READY;
    struct npuvp_result r;
    fill_result(&r, s);
    if (result) *result = r;
    return r.status;
}

int npuvp_wait(npuvp_ticket_t ticket, struct npuvp_result *result)
{
    if (!drv.initialised) return NPUVP_ERR_NOT_INITIALISED;
    if (ticket == 0 || ticket >= drv.next_seq) return NPUVP_ERR_INVALID;
    int status = wait_until(slot_done_or_reused, &ticket, drv.config.wait_timeout_us);
    if (status != NPUVP_OK) return status;
    return result_of(ticket, result);
}

int npuvp_query(npuvp_ticket_t ticket, struct npuvp_result *result)
{
    if (!drv.initialised) return NPUVP_ERR_NOT_INITIALISED;
    if (ticket == 0 || ticket >= drv.next_seq) return NPUVP_ERR_INVALID;
    unsigned long irq = irq_save();
    int status = result_of(ticket, result);
    irq_restore(irq);
    return status;
}

int npuvp_launch(const struct npuvp_kernel *kernel, uint32_t blocks, const uint64_t *args, uint32_t nargs,
                 npuvp_stream_t stream, struct npuvp_result *result)
{
    npuvp_ticket_t ticket;
    int status = npuvp_launch_async(kernel, blocks, args, nargs, stream, &ticket);
    if (status != NPUVP_OK) return status;
    return npuvp_wait(ticket, result);
}

int npuvp_barrier(npuvp_ticket_t *ticket)
{
    if (!drv.initialised) return NPUVP_ERR_NOT_INITIALISED;
    struct npu_command cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.opcode = NPU_CMD_BARRIER;
    return submit(&cmd, NULL, 0, ticket);
}

/* No slot of stream `*arg` (all streams: NPU_MAX_STREAMS) is still submitted. */
static int stream_idle(const void *arg)
{
    const uint32_t stream = *(const uint32_t *)arg;
    for (uint32_t i = 0; i < drv.entries; i++)
        if (drv.slots[i].state == SLOT_SUBMITTED && (stream == NPU_MAX_STREAMS || drv.slots[i].stream == stream))
            return 0;
    return 1;
}

int npuvp_synchronize(struct npuvp_result *first_error)
{
    if (!drv.initialised) return NPUVP_ERR_NOT_INITIALISED;
    uint32_t all = NPU_MAX_STREAMS;
    int status = wait_until(stream_idle, &all, drv.config.wait_timeout_us);
    if (status != NPUVP_OK) return status;
    unsigned long irq = irq_save();
    if (drv.has_error) {
        status = drv.error.status;
        if (first_error) *first_error = drv.error;
        drv.has_error = 0;
    }
    irq_restore(irq);
    return status;
}

int npuvp_shutdown(void)
{
    if (!drv.initialised) return NPUVP_ERR_NOT_INITIALISED;
    int status = npuvp_synchronize(NULL);
    clear_csr(mie, MIE_MEIE);
    uintptr_t enable = NPUVP_PLIC_ENABLE(NPU_PLIC_CONTEXT_HOST, NPU_PLIC_SOURCE_HOST_IRQ);
    mmio_write32(enable, mmio_read32(enable) & ~(1u << (NPU_PLIC_SOURCE_HOST_IRQ % 32)));
    drv.initialised = 0;
    drv.header = NULL;
    return status == NPUVP_ERR_TIMEOUT ? status : NPUVP_OK;
}

/* ---- streams and events --------------------------------------------------------------------- */

int npuvp_stream_create(npuvp_stream_t *stream)
{
    if (!drv.initialised) return NPUVP_ERR_NOT_INITIALISED;
    if (!stream) return NPUVP_ERR_INVALID;
    for (uint32_t i = 1; i < NPU_MAX_STREAMS; i++) {
        if (!drv.streams[i].in_use) {
            drv.streams[i].in_use = 1;
            drv.streams[i].has_error = 0;
            *stream = i;
            return NPUVP_OK;
        }
    }
    return NPUVP_ERR_NO_RESOURCE;
}

int npuvp_stream_synchronize(npuvp_stream_t stream, struct npuvp_result *first_error)
{
    if (!drv.initialised) return NPUVP_ERR_NOT_INITIALISED;
    if (!check_stream(stream)) return NPUVP_ERR_INVALID;
    int status = wait_until(stream_idle, &stream, drv.config.wait_timeout_us);
    if (status != NPUVP_OK) return status;
    unsigned long irq = irq_save();
    if (drv.streams[stream].has_error) {
        status = drv.streams[stream].error.status;
        if (first_error) *first_error = drv.streams[stream].error;
        drv.streams[stream].has_error = 0;
    }
    irq_restore(irq);
    return status;
}

int npuvp_stream_destroy(npuvp_stream_t stream)
{
    if (!drv.initialised) return NPUVP_ERR_NOT_INITIALISED;
    if (stream == NPUVP_STREAM_DEFAULT || !check_stream(stream)) return NPUVP_ERR_INVALID;
    int status = wait_until(stream_idle, &stream, drv.config.wait_timeout_us);
    if (status != NPUVP_OK) return status;
    drv.streams[stream].in_use = 0;
    return NPUVP_OK;
}

int npuvp_event_create(npuvp_event_t *event)
{
    if (!drv.initialised) return NPUVP_ERR_NOT_INITIALISED;
    if (!event) return NPUVP_ERR_INVALID;
    for (uint32_t i = 0; i < NPU_MAX_EVENTS; i++) {
        if (!drv.events[i].in_use) {
            drv.events[i].in_use = 1;
            drv.events[i].last_record = 0;
            *event = i;
            return NPUVP_OK;
        }
    }
    return NPUVP_ERR_NO_RESOURCE;
}

static int check_event(npuvp_event_t event) { return event < NPU_MAX_EVENTS && drv.events[event].in_use; }

int npuvp_event_destroy(npuvp_event_t event)
{
    if (!drv.initialised) return NPUVP_ERR_NOT_INITIALISED;
    if (!check_event(event)) return NPUVP_ERR_INVALID;
    drv.events[event].in_use = 0;
    return NPUVP_OK;
}

int npuvp_event_record(npuvp_event_t event, npuvp_stream_t stream)
{
    if (!drv.initialised) return NPUVP_ERR_NOT_INITIALISED;
    if (!check_event(event) || !check_stream(stream)) return NPUVP_ERR_INVALID;
    struct npu_command cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.opcode = NPU_CMD_RECORD_EVENT;
    cmd.stream = (uint16_t)stream;
    cmd.u.event.event = event;
    npuvp_ticket_t ticket;
    int status = submit(&cmd, NULL, 0, &ticket);
    if (status != NPUVP_OK) return status;
    drv.events[event].records++;
    drv.events[event].last_record = ticket;
    return NPUVP_OK;
}

int npuvp_stream_wait_event(npuvp_stream_t stream, npuvp_event_t event)
{
    if (!drv.initialised) return NPUVP_ERR_NOT_INITIALISED;
    if (!check_event(event) || !check_stream(stream)) return NPUVP_ERR_INVALID;
    if (drv.events[event].last_record == 0) return NPUVP_OK; /* never recorded: nothing to wait for */
    struct npu_command cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.opcode = NPU_CMD_WAIT_EVENT;
    cmd.stream = (uint16_t)stream;
    cmd.u.event.event = event;
    cmd.u.event.count = drv.events[event].records;
    return submit(&cmd, NULL, 0, NULL);
}

int npuvp_event_synchronize(npuvp_event_t event)
{
    if (!drv.initialised) return NPUVP_ERR_NOT_INITIALISED;
    if (!check_event(event)) return NPUVP_ERR_INVALID;
    npuvp_ticket_t ticket = drv.events[event].last_record;
    if (ticket == 0) return NPUVP_OK;
    int status = npuvp_wait(ticket, NULL);
    return status == NPUVP_ERR_EXPIRED ? NPUVP_OK : status;
}

int npuvp_event_query(npuvp_event_t event)
{
    if (!drv.initialised) return NPUVP_ERR_NOT_INITIALISED;
    if (!check_event(event)) return NPUVP_ERR_INVALID;
    npuvp_ticket_t ticket = drv.events[event].last_record;
    if (ticket == 0) return NPUVP_OK;
    int status = npuvp_query(ticket, NULL);
    return status == NPUVP_ERR_EXPIRED ? NPUVP_OK : status;
}

/* ---- messages ------------------------------------------------------------------------------- */

const char *npuvp_result_string(const struct npuvp_result *r)
{
    static char text[160];
    if (r->status == NPUVP_ERR_KERNEL_FAULT)
        snprintf(text, sizeof text, "kernel fault (%s) on AI Core %u, block %u, pc 0x%lx", npu_fault_name(r->cause),
                 (unsigned)r->core, (unsigned)r->block, (unsigned long)r->pc);
    else if (r->status == NPUVP_ERR_BAD_COMMAND)
        snprintf(text, sizeof text, "bad command (%s)", npu_bad_command_name(r->cause));
    else
        snprintf(text, sizeof text, "%s", npuvp_status_name(r->status));
    return text;
}
