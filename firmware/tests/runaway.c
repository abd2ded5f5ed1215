/* Never terminates: for the simulator's run limits (instructions, simulated or wall time). */
#include <stdio.h>

int main(void)
{
    volatile unsigned long counter = 0;

    printf("runaway: spinning forever\n");
    for (;;)
        counter++;
}
