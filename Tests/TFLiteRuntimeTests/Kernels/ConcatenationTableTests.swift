import Testing

@testable import TFLiteRuntime

/// The 8-bit concatenation that passes requantized inputs through 256-entry tables while copying,
/// cut into pieces of a run: the same bytes as copying each part's runs then mapping every byte,
/// whatever the piece size and thread count.
@Suite struct ConcatenationTableTests {
    @Test(arguments: [(1, 4), (3, 1), (2, 7)])
    func joinMatchesCopyThenMap(outer: Int, inner: Int) {
        var rng = SplitMix64(seed: UInt64(outer * 10 + inner))
        let extents = [5, 1, 13, 2, 40]
        let parts = extents.map { e in (0..<(outer * e * inner)).map { _ in UInt8(truncatingIfNeeded: rng.next()) } }
        // Parts 0, 2 and 4 are requantized (any byte map will do), 1 and 3 are copied.
        let tables: [[UInt8]?] = extents.indices.map { i in
            i % 2 == 0 ? (0..<256).map { _ in UInt8(truncatingIfNeeded: rng.next()) } : nil
        }
        var want: [UInt8] = []
        for o in 0..<outer {
            for (i, e) in extents.enumerated() {
                let run = parts[i][(o * e * inner)..<((o + 1) * e * inner)]
                want += tables[i].map { t in run.map { t[Int($0)] } } ?? Array(run)
            }
        }
        let partition = AxisPartition(outer: outer, inner: inner, extents: extents, elementSize: 1)
        let flat = tables.flatMap { $0 ?? [UInt8](repeating: 0, count: 256) }
        // Every part in one buffer, so that all pointers are valid inside one closure.
        let storage = parts.flatMap { $0 }
        let offsets = parts.indices.map { i in parts[..<i].reduce(0) { $0 + $1.count } }
        for (threads, chunk) in [(1, 16384), (2, 3), (3, 1), (2, 8)] {
            var got = [UInt8](repeating: 0xA5, count: want.count)
            flat.withUnsafeBufferPointer { bytes in
                let pointers: [UnsafePointer<UInt8>?] = tables.indices.map { i in
                    tables[i] == nil ? nil : bytes.baseAddress! + 256 * i
                }
                storage.withUnsafeBytes { source in
                    let sources = offsets.map { source.baseAddress! + $0 }
                    got.withUnsafeMutableBytes { out in
                        partition.join(
                            sources, into: out.baseAddress!, tables: pointers, threads: threads, chunkBytes: chunk)
                    }
                }
            }
            #expect(got == want, "outer \(outer) inner \(inner) threads \(threads) chunk \(chunk)")
        }
    }
}
