/* What every architecture's reset code ends in: initialised RAM, then main, then exit. */
#include "platform.h"

extern uint32_t _sidata[], _sdata[], _edata[], _sbss[], _ebss[];
int main(void);

void platform_start(void) __attribute__((noreturn));

PLATFORM_PLAIN_LOOPS void platform_start(void)
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
