/* Cortex-M: the vector table, the reset handler (the FPU switched on where there is one), the
 * fault handler and the semihosting trap. Works on ARMv6-M (Thumb-1 only) and up. */
#include "platform.h"

extern uint32_t _estack[];
void platform_start(void) __attribute__((noreturn));

void _start(void) __attribute__((noreturn));
void _start(void)
{
#if defined(__ARM_FP)
    /* CPACR: full access to CP10 and CP11 (the FPU). */
    *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
    __asm__ volatile("dsb\n isb" ::: "memory");
#endif
    platform_start();
}

/* Every exception but reset: the exception number (IPSR) and the stacked PC of the code that
 * faulted (the seventh word of the frame the core pushed on the main stack, the only stack
 * here). bl, not b: Thumb-1's b reaches only 2 KiB, and platform_fault does not return. */
__attribute__((naked)) void Fault_Handler(void)
{
    __asm__ volatile("mrs r0, msp\n"
                     "ldr r1, [r0, #24]\n"
                     "mrs r0, ipsr\n"
                     "bl platform_fault\n");
}

/* The initial stack pointer, then the handlers of exceptions 1 to 15 (0: reserved). Words, not
 * function pointers: the first entry is a data address. */
#define HANDLER(f) ((uintptr_t)(f))
__attribute__((section(".vectors"), used)) static const uintptr_t vectors[16] = {
    (uintptr_t)_estack, HANDLER(_start), HANDLER(Fault_Handler), HANDLER(Fault_Handler),
    HANDLER(Fault_Handler), HANDLER(Fault_Handler), HANDLER(Fault_Handler), 0, 0, 0, 0,
    HANDLER(Fault_Handler), HANDLER(Fault_Handler), 0, HANDLER(Fault_Handler),
    HANDLER(Fault_Handler),
};

int32_t platform_semihost(uint32_t op, const void *arg)
{
    register uint32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return (int32_t)r0;
}
