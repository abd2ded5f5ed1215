/*
 * SMP start-up (npuvp_firmware_program(... SMP)); replaces crt0.S. Every hart enters
 * _start at the DDR base, as on QEMU virt with -bios none (a0 = mhartid, a1 = device
 * tree address) and on the npuvp mesh cluster.
 *
 * Each hart sets up what is its own: gp, trap vector, interrupts off, FPU on (FPU
 * builds), its stack slot and its TLS block (stack slot h of link.ld, the TLS block at
 * the slot top, tp pointing at it: a copy of .tdata followed by zeroed .tbss, which is
 * what GCC's local-exec TLS model and picolibc's errno expect on RISC-V, variant I
 * with no TCB). Then it calls npuvp_smp_start(hartid, device tree) in smp.c, which
 * initialises the shared state on hart 0 (.bss, hart count, constructors) while the
 * other harts wait, and runs main on every hart. Harts without a stack slot park.
 */

    .section .text.init, "ax", @progbits
    .globl _start
    .type _start, @function
_start:
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop

    csrw    mie, zero
    csrci   mstatus, 0x8                /* MIE */
    la      t0, npuvp_trap_entry
    csrw    mtvec, t0
    csrw    mscratch, zero

#ifdef __riscv_flen
    /* mstatus.FS = Initial (01); fcsr = 0: round to nearest, no flags. */
    li      t0, 0x6000
    csrc    mstatus, t0
    li      t0, 0x2000
    csrs    mstatus, t0
    fscsr   zero
#endif

    csrr    s0, mhartid
    mv      s2, a1                      /* device tree (QEMU virt), or anything else */
    la      s1, __npuvp_layout
    ld      t0, 8(s1)                   /* number of stack slots */
    bgeu    s0, t0, .Lpark

    /* slot top = __stack_base + (hartid + 1) * size; tp = sp = (top - tls) aligned */
    ld      t1, 0(s1)
    addi    t2, s0, 1
    mul     t2, t2, t1
    la      t3, __stack_base
    add     t3, t3, t2
    ld      t4, 16(s1)                  /* __tls_size */
    sub     t3, t3, t4
    ld      t5, 24(s1)                  /* __tls_align */
    li      t6, 16
    bgeu    t5, t6, 1f
    mv      t5, t6
1:  neg     t5, t5
    and     t3, t3, t5
    mv      tp, t3
    mv      sp, t3

    /* This hart's TLS block, byte by byte (no library call before hart 0 is done):
     * copy .tdata, then zero .tbss. Only this hart touches its slot. */
    la      t0, __tdata_start
    ld      t1, 32(s1)                  /* __tdata_size */
    mv      t2, tp
2:  beqz    t1, 3f
    lbu     t3, 0(t0)
    sb      t3, 0(t2)
    addi    t0, t0, 1
    addi    t2, t2, 1
    addi    t1, t1, -1
    j       2b
3:  ld      t0, 40(s1)                  /* __tbss_offset */
    add     t2, tp, t0
    ld      t1, 48(s1)                  /* __tbss_size */
4:  beqz    t1, 5f
    sb      zero, 0(t2)
    addi    t2, t2, 1
    addi    t1, t1, -1
    j       4b
5:
    mv      a0, s0
    mv      a1, s2
    call    npuvp_smp_start             /* does not return */

.Lpark:
    wfi
    j       .Lpark
    .size _start, . - _start

    .section .rodata.npuvp_layout, "a", @progbits
    .balign 8
    .globl __npuvp_layout
__npuvp_layout:
    .dword  __stack_size_per_hart       /*  0 */
    .dword  __stack_harts               /*  8 */
    .dword  __tls_size                  /* 16 */
    .dword  __tls_align                 /* 24 */
    .dword  __tdata_size                /* 32 */
    .dword  __tbss_offset               /* 40 */
    .dword  __tbss_size                 /* 48 */
    .dword  __npuvp_smp_harts           /* 56: hart count without a device tree */
    .size __npuvp_layout, . - __npuvp_layout

    /* HTIF mailbox, as in crt0.S. */
    .section .tohost, "aw", @progbits
    .balign 64
    .globl tohost
    .type tohost, @object
tohost:
    .dword  0
    .size tohost, 8
    .globl fromhost
    .type fromhost, @object
fromhost:
    .dword  0
    .size fromhost, 8
