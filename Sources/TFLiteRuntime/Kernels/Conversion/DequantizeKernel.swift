import CKernels
/// DEQUANTIZE to float32: float16 widens exactly (how fp16-weight models store their filters);
/// int8, uint8, int16 and int4 (unpacked to int8 first, as LiteRT) compute `scale * (q - zeroPoint)`, per tensor (in
/// the order of LiteRT's optimized kernel) or per channel along the quantized dimension (in float, as LiteRT).
///
/// A constant input (weights) is dequantized once while preparing and the output bound as a
/// constant, so the consuming convolution can pack it.
final class DequantizeKernel: OpKernel {
    private let folded = FoldedOutputs()

    init(_ node: Node) throws { try node.expect(inputs: 1, outputs: 1) }

    func prepare(_ node: Node) throws {
        // Folded from constant inputs (weights) earlier: the values cannot have changed.
        if folded.isCurrent(node), MoveSupport.allInputsConstant(node) { return }
        try folded.reset(node)
        let x = try node.input(0)
        try node.expect(x, type: .float16, .int8, .uint8, .int16, .int4, role: "input")
        if let q = x.quantization, x.type != .float16 {
            if x.type == .int16, q.zeroPoints.contains(where: { $0 != 0 }) {
                throw node.error("int16 input must have zero point 0")
            }
            if q.scales.count > 1 {
                guard x.type != .int16 else { throw node.error("per-channel int16 input is not supported") }
                let dim = q.quantizedDimension
                guard dim >= 0, dim < x.rank, x.shape[dim] == q.scales.count, q.zeroPoints.count == q.scales.count else {
                    throw node.error("\(q.scales.count) per-channel scales do not fit dimension \(dim) of \(x.shape)")
                }
            }
        }
        try node.setOutput(0, type: .float32, shape: x.shape)
        if MoveSupport.allInputsConstant(node) { try folded.fold(node) { try run(node) } }
    }

    func eval(_ node: Node) throws {
        if folded.isActive { return }
        try run(node)
    }

    /// Folded weights, freed once the convolutions reading them have packed them.
    var releasableFold: FoldedOutputs? { folded }

    /// A folded DEQUANTIZE read its input once, while preparing.
    func holdsOwnCopy(ofInput index: Int) -> Bool { folded.isActive }

    private func run(_ node: Node) throws {
        let x = try node.input(0), y = try node.output(0)
        let output = try MoveSupport.destination(y, node, role: "output").assumingMemoryBound(to: Float.self)
        if x.type == .int4 {
            // LiteRT unpacks int4 (two per byte, low nibble first) to int8, then runs the int8 path.
            let count = x.elementCount
            try QuantizedOperand.checkBytes(x, node: node, role: "input")
            var unpacked = [Int8](repeating: 0, count: count)
            if count > 0, let d = x.data {
                let p = d.assumingMemoryBound(to: UInt8.self)
                for i in 0..<count {
                    let byte = p[i >> 1]
                    unpacked[i] = Int8(bitPattern: i & 1 == 0 ? byte << 4 : byte & 0xF0) >> 4
                }
            }
            unpacked.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return }
                DequantizeKernel.dequantize(
                    base, .int8, shape: x.shape, x.quantization, output, threads: node.threadCount)
            }
            return
        }
        let source = try MoveSupport.source(x, node, role: "input")
        DequantizeKernel.dequantize(source, x.type, shape: x.shape, x.quantization, output, threads: node.threadCount)
    }

    /// Dequantizes `shape`'s elements of `type` into `output` (checked by `prepare`).
    static func dequantize(
        _ source: UnsafeRawPointer, _ type: TensorType, shape: [Int], _ q: QuantizationInfo?,
        _ output: UnsafeMutablePointer<Float>, threads: Int
    ) {
        let count = MoveSupport.product(shape, 0..<shape.count)
        if type == .float16 {
            parallelFor(count, threads: threads, minimumPerThread: 1 << 15) { range in
                omk_f16_to_f32(source + 2 * range.lowerBound, output + range.lowerBound, range.count)
            }
            return
        }
        func values<T: FixedWidthInteger>(_: T.Type, _ body: (UnsafePointer<T>) -> Void) {
            body(source.assumingMemoryBound(to: T.self))
        }
        // LiteRT keeps zero points as int32; widening keeps the subtraction below from overflowing.
        let scales = q?.scales ?? [0]
        let zeros = (q?.zeroPoints ?? [0]).map { Int64(Int32(truncatingIfNeeded: $0)) }
        if scales.count > 1, let q {
            // Channel c of dimension d covers runs of `inner` elements, repeating every
            // `channels * inner` elements.
            let d = q.quantizedDimension
            let inner = MoveSupport.product(shape, (d + 1)..<shape.count), channels = shape[d]
            func perChannel<T: FixedWidthInteger>(_ p: UnsafePointer<T>) {
                for block in 0..<(count / max(channels * inner, 1)) {
                    for c in 0..<channels {
                        let base = (block * channels + c) * inner
                        let scale = scales[c], zero = zeros[c]
                        for i in base..<(base + inner) { output[i] = scale * Float(Int64(p[i]) - zero) }
                    }
                }
            }
            if type == .int8 { values(Int8.self, perChannel) } else { values(UInt8.self, perChannel) }
            return
        }
        // LiteRT's optimized kernel (NEON, or its SSE emulation on x86) computes whole groups of
        // eight as `q * scale + (-zeroPoint * scale)` in float, without fusing; the remaining tail
        // uses the double formula. Both are kept so results match it bit for bit.
        let scale = Double(scales.first ?? 0), zero = zeros.first ?? 0
        let floatScale = Float(scale), offset = Float(Double(-zero) * scale)
        let grouped = count / 8 * 8
        func perTensor<T: FixedWidthInteger>(_ p: UnsafePointer<T>) {
            parallelFor(count, threads: threads, minimumPerThread: 1 << 15) { range in
                for i in range {
                    output[i] = i < grouped
                        ? Float(p[i]) * floatScale + offset : Float(scale * Double(Int64(p[i]) - zero))
                }
            }
        }
        switch type {
        case .int8: values(Int8.self, perTensor)
        case .uint8: values(UInt8.self, perTensor)
        default: values(Int16.self, perTensor)
        }
    }
}
