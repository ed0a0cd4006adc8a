/* Portable bit tricks for the core: popcount, least significant bit, clock.
 * One definition each for gcc/clang and MSVC. */
#ifndef FIANCHETTO_BITOPS_H
#define FIANCHETTO_BITOPS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

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

/* Which popcount the build uses (FC_POPCOUNT_KIND, shown by `fianchetto doctor`).
 * The default build may assume only baseline x86-64, which has no popcnt
 * instruction: it counts with a branch-free SWAR routine. The hardware
 * instruction is used when the compiler is told the CPU has it (gcc/clang:
 * -march=native or -mpopcnt define __POPCNT__; MSVC: /arch:AVX and above define
 * __AVX__, and every AVX CPU has popcnt) and on arm64, where it is baseline. */
static inline int fc_popcount_swar(uint64_t b) {
    b = b - ((b >> 1) & 0x5555555555555555ULL);
    b = (b & 0x3333333333333333ULL) + ((b >> 2) & 0x3333333333333333ULL);
    b = (b + (b >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((b * 0x0101010101010101ULL) >> 56);
}

#if defined(_MSC_VER)
/* MSVC (and clang-cl, which defines _MSC_VER too). Read against Microsoft's
 * documentation of each intrinsic; compiled by the Windows wheel builds, not on
 * the Linux machine the project is developed on (docs/distribution.md). */
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX           /* no min/max macros from windows.h */
#endif
#include <intrin.h>
#include <windows.h>

static __forceinline int fc_popcount(uint64_t b) {
#if defined(_M_ARM64) && defined(__clang__)
#define FC_POPCOUNT_KIND "hardware (__builtin_popcountll)"
    return __builtin_popcountll(b);
#elif defined(_M_X64) && defined(__AVX__)
#define FC_POPCOUNT_KIND "hardware (__popcnt64)"
    return (int)__popcnt64(b);
#else
    /* x64: __popcnt64 would emit popcnt, which baseline x64 lacks. x86: no 64-bit
     * form. ARM64: __popcnt64 and _CountOneBits64 are each missing from some
     * MSVC and Windows SDK releases, so the one count that always compiles. */
#define FC_POPCOUNT_KIND "portable (SWAR)"
    return fc_popcount_swar(b);
#endif
}

/* _BitScanForward64/_BitScanReverse64 exist on x64 and ARM64 only; a 32-bit
 * target scans the two halves. Callers never pass 0. */
static __forceinline int fc_lsb(uint64_t b) {
    unsigned long idx;
#if defined(_M_X64) || defined(_M_ARM64)
    _BitScanForward64(&idx, b);
    return (int)idx;
#else
    if ((uint32_t)b) {
        _BitScanForward(&idx, (unsigned long)(uint32_t)b);
        return (int)idx;
    }
    _BitScanForward(&idx, (unsigned long)(b >> 32));
    return (int)idx + 32;
#endif
}

static __forceinline int fc_msb(uint64_t b) {
    unsigned long idx;
#if defined(_M_X64) || defined(_M_ARM64)
    _BitScanReverse64(&idx, b);
    return (int)idx;
#else
    if (b >> 32) {
        _BitScanReverse(&idx, (unsigned long)(b >> 32));
        return (int)idx + 32;
    }
    _BitScanReverse(&idx, (unsigned long)(uint32_t)b);
    return (int)idx;
#endif
}

static __forceinline int64_t fc_now_ms(void) {
    return (int64_t)GetTickCount64();      /* monotonic, Windows Vista and later */
}

#else
#include <time.h>

#if defined(__POPCNT__) || defined(__aarch64__)
#define FC_POPCOUNT_KIND "hardware (__builtin_popcountll)"
static inline int fc_popcount(uint64_t b) { return __builtin_popcountll(b); }
#else
/* No popcnt instruction guaranteed (baseline x86-64): __builtin_popcountll
 * would call a library routine, the inline SWAR count is faster. */
#define FC_POPCOUNT_KIND "portable (SWAR)"
static inline int fc_popcount(uint64_t b) { return fc_popcount_swar(b); }
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

/* Ask for the cache line at p ahead of its use (a hint: no effect on results). */
#if defined(_MSC_VER)
#include <xmmintrin.h>
static __forceinline void fc_prefetch(const void* p) { _mm_prefetch((const char*)p, _MM_HINT_T0); }
#else
static inline void fc_prefetch(const void* p) { __builtin_prefetch(p); }
#endif

/* Write a zero to every page of a freshly zeroed block so that the pages are
   resident now. A plain memset after malloc is folded into calloc by the
   compiler, and calloc maps pages lazily; volatile stores cannot be elided. */
static inline void fc_touch_pages(void* block, size_t size) {
    volatile char* bytes = (volatile char*)block;
    for (size_t i = 0; i < size; i += 4096) bytes[i] = 0;
}

/* A zeroed block for a table the search reads at random (the transposition
   table, the network's weights, a search thread's histories), every page of it
   resident now (the process does not grow mid-game), freed with free(). On
   Linux a block of an eighth of a huge page or more is rounded up to whole
   2 MB pages, aligned to them and marked for transparent huge pages: the table
   then takes a few TLB entries instead of hundreds, and random reads into it
   miss the TLB far less often (the weights and a thread's tables on huge pages:
   bench 1.025x). The memset that zeroes it makes the pages resident. Elsewhere,
   or when that fails, calloc, whose lazily mapped pages are then touched. */
static inline void* fc_alloc_table(size_t size) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const size_t huge = (size_t)2 * 1024 * 1024;
    const size_t rounded = (size + huge - 1) / huge * huge;
    void* block = NULL;
    if (size >= huge / 8 && posix_memalign(&block, huge, rounded) == 0) {
        madvise(block, rounded, MADV_HUGEPAGE);
        memset(block, 0, rounded);
        return block;
    }
#endif
    void* zeroed = calloc(1, size);
    if (zeroed != NULL) fc_touch_pages(zeroed, size);
    return zeroed;
}

/* A block aligned to a cache line, freed with fc_free_aligned: the network's
   accumulators. malloc aligns to 16 bytes only, so half of the 32-byte loads and
   stores of an accumulator would straddle two cache lines. */
#define FC_CACHE_LINE 64
#if defined(_MSC_VER)
#include <malloc.h>
#endif
static inline void* fc_alloc_aligned(size_t size) {
#if defined(_MSC_VER)
    return _aligned_malloc(size, FC_CACHE_LINE);
#else
    void* block = NULL;
    return posix_memalign(&block, FC_CACHE_LINE, size) == 0 ? block : NULL;
#endif
}

static inline void fc_free_aligned(void* block) {
#if defined(_MSC_VER)
    _aligned_free(block);
#else
    free(block);
#endif
}

/* PEXT (BMI2) for the slider lookups, in builds that may use it (bitboard.pxi).
   A few cycles on Intel since Haswell and on AMD since Zen 3, microcoded and slow
   on Zen 1 and 2: the core uses it only where fc_cpu_fast_pext() says so. */
#if defined(__BMI2__)
#include <immintrin.h>
#define FC_HAS_PEXT 1
static inline uint64_t fc_pext(uint64_t b, uint64_t mask) { return _pext_u64(b, mask); }
#else
#define FC_HAS_PEXT 0
static inline uint64_t fc_pext(uint64_t b, uint64_t mask) { (void)mask; return b; }
#endif

/* The same pointer, but the compiler must assume the memory behind it may have
   changed: a benchmark loop over a pure function cannot be folded into one call. */
#if defined(_MSC_VER)
#include <intrin.h>
static __forceinline const void* fc_opaque(const void* p) { _ReadWriteBarrier(); return p; }
#else
static inline const void* fc_opaque(const void* p) { __asm__ volatile("" : "+r"(p) : : "memory"); return p; }
#endif

/* ---- what this build is, for `fianchetto doctor` (buildinfo.pxi) ---------- */
#define FC_STR2(x) #x
#define FC_STR(x) FC_STR2(x)

static const char* fc_build_compiler(void) {
#if defined(__clang__)
    return "clang " __clang_version__;
#elif defined(__GNUC__)
    return "gcc " __VERSION__;
#elif defined(_MSC_VER)
    return "MSVC " FC_STR(_MSC_FULL_VER);
#else
    return "unknown";
#endif
}

static const char* fc_build_arch(void) {
#if defined(__x86_64__) || defined(_M_X64)
    return "x86-64";
#elif defined(__aarch64__) || defined(_M_ARM64)
    return "arm64";
#elif defined(__i386__) || defined(_M_IX86)
    return "x86";
#else
    return "other";
#endif
}

/* Instruction-set extensions the compiler was allowed to use beyond the
 * architecture's baseline, space separated ("" for a portable x86-64 build). */
static const char* fc_build_features(void) {
    return ""
#if defined(__SSE3__)
        " sse3"
#endif
#if defined(__SSSE3__)
        " ssse3"
#endif
#if defined(__SSE4_1__)
        " sse4.1"
#endif
#if defined(__SSE4_2__)
        " sse4.2"
#endif
#if defined(__POPCNT__)
        " popcnt"
#endif
#if defined(__LZCNT__)
        " lzcnt"
#endif
#if defined(__BMI__)
        " bmi1"
#endif
#if defined(__BMI2__)
        " bmi2"
#endif
#if defined(__AVX__)
        " avx"
#endif
#if defined(__AVX2__)
        " avx2"
#endif
#if defined(__AVX512F__)
        " avx512f"
#endif
#if defined(__AVX512BW__)
        " avx512bw"
#endif
#if defined(__ARM_FEATURE_SVE)
        " sve"
#endif
#if defined(__ARM_FEATURE_DOTPROD)
        " dotprod"
#endif
        ;
}

static const char* fc_build_popcount(void) { return FC_POPCOUNT_KIND; }

/* setup.py names the variant being compiled (variants.py): -DFIANCHETTO_VARIANT=avx2. */
static const char* fc_build_variant(void) {
#ifdef FIANCHETTO_VARIANT
    return FC_STR(FIANCHETTO_VARIANT);
#else
    return "unnamed";
#endif
}

/* setup.py defines FIANCHETTO_NATIVE when FIANCHETTO_NATIVE=1 asked for -march=native. */
#ifdef FIANCHETTO_NATIVE
#define FC_NATIVE 1
#else
#define FC_NATIVE 0
#endif

/* The C compiler's optimiser was on (gcc/clang say so; MSVC builds are /O2 unless checked). */
#if defined(__OPTIMIZE__) || (defined(_MSC_VER) && !defined(FIANCHETTO_DEBUG))
#define FC_OPTIMIZED 1
#else
#define FC_OPTIMIZED 0
#endif

#endif
