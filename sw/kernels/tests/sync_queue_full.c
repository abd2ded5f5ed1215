/* Many vector instructions in a row: with a short queue
 * (soc.aicore0.queue_depth = 2) the scalar unit stalls when the V queue is
 * full, and the result is still right. UB 0x1000: 128 halves, 32 x "+1.0". */
#include "npuvp/davinci.h"

#define HALF_ONE 0x3c00

void kernel_main(const uint64_t* args) {
    (void)args;
    for (int i = 0; i < 32; ++i) vadds(0x1000, 0x1000, HALF_ONE, vector_contiguous(1, XD_F16));
}
