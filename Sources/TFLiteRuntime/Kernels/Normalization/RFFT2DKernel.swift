import Foundation

/// RFFT2D: the 2-D discrete Fourier transform of real float32 input over its last two axes.
///
/// Inputs: float32 `[..., H, W]` (rank ≥ 2) and fft_length (int32 `[2]`, powers of two); each
/// `H × W` slice is cropped or zero-padded to `fft_length`. Output complex64
/// `[..., fft_length[0], fft_length[1] / 2 + 1]`: the non-negative frequencies of the last axis.
/// Like LiteRT (which runs Ooura's FFT in double), the transform is computed in double (radix-2
/// FFTs over rows, then down columns) and rounded to float once. No options.
final class RFFT2DKernel: OpKernel {
    private var rows = 0
    private var columns = 0
    private var rowTwiddles: [Double] = []
    private var columnTwiddles: [Double] = []

    init(_ node: Node) throws {
        try node.expect(inputs: 2, outputs: 1)
    }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        let length = try node.input(1)
        try node.expect(x, type: .float32, role: "input")
        try node.expect(length, type: .int32, role: "fft_length")
        guard x.rank >= 2 else { throw node.error("input must have rank 2 or more, has shape \(x.shape)") }
        guard length.rank == 1, length.elementCount == 2 else { throw node.error("fft_length must have shape [2]") }
        guard node.knowsValues(of: length) else {
            node.markOutputsDynamic()
            return
        }
        let values = try length.intValues()
        guard values.count == 2 else { throw node.error("fft_length must hold 2 values") }
        for v in values where v <= 0 || v > 1 << 24 || v & (v - 1) != 0 {
            throw node.error("fft_length \(values) must be powers of two")
        }
        rows = values[0]
        columns = values[1]
        try FloatOperand.checkExtent(x.shape.dropLast(2) + [rows, columns], node: node, role: "output")
        try node.setOutput(0, type: .complex64, shape: x.shape.dropLast(2) + [rows, columns / 2 + 1])
        rowTwiddles = Self.twiddles(columns)
        columnTwiddles = Self.twiddles(rows)
    }

    /// cos and sin of 2πk/n for k in 0..<n, interleaved.
    private static func twiddles(_ n: Int) -> [Double] {
        var t = [Double](repeating: 0, count: 2 * n)
        for k in 0..<n {
            let angle = 2 * Double.pi * Double(k) / Double(n)
            t[2 * k] = cos(angle)
            t[2 * k + 1] = sin(angle)
        }
        return t
    }

    func eval(_ node: Node) throws {
        let xt = try node.input(0)
        let yt = try node.output(0)
        let x = try node.elementwiseBuffer(xt, Float.self, role: "input")
        // complex64 elements are float pairs: twice as many floats as elements.
        guard yt.type == .complex64, let base = yt.data, yt.byteCount >= yt.elementCount * 8 else {
            if yt.elementCount == 0 { return }
            throw node.error("output has no memory for \(yt.shape) complex64 values")
        }
        let y = UnsafeMutableBufferPointer(start: base.assumingMemoryBound(to: Float.self), count: 2 * yt.elementCount)
        let inH = xt.shape[xt.rank - 2]
        let inW = xt.shape[xt.rank - 1]
        let bins = columns / 2 + 1
        let slices = yt.elementCount / max(1, rows * bins)
        guard y.count == 2 * slices * rows * bins else { throw node.error("output is not sized for fft_length") }
        let usedH = min(inH, rows)
        let usedW = min(inW, columns)
        let rowTwiddles = self.rowTwiddles, columnTwiddles = self.columnTwiddles
        guard let out = y.baseAddress, let first = x.baseAddress, x.count >= slices * inH * inW else {
            if slices == 0 { return }
            throw node.error("input is not sized like its shape")
        }
        let input = UnsafePointer(first), rows = self.rows, columns = self.columns
        // Slices are independent: split over the threads, each with its own scratch.
        parallelFor(slices, threads: node.threadCount, minimumPerThread: max(1, 65_536 / max(1, rows * columns))) { range in
            let scratch = max(rows, columns)
            withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * rows * bins + 2 * scratch) { buffer in
                guard let s = buffer.baseAddress else { return }
                let re = s + 2 * rows * bins, im = re + scratch
                rowTwiddles.withUnsafeBufferPointer { rt in
                    columnTwiddles.withUnsafeBufferPointer { ct in
                        guard let rowTable = rt.baseAddress, let columnTable = ct.baseAddress else { return }
                        for slice in range {
                            Self.transform(
                                input + slice * inH * inW, inW: inW, usedH: usedH, usedW: usedW, rows: rows,
                                columns: columns, rowTable: rowTable, columnTable: columnTable, spectrum: s, re: re,
                                im: im, output: out + 2 * slice * rows * bins)
                        }
                    }
                }
            }
        }
    }

    /// One `H × W` slice: real FFTs of its rows (the non-negative frequencies), then complex FFTs down
    /// each column of bins, rounded to float into `output` (interleaved complex).
    private static func transform(
        _ x: UnsafePointer<Float>, inW: Int, usedH: Int, usedW: Int, rows: Int, columns: Int,
        rowTable: UnsafePointer<Double>, columnTable: UnsafePointer<Double>, spectrum s: UnsafeMutablePointer<Double>,
        re: UnsafeMutablePointer<Double>, im: UnsafeMutablePointer<Double>, output y: UnsafeMutablePointer<Float>
    ) {
        let bins = columns / 2 + 1
        for r in 0..<rows {
            let row = s + 2 * r * bins
            guard r < usedH else {
                // Rows past the input are zero and stay zero.
                row.update(repeating: 0, count: 2 * bins)
                continue
            }
            for c in 0..<columns { re[c] = c < usedW ? Double(x[r * inW + c]) : 0 }
            if columns >= 4 {
                realFFT(re, im, columns, rowTable, into: row)
            } else {
                for c in 0..<columns { im[c] = 0 }
                fft(re, im, columns, rowTable, tableStride: 1)
                for k in 0..<bins {
                    row[2 * k] = re[k]
                    row[2 * k + 1] = im[k]
                }
            }
        }
        if rows == 1 {
            // A one-point transform down the columns is the identity.
            for i in 0..<(2 * bins) { y[i] = Float(s[i]) }
            return
        }
        for k in 0..<bins {
            for r in 0..<rows {
                re[r] = s[2 * (r * bins + k)]
                im[r] = s[2 * (r * bins + k) + 1]
            }
            fft(re, im, rows, columnTable, tableStride: 1)
            for u in 0..<rows {
                y[2 * (u * bins + k)] = Float(re[u])
                y[2 * (u * bins + k) + 1] = Float(im[u])
            }
        }
    }

    /// The FFT of `n` real values (`re[0..<n]`, n a power of two, at least 4) through one complex FFT
    /// of n/2 points: z[m] = x[2m] + i·x[2m+1], then X[k] = E[k] + W^k·O[k] with E and O the even and
    /// odd samples' transforms, E[k] = (Z[k] + conj Z[n/2−k]) / 2 and O[k] = −i·(Z[k] − conj Z[n/2−k]) / 2.
    /// Writes bins 0...n/2 into `out` (interleaved); `twiddles` is the n-point table.
    private static func realFFT(
        _ re: UnsafeMutablePointer<Double>, _ im: UnsafeMutablePointer<Double>, _ n: Int,
        _ twiddles: UnsafePointer<Double>, into out: UnsafeMutablePointer<Double>
    ) {
        let h = n / 2
        // Pack in place: step m reads x[2m], x[2m+1], which no earlier step has overwritten.
        for m in 0..<h {
            let a = re[2 * m], b = re[2 * m + 1]
            re[m] = a
            im[m] = b
        }
        fft(re, im, h, twiddles, tableStride: 2)
        out[0] = re[0] + im[0]
        out[1] = 0
        out[2 * h] = re[0] - im[0]
        out[2 * h + 1] = 0
        for k in 1..<h {
            let ar = re[k], ai = im[k], br = re[h - k], bi = -im[h - k]
            let er = (ar + br) * 0.5, ei = (ai + bi) * 0.5
            let or = (ai - bi) * 0.5, oi = -(ar - br) * 0.5
            let c = twiddles[2 * k], sn = twiddles[2 * k + 1]
            // W^k = cos − i·sin.
            out[2 * k] = er + (c * or + sn * oi)
            out[2 * k + 1] = ei + (c * oi - sn * or)
        }
    }

    /// In-place radix-2 forward FFT (`X[k] = Σ x[n] e^{-2πikn/N}`) of `n` complex values, `n` a power
    /// of two; `twiddles` holds cos and sin of 2πk/(n·tableStride) interleaved (a longer transform's
    /// table serves with `tableStride` 2). O(n log n), where a direct sum over
    /// a BirdNET spectrogram took seconds.
    private static func fft(
        _ re: UnsafeMutablePointer<Double>, _ im: UnsafeMutablePointer<Double>, _ n: Int, _ twiddles: UnsafePointer<Double>,
        tableStride: Int
    ) {
        guard n > 1 else { return }
        var j = 0
        for i in 1..<n {
            var bit = n >> 1
            while j & bit != 0 {
                j ^= bit
                bit >>= 1
            }
            j |= bit
            if i < j {
                (re[i], re[j]) = (re[j], re[i])
                (im[i], im[j]) = (im[j], im[i])
            }
        }
        var length = 2
        while length <= n {
            let half = length / 2
            let step = n / length * tableStride
            var start = 0
            while start < n {
                for k in 0..<half {
                    let c = twiddles[2 * k * step], sn = twiddles[2 * k * step + 1]
                    let a = start + k, b = a + half
                    let tr = re[b] * c + im[b] * sn
                    let ti = im[b] * c - re[b] * sn
                    re[b] = re[a] - tr
                    im[b] = im[a] - ti
                    re[a] += tr
                    im[a] += ti
                }
                start += length
            }
            length <<= 1
        }
    }
}
