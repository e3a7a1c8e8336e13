/// STABLEHLO_RNG_BIT_GENERATOR: a uint64 state vector in; the advanced state (uint64, same shape) and
/// random bits out, the second output of the shape the model declares (int32, int64, uint32 or
/// uint64). `StablehloRngBitGeneratorOptions.algorithm`: THREEFRY (Threefry-2x32, 20 rounds, state
/// u64[2]) or PHILOX / DEFAULT (Philox-4x32, 10 rounds, state u64[2] or u64[3]).
///
/// The state is read as 32-bit words (key, then counter) and the bits are the generator's words in
/// order, as LiteRT does: the counter's low two words advance per block, and for a two-word Philox
/// state the counter's high words are the key words.
final class StableHLORngBitGeneratorKernel: OpKernel {
    let algorithm: Int

    init(_ node: Node) throws {
        algorithm = try StablehloRngBitGeneratorParameters(node).algorithm
        guard (0...2).contains(algorithm) else { throw node.error("unknown RNG algorithm \(algorithm)") }
    }

    func prepare(_ node: Node) throws {
        try node.expect(inputs: 1, outputs: 2)
        let state = try node.input(0)
        try node.expect(state, type: .uint64, role: "initial state")
        guard state.rank == 1 else { throw node.error("initial state must be a vector") }
        let length = state.shape[0]
        if algorithm == 2 {
            guard length == 2 else { throw node.error("THREEFRY needs a state of 2 words, has \(length)") }
        } else {
            guard length == 2 || length == 3 else { throw node.error("PHILOX needs a state of 2 or 3 words") }
        }
        let bits = try node.output(1)
        guard [.int32, .int64, .uint32, .uint64].contains(bits.type) else {
            throw node.error("output type \(bits.type.name) is not supported")
        }
        try node.setOutput(0, type: .uint64, shape: state.shape)
        try node.setOutput(1, type: bits.type, shape: bits.shape)
    }

    func eval(_ node: Node) throws {
        let state = try node.input(0)
        let words = try node.elementwiseBuffer(state, UInt64.self, role: "initial state").flatMap {
            [UInt32(truncatingIfNeeded: $0), UInt32(truncatingIfNeeded: $0 >> 32)]
        }
        let bits = try node.output(1)
        let count = bits.elementCount * (bits.type.byteSize / 4)
        guard bits.byteCount >= count * 4, count == 0 || bits.data != nil else {
            throw node.error("random output has no memory for \(count) words")
        }
        let key0 = words[0]
        let key1 = words[1]
        var random = [UInt32]()
        random.reserveCapacity(count + 4)
        var newState = words
        if algorithm == 2 {
            var counter = (words[2], words[3])
            while random.count < count {
                let block = Self.threefry(key0, key1, counter)
                random.append(block.0)
                random.append(block.1)
                counter.0 &+= 1
                if counter.0 == 0 { counter.1 &+= 1 }
            }
            newState[2] = counter.0
            newState[3] = counter.1
        } else {
            let three = words.count == 6
            var counter = [words[2], words[3], words[three ? 4 : 0], words[three ? 5 : 1]]
            while random.count < count {
                random.append(contentsOf: Self.philox(key0, key1, counter))
                counter[0] &+= 1
                if counter[0] == 0 { counter[1] &+= 1 }
            }
            newState[2] = counter[0]
            newState[3] = counter[1]
        }
        if count > 0, let out = bits.data {
            random.withUnsafeBytes { if let b = $0.baseAddress { out.copyMemory(from: b, byteCount: count * 4) } }
        }
        newState[0] = key0
        newState[1] = key1
        let next = try node.elementwiseBuffer(try node.output(0), UInt64.self, role: "output state")
        guard next.count * 2 == newState.count else { throw node.error("output state has the wrong size") }
        for j in 0..<next.count { next[j] = UInt64(newState[2 * j]) | UInt64(newState[2 * j + 1]) << 32 }
    }

    private static func rotate(_ x: UInt32, _ r: UInt32) -> UInt32 { (x << r) | (x >> (32 - r)) }

    static func threefry(_ key0: UInt32, _ key1: UInt32, _ counter: (UInt32, UInt32)) -> (UInt32, UInt32) {
        let key2 = key0 ^ key1 ^ 0x1BD1_1BDA
        var x0 = counter.0 &+ key0
        var x1 = counter.1 &+ key1
        let rotations: [[UInt32]] = [[13, 15, 26, 6], [17, 29, 16, 24]]
        // (rotation set, key word added to x0, key word added to x1, round number added to x1)
        let schedule: [(Int, UInt32, UInt32, UInt32)] = [
            (0, key1, key2, 1), (1, key2, key0, 2), (0, key0, key1, 3), (1, key1, key2, 4), (0, key2, key0, 5),
        ]
        for (r, ks0, ks1, b) in schedule {
            for rot in rotations[r] {
                x0 &+= x1
                x1 = rotate(x1, rot)
                x1 ^= x0
            }
            x0 &+= ks0
            x1 &+= ks1 &+ b
        }
        return (x0, x1)
    }

    static func philox(_ key0: UInt32, _ key1: UInt32, _ counter: [UInt32]) -> [UInt32] {
        var k0 = key0
        var k1 = key1
        var c = counter
        for _ in 0..<10 {
            let p0 = UInt64(0xD251_1F53) &* UInt64(c[0])
            let p1 = UInt64(0xCD9E_8D57) &* UInt64(c[2])
            c = [
                UInt32(truncatingIfNeeded: p1 >> 32) ^ c[1] ^ k0, UInt32(truncatingIfNeeded: p1),
                UInt32(truncatingIfNeeded: p0 >> 32) ^ c[3] ^ k1, UInt32(truncatingIfNeeded: p0),
            ]
            k0 &+= 0x9E37_79B9
            k1 &+= 0xBB67_AE85
        }
        return c
    }
}
