import Foundation

/// RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL and MULTINOMIAL, drawn from TensorFlow's Philox
/// generator seeded by `RandomOptions` (seed, seed2) as LiteRT does, so seeded outputs match it.
///
/// RANDOM_UNIFORM / RANDOM_STANDARD_NORMAL: a 1-D int32 shape in, float32 out (uniform in [0, 1),
/// or standard normal by Box–Muller). MULTINOMIAL: float32 logits `[batch, classes]` and an int32
/// scalar sample count in; int64 or int32 class indices `[batch, samples]` out. The generator is
/// seeded when tensors are allocated and moves on with every invoke. With both seeds 0 LiteRT seeds
/// from the system's entropy; so does this runtime (such outputs cannot match anything).
final class RandomKernel: OpKernel {
    enum Distribution { case uniform, normal, multinomial }
    let distribution: Distribution
    let parameters: RandomParameters
    private var generator: Philox

    init(_ node: Node, _ distribution: Distribution) throws {
        self.distribution = distribution
        try node.expect(inputs: distribution == .multinomial ? 2 : 1, outputs: 1)
        parameters = try RandomParameters(node)
        generator = RandomKernel.seeded(parameters)
    }

    private static func seeded(_ p: RandomParameters) -> Philox {
        // LiteRT keeps the schema's int64 seeds in C ints: only the low 32 bits count, sign-extended.
        let seed = Int64(Int32(truncatingIfNeeded: p.seed))
        let seed2 = Int64(Int32(truncatingIfNeeded: p.seed2))
        if seed == 0 && seed2 == 0 {
            var system = SystemRandomNumberGenerator()
            return Philox(seed: system.next(), seed2: system.next())
        }
        return Philox(seed: UInt64(bitPattern: seed), seed2: UInt64(bitPattern: seed2))
    }

    func prepare(_ node: Node) throws {
        // LiteRT re-seeds in Prepare, which runs when tensors are allocated, not on every invoke.
        if !node.isRunning { generator = RandomKernel.seeded(parameters) }
        if distribution == .multinomial { return try prepareMultinomial(node) }
        let shape = try node.input(0)
        guard shape.type == .int32, shape.rank == 1 else { throw node.error("shape must be a 1-D int32 tensor") }
        guard try node.output(0).type == .float32 else {
            throw node.error("output type \(try node.output(0).type.name) is not supported; supported: FLOAT32")
        }
        guard node.knowsValues(of: shape) else {
            node.markOutputsDynamic()
            return
        }
        let dims = try node.elementwiseBuffer(shape, Int32.self, role: "shape").map(Int.init)
        try node.setOutput(0, type: .float32, shape: dims)
    }

    private func prepareMultinomial(_ node: Node) throws {
        let logits = try node.input(0)
        let samples = try node.input(1)
        guard logits.type == .float32, logits.rank == 2 else { throw node.error("logits must be a 2-D float32 tensor") }
        guard samples.type == .int32, samples.rank == 0 else { throw node.error("num_samples must be an int32 scalar") }
        guard logits.shape[1] > 0 else { throw node.error("logits need at least one class") }
        let type = try node.output(0).type
        guard type == .int64 || type == .int32 else { throw node.error("output must be INT64 or INT32") }
        guard node.knowsValues(of: samples) else {
            node.markOutputsDynamic()
            return
        }
        let count = try node.elementwiseBuffer(samples, Int32.self, role: "num_samples")[0]
        guard count >= 0 else { throw node.error("num_samples \(count) is negative") }
        try node.setOutput(0, type: type, shape: [logits.shape[0], Int(count)])
    }

    func eval(_ node: Node) throws {
        switch distribution {
        case .uniform, .normal:
            let y = try node.elementwiseBuffer(try node.output(0), Float.self, role: "output")
            var filled = 0
            while filled < y.count {
                let block = generator.next()
                let values: (Float, Float, Float, Float)
                if distribution == .uniform {
                    values = (Philox.uniformFloat(block.0), Philox.uniformFloat(block.1),
                              Philox.uniformFloat(block.2), Philox.uniformFloat(block.3))
                } else {
                    let first = Philox.normalPair(block.0, block.1)
                    let second = Philox.normalPair(block.2, block.3)
                    values = (first.0, first.1, second.0, second.1)
                }
                // A final partial block keeps its first values and drops the rest.
                let n = min(4, y.count - filled)
                y[filled] = values.0
                if n > 1 { y[filled + 1] = values.1 }
                if n > 2 { y[filled + 2] = values.2 }
                if n > 3 { y[filled + 3] = values.3 }
                filled += n
            }
        case .multinomial:
            let y = try node.output(0)
            if y.type == .int64 {
                try sample(node, into: try node.elementwiseBuffer(y, Int64.self, role: "output"))
            } else {
                try sample(node, into: try node.elementwiseBuffer(y, Int32.self, role: "output"))
            }
        }
    }

    /// Inverse-CDF sampling per batch row, with the draws of one invoke taken from a copy of the
    /// generator while the generator itself jumps ahead by a fixed amount (TensorFlow's scheme).
    private func sample<T: FixedWidthInteger>(_ node: Node, into output: UnsafeMutableBufferPointer<T>) throws {
        let logitsTensor = try node.input(0)
        let logits = try node.elementwiseBuffer(logitsTensor, Float.self, role: "logits")
        let batch = logitsTensor.shape[0]
        let classes = logitsTensor.shape[1]
        let samples = batch == 0 ? 0 : output.count / batch
        guard output.count == batch * samples else { throw node.error("output is not [batch, num_samples]") }
        var draws = generator
        let jump = Int32(truncatingIfNeeded: batch) &* (Int32(truncatingIfNeeded: samples &+ 3) / 4 &* 4) &* 2 &* 256
        generator.skip(UInt64(bitPattern: Int64(jump)))
        var cdf = [Double](repeating: 0, count: classes)
        var block: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
        var used = 4
        for b in 0..<batch {
            let row = b * classes
            var largest = -Float.greatestFiniteMagnitude
            for i in 0..<classes where logits[row + i].isFinite { largest = max(largest, logits[row + i]) }
            let maximum = Double(largest)
            var total = 0.0
            for i in 0..<classes {
                if logits[row + i].isFinite { total += exp(Double(logits[row + i]) - maximum) }
                cdf[i] = total
            }
            for j in 0..<samples {
                if used == 4 {
                    block = draws.next()
                    used = 0
                }
                let u = used == 0 ? Philox.uniformDouble(block.0, block.1) : Philox.uniformDouble(block.2, block.3)
                used += 2
                let target = u * total
                // The first class whose cumulative value exceeds the target (std::upper_bound).
                var low = 0
                var high = classes
                while low < high {
                    let middle = (low + high) / 2
                    if target < cdf[middle] { high = middle } else { low = middle + 1 }
                }
                output[b * samples + j] = T(truncatingIfNeeded: low)
            }
        }
    }
}
