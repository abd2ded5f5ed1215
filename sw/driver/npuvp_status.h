/*
 * Status codes of the npuvp driver (sw/driver/), shared by the driver API
 * (npuvp_driver.h) and the device-memory allocator (device_memory.h).
 * 0 is success, errors are negative; npuvp_status_name() gives a short text.
 */
#ifndef NPUVP_STATUS_H
#define NPUVP_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

enum npuvp_status {
    NPUVP_OK = 0,
    NPUVP_ERR_INVALID = -1,         /* bad argument (size 0, alignment not a power of two, bad handle) */
    NPUVP_ERR_OUT_OF_MEMORY = -2,   /* no free device-memory block large enough */
    NPUVP_ERR_TOO_FRAGMENTED = -3,  /* allocator bookkeeping full (too many blocks) */
    NPUVP_ERR_NOT_ALLOCATED = -4,   /* free of an address that is not an allocation (or freed twice) */
    NPUVP_ERR_NO_DEVICE = -5,       /* no task scheduler answered, or no AI Core found */
    NPUVP_ERR_PROTOCOL = -6,        /* the task scheduler rejected the queue (see detail) */
    NPUVP_ERR_NOT_INITIALISED = -7, /* npuvp_init() has not succeeded */
    NPUVP_ERR_BAD_IMAGE = -8,       /* kernel ELF malformed or loads outside the kernel area */
    NPUVP_ERR_KERNEL_FAULT = -9,    /* a task block faulted: core, pc and cause in the result */
    NPUVP_ERR_BAD_COMMAND = -10,    /* the task scheduler rejected a command (see detail) */
    NPUVP_ERR_TIMEOUT = -11,        /* a wait ran past its timeout */
    NPUVP_ERR_NOT_READY = -12,      /* query: the command has not completed yet */
    NPUVP_ERR_EXPIRED = -13,        /* a ticket so old that its result is no longer kept */
    NPUVP_ERR_NO_RESOURCE = -14,    /* no free stream or event id */
};

static inline const char *npuvp_status_name(int status)
{
    switch (status) {
    case NPUVP_OK: return "ok";
    case NPUVP_ERR_INVALID: return "invalid argument";
    case NPUVP_ERR_OUT_OF_MEMORY: return "out of device memory";
    case NPUVP_ERR_TOO_FRAGMENTED: return "device memory too fragmented (no block descriptors left)";
    case NPUVP_ERR_NOT_ALLOCATED: return "address is not an allocation";
    case NPUVP_ERR_NO_DEVICE: return "no NPU device (task scheduler or AI Cores missing)";
    case NPUVP_ERR_PROTOCOL: return "task scheduler rejected the queue";
    case NPUVP_ERR_NOT_INITIALISED: return "driver not initialised";
    case NPUVP_ERR_BAD_IMAGE: return "bad kernel image";
    case NPUVP_ERR_KERNEL_FAULT: return "kernel fault";
    case NPUVP_ERR_BAD_COMMAND: return "bad command";
    case NPUVP_ERR_TIMEOUT: return "timeout";
    case NPUVP_ERR_NOT_READY: return "not ready";
    case NPUVP_ERR_EXPIRED: return "result expired";
    case NPUVP_ERR_NO_RESOURCE: return "no free stream or event";
    default: return "unknown status";
    }
}

#ifdef __cplusplus
}
#endif

#endif /* NPUVP_STATUS_H */
