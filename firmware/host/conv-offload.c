/*
 * Convolution offload through the npuvp driver and the task scheduler
 * (scenarios/conv-offload.yaml).
 *
 * out = ReLU(conv2d(fmap, weights)) by sw/kernels/conv2d.elf (im2col GEMM on the Cube,
 * embedded in this program): one image, C1 x 16 input channels in the 5HD layout
 * (C1 x H x W x 16 f16), kh x kw kernel, stride, padding, dilation; weights as the
 * Kc x Cout GEMM B matrix (row k = ((c1 * kh + i) * kw + j) * 16 + c0); output Ho*Wo rows x
 * Cout columns, row-major f16 (NHWC). The feature map goes to the L2 buffer, the weights
 * and the output to DDR. The launch uses conv_blocks task blocks over every AI Core found;
 * the result is compared element by element with a host-side reference of the same
 * numerics (offload_reference.h): the im2col product with float sums in increasing k,
 * ReLU before the f16 rounding (negative sums give +0). Prints "conv-offload: ... PASS" and
 * exits 0 when every element matches.
 *
 * Patchable (scenario `patch:`): conv_c1, conv_h, conv_w, conv_cout, conv_kh, conv_kw,
 * conv_stride, conv_pad, conv_dilation, conv_blocks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <npuvp/platform.h>

#include "npuvp_driver.h"
#include "offload_reference.h"

NPUVP_DECLARE_KERNEL_IMAGE(conv2d);

/* Default: 16 channels, 28 x 28, 3 x 3, stride 1, pad 1, 48 outputs: C = 784 x 48,
 * Kc = 144; four 256-row C tiles over 4 blocks. */
uint64_t conv_c1 = 1, conv_h = 28, conv_w = 28, conv_cout = 48;
uint64_t conv_kh = 3, conv_kw = 3, conv_stride = 1, conv_pad = 1, conv_dilation = 1;
uint64_t conv_blocks = 4;

static void check(int status, const char *what)
{
    if (status != NPUVP_OK) {
        printf("conv-offload: %s failed: %s\nconv-offload: FAIL\n", what, npuvp_status_name(status));
        exit(EXIT_FAILURE);
    }
}

int main(void)
{
    const uint64_t c1 = conv_c1, h = conv_h, w = conv_w, cout = conv_cout, kh = conv_kh, kw = conv_kw;
    const uint64_t stride = conv_stride, pad = conv_pad, dil = conv_dilation;
    const uint64_t ho = (h + 2 * pad - dil * (kh - 1) - 1) / stride + 1;
    const uint64_t wo = (w + 2 * pad - dil * (kw - 1) - 1) / stride + 1;
    const uint64_t kc = c1 * kh * kw * 16, m = ho * wo;

    check(npuvp_init(NULL), "npuvp_init");
    struct npuvp_device_info info;
    npuvp_device_info(&info);

    uint64_t fmap_dev, weights_dev, out_dev;
    check(npuvp_malloc(NPUVP_MEM_L2, c1 * h * w * 16 * 2, 4096, &fmap_dev), "malloc feature map (L2)");
    check(npuvp_malloc(NPUVP_MEM_DDR, kc * cout * 2, 4096, &weights_dev), "malloc weights");
    check(npuvp_malloc(NPUVP_MEM_DDR, m * cout * 2, 4096, &out_dev), "malloc output");
    uint16_t *fmap = npuvp_host_ptr(fmap_dev), *weights = npuvp_host_ptr(weights_dev), *out = npuvp_host_ptr(out_dev);
    for (uint64_t x = 0; x < c1 * h * w * 16; x++) fmap[x] = random_f16();
    for (uint64_t x = 0; x < kc * cout; x++) weights[x] = random_f16();
    memset(out, 0xff, m * cout * 2);

    struct npuvp_kernel conv;
    check(npuvp_kernel_load(&conv, NPUVP_KERNEL_IMAGE(conv2d)), "loading conv2d.elf");
    const uint64_t args[18] = {fmap_dev, weights_dev, out_dev, c1, h, w, cout, kh, kw, stride, stride,
                               pad, pad, pad, pad, dil, dil, 1 /* ReLU */};
    struct npuvp_result r;
    int status = npuvp_launch(&conv, (uint32_t)conv_blocks, args, 18, NPUVP_STREAM_DEFAULT, &r);
    printf("conv-offload: %lux%lux%lux16 * %lux%lu -> %lux%lux%lu, %lu blocks on %u AI Cores: %s, %u blocks done, "
           "kernel cycles %lu, TS cycles %lu\n",
           (unsigned long)c1, (unsigned long)h, (unsigned long)w, (unsigned long)kh, (unsigned long)kw,
           (unsigned long)ho, (unsigned long)wo, (unsigned long)cout, (unsigned long)conv_blocks, info.num_cores,
           npuvp_result_string(&r), (unsigned)r.blocks_done, (unsigned long)r.kernel_cycles,
           (unsigned long)(r.ts_end_cycle - r.ts_start_cycle));
    check(status, "conv2d launch");

    /* Reference: im2col row (oh, ow) times weight column n, k in increasing order; both as
     * units of 2^-24 (offload_reference.h), the weights transposed, padding as zeros. */
    unsigned bad = 0;
    uint64_t t0 = rdcycle();
    int32_t *wt = malloc(cout * kc * sizeof(int32_t)), *row = malloc(kc * sizeof(int32_t));
    if (!wt || !row) {
        printf("conv-offload: no host memory for the reference\n");
        return EXIT_FAILURE;
    }
    for (uint64_t k = 0; k < kc; k++)
        for (uint64_t n = 0; n < cout; n++) wt[n * kc + k] = (int32_t)f16_to_units24(weights[k * cout + n]);
    for (uint64_t oh = 0; oh < ho; oh++) {
        for (uint64_t ow = 0; ow < wo; ow++) {
            uint64_t k = 0; /* = ((cc * kh + i) * kw + j) * 16 + c0 */
            for (uint64_t cc = 0; cc < c1; cc++)
                for (uint64_t i = 0; i < kh; i++)
                    for (uint64_t j = 0; j < kw; j++)
                        for (uint64_t c0 = 0; c0 < 16; c0++, k++) {
                            const int64_t ih = (int64_t)(oh * stride + i * dil) - (int64_t)pad;
                            const int64_t iw = (int64_t)(ow * stride + j * dil) - (int64_t)pad;
                            row[k] = ih < 0 || iw < 0 || ih >= (int64_t)h || iw >= (int64_t)w
                                         ? 0 /* padding */
                                         : (int32_t)f16_to_units24(
                                               fmap[((cc * h + (uint64_t)ih) * w + (uint64_t)iw) * 16 + c0]);
                        }
            for (uint64_t n = 0; n < cout; n++) {
                const int32_t *col = wt + n * kc;
                int64_t acc = 0;
                for (k = 0; k < kc; k++) acc = float_round48(acc + (int64_t)row[k] * col[k]);
                const uint16_t want = acc < 0 ? 0 : units48_to_f16(acc); /* ReLU in float, then f16 */
                const uint16_t got = out[(oh * wo + ow) * cout + n];
                if (got != want && bad++ < 5)
                    printf("conv-offload: out[%lu][%lu][%lu] = 0x%04x, expected 0x%04x\n", (unsigned long)oh,
                           (unsigned long)ow, (unsigned long)n, got, want);
            }
        }
    }
    printf("conv-offload: reference of %lu outputs in %lu host cycles\n", (unsigned long)(m * cout),
           (unsigned long)(rdcycle() - t0));
    check(npuvp_shutdown(), "shutdown");
    if (bad) {
        printf("conv-offload: %u of %lu outputs differ: FAIL\n", bad, (unsigned long)(m * cout));
        return EXIT_FAILURE;
    }
    printf("conv-offload: %lu outputs on %u AI Cores, every element matches: PASS\n", (unsigned long)(m * cout),
           info.num_cores);
    return EXIT_SUCCESS;
}
