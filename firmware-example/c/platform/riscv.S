/* RISC-V (rv32, machine mode): the entry point, the trap entry and the semihosting trap. */

    /* The CSR instructions, whatever -march says (-march=rv32imac selects the rv32imac/ilp32
     * multilib of libgcc; newer assemblers want zicsr named for csrr/csrw). */
    .option arch, +zicsr

    .section .text.start, "ax", @progbits
    .globl _start
_start:
    /* gp first, with relaxation off: the linker would otherwise relax this to gp-relative. */
    .option push
    .option norelax
    la gp, __global_pointer$
    .option pop
    la sp, _estack
    la t0, trap_entry
    csrw mtvec, t0
    j platform_start

    /* Any trap (there are no interrupts enabled): platform_fault(mcause, mepc). Direct mode:
     * mtvec needs 4-byte alignment. */
    .text
    .balign 4
trap_entry:
    csrr a0, mcause
    csrr a1, mepc
    j platform_fault

    /* platform_semihost(op, arg): a0 = op, a1 = arg, result in a0. The debugger recognises the
     * trap by the three uncompressed instructions around ebreak, which must not straddle a
     * page: 16-byte aligned, nothing compressed. */
    .globl platform_semihost
    .balign 16
    .option push
    .option norvc
platform_semihost:
    slli x0, x0, 0x1f
    ebreak
    srai x0, x0, 7
    ret
    .option pop
