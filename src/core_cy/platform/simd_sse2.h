/* The network's kernels with SSE2 (simd.h), which every x86-64 CPU has: the
 * baseline variant. Eight int16 lanes a register, two registers a chunk. */
#ifndef FIANCHETTO_SIMD_SSE2_H
#define FIANCHETTO_SIMD_SSE2_H

#include <emmintrin.h>

#define FC_SIMD_KIND "SSE2"

typedef __m128i fc_vec;
#define FC_VEC_LANES 8
#define fc_load(p) _mm_loadu_si128((const __m128i*)(p))
#define fc_store(p, v) _mm_storeu_si128((__m128i*)(p), (v))
#define fc_add16 _mm_add_epi16
#define fc_sub16 _mm_sub_epi16
#define fc_max16 _mm_max_epi16
#define fc_min16 _mm_min_epi16
#define fc_mullo16 _mm_mullo_epi16
#define fc_madd16 _mm_madd_epi16
#define fc_add32 _mm_add_epi32
#define fc_zero _mm_setzero_si128
#define fc_set16 _mm_set1_epi16

/* The sum of the four int32 lanes, widened to 64 bits (SSE2 has no sign-extending
 * move, so through memory). */
static inline int64_t fc_hsum32_wide(__m128i v) {
    int32_t lanes[4];
    _mm_storeu_si128((__m128i*)lanes, v);
    return (int64_t)lanes[0] + lanes[1] + lanes[2] + lanes[3];
}

#include "platform/simd_kernels.h"

#endif
