/*
 * A load from unmapped address 0x0: the bus answers with an error, the core takes a load
 * access fault, and the runtime's trap handler reports it and exits with 0x7F:
 *   npuvp: unhandled exception: load access fault (mcause=0x5) mepc=0x... mtval=0x0000000000000000
 */
#include <stdint.h>
#include <stdio.h>

int main(void)
{
    printf("access-fault: loading from unmapped address 0x0\n");
    uint32_t v = *(volatile uint32_t *)(uintptr_t)0;
    printf("access-fault: read 0x%08lx, expected a fault\n", (unsigned long)v);
    return 1;
}
