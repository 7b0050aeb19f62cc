/* classify MODEL X0 X1 ...: loads MODEL with ltu_model_init and prints ltu_predict's class, or
 * the status name and message on failure. */
#include <stdio.h>
#include <stdlib.h>

#include "ltu.h"

int main(int argc, char **argv) {
    static uint8_t bytes[1 << 16];
    int32_t inputs[64];
    size_t len, i, n = (size_t)(argc > 2 ? argc - 2 : 0);
    uint32_t class_out;
    ltu_model model;
    ltu_status s;
    FILE *f;
    if (argc < 2 || n > 64 || !(f = fopen(argv[1], "rb"))) {
        fprintf(stderr, "usage: classify MODEL [INPUT...]\n");
        return 2;
    }
    len = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    for (i = 0; i < n; i++) {
        inputs[i] = (int32_t)strtol(argv[i + 2], NULL, 10);
    }
    s = ltu_model_init(&model, bytes, len);
    if (s == LTU_OK) {
        s = ltu_predict(&model, inputs, n, &class_out);
    }
    if (s != LTU_OK) {
        printf("%s: %s\n", ltu_status_name(s), ltu_status_message(s));
        return 1;
    }
    printf("class %u\n", (unsigned)class_out);
    return 0;
}
