/* Activity recognition through the runtime's C API (runtime-c/include/ltu.h): the model file
 * is loaded from flash by ltu_model_init and each recording, channel-major, goes through
 * ltu_predict_window (one measured region per window). */
#include <stddef.h>

#include "firmware.h"
#include "ltu.h"
#include "platform.h"

static int16_t samples[FIRMWARE_CHANNELS][FIRMWARE_WINDOW];

static void reject_status(const char *what, ltu_status status)
{
    platform_write(what);
    platform_write(": ");
    platform_write(ltu_status_name(status));
    platform_write(": ");
    firmware_reject(ltu_status_message(status));
}

int main(void)
{
    ltu_model model;
    const ltu_status loaded = ltu_model_init(&model, firmware_model, firmware_model_len);
    if (loaded != LTU_OK) {
        reject_status("model rejected", loaded);
    }
    /* A window of 0 means "the whole recording", which is FIRMWARE_WINDOW samples here. */
    const size_t window = ltu_model_window(&model);
    if (ltu_model_n_channels(&model) != FIRMWARE_CHANNELS || (window != 0 && window != FIRMWARE_WINDOW)) {
        platform_write("the model reads ");
        platform_write_u32((uint32_t)ltu_model_n_channels(&model));
        platform_write(" channels in windows of ");
        platform_write_u32((uint32_t)window);
        platform_write(" samples; the firmware records ");
        platform_write_u32(FIRMWARE_CHANNELS);
        platform_write(" channels in windows of ");
        platform_write_u32(FIRMWARE_WINDOW);
        firmware_reject(" (a model without a sensor pipeline reads 0 channels)");
    }
    const uint32_t recordings = firmware_recordings_count();
    platform_write("model: ");
    platform_write_u32(firmware_model_len);
    platform_write(" bytes, ");
    platform_write_u32((uint32_t)ltu_model_n_inputs(&model));
    platform_write(" inputs, ");
    platform_write_u32((uint32_t)ltu_model_n_classes(&model));
    platform_write(" classes; ");
    platform_write_u32(recordings);
    platform_write(" recordings\n");

    for (uint32_t r = 0; r < recordings; r++) {
        firmware_window(r, samples);
        uint32_t predicted = 0;
        PLATFORM_REGION_START();
        const ltu_status status =
            ltu_predict_window(&model, &samples[0][0], FIRMWARE_CHANNELS, FIRMWARE_WINDOW, &predicted);
        PLATFORM_REGION_STOP();
        if (status != LTU_OK) {
            platform_write("recording ");
            platform_write_u32(r);
            reject_status("", status);
        }
        firmware_report(r, predicted);
    }
    return firmware_finish(recordings);
}
