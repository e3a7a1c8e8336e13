import Foundation

/// REAL, IMAG and COMPLEX_ABS: one real part of every element of a complex tensor.
///
/// Input complex64 (output float32) or complex128 (output float64), any shape; the output has the
/// input's shape. COMPLEX_ABS is the magnitude through `hypot`, as `std::abs` of `std::complex` is
/// in LiteRT (no overflow for huge parts). No options.
final class ComplexPartKernel: OpKernel {
    enum Part { case real, imaginary, magnitude }
    let part: Part

    init(_ node: Node, _ part: Part) throws {
        self.part = part
        try node.expect(inputs: 1, outputs: 1)
    }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        let y = try node.output(0)
        switch x.type {
        case .complex64:
            guard y.type == .float32 else { throw node.error("output must be FLOAT32 for a COMPLEX64 input") }
        case .complex128:
            guard y.type == .float64 else { throw node.error("output must be FLOAT64 for a COMPLEX128 input") }
        default:
            throw node.error("input type \(x.type.name) is not supported; supported: COMPLEX64, COMPLEX128")
        }
        try node.setOutput(0, type: y.type, shape: x.shape)
    }

    func eval(_ node: Node) throws {
        let x = try node.input(0)
        let y = try node.output(0)
        if x.type == .complex64 {
            try run(node, x, y, Float.self) { re, im in hypotf(re, im) }
        } else {
            try run(node, x, y, Double.self) { re, im in hypot(re, im) }
        }
    }

    /// Complex elements are (real, imaginary) pairs of `T`, so the input is read as `2n` scalars.
    private func run<T: BinaryFloatingPoint>(
        _ node: Node, _ xt: RuntimeTensor, _ yt: RuntimeTensor, _: T.Type, _ magnitude: (T, T) -> T
    ) throws {
        let count = xt.elementCount
        let output = try node.elementwiseBuffer(yt, T.self, role: "output")
        guard output.count == count, xt.raw.count >= count * 2 * MemoryLayout<T>.stride else {
            throw node.error("input has data for fewer than \(count) complex elements")
        }
        guard count > 0, let base = xt.data else { return }
        let pairs = base.assumingMemoryBound(to: T.self)
        switch part {
        case .real:
            for i in 0..<count { output[i] = pairs[2 * i] }
        case .imaginary:
            for i in 0..<count { output[i] = pairs[2 * i + 1] }
        case .magnitude:
            for i in 0..<count { output[i] = magnitude(pairs[2 * i], pairs[2 * i + 1]) }
        }
    }
}
