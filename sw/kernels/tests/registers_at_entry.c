/* Registers at kernel entry. _start only calls kernel_main (which changes
 * ra), so kernel_main sees the registers the core set up: a0 = ARGS,
 * a1 = BLOCK_IDX, a2 = BLOCK_DIM, sp = top of the private memory, all others
 * 0. This naked kernel_main stores x1..x31 into args[1..31] before touching
 * anything, then dirties every register it may, so that a second block on
 * the same core would see leftovers if the core did not reset them. */
#include "npuvp/davinci.h"

__attribute__((naked)) void kernel_main(void) {
    __asm__ volatile(
        "sd x1, 8(a0)\n\t"   "sd x2, 16(a0)\n\t"  "sd x3, 24(a0)\n\t"  "sd x4, 32(a0)\n\t"
        "sd x5, 40(a0)\n\t"  "sd x6, 48(a0)\n\t"  "sd x7, 56(a0)\n\t"  "sd x8, 64(a0)\n\t"
        "sd x9, 72(a0)\n\t"  "sd x10, 80(a0)\n\t" "sd x11, 88(a0)\n\t" "sd x12, 96(a0)\n\t"
        "sd x13, 104(a0)\n\t" "sd x14, 112(a0)\n\t" "sd x15, 120(a0)\n\t" "sd x16, 128(a0)\n\t"
        "sd x17, 136(a0)\n\t" "sd x18, 144(a0)\n\t" "sd x19, 152(a0)\n\t" "sd x20, 160(a0)\n\t"
        "sd x21, 168(a0)\n\t" "sd x22, 176(a0)\n\t" "sd x23, 184(a0)\n\t" "sd x24, 192(a0)\n\t"
        "sd x25, 200(a0)\n\t" "sd x26, 208(a0)\n\t" "sd x27, 216(a0)\n\t" "sd x28, 224(a0)\n\t"
        "sd x29, 232(a0)\n\t" "sd x30, 240(a0)\n\t" "sd x31, 248(a0)\n\t"
        "li x3, -1\n\t" "li x4, -1\n\t" "li x5, -1\n\t" "li x6, -1\n\t" "li x7, -1\n\t"
        "li x8, -1\n\t" "li x9, -1\n\t" "li x11, -1\n\t" "li x12, -1\n\t" "li x13, -1\n\t"
        "li x14, -1\n\t" "li x15, -1\n\t" "li x16, -1\n\t" "li x17, -1\n\t" "li x18, -1\n\t"
        "li x19, -1\n\t" "li x20, -1\n\t" "li x21, -1\n\t" "li x22, -1\n\t" "li x23, -1\n\t"
        "li x24, -1\n\t" "li x25, -1\n\t" "li x26, -1\n\t" "li x27, -1\n\t" "li x28, -1\n\t"
        "li x29, -1\n\t" "li x30, -1\n\t" "li x31, -1\n\t"
        "ret");
}
