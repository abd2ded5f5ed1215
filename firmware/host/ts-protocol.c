/*
 * The host <-> task-scheduler protocol spoken raw (scenarios/ts-protocol.yaml).
 *
 * The driver always behaves (credits keep both rings from filling, it never sends a bad
 * header), so it cannot reach the task scheduler's edge cases. This program talks the
 * protocol of sw/include/npuvp/npu_protocol.h (docs/npu-protocol.md) itself: it owns the
 * queue header and both rings (static, 64-byte aligned, in DDR), rings the doorbell,
 * sleeps in WFI for PLIC context 0 source 21 (NPU_PLIC_SOURCE_HOST_IRQ), acknowledges
 * with HOST_IRQ_ACK and consumes completion records only after an interrupt. The driver
 * library is linked only for npuvp_kernel_load (the block_probe kernel, embedded).
 *
 * The rings are tiny and of different sizes (8 commands, 4 completions) and their
 * counters start just below 2^32, so slots and counters wrap early. Every command gets a
 * unique 64-bit seq and an expected completion (opcode, stream, status, detail, blocks);
 * every record is checked when it arrives: its seq exactly once, in command order within
 * its stream (bad commands, which take no part in ordering, and barriers aside), and each
 * launch's per-block records (sw/include/npuvp/block_probe.h) once per block.
 *
 * Sections, each printing "ts-protocol: <section>: ok":
 *   attach          TS_VERSION; a doorbell with SCRATCH[QUEUE] = 0 is ignored; a header
 *                   with one defect at a time (23 of them, the header itself at +8 and at an
 *                   odd address included) is refused with each NPU_ATTACH_* reason, each
 *                   answer awaited by interrupt, and the TS stays unattached; then the
 *                   corrected header attaches (READY); SCRATCH[QUEUE] is not read again.
 *   host-irq        a launch's completion arrives by interrupt: the host sleeps in WFI, the
 *                   HOST_IRQ level is high until HOST_IRQ_ACK, low afterwards, nothing is
 *                   pending after the claim is completed.
 *   wrap            16 launches (1 .. 2N+1 blocks) and 8 NOPs on four streams, then three
 *                   NOPs published by one doorbell, across 2^32 of both counters and many
 *                   turns of both rings.
 *   bad-commands    every NPU_BAD_* reason (opcode 0, 6, 0xffff; flags; stream; entry 0 and
 *                   odd; block_dim 0, 65536; event 64; wait count above the records,
 *                   including after a refused RECORD): BAD_COMMAND with the right detail and
 *                   seq, at once (before an earlier launch of its stream), nothing run;
 *                   the queue carries on.
 *   stream-order    launches of one stream run one after the other (block timestamps).
 *   concurrency     launches of different streams overlap (2+ cores), a NOP on a third
 *                   stream completes while they run, the blocks of one launch spread over
 *                   the cores.
 *   barrier         a BARRIER completes after every earlier command and holds every later
 *                   one (block and TS timestamps, completion order).
 *   events          WAIT_EVENT on stream B holds stream B until RECORD_EVENT on stream A
 *                   (after a long launch on A) has executed; other streams go on (event 63,
 *                   stream 15: the largest valid ids).
 *   cmd-ring-full   the TS holds as many commands as the completion ring has room for, the
 *                   command ring fills, the host sees it full and waits for cmd_head.
 *   cpl-ring-full   the host stops consuming: the TS fills the completion ring, stops taking
 *                   commands, sets NPU_TS_FLAG_CPL_STALLED, ignores a doorbell without room,
 *                   overwrites no record, and resumes record by record as the host advances
 *                   cpl_head and rings; again with two launches in flight when it stalls.
 *   summary         every command completed exactly once, barrier order over the whole run,
 *                   no refused launch ran, rings empty, ts_flags clear.
 * Every wait is bounded (CLINT mtime): a broken TS makes the program print why and fail.
 *
 * Exit status 0 and "ts-protocol: PASS" when every check holds, 1 otherwise.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <npuvp/npu_protocol.h>
#include <npuvp/platform.h>
#include <npuvp/trap.h>

#include <npuvp/block_probe.h>
#include "npuvp_driver.h"

NPUVP_DECLARE_KERNEL_IMAGE(block_probe);

#define CMD_N 8u                      /* command ring entries */
#define CPL_N 4u                      /* completion ring entries */
#define CMD_START 0xfffffff3u         /* counters: both wrap early, at non-zero slots */
#define CPL_START 0xfffffff2u
#define SEQ_BASE 0x5e90000000000000ull /* seq = SEQ_BASE + command number: all 64 bits echoed */

#define MAX_CMDS 256u
#define MAX_PROBES 64u
#define PROBE_MAX_BLOCKS (2u * NPU_MAX_CORES + 2u) /* 2N + 1 blocks on NPU_MAX_CORES, and one more */

#define LONG_DELAY 100000u /* AI Core cycles a "long" block spins: 100 us, ten sim quanta */
#define WAIT_US 20000u     /* bound of every wait (simulated time) */
#define HOLD_US 200u       /* "nothing may happen" windows */
#define POLL_US 5u         /* re-check period for states no interrupt announces */

#define VREAD32(lvalue) (*(volatile uint32_t *)&(lvalue))
#define VWRITE32(lvalue, v) (*(volatile uint32_t *)&(lvalue) = (uint32_t)(v))

static inline void fence_rw(void) { __asm__ volatile("fence rw, rw" ::: "memory"); }
static inline uint64_t mailbox_read(unsigned offset) { return mmio_read64(NPU_MAILBOX_BASE + offset); }
static inline void mailbox_write(unsigned offset, uint64_t value) { mmio_write64(NPU_MAILBOX_BASE + offset, value); }
static inline uint64_t addr(const volatile void *p) { return (uint64_t)(uintptr_t)p; }

/* ---- the queue --------------------------------------------------------------------------- */

static struct npu_queue_header queue __attribute__((aligned(64)));
static struct npu_command cmd_ring[CMD_N] __attribute__((aligned(64)));
static struct npu_completion cpl_ring[CPL_N] __attribute__((aligned(64)));
static uint8_t spare[1024] __attribute__((aligned(64))); /* misaligned header copy, junk header */

static uint32_t cmd_tail = CMD_START, cpl_head = CPL_START; /* ours: we are their only writer */

/* ---- block_probe launches ---------------------------------------------------------------- */

struct probe {
    struct block_probe_args args;
    struct block_probe_record rec[PROBE_MAX_BLOCKS];
} __attribute__((aligned(64)));

static struct probe probes[MAX_PROBES];
static unsigned nprobes;
static struct probe never_run; /* args of every refused LAUNCH: must stay untouched */
static uint64_t kernel_entry;
static uint32_t ncores;

/* docs/memory-map.md: nothing at the mesh-cluster window yet; the boot ROM is read-only. */
#define UNMAPPED_ADDRESS 0x40000000ull
#define BOOT_ROM_ADDRESS 0x00001000ull

/* ---- what every command must complete with ----------------------------------------------- */

struct expect {
    const char *what;
    uint16_t opcode, stream;
    uint32_t status, detail;
    uint32_t blocks;
    uint64_t delay;
    struct probe *probe;
    int done;
    unsigned pos; /* arrival order of its completion */
    struct npu_completion cpl;
};

static struct expect ex[MAX_CMDS];
static unsigned ncmds, ndone, npos;
static int stream_last[NPU_MAX_STREAMS]; /* last command number completed per stream */
static uint64_t ev_records[NPU_MAX_EVENTS]; /* valid RECORD_EVENTs submitted per event */

/* ---- bookkeeping ------------------------------------------------------------------------- */

static int attached, auto_drain;
static unsigned long hart;
static int failures, section_start;
static const char *section = "start";
static unsigned long host_irqs, wfis, full_waits, stall_doorbells;

static void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(int ok, const char *fmt, ...)
{
    if (ok) return;
    va_list ap;
    va_start(ap, fmt);
    printf("ts-protocol: UNEXPECTED: %s: ", section);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    failures++;
}

static void dump_state(void)
{
    uint64_t state = mailbox_read(NPU_MB_SCRATCH(NPU_SCRATCH_TS_STATE));
    printf("ts-protocol: state: TS_STATE %u detail %u; cmd_tail 0x%08x cmd_head 0x%08x; cpl_tail 0x%08x "
           "cpl_head 0x%08x; ts_flags 0x%x; %u commands, %u completed; HOST_IRQ %lu, DOORBELL %lu\n",
           (unsigned)NPU_TS_STATE(state), (unsigned)NPU_TS_STATE_DETAIL(state), (unsigned)cmd_tail,
           (unsigned)VREAD32(queue.cmd_head), (unsigned)VREAD32(queue.cpl_tail), (unsigned)cpl_head,
           (unsigned)VREAD32(queue.ts_flags), ncmds, ndone, (unsigned long)mailbox_read(NPU_MB_HOST_IRQ),
           (unsigned long)mailbox_read(NPU_MB_DOORBELL));
    for (unsigned i = 0; i < ncmds; i++)
        if (!ex[i].done) printf("ts-protocol: state: command %u (%s) not completed\n", i, ex[i].what);
}

static void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("ts-protocol: UNEXPECTED: %s: ", section);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    dump_state();
    printf("ts-protocol: FAIL\n");
    exit(EXIT_FAILURE);
}

static void begin(const char *name)
{
    section = name;
    section_start = failures;
}

static void end(void)
{
    if (failures == section_start) printf("ts-protocol: %s: ok\n", section);
    else printf("ts-protocol: %s: %d unexpected results\n", section, failures - section_start);
}

/* ---- completions ------------------------------------------------------------------------- */

static void check_probe(unsigned idx)
{
    const struct expect *e = &ex[idx];
    const struct probe *p = e->probe;
    fence_rw();
    for (uint32_t b = 0; b < e->blocks; b++) {
        const struct block_probe_record *r = &p->rec[b];
        check(r->visits == 1, "command %u (%s): block %u ran %u times", idx, e->what, (unsigned)b, (unsigned)r->visits);
        check(r->block == b && r->block_dim == e->blocks, "command %u (%s): block %u saw BLOCK_IDX %u, BLOCK_DIM %u",
              idx, e->what, (unsigned)b, (unsigned)r->block, (unsigned)r->block_dim);
        check(r->core < ncores, "command %u (%s): block %u ran on AI Core %u of %u", idx, e->what, (unsigned)b,
              (unsigned)r->core, (unsigned)ncores);
        check(r->end_cycle >= r->start_cycle && r->end_cycle - r->start_cycle >= e->delay,
              "command %u (%s): block %u ran from cycle %lu to %lu, shorter than its delay %lu", idx, e->what,
              (unsigned)b, (unsigned long)r->start_cycle, (unsigned long)r->end_cycle, (unsigned long)e->delay);
        /* The kernel's own cycle counter (AI Core clock = TS clock here) inside the window the
         * cores stamped: from the START write to end_kernel. */
        check(r->start_cycle >= e->cpl.core_start_cycle && r->end_cycle <= e->cpl.core_end_cycle,
              "command %u (%s): block %u ran from cycle %lu to %lu, outside the AI Cores' window %lu .. %lu", idx,
              e->what, (unsigned)b, (unsigned long)r->start_cycle, (unsigned long)r->end_cycle,
              (unsigned long)e->cpl.core_start_cycle, (unsigned long)e->cpl.core_end_cycle);
    }
    if (e->blocks < PROBE_MAX_BLOCKS)
        check(p->rec[e->blocks].visits == 0, "command %u (%s): a block beyond block_dim ran", idx, e->what);
}

/* One completion record, consumed from the ring. */
static void record(const struct npu_completion *c)
{
    const uint64_t idx64 = c->seq - SEQ_BASE;
    if (c->seq < SEQ_BASE || idx64 >= ncmds) {
        check(0, "completion with unknown seq 0x%lx (opcode %u, stream %u, status %u)", (unsigned long)c->seq,
              c->opcode, c->stream, (unsigned)c->status);
        return;
    }
    const unsigned idx = (unsigned)idx64;
    struct expect *e = &ex[idx];
    if (e->done) {
        check(0, "command %u (%s): a second completion record", idx, e->what);
        return;
    }
    e->done = 1;
    e->pos = npos++;
    e->cpl = *c;
    ndone++;

    check(c->opcode == e->opcode && c->stream == e->stream, "command %u (%s): completion echoes opcode %u stream %u, "
          "expected %u / %u", idx, e->what, c->opcode, c->stream, e->opcode, e->stream);
    check(c->status == e->status && c->detail == e->detail,
          "command %u (%s): status %u (%s) detail %u, expected %u (%s) detail %u", idx, e->what, (unsigned)c->status,
          npu_status_name(c->status), (unsigned)c->detail, (unsigned)e->status, npu_status_name(e->status),
          (unsigned)e->detail);
    check(c->fault_core == NPU_NO_CORE && c->fault_block == NPU_NO_CORE && c->fault_pc == 0,
          "command %u (%s): fault fields set without a fault (core 0x%x, block 0x%x, pc 0x%lx)", idx, e->what,
          (unsigned)c->fault_core, (unsigned)c->fault_block, (unsigned long)c->fault_pc);
    check(c->start_cycle != 0 && c->end_cycle >= c->start_cycle, "command %u (%s): TS cycles %lu .. %lu", idx,
          e->what, (unsigned long)c->start_cycle, (unsigned long)c->end_cycle);
    if (e->opcode == NPU_CMD_LAUNCH && e->status == NPU_STATUS_OK) {
        check(c->blocks_done == e->blocks, "command %u (%s): %u blocks done, expected %u", idx, e->what,
              (unsigned)c->blocks_done, (unsigned)e->blocks);
        check(c->kernel_cycles >= (uint64_t)e->blocks * e->delay, "command %u (%s): kernel_cycles %lu", idx, e->what,
              (unsigned long)c->kernel_cycles);
        /* The cores' own window: after the TS started the launch, before it completed it,
         * at least one block's delay long. */
        check(c->core_start_cycle > c->start_cycle && c->core_end_cycle < c->end_cycle &&
                  c->core_end_cycle - c->core_start_cycle >= e->delay,
              "command %u (%s): AI Cores' window %lu .. %lu outside the TS's %lu .. %lu or shorter than %lu", idx,
              e->what, (unsigned long)c->core_start_cycle, (unsigned long)c->core_end_cycle,
              (unsigned long)c->start_cycle, (unsigned long)c->end_cycle, (unsigned long)e->delay);
        check_probe(idx);
    } else {
        check(c->blocks_done == 0 && c->kernel_cycles == 0, "command %u (%s): blocks_done %u, kernel_cycles %lu",
              idx, e->what, (unsigned)c->blocks_done, (unsigned long)c->kernel_cycles);
    }
    if (e->opcode != NPU_CMD_LAUNCH || e->status == NPU_STATUS_BAD_COMMAND)
        check(c->core_start_cycle == 0 && c->core_end_cycle == 0, "command %u (%s): AI Cores' window %lu .. %lu",
              idx, e->what, (unsigned long)c->core_start_cycle, (unsigned long)c->core_end_cycle);
    /* Stream order: bad commands take no part in ordering, a BARRIER ignores its stream. */
    if (e->status != NPU_STATUS_BAD_COMMAND && e->opcode != NPU_CMD_BARRIER && e->stream < NPU_MAX_STREAMS) {
        check((int)idx > stream_last[e->stream], "command %u (%s) on stream %u completed after command %d of its stream",
              idx, e->what, e->stream, stream_last[e->stream]);
        stream_last[e->stream] = (int)idx;
    }
}

/* The TS takes a command only with room for the completion of every command it holds: the
 * commands taken minus the records we consumed never exceed the completion ring. */
static void check_flow(void)
{
    if (!attached) return;
    const uint32_t head = VREAD32(queue.cmd_head);
    const uint32_t taken = head - CMD_START, consumed = cpl_head - CPL_START;
    static int reported;
    if (!reported && (taken - consumed > CPL_N || npu_ring_used(cmd_tail, head) > CMD_N)) {
        reported = 1;
        check(0, "flow control broken: %u commands taken, %u completions consumed (ring of %u), cmd_head 0x%08x "
              "for cmd_tail 0x%08x", (unsigned)taken, (unsigned)consumed, CPL_N, (unsigned)head, (unsigned)cmd_tail);
    }
}

static void take_record(void)
{
    struct npu_completion c = cpl_ring[npu_ring_slot(cpl_head, CPL_N)];
    cpl_head++;
    record(&c);
}

/* Publishes cpl_head; rings if the TS said it waits for room (protocol: "Flow control"). */
static void publish_cpl_head(void)
{
    fence_rw();
    VWRITE32(queue.cpl_head, cpl_head);
    fence_rw(); /* cpl_head before reading the flag: pairs with the TS's flag-then-recheck */
    if (VREAD32(queue.ts_flags) & NPU_TS_FLAG_CPL_STALLED) {
        stall_doorbells++;
        mailbox_write(NPU_MB_DOORBELL, 1);
    }
}

/* Consumes every record written: called after HOST_IRQ_ACK. */
static void drain(void)
{
    const uint32_t tail = VREAD32(queue.cpl_tail);
    fence_rw(); /* index before records */
    if (npu_ring_used(tail, cpl_head) > CPL_N)
        fatal("cpl_tail 0x%08x is %u records ahead of cpl_head 0x%08x: the TS overran the completion ring",
              (unsigned)tail, (unsigned)(tail - cpl_head), (unsigned)cpl_head);
    if (tail == cpl_head) return;
    while (cpl_head != tail) take_record();
    publish_cpl_head();
    check_flow();
}

/* ---- interrupts and waiting ---------------------------------------------------------------- */

/* Claims every pending source of context 0. HOST_IRQ: acknowledge first (a record written
 * after that raises the level again), then drain (if we consume), then complete. */
static int claim_host(void)
{
    int got = 0;
    for (;;) {
        uint32_t source = mmio_read32(NPUVP_PLIC_CLAIM(NPU_PLIC_CONTEXT_HOST));
        if (source == 0) break;
        if (source == NPU_PLIC_SOURCE_HOST_IRQ) {
            host_irqs++;
            mailbox_write(NPU_MB_HOST_IRQ_ACK, 1);
            if (attached && auto_drain) drain();
            got = 1;
        } else {
            check(0, "PLIC context 0 claimed source %u", (unsigned)source);
        }
        mmio_write32(NPUVP_PLIC_CLAIM(NPU_PLIC_CONTEXT_HOST), source);
    }
    return got;
}

/* Sleeps in WFI until the host interrupt (handled: returns 1) or mtime reaches wake_at (0).
 * mstatus.MIE stays clear: WFI returns on a pending enabled interrupt (MEIP, or MTIP at
 * wake_at) and we claim ourselves, so an interrupt between the check and the WFI is not lost. */
static int service(uint64_t wake_at)
{
    for (;;) {
        if (claim_host()) return 1;
        check_flow();
        if (clint_mtime() >= wake_at) return 0;
        clint_set_mtimecmp(hart, wake_at);
        wfis++;
        wfi();
        clint_set_mtimecmp(hart, UINT64_MAX);
    }
}

/* Waits until cond holds, at most timeout_us; between checks it sleeps until the host
 * interrupt, or at most tick_us (0: interrupts only) for states no interrupt announces. */
#define WAIT_FOR(cond, timeout_us, tick_us, ...)                                                     \
    do {                                                                                             \
        const uint64_t deadline_ = clint_mtime() + NPUVP_US_TO_TICKS(timeout_us);                    \
        while (!(cond)) {                                                                            \
            uint64_t now_ = clint_mtime();                                                           \
            if (now_ >= deadline_) fatal("timeout waiting for " __VA_ARGS__);                        \
            uint64_t wake_ = (tick_us) ? now_ + NPUVP_US_TO_TICKS(tick_us) : deadline_;              \
            service(wake_ < deadline_ ? wake_ : deadline_);                                          \
        }                                                                                            \
    } while (0)

static void sleep_us(uint32_t us)
{
    const uint64_t until = clint_mtime() + NPUVP_US_TO_TICKS(us);
    while (clint_mtime() < until) service(until);
}

static void wait_done(unsigned idx)
{
    WAIT_FOR(ex[idx].done, WAIT_US, 0, "the completion of command %u (%s)", idx, ex[idx].what);
}

static void wait_idle(void) { WAIT_FOR(ndone == ncmds, WAIT_US, 0, "the completion of every command"); }

/* ---- submission ---------------------------------------------------------------------------- */

static struct npu_command make(uint16_t opcode, uint16_t stream)
{
    struct npu_command c;
    memset(&c, 0, sizeof c);
    c.opcode = opcode;
    c.stream = stream;
    return c;
}

/* Writes one command (seq = its number), waiting while the command ring is full. */
static unsigned submit_ex(struct npu_command *c, const char *what, uint32_t status, uint32_t detail, int ring)
{
    if (ncmds >= MAX_CMDS) fatal("too many commands");
    const unsigned idx = ncmds++;
    struct expect *e = &ex[idx];
    e->what = what;
    e->opcode = c->opcode;
    e->stream = c->stream;
    e->status = status;
    e->detail = detail;
    c->seq = SEQ_BASE + idx;

    if (npu_ring_full(cmd_tail, VREAD32(queue.cmd_head), CMD_N)) {
        full_waits++;
        WAIT_FOR(!npu_ring_full(cmd_tail, VREAD32(queue.cmd_head), CMD_N), WAIT_US, POLL_US,
                 "room in the command ring for command %u (%s)", idx, what);
    }
    cmd_ring[npu_ring_slot(cmd_tail, CMD_N)] = *c;
    fence_rw(); /* record before index */
    cmd_tail++;
    VWRITE32(queue.cmd_tail, cmd_tail);
    if (ring) {
        fence_rw(); /* index before doorbell */
        mailbox_write(NPU_MB_DOORBELL, 1);
    }
    return idx;
}

static unsigned submit(struct npu_command *c, const char *what)
{
    return submit_ex(c, what, NPU_STATUS_OK, 0, 1);
}

static unsigned submit_bad(struct npu_command *c, const char *what, uint32_t reason)
{
    return submit_ex(c, what, NPU_STATUS_BAD_COMMAND, reason, 1);
}

static unsigned nop(uint16_t stream, const char *what)
{
    struct npu_command c = make(NPU_CMD_NOP, stream);
    return submit(&c, what);
}

static unsigned launch(uint16_t stream, uint32_t blocks, uint64_t delay, const char *what)
{
    if (nprobes >= MAX_PROBES || blocks > PROBE_MAX_BLOCKS) fatal("out of probes");
    struct probe *p = &probes[nprobes++];
    p->args.records = addr(p->rec);
    p->args.delay_count = 1;
    p->args.delays[0] = delay;
    struct npu_command c = make(NPU_CMD_LAUNCH, stream);
    c.u.launch.entry = kernel_entry;
    c.u.launch.args = addr(&p->args);
    c.u.launch.block_dim = blocks;
    fence_rw(); /* arguments before the command */
    unsigned idx = submit(&c, what);
    ex[idx].blocks = blocks;
    ex[idx].delay = delay;
    ex[idx].probe = p;
    return idx;
}

static unsigned record_event(uint16_t stream, uint32_t event, const char *what)
{
    struct npu_command c = make(NPU_CMD_RECORD_EVENT, stream);
    c.u.event.event = event;
    ev_records[event]++;
    return submit(&c, what);
}

static unsigned wait_event(uint16_t stream, uint32_t event, uint64_t count, const char *what)
{
    struct npu_command c = make(NPU_CMD_WAIT_EVENT, stream);
    c.u.event.event = event;
    c.u.event.count = count;
    return submit(&c, what);
}

static unsigned barrier(uint16_t stream, const char *what)
{
    struct npu_command c = make(NPU_CMD_BARRIER, stream);
    return submit(&c, what);
}

/* A LAUNCH that would run block_probe on never_run if the TS took it for valid. */
static struct npu_command bad_launch(uint16_t stream)
{
    struct npu_command c = make(NPU_CMD_LAUNCH, stream);
    c.u.launch.entry = kernel_entry;
    c.u.launch.args = addr(&never_run.args);
    c.u.launch.block_dim = 1;
    return c;
}

/* Block and completion timestamps. */
static const struct block_probe_record *blk(unsigned idx, unsigned b) { return &ex[idx].probe->rec[b]; }
static uint64_t first_start(unsigned idx)
{
    uint64_t t = UINT64_MAX;
    for (unsigned b = 0; b < ex[idx].blocks; b++) t = blk(idx, b)->start_cycle < t ? blk(idx, b)->start_cycle : t;
    return t;
}
static uint64_t last_end(unsigned idx)
{
    uint64_t t = 0;
    for (unsigned b = 0; b < ex[idx].blocks; b++) t = blk(idx, b)->end_cycle > t ? blk(idx, b)->end_cycle : t;
    return t;
}
static const struct npu_completion *cpl(unsigned idx) { return &ex[idx].cpl; }

/* ---- AI Cores -------------------------------------------------------------------------------- */

static volatile int probe_faulted;

static void probe_fault_handler(struct npuvp_trap_frame *frame)
{
    probe_faulted = 1;
    frame->mepc += npuvp_insn_length(frame->mepc);
}

/* AI Cores present: CORE_ID of each control window, until one faults (as the driver does). */
static uint32_t count_cores(void)
{
    npuvp_trap_handler_t old = npuvp_set_exception_handler(CAUSE_LOAD_ACCESS, probe_fault_handler);
    uint32_t n = 0;
    for (; n < NPU_MAX_CORES; n++) {
        probe_faulted = 0;
        uint64_t id = mmio_read64(NPU_AICORE_CONTROL(n) + NPU_AICORE_CORE_ID);
        if (probe_faulted || id != n) break;
    }
    npuvp_set_exception_handler(CAUSE_LOAD_ACCESS, old);
    return n;
}

/* ---- sections -------------------------------------------------------------------------------- */

static void fill_header(struct npu_queue_header *h)
{
    memset(h, 0, sizeof *h);
    h->magic = NPU_QUEUE_MAGIC;
    h->version = NPU_PROTOCOL_VERSION;
    h->cmd_entries = CMD_N;
    h->cpl_entries = CPL_N;
    h->cmd_ring = addr(cmd_ring);
    h->cpl_ring = addr(cpl_ring);
    h->num_cores = ncores;
    h->cmd_tail = h->cmd_head = CMD_START;
    h->cpl_tail = h->cpl_head = CPL_START;
}

/* Writes SCRATCH[QUEUE], rings, sleeps until the TS's answer (HOST_IRQ), checks TS_STATE. */
static void attach_try(uint64_t header_address, uint32_t state, uint32_t detail, const char *what)
{
    fence_rw(); /* header before its address */
    mailbox_write(NPU_MB_SCRATCH(NPU_SCRATCH_QUEUE), header_address);
    const unsigned long irqs = host_irqs;
    fence_rw();
    mailbox_write(NPU_MB_DOORBELL, 1);
    WAIT_FOR(host_irqs != irqs, WAIT_US, 0, "the TS's answer to a header with %s", what);
    uint64_t v = mailbox_read(NPU_MB_SCRATCH(NPU_SCRATCH_TS_STATE));
    check(NPU_TS_STATE(v) == state && NPU_TS_STATE_DETAIL(v) == detail,
          "header with %s: TS_STATE %u detail %u, expected %u detail %u", what, (unsigned)NPU_TS_STATE(v),
          (unsigned)NPU_TS_STATE_DETAIL(v), (unsigned)state, (unsigned)detail);
}

static void section_attach(void)
{
    begin("attach");
    WAIT_FOR(NPU_TS_STATE(mailbox_read(NPU_MB_SCRATCH(NPU_SCRATCH_TS_STATE))) != NPU_TS_STATE_RESET, WAIT_US,
             POLL_US, "the TS to boot (TS_STATE still RESET: is ts/ts.elf loaded on soc.ts?)");
    uint64_t state = mailbox_read(NPU_MB_SCRATCH(NPU_SCRATCH_TS_STATE));
    check(state == NPU_TS_STATE_MAKE(NPU_TS_STATE_BOOTED, 0), "TS_STATE 0x%lx after boot, expected BOOTED",
          (unsigned long)state);
    uint64_t version = mailbox_read(NPU_MB_SCRATCH(NPU_SCRATCH_TS_VERSION));
    check(version == NPU_PROTOCOL_VERSION, "TS_VERSION 0x%lx, expected 0x%x", (unsigned long)version,
          NPU_PROTOCOL_VERSION);

    /* A doorbell without a queue address: the TS acknowledges it and does nothing else. */
    mailbox_write(NPU_MB_SCRATCH(NPU_SCRATCH_QUEUE), 0);
    unsigned long irqs = host_irqs;
    mailbox_write(NPU_MB_DOORBELL, 1);
    sleep_us(HOLD_US);
    check(host_irqs == irqs, "the TS answered a doorbell while SCRATCH[QUEUE] was 0");
    check(mailbox_read(NPU_MB_DOORBELL) == 0, "the TS did not acknowledge the doorbell");
    check(NPU_TS_STATE(mailbox_read(NPU_MB_SCRATCH(NPU_SCRATCH_TS_STATE))) == NPU_TS_STATE_BOOTED,
          "TS_STATE changed on a doorbell without a queue");

    /* One defect at a time, in the order npu_queue_header_check tests them. */
    static const struct {
        const char *what;
        uint32_t reason;
    } cases[] = {
        {"a bad magic", NPU_ATTACH_BAD_MAGIC},
        {"a major version above the TS's", NPU_ATTACH_BAD_VERSION},
        {"the previous major version (1.0: 64-byte completion records)", NPU_ATTACH_BAD_VERSION},
        {"a minor version above the TS's", NPU_ATTACH_BAD_VERSION},
        {"cmd_entries 3", NPU_ATTACH_BAD_CMD_ENTRIES},
        {"cmd_entries 1", NPU_ATTACH_BAD_CMD_ENTRIES},
        {"cmd_entries 8192", NPU_ATTACH_BAD_CMD_ENTRIES},
        {"cpl_entries 0", NPU_ATTACH_BAD_CPL_ENTRIES},
        {"cpl_entries 6", NPU_ATTACH_BAD_CPL_ENTRIES},
        {"num_cores 0", NPU_ATTACH_BAD_NUM_CORES},
        {"num_cores 17", NPU_ATTACH_BAD_NUM_CORES},
        {"cmd_ring 8 bytes off 64-byte alignment", NPU_ATTACH_BAD_ALIGNMENT},
        {"cpl_ring 0", NPU_ATTACH_BAD_ALIGNMENT},
        {"cpl_ring 32 bytes off 64-byte alignment", NPU_ATTACH_BAD_ALIGNMENT},
        {"the header itself 8 bytes off 64-byte alignment", NPU_ATTACH_BAD_ALIGNMENT},
        {"the header itself at an odd address", NPU_ATTACH_BAD_ALIGNMENT},
        {"cmd_tail - cmd_head = 9 > cmd_entries, across 2^32", NPU_ATTACH_BAD_INDICES},
        {"cmd_tail one behind cmd_head", NPU_ATTACH_BAD_INDICES},
        {"a completion pending (cpl_tail != cpl_head)", NPU_ATTACH_BAD_INDICES},
        /* Found by the TS probing the hardware (it must answer, not crash): */
        {"the header at an address with no memory", NPU_ATTACH_BAD_ADDRESS},
        {"cmd_ring at an address with no memory", NPU_ATTACH_BAD_ADDRESS},
        {"cpl_ring in the read-only boot ROM", NPU_ATTACH_BAD_ADDRESS},
        {"num_cores one above the AI Cores present", NPU_ATTACH_BAD_NUM_CORES},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct npu_queue_header *h = &queue;
        fill_header(h);
        uint64_t where = addr(&queue);
        switch (i) {
        case 0: h->magic = NPU_QUEUE_MAGIC ^ 0x100u; break;
        case 1: h->version = ((NPU_PROTOCOL_VERSION_MAJOR + 1u) << 16) | NPU_PROTOCOL_VERSION_MINOR; break;
        case 2: h->version = (NPU_PROTOCOL_VERSION_MAJOR - 1u) << 16; break;
        case 3: h->version = (NPU_PROTOCOL_VERSION_MAJOR << 16) | (NPU_PROTOCOL_VERSION_MINOR + 1u); break;
        case 4: h->cmd_entries = 3; break;
        case 5: h->cmd_entries = 1; break;
        case 6: h->cmd_entries = 2 * NPU_MAX_QUEUE_ENTRIES; break;
        case 7: h->cpl_entries = 0; break;
        case 8: h->cpl_entries = 6; break;
        case 9: h->num_cores = 0; break;
        case 10: h->num_cores = NPU_MAX_CORES + 1; break;
        case 11: h->cmd_ring += 8; break;
        case 12: h->cpl_ring = 0; break;
        case 13: h->cpl_ring += 32; break;
        case 14: /* a valid header, at addresses that are not 64-byte aligned */
        case 15:
            memcpy(spare + (i == 14 ? 8 : 1), h, sizeof *h);
            where = addr(spare + (i == 14 ? 8 : 1));
            break;
        case 16: h->cmd_tail = CMD_START + CMD_N + 1; break; /* wraps to 0x0000000c */
        case 17: h->cmd_tail = CMD_START - 1; break;
        case 18: h->cpl_tail = CPL_START + 1; break;
        case 19: where = UNMAPPED_ADDRESS; break;
        case 20: h->cmd_ring = UNMAPPED_ADDRESS; break;
        case 21: h->cpl_ring = BOOT_ROM_ADDRESS; break;
        case 22:
            if (ncores >= NPU_MAX_CORES) continue; /* every possible core is present */
            h->num_cores = ncores + 1;
            break;
        }
        attach_try(where, NPU_TS_STATE_ATTACH_FAILED, cases[i].reason, cases[i].what);
    }

    fill_header(&queue);
    attach_try(addr(&queue), NPU_TS_STATE_READY, 0, "nothing wrong");
    attached = 1;
    auto_drain = 1;
    check(VREAD32(queue.cmd_head) == CMD_START && VREAD32(queue.cpl_tail) == CPL_START &&
          VREAD32(queue.ts_flags) == 0, "after the attach: cmd_head 0x%08x, cpl_tail 0x%08x, ts_flags 0x%x",
          (unsigned)VREAD32(queue.cmd_head), (unsigned)VREAD32(queue.cpl_tail), (unsigned)VREAD32(queue.ts_flags));

    /* After READY, SCRATCH[QUEUE] is not read again: point it at a zeroed (invalid) header,
     * ring, and the queue is still served. */
    memset(spare, 0, sizeof spare);
    fence_rw();
    mailbox_write(NPU_MB_SCRATCH(NPU_SCRATCH_QUEUE), addr(spare));
    unsigned n = nop(0, "NOP after SCRATCH[QUEUE] changed");
    wait_done(n);
    state = mailbox_read(NPU_MB_SCRATCH(NPU_SCRATCH_TS_STATE));
    check(state == NPU_TS_STATE_MAKE(NPU_TS_STATE_READY, 0), "TS_STATE 0x%lx after a doorbell with another "
          "SCRATCH[QUEUE], expected READY", (unsigned long)state);
    mailbox_write(NPU_MB_SCRATCH(NPU_SCRATCH_QUEUE), addr(&queue));
    end();
}

static void section_host_irq(void)
{
    begin("host-irq");
    wait_idle();
    sleep_us(HOLD_US); /* the TS raises HOST_IRQ at the end of its pass: let it, and take it */
    check(mailbox_read(NPU_MB_HOST_IRQ) == 0, "HOST_IRQ level high with nothing to report");
    const uint32_t pending_bit = 1u << (NPU_PLIC_SOURCE_HOST_IRQ % 32);
    check(!(mmio_read32(NPUVP_PLIC_PENDING(NPU_PLIC_SOURCE_HOST_IRQ)) & pending_bit), "source 21 pending when idle");

    const uint32_t tail = VREAD32(queue.cpl_tail);
    const unsigned long w = wfis;
    unsigned idx = launch(0, 1, LONG_DELAY, "launch waited for by interrupt");

    /* Sleep until the PLIC has source 21 for us; do not look at the ring before. */
    const uint64_t deadline = clint_mtime() + NPUVP_US_TO_TICKS(WAIT_US);
    uint32_t source;
    while ((source = mmio_read32(NPUVP_PLIC_CLAIM(NPU_PLIC_CONTEXT_HOST))) == 0) {
        if (clint_mtime() >= deadline) fatal("timeout waiting for the host interrupt of a launch");
        clint_set_mtimecmp(hart, deadline);
        wfis++;
        wfi();
        clint_set_mtimecmp(hart, UINT64_MAX);
    }
    check(source == NPU_PLIC_SOURCE_HOST_IRQ, "claimed source %u, expected %u", (unsigned)source,
          NPU_PLIC_SOURCE_HOST_IRQ);
    check(wfis > w, "the host did not sleep in WFI before the interrupt");
    check(mailbox_read(NPU_MB_HOST_IRQ) == 1, "HOST_IRQ level low before HOST_IRQ_ACK");
    check(VREAD32(queue.cpl_tail) != tail, "interrupt without a new completion record");
    host_irqs++;
    mailbox_write(NPU_MB_HOST_IRQ_ACK, 1);
    check(mailbox_read(NPU_MB_HOST_IRQ) == 0, "HOST_IRQ level still high after HOST_IRQ_ACK");
    drain();
    mmio_write32(NPUVP_PLIC_CLAIM(NPU_PLIC_CONTEXT_HOST), source);
    check(ex[idx].done, "the launch's record was not there at its interrupt");
    source = mmio_read32(NPUVP_PLIC_CLAIM(NPU_PLIC_CONTEXT_HOST));
    check(source == 0, "source %u pending after acknowledge and complete", (unsigned)source);
    if (source) mmio_write32(NPUVP_PLIC_CLAIM(NPU_PLIC_CONTEXT_HOST), source);
    end();
}

static void section_wrap(void)
{
    begin("wrap");
    wait_idle();
    const uint32_t c0 = cmd_tail, p0 = cpl_head;
    check(c0 > 0xffff0000u && p0 > 0xffff0000u, "counters 0x%08x / 0x%08x already wrapped before the section",
          (unsigned)c0, (unsigned)p0);
    for (unsigned i = 0; i < 24; i++) {
        if (i % 3 == 2) nop((uint16_t)(i % 4), "NOP across the wrap");
        else launch((uint16_t)(i % 4), 1 + i % (2 * ncores + 1), 200 * (i % 5), "launch across the wrap");
    }
    /* Several commands published by one doorbell. */
    for (unsigned i = 0; i < 3; i++) {
        struct npu_command c = make(NPU_CMD_NOP, (uint16_t)i);
        submit_ex(&c, "NOP of a batch rung once", NPU_STATUS_OK, 0, i == 2);
    }
    wait_idle();
    check(cmd_tail < c0 && cpl_head < p0, "counters did not wrap: cmd_tail 0x%08x, cpl_head 0x%08x",
          (unsigned)cmd_tail, (unsigned)cpl_head);
    check(VREAD32(queue.cmd_head) == cmd_tail && VREAD32(queue.cpl_tail) == cpl_head,
          "after the wrap: cmd_head 0x%08x for cmd_tail 0x%08x, cpl_tail 0x%08x for cpl_head 0x%08x",
          (unsigned)VREAD32(queue.cmd_head), (unsigned)cmd_tail, (unsigned)VREAD32(queue.cpl_tail),
          (unsigned)cpl_head);
    end();
}

static void section_bad_commands(void)
{
    begin("bad-commands");
    wait_idle();
    struct npu_command c;

    c = make(NPU_CMD_INVALID, 0);
    submit_bad(&c, "opcode 0 (a zeroed slot)", NPU_BAD_OPCODE);
    c = make(6, 0);
    submit_bad(&c, "opcode 6", NPU_BAD_OPCODE);
    c = make(0xffff, 1);
    submit_bad(&c, "opcode 0xffff", NPU_BAD_OPCODE);

    c = make(NPU_CMD_NOP, 0);
    c.flags = 1;
    submit_bad(&c, "NOP with flags 1", NPU_BAD_FLAGS);
    c = bad_launch(0);
    c.flags = 0x80000000u;
    submit_bad(&c, "LAUNCH with flags 0x80000000", NPU_BAD_FLAGS);
    c = make(NPU_CMD_BARRIER, 0);
    c.flags = 2;
    submit_bad(&c, "BARRIER with flags 2", NPU_BAD_FLAGS);

    c = make(NPU_CMD_NOP, NPU_MAX_STREAMS);
    submit_bad(&c, "NOP on stream 16", NPU_BAD_STREAM);
    c = bad_launch(0xffff);
    submit_bad(&c, "LAUNCH on stream 0xffff", NPU_BAD_STREAM);
    c = make(NPU_CMD_RECORD_EVENT, NPU_MAX_STREAMS);
    c.u.event.event = 1;
    submit_bad(&c, "RECORD_EVENT on stream 16", NPU_BAD_STREAM);
    c = make(NPU_CMD_WAIT_EVENT, NPU_MAX_STREAMS);
    c.u.event.event = 1;
    submit_bad(&c, "WAIT_EVENT on stream 16", NPU_BAD_STREAM);

    c = bad_launch(0);
    c.u.launch.entry = 0;
    submit_bad(&c, "LAUNCH with entry 0", NPU_BAD_ENTRY);
    c = bad_launch(0);
    c.u.launch.entry = kernel_entry + 1;
    submit_bad(&c, "LAUNCH with an odd entry", NPU_BAD_ENTRY);

    c = bad_launch(0);
    c.u.launch.block_dim = 0;
    submit_bad(&c, "LAUNCH of 0 blocks", NPU_BAD_BLOCK_DIM);
    c = bad_launch(0);
    c.u.launch.block_dim = NPU_MAX_BLOCK_DIM + 1;
    submit_bad(&c, "LAUNCH of 65536 blocks", NPU_BAD_BLOCK_DIM);
    c = bad_launch(0);
    c.u.launch.block_dim = 0xffffffffu;
    submit_bad(&c, "LAUNCH of 2^32 - 1 blocks", NPU_BAD_BLOCK_DIM);

    c = make(NPU_CMD_RECORD_EVENT, 0);
    c.u.event.event = NPU_MAX_EVENTS;
    submit_bad(&c, "RECORD_EVENT of event 64", NPU_BAD_EVENT);
    c = make(NPU_CMD_WAIT_EVENT, 0);
    c.u.event.event = NPU_MAX_EVENTS;
    submit_bad(&c, "WAIT_EVENT of event 64", NPU_BAD_EVENT);
    c = make(NPU_CMD_WAIT_EVENT, 0);
    c.u.event.event = 0xffffffffu;
    submit_bad(&c, "WAIT_EVENT of event 2^32 - 1", NPU_BAD_EVENT);

    /* Wait counts: only valid RECORD_EVENTs earlier in the ring count. */
    const uint32_t e = 40;
    c = make(NPU_CMD_WAIT_EVENT, 0);
    c.u.event.event = e;
    c.u.event.count = 1;
    submit_bad(&c, "WAIT_EVENT for a record never made", NPU_BAD_WAIT_COUNT);
    c = make(NPU_CMD_RECORD_EVENT, 0);
    c.u.event.event = e;
    c.flags = 1;
    submit_bad(&c, "RECORD_EVENT with flags 1", NPU_BAD_FLAGS);
    c = make(NPU_CMD_WAIT_EVENT, 0);
    c.u.event.event = e;
    c.u.event.count = 1;
    submit_bad(&c, "WAIT_EVENT counting a refused RECORD_EVENT", NPU_BAD_WAIT_COUNT);
    record_event(0, e, "RECORD_EVENT between bad waits");
    wait_event(0, e, ev_records[e], "WAIT_EVENT for the one record");
    c = make(NPU_CMD_WAIT_EVENT, 0);
    c.u.event.event = e;
    c.u.event.count = ev_records[e] + 1;
    submit_bad(&c, "WAIT_EVENT for one record more than made", NPU_BAD_WAIT_COUNT);
    c = make(NPU_CMD_WAIT_EVENT, 0);
    c.u.event.event = e;
    c.u.event.count = 0x8000000000000000ull + ev_records[e];
    submit_bad(&c, "WAIT_EVENT with a count above 2^63", NPU_BAD_WAIT_COUNT);
    wait_event(0, e, 0, "WAIT_EVENT for count 0");
    barrier(0xffff, "BARRIER with stream 0xffff (stream ignored)");
    wait_idle();

    /* A bad command completes at once, ahead of an earlier command of its own stream. */
    unsigned slow = launch(7, 1, LONG_DELAY, "long launch on stream 7");
    c = bad_launch(7);
    c.u.launch.block_dim = 0;
    unsigned bad = submit_bad(&c, "LAUNCH of 0 blocks behind a long launch of its stream", NPU_BAD_BLOCK_DIM);
    unsigned after = nop(7, "NOP behind the long launch");
    wait_idle();
    check(ex[bad].pos < ex[slow].pos, "the bad command waited for the earlier launch of its stream");
    check(ex[after].pos > ex[slow].pos, "the NOP did not wait for the earlier launch of its stream");

    /* The queue carries on. */
    unsigned good = launch(0, 2 * ncores + 1, 1000, "launch of 2N + 1 blocks after the bad commands");
    wait_done(good);
    fence_rw();
    for (unsigned b = 0; b < PROBE_MAX_BLOCKS; b++)
        check(never_run.rec[b].visits == 0, "a refused LAUNCH ran (block %u)", b);
    end();
}

static void section_stream_order(void)
{
    begin("stream-order");
    wait_idle();
    unsigned l1 = launch(9, 1, LONG_DELAY, "stream 9: long launch");
    unsigned l2 = launch(9, 1, 0, "stream 9: short launch");
    unsigned l3 = launch(9, ncores, 1000, "stream 9: N-block launch");
    unsigned n = nop(9, "stream 9: NOP");
    wait_idle();
    check(first_start(l2) >= last_end(l1), "stream 9: second launch started at cycle %lu, before the first ended "
          "at %lu", (unsigned long)first_start(l2), (unsigned long)last_end(l1));
    check(first_start(l3) >= last_end(l2), "stream 9: third launch started at cycle %lu, before the second ended "
          "at %lu", (unsigned long)first_start(l3), (unsigned long)last_end(l2));
    check(cpl(l2)->start_cycle >= cpl(l1)->end_cycle && cpl(l3)->start_cycle >= cpl(l2)->end_cycle &&
          cpl(n)->start_cycle >= cpl(l3)->end_cycle, "stream 9: TS start/end cycles overlap");
    check(ex[l1].pos < ex[l2].pos && ex[l2].pos < ex[l3].pos && ex[l3].pos < ex[n].pos,
          "stream 9: completions out of order");
    end();
}

static void section_concurrency(void)
{
    begin("concurrency");
    wait_idle();
    unsigned a = launch(1, 1, LONG_DELAY, "stream 1: long launch");
    unsigned b = launch(2, 1, LONG_DELAY, "stream 2: long launch");
    unsigned n = nop(3, "stream 3: NOP");
    wait_idle();
    check(ex[n].pos < ex[a].pos && ex[n].pos < ex[b].pos, "the NOP on stream 3 waited for launches of other streams");
    if (ncores >= 2) {
        check(first_start(b) < last_end(a) && first_start(a) < last_end(b),
              "launches of streams 1 and 2 did not overlap: [%lu, %lu] and [%lu, %lu]",
              (unsigned long)first_start(a), (unsigned long)last_end(a), (unsigned long)first_start(b),
              (unsigned long)last_end(b));
        check(cpl(b)->start_cycle < cpl(a)->end_cycle, "the TS started stream 2 only after stream 1 completed");
        check(blk(a, 0)->core != blk(b, 0)->core, "both launches ran on AI Core %u", (unsigned)blk(a, 0)->core);
    } else {
        check(first_start(b) >= last_end(a) || first_start(a) >= last_end(b), "two blocks overlapped on one AI Core");
    }

    /* One launch of N blocks: one block per idle core, all at once. */
    unsigned w = launch(1, ncores, LONG_DELAY / 2, "stream 1: N-block launch");
    wait_done(w);
    uint64_t cores_seen = 0; /* bit per core: up to NPU_MAX_CORES = 32 of them */
    uint64_t min_end = UINT64_MAX, max_start = 0;
    for (unsigned k = 0; k < ncores; k++) {
        cores_seen |= 1ull << blk(w, k)->core;
        if (blk(w, k)->end_cycle < min_end) min_end = blk(w, k)->end_cycle;
        if (blk(w, k)->start_cycle > max_start) max_start = blk(w, k)->start_cycle;
    }
    check(cores_seen == (1ull << ncores) - 1, "the %u blocks ran on cores 0x%lx, not on one core each",
          (unsigned)ncores, (unsigned long)cores_seen);
    check(max_start < min_end, "the blocks of one launch did not all run at once");
    end();
}

static void section_barrier(void)
{
    begin("barrier");
    wait_idle();
    unsigned a = launch(1, 1, LONG_DELAY, "stream 1: long launch before the barrier");
    unsigned b = launch(2, 1, LONG_DELAY / 2, "stream 2: launch before the barrier");
    unsigned x = barrier(0, "BARRIER");
    unsigned c = launch(3, 1, 0, "stream 3: launch after the barrier");
    unsigned n = nop(4, "stream 4: NOP after the barrier");
    wait_idle();
    check(ex[x].pos > ex[a].pos && ex[x].pos > ex[b].pos, "the BARRIER completed before an earlier command");
    check(ex[c].pos > ex[x].pos && ex[n].pos > ex[x].pos, "a command after the BARRIER completed before it");
    const uint64_t before_end = last_end(a) > last_end(b) ? last_end(a) : last_end(b);
    check(first_start(c) >= before_end, "the launch after the BARRIER started at cycle %lu, before the earlier "
          "launches ended (%lu)", (unsigned long)first_start(c), (unsigned long)before_end);
    check(cpl(x)->end_cycle >= cpl(a)->end_cycle && cpl(x)->end_cycle >= cpl(b)->end_cycle,
          "BARRIER completed (TS cycle %lu) before the launches (%lu, %lu)", (unsigned long)cpl(x)->end_cycle,
          (unsigned long)cpl(a)->end_cycle, (unsigned long)cpl(b)->end_cycle);
    check(cpl(c)->start_cycle >= cpl(x)->end_cycle && cpl(n)->start_cycle >= cpl(x)->end_cycle,
          "a command after the BARRIER started before it completed");
    if (ncores >= 2)
        check(first_start(b) < last_end(a), "the launches before the BARRIER did not run concurrently");
    end();
}

static void section_events(void)
{
    begin("events");
    wait_idle();
    const uint32_t e = NPU_MAX_EVENTS - 1;
    unsigned la = launch(5, 1, LONG_DELAY, "stream 5: long launch");
    unsigned r = record_event(5, e, "stream 5: RECORD_EVENT 63");
    unsigned w = wait_event(6, e, ev_records[e], "stream 6: WAIT_EVENT 63");
    /* Fourth, so that it fits the TS's window (completion room for CPL_N commands). */
    unsigned n = nop(NPU_MAX_STREAMS - 1, "stream 15: NOP behind the WAIT_EVENT");
    unsigned lb = launch(6, 1, 0, "stream 6: launch after the wait");
    wait_idle();
    check(ex[w].pos > ex[r].pos, "WAIT_EVENT completed before the RECORD_EVENT it waits for");
    check(cpl(w)->end_cycle >= cpl(r)->end_cycle, "WAIT_EVENT ended at TS cycle %lu, before the record (%lu)",
          (unsigned long)cpl(w)->end_cycle, (unsigned long)cpl(r)->end_cycle);
    check(cpl(w)->start_cycle < cpl(r)->end_cycle, "WAIT_EVENT did not start until the record (it never waited)");
    check(first_start(lb) >= last_end(la), "stream 6's launch started at cycle %lu, before stream 5's launch "
          "ended (%lu)", (unsigned long)first_start(lb), (unsigned long)last_end(la));
    check(cpl(lb)->start_cycle >= cpl(r)->end_cycle, "stream 6's launch started before the RECORD_EVENT executed");
    check(ex[n].pos < ex[r].pos, "the NOP on stream 15 waited for the event too");
    end();
}

static void section_cmd_ring_full(void)
{
    begin("cmd-ring-full");
    wait_idle();
    const unsigned long waits = full_waits;
    /* Four long launches on one stream: the TS holds them (all its completion room) and
     * takes nothing more until the first completes. */
    for (unsigned i = 0; i < CPL_N; i++) launch(10, 1, LONG_DELAY, "stream 10: long launch");
    for (unsigned i = 0; i < CMD_N; i++) nop(10, "stream 10: NOP filling the command ring");
    check(npu_ring_full(cmd_tail, VREAD32(queue.cmd_head), CMD_N),
          "command ring not full: cmd_tail 0x%08x, cmd_head 0x%08x", (unsigned)cmd_tail,
          (unsigned)VREAD32(queue.cmd_head));
    WAIT_FOR(VREAD32(queue.ts_flags) & NPU_TS_FLAG_CPL_STALLED, WAIT_US, POLL_US,
             "CPL_STALLED while the TS holds %u launches", CPL_N);
    /* More commands: each waits for the TS to take one (cmd_head to move). */
    for (unsigned i = 0; i < CMD_N; i++) nop(10, "stream 10: NOP into a full command ring");
    wait_idle();
    check(full_waits > waits, "the host never found the command ring full");
    end();
}

static void section_cpl_ring_full(void)
{
    begin("cpl-ring-full");
    wait_idle();
    claim_host();

    /* 1. NOPs only: the host consumes nothing. */
    auto_drain = 0;
    const unsigned first = ncmds, count = CPL_N + CMD_N;
    for (unsigned i = 0; i < count; i++) nop(11, "stream 11: NOP, completions not consumed");
    WAIT_FOR(npu_ring_used(VREAD32(queue.cpl_tail), cpl_head) == CPL_N &&
                 (VREAD32(queue.ts_flags) & NPU_TS_FLAG_CPL_STALLED),
             WAIT_US, POLL_US, "a full completion ring and CPL_STALLED");
    check(npu_ring_full(cmd_tail, VREAD32(queue.cmd_head), CMD_N), "the TS took more commands than it has "
          "completion room for: cmd_head 0x%08x, cmd_tail 0x%08x", (unsigned)VREAD32(queue.cmd_head),
          (unsigned)cmd_tail);
    /* Stopped: nothing moves, not even on a doorbell, and no record is overwritten. */
    const uint32_t head = VREAD32(queue.cmd_head), tail = VREAD32(queue.cpl_tail);
    mailbox_write(NPU_MB_DOORBELL, 1);
    sleep_us(HOLD_US);
    check(VREAD32(queue.cmd_head) == head && VREAD32(queue.cpl_tail) == tail,
          "the TS moved with a full completion ring: cmd_head 0x%08x -> 0x%08x, cpl_tail 0x%08x -> 0x%08x",
          (unsigned)head, (unsigned)VREAD32(queue.cmd_head), (unsigned)tail, (unsigned)VREAD32(queue.cpl_tail));
    check(VREAD32(queue.ts_flags) & NPU_TS_FLAG_CPL_STALLED, "CPL_STALLED cleared while still stalled");
    fence_rw();
    for (unsigned k = 0; k < CPL_N; k++) {
        uint64_t seq = cpl_ring[npu_ring_slot(cpl_head + k, CPL_N)].seq;
        check(seq == SEQ_BASE + first + k, "completion slot %u holds seq 0x%lx, expected 0x%lx",
              (unsigned)npu_ring_slot(cpl_head + k, CPL_N), (unsigned long)seq,
              (unsigned long)(SEQ_BASE + first + k));
    }
    /* Make room one record at a time (then in bulk), ringing as the flag asks. */
    const unsigned long rings = stall_doorbells;
    unsigned consumed = 0;
    while (consumed < count) {
        WAIT_FOR(VREAD32(queue.cpl_tail) != cpl_head, WAIT_US, 0,
                 "a completion after making room (%u of %u consumed)", consumed, count);
        const uint32_t t = VREAD32(queue.cpl_tail);
        fence_rw();
        if (npu_ring_used(t, cpl_head) > CPL_N) fatal("the TS overran the completion ring");
        unsigned take = consumed < CMD_N ? 1 : npu_ring_used(t, cpl_head);
        for (unsigned k = 0; k < take; k++) take_record();
        consumed += take;
        publish_cpl_head();
        check_flow();
    }
    check(stall_doorbells > rings, "CPL_STALLED never asked the host to ring");
    for (unsigned i = first; i < first + count; i++) check(ex[i].done, "command %u never completed", i);
    WAIT_FOR(!(VREAD32(queue.ts_flags) & NPU_TS_FLAG_CPL_STALLED), WAIT_US, POLL_US,
             "CPL_STALLED to clear once every command is taken");

    /* 2. Two long launches in flight reserve their completion slots: the TS stalls with
     * room left in the ring, and the launches' records fill it later. */
    const unsigned first2 = ncmds;
    launch(12, 1, LONG_DELAY, "stream 12: long launch, completion not consumed");
    launch(13, 1, LONG_DELAY, "stream 13: long launch, completion not consumed");
    for (unsigned i = 0; i < CPL_N; i++) nop(14, "stream 14: NOP, completion not consumed");
    WAIT_FOR(VREAD32(queue.ts_flags) & NPU_TS_FLAG_CPL_STALLED, WAIT_US, POLL_US,
             "CPL_STALLED with launches in flight");
    /* The TS raises the flag while taking commands, before it completes the NOPs it took
     * in the same pass: let that pass end (a few hundred cycles; the launches take 100 us). */
    sleep_us(10);
    const uint32_t taken = VREAD32(queue.cmd_head) - (cmd_tail - (ncmds - first2));
    check(taken == CPL_N && npu_ring_used(VREAD32(queue.cpl_tail), cpl_head) == CPL_N - 2,
          "stalled after taking %u commands with %u records written, expected %u and %u", (unsigned)taken,
          (unsigned)npu_ring_used(VREAD32(queue.cpl_tail), cpl_head), CPL_N, CPL_N - 2);
    WAIT_FOR(npu_ring_used(VREAD32(queue.cpl_tail), cpl_head) == CPL_N, WAIT_US, 0,
             "the launches' completions to fill the ring");
    sleep_us(HOLD_US);
    check(npu_ring_used(VREAD32(queue.cpl_tail), cpl_head) == CPL_N &&
              VREAD32(queue.cmd_head) - (cmd_tail - (ncmds - first2)) == CPL_N,
          "the TS moved with a full completion ring");
    fence_rw();
    uint32_t seen = 0;
    for (unsigned k = 0; k < CPL_N; k++) {
        uint64_t i = cpl_ring[npu_ring_slot(cpl_head + k, CPL_N)].seq - SEQ_BASE - first2;
        if (i < CPL_N) seen |= 1u << i;
    }
    check(seen == (1u << CPL_N) - 1, "the full ring holds records 0x%x of the first %u commands, expected all",
          (unsigned)seen, CPL_N);
    auto_drain = 1;
    drain();
    wait_idle();
    end();
}

static void section_summary(void)
{
    begin("summary");
    wait_idle();
    for (unsigned i = 0; i < ncmds; i++) check(ex[i].done, "command %u (%s) never completed", i, ex[i].what);
    /* Barrier order over the whole run: every valid command before a BARRIER completed
     * before it, every one after it completed after it. */
    for (unsigned x = 0; x < ncmds; x++) {
        if (ex[x].opcode != NPU_CMD_BARRIER || ex[x].status != NPU_STATUS_OK) continue;
        for (unsigned i = 0; i < ncmds; i++) {
            if (i == x || ex[i].status == NPU_STATUS_BAD_COMMAND) continue;
            check(i < x ? ex[i].pos < ex[x].pos : ex[i].pos > ex[x].pos,
                  "command %u (%s) completed on the wrong side of BARRIER %u", i, ex[i].what, x);
        }
    }
    fence_rw();
    for (unsigned b = 0; b < PROBE_MAX_BLOCKS; b++)
        check(never_run.rec[b].visits == 0, "a refused LAUNCH ran (block %u)", b);
    check(VREAD32(queue.cmd_head) == cmd_tail && VREAD32(queue.cpl_tail) == cpl_head && VREAD32(queue.ts_flags) == 0,
          "at the end: cmd_head 0x%08x for cmd_tail 0x%08x, cpl_tail 0x%08x for cpl_head 0x%08x, ts_flags 0x%x",
          (unsigned)VREAD32(queue.cmd_head), (unsigned)cmd_tail, (unsigned)VREAD32(queue.cpl_tail),
          (unsigned)cpl_head, (unsigned)VREAD32(queue.ts_flags));
    uint64_t state = mailbox_read(NPU_MB_SCRATCH(NPU_SCRATCH_TS_STATE));
    check(state == NPU_TS_STATE_MAKE(NPU_TS_STATE_READY, 0), "TS_STATE 0x%lx at the end", (unsigned long)state);
    printf("ts-protocol: %u commands, %u completions (cmd_tail 0x%08x, cpl_head 0x%08x), %lu host interrupts, "
           "%lu WFIs, %lu waits for a full command ring, %lu doorbells for CPL_STALLED\n",
           ncmds, ndone, (unsigned)cmd_tail, (unsigned)cpl_head, host_irqs, wfis, full_waits, stall_doorbells);
    end();
}

int main(void)
{
    hart = hart_id();
    for (unsigned s = 0; s < NPU_MAX_STREAMS; s++) stream_last[s] = -1;

    /* Interrupts without traps: mstatus.MIE clear, MEIE (PLIC) and MTIE (timeouts) in mie. */
    irq_disable();
    clint_set_mtimecmp(hart, UINT64_MAX);
    mmio_write32(NPUVP_PLIC_PRIORITY(NPU_PLIC_SOURCE_HOST_IRQ), 1);
    uintptr_t enable = NPUVP_PLIC_ENABLE(NPU_PLIC_CONTEXT_HOST, NPU_PLIC_SOURCE_HOST_IRQ);
    mmio_write32(enable, mmio_read32(enable) | (1u << (NPU_PLIC_SOURCE_HOST_IRQ % 32)));
    mmio_write32(NPUVP_PLIC_THRESHOLD(NPU_PLIC_CONTEXT_HOST), 0);
    set_csr(mie, MIE_MEIE | MIE_MTIE);

    ncores = count_cores();
    if (ncores == 0) {
        printf("ts-protocol: UNEXPECTED: no AI Core\nts-protocol: FAIL\n");
        return EXIT_FAILURE;
    }
    struct npuvp_kernel kernel;
    if (npuvp_kernel_load(&kernel, NPUVP_KERNEL_IMAGE(block_probe)) != NPUVP_OK) {
        printf("ts-protocol: UNEXPECTED: cannot load block_probe.elf\nts-protocol: FAIL\n");
        return EXIT_FAILURE;
    }
    kernel_entry = kernel.entry;
    never_run.args.records = addr(never_run.rec);
    printf("ts-protocol: %u AI Core%s, queue at 0x%lx: %u commands from 0x%08x, %u completions from 0x%08x\n",
           (unsigned)ncores, ncores == 1 ? "" : "s", (unsigned long)addr(&queue), CMD_N, CMD_START, CPL_N,
           CPL_START);

    section_attach();
    section_host_irq();
    section_wrap();
    section_bad_commands();
    section_stream_order();
    section_concurrency();
    section_barrier();
    section_events();
    section_cmd_ring_full();
    section_cpl_ring_full();
    section_summary();

    clear_csr(mie, MIE_MEIE | MIE_MTIE);
    if (failures) {
        printf("ts-protocol: %d unexpected results: FAIL\n", failures);
        return EXIT_FAILURE;
    }
    printf("ts-protocol: PASS\n");
    return EXIT_SUCCESS;
}
