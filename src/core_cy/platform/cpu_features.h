/* What the running CPU can execute, read with CPUID (and XGETBV: the operating
 * system must also save the wide registers for AVX to be usable). Compiled with
 * baseline flags only, so that it runs on every x86-64 CPU, before the package
 * chooses which variant of the core to load (core_cy/core.py). */
#ifndef FIANCHETTO_CPU_FEATURES_H
#define FIANCHETTO_CPU_FEATURES_H

#include <stdint.h>

enum {
    FC_CPU_SSE2 = 1 << 0, FC_CPU_POPCNT = 1 << 1, FC_CPU_LZCNT = 1 << 2, FC_CPU_BMI1 = 1 << 3,
    FC_CPU_BMI2 = 1 << 4, FC_CPU_AVX = 1 << 5, FC_CPU_AVX2 = 1 << 6, FC_CPU_FMA = 1 << 7,
    FC_CPU_F16C = 1 << 8, FC_CPU_MOVBE = 1 << 9, FC_CPU_AVX512F = 1 << 10,
    FC_CPU_AVX512BW = 1 << 11, FC_CPU_AVX512VNNI = 1 << 12, FC_CPU_NEON = 1 << 13,
};

/* The names of the bits above, in order (cpu.pyx turns the mask into names). */
static const char* const FC_CPU_NAMES[] = {
    "sse2", "popcnt", "lzcnt", "bmi1", "bmi2", "avx", "avx2", "fma", "f16c", "movbe",
    "avx512f", "avx512bw", "avx512vnni", "neon",
};
#define FC_CPU_NAME_COUNT 14

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__) || defined(_M_IX86)
#if defined(_MSC_VER)
#include <intrin.h>
static void fc_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4]) {
    int regs[4];
    __cpuidex(regs, (int)leaf, (int)sub);
    for (int i = 0; i < 4; i++) r[i] = (uint32_t)regs[i];
}
static uint64_t fc_xgetbv0(void) { return (uint64_t)_xgetbv(0); }
#else
#include <cpuid.h>
static void fc_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4]) {
    __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}
static uint64_t fc_xgetbv0(void) {
    uint32_t eax, edx;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((uint64_t)edx << 32) | eax;
}
#endif

#define FC_BIT(reg, n) (((reg) >> (n)) & 1u)

static uint32_t fc_cpu_features(void) {
    uint32_t r[4], f = 0, max_leaf, max_ext;
    fc_cpuid(0, 0, r);
    max_leaf = r[0];
    fc_cpuid(0x80000000u, 0, r);
    max_ext = r[0];
    if (max_leaf < 1) return 0;
    fc_cpuid(1, 0, r);
    uint32_t ecx1 = r[2], edx1 = r[3];
    if (FC_BIT(edx1, 26)) f |= FC_CPU_SSE2;
    if (FC_BIT(ecx1, 23)) f |= FC_CPU_POPCNT;
    if (FC_BIT(ecx1, 22)) f |= FC_CPU_MOVBE;
    /* AVX state (XMM and YMM registers) saved by the OS: OSXSAVE, then XCR0 bits 1-2. */
    int ymm_ok = FC_BIT(ecx1, 27) && (fc_xgetbv0() & 0x6) == 0x6;
    int zmm_ok = ymm_ok && (fc_xgetbv0() & 0xE0) == 0xE0;
    if (ymm_ok && FC_BIT(ecx1, 28)) f |= FC_CPU_AVX;
    if (ymm_ok && FC_BIT(ecx1, 12)) f |= FC_CPU_FMA;
    if (ymm_ok && FC_BIT(ecx1, 29)) f |= FC_CPU_F16C;
    if (max_leaf >= 7) {
        fc_cpuid(7, 0, r);
        uint32_t ebx7 = r[1], ecx7 = r[2];
        if (FC_BIT(ebx7, 3)) f |= FC_CPU_BMI1;
        if (FC_BIT(ebx7, 8)) f |= FC_CPU_BMI2;
        if (ymm_ok && FC_BIT(ebx7, 5)) f |= FC_CPU_AVX2;
        if (zmm_ok && FC_BIT(ebx7, 16)) f |= FC_CPU_AVX512F;
        if (zmm_ok && FC_BIT(ebx7, 30)) f |= FC_CPU_AVX512BW;
        if (zmm_ok && FC_BIT(ecx7, 11)) f |= FC_CPU_AVX512VNNI;
    }
    if (max_ext >= 0x80000001u) {
        fc_cpuid(0x80000001u, 0, r);
        if (FC_BIT(r[2], 5)) f |= FC_CPU_LZCNT;
    }
    return f;
}
/* True where PEXT is a fast instruction: every Intel CPU that has BMI2, AMD
 * from family 0x19 (Zen 3) on. Zen 1 and 2 (and Hygon's Dhyana, family 0x18)
 * execute it in microcode, slower than a magic multiplication. */
static int fc_cpu_fast_pext(void) {
    uint32_t r[4], family;
    if (!(fc_cpu_features() & FC_CPU_BMI2)) return 0;
    fc_cpuid(0, 0, r);
    int amd = r[1] == 0x68747541u || r[1] == 0x6f677948u;   /* "Auth"enticAMD, "Hygo"nGenuine */
    if (!amd) return 1;
    fc_cpuid(1, 0, r);
    family = (r[0] >> 8) & 0xF;
    if (family == 0xF) family += (r[0] >> 20) & 0xFF;
    return family >= 0x19;
}
#elif defined(__aarch64__) || defined(_M_ARM64)
static uint32_t fc_cpu_features(void) { return FC_CPU_NEON; }   /* baseline on arm64 */
static int fc_cpu_fast_pext(void) { return 0; }
#else
static uint32_t fc_cpu_features(void) { return 0; }
static int fc_cpu_fast_pext(void) { return 0; }
#endif

#endif
