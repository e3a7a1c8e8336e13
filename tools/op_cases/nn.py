"""Normalizations (L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION) and L2_POOL_2D."""

from opmodel import Case, inp, out

CASES = []

# L2_NORMALIZATION: over the last axis; quantized outputs must have scale 1/128 (zero point 128 / 0).
for shape in ([6], [3, 5], [2, 3, 4], [1, 2, 3, 7]):
    rank = len(shape)
    CASES.append(Case(f"l2_normalization_float32_rank{rank}", "L2_NORMALIZATION", [inp("float32", shape)],
                      [out("float32")], options=("L2NormOptions", {})))
CASES.append(Case("l2_normalization_float32_zeros", "L2_NORMALIZATION",
                  [inp("float32", [2, 4], values=[0.0] * 4 + [1e-8, -2e-8, 0.0, 3e-8])], [out("float32")]))
for rank, shape in [(2, [3, 8]), (4, [1, 2, 2, 5])]:
    CASES.append(Case(f"l2_normalization_uint8_rank{rank}", "L2_NORMALIZATION",
                      [inp("uint8", shape, scale=0.05, zero_point=120)],
                      [out("uint8", scale=1 / 128, zero_point=128)], version=1))
    CASES.append(Case(f"l2_normalization_int8_rank{rank}", "L2_NORMALIZATION",
                      [inp("int8", shape, scale=0.04, zero_point=-5)],
                      [out("int8", scale=1 / 128, zero_point=0)], version=2))
CASES.append(Case("l2_normalization_uint8_at_zero_point", "L2_NORMALIZATION",
                  [inp("uint8", [2, 3], values=[128, 128, 128, 129, 128, 127], scale=0.1, zero_point=128)],
                  [out("uint8", scale=1 / 128, zero_point=128)]))
CASES.append(Case("l2_normalization_int8_large_depth", "L2_NORMALIZATION",
                  [inp("int8", [2, 300], scale=0.1, zero_point=3)],
                  [out("int8", scale=1 / 128, zero_point=0)], version=2))

# LOCAL_RESPONSE_NORMALIZATION: float32, rank 4, over channels.
for name, radius, bias, alpha, beta, shape in [
    ("default", 5, 1.0, 1.0, 0.5, [1, 2, 3, 8]),
    ("radius2", 2, 2.0, 0.5, 0.75, [2, 3, 2, 6]),
    ("radius0", 0, 1.0, 0.2, 1.0, [1, 2, 2, 4]),
    ("beta_one_wide", 3, 0.5, 0.1, 1.0, [1, 1, 2, 20]),
    ("beta_general", 1, 1.5, 2.0, 0.3, [1, 3, 3, 5]),
]:
    CASES.append(Case(f"local_response_normalization_float32_{name}", "LOCAL_RESPONSE_NORMALIZATION",
                      [inp("float32", shape)], [out("float32")],
                      options=("LocalResponseNormalizationOptions",
                               {"radius": radius, "bias": bias, "alpha": alpha, "beta": beta})))

# L2_POOL_2D: float32 NHWC.
for name, padding, sw, sh, fw, fh, act, shape in [
    ("valid_2x2", 1, 2, 2, 2, 2, 0, [1, 4, 4, 3]),
    ("same_3x3_s1", 0, 1, 1, 3, 3, 0, [2, 5, 4, 2]),
    ("same_3x2_s2x1", 0, 2, 1, 2, 3, 0, [1, 5, 7, 3]),
    ("valid_relu6", 1, 1, 1, 2, 2, 3, [1, 3, 3, 4]),
    ("same_relu_n1_to_1", 0, 2, 2, 3, 3, 2, [1, 6, 6, 1]),
    ("same_relu", 0, 3, 3, 2, 2, 1, [1, 7, 5, 2]),
]:
    CASES.append(Case(f"l2_pool_2d_float32_{name}", "L2_POOL_2D", [inp("float32", shape)], [out("float32")],
                      options=("Pool2DOptions", {"padding": padding, "strideW": sw, "strideH": sh,
                                                 "filterWidth": fw, "filterHeight": fh,
                                                 "fusedActivationFunction": act})))

# Types and options LiteRT refuses for these (recorded as refused; they document the boundary).
CASES.append(Case("l2_normalization_float32_relu", "L2_NORMALIZATION", [inp("float32", [2, 4])], [out("float32")],
                  options=("L2NormOptions", {"fusedActivationFunction": 1})))
CASES.append(Case("l2_normalization_int16", "L2_NORMALIZATION", [inp("int16", [2, 4], scale=0.01, zero_point=0)],
                  [out("int16", scale=1 / 128, zero_point=0)], version=2))
CASES.append(Case("local_response_normalization_uint8", "LOCAL_RESPONSE_NORMALIZATION",
                  [inp("uint8", [1, 2, 2, 4], scale=0.1, zero_point=128)], [out("uint8", scale=0.01, zero_point=0)],
                  options=("LocalResponseNormalizationOptions", {"radius": 1, "bias": 1.0, "alpha": 1.0, "beta": 0.5})))
for dtype in ("uint8", "int8"):
    CASES.append(Case(f"l2_pool_2d_{dtype}", "L2_POOL_2D", [inp(dtype, [1, 4, 4, 2], scale=0.1, zero_point=0)],
                      [out(dtype, scale=0.1, zero_point=0)],
                      options=("Pool2DOptions", {"padding": 1, "strideW": 2, "strideH": 2, "filterWidth": 2,
                                                 "filterHeight": 2})))
CASES.append(Case("l2_pool_2d_float32_tanh_activation", "L2_POOL_2D", [inp("float32", [1, 4, 4, 2])], [out("float32")],
                  options=("Pool2DOptions", {"padding": 1, "strideW": 2, "strideH": 2, "filterWidth": 2, "filterHeight": 2,
                                             "fusedActivationFunction": 4})))
CASES.append(Case("l2_normalization_uint8_rank1", "L2_NORMALIZATION", [inp("uint8", [9], scale=0.02, zero_point=100)],
                  [out("uint8", scale=1 / 128, zero_point=128)]))
CASES.append(Case("l2_normalization_int8_rank3_small_values", "L2_NORMALIZATION",
                  [inp("int8", [2, 2, 5], low=-3, high=3, scale=0.5, zero_point=0)],
                  [out("int8", scale=1 / 128, zero_point=0)], version=2))
CASES.append(Case("local_response_normalization_float32_radius_beyond_depth", "LOCAL_RESPONSE_NORMALIZATION",
                  [inp("float32", [1, 2, 2, 3])], [out("float32")],
                  options=("LocalResponseNormalizationOptions", {"radius": 7, "bias": 0.5, "alpha": 0.3, "beta": 0.6})))
