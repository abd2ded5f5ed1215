/*
 * Machine-mode trap entry (mtvec direct mode). Builds a struct npuvp_trap_frame
 * (npuvp/trap.h) on the interrupted stack, calls trap_dispatch(frame), then restores
 * mstatus, mepc and all registers from the frame, so handlers may edit them.
 */

#define REG(n)        ((n) * 8)
#define F_MSTATUS     (32 * 8)
#define F_MEPC        (33 * 8)
#define F_MCAUSE      (34 * 8)
#define F_MTVAL       (35 * 8)
#define FRAME_SIZE    (36 * 8)          /* multiple of 16: keeps sp ABI-aligned */

    .section .text.npuvp_trap_entry, "ax", @progbits
    .balign 4                           /* mtvec ignores the low two bits */
    .globl npuvp_trap_entry
    .type npuvp_trap_entry, @function
npuvp_trap_entry:
    addi    sp, sp, -FRAME_SIZE
    sd      x1,  REG(1)(sp)
    sd      x3,  REG(3)(sp)
    sd      x4,  REG(4)(sp)
    sd      x5,  REG(5)(sp)
    sd      x6,  REG(6)(sp)
    sd      x7,  REG(7)(sp)
    sd      x8,  REG(8)(sp)
    sd      x9,  REG(9)(sp)
    sd      x10, REG(10)(sp)
    sd      x11, REG(11)(sp)
    sd      x12, REG(12)(sp)
    sd      x13, REG(13)(sp)
    sd      x14, REG(14)(sp)
    sd      x15, REG(15)(sp)
    sd      x16, REG(16)(sp)
    sd      x17, REG(17)(sp)
    sd      x18, REG(18)(sp)
    sd      x19, REG(19)(sp)
    sd      x20, REG(20)(sp)
    sd      x21, REG(21)(sp)
    sd      x22, REG(22)(sp)
    sd      x23, REG(23)(sp)
    sd      x24, REG(24)(sp)
    sd      x25, REG(25)(sp)
    sd      x26, REG(26)(sp)
    sd      x27, REG(27)(sp)
    sd      x28, REG(28)(sp)
    sd      x29, REG(29)(sp)
    sd      x30, REG(30)(sp)
    sd      x31, REG(31)(sp)
    sd      zero, REG(0)(sp)
    addi    t0, sp, FRAME_SIZE          /* sp before the trap */
    sd      t0,  REG(2)(sp)
    csrr    t0, mstatus
    sd      t0, F_MSTATUS(sp)
    csrr    t0, mepc
    sd      t0, F_MEPC(sp)
    csrr    t0, mcause
    sd      t0, F_MCAUSE(sp)
    csrr    t0, mtval
    sd      t0, F_MTVAL(sp)

    mv      a0, sp
    call    trap_dispatch

    ld      t0, F_MSTATUS(sp)
    csrw    mstatus, t0
    ld      t0, F_MEPC(sp)
    csrw    mepc, t0
    ld      x1,  REG(1)(sp)
    ld      x3,  REG(3)(sp)
    ld      x4,  REG(4)(sp)
    ld      x5,  REG(5)(sp)
    ld      x6,  REG(6)(sp)
    ld      x7,  REG(7)(sp)
    ld      x8,  REG(8)(sp)
    ld      x9,  REG(9)(sp)
    ld      x10, REG(10)(sp)
    ld      x11, REG(11)(sp)
    ld      x12, REG(12)(sp)
    ld      x13, REG(13)(sp)
    ld      x14, REG(14)(sp)
    ld      x15, REG(15)(sp)
    ld      x16, REG(16)(sp)
    ld      x17, REG(17)(sp)
    ld      x18, REG(18)(sp)
    ld      x19, REG(19)(sp)
    ld      x20, REG(20)(sp)
    ld      x21, REG(21)(sp)
    ld      x22, REG(22)(sp)
    ld      x23, REG(23)(sp)
    ld      x24, REG(24)(sp)
    ld      x25, REG(25)(sp)
    ld      x26, REG(26)(sp)
    ld      x27, REG(27)(sp)
    ld      x28, REG(28)(sp)
    ld      x29, REG(29)(sp)
    ld      x30, REG(30)(sp)
    ld      x31, REG(31)(sp)
    addi    sp, sp, FRAME_SIZE
    mret
    .size npuvp_trap_entry, . - npuvp_trap_entry
