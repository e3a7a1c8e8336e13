/// LSH_PROJECTION: locality-sensitive hash signatures of an input's rows.
///
/// Inputs: hash seeds `[numHash, numBits]` float32 (numBits ≤ 32), the input `[n, ...]` of any
/// fixed-size type or strings, optional weights `[n]` float32. Each seed gives one bit: the sign of the
/// (weighted) sum over rows of FarmHash's Fingerprint64 of the seed's bytes followed by the row's
/// bytes. Output int32: SPARSE `[numHash]`, each hash function's bits packed plus
/// `i << numBits`; DENSE `[numHash * numBits]`, one 0/1 per seed. Options: `LSHProjectionOptions`.
final class LSHProjectionKernel: OpKernel {
    let dense: Bool

    init(_ node: Node) throws {
        try node.expect(inputs: 2, 3, outputs: 1)
        let type = try LSHProjectionParameters(node).projection
        guard type == 1 || type == 2 else { throw node.error("projection type \(type) is neither SPARSE nor DENSE") }
        dense = type == 2
    }

    func prepare(_ node: Node) throws {
        let hash = try node.input(0)
        let x = try node.input(1)
        guard hash.rank == 2, hash.type == .float32 else { throw node.error("hash seeds must be a 2-D float32 tensor") }
        guard hash.shape[1] <= 32 else { throw node.error("at most 32 bits per hash function, has \(hash.shape[1])") }
        guard x.rank >= 1, x.shape[0] > 0 else { throw node.error("input must have at least one row") }
        guard x.type.byteSize > 0 || x.type == .string else {
            throw node.error("input type \(x.type.name) is not supported")
        }
        if let w = node.optionalInput(2) {
            guard w.rank == 1, w.type == .float32, w.shape[0] == x.shape[0] else {
                throw node.error("weights must be float32 with one value per input row")
            }
        }
        let count = dense ? hash.shape[0] * hash.shape[1] : hash.shape[0]
        try node.setOutput(0, type: .int32, shape: [count])
    }

    func eval(_ node: Node) throws {
        let hashTensor = try node.input(0)
        let seeds = try node.elementwiseBuffer(hashTensor, Float.self, role: "hash seeds")
        let x = try node.input(1)
        let weights = try node.optionalInput(2).map { try node.elementwiseBuffer($0, Float.self, role: "weights") }
        let output = try node.elementwiseBuffer(try node.output(0), Int32.self, role: "output")
        let rows = x.shape[0]
        // LiteRT hashes `bytes / rows` raw bytes per row; for strings that is the whole encoded
        // buffer (count, offsets and characters) cut into equal pieces.
        let rowBytes = (x.type == .string ? x.raw.count : x.requiredBytes) / rows
        guard x.raw.count >= rows * rowBytes, let base = x.data else { throw node.error("input has no data") }
        let numHash = hashTensor.shape[0]
        let numBits = hashTensor.shape[1]
        try withUnsafeTemporaryAllocation(byteCount: 4 + rowBytes, alignment: 8) { key in
            guard let k = key.baseAddress else { throw node.error("no memory for the hash key") }
            func bit(_ seed: Float) -> Int32 {
                var score = 0.0
                k.storeBytes(of: seed, as: Float.self)
                for r in 0..<rows {
                    (k + 4).copyMemory(from: UnsafeRawPointer(base) + r * rowBytes, byteCount: rowBytes)
                    let value = Double(Int64(bitPattern: FarmHash.fingerprint64(UnsafeRawBufferPointer(key))))
                    if let weights { score += Double(weights[r]) * value } else { score += value }
                }
                return score > 0 ? 1 : 0
            }
            if dense {
                for i in 0..<(numHash * numBits) { output[i] = bit(seeds[i]) }
            } else {
                for i in 0..<numHash {
                    var signature: Int32 = 0
                    for j in 0..<numBits { signature = (signature &<< 1) | bit(seeds[i * numBits + j]) }
                    // LiteRT adds i * (1 << numBits) in int; a shift of 32 wraps to 1 on x86.
                    output[i] = signature &+ Int32(truncatingIfNeeded: i) &* (Int32(1) &<< Int32(numBits))
                }
            }
        }
    }
}
