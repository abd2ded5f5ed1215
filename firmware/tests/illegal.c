/*
 * An illegal instruction that nothing can handle: mtvec is first pointed at address 0,
 * which is unmapped, so the trap's own instruction fetch faults again (and again). The
 * runtime's trap handler is bypassed on purpose; the simulator itself must report the
 * illegal instruction (mcause 2, mepc = address of the `unimp`, mtval = 0xc0001073 if
 * the ISS reports instruction bits) and stop.
 *
 * The instruction is the 32-bit canonical UNIMP, `csrrw x0, cycle, x0`: a write to the
 * read-only cycle CSR. It is spelled as a raw word so the assembler can't pick the
 * 16-bit c.unimp form.
 */
#include <stdio.h>

#include <npuvp/csr.h>

int main(void)
{
    printf("illegal: executing an illegal instruction with mtvec = 0\n");
    write_csr(mtvec, 0);
    __asm__ volatile(".4byte 0xc0001073");      /* unimp */
    /* Not reached: there is no trap handler to come back through. */
    printf("illegal: still running?!\n");
    return 1;
}
