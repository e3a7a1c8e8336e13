import CKernels

/// The inner loops of `Pool2DKernel`: one output row, channels eight at a time.
///
/// `prepare` has checked that every window has at least one position inside the image, so the
/// valid tap ranges here are never empty.
enum PoolingMicrokernel {
    typealias Vector = SIMD8<Float>

    /// Maximum over each window: one C loop per output pixel (`omk_f32_max_pixel`, built for this
    /// CPU, portable C elsewhere; per channel `acc < v ? v : acc` from -FLT_MAX, so a NaN already in
    /// the accumulator stays, as `std::max` keeps it; then the fused activation's clamp).
    @inline(__always)
    static func maxRow(
        _ g: WindowGeometry, oy: Int, image: UnsafePointer<Float>, lower: Float, upper: Float,
        row: UnsafeMutablePointer<Float>
    ) {
        let channels = g.inputChannels
        let rowsValid = g.validFilterRows(outputRow: oy)
        let rowStep = g.inputWidth * channels
        for ox in 0..<g.outputWidth {
            let columnsValid = g.validFilterColumns(outputColumn: ox)
            let first = image + ((oy * g.strideHeight - g.padTop + rowsValid.lowerBound) * g.inputWidth
                + ox * g.strideWidth - g.padLeft + columnsValid.lowerBound) * channels
            omk_f32_max_pixel(
                first, channels, rowsValid.count, columnsValid.count, channels, rowStep, lower, upper, row + ox * channels)
        }
    }

    /// Mean over the window positions inside the image.
    @inline(__always)
    static func averageRow(
        _ g: WindowGeometry, oy: Int, image: UnsafePointer<Float>, lower: Float, upper: Float,
        row: UnsafeMutablePointer<Float>
    ) {
        let channels = g.inputChannels
        let rowsValid = g.validFilterRows(outputRow: oy)
        for ox in 0..<g.outputWidth {
            let columnsValid = g.validFilterColumns(outputColumn: ox)
            let out = row + ox * channels
            let first = image + ((oy * g.strideHeight - g.padTop + rowsValid.lowerBound) * g.inputWidth
                + ox * g.strideWidth - g.padLeft + columnsValid.lowerBound) * channels
            let rowStep = g.inputWidth * channels
            let count = Float(rowsValid.count * columnsValid.count)
            var c = 0
            while c + 8 <= channels {
                var acc = Vector()
                var p = first + c
                for _ in rowsValid {
                    var q = p
                    for _ in columnsValid {
                        acc += load(q)
                        q += channels
                    }
                    p += rowStep
                }
                store(GemmMicrokernel.clamp(acc / count, lower, upper), out + c)
                c += 8
            }
            while c < channels {
                var acc: Float = 0
                var p = first + c
                for _ in rowsValid {
                    var q = p
                    for _ in columnsValid {
                        acc += q.pointee
                        q += channels
                    }
                    p += rowStep
                }
                out[c] = ReferenceConvolution.clamp(acc / count, lower, upper)
                c += 1
            }
        }
    }

    @inline(__always)
    static func load(_ p: UnsafePointer<Float>) -> Vector {
        UnsafeRawPointer(p).loadUnaligned(as: Vector.self)
    }

    @inline(__always)
    static func store(_ v: Vector, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: Vector.self)
    }
}
