/* iclass.h — the instruction-class mapping of iclass.c, as decode.c uses
 * it: a decoded Zydis instruction -> enum st_class, width and elem_bits,
 * plus the few per-mnemonic facts decode.c needs for operands.  The
 * classes are documented in docs/instruction-classes.md.
 */
#ifndef AUGUR_STRUCTURE_ICLASS_H
#define AUGUR_STRUCTURE_ICLASS_H

#include <Zydis/Zydis.h>

#include "structure/structure.h"

/* Flags of iclass_flags(). */
#define ICLASS_DEP_BREAKING 1u /* the result does not depend on the sources when
                                  they are one register: xor r, r; pxor x, x;
                                  pcmpeqd x, x (all ones) */
#define ICLASS_HINT 2u         /* names memory without loading or storing it:
                                  prefetch*, clflush*, clwb, cldemote */
#define ICLASS_NOP 4u          /* does nothing: its operands are formal */

/* The ICLASS_* flags of mnemonic m (0 for most). */
unsigned iclass_flags(ZydisMnemonic m);

/* Set out->cls, out->width and out->elem_bits of the decoded instruction
 * zi with its zi->operand_count operands ops. */
void iclass_classify(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *ops, st_insn *out);

#endif
