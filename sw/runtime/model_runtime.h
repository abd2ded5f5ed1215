/*
 * The model runtime (docs/runtime.md): opens a model package the compiler wrote
 * (<npuvp/model_package.h>) where it lies in device memory, checks it, allocates
 * its activation arena through the driver, loads the operator kernels it uses
 * from images embedded in the host program, and replays its launches on streams
 * with events, collecting every launch's result into the package's profile area.
 *
 *   struct npuvp_model model;
 *   int status = npuvp_model_open(&model, npuvp_host_ptr(NPUVP_PACKAGE_ADDRESS), NPUVP_PACKAGE_MAX_BYTES);
 *   if (status == NPUVP_MODEL_OK) status = npuvp_model_load_kernels(&model, images, image_count);
 *   if (status == NPUVP_MODEL_OK) status = npuvp_model_run(&model, NULL, NULL);
 *   if (status != NPUVP_MODEL_OK) printf("%s\n", npuvp_model_message(&model));
 *
 * Every problem is a distinct status (enum npuvp_model_status, disjoint from the
 * driver's enum npuvp_status) and a one-line message naming what and where.
 * The package check (npuvp_package_check) needs neither the driver nor the
 * device, so host tests compile package_check.c on its own.
 */
#ifndef NPUVP_MODEL_RUNTIME_H
#define NPUVP_MODEL_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include <npuvp/model_package.h>

#include "npuvp_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

enum npuvp_model_status {
    NPUVP_MODEL_OK = 0,
    /* the package check (npuvp_package_check) */
    NPUVP_MODEL_ERR_TRUNCATED = -101,     /* smaller than its header, or total_bytes beyond the space given */
    NPUVP_MODEL_ERR_MAGIC = -102,         /* not NPUVP_PACKAGE_MAGIC: no package there */
    NPUVP_MODEL_ERR_VERSION = -103,       /* a package format version this runtime does not read */
    NPUVP_MODEL_ERR_REGION = -104,        /* a table or area reaches past total_bytes */
    NPUVP_MODEL_ERR_ALIGNMENT = -105,     /* a table or area not aligned as its contents need */
    NPUVP_MODEL_ERR_STRING = -106,        /* string table not NUL-terminated, or a string offset outside it */
    NPUVP_MODEL_ERR_STREAMS = -107,       /* header.streams not 1 .. NPUVP_MODEL_MAX_STREAMS */
    NPUVP_MODEL_ERR_LAYER = -108,         /* a layer's launches outside the launch table */
    NPUVP_MODEL_ERR_KERNEL = -109,        /* a launch names a kernel id the runtime does not know */
    NPUVP_MODEL_ERR_BLOCKS = -110,        /* a launch's blocks not 1 .. 65535 */
    NPUVP_MODEL_ERR_LAUNCH_LAYER = -111,  /* a launch's layer index outside the layer table */
    NPUVP_MODEL_ERR_STREAM = -112,        /* a launch's stream not below header.streams */
    NPUVP_MODEL_ERR_NARGS = -113,         /* a launch's nargs above NPUVP_PACKAGE_MAX_ARGS */
    NPUVP_MODEL_ERR_EVENT = -114,         /* an event id not -1 or 0 .. NPUVP_MODEL_MAX_EVENTS - 1 */
    NPUVP_MODEL_ERR_RELOCATION = -115,    /* an argument's offset outside the region it is relative to,
                                             or relocation bits for an argument beyond nargs */
    NPUVP_MODEL_ERR_TENSOR = -116,        /* a model input/output: role, type, rank, bytes or io range */
    NPUVP_MODEL_ERR_PROFILE = -117,       /* profile area smaller than launch_count profile records */
    /* loading and running */
    NPUVP_MODEL_ERR_ARGUMENT = -120,      /* NULL model or package, or a call out of order */
    NPUVP_MODEL_ERR_OUT_OF_MEMORY = -121, /* an activation arena or the pinned weights' copy does not fit the driver's pool */
    NPUVP_MODEL_ERR_MISSING_KERNEL = -122,/* the package needs a kernel the host program does not embed */
    NPUVP_MODEL_ERR_BAD_KERNEL = -123,    /* an embedded kernel image the driver refused */
    NPUVP_MODEL_ERR_DRIVER = -124,        /* a driver call failed (its status in the message) */
    NPUVP_MODEL_ERR_KERNEL_FAULT = -125,  /* a launch faulted: layer name and the driver's fault line */
    NPUVP_MODEL_ERR_LAUNCH = -126,        /* a launch ended in another error (e.g. the TS refused it) */
};

const char *npuvp_model_status_name(int status);

/* Streams a package may use (ids 1 .. 15 besides the default stream) and events. */
#define NPUVP_MODEL_MAX_STREAMS 15u
#define NPUVP_MODEL_MAX_EVENTS 64u
/* Kernel ids are slots of sw/kernels (0x8800_0000 + id MiB); the runtime knows these. */
#define NPUVP_MODEL_KERNEL_SLOTS 16u

/* The kernel behind a package kernel id (sw/kernels/<name>.elf), NULL if the runtime does
 * not know the id: the operator kernels NPUVP_OP_KERNEL_FIRST .. LAST (operator_kernels.h)
 * and the elementwise kernels vector_add (2) and relu (3) of docs/kernels.md. */
const char *npuvp_model_kernel_name(uint32_t kernel);

/* Checks a package at `package` with `available` bytes readable there: header, every
 * table and area inside total_bytes, strings, layers, launches (kernel, blocks, layer,
 * stream, nargs, events, relocated arguments inside their regions), tensors and the
 * profile area. Returns NPUVP_MODEL_OK or an NPUVP_MODEL_ERR_* of the package check with
 * a one-line description in message (may be NULL; message_size bytes, NUL-terminated).
 * Needs no driver (package_check.c). */
int npuvp_package_check(const void *package, uint64_t available, char *message, size_t message_size);

/* A kernel ELF the host program embeds (NPUVP_KERNEL_IMAGE in npuvp_driver.h). */
struct npuvp_model_kernel_image {
    uint32_t kernel; /* package kernel id (slot) */
    const void *elf;
    size_t size;
};

struct npuvp_model;

/* Called when a layer's last launch completed (in layer order; layer 0 .. layer_count - 1). */
typedef void (*npuvp_model_progress_fn)(const struct npuvp_model *model, uint32_t layer, void *context);

#define NPUVP_MODEL_MESSAGE_BYTES 240

struct npuvp_model {
    const uint8_t *base;                        /* the package's first byte */
    const struct npuvp_package_header *header;
    const struct npuvp_package_layer *layers;
    const struct npuvp_package_launch *launches;
    const struct npuvp_package_tensor *tensors;
    struct npuvp_package_profile *profile;
    uint64_t constants_address, io_address;     /* device addresses of the regions */
    uint64_t arena_address, arena_allocated;    /* 0 while not allocated (arena_bytes 0) */
    uint64_t l2_arena_address, l2_arena_allocated; /* the L2 arena (l2_arena_bytes), likewise */
    uint64_t pinned_address, pinned_allocated; /* the pinned weights' L2 copy (pinned_bytes), likewise */
    int pinned_staged;                        /* the copy holds the weights (npuvp_model_load_kernels) */
    uint64_t staging_cycles;                    /* TS cycles the copy took */
    uint32_t kernels_used;                      /* bit k: the package launches kernel k */
    uint32_t kernels_loaded;                    /* bit k: kernels[k] is loaded */
    int opened;
    struct npuvp_kernel kernels[NPUVP_MODEL_KERNEL_SLOTS];
    npuvp_stream_t streams[NPUVP_MODEL_MAX_STREAMS + 1]; /* package stream -> driver stream */
    npuvp_event_t events[NPUVP_MODEL_MAX_EVENTS];        /* package event -> driver event */
    uint64_t events_created;                             /* bit e: events[e] exists */
    uint64_t events_recorded;                            /* bit e: recorded at least once */
    uint32_t completed_launches, completed_layers;
    char message[NPUVP_MODEL_MESSAGE_BYTES];
};

/* Checks the package (npuvp_package_check with `available` bytes) and allocates its
 * activation arenas (header.arena_bytes from the driver's DDR pool, header.l2_arena_bytes
 * from its L2 pool) and the L2 copy of its pinned weights (header.pinned_bytes, from
 * the L2 pool); needs npuvp_init. On failure nothing stays allocated.
 * Clears the profile area. */
int npuvp_model_open(struct npuvp_model *model, const void *package, uint64_t available);

/* Loads every kernel the package launches from `images` (count entries), then copies
 * the pinned weights into the L2 buffer (one op_copy launch, once per open; its TS
 * cycles in staging_cycles). A kernel the package uses but `images` lacks:
 * NPUVP_MODEL_ERR_MISSING_KERNEL naming it (op_copy is needed for pinned weights). */
int npuvp_model_load_kernels(struct npuvp_model *model, const struct npuvp_model_kernel_image *images,
                             size_t count);

/* Replays every launch in table order: package stream s > 0 runs on a driver stream of
 * its own (s = 0 on the default stream), every event of wait_events / record_event become
 * npuvp_stream_wait_event / npuvp_event_record around the launch, and argument words are
 * relocated (NPUVP_RELOC_*); word NPUVP_OP_ARG_TAG carries the layer index when nargs
 * leaves it free. Launches are submitted without waiting; a result is collected when it
 * completes (polled after each submission, waited for only when the queue is full), into
 * the profile record of the launch. `progress` (may be NULL) is called per completed layer.
 * On a kernel fault: NPUVP_MODEL_ERR_KERNEL_FAULT, no further launch submitted, the
 * message "layer <i> '<name>' (<op>): kernel fault (...) on AI Core c, block b, pc 0x..."
 * and the queue drained. */
int npuvp_model_run(struct npuvp_model *model, npuvp_model_progress_fn progress, void *context);

/* Frees the arenas and the pinned weights' L2 copy. */
void npuvp_model_close(struct npuvp_model *model);

/* The last error's one-line message ("" after success). */
const char *npuvp_model_message(const struct npuvp_model *model);

/* A string of the package's string table. */
static inline const char *npuvp_model_string(const struct npuvp_model *model, uint32_t offset)
{
    return (const char *)(model->base + model->header->strings_offset + offset);
}

/* Host-program exit statuses (firmware/host/infer.c, docs/runtime.md); 3 is the driver's
 * NPUVP_EXIT_KERNEL_FAULT. */
#define NPUVP_EXIT_BAD_PACKAGE 4
#define NPUVP_EXIT_MISSING_KERNEL 5
#define NPUVP_EXIT_OUT_OF_MEMORY 6

#ifdef __cplusplus
}
#endif

#endif /* NPUVP_MODEL_RUNTIME_H */
