/*
 * The model runtime (model_runtime.h, docs/runtime.md): open, load kernels, replay.
 *
 * Replay keeps the command queue full: launches are submitted without waiting, and
 * results are collected in ticket order as they complete. The driver keeps a ticket's
 * result only until its queue slot is reused (queue_entries commands later, counting the
 * event records and waits too), so before each submission every launch whose slot the
 * submission would reuse is waited for first; that wait would happen inside the driver
 * anyway, since a slot is reused only after its command completed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <npuvp/operator_kernels.h>

#include "model_runtime.h"

static int set_message(struct npuvp_model *model, int status, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(model->message, sizeof model->message, format, args);
    va_end(args);
    return status;
}

const char *npuvp_model_message(const struct npuvp_model *model) { return model ? model->message : ""; }

static uint64_t region_address(const struct npuvp_model *model, unsigned relocation, int in_l2)
{
    switch (relocation) {
    case NPUVP_RELOC_CONSTANTS: return in_l2 ? model->pinned_address : model->constants_address;
    case NPUVP_RELOC_ARENA: return in_l2 ? model->l2_arena_address : model->arena_address;
    case NPUVP_RELOC_IO: return model->io_address;
    default: return 0;
    }
}

/* An area of `bytes` (none when 0) from the driver's pool of `kind`: an activation
 * arena, or the pinned weights' L2 copy (`what`). */
static int allocate_area(struct npuvp_model *model, enum npuvp_mem_kind kind, const char *what, uint64_t bytes,
                         uint64_t *address, uint64_t *allocated)
{
    if (!bytes) return NPUVP_MODEL_OK;
    const int status = npuvp_malloc(kind, bytes, NPUVP_PACKAGE_ALIGN, address);
    if (status != NPUVP_OK) {
        struct npuvp_dm_stats stats;
        memset(&stats, 0, sizeof stats);
        npuvp_mem_stats(kind, &stats);
        const char *memory = kind == NPUVP_MEM_L2 ? "L2" : "DDR";
        return set_message(model, status == NPUVP_ERR_OUT_OF_MEMORY ? NPUVP_MODEL_ERR_OUT_OF_MEMORY : NPUVP_MODEL_ERR_DRIVER,
                           "model '%s': %s %s of %llu bytes: %s (largest free %s block %llu bytes)",
                           npuvp_model_string(model, model->header->model_name), memory, what, (unsigned long long)bytes,
                           npuvp_status_name(status), memory, (unsigned long long)stats.largest_free);
    }
    *allocated = bytes;
    return NPUVP_MODEL_OK;
}

int npuvp_model_open(struct npuvp_model *model, const void *package, uint64_t available)
{
    if (!model) return NPUVP_MODEL_ERR_ARGUMENT;
    memset(model, 0, sizeof *model);
    int status = npuvp_package_check(package, available, model->message, sizeof model->message);
    if (status != NPUVP_MODEL_OK) return status;
    const uint8_t *base = (const uint8_t *)package;
    const struct npuvp_package_header *h = (const struct npuvp_package_header *)package;
    model->base = base;
    model->header = h;
    model->layers = (const struct npuvp_package_layer *)(base + h->layers_offset);
    model->launches = (const struct npuvp_package_launch *)(base + h->launches_offset);
    model->tensors = (const struct npuvp_package_tensor *)(base + h->tensors_offset);
    model->profile = (struct npuvp_package_profile *)(uintptr_t)(base + h->profile_offset);
    model->constants_address = npuvp_device_address(base + h->constants_offset);
    model->io_address = npuvp_device_address(base + h->io_offset);
    for (uint32_t i = 0; i < h->launch_count; i++) model->kernels_used |= 1u << model->launches[i].kernel;
    memset(model->profile, 0, (size_t)h->launch_count * sizeof *model->profile);

    /* The pinned weights are copied by op_copy when the kernels are loaded. */
    if (h->pinned_bytes) model->kernels_used |= 1u << NPUVP_OP_KERNEL_COPY;

    status = allocate_area(model, NPUVP_MEM_DDR, "activation arena", h->arena_bytes, &model->arena_address,
                           &model->arena_allocated);
    if (status == NPUVP_MODEL_OK)
        status = allocate_area(model, NPUVP_MEM_L2, "activation arena", h->l2_arena_bytes, &model->l2_arena_address,
                               &model->l2_arena_allocated);
    if (status == NPUVP_MODEL_OK)
        status = allocate_area(model, NPUVP_MEM_L2, "copy of the pinned weights", h->pinned_bytes,
                               &model->pinned_address, &model->pinned_allocated);
    model->opened = 1;
    if (status != NPUVP_MODEL_OK) {
        char message[NPUVP_MODEL_MESSAGE_BYTES];
        memcpy(message, model->message, sizeof message);
        npuvp_model_close(model); /* frees what was allocated */
        memcpy(model->message, message, sizeof message);
    }
    return status;
}

/* Copies the pinned weights from the constants (DDR) into their L2 copy: one op_copy
 * launch over every AI Core the model was compiled for, before any replay. */
static int stage_pinned_weights(struct npuvp_model *model)
{
    const struct npuvp_package_header *h = model->header;
    if (!h->pinned_bytes || model->pinned_staged) return NPUVP_MODEL_OK;
    uint64_t args[NPUVP_OP_ARG_TAG + 1];
    memset(args, 0, sizeof args);
    args[NPUVP_OP_ARG_TAG] = ~(uint64_t)0; /* no layer's: profiles do not count it in one */
    args[NPUVP_COPY_OUT] = model->pinned_address;
    args[NPUVP_COPY_IN] = model->constants_address + h->pinned_offset;
    args[NPUVP_COPY_ELEMENT_BYTES] = 2;
    for (unsigned d = 0; d < NPUVP_COPY_MAX_RANK; d++) args[NPUVP_COPY_DIM0 + d] = 1;
    args[NPUVP_COPY_DIM0 + NPUVP_COPY_MAX_RANK - 1] = h->pinned_bytes / 2;
    args[NPUVP_COPY_IN_STRIDE0 + NPUVP_COPY_MAX_RANK - 1] = 1;
    args[NPUVP_COPY_OUT_STRIDE0 + NPUVP_COPY_MAX_RANK - 1] = 1;
    struct npuvp_result result;
    memset(&result, 0, sizeof result);
    const uint32_t blocks = h->ai_cores ? h->ai_cores : 1;
    const int status = npuvp_launch(&model->kernels[NPUVP_OP_KERNEL_COPY], blocks, args, NPUVP_OP_ARG_TAG + 1,
                                    NPUVP_STREAM_DEFAULT, &result);
    if (status != NPUVP_OK)
        return set_message(model, status == NPUVP_ERR_KERNEL_FAULT ? NPUVP_MODEL_ERR_KERNEL_FAULT : NPUVP_MODEL_ERR_DRIVER,
                           "model '%s': copying %llu bytes of pinned weights into the L2 buffer: %s",
                           npuvp_model_string(model, h->model_name), (unsigned long long)h->pinned_bytes,
                           status == NPUVP_ERR_KERNEL_FAULT ? npuvp_result_string(&result) : npuvp_status_name(status));
    model->staging_cycles = result.ts_end_cycle - result.ts_start_cycle;
    model->pinned_staged = 1;
    return NPUVP_MODEL_OK;
}

int npuvp_model_load_kernels(struct npuvp_model *model, const struct npuvp_model_kernel_image *images, size_t count)
{
    if (!model || !model->opened || (count && !images)) return NPUVP_MODEL_ERR_ARGUMENT;
    for (uint32_t k = 0; k < NPUVP_MODEL_KERNEL_SLOTS; k++) {
        if (!(model->kernels_used & (1u << k)) || (model->kernels_loaded & (1u << k))) continue;
        const struct npuvp_model_kernel_image *image = NULL;
        for (size_t i = 0; i < count && !image; i++)
            if (images[i].kernel == k && images[i].elf && images[i].size) image = &images[i];
        if (!image)
            return set_message(model, NPUVP_MODEL_ERR_MISSING_KERNEL,
                               "model '%s' needs kernel %u (%s, sw/kernels/%s.elf), which this host program was built "
                               "without",
                               npuvp_model_string(model, model->header->model_name), (unsigned)k,
                               npuvp_model_kernel_name(k), npuvp_model_kernel_name(k));
        int status = npuvp_kernel_load(&model->kernels[k], image->elf, image->size);
        if (status != NPUVP_OK)
            return set_message(model, NPUVP_MODEL_ERR_BAD_KERNEL, "kernel %u (%s): %s", (unsigned)k,
                               npuvp_model_kernel_name(k), npuvp_status_name(status));
        model->kernels_loaded |= 1u << k;
    }
    return stage_pinned_weights(model);
}

/* ---- replay ------------------------------------------------------------------------------ */

/* The state of one replay. Tickets of launches are kept in a ring of `window` entries
 * (the queue size): never more launches are uncollected than commands fit the queue. */
struct replay {
    struct npuvp_model *model;
    npuvp_model_progress_fn progress;
    void *context;
    uint32_t entries;             /* the driver's queue_entries */
    npuvp_ticket_t next_ticket;   /* the ticket the next submission gets */
    uint32_t submitted, collected;/* launches, in table order */
    npuvp_ticket_t tickets[NPUVP_MAX_QUEUE_ENTRIES];
    int fault;                    /* NPUVP_MODEL_OK or the first failure (message set) */
};

static const char *layer_name(const struct npuvp_model *model, uint32_t layer)
{
    return npuvp_model_string(model, model->layers[layer].name);
}

static void record_profile(struct replay *r, uint32_t launch, const struct npuvp_result *result)
{
    struct npuvp_package_profile *p = &r->model->profile[launch];
    p->ticket = result->ticket;
    p->host_submit_cycle = result->host_submit_cycle;
    p->ts_start_cycle = result->ts_start_cycle;
    p->ts_end_cycle = result->ts_end_cycle;
    p->core_start_cycle = result->core_start_cycle;
    p->core_end_cycle = result->core_end_cycle;
    p->kernel_cycles = result->kernel_cycles;
    p->blocks_done = result->blocks_done;
    p->status = result->status;
}

/* Reports layers whose launches have all been collected, in layer order. */
static void report_layers(struct replay *r)
{
    struct npuvp_model *m = r->model;
    while (m->completed_layers < m->header->layer_count) {
        const struct npuvp_package_layer *l = &m->layers[m->completed_layers];
        if (l->first_launch + l->launch_count > r->collected) break;
        if (r->progress) r->progress(m, m->completed_layers, r->context);
        m->completed_layers++;
    }
}

/* Takes the result of the oldest uncollected launch; `wait`: sleep until it completed. */
static int collect_one(struct replay *r, int wait)
{
    const uint32_t launch = r->collected;
    const npuvp_ticket_t ticket = r->tickets[launch % r->entries];
    struct npuvp_result result;
    memset(&result, 0, sizeof result);
    int status = wait ? npuvp_wait(ticket, &result) : npuvp_query(ticket, &result);
    if (status == NPUVP_ERR_NOT_READY) return status;
    if (status != NPUVP_OK && status != NPUVP_ERR_KERNEL_FAULT && status != NPUVP_ERR_BAD_COMMAND) {
        if (!r->fault)
            r->fault = set_message(r->model, NPUVP_MODEL_ERR_DRIVER, "launch %u (layer %u '%s'): waiting: %s",
                                   (unsigned)launch, (unsigned)r->model->launches[launch].layer,
                                   layer_name(r->model, r->model->launches[launch].layer), npuvp_status_name(status));
        r->collected++; /* lost, not retried: the replay stops at the first failure */
        return status;
    }
    record_profile(r, launch, &result);
    r->collected++;
    r->model->completed_launches = r->collected;
    if (status != NPUVP_OK && !r->fault) {
        const uint32_t layer = r->model->launches[launch].layer;
        r->fault = set_message(r->model,
                               status == NPUVP_ERR_KERNEL_FAULT ? NPUVP_MODEL_ERR_KERNEL_FAULT : NPUVP_MODEL_ERR_LAUNCH,
                               "layer %u '%s' (%s), launch %u of kernel %s: %s", (unsigned)layer,
                               layer_name(r->model, layer), npuvp_model_string(r->model, r->model->layers[layer].op),
                               (unsigned)launch, npuvp_model_kernel_name(r->model->launches[launch].kernel),
                               npuvp_result_string(&result));
    }
    if (!r->fault) report_layers(r);
    return status;
}

/* Before a submission: collect every launch whose queue slot it would reuse (waiting),
 * then whatever has completed already (without waiting). */
static void make_room(struct replay *r)
{
    while (r->collected < r->submitted && r->tickets[r->collected % r->entries] + r->entries <= r->next_ticket)
        collect_one(r, 1);
    while (r->collected < r->submitted && collect_one(r, 0) != NPUVP_ERR_NOT_READY) {
    }
}

static int driver_failed(struct replay *r, int status, const char *what, uint32_t launch)
{
    return r->fault = set_message(r->model, NPUVP_MODEL_ERR_DRIVER, "launch %u (layer '%s'): %s: %s", (unsigned)launch,
                                  layer_name(r->model, r->model->launches[launch].layer), what,
                                  npuvp_status_name(status));
}

static int event_of(struct replay *r, int16_t package_event, npuvp_event_t *event)
{
    struct npuvp_model *m = r->model;
    const uint64_t bit = 1ull << package_event;
    if (!(m->events_created & bit)) {
        int status = npuvp_event_create(&m->events[package_event]);
        if (status != NPUVP_OK) return status;
        m->events_created |= bit;
    }
    *event = m->events[package_event];
    return NPUVP_OK;
}

static int submit_launch(struct replay *r, uint32_t index)
{
    struct npuvp_model *m = r->model;
    const struct npuvp_package_launch *l = &m->launches[index];
    const npuvp_stream_t stream = m->streams[l->stream];
    int status;
    npuvp_event_t event;

    /* One WAIT_EVENT per event of the mask; a wait for an event never recorded is no
     * wait (the driver would submit nothing then either). */
    for (uint64_t waits = l->wait_events & m->events_recorded; waits; waits &= waits - 1) {
        const int16_t wait = (int16_t)__builtin_ctzll(waits);
        if ((status = event_of(r, wait, &event)) != NPUVP_OK) return driver_failed(r, status, "event", index);
        make_room(r);
        if ((status = npuvp_stream_wait_event(stream, event)) != NPUVP_OK)
            return driver_failed(r, status, "stream wait", index);
        r->next_ticket++;
    }

    uint64_t args[NPUVP_PACKAGE_MAX_ARGS];
    for (unsigned a = 0; a < l->nargs; a++) args[a] = l->args[a] + region_address(m, NPUVP_RELOC_OF(l->relocation, a), (l->l2_args >> a) & 1u);
    uint32_t nargs = l->nargs;
    if (nargs <= NPUVP_OP_ARG_TAG) {
        for (unsigned a = nargs; a < NPUVP_OP_ARG_TAG; a++) args[a] = 0;
        args[NPUVP_OP_ARG_TAG] = l->layer;
        nargs = NPUVP_OP_ARG_TAG + 1;
    }
    make_room(r);
    if (r->fault) return r->fault;
    npuvp_ticket_t ticket = 0;
    status = npuvp_launch_async(&m->kernels[l->kernel], l->blocks, args, nargs, stream, &ticket);
    if (status != NPUVP_OK) return driver_failed(r, status, "launch", index);
    r->tickets[index % r->entries] = ticket;
    r->next_ticket = ticket + 1;
    r->submitted++;

    if (l->record_event >= 0) {
        if ((status = event_of(r, l->record_event, &event)) != NPUVP_OK) return driver_failed(r, status, "event", index);
        make_room(r);
        if ((status = npuvp_event_record(event, stream)) != NPUVP_OK)
            return driver_failed(r, status, "event record", index);
        m->events_recorded |= 1ull << l->record_event;
        r->next_ticket++;
    }
    return r->fault;
}

static int create_streams(struct npuvp_model *m)
{
    m->streams[0] = NPUVP_STREAM_DEFAULT;
    for (uint32_t s = 1; s < m->header->streams; s++) {
        int status = npuvp_stream_create(&m->streams[s]);
        if (status != NPUVP_OK)
            return set_message(m, NPUVP_MODEL_ERR_DRIVER, "model '%s': creating stream %u of %u: %s",
                               npuvp_model_string(m, m->header->model_name), (unsigned)s, (unsigned)m->header->streams,
                               npuvp_status_name(status));
    }
    return NPUVP_MODEL_OK;
}

static void release_streams_and_events(struct npuvp_model *m)
{
    for (uint32_t s = 1; s < m->header->streams; s++)
        if (m->streams[s] != NPUVP_STREAM_DEFAULT) npuvp_stream_destroy(m->streams[s]);
    for (uint32_t e = 0; e < NPUVP_MODEL_MAX_EVENTS; e++)
        if (m->events_created & (1ull << e)) npuvp_event_destroy(m->events[e]);
    memset(m->streams, 0, sizeof m->streams);
    m->events_created = m->events_recorded = 0;
}

int npuvp_model_run(struct npuvp_model *model, npuvp_model_progress_fn progress, void *context)
{
    if (!model || !model->opened) return NPUVP_MODEL_ERR_ARGUMENT;
    if ((model->kernels_used & ~model->kernels_loaded) != 0 || (model->header->pinned_bytes && !model->pinned_staged))
        return set_message(model, NPUVP_MODEL_ERR_ARGUMENT,
                           "npuvp_model_run before npuvp_model_load_kernels succeeded (kernels and pinned weights)");
    model->message[0] = 0;
    model->completed_launches = model->completed_layers = 0;
    memset(model->profile, 0, (size_t)model->header->launch_count * sizeof *model->profile);

    static struct replay r; /* large (the ticket ring); one replay at a time */
    memset(&r, 0, sizeof r);
    struct npuvp_device_info info;
    npuvp_device_info(&info);
    if (info.queue_entries == 0) return set_message(model, NPUVP_MODEL_ERR_DRIVER, "npuvp_model_run: driver not initialised");
    r.model = model;
    r.progress = progress;
    r.context = context;
    r.entries = info.queue_entries;
    r.next_ticket = info.commands + 1;

    int status = create_streams(model);
    for (uint32_t i = 0; status == NPUVP_MODEL_OK && i < model->header->launch_count; i++)
        status = submit_launch(&r, i);
    while (r.collected < r.submitted) collect_one(&r, 1);
    struct npuvp_result first_error;
    int sync = npuvp_synchronize(&first_error); /* clears the driver's error record for later runs */
    if (!r.fault && status == NPUVP_MODEL_OK && sync != NPUVP_OK && sync != NPUVP_ERR_KERNEL_FAULT &&
        sync != NPUVP_ERR_BAD_COMMAND)
        r.fault = set_message(model, NPUVP_MODEL_ERR_DRIVER, "model '%s': synchronising: %s",
                              npuvp_model_string(model, model->header->model_name), npuvp_status_name(sync));
    release_streams_and_events(model);
    if (r.fault) return r.fault;
    return status;
}

void npuvp_model_close(struct npuvp_model *model)
{
    if (!model || !model->opened) return;
    if (model->arena_allocated) npuvp_free(model->arena_address);
    if (model->l2_arena_allocated) npuvp_free(model->l2_arena_address);
    if (model->pinned_allocated) npuvp_free(model->pinned_address);
    model->arena_address = model->arena_allocated = 0;
    model->l2_arena_address = model->l2_arena_allocated = 0;
    model->pinned_address = model->pinned_allocated = 0;
    model->pinned_staged = 0;
    model->opened = 0;
}
