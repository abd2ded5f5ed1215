/* The few libc functions GCC may call on its own (struct copies, zeroing,
 * loops it recognises as copies); kernels link no libc. Aligned buffers go
 * a 64-bit word at a time: on the scalar unit every instruction counts. */
#include <stddef.h>
#include <stdint.h>

typedef uint64_t __attribute__((may_alias)) word_t;

void* memcpy(void* dst, const void* src, size_t n) {
    unsigned char* d = dst;
    const unsigned char* s = src;
    if ((((uintptr_t)d | (uintptr_t)s) & 7) == 0)
        for (; n >= 8; n -= 8, d += 8, s += 8) *(word_t*)d = *(const word_t*)s;
    while (n--) *d++ = *s++;
    return dst;
}

void* memset(void* dst, int value, size_t n) {
    unsigned char* d = dst;
    if (((uintptr_t)d & 7) == 0) {
        const word_t word = (uint64_t)(unsigned char)value * 0x0101010101010101ull;
        for (; n >= 8; n -= 8, d += 8) *(word_t*)d = word;
    }
    while (n--) *d++ = (unsigned char)value;
    return dst;
}
