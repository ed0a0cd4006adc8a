/* The network's kernels in plain C (simd.h): the reference the vector headers
 * must match, and the code for CPUs without one. */
#ifndef FIANCHETTO_SIMD_GENERIC_H
#define FIANCHETTO_SIMD_GENERIC_H

#define FC_SIMD_KIND "generic C"

static inline void fc_acc_add(int16_t* acc, const int16_t* row, int n) {
    for (int i = 0; i < n; i++) acc[i] = (int16_t)(acc[i] + row[i]);
}

static inline void fc_acc_sub(int16_t* acc, const int16_t* row, int n) {
    for (int i = 0; i < n; i++) acc[i] = (int16_t)(acc[i] - row[i]);
}

static inline void fc_acc_copy_add_sub(int16_t* acc, const int16_t* parent,
                                       const int16_t* a0, const int16_t* s0, int n) {
    for (int i = 0; i < n; i++) acc[i] = (int16_t)(parent[i] + a0[i] - s0[i]);
}

static inline void fc_acc_copy_add_sub_sub(int16_t* acc, const int16_t* parent, const int16_t* a0,
                                           const int16_t* s0, const int16_t* s1, int n) {
    for (int i = 0; i < n; i++) acc[i] = (int16_t)(parent[i] + a0[i] - s0[i] - s1[i]);
}

static inline void fc_acc_refresh(int16_t* acc, const int16_t* bias,
                                  const int16_t* const* rows, int count, int n) {
    for (int i = 0; i < n; i++) acc[i] = bias[i];
    for (int r = 0; r < count; r++) fc_acc_add(acc, rows[r], n);
}

/* With qa <= 255 and |w| <= 127 the product v * w fits 16 bits (the file loader
 * checks both), so the C below computes what the vector forms compute: a 16-bit
 * multiply, then pairs multiplied by v and added in 32 bits. */
static inline int64_t fc_screlu_dot(const int16_t* acc, const int16_t* w, int n, int16_t qa) {
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
        int16_t v = acc[i] < 0 ? 0 : (acc[i] > qa ? qa : acc[i]);
        int16_t vw = (int16_t)(v * w[i]);
        total += (int32_t)vw * (int32_t)v;
    }
    return total;
}

#endif
