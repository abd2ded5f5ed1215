/* Exit status propagation: prints one line, then exit(3) -> finisher writes 0x00033333. */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    printf("exit-code: exiting with status 3\n");
    exit(3);
}
