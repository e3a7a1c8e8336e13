#!/usr/bin/env python3
"""EdgeBoxes objectness on the built-in localizer's candidates, measured offline (issue 18).

Edge Boxes (Zitnick and Dollar, "Edge Boxes: Locating Object Proposals from Edges", ECCV 2014)
scores a box by the edge magnitude of the contours wholly inside it, minus what is connected to
contours crossing its border, normalised by (2 * (w + h)) ** kappa, with the box's inner half
subtracted. Here the edges are gradient magnitudes of the L*a*b* working image (160 cells on the
long side, as the Swift localizer's), thinned by non-maximum suppression; edge groups are
8-connected edge cells gathered until their orientation changes by pi/2 in all; neighbouring
groups' affinity is |cos(t_i - t_ij) cos(t_j - t_ij)|^2 (zero below 0.05).

Input: the candidates `mlkit localize-bench --dump-candidates FILE` writes. The localizer's
selection (most salient region first, then the ranked candidates greedily with the overlap,
containment, group and edge group rules) is re-implemented and, with the edge group rule at its default, gives the dumped regions (26 of
27 photos: the offline working image differs in details from Swift's); every ranking
is scored like `mlkit localize-bench` (recall of the min(5, n) most prominent objects at IoU 0.5,
precision, boxes holding two separate objects) on the first 14 photos and the ones held out after
them (13 when the figures in docs/LOCALIZER.md were taken, 20 since the eighth pass).

Usage (numpy and Pillow):
  .build/release/mlkit localize-bench --dump-candidates out/candidates.json
  python3 tools/localization-set/edge_boxes_offline.py out/candidates.json
Figures and conclusions: docs/LOCALIZER.md, "Edge Boxes objectness".
"""
import heapq
import json
import math
import os
import sys

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(HERE, '..', '..', '..', 'shared', 'images')


# --- the working image and its edges ---------------------------------------------------------

def working_lab(path, size=160):
    """L*a*b* cells, area-averaged in linear light, long side `size` (as LabImage)."""
    im = Image.open(path).convert('RGB')
    W, H = im.size
    s = min(1, size / max(W, H))
    w, h = min(W, max(1, round(W * s))), min(H, max(1, round(H * s)))
    a = np.asarray(im).astype(np.float32) / 255
    lin = np.where(a <= 0.04045, a / 12.92, ((a + 0.055) / 1.055) ** 2.4)
    r, g, b = (np.asarray(Image.fromarray(lin[..., c]).resize((w, h), Image.BOX)) for c in range(3))
    x = (0.412456 * r + 0.357576 * g + 0.180438 * b) / 0.95047
    y = 0.212673 * r + 0.715152 * g + 0.072175 * b
    z = (0.019334 * r + 0.119192 * g + 0.950304 * b) / 1.08883
    f = lambda t: np.where(t > 0.008856, np.cbrt(t), t * 7.787 + 16 / 116)
    lab = np.stack([116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))])
    return lab, W / w, H / h


def box_blur(ch, r=1):
    p = np.pad(ch, r, mode='edge')
    out = sum(p[r + dy:r + dy + ch.shape[0], r + dx:r + dx + ch.shape[1]]
              for dy in range(-r, r + 1) for dx in range(-r, r + 1))
    return out / (2 * r + 1) ** 2


def edges(lab, smooth=True, threshold=2.0):
    """Thinned edge magnitude (ΔE per cell, 0 off edges) and gradient direction (mod pi)."""
    if smooth:  # the 3x3 box filter the localizer applies before its cues
        lab = np.stack([box_blur(c) for c in lab])
    p = np.pad(lab, ((0, 0), (1, 1), (1, 1)), mode='edge')
    gx = (p[:, 1:-1, 2:] - p[:, 1:-1, :-2]) / 2
    gy = (p[:, 2:, 1:-1] - p[:, :-2, 1:-1]) / 2
    mag2 = gx ** 2 + gy ** 2
    mag = np.sqrt(mag2.sum(0))
    k = mag2.argmax(0)  # direction of the channel with the strongest gradient
    ii, jj = np.indices(mag.shape)
    theta = np.arctan2(gy[k, ii, jj], gx[k, ii, jj]) % np.pi
    h, w = mag.shape
    pm = np.pad(mag, 1)
    q = np.round(theta / (np.pi / 4)).astype(int) % 4
    keep = np.zeros_like(mag, bool)
    for d, (dy, dx) in {0: (0, 1), 1: (1, 1), 2: (1, 0), 3: (1, -1)}.items():
        a = pm[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]
        b = pm[1 - dy:1 - dy + h, 1 - dx:1 - dx + w]
        keep |= (q == d) & (mag >= a) & (mag >= b)
    return np.where(keep & (mag > threshold), mag, 0.0), theta


def edge_groups(E, theta, limit=np.pi / 2):
    """Edge groups (strongest seeds first) and the affinities of touching groups."""
    h, w = E.shape
    gid = -np.ones((h, w), int)
    groups = []
    for idx in np.argsort(-E, axis=None):
        y, x = divmod(int(idx), w)
        if E[y, x] <= 0:
            break
        if gid[y, x] >= 0:
            continue
        g, total, pixels, stack = len(groups), 0.0, [(y, x)], [(y, x)]
        gid[y, x] = g
        while stack:
            cy, cx = stack.pop()
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    ny, nx = cy + dy, cx + dx
                    if (dy or dx) and 0 <= ny < h and 0 <= nx < w and E[ny, nx] > 0 and gid[ny, nx] < 0:
                        d = abs(theta[ny, nx] - theta[cy, cx])
                        d = min(d, np.pi - d)
                        if total + d <= limit:
                            total += d
                            gid[ny, nx] = g
                            pixels.append((ny, nx))
                            stack.append((ny, nx))
        ys, xs = np.array([p[0] for p in pixels]), np.array([p[1] for p in pixels])
        m = E[ys, xs]
        t = 0.5 * math.atan2((m * np.sin(2 * theta[ys, xs])).sum(), (m * np.cos(2 * theta[ys, xs])).sum())
        groups.append(dict(m=m.sum(), cy=(ys * m).sum() / m.sum(), cx=(xs * m).sum() / m.sum(), t=t,
                           x0=xs.min(), x1=xs.max() + 1, y0=ys.min(), y1=ys.max() + 1))
    affinity = [dict() for _ in groups]
    for y in range(h):
        for x in range(w):
            g = gid[y, x]
            if g < 0:
                continue
            for dy, dx in ((0, 1), (1, 0), (1, 1), (1, -1)):
                ny, nx = y + dy, x + dx
                if 0 <= ny < h and 0 <= nx < w and gid[ny, nx] >= 0 and gid[ny, nx] != g:
                    o = gid[ny, nx]
                    if o in affinity[g]:
                        continue
                    A, B = groups[g], groups[o]
                    tij = math.atan2(B['cy'] - A['cy'], B['cx'] - A['cx'])
                    # a group's contour runs across its gradient direction
                    v = abs(math.cos(A['t'] + np.pi / 2 - tij) * math.cos(B['t'] + np.pi / 2 - tij)) ** 2
                    affinity[g][o] = affinity[o][g] = v if v >= 0.05 else 0.0
    return gid, groups, affinity


def edge_box_score(box, E, gid, groups, affinity, kappa=1.5, inner=True):
    """The Edge Boxes score of a box of cells (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = box
    bw, bh = x1 - x0, y1 - y0
    if bw <= 0 or bh <= 0:
        return 0.0
    ids = np.unique(gid[y0:y1, x0:x1])
    inside, crossing = [], []
    for g in ids[ids >= 0]:
        G = groups[g]
        wholly = G['x0'] >= x0 and G['x1'] <= x1 and G['y0'] >= y0 and G['y1'] <= y1
        (inside if wholly else crossing).append(g)
    # strongest affinity path from a group crossing the border to each group inside
    best = {g: 1.0 for g in crossing}
    inside_set, heap = set(inside), [(-1.0, g) for g in crossing]
    while heap:
        v, g = heapq.heappop(heap)
        v = -v
        if best.get(g, 0) > v:
            continue
        for o, a in affinity[g].items():
            if o in inside_set and v * a > best.get(o, 0):
                best[o] = v * a
                heapq.heappush(heap, (-v * a, o))
    norm = (2 * (bw + bh)) ** kappa
    score = sum((1 - best.get(g, 0.0)) * groups[g]['m'] for g in inside) / norm
    if inner:
        score -= E[y0 + bh // 4:y1 - bh // 4, x0 + bw // 4:x1 - bw // 4].sum() / norm
    return score


def simple_scores(boxes, E, groups, kappa=1.5, inner=True):
    """Edge Boxes scores of many boxes at once, without the affinity paths (every group crossing
    the border counts 0, every group inside 1), for the sliding windows and the refinement."""
    B = np.asarray(boxes).reshape(-1, 4)
    gx0, gx1 = np.array([g['x0'] for g in groups]), np.array([g['x1'] for g in groups])
    gy0, gy1 = np.array([g['y0'] for g in groups]), np.array([g['y1'] for g in groups])
    m = np.array([g['m'] for g in groups])
    table = np.zeros((E.shape[0] + 1, E.shape[1] + 1))
    table[1:, 1:] = E.cumsum(0).cumsum(1)
    out = np.zeros(len(B))
    for k in range(0, len(B), 2000):
        b = B[k:k + 2000]
        wholly = ((gx0[None] >= b[:, :1]) & (gx1[None] <= b[:, 2:3]) & (gy0[None] >= b[:, 1:2])
                  & (gy1[None] <= b[:, 3:4]))
        s = (wholly * m[None]).sum(1)
        bw, bh = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
        if inner:
            x0, x1, y0, y1 = b[:, 0] + bw // 4, b[:, 2] - bw // 4, b[:, 1] + bh // 4, b[:, 3] - bh // 4
            s = s - (table[y1, x1] - table[y0, x1] - table[y1, x0] + table[y0, x0])
        out[k:k + 2000] = s / (2 * (bw + bh)) ** kappa
    return out


def sliding_windows(w, h, smallest=8, alpha=0.65):
    """Boxes of every size (steps of 1.25, aspect up to 3) at steps giving neighbours IoU ~alpha."""
    sizes, s = [], smallest
    while s <= max(w, h):
        sizes.append(s)
        s = int(np.ceil(s * 1.25))
    step = lambda size: max(1, int(size * (1 - alpha) / (1 + alpha) * 2))
    return [(x, y, x + bw, y + bh) for bw in sizes for bh in sizes
            if bw <= w and bh <= h and max(bw / bh, bh / bw) <= 3
            for y in range(0, h - bh + 1, step(bh)) for x in range(0, w - bw + 1, step(bw))]


def non_maximum(boxes, scores, beta=0.75, count=200):
    kept = []
    for i in np.argsort(-scores):
        if all(iou(boxes[i], k) <= beta for k in kept):
            kept.append(boxes[i])
            if len(kept) == count:
                break
    return kept


def refined(box, E, groups, w, h, rounds=6):
    """`box` moved side by side (1, 2 cells, 10 and 20 % of its size) while its score rises."""
    b = np.array(box)
    best = simple_scores([b], E, groups)[0]
    for _ in range(rounds):
        moves = []
        for side, size in ((0, b[2] - b[0]), (1, b[3] - b[1]), (2, b[2] - b[0]), (3, b[3] - b[1])):
            for d in sorted({1, 2, max(1, size // 10), max(1, size // 5)}):
                for sign in (-1, 1):
                    c = b.copy()
                    c[side] += sign * d
                    if c[0] >= 0 and c[1] >= 0 and c[2] <= w and c[3] <= h and c[2] - c[0] >= 3 and c[3] - c[1] >= 3:
                        moves.append(c)
        scores = simple_scores(moves, E, groups)
        if scores.max() <= best:
            break
        best, b = scores.max(), moves[int(scores.argmax())]
    return tuple(int(v) for v in b)


# --- the localizer's selection and the benchmark's scoring -----------------------------------

def area(b): return (b[2] - b[0]) * (b[3] - b[1])
def inter(a, b): return max(0, min(a[2], b[2]) - max(a[0], b[0])) * max(0, min(a[3], b[3]) - max(a[1], b[1]))
def iou(a, b):
    i = inter(a, b)
    return 0 if i <= 0 else i / (area(a) + area(b) - i)


def is_group(box, proposals):
    parts = [p for p in proposals if area(p) * 50 >= area(box) and area(p) * 10 <= area(box) * 7
             and inter(box, p) >= 0.8 * area(p)]
    return holds_separate(parts, box)


def is_edge_group(box, edge, proposals, edges, fraction):
    """The edge group rule: two separate parts, each scoring >= fraction x the box's edge score."""
    parts = [p for p, e in zip(proposals, edges) if area(p) * 50 >= area(box) and area(p) * 10 <= area(box) * 7
             and inter(box, p) >= 0.8 * area(p) and e >= fraction * edge]
    return holds_separate(parts, box)


def holds_separate(parts, box):
    gap = max(1, min(box[2] - box[0], box[3] - box[1]) // 20)
    for i, a in enumerate(parts):
        wide = (a[0] - gap, a[1] - gap, a[2] + gap, a[3] + gap)
        if any(inter(wide, b) == 0 for b in parts[i + 1:]):
            return True
    return False


def select(order, first, group_minimum, count=5, edges=None, fraction=None):
    """The localizer's selection; with `fraction`, the edge group rule over `edges` (the order's scores)."""
    kept = [first] if first is not None else []
    for i, p in enumerate(order):
        if len(kept) >= count:
            break
        if area(p) >= group_minimum and is_group(p, order):
            continue
        if fraction is not None and is_edge_group(p, edges[i], order, edges, fraction):
            continue
        if all(iou(k, p) <= 0.5 and inter(k, p) < 0.8 * min(area(k), area(p)) for k in kept):
            kept.append(p)
    return kept


def centre(b): return ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)
def holds(b, c): return b[0] <= c[0] < b[2] and b[1] <= c[1] < b[3]


def score(boxes, truth):
    pairs = sorted(((iou(b, t), i, j) for i, b in enumerate(boxes) for j, t in enumerate(truth)
                    if iou(b, t) >= 0.5), reverse=True)
    used_boxes, used_objects = set(), set()
    for _, i, j in pairs:
        if i not in used_boxes and j not in used_objects:
            used_boxes.add(i)
            used_objects.add(j)
    merged = sum(any(not holds(truth[i], centre(truth[j])) and not holds(truth[j], centre(truth[i]))
                     for i in inside for j in inside if j > i)
                 for b in boxes for inside in [[k for k, t in enumerate(truth) if holds(b, centre(t))]])
    return np.array([min(5, len(truth)), len([j for j in used_objects if j < 5]), len(boxes), len(used_boxes), merged])


def auc(pos, neg):
    p, n = np.array(pos)[:, None], np.array(neg)[None, :]
    return float(((p > n).sum() + 0.5 * (p == n).sum()) / (p.size * n.size))


def main():
    dump = json.load(open(sys.argv[1]))
    annotations = json.load(open(os.path.join(HERE, 'annotations.json')))
    truth = {p['image']: [o['box'] for o in p['objects']] for p in annotations['photos']}
    photos = []
    for d in dump:
        name = d['image']
        path = os.path.join(SHARED, name[7:]) if name.startswith('shared/') else os.path.join(HERE, name)
        lab, px, py = working_lab(path)
        h, w = lab.shape[1:]
        cell = lambda r: (round(r[0] / px), round(r[1] / py), round(r[2] / px), round(r[3] / py))
        E, theta = edges(lab)
        gid, groups, affinity = edge_groups(E, theta)
        ranked = [cell(r) for r in d['ranked']]
        windows = sliding_windows(w, h)
        windows = non_maximum(windows, simple_scores(windows, E, groups))
        photo = dict(windows=windows, window_scores=simple_scores(windows, E, groups),
                     refined=[refined(b, E, groups, w, h) for b in ranked],name=name, px=px, py=py, w=w, h=h, ranked=ranked, truth=truth[name],
                     first=cell(d['regions'][0]) if d['regions'] else None,
                     regions=sorted(cell(r) for r in d['regions']),
                     scores=[r[4] for r in d['ranked']])
        for kappa, inner in ((1.5, True), (1.0, False)):
            photo[kappa, inner] = np.array([edge_box_score(b, E, gid, groups, affinity, kappa, inner)
                                            for b in ranked])
        photos.append(photo)
    group_minimum = lambda p: int(0.3 * p['w'] * p['h'])
    pixels = lambda b, p: (b[0] * p['px'], b[1] * p['py'], b[2] * p['px'], b[3] * p['py'])
    rule = lambda p: dict(edges=list(p[1.5, True]), fraction=1.0)
    same = sum(sorted(select(p['ranked'], p['first'], group_minimum(p), **rule(p))) == p['regions'] for p in photos)
    print(f'selection re-implemented (edge group rule at 1): {same} of {len(photos)} photos give the dumped regions')
    parts = [('14', photos[:14]), (f'{len(photos) - 14} held-out', photos[14:]), (str(len(photos)), photos)]

    def report(label, order, fraction=None):
        cells = []
        for name, subset in parts:
            t = sum(score([pixels(b, p) for b in select(order(p), p['first'], group_minimum(p),
                                                         edges=list(p[1.5, True]), fraction=fraction)], p['truth'])
                    for p in subset)
            cells.append(f'{name}: {t[1]}/{t[0]} = {t[1] / t[0]:.3f}, precision {t[3] / t[2]:.3f}, merged {t[4]}')
        print(f'{label:42} ' + ' | '.join(cells))

    by = lambda p, s: [p['ranked'][i] for i in np.argsort(-np.asarray(s), kind='stable')]
    fit_percentile = lambda p: 1 - np.arange(len(p['ranked'])) / max(1, len(p['ranked']) - 1)
    percentile = lambda v: np.asarray(v).argsort().argsort() / max(1, len(v) - 1)
    report('fit, edge group rule off (before)', lambda p: p['ranked'])
    for fraction in (0.3, 0.5, 0.7, 1.0):
        report(f'fit, edge group rule at {fraction}', lambda p: p['ranked'], fraction)
    for key in ((1.5, True), (1.0, False)):
        tag = f'kappa {key[0]}, inner {"on" if key[1] else "off"}'
        report(f'edge score ({tag})', lambda p: by(p, p[key]))
        report(f'fit + edge percentiles ({tag})', lambda p: by(p, fit_percentile(p) + percentile(p[key])))
        for k in (10, 20):
            report(f'first {k} by fit reranked by edge ({tag})',
                   lambda p, k=k: by(dict(ranked=p['ranked'][:k]), p[key][:k]) + p['ranked'][k:])
    cues = [('fit (rank)', lambda p: fit_percentile(p)), ('saliency score', lambda p: p['scores']),
            ('edge score, kappa 1.5, inner on', lambda p: p[1.5, True]),
            ('edge score, kappa 1.0, inner off', lambda p: p[1.0, False])]
    for cue, values_of in cues:
        means = []
        for _, subset in parts[:2]:
            values = []
            for p in subset:
                hit = [any(iou(pixels(b, p), t) >= 0.5 for t in p['truth'][:5]) for b in p['ranked']]
                v = values_of(p)
                pos, neg = [s for s, x in zip(v, hit) if x], [s for s, x in zip(v, hit) if not x]
                if pos and neg:
                    values.append(auc(pos, neg))
            means.append(np.mean(values))
        print(f'  within-photo AUC of {cue}: 14 photos {means[0]:.2f}, {parts[1][0]} photos {means[1]:.2f}')
    report('Edge Boxes windows alone, by their score', lambda p: p['windows'][:50])
    report('ranked by fit, each box refined by edges', lambda p: p['refined'])
    for n in (10, 50, 200):
        for name, subset in parts[:2]:
            held = sum(any(iou(pixels(b, p), t) >= 0.5 for b in p['windows'][:n]) for p in subset for t in p['truth'][:5])
            both = sum(any(iou(pixels(b, p), t) >= 0.5 for b in p['windows'][:n] + p['ranked'])
                       for p in subset for t in p['truth'][:5])
            total = sum(len(p['truth'][:5]) for p in subset)
            print(f'  the first {n} windows hold {held}/{total} prominent objects of the {name} photos, '
                  f'with the ranked candidates {both}')


if __name__ == '__main__':
    main()
