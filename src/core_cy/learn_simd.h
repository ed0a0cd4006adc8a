/* The trainer's output layer on float32 rows (api_learn.pxi: output_forward and
 * output_backward), with the vector instructions the variant may use.
 *
 *   fc_f32_screlu_dot(acc, w, n)             sum of c^2 w, c = clamp(acc, 0, 1)
 *   fc_f32_screlu_backward(acc, w, dw, g, n) dw += g c^2; acc = 2 g w c where c < 1, else 0
 *
 * n is a multiple of 16 (the hidden size). The sums of the vector forms are
 * taken in another order than the plain C one, so they differ in the last bits
 * of a float; the trainer's results are not bit for bit those of another variant.
 */
#ifndef FIANCHETTO_LEARN_SIMD_H
#define FIANCHETTO_LEARN_SIMD_H

#if defined(__AVX2__)
#include <immintrin.h>

static inline float fc_f32_screlu_dot(const float* acc, const float* w, int n) {
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
    __m256 sum0 = _mm256_setzero_ps(), sum1 = _mm256_setzero_ps();
    for (int i = 0; i < n; i += 16) {
        __m256 c0 = _mm256_min_ps(_mm256_max_ps(_mm256_loadu_ps(acc + i), zero), one);
        __m256 c1 = _mm256_min_ps(_mm256_max_ps(_mm256_loadu_ps(acc + i + 8), zero), one);
        sum0 = _mm256_add_ps(sum0, _mm256_mul_ps(_mm256_mul_ps(c0, c0), _mm256_loadu_ps(w + i)));
        sum1 = _mm256_add_ps(sum1, _mm256_mul_ps(_mm256_mul_ps(c1, c1), _mm256_loadu_ps(w + i + 8)));
    }
    __m256 s = _mm256_add_ps(sum0, sum1);
    __m128 t = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
    t = _mm_add_ps(t, _mm_movehl_ps(t, t));
    t = _mm_add_ss(t, _mm_shuffle_ps(t, t, 1));
    return _mm_cvtss_f32(t);
}

static inline void fc_f32_screlu_backward(float* acc, const float* w, float* dw, float g, int n) {
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
    const __m256 gv = _mm256_set1_ps(g), g2 = _mm256_set1_ps(2.0f * g);
    for (int i = 0; i < n; i += 8) {
        __m256 c = _mm256_min_ps(_mm256_max_ps(_mm256_loadu_ps(acc + i), zero), one);
        _mm256_storeu_ps(dw + i, _mm256_add_ps(_mm256_loadu_ps(dw + i), _mm256_mul_ps(_mm256_mul_ps(gv, c), c)));
        __m256 slope = _mm256_mul_ps(_mm256_mul_ps(g2, _mm256_loadu_ps(w + i)), c);
        _mm256_storeu_ps(acc + i, _mm256_and_ps(_mm256_cmp_ps(c, one, _CMP_LT_OQ), slope));
    }
}

#elif defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>

static inline float fc_f32_screlu_dot(const float* acc, const float* w, int n) {
    const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f);
    __m128 sum0 = _mm_setzero_ps(), sum1 = _mm_setzero_ps();
    for (int i = 0; i < n; i += 8) {
        __m128 c0 = _mm_min_ps(_mm_max_ps(_mm_loadu_ps(acc + i), zero), one);
        __m128 c1 = _mm_min_ps(_mm_max_ps(_mm_loadu_ps(acc + i + 4), zero), one);
        sum0 = _mm_add_ps(sum0, _mm_mul_ps(_mm_mul_ps(c0, c0), _mm_loadu_ps(w + i)));
        sum1 = _mm_add_ps(sum1, _mm_mul_ps(_mm_mul_ps(c1, c1), _mm_loadu_ps(w + i + 4)));
    }
    __m128 t = _mm_add_ps(sum0, sum1);
    t = _mm_add_ps(t, _mm_movehl_ps(t, t));
    t = _mm_add_ss(t, _mm_shuffle_ps(t, t, 1));
    return _mm_cvtss_f32(t);
}

static inline void fc_f32_screlu_backward(float* acc, const float* w, float* dw, float g, int n) {
    const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f);
    const __m128 gv = _mm_set1_ps(g), g2 = _mm_set1_ps(2.0f * g);
    for (int i = 0; i < n; i += 4) {
        __m128 c = _mm_min_ps(_mm_max_ps(_mm_loadu_ps(acc + i), zero), one);
        _mm_storeu_ps(dw + i, _mm_add_ps(_mm_loadu_ps(dw + i), _mm_mul_ps(_mm_mul_ps(gv, c), c)));
        __m128 slope = _mm_mul_ps(_mm_mul_ps(g2, _mm_loadu_ps(w + i)), c);
        _mm_storeu_ps(acc + i, _mm_and_ps(_mm_cmplt_ps(c, one), slope));
    }
}

#else

static inline float fc_f32_clamp01(float a) { return a < 0.0f ? 0.0f : (a > 1.0f ? 1.0f : a); }

static inline float fc_f32_screlu_dot(const float* acc, const float* w, int n) {
    float sum = 0.0f;
    for (int i = 0; i < n; i++) {
        float c = fc_f32_clamp01(acc[i]);
        sum += c * c * w[i];
    }
    return sum;
}

static inline void fc_f32_screlu_backward(float* acc, const float* w, float* dw, float g, int n) {
    for (int i = 0; i < n; i++) {
        float c = fc_f32_clamp01(acc[i]);
        dw[i] += g * c * c;
        acc[i] = c < 1.0f ? 2.0f * g * w[i] * c : 0.0f;
    }
}

#endif
#endif
