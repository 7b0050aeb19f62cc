/*
 * Bench firmware for C classifiers (emlearn's, or anything with the same entry point), the C side
 * of `cargo xtask bench-device`. Built with arm-none-eabi-gcc for a QEMU Cortex-M machine, or with
 * riscv64-unknown-elf-gcc (rv32imac) for QEMU virt.
 *
 * For each embedded row it paints the stack below the caller, marks a measured region around one
 * call of `model_predict` (the markers the insncount plugin looks for), then finds how deep the call
 * wrote into the painted stack, and prints "p <class> <stack bytes>" over semihosting. At the end it
 * prints "done" and returns 0, which the startup code passes to QEMU as its exit code. Startup,
 * semihosting and the linker script are the C firmware example's (firmware-example/c/platform/).
 *
 * `rows.h` (generated) defines `row_t` (the input type: int16_t for emlearn, int32_t for ltu's
 * generated C), N_ROWS, N_FEATURES and `static const row_t ROWS[N_ROWS][N_FEATURES]`.
 * `model_predict` (emlearn's entry point) lives in its own translation unit (the model's, or null.c for the twin used to
 * measure flash), so the call is a real call and nothing is folded across the markers.
 *
 * Built with -DBENCH_WINDOWS, the rows are windows of raw samples and the call goes from samples to
 * a class: `windows.h` (generated) defines N_WINDOWS, N_CHANNELS, WINDOW and
 * `static const int16_t WINDOWS[N_WINDOWS][N_CHANNELS][WINDOW]`, and each region is one call of
 * `window_classify` (the sensor pipeline section of `cargo xtask bench-device`).
 *
 * Built with -DBENCH_STREAM, the first STREAM_FRAMES frames of those windows (back to back, also
 * from `windows.h`) go one at a time to `stream_push`, which returns a class when a window is
 * ready and -1 otherwise; each push is one region. `stream_init` runs first, outside every region.
 * The stack is painted once before the first frame; after the last, one "p <class> <stack bytes>"
 * line per ready window, with the deepest stack of all pushes.
 */
#include <stdint.h>

#include "platform.h"
#if defined(BENCH_STREAM)
#include "windows.h"

void stream_init(void);
int32_t stream_push(const int16_t frame[N_CHANNELS]);
#elif defined(BENCH_WINDOWS)
#include "windows.h"

int32_t window_classify(const int16_t samples[N_CHANNELS][WINDOW]);
#define N_CALLS N_WINDOWS
#define CALL(i) window_classify(WINDOWS[i])
#else
#include "rows.h"

int32_t model_predict(const row_t *features, int32_t features_length);
#define N_CALLS N_ROWS
#define CALL(i) model_predict(ROWS[i], N_FEATURES)
#endif

#define PAINT_BYTES 8192u
#define PATTERN 0xC5A3E1D7u

static inline uint32_t sp_now(void)
{
    uint32_t sp;
#if defined(__riscv)
    __asm__ volatile("mv %0, sp" : "=r"(sp));
#else
    __asm__ volatile("mov %0, sp" : "=r"(sp));
#endif
    return sp;
}

/* Paints PAINT_BYTES below this function's own frame; returns the lowest painted address. */
__attribute__((noinline)) static uint32_t paint(void)
{
    uint32_t top = sp_now() & ~3u;
    volatile uint32_t *p = (volatile uint32_t *)(top - PAINT_BYTES);
    while ((uint32_t)p < top - 16u) {
        *p++ = PATTERN;
    }
    return top - PAINT_BYTES;
}

/* Bytes between `caller_sp` and the deepest painted word that was overwritten. */
__attribute__((noinline)) static uint32_t stack_used(uint32_t floor, uint32_t caller_sp)
{
    volatile const uint32_t *p = (volatile const uint32_t *)floor;
    while ((uint32_t)p < caller_sp && *p == PATTERN) {
        p++;
    }
    return caller_sp - (uint32_t)p;
}

static void put_line(uint32_t class, uint32_t used)
{
    platform_write("p ");
    platform_write_u32(class);
    platform_write(" ");
    platform_write_u32(used);
    platform_write("\n");
}

#if defined(BENCH_STREAM)
int main(void)
{
    static int32_t classes[N_READY];
    uint32_t ready = 0;
    int16_t frame[N_CHANNELS];
    stream_init();
    uint32_t floor = paint();
    uint32_t caller_sp = sp_now();
    for (uint32_t f = 0; f < STREAM_FRAMES; f++) {
        for (uint32_t c = 0; c < N_CHANNELS; c++) {
            frame[c] = WINDOWS[f / WINDOW][c][f % WINDOW];
        }
        PLATFORM_REGION_START();
        int32_t k = stream_push(frame);
        PLATFORM_REGION_STOP();
        if (k >= 0) {
            if (ready < N_READY) {
                classes[ready] = k;
            }
            ready++;
        }
    }
    uint32_t used = stack_used(floor, caller_sp);
    for (uint32_t i = 0; i < ready && i < N_READY; i++) {
        put_line((uint32_t)classes[i], used);
    }
    platform_write("done\n");
    return 0;
}
#else
int main(void)
{
    for (uint32_t i = 0; i < N_CALLS; i++) {
        uint32_t floor = paint();
        uint32_t caller_sp = sp_now();
        PLATFORM_REGION_START();
        int32_t c = CALL(i);
        PLATFORM_REGION_STOP();
        uint32_t used = stack_used(floor, caller_sp);
        put_line((uint32_t)c, used);
    }
    platform_write("done\n");
    return 0;
}
#endif
