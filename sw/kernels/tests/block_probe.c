/* Records which core ran each task block, with what index and block count, and when
 * (struct block_probe_record in npuvp/block_probe.h), optionally spinning a per-block number
 * of cycles first. Used for dispatch and launch-overhead tests: no pipes, scalar only. */
#include "npuvp/davinci.h"

#include "npuvp/block_probe.h"

static inline uint64_t cycle_counter(void)
{
    uint64_t value;
    __asm__ volatile("rdcycle %0" : "=r"(value));
    return value;
}

void kernel_main(const struct block_probe_args* args) {
    uint64_t start = cycle_counter();
    uint64_t block = block_idx();
    uint64_t delay = args->delay_count ? args->delays[block % args->delay_count] : 0;
    while (cycle_counter() - start < delay) {
    }
    struct block_probe_record* record = (struct block_probe_record*)(uintptr_t)args->records + block;
    record->block = (uint32_t)block;
    record->block_dim = (uint32_t)block_dim();
    record->core = (uint32_t)core_id();
    __atomic_fetch_add(&record->visits, 1u, __ATOMIC_RELAXED);
    record->start_cycle = start;
    record->end_cycle = cycle_counter();
}
