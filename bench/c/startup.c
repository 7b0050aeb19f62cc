/* Minimal Cortex-M startup for the C bench firmware: vector table, .data copy, .bss zeroing,
 * the FPU switched on where there is one, then main. Faults exit QEMU through semihosting. */
#include <stdint.h>

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;
int main(void);

static void fault_exit(void)
{
    register int r0 __asm__("r0") = 0x18; /* SYS_EXIT */
    register uint32_t r1 __asm__("r1") = 0x20023; /* ADP_Stopped_RunTimeErrorUnknown: exit 1 */
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    for (;;) {
    }
}

/* Plain loops, not calls to memcpy/memset that the optimizer would otherwise make of them. */
__attribute__((optimize("no-tree-loop-distribute-patterns"))) void Reset_Handler(void)
{
    uint32_t *src = &_sidata;
    for (uint32_t *dst = &_sdata; dst < &_edata;) {
        *dst++ = *src++;
    }
    for (uint32_t *dst = &_sbss; dst < &_ebss;) {
        *dst++ = 0;
    }
#if defined(__ARM_FP)
    /* CPACR: full access to CP10 and CP11 (the FPU). */
    *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
    __asm__ volatile("dsb\n isb" ::: "memory");
#endif
    main();
    fault_exit();
}

void Default_Handler(void) { fault_exit(); }

__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))(&_estack), Reset_Handler, Default_Handler, Default_Handler,
    Default_Handler, Default_Handler, Default_Handler, 0, 0, 0, 0,
    Default_Handler, Default_Handler, 0, Default_Handler, Default_Handler,
};
