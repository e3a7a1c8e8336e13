import CKernels

/// Drives `GemmMicrokernel` over a whole product `C[rows, columns] = A · B + bias`, clamped, split
/// across threads.
///
/// `A` is described by a row-pointer callback (see `RowPointers`), so the same driver serves plain
/// matrices and convolutions read straight from the input image. Work is cut into units of one row
/// tile by a block of weight panels; units are ordered block-major so each thread sweeps its row
/// tiles while a block of packed weights stays in cache.
struct IndirectGemm {
    /// Output rows (`M`).
    var rows: Int
    /// Row pointers per output row (`1` for plain matrices, filter taps for convolutions).
    var taps: Int
    /// Elements read from each row pointer (the reduction length per tap).
    var depth: Int
    /// Packed right-hand side; its depth must be `taps * depth`.
    var weights: PackedWeights
    var output: UnsafeMutablePointer<Float>
    /// Distance between output rows, in floats.
    var outputStride: Int
    var lower: Float = -.infinity
    var upper: Float = .infinity
    /// Floats of per-thread scratch per tile row that `RowPointers` may copy rows into (0 for none).
    var scratchPerRow = 0
    /// Whether the outputs follow LiteRT's GEMM summation order (`GemmSummationOrder`); otherwise
    /// every output is one running sum in (tap, k) order, like LiteRT's reference loops (grouped
    /// convolution).
    var followsEigenOrder = true

    /// Fills `mr` row pointers per tap for `count` rows starting at row `first`, laid out as
    /// `pointers[tap * mr + r]`. Rows past `count` must repeat a valid row (their results are dropped).
    /// `scratch` holds `mr * scratchPerRow` floats private to the calling thread, valid until the next call.
    typealias RowPointers = (
        _ first: Int, _ count: Int, _ pointers: UnsafeMutablePointer<UnsafePointer<Float>>,
        _ scratch: UnsafeMutablePointer<Float>
    ) -> Void

    /// Row pointers for a row-major matrix whose row `m` starts at `base + m * stride`.
    static func denseRows(_ base: UnsafePointer<Float>, stride: Int) -> RowPointers {
        { first, count, pointers, _ in
            for r in 0..<GemmMicrokernel.mr {
                pointers[r] = base + (first + min(r, count - 1)) * stride
            }
        }
    }

    /// Runs the product on up to `threads` threads.
    func run(threads: Int, rowPointers: RowPointers) {
        let mr = GemmMicrokernel.mr, nr = GemmMicrokernel.nr
        let panels = weights.panels
        guard rows > 0, panels > 0 else { return }
        let rowTiles = (rows + mr - 1) / mr
        let macsPerPanel = max(1, taps * depth * nr)
        // A block of panels small enough to stay in L2 while a thread sweeps its row tiles.
        var blockPanels = max(1, min(panels, (128 * 1024 / 4) / macsPerPanel))
        // With few row tiles (small batch, matrix-vector), split the columns so every thread gets work.
        let wantedUnits = threads * 4
        if rowTiles * ((panels + blockPanels - 1) / blockPanels) < wantedUnits {
            let blocksNeeded = min(panels, (wantedUnits + rowTiles - 1) / rowTiles)
            blockPanels = max(1, min(blockPanels, (panels + blocksNeeded - 1) / blocksNeeded))
        }
        let blocks = (panels + blockPanels - 1) / blockPanels
        let units = rowTiles * blocks
        // Below ~64k multiply-adds per thread the dispatch costs more than it saves.
        let unitMacs = mr * blockPanels * macsPerPanel
        let minimumUnits = max(1, 65_536 / unitMacs)

        let scratchCount = max(1, mr * scratchPerRow), pointerCount = taps * mr
        parallelFor(units, threads: threads, minimumPerThread: minimumUnits) { range in
            withUnsafeTemporaryAllocation(of: UnsafePointer<Float>.self, capacity: pointerCount) { pointers in
                withUnsafeTemporaryAllocation(of: Float.self, capacity: scratchCount) { scratch in
                    guard let pointers = pointers.baseAddress, let scratch = scratch.baseAddress else { return }
                    runUnits(
                        range, rowTiles: rowTiles, blockPanels: blockPanels, pointers: pointers, scratch: scratch,
                        rowPointers: rowPointers)
                }
            }
        }
    }

    /// Computes work units `range` (unit = row tile + block of panels, block-major) on this thread.
    @inline(__always)
    private func runUnits(
        _ range: Range<Int>, rowTiles: Int, blockPanels: Int, pointers: UnsafeMutablePointer<UnsafePointer<Float>>,
        scratch: UnsafeMutablePointer<Float>, rowPointers: RowPointers
    ) {
        let mr = GemmMicrokernel.mr, nr = GemmMicrokernel.nr
        let packed = weights.data, bias = weights.bias, panelStride = weights.panelStride
        let panels = weights.panels, columns = weights.columns
        let taps = self.taps, depth = self.depth, rows = self.rows
        let output = self.output, ldc = outputStride, lower = self.lower, upper = self.upper
        let a = UnsafePointer(pointers)
        let simd = CPUFeatures.floatGemm
        // The table's functions themselves: the ISA-neutral entry points would look the table up
        // again on every tile.
        let tile = CPUFeatures.kernels.f32_gemm_8x16, vector = CPUFeatures.kernels.f32_gemv_16
        let pair = CPUFeatures.kernels.f32_gemm_8x32
        let aOptional = UnsafeRawPointer(a).assumingMemoryBound(to: UnsafePointer<Float>?.self)
        let irregular = followsEigenOrder && rows > 1
            ? GemmSummationOrder.firstIrregularChannel(pixels: rows, channels: columns, depth: taps * depth) : nil
        // One output channel, or a tiny product: every output is recomputed in Eigen's order below,
        // so the microkernel's running sums would be thrown away.
        let recomputesAll = irregular != nil && (columns == 1 || taps * depth + columns + rows < 20)
        for unit in range {
            let block = unit / rowTiles
            let first = (unit % rowTiles) * mr
            let count = min(mr, rows - first)
            rowPointers(first, count, pointers, scratch)
            let panelEnd = min(panels, (block + 1) * blockPanels)
            // A panel the two-panel kernel already computed with the one before it.
            var pairedPanel = -1
            for p in (block * blockPanels)..<panelEnd {
                let b = packed + p * panelStride
                let pb = bias + p * nr
                let c = output + first * ldc + p * nr
                let valid = min(nr, columns - p * nr)
                if p == pairedPanel {
                    // (computed with panel p - 1)
                } else if rows == 1 {
                    // A matrix-vector product sums in LiteRT's GEMV order (see `GemmMicrokernel.gemv`).
                    if simd, let vector {
                        vector(aOptional, taps, depth, b, pb, lower, upper, c, valid)
                    } else {
                        let half = GemmMicrokernel.half
                        for h in stride(from: 0, to: valid, by: half) {
                            GemmMicrokernel.gemv(
                                a: a, taps: taps, depth: depth, b: b + h, bias: pb + h, lower: lower, upper: upper,
                                c: c + h, columns: min(half, valid - h))
                        }
                    }
                } else if recomputesAll {
                    // (done by recomputeIrregular below)
                } else if simd, let pair, p + 1 < panelEnd {
                    // Two panels per call (AVX-512): the activations are broadcast once for both.
                    pair(
                        aOptional, count, taps, depth, b, b + panelStride, pb, lower, upper, c, ldc,
                        min(nr, columns - (p + 1) * nr))
                    pairedPanel = p + 1
                } else if simd, let tile {
                    tile(aOptional, count, taps, depth, b, pb, lower, upper, c, ldc, valid)
                } else {
                    let half = GemmMicrokernel.half
                    for h in stride(from: 0, to: valid, by: half) {
                        let columnsHere = min(half, valid - h)
                        var r = 0
                        while r + 4 <= count {
                            GemmMicrokernel.tile4(
                                a: a, firstRow: r, taps: taps, depth: depth, b: b + h, bias: pb + h, lower: lower,
                                upper: upper, c: c + r * ldc + h, ldc: ldc, columns: columnsHere)
                            r += 4
                        }
                        for r in r..<count {
                            GemmMicrokernel.tile1(
                                a: a, row: r, taps: taps, depth: depth, b: b + h, bias: pb + h, lower: lower,
                                upper: upper, c: c + r * ldc + h, columns: columnsHere)
                        }
                    }
                }
                if let irregular, irregular < p * nr + valid {
                    recomputeIrregular(
                        rows: first..<(first + count), panel: p, from: max(irregular, p * nr), pointers: a)
                }
            }
        }
    }

    /// Recomputes the outputs of panel `panel` from column `from` on, for the tile's `rows`, whose
    /// summation order in LiteRT is not the microkernels' running sum.
    private func recomputeIrregular(
        rows tile: Range<Int>, panel: Int, from: Int, pointers a: UnsafePointer<UnsafePointer<Float>>
    ) {
        let mr = GemmMicrokernel.mr, nr = GemmMicrokernel.nr
        let panelWeights = weights.data + panel * weights.panelStride, bias = weights.bias
        let columns = weights.columns, taps = self.taps, depth = self.depth, total = rows
        let lower = self.lower, upper = self.upper
        if total > 1, columns == 1, taps * depth + columns + total >= 20 {
            // One output channel: every output in Eigen's matrix-vector order, in C.
            let aOptional = UnsafeRawPointer(a).assumingMemoryBound(to: UnsafePointer<Float>?.self)
            omk_f32_gemm_reorder(
                aOptional, mr, tile.count, taps, depth, panelWeights, nr, 0, 1, 0, 1, bias + panel * nr, lower, upper,
                output + tile.lowerBound * outputStride + panel * nr, outputStride)
            return
        }
        if total > 1, columns > 1, taps * depth + columns + total >= 20 {
            // The common case, even/odd and four-way lanes of whole groups of 4 pixels, in C. The
            // other pixels and the channels in whole blocks of 8 are sequential: already done.
            let whole4 = total / 4 * 4, whole8 = columns / 8 * 8
            let rowsHere = min(tile.upperBound, whole4) - tile.lowerBound
            guard rowsHere > 0 else { return }
            let panelStart = panel * nr
            let fourWay = whole8 + (columns - whole8) / 4 * 4
            let aOptional = UnsafeRawPointer(a).assumingMemoryBound(to: UnsafePointer<Float>?.self)
            omk_f32_gemm_reorder(
                aOptional, mr, rowsHere, taps, depth, panelWeights, nr, from - panelStart,
                min(columns, panelStart + nr) - panelStart, max(0, fourWay - panelStart), 0, bias + panelStart, lower,
                upper, output + tile.lowerBound * outputStride + panelStart, outputStride)
            return
        }
        for pixel in tile {
            let r = pixel - tile.lowerBound
            for column in from..<min(columns, (panel + 1) * nr) {
                let order = GemmSummationOrder.of(
                    pixel: pixel, channel: column, pixels: total, channels: columns, depth: taps * depth)
                guard order != .sequential else { continue }
                let lane = column - panel * nr
                let sum = order.sum(taps: taps, depth: depth, x: { a[$0 * mr + r] }, w: { panelWeights[$0 * nr + lane] })
                let v = sum + bias[column]
                output[pixel * outputStride + column] = v < lower ? lower : (v > upper ? upper : v)
            }
        }
    }
}
