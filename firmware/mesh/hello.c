/*
 * Every hart prints one line, in hart order: hart h waits for its turn (a counter
 * published with release/acquire), prints, and passes the turn on.
 */
#include <stdio.h>

#include <npuvp/smp.h>

static volatile uint32_t turn;

int main(void)
{
    unsigned me = smp_hart_id();
    smp_wait_until_equal32(&turn, me);
    printf("hello from hart %u of %u\n", me, smp_hart_count());
    smp_store_release32(&turn, me + 1);
    return 0;
}
