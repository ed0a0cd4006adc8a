/* The network's kernels with AVX-512 F and BW (simd.h): the avx512 variant
 * (x86-64-v3 with AVX-512 F and BW; variants.py). Thirty-two int16 lanes a
 * register, one register a chunk. */
#ifndef FIANCHETTO_SIMD_AVX512_H
#define FIANCHETTO_SIMD_AVX512_H

#include <immintrin.h>

#define FC_SIMD_KIND "AVX-512"

typedef __m512i fc_vec;
#define FC_VEC_LANES 32
#define fc_load(p) _mm512_loadu_si512((const void*)(p))
#define fc_store(p, v) _mm512_storeu_si512((void*)(p), (v))
#define fc_add16 _mm512_add_epi16
#define fc_sub16 _mm512_sub_epi16
#define fc_max16 _mm512_max_epi16
#define fc_min16 _mm512_min_epi16
#define fc_mullo16 _mm512_mullo_epi16
#define fc_madd16 _mm512_madd_epi16
#define fc_add32 _mm512_add_epi32
#define fc_zero _mm512_setzero_si512
#define fc_set16 _mm512_set1_epi16

/* The sum of the sixteen int32 lanes, widened to 64 bits first. */
static inline int64_t fc_hsum32_wide(__m512i v) {
    __m512i low = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(v));
    __m512i high = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(v, 1));
    return _mm512_reduce_add_epi64(_mm512_add_epi64(low, high));
}

#include "platform/simd_kernels.h"

#endif
