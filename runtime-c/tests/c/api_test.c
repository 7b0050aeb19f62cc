/* Drives every function of ltu.h and compares with what the Rust runtime computed.
 *
 * Usage: api_test CASES_FILE. tests/c_api.rs writes the file (whitespace-separated text):
 *   model PATH N_INPUTS N_CLASSES N_CHANNELS WINDOW HOP NONE_STATUS N_ROWS
 *     then N_CLASSES class names ("-" for an empty one), then N_ROWS rows: N_INPUTS inputs, the
 *     class, N_CLASSES scores
 *     (NONE_STATUS: ltu_predict_lazy's status when no input is available)
 *   window PATH N_CHANNELS N_SAMPLES N_WINDOWS
 *     then N_WINDOWS rows: N_CHANNELS * N_SAMPLES samples (channel-major), the class
 *   corrupt N_VECTORS
 *     then N_VECTORS rows: LEN, LEN bytes in hex, the status ltu_model_init must return
 * Prints one line per failed check and a summary; exits 1 if any check failed. */
#include "check.h"

/* Context of the lazy input function: the row, how many inputs are available, what was read. */
struct lazy {
    const int32_t *inputs;
    size_t available;
    size_t calls;
};

static ltu_status lazy_input(void *context, size_t index, int32_t *value_out) {
    struct lazy *l = context;
    l->calls++;
    if (index >= l->available) {
        return LTU_ERR_PREDICT_INPUT_UNAVAILABLE;
    }
    *value_out = l->inputs[index];
    return LTU_OK;
}

/* An input function that reports a status that is no ltu_status at all. */
static ltu_status odd_input(void *context, size_t index, int32_t *value_out) {
    (void)context;
    (void)index;
    *value_out = 0;
    return (ltu_status)1000;
}

static void check_model(FILE *f) {
    char path[4096];
    size_t n_inputs, n_classes, n_channels, window, hop, n_rows, r, i;
    int none_status;
    size_t len;
    uint8_t *bytes;
    ltu_model model;
    int32_t *x;
    int64_t *scores, *wide;
    expect_scan(fscanf(f, "%4095s %zu %zu %zu %zu %zu %d %zu", path, &n_inputs, &n_classes,
                       &n_channels, &window, &hop, &none_status, &n_rows),
                8, "model");
    bytes = read_file(path, &len);
    CHECK_STATUS(ltu_model_init(&model, bytes, len), LTU_OK, path);
    CHECK(ltu_model_n_inputs(&model) == n_inputs, "%s: n_inputs %zu", path, ltu_model_n_inputs(&model));
    CHECK(ltu_model_n_classes(&model) == n_classes, "%s: n_classes", path);
    CHECK(ltu_model_n_channels(&model) == n_channels, "%s: n_channels", path);
    CHECK(ltu_model_window(&model) == window, "%s: window", path);
    CHECK(ltu_model_hop(&model) == hop, "%s: hop", path);
    for (i = 0; i < n_classes; i++) {
        char want[256], got[256];
        size_t n;
        expect_scan(fscanf(f, "%255s", want), 1, "class name");
        if (strcmp(want, "-") == 0) {
            want[0] = '\0';
        }
        n = strlen(want);
        memset(got, 'x', sizeof got);
        CHECK_STATUS(ltu_model_class_name(&model, i, got, n + 1), LTU_OK, path);
        CHECK(strcmp(got, want) == 0, "%s: class %zu named %s, Rust %s", path, i, got, want);
        CHECK_STATUS(ltu_model_class_name(&model, i, got, n), LTU_ERR_BUFFER_TOO_SMALL, path);
        CHECK(got[n] == '\0', "%s: name buffer written on error", path);
    }
    {
        char name[8];
        CHECK_STATUS(ltu_model_class_name(&model, n_classes, name, sizeof name), LTU_ERR_CLASS_OUT_OF_RANGE, path);
        CHECK_STATUS(ltu_model_class_name(&model, 0, NULL, 8), LTU_ERR_NULL, path);
        CHECK_STATUS(ltu_model_class_name(NULL, 0, name, 8), LTU_ERR_NULL, path);
    }
    x = xmalloc(sizeof *x * (n_inputs + 1));
    scores = xmalloc(sizeof *scores * n_classes);
    wide = xmalloc(sizeof *wide * (n_classes + 2));
    for (r = 0; r < n_rows; r++) {
        unsigned want;
        uint32_t got = UINT32_MAX, got2 = UINT32_MAX, got3 = UINT32_MAX;
        struct lazy l;
        for (i = 0; i < n_inputs; i++) {
            expect_scan(fscanf(f, "%" SCNd32, &x[i]), 1, "input");
        }
        expect_scan(fscanf(f, "%u", &want), 1, "class");
        CHECK_STATUS(ltu_predict(&model, x, n_inputs, &got), LTU_OK, path);
        CHECK(got == want, "%s row %zu: ltu_predict %" PRIu32 ", Rust %u", path, r, got, want);
        /* Scores into a buffer one longer than needed: the extra element stays untouched. */
        wide[n_classes] = 12345;
        CHECK_STATUS(ltu_predict_scores(&model, x, n_inputs, wide, n_classes + 1, &got2), LTU_OK, path);
        CHECK(got2 == want && wide[n_classes] == 12345, "%s row %zu: scores class", path, r);
        for (i = 0; i < n_classes; i++) {
            int64_t s;
            expect_scan(fscanf(f, "%" SCNd64, &s), 1, "score");
            CHECK(wide[i] == s, "%s row %zu: score %zu %" PRId64 " != %" PRId64, path, r, i, wide[i], s);
        }
        l.inputs = x;
        l.available = n_inputs;
        l.calls = 0;
        CHECK_STATUS(ltu_predict_lazy(&model, lazy_input, &l, &got3), LTU_OK, path);
        CHECK(got3 == want, "%s row %zu: lazy %" PRIu32, path, r, got3);
        /* Too few inputs, too many, too few scores: errors, and the class is not written. */
        got = UINT32_MAX;
        if (n_inputs > 0) {
            CHECK_STATUS(ltu_predict(&model, x, n_inputs - 1, &got), LTU_ERR_PREDICT_INPUT_LENGTH, path);
        }
        CHECK_STATUS(ltu_predict(&model, x, n_inputs + 1, &got), LTU_ERR_PREDICT_INPUT_LENGTH, path);
        CHECK_STATUS(ltu_predict_scores(&model, x, n_inputs, scores, n_classes - 1, &got),
                     LTU_ERR_PREDICT_SCORES_BUFFER, path);
        CHECK(got == UINT32_MAX, "%s: class written on error", path);
    }
    {
        struct lazy none;
        uint32_t got = UINT32_MAX;
        none.inputs = x;
        none.available = 0;
        none.calls = 0;
        CHECK_STATUS(ltu_predict_lazy(&model, lazy_input, &none, &got), (ltu_status)none_status, path);
        CHECK_STATUS(ltu_predict_lazy(&model, odd_input, NULL, &got),
                     none_status == LTU_OK ? LTU_OK : LTU_ERR_PREDICT_INPUT_UNAVAILABLE, path);
        /* A model without a pipeline refuses windows. */
        if (n_channels == 0) {
            int16_t s[4] = {0, 0, 0, 0};
            CHECK_STATUS(ltu_predict_window(&model, s, 1, 4, &got), LTU_ERR_PREDICT_WINDOW, path);
        }
    }
    free(x);
    free(scores);
    free(wide);
    free(bytes);
}

static void check_window(FILE *f) {
    char path[4096];
    size_t n_channels, n_samples, n_windows, w, i, total;
    size_t len;
    uint8_t *bytes;
    ltu_model model;
    int16_t *s;
    expect_scan(fscanf(f, "%4095s %zu %zu %zu", path, &n_channels, &n_samples, &n_windows), 4, "window");
    bytes = read_file(path, &len);
    CHECK_STATUS(ltu_model_init(&model, bytes, len), LTU_OK, path);
    CHECK(ltu_model_n_channels(&model) == n_channels, "%s: n_channels %zu", path, ltu_model_n_channels(&model));
    total = n_channels * n_samples;
    s = xmalloc(sizeof *s * total);
    for (w = 0; w < n_windows; w++) {
        unsigned want;
        uint32_t got = UINT32_MAX;
        for (i = 0; i < total; i++) {
            expect_scan(fscanf(f, "%" SCNd16, &s[i]), 1, "sample");
        }
        expect_scan(fscanf(f, "%u", &want), 1, "window class");
        CHECK_STATUS(ltu_predict_window(&model, s, n_channels, n_samples, &got), LTU_OK, path);
        CHECK(got == want, "%s window %zu: %" PRIu32 ", Rust %u", path, w, got, want);
        got = UINT32_MAX;
        CHECK_STATUS(ltu_predict_window(&model, s, n_channels - 1, n_samples, &got), LTU_ERR_PREDICT_WINDOW, path);
        CHECK_STATUS(ltu_predict_window(&model, s, n_channels + 1, n_samples, &got), LTU_ERR_PREDICT_WINDOW, path);
        CHECK_STATUS(ltu_predict_window(&model, s, n_channels, 0, &got), LTU_ERR_PREDICT_WINDOW, path);
        CHECK_STATUS(ltu_predict_window(&model, NULL, n_channels, 0, &got), LTU_ERR_PREDICT_WINDOW, path);
        CHECK_STATUS(ltu_predict_window(&model, NULL, n_channels, n_samples, &got), LTU_ERR_NULL, path);
        CHECK_STATUS(ltu_predict_window(&model, s, n_channels, (size_t)-1, &got), LTU_ERR_PREDICT_WINDOW, path);
        CHECK(got == UINT32_MAX, "%s: class written on error", path);
    }
    free(s);
    free(bytes);
}

static void check_corrupt(FILE *f) {
    size_t n, v, len, i;
    for (v = 0, expect_scan(fscanf(f, "%zu", &n), 1, "corrupt"); v < n; v++) {
        uint8_t *bytes;
        int want;
        ltu_model model;
        ltu_status got;
        expect_scan(fscanf(f, "%zu", &len), 1, "vector length");
        bytes = xmalloc(len);
        for (i = 0; i < len; i++) {
            unsigned b;
            expect_scan(fscanf(f, "%2x", &b), 1, "vector byte");
            bytes[i] = (uint8_t)b;
        }
        expect_scan(fscanf(f, "%d", &want), 1, "vector status");
        memset(&model, 0xA5, sizeof model);
        got = ltu_model_init(&model, bytes, len);
        CHECK_STATUS(got, (ltu_status)want, "corrupted vector");
        if (got != LTU_OK) {
            uint32_t c = UINT32_MAX;
            int32_t x = 0;
            CHECK_STATUS(ltu_predict(&model, &x, 1, &c), LTU_ERR_MODEL_UNINITIALISED, "rejected model");
            CHECK(ltu_model_n_inputs(&model) == 0, "rejected model has inputs");
        }
        free(bytes);
    }
}

/* NULL pointers, a zeroed model, misaligned pointers and the status strings. */
static void check_arguments(const char *model_path) {
    size_t len;
    uint8_t *bytes = read_file(model_path, &len);
    ltu_model model, zeroed;
    int32_t x[64] = {0};
    int64_t scores[64];
    int16_t samples[8] = {0};
    uint32_t c = UINT32_MAX;
    size_t n;
    ltu_status s;
    memset(&zeroed, 0, sizeof zeroed);

    CHECK_STATUS(ltu_model_init(NULL, bytes, len), LTU_ERR_NULL, "init NULL model");
    CHECK_STATUS(ltu_model_init(&model, NULL, len), LTU_ERR_NULL, "init NULL bytes");
    CHECK_STATUS(ltu_model_init(&model, NULL, 0), LTU_ERR_NULL, "init NULL bytes, 0 length");
    CHECK_STATUS(ltu_model_init(&model, bytes, 0), LTU_ERR_HEADER_TOO_SHORT, "init empty");
    CHECK_STATUS(ltu_model_init(&model, bytes, len - 1), LTU_ERR_CHECKSUM_MISMATCH, "init truncated");
    CHECK_STATUS(ltu_predict(&model, x, 0, &c), LTU_ERR_MODEL_UNINITIALISED, "failed init leaves the model unusable");
    CHECK_STATUS(ltu_model_init((ltu_model *)((char *)&model + 1), bytes, len), LTU_ERR_MISALIGNED, "misaligned model");

    CHECK_STATUS(ltu_model_init(&model, bytes, len), LTU_OK, "init");
    n = ltu_model_n_inputs(&model);
    if (n > 64) {
        fprintf(stderr, "%s: more than 64 inputs\n", model_path);
        exit(2);
    }
    CHECK(ltu_model_n_inputs(NULL) == 0 && ltu_model_n_classes(NULL) == 0, "counts of NULL");
    CHECK(ltu_model_n_channels(NULL) == 0 && ltu_model_window(NULL) == 0 && ltu_model_hop(NULL) == 0, "NULL");
    CHECK(ltu_model_n_inputs(&zeroed) == 0 && ltu_model_n_classes(&zeroed) == 0, "counts of a zeroed model");

    CHECK_STATUS(ltu_predict(NULL, x, n, &c), LTU_ERR_NULL, "predict NULL model");
    CHECK_STATUS(ltu_predict(&zeroed, x, n, &c), LTU_ERR_MODEL_UNINITIALISED, "predict zeroed model");
    CHECK_STATUS(ltu_predict(&model, NULL, n, &c), n ? LTU_ERR_NULL : LTU_OK, "predict NULL inputs");
    CHECK_STATUS(ltu_predict(&model, x, n, NULL), LTU_ERR_NULL, "predict NULL class");
    CHECK_STATUS(ltu_predict(&model, (const int32_t *)((const char *)x + 2), n, &c),
                 n ? LTU_ERR_MISALIGNED : LTU_OK, "predict misaligned inputs");
    CHECK_STATUS(ltu_predict(&model, x, n, (uint32_t *)((char *)&scores[0] + 1)), LTU_ERR_MISALIGNED,
                 "predict misaligned class");

    CHECK_STATUS(ltu_predict_scores(NULL, x, n, scores, 64, &c), LTU_ERR_NULL, "scores NULL model");
    CHECK_STATUS(ltu_predict_scores(&zeroed, x, n, scores, 64, &c), LTU_ERR_MODEL_UNINITIALISED, "scores zeroed");
    CHECK_STATUS(ltu_predict_scores(&model, x, n, NULL, 64, &c), LTU_ERR_NULL, "scores NULL scores");
    CHECK_STATUS(ltu_predict_scores(&model, x, n, NULL, 0, &c), LTU_ERR_PREDICT_SCORES_BUFFER, "scores none");
    CHECK_STATUS(ltu_predict_scores(&model, x, n, (int64_t *)((char *)scores + 4), 8, &c), LTU_ERR_MISALIGNED,
                 "scores misaligned");
    CHECK_STATUS(ltu_predict_scores(&model, x, n, scores, 64, NULL), LTU_ERR_NULL, "scores NULL class");

    CHECK_STATUS(ltu_predict_lazy(NULL, lazy_input, NULL, &c), LTU_ERR_NULL, "lazy NULL model");
    CHECK_STATUS(ltu_predict_lazy(&zeroed, lazy_input, NULL, &c), LTU_ERR_MODEL_UNINITIALISED, "lazy zeroed");
    CHECK_STATUS(ltu_predict_lazy(&model, NULL, NULL, &c), LTU_ERR_NULL, "lazy NULL function");
    CHECK_STATUS(ltu_predict_lazy(&model, lazy_input, NULL, NULL), LTU_ERR_NULL, "lazy NULL class");

    CHECK_STATUS(ltu_predict_window(NULL, samples, 1, 8, &c), LTU_ERR_NULL, "window NULL model");
    CHECK_STATUS(ltu_predict_window(&zeroed, samples, 1, 8, &c), LTU_ERR_MODEL_UNINITIALISED, "window zeroed");
    CHECK_STATUS(ltu_predict_window(&model, samples, 1, 8, NULL), LTU_ERR_NULL, "window NULL class");
    {
        char name[8];
        CHECK_STATUS(ltu_model_class_name(&zeroed, 0, name, sizeof name), LTU_ERR_MODEL_UNINITIALISED, "name zeroed");
    }
    CHECK(c == UINT32_MAX, "class written on error");

    for (s = LTU_OK; s <= LTU_ERR_UNKNOWN; s = (ltu_status)(s + 1)) {
        const char *name = ltu_status_name(s), *message = ltu_status_message(s);
        CHECK(name && strncmp(name, "LTU_", 4) == 0 && message && message[0] != '\0', "status %d", (int)s);
    }
    CHECK(strcmp(ltu_status_name(LTU_ERR_CHECKSUM_MISMATCH), "LTU_ERR_CHECKSUM_MISMATCH") == 0, "name");
    CHECK(strcmp(ltu_status_name(LTU_OK), "LTU_OK") == 0, "name");
    CHECK(strcmp(ltu_status_message(LTU_ERR_CHECKSUM_MISMATCH),
                 "model checksum mismatch (corrupted or truncated)") == 0, "message");
    CHECK(strcmp(ltu_status_name((ltu_status)999), "LTU_ERR_UNKNOWN") == 0, "unknown name");
    CHECK(strcmp(ltu_status_name((ltu_status)-1), "LTU_ERR_UNKNOWN") == 0, "unknown name");
    CHECK(strcmp(ltu_status_message((ltu_status)40), "unknown error") == 0, "unknown message");
    free(bytes);
}

int main(int argc, char **argv) {
    FILE *f;
    char section[32];
    const char *first_model = NULL;
    static char first_path[4096];
    if (argc != 2) {
        fprintf(stderr, "usage: %s CASES_FILE\n", argv[0]);
        return 2;
    }
    f = fopen(argv[1], "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", argv[1]);
        return 2;
    }
    while (fscanf(f, "%31s", section) == 1) {
        if (strcmp(section, "model") == 0) {
            long at = ftell(f);
            if (!first_model && fscanf(f, "%4095s", first_path) == 1) {
                first_model = first_path;
            }
            fseek(f, at, SEEK_SET);
            check_model(f);
        } else if (strcmp(section, "window") == 0) {
            check_window(f);
        } else if (strcmp(section, "corrupt") == 0) {
            check_corrupt(f);
        } else {
            fprintf(stderr, "unknown section %s\n", section);
            return 2;
        }
    }
    fclose(f);
    if (first_model) {
        check_arguments(first_model);
    }
    printf("%lu checks, %lu failed\n", checks, failures);
    return failures ? 1 : 0;
}
