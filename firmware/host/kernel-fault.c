/*
 * The fault path of the offload stack (scenarios/kernel-fault.yaml): kernels that fault on
 * the AI Cores, bad commands, and the queue carrying on afterwards.
 *
 *   1. sw/kernels/tests/faults.elf case 15 (copy_gm_to_ubuf from unmapped GM: a bus error)
 *      launched synchronously with 2N + 1 task blocks on N AI Cores: the launch must
 *      complete with NPUVP_ERR_KERNEL_FAULT, cause "bus error", a core id below N, the pc of
 *      the symbol fault_bus_error_read, and no block started after the fault (blocks done 0,
 *      the failing block one of the first N).
 *   2. The same kernel's case 13 (illegal instruction: a scalar trap) asynchronously on a
 *      stream: the error comes back from npuvp_stream_synchronize.
 *   3. Bad commands (unknown opcode, zero blocks, a wait for an event never recorded)
 *      complete with NPUVP_ERR_BAD_COMMAND and the right reason.
 *   4. vector_add afterwards (eight launches) still runs and gives the right sums: nothing hangs.
 * The driver runs with a 4-entry queue whose counters start at 2^32 - 4, so the ring slots
 * and the 32-bit counters both wrap during the run.
 *
 * Exit status: NPUVP_EXIT_KERNEL_FAULT (3) when every report is as expected (the documented
 * status of a program that stopped because a kernel faulted), 1 otherwise.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <npuvp/platform.h>

#include "npuvp_driver.h"

NPUVP_DECLARE_KERNEL_IMAGE(faults);
NPUVP_DECLARE_KERNEL_IMAGE(vector_add);

enum { CASE_ILLEGAL_INSTRUCTION = 13, CASE_BUS_ERROR_READ = 15 }; /* sw/kernels/tests/faults.c */

static int failures;

static void expect(int ok, const char *what)
{
    if (!ok) {
        printf("kernel-fault: UNEXPECTED: %s\n", what);
        failures++;
    }
}

static void print_fault(const char *what, const struct npuvp_kernel *k, const struct npuvp_result *r)
{
    uint64_t offset = 0;
    const char *symbol = npuvp_kernel_symbolize(k, r->pc, &offset);
    printf("kernel-fault: %s: %s (status %d \"%s\", cause %u) <%s+0x%lx>, %u blocks done\n", what,
           npuvp_result_string(r), r->status, npuvp_status_name(r->status), (unsigned)r->cause,
           symbol ? symbol : "?", (unsigned long)offset, (unsigned)r->blocks_done);
}

int main(void)
{
    struct npuvp_config config;
    npuvp_default_config(&config);
    config.queue_entries = 4;
    config.initial_index = 0xfffffffcu;
    int status = npuvp_init(&config);
    if (status != NPUVP_OK) {
        printf("kernel-fault: npuvp_init: %s\n", npuvp_status_name(status));
        return EXIT_FAILURE;
    }
    struct npuvp_device_info info;
    npuvp_device_info(&info);
    const uint32_t cores = info.num_cores;

    struct npuvp_kernel faults, vadd;
    if (npuvp_kernel_load(&faults, NPUVP_KERNEL_IMAGE(faults)) != NPUVP_OK ||
        npuvp_kernel_load(&vadd, NPUVP_KERNEL_IMAGE(vector_add)) != NPUVP_OK) {
        printf("kernel-fault: cannot load the kernels\n");
        return EXIT_FAILURE;
    }
    uint64_t scratch;
    if (npuvp_malloc(NPUVP_MEM_DDR, 4096, 0, &scratch) != NPUVP_OK) return EXIT_FAILURE;

    /* 1. Bus error, B = 2N + 1 blocks. */
    uint64_t expected_pc = 0;
    expect(npuvp_kernel_symbol(&faults, "fault_bus_error_read", &expected_pc) == NPUVP_OK,
           "symbol fault_bus_error_read in faults.elf");
    const uint64_t bus_args[2] = {CASE_BUS_ERROR_READ, scratch};
    struct npuvp_result r;
    const uint32_t blocks = 2 * cores + 1;
    status = npuvp_launch(&faults, blocks, bus_args, 2, NPUVP_STREAM_DEFAULT, &r);
    print_fault("launch of faults.elf case 15", &faults, &r);
    expect(status == NPUVP_ERR_KERNEL_FAULT && r.status == NPUVP_ERR_KERNEL_FAULT, "status is kernel fault");
    expect(r.cause == NPU_FAULT_BUS_ERROR, "cause is bus error");
    expect(r.core < cores, "failing core id is a real core");
    expect(r.pc == expected_pc, "pc is fault_bus_error_read");
    expect(r.block < cores, "the failing block is one of the first N (no block started after the fault)");
    expect(r.blocks_done == 0, "no block ended normally");
    printf("kernel-fault: error code %d, AI Core %u, pc 0x%lx (expected 0x%lx), block %u of %u\n", status,
           (unsigned)r.core, (unsigned long)r.pc, (unsigned long)expected_pc, (unsigned)r.block, (unsigned)blocks);

    /* 2. Illegal instruction, asynchronously on a stream. */
    npuvp_stream_t stream;
    expect(npuvp_stream_create(&stream) == NPUVP_OK, "stream_create");
    const uint64_t illegal_args[2] = {CASE_ILLEGAL_INSTRUCTION, scratch};
    expect(npuvp_launch_async(&faults, 1, illegal_args, 2, stream, NULL) == NPUVP_OK, "async launch");
    struct npuvp_result stream_error;
    status = npuvp_stream_synchronize(stream, &stream_error);
    print_fault("stream with faults.elf case 13", &faults, &stream_error);
    expect(npuvp_kernel_symbol(&faults, "fault_illegal_instruction", &expected_pc) == NPUVP_OK,
           "symbol fault_illegal_instruction");
    expect(status == NPUVP_ERR_KERNEL_FAULT, "stream_synchronize reports the kernel fault");
    expect(stream_error.cause == NPU_FAULT_SCALAR_TRAP, "cause is scalar trap");
    expect(stream_error.pc == expected_pc, "pc is fault_illegal_instruction");
    expect(npuvp_stream_synchronize(stream, NULL) == NPUVP_OK, "the stream error is cleared once reported");

    /* 3. Bad commands. */
    struct {
        struct npu_command cmd;
        uint32_t reason;
        const char *what;
    } bad[3];
    memset(bad, 0, sizeof bad);
    bad[0].cmd.opcode = 0x77;
    bad[0].reason = NPU_BAD_OPCODE;
    bad[0].what = "unknown opcode";
    bad[1].cmd.opcode = NPU_CMD_LAUNCH;
    bad[1].cmd.u.launch.entry = vadd.entry;
    bad[1].cmd.u.launch.block_dim = 0;
    bad[1].reason = NPU_BAD_BLOCK_DIM;
    bad[1].what = "launch of 0 blocks";
    bad[2].cmd.opcode = NPU_CMD_WAIT_EVENT;
    bad[2].cmd.u.event.event = 63;
    bad[2].cmd.u.event.count = 1000;
    bad[2].reason = NPU_BAD_WAIT_COUNT;
    bad[2].what = "wait for an event never recorded";
    for (unsigned i = 0; i < 3; i++) {
        npuvp_ticket_t ticket;
        expect(npuvp_submit_raw(&bad[i].cmd, &ticket) == NPUVP_OK, "submit_raw");
        status = npuvp_wait(ticket, &r);
        printf("kernel-fault: %s: %s\n", bad[i].what, npuvp_result_string(&r));
        expect(status == NPUVP_ERR_BAD_COMMAND && r.cause == bad[i].reason, bad[i].what);
    }

    /* 4. The queue still works: z = x + y on 4096 f16 (small integers: exact sums). */
    const uint64_t n = 4096;
    uint64_t x_dev, y_dev, z_dev;
    expect(npuvp_malloc(NPUVP_MEM_DDR, n * 2, 0, &x_dev) == NPUVP_OK, "malloc x");
    expect(npuvp_malloc(NPUVP_MEM_L2, n * 2, 0, &y_dev) == NPUVP_OK, "malloc y (L2 buffer)");
    expect(npuvp_malloc(NPUVP_MEM_DDR, n * 2, 0, &z_dev) == NPUVP_OK, "malloc z");
    uint16_t *x = npuvp_host_ptr(x_dev), *y = npuvp_host_ptr(y_dev), *z = npuvp_host_ptr(z_dev);
    for (uint64_t i = 0; i < n; i++) {
        x[i] = (uint16_t)(0x4000 + (i % 512)); /* 2.0 .. 2.998 */
        y[i] = 0x4000;                         /* 2.0 */
        z[i] = 0xffff;
    }
    /* Eight launches back to back (the 4-slot queue makes the driver wait for free slots),
     * the last one synchronous. */
    const uint64_t vadd_args[4] = {x_dev, y_dev, z_dev, n};
    for (unsigned i = 0; i < 7; i++)
        expect(npuvp_launch_async(&vadd, 1 + i % 4, vadd_args, 4, NPUVP_STREAM_DEFAULT, NULL) == NPUVP_OK,
               "async vector_add");
    status = npuvp_launch(&vadd, 4, vadd_args, 4, NPUVP_STREAM_DEFAULT, &r);
    printf("kernel-fault: vector_add after the faults (8 launches): %s, %u blocks done\n", npuvp_result_string(&r),
           (unsigned)r.blocks_done);
    expect(status == NPUVP_OK && r.blocks_done == 4, "vector_add after the faults succeeds");
    expect(npuvp_synchronize(NULL) != NPUVP_OK, "npuvp_synchronize reports the earlier faults");
    expect(npuvp_synchronize(NULL) == NPUVP_OK, "and clears them");
    unsigned wrong = 0;
    for (uint64_t i = 0; i < n; i++) {
        /* (2 + m/512) + 2 = 4 + (m/2)/256: exponent field 17, mantissa m/2, an odd m being
         * an exact tie that rounds to the even neighbour */
        uint32_t m = (uint32_t)(i % 512), half = m >> 1;
        if (m & 1) half += half & 1; /* exact tie: round to even */
        uint16_t want = (uint16_t)(0x4400 + half);
        if (z[i] != want && wrong++ < 3)
            printf("kernel-fault: z[%lu] = 0x%04x, expected 0x%04x\n", (unsigned long)i, z[i], want);
    }
    expect(wrong == 0, "vector_add results");

    npuvp_device_info(&info);
    printf("kernel-fault: %lu commands through a %u-entry queue, %lu completions, %lu stray\n",
           (unsigned long)info.commands, info.queue_entries, (unsigned long)info.completions,
           (unsigned long)info.stray_completions);
    expect(info.commands > 2 * info.queue_entries && info.completions == info.commands && info.stray_completions == 0,
           "every command completed once, ring wrapped");
    npuvp_shutdown();

    if (failures) {
        printf("kernel-fault: %d unexpected results: FAIL\n", failures);
        return EXIT_FAILURE;
    }
    printf("kernel-fault: fault reported as expected (core id, pc, cause), queue healthy; exit status %d\n",
           NPUVP_EXIT_KERNEL_FAULT);
    return NPUVP_EXIT_KERNEL_FAULT;
}
