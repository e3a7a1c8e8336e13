"""Float LOGISTIC, TANH, SOFTMAX and LOG_SOFTMAX over dense grids, special values and tensor sizes around
LiteRT's SIMD blocks of 4: these cases must match LiteRT bit for bit (`SingleOperatorTests` checks every
case whose name starts with "exact_"), because a dynamic-range layer after them turns one ulp into a quantum."""

import numpy as np

from opmodel import Case, inp, out

CASES = []

_rng = np.random.default_rng(20261126)
_SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-38, -1e-38, 1e-20, -1e-20,
                      3.4e38, -3.4e38, 1e10, -1e10, 9.0, -9.0, 18.0, -18.0, 16.6355324, 16.6355336, -104.0,
                      -104.00001, -103.99999, 7.90738964, -7.90738964, 8.0, -8.0, 88.7, -88.7, 0.5, -0.5],
                     dtype=np.float32)
_GRID = np.arange(-20 * 256, 20 * 256 + 1, dtype=np.float32) / 256  # every 1/256 in [-20, 20]
_SMALL = (_rng.uniform(-1, 1, 400) * 2.0 ** _rng.integers(-60, 0, 400)).astype(np.float32)
_WIDE = _rng.uniform(-150, 150, 400).astype(np.float32)
_BITS = _rng.integers(0, 2**32, size=3000, dtype=np.uint64).astype(np.uint32).view(np.float32)
_BITS = _BITS[np.isfinite(_BITS)]  # random bit patterns: every exponent, denormals included

for op in ["LOGISTIC", "TANH"]:
    low = op.lower()
    values = np.concatenate([_GRID, _SPECIALS, _SMALL, _WIDE, _BITS])
    CASES.append(Case(f"exact_{low}_grid", op, [inp("float32", [len(values)], values=values.tolist())],
                      [out("float32")], tolerance=0))
    # the same grid with a tail of 3 (blocks of 4 and the scalar remainder)
    CASES.append(Case(f"exact_{low}_grid_tail3", op, [inp("float32", [len(values) - 1], values=values[1:].tolist())],
                      [out("float32")], tolerance=0))
    for n in [1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 1000]:
        CASES.append(Case(f"exact_{low}_n{n}", op, [inp("float32", [n], low=-20, high=20)], [out("float32")],
                          tolerance=0))
    CASES.append(Case(f"exact_{low}_rank4", op, [inp("float32", [2, 3, 5, 7], low=-12, high=12)], [out("float32")],
                      tolerance=0))
    CASES.append(Case(f"exact_{low}_specials_n{len(_SPECIALS)}", op,
                      [inp("float32", [len(_SPECIALS)], values=_SPECIALS.tolist())], [out("float32")], tolerance=0))
    CASES.append(Case(f"exact_{low}_specials_tail", op,
                      [inp("float32", [len(_SPECIALS) - 3], values=_SPECIALS[3:].tolist())], [out("float32")],
                      tolerance=0))

for depth in [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 100, 1001]:
    for rows in [1, 3]:
        CASES.append(Case(f"exact_softmax_d{depth}_r{rows}", "SOFTMAX", [inp("float32", [rows, depth], low=-10, high=10)],
                          [out("float32")], options=("SoftmaxOptions", {"beta": 1.0}), tolerance=0))
        CASES.append(Case(f"exact_log_softmax_d{depth}_r{rows}", "LOG_SOFTMAX",
                          [inp("float32", [rows, depth], low=-10, high=10)], [out("float32")], tolerance=0))
for beta in [0.5, 2.0, 0.1, -1.0, 3.7]:
    b = str(beta).replace(".", "_").replace("-", "neg")
    CASES.append(Case(f"exact_softmax_beta{b}", "SOFTMAX", [inp("float32", [5, 13], low=-8, high=8)],
                      [out("float32")], options=("SoftmaxOptions", {"beta": beta}), tolerance=0))
CASES.append(Case("exact_softmax_rank4", "SOFTMAX", [inp("float32", [2, 3, 4, 6], low=-30, high=30)],
                  [out("float32")], options=("SoftmaxOptions", {"beta": 1.0}), tolerance=0))
CASES.append(Case("exact_log_softmax_rank4", "LOG_SOFTMAX", [inp("float32", [2, 3, 4, 6], low=-30, high=30)],
                  [out("float32")], tolerance=0))
CASES.append(Case("exact_softmax_wide_range", "SOFTMAX", [inp("float32", [4, 50], low=-200, high=200)],
                  [out("float32")], options=("SoftmaxOptions", {"beta": 1.0}), tolerance=0))
CASES.append(Case("exact_log_softmax_wide_range", "LOG_SOFTMAX", [inp("float32", [4, 50], low=-200, high=200)],
                  [out("float32")], tolerance=0))
_ROWS = np.array([[0.0, -np.inf, 3.0, -np.inf, 1.0, 2.5, -1e30, 7.0],
                  [-np.inf, -np.inf, -np.inf, 0.5, -100.0, -200.0, 88.0, 1e-40],
                  [1e30, -1e30, 0.0, 1.0, 5.0, -5.0, 1e-45, -0.0]], dtype=np.float32)
CASES.append(Case("exact_softmax_extremes", "SOFTMAX", [inp("float32", [3, 8], values=_ROWS.tolist())],
                  [out("float32")], options=("SoftmaxOptions", {"beta": 1.0}), tolerance=0))
CASES.append(Case("exact_log_softmax_extremes", "LOG_SOFTMAX", [inp("float32", [3, 8], values=_ROWS.tolist())],
                  [out("float32")], tolerance=0))
CASES.append(Case("exact_softmax_extremes_tail", "SOFTMAX", [inp("float32", [3, 7], values=_ROWS[:, 1:].tolist())],
                  [out("float32")], options=("SoftmaxOptions", {"beta": 0.75}), tolerance=0))
# many rows of an odd length: rows split over threads, rows starting at every alignment
CASES.append(Case("exact_softmax_many_rows", "SOFTMAX", [inp("float32", [41, 205], low=-12, high=12)],
                  [out("float32")], options=("SoftmaxOptions", {"beta": 1.3}), tolerance=0))
CASES.append(Case("exact_log_softmax_many_rows", "LOG_SOFTMAX", [inp("float32", [41, 205], low=-12, high=12)],
                  [out("float32")], tolerance=0))
