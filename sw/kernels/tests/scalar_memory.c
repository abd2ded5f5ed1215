/* The scalar unit's private memory (its stack, at 0x1_0000_0000) and its
 * window on the Unified Buffer (0x1_0100_0000).
 *   out[0] = address of a 16 KiB local array (on the stack)
 *   out[1] = sum over that array, out[2] = a recursive sum (deep stack)
 *   out[8..71]   = s32 results of vadd over operands the scalar stored
 *                  through the UB window (before a barrier)
 *   out[72..135] = s32 results of a vadd issued *before* the scalar stored
 *                  its operands, released by set_flag(PIPE_S, PIPE_V)
 * args[0] = GM out (136 words). */
#include "npuvp/davinci.h"

#define UB_WINDOW 0x101000000ull

static uint64_t __attribute__((noinline)) recursive_sum(uint64_t n) {
    volatile uint64_t frame[16];
    frame[n & 15] = n;
    return n == 0 ? 0 : frame[n & 15] + recursive_sum(n - 1);
}

void kernel_main(const uint64_t* args) {
    volatile uint64_t* out = (volatile uint64_t*)(uintptr_t)args[0];
    volatile int32_t* ub = (volatile int32_t*)UB_WINDOW;

    volatile uint64_t local[2048];
    for (uint64_t i = 0; i < 2048; ++i) local[i] = 3 * i;
    uint64_t sum = 0;
    for (uint64_t i = 0; i < 2048; ++i) sum += local[i];
    out[0] = (uint64_t)(uintptr_t)&local[0];
    out[1] = sum;
    out[2] = recursive_sum(100);

    /* Scalar stores, barrier, vector op, barrier, scalar loads. */
    for (int i = 0; i < 64; ++i) {
        ub[0x100 / 4 + i] = i;
        ub[0x200 / 4 + i] = 1000 * i;
    }
    pipe_barrier(PIPE_ALL);
    vadd(0x400, 0x100, 0x200, vector_contiguous(1, XD_S32));
    pipe_barrier(PIPE_V);
    for (int i = 0; i < 64; ++i) out[8 + i] = (uint64_t)(int64_t)ub[0x400 / 4 + i];

    /* V waits for the scalar: the vadd is queued before its operands exist. */
    wait_flag(PIPE_S, PIPE_V, EVENT_ID1);
    vadd(0x800, 0x600, 0x600, vector_contiguous(1, XD_S32));
    for (int i = 0; i < 64; ++i) ub[0x600 / 4 + i] = -7 * i;
    set_flag(PIPE_S, PIPE_V, EVENT_ID1);
    pipe_barrier(PIPE_V);
    for (int i = 0; i < 64; ++i) out[72 + i] = (uint64_t)(int64_t)ub[0x800 / 4 + i];
}
