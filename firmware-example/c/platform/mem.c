/* memcpy and memset: a freestanding C compiler may emit calls to them (struct copies, array
 * initialisers) even where the source calls neither, and there is no C library. */
#include <stddef.h>

#include "platform.h"

void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memset(void *dst, int c, size_t n);

PLATFORM_PLAIN_LOOPS void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    while (n--) {
        *d++ = *s++;
    }
    return dst;
}

PLATFORM_PLAIN_LOOPS void *memset(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    while (n--) {
        *d++ = (unsigned char)c;
    }
    return dst;
}
