/*
 * The trap machinery's internals, private to the runtime (firmware/common): the
 * assembly entry that crt0 puts in mtvec, and the C dispatcher it calls. Programs and
 * libraries use the public API of <npuvp/trap.h> only.
 */
#ifndef NPUVP_TRAP_PRIVATE_H
#define NPUVP_TRAP_PRIVATE_H

#include <npuvp/trap.h>

void trap_dispatch(struct npuvp_trap_frame *frame);  /* called by npuvp_trap_entry */
void npuvp_trap_entry(void);                         /* trap_entry.S; crt0 sets mtvec to it */

#endif /* NPUVP_TRAP_PRIVATE_H */
