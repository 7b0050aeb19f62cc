/* Output and exit over semihosting, shared by every architecture (the trap itself is
 * platform_semihost: cortex-m.c or riscv.S). */
#include "platform.h"

#define SYS_OPEN 0x01
#define SYS_WRITE 0x05
#define SYS_EXIT_EXTENDED 0x20
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u

/* Argument blocks are arrays of target words: 32 bits on both architectures here. */
typedef uintptr_t word;

/* ":tt" opened for writing is standard output (SYS_WRITE0 would go to QEMU's console). */
static int32_t out_handle = -1;

PLATFORM_PLAIN_LOOPS void platform_write(const char *s)
{
    word len = 0;
    while (s[len]) {
        len++;
    }
    if (out_handle < 0) {
        const word open_args[3] = {(word) ":tt", 4 /* mode "w" */, 3 /* strlen(":tt") */};
        out_handle = platform_semihost(SYS_OPEN, open_args);
    }
    const word write_args[3] = {(word)out_handle, (word)s, len};
    platform_semihost(SYS_WRITE, write_args);
}

void platform_write_u32(uint32_t v)
{
    char buf[11];
    char *p = buf + sizeof buf;
    *--p = 0;
    do {
        *--p = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    platform_write(p);
}

void platform_write_hex(uint32_t v)
{
    char buf[11];
    buf[0] = '0';
    buf[1] = 'x';
    for (int i = 0; i < 8; i++) {
        buf[2 + i] = "0123456789abcdef"[(v >> (28 - 4 * i)) & 0xFu];
    }
    buf[10] = 0;
    platform_write(buf);
}

/* SYS_EXIT_EXTENDED, not SYS_EXIT: on 32-bit targets only the extended call carries an exit
 * code, and QEMU passes it on as its own status. */
void platform_exit(int code)
{
    const word args[2] = {ADP_STOPPED_APPLICATION_EXIT, (word)code};
    platform_semihost(SYS_EXIT_EXTENDED, args);
    for (;;) {
    }
}

void platform_fault(uint32_t cause, uint32_t pc)
{
    platform_write("fault: cause ");
    platform_write_u32(cause);
    platform_write(" at pc=");
    platform_write_hex(pc);
    platform_write("\n");
    platform_exit(PLATFORM_EXIT_FAULT);
}
