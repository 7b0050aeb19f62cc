/*
 * insncount.c - QEMU TCG plugin: exact, deterministic instruction counts between marker
 * instructions in the firmware. Adapted from the project's QEMU recipe (plugin API v1).
 *
 * Markers (architectural no-ops the firmware places around a measured region):
 *   Arm/Thumb : "mov r11, r11" (T1 encoding 0x46db) -> region start
 *               "mov r10, r10" (T1 encoding 0x46d2) -> region stop
 *   RISC-V    : "slti x0, x0, 1" (0x00102013)       -> start
 *               "slti x0, x0, 2" (0x00202013)       -> stop
 * Only the markers of the emulated architecture count (QEMU names it when it loads the plugin):
 * RISC-V code holds 16-bit compressed instructions, and one of them is the Thumb stop marker's
 * halfword (0x46d2 is "c.lwsp a3, 20(sp)"), which would end a RISC-V region in its middle.
 * Each stop prints one line to stderr:
 *   insncount region=<k> insns=<n>
 * where k counts regions from 0 and n is the number of instructions executed strictly between
 * the two markers (neither marker counted). A start inside a region or a stop outside one is a
 * stray marker: at exit, before the total, the plugin prints "insncount stray=<n>" if there was
 * any, so the caller can reject counts whose regions did not pair up. At exit it prints
 * "insncount total=<n>".
 *
 * Build: gcc -shared -fPIC -O2 -o libinsncount.so insncount.c -ldl   (cargo xtask does this)
 * Use:   qemu-system-arm ... -plugin ./libinsncount.so
 *
 * Portability across QEMU versions, with no QEMU headers needed:
 *   - Only calls whose signatures have not changed since QEMU 5 are used: one per-instruction
 *     execution callback counts instructions (the inline-counter API was renamed in QEMU 9), and
 *     instruction bytes are read through qemu_plugin_insn_haddr (qemu_plugin_insn_data changed
 *     its signature in QEMU 9.1).
 *   - The declared API version is chosen when QEMU loads the plugin. QEMU raises its minimum
 *     plugin API version only when it removes functions: to 2 together with qemu_plugin_n_vcpus,
 *     and (in a later change) to 3 together with the old qemu_plugin_register_vcpu_insn_exec_inline.
 *     So the plugin declares 1 while QEMU exports qemu_plugin_n_vcpus, 2 while it exports the old
 *     inline call, and 3 otherwise. If a future QEMU raises the minimum again, it refuses to load
 *     the plugin and says which version it wants.
 * Verified with QEMU 7.2 (Debian 12).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
/* QEMU's qemu_info_t; only its first member, which every plugin API version has, is read. */
typedef struct qemu_info_t {
    const char *target_name; /* "arm", "riscv32", ... */
} qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t, struct qemu_plugin_tb *);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t, qemu_plugin_vcpu_tb_trans_cb_t);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *, size_t);
void *qemu_plugin_insn_haddr(const struct qemu_plugin_insn *);
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

static uint64_t insns; /* executed instructions (single-vCPU machines) */
static uint64_t start_at;
static int in_region;
static unsigned region;
static uint64_t stray; /* starts inside a region and stops outside one */
static int riscv;      /* the emulated architecture is RISC-V (else Arm) */

static void on_insn(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    insns++;
    switch ((enum marker)(uintptr_t)udata) {
    case START:
        stray += in_region;
        start_at = insns;
        in_region = 1;
        break;
    case STOP:
        if (in_region) {
            fprintf(stderr, "insncount region=%u insns=%llu\n", region++,
                    (unsigned long long)(insns - start_at - 1));
            fflush(stderr);
            in_region = 0;
        } else {
            stray++;
        }
        break;
    case PLAIN:
        break;
    }
}

static enum marker classify(const struct qemu_plugin_insn *insn)
{
    size_t n = qemu_plugin_insn_size(insn);
    const uint8_t *p = qemu_plugin_insn_haddr(insn);
    if (p == NULL)
        return PLAIN; /* not backed by RAM/ROM: cannot be one of our markers */
    if (riscv) {
        if (n != 4)
            return PLAIN;
        uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        return v == 0x00102013u ? START : v == 0x00202013u ? STOP : PLAIN;
    }
    /* A Thumb marker is a 16-bit instruction, but QEMU 7.2 sometimes reports a size of 4 for a
     * 16-bit instruction on ARMv6-M (seen: a stop marker before a page boundary on the
     * Cortex-M0). No 32-bit Thumb instruction starts with these halfwords (their top five bits
     * are 0b11101..0b11111), so the first halfword decides. */
    if (n == 2 || n == 4) {
        uint16_t v = (uint16_t)(p[0] | p[1] << 8);
        if (v == 0x46db)
            return START;
        if (v == 0x46d2)
            return STOP;
    }
    return PLAIN;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        /* one callback per executed instruction: exact even when a block exits early */
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_insn, QEMU_PLUGIN_CB_NO_REGS,
                                               (void *)(uintptr_t)classify(insn));
    }
}

static void at_exit(qemu_plugin_id_t id, void *u)
{
    (void)id;
    (void)u;
    if (stray)
        fprintf(stderr, "insncount stray=%llu\n", (unsigned long long)stray);
    fprintf(stderr, "insncount total=%llu\n", (unsigned long long)insns);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                                                               int argc, char **argv)
{
    (void)argc;
    (void)argv;
    riscv = info != NULL && info->target_name != NULL && strncmp(info->target_name, "riscv", 5) == 0;
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
