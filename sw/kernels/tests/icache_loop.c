/* A loop whose body is 512 bytes of straight-line code (128 uncompressed
 * nops, between the labels loop_body_start and loop_body_end), run args[0]
 * times; out[0] (args[1]) = iterations done. With a small direct-mapped
 * instruction cache the body evicts itself every iteration. */
#include "npuvp/davinci.h"

void kernel_main(const uint64_t* args) {
    const uint64_t iterations = args[0];
    volatile uint64_t* out = (volatile uint64_t*)(uintptr_t)args[1];
    uint64_t done = 0;
    for (uint64_t i = 0; i < iterations; ++i) {
        __asm__ volatile(".balign 64\n.globl loop_body_start\nloop_body_start:\n\t"
                         ".rept 128\n\t.insn i 0x13, 0, x0, x0, 0\n\t.endr\n"
                         ".globl loop_body_end\nloop_body_end:" ::: "memory");
        ++done;
    }
    out[0] = done;
}
