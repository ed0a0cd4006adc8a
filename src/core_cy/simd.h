/* The network's vector kernels, chosen by the instruction set the compiler may use.
 *
 * Five kernels on rows of int16 of length n (n a multiple of 16, checked when a
 * network loads):
 *   fc_acc_add / fc_acc_sub           acc += row, acc -= row
 *   fc_acc_copy_add_sub               acc = parent + a0 - s0         (a quiet move)
 *   fc_acc_copy_add_sub_sub           acc = parent + a0 - s0 - s1    (a capture)
 *   fc_acc_refresh                    acc = bias + rows[0] + ... + rows[count-1]
 *   fc_screlu_dot                     sum of clamp(acc, 0, qa)^2 * w, in 64 bits
 *
 * Each instruction set has a header of its own: simd_avx2.h (x86-64-v3),
 * simd_sse2.h (every x86-64) and simd_generic.h (plain C, for any other CPU; the
 * compiler vectorises it where it can). All give bit-identical results: int16
 * sums wrap and the output sums are exact, so the order of the additions does not
 * matter. tests/test_cpu_variants.py compares the variants on the same positions.
 */
#ifndef FIANCHETTO_SIMD_H
#define FIANCHETTO_SIMD_H

#include <stdint.h>

#define FC_SIMD_LANES 16          /* int16 lanes per chunk: every kernel steps by this */
#define FC_REFRESH_CHUNK 128      /* lanes kept in registers while a refresh adds rows */

#if defined(__AVX2__)
#include "simd_avx2.h"
#elif defined(__SSE2__) || defined(_M_X64)
#include "simd_sse2.h"
#else
#include "simd_generic.h"
#endif

static const char* fc_simd_kind(void) { return FC_SIMD_KIND; }

#endif
