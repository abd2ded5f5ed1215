/*
 * Serialized console and exit for SMP programs (npuvp_io_uart_smp; replaces
 * console_uart.c and exit_finisher.c). picolibc's stdin/stdout/stderr share one
 * unbuffered stream whose put() collects each hart's bytes in that hart's line buffer;
 * a full line (or a full buffer) goes to UART0 under the console lock, so lines from
 * different harts never interleave. Bytes go out unchanged, as in console_uart.c.
 */
#include <stdio.h>
#include <unistd.h>

#include <npuvp/platform.h>
#include <npuvp/smp.h>

static smp_spinlock_t console_lock;
/* Hart holding console_lock + 1, so a trap report from inside a flush cannot deadlock. */
static volatile uint32_t console_owner;

struct line_buffer {
    uint32_t length;
    char bytes[NPUVP_SMP_CONSOLE_LINE];
} __attribute__((aligned(64)));     /* one hart per cache line group: no false sharing */

static struct line_buffer lines[NPUVP_SMP_MAX_HARTS];

static void write_bytes(const char *bytes, uint32_t length)
{
    uint32_t me = smp_hart_id() + 1;
    int nested = console_owner == me;   /* only this hart can have written `me` */
    if (!nested) {
        smp_lock(&console_lock);
        console_owner = me;
    }
    for (uint32_t i = 0; i < length; i++)
        npuvp_uart_putc(bytes[i]);
    if (!nested) {
        console_owner = 0;
        smp_unlock(&console_lock);
    }
}

void smp_console_flush(void)
{
    unsigned h = smp_hart_id();
    if (h >= NPUVP_SMP_MAX_HARTS)
        return;
    struct line_buffer *line = &lines[h];
    if (line->length) {
        uint32_t length = line->length;
        line->length = 0;
        write_bytes(line->bytes, length);
    }
}

static int smp_put(char c, FILE *f)
{
    (void)f;
    unsigned h = smp_hart_id();
    if (h >= NPUVP_SMP_MAX_HARTS) {     /* no buffer: best effort, still serialized */
        write_bytes(&c, 1);
        return (unsigned char)c;
    }
    struct line_buffer *line = &lines[h];
    line->bytes[line->length++] = c;
    if (c == '\n' || line->length == NPUVP_SMP_CONSOLE_LINE)
        smp_console_flush();
    return (unsigned char)c;
}

static int smp_get(FILE *f)
{
    (void)f;
    return npuvp_uart_getc();
}

static FILE smp_stream = FDEV_SETUP_STREAM(smp_put, smp_get, NULL, _FDEV_SETUP_RW);

FILE *const stdin  = &smp_stream;
FILE *const stdout = &smp_stream;
FILE *const stderr = &smp_stream;

/* exit()/abort() on any hart: write this hart's partial line, then stop the platform
 * through the finisher (as exit_finisher.c). */
void _exit(int code)
{
    smp_console_flush();
    npuvp_finisher_write(code);
    irq_disable();
    write_csr(mie, 0);
    for (;;)
        wfi();
}
