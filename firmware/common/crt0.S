/*
 * npuvp firmware start-up (machine mode, every hart enters here at the DDR base).
 *
 * Hart h owns stack slot h of link.ld: [__stack_base + h*S, __stack_base + (h+1)*S) with
 * S = __stack_size_per_hart. Its thread-local block (picolibc keeps errno and friends in
 * TLS) sits at the top of the slot, tp points at it, and the stack grows down below it.
 * Hart 0 zeroes .bss, initialises its TLS block, runs constructors and calls
 * main(0, NULL) then exit(). All other harts get their sp/tp and park in a wfi loop.
 *
 * Built with F/D (npuvp_firmware_program(... FPU), __riscv_flen defined), every hart
 * first turns the FPU on: harts reset with mstatus.FS = Off, where any floating-point
 * instruction (which compiled code may use anywhere) is illegal.
 */

    .section .text.init, "ax", @progbits
    .globl _start
    .type _start, @function
_start:
    /* gp must be set before the linker may relax any access to gp-relative form. */
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop

    /* Nothing may interrupt start-up; programs enable sources explicitly. */
    csrw    mie, zero
    csrci   mstatus, 0x8                /* MIE */
    la      t0, npuvp_trap_entry
    csrw    mtvec, t0
    csrw    mscratch, zero

#ifdef __riscv_flen
    /* mstatus.FS = Initial (01); fcsr = 0: round to nearest, no flags. */
    li      t0, 0x6000                  /* FS */
    csrc    mstatus, t0
    li      t0, 0x2000                  /* FS = Initial */
    csrs    mstatus, t0
    fscsr   zero
#endif

    csrr    s0, mhartid
    la      s1, __npuvp_layout
    ld      t0, 8(s1)                   /* number of stack slots */
    bgeu    s0, t0, .Lpark              /* no slot: park without a stack */

    /* slot top = __stack_base + (hartid + 1) * size */
    ld      t1, 0(s1)                   /* __stack_size_per_hart */
    addi    t2, s0, 1
    mul     t2, t2, t1
    la      t3, __stack_base
    add     t3, t3, t2
    /* tp = (top - tls_size) rounded down to max(tls_align, 16); sp = tp */
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

    bnez    s0, .Lpark

    /* Zero .sbss and .bss (8-byte aligned by link.ld); the loader may not have. */
    la      t0, __bss_start
    la      t1, __bss_end
2:  bgeu    t0, t1, 3f
    sd      zero, 0(t0)
    addi    t0, t0, 8
    j       2b
3:
    /* This hart's TLS block: copy of .tdata, then zeroed .tbss. */
    mv      a0, tp
    la      a1, __tdata_start
    ld      a2, 32(s1)                  /* __tdata_size */
    call    memcpy
    ld      t0, 40(s1)                  /* __tbss_offset */
    add     a0, tp, t0
    li      a1, 0
    ld      a2, 48(s1)                  /* __tbss_size */
    call    memset

    call    __libc_init_array
    li      a0, 0
    li      a1, 0
    call    main
    call    exit
    /* exit() does not return; fall into the park loop if it ever did. */

.Lpark:
    wfi
    j       .Lpark
    .size _start, . - _start

/*
 * Link-time constants. They are absolute symbols with small values, which medany code
 * (PC-relative, running at 0x8000_0000) cannot materialise directly, so read them from
 * this table (filled by absolute 64-bit relocations).
 */
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
    .size __npuvp_layout, . - __npuvp_layout

/*
 * HTIF mailbox for Spike-style hosts (see npuvp/htif.h). Defined here so that every
 * program has it; link.ld gives the section a 64-byte line of its own.
 */
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
