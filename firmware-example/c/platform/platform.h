/* Bare-metal support for the C firmware and the C bench harness under QEMU, on Cortex-M
 * (Thumb) and RISC-V (rv32): text and exit codes over semihosting, and the markers of the
 * regions that the instruction-count plugin (firmware-example/tools/insncount.c) measures.
 *
 * Startup (cortex-m.c or riscv.S, then start.c) copies .data, zeroes .bss, calls main and
 * exits QEMU with main's return value; a fault or trap prints where it happened and exits with
 * PLATFORM_EXIT_FAULT. On a real board, replace platform_write and platform_exit with what the
 * application should do; the markers are harmless no-ops there. */
#ifndef LTU_PLATFORM_H
#define LTU_PLATFORM_H

#include <stdint.h>

/* The exit code of a fault (Cortex-M) or trap (RISC-V): the Rust firmware's EXIT_HARDFAULT. */
#define PLATFORM_EXIT_FAULT 102

/* Writes a NUL-terminated string to QEMU's standard output. */
void platform_write(const char *s);

/* Writes `v` in decimal, or as 0x followed by 8 hex digits. */
void platform_write_u32(uint32_t v);
void platform_write_hex(uint32_t v);

/* Stops QEMU; `code` becomes its exit status. */
void platform_exit(int code) __attribute__((noreturn));

/* Prints "fault: cause <cause> at pc=<pc>" and exits with PLATFORM_EXIT_FAULT. On Cortex-M the
 * cause is the exception number (3: HardFault), on RISC-V the mcause register. */
void platform_fault(uint32_t cause, uint32_t pc) __attribute__((noreturn));

/* On a function whose loops must stay loops: without a C library, the optimizer must not turn a
 * copy, fill or length loop into a call to memcpy, memset or strlen (or into itself). */
#if defined(__clang__)
#define PLATFORM_PLAIN_LOOPS __attribute__((no_builtin))
#else
#define PLATFORM_PLAIN_LOOPS __attribute__((optimize("no-tree-loop-distribute-patterns")))
#endif

/* One semihosting call: operation `op` with the argument block `arg`; returns the result. */
int32_t platform_semihost(uint32_t op, const void *arg);

/* Start and end of a measured region: instructions that change nothing, which the plugin
 * recognises by their encoding. The memory clobber keeps the compiler from moving loads and
 * stores across them. */
#if defined(__arm__)
#define PLATFORM_REGION_START() __asm__ volatile("mov r11, r11" ::: "memory")
#define PLATFORM_REGION_STOP() __asm__ volatile("mov r10, r10" ::: "memory")
#elif defined(__riscv)
#define PLATFORM_REGION_START() __asm__ volatile("slti x0, x0, 1" ::: "memory")
#define PLATFORM_REGION_STOP() __asm__ volatile("slti x0, x0, 2" ::: "memory")
#else
#error "platform.h supports Cortex-M (__arm__) and RISC-V (__riscv) only"
#endif

#endif /* LTU_PLATFORM_H */
