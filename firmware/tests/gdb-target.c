/* Program for the gdb integration test (tests/integration/gdb_test.cpp): a
 * function to break in, a local and a global to print, and a global whose
 * writes a watchpoint catches. Built with -O0 -g so that every source line
 * and variable is where gdb expects it. */
#include <stdio.h>

long total;              /* accumulated by accumulate() */
volatile long progress;  /* written once per iteration: the watchpoint's target */

long accumulate(long value)
{
    long doubled = value * 2;
    total += doubled;
    return total;
}

int main(void)
{
    long sum = 0;
    for (long i = 1; i <= 5; i++) {
        sum = accumulate(i);
        progress = i;
    }
    printf("gdb-target: sum %ld\n", sum);
    return sum == 30 ? 0 : 1;
}
