"""References for tools/make_custom_op_models.py: numpy transcriptions of MediaPipe's custom operators
and TensorFlow's raw audio ops.

The numpy functions follow the definitions in MediaPipe's C++ sources (mediapipe/util/tflite/operations/)
step by step: float32 where MediaPipe computes in float, float64 where its double literals promote the
arithmetic, and the same summation order, so that a faithful kernel reproduces them bit for bit.
"""

from __future__ import annotations

import math
import struct

import numpy as np

F32 = np.float32

# ---------------------------------------------------------------------------------------------
# numpy transcriptions of MediaPipe's definitions

ACTIVATION_RANGE = {0: (-np.finfo(F32).max, np.finfo(F32).max), 1: (0.0, np.finfo(F32).max), 2: (-1.0, 1.0),
                    3: (0.0, 6.0)}


def _pool_geometry(params: bytes, size: int, axis: int, unpool: bool = False) -> tuple[int, int]:
    padding, sw, sh, fw, fh, _ = struct.unpack("<6i", params[:24])
    stride, filt = (sh, fh) if axis == 0 else (sw, fw)
    if unpool:
        out_size = size * filt
        pad = ((size - 1) * stride + filt - out_size) // 2 if (size - 1) * stride + filt - out_size > 0 else 0
        return out_size, pad
    if padding == 1:
        out_size = (size + stride - 1) // stride
    else:
        out_size = (size - filt + stride) // stride if padding == 2 else 0
    total = (out_size - 1) * stride + filt - size
    return out_size, max(0, int(total / 2))


def np_max_pool_argmax(params: bytes, x: np.ndarray) -> list[np.ndarray]:
    _, sw, sh, fw, fh, act = struct.unpack("<6i", params[:24])
    n, h, w, c = x.shape
    oh, ph = _pool_geometry(params, h, 0)
    ow, pw = _pool_geometry(params, w, 1)
    lo, hi = ACTIVATION_RANGE[act]
    out_v = np.zeros((n, oh, ow, c), F32)
    out_i = np.zeros((n, oh, ow, c), F32)
    for b in range(n):
        for oy in range(oh):
            for ox in range(ow):
                for ch in range(c):
                    x0, y0 = ox * sw - pw, oy * sh - ph
                    best, bx, by = -np.finfo(F32).max, 0, 0
                    for fy in range(max(0, -y0), min(fh, h - y0)):
                        for fx in range(max(0, -x0), min(fw, w - x0)):
                            v = x[b, y0 + fy, x0 + fx, ch]
                            if v > best:
                                best, bx, by = v, fx, fy
                    out_v[b, oy, ox, ch] = min(max(best, lo), hi)
                    out_i[b, oy, ox, ch] = F32(by * fw + bx) + F32(0.1)
    return [out_v, out_i]


def np_max_unpool(params: bytes, x: np.ndarray, idx: np.ndarray) -> list[np.ndarray]:
    _, sw, sh, fw, fh, _ = struct.unpack("<6i", params[:24])
    n, h, w, c = x.shape
    oh, ph = _pool_geometry(params, h, 0, unpool=True)
    ow, pw = _pool_geometry(params, w, 1, unpool=True)
    result = np.zeros((n, oh, ow, c), F32)
    for b in range(n):
        for y in range(h):
            for xx in range(w):
                for ch in range(c):
                    k = int(idx[b, y, xx, ch])
                    result[b, y * sh - ph + k // fw, xx * sw - pw + k % fw, ch] = x[b, y, xx, ch]
    return [result]


def _dot_xy1(row: np.ndarray, x: F32, y: F32) -> F32:
    """MediaPipe's float4 dot product with (x, y, 0, 1), summed left to right in float."""
    s = F32(x * row[0]) + F32(y * row[1])
    s = F32(s + F32(F32(0) * row[2]))
    return F32(s + row[3])


def np_transform_landmarks(version: int, options: dict, lm: np.ndarray, m: np.ndarray) -> list[np.ndarray]:
    m = m.reshape(-1).astype(F32)
    if version == 1:
        dims, scale = options.get("dimensions", 3), F32(options.get("scale", 1.0))
    else:
        dims, scale = lm.shape[2], F32(1.0)
    xr = np.array([m[0], m[1], m[2], F32(m[3] * scale)], F32)
    yr = np.array([m[4], m[5], m[6], F32(m[7] * scale)], F32)
    flat = lm.reshape(-1).astype(F32)
    result = flat.copy()
    for o in range(0, flat.size, dims):
        result[o] = _dot_xy1(xr, flat[o], flat[o + 1])
        result[o + 1] = _dot_xy1(yr, flat[o], flat[o + 1])
    return [result.reshape(lm.shape)]


def np_transform_tensor(version: int, size: tuple[int, int], x: np.ndarray, m: np.ndarray) -> list[np.ndarray]:
    m = m.reshape(-1).astype(F32)
    xr, yr = m[0:4].copy(), m[4:8].copy()
    if version == 2:  # align-corners correction, computed in double as MediaPipe's literals promote it
        xr[3] = F32(float(xr[3]) + (float(xr[0]) * 0.5 + float(xr[1]) * 0.5 - 0.5))
        yr[3] = F32(float(yr[3]) + (float(yr[0]) * 0.5 + float(yr[1]) * 0.5 - 0.5))
    _, h, w, c = x.shape
    oh, ow = size
    result = np.zeros((1, oh, ow, c), F32)

    def read(yy: int, xx: int, ch: int) -> F32:
        return F32(0) if yy < 0 or xx < 0 or yy >= h or xx >= w else x[0, yy, xx, ch]

    for oy in range(oh):
        for ox in range(ow):
            tx, ty = _dot_xy1(xr, F32(ox), F32(oy)), _dot_xy1(yr, F32(ox), F32(oy))
            if tx < 0 or tx > F32(w - 1) or ty < 0 or ty > F32(h - 1):
                continue
            fx, fy = np.floor(tx), np.floor(ty)
            rc, lc = F32(tx - fx), F32(ty - fy)
            for ch in range(c):
                q11, q21 = read(int(fy), int(fx), ch), read(int(fy), int(fx) + 1, ch)
                q12, q22 = read(int(fy) + 1, int(fx), ch), read(int(fy) + 1, int(fx) + 1, ch)
                upper = F32((1.0 - float(rc)) * float(q11) + float(F32(rc * q21)))
                lower = F32((1.0 - float(rc)) * float(q12) + float(F32(rc * q22)))
                result[0, oy, ox, ch] = F32(float(F32(lc * lower)) + (1.0 - float(lc)) * float(upper))
    return [result]


def _matmul_f32(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    n = a.shape[0]
    r = np.zeros((n, n), F32)
    for i in range(n):
        for j in range(n):
            s = F32(0)
            for k in range(n):
                s = F32(s + F32(a[i, k] * b[k, j]))
            r[i, j] = s
    return r


def _cos(v: F32) -> F32:
    return F32(math.cos(float(v)))


def _sin(v: F32) -> F32:
    return F32(math.sin(float(v)))


def np_landmarks_to_matrix_v1(o: dict, lm: np.ndarray) -> list[np.ndarray]:
    d = lm.reshape(-1).astype(F32)

    def xy(i: int) -> tuple[F32, F32]:
        return d[i * 3], d[i * 3 + 1]

    lx, ly = xy(o["left_rotation_idx"])
    rx, ry = xy(o["right_rotation_idx"])
    alpha = F32(-F32(math.atan(float(F32(F32(ry - ly) / F32(rx - lx))))))
    ca, sa = _cos(alpha), _sin(alpha)
    mx, my, nx, ny = F32(-100000), F32(-100000), F32(100000), F32(100000)
    subset = o["subset"]
    pairs = [(subset[2 * i], subset[2 * i + 1]) for i in range(len(subset) // 2)]
    if len(subset) % 2:
        pairs.append((subset[-1], subset[-1]))
    for pair in pairs:
        for k in pair:
            x, y = xy(k)
            rxv = F32(F32(x * ca) - F32(y * sa))
            ryv = F32(F32(x * sa) + F32(y * ca))
            mx, my, nx, ny = max(mx, rxv), max(my, ryv), min(nx, rxv), min(ny, ryv)
    mult, rng = F32(o["bbox_size_multiplier"]), o["landmarks_range"]
    bw, bh = F32(F32(mx - nx) * mult), F32(F32(my - ny) * mult)
    scale = np.array([[F32(bw / F32(rng)), 0, 0], [0, F32(bh / F32(rng)), 0], [0, 0, 1]], F32)
    midx, midy = F32(float(F32(mx + nx)) / 2.0), F32(float(F32(my + ny)) / 2.0)
    cn, sn = _cos(F32(-alpha)), _sin(F32(-alpha))
    rmx = F32(F32(midx * cn) - F32(midy * sn))
    rmy = F32(F32(midx * sn) + F32(midy * cn))
    rot = np.array([[cn, -sn, F32(float(F32(rmx / F32(rng))) * 2.0 - 1.0)],
                    [sn, cn, F32(float(F32(rmy / F32(rng))) * 2.0 - 1.0)], [0, 0, 1]], F32)
    ih, iw = o["input_hw"]
    oh, ow = o["output_hw"]
    to_rel = np.array([[2.0 / (ow - 1.0), 0, -1], [0, 2.0 / (oh - 1.0), -1], [0, 0, 1]], F32)
    to_abs = np.array([[(iw - 1.0) / 2.0, 0, (iw - 1.0) / 2.0],
                       [0, (ih - 1.0) / 2.0, (ih - 1.0) / 2.0], [0, 0, 1]], F32)
    itm = _matmul_f32(_matmul_f32(_matmul_f32(to_abs, rot), scale), to_rel)
    r = np.array([itm[0, 0], itm[0, 1], 0, itm[0, 2], itm[1, 0], itm[1, 1], 0, itm[1, 2],
                  itm[2, 0], itm[2, 1], itm[2, 2], 0, 0, 0, 0, 1], F32)
    return [r.reshape(1, 4, 4)]


def np_landmarks_to_matrix_v2(o: dict, lm: np.ndarray) -> list[np.ndarray]:
    d = lm.reshape(-1).astype(F32)

    def xy(i: int) -> tuple[F32, F32]:
        return d[i * 3], d[i * 3 + 1]

    lx, ly = xy(o["left_rotation_idx"])
    rx, ry = xy(o["right_rotation_idx"])
    rotation = F32(math.atan2(float(F32(ry - ly)), float(F32(rx - lx))))
    rotation = F32(F32(o["target_rotation_radians"]) - rotation)
    idx = o["subset_idxs"]
    pairs = [(idx[2 * i], idx[2 * i + 1]) for i in range(len(idx) // 2)]
    if len(idx) % 2:
        pairs.append((idx[-1], idx[-1]))
    pts = [xy(k) for p in pairs for k in p]
    c, s = _cos(rotation), _sin(rotation)
    ci, si = _cos(F32(-rotation)), _sin(F32(-rotation))

    def apply(m: tuple[F32, F32, F32, F32], x: F32, y: F32) -> tuple[F32, F32]:
        # Mat3 * (x, y, 1), summed left to right from 0 in float
        ax = F32(F32(F32(F32(0) + F32(m[0] * x)) + F32(m[1] * y)) + F32(0))
        ay = F32(F32(F32(F32(0) + F32(m[2] * x)) + F32(m[3] * y)) + F32(0))
        return ax, ay

    rotated = [apply((c, -s, s, c), x, y) for x, y in pts]
    mx, my = rotated[0]
    nx, ny = rotated[0]
    for x, y in rotated[1:]:
        mx, my = (x if mx < x else mx), (y if my < y else my)
        nx, ny = (x if nx > x else nx), (y if ny > y else ny)
    cw, chh = F32(mx - nx), F32(my - ny)
    cx, cy = F32(F32(nx + mx) / F32(2)), F32(F32(ny + my) / F32(2))
    cx, cy = apply((ci, -si, si, ci), cx, cy)
    ow, oh = o["output_width"], o["output_height"]
    r = F32(-rotation)
    cr, sr = _cos(r), _sin(r)
    sx = F32(F32(F32(o["scale_x"]) * cw) / F32(ow))
    sy = F32(F32(F32(o["scale_y"]) * chh) / F32(oh))
    t = np.eye(4, dtype=F32)
    for m in (
        np.array([[1, 0, 0, cx], [0, 1, 0, cy], [0, 0, 1, 0], [0, 0, 0, 1]], F32),
        np.array([[cr, -sr, 0, 0], [sr, cr, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], F32),
        np.array([[sx, 0, 0, 0], [0, sy, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], F32),
        np.array([[1, 0, 0, -1.0 * (ow / 2.0)], [0, 1, 0, -1.0 * (oh / 2.0)], [0, 0, 1, 0], [0, 0, 0, 1]], F32),
    ):
        t = _matmul_f32(t, m)
    return [t.reshape(1, 4, 4)]


# ---------------------------------------------------------------------------------------------
# TensorFlow references for the audio ops (imported lazily: the MediaPipe cases need no TensorFlow)


def tf_spectrogram(o: dict, x: np.ndarray) -> list[np.ndarray]:
    import tensorflow as tf  # noqa: PLC0415

    return [tf.raw_ops.AudioSpectrogram(input=x, window_size=o["window_size"], stride=o["stride"],
                                        magnitude_squared=o["magnitude_squared"]).numpy()]


def tf_mfcc(o: dict, spectrogram: np.ndarray, rate: int) -> list[np.ndarray]:
    import tensorflow as tf  # noqa: PLC0415

    # LiteRT reads the frequency limits with AsInt64 (they are truncated); TF takes them as floats.
    return [tf.raw_ops.Mfcc(spectrogram=spectrogram, sample_rate=rate,
                            upper_frequency_limit=float(int(o["upper_frequency_limit"])),
                            lower_frequency_limit=float(int(o["lower_frequency_limit"])),
                            filterbank_channel_count=o["filterbank_channel_count"],
                            dct_coefficient_count=o["dct_coefficient_count"]).numpy()]
