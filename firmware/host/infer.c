/*
 * The standard inference host program (docs/runtime.md): runs the model package that
 * `npuvp infer` (or a scenario's memory preload) put at NPUVP_PACKAGE_ADDRESS through the
 * model runtime (sw/runtime): open and check it, load the kernels it uses from the images
 * embedded here, replay its launches, and print a progress line every few layers and a
 * one-line summary. The outputs and the per-launch profile stay in the package's io and
 * profile areas, where `npuvp infer` reads them after the run.
 *
 * Exit status: 0 done; 1 the driver could not start or failed; NPUVP_EXIT_KERNEL_FAULT (3)
 * a kernel faulted (the layer's name and the fault line printed); NPUVP_EXIT_BAD_PACKAGE
 * (4) no valid package there; NPUVP_EXIT_MISSING_KERNEL (5) the package needs a kernel
 * this program was built without; NPUVP_EXIT_OUT_OF_MEMORY (6) the activation arena does
 * not fit the device-memory pool.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <npuvp/csr.h>
#include <npuvp/operator_kernels.h>
#include <npuvp/platform.h>
#include <npuvp/trap.h>

#include "model_runtime.h"
#include "npuvp_driver.h"

/* firmware/host/CMakeLists.txt embeds vector_add and relu, and each operator kernel whose
 * target exists, defining NPUVP_INFER_HAS_<name> for it; a package needing one that is
 * missing fails with NPUVP_MODEL_ERR_MISSING_KERNEL naming it. */
NPUVP_DECLARE_KERNEL_IMAGE(vector_add);
NPUVP_DECLARE_KERNEL_IMAGE(relu);
#ifdef NPUVP_INFER_HAS_op_conv
NPUVP_DECLARE_KERNEL_IMAGE(op_conv);
#endif
#ifdef NPUVP_INFER_HAS_op_matmul
NPUVP_DECLARE_KERNEL_IMAGE(op_matmul);
#endif
#ifdef NPUVP_INFER_HAS_op_eltwise
NPUVP_DECLARE_KERNEL_IMAGE(op_eltwise);
#endif
#ifdef NPUVP_INFER_HAS_op_softmax
NPUVP_DECLARE_KERNEL_IMAGE(op_softmax);
#endif
#ifdef NPUVP_INFER_HAS_op_layernorm
NPUVP_DECLARE_KERNEL_IMAGE(op_layernorm);
#endif
#ifdef NPUVP_INFER_HAS_op_pool
NPUVP_DECLARE_KERNEL_IMAGE(op_pool);
#endif
#ifdef NPUVP_INFER_HAS_op_copy
NPUVP_DECLARE_KERNEL_IMAGE(op_copy);
#endif
#ifdef NPUVP_INFER_HAS_op_dwconv
NPUVP_DECLARE_KERNEL_IMAGE(op_dwconv);
#endif

#define MAX_EMBEDDED_KERNELS 16
#define EMBED(id, name) images[count++] = (struct npuvp_model_kernel_image){id, NPUVP_KERNEL_IMAGE(name)}

/* The kernels embedded in this program; returns how many. */
static size_t embedded_kernels(struct npuvp_model_kernel_image images[MAX_EMBEDDED_KERNELS])
{
    size_t count = 0;
    EMBED(2, vector_add);
    EMBED(3, relu);
#ifdef NPUVP_INFER_HAS_op_conv
    EMBED(NPUVP_OP_KERNEL_CONV, op_conv);
#endif
#ifdef NPUVP_INFER_HAS_op_matmul
    EMBED(NPUVP_OP_KERNEL_MATMUL, op_matmul);
#endif
#ifdef NPUVP_INFER_HAS_op_eltwise
    EMBED(NPUVP_OP_KERNEL_ELTWISE, op_eltwise);
#endif
#ifdef NPUVP_INFER_HAS_op_softmax
    EMBED(NPUVP_OP_KERNEL_SOFTMAX, op_softmax);
#endif
#ifdef NPUVP_INFER_HAS_op_layernorm
    EMBED(NPUVP_OP_KERNEL_LAYERNORM, op_layernorm);
#endif
#ifdef NPUVP_INFER_HAS_op_pool
    EMBED(NPUVP_OP_KERNEL_POOL, op_pool);
#endif
#ifdef NPUVP_INFER_HAS_op_copy
    EMBED(NPUVP_OP_KERNEL_COPY, op_copy);
#endif
#ifdef NPUVP_INFER_HAS_op_dwconv
    EMBED(NPUVP_OP_KERNEL_DWCONV, op_dwconv);
#endif
    return count;
}

/* A progress line every this many layers; 0: a tenth of the model's layers; 0xffffffff:
 * none. `npuvp infer` patches it to 0xffffffff (it writes its own line, by wall time). In
 * .data: a zero-initialised variable would sit in .bss, which the startup code clears after
 * the patch was written. */
__attribute__((section(".data"))) volatile uint32_t infer_progress_layers = 0;

struct progress {
    uint32_t every, since_last;
    uint64_t start_time;
};

static uint64_t microseconds_since(uint64_t start) { return (rdtime() - start) / (NPUVP_TIMEBASE_HZ / 1000000u); }

static void on_layer_done(const struct npuvp_model *model, uint32_t layer, void *context)
{
    struct progress *p = context;
    const uint32_t layers = model->header->layer_count;
    if (++p->since_last < p->every || layer + 1 == layers) return;
    p->since_last = 0;
    printf("infer: layer %u/%u '%s' (%s) done, %lu us simulated\n", (unsigned)(layer + 1), (unsigned)layers,
           npuvp_model_string(model, model->layers[layer].name), npuvp_model_string(model, model->layers[layer].op),
           (unsigned long)microseconds_since(p->start_time));
}

/* ---- the space the package may occupy ------------------------------------------------ */

static volatile int load_faulted;

static void load_fault_handler(struct npuvp_trap_frame *frame)
{
    load_faulted = 1;
    frame->mepc += npuvp_insn_length(frame->mepc);
}

/* Whether `address` is backed by memory (a load there does not fault). */
static int readable(uint64_t address)
{
    npuvp_trap_handler_t old = npuvp_set_exception_handler(CAUSE_LOAD_ACCESS, load_fault_handler);
    load_faulted = 0;
    (void)mmio_read64(address);
    const int ok = !load_faulted;
    npuvp_set_exception_handler(CAUSE_LOAD_ACCESS, old);
    return ok;
}

/* Bytes of memory from NPUVP_PACKAGE_ADDRESS on, up to NPUVP_PACKAGE_MAX_BYTES (the DDR
 * ends at a power of two), so that the package check never reads past the memory: with
 * a smaller soc.ddr.size there is none at all. */
static uint64_t package_space(void)
{
    uint64_t size = NPUVP_PACKAGE_MAX_BYTES;
    while (size >= 4096 && !readable(NPUVP_PACKAGE_ADDRESS + size - 8)) size /= 2;
    return size >= 4096 ? size : 0;
}

static int exit_status_of(int status)
{
    switch (status) {
    case NPUVP_MODEL_ERR_KERNEL_FAULT: return NPUVP_EXIT_KERNEL_FAULT;
    case NPUVP_MODEL_ERR_MISSING_KERNEL: return NPUVP_EXIT_MISSING_KERNEL;
    case NPUVP_MODEL_ERR_OUT_OF_MEMORY: return NPUVP_EXIT_OUT_OF_MEMORY;
    default: return status <= NPUVP_MODEL_ERR_TRUNCATED && status >= NPUVP_MODEL_ERR_PROFILE ? NPUVP_EXIT_BAD_PACKAGE
                                                                                           : EXIT_FAILURE;
    }
}

int main(void)
{
    int status = npuvp_init(NULL);
    if (status != NPUVP_OK) {
        printf("infer: npuvp_init: %s\n", npuvp_status_name(status));
        return EXIT_FAILURE;
    }
    struct npuvp_model_kernel_image images[MAX_EMBEDDED_KERNELS];
    const size_t image_count = embedded_kernels(images);

    const uint64_t space = package_space();
    if (space == 0) {
        printf("infer: no memory at 0x%lx for the model package (soc.ddr.size must be 2 GiB, as npuvp infer sets it)\n",
               (unsigned long)NPUVP_PACKAGE_ADDRESS);
        return NPUVP_EXIT_BAD_PACKAGE;
    }
    static struct npuvp_model model;
    status = npuvp_model_open(&model, npuvp_host_ptr(NPUVP_PACKAGE_ADDRESS), space);
    if (status == NPUVP_MODEL_OK) status = npuvp_model_load_kernels(&model, images, image_count);
    if (status != NPUVP_MODEL_OK) {
        printf("infer: %s\n", npuvp_model_message(&model));
        return exit_status_of(status);
    }
    const struct npuvp_package_header *h = model.header;
    printf("infer: model '%s': %u layers, %u launches on %u streams, compiled for %u AI Cores\n",
           npuvp_model_string(&model, h->model_name), (unsigned)h->layer_count, (unsigned)h->launch_count,
           (unsigned)h->streams, (unsigned)h->ai_cores);
    if (h->pinned_bytes)
        printf("infer: pinned weights: %lu bytes copied into the L2 buffer at load in %lu TS cycles\n",
               (unsigned long)h->pinned_bytes, (unsigned long)model.staging_cycles);

    struct progress progress = {infer_progress_layers, 0, rdtime()};
    if (progress.every == 0) progress.every = h->layer_count >= 10 ? (h->layer_count + 9) / 10 : h->layer_count;
    status = npuvp_model_run(&model, on_layer_done, &progress);
    const uint64_t elapsed = microseconds_since(progress.start_time);
    if (status != NPUVP_MODEL_OK) {
        printf("infer: %s\n", npuvp_model_message(&model));
        return exit_status_of(status);
    }
    printf("infer: done: %u layers, %u launches in %lu us simulated\n", (unsigned)h->layer_count,
           (unsigned)h->launch_count, (unsigned long)elapsed);
    npuvp_model_close(&model);
    npuvp_shutdown();
    return EXIT_SUCCESS;
}
