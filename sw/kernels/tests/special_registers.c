/* Special registers: every task block writes what it sees to its own record
 * of 8 words at args[0] + block_idx * 64:
 *   [0] core_id  [1] block_idx  [2] block_dim  (csrr)
 *   [3] a1, [4] a2 at entry (block index and count from the launch)
 *   [5] the AI Core status register (csrr)
 *   [6] += 1 (how often this block ran)
 * and counts itself in the word at args[1] (atomic add: blocks run on
 * several cores). */
#include "npuvp/davinci.h"

void kernel_main(const uint64_t* args, uint64_t entry_block_idx, uint64_t entry_block_dim) {
    volatile uint64_t* record = (volatile uint64_t*)(uintptr_t)args[0] + block_idx() * 8;
    record[0] = core_id();
    record[1] = block_idx();
    record[2] = block_dim();
    record[3] = entry_block_idx;
    record[4] = entry_block_dim;
    record[5] = get_status();
    record[6] = record[6] + 1;
    __atomic_fetch_add((uint64_t*)(uintptr_t)args[1], 1, __ATOMIC_RELAXED);
}
