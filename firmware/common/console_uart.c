/*
 * picolibc stdio on UART0 (ns16550a, polled). stdin, stdout and stderr share one
 * unbuffered stream, so output ordering is exactly program order and nothing is lost
 * when a program stops through _exit(). Bytes go out unchanged ('\n' is not expanded
 * to "\r\n") so simulator console logs compare byte for byte with QEMU's.
 */
#include <stdio.h>

#include <npuvp/platform.h>

static int uart_put(char c, FILE *f)
{
    (void)f;
    npuvp_uart_putc(c);
    return (unsigned char)c;
}

static int uart_get(FILE *f)
{
    (void)f;
    return npuvp_uart_getc();
}

static FILE uart_stream = FDEV_SETUP_STREAM(uart_put, uart_get, NULL, _FDEV_SETUP_RW);

FILE *const stdin  = &uart_stream;
FILE *const stdout = &uart_stream;
FILE *const stderr = &uart_stream;
