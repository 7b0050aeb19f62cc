/* What the two C firmware binaries (classify_codegen.c, classify_api.c) share: the embedded
 * inputs, the exit codes, and the replay of the recordings with each prediction compared with
 * the host's. As the Rust firmware (firmware-example/src/main.rs), each binary classifies the
 * recorded 6-axis IMU data window by window and exits 0 only if every prediction equals the
 * host's. */
#ifndef LTU_FIRMWARE_H
#define LTU_FIRMWARE_H

#include <stdint.h>

/* Exit codes: the Rust firmware's (firmware-example/src/qemu.rs); a fault is
 * PLATFORM_EXIT_FAULT (platform.h), its EXIT_HARDFAULT. */
#define FIRMWARE_EXIT_OK 0        /* every prediction equals the host's */
#define FIRMWARE_EXIT_MISMATCH 1  /* at least one differs */
#define FIRMWARE_EXIT_BAD_INPUT 2 /* the embedded model or recordings were rejected */

/* Sensor channels (accelerometer x, y, z, gyroscope x, y, z) and samples per recording: one
 * window each. FIRMWARE_WINDOW comes from the build, which also passes it to ltu codegen. */
#define FIRMWARE_CHANNELS 6
#ifndef FIRMWARE_WINDOW
#error "the build defines FIRMWARE_WINDOW, the samples per window"
#endif

/* From data.S: the model file; the recordings, frame after frame, FIRMWARE_CHANNELS
 * little-endian int16 samples per frame and FIRMWARE_WINDOW frames per recording; and the class
 * the host predicted for each recording, one byte each. */
extern const uint8_t firmware_model[], firmware_recordings[], firmware_expected[];
extern const uint32_t firmware_model_len, firmware_recordings_len, firmware_expected_len;

/* The number of recordings; exits FIRMWARE_EXIT_BAD_INPUT unless the recordings are exactly
 * that many windows. */
uint32_t firmware_recordings_count(void);

/* Recording `r` as samples[c][t], channel c's sample t, oldest first. */
void firmware_window(uint32_t r, int16_t samples[FIRMWARE_CHANNELS][FIRMWARE_WINDOW]);

/* Frame `t` of recording `r`: one sample of each channel, as a sensor driver delivers it. */
void firmware_frame(uint32_t r, uint32_t t, int16_t frame[FIRMWARE_CHANNELS]);

/* Prints "recording <r>: class <k> (host: <e>)", or "recording <r>: class <k>, host: <e>" when
 * they differ, and counts the matches. */
void firmware_report(uint32_t r, uint32_t predicted);

/* Prints "<n> of <m> predictions match the host"; returns the exit code. */
int firmware_finish(uint32_t recordings);

/* Prints `what` and exits with FIRMWARE_EXIT_BAD_INPUT. */
void firmware_reject(const char *what) __attribute__((noreturn));

#endif /* LTU_FIRMWARE_H */
