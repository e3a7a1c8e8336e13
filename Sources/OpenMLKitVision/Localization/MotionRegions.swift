import Foundation

/// Regions that move against a still background, found from the frames of a stream seen so far:
/// the built-in localizer's motion cue in stream mode (single images have no motion).
///
/// A running background estimate is kept per working-image cell (an exponential average of the
/// L\*a\*b\* working images, the classic adaptive background of Wren et al., "Pfinder", 1997, and
/// Stauffer and Grimson, 1999). A cell differs from it by its ΔE; cells differing by more than
/// `noiseFactor` × the frame's median difference (the noise of the camera and compression; at
/// least `minimumDifference` ΔE) are foreground. The foreground mask is opened and closed, split
/// into 8-connected components, and each component of at least `minimumAreaFraction` of the
/// picture proposes its box, scored by its mean difference over `contrastScale`.
///
/// The background does not adapt where a cell is foreground (`foregroundAdaptation` × the rate, 0),
/// so a slowly moving object neither fades into it nor leaves a trail behind it; a foreground
/// cell that has not changed for `stationaryFrames` frames is taken into the background at once
/// (an object that stopped, a change of the scene). A component in which fewer than
/// `minimumChangedFraction` of the cells changed since the previous frame (by the same noise rule)
/// is not moving: the "ghost" an object leaves where it stood when the background started, or an
/// object that stopped. It proposes nothing and is taken into the background at once.
///
/// The cue is for a still or slowly moving camera. The camera moved (a pan, a shake) when the
/// previous frame, shifted by up to `maximumShift` cells, matches this one better than unshifted
/// (by `shiftGain`). A shift by whole cells is compensated (`compensatesShifts`): the background
/// moves with the camera and the foreground threshold rises to `shiftedNoiseFactor` × the median,
/// since the camera's true shift is not whole cells. After a shift by part of a cell, or when more
/// than `maximumMovingFraction` of the cells differ (a cut), there are no regions and the
/// background restarts from the frame. The first frame of a stream, or one of
/// another size, only starts the background.
///
/// Not thread-safe: it holds the background of one stream (the detector serialises calls).
final class MotionRegions {
    /// The tunables (measured on `../shared/images/fish_frames`, see `docs/LOCALIZER.md`).
    struct Configuration: Equatable {
        /// Weight of a new frame in the background average.
        var adaptationRate: Float = 0.2
        /// Factor on the rate where a cell is foreground.
        var foregroundAdaptation: Float = 0
        /// A foreground cell unchanged for this many frames becomes background.
        var stationaryFrames = 2
        /// Foreground: difference above this many times the frame's median difference.
        var noiseFactor: Float = 3
        /// Foreground: difference above this many ΔE at least.
        var minimumDifference: Float = 4
        /// Above this share of foreground cells the frame is taken as camera motion.
        var maximumMovingFraction: Float = 0.3
        /// Smallest region, fraction of the picture's cells.
        var minimumAreaFraction: Float = 0.004
        /// Mean difference (ΔE) that scores 1.
        var contrastScale: Float = 20
        /// A component with fewer of its cells changed since the previous frame is not moving.
        var minimumChangedFraction: Float = 0.1
        /// Largest camera shift looked for, in cells.
        var maximumShift = 4
        /// The camera moved when a shifted previous frame's mean L\* difference is below this
        /// fraction of the unshifted one's.
        var shiftGain: Float = 0.9
        /// When the camera moved by whole cells, shift the background with it and go on (instead
        /// of starting it again).
        var compensatesShifts = true
        /// The noise factor in a frame whose background was shifted: the shift is whole cells, the
        /// camera's is not, so every edge of the scene differs a little.
        var shiftedNoiseFactor: Float = 12
    }

    let configuration: Configuration
    /// The background's L\*, a\*, b\* planes (empty before the first frame).
    private var background: [[Float]] = []
    /// The previous frame's L\*, a\*, b\* planes.
    private var previous: [[Float]] = []
    /// Per cell, the frames since it last changed.
    private var unchanged: [Int] = []
    private var width = 0
    private var height = 0

    init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// Forgets the background (a new stream).
    func reset() {
        background = []
        previous = []
        unchanged = []
        width = 0
        height = 0
    }

    /// The moving regions of `working` (one frame's working image) against the frames before it,
    /// best first, and the background updated with it.
    func boxes(in working: LabImage) -> [CellBox] {
        let count = working.width * working.height
        guard count > 0, working.channels.count == 3 else { return [] }
        guard working.width == width, working.height == height, background.count == 3 else {
            background = working.channels
            previous = working.channels
            unchanged = [Int](repeating: 0, count: count)
            width = working.width
            height = working.height
            return []
        }
        defer { previous = working.channels }
        var noiseFactor = configuration.noiseFactor
        switch cameraMotion(working) {
        case .still: break
        case .shifted(let dx, let dy) where configuration.compensatesShifts:
            align(to: working, dx: dx, dy: dy)
            noiseFactor = configuration.shiftedNoiseFactor
        default:
            restart(from: working)
            return []
        }
        let difference = Self.difference(working.channels, background)
        let threshold = foregroundThreshold(difference, factor: noiseFactor)
        let change = Self.difference(working.channels, previous)
        let changeThreshold = foregroundThreshold(change, factor: noiseFactor)
        var mask = difference.map { $0 > threshold }
        let moving = Float(mask.lazy.filter { $0 }.count) / Float(count)
        guard moving <= configuration.maximumMovingFraction else {
            restart(from: working)
            return []
        }
        var rates = updateRates(foreground: mask)
        for i in 0..<count {
            unchanged[i] = change[i] > changeThreshold ? 0 : unchanged[i] + 1
            if mask[i], unchanged[i] >= configuration.stationaryFrames { rates[i] = 1 }
        }
        // Opening removes specks of noise; closing joins the parts of one object (a fish's outline
        // and its middle move by different amounts).
        mask = GridFilters.dilate(GridFilters.erode(mask, width: width, height: height), width: width, height: height)
        mask = GridFilters.erode(GridFilters.dilate(mask, width: width, height: height), width: width, height: height)
        let minimumCells = max(1, Int((configuration.minimumAreaFraction * Float(count)).rounded(.up)))
        var boxes = [CellBox]()
        for component in GridFilters.connectedComponents(mask, width: width, height: height) {
            let changed = component.lazy.filter { change[$0] > changeThreshold }.count
            guard Float(changed) >= configuration.minimumChangedFraction * Float(component.count) else {
                for i in component { rates[i] = 1 }
                continue
            }
            guard component.count >= minimumCells else { continue }
            var box = CellBox(minX: width, minY: height, maxX: 0, maxY: 0)
            var total: Float = 0
            for i in component {
                let (x, y) = (i % width, i / width)
                box.minX = min(box.minX, x)
                box.minY = min(box.minY, y)
                box.maxX = max(box.maxX, x + 1)
                box.maxY = max(box.maxY, y + 1)
                total += difference[i]
            }
            box.score = min(1, total / Float(component.count) / max(configuration.contrastScale, 1e-3))
            boxes.append(box)
        }
        for c in 0..<3 {
            for i in background[c].indices {
                background[c][i] += rates[i] * (working.channels[c][i] - background[c][i])
            }
        }
        return boxes.sorted { $0.score > $1.score }
    }

    /// How the camera moved between the previous frame and this one.
    enum CameraMotion: Equatable {
        /// Not at all.
        case still
        /// By whole cells: the previous frame's cell (x + dx, y + dy) is this frame's (x, y).
        case shifted(dx: Int, dy: Int)
        /// Otherwise (by part of a cell).
        case moved
    }

    /// Moves the background, the previous frame and the stillness counts by the camera's shift;
    /// cells coming into view take this frame's values.
    private func align(to working: LabImage, dx: Int, dy: Int) {
        func shifted<T>(_ plane: [T], fill: (Int) -> T) -> [T] {
            (0..<plane.count).map { i in
                let (x, y) = (i % width + dx, i / width + dy)
                return x >= 0 && x < width && y >= 0 && y < height ? plane[y * width + x] : fill(i)
            }
        }
        background = (0..<3).map { c in shifted(background[c]) { working.channels[c][$0] } }
        previous = (0..<3).map { c in shifted(previous[c]) { working.channels[c][$0] } }
        unchanged = shifted(unchanged) { _ in 0 }
    }

    /// Starts the background again from `working` (the camera moved).
    private func restart(from working: LabImage) {
        background = working.channels
        unchanged = [Int](repeating: 0, count: unchanged.count)
    }

    /// Per cell, the weight of the new frame in the background: slower where `foreground`.
    private func updateRates(foreground: [Bool]) -> [Float] {
        let rate = configuration.adaptationRate.isFinite ? min(max(configuration.adaptationRate, 0), 1) : 0.2
        let factor =
            configuration.foregroundAdaptation.isFinite ? min(max(configuration.foregroundAdaptation, 0), 1) : 0
        return foreground.map { $0 ? rate * factor : rate }
    }

    /// Cells above the noise: `noiseFactor` × the median difference, at least `minimumDifference`.
    private func foregroundThreshold(_ difference: [Float], factor: Float) -> Float {
        max(configuration.minimumDifference, factor * Self.median(difference))
    }

    /// ΔE per cell between two sets of L\*, a\*, b\* planes of the same size.
    private static func difference(_ a: [[Float]], _ b: [[Float]]) -> [Float] {
        (0..<a[0].count).map { i in
            let dl = a[0][i] - b[0][i]
            let da = a[1][i] - b[1][i]
            let db = a[2][i] - b[2][i]
            let d = (dl * dl + da * da + db * db).squareRoot()
            return d.isFinite ? d : 0
        }
    }

    /// Whether the previous frame, shifted by up to `maximumShift` cells, matches `working` clearly
    /// better than unshifted (mean absolute L\* difference over the cells both cover, every other
    /// row). Whole-cell shifts are tried over the range and half-cell shifts next to none, since a
    /// slow pan moves the picture by less than a cell per frame.
    ///
    /// A half-cell shift counts when it beats the opposite one by the same margin.
    private func cameraMotion(_ working: LabImage) -> CameraMotion {
        let r = min(max(configuration.maximumShift, 0), 16)
        guard r > 0, width > 2 * r + 4, height > 2 * r + 4 else { return .still }
        let now = working.channels[0]
        let before = previous[0]
        let w = width
        // The shift in half cells: the previous frame sampled half a cell over is the mean of two
        // (or four) neighbouring cells.
        func error(_ hx: Int, _ hy: Int) -> Float {
            let (ox, fx) = (hx >> 1, hx & 1)
            let (oy, fy) = (hy >> 1, hy & 1)
            var total: Float = 0
            var n = 0
            for y in stride(from: r + 1, to: height - r - 1, by: 2) {
                let row = y * w
                let a = (y + oy) * w + ox
                let b = a + fy * w
                for x in (r + 1)..<(w - r - 1) {
                    let v = (before[a + x] + before[a + x + fx] + before[b + x] + before[b + x + fx]) / 4
                    total += abs(now[row + x] - v)
                    n += 1
                }
            }
            return total / Float(max(n, 1))
        }
        let still = error(0, 0)
        var best = (error: Float.infinity, dx: 0, dy: 0)
        for dy in -r...r {
            for dx in -r...r where dx != 0 || dy != 0 {
                let e = error(2 * dx, 2 * dy)
                if e < best.error { best = (e, dx, dy) }
            }
        }
        if best.error < configuration.shiftGain * still { return .shifted(dx: best.dx, dy: best.dy) }
        // Sampling half a cell over also blurs, which lowers the difference from noise alone; so a
        // half-cell shift counts when it beats the opposite one (equally blurred) and none at all.
        for (hx, hy) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
            let (forward, backward) = (error(hx, hy), error(-hx, -hy))
            if min(forward, backward) < still,
                min(forward, backward) < configuration.shiftGain * max(forward, backward)
            {
                return .moved
            }
        }
        return .still
    }

    /// The median of `values` (not empty).
    private static func median(_ values: [Float]) -> Float {
        var sorted = values
        sorted.sort()
        return sorted[sorted.count / 2]
    }
}
