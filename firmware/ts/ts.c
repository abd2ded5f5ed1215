/*
 * Task-scheduler (TS) firmware: the NPU's command processor (soc.ts).
 *
 * Serves the host's command queue of sw/include/npuvp/npu_protocol.h
 * (docs/npu-protocol.md): takes commands from the ring in order into a window of
 * TS_WINDOW commands, starts each one when the ordering rules allow (stream order,
 * barriers, events), dispatches a LAUNCH's task blocks over the AI Cores one block per
 * idle core, collects the cores' done/error interrupts and writes one completion record
 * per command, raising the host interrupt.
 *
 * Interrupts are taken without traps: mie.MEIE is set and mstatus.MIE stays clear, so
 * WFI returns when the PLIC raises context 1 (TS machine external interrupt) and the
 * main loop claims the sources itself. Levels stay high until handled, so nothing is
 * lost between a check and the WFI.
 *
 * The TS never exits (that would stop the simulation through the finisher) and prints
 * nothing unless built with -DTS_TRACE (the UART is shared with the host program).
 */
#include <stdint.h>
#include <string.h>

#include <npuvp/npu_protocol.h>
#include <npuvp/platform.h>
#include <npuvp/trap.h>

#ifdef TS_TRACE
#include <stdio.h>
#define trace(...) printf("ts: " __VA_ARGS__)
#else
#define trace(...) ((void)0)
#endif

/* Commands held at once (started or waiting for their turn). */
#define TS_WINDOW 16u

#define CONTEXT NPU_PLIC_CONTEXT_TS

#define VREAD32(lvalue) (*(volatile uint32_t *)&(lvalue))
#define VWRITE32(lvalue, v) (*(volatile uint32_t *)&(lvalue) = (uint32_t)(v))

static inline void fence_rw(void) { __asm__ volatile("fence rw, rw" ::: "memory"); }

/* ---- devices ---------------------------------------------------------------------- */

static inline uint64_t mailbox_read(unsigned offset) { return mmio_read64(NPU_MAILBOX_BASE + offset); }
static inline void mailbox_write(unsigned offset, uint64_t value) { mmio_write64(NPU_MAILBOX_BASE + offset, value); }
static inline uint64_t core_read(unsigned core, unsigned reg) { return mmio_read64(NPU_AICORE_CONTROL(core) + reg); }
static inline void core_write(unsigned core, unsigned reg, uint64_t value)
{
    mmio_write64(NPU_AICORE_CONTROL(core) + reg, value);
}

static void plic_enable(unsigned source)
{
    mmio_write32(NPUVP_PLIC_PRIORITY(source), 1);
    uintptr_t enable = NPUVP_PLIC_ENABLE(CONTEXT, source);
    mmio_write32(enable, mmio_read32(enable) | (1u << (source % 32)));
}

/* ---- state ------------------------------------------------------------------------ */

/* A command's progress in one 64-bit word: the TS's data sits in DDR (~25 cycles a load), and
 * the pass's checks, a dispatch and a block's end each read it once instead of a field at a
 * time (they were ~10 loads between one layer's last block and the next one's first START).
 * Bits 15:0 the next block to start, 31:16 the blocks on cores now, 47:32 block_dim (LAUNCH;
 * all at most NPU_MAX_BLOCK_DIM), and three flags. */
#define PROGRESS_STARTED (1ull << 48)    /* the command has started (LAUNCH: its blocks may go to cores) */
#define PROGRESS_FAILED (1ull << 49)     /* LAUNCH: a block faulted, start no more */
#define PROGRESS_LAUNCH (1ull << 50)     /* the command is a LAUNCH */
#define PROGRESS_ONE_RUNNING (1ull << 16)
_Static_assert(NPU_MAX_BLOCK_DIM <= 0xffffu && NPU_MAX_CORES <= 0xffffu, "progress fields are 16 bits");

static inline uint32_t progress_next_block(uint64_t p) { return (uint32_t)p & 0xffffu; }
static inline uint32_t progress_running(uint64_t p) { return (uint32_t)(p >> 16) & 0xffffu; }
static inline uint32_t progress_block_dim(uint64_t p) { return (uint32_t)(p >> 32) & 0xffffu; }
static inline uint64_t progress_counts(uint32_t next_block, uint32_t running)
{
    return (uint64_t)next_block | (uint64_t)running << 16;
}
/* A started LAUNCH that has blocks left and has not failed. */
static inline int progress_has_blocks(uint64_t p)
{
    return (p & (PROGRESS_LAUNCH | PROGRESS_STARTED | PROGRESS_FAILED)) == (PROGRESS_LAUNCH | PROGRESS_STARTED) &&
           progress_next_block(p) < progress_block_dim(p);
}
/* A started LAUNCH with no block running and none left to start (all started, or failed). */
static inline int progress_launch_done(uint64_t p)
{
    return (p & (PROGRESS_LAUNCH | PROGRESS_STARTED)) == (PROGRESS_LAUNCH | PROGRESS_STARTED) &&
           progress_running(p) == 0 && ((p & PROGRESS_FAILED) || progress_next_block(p) >= progress_block_dim(p));
}

struct entry {
    struct npu_command cmd;
    uint64_t progress;
    uint32_t faulted_blocks; /* LAUNCH: blocks that ended with a fault (blocks_done = started - these) */
    struct npu_completion cpl;
};

static struct entry entries[TS_WINDOW];
/* entries in command order; the first norder are live. Two words, so that removing one moves
 * the rest with two loads and two stores (the TS's data sits in DDR, ~25 cycles a load: moving
 * them byte by byte took ~600 cycles between one layer's end and the next one's start). */
static union {
    uint8_t at[TS_WINDOW];
    uint64_t words[TS_WINDOW / 8];
} order_list;
_Static_assert(TS_WINDOW == 16, "order_remove moves the window as two 64-bit words");
static unsigned norder;
static uint32_t free_entries = (1u << TS_WINDOW) - 1;

/* 8 bytes, so that a block's end reads a core's slot with one load. */
struct core_slot {
    uint8_t busy, entry;
    uint8_t icache_valid; /* everything the core's instruction cache holds was fetched
                             after the last possible code write (a LAUNCH without
                             NPU_LAUNCH_CODE_UNCHANGED) */
    uint8_t reserved;
    uint32_t block;
} __attribute__((aligned(8)));
static struct core_slot cores[NPU_MAX_CORES];
_Static_assert(sizeof(struct core_slot) == 8, "a core's slot is one 64-bit word");

/* A core's slot with one 64-bit load (the compiler loads a struct copy field by field). */
static inline struct core_slot read_core_slot(unsigned core)
{
    typedef uint64_t __attribute__((may_alias)) slot_word;
    const uint64_t word = *(const slot_word *)&cores[core];
    struct core_slot slot;
    memcpy(&slot, &word, sizeof slot);
    return slot;
}

static struct npu_queue_header *queue; /* NULL until attached */
static struct npu_command *cmd_ring;
static struct npu_completion *cpl_ring;
static uint32_t cmd_entries, cpl_entries, num_cores;
static uint32_t cmd_head, cpl_tail; /* our copies; we are their only writer */
static uint32_t ts_flags;

static uint64_t event_count[NPU_MAX_EVENTS];     /* RECORD_EVENTs executed */
static uint64_t event_submitted[NPU_MAX_EVENTS]; /* RECORD_EVENTs taken from the ring */

static int notify_host;

/* An external interrupt is pending (a core's block ended, a doorbell): mip, a CSR, no memory
 * access. MEIP is the same bit as MEIE. */
static inline int interrupt_pending(void) { return (read_csr(mip) & MIE_MEIE) != 0; }

/* ---- completions ------------------------------------------------------------------ */

/* Writes record number `index` of the completion ring. Space is guaranteed: a command is
 * only taken when the completion ring has room for it and for every command already held
 * (fetch()). */
static void write_record(uint32_t index, const struct npu_completion *c)
{
    /* The defined fields only, a word at a time: the TS's data and the ring sit in DDR, ~25
     * cycles an access (a memcpy call of 80 bytes copies bytes: ~3 k cycles more). */
    uint64_t *to = (uint64_t *)&cpl_ring[npu_ring_slot(index, cpl_entries)];
    const uint64_t *from = (const uint64_t *)c;
    for (unsigned i = 0; i < NPU_COMPLETION_WRITTEN_BYTES / 8u; i++) to[i] = from[i];
}

/* Publishes `count` records written after the last published one. */
static void publish_records(uint32_t count)
{
    fence_rw(); /* records before index */
    cpl_tail += count;
    VWRITE32(queue->cpl_tail, cpl_tail);
    notify_host = 1;
}

static void write_completion(const struct npu_completion *c)
{
    write_record(cpl_tail, c);
    publish_records(1);
}

static void init_completion(struct npu_completion *c, const struct npu_command *cmd)
{
    uint64_t *words = (uint64_t *)c; /* write_completion copies no more; word stores, not a memset call */
    for (unsigned i = 0; i < NPU_COMPLETION_WRITTEN_BYTES / 8u; i++) words[i] = 0;
    c->seq = cmd->seq;
    c->opcode = cmd->opcode;
    c->stream = cmd->stream;
    c->status = NPU_STATUS_OK;
    c->fault_core = NPU_NO_CORE;
    c->fault_block = NPU_NO_CORE;
}

/* ---- the window --------------------------------------------------------------------- */

static void set_ts_flags(uint32_t flags)
{
    if (flags != ts_flags) {
        ts_flags = flags;
        VWRITE32(queue->ts_flags, flags);
    }
}

static uint32_t completion_space(void)
{
    uint32_t head = VREAD32(queue->cpl_head);
    return npu_ring_space(cpl_tail, head, cpl_entries);
}

/* Takes commands from the ring while the window and the completion ring have room.
 * Returns whether it took any. */
static int fetch(void)
{
    int took = 0;
    while (norder < TS_WINDOW) {
        uint32_t tail = VREAD32(queue->cmd_tail);
        if (npu_ring_empty(tail, cmd_head)) break;
        if (completion_space() < norder + 1) {
            /* Tell the host to ring once it has drained, then check again: a drain that
             * happened before it saw the flag is caught by this second look. */
            set_ts_flags(ts_flags | NPU_TS_FLAG_CPL_STALLED);
            fence_rw();
            if (completion_space() < norder + 1) break;
        }
        set_ts_flags(ts_flags & ~NPU_TS_FLAG_CPL_STALLED);
        fence_rw(); /* index before record */

        /* Straight into a free entry (one exists: norder < TS_WINDOW), taken only if the
         * command is good: the TS's data sits in DDR, and a copy through the stack cost
         * ~16 more accesses per command, which a layer's completion could wait for. */
        const unsigned index = (unsigned)__builtin_ctz(free_entries);
        struct entry *e = &entries[index];
        e->cmd = cmd_ring[npu_ring_slot(cmd_head, cmd_entries)];
        const struct npu_command *cmd = &e->cmd;
        cmd_head++;
        VWRITE32(queue->cmd_head, cmd_head);
        took = 1;

        uint32_t bad = npu_command_check(cmd);
        if (!bad && cmd->opcode == NPU_CMD_WAIT_EVENT && cmd->u.event.count > event_submitted[cmd->u.event.event])
            bad = NPU_BAD_WAIT_COUNT;
        if (bad) {
            struct npu_completion c;
            init_completion(&c, cmd);
            c.status = NPU_STATUS_BAD_COMMAND;
            c.detail = bad;
            c.start_cycle = c.end_cycle = rdcycle();
            trace("seq %lu: bad command (%s)\n", (unsigned long)cmd->seq, npu_bad_command_name(bad));
            write_completion(&c);
            continue;
        }
        if (cmd->opcode == NPU_CMD_RECORD_EVENT) event_submitted[cmd->u.event.event]++;
        /* Code may have been written before this launch: no core's instruction cache is
         * trusted any more (commands are fetched in submission order). */
        if (cmd->opcode == NPU_CMD_LAUNCH && !(cmd->flags & NPU_LAUNCH_CODE_UNCHANGED))
            for (unsigned c = 0; c < NPU_MAX_CORES; c++) cores[c].icache_valid = 0;

        free_entries &= ~(1u << index);
        e->progress = cmd->opcode == NPU_CMD_LAUNCH ? PROGRESS_LAUNCH | (uint64_t)cmd->u.launch.block_dim << 32 : 0;
        e->faulted_blocks = 0;
        init_completion(&e->cpl, cmd);
        order_list.at[norder++] = (uint8_t)index;
    }
    return took;
}

/* Whether the command at window position pos may start: no earlier command of its
 * stream and no earlier barrier is still there (completed commands leave the window);
 * a barrier needs all earlier commands gone. */
static int may_start(unsigned pos)
{
    const struct entry *e = &entries[order_list.at[pos]];
    if (e->cmd.opcode == NPU_CMD_BARRIER) return pos == 0;
    for (unsigned i = 0; i < pos; i++) {
        const struct entry *earlier = &entries[order_list.at[i]];
        if (earlier->cmd.opcode == NPU_CMD_BARRIER || earlier->cmd.stream == e->cmd.stream) return 0;
    }
    return 1;
}

/* Removes window position pos (little-endian: position i is byte i of the 128 bits), moving
 * the later ones down one; the last byte becomes garbage beyond norder. */
static void order_remove(unsigned pos)
{
    uint64_t lo = order_list.words[0], hi = order_list.words[1];
    const unsigned bit = 8u * (pos % 8u);
    if (pos < 8) {
        const uint64_t below = bit ? lo & ((1ull << bit) - 1) : 0; /* positions before pos */
        const uint64_t above = bit < 56 ? (lo >> (bit + 8)) << bit : 0;
        lo = below | above | (hi << 56);
        hi >>= 8;
    } else {
        const uint64_t below = bit ? hi & ((1ull << bit) - 1) : 0;
        const uint64_t above = bit < 56 ? (hi >> (bit + 8)) << bit : 0;
        hi = below | above;
    }
    order_list.words[0] = lo;
    order_list.words[1] = hi;
}

/* Completed commands whose records are not written yet, in completion order: entry indices,
 * 4 bits each (a window of 16 entries). Their entries stay taken until then. */
static struct {
    uint64_t indices;
    uint32_t count;
} unwritten;
_Static_assert(TS_WINDOW <= 16, "unwritten holds 16 entry indices of 4 bits");

/* The command at window position pos has completed: it leaves the window, so the next one
 * of its stream may start at once; its record is written by write_unwritten() at the end of
 * the pass, after the starts (the record's 10 words and the index cost ~0.5 k cycles, which the
 * next layer's first block used to wait for; the host sees records only after the pass). */
static void finish(unsigned pos, uint64_t progress, unsigned count)
{
    unsigned index = order_list.at[pos];
    struct entry *e = &entries[index];
    /* A LAUNCH's start_cycle was set when its first block was given a core. */
    if (!(progress & PROGRESS_LAUNCH) && e->cpl.start_cycle == 0) e->cpl.start_cycle = rdcycle();
    e->cpl.end_cycle = rdcycle();
    trace("seq %lu: done, status %u\n", (unsigned long)e->cmd.seq, e->cpl.status);
    order_remove(pos);
    norder = count - 1;
    unwritten.indices |= (uint64_t)index << (4u * unwritten.count);
    unwritten.count++;
}

/* Writes the records of the completed commands, in completion order, publishes them with one
 * index write and frees their entries. */
static void write_unwritten(void)
{
    const uint32_t count = unwritten.count;
    if (count == 0) return;
    uint64_t indices = unwritten.indices;
    uint32_t freed = 0;
    for (uint32_t i = 0; i < count; i++, indices >>= 4) {
        const unsigned index = (unsigned)(indices & 15u);
        struct entry *e = &entries[index];
        const uint64_t progress = e->progress;
        if (progress & PROGRESS_LAUNCH) /* every block it started has ended */
            e->cpl.blocks_done = progress_next_block(progress) - e->faulted_blocks;
        write_record(cpl_tail + i, &e->cpl);
        freed |= 1u << index;
    }
    publish_records(count);
    free_entries |= freed;
    unwritten.indices = 0;
    unwritten.count = 0;
}

/* A launch whose blocks the cores are being given, its fields held in registers: the TS's
 * data sits in DDR (~25 cycles a load), and reading them again for every block made each
 * core start ~670 cycles after the one before (at 16 cores the last ~10 k cycles after
 * the first); now the loads are once per launch and pass. */
struct dispatching {
    struct entry *e;
    unsigned index;
    uint64_t progress; /* as taken: its flags and block_dim */
    uint64_t entry_pc, args;
    uint32_t next_block, block_dim, running;
    int block0_core; /* the core this pass gave block 0, else -1 */
};

static void dispatching_take(struct dispatching *d, unsigned index, uint64_t progress)
{
    d->index = index;
    d->e = &entries[index];
    d->progress = progress;
    d->entry_pc = d->e->cmd.u.launch.entry;
    d->args = d->e->cmd.u.launch.args;
    d->next_block = progress_next_block(progress);
    d->block_dim = progress_block_dim(progress);
    d->running = progress_running(progress);
    d->block0_core = -1;
    if (d->next_block == 0) d->e->cpl.start_cycle = rdcycle();
}

static void dispatching_put_back(const struct dispatching *d)
{
    d->e->progress = (d->progress & ~0xffffffffull) | progress_counts(d->next_block, d->running);
    /* The cores' window starts with block 0, the first block started: its core's own stamp,
     * read once the pass has given every idle core its block (not between their STARTs). */
    if (d->block0_core >= 0)
        d->e->cpl.core_start_cycle = core_read((unsigned)d->block0_core, NPU_AICORE_BLOCK_START_CYCLE);
}

static void start_block(unsigned core, struct dispatching *d)
{
    core_write(core, NPU_AICORE_ENTRY, d->entry_pc);
    core_write(core, NPU_AICORE_ARGS, d->args);
    core_write(core, NPU_AICORE_BLOCK_IDX, d->next_block);
    core_write(core, NPU_AICORE_BLOCK_DIM, d->block_dim);
    const int keep = cores[core].icache_valid;
    core_write(core, NPU_AICORE_START, NPU_AICORE_START_GO | (keep ? NPU_AICORE_START_KEEP_ICACHE : 0));
    cores[core].icache_valid = 1; /* kept valid, or starting cold after every code write */
    cores[core].busy = 1;
    cores[core].entry = (uint8_t)d->index;
    cores[core].block = d->next_block;
    if (d->next_block == 0) d->block0_core = (int)core;
    d->next_block++;
    d->running++;
}

/* The k-th core an idle-core pass visits: alternately from the two halves of the
 * cores, which sit on either side of the L2 stop on the ring (platform/host_platform.cpp,
 * docs/fabric.md "Ring order"), so a launch of fewer blocks than cores loads both
 * directions of the ring rather than one. `half` = (num_cores + 1) / 2. */
static unsigned dispatch_core(unsigned k, unsigned half)
{
    return (k & 1) ? half + k / 2 : k / 2;
}

/* Idle cores take the next block of the oldest running launch that has blocks left.
 * Starting a block can only make its launch run out of blocks, never give an earlier
 * entry some, so the search for each idle core resumes where the previous one stopped:
 * one pass over the cores and one over the window (with 32 cores, a fresh search per
 * core made dispatch the TS's main cost). */
static inline __attribute__((always_inline)) int dispatch(unsigned count)
{
    int started = 0;
    unsigned pos = 0;
    struct dispatching d = {0};
    const unsigned cores_used = num_cores, half = (cores_used + 1) / 2;
    for (unsigned k = 0; k < cores_used; k++) {
        const unsigned core = dispatch_core(k, half);
        if (cores[core].busy) continue;
        if (!d.e || d.next_block == d.block_dim) {
            if (d.e) dispatching_put_back(&d);
            d.e = 0;
            unsigned index = 0;
            uint64_t progress = 0;
            for (; pos < count; pos++) {
                index = order_list.at[pos];
                progress = entries[index].progress;
                if (progress_has_blocks(progress)) break;
            }
            if (pos == count) break;
            dispatching_take(&d, index, progress);
        }
        start_block(core, &d);
        started = 1;
    }
    if (d.e) dispatching_put_back(&d);
    return started;
}

/* One pass over the window: start what may start, complete what is done, then give
 * idle cores work. Returns whether anything changed (run it again then). */
static int step(void)
{
    int changed = 0;
    /* The window's length in a register: the compiler reloads norder after every store
     * through an entry pointer (it may alias), and each load costs ~25 cycles (DDR). */
    unsigned count = norder;
    for (unsigned pos = 0; pos < count;) {
        /* An interrupt (a core's block ended, a doorbell) ends the pass: the main loop
         * handles it and passes again. A pass over a full window costs ~200 ns an entry
         * (the TS's data sits in DDR), and a block's completion that arrived during one
         * used to wait for it: up to ~5 us added to a layer. (mip, a CSR: no memory access.) */
        if (interrupt_pending()) return 1;
        struct entry *e = &entries[order_list.at[pos]];
        const uint64_t progress = e->progress;
        int done = 0;
        if (progress & PROGRESS_STARTED) {
            done = progress_launch_done(progress);
        } else if (may_start(pos)) {
            switch (e->cmd.opcode) {
            case NPU_CMD_LAUNCH:
                e->progress = progress | PROGRESS_STARTED;
                /* Its blocks go to the idle cores now, and the pass ends here (the next one
                 * goes on): the later entries of a full window cost ~200 ns each (the TS's
                 * data sits in DDR), ~3 k cycles between one layer's end and the next one's
                 * start, and a dispatch() in the middle of the loop made the compiler save
                 * ~8 registers to the stack (in DDR too) before it. */
                changed = 1;
                goto start_blocks;
            case NPU_CMD_RECORD_EVENT:
                event_count[e->cmd.u.event.event]++;
                done = 1;
                break;
            case NPU_CMD_WAIT_EVENT:
                e->cpl.start_cycle = e->cpl.start_cycle ? e->cpl.start_cycle : rdcycle();
                done = event_count[e->cmd.u.event.event] >= e->cmd.u.event.count;
                break;
            default: /* BARRIER, NOP */
                done = 1;
                break;
            }
        }
        if (done) {
            finish(pos, progress, count); /* the next entry moves to pos */
            count--;
            changed = 1;
        } else {
            pos++;
        }
    }
start_blocks:
    if (dispatch(count)) changed = 1;
    /* The records after the starts; before fetch(), whose room checks count the held
     * commands and the published records. */
    write_unwritten();
    /* New commands after the window's completions and starts: copying one from the ring
     * costs ~2 k cycles, which a layer's completion and the next one's start waited for. */
    if (fetch()) changed = 1;
    return changed;
}

/* ---- interrupts --------------------------------------------------------------------- */

/* A core raised done or error: its block has ended. */
static void core_interrupt(unsigned core)
{
    uint64_t status = core_read(core, NPU_AICORE_STATUS);
    if (status & NPU_AICORE_STATUS_RUNNING) { /* a stale level of an earlier block: drop it */
        core_write(core, NPU_AICORE_IRQ_CLEAR, NPU_AICORE_IRQ_CLEAR_DONE | NPU_AICORE_IRQ_CLEAR_ERROR);
        return;
    }
    uint64_t cycles = core_read(core, NPU_AICORE_CYCLES);
    /* The block's end as the core stamped it, in our cycles: the launch's window on the cores
     * ends with its latest block, without the time we take to notice it and complete. */
    uint64_t block_end = core_read(core, NPU_AICORE_BLOCK_END_CYCLE);
    uint64_t pc = (status & NPU_AICORE_STATUS_FAULT) ? core_read(core, NPU_AICORE_FAULT_PC) : 0;
    core_write(core, NPU_AICORE_IRQ_CLEAR, NPU_AICORE_IRQ_CLEAR_DONE | NPU_AICORE_IRQ_CLEAR_ERROR);
    const struct core_slot slot = read_core_slot(core);
    if (!slot.busy) return; /* both lines of one block, or not ours */
    cores[core].busy = 0;

    struct entry *e = &entries[slot.entry];
    uint64_t progress = e->progress - PROGRESS_ONE_RUNNING;
    e->cpl.kernel_cycles += cycles;
    if (block_end > e->cpl.core_end_cycle) e->cpl.core_end_cycle = block_end;
    if (status & NPU_AICORE_STATUS_FAULT) {
        trace("core %u block %u: fault cause %u at pc 0x%lx\n", core, slot.block,
              (unsigned)NPU_AICORE_STATUS_CAUSE(status), (unsigned long)pc);
        e->faulted_blocks++;
        if (!(progress & PROGRESS_FAILED)) {
            progress |= PROGRESS_FAILED;
            e->cpl.status = NPU_STATUS_KERNEL_FAULT;
            e->cpl.detail = (uint32_t)NPU_AICORE_STATUS_CAUSE(status);
            e->cpl.fault_core = core;
            e->cpl.fault_pc = pc;
            e->cpl.fault_block = slot.block;
        }
    }
    e->progress = progress;
}

/* ---- accesses that may fault (attach checks host-given addresses) -------------------- */

static volatile int access_faulted;

static void access_fault_handler(struct npuvp_trap_frame *frame)
{
    access_faulted = 1;
    frame->mepc += npuvp_insn_length(frame->mepc);
}

/* Reads `words` 64-bit words from `address` (8-byte aligned) into `to`, and, if `write_back`,
 * stores each word back unchanged (a write probe). Returns 0 if any access faulted: the
 * host gave an address with no memory (or read-only memory) behind it. */
static int checked_copy(void *to, uint64_t address, unsigned words, int write_back)
{
    npuvp_trap_handler_t old_load = npuvp_set_exception_handler(CAUSE_LOAD_ACCESS, access_fault_handler);
    npuvp_trap_handler_t old_store = npuvp_set_exception_handler(CAUSE_STORE_ACCESS, access_fault_handler);
    access_faulted = 0;
    for (unsigned i = 0; i < words && !access_faulted; i++) {
        volatile uint64_t *word = (volatile uint64_t *)(uintptr_t)(address + 8u * i);
        uint64_t value = *word;
        if (to) ((uint64_t *)to)[i] = value;
        if (write_back && !access_faulted) *word = value;
    }
    npuvp_set_exception_handler(CAUSE_LOAD_ACCESS, old_load);
    npuvp_set_exception_handler(CAUSE_STORE_ACCESS, old_store);
    return !access_faulted;
}

/* The checks of npu_queue_header_check plus those that need the hardware: the header and
 * both rings are memory the TS can read (and, where it writes, write), and every AI Core the
 * queue names answers with its CORE_ID. A bad address or core count must not crash the
 * TS: it answers ATTACH_FAILED and waits for a corrected header. */
static uint32_t attach_check(uint64_t address, struct npu_queue_header *copy)
{
    if (address == 0 || (address & 63u)) return NPU_ATTACH_BAD_ALIGNMENT;
    fence_rw();
    if (!checked_copy(copy, address, sizeof *copy / 8u, 0)) return NPU_ATTACH_BAD_ADDRESS;
    uint32_t reason = npu_queue_header_check(copy, address);
    if (reason != NPU_ATTACH_OK) return reason;
    /* The index lines the TS writes (cmd_head, cpl_tail and ts_flags: lines 2 and 3). */
    if (!checked_copy(NULL, address + 128u, 16u, 1)) return NPU_ATTACH_BAD_ADDRESS;
    const uint64_t cmd_bytes = (uint64_t)copy->cmd_entries * sizeof(struct npu_command);
    const uint64_t cpl_bytes = (uint64_t)copy->cpl_entries * sizeof(struct npu_completion);
    if (!checked_copy(NULL, copy->cmd_ring, 1, 0) || !checked_copy(NULL, copy->cmd_ring + cmd_bytes - 8u, 1, 0) ||
        !checked_copy(NULL, copy->cpl_ring, 1, 1) || !checked_copy(NULL, copy->cpl_ring + cpl_bytes - 8u, 1, 1))
        return NPU_ATTACH_BAD_ADDRESS;
    for (unsigned core = 0; core < copy->num_cores; core++) {
        uint64_t id = NPU_NO_CORE;
        if (!checked_copy(&id, NPU_AICORE_CONTROL(core) + NPU_AICORE_CORE_ID, 1, 0) || id != core)
            return NPU_ATTACH_BAD_NUM_CORES;
    }
    return NPU_ATTACH_OK;
}

static void try_attach(void)
{
    uint64_t address = mailbox_read(NPU_MB_SCRATCH(NPU_SCRATCH_QUEUE));
    if (address == 0) return;
    struct npu_queue_header *h = (struct npu_queue_header *)(uintptr_t)address;
    struct npu_queue_header copy;
    uint32_t reason = attach_check(address, &copy);
    if (reason != NPU_ATTACH_OK) {
        trace("attach 0x%lx failed: %u\n", (unsigned long)address, reason);
        mailbox_write(NPU_MB_SCRATCH(NPU_SCRATCH_TS_STATE), NPU_TS_STATE_MAKE(NPU_TS_STATE_ATTACH_FAILED, reason));
        notify_host = 1;
        return;
    }
    cmd_ring = (struct npu_command *)(uintptr_t)copy.cmd_ring;
    cpl_ring = (struct npu_completion *)(uintptr_t)copy.cpl_ring;
    cmd_entries = copy.cmd_entries;
    cpl_entries = copy.cpl_entries;
    num_cores = copy.num_cores;
    cmd_head = copy.cmd_head;
    cpl_tail = copy.cpl_tail;
    ts_flags = 0;
    queue = h;
    VWRITE32(queue->ts_flags, 0);
    for (unsigned core = 0; core < num_cores; core++) {
        /* Levels left from before us (a direct launch, an earlier run) are not ours. */
        core_write(core, NPU_AICORE_IRQ_CLEAR, NPU_AICORE_IRQ_CLEAR_DONE | NPU_AICORE_IRQ_CLEAR_ERROR);
        plic_enable(NPU_PLIC_SOURCE_AICORE_DONE(core));
        plic_enable(NPU_PLIC_SOURCE_AICORE_ERROR(core));
    }
    trace("attached queue 0x%lx: %u commands, %u completions, %u cores\n", (unsigned long)address,
          cmd_entries, cpl_entries, num_cores);
    mailbox_write(NPU_MB_SCRATCH(NPU_SCRATCH_TS_STATE), NPU_TS_STATE_MAKE(NPU_TS_STATE_READY, 0));
    notify_host = 1;
}

/* Claims and handles every pending source. Returns whether the doorbell rang. */
static int handle_interrupts(void)
{
    int doorbell = 0;
    for (;;) {
        uint32_t source = mmio_read32(NPUVP_PLIC_CLAIM(CONTEXT));
        if (source == 0) break;
        if (source == NPU_PLIC_SOURCE_DOORBELL) {
            /* Acknowledge before reading the ring: a doorbell after this raises the
             * level again, so no command written after our read goes unnoticed. */
            mailbox_write(NPU_MB_DOORBELL_ACK, 1);
            doorbell = 1;
        } else if (source >= NPU_PLIC_SOURCE_AICORE_DONE(0) &&
                   source < NPU_PLIC_SOURCE_AICORE_DONE(NPU_MAX_CORES)) {
            core_interrupt((source - NPU_PLIC_SOURCE_AICORE_DONE(0)) / 2);
        }
        mmio_write32(NPUVP_PLIC_CLAIM(CONTEXT), source);
    }
    return doorbell;
}

int main(void)
{
    mailbox_write(NPU_MB_SCRATCH(NPU_SCRATCH_TS_VERSION), NPU_PROTOCOL_VERSION);
    mmio_write32(NPUVP_PLIC_THRESHOLD(CONTEXT), 0);
    plic_enable(NPU_PLIC_SOURCE_DOORBELL);
    irq_disable();
    set_csr(mie, MIE_MEIE);
    mailbox_write(NPU_MB_SCRATCH(NPU_SCRATCH_TS_STATE), NPU_TS_STATE_MAKE(NPU_TS_STATE_BOOTED, 0));
    trace("booted, protocol %u.%u\n", NPU_PROTOCOL_VERSION_MAJOR, NPU_PROTOCOL_VERSION_MINOR);

    for (;;) {
        int doorbell = handle_interrupts();
        if (!queue && doorbell) try_attach();
        if (queue)
            while (step())
                (void)handle_interrupts(); /* a doorbell needs nothing once attached: fetch reads the tail */
        if (notify_host) {
            fence_rw(); /* completions and indices before the interrupt */
            mailbox_write(NPU_MB_HOST_IRQ, 1);
            notify_host = 0;
        }
        wfi(); /* returns at once if a source is pending */
    }
}
