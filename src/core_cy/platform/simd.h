/* The network's vector kernels, chosen by the instruction set the compiler may use.
 *
 * Five kernels on rows of int16 of length n, n a multiple of FC_SIMD_LANES (the
 * widest register's lanes): a network's rows are stored padded with zeros to such
 * a length (nnue.pxi, network_alloc), and lanes that are zero in every row and in
 * the bias stay zero in the accumulator and add nothing to the output:
 *   fc_acc_add / fc_acc_sub           acc += row, acc -= row
 *   fc_acc_copy_add_sub               acc = parent + a0 - s0         (a quiet move)
 *   fc_acc_copy_add_sub_sub           acc = parent + a0 - s0 - s1    (a capture)
 *   fc_acc_refresh                    acc = bias + rows[0] + ... + rows[count-1]
 *   fc_screlu_dot                     sum of clamp(acc, 0, qa)^2 * w, in 64 bits
 *
 * Each instruction set has a header of its own: simd_avx512.h (x86-64-v3 with
 * AVX-512 F and BW), simd_avx2.h (x86-64-v3), simd_sse2.h (every x86-64) and
 * simd_generic.h (plain C, for any other CPU; the compiler vectorises it where it
 * can). All give bit-identical results: int16 sums wrap and the output sums are
 * exact, so the order of the additions does not matter. tests/test_cpu_variants.py compares the variants on the same positions.
 */
#ifndef FIANCHETTO_SIMD_H
#define FIANCHETTO_SIMD_H

#include <stdint.h>

#define FC_SIMD_LANES 32          /* rows are padded to a multiple of this: every kernel's step divides it */
#define FC_REFRESH_CHUNK 128      /* lanes kept in registers while a refresh adds rows */

#if defined(__AVX512F__) && defined(__AVX512BW__)
#include "platform/simd_avx512.h"
#elif defined(__AVX2__)
#include "platform/simd_avx2.h"
#elif defined(__SSE2__) || defined(_M_X64)
#include "platform/simd_sse2.h"
#else
#include "platform/simd_generic.h"
#endif

static const char* fc_simd_kind(void) { return FC_SIMD_KIND; }

#endif
