/* What every architecture's reset code ends in: initialised RAM, then main, then exit. */
#include "platform.h"

extern uint32_t _sidata[], _sdata[], _edata[], _sbss[], _ebss[];
int main(void);

void platform_start(void) __attribute__((noreturn));

/* Plain loops, not the memcpy/memset calls the optimizer would otherwise make of them (there is
 * no C library). */
__attribute__((optimize("no-tree-loop-distribute-patterns"))) void platform_start(void)
{
    const uint32_t *src = _sidata;
    for (uint32_t *dst = _sdata; dst < _edata;) {
        *dst++ = *src++;
    }
    for (uint32_t *dst = _sbss; dst < _ebss;) {
        *dst++ = 0;
    }
    platform_exit(main());
}
