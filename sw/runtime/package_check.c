/*
 * The model package check (model_runtime.h): everything the runtime relies on
 * before it touches device memory or the driver, each failure a distinct status
 * and a one-line message. Plain C with snprintf only, so a host test compiles
 * this file on its own (tests/unit/package_check_test.cpp).
 */
#include <stdarg.h>
#include <stdio.h>

#include <npuvp/operator_kernels.h>

#include "model_runtime.h"

const char *npuvp_model_status_name(int status)
{
    switch (status) {
    case NPUVP_MODEL_OK: return "ok";
    case NPUVP_MODEL_ERR_TRUNCATED: return "package truncated";
    case NPUVP_MODEL_ERR_MAGIC: return "not a model package (bad magic)";
    case NPUVP_MODEL_ERR_VERSION: return "unsupported package version";
    case NPUVP_MODEL_ERR_REGION: return "package region out of bounds";
    case NPUVP_MODEL_ERR_ALIGNMENT: return "package region misaligned";
    case NPUVP_MODEL_ERR_STRING: return "bad package string";
    case NPUVP_MODEL_ERR_STREAMS: return "bad stream count";
    case NPUVP_MODEL_ERR_LAYER: return "bad layer";
    case NPUVP_MODEL_ERR_KERNEL: return "unknown kernel id";
    case NPUVP_MODEL_ERR_BLOCKS: return "bad block count";
    case NPUVP_MODEL_ERR_LAUNCH_LAYER: return "launch names no layer";
    case NPUVP_MODEL_ERR_STREAM: return "launch stream out of range";
    case NPUVP_MODEL_ERR_NARGS: return "too many launch arguments";
    case NPUVP_MODEL_ERR_EVENT: return "event id out of range";
    case NPUVP_MODEL_ERR_RELOCATION: return "bad argument relocation";
    case NPUVP_MODEL_ERR_TENSOR: return "bad model input or output";
    case NPUVP_MODEL_ERR_PROFILE: return "profile area too small";
    case NPUVP_MODEL_ERR_ARGUMENT: return "invalid runtime call";
    case NPUVP_MODEL_ERR_OUT_OF_MEMORY: return "activation arena or pinned weights do not fit device memory";
    case NPUVP_MODEL_ERR_MISSING_KERNEL: return "kernel not in the host program";
    case NPUVP_MODEL_ERR_BAD_KERNEL: return "embedded kernel image refused";
    case NPUVP_MODEL_ERR_DRIVER: return "driver error";
    case NPUVP_MODEL_ERR_KERNEL_FAULT: return "kernel fault";
    case NPUVP_MODEL_ERR_LAUNCH: return "launch failed";
    default: return "unknown runtime status";
    }
}

const char *npuvp_model_kernel_name(uint32_t kernel)
{
    switch (kernel) {
    case 2: return "vector_add";
    case 3: return "relu";
    case NPUVP_OP_KERNEL_CONV: return "op_conv";
    case NPUVP_OP_KERNEL_MATMUL: return "op_matmul";
    case NPUVP_OP_KERNEL_ELTWISE: return "op_eltwise";
    case NPUVP_OP_KERNEL_SOFTMAX: return "op_softmax";
    case NPUVP_OP_KERNEL_LAYERNORM: return "op_layernorm";
    case NPUVP_OP_KERNEL_POOL: return "op_pool";
    case NPUVP_OP_KERNEL_COPY: return "op_copy";
    case NPUVP_OP_KERNEL_DWCONV: return "op_dwconv";
    default: return NULL;
    }
}

static int fail(char *message, size_t size, int status, const char *format, ...)
{
    if (message && size) {
        va_list args;
        va_start(args, format);
        vsnprintf(message, size, format, args);
        va_end(args);
    }
    return status;
}

/* [offset, offset + count * unit) inside [0, total) without overflow. */
static int inside(uint64_t offset, uint64_t count, uint64_t unit, uint64_t total)
{
    if (offset > total) return 0;
    if (unit && count > (total - offset) / unit) return 0;
    return 1;
}

/* A region of the header: its name, offset, byte size and the alignment its contents need. */
struct region {
    const char *name;
    uint64_t offset, bytes, align;
};

static int check_regions(const struct npuvp_package_header *h, char *message, size_t size)
{
    const struct region regions[] = {
        {"string table", h->strings_offset, h->strings_bytes, 1},
        {"layer table", h->layers_offset, (uint64_t)h->layer_count * sizeof(struct npuvp_package_layer), 8},
        {"launch table", h->launches_offset, (uint64_t)h->launch_count * sizeof(struct npuvp_package_launch), 8},
        {"tensor table", h->tensors_offset, (uint64_t)h->tensor_count * sizeof(struct npuvp_package_tensor), 8},
        {"constants", h->constants_offset, h->constants_bytes, NPUVP_PACKAGE_ALIGN},
        {"io area", h->io_offset, h->io_bytes, NPUVP_PACKAGE_ALIGN},
        {"profile area", h->profile_offset, h->profile_bytes, 8},
    };
    for (size_t i = 0; i < sizeof regions / sizeof regions[0]; i++) {
        const struct region *r = &regions[i];
        if (!inside(r->offset, r->bytes, 1, h->total_bytes))
            return fail(message, size, NPUVP_MODEL_ERR_REGION,
                        "package: %s at offset %llu (%llu bytes) reaches past total_bytes %llu", r->name,
                        (unsigned long long)r->offset, (unsigned long long)r->bytes,
                        (unsigned long long)h->total_bytes);
        if (r->offset % r->align)
            return fail(message, size, NPUVP_MODEL_ERR_ALIGNMENT, "package: %s at offset %llu is not %llu-byte aligned",
                        r->name, (unsigned long long)r->offset, (unsigned long long)r->align);
    }
    if (!inside(h->pinned_offset, h->pinned_bytes, 1, h->constants_bytes))
        return fail(message, size, NPUVP_MODEL_ERR_REGION,
                    "package: pinned weights at constants offset %llu (%llu bytes) reach past the constants (%llu bytes)",
                    (unsigned long long)h->pinned_offset, (unsigned long long)h->pinned_bytes,
                    (unsigned long long)h->constants_bytes);
    if (h->pinned_offset % NPUVP_PACKAGE_ALIGN || h->pinned_bytes % NPUVP_PACKAGE_ALIGN)
        return fail(message, size, NPUVP_MODEL_ERR_ALIGNMENT,
                    "package: pinned weights at constants offset %llu (%llu bytes) are not %u-byte aligned",
                    (unsigned long long)h->pinned_offset, (unsigned long long)h->pinned_bytes, NPUVP_PACKAGE_ALIGN);
    if (h->profile_bytes < (uint64_t)h->launch_count * sizeof(struct npuvp_package_profile))
        return fail(message, size, NPUVP_MODEL_ERR_PROFILE,
                    "package: profile area of %llu bytes holds fewer than its %u launches' records (%llu bytes)",
                    (unsigned long long)h->profile_bytes, (unsigned)h->launch_count,
                    (unsigned long long)h->launch_count * sizeof(struct npuvp_package_profile));
    return NPUVP_MODEL_OK;
}

static int string_ok(const struct npuvp_package_header *h, uint32_t offset) { return offset < h->strings_bytes; }

static int check_string(const struct npuvp_package_header *h, uint32_t offset, const char *what, uint32_t index,
                        char *message, size_t size)
{
    if (string_ok(h, offset)) return NPUVP_MODEL_OK;
    return fail(message, size, NPUVP_MODEL_ERR_STRING,
                "package: %s %u: string offset %u outside the string table (%llu bytes)", what, (unsigned)index,
                (unsigned)offset, (unsigned long long)h->strings_bytes);
}

static int check_layers(const uint8_t *base, const struct npuvp_package_header *h, char *message, size_t size)
{
    const struct npuvp_package_layer *layers = (const struct npuvp_package_layer *)(base + h->layers_offset);
    for (uint32_t i = 0; i < h->layer_count; i++) {
        const struct npuvp_package_layer *l = &layers[i];
        int status;
        if ((status = check_string(h, l->name, "layer", i, message, size)) ||
            (status = check_string(h, l->op, "layer", i, message, size)) ||
            (status = check_string(h, l->shapes, "layer", i, message, size)))
            return status;
        if (!inside(l->first_launch, l->launch_count, 1, h->launch_count))
            return fail(message, size, NPUVP_MODEL_ERR_LAYER,
                        "package: layer %u '%s': launches %u .. %u outside the launch table (%u launches)",
                        (unsigned)i, (const char *)(base + h->strings_offset + l->name), (unsigned)l->first_launch,
                        (unsigned)(l->first_launch + l->launch_count), (unsigned)h->launch_count);
    }
    return NPUVP_MODEL_OK;
}

/* Bytes of the region an argument relocated with `relocation` is relative to
 * (`in_l2`: its l2_args bit, the region being the L2 counterpart). */
static uint64_t region_bytes(const struct npuvp_package_header *h, unsigned relocation, int in_l2)
{
    switch (relocation) {
    case NPUVP_RELOC_CONSTANTS: return in_l2 ? h->pinned_bytes : h->constants_bytes;
    case NPUVP_RELOC_ARENA: return in_l2 ? h->l2_arena_bytes : h->arena_bytes;
    default: return h->io_bytes;
    }
}

static const char *region_name(unsigned relocation, int in_l2)
{
    return relocation == NPUVP_RELOC_CONSTANTS ? (in_l2 ? "pinned weights" : "constants")
           : relocation == NPUVP_RELOC_ARENA   ? (in_l2 ? "L2 arena" : "arena")
                                               : "io area";
}

static int check_launch(const uint8_t *base, const struct npuvp_package_header *h, uint32_t i,
                        const struct npuvp_package_launch *l, char *message, size_t size)
{
    if (!npuvp_model_kernel_name(l->kernel))
        return fail(message, size, NPUVP_MODEL_ERR_KERNEL,
                    "package: launch %u: kernel id %u is not a kernel the runtime knows (operator kernels %u .. %u, "
                    "vector_add 2, relu 3)",
                    (unsigned)i, (unsigned)l->kernel, NPUVP_OP_KERNEL_FIRST, NPUVP_OP_KERNEL_LAST);
    if (l->blocks == 0 || l->blocks > NPU_MAX_BLOCK_DIM)
        return fail(message, size, NPUVP_MODEL_ERR_BLOCKS, "package: launch %u: %u task blocks (1 .. %u allowed)",
                    (unsigned)i, (unsigned)l->blocks, NPU_MAX_BLOCK_DIM);
    if (l->layer >= h->layer_count)
        return fail(message, size, NPUVP_MODEL_ERR_LAUNCH_LAYER, "package: launch %u: layer %u of %u layers",
                    (unsigned)i, (unsigned)l->layer, (unsigned)h->layer_count);
    if (l->stream >= h->streams)
        return fail(message, size, NPUVP_MODEL_ERR_STREAM, "package: launch %u: stream %u, but the package has %u",
                    (unsigned)i, (unsigned)l->stream, (unsigned)h->streams);
    if (l->nargs > NPUVP_PACKAGE_MAX_ARGS)
        return fail(message, size, NPUVP_MODEL_ERR_NARGS, "package: launch %u: %u argument words (at most %u)",
                    (unsigned)i, (unsigned)l->nargs, NPUVP_PACKAGE_MAX_ARGS);
    /* wait_events is a mask of the 64 events: every bit names a valid event. */
    if (l->record_event < -1 || l->record_event >= (int)NPUVP_MODEL_MAX_EVENTS)
        return fail(message, size, NPUVP_MODEL_ERR_EVENT, "package: launch %u: record event %d (-1 or 0 .. %u)",
                    (unsigned)i, (int)l->record_event, NPUVP_MODEL_MAX_EVENTS - 1);
    for (unsigned a = 0; a < NPUVP_PACKAGE_MAX_ARGS; a++) {
        const unsigned relocation = NPUVP_RELOC_OF(l->relocation, a);
        const int in_l2 = (l->l2_args >> a) & 1u;
        if (in_l2 && relocation != NPUVP_RELOC_ARENA && relocation != NPUVP_RELOC_CONSTANTS)
            return fail(message, size, NPUVP_MODEL_ERR_RELOCATION,
                        "package: launch %u: argument %u is marked L2 but is not relative to an arena or the constants",
                        (unsigned)i, a);
        if (relocation == NPUVP_RELOC_NONE) continue;
        if (a >= l->nargs)
            return fail(message, size, NPUVP_MODEL_ERR_RELOCATION,
                        "package: launch %u: argument %u is relocated but the launch has %u arguments", (unsigned)i,
                        a, (unsigned)l->nargs);
        if (l->args[a] >= region_bytes(h, relocation, in_l2))
            return fail(message, size, NPUVP_MODEL_ERR_RELOCATION,
                        "package: launch %u (layer '%s'): argument %u = offset %llu outside the %s (%llu bytes)",
                        (unsigned)i, (const char *)(base + h->strings_offset +
                                                    ((const struct npuvp_package_layer *)(base + h->layers_offset))[l->layer].name),
                        a, (unsigned long long)l->args[a], region_name(relocation, in_l2),
                        (unsigned long long)region_bytes(h, relocation, in_l2));
    }
    return NPUVP_MODEL_OK;
}

static int check_tensors(const uint8_t *base, const struct npuvp_package_header *h, char *message, size_t size)
{
    const struct npuvp_package_tensor *tensors = (const struct npuvp_package_tensor *)(base + h->tensors_offset);
    for (uint32_t i = 0; i < h->tensor_count; i++) {
        const struct npuvp_package_tensor *t = &tensors[i];
        int status = check_string(h, t->name, "tensor", i, message, size);
        if (status) return status;
        const char *name = (const char *)(base + h->strings_offset + t->name);
        if (t->role != NPUVP_TENSOR_INPUT && t->role != NPUVP_TENSOR_OUTPUT)
            return fail(message, size, NPUVP_MODEL_ERR_TENSOR, "package: tensor %u '%s': role %u (0 input, 1 output)",
                        (unsigned)i, name, (unsigned)t->role);
        if (t->type != NPUVP_TENSOR_F16)
            return fail(message, size, NPUVP_MODEL_ERR_TENSOR, "package: tensor %u '%s': type %u (1 = f16)",
                        (unsigned)i, name, (unsigned)t->type);
        if (t->rank > NPUVP_PACKAGE_MAX_RANK)
            return fail(message, size, NPUVP_MODEL_ERR_TENSOR, "package: tensor %u '%s': rank %u (at most %u)",
                        (unsigned)i, name, (unsigned)t->rank, NPUVP_PACKAGE_MAX_RANK);
        uint64_t elements = 1;
        for (uint32_t d = 0; d < t->rank; d++) {
            if (t->dims[d] && elements > UINT64_MAX / 2 / t->dims[d]) elements = UINT64_MAX / 2;
            else elements *= t->dims[d];
        }
        if (t->bytes != elements * 2)
            return fail(message, size, NPUVP_MODEL_ERR_TENSOR,
                        "package: tensor %u '%s': %llu bytes, but its shape holds %llu f16 elements", (unsigned)i,
                        name, (unsigned long long)t->bytes, (unsigned long long)elements);
        if (!inside(t->io_offset, t->bytes, 1, h->io_bytes))
            return fail(message, size, NPUVP_MODEL_ERR_TENSOR,
                        "package: tensor %u '%s': io offset %llu + %llu bytes reaches past the io area (%llu bytes)",
                        (unsigned)i, name, (unsigned long long)t->io_offset, (unsigned long long)t->bytes,
                        (unsigned long long)h->io_bytes);
    }
    return NPUVP_MODEL_OK;
}

int npuvp_package_check(const void *package, uint64_t available, char *message, size_t size)
{
    if (message && size) message[0] = 0;
    if (!package) return fail(message, size, NPUVP_MODEL_ERR_ARGUMENT, "package: no package (NULL)");
    const uint8_t *base = (const uint8_t *)package;
    const struct npuvp_package_header *h = (const struct npuvp_package_header *)package;
    if (available < sizeof *h)
        return fail(message, size, NPUVP_MODEL_ERR_TRUNCATED, "package: %llu bytes, smaller than its %u-byte header",
                    (unsigned long long)available, (unsigned)sizeof *h);
    if (h->magic != NPUVP_PACKAGE_MAGIC)
        return fail(message, size, NPUVP_MODEL_ERR_MAGIC, "package: magic 0x%08x, expected 0x%08x (\"NPPK\")",
                    (unsigned)h->magic, (unsigned)NPUVP_PACKAGE_MAGIC);
    if (h->version != NPUVP_PACKAGE_VERSION)
        return fail(message, size, NPUVP_MODEL_ERR_VERSION,
                    "package: format version %u, this runtime reads version %u only (compile the model again with "
                    "this build's compiler)",
                    (unsigned)h->version, (unsigned)NPUVP_PACKAGE_VERSION);
    if (h->total_bytes < sizeof *h || h->total_bytes > available)
        return fail(message, size, NPUVP_MODEL_ERR_TRUNCATED,
                    "package: total_bytes %llu outside %u (the header) .. %llu (the space it lies in)",
                    (unsigned long long)h->total_bytes, (unsigned)sizeof *h, (unsigned long long)available);
    int status = check_regions(h, message, size);
    if (status) return status;
    if (h->strings_bytes == 0 || base[h->strings_offset + h->strings_bytes - 1] != 0)
        return fail(message, size, NPUVP_MODEL_ERR_STRING,
                    "package: the string table (%llu bytes) does not end with a NUL",
                    (unsigned long long)h->strings_bytes);
    if ((status = check_string(h, h->model_name, "header model name", 0, message, size))) return status;
    if (h->streams == 0 || h->streams > NPUVP_MODEL_MAX_STREAMS)
        return fail(message, size, NPUVP_MODEL_ERR_STREAMS, "package: %u streams (1 .. %u)", (unsigned)h->streams,
                    NPUVP_MODEL_MAX_STREAMS);
    if ((status = check_layers(base, h, message, size))) return status;
    const struct npuvp_package_launch *launches = (const struct npuvp_package_launch *)(base + h->launches_offset);
    for (uint32_t i = 0; i < h->launch_count; i++)
        if ((status = check_launch(base, h, i, &launches[i], message, size))) return status;
    return check_tensors(base, h, message, size);
}
