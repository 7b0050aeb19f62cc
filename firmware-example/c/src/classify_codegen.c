/* Activity recognition with the model compiled in: model.c, which `ltu codegen --lang c
 * --window FIRMWARE_WINDOW` generates at build time, holds the model and the window statistics
 * it reads; model.h, written beside it, declares them. Each recording goes through ltu_classify_window (one measured region per window)
 * and, frame by frame, through the streaming ltu_push, which must give the same class. */
#include "firmware.h"
#include "platform.h"

/* The generated model's contract: entry points, channels, window, classes. */
#include "model.h"

#if LTU_N_CHANNELS != FIRMWARE_CHANNELS || LTU_WINDOW != FIRMWARE_WINDOW || LTU_HOP != FIRMWARE_WINDOW
#error "the generated model reads other channels or windows than the firmware records"
#endif

static int16_t samples[FIRMWARE_CHANNELS][FIRMWARE_WINDOW];
static struct ltu_stream stream;

int main(void)
{
    const uint32_t recordings = firmware_recordings_count();
    platform_write("model compiled in: ");
    platform_write_u32(LTU_N_INPUTS);
    platform_write(" inputs, ");
    platform_write_u32(LTU_N_CLASSES);
    platform_write(" classes; ");
    platform_write_u32(recordings);
    platform_write(" recordings\n");

    ltu_stream_init(&stream);
    for (uint32_t r = 0; r < recordings; r++) {
        firmware_window(r, samples);
        /* Before C23, int16_t (*)[N] does not convert to const int16_t (*)[N] by itself. */
        const int16_t(*window)[FIRMWARE_WINDOW] = (const int16_t(*)[FIRMWARE_WINDOW])samples;
        PLATFORM_REGION_START();
        const int predicted = ltu_classify_window(window);
        PLATFORM_REGION_STOP();

        /* The stream sees the same frames; a window is ready exactly at each recording's last. */
        int streamed = -1;
        for (uint32_t t = 0; t < FIRMWARE_WINDOW; t++) {
            int16_t frame[FIRMWARE_CHANNELS];
            firmware_frame(r, t, frame);
            const int k = ltu_push(&stream, frame);
            if (k >= 0 && t + 1 != FIRMWARE_WINDOW) {
                firmware_reject("ltu_push gave a class before the window was full");
            }
            streamed = k;
        }
        if (streamed != predicted) {
            platform_write("recording ");
            platform_write_u32(r);
            platform_write(": ltu_push gave ");
            platform_write_u32((uint32_t)streamed);
            platform_write(", ltu_classify_window ");
            platform_write_u32((uint32_t)predicted);
            platform_write("\n");
            return FIRMWARE_EXIT_MISMATCH;
        }
        firmware_report(r, (uint32_t)predicted);
    }
    return firmware_finish(recordings);
}
