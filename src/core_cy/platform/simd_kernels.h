/* The network's kernels written once over a vector of int16 lanes (simd.h).
 * Included by simd_sse2.h, simd_avx2.h and simd_avx512.h after they define fc_vec,
 * FC_VEC_LANES and the operations (fc_load, fc_add16, fc_madd16, ...) for their
 * registers. */
#ifndef FIANCHETTO_SIMD_KERNELS_H
#define FIANCHETTO_SIMD_KERNELS_H

#define FC_REFRESH_REGS (FC_REFRESH_CHUNK / FC_VEC_LANES)

static inline void fc_acc_add(int16_t* acc, const int16_t* row, int n) {
    for (int i = 0; i < n; i += FC_VEC_LANES)
        fc_store(acc + i, fc_add16(fc_load(acc + i), fc_load(row + i)));
}

static inline void fc_acc_sub(int16_t* acc, const int16_t* row, int n) {
    for (int i = 0; i < n; i += FC_VEC_LANES)
        fc_store(acc + i, fc_sub16(fc_load(acc + i), fc_load(row + i)));
}

static inline void fc_acc_copy_add_sub(int16_t* acc, const int16_t* parent,
                                       const int16_t* a0, const int16_t* s0, int n) {
    for (int i = 0; i < n; i += FC_VEC_LANES) {
        fc_vec v = fc_add16(fc_load(parent + i), fc_load(a0 + i));
        fc_store(acc + i, fc_sub16(v, fc_load(s0 + i)));
    }
}

static inline void fc_acc_copy_add_sub_sub(int16_t* acc, const int16_t* parent, const int16_t* a0,
                                           const int16_t* s0, const int16_t* s1, int n) {
    for (int i = 0; i < n; i += FC_VEC_LANES) {
        fc_vec v = fc_add16(fc_load(parent + i), fc_load(a0 + i));
        v = fc_sub16(v, fc_load(s0 + i));
        fc_store(acc + i, fc_sub16(v, fc_load(s1 + i)));
    }
}

/* Bias plus every row, FC_REFRESH_CHUNK lanes at a time held in registers, so
 * each chunk of the accumulator is stored once however many pieces there are. */
static inline void fc_acc_refresh(int16_t* acc, const int16_t* bias,
                                  const int16_t* const* rows, int count, int n) {
    fc_vec regs[FC_REFRESH_REGS];
    for (int base = 0; base < n; base += FC_REFRESH_CHUNK) {
        int width = n - base < FC_REFRESH_CHUNK ? n - base : FC_REFRESH_CHUNK;
        int used = width / FC_VEC_LANES;
        for (int k = 0; k < used; k++) regs[k] = fc_load(bias + base + k * FC_VEC_LANES);
        for (int r = 0; r < count; r++) {
            const int16_t* row = rows[r] + base;
            for (int k = 0; k < used; k++) regs[k] = fc_add16(regs[k], fc_load(row + k * FC_VEC_LANES));
        }
        for (int k = 0; k < used; k++) fc_store(acc + base + k * FC_VEC_LANES, regs[k]);
    }
}

/* clamp(acc, 0, qa) = v; v * w in 16 bits (it fits: qa <= 255, |w| <= 127), then
 * (v * w) * v summed in pairs into 32-bit lanes. Two sums for two chains of adds,
 * added, then their lanes added in 64 bits: a lane holds at most n / 4 products
 * of at most 255 * 255 * 127 (with 128-bit registers), under 2^31 up to
 * n = 1024, while the whole sum passes 2^31 from n = 260 on. */
static inline int64_t fc_screlu_dot(const int16_t* acc, const int16_t* w, int n, int16_t qa) {
    const fc_vec zero = fc_zero(), top = fc_set16(qa);
    fc_vec sum0 = fc_zero(), sum1 = fc_zero();
    int i = 0;
    for (; i + 2 * FC_VEC_LANES <= n; i += 2 * FC_VEC_LANES) {
        fc_vec v0 = fc_min16(fc_max16(fc_load(acc + i), zero), top);
        fc_vec v1 = fc_min16(fc_max16(fc_load(acc + i + FC_VEC_LANES), zero), top);
        sum0 = fc_add32(sum0, fc_madd16(fc_mullo16(v0, fc_load(w + i)), v0));
        sum1 = fc_add32(sum1, fc_madd16(fc_mullo16(v1, fc_load(w + i + FC_VEC_LANES)), v1));
    }
    for (; i < n; i += FC_VEC_LANES) {
        fc_vec v = fc_min16(fc_max16(fc_load(acc + i), zero), top);
        sum0 = fc_add32(sum0, fc_madd16(fc_mullo16(v, fc_load(w + i)), v));
    }
    return fc_hsum32_wide(fc_add32(sum0, sum1));
}

#endif
