/* Learns through ltu.h's learner and store and compares with what the Rust learner computed.
 *
 * Usage: learn_test CASES_FILE. tests/c_learn.rs writes the file (whitespace-separated text):
 *   learn PATH N_INPUTS N_CLASSES RAM_NEEDED N_STEPS N_ROWS
 *     then N_STEPS rows: N_INPUTS inputs, the label, the outcome (ltu_outcome), the unit
 *     then the stats (updates corrected clipped saturated constant unlearnable)
 *     then the learned file: its length and its bytes in hex
 *     then N_ROWS rows: N_INPUTS inputs and the learned model's class
 *   window PATH N_CHANNELS N_SAMPLES RAM_NEEDED N_STEPS
 *     then N_STEPS rows: N_CHANNELS * N_SAMPLES samples (channel-major), label, outcome, unit
 *     then the stats and the learned file as above
 *     then N_STEPS classes: the learned model's class of each window
 *   end
 * Prints one line per failed check and a summary; exits 1 if any check failed. */
#include "check.h"

/* A sink that collects the file it is given; or, with fail_at, returns 5 at that call. */
struct sink {
    uint8_t *buf;
    size_t len, cap;
    unsigned calls, fail_at;
};

static int collect(void *user, const uint8_t *data, size_t len) {
    struct sink *s = user;
    s->calls++;
    if (s->fail_at != 0 && s->calls == s->fail_at) {
        return 5;
    }
    if (len == 0 || s->len + len > s->cap) {
        return 1;
    }
    memcpy(s->buf + s->len, data, len);
    s->len += len;
    return 0;
}

/* A NOR flash in RAM: erase sets pages to 0xFF, a write can only clear bits. Every access out of
 * bounds or misaligned for the geometry, and every byte written twice without an erase, counts
 * as a violation (a correct user of NOR flash has none). fail_writes makes every write fail. */
struct nor {
    uint8_t *mem;
    ltu_flash flash;
    unsigned long violations, pages_erased;
    int fail_writes;
};

static int nor_ok(struct nor *n, uint32_t addr, size_t len, uint32_t unit) {
    if (addr % unit != 0 || len % unit != 0 || len == 0 || addr > n->flash.capacity ||
        len > n->flash.capacity - addr) {
        n->violations++;
        return 0;
    }
    return 1;
}

static int nor_read(void *user, uint32_t addr, uint8_t *buf, size_t len) {
    struct nor *n = user;
    if (!nor_ok(n, addr, len, n->flash.read_size)) {
        return 1;
    }
    memcpy(buf, n->mem + addr, len);
    return 0;
}

static int nor_write(void *user, uint32_t addr, const uint8_t *data, size_t len) {
    struct nor *n = user;
    size_t i;
    if (n->fail_writes) {
        return -1;
    }
    if (!nor_ok(n, addr, len, n->flash.write_size)) {
        return 1;
    }
    for (i = 0; i < len; i++) {
        if (n->mem[addr + i] != 0xFF) {
            n->violations++;
        }
        n->mem[addr + i] &= data[i];
    }
    return 0;
}

static int nor_erase(void *user, uint32_t from, uint32_t to) {
    struct nor *n = user;
    if (to <= from || !nor_ok(n, from, to - from, n->flash.erase_size)) {
        n->violations++;
        return 1;
    }
    memset(n->mem + from, 0xFF, to - from);
    n->pages_erased += (to - from) / n->flash.erase_size;
    return 0;
}

static void nor_init(struct nor *n, uint32_t capacity, uint32_t erase, uint32_t write, uint32_t read) {
    memset(n, 0, sizeof *n);
    n->mem = xmalloc(capacity);
    memset(n->mem, 0xFF, capacity);
    n->flash.user = n;
    n->flash.read = nor_read;
    n->flash.write = nor_write;
    n->flash.erase = nor_erase;
    n->flash.capacity = capacity;
    n->flash.erase_size = erase;
    n->flash.write_size = write;
    n->flash.read_size = read;
}

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The learned file of `learner` equals `want` (`len` bytes), through every way to read it. */
static void check_file(const ltu_learner *learner, const uint8_t *want, size_t len, const char *what) {
    struct sink s;
    uint32_t crc = 0;
    ltu_model model;
    s.buf = xmalloc(len + 64);
    s.len = 0;
    s.cap = len + 64;
    s.calls = 0;
    s.fail_at = 0;
    CHECK(ltu_learner_file_len(learner) == len, "%s: file_len %zu, want %zu", what,
          ltu_learner_file_len(learner), len);
    CHECK_STATUS(ltu_learner_write_file(learner, collect, &s), LTU_OK, what);
    CHECK(s.len == len && memcmp(s.buf, want, len) == 0, "%s: learned file differs (%zu bytes)", what, s.len);
    CHECK_STATUS(ltu_learner_crc(learner, &crc), LTU_OK, what);
    CHECK(crc == le32(want + len - 4), "%s: crc %08" PRIx32, what, crc);
    CHECK_STATUS(ltu_model_init(&model, s.buf, s.len), LTU_OK, what);
    free(s.buf);
}

/* Saves and restores the learned model through a store on one flash geometry. */
static void check_store(const uint8_t *base, size_t base_len, size_t ram_needed, const ltu_learner *learned,
                        const uint8_t *file, size_t len, uint32_t erase, uint32_t write, uint32_t read) {
    const uint32_t capacity = 16384, offset = 4096, slot = 4096;
    struct nor n;
    ltu_store store;
    ltu_learner fresh, again;
    uint8_t *ram = xmalloc(ram_needed), *ram2 = xmalloc(ram_needed);
    uint32_t found = 7, seq = 0, i;
    unsigned long pages;
    char what[96];
    snprintf(what, sizeof what, "store erase %" PRIu32 " write %" PRIu32 " read %" PRIu32, erase, write, read);
    nor_init(&n, capacity, erase, write, read);
    CHECK_STATUS(ltu_store_init(&store, &n.flash, offset, slot), LTU_OK, what);
    CHECK_STATUS(ltu_learner_init(&fresh, base, base_len, ram, ram_needed), LTU_OK, what);
    /* Nothing saved yet: the learner keeps its base model. */
    CHECK_STATUS(ltu_store_restore(&store, &fresh, &found), LTU_OK, what);
    CHECK(found == 0, "%s: found %" PRIu32 " before any save", what, found);

    CHECK_STATUS(ltu_store_save(&store, learned, &seq), LTU_OK, what);
    CHECK(seq == 1, "%s: first seq %" PRIu32, what, seq);
    /* Slot 0: magic, seq, length, header CRC, padding to 32 bytes, the file, padding. */
    CHECK(memcmp(n.mem + offset, "LTUS", 4) == 0, "%s: magic", what);
    CHECK(le32(n.mem + offset + 4) == 1 && le32(n.mem + offset + 8) == len, "%s: header", what);
    for (i = 16; i < 32; i++) {
        CHECK(n.mem[offset + i] == 0xFF, "%s: header padding byte %" PRIu32, what, i);
    }
    CHECK(memcmp(n.mem + offset + 32, file, len) == 0, "%s: the slot holds another file", what);
    pages = (32 + len + erase - 1) / erase;
    CHECK(n.pages_erased == pages, "%s: %lu pages erased, want %lu", what, n.pages_erased, pages);

    CHECK_STATUS(ltu_store_restore(&store, &fresh, &found), LTU_OK, what);
    CHECK(found == 1, "%s: found %" PRIu32 " after a save", what, found);
    check_file(&fresh, file, len, what);

    /* The second save goes to slot 1; a failing flash leaves it the latest. */
    CHECK_STATUS(ltu_store_save(&store, learned, NULL), LTU_OK, what);
    CHECK(memcmp(n.mem + offset + slot, "LTUS", 4) == 0 && le32(n.mem + offset + slot + 4) == 2,
          "%s: second save not in slot 1 with seq 2", what);
    n.fail_writes = 1;
    CHECK_STATUS(ltu_store_save(&store, learned, &seq), LTU_ERR_CALLBACK, what);
    CHECK(seq == 1, "%s: seq written on an error", what);
    n.fail_writes = 0;
    CHECK_STATUS(ltu_learner_init(&again, base, base_len, ram2, ram_needed), LTU_OK, what);
    CHECK_STATUS(ltu_store_restore(&store, &again, &found), LTU_OK, what);
    CHECK(found == 1, "%s: nothing restored after a failed save", what);
    check_file(&again, file, len, what);
    CHECK_STATUS(ltu_store_save(&store, learned, &seq), LTU_OK, what);
    CHECK(seq == 3, "%s: seq after a failed save %" PRIu32, what, seq);
    CHECK(n.violations == 0, "%s: %lu NOR flash violations", what, n.violations);
    free(n.mem);
    free(ram);
    free(ram2);
}

/* Every status of the store that does not depend on the model. */
static void check_store_errors(const ltu_learner *learned, ltu_learner *other) {
    struct nor n;
    ltu_flash f;
    ltu_store store, zero;
    uint32_t found = 0;
    nor_init(&n, 16384, 1024, 4, 1);
    f = n.flash;
    memset(&zero, 0, sizeof zero);
    CHECK_STATUS(ltu_store_init(NULL, &f, 0, 1024), LTU_ERR_NULL, "store NULL");
    CHECK_STATUS(ltu_store_init(&store, NULL, 0, 1024), LTU_ERR_NULL, "flash NULL");
    f.erase = NULL;
    CHECK_STATUS(ltu_store_init(&store, &f, 0, 1024), LTU_ERR_NULL, "erase NULL");
    CHECK_STATUS(ltu_store_save(&store, learned, NULL), LTU_ERR_STORE_UNINITIALISED, "after a failed init");
    f = n.flash;
    f.write_size = 3;
    CHECK_STATUS(ltu_store_init(&store, &f, 0, 1024), LTU_ERR_STORE_WORD_SIZE, "write size 3");
    f = n.flash;
    f.read_size = 64;
    CHECK_STATUS(ltu_store_init(&store, &f, 0, 1024), LTU_ERR_STORE_WORD_SIZE, "read size 64");
    f = n.flash;
    f.erase_size = 1000;
    CHECK_STATUS(ltu_store_init(&store, &f, 0, 1000), LTU_ERR_STORE_WORD_SIZE, "erase size 1000");
    f = n.flash;
    CHECK_STATUS(ltu_store_init(&store, &f, 512, 1024), LTU_ERR_STORE_UNALIGNED, "offset 512");
    CHECK_STATUS(ltu_store_init(&store, &f, 0, 1536), LTU_ERR_STORE_UNALIGNED, "slot 1536");
    CHECK_STATUS(ltu_store_init(&store, &f, 8192, 8192), LTU_ERR_STORE_OUT_OF_BOUNDS, "past the end");
    CHECK_STATUS(ltu_store_init(&store, &f, 0, 0), LTU_ERR_STORE_SLOT_TOO_SMALL, "slot 0");
    f.erase_size = 32;
    CHECK_STATUS(ltu_store_init(&store, &f, 0, 64), LTU_OK, "64-byte slots");
    CHECK_STATUS(ltu_store_save(&store, learned, NULL), LTU_ERR_STORE_TOO_LARGE, "file longer than a slot");
    CHECK_STATUS(ltu_store_save(&zero, learned, NULL), LTU_ERR_STORE_UNINITIALISED, "zeroed store");
    CHECK_STATUS(ltu_store_restore(&zero, other, &found), LTU_ERR_STORE_UNINITIALISED, "zeroed store");
    CHECK_STATUS(ltu_store_save(NULL, learned, NULL), LTU_ERR_NULL, "save NULL store");
    /* A model saved from one base does not restore into a learner of another. */
    CHECK_STATUS(ltu_store_init(&store, &n.flash, 0, 4096), LTU_OK, "store");
    CHECK_STATUS(ltu_store_save(&store, learned, NULL), LTU_OK, "save");
    CHECK_STATUS(ltu_store_save(&store, NULL, NULL), LTU_ERR_NULL, "save NULL learner");
    CHECK_STATUS(ltu_store_restore(&store, other, NULL), LTU_ERR_NULL, "restore found NULL");
    CHECK_STATUS(ltu_store_restore(&store, other, &found), LTU_ERR_STORE_OTHER_BASE, "other base");
    CHECK(n.violations == 0, "store errors: %lu NOR flash violations", n.violations);
    free(n.mem);
}

/* Every status of the learner, on a model with inputs and classes. */
static void check_learner_errors(const uint8_t *bytes, size_t len, size_t ram_needed, size_t n_inputs,
                                 size_t n_classes, const int32_t *x) {
    ltu_learner learner, zero;
    union {
        ltu_learner learner;
        unsigned char bytes[sizeof(ltu_learner) + 1];
    } misaligned;
    uint8_t *ram = xmalloc(ram_needed + 1), *corrupt = xmalloc(len);
    size_t needed = 0;
    uint32_t outcome = 99, unit = 99, class = 99, crc_before = 0, crc_after = 1;
    ltu_learn_stats stats;
    struct sink s;
    int16_t sample = 0;
    memset(&zero, 0, sizeof zero);
    CHECK_STATUS(ltu_learner_ram_needed(NULL, len, &needed), LTU_ERR_NULL, "ram_needed NULL bytes");
    CHECK_STATUS(ltu_learner_ram_needed(bytes, len, NULL), LTU_ERR_NULL, "ram_needed NULL out");
    CHECK_STATUS(ltu_learner_ram_needed(bytes, len, &needed), LTU_OK, "ram_needed");
    CHECK(needed == ram_needed, "ram_needed %zu, want %zu", needed, ram_needed);
    memcpy(corrupt, bytes, len);
    corrupt[len / 2] ^= 0x40;
    CHECK_STATUS(ltu_learner_ram_needed(corrupt, len, &needed), LTU_ERR_CHECKSUM_MISMATCH, "corrupt");
    CHECK_STATUS(ltu_learner_init(&learner, corrupt, len, ram, ram_needed), LTU_ERR_CHECKSUM_MISMATCH,
                 "init corrupt");
    CHECK_STATUS(ltu_learner_init(NULL, bytes, len, ram, ram_needed), LTU_ERR_NULL, "init NULL");
    CHECK_STATUS(ltu_learner_init(&learner, NULL, len, ram, ram_needed), LTU_ERR_NULL, "init NULL bytes");
    CHECK_STATUS(ltu_learner_init(&learner, bytes, len, NULL, ram_needed), LTU_ERR_NULL, "init NULL ram");
    CHECK_STATUS(ltu_learner_init((ltu_learner *)(void *)(misaligned.bytes + 1), bytes, len, ram, ram_needed),
                 LTU_ERR_MISALIGNED, "init misaligned");
    CHECK_STATUS(ltu_learner_init(&learner, bytes, len, ram, ram_needed - 1), LTU_ERR_LEARN_RAM_TOO_SMALL,
                 "short ram");
    /* A failed init leaves the learner uninitialised, like a zeroed one. */
    CHECK_STATUS(ltu_learner_update(&learner, x, n_inputs, 0, &outcome, &unit), LTU_ERR_LEARNER_UNINITIALISED,
                 "after short ram");
    CHECK_STATUS(ltu_learner_update(&zero, x, n_inputs, 0, &outcome, &unit), LTU_ERR_LEARNER_UNINITIALISED,
                 "zeroed update");
    CHECK_STATUS(ltu_learner_predict(&zero, x, n_inputs, &class), LTU_ERR_LEARNER_UNINITIALISED, "zeroed predict");
    CHECK_STATUS(ltu_learner_stats(&zero, &stats), LTU_ERR_LEARNER_UNINITIALISED, "zeroed stats");
    CHECK_STATUS(ltu_learner_crc(&zero, &crc_before), LTU_ERR_LEARNER_UNINITIALISED, "zeroed crc");
    CHECK_STATUS(ltu_learner_write_file(&zero, collect, &s), LTU_ERR_LEARNER_UNINITIALISED, "zeroed write");
    CHECK(ltu_learner_file_len(&zero) == 0 && ltu_learner_file_len(NULL) == 0, "file_len of no learner");
    CHECK_STATUS(ltu_learner_update(NULL, x, n_inputs, 0, &outcome, &unit), LTU_ERR_NULL, "update NULL");
    CHECK_STATUS(ltu_learner_predict(NULL, x, n_inputs, &class), LTU_ERR_NULL, "predict NULL");
    CHECK_STATUS(ltu_learner_stats(NULL, &stats), LTU_ERR_NULL, "stats NULL");
    CHECK_STATUS(ltu_learner_crc(NULL, &crc_before), LTU_ERR_NULL, "crc NULL");
    CHECK_STATUS(ltu_learner_write_file(NULL, collect, &s), LTU_ERR_NULL, "write NULL");
    CHECK_STATUS(ltu_learner_update((ltu_learner *)(void *)(misaligned.bytes + 1), x, n_inputs, 0, &outcome,
                                    &unit),
                 LTU_ERR_MISALIGNED, "update misaligned");

    /* Errors of an initialised learner change nothing. */
    CHECK_STATUS(ltu_learner_init(&learner, bytes, len, ram, ram_needed + 1), LTU_OK, "init");
    CHECK_STATUS(ltu_learner_crc(&learner, &crc_before), LTU_OK, "crc");
    CHECK_STATUS(ltu_learner_update(&learner, x, n_inputs, (uint32_t)n_classes, &outcome, &unit),
                 LTU_ERR_LEARN_LABEL_OUT_OF_RANGE, "label n_classes");
    CHECK_STATUS(ltu_learner_update(&learner, x, n_inputs, UINT32_MAX, &outcome, &unit),
                 LTU_ERR_LEARN_LABEL_OUT_OF_RANGE, "label UINT32_MAX");
    CHECK_STATUS(ltu_learner_update(&learner, x, n_inputs + 1, 0, &outcome, &unit), LTU_ERR_PREDICT_INPUT_LENGTH,
                 "n_inputs + 1");
    CHECK_STATUS(ltu_learner_update(&learner, NULL, n_inputs, 0, &outcome, &unit), LTU_ERR_NULL, "inputs NULL");
    CHECK_STATUS(ltu_learner_update(&learner, x, n_inputs, 0, NULL, &unit), LTU_ERR_NULL, "outcome NULL");
    CHECK_STATUS(ltu_learner_update_window(&learner, &sample, 1, 1, 0, &outcome, &unit), LTU_ERR_PREDICT_WINDOW,
                 "window without a pipeline");
    CHECK_STATUS(ltu_learner_predict_window(&learner, &sample, 1, 1, &class), LTU_ERR_PREDICT_WINDOW,
                 "predict window without a pipeline");
    CHECK(outcome == 99 && unit == 99, "an error wrote an outcome");
    CHECK_STATUS(ltu_learner_stats(&learner, &stats), LTU_OK, "stats");
    CHECK(stats.updates == 0, "errors counted as updates: %" PRIu32, stats.updates);
    CHECK_STATUS(ltu_learner_crc(&learner, &crc_after), LTU_OK, "crc");
    CHECK(crc_after == crc_before, "an error changed the model");
    CHECK_STATUS(ltu_learner_predict(&learner, x, n_inputs, NULL), LTU_ERR_NULL, "class NULL");
    CHECK_STATUS(ltu_learner_stats(&learner, NULL), LTU_ERR_NULL, "stats out NULL");
    CHECK_STATUS(ltu_learner_crc(&learner, NULL), LTU_ERR_NULL, "crc out NULL");
    CHECK_STATUS(ltu_learner_write_file(&learner, NULL, &s), LTU_ERR_NULL, "sink NULL");
    /* A sink that fails stops the write at that piece. */
    s.buf = xmalloc(len);
    s.len = 0;
    s.cap = len;
    s.calls = 0;
    s.fail_at = 2;
    CHECK_STATUS(ltu_learner_write_file(&learner, collect, &s), LTU_ERR_CALLBACK, "failing sink");
    CHECK(s.calls == 2, "the sink was called %u times after failing at the second", s.calls);
    /* The unit is optional. */
    CHECK_STATUS(ltu_learner_update(&learner, x, n_inputs, 0, &outcome, NULL), LTU_OK, "unit NULL");
    CHECK(outcome <= LTU_OUTCOME_UNLEARNABLE, "outcome %" PRIu32, outcome);
    CHECK(strcmp(ltu_status_name(LTU_ERR_CALLBACK), "LTU_ERR_CALLBACK") == 0, "status name");
    CHECK(strcmp(ltu_status_name(LTU_ERR_STORE_OTHER_BASE), "LTU_ERR_STORE_OTHER_BASE") == 0, "status name");
    free(s.buf);
    free(ram);
    free(corrupt);
}

/* Reads the stats and the learned file that follow the steps and checks the learner's. */
static uint8_t *check_learned(FILE *f, const ltu_learner *learner, const char *path, size_t *len) {
    ltu_learn_stats want, got;
    uint8_t *file;
    size_t i;
    expect_scan(fscanf(f, "%" SCNu32 " %" SCNu32 " %" SCNu32 " %" SCNu32 " %" SCNu32 " %" SCNu32, &want.updates,
                       &want.corrected, &want.clipped, &want.saturated, &want.constant, &want.unlearnable),
                6, "stats");
    CHECK_STATUS(ltu_learner_stats(learner, &got), LTU_OK, path);
    CHECK(memcmp(&want, &got, sizeof want) == 0, "%s: stats %" PRIu32 " updates, %" PRIu32 " corrected", path,
          got.updates, got.corrected);
    expect_scan(fscanf(f, "%zu", len), 1, "file length");
    file = xmalloc(*len);
    for (i = 0; i < *len; i++) {
        unsigned b;
        expect_scan(fscanf(f, "%2x", &b), 1, "file byte");
        file[i] = (uint8_t)b;
    }
    check_file(learner, file, *len, path);
    return file;
}

static void check_outcome(uint32_t outcome, uint32_t unit, uint32_t want_outcome, uint32_t want_unit,
                          const char *path, size_t step) {
    CHECK(outcome == want_outcome && unit == want_unit,
          "%s step %zu: outcome %" PRIu32 " unit %" PRIu32 ", want %" PRIu32 " unit %" PRIu32, path, step, outcome,
          unit, want_outcome, want_unit);
}

/* The store on three geometries: 1 KiB pages of 4-byte words read bytewise, 256-byte pages of
 * 32-byte words, 64-byte pages of bytes read in 4-byte words. */
static void check_stores(const uint8_t *bytes, size_t len, size_t ram_needed, const ltu_learner *learner,
                         const uint8_t *file) {
    check_store(bytes, len, ram_needed, learner, file, len, 1024, 4, 1);
    check_store(bytes, len, ram_needed, learner, file, len, 256, 32, 32);
    check_store(bytes, len, ram_needed, learner, file, len, 64, 1, 4);
}

/* The first model's learner, kept (with its bytes and RAM, freed at the end) for the store's
 * other-base check against the next model. */
static ltu_learner first_learner;
static uint8_t *first_bytes, *first_ram;
static int have_first;

static void check_learn(FILE *f) {
    char path[4096];
    size_t n_inputs, n_classes, ram_needed, n_steps, n_rows, step, i, len, file_len;
    uint8_t *bytes, *ram, *file;
    int32_t *x;
    ltu_learner learner;
    expect_scan(fscanf(f, "%4095s %zu %zu %zu %zu %zu", path, &n_inputs, &n_classes, &ram_needed, &n_steps,
                       &n_rows),
                6, "learn");
    bytes = read_file(path, &len);
    ram = xmalloc(ram_needed);
    x = xmalloc(n_inputs * sizeof *x);
    CHECK_STATUS(ltu_learner_init(&learner, bytes, len, ram, ram_needed), LTU_OK, path);
    for (step = 0; step < n_steps; step++) {
        uint32_t label, want_outcome, want_unit, outcome = 99, unit = 99;
        for (i = 0; i < n_inputs; i++) {
            expect_scan(fscanf(f, "%" SCNd32, &x[i]), 1, "input");
        }
        expect_scan(fscanf(f, "%" SCNu32 " %" SCNu32 " %" SCNu32, &label, &want_outcome, &want_unit), 3, "step");
        CHECK_STATUS(ltu_learner_update(&learner, x, n_inputs, label, &outcome, &unit), LTU_OK, path);
        check_outcome(outcome, unit, want_outcome, want_unit, path, step);
    }
    file = check_learned(f, &learner, path, &file_len);
    for (step = 0; step < n_rows; step++) {
        uint32_t want, class = 99;
        for (i = 0; i < n_inputs; i++) {
            expect_scan(fscanf(f, "%" SCNd32, &x[i]), 1, "input");
        }
        expect_scan(fscanf(f, "%" SCNu32, &want), 1, "class");
        CHECK_STATUS(ltu_learner_predict(&learner, x, n_inputs, &class), LTU_OK, path);
        CHECK(class == want, "%s row %zu: learned class %" PRIu32 ", want %" PRIu32, path, step, class, want);
    }
    check_stores(bytes, len, ram_needed, &learner, file);
    if (!have_first) {
        first_learner = learner;
        first_bytes = bytes;
        first_ram = ram;
        have_first = 1;
        check_learner_errors(bytes, len, ram_needed, n_inputs, n_classes, x);
    } else {
        ltu_learner other;
        uint8_t *other_ram = xmalloc(ram_needed);
        CHECK_STATUS(ltu_learner_init(&other, bytes, len, other_ram, ram_needed), LTU_OK, path);
        check_store_errors(&first_learner, &other);
        free(other_ram);
        free(bytes);
        free(ram);
    }
    free(x);
    free(file);
}

static void check_window(FILE *f) {
    char path[4096];
    size_t n_channels, n_samples, ram_needed, n_steps, step, i, len, file_len, total;
    uint8_t *bytes, *ram, *file;
    int16_t *windows;
    ltu_learner learner;
    expect_scan(fscanf(f, "%4095s %zu %zu %zu %zu", path, &n_channels, &n_samples, &ram_needed, &n_steps), 5,
                "window");
    bytes = read_file(path, &len);
    ram = ram_needed ? xmalloc(ram_needed) : NULL;
    total = n_channels * n_samples;
    windows = xmalloc(n_steps * total * sizeof *windows);
    CHECK_STATUS(ltu_learner_init(&learner, bytes, len, ram, ram_needed), LTU_OK, path);
    for (step = 0; step < n_steps; step++) {
        uint32_t label, want_outcome, want_unit, outcome = 99, unit = 99;
        int16_t *w = windows + step * total;
        for (i = 0; i < total; i++) {
            expect_scan(fscanf(f, "%" SCNd16, &w[i]), 1, "sample");
        }
        expect_scan(fscanf(f, "%" SCNu32 " %" SCNu32 " %" SCNu32, &label, &want_outcome, &want_unit), 3, "step");
        CHECK_STATUS(ltu_learner_update_window(&learner, w, n_channels, n_samples, 99, &outcome, &unit),
                     LTU_ERR_LEARN_LABEL_OUT_OF_RANGE, path);
        CHECK_STATUS(ltu_learner_update_window(&learner, w, n_channels + 1, n_samples, label, &outcome, &unit),
                     LTU_ERR_PREDICT_WINDOW, path);
        CHECK_STATUS(ltu_learner_update_window(&learner, w, n_channels, 0, label, &outcome, &unit),
                     LTU_ERR_PREDICT_WINDOW, path);
        CHECK_STATUS(ltu_learner_update_window(&learner, w, n_channels, n_samples, label, &outcome, &unit), LTU_OK,
                     path);
        check_outcome(outcome, unit, want_outcome, want_unit, path, step);
    }
    file = check_learned(f, &learner, path, &file_len);
    for (step = 0; step < n_steps; step++) {
        uint32_t want, class = 99;
        expect_scan(fscanf(f, "%" SCNu32, &want), 1, "class");
        CHECK_STATUS(ltu_learner_predict_window(&learner, windows + step * total, n_channels, n_samples, &class),
                     LTU_OK, path);
        CHECK(class == want, "%s window %zu: learned class %" PRIu32 ", want %" PRIu32, path, step, class, want);
    }
    check_stores(bytes, len, ram_needed, &learner, file);
    free(windows);
    free(file);
    free(ram);
    free(bytes);
}

int main(int argc, char **argv) {
    FILE *f;
    char kind[32];
    if (argc != 2 || !(f = fopen(argv[1], "r"))) {
        fprintf(stderr, "usage: learn_test CASES_FILE\n");
        return 2;
    }
    while (fscanf(f, "%31s", kind) == 1 && strcmp(kind, "end") != 0) {
        if (strcmp(kind, "learn") == 0) {
            check_learn(f);
        } else if (strcmp(kind, "window") == 0) {
            check_window(f);
        } else {
            fprintf(stderr, "unknown case %s\n", kind);
            return 2;
        }
    }
    fclose(f);
    CHECK(have_first, "no learn case");
    free(first_bytes);
    free(first_ram);
    printf("%lu checks, %lu failed\n", checks, failures);
    return failures ? 1 : 0;
}
