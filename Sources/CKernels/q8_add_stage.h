#ifndef OMK_Q8_ADD_STAGE_H
#define OMK_Q8_ADD_STAGE_H
// The per-input stage of LiteRT's 8-bit ADD lanes, shared by q8_add.c and q8_binary.c.

#include <stdint.h>

/// One uniform shift as a left and an arithmetic right shift (one of them 0): NEON's `vshlq_s32` by
/// a signed amount, left wrapping, right truncating (32 or more fills with the sign).
static inline void omk_q8_split_shift(int64_t amount, int32_t *left, int32_t *right) {
    *left = amount >= 0 ? (int32_t)(amount & 31) : 0;
    *right = amount < 0 ? (int32_t)(-amount > 31 ? 31 : -amount) : 0;
}

/// One input of an ADD lane: offset, shifts, doubling high multiply, shifts.
typedef struct {
    int32_t offset, multiplier, pre_left, pre_right, post_left, post_right;
} omk_q8_add_stage;

/// `combined` (int8, `AddElementwiseInt8`): one shift `left_shift + input_shift` before `vqrdmulh`.
/// Otherwise (uint8, `AddElementwise`): `<< left_shift` (wrapping, masked like Swift's `&<<`) before
/// it, then the input shift after it.
static inline omk_q8_add_stage omk_q8_add_input(int32_t offset, int32_t multiplier, int32_t shift, int32_t left_shift,
                                                int combined) {
    omk_q8_add_stage s = {offset, multiplier, 0, 0, 0, 0};
    if (combined) {
        omk_q8_split_shift((int64_t)left_shift + shift, &s.pre_left, &s.pre_right);
    } else {
        s.pre_left = left_shift & 31;
        omk_q8_split_shift(shift, &s.post_left, &s.post_right);
    }
    return s;
}

#endif
