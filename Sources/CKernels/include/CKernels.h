#ifndef OPENMLKIT_CKERNELS_H
#define OPENMLKIT_CKERNELS_H

#include <stddef.h>
#include <stdint.h>

/// Which SIMD level the CPU offers to these kernels: 0 = none (use the portable Swift path),
/// 1 = AVX2 + FMA, 2 = AVX-512 (F, BW, VL, DQ), 3 = AVX-512 with VNNI (8-bit dot products).
/// Read once; `OPENMLKIT_KERNELS=portable` forces 0, `=avx2` caps it at 1, `=avx512` at 2.
int omk_cpu_level(void);

/// One float GEMM tile of up to 8 rows by 16 columns (`_fma`: AVX2 + FMA, call only when
/// omk_cpu_level() >= 1; `_avx512`: only when it is 2).
///
/// `a[tap * 8 + r]` points at row r's `depth` values for each tap (rows past `rows` must point at
/// valid memory; their results are not stored). `b` is a packed panel: for every (tap, k) in order,
/// 16 consecutive weights. Each output starts from zero and adds every product, rounded, per
/// (tap, k) in that order (a multiply then an add, not a fused multiply-add), then adds `bias[j]`:
/// the order and rounding of LiteRT's builtin float GEMM (Eigen), so results are bit-identical to
/// it. The result is clamped to [lower, upper] and the first `columns` (<= 16) values of each of
/// the first `rows` rows are stored at `c + r * ldc`. `_avx2` needs omk_cpu_level() >= 1,
/// `_avx512` >= 2.
void omk_f32_gemm_8x16_avx2(const float *const *a, size_t rows, size_t taps, size_t depth, const float *b,
                            const float *bias, float lower, float upper, float *c, size_t ldc, size_t columns);
void omk_f32_gemm_8x16_avx512(const float *const *a, size_t rows, size_t taps, size_t depth, const float *b,
                              const float *bias, float lower, float upper, float *c, size_t ldc, size_t columns);
/// Two adjacent panels of omk_f32_gemm_8x16_avx512 in one call (AVX-512; omk_cpu_level() >= 2):
/// `b0` and `b1` are the panels, `bias` and `c` span their 32 columns, all 16 of the first are
/// stored and the first `columns1` (<= 16) of the second. Bit-identical to two 8x16 calls.
void omk_f32_gemm_8x32_avx512(const float *const *a, size_t rows, size_t taps, size_t depth, const float *b0,
                              const float *b1, const float *bias, float lower, float upper, float *c, size_t ldc,
                              size_t columns1);

/// The same product for a single row (`a[tap * 8]`), in the order of LiteRT's matrix-vector
/// product: four partial sums over the k ≡ 0, 1, 2, 3 (mod 4) of the whole (tap, k) sequence,
/// combined as (s0 + s2) + (s1 + s3), then the last taps·depth mod 4 products one by one, then the
/// bias; clamped, and the first `columns` (<= 16) values stored at `c`.
void omk_f32_gemv_16_avx2(const float *const *a, size_t taps, size_t depth, const float *b, const float *bias,
                          float lower, float upper, float *c, size_t columns);
void omk_f32_gemv_16_avx512(const float *const *a, size_t taps, size_t depth, const float *b, const float *bias,
                            float lower, float upper, float *c, size_t columns);

/// Recomputes the outputs of one packed panel that LiteRT's float GEMM (Eigen) does not sum as one
/// running sum: lanes [lane_begin, four_way_begin) in its even/odd order (two partial sums over the
/// even and odd (tap, k) steps up to the last multiple of 8, added, then the rest one by one), lanes
/// [four_way_begin, lane_end) in its four-way order (four partial sums over the steps mod 4 up to
/// the last multiple of 4, combined (s0 + s1) + (s2 + s3), or (s0 + s2) + (s1 + s3) with
/// `gemv_combine` (its matrix-vector order), then the rest); then the bias, clamped.
/// `a[tap * mr + r]` points at row r's `depth` values (r < rows); `b` is the panel ([taps * depth]
/// steps of `nr` weights); `bias` and `c` (row stride `ldc`) start at the panel's first column.
/// Vectorized across the panel's lanes (8 when the wanted lanes fit one aligned group of 8, else 16)
/// and a few rows at a time; products are rounded before they are added. The ISA-neutral entry
/// point calls this CPU's table entry (never NULL); `_portable` is plain C (the compiler's vectors),
/// `_avx2` needs omk_cpu_level() >= 1 and `_avx512` >= 2. All give the same bits.
void omk_f32_gemm_reorder_portable(const float *const *a, size_t mr, size_t rows, size_t taps, size_t depth,
                                   const float *b, size_t nr, size_t lane_begin, size_t lane_end,
                                   size_t four_way_begin, int gemv_combine, const float *bias, float lower,
                                   float upper, float *c, size_t ldc);
void omk_f32_gemm_reorder_avx2(const float *const *a, size_t mr, size_t rows, size_t taps, size_t depth,
                               const float *b, size_t nr, size_t lane_begin, size_t lane_end, size_t four_way_begin,
                               int gemv_combine, const float *bias, float lower, float upper, float *c, size_t ldc);
void omk_f32_gemm_reorder_avx512(const float *const *a, size_t mr, size_t rows, size_t taps, size_t depth,
                                 const float *b, size_t nr, size_t lane_begin, size_t lane_end,
                                 size_t four_way_begin, int gemv_combine, const float *bias, float lower, float upper,
                                 float *c, size_t ldc);
void omk_f32_gemm_reorder(const float *const *a, size_t mr, size_t rows, size_t taps, size_t depth,
                          const float *b, size_t nr, size_t lane_begin, size_t lane_end, size_t four_way_begin,
                          int gemv_combine, const float *bias, float lower, float upper, float *c, size_t ldc);

/// One int16 GEMM tile of 8 rows by 8 columns with int32 accumulators (AVX2 `vpmaddwd`; call only
/// when omk_cpu_level() >= 1). `a[tap * 8 + r]` points at row r's `depth` int16 values per tap;
/// `b` is a packed panel (per tap, per pair of k, 8 interleaved (w[k], w[k+1]) pairs; an odd
/// depth's last pair has a zero partner). The 8x8 wrapping int32 sums are stored at
/// `acc + r * ldacc`.
void omk_q16_gemm_8x8_avx2(const int16_t *const *a, size_t taps, size_t depth, const int16_t *b, int32_t *acc,
                           size_t ldacc);

/// omk_q16_gemm_8x8_avx2 on two adjacent packed panels at once (`b0`, `b1`: columns 0-7 and 8-15 of
/// a 16-column block, whose accumulators land at `acc[r * ldacc + 0..<16]`): the same integers.
/// `_avx512` (vpmaddwd + vpaddd) needs omk_cpu_level() >= 2, `_vnni` (vpdpwssd) >= 3.
void omk_q16_gemm_8x16_avx512(const int16_t *const *a, size_t taps, size_t depth, const int16_t *b0,
                              const int16_t *b1, int32_t *acc, size_t ldacc);
void omk_q16_gemm_8x16_vnni(const int16_t *const *a, size_t taps, size_t depth, const int16_t *b0, const int16_t *b1,
                            int32_t *acc, size_t ldacc);

/// A quantized 8-bit GEMM with its output stage, for `omk_q8_gemm_vnni` / `omk_q8_conv_vnni`.
///
/// `weights` holds the filter as signed bytes packed in column groups of 64 (the last group may be
/// narrower): group g starts at byte `g * ceil(depth / 4) * 256`; inside it, per group of 4 k
/// (depth rounded up to 4, zero past depth), the group's blocks of 16 columns, each column's 4
/// bytes in k order (a group narrower than 64 only at the end, zero past the last column). With
/// `flip_activations` (int8 models) the activations are int8 and are read as `x + 128` (top bit
/// flipped; the packed weights are the int8 weights); otherwise they are uint8 (the packed weights
/// are `w - 128`). Outputs have the activations' type.
///
/// Output row r, column c: `acc = bias[c] + row_scale · Σ_k a[r][k] + Σ_k a'[r][k] · w[k][c]` in
/// wrapping int32 (a' the activations as read; the row term only without `flip_activations`), then
/// LiteRT's GEMM requantization as `omk_requantize_gemm_to_8_avx512` with `multiplier`, `left` (NULL
/// when every left shift is 0) and `shift`, but with `addend` minus `multiplier · 2^31` (the kernel
/// multiplies `acc + 2^31` as unsigned), plus `zero_point`, clamped to [lo, hi] and stored as a
/// byte. Every per-column array holds `columns` rounded up to 64 entries (whole groups are read).
typedef struct {
    const uint8_t *weights;
    size_t depth;
    size_t columns;
    int flip_activations;
    int32_t row_scale;
    const int32_t *bias;
    const int32_t *multiplier;
    const int32_t *left;
    const int64_t *addend;
    const int64_t *shift;
    int32_t zero_point, lo, hi;
} omk_q8_gemm_params;

/// Where CONV_2D reads: an NHWC input of `batch` images of `input_height` x `input_width` x `channels`
/// bytes, the window and the padding before the first row / column (see WindowGeometry); `zero` is
/// the byte a tap in the padding reads (the input zero point).
typedef struct {
    const uint8_t *input;
    size_t batch, input_height, input_width, channels;
    size_t output_height, output_width;
    size_t filter_height, filter_width;
    size_t stride_height, stride_width, dilation_height, dilation_width;
    ptrdiff_t pad_top, pad_left;
    uint8_t zero;
    /// int8 activations: the bytes are copied with their top bit flipped (see omk_q8_gemm_params).
    int flip;
} omk_q8_im2col_params;

/// Where a float CONV_2D reads: an NHWC input of `channels` floats per pixel at `input` (already
/// offset to the group's first channel), `depth` channels per tap (the group's), the window and the
/// padding before the first row / column (see WindowGeometry).
typedef struct {
    const float *input;
    size_t input_height, input_width, channels, depth;
    size_t output_height, output_width;
    size_t filter_height, filter_width;
    size_t stride_height, stride_width, dilation_height, dilation_width;
    ptrdiff_t pad_top, pad_left;
} omk_f32_window;

/// Copies the windows of output pixels `first..<first + count` (batch-major) into rows of
/// `filter_height * filter_width * depth` floats at `scratch` (`[ky][kx][channel]`, zeros for taps
/// in the padding) and points `pointers[r]` at row `r`; rows `count..<mr` repeat the last row.
void omk_f32_gather_rows(const omk_f32_window *g, size_t first, size_t count, size_t mr, float *scratch,
                         const float **pointers);

/// The same windows (`depth == channels`, dilation width 1) as `filter_height` taps of
/// `filter_width * channels` floats each, read in place: `pointers[ky * mr + r]` points into the input
/// where filter row `ky` of pixel `first + r` lies inside it, at `zero` (`filter_width * channels`
/// zeros) where the row is above or below the image, and at a copy in `scratch` (row `r`, filter row
/// `ky`, zeros for the padding) where it crosses the left or right edge. Rows `count..<mr` repeat
/// the last row. The GEMM sums the same products in the same order as over `omk_f32_gather_rows`.
void omk_f32_window_rows(const omk_f32_window *g, size_t first, size_t count, size_t mr, float *scratch,
                         const float *zero, const float **pointers);

/// Bytes of scratch that one `omk_q8_gemm_vnni` or `omk_q8_conv_vnni` call over at most `rows` rows
/// of `depth` bytes needs (a block of rows copied or gathered at a time, plus 64 bytes of slack).
size_t omk_q8_gemm_scratch_bytes(size_t depth, size_t rows);

/// `rows` rows of `depth` bytes at `a + r * lda` (no byte past them is read) times the packed weights'
/// column groups `group_begin..<group_end`, finished into `out + r * ldo + c` (AVX-512 VNNI; call
/// only when omk_cpu_level() >= 3). With `flip_activations`, `scratch` holds
/// `omk_q8_gemm_scratch_bytes(depth, rows)` bytes (the rows are flipped into it a block at a time);
/// otherwise it is not used and may be NULL. Tiles of 6 rows by 64 columns, or 8 rows by up to 48.
void omk_q8_gemm_vnni(const omk_q8_gemm_params *p, const uint8_t *a, size_t lda, size_t rows, size_t group_begin,
                      size_t group_end, uint8_t *out, size_t ldo, uint8_t *scratch);

/// CONV_2D output pixels `row_begin..<row_end` (batch-major) and column groups `group_begin..<group_end`
/// of `p` (whose depth is taps x channels, in (ky, kx, channel) order) through im2col rows in
/// `scratch` (`omk_q8_gemm_scratch_bytes(depth, row_end - row_begin)` bytes); results at
/// `out + pixel * ldo + c` (AVX-512 VNNI; call only when omk_cpu_level() >= 3).
void omk_q8_conv_vnni(const omk_q8_gemm_params *p, const omk_q8_im2col_params *g, size_t row_begin, size_t row_end,
                      size_t group_begin, size_t group_end, uint8_t *out, size_t ldo, uint8_t *scratch);

/// `omk_q8_gemm_vnni` and `omk_q8_conv_vnni` on AVX2 (call only when omk_cpu_level() >= 1): the same
/// parameters, packing, scratch and results, with vpmaddwd on widened bytes (tiles of 4 rows by 8
/// columns); the AVX2 and AVX-512-without-VNNI tables use them.
void omk_q8_gemm_avx2(const omk_q8_gemm_params *p, const uint8_t *a, size_t lda, size_t rows, size_t group_begin,
                      size_t group_end, uint8_t *out, size_t ldo, uint8_t *scratch);
void omk_q8_conv_avx2(const omk_q8_gemm_params *p, const omk_q8_im2col_params *g, size_t row_begin, size_t row_end,
                      size_t group_begin, size_t group_end, uint8_t *out, size_t ldo, uint8_t *scratch);

/// A quantized DEPTHWISE_CONV_2D with depth multiplier 1 on 8-bit NHWC tensors, for
/// omk_q8_dwconv_pack and omk_q8_dwconv_rows: the geometry (as `WindowGeometry`; `channels` is both
/// the input's and the output's) and the output stage's zero point and clamp range.
typedef struct {
    size_t batch, input_height, input_width, channels, output_height, output_width;
    size_t filter_height, filter_width, stride_height, stride_width, dilation_height, dilation_width;
    ptrdiff_t pad_top, pad_left;
    int32_t input_zero_point, output_zero_point, output_min, output_max;
    /// 1 for int8 activations, 0 for uint8.
    int activations_signed;
} omk_q8_dwconv_shape;

/// The geometry of a dynamic-range convolution's int16 input (one image after another, NHWC) for
/// omk_q16_tap_pointers; `zero` holds `channels` zeros for taps in the padding.
typedef struct {
    const int16_t *input;
    const int16_t *zero;
    size_t input_height, input_width, channels, output_height, output_width;
    size_t filter_height, filter_width, stride_height, stride_width, dilation_height, dilation_width;
    ptrdiff_t pad_top, pad_left;
} omk_q16_window;

/// The row pointers of the int16 indirect GEMM for output pixels `first..<first + count`
/// (batch-major): `pointers[tap * mr + r]` is the input pixel that filter tap `tap` (row-major) of
/// pixel `first + r` reads, or `zero` in the padding; rows `count..<mr` repeat the last pixel.
void omk_q16_tap_pointers(const omk_q16_window *g, size_t first, size_t count, size_t mr, const int16_t **pointers);

/// One finished row of a dynamic-range convolution: `out[c] = clamp(acc[c] · (weight_scale[c] ·
/// batch_scale) + bias[c], lower, upper)`, each product rounded before the add, NaN passing the clamp.
void omk_hybrid_finish(const int32_t *acc, size_t count, const float *weight_scale, float batch_scale,
                       const float *bias, float lower, float upper, float *out);
/// omk_hybrid_finish on AVX2 (bit-identical to it; the table's `hybrid_finish` from the AVX2 level on).
void omk_hybrid_finish_avx2(const int32_t *acc, size_t count, const float *weight_scale, float batch_scale,
                            const float *bias, float lower, float upper, float *out);

/// A dynamic-range (hybrid) GEMM on the 8-bit VNNI dot product, for `omk_hybrid_gemm_vnni` and
/// `omk_hybrid_conv_vnni`. The activations are int8 values q, stored as the bytes q + 128; `weights`
/// is an int8 filter packed by omk_q8_pack_weights (group width 64, flip 0, signed, zero point 0)
/// and `column_sums` its sums Σw. Row r belongs to batch `r / rows_per_batch`, quantized with
/// offset `batch_zero[b]` and scale `batch_scale[b]`. Each accumulator is
/// `Σ_k (q − zero) · w = Σ_k (q + 128) · w − (128 + zero) · Σ w` in wrapping int32 (the int16 GEMM's
/// integers exactly), finished as omk_hybrid_finish: `clamp(acc · (weight_scale[c] · batch_scale) +
/// bias[c], lower, upper)`. With `acc` set, the int32 accumulators are stored at `acc + r * ldo + c`
/// instead (the float output is not written).
typedef struct {
    const uint8_t *weights;
    const int32_t *column_sums;
    size_t depth, columns;
    const float *batch_scale;
    const int32_t *batch_zero;
    size_t rows_per_batch;
    const float *weight_scale, *bias;
    float lower, upper;
    int32_t *acc;
} omk_hybrid_gemm_params;

/// Rows `row_begin..<row_end` of `depth` bytes at `a + r * lda` (no byte past them is read) times
/// column groups `group_begin..<group_end`, results at `out + r * ldo + c` (AVX-512 VNNI; the
/// table's `hybrid_gemm`, NULL on CPUs without it).
void omk_hybrid_gemm_vnni(const omk_hybrid_gemm_params *p, const uint8_t *a, size_t lda, size_t row_begin,
                          size_t row_end, size_t group_begin, size_t group_end, float *out, size_t ldo);
/// CONV_2D output pixels `row_begin..<row_end` (batch-major) through im2col rows in `scratch`
/// (`omk_q8_gemm_scratch_bytes(depth, row_end - row_begin)` bytes): `g->input` holds the bytes q + 128,
/// a padding tap reads its image's `batch_zero + 128` (`g->zero` and `g->flip` are ignored; images
/// are `rows_per_batch` = output height × width pixels). Results at `out + pixel * ldo + c` (AVX-512
/// VNNI; the table's `hybrid_conv`).
void omk_hybrid_conv_vnni(const omk_hybrid_gemm_params *p, const omk_q8_im2col_params *g, size_t row_begin,
                          size_t row_end, size_t group_begin, size_t group_end, float *out, size_t ldo,
                          uint8_t *scratch);
/// omk_f32_quantize_i16_avx2's quantization, stored as the bytes `q + 128` that the hybrid VNNI GEMM
/// reads (`out[i] = q + 128`, not `q − offset`; NaN gives q = 0). AVX2; omk_cpu_level() >= 1.
void omk_f32_quantize_u8_hybrid_avx2(const float *x, size_t count, float scale_inv, int32_t offset, int32_t qmin,
                                     int32_t qmax, uint8_t *out);

/// Bytes to allocate for omk_q8_dwconv_pack's buffer with `kernel` 3 (AVX-512 VNNI), 2 (aarch64
/// NEON) or 1 (AVX2);
/// 0 when that kernel does not take this shape (filter taller than 8 rows, or a filter row wider
/// than 64 input columns with its dilation).
size_t omk_q8_dwconv_packed_size(const omk_q8_dwconv_shape *shape, int kernel);

/// Packs the filter and output stage for omk_q8_dwconv_rows into `packed` (omk_q8_dwconv_packed_size
/// bytes, any alignment). `weights` are `[KH][KW][C]` minus the filter's zero point; `bias`,
/// `multiplier`, `shift` and `gemm_rounding` per channel as for omk_requantize_i32. Returns 0 (and
/// the caller keeps its general path) when the kernel cannot give exactly omk_requantize_i32's
/// results: a multiplier of INT32_MIN, a shift outside [-31, 30], or (VNNI) a weight of 255.
/// Portable C; use the kernels the table names (`q8_dwconv_kernel`, `q8_dwconv_fallback`): 3 only
/// when omk_cpu_level() >= 3, 1 when >= 1, 2 only on aarch64.
int omk_q8_dwconv_pack(const omk_q8_dwconv_shape *shape, int kernel, const int16_t *weights, const int32_t *bias,
                       const int32_t *multiplier, const int32_t *shift, const uint8_t *gemm_rounding, void *packed);

/// Output rows `first_row ..< end_row` (counted over batch × output height) of the depthwise
/// convolution packed by omk_q8_dwconv_pack: `acc[c] = Σ (x − zx)·w` over the taps inside the image
/// in wrapping int32, then omk_requantize_i32's output stage, stored as bytes. Reads only the input
/// tensor's `batch × H × W × C` bytes and writes only those rows of the output.
void omk_q8_dwconv_rows(const omk_q8_dwconv_shape *shape, const void *packed, const uint8_t *input, uint8_t *output,
                        size_t first_row, size_t end_row);

/// A quantized DEPTHWISE_CONV_2D on 8-bit NHWC tensors with few channels or a depth multiplier
/// above 1, for omk_q8_dwconv_small_row (q8_dwconv_small.c): the geometry (as `WindowGeometry`),
/// the input's zero point and signedness, and `weights`, the filter `[KH][KW][C]` minus its zero
/// point (C = input_channels · depth_multiplier) tiled along the output row by
/// omk_q8_dwconv_small_tile_weights: `[KH][KW][output_width][C]`.
typedef struct {
    size_t input_height, input_width, input_channels, depth_multiplier;
    size_t output_height, output_width;
    size_t filter_height, filter_width, stride_height, stride_width, dilation_height, dilation_width;
    ptrdiff_t pad_top, pad_left;
    int32_t input_zero_point;
    /// 1 for int8 activations, 0 for uint8.
    int activations_signed;
    const int16_t *weights;
} omk_q8_dwconv_small_params;

/// Columns of the padded input row one output row reads: `(OW − 1)·SW + (KW − 1)·DW + 1`.
size_t omk_q8_dwconv_small_padded_width(const omk_q8_dwconv_small_params *p);
/// int16 elements of scratch one omk_q8_dwconv_small_row call needs.
size_t omk_q8_dwconv_small_scratch(const omk_q8_dwconv_small_params *p);
/// Tiles `filter` (`[KH][KW][C]`) into `tiled` (`[KH][KW][output_width][C]`), the layout `weights` has.
void omk_q8_dwconv_small_tile_weights(const omk_q8_dwconv_small_params *p, const int16_t *filter, int16_t *tiled);

/// The accumulators of output row `row` (counted over batch × output height): `acc[ox·C + c] =
/// Σ (x − zx)·w` over the taps inside the image, in wrapping int32, where input channel `c / M`
/// meets filter channel `c`; no bias, no requantization. `scratch` holds
/// omk_q8_dwconv_small_scratch(p) int16 elements; `acc` holds output_width · C. Baseline C (NEON on
/// aarch64), AVX2 (call only when omk_cpu_level() >= 1) and AVX-512 (>= 2): the same integers.
void omk_q8_dwconv_small_row_portable(const omk_q8_dwconv_small_params *p, const uint8_t *input, size_t row,
                                      int16_t *scratch, int32_t *acc);
void omk_q8_dwconv_small_row_avx2(const omk_q8_dwconv_small_params *p, const uint8_t *input, size_t row,
                                  int16_t *scratch, int32_t *acc);
void omk_q8_dwconv_small_row_avx512(const omk_q8_dwconv_small_params *p, const uint8_t *input, size_t row,
                                    int16_t *scratch, int32_t *acc);

/// An 8-bit MAX_POOL_2D on NHWC tensors for omk_q8_maxpool_rows: the geometry (as `WindowGeometry`,
/// no dilation), the fused activation's clamp range [lo, hi] in the tensor's values, and the type.
typedef struct {
    size_t input_height, input_width, channels, output_height, output_width;
    size_t filter_height, filter_width, stride_height, stride_width;
    ptrdiff_t pad_top, pad_left;
    int32_t lo, hi;
    /// 1 for int8, 0 for uint8.
    int is_signed;
} omk_q8_maxpool_params;

/// Columns of the padded input row one output row reads: `(OW − 1)·SW + KW`; the scratch of
/// omk_q8_maxpool_rows holds this many times `channels` bytes.
size_t omk_q8_maxpool_padded_width(const omk_q8_maxpool_params *p);

/// Output rows `first_row ..< end_row` (counted over batch × output height): each output is the
/// largest input inside its window (the lowest value of the type when none is), clamped to
/// [lo, hi]. Baseline C (NEON on aarch64), AVX2 (call only when omk_cpu_level() >= 1) and AVX-512
/// (>= 2): the same bytes.
void omk_q8_maxpool_rows_portable(const omk_q8_maxpool_params *p, const uint8_t *input, uint8_t *output,
                                  size_t first_row, size_t end_row, uint8_t *scratch);
void omk_q8_maxpool_rows_avx2(const omk_q8_maxpool_params *p, const uint8_t *input, uint8_t *output,
                              size_t first_row, size_t end_row, uint8_t *scratch);
void omk_q8_maxpool_rows_avx512(const omk_q8_maxpool_params *p, const uint8_t *input, uint8_t *output,
                                size_t first_row, size_t end_row, uint8_t *scratch);

/// QUANTIZE float32 to an 8-bit type, LiteRT's vector blocks on x86: for `count` (a multiple of 8)
/// values, `out[i] = clamp(cvt(x[i] · reciprocal) + zero_point, lo, hi)` as a byte, where cvt rounds
/// ties to even and gives INT32_MIN for NaN and values outside int32, and the addition wraps.
/// AVX2: call only when omk_cpu_level() >= 1; AVX-512: when >= 2 (the same bytes).
void omk_q8_quantize_f32_avx2(const float *x, size_t count, float reciprocal, int32_t zero_point, int32_t lo,
                              int32_t hi, uint8_t *out);
void omk_q8_quantize_f32_avx512(const float *x, size_t count, float reciprocal, int32_t zero_point, int32_t lo,
                                int32_t hi, uint8_t *out);

/// The 8-bit output stage, in place: `acc[c] = clamp(requantize(acc[c] + bias[c]) + zero_point, lo, hi)`
/// with wrapping int32 additions, where requantize is LiteRT's `MultiplyByQuantizedMultiplier`
/// (gemm_rounding[c] == 0) or its optimized GEMM's variant whose final rounding shift rounds ties
/// up (gemm_rounding[c] != 0). Portable C; exact integer semantics.
void omk_requantize_i32(int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                        const int32_t *shift, const uint8_t *gemm_rounding, int32_t zero_point, int32_t lo,
                        int32_t hi);

/// `omk_requantize_i32` eight channels at a time (AVX2; call only when omk_cpu_level() >= 1).
/// Multipliers must be non-negative (they always are: Q31 values of positive scales, or 0).
void omk_requantize_i32_avx2(int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                             const int32_t *shift, const uint8_t *gemm_rounding, int32_t zero_point, int32_t lo,
                             int32_t hi);

/// `omk_requantize_i32` sixteen channels at a time, storing the low byte of each result at `out[c]`
/// (for int8 and uint8 outputs, whose [lo, hi] lies in the type's range) and leaving `acc` as it was
/// (AVX-512; call only when omk_cpu_level() >= 2). Multipliers must be non-negative.
void omk_requantize_i32_to_8_avx512(const int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                                    const int32_t *shift, const uint8_t *gemm_rounding, int32_t zero_point, int32_t lo,
                                    int32_t hi, uint8_t *out);

/// `omk_requantize_i32_to_8_avx512` eight channels at a time (AVX2; omk_cpu_level() >= 1).
void omk_requantize_i32_to_8_avx2(const int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                                  const int32_t *shift, const uint8_t *gemm_rounding, int32_t zero_point, int32_t lo,
                                  int32_t hi, uint8_t *out);

/// The same output stage when every channel rounds like LiteRT's optimized GEMM, from parameters
/// prepared per channel (AVX-512; call only when omk_cpu_level() >= 2). Arrays hold whole blocks of
/// 16 channels (count rounded up): `left[c]` = the left shift & 31; for block b, `addend` and `shift`
/// hold at 16b + i (i < 8) channel 16b + 2i and at 16b + 8 + i channel 16b + 2i + 1, with right shift
/// r: `2^30 + (r > 0 ? 2^(30+r) : 0)` and `31 + r`, or `2^62` and `63` when r >= 32 (the result is 0).
void omk_requantize_gemm_to_8_avx512(const int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                                     const int32_t *left, const int64_t *addend, const int64_t *shift,
                                     int32_t zero_point, int32_t lo, int32_t hi, uint8_t *out);
/// `omk_requantize_gemm_to_8_avx512` with the same parameter arrays, eight channels at a time (AVX2;
/// omk_cpu_level() >= 1).
void omk_requantize_gemm_to_8_avx2(const int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                                   const int32_t *left, const int64_t *addend, const int64_t *shift, int32_t zero_point,
                                   int32_t lo, int32_t hi, uint8_t *out);

/// One output pixel of a float depthwise convolution with depth multiplier 1 (AVX2; call only when
/// omk_cpu_level() >= 1). `x` and `w` point at channel 0 of the first valid tap; later taps are
/// `x_step` / `channels` floats apart along a row and `x_row_step` / `w_row_step` between rows. Each
/// channel starts from `bias[c]` and adds x·w per tap in row-major order, the product rounded before
/// the add (LiteRT's builtin order and rounding, no fused multiply-add), and is clamped to
/// [lower, upper] into `out[c]`.
void omk_f32_dwconv_pixel_avx2(const float *x, const float *w, size_t channels, size_t tap_rows,
                              size_t tap_columns, size_t x_step, size_t x_row_step, size_t w_row_step,
                              const float *bias, float lower, float upper, float *out);

/// A run of `count` output pixels of omk_f32_dwconv_pixel_avx2 with the same valid taps: pixel p
/// reads `x + p * pixel_step` and writes `out + p * channels`; each output's order and rounding are
/// omk_f32_dwconv_pixel_avx2's (AVX2; call only when omk_cpu_level() >= 1). A whole 3×3 window keeps
/// its weights in registers; the last channels are masked lanes rather than a scalar loop.
void omk_f32_dwconv_run_avx2(const float *x, const float *w, size_t channels, size_t tap_rows, size_t tap_columns,
                             size_t x_step, size_t x_row_step, size_t w_row_step, size_t pixel_step, size_t count,
                             const float *bias, float lower, float upper, float *out);

/// omk_f32_dwconv_run_avx2 with 16 channels per vector, whole 3×3 and 5×5 windows' weights in
/// registers (AVX-512; call only when omk_cpu_level() >= 2). Same results, bit for bit.
void omk_f32_dwconv_run_avx512(const float *x, const float *w, size_t channels, size_t tap_rows,
                               size_t tap_columns, size_t x_step, size_t x_row_step, size_t w_row_step,
                               size_t pixel_step, size_t count, const float *bias, float lower, float upper,
                               float *out);

/// Float elementwise loops, each in a portable, an AVX2 (omk_cpu_level() >= 1) and an AVX-512
/// (>= 2) build of the same C; all give the same bits. `omk_f32_add`: `y = clamp(a + b)`;
/// `omk_f32_clamp`: `y = clamp(x)` (RELU, RELU6, RELU_N1_TO_1), where clamp is LiteRT's
/// `min(max(v, lower), upper)` with a NaN passing; `omk_f32_prelu`: `rows` rows of `channels`
/// values, `y = x >= 0 ? x : x * alpha[c]`. `y` may be `a`, `b` or `x` (the same element is read
/// before it is written), but no other overlap is allowed.
void omk_f32_add_portable(const float *a, const float *b, float *y, size_t count, float lower, float upper);
void omk_f32_add_avx2(const float *a, const float *b, float *y, size_t count, float lower, float upper);
void omk_f32_add_avx512(const float *a, const float *b, float *y, size_t count, float lower, float upper);
void omk_f32_clamp_portable(const float *x, float *y, size_t count, float lower, float upper);
void omk_f32_clamp_avx2(const float *x, float *y, size_t count, float lower, float upper);
void omk_f32_clamp_avx512(const float *x, float *y, size_t count, float lower, float upper);
void omk_f32_prelu_portable(const float *x, const float *alpha, float *y, size_t rows, size_t channels);
void omk_f32_prelu_avx2(const float *x, const float *alpha, float *y, size_t rows, size_t channels);
void omk_f32_prelu_avx512(const float *x, const float *alpha, float *y, size_t rows, size_t channels);
/// LiteRT's float LOGISTIC for elements in whole blocks of 4 (Eigen's packet formula; the elements
/// past the last block take its scalar `expf` path, which the Swift side runs).
void omk_f32_logistic_portable(const float *x, float *y, size_t count);
void omk_f32_logistic_avx2(const float *x, float *y, size_t count);
void omk_f32_logistic_avx512(const float *x, float *y, size_t count);
/// MAX_POOL_2D of one output pixel over `rows` × `cols` input pixels (`col_step` / `row_step` floats
/// apart), every channel from -FLT_MAX by `acc < v ? v : acc`, then clamped to [lower, upper] (a NaN
/// passes); `out` must not overlap the input.
void omk_f32_max_pixel_portable(const float *first, size_t channels, size_t rows, size_t cols, size_t col_step,
                                size_t row_step, float lower, float upper, float *out);
void omk_f32_max_pixel_avx2(const float *first, size_t channels, size_t rows, size_t cols, size_t col_step,
                            size_t row_step, float lower, float upper, float *out);
void omk_f32_max_pixel_avx512(const float *first, size_t channels, size_t rows, size_t cols, size_t col_step,
                              size_t row_step, float lower, float upper, float *out);

/// A persistent thread pool: `threads - 1` workers that spin briefly between jobs (bounded in time:
/// the CPU's pause hint, then yielding the CPU on every turn), then block until the next job or
/// until the pool is destroyed.
typedef struct omk_pool omk_pool;
/// A task: called once per index, from the caller's thread and the workers.
typedef void (*omk_task_fn)(void *context, size_t index);

/// A pool with `threads` threads in all (the caller counts as one); NULL for fewer than 2 or on failure.
omk_pool *omk_pool_create(size_t threads);
/// Stops and joins the workers and frees the pool (NULL is ignored). No job may be running on it.
void omk_pool_destroy(omk_pool *pool);
/// How many threads a job on the pool uses (1 for NULL).
size_t omk_pool_threads(const omk_pool *pool);
/// The most indices one omk_pool_run job takes (and the most threads a pool has).
#define OMK_POOL_MAX_TASKS 65535
/// Runs fn(context, i) for every i < count on the pool and the calling thread, returning when all
/// are done (1). Each thread starts on its own contiguous share of the indices, claimed one at a
/// time, and then takes the unclaimed ones of the others' shares from their ends, so a slow
/// thread runs fewer of them. Returns 0 without running anything if the pool is NULL or busy with
/// another job, or if count exceeds OMK_POOL_MAX_TASKS; the caller then runs the tasks itself.
int omk_pool_run(omk_pool *pool, omk_task_fn fn, void *context, size_t count);
/// The pool set for the calling thread (NULL if none): the one parallel kernels use.
omk_pool *omk_pool_current(void);
/// Sets the calling thread's pool and returns the previous one (to restore afterwards).
omk_pool *omk_pool_set_current(omk_pool *pool);

/// The int32 sums of one output pixel of a quantized depthwise convolution with depth multiplier 1
/// (AVX2; call only when omk_cpu_level() >= 1), on widened int16 operands: `acc[c] = Σ x·w` over
/// the valid taps, with wrapping int32 additions of exact products. Addressing as in
/// omk_f32_dwconv_pixel_avx2; no bias, no requantization.
void omk_q16_dwconv_pixel_avx2(const int16_t *x, const int16_t *w, size_t channels, size_t tap_rows,
                               size_t tap_columns, size_t x_step, size_t x_row_step, size_t w_row_step,
                               int32_t *acc);

/// The integer parameters of an 8-bit quantized ADD (LiteRT's `ArithmeticParams`): offsets are minus
/// the inputs' zero points and plus the output's; each multiplier is Q31 with a power-of-two `shift`
/// (positive: left), as `FixedPoint.quantizeMultiplier` makes them; `left_shift` is 20.
typedef struct {
    int32_t input1_offset, input2_offset, output_offset, left_shift;
    int32_t input1_multiplier, input1_shift, input2_multiplier, input2_shift;
    int32_t output_multiplier, output_shift;
    int32_t activation_min, activation_max;
} omk_q8_add_params;

/// `out[i] = a[i] + b[i]` for `count` int8 (`is_signed` 1) or uint8 (0) elements, with the integers
/// of LiteRT's optimized vector blocks (int8 `AddElementwiseInt8`, uint8 `AddElementwise`), the same
/// as `QuantizedBinaryParams.addBlockInt8` / `addBlockShiftAfter` lane by lane. Requires no
/// multiplier equal to INT32_MIN and `output_shift >= -31`. AVX-512: call only when
/// omk_cpu_level() >= 2; AVX2: when >= 1. `out` may alias `a` or `b` exactly.
void omk_q8_add_avx512(const void *a, const void *b, void *out, size_t count, int is_signed,
                       const omk_q8_add_params *p);
void omk_q8_add_avx2(const void *a, const void *b, void *out, size_t count, int is_signed,
                     const omk_q8_add_params *p);

/// The lane formulas of LiteRT's 8-bit vector blocks (`omk_q8_binary_params.formula`):
/// ADD with one shift `left_shift + input_shift` before the doubling high multiply (int8
/// `AddElementwiseInt8`); ADD with `<< left_shift` before it and the input shift after (uint8
/// `AddElementwise`, and every `AddScalarBroadcast`); MUL with the 32-bit result saturated to int16
/// (`MulElementwise`, int8 `MulSimpleBroadcast`) or truncated to it (uint8 `MulSimpleBroadcast`'s
/// `vmovn`). In Swift: `addBlockInt8`, `addBlockShiftAfter`, `multiplyBlock(saturating:)`.
enum { OMK_Q8_ADD_COMBINED = 0, OMK_Q8_ADD_SHIFT_AFTER = 1, OMK_Q8_MUL_SATURATING = 2, OMK_Q8_MUL_TRUNCATING = 3 };

/// An 8-bit ADD or MUL: the ADD parameters (MUL uses the offsets, the output multiplier and shift,
/// and the activation range), the lane formula and the element type (`is_signed`: int8, else uint8).
typedef struct {
    omk_q8_add_params q;
    int32_t formula;
    int32_t is_signed;
} omk_q8_binary_params;

/// `runs` runs of `lanes` vector-block lanes: run `r` reads `b + r·stride` and writes
/// `out + r·stride`; its first operand is `a[0..<lanes]` (the same for every run) or, when
/// `a_scalar`, the one element `a[r]`. Each lane as `formula` says, byte-identical to the Swift lane
/// functions. Requires no multiplier equal to INT32_MIN and shifts in [-31, 30]. AVX-512: call only
/// when omk_cpu_level() >= 2; AVX2: when >= 1. `out` may alias `b` exactly (or `a` when not scalar
/// and `runs` is 1).
void omk_q8_binary_avx512(const omk_q8_binary_params *p, const void *a, const void *b, void *out, size_t lanes,
                          size_t runs, size_t stride, int a_scalar);
void omk_q8_binary_avx2(const omk_q8_binary_params *p, const void *a, const void *b, void *out, size_t lanes,
                        size_t runs, size_t stride, int a_scalar);


/// Packs an 8-bit filter `[columns][depth]` (row-major bytes at `src`) for the VNNI GEMM: column
/// groups of `group_width` at `dst + g * group_stride`; in each, per 4-k slot, every column's 4
/// bytes in k order (each byte XOR `flip`), the slot as wide as the group's columns rounded up to
/// 16, zeros for columns past the last and k past `depth`. `sums[c]` receives
/// Σ(w) − depth·zero_point with w read as int8 when `weights_signed`, else as uint8 (wrapping).
/// Every byte of each slot is written; nothing else in `dst` is.
void omk_q8_pack_weights(const uint8_t *src, size_t depth, size_t columns, size_t group_width,
                         size_t group_stride, uint8_t flip, int weights_signed, int32_t zero_point,
                         uint8_t *dst, int32_t *sums);
/// The same packing one 32-bit word at a time (what `omk_q8_pack_weights` does below AVX-512, and
/// for the words its 16x16 blocks leave); the tests compare the two.
void omk_q8_pack_weights_words(const uint8_t *src, size_t depth, size_t columns, size_t group_width,
                               size_t group_stride, uint8_t flip, int weights_signed, int32_t zero_point,
                               uint8_t *dst, int32_t *sums);

#include "hybrid_quantize.h"
#include "omk_flag.h"

/// Converts `count` IEEE binary16 values (2 bytes each, any alignment) to binary32 exactly: every
/// half value, NaN payloads included, maps to the float with the same value and bits. AVX2 when
/// the CPU has it (vectorized), else portable C.
void omk_f16_to_f32(const void *source, float *destination, size_t count);

/// The kernels one CPU runs, one entry per operation, filled once (pthread_once) from the CPU's
/// features: x86 cpuid (AVX2 + FMA, AVX-512 F/BW/VL/DQ, VNNI); aarch64 NEON always, with the
/// dot-product (SDOT/UDOT) and I8MM (USDOT/SUDOT) variants of the 8-bit GEMM where the CPU reports
/// them (Linux: getauxval; Apple: sysctlbyname `hw.optional.arm.FEAT_DotProd` / `FEAT_I8MM`).
/// `OPENMLKIT_KERNELS` lowers the choice, never raises it: `portable` (no C SIMD kernel), `avx2`,
/// `avx512` on x86; `neon`, `dotprod`, `i8mm` on aarch64 (a value for the other architecture, or an
/// unknown one, changes nothing). A NULL entry means "no C kernel here: use the portable Swift
/// path"; the requantization, float-reorder and float elementwise entries are never NULL (portable C at worst). Each entry has the contract
/// of the ISA-specific function documented below; the ISA-neutral `omk_*` entry points call them.
typedef struct {
    /// A short name of the choice ("avx512+vnni", "neon+dotprod", "portable", ...).
    const char *name;
    /// The x86 level as `omk_cpu_level` reports it (0 on other CPUs).
    int x86_level;
    /// aarch64: 0 none (portable), 1 NEON, 2 NEON + dot product, 3 NEON + dot product + I8MM.
    int arm_level;
    void (*f32_gemm_8x16)(const float *const *a, size_t rows, size_t taps, size_t depth, const float *b,
                          const float *bias, float lower, float upper, float *c, size_t ldc, size_t columns);
    void (*f32_gemm_8x32)(const float *const *a, size_t rows, size_t taps, size_t depth, const float *b0,
                          const float *b1, const float *bias, float lower, float upper, float *c, size_t ldc,
                          size_t columns1);
    void (*f32_gemv_16)(const float *const *a, size_t taps, size_t depth, const float *b, const float *bias,
                        float lower, float upper, float *c, size_t columns);
    void (*f32_dwconv_pixel)(const float *x, const float *w, size_t channels, size_t tap_rows, size_t tap_columns,
                             size_t x_step, size_t x_row_step, size_t w_row_step, const float *bias, float lower,
                             float upper, float *out);
    void (*f32_gemm_reorder)(const float *const *a, size_t mr, size_t rows, size_t taps, size_t depth,
                             const float *b, size_t nr, size_t lane_begin, size_t lane_end, size_t four_way_begin,
                             int gemv_combine, const float *bias, float lower, float upper, float *c, size_t ldc);
    void (*f32_add)(const float *a, const float *b, float *y, size_t count, float lower, float upper);
    void (*f32_clamp)(const float *x, float *y, size_t count, float lower, float upper);
    void (*f32_prelu)(const float *x, const float *alpha, float *y, size_t rows, size_t channels);
    void (*f32_logistic)(const float *x, float *y, size_t count);
    void (*f32_max_pixel)(const float *first, size_t channels, size_t rows, size_t cols, size_t col_step,
                          size_t row_step, float lower, float upper, float *out);
    void (*f32_dwconv_run)(const float *x, const float *w, size_t channels, size_t tap_rows, size_t tap_columns,
                           size_t x_step, size_t x_row_step, size_t w_row_step, size_t pixel_step, size_t count,
                           const float *bias, float lower, float upper, float *out);
    void (*q16_gemm_8x8)(const int16_t *const *a, size_t taps, size_t depth, const int16_t *b, int32_t *acc,
                         size_t ldacc);
    void (*q16_gemm_8x16)(const int16_t *const *a, size_t taps, size_t depth, const int16_t *b0, const int16_t *b1,
                          int32_t *acc, size_t ldacc);
    void (*q16_dwconv_pixel)(const int16_t *x, const int16_t *w, size_t channels, size_t tap_rows,
                             size_t tap_columns, size_t x_step, size_t x_row_step, size_t w_row_step, int32_t *acc);
    void (*q8_gemm)(const omk_q8_gemm_params *p, const uint8_t *a, size_t lda, size_t rows, size_t group_begin,
                    size_t group_end, uint8_t *out, size_t ldo, uint8_t *scratch);
    void (*q8_conv)(const omk_q8_gemm_params *p, const omk_q8_im2col_params *g, size_t row_begin, size_t row_end,
                    size_t group_begin, size_t group_end, uint8_t *out, size_t ldo, uint8_t *scratch);
    void (*requantize_i32)(int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                           const int32_t *shift, const uint8_t *gemm_rounding, int32_t zero_point, int32_t lo,
                           int32_t hi);
    void (*requantize_i32_to_8)(const int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                                const int32_t *shift, const uint8_t *gemm_rounding, int32_t zero_point,
                                int32_t lo, int32_t hi, uint8_t *out);
    void (*requantize_gemm_to_8)(const int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                                 const int32_t *left, const int64_t *addend, const int64_t *shift,
                                 int32_t zero_point, int32_t lo, int32_t hi, uint8_t *out);
    void (*q8_add)(const void *a, const void *b, void *out, size_t count, int is_signed,
                   const omk_q8_add_params *p);
    void (*q8_binary)(const omk_q8_binary_params *p, const void *a, const void *b, void *out, size_t lanes,
                      size_t runs, size_t stride, int a_scalar);
    /// The `kernel` argument of omk_q8_dwconv_packed_size / _pack to try first, then second (0: none).
    int q8_dwconv_kernel, q8_dwconv_fallback;
    void (*q8_dwconv_small_row)(const omk_q8_dwconv_small_params *p, const uint8_t *input, size_t row,
                                int16_t *scratch, int32_t *acc);
    void (*q8_maxpool_rows)(const omk_q8_maxpool_params *p, const uint8_t *input, uint8_t *output, size_t first_row,
                            size_t end_row, uint8_t *scratch);
    void (*q8_quantize_f32)(const float *x, size_t count, float reciprocal, int32_t zero_point, int32_t lo, int32_t hi,
                            uint8_t *out);
    /// Dynamic-range GEMM and CONV_2D on the 8-bit dot product (NULL without AVX-512 VNNI: the
    /// hybrid kernels then keep their int16 GEMM).
    void (*hybrid_gemm)(const omk_hybrid_gemm_params *p, const uint8_t *a, size_t lda, size_t row_begin,
                        size_t row_end, size_t group_begin, size_t group_end, float *out, size_t ldo);
    void (*hybrid_conv)(const omk_hybrid_gemm_params *p, const omk_q8_im2col_params *g, size_t row_begin,
                        size_t row_end, size_t group_begin, size_t group_end, float *out, size_t ldo,
                        uint8_t *scratch);
    /// omk_hybrid_finish, vectorized where the level allows (every entry bit-identical to it).
    void (*hybrid_finish)(const int32_t *acc, size_t count, const float *weight_scale, float batch_scale,
                          const float *bias, float lower, float upper, float *out);
    /// The hybrid int16 path's activation quantization (omk_f32_quantize_i16_avx2's integers; NULL
    /// below the AVX2 level, where the portable loop runs).
    void (*hybrid_quantize_i16)(const float *x, size_t count, float scale_inv, int32_t offset, int32_t qmin,
                                int32_t qmax, int16_t *out);
} omk_kernel_table;

/// This CPU's table (filled on the first call, thread-safe; never NULL).
const omk_kernel_table *omk_kernels(void);

/// The table of one named choice ("portable", "avx2", "avx512", "avx512+vnni", "neon", "dotprod",
/// "i8mm") into `out`: 1, or 0 when this CPU cannot run it (for tests that run every variant).
int omk_kernel_table_named(const char *name, omk_kernel_table *out);

/// ISA-neutral entry points: each calls this CPU's table entry (which must not be NULL: the caller
/// checks `omk_kernels()` when it prepares a node). `omk_q8_gemm_scratch_bytes` sizes scratch for
/// both `omk_q8_gemm` and `omk_q8_conv` on every architecture.
void omk_f32_gemm_8x16(const float *const *a, size_t rows, size_t taps, size_t depth, const float *b,
                       const float *bias, float lower, float upper, float *c, size_t ldc, size_t columns);
void omk_f32_gemv_16(const float *const *a, size_t taps, size_t depth, const float *b, const float *bias,
                     float lower, float upper, float *c, size_t columns);
void omk_f32_dwconv_pixel(const float *x, const float *w, size_t channels, size_t tap_rows, size_t tap_columns,
                          size_t x_step, size_t x_row_step, size_t w_row_step, const float *bias, float lower,
                          float upper, float *out);
void omk_f32_add(const float *a, const float *b, float *y, size_t count, float lower, float upper);
void omk_f32_clamp(const float *x, float *y, size_t count, float lower, float upper);
void omk_f32_prelu(const float *x, const float *alpha, float *y, size_t rows, size_t channels);
void omk_f32_logistic(const float *x, float *y, size_t count);
void omk_f32_max_pixel(const float *first, size_t channels, size_t rows, size_t cols, size_t col_step, size_t row_step,
                       float lower, float upper, float *out);
void omk_f32_dwconv_run(const float *x, const float *w, size_t channels, size_t tap_rows, size_t tap_columns,
                        size_t x_step, size_t x_row_step, size_t w_row_step, size_t pixel_step, size_t count,
                        const float *bias, float lower, float upper, float *out);
void omk_q16_gemm_8x8(const int16_t *const *a, size_t taps, size_t depth, const int16_t *b, int32_t *acc,
                      size_t ldacc);
void omk_q16_gemm_8x16(const int16_t *const *a, size_t taps, size_t depth, const int16_t *b0, const int16_t *b1,
                       int32_t *acc, size_t ldacc);
void omk_q16_dwconv_pixel(const int16_t *x, const int16_t *w, size_t channels, size_t tap_rows, size_t tap_columns,
                          size_t x_step, size_t x_row_step, size_t w_row_step, int32_t *acc);
void omk_q8_gemm(const omk_q8_gemm_params *p, const uint8_t *a, size_t lda, size_t rows, size_t group_begin,
                 size_t group_end, uint8_t *out, size_t ldo, uint8_t *scratch);
void omk_q8_conv(const omk_q8_gemm_params *p, const omk_q8_im2col_params *g, size_t row_begin, size_t row_end,
                 size_t group_begin, size_t group_end, uint8_t *out, size_t ldo, uint8_t *scratch);
void omk_requantize(int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier, const int32_t *shift,
                    const uint8_t *gemm_rounding, int32_t zero_point, int32_t lo, int32_t hi);
void omk_requantize_to_8(const int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                         const int32_t *shift, const uint8_t *gemm_rounding, int32_t zero_point, int32_t lo,
                         int32_t hi, uint8_t *out);
void omk_requantize_gemm_to_8(const int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                              const int32_t *left, const int64_t *addend, const int64_t *shift, int32_t zero_point,
                              int32_t lo, int32_t hi, uint8_t *out);
void omk_q8_add(const void *a, const void *b, void *out, size_t count, int is_signed, const omk_q8_add_params *p);
void omk_q8_binary(const omk_q8_binary_params *p, const void *a, const void *b, void *out, size_t lanes, size_t runs,
                   size_t stride, int a_scalar);
void omk_q8_dwconv_small_row(const omk_q8_dwconv_small_params *p, const uint8_t *input, size_t row,
                             int16_t *scratch, int32_t *acc);
void omk_q8_maxpool_rows(const omk_q8_maxpool_params *p, const uint8_t *input, uint8_t *output, size_t first_row,
                         size_t end_row, uint8_t *scratch);
void omk_q8_quantize_f32(const float *x, size_t count, float reciprocal, int32_t zero_point, int32_t lo, int32_t hi,
                         uint8_t *out);

#endif
