#include "CKernels.h"

#include <string.h>

// Packing runs once per model load, over every weight of every CONV_2D / FULLY_CONNECTED layer, so
// it is written to touch each destination byte once, in order: every 4-k slot of a column group is
// one run of 4 bytes per column, and the padding (columns past the last, k past the depth) is
// written as zeros in the same pass instead of clearing the buffer first.

void omk_q8_pack_weights(const uint8_t *src, size_t depth, size_t columns, size_t group_width,
                         size_t group_stride, uint8_t flip, int weights_signed, int32_t zero_point,
                         uint8_t *dst, int32_t *sums) {
    const size_t quads = (depth + 3) / 4;
    const uint32_t flips = (uint32_t)flip * 0x01010101u;
    for (size_t first = 0; first < columns; first += group_width) {
        const size_t in_group = columns - first < group_width ? columns - first : group_width;
        // A slot holds whole blocks of 16 columns (fewer in a narrower last group).
        const size_t slot_columns = (in_group + 15) / 16 * 16;
        uint8_t *group = dst + (first / group_width) * group_stride;
        for (size_t q = 0; q < quads; q++) {
            uint8_t *slot = group + q * slot_columns * 4;
            const size_t k = 4 * q, valid = depth - k < 4 ? depth - k : 4;
            for (size_t c = 0; c < slot_columns; c++) {
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
        for (size_t c = 0; c < in_group; c++) {
            const uint8_t *row = src + (first + c) * depth;
            // Unsigned arithmetic: the sum wraps like LiteRT's int32 sums, without undefined behaviour.
            uint32_t sum = 0;
            if (weights_signed) {
                for (size_t i = 0; i < depth; i++) sum += (uint32_t)(int32_t)(int8_t)row[i];
            } else {
                for (size_t i = 0; i < depth; i++) sum += (uint32_t)row[i];
            }
            sums[first + c] = (int32_t)(sum - (uint32_t)depth * (uint32_t)zero_point);
        }
    }
}
