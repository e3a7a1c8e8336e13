/// The right-hand side `B[K, N]` of a GEMM and its bias, repacked for `GemmMicrokernel`.
///
/// Columns are grouped into panels of `GemmMicrokernel.nr`; inside a panel the values of one `k` are
/// contiguous, so the microkernel reads the panel as one forward stream. The last panel is padded
/// with zero columns (and zero bias), so the microkernel never needs a column tail. Packing is done
/// once for constant weights (in `prepare`) and on every run for weights computed by the graph.
///
/// Not thread-safe while packing; reading the packed data from several workers is fine.
final class PackedWeights {
    /// Rows of `B` (the reduction length).
    private(set) var depth = 0
    /// Columns of `B` (outputs).
    private(set) var columns = 0
    private let storage = ScratchBuffer<Float>(0)
    private let biasStorage = ScratchBuffer<Float>(0)

    /// Takes the memory for constant weights from `arena` (see `ScratchBuffer.place(in:)`); weights
    /// computed by the graph keep the heap.
    func place(in arena: WeightArena) {
        storage.place(in: arena)
        biasStorage.place(in: arena)
    }

    var panels: Int { (columns + GemmMicrokernel.nr - 1) / GemmMicrokernel.nr }

    /// Floats of one packed panel.
    var panelStride: Int { depth * GemmMicrokernel.nr }

    /// The packed panels, `panels * panelStride` floats.
    var data: UnsafePointer<Float> { UnsafePointer(storage.pointer) }

    /// The bias padded to `panels * nr` floats (zeros when the operator has no bias).
    var bias: UnsafePointer<Float> { UnsafePointer(biasStorage.pointer) }

    /// Packs `B[k, n] = source[columnOffset(n) + k * depthStride]` for `k < depth`, `n < columns`.
    ///
    /// The caller guarantees every such index is inside `source`.
    func pack(
        depth: Int, columns: Int, source: UnsafePointer<Float>, depthStride: Int, columnOffset: (Int) -> Int
    ) {
        let nr = GemmMicrokernel.nr
        self.depth = depth
        self.columns = columns
        // Every float of the panels is written below (padding columns as zeros).
        storage.reserveUninitialized(max(1, panels * panelStride))
        let dst = storage.pointer
        reserveBias(columns)
        withUnsafeTemporaryAllocation(of: Int.self, capacity: nr) { offsets in
            for p in 0..<panels {
                let panel = dst + p * panelStride
                let valid = min(nr, columns - p * nr)
                for j in 0..<valid { offsets[j] = columnOffset(p * nr + j) }
                for k in 0..<depth {
                    let row = panel + k * nr
                    let kOffset = k * depthStride
                    for j in 0..<valid { row[j] = source[offsets[j] + kOffset] }
                    for j in valid..<nr { row[j] = 0 }
                }
            }
        }
    }

    /// Copies `count == columns` bias values (or zeros when `values` is nil) into the padded bias.
    func setBias(_ values: UnsafePointer<Float>?) {
        let padded = panels * GemmMicrokernel.nr
        let dst = reserveBias(columns)
        if let values {
            dst.update(from: values, count: columns)
            (dst + columns).update(repeating: 0, count: padded - columns)
        } else {
            dst.update(repeating: 0, count: padded)
        }
    }

    /// Room for the bias padded to whole panels (`setBias` writes all of it).
    @discardableResult
    private func reserveBias(_ columns: Int) -> UnsafeMutablePointer<Float> {
        let padded = max(1, (columns + GemmMicrokernel.nr - 1) / GemmMicrokernel.nr * GemmMicrokernel.nr)
        biasStorage.reserveUninitialized(padded)
        return biasStorage.pointer
    }
}
