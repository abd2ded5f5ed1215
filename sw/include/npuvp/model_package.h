/*
 * The model package: what the compiler (sw/compiler, host tool) writes and the
 * runtime (sw/runtime, on the host CPU) replays. One contiguous little-endian
 * image, placed in device memory as it is (npuvp infer preloads it at
 * NPUVP_PACKAGE_ADDRESS); every offset below is from the package's first byte.
 *
 *   header | string table | layer table | launch table | tensor table |
 *   constants (fp16 weights, f32 biases; 64-byte aligned) |
 *   io area (model inputs and outputs) | profile area (written by the runtime)
 *
 * Activations live in two arenas the runtime allocates through the driver: one
 * of header.arena_bytes in DDR and one of header.l2_arena_bytes in the L2 buffer
 * (on-chip, shared by the AI Cores; the compiler chose which activations go
 * there). The header.pinned_bytes of the constants from pinned_offset are
 * the pinned weights: the runtime copies them into the L2 buffer once, when it
 * loads the model, and the launches read that copy. A launch's argument word i
 * is an address relative to one of the regions named by its 2-bit field in
 * `relocation` (NPUVP_RELOC_*), or, when bit i of `l2_args` is set, to that
 * region's L2 counterpart (the L2 arena for ARENA, the pinned weights' L2 copy
 * for CONSTANTS): the runtime adds the region's device address before the launch.
 */
#pragma once

#include <stdint.h>

#define NPUVP_PACKAGE_MAGIC 0x4b50504eu /* "NPPK" */
/* 2: launches wait for a set of events (wait_events, a bit mask) instead of one
 * (issue 19's multi-stream packages).
 * 3: an activation arena in the L2 buffer (header.l2_arena_bytes, launch.l2_args).
 * 4: the profile record carries the AI Cores' window of a launch (core_start_cycle,
 * core_end_cycle), so the profile area is larger.
 * 5: Conv launches carry op_conv's plan (NPUVP_CONV_PLAN_* words, conv_plan.h); the
 *    kernel no longer plans, so an older package's Conv launches would fault.
 * 6: pinned weights (header.pinned_offset, pinned_bytes): a range of the constants
 *    the runtime copies into the L2 buffer once, at load; a constant argument with its
 *    l2_args bit set is relative to that copy.
 * Other versions are refused. */
#define NPUVP_PACKAGE_VERSION 6u
/* Where `npuvp infer` preloads the package (docs/memory-map.md): DDR above the
 * driver's default device pool; infer runs with soc.ddr.size = 2 GiB. */
#define NPUVP_PACKAGE_ADDRESS 0xC0000000ull
#define NPUVP_PACKAGE_MAX_BYTES 0x40000000ull
#define NPUVP_PACKAGE_MAX_ARGS 32
#define NPUVP_PACKAGE_MAX_RANK 6
#define NPUVP_PACKAGE_ALIGN 64
/* `bytes` rounded up to NPUVP_PACKAGE_ALIGN: where the next section or entry starts. */
static inline uint64_t npuvp_package_align(uint64_t bytes)
{
    return (bytes + NPUVP_PACKAGE_ALIGN - 1) / NPUVP_PACKAGE_ALIGN * NPUVP_PACKAGE_ALIGN;
}

enum npuvp_relocation {
    NPUVP_RELOC_NONE = 0,      /* a literal                            */
    NPUVP_RELOC_CONSTANTS = 1, /* + address of the constants region    */
    NPUVP_RELOC_ARENA = 2,     /* + address of the activation arena    */
    NPUVP_RELOC_IO = 3,        /* + address of the io area             */
};
#define NPUVP_RELOC_OF(relocation, arg) ((unsigned)((relocation) >> (2 * (arg))) & 3u)

struct npuvp_package_header {
    uint32_t magic;   /* NPUVP_PACKAGE_MAGIC   */
    uint32_t version; /* NPUVP_PACKAGE_VERSION */
    uint64_t total_bytes;
    uint64_t strings_offset, strings_bytes; /* NUL-terminated UTF-8 strings */
    uint64_t layers_offset;                 /* struct npuvp_package_layer[layer_count]   */
    uint64_t launches_offset;               /* struct npuvp_package_launch[launch_count] */
    uint64_t tensors_offset;                /* struct npuvp_package_tensor[tensor_count] */
    uint64_t constants_offset, constants_bytes;
    uint64_t io_offset, io_bytes;
    uint64_t profile_offset, profile_bytes; /* struct npuvp_package_profile[launch_count] */
    uint64_t arena_bytes;                   /* activation arena, allocated by the runtime in DDR */
    uint32_t layer_count, launch_count, tensor_count;
    uint32_t streams;                       /* streams the launches use (1 .. 15)        */
    uint32_t ai_cores;                      /* the AI Core count the model was compiled for */
    uint32_t model_name;                    /* string offset                             */
    uint64_t l2_arena_bytes;                /* activation arena in the L2 buffer (0: none) */
    uint64_t pinned_offset;                 /* from the constants' start: the pinned weights, */
    uint64_t pinned_bytes;                  /* copied into the L2 buffer at load (0: none)    */
};

/* One layer of the compiled graph (after fusion), for reports. */
struct npuvp_package_layer {
    uint32_t name;             /* string offset: the ONNX node name (first fused node) */
    uint32_t op;               /* string offset: e.g. "Conv+Add+Relu"                  */
    uint32_t shapes;           /* string offset: e.g. "1x64x56x56 -> 1x64x56x56"       */
    uint32_t first_launch, launch_count;
    uint32_t min_output_bytes; /* of min_bytes, the outputs (AI Cores write them)      */
    uint64_t macs;             /* multiply-accumulates                                 */
    uint64_t min_bytes;        /* inputs + weights + outputs once: the roofline bytes  */
    uint64_t min_ddr_bytes;    /* of min_bytes, those that must come from or go to DDR */
    uint64_t min_l2_bytes;     /* of min_bytes, those that must be in the L2 buffer    */
};

/* One kernel launch. */
struct npuvp_package_launch {
    uint32_t kernel;           /* enum npuvp_operator_kernel                 */
    uint32_t blocks;           /* task blocks, 1 .. 65535                    */
    uint32_t layer;            /* index into the layer table                 */
    uint16_t stream;           /* 0 .. streams - 1                           */
    uint16_t nargs;            /* argument words used, <= 32                 */
    uint64_t wait_events;      /* bit e: before it, wait for the latest record of
                                  event e earlier in the table (0: no wait)   */
    int16_t record_event;      /* event to record after it, -1: none         */
    uint16_t reserved0;
    uint32_t l2_args;          /* bit i: argument i is relative to its region's L2
                                  counterpart (ARENA: the L2 arena; CONSTANTS:
                                  the pinned weights' copy)                 */
    uint64_t relocation;       /* 2 bits per argument: enum npuvp_relocation */
    uint64_t args[NPUVP_PACKAGE_MAX_ARGS];
};

enum npuvp_tensor_role { NPUVP_TENSOR_INPUT = 0, NPUVP_TENSOR_OUTPUT = 1 };
enum npuvp_tensor_type { NPUVP_TENSOR_F16 = 1 };

/* A model input or output, ND f16 in the ONNX shape, in the io area. */
struct npuvp_package_tensor {
    uint32_t name;             /* string offset: the ONNX graph input / output name */
    uint32_t role;             /* enum npuvp_tensor_role */
    uint32_t type;             /* enum npuvp_tensor_type */
    uint32_t rank;
    uint64_t dims[NPUVP_PACKAGE_MAX_RANK];
    uint64_t io_offset;        /* from the io area's start */
    uint64_t bytes;
};

/* Written by the runtime for every launch (zeros: never ran). */
struct npuvp_package_profile {
    uint64_t ticket;
    uint64_t host_submit_cycle, ts_start_cycle, ts_end_cycle; /* the task scheduler's view */
    uint64_t kernel_cycles;    /* AI Core cycles summed over the launch's blocks */
    uint32_t blocks_done;
    int32_t status;            /* enum npuvp_status of the launch */
    uint64_t core_start_cycle; /* the AI Cores' stamps (TS cycles): first block's start, */
    uint64_t core_end_cycle;   /* last block's end (docs/npu-protocol.md)              */
};
