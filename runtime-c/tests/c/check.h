/* What the C tests share: check counting and reporting, allocation that exits on failure,
 * reading a whole file, and a scan check for the cases files. Included by api_test.c and
 * learn_test.c (one translation unit each). */
#ifndef LTU_TEST_CHECK_H
#define LTU_TEST_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ltu.h"

static unsigned long checks, failures;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        checks++;                                                               \
        if (!(cond)) {                                                          \
            failures++;                                                         \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
        }                                                                       \
    } while (0)

#define CHECK_STATUS(got, want, what)                                           \
    CHECK((got) == (want), "%s: got %s, want %s", what, ltu_status_name(got),   \
          ltu_status_name(want))

static inline void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

/* The whole file at PATH; its length in *len. */
static inline uint8_t *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    long n;
    uint8_t *buf;
    if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    buf = xmalloc((size_t)n);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static inline void expect_scan(int got, int want, const char *what) {
    if (got != want) {
        fprintf(stderr, "malformed cases file at %s\n", what);
        exit(2);
    }
}

#endif
