import Foundation

/// Regions that move against a still background, found from the frames of a stream seen so far:
/// the built-in localizer's motion cue in stream mode (single images have no motion).
///
/// A running background estimate is kept per working-image cell (an exponential average of the
/// L\*a\*b\* working images, the classic adaptive background of Wren et al., "Pfinder", 1997, and
/// Stauffer and Grimson, 1999). A cell differs from it by its ΔE; cells differing by more than
/// `noiseFactor` × the frame's median difference (the noise of the camera and compression; at
/// least `minimumDifference` ΔE) are foreground. The foreground mask is opened and closed, split
/// into 8-connected components (split where they are narrow, `neckDepth`), and each component of
/// at least `minimumAreaFraction` of the picture proposes its box (grown over the thin parts the
/// opening removed, `thinPartReach`), scored by its mean difference over `contrastScale`.
///
/// The background does not adapt where a cell is foreground (`foregroundAdaptation` × the rate, 0),
/// so a slowly moving object neither fades into it nor leaves a trail behind it; a foreground
/// cell that has not changed for `stationaryFrames` frames is taken into the background at once
/// (an object that stopped, a change of the scene) when its colour continues the background next to
/// it (`stationaryMatchRadius`). A component in which fewer than
/// `minimumChangedFraction` of the cells changed since the previous frame (by the same noise rule)
/// is not moving: the "ghost" an object leaves where it stood when the background started, or an
/// object that stopped. It proposes nothing and is taken into the background at once.
///
/// The cue is for a still or slowly moving camera. The camera moved (a pan, a shake) when the
/// previous frame, shifted by up to `maximumShift` cells, matches this one better than unshifted
/// (by `shiftGain`). A shift by whole cells is compensated (`compensatesShifts`): the background
/// moves with the camera and the foreground threshold rises to `shiftedNoiseFactor` × the median,
/// since the camera's true shift is not whole cells. A shift by half a cell (a slow drift) is
/// compensated too (`compensatesHalfShifts`): the background is interpolated half a cell over and
/// each cell is compared with the range of its neighbours' background values. With `refinesShifts`
/// (the default) either shift is then measured to a quarter of a cell, the background moved by it
/// with bilinear interpolation, and each cell compared with its neighbours' range at the usual
/// noise factor — a real camera's drift is rarely whole or half cells. When more than
/// `maximumMovingFraction` of the cells differ (a cut), or a shift is not compensated, there are
/// no regions and the background restarts from the frame. The first frame of a stream, or one of
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
        /// A foreground cell unchanged for `stationaryFrames` is taken into the background only
        /// when its colour is within the foreground threshold of the background at a cell within
        /// this many cells that is not foreground: the ghost an object leaves where it stood when
        /// the background started shows the scene behind it, which continues its surroundings,
        /// while the inside of a slowly moving object of even colour does not change but does not
        /// look like its surroundings either (0: every such cell, the behaviour before).
        var stationaryMatchRadius = 3
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
        /// When the camera moved by half a cell, move the background by half a cell (interpolated)
        /// and compare each cell with the range of its neighbours' background values (what is left
        /// of the shift moves edges by less than a cell), instead of starting the background again.
        var compensatesHalfShifts = true
        /// The noise factor in a frame whose background was shifted: the shift is whole cells, the
        /// camera's is not, so every edge of the scene differs a little.
        var shiftedNoiseFactor: Float = 12
        /// When the camera moved, measure its shift to a quarter of a cell around the whole- or
        /// half-cell one found, move the background by it (bilinear interpolation) and compare each
        /// cell with the range of its neighbours' background values, with `refinedNoiseFactor`
        /// (instead of `shiftedNoiseFactor` or the half-cell interpolation).
        var refinesShifts = true
        /// The noise factor in a frame whose background was moved by a refined shift.
        var refinedNoiseFactor: Float = 3
        /// A moving region that falls apart into two or more parts (each at least half of
        /// `minimumAreaFraction`) when eroded this many times is reported as those parts, each
        /// cell going to the nearest: two objects touching through a narrow neck of foreground
        /// (their outlines, a shadow) are two regions (0: off).
        var neckDepth = 4
        /// A region's box also takes in the foreground cells (before the opening) within this many
        /// cells of the region: the thin parts of an object that the opening removes as if they
        /// were specks of noise — a fish's tail and fins, legs — belong in its box (0: the opened
        /// region's box).
        var thinPartReach = 1
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
        // After a half-cell or refined shift the difference allows for what is left of it (below).
        var tolerant = false
        var refined = false
        let motion = cameraMotion(working)
        switch motion {
        case .still: break
        case .shifted where configuration.refinesShifts && isCompensated(motion),
            .halfShifted where configuration.refinesShifts && isCompensated(motion):
            let (sx, sy) = refinedShift(working, around: motion)
            alignFractional(to: working, sx: sx, sy: sy)
            tolerant = true
            refined = true
            noiseFactor = configuration.refinedNoiseFactor
        case .shifted(let dx, let dy) where configuration.compensatesShifts:
            align(to: working, dx: dx, dy: dy)
            noiseFactor = configuration.shiftedNoiseFactor
        case .halfShifted(let hx, let hy) where configuration.compensatesHalfShifts:
            alignHalf(to: working, hx: hx, hy: hy)
            tolerant = true
        default:
            restart(from: working)
            return []
        }
        let difference =
            tolerant
            ? neighbourhoodDifference(working.channels, background) : Self.difference(working.channels, background)
        let threshold = foregroundThreshold(difference, factor: noiseFactor)
        // Whether each cell changed since the previous frame. After a refined shift the previous
        // frame lies within an eighth of a cell of this one, so the plain difference is used: the
        // neighbourhood range would hide the change inside a textured object that moves by less
        // than a cell, and the object would be taken into the background as standing still.
        let change =
            tolerant && !refined
            ? neighbourhoodDifference(working.channels, previous) : Self.difference(working.channels, previous)
        let changeThreshold = foregroundThreshold(change, factor: noiseFactor)
        var mask = difference.map { $0 > threshold }
        let moving = Float(mask.lazy.filter { $0 }.count) / Float(count)
        guard moving <= configuration.maximumMovingFraction else {
            restart(from: working)
            return []
        }
        var rates = updateRates(foreground: mask)
        let matchRadius = min(max(configuration.stationaryMatchRadius, 0), 16)
        let foreground = mask
        for i in 0..<count {
            unchanged[i] = change[i] > changeThreshold ? 0 : unchanged[i] + 1
            if mask[i], unchanged[i] >= configuration.stationaryFrames {
                if matchRadius == 0
                    || looksLikeBackground(
                        i, working.channels, foreground: foreground, radius: matchRadius, threshold: threshold)
                {
                    rates[i] = 1
                }
            }
        }
        // Opening removes specks of noise; closing joins the parts of one object (a fish's outline
        // and its middle move by different amounts).
        mask = GridFilters.dilate(GridFilters.erode(mask, width: width, height: height), width: width, height: height)
        mask = GridFilters.erode(GridFilters.dilate(mask, width: width, height: height), width: width, height: height)
        let minimumCells = max(1, Int((configuration.minimumAreaFraction * Float(count)).rounded(.up)))
        var boxes = [CellBox]()
        let neck = min(max(configuration.neckDepth, 0), 16)
        var components = [[Int]]()
        for component in GridFilters.connectedComponents(mask, width: width, height: height) {
            let changed = component.lazy.filter { change[$0] > changeThreshold }.count
            guard Float(changed) >= configuration.minimumChangedFraction * Float(component.count) else {
                for i in component { rates[i] = 1 }
                continue
            }
            guard component.count >= minimumCells else { continue }
            components += neck > 0 ? splitAtNecks(component, depth: neck, minimumCells: minimumCells) : [component]
        }
        let reach = min(max(configuration.thinPartReach, 0), 8)
        for component in components {
            var box = CellBox(minX: width, minY: height, maxX: 0, maxY: 0)
            var total: Float = 0
            for i in component {
                let (x, y) = (i % width, i / width)
                box.minX = min(box.minX, x)
                box.minY = min(box.minY, y)
                box.maxX = max(box.maxX, x + 1)
                box.maxY = max(box.maxY, y + 1)
                total += difference[i]
                guard reach > 0 else { continue }
                for ny in max(0, y - reach)...min(height - 1, y + reach) {
                    for nx in max(0, x - reach)...min(width - 1, x + reach) where foreground[ny * width + nx] {
                        box.minX = min(box.minX, nx)
                        box.minY = min(box.minY, ny)
                        box.maxX = max(box.maxX, nx + 1)
                        box.maxY = max(box.maxY, ny + 1)
                    }
                }
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
        /// By half a cell in x, y or both (`hx`, `hy` in half cells, each −1...1): the previous
        /// frame sampled at (x + hx / 2, y + hy / 2) is this frame's (x, y).
        case halfShifted(hx: Int, hy: Int)
    }

    /// Moves the background, the previous frame and the stillness counts by the camera's shift;
    /// cells coming into view take this frame's values.
    private func align(to working: LabImage, dx: Int, dy: Int) {
        background = (0..<3).map { c in wholeShift(background[c], dx: dx, dy: dy) { working.channels[c][$0] } }
        previous = (0..<3).map { c in wholeShift(previous[c], dx: dx, dy: dy) { working.channels[c][$0] } }
        unchanged = wholeShift(unchanged, dx: dx, dy: dy) { _ in 0 }
    }

    /// Moves the background and the previous frame by half a cell (each cell takes the mean of the
    /// two or four cells the shift falls between; cells coming into view take this frame's values).
    /// The stillness counts stay: the shift is less than a cell.
    private func alignHalf(to working: LabImage, hx: Int, hy: Int) {
        let (ox, fx) = (hx >> 1, hx & 1)
        let (oy, fy) = (hy >> 1, hy & 1)
        func shifted(_ plane: [Float], fill: [Float]) -> [Float] {
            (0..<plane.count).map { i in
                let (x, y) = (i % width + ox, i / width + oy)
                guard x >= 0, x + fx < width, y >= 0, y + fy < height else { return fill[i] }
                let a = y * width + x
                let b = a + fy * width
                return (plane[a] + plane[a + fx] + plane[b] + plane[b + fx]) / 4
            }
        }
        background = (0..<3).map { c in shifted(background[c], fill: working.channels[c]) }
        previous = (0..<3).map { c in shifted(previous[c], fill: working.channels[c]) }
    }

    /// The camera's shift in cells (the previous frame's point (x + sx, y + sy) is this frame's
    /// (x, y)), measured to a quarter of a cell within half a cell of (`x`, `y`): the offset whose
    /// bilinearly interpolated previous frame has the smallest mean absolute L\* difference from
    /// this one over the cells every candidate covers (every other row).
    private func refinedShift(_ working: LabImage, around motion: CameraMotion) -> (Float, Float) {
        let (x, y): (Float, Float)
        switch motion {
        case .still: return (0, 0)
        case .shifted(let dx, let dy): (x, y) = (Float(dx), Float(dy))
        case .halfShifted(let hx, let hy): (x, y) = (Float(hx) / 2, Float(hy) / 2)
        }
        let margin = Int(max(abs(x), abs(y)).rounded(.up)) + 2
        guard width > 2 * margin + 4, height > 2 * margin + 4 else { return (x, y) }
        let now = working.channels[0]
        let before = previous[0]
        let w = width
        func error(_ sx: Float, _ sy: Float) -> Float {
            let sampler = Bilinear(sx: sx, sy: sy, rowLength: w)
            var total: Float = 0
            var n = 0
            for row in stride(from: margin, to: height - margin, by: 2) {
                let a = (row + sampler.oy) * w + sampler.ox
                for col in margin..<(w - margin) {
                    total += abs(now[row * w + col] - sampler.value(before, at: a + col))
                    n += 1
                }
            }
            return total / Float(max(n, 1))
        }
        var best = (error: Float.infinity, x: x, y: y)
        for j in -2...2 {
            for i in -2...2 {
                let (sx, sy) = (x + Float(i) / 4, y + Float(j) / 4)
                let e = error(sx, sy)
                if e < best.error { best = (e, sx, sy) }
            }
        }
        return (best.x, best.y)
    }

    /// Moves the background and the previous frame by (`sx`, `sy`) cells, interpolated
    /// bilinearly (cells coming into view take this frame's values), and the stillness counts by
    /// the nearest whole cells.
    private func alignFractional(to working: LabImage, sx: Float, sy: Float) {
        let w = width
        let sampler = Bilinear(sx: sx, sy: sy, rowLength: w)
        func shifted(_ plane: [Float], fill: [Float]) -> [Float] {
            (0..<plane.count).map { i in
                let (x, y) = (i % w + sampler.ox, i / w + sampler.oy)
                guard x >= 0, x + 1 < w, y >= 0, y + 1 < height else { return fill[i] }
                return sampler.value(plane, at: y * w + x)
            }
        }
        background = (0..<3).map { c in shifted(background[c], fill: working.channels[c]) }
        previous = (0..<3).map { c in shifted(previous[c], fill: working.channels[c]) }
        let (dx, dy) = (Int(sx.rounded()), Int(sy.rounded()))
        if dx != 0 || dy != 0 { unchanged = wholeShift(unchanged, dx: dx, dy: dy) { _ in 0 } }
    }

    /// Whether the configuration compensates `motion` (rather than restarting the background).
    private func isCompensated(_ motion: CameraMotion) -> Bool {
        switch motion {
        case .still: return true
        case .shifted: return configuration.compensatesShifts
        case .halfShifted: return configuration.compensatesHalfShifts
        }
    }

    /// `plane` moved by whole cells: cell (x, y) takes (x + dx, y + dy), or `fill` outside.
    private func wholeShift<T>(_ plane: [T], dx: Int, dy: Int, fill: (Int) -> T) -> [T] {
        (0..<plane.count).map { i in
            let (x, y) = (i % width + dx, i / width + dy)
            return x >= 0 && x < width && y >= 0 && y < height ? plane[y * width + x] : fill(i)
        }
    }

    /// Bilinear sampling of a plane at a fractional offset (`sx`, `sy`) cells: the whole-cell part
    /// (`ox`, `oy`) and the four weights, computed once per offset.
    private struct Bilinear {
        let ox: Int, oy: Int
        let w00: Float, w10: Float, w01: Float, w11: Float
        let rowLength: Int

        init(sx: Float, sy: Float, rowLength: Int) {
            (ox, oy) = (Int(sx.rounded(.down)), Int(sy.rounded(.down)))
            let (fx, fy) = (sx - Float(ox), sy - Float(oy))
            (w00, w10, w01, w11) = ((1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy)
            self.rowLength = rowLength
        }

        /// The value between cell `a` (top left) and its right, lower and lower-right neighbours.
        @inline(__always)
        func value(_ plane: [Float], at a: Int) -> Float {
            w00 * plane[a] + w10 * plane[a + 1] + w01 * plane[a + rowLength] + w11 * plane[a + rowLength + 1]
        }
    }

    /// Whether cell `i` of `frame` lies within `threshold` ΔE of the background at some cell within
    /// `radius` that is not foreground.
    private func looksLikeBackground(
        _ i: Int, _ frame: [[Float]], foreground: [Bool], radius: Int, threshold: Float
    ) -> Bool {
        let (x, y) = (i % width, i / width)
        let limit = threshold * threshold
        for yy in max(y - radius, 0)...min(y + radius, height - 1) {
            for xx in max(x - radius, 0)...min(x + radius, width - 1) {
                let j = yy * width + xx
                guard !foreground[j] else { continue }
                let dl = frame[0][i] - background[0][j]
                let da = frame[1][i] - background[1][j]
                let db = frame[2][i] - background[2][j]
                if dl * dl + da * da + db * db <= limit { return true }
            }
        }
        return false
    }

    /// `component` split where it is narrow: eroded `depth` times, it falls apart into parts of at
    /// least half `minimumCells` each; every cell then joins the nearest part (by city-block distance,
    /// grown one step at a time). One part: the component as it is.
    private func splitAtNecks(_ component: [Int], depth: Int, minimumCells: Int) -> [[Int]] {
        var sub = [Bool](repeating: false, count: width * height)
        for i in component { sub[i] = true }
        var core = sub
        for _ in 0..<depth { core = GridFilters.erode(core, width: width, height: height) }
        let parts = GridFilters.connectedComponents(core, width: width, height: height)
            .filter { $0.count * 2 >= minimumCells }
        guard parts.count >= 2 else { return [component] }
        var owner = [Int](repeating: -1, count: width * height)
        var frontier = [Int]()
        for (k, part) in parts.enumerated() {
            for i in part {
                owner[i] = k
                frontier.append(i)
            }
        }
        while !frontier.isEmpty {
            var next = [Int]()
            for i in frontier {
                let (x, y) = (i % width, i / width)
                for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)]
                where nx >= 0 && nx < width && ny >= 0 && ny < height {
                    let j = ny * width + nx
                    if sub[j], owner[j] < 0 {
                        owner[j] = owner[i]
                        next.append(j)
                    }
                }
            }
            frontier = next
        }
        var result = [[Int]](repeating: [], count: parts.count)
        for i in component where owner[i] >= 0 { result[owner[i]].append(i) }
        return result.filter { !$0.isEmpty }
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

    /// ΔE per cell between `a` and the range of `b` over the cell's 3×3 neighbourhood: per channel,
    /// how far `a` lies outside the neighbours' smallest and largest values. The camera's true shift
    /// is not exactly the half cell the background was moved by; what is left moves an edge by
    /// less than a cell, so the cell's true background value lies between its neighbours' (no
    /// difference there), while an object that differs from all of them still stands out.
    private func neighbourhoodDifference(_ a: [[Float]], _ b: [[Float]]) -> [Float] {
        var result = [Float](repeating: 0, count: width * height)
        for c in 0..<3 {
            let plane = b[c]
            for y in 0..<height {
                let y0 = max(y - 1, 0)
                let y1 = min(y + 1, height - 1)
                for x in 0..<width {
                    let x0 = max(x - 1, 0)
                    let x1 = min(x + 1, width - 1)
                    var low = Float.infinity
                    var high = -Float.infinity
                    for yy in y0...y1 {
                        for xx in x0...x1 {
                            let v = plane[yy * width + xx]
                            low = min(low, v)
                            high = max(high, v)
                        }
                    }
                    let i = y * width + x
                    let v = a[c][i]
                    let d = v < low ? low - v : (v > high ? v - high : 0)
                    result[i] += d * d
                }
            }
        }
        return result.map {
            let d = $0.squareRoot()
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
        // half-cell shift counts when it beats none at all, the opposite one (equally blurred) and
        // the previous frame blurred along the same line but centred (1-2-1), which is what a
        // still camera's noisy frame matches best. Without the last test, noise of σ 3 levels
        // passed for a half-cell shift in about a quarter of the generated still-camera frames.
        func centredError(_ hx: Int, _ hy: Int) -> Float {
            var total: Float = 0
            var n = 0
            for y in stride(from: r + 1, to: height - r - 1, by: 2) {
                let row = y * w
                for x in (r + 1)..<(w - r - 1) {
                    let i = row + x
                    let j = hy * w + hx
                    let v = (before[i - j] + 2 * before[i] + before[i + j]) / 4
                    total += abs(now[i] - v)
                    n += 1
                }
            }
            return total / Float(max(n, 1))
        }
        for (hx, hy) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
            let (forward, backward) = (error(hx, hy), error(-hx, -hy))
            let shifted = min(forward, backward)
            if shifted < still, shifted < configuration.shiftGain * max(forward, backward),
                shifted < configuration.shiftGain * centredError(hx, hy)
            {
                return forward < backward ? .halfShifted(hx: hx, hy: hy) : .halfShifted(hx: -hx, hy: -hy)
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
