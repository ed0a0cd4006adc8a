/* The network's kernels with AVX2 (simd.h): the x86-64-v3 variant. Sixteen
 * int16 lanes a register, one register a chunk. */
#ifndef FIANCHETTO_SIMD_AVX2_H
#define FIANCHETTO_SIMD_AVX2_H

#include <immintrin.h>

#define FC_SIMD_KIND "AVX2"

typedef __m256i fc_vec;
#define FC_VEC_LANES 16
#define fc_load(p) _mm256_loadu_si256((const __m256i*)(p))
#define fc_store(p, v) _mm256_storeu_si256((__m256i*)(p), (v))
#define fc_add16 _mm256_add_epi16
#define fc_sub16 _mm256_sub_epi16
#define fc_max16 _mm256_max_epi16
#define fc_min16 _mm256_min_epi16
#define fc_mullo16 _mm256_mullo_epi16
#define fc_madd16 _mm256_madd_epi16
#define fc_add32 _mm256_add_epi32
#define fc_zero _mm256_setzero_si256
#define fc_set16 _mm256_set1_epi16

/* The sum of the eight int32 lanes, widened to 64 bits first. */
static inline int64_t fc_hsum32_wide(__m256i v) {
    __m256i s = _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(v)),
                                 _mm256_cvtepi32_epi64(_mm256_extracti128_si256(v, 1)));
    __m128i t = _mm_add_epi64(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
    return _mm_cvtsi128_si64(t) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(t, t));
}

#include "platform/simd_kernels.h"

#endif
