/*
 * insnprofile.c - QEMU TCG plugin: exact per-address instruction counts inside the marked regions
 * (the same markers as insncount.c), for finding where a prediction spends its instructions.
 * Environment: INSNPROFILE=<file> (default insnprofile.txt) receives "<hex address> <count>"
 * lines at exit; INSNPROFILE_SKIP=<n> ignores the first n regions (1 skips the bench firmware's
 * load region). firmware-example/tools/profile.py builds it, runs an ELF and aggregates the
 * counts by function and source line with arm-none-eabi-addr2line.
 * Build: gcc -shared -fPIC -O2 -o libinsnprofile.so insnprofile.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t, struct qemu_plugin_tb *);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t, qemu_plugin_vcpu_tb_trans_cb_t);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *, size_t);
void *qemu_plugin_insn_haddr(const struct qemu_plugin_insn *);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *);
#include <stdlib.h>
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *, qemu_plugin_vcpu_udata_cb_t,
                                            enum qemu_plugin_cb_flags, void *);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t, qemu_plugin_udata_cb_t, void *);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

__attribute__((constructor)) static void choose_api_version(void)
{
    if (dlsym(RTLD_DEFAULT, "qemu_plugin_n_vcpus"))
        qemu_plugin_version = 1;
    else if (dlsym(RTLD_DEFAULT, "qemu_plugin_register_vcpu_insn_exec_inline"))
        qemu_plugin_version = 2;
    else
        qemu_plugin_version = 3;
}


enum marker { PLAIN = 0, START = 1, STOP = 2 };
#define MAXPC (1u<<20)
static uint64_t counts[MAXPC/2];
static int in_region; static int region_no;
struct site { uint32_t pc; uint32_t kind; };
static void on_insn(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    struct site *s = udata;
    if (s->kind == START) { in_region = region_no++ >= (getenv("INSNPROFILE_SKIP") ? atoi(getenv("INSNPROFILE_SKIP")) : 0); return; }
    if (s->kind == STOP) { in_region = 0; return; }
    if (in_region && s->pc < MAXPC) counts[s->pc/2]++;
}
static enum marker classify(const struct qemu_plugin_insn *insn)
{
    size_t n = qemu_plugin_insn_size(insn);
    const uint8_t *p = qemu_plugin_insn_haddr(insn);
    if (p == NULL) return PLAIN;
    if (n == 2 || n == 4) {
        uint16_t v = (uint16_t)(p[0] | p[1] << 8);
        if (v == 0x46db) return START;
        if (v == 0x46d2) return STOP;
    }
    return PLAIN;
}
static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        struct site *s = malloc(sizeof *s);
        s->pc = (uint32_t)qemu_plugin_insn_vaddr(insn);
        s->kind = classify(insn);
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_insn, QEMU_PLUGIN_CB_NO_REGS, s);
    }
}
static void at_exit(qemu_plugin_id_t id, void *u)
{
    (void)id; (void)u;
    const char *path = getenv("INSNPROFILE");
    FILE *f = fopen(path ? path : "insnprofile.txt", "w");
    for (uint32_t i = 0; i < MAXPC/2; i++) if (counts[i]) fprintf(f, "%x %llu\n", i*2, (unsigned long long)counts[i]);
    fclose(f);
}
__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    (void)info; (void)argc; (void)argv;
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
