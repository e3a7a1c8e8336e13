/// Where each input element lands in a padded, interior-padded or cropped output: the geometry of
/// STABLEHLO_PAD, DILATE and the dilation and padding steps of STABLEHLO_REDUCE_WINDOW.
///
/// Element `i` of dimension `d` goes to `low[d] + i * (interior[d] + 1)`; elements that land outside
/// the output (negative padding crops) are dropped and every other output element is the padding value.
struct PadGeometry {
    let inputShape: [Int]
    let outputShape: [Int]
    let low: [Int]
    let interior: [Int]

    /// `collapsesEmpty`: an output dimension that would be zero or negative makes the whole output
    /// shape zeros (LiteRT's STABLEHLO_PAD) instead of an error.
    init(input: [Int], low: [Int], high: [Int], interior: [Int], collapsesEmpty: Bool = false, node: Node) throws {
        let rank = input.count
        guard low.count == rank, high.count == rank, interior.count == rank else {
            throw node.error("padding has \(low.count)/\(high.count)/\(interior.count) values for rank \(rank)")
        }
        var shape = [Int]()
        for d in 0..<rank {
            guard interior[d] >= 0 else { throw node.error("interior padding \(interior[d]) is negative") }
            let limit = 1 << 31
            guard abs(low[d]) < limit, abs(high[d]) < limit, interior[d] < limit else {
                throw node.error("padding of dimension \(d) is too large")
            }
            // An empty dimension spreads to nothing: LiteRT 2.3 pads it to low + high.
            let spread = input[d] == 0 ? 0 : (input[d] - 1) * (interior[d] + 1) + 1
            shape.append(spread + low[d] + high[d])
        }
        if shape.contains(where: { $0 <= 0 }) && collapsesEmpty {
            shape = [Int](repeating: 0, count: rank)
        } else if let bad = shape.firstIndex(where: { $0 < 0 }) {
            throw node.error("padding makes dimension \(bad) negative (\(shape[bad]))")
        }
        inputShape = input
        outputShape = shape
        self.low = low
        self.interior = interior
    }

    /// Fills `output` with `padding` (one element) and copies the input elements that land inside it.
    func apply(
        input: UnsafeRawPointer, output: UnsafeMutableRawPointer, elementSize: Int, padding: UnsafeRawPointer
    ) {
        let outputCount = outputShape.reduce(1, *)
        for i in 0..<outputCount { (output + i * elementSize).copyMemory(from: padding, byteCount: elementSize) }
        let inputCount = inputShape.reduce(1, *)
        guard inputCount > 0, outputCount > 0 else { return }
        let rank = inputShape.count
        var strides = [Int](repeating: 1, count: rank)
        for d in stride(from: rank - 2, through: 0, by: -1) { strides[d] = strides[d + 1] * outputShape[d + 1] }
        // Per dimension, each input coordinate's output offset, or -1 when it falls outside.
        var offsets = [[Int]]()
        for d in 0..<rank {
            offsets.append(
                (0..<inputShape[d]).map { i in
                    let c = low[d] + i * (interior[d] + 1)
                    return c >= 0 && c < outputShape[d] ? c * strides[d] : -1
                })
        }
        var index = [Int](repeating: 0, count: rank)
        for n in 0..<inputCount {
            var offset = 0
            var inside = true
            for d in 0..<rank {
                let o = offsets[d][index[d]]
                if o < 0 { inside = false; break }
                offset += o
            }
            if inside {
                (output + offset * elementSize).copyMemory(from: input + n * elementSize, byteCount: elementSize)
            }
            var d = rank - 1
            while d >= 0 {
                index[d] += 1
                if index[d] < inputShape[d] { break }
                index[d] = 0
                d -= 1
            }
        }
    }
}

/// Checks that a tensor's bytes cover its shape and returns them.
func stablehloBytes(_ node: Node, _ tensor: RuntimeTensor, role: String) throws -> UnsafeMutableRawPointer? {
    let needed = tensor.requiredBytes
    guard tensor.byteCount >= needed else {
        throw node.error("\(role) has \(tensor.byteCount) bytes; its shape \(tensor.shape) needs \(needed)")
    }
    guard needed == 0 || tensor.data != nil else { throw node.error("\(role) has no data") }
    return tensor.data
}

/// STABLEHLO_PAD (operand, scalar padding value; `StablehloPadOptions`) and DILATE (input, int32
/// dilations, scalar padding value): any fixed-size type, copied bytewise, as LiteRT does.
/// STABLEHLO_PAD crops where edge padding is negative; DILATE is interior padding of dilation - 1.
final class StableHLOPadKernel: OpKernel {
    enum Kind { case pad, dilate }

    let kind: Kind
    let parameters: StablehloPadParameters?
    private var geometry: PadGeometry?

    init(_ node: Node, _ kind: Kind) throws {
        self.kind = kind
        parameters = kind == .pad ? try StablehloPadParameters(node) : nil
    }

    private var valueIndex: Int { kind == .pad ? 1 : 2 }

    func prepare(_ node: Node) throws {
        try node.expect(inputs: kind == .pad ? 2 : 3, outputs: 1)
        let input = try node.input(0)
        let value = try node.input(valueIndex)
        guard input.type.byteSize > 0 else { throw node.error("type \(input.type.name) is not supported") }
        guard value.type == input.type else {
            throw node.error("padding value is \(value.type.name), the operand \(input.type.name)")
        }
        guard value.elementCount == 1 else { throw node.error("padding value must be one element") }
        let rank = input.rank
        switch kind {
        case .pad:
            guard let p = parameters else { throw node.error("has no options") }
            guard rank > 0 else { throw node.error("operand must have at least one dimension") }
            geometry = try PadGeometry(
                input: input.shape, low: p.edgePaddingLow, high: p.edgePaddingHigh, interior: p.interiorPadding,
                collapsesEmpty: true, node: node)
        case .dilate:
            guard rank > 0 else { throw node.error("input must have at least one dimension") }
            let dilations = try node.input(1)
            try node.expect(dilations, type: .int32, role: "dilations")
            guard dilations.shape == [rank] else { throw node.error("dilations must have shape [\(rank)]") }
            guard node.knowsValues(of: dilations) else {
                node.markOutputsDynamic()
                return
            }
            let values = try node.elementwiseBuffer(dilations, Int32.self, role: "dilations").map(Int.init)
            guard values.allSatisfy({ $0 >= 1 }), !input.shape.contains(0) else {
                throw node.error("dilations \(values) must be at least 1 and the input not empty")
            }
            geometry = try PadGeometry(
                input: input.shape, low: [Int](repeating: 0, count: rank), high: [Int](repeating: 0, count: rank),
                interior: values.map { $0 - 1 }, node: node)
        }
        guard let g = geometry else { throw node.error("has no geometry") }
        try node.setOutput(0, type: input.type, shape: g.outputShape)
    }

    func eval(_ node: Node) throws {
        guard let g = geometry else { throw node.error("was not prepared") }
        let input = try node.input(0)
        let output = try node.output(0)
        guard output.shape == g.outputShape, input.shape == g.inputShape else {
            throw node.error("shapes changed since prepare")
        }
        let size = input.type.byteSize
        guard let value = try stablehloBytes(node, try node.input(valueIndex), role: "padding value") else {
            throw node.error("padding value has no data")
        }
        // An empty operand may have no memory; nothing is read from it then.
        let source = try stablehloBytes(node, input, role: "operand") ?? value
        guard let destination = try stablehloBytes(node, output, role: "output") else { return }
        g.apply(input: source, output: destination, elementSize: size, padding: value)
    }
}
