/* The trainer's float32 kernels (api_learn.pxi: sparse_accumulate, sparse_gradient,
 * output_forward and output_backward), with the vector instructions the variant
 * may use.
 *
 *   fc_f32_sum_rows(dst, bias, rows, count, n) dst = bias + rows[0] + ... + rows[count-1]
 *                                            (bias may be dst: the gradient adds in place)
 *   fc_f32_screlu_dot(acc, w, n)             sum of c^2 w, c = clamp(acc, 0, 1)
 *   fc_f32_screlu_backward(acc, w, dw, db, g, n) dw += g c^2; acc = 2 g w c where c < 1, else 0;
 *                                            db += acc (the first layer's bias gradient)
 *   fc_f32_adam(p, g, m, v, n, ...)          one Adam step of n parameters, then their clip
 *
 * n is the hidden size: a multiple of 16 for the output layer's two, any for
 * fc_f32_sum_rows. The kernels are written once over a vector of float lanes,
 * whose operations the AVX-512, AVX2 and SSE2 blocks below define (as
 * simd_kernels.h is for the network's int16 rows); other CPUs get plain C. fc_f32_sum_rows adds
 * in the same order in every form, so its results are the same to the bit; the
 * output layer's vector sums are taken in another order than the plain C one,
 * so they differ in the last bits of a float.
 */
#ifndef FIANCHETTO_LEARN_SIMD_H
#define FIANCHETTO_LEARN_SIMD_H

/* fc_f32_sum_rows's plain loop over the columns [from, n): every form's tail
 * and the whole of the plain C form. */
static inline void fc_f32_sum_rows_plain(float* dst, const float* bias, const float* const* rows,
                                         int count, int from, int n) {
    for (int j = from; j < n; j++) {
        float v = bias[j];
        for (int f = 0; f < count; f++) v += rows[f][j];
        dst[j] = v;
    }
}

#include <math.h>

/* Adam on parameters [from, n): m = b1 m + c1 g, v = b2 v + c2 g^2 (c1 = 1 - b1,
 * c2 = 1 - b2), p -= step m / (sqrt(v) + eps), then p clamped to [-clip, clip]
 * (clip may be infinite). step holds the learning rate and the bias correction. */
static inline void fc_f32_adam_plain(float* p, const float* g, float* m, float* v, long from, long n,
                                     float b1, float c1, float b2, float c2, float step, float eps,
                                     float clip) {
    for (long i = from; i < n; i++) {
        float mi = b1 * m[i] + c1 * g[i];
        float vi = b2 * v[i] + c2 * (g[i] * g[i]);
        float pi = p[i] - step * mi / (sqrtf(vi) + eps);
        m[i] = mi;
        v[i] = vi;
        p[i] = pi < -clip ? -clip : (pi > clip ? clip : pi);
    }
}

#if defined(__AVX512F__)
#include <immintrin.h>

typedef __m512 fc_f32vec;
#define FC_F32_LANES 16
#define fc_f32_load _mm512_loadu_ps
#define fc_f32_store _mm512_storeu_ps
#define fc_f32_set _mm512_set1_ps
#define fc_f32_add _mm512_add_ps
#define fc_f32_sub _mm512_sub_ps
#define fc_f32_mul _mm512_mul_ps
#define fc_f32_div _mm512_div_ps
#define fc_f32_sqrt _mm512_sqrt_ps
#define fc_f32_min _mm512_min_ps
#define fc_f32_max _mm512_max_ps
#define fc_f32_hsum _mm512_reduce_add_ps
/* x where a < b, else 0. */
#define fc_f32_where_less(a, b, x) _mm512_maskz_mov_ps(_mm512_cmp_ps_mask((a), (b), _CMP_LT_OQ), (x))

#elif defined(__AVX2__)
#include <immintrin.h>

typedef __m256 fc_f32vec;
#define FC_F32_LANES 8
#define fc_f32_load _mm256_loadu_ps
#define fc_f32_store _mm256_storeu_ps
#define fc_f32_set _mm256_set1_ps
#define fc_f32_add _mm256_add_ps
#define fc_f32_sub _mm256_sub_ps
#define fc_f32_mul _mm256_mul_ps
#define fc_f32_div _mm256_div_ps
#define fc_f32_sqrt _mm256_sqrt_ps
#define fc_f32_min _mm256_min_ps
#define fc_f32_max _mm256_max_ps
#define fc_f32_where_less(a, b, x) _mm256_and_ps(_mm256_cmp_ps((a), (b), _CMP_LT_OQ), (x))

/* The sum of the eight lanes. */
static inline float fc_f32_hsum(__m256 s) {
    __m128 t = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
    t = _mm_add_ps(t, _mm_movehl_ps(t, t));
    t = _mm_add_ss(t, _mm_shuffle_ps(t, t, 1));
    return _mm_cvtss_f32(t);
}

#elif defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>

typedef __m128 fc_f32vec;
#define FC_F32_LANES 4
#define fc_f32_load _mm_loadu_ps
#define fc_f32_store _mm_storeu_ps
#define fc_f32_set _mm_set1_ps
#define fc_f32_add _mm_add_ps
#define fc_f32_sub _mm_sub_ps
#define fc_f32_mul _mm_mul_ps
#define fc_f32_div _mm_div_ps
#define fc_f32_sqrt _mm_sqrt_ps
#define fc_f32_min _mm_min_ps
#define fc_f32_max _mm_max_ps
#define fc_f32_where_less(a, b, x) _mm_and_ps(_mm_cmplt_ps((a), (b)), (x))

/* The sum of the four lanes. */
static inline float fc_f32_hsum(__m128 t) {
    t = _mm_add_ps(t, _mm_movehl_ps(t, t));
    t = _mm_add_ss(t, _mm_shuffle_ps(t, t, 1));
    return _mm_cvtss_f32(t);
}
#endif

#ifdef FC_F32_LANES

/* c^2 w over FC_F32_LANES columns from i, added to sum. */
static inline fc_f32vec fc_f32_screlu_term(fc_f32vec sum, const float* acc, const float* w, int i) {
    fc_f32vec c = fc_f32_min(fc_f32_max(fc_f32_load(acc + i), fc_f32_set(0.0f)), fc_f32_set(1.0f));
    return fc_f32_add(sum, fc_f32_mul(fc_f32_mul(c, c), fc_f32_load(w + i)));
}

/* Two sums for two chains of adds, each FC_F32_LANES wide; with 16 lanes a hidden
 * size of an odd multiple of 16 leaves one vector to the first chain. */
static inline float fc_f32_screlu_dot(const float* acc, const float* w, int n) {
    fc_f32vec sum0 = fc_f32_set(0.0f), sum1 = fc_f32_set(0.0f);
    int i = 0;
    for (; i + 2 * FC_F32_LANES <= n; i += 2 * FC_F32_LANES) {
        sum0 = fc_f32_screlu_term(sum0, acc, w, i);
        sum1 = fc_f32_screlu_term(sum1, acc, w, i + FC_F32_LANES);
    }
    for (; i < n; i += FC_F32_LANES) sum0 = fc_f32_screlu_term(sum0, acc, w, i);
    return fc_f32_hsum(fc_f32_add(sum0, sum1));
}

static inline void fc_f32_screlu_backward(float* acc, const float* w, float* dw, float* db, float g, int n) {
    const fc_f32vec zero = fc_f32_set(0.0f), one = fc_f32_set(1.0f);
    const fc_f32vec gv = fc_f32_set(g), g2 = fc_f32_set(2.0f * g);
    for (int i = 0; i < n; i += FC_F32_LANES) {
        fc_f32vec c = fc_f32_min(fc_f32_max(fc_f32_load(acc + i), zero), one);
        fc_f32_store(dw + i, fc_f32_add(fc_f32_load(dw + i), fc_f32_mul(fc_f32_mul(gv, c), c)));
        fc_f32vec slope = fc_f32_where_less(c, one, fc_f32_mul(fc_f32_mul(g2, fc_f32_load(w + i)), c));
        fc_f32_store(acc + i, slope);
        fc_f32_store(db + i, fc_f32_add(fc_f32_load(db + i), slope));
    }
}

static inline void fc_f32_adam(float* p, const float* g, float* m, float* v, long n, float b1, float c1,
                               float b2, float c2, float step, float eps, float clip) {
    const fc_f32vec vb1 = fc_f32_set(b1), vc1 = fc_f32_set(c1), vb2 = fc_f32_set(b2), vc2 = fc_f32_set(c2);
    const fc_f32vec vstep = fc_f32_set(step), veps = fc_f32_set(eps);
    const fc_f32vec hi = fc_f32_set(clip), lo = fc_f32_set(-clip);
    long i = 0;
    for (; i + FC_F32_LANES <= n; i += FC_F32_LANES) {
        fc_f32vec gi = fc_f32_load(g + i);
        fc_f32vec mi = fc_f32_add(fc_f32_mul(vb1, fc_f32_load(m + i)), fc_f32_mul(vc1, gi));
        fc_f32vec vi = fc_f32_add(fc_f32_mul(vb2, fc_f32_load(v + i)), fc_f32_mul(vc2, fc_f32_mul(gi, gi)));
        fc_f32vec shift = fc_f32_div(fc_f32_mul(vstep, mi), fc_f32_add(fc_f32_sqrt(vi), veps));
        fc_f32_store(m + i, mi);
        fc_f32_store(v + i, vi);
        fc_f32_store(p + i, fc_f32_min(fc_f32_max(fc_f32_sub(fc_f32_load(p + i), shift), lo), hi));
    }
    fc_f32_adam_plain(p, g, m, v, i, n, b1, c1, b2, c2, step, eps, clip);
}

/* dst = bias + rows[0] + ... + rows[count-1] over n floats, FC_F32_SUM_WIDTH at a
 * time held in registers, each sum in that order (as the plain loop adds). */
#define FC_F32_SUM_REGS 8
#define FC_F32_SUM_WIDTH (FC_F32_SUM_REGS * FC_F32_LANES)
static inline void fc_f32_sum_rows(float* dst, const float* bias, const float* const* rows, int count, int n) {
    int base = 0;
    for (; base + FC_F32_SUM_WIDTH <= n; base += FC_F32_SUM_WIDTH) {
        fc_f32vec r[FC_F32_SUM_REGS];
        for (int k = 0; k < FC_F32_SUM_REGS; k++) r[k] = fc_f32_load(bias + base + k * FC_F32_LANES);
        for (int f = 0; f < count; f++) {
            const float* row = rows[f] + base;
            for (int k = 0; k < FC_F32_SUM_REGS; k++) r[k] = fc_f32_add(r[k], fc_f32_load(row + k * FC_F32_LANES));
        }
        for (int k = 0; k < FC_F32_SUM_REGS; k++) fc_f32_store(dst + base + k * FC_F32_LANES, r[k]);
    }
    fc_f32_sum_rows_plain(dst, bias, rows, count, base, n);
}

#else

static inline void fc_f32_sum_rows(float* dst, const float* bias, const float* const* rows, int count, int n) {
    fc_f32_sum_rows_plain(dst, bias, rows, count, 0, n);
}

static inline void fc_f32_adam(float* p, const float* g, float* m, float* v, long n, float b1, float c1,
                               float b2, float c2, float step, float eps, float clip) {
    fc_f32_adam_plain(p, g, m, v, 0, n, b1, c1, b2, c2, step, eps, clip);
}

static inline float fc_f32_clamp01(float a) { return a < 0.0f ? 0.0f : (a > 1.0f ? 1.0f : a); }

static inline float fc_f32_screlu_dot(const float* acc, const float* w, int n) {
    float sum = 0.0f;
    for (int i = 0; i < n; i++) {
        float c = fc_f32_clamp01(acc[i]);
        sum += c * c * w[i];
    }
    return sum;
}

static inline void fc_f32_screlu_backward(float* acc, const float* w, float* dw, float* db, float g, int n) {
    for (int i = 0; i < n; i++) {
        float c = fc_f32_clamp01(acc[i]);
        dw[i] += g * c * c;
        acc[i] = c < 1.0f ? 2.0f * g * w[i] * c : 0.0f;
        db[i] += acc[i];
    }
}

#endif
#endif
