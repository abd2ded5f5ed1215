/* Smallest end-to-end check: console output, printf formatting and CSR reads. */
#include <stdio.h>

#include <npuvp/csr.h>

/* misa as an ISA string: "rv64" + extension letters in canonical order (I/E first, then
 * M A F D Q L C B J T P V H), then any others alphabetically. S and U in misa mean
 * "supervisor / user mode implemented", not extensions, so they are listed apart. */
static void describe_misa(unsigned long misa, char *isa, char *modes)
{
    static const char canonical[] = "iemafdqlcbjtpvh";
    unsigned long ext = misa & ((1ul << 26) - 1);
    unsigned mxl = (unsigned)(misa >> 62);
    char *p = isa;

    p += sprintf(p, "rv%u", mxl == 1 ? 32u : mxl == 2 ? 64u : mxl == 3 ? 128u : 0u);
    for (const char *c = canonical; *c; c++)
        if (ext & (1ul << (*c - 'a'))) {
            *p++ = *c;
            ext &= ~(1ul << (*c - 'a'));
        }
    for (int bit = 0; bit < 26; bit++)
        if ((ext & (1ul << bit)) && bit != 'S' - 'A' && bit != 'U' - 'A')
            *p++ = (char)('a' + bit);
    *p = '\0';

    p = modes;
    *p++ = 'M';
    if (misa & (1ul << ('S' - 'A')))
        *p++ = 'S';
    if (misa & (1ul << ('U' - 'A')))
        *p++ = 'U';
    *p = '\0';
}

int main(void)
{
    unsigned long misa = read_csr(misa);
    char isa[48], modes[4];

    printf("Hello from npuvp!\n");
    if (misa == 0) {
        /* misa may legally read as zero ("not implemented"). */
        printf("hart %lu, misa not implemented\n", hart_id());
    } else {
        describe_misa(misa, isa, modes);
        printf("hart %lu, isa %s, modes %s (misa=0x%016lx)\n", hart_id(), isa, modes, misa);
    }
    return 0;
}
