/* One kernel fault per case; args[0] selects the case (the numbers are
 * mirrored in tests/integration/aicore_core_test.cpp). The faulting
 * instruction of every case sits at a global label fault_<case>, so the test
 * can compare the reported pc with the ELF symbol. Those instructions are
 * written with .insn and the Xdavinci encodings (opcode, funct3, funct2):
 * the intrinsics would not let us put a label on the instruction itself. The
 * test decodes the word at each label to check it is the intended one. */
#include "npuvp/davinci.h"

#define LABEL(name) ".globl " #name "\n" #name ":\n\t"
/* An R4 data instruction [Xd], [Xn], Xm, Xt at a label. */
#define DATA_AT(name, opcode, funct3, funct2, xd, xn, xm, xt)                                              \
    __asm__ volatile(LABEL(name) ".insn r4 " #opcode ", " #funct3 ", " #funct2 ", %0, %1, %2, %3"         \
                     :: "r"((uint64_t)(xd)), "r"((uint64_t)(xn)), "r"((uint64_t)(xm)), "r"((uint64_t)(xt)) \
                     : "memory")
/* A sync instruction (funct3: 0 set_flag, 1 wait_flag, 2 pipe_barrier) at a label. */
#define SYNC_AT(name, funct3, imm) \
    __asm__ volatile(LABEL(name) ".insn i 0x5b, " #funct3 ", x0, x0, %0" :: "i"(imm) : "memory")

#define UB_SIZE 0x40000            /* soc.aicoreN.ub_size default */
#define LOCAL_MEMORY 0x100000000ull /* + soc.aicoreN.local_memory_size (64 KiB) */
#define UB_WINDOW 0x101000000ull
#define UNMAPPED 0x50000000ull     /* nothing at 0x5000_0000 (docs/memory-map.md) */

enum {
    CASE_BUFFER_RANGE = 1,
    CASE_MISALIGNED = 2,
    CASE_MMAD_M0 = 3,
    CASE_VECTOR_REPEAT0 = 4,
    CASE_SET_FLAG_PIPE7 = 5,
    CASE_SET_FLAG_SAME_PIPE = 6,
    CASE_BARRIER_PIPE7 = 7,
    CASE_WAIT_NEVER_SET = 8,
    CASE_WAIT_CYCLE = 9,
    CASE_SCALAR_WAIT_NEVER_SET = 10,
    CASE_OVERFLOW_ON_PIPE = 11,
    CASE_OVERFLOW_ON_SCALAR = 12,
    CASE_ILLEGAL_INSTRUCTION = 13,
    CASE_LOAD_UNMAPPED = 14,
    CASE_BUS_ERROR_READ = 15,
    CASE_BUS_ERROR_WRITE = 16,
    CASE_LOCAL_MEMORY_OVERRUN = 17,
    CASE_UB_WINDOW_OVERRUN = 18,
    CASE_SPECIAL_REGISTER_WRITE = 19,
    CASE_WAIT_WRONG_EVENT = 20,
    CASE_FAULT_WHILE_MTE3_COPIES = 21,
    CASE_DEADLOCK_ON_FULL_QUEUE = 22,
    CASE_SCALAR_RUNS_ON_AFTER_FAULT = 23,
};

static void __attribute__((noinline)) run_case(uint64_t which, volatile uint64_t* out) {
    switch (which) {
        case CASE_BUFFER_RANGE:
            vadd(0x1000, 0, 0, vector_contiguous(1, XD_F16));          /* fine */
            /* vadd: 256 bytes at UB_SIZE - 32 leave UB */
            DATA_AT(fault_buffer_range, 0x2b, 0, 0, UB_SIZE - 32, 0, 0, vector_contiguous(1, XD_F16));
            break;
        case CASE_MISALIGNED:
            /* vadd: dst not 32-byte aligned */
            DATA_AT(fault_misaligned, 0x2b, 0, 0, 0x1010, 0, 0, vector_contiguous(1, XD_F16));
            break;
        case CASE_MMAD_M0:
            DATA_AT(fault_mmad_m0, 0x0b, 3, 0, 0, 0, 0, xd_pack_mmad(0, 16, 16, XD_F16, 1, 0, 0));
            break;
        case CASE_VECTOR_REPEAT0:
            DATA_AT(fault_vector_repeat0, 0x2b, 0, 0, 0x1000, 0, 0, vector_contiguous(0, XD_F16));
            break;
        case CASE_SET_FLAG_PIPE7:
            SYNC_AT(fault_set_flag_pipe7, 0, XD_SYNC_IMM(7, PIPE_V, EVENT_ID0));
            break;
        case CASE_SET_FLAG_SAME_PIPE:
            SYNC_AT(fault_set_flag_same_pipe, 0, XD_SYNC_IMM(PIPE_V, PIPE_V, EVENT_ID0));
            break;
        case CASE_BARRIER_PIPE7:
            SYNC_AT(fault_barrier_pipe7, 2, XD_SYNC_IMM(7, 0, 0));
            break;
        case CASE_WAIT_NEVER_SET:
            /* MTE3 is busy for 1040 cycles first: it could still set a flag,
             * so the deadlock may only be reported once it has finished. */
            copy_ubuf_to_cbuf(0, 0, 1, 2048, 0, 0);
            SYNC_AT(fault_wait_never_set, 1, XD_SYNC_IMM(PIPE_MTE2, PIPE_V, EVENT_ID0));
            break;
        case CASE_WAIT_CYCLE:
            SYNC_AT(fault_cycle_mte2_waits, 1, XD_SYNC_IMM(PIPE_V, PIPE_MTE2, EVENT_ID4)); /* MTE2 waits for V */
            set_flag(PIPE_MTE2, PIPE_V, EVENT_ID4);
            SYNC_AT(fault_cycle_v_waits, 1, XD_SYNC_IMM(PIPE_MTE2, PIPE_V, EVENT_ID4));    /* V waits for MTE2 */
            set_flag(PIPE_V, PIPE_MTE2, EVENT_ID4);
            break;
        case CASE_SCALAR_WAIT_NEVER_SET:
            vadd(0x1000, 0, 0, vector_contiguous(1, XD_F16));
            SYNC_AT(fault_scalar_wait, 1, XD_SYNC_IMM(PIPE_MTE2, PIPE_S, EVENT_ID0));
            break;
        case CASE_OVERFLOW_ON_PIPE:
            /* 15 sets fill the counter (flag_counter_max = 15); the 16th overflows */
            __asm__ volatile(".rept 15\n\t.insn i 0x5b, 0, x0, x0, %0\n\t.endr"
                             :: "i"(XD_SYNC_IMM(PIPE_MTE3, PIPE_V, EVENT_ID5)) : "memory");
            SYNC_AT(fault_overflow_on_pipe, 0, XD_SYNC_IMM(PIPE_MTE3, PIPE_V, EVENT_ID5));
            break;
        case CASE_OVERFLOW_ON_SCALAR:
            __asm__ volatile(".rept 15\n\t.insn i 0x5b, 0, x0, x0, %0\n\t.endr"
                             :: "i"(XD_SYNC_IMM(PIPE_S, PIPE_V, EVENT_ID6)) : "memory");
            SYNC_AT(fault_overflow_on_scalar, 0, XD_SYNC_IMM(PIPE_S, PIPE_V, EVENT_ID6));
            break;
        case CASE_ILLEGAL_INSTRUCTION:
            __asm__ volatile(LABEL(fault_illegal_instruction) ".word 0" ::: "memory");
            break;
        case CASE_LOAD_UNMAPPED:
            __asm__ volatile("li t0, %0\n\t" LABEL(fault_load_unmapped) "ld t1, 0(t0)"
                             :: "i"(UNMAPPED) : "t0", "t1", "memory");
            break;
        case CASE_BUS_ERROR_READ:
            /* copy_gm_to_ubuf from unmapped GM */
            DATA_AT(fault_bus_error_read, 0x0b, 0, 1, 0, UNMAPPED, 0, xd_pack_burst(1, 2, 0, 0));
            break;
        case CASE_BUS_ERROR_WRITE:
            /* copy_ubuf_to_gm to unmapped GM */
            DATA_AT(fault_bus_error_write, 0x0b, 0, 2, UNMAPPED, 0, 0, xd_pack_burst(1, 2, 0, 0));
            break;
        case CASE_LOCAL_MEMORY_OVERRUN:
            __asm__ volatile("li t0, %0\n\t" LABEL(fault_local_memory_overrun) "sd zero, 0(t0)"
                             :: "i"(LOCAL_MEMORY + 0x10000) : "t0", "memory");
            break;
        case CASE_UB_WINDOW_OVERRUN:
            __asm__ volatile("li t0, %0\n\t" LABEL(fault_ub_window_overrun) "ld t1, 0(t0)"
                             :: "i"(UB_WINDOW + UB_SIZE) : "t0", "t1", "memory");
            break;
        case CASE_SPECIAL_REGISTER_WRITE:
            __asm__ volatile(LABEL(fault_special_register_write) "csrw 0xfc1, zero" ::: "memory");
            break;
        case CASE_WAIT_WRONG_EVENT:
            /* counters are per (src, dst, event): a set on event 1 does not release a wait on event 2 */
            copy_ubuf_to_cbuf(0, 0, 1, 8, 0, 0);
            set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
            SYNC_AT(fault_wait_wrong_event, 1, XD_SYNC_IMM(PIPE_MTE3, PIPE_V, EVENT_ID2));
            break;
        case CASE_FAULT_WHILE_MTE3_COPIES:
            /* the fault stops the block while MTE3 is in the middle of a long copy */
            copy_ubuf_to_cbuf(0, 0, 1, 2048, 0, 0);
            DATA_AT(fault_while_mte3_copies, 0x2b, 0, 0, 0x1010, 0, 0, vector_contiguous(1, XD_F16));
            break;
        case CASE_DEADLOCK_ON_FULL_QUEUE:
            /* with queue_depth 2 the scalar unit blocks on the full V queue behind the wait */
            SYNC_AT(fault_wait_before_full_queue, 1, XD_SYNC_IMM(PIPE_MTE2, PIPE_V, EVENT_ID0));
            for (int i = 0; i < 4; ++i) vadd(0x1000, 0, 0, vector_contiguous(1, XD_F16));
            break;
        case CASE_SCALAR_RUNS_ON_AFTER_FAULT: {
            /* MTE3 copies for 1040 cycles, then faults on a misaligned copy
             * queued behind it. Meanwhile the scalar unit counts and stores
             * its cycle counter to GM: it should be stopped by the fault. */
            copy_ubuf_to_cbuf(0, 0, 1, 2048, 0, 0);
            DATA_AT(fault_queued_behind_copy, 0x0b, 0, 3, 0x10, 0, 0, xd_pack_burst(1, 1, 0, 0));
            uint64_t start;
            __asm__ volatile("rdcycle %0" : "=r"(start));
            out[0] = start;
            for (uint64_t i = 1; i < 1000000; ++i) {
                uint64_t now;
                __asm__ volatile("rdcycle %0" : "=r"(now));
                out[1] = now;
                out[2] = i;
            }
            break;
        }
        default:
            break;
    }
}

/* args[0] = case, args[1] = GM scratch (case 23). */
void kernel_main(const uint64_t* args) {
    run_case(args[0], (volatile uint64_t*)(uintptr_t)args[1]);
}
