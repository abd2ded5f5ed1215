/*
 * F and D self-test: runs every class of floating-point instruction on edge values
 * (+-0, subnormals, +-inf, quiet and signalling NaNs, max/min, overflow, underflow,
 * halfway cases) under every rounding mode and prints one line per result:
 *
 *   <instruction> <rm> <operand>... -> <result> fflags=<flags>
 *
 * Operands and f-register results are printed as full 64-bit register images (so
 * single-precision values show their NaN boxing); flags are fflags after the
 * instruction alone. The output is meant to be compared line for line with another
 * implementation (tests/integration/qemu_differential_test.cpp runs it on QEMU too).
 * Built with FPU (rv64imafdc/lp64d): crt0 turns mstatus.FS on.
 */
#include <stdint.h>
#include <stdio.h>

#include <npuvp/csr.h>
#include <npuvp/trap.h>

#ifndef __riscv_flen
#error "fp-selftest must be built with F and D (npuvp_firmware_program(... FPU))"
#endif

typedef uint64_t u64;
typedef uint32_t u32;

#define MSTATUS_FS          (3ul << 13)
#define MSTATUS_FS_INITIAL  (1ul << 13)
#define MSTATUS_FS_CLEAN    (2ul << 13)

static unsigned long lines;

static u64 box(u32 value) { return 0xffffffff00000000ull | value; }

static const char *const mode_names[8] = {"rne", "rtz", "rdn", "rup", "rmm", "rm5", "rm6", "dyn"};

static void set_frm(unsigned rm) { __asm__ volatile("fsrm %0" : : "r"(rm)); }

/* ---------------------------------------------------------------- instruction wrappers
 * Operands go in through fmv.d.x (bits unchanged), results come out through fmv.x.d;
 * fflags is cleared right before the instruction and read right after it. */

typedef u64 (*op1_fn)(u64 a, u64 *flags);
typedef u64 (*op2_fn)(u64 a, u64 b, u64 *flags);
typedef u64 (*op3_fn)(u64 a, u64 b, u64 c, u64 *flags);

/* f, f -> f */
#define OP_FF_F(fn, text)                                                                 \
    static u64 fn(u64 a, u64 b, u64 *flags)                                               \
    {                                                                                     \
        u64 r, f;                                                                         \
        __asm__ volatile("fmv.d.x ft0, %2\n\tfmv.d.x ft1, %3\n\tfsflags zero\n\t"         \
                         text "\n\tfmv.x.d %0, ft2\n\tfrflags %1"                         \
                         : "=&r"(r), "=&r"(f) : "r"(a), "r"(b) : "ft0", "ft1", "ft2");    \
        *flags = f;                                                                       \
        return r;                                                                         \
    }
/* f, f -> x */
#define OP_FF_X(fn, text)                                                                 \
    static u64 fn(u64 a, u64 b, u64 *flags)                                               \
    {                                                                                     \
        u64 r, f;                                                                         \
        __asm__ volatile("fmv.d.x ft0, %2\n\tfmv.d.x ft1, %3\n\tfsflags zero\n\t"         \
                         text "\n\tfrflags %1"                                            \
                         : "=&r"(r), "=&r"(f) : "r"(a), "r"(b) : "ft0", "ft1");           \
        *flags = f;                                                                       \
        return r;                                                                         \
    }
/* f, f, f -> f */
#define OP_FFF_F(fn, text)                                                                \
    static u64 fn(u64 a, u64 b, u64 c, u64 *flags)                                        \
    {                                                                                     \
        u64 r, f;                                                                         \
        __asm__ volatile("fmv.d.x ft0, %2\n\tfmv.d.x ft1, %3\n\tfmv.d.x ft2, %4\n\t"      \
                         "fsflags zero\n\t" text "\n\tfmv.x.d %0, ft3\n\tfrflags %1"      \
                         : "=&r"(r), "=&r"(f) : "r"(a), "r"(b), "r"(c)                    \
                         : "ft0", "ft1", "ft2", "ft3");                                   \
        *flags = f;                                                                       \
        return r;                                                                         \
    }
/* f -> f */
#define OP_F_F(fn, text)                                                                  \
    static u64 fn(u64 a, u64 *flags)                                                      \
    {                                                                                     \
        u64 r, f;                                                                         \
        __asm__ volatile("fmv.d.x ft0, %2\n\tfsflags zero\n\t" text                       \
                         "\n\tfmv.x.d %0, ft2\n\tfrflags %1"                              \
                         : "=&r"(r), "=&r"(f) : "r"(a) : "ft0", "ft2");                   \
        *flags = f;                                                                       \
        return r;                                                                         \
    }
/* f -> x (result in %0) */
#define OP_F_X(fn, text)                                                                  \
    static u64 fn(u64 a, u64 *flags)                                                      \
    {                                                                                     \
        u64 r, f;                                                                         \
        __asm__ volatile("fmv.d.x ft0, %2\n\tfsflags zero\n\t" text "\n\tfrflags %1"      \
                         : "=&r"(r), "=&r"(f) : "r"(a) : "ft0");                          \
        *flags = f;                                                                       \
        return r;                                                                         \
    }
/* x -> f (operand in %2) */
#define OP_X_F(fn, text)                                                                  \
    static u64 fn(u64 a, u64 *flags)                                                      \
    {                                                                                     \
        u64 r, f;                                                                         \
        __asm__ volatile("fsflags zero\n\t" text "\n\tfmv.x.d %0, ft2\n\tfrflags %1"      \
                         : "=&r"(r), "=&r"(f) : "r"(a) : "ft2");                          \
        *flags = f;                                                                       \
        return r;                                                                         \
    }

#define ARITH(x)                                                                          \
    OP_FF_F(fadd_##x, "fadd." #x " ft2, ft0, ft1")                                        \
    OP_FF_F(fsub_##x, "fsub." #x " ft2, ft0, ft1")                                        \
    OP_FF_F(fmul_##x, "fmul." #x " ft2, ft0, ft1")                                        \
    OP_FF_F(fdiv_##x, "fdiv." #x " ft2, ft0, ft1")                                        \
    OP_FF_F(fmin_##x, "fmin." #x " ft2, ft0, ft1")                                        \
    OP_FF_F(fmax_##x, "fmax." #x " ft2, ft0, ft1")                                        \
    OP_FF_F(fsgnj_##x, "fsgnj." #x " ft2, ft0, ft1")                                      \
    OP_FF_F(fsgnjn_##x, "fsgnjn." #x " ft2, ft0, ft1")                                    \
    OP_FF_F(fsgnjx_##x, "fsgnjx." #x " ft2, ft0, ft1")                                    \
    OP_FF_X(feq_##x, "feq." #x " %0, ft0, ft1")                                           \
    OP_FF_X(flt_##x, "flt." #x " %0, ft0, ft1")                                           \
    OP_FF_X(fle_##x, "fle." #x " %0, ft0, ft1")                                           \
    OP_FFF_F(fmadd_##x, "fmadd." #x " ft3, ft0, ft1, ft2")                                \
    OP_FFF_F(fmsub_##x, "fmsub." #x " ft3, ft0, ft1, ft2")                                \
    OP_FFF_F(fnmsub_##x, "fnmsub." #x " ft3, ft0, ft1, ft2")                              \
    OP_FFF_F(fnmadd_##x, "fnmadd." #x " ft3, ft0, ft1, ft2")                              \
    OP_F_F(fsqrt_##x, "fsqrt." #x " ft2, ft0")                                            \
    OP_F_X(fclass_##x, "fclass." #x " %0, ft0")                                           \
    OP_F_X(fcvt_w_##x, "fcvt.w." #x " %0, ft0")                                           \
    OP_F_X(fcvt_wu_##x, "fcvt.wu." #x " %0, ft0")                                         \
    OP_F_X(fcvt_l_##x, "fcvt.l." #x " %0, ft0")                                           \
    OP_F_X(fcvt_lu_##x, "fcvt.lu." #x " %0, ft0")                                         \
    OP_X_F(fcvt_##x##_w, "fcvt." #x ".w ft2, %2")                                         \
    OP_X_F(fcvt_##x##_wu, "fcvt." #x ".wu ft2, %2")                                       \
    OP_X_F(fcvt_##x##_l, "fcvt." #x ".l ft2, %2")                                         \
    OP_X_F(fcvt_##x##_lu, "fcvt." #x ".lu ft2, %2")

ARITH(s)
ARITH(d)
OP_F_F(fcvt_s_d, "fcvt.s.d ft2, ft0")
OP_F_F(fcvt_d_s, "fcvt.d.s ft2, ft0")
OP_F_X(fmv_x_w, "fmv.x.w %0, ft0")
OP_F_X(fmv_x_d, "fmv.x.d %0, ft0")
OP_X_F(fmv_w_x, "fmv.w.x ft2, %2")
OP_X_F(fmv_d_x, "fmv.d.x ft2, %2")
/* Static rounding modes in the encoding (everything else uses dyn = frm). */
OP_FF_F(fadd_d_rmm, "fadd.d ft2, ft0, ft1, rmm")
OP_FF_F(fmul_s_rtz, "fmul.s ft2, ft0, ft1, rtz")
OP_FF_F(fdiv_d_rup, "fdiv.d ft2, ft0, ft1, rup")
OP_FFF_F(fmadd_s_rdn, "fmadd.s ft3, ft0, ft1, ft2, rdn")
OP_F_F(fsqrt_d_rmm, "fsqrt.d ft2, ft0, rmm")
OP_F_X(fcvt_w_d_rmm, "fcvt.w.d %0, ft0, rmm")
OP_F_X(fcvt_l_s_rtz, "fcvt.l.s %0, ft0, rtz")
OP_X_F(fcvt_s_l_rdn, "fcvt.s.l ft2, %2, rdn")
OP_F_F(fcvt_s_d_rup, "fcvt.s.d ft2, ft0, rup")

/* ---------------------------------------------------------------- output */

static void print1(const char *name, unsigned rm, u64 a, u64 r, u64 flags)
{
    printf("%s %s %016lx -> %016lx fflags=%02lx\n", name, mode_names[rm], a, r, flags);
    lines++;
}
static void print2(const char *name, unsigned rm, u64 a, u64 b, u64 r, u64 flags)
{
    printf("%s %s %016lx %016lx -> %016lx fflags=%02lx\n", name, mode_names[rm], a, b, r, flags);
    lines++;
}
static void print3(const char *name, unsigned rm, u64 a, u64 b, u64 c, u64 r, u64 flags)
{
    printf("%s %s %016lx %016lx %016lx -> %016lx fflags=%02lx\n", name, mode_names[rm], a, b, c, r, flags);
    lines++;
}

static void run1(const char *name, op1_fn fn, unsigned rm, u64 a)
{
    u64 flags, r;
    set_frm(rm);
    r = fn(a, &flags);
    set_frm(0);
    print1(name, rm, a, r, flags);
}
static void run2(const char *name, op2_fn fn, unsigned rm, u64 a, u64 b)
{
    u64 flags, r;
    set_frm(rm);
    r = fn(a, b, &flags);
    set_frm(0);
    print2(name, rm, a, b, r, flags);
}
static void run3(const char *name, op3_fn fn, unsigned rm, u64 a, u64 b, u64 c)
{
    u64 flags, r;
    set_frm(rm);
    r = fn(a, b, c, &flags);
    set_frm(0);
    print3(name, rm, a, b, c, r, flags);
}

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* ---------------------------------------------------------------- values */

/* Specials, for all-pairs tests (round to nearest). */
static const u32 s_special[] = {0x00000000, 0x80000000, 0x3f800000, 0x00000001,
                                0x7f7fffff, 0xff800000, 0x7fc00000, 0x7f800001};
static const u64 d_special[] = {0x0000000000000000, 0x8000000000000000, 0x3ff0000000000000,
                                0x0000000000000001, 0x7fefffffffffffff, 0xfff0000000000000,
                                0x7ff8000000000000, 0x7ff0000000000001};

/* Pairs whose sums, differences, products or quotients round: ties, near-ties,
 * overflow, underflow, tininess after rounding. */
static const u32 s_pairs[][2] = {
    {0x3f800000, 0x33800000},  /* 1, 2^-24: sum is a tie */
    {0x3f800001, 0x33800000},  /* 1+ulp, 2^-24: tie, odd below */
    {0x3f800000, 0x33c00000},  /* 1, 1.5*2^-24 */
    {0xbf800000, 0xb3800000},  /* -1, -2^-24 */
    {0x3f800003, 0x3fc00000},  /* product is a tie */
    {0x00000005, 0x40000000},  /* 5*2^-149 / 2: subnormal tie */
    {0x7f7fffff, 0x7f7fffff},  /* overflow */
    {0x7f7fffff, 0x40000000},
    {0x3f800001, 0x007fffff},  /* product just below 2^-126: tininess after rounding */
    {0x00000001, 0x3f000000},  /* half the smallest subnormal */
    {0x3f800000, 0x40400000},  /* 1, 3 */
    {0x3dcccccd, 0xc0400000},  /* 0.1, -3 */
    {0x00800000, 0x3f7fffff},  /* min normal * (1 - 2^-24) */
    {0x4b800001, 0xcb800000},  /* cancellation */
};
static const u64 d_pairs[][2] = {
    {0x3ff0000000000000, 0x3ca0000000000000},  /* 1, 2^-53 */
    {0x3ff0000000000001, 0x3ca0000000000000},
    {0x3ff0000000000000, 0x3ca8000000000000},
    {0xbff0000000000000, 0xbca0000000000000},
    {0x3ff0000000000003, 0x3ff8000000000000},  /* product tie */
    {0x0000000000000005, 0x4000000000000000},  /* subnormal tie */
    {0x7fefffffffffffff, 0x7fefffffffffffff},
    {0x7fefffffffffffff, 0x7c90000000000000},  /* max + half ulp */
    {0x3ff0000000000001, 0x000fffffffffffff},  /* tininess after rounding */
    {0x0000000000000001, 0x3fe0000000000000},
    {0x3ff0000000000000, 0x4008000000000000},
    {0x3fb999999999999a, 0xc008000000000000},
    {0x0010000000000000, 0x3fefffffffffffff},
    {0x4340000000000001, 0xc340000000000000},
};
static const u32 s_triples[][3] = {
    {0x3f800003, 0x3fc00000, 0x00000000},  /* product tie, +0 */
    {0x3f800001, 0x3f800001, 0xbf800002},  /* exact tiny difference */
    {0x3f800001, 0x007fffff, 0x00000000},  /* tininess after rounding */
    {0x7f7fffff, 0x40000000, 0xff7fffff},  /* intermediate beyond range */
    {0x7f800000, 0x00000000, 0x7fc00000},  /* inf * 0 + qNaN: NV */
    {0x3f800000, 0x3f800000, 0xbf800000},  /* exact zero */
    {0x3dcccccd, 0x41200000, 0xbf800000},  /* 0.1 * 10 - 1 */
    {0x00000003, 0x3f000000, 0x80000000},  /* subnormal tie */
};
static const u64 d_triples[][3] = {
    {0x3ff0000000000003, 0x3ff8000000000000, 0x0000000000000000},
    {0x3ff0000000000001, 0x3ff0000000000001, 0xbff0000000000002},
    {0x3ff0000000000001, 0x000fffffffffffff, 0x0000000000000000},
    {0x7fefffffffffffff, 0x4000000000000000, 0xffefffffffffffff},
    {0x7ff0000000000000, 0x0000000000000000, 0x7ff8000000000000},
    {0x3ff0000000000000, 0x3ff0000000000000, 0xbff0000000000000},
    {0x3fb999999999999a, 0x4024000000000000, 0xbff0000000000000},
    {0x0000000000000003, 0x3fe0000000000000, 0x8000000000000000},
};
static const u32 s_roots[] = {0x40000000, 0x40400000, 0x00000001, 0x7f7fffff, 0x3f800001, 0x00800000};
static const u64 d_roots[] = {0x4000000000000000, 0x4008000000000000, 0x0000000000000001,
                              0x7fefffffffffffff, 0x3ff0000000000001, 0x0010000000000000};

/* Values for float-to-integer conversions (as doubles; converted to single where exact). */
static const u64 d_to_int[] = {
    0x3fe0000000000000, 0x3ff8000000000000, 0x4004000000000000, 0xbfe0000000000000,
    0xbff8000000000000, 0xc004000000000000, 0x41dfffffffe00000, /* 2^31 - 0.5 */
    0xc1e0000000100000, /* -2^31 - 0.5 */ 0x41effffffff00000, /* 2^32 - 0.5 */
    0x43e0000000000000, 0xc3e0000000000000, 0x43f0000000000000, 0x7ff8000000000000,
    0x7ff0000000000000, 0xfff0000000000000, 0x0000000000000001, 0x7fefffffffffffff,
    0x8000000000000000, 0xbfefffffffffffff, 0x41efffffffe00000, /* 2^32 - 1 */
};
static const u32 s_to_int[] = {
    0x3f000000, 0x3fc00000, 0x40200000, 0xbf000000, 0xbfc00000, 0xc0200000, 0x4f000000,
    0xcf000000, 0x4f800000, 0x5f000000, 0xdf000000, 0x5f800000, 0x7fc00000, 0x7f800000,
    0xff800000, 0x00000001, 0x7f7fffff, 0x80000000, 0xbf7fffff, 0x4effffff, 0x5f7fffff,
};
static const u64 ints[] = {
    0, 1, 0xffffffffffffffff, 0x1000001, 0x1000003, 0x20000000000001, 0x7fffffffffffffff,
    0x8000000000000000, 0x00000000ffffffff, 0x0000000080000000, 0xabcdef0100000005, 0xfffffffffefffffb,
};
static const u64 d_narrow[] = {
    0x3ff0000010000000, 0xbff0000010000000, 0x3ff0000030000000, 0x7fefffffffffffff, 0x47efffffefffffff,
    0x47effffff0000000, 0x0000000000000001, 0x380ffffff0000000, 0x36a0000000000000, 0x3690000000000000, /* 2^-150: half the smallest subnormal */
    0x7ff0000000000001, 0xfff8000000000123, 0x8000000000000000,
};
static const u32 s_widen[] = {0x00000001, 0x807fffff, 0x7f7fffff, 0x7f800001, 0xffc00123, 0x80000000, 0x3dcccccd};
static const u32 s_class[] = {0xff800000, 0xbf800000, 0x807fffff, 0x80000000, 0x00000000, 0x00000001,
                              0x7f7fffff, 0x7f800000, 0x7f800001, 0x7fc00000};
static const u64 d_class[] = {0xfff0000000000000, 0xbff0000000000000, 0x800fffffffffffff,
                              0x8000000000000000, 0x0000000000000000, 0x0000000000000001,
                              0x7fefffffffffffff, 0x7ff0000000000000, 0x7ff0000000000001,
                              0x7ff8000000000000};

/* ---------------------------------------------------------------- traps */

static volatile unsigned long traps;
static volatile u64 trap_cause, trap_tval;

static void on_illegal(struct npuvp_trap_frame *frame)
{
    trap_cause = frame->mcause;
    trap_tval = frame->mtval;
    traps++;
    frame->mepc += npuvp_insn_length(frame->mepc);
}

static void report_trap(const char *what, unsigned long before)
{
    if (traps == before)
        printf("trap %s: none\n", what);
    else
        printf("trap %s: mcause=%lu mtval=%08lx\n", what, (unsigned long)trap_cause, (unsigned long)trap_tval);
    lines++;
}

/* ---------------------------------------------------------------- sections */

struct op2 { const char *name; op2_fn fn; };
struct op3 { const char *name; op3_fn fn; };
struct op1 { const char *name; op1_fn fn; };

static void specials(void)
{
    static const struct op2 s_ops[] = {
        {"fadd.s", fadd_s}, {"fsub.s", fsub_s}, {"fmul.s", fmul_s}, {"fdiv.s", fdiv_s},
        {"fmin.s", fmin_s}, {"fmax.s", fmax_s}, {"feq.s", feq_s}, {"flt.s", flt_s}, {"fle.s", fle_s},
    };
    static const struct op2 d_ops[] = {
        {"fadd.d", fadd_d}, {"fsub.d", fsub_d}, {"fmul.d", fmul_d}, {"fdiv.d", fdiv_d},
        {"fmin.d", fmin_d}, {"fmax.d", fmax_d}, {"feq.d", feq_d}, {"flt.d", flt_d}, {"fle.d", fle_d},
    };
    for (unsigned o = 0; o < COUNT(s_ops); o++)
        for (unsigned i = 0; i < COUNT(s_special); i++)
            for (unsigned j = 0; j < COUNT(s_special); j++)
                run2(s_ops[o].name, s_ops[o].fn, 0, box(s_special[i]), box(s_special[j]));
    for (unsigned o = 0; o < COUNT(d_ops); o++)
        for (unsigned i = 0; i < COUNT(d_special); i++)
            for (unsigned j = 0; j < COUNT(d_special); j++)
                run2(d_ops[o].name, d_ops[o].fn, 0, d_special[i], d_special[j]);
}

static void rounding(void)
{
    static const struct op2 s_ops[] = {{"fadd.s", fadd_s}, {"fsub.s", fsub_s}, {"fmul.s", fmul_s}, {"fdiv.s", fdiv_s}};
    static const struct op2 d_ops[] = {{"fadd.d", fadd_d}, {"fsub.d", fsub_d}, {"fmul.d", fmul_d}, {"fdiv.d", fdiv_d}};
    static const struct op3 s_fused[] = {{"fmadd.s", fmadd_s}, {"fmsub.s", fmsub_s}, {"fnmsub.s", fnmsub_s}, {"fnmadd.s", fnmadd_s}};
    static const struct op3 d_fused[] = {{"fmadd.d", fmadd_d}, {"fmsub.d", fmsub_d}, {"fnmsub.d", fnmsub_d}, {"fnmadd.d", fnmadd_d}};
    for (unsigned rm = 0; rm <= 4; rm++) {
        for (unsigned o = 0; o < COUNT(s_ops); o++)
            for (unsigned i = 0; i < COUNT(s_pairs); i++)
                run2(s_ops[o].name, s_ops[o].fn, rm, box(s_pairs[i][0]), box(s_pairs[i][1]));
        for (unsigned o = 0; o < COUNT(d_ops); o++)
            for (unsigned i = 0; i < COUNT(d_pairs); i++)
                run2(d_ops[o].name, d_ops[o].fn, rm, d_pairs[i][0], d_pairs[i][1]);
        for (unsigned o = 0; o < COUNT(s_fused); o++)
            for (unsigned i = 0; i < COUNT(s_triples); i++)
                run3(s_fused[o].name, s_fused[o].fn, rm, box(s_triples[i][0]), box(s_triples[i][1]),
                     box(s_triples[i][2]));
        for (unsigned o = 0; o < COUNT(d_fused); o++)
            for (unsigned i = 0; i < COUNT(d_triples); i++)
                run3(d_fused[o].name, d_fused[o].fn, rm, d_triples[i][0], d_triples[i][1], d_triples[i][2]);
        for (unsigned i = 0; i < COUNT(s_roots); i++)
            run1("fsqrt.s", fsqrt_s, rm, box(s_roots[i]));
        for (unsigned i = 0; i < COUNT(d_roots); i++)
            run1("fsqrt.d", fsqrt_d, rm, d_roots[i]);
    }
}

static void conversions(void)
{
    static const struct op1 s_to[] = {{"fcvt.w.s", fcvt_w_s}, {"fcvt.wu.s", fcvt_wu_s}, {"fcvt.l.s", fcvt_l_s}, {"fcvt.lu.s", fcvt_lu_s}};
    static const struct op1 d_to[] = {{"fcvt.w.d", fcvt_w_d}, {"fcvt.wu.d", fcvt_wu_d}, {"fcvt.l.d", fcvt_l_d}, {"fcvt.lu.d", fcvt_lu_d}};
    static const struct op1 from[] = {
        {"fcvt.s.w", fcvt_s_w}, {"fcvt.s.wu", fcvt_s_wu}, {"fcvt.s.l", fcvt_s_l}, {"fcvt.s.lu", fcvt_s_lu},
        {"fcvt.d.w", fcvt_d_w}, {"fcvt.d.wu", fcvt_d_wu}, {"fcvt.d.l", fcvt_d_l}, {"fcvt.d.lu", fcvt_d_lu},
    };
    for (unsigned rm = 0; rm <= 4; rm++) {
        for (unsigned o = 0; o < COUNT(s_to); o++)
            for (unsigned i = 0; i < COUNT(s_to_int); i++)
                run1(s_to[o].name, s_to[o].fn, rm, box(s_to_int[i]));
        for (unsigned o = 0; o < COUNT(d_to); o++)
            for (unsigned i = 0; i < COUNT(d_to_int); i++)
                run1(d_to[o].name, d_to[o].fn, rm, d_to_int[i]);
        for (unsigned o = 0; o < COUNT(from); o++)
            for (unsigned i = 0; i < COUNT(ints); i++)
                run1(from[o].name, from[o].fn, rm, ints[i]);
        for (unsigned i = 0; i < COUNT(d_narrow); i++)
            run1("fcvt.s.d", fcvt_s_d, rm, d_narrow[i]);
    }
    for (unsigned i = 0; i < COUNT(s_widen); i++)
        run1("fcvt.d.s", fcvt_d_s, 0, box(s_widen[i]));
}

static void static_modes(void)
{
    /* frm is set to RNE; the encodings carry their own mode. */
    run2("fadd.d.rmm", fadd_d_rmm, 0, 0x3ff0000000000000, 0x3ca0000000000000);
    run2("fmul.s.rtz", fmul_s_rtz, 0, box(0x7f7fffff), box(0x40000000));
    run2("fdiv.d.rup", fdiv_d_rup, 0, 0x3ff0000000000000, 0x4008000000000000);
    run3("fmadd.s.rdn", fmadd_s_rdn, 0, box(0x3f800000), box(0x3f800000), box(0xbf800000));
    run1("fsqrt.d.rmm", fsqrt_d_rmm, 0, 0x4000000000000000);
    run1("fcvt.w.d.rmm", fcvt_w_d_rmm, 0, 0xc004000000000000);
    run1("fcvt.l.s.rtz", fcvt_l_s_rtz, 0, box(0xbfc00000));
    run1("fcvt.s.l.rdn", fcvt_s_l_rdn, 0, 0xfffffffffefffffb);
    run1("fcvt.s.d.rup", fcvt_s_d_rup, 0, 0x0000000000000001);
}

static void bits_and_boxing(void)
{
    /* Improperly boxed singles read as the canonical NaN; moves and sign injection keep bits. */
    static const u64 images[] = {0x000000003f800000, 0xfffffffe3f800000, 0x3ff0000000000000,
                                 0xffffffff7f800001, 0xffffffffffc00123};
    for (unsigned i = 0; i < COUNT(images); i++) {
        run2("fadd.s", fadd_s, 0, images[i], box(0x3f800000));
        run2("fsgnj.s", fsgnj_s, 0, images[i], box(0x80000000));
        run2("fsgnjn.s", fsgnjn_s, 0, box(0x3f800000), images[i]);
        run2("fsgnjx.s", fsgnjx_s, 0, images[i], images[i]);
        run2("fmax.s", fmax_s, 0, images[i], box(0x40400000));
        run1("fclass.s", fclass_s, 0, images[i]);
        run1("fmv.x.w", fmv_x_w, 0, images[i]);
        run1("fmv.x.d", fmv_x_d, 0, images[i]);
        run1("fcvt.d.s", fcvt_d_s, 0, images[i]);
    }
    run2("fsgnj.d", fsgnj_d, 0, 0x7ff0000000000001, 0x8000000000000000);
    run2("fsgnjn.d", fsgnjn_d, 0, 0xfff8000000000123, 0x8000000000000000);
    run2("fsgnjx.d", fsgnjx_d, 0, 0xbff0000000000000, 0x8000000000000000);
    run1("fmv.w.x", fmv_w_x, 0, 0x123456787f800001);
    run1("fmv.d.x", fmv_d_x, 0, 0x7ff0000000000001);
    for (unsigned i = 0; i < COUNT(s_class); i++)
        run1("fclass.s", fclass_s, 0, box(s_class[i]));
    for (unsigned i = 0; i < COUNT(d_class); i++)
        run1("fclass.d", fclass_d, 0, d_class[i]);
}

static void loads_and_stores(void)
{
    static u64 memory[4] __attribute__((aligned(16)));
    u64 r;

    memory[0] = 0x0123456789abcdef;
    memory[1] = 0x7ff0000000000001;
    __asm__ volatile("flw ft0, 4(%1)\n\tfmv.x.d %0, ft0" : "=r"(r) : "r"(memory) : "ft0", "memory");
    printf("flw -> %016lx\n", r);
    __asm__ volatile("fld ft0, 8(%1)\n\tfmv.x.d %0, ft0" : "=r"(r) : "r"(memory) : "ft0", "memory");
    printf("fld -> %016lx\n", r);
    __asm__ volatile("fmv.d.x ft0, %0\n\tfsw ft0, 16(%1)\n\tfsd ft0, 24(%1)"
                     : : "r"(0x1122334455667788ul), "r"(memory) : "ft0", "memory");
    printf("fsw fsd -> %016lx %016lx\n", memory[2], memory[3]);

    /* Compressed forms: c.fld/c.fsd need registers x8-x15 / f8-f15. */
    {
        register u64 *base __asm__("a0") = memory;
        __asm__ volatile("c.fld fs0, 8(%1)\n\tc.fsd fs0, 16(%1)\n\tfmv.x.d %0, fs0"
                         : "=r"(r) : "r"(base) : "fs0", "memory");
        printf("c.fld c.fsd -> %016lx %016lx\n", r, memory[2]);
    }
    {
        u64 stored;
        __asm__ volatile("addi sp, sp, -16\n\t"
                         "sd %2, 8(sp)\n\t"
                         "c.fldsp ft0, 8(sp)\n\t"
                         "fmv.d.x ft1, %3\n\t"
                         "c.fsdsp ft1, 0(sp)\n\t"
                         "ld %1, 0(sp)\n\t"
                         "addi sp, sp, 16\n\t"
                         "fmv.x.d %0, ft0"
                         : "=&r"(r), "=&r"(stored) : "r"(0x400921fb54442d18ul), "r"(0xc000000000000000ul)
                         : "ft0", "ft1", "memory");
        printf("c.fldsp c.fsdsp -> %016lx %016lx\n", r, stored);
    }
    lines += 5;
}

static void csrs_and_traps(void)
{
    unsigned long before, value;

    npuvp_set_exception_handler(CAUSE_ILLEGAL_INSTRUCTION, on_illegal);

    /* fcsr fields. */
    __asm__ volatile("fscsr %0, %1" : "=r"(value) : "r"(0xffful));
    printf("fcsr %02lx fflags %02lx frm %lu\n", read_csr(fcsr), read_csr(fflags), read_csr(frm));
    write_csr(fcsr, 0);
    lines++;

    /* Reserved rounding modes in the encoding, and dyn with an invalid frm. */
    before = traps;
    __asm__ volatile(".4byte 0x02c5d553" : : : "fa0");  /* fadd.d fa0, fa1, fa2, rm=5 */
    report_trap("fadd.d rm=5", before);
    before = traps;
    __asm__ volatile(".4byte 0x02c5e553" : : : "fa0");  /* rm=6 */
    report_trap("fadd.d rm=6", before);
    for (unsigned frm = 5; frm <= 7; frm++) {
        before = traps;
        __asm__ volatile("fsrm %0\n\tfadd.d fa0, fa1, fa2\n\tfsrm zero" : : "r"(frm) : "fa0");
        printf("frm=%u: ", frm);
        report_trap("fadd.d dyn", before);
    }
    before = traps;
    __asm__ volatile("fsrm %0\n\tfsgnj.d fa0, fa1, fa2\n\tfsrm zero" : : "r"(5ul) : "fa0");
    report_trap("fsgnj.d with frm=5", before);

    /* FS: Off makes every FP instruction and the fcsr CSRs illegal. */
    clear_csr(mstatus, MSTATUS_FS);
    before = traps;
    __asm__ volatile("fadd.d fa0, fa1, fa2" : : : "fa0");
    report_trap("FS=off fadd.d", before);
    before = traps;
    __asm__ volatile("fmv.x.d %0, fa0" : "=r"(value));
    report_trap("FS=off fmv.x.d", before);
    before = traps;
    __asm__ volatile("csrr %0, fflags" : "=r"(value));
    report_trap("FS=off csrr fflags", before);
    before = traps;
    {
        register u64 *base __asm__("a0") = 0;
        __asm__ volatile("c.fld fs0, 0(%0)" : : "r"(base) : "fs0");
    }
    report_trap("FS=off c.fld", before);
    /* FS: Clean stays Clean on reads; register writes make it Dirty. */
    set_csr(mstatus, MSTATUS_FS_CLEAN);
    __asm__ volatile("fmv.x.d %0, fa0" : "=r"(value));
    printf("FS after fmv.x.d: %lu\n", (read_csr(mstatus) & MSTATUS_FS) >> 13);
    __asm__ volatile("fmv.d.x fa0, zero" : : : "fa0");
    printf("FS after fmv.d.x: %lu SD: %lu\n", (read_csr(mstatus) & MSTATUS_FS) >> 13, read_csr(mstatus) >> 63);
    lines += 2;
}

int main(void)
{
    printf("fp-selftest: misa F=%lu D=%lu\n", (read_csr(misa) >> 5) & 1, (read_csr(misa) >> 3) & 1);
    specials();
    rounding();
    conversions();
    static_modes();
    bits_and_boxing();
    loads_and_stores();
    csrs_and_traps();
    printf("fp-selftest: %lu lines, %lu traps\n", lines, traps);
    return 0;
}
