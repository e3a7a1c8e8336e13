import Foundation

/// A small upright copy of an image in CIE L\*a\*b\*, each cell the area average of a block of pixels.
///
/// Saliency is computed on this "working image": averaging whole blocks (not point sampling) keeps
/// fine texture and sensor noise from aliasing into spurious contrast, and L\*a\*b\* makes colour
/// distances roughly perceptual, so one ΔE threshold means the same in dark and bright areas.
struct LabImage {
    /// Width in cells.
    let width: Int
    /// Height in cells.
    let height: Int
    /// The L\*, a\*, b\* planes, each one value per cell, row by row.
    var channels: [[Float]]
    /// Upright image pixels per cell along x and y (≥ 1).
    let pixelsPerCellX: Double, pixelsPerCellY: Double

    /// The working image of `image`, its long side `workingSize` cells (or the image's own size
    /// when that is smaller), the image's orientation applied.
    init(_ image: VisionImage, workingSize: Int) throws {
        let uprightWidth = image.width
        let uprightHeight = image.height
        let longSide = max(uprightWidth, uprightHeight)
        let scale = min(1, Double(workingSize) / Double(longSide))
        width = min(uprightWidth, max(1, Int((Double(uprightWidth) * scale).rounded())))
        height = min(uprightHeight, max(1, Int((Double(uprightHeight) * scale).rounded())))
        pixelsPerCellX = Double(uprightWidth) / Double(width)
        pixelsPerCellY = Double(uprightHeight) / Double(height)
        let linear = try image.buffer.visitReader(
            AreaAverager(
                orientation: image.orientation, uprightWidth: uprightWidth, uprightHeight: uprightHeight,
                cellsX: width, cellsY: height))
        let lab = linear.map(LabImage.lab(linearRGB:))
        channels = (0..<3).map { c in lab.map { $0[c] } }
    }

    /// Replaces every plane by its mean over a (2·`radius` + 1)² window (clamped at the edges):
    /// fine texture (grass, fur, sensor noise) then no longer reads as contrast.
    mutating func smooth(radius: Int) {
        guard radius > 0 else { return }
        channels = channels.map { GridFilters.boxBlur($0, width: width, height: height, radius: radius) }
    }

    /// The colour of cell `i`.
    func colour(_ i: Int) -> SIMD3<Float> { SIMD3(channels[0][i], channels[1][i], channels[2][i]) }

    /// L\*a\*b\* (D65 white) of a linear-light sRGB colour with components in 0...1.
    static func lab(linearRGB c: SIMD3<Float>) -> SIMD3<Float> {
        let x = (0.412_456 * c.x + 0.357_576 * c.y + 0.180_438 * c.z) / 0.950_47
        let y = 0.212_673 * c.x + 0.715_152 * c.y + 0.072_175 * c.z
        let z = (0.019_334 * c.x + 0.119_192 * c.y + 0.950_304 * c.z) / 1.088_83
        func f(_ t: Float) -> Float {
            // The linear segment near black avoids the cube root's infinite slope at 0.
            t > 0.008_856 ? cbrtf(t) : t * 7.787 + 16 / 116
        }
        let (fx, fy, fz) = (f(x), f(y), f(z))
        return SIMD3(116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
    }

    /// The sRGB transfer function undone for every 8-bit value, so that blocks are averaged in
    /// linear light (an average of gamma-encoded values darkens edges between bright and dark).
    static let linearTable: [Float] = (0..<256).map { v in
        let s = Float(v) / 255
        return s <= 0.040_45 ? s / 12.92 : powf((s + 0.055) / 1.055, 2.4)
    }
}

/// Sums the linear RGB of the upright image over a grid of cells, reading the stored pixels directly.
///
/// At most about `samplesPerCell` × `samplesPerCell` pixels are read per cell (every pixel of a
/// 640×480 image at the default working size; a regular subset of a 12-megapixel photo), so the
/// cost is bounded whatever the image size.
private struct AreaAverager: PixelReaderVisitor {
    let orientation: ImageOrientation
    let uprightWidth: Int, uprightHeight: Int
    let cellsX: Int, cellsY: Int
    let samplesPerCell = 4

    func visit<R: PixelReader>(_ reader: R) throws -> [SIMD3<Float>] {
        let storedWidth = orientation.swapsDimensions ? uprightHeight : uprightWidth
        let storedHeight = orientation.swapsDimensions ? uprightWidth : uprightHeight
        let t = orientation.uprightToStored(width: storedWidth, height: storedHeight)
        let step = max(1, min(uprightWidth / cellsX, uprightHeight / cellsY) / samplesPerCell)

        let columns = SampledAxis(
            size: uprightWidth, cells: cellsX, step: step, toStoredX: t.xx, toStoredY: t.yx, x0: 0, y0: 0)
        let rows = SampledAxis(
            size: uprightHeight, cells: cellsY, step: step, toStoredX: t.xy, toStoredY: t.yy, x0: t.x0, y0: t.y0)
        var columnCounts = [Float](repeating: 0, count: cellsX)
        var rowCounts = [Float](repeating: 0, count: cellsY)
        for c in columns.cell { columnCounts[c] += 1 }
        for r in rows.cell { rowCounts[r] += 1 }

        // Three planes of scalar sums: SIMD and closures cost little when optimised but a lot in
        // debug builds, where the tests run this on every photo.
        var sums = [Float](repeating: 0, count: 3 * cellsX * cellsY)
        let plane = cellsX * cellsY
        LabImage.linearTable.withUnsafeBufferPointer { table in
            columns.cell.withUnsafeBufferPointer { columnCell in
                columns.storedX.withUnsafeBufferPointer { columnX in
                    columns.storedY.withUnsafeBufferPointer { columnY in
                        sums.withUnsafeMutableBufferPointer { sums in
                            for r in rows.cell.indices {
                                let rowCell = rows.cell[r] * cellsX
                                let (rx, ry) = (rows.storedX[r], rows.storedY[r])
                                for c in 0..<columnCell.count {
                                    let rgb = reader.rgb(columnX[c] + rx, columnY[c] + ry)
                                    // YUV conversions give fractional values (clamped to 0...255 by the
                                    // readers); the clamps below only guard the table index.
                                    let red = min(max(Int(rgb.x + 0.5), 0), 255)
                                    let green = min(max(Int(rgb.y + 0.5), 0), 255)
                                    let blue = min(max(Int(rgb.z + 0.5), 0), 255)
                                    let cell = rowCell + columnCell[c]
                                    sums[cell] += table[red]
                                    sums[plane + cell] += table[green]
                                    sums[2 * plane + cell] += table[blue]
                                }
                            }
                        }
                    }
                }
            }
        }
        return (0..<plane).map { i in
            let count = max(rowCounts[i / cellsX] * columnCounts[i % cellsX], 1)
            return SIMD3(sums[i], sums[plane + i], sums[2 * plane + i]) / count
        }
    }
}

/// The sampled pixels along one upright axis: for each, its cell and its share of the stored
/// coordinates (the orientation map only permutes and flips axes, so it splits into integer parts).
private struct SampledAxis {
    var cell: [Int] = []
    var storedX: [Int] = []
    var storedY: [Int] = []

    /// Every `step`-th pixel of an upright axis of `size` pixels split into `cells` cells, where
    /// pixel `u` adds `toStoredX · u + x0` to the stored x and `toStoredY · u + y0` to the stored y.
    init(size: Int, cells: Int, step: Int, toStoredX: Float, toStoredY: Float, x0: Float, y0: Float) {
        for u in stride(from: step / 2, to: size, by: step) {
            cell.append(u * cells / size)
            storedX.append(Int(toStoredX) * u + Int(x0))
            storedY.append(Int(toStoredY) * u + Int(y0))
        }
    }
}
