/* Portable bit tricks for the core: popcount, least significant bit, clock.
 * One definition each for gcc/clang and MSVC. */
#ifndef FIANCHETTO_BITOPS_H
#define FIANCHETTO_BITOPS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The checked build (FIANCHETTO_DEBUG=1) verifies the core's invariants. */
#ifdef FIANCHETTO_DEBUG
#define FC_DEBUG 1
#else
#define FC_DEBUG 0
#endif

static void fc_fail(const char* what) {
    fprintf(stderr, "fianchetto: broken invariant: %s\n", what);
    fflush(stderr);
    abort();
}

#if defined(_MSC_VER)
#include <intrin.h>
#include <windows.h>

static __forceinline int fc_popcount(uint64_t b) {
#if defined(_M_X64) || defined(_M_ARM64)
    return (int)__popcnt64(b);
#else
    return (int)(__popcnt((unsigned)b) + __popcnt((unsigned)(b >> 32)));
#endif
}

static __forceinline int fc_lsb(uint64_t b) {
    unsigned long idx;
    _BitScanForward64(&idx, b);
    return (int)idx;
}

static __forceinline int fc_msb(uint64_t b) {
    unsigned long idx;
    _BitScanReverse64(&idx, b);
    return (int)idx;
}

static __forceinline int64_t fc_now_ms(void) {
    return (int64_t)GetTickCount64();
}

#else
#include <time.h>

#if defined(__POPCNT__) || defined(__aarch64__)
static inline int fc_popcount(uint64_t b) { return __builtin_popcountll(b); }
#else
/* No popcnt instruction guaranteed (baseline x86-64): branch-free SWAR count. */
static inline int fc_popcount(uint64_t b) {
    b = b - ((b >> 1) & 0x5555555555555555ULL);
    b = (b & 0x3333333333333333ULL) + ((b >> 2) & 0x3333333333333333ULL);
    b = (b + (b >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((b * 0x0101010101010101ULL) >> 56);
}
#endif
static inline int fc_lsb(uint64_t b) { return __builtin_ctzll(b); }
static inline int fc_msb(uint64_t b) { return 63 - __builtin_clzll(b); }

static inline int64_t fc_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
#endif

/* A flag shared between the search thread and the thread that stops it. */
#if defined(_MSC_VER)
static __forceinline int fc_load_flag(volatile int* p) { return *p; }
static __forceinline void fc_store_flag(volatile int* p, int v) { *p = v; }
#else
static inline int fc_load_flag(volatile int* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
static inline void fc_store_flag(volatile int* p, int v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
#endif

/* Write a zero to every page of a freshly zeroed block so that the pages are
   resident now. A plain memset after malloc is folded into calloc by the
   compiler, and calloc maps pages lazily; volatile stores cannot be elided. */
static inline void fc_touch_pages(void* block, size_t size) {
    volatile char* bytes = (volatile char*)block;
    for (size_t i = 0; i < size; i += 4096) bytes[i] = 0;
}

/* The same pointer, but the compiler must assume the memory behind it may have
   changed: a benchmark loop over a pure function cannot be folded into one call. */
#if defined(_MSC_VER)
#include <intrin.h>
static __forceinline const void* fc_opaque(const void* p) { _ReadWriteBarrier(); return p; }
#else
static inline const void* fc_opaque(const void* p) { __asm__ volatile("" : "+r"(p) : : "memory"); return p; }
#endif

#endif
