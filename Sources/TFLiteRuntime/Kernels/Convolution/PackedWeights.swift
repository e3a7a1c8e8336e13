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
    private var storage: UnsafeMutablePointer<Float>
    private var storageCapacity = 1
    private var biasStorage: UnsafeMutablePointer<Float>
    private var biasCapacity = 1

    init() {
        storage = PackedWeights.allocate(1)
        biasStorage = PackedWeights.allocate(1)
    }

    deinit {
        storage.deallocate()
        biasStorage.deallocate()
    }

    var panels: Int { (columns + GemmMicrokernel.nr - 1) / GemmMicrokernel.nr }

    /// Floats of one packed panel.
    var panelStride: Int { depth * GemmMicrokernel.nr }

    /// The packed panels, `panels * panelStride` floats.
    var data: UnsafePointer<Float> { UnsafePointer(storage) }

    /// The bias padded to `panels * nr` floats (zeros when the operator has no bias).
    var bias: UnsafePointer<Float> { UnsafePointer(biasStorage) }

    /// Packs `B[k, n] = source[columnOffset(n) + k * depthStride]` for `k < depth`, `n < columns`.
    ///
    /// The caller guarantees every such index is inside `source`.
    func pack(
        depth: Int, columns: Int, source: UnsafePointer<Float>, depthStride: Int, columnOffset: (Int) -> Int
    ) {
        let nr = GemmMicrokernel.nr
        self.depth = depth
        self.columns = columns
        let count = panels * panelStride
        let dst = reserve(&storage, &storageCapacity, count)
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

    @discardableResult
    private func reserveBias(_ columns: Int) -> UnsafeMutablePointer<Float> {
        let padded = max(1, (columns + GemmMicrokernel.nr - 1) / GemmMicrokernel.nr * GemmMicrokernel.nr)
        return reserve(&biasStorage, &biasCapacity, padded)
    }

    private func reserve(
        _ pointer: inout UnsafeMutablePointer<Float>, _ capacity: inout Int, _ count: Int
    ) -> UnsafeMutablePointer<Float> {
        if capacity >= count { return pointer }
        pointer.deallocate()
        pointer = PackedWeights.allocate(count)
        capacity = count
        return pointer
    }

    /// Zeroed floats, 64-byte aligned so panels start on cache lines.
    private static func allocate(_ count: Int) -> UnsafeMutablePointer<Float> {
        let raw = UnsafeMutableRawPointer.allocate(byteCount: count * 4, alignment: 64)
        let p = raw.bindMemory(to: Float.self, capacity: count)
        p.initialize(repeating: 0, count: count)
        return p
    }
}
