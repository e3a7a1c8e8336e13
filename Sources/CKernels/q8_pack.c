#include "CKernels.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define OMK_PACK_AVX512 __attribute__((target("avx512f,avx512bw")))
#endif

// Packing runs once per model load, over every weight of every CONV_2D / FULLY_CONNECTED layer, so
// it is written to touch each destination byte once: every 4-k slot of a column group is one run of
// 4 bytes per column, and the padding (columns past the last, k past the depth) is written as zeros
// in the same pass instead of clearing the buffer first.
//
// The 4 bytes of one column and one slot are a 32-bit word of the source row, so a block of 16
// columns by 16 slots is a 16x16 transpose of words: with AVX-512, 16 row loads, 64 shuffles and
// 16 slot stores per KiB instead of 256 gathered words.

/// Slots `[q_begin, q_end)`, columns `[c_begin, c_end)` of one group (columns `>= in_group` are
/// padding), one word at a time.
static void pack_words(const uint8_t *src, size_t depth, size_t first, size_t in_group, size_t slot_columns,
                       size_t q_begin, size_t q_end, size_t c_begin, size_t c_end, uint8_t flip,
                       uint8_t *group) {
    const uint32_t flips = (uint32_t)flip * 0x01010101u;
    for (size_t q = q_begin; q < q_end; q++) {
        uint8_t *slot = group + q * slot_columns * 4;
        const size_t k = 4 * q, valid = depth - k < 4 ? depth - k : 4;
        for (size_t c = c_begin; c < c_end; c++) {
            uint32_t four = 0;
            if (c < in_group) {
                const uint8_t *row = src + (first + c) * depth + k;
                if (valid == 4) {
                    memcpy(&four, row, 4);
                    four ^= flips;
                } else {
                    uint8_t bytes[4] = {0, 0, 0, 0};
                    for (size_t i = 0; i < valid; i++) bytes[i] = row[i] ^ flip;
                    memcpy(&four, bytes, 4);
                }
            }
            memcpy(slot + 4 * c, &four, 4);
        }
    }
}

#ifdef OMK_PACK_AVX512
/// 16 whole columns (rows of `src` from `rows`) by 16 whole slots starting at slot `q0`.
static OMK_PACK_AVX512 void pack_block16(const uint8_t *rows, size_t depth, size_t q0, size_t slot_bytes,
                                         uint32_t flips, uint8_t *dst) {
    __m512i r[16], t[16], u[16];
    for (int i = 0; i < 16; i++) r[i] = _mm512_loadu_si512((const void *)(rows + (size_t)i * depth + 4 * q0));
    // Pairs of rows interleaved by word, then by pairs of words: u[4i + j], lane L holds the words
    // 4L + j of rows 4i..4i+3.
    for (int i = 0; i < 8; i++) {
        t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 4; i++) {
        u[4 * i + 0] = _mm512_unpacklo_epi64(t[4 * i + 0], t[4 * i + 2]);
        u[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i + 0], t[4 * i + 2]);
        u[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
        u[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
    }
    // Then a 4x4 transpose of 128-bit lanes: slot 4L + j gathers lane L of u[j], u[4 + j], u[8 + j],
    // u[12 + j].
    const __m512i flip = _mm512_set1_epi32((int)flips);
    for (int j = 0; j < 4; j++) {
        const __m512i x0 = _mm512_shuffle_i32x4(u[j], u[4 + j], 0x44);
        const __m512i x1 = _mm512_shuffle_i32x4(u[j], u[4 + j], 0xEE);
        const __m512i x2 = _mm512_shuffle_i32x4(u[8 + j], u[12 + j], 0x44);
        const __m512i x3 = _mm512_shuffle_i32x4(u[8 + j], u[12 + j], 0xEE);
        const __m512i w[4] = {_mm512_shuffle_i32x4(x0, x2, 0x88), _mm512_shuffle_i32x4(x0, x2, 0xDD),
                              _mm512_shuffle_i32x4(x1, x3, 0x88), _mm512_shuffle_i32x4(x1, x3, 0xDD)};
        for (int l = 0; l < 4; l++) {
            _mm512_storeu_si512((void *)(dst + (size_t)(4 * l + j) * slot_bytes), _mm512_xor_si512(w[l], flip));
        }
    }
}
#endif

/// Σ row[i] over `depth` bytes, read as int8 when `is_signed` (else uint8), wrapping like int32.
static uint32_t row_sum(const uint8_t *row, size_t depth, int is_signed) {
    uint32_t sum = 0;
    if (is_signed) {
        for (size_t i = 0; i < depth; i++) sum += (uint32_t)(int32_t)(int8_t)row[i];
    } else {
        for (size_t i = 0; i < depth; i++) sum += (uint32_t)row[i];
    }
    return sum;
}

#ifdef OMK_PACK_AVX512
/// `row_sum` 64 bytes at a time: `vpsadbw` against zero adds 8 bytes into a 64-bit lane; an int8
/// byte with its top bit flipped is the byte + 128, so signed sums subtract 128 per byte.
static OMK_PACK_AVX512 uint32_t row_sum_avx512(const uint8_t *row, size_t depth, int is_signed) {
    const __m512i flip = _mm512_set1_epi8(is_signed ? (char)0x80 : 0);
    __m512i acc = _mm512_setzero_si512();
    size_t i = 0;
    for (; i + 64 <= depth; i += 64) {
        const __m512i x = _mm512_xor_si512(_mm512_loadu_si512((const void *)(row + i)), flip);
        acc = _mm512_add_epi64(acc, _mm512_sad_epu8(x, _mm512_setzero_si512()));
    }
    uint32_t sum = (uint32_t)_mm512_reduce_add_epi64(acc) - (is_signed ? 128u * (uint32_t)i : 0u);
    return sum + row_sum(row + i, depth - i, is_signed);
}
#endif

static void pack(const uint8_t *src, size_t depth, size_t columns, size_t group_width, size_t group_stride,
                 uint8_t flip, int weights_signed, int32_t zero_point, uint8_t *dst, int32_t *sums, int wide) {
    const size_t quads = (depth + 3) / 4;
    for (size_t first = 0; first < columns; first += group_width) {
        const size_t in_group = columns - first < group_width ? columns - first : group_width;
        // A slot holds whole blocks of 16 columns (fewer in a narrower last group).
        const size_t slot_columns = (in_group + 15) / 16 * 16;
        uint8_t *group = dst + (first / group_width) * group_stride;
        size_t block_quads = 0, block_columns = 0;
#ifdef OMK_PACK_AVX512
        if (wide) {
            block_quads = depth / 64 * 16;
            block_columns = in_group / 16 * 16;
            for (size_t q0 = 0; q0 < block_quads; q0 += 16) {
                for (size_t c0 = 0; c0 < block_columns; c0 += 16) {
                    pack_block16(src + (first + c0) * depth, depth, q0, slot_columns * 4, (uint32_t)flip * 0x01010101u,
                                 group + q0 * slot_columns * 4 + c0 * 4);
                }
            }
        }
#else
        (void)wide;
#endif
        // What the blocks left: the columns past the last whole block in their slots, then the slots
        // past the last whole block for every column.
        pack_words(src, depth, first, in_group, slot_columns, 0, block_quads, block_columns, slot_columns, flip, group);
        pack_words(src, depth, first, in_group, slot_columns, block_quads, quads, 0, slot_columns, flip, group);
        for (size_t c = 0; c < in_group; c++) {
            const uint8_t *row = src + (first + c) * depth;
            // Unsigned arithmetic: the sum wraps like LiteRT's int32 sums, without undefined behaviour.
#ifdef OMK_PACK_AVX512
            const uint32_t sum = wide ? row_sum_avx512(row, depth, weights_signed) : row_sum(row, depth, weights_signed);
#else
            const uint32_t sum = row_sum(row, depth, weights_signed);
#endif
            sums[first + c] = (int32_t)(sum - (uint32_t)depth * (uint32_t)zero_point);
        }
    }
}

void omk_q8_pack_weights(const uint8_t *src, size_t depth, size_t columns, size_t group_width,
                         size_t group_stride, uint8_t flip, int weights_signed, int32_t zero_point,
                         uint8_t *dst, int32_t *sums) {
    pack(src, depth, columns, group_width, group_stride, flip, weights_signed, zero_point, dst, sums,
         omk_cpu_level() >= 2);
}

void omk_q8_pack_weights_words(const uint8_t *src, size_t depth, size_t columns, size_t group_width,
                               size_t group_stride, uint8_t flip, int weights_signed, int32_t zero_point,
                               uint8_t *dst, int32_t *sums) {
    pack(src, depth, columns, group_width, group_stride, flip, weights_signed, zero_point, dst, sums, 0);
}
