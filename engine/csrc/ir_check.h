/* ir_check.h — validation of the IR before a program is built (see ir_check.c for the rules). */
#ifndef GS_IR_CHECK_H
#define GS_IR_CHECK_H
#include "internal.h"

/* Contract: 0 if instruction ir (of function fn, in a program of ninsts instructions whose operand
 * array has nopnds records) is well formed for its handlers, else -1 with "line N: reason" in err. */
int gs_ir_check_inst(const gs_ir_inst *ir, const gs_ir_opnd *opnds, uint32_t nopnds, const gs_ir_func *fn,
                     uint32_t ninsts, char *err, uint32_t errlen);

#endif
