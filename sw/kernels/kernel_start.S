/*
 * AI Core kernel entry. The core starts here with
 *   a0 = argument block (GM address), a1 = block index, a2 = block count,
 *   sp = top of the core's private memory;
 * kernel_main(args) runs the task block, then end_kernel waits for every
 * pipe to drain and reports completion.
 */
    .section .text.init, "ax", @progbits
    .globl _start
    .type _start, @function
_start:
    call    kernel_main
    .insn i 0x5b, 3, x0, x0, 0          /* xd.end_kernel */
1:  j       1b
    .size _start, . - _start
