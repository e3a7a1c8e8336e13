/// TILE: repeats the input `multiples[i]` times along each axis (input 1, int32 or int64), for any
/// fixed-size element type, and strings. Quantized tensors keep their values (the output has the input's
/// quantization in LiteRT's models). Built as LiteRT's `TileOneDimension` does: each block is
/// produced once and then copied.
final class TileKernel: OpKernel {
    private var multiples: [Int] = []

    init(_ node: Node) throws { try node.expect(inputs: 2, outputs: 1) }

    func prepare(_ node: Node) throws {
        let x = try node.input(0), m = try node.input(1)
        if x.type != .string { try MoveSupport.expectMovable(x, node, role: "input") }
        try node.expect(m, type: .int32, .int64, role: "multiples")
        guard m.rank == 1, m.elementCount == x.rank else {
            throw node.error("multiples must hold one value per input dimension (\(x.rank)), has shape \(m.shape)")
        }
        guard node.knowsValues(of: m) else {
            node.markOutputsDynamic()
            return
        }
        let values = try MoveSupport.integers(m, node, role: "multiples")
        var shape = [Int]()
        for (d, k) in zip(x.shape, values) {
            guard k >= 0 else { throw node.error("multiples must not be negative, has \(k)") }
            let (p, o) = d.multipliedReportingOverflow(by: k)
            guard !o else { throw node.error("output shape overflows") }
            shape.append(p)
        }
        multiples = values
        try node.setOutput(0, type: x.type, shape: shape)
    }

    func eval(_ node: Node) throws {
        let x = try node.input(0), y = try node.output(0)
        guard multiples.count == x.rank else { throw node.error("eval before prepare") }
        guard y.elementCount > 0 else { return }
        if x.type == .string {
            let shape = x.shape, multiples = multiples
            return try StringMove.run(node, input: x, output: y) { source, destination, size in
                if shape.isEmpty {
                    destination.copyMemory(from: source, byteCount: size)
                } else {
                    _ = TileKernel.tile(0, shape, multiples, size, source, destination)
                }
            }
        }
        let src = try MoveSupport.source(x, node, role: "input")
        let dst = try MoveSupport.destination(y, node, role: "output")
        let es = x.type.byteSize
        if x.rank == 0 {
            dst.copyMemory(from: src, byteCount: es)
            return
        }
        _ = TileKernel.tile(0, x.shape, multiples, es, src, dst)
    }

    /// Tiles dimension `d` onward from `input` into `output`; returns the bytes read and written.
    private static func tile(
        _ d: Int, _ shape: [Int], _ multiples: [Int], _ es: Int, _ input: UnsafeRawPointer,
        _ output: UnsafeMutableRawPointer
    ) -> (read: Int, written: Int) {
        var read = 0, written = 0
        if d == shape.count - 1 {
            read = shape[d] * es
            written = read
        } else {
            for _ in 0..<shape[d] {
                let (r, w) = tile(d + 1, shape, multiples, es, input + read, output + written)
                read += r
                written += w
            }
        }
        if d == shape.count - 1 {
            for k in 0..<multiples[d] { (output + k * written).copyMemory(from: input, byteCount: written) }
        } else {
            for k in 1..<max(multiples[d], 1) {
                (output + k * written).copyMemory(from: UnsafeRawPointer(output), byteCount: written)
            }
        }
        return (read, written * multiples[d])
    }
}
