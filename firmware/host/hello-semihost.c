/* Console and exit through RISC-V semihosting (built with SEMIHOST): no UART needed. */
#include <stdio.h>

#include <npuvp/csr.h>

int main(void)
{
    printf("Hello from npuvp via semihosting! (hart %lu)\n", hart_id());
    return 0;
}
