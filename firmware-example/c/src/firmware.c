/* The replay both C firmware binaries share (firmware.h). */
#include "firmware.h"

#include "platform.h"

#define FRAME_BYTES (2u * FIRMWARE_CHANNELS)
#define RECORDING_BYTES (FRAME_BYTES * FIRMWARE_WINDOW)

static uint32_t matches;

void firmware_reject(const char *what)
{
    platform_write(what);
    platform_write("\n");
    platform_exit(FIRMWARE_EXIT_BAD_INPUT);
}

uint32_t firmware_recordings_count(void)
{
    if (firmware_recordings_len != firmware_expected_len * RECORDING_BYTES) {
        platform_write("recordings: ");
        platform_write_u32(firmware_recordings_len);
        platform_write(" bytes, want ");
        platform_write_u32(RECORDING_BYTES);
        platform_write(" per host prediction (");
        platform_write_u32(firmware_expected_len);
        firmware_reject(")");
    }
    return firmware_expected_len;
}

void firmware_frame(uint32_t r, uint32_t t, int16_t frame[FIRMWARE_CHANNELS])
{
    const uint8_t *bytes = firmware_recordings + r * RECORDING_BYTES + t * FRAME_BYTES;
    for (uint32_t c = 0; c < FIRMWARE_CHANNELS; c++) {
        frame[c] = (int16_t)(uint16_t)(bytes[2 * c] | (uint16_t)bytes[2 * c + 1] << 8);
    }
}

void firmware_window(uint32_t r, int16_t samples[FIRMWARE_CHANNELS][FIRMWARE_WINDOW])
{
    int16_t frame[FIRMWARE_CHANNELS];
    for (uint32_t t = 0; t < FIRMWARE_WINDOW; t++) {
        firmware_frame(r, t, frame);
        for (uint32_t c = 0; c < FIRMWARE_CHANNELS; c++) {
            samples[c][t] = frame[c];
        }
    }
}

void firmware_report(uint32_t r, uint32_t predicted)
{
    const uint32_t expected = firmware_expected[r];
    platform_write("recording ");
    platform_write_u32(r);
    platform_write(": class ");
    platform_write_u32(predicted);
    if (predicted == expected) {
        matches++;
        platform_write(" (host: ");
        platform_write_u32(expected);
        platform_write(")\n");
    } else {
        platform_write(", host: ");
        platform_write_u32(expected);
        platform_write("\n");
    }
}

int firmware_finish(uint32_t recordings)
{
    platform_write_u32(matches);
    platform_write(" of ");
    platform_write_u32(recordings);
    platform_write(" predictions match the host\n");
    return matches == recordings ? FIRMWARE_EXIT_OK : FIRMWARE_EXIT_MISMATCH;
}
