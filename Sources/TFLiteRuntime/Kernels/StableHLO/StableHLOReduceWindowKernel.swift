/// REDUCE_WINDOW (input, init value, constant int64 window shape, strides and dilations;
/// `ReduceWindowOptions.reduce_function`) and STABLEHLO_REDUCE_WINDOW (input, init value;
/// `StablehloReduceWindowOptions`, with base dilations and padding, its reduction named by the one
/// operator of its body subgraph: [STABLEHLO_]ADD, MUL[TIPLY], MAXIMUM, MINIMUM, LOGICAL_AND /
/// STABLEHLO_AND, LOGICAL_OR / STABLEHLO_OR).
///
/// Types as LiteRT's shared kernel takes them: float32, float64, int8, int16, int32, int64, uint8 and
/// bool, which LiteRT reduces as int8 (so ADD of bools counts, byte for byte). Each window starts from
/// the init value and folds its elements in row-major order; integers wrap; MAXIMUM is `a >= b ? a : b`
/// and MINIMUM `a <= b ? a : b` with the accumulator first; ALL/ANY give 1 or 0 of the type. The
/// base dilation and padding (negative crops) fill with the init value, as LiteRT does.
final class StableHLOReduceWindowKernel: OpKernel {
    enum Function: Int { case add = 1, multiply, minimum, maximum, all, any }

    let isStablehlo: Bool
    private var function: Function = .add
    private var stablehlo: StablehloReduceWindowParameters?
    private var padGeometry: PadGeometry?
    private var paddedShape: [Int] = []
    private var outputShape: [Int] = []
    private var window: [Int] = []
    private var windowStrides: [Int] = []
    private var windowDilations: [Int] = []
    private var scratch: [UInt8] = []

    init(_ node: Node, stablehlo: Bool) throws {
        isStablehlo = stablehlo
        if stablehlo {
            let p = try StablehloReduceWindowParameters(node)
            self.stablehlo = p
            function = try Self.bodyFunction(node, p.bodySubgraphIndex)
        } else {
            let raw = try ReduceWindowParameters(node).reduceFunction
            guard let f = Function(rawValue: raw) else { throw node.error("reduce function \(raw) is not supported") }
            function = f
        }
    }

    private static func bodyFunction(_ node: Node, _ index: Int) throws -> Function {
        guard let body = try stablehloBodyOperator(node, subgraph: index, role: "body") else {
            throw node.error("body subgraph \(index) has no operator")
        }
        switch body {
        case .add, .stablehloAdd: return .add
        case .mul, .stablehloMultiply: return .multiply
        case .maximum, .stablehloMaximum: return .maximum
        case .minimum, .stablehloMinimum: return .minimum
        case .logicalAnd, .stablehloAnd: return .all
        case .logicalOr, .stablehloOr: return .any
        default: throw node.error("reduction body \(body.name) is not supported")
        }
    }

    private static let types: [TensorType] = [.float32, .float64, .int8, .int16, .int32, .int64, .uint8, .bool]

    private func constantLongs(_ node: Node, _ i: Int, _ rank: Int, _ role: String) throws -> [Int] {
        let t = try node.input(i)
        try node.expect(t, type: .int64, role: role)
        guard t.isConstant else { throw node.error("\(role) must be constant") }
        guard t.shape == [rank] else { throw node.error("\(role) must have shape [\(rank)]") }
        return try node.elementwiseBuffer(t, Int64.self, role: role).map { Int(truncatingIfNeeded: $0) }
    }

    func prepare(_ node: Node) throws {
        try node.expect(inputs: isStablehlo ? 2 : 5, outputs: 1)
        let input = try node.input(0)
        let initial = try node.input(1)
        guard Self.types.contains(input.type) else { throw node.error("type \(input.type.name) is not supported") }
        guard initial.type == input.type, initial.elementCount == 1 else {
            throw node.error("init value must be one \(input.type.name) element")
        }
        let rank = input.rank
        guard rank > 0, rank <= 6 else { throw node.error("rank \(rank) is not supported (1...6)") }
        if let p = stablehlo {
            guard p.windowDimensions.count == rank, p.windowStrides.count == rank, p.baseDilations.count == rank,
                p.windowDilations.count == rank, p.padding.count == 2 * rank
            else { throw node.error("window options do not match rank \(rank)") }
            window = p.windowDimensions
            windowStrides = p.windowStrides
            windowDilations = p.windowDilations
            guard p.baseDilations.allSatisfy({ $0 > 0 }) else { throw node.error("base dilations must be positive") }
            let low = (0..<rank).map { p.padding[2 * $0] }
            let high = (0..<rank).map { p.padding[2 * $0 + 1] }
            let needed = p.baseDilations.contains { $0 != 1 } || p.padding.contains { $0 != 0 }
            if needed {
                guard !input.shape.contains(0) else { throw node.error("empty inputs cannot be dilated") }
                let g = try PadGeometry(
                    input: input.shape, low: low, high: high, interior: p.baseDilations.map { $0 - 1 }, node: node)
                var elements = input.type.byteSize
                for d in g.outputShape {
                    let (product, overflow) = elements.multipliedReportingOverflow(by: d)
                    guard !overflow, product <= Model.maxTensorBytes else {
                        throw node.error("dilated and padded input \(g.outputShape) is too large")
                    }
                    elements = product
                }
                padGeometry = g
                paddedShape = g.outputShape
            } else {
                padGeometry = nil
                paddedShape = input.shape
            }
        } else {
            window = try constantLongs(node, 2, rank, "window shape")
            windowStrides = try constantLongs(node, 3, rank, "window strides")
            windowDilations = try constantLongs(node, 4, rank, "window dilations")
            padGeometry = nil
            paddedShape = input.shape
        }
        let limit = 1 << 31
        guard window.allSatisfy({ $0 > 0 && $0 < limit }), windowStrides.allSatisfy({ $0 > 0 && $0 < limit }),
            windowDilations.allSatisfy({ $0 > 0 && $0 < limit })
        else { throw node.error("window dimensions, strides and dilations must be positive") }
        outputShape = (0..<rank).map { d in
            let span = (window[d] - 1) * windowDilations[d] + 1
            return paddedShape[d] < span ? 0 : (paddedShape[d] - span) / windowStrides[d] + 1
        }
        try node.setOutput(0, type: input.type, shape: outputShape)
    }

    func eval(_ node: Node) throws {
        let input = try node.input(0)
        let output = try node.output(0)
        guard output.shape == outputShape else { throw node.error("output shape changed since prepare") }
        let size = input.type.byteSize
        guard let initial = try stablehloBytes(node, try node.input(1), role: "init value") else {
            throw node.error("init value has no data")
        }
        guard let destination = try stablehloBytes(node, output, role: "output") else { return }
        guard let source = try stablehloBytes(node, input, role: "input") else { throw node.error("input has no data") }
        if let g = padGeometry {
            let bytes = g.outputShape.reduce(1, *) * size
            if scratch.count < bytes { scratch = [UInt8](repeating: 0, count: bytes) }
            try scratch.withUnsafeMutableBytes { buffer in
                guard let base = buffer.baseAddress else { throw node.error("no scratch memory") }
                g.apply(input: source, output: base, elementSize: size, padding: initial)
                try reduce(node, input.type, base, initial, destination)
            }
        } else {
            try reduce(node, input.type, source, initial, destination)
        }
    }

    private func reduce(
        _ node: Node, _ type: TensorType, _ source: UnsafeRawPointer, _ initial: UnsafeRawPointer,
        _ destination: UnsafeMutableRawPointer
    ) throws {
        switch type {
        case .float32: run(source, initial, destination, Float.self, floatCombine(Float.self))
        case .float64: run(source, initial, destination, Double.self, floatCombine(Double.self))
        case .int8, .bool: run(source, initial, destination, Int8.self, integerCombine(Int8.self))
        case .int16: run(source, initial, destination, Int16.self, integerCombine(Int16.self))
        case .int32: run(source, initial, destination, Int32.self, integerCombine(Int32.self))
        case .int64: run(source, initial, destination, Int64.self, integerCombine(Int64.self))
        case .uint8: run(source, initial, destination, UInt8.self, integerCombine(UInt8.self))
        default: throw node.error("type \(type.name) is not supported")
        }
    }

    private func integerCombine<T: FixedWidthInteger>(_: T.Type) -> (T, T) -> T {
        switch function {
        case .add: return { $0 &+ $1 }
        case .multiply: return { $0 &* $1 }
        case .minimum: return { $0 <= $1 ? $0 : $1 }
        case .maximum: return { $0 >= $1 ? $0 : $1 }
        case .all: return { $0 != 0 && $1 != 0 ? 1 : 0 }
        case .any: return { $0 != 0 || $1 != 0 ? 1 : 0 }
        }
    }

    private func floatCombine<T: BinaryFloatingPoint>(_: T.Type) -> (T, T) -> T {
        switch function {
        case .add: return { $0 + $1 }
        case .multiply: return { $0 * $1 }
        case .minimum: return { $0 <= $1 ? $0 : $1 }
        case .maximum: return { $0 >= $1 ? $0 : $1 }
        case .all: return { $0 != 0 && $1 != 0 ? 1 : 0 }
        case .any: return { $0 != 0 || $1 != 0 ? 1 : 0 }
        }
    }

    private func run<T>(
        _ source: UnsafeRawPointer, _ initial: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer,
        _: T.Type, _ combine: (T, T) -> T
    ) {
        let input = source.assumingMemoryBound(to: T.self)
        let output = destination.assumingMemoryBound(to: T.self)
        let start = initial.loadUnaligned(as: T.self)
        let rank = paddedShape.count
        var strides = [Int](repeating: 1, count: rank)
        for d in stride(from: rank - 2, through: 0, by: -1) { strides[d] = strides[d + 1] * paddedShape[d + 1] }
        let windowSteps = (0..<rank).map { strides[$0] * windowDilations[$0] }
        let outputCount = outputShape.reduce(1, *)
        // Every window fits in the input when there is an output, so this product cannot overflow.
        guard outputCount > 0 else { return }
        // The window's element offsets in row-major window order (the order LiteRT folds them).
        let windowCount = window.reduce(1, *)
        var windowOffsets = [Int](repeating: 0, count: windowCount)
        var offset = [Int](repeating: 0, count: rank)
        for w in 0..<windowCount {
            var at = 0
            for d in 0..<rank { at += offset[d] * windowSteps[d] }
            windowOffsets[w] = at
            var d = rank - 1
            while d >= 0 {
                offset[d] += 1
                if offset[d] < window[d] { break }
                offset[d] = 0
                d -= 1
            }
        }
        var position = [Int](repeating: 0, count: rank)
        windowOffsets.withUnsafeBufferPointer { offsets in
            for o in 0..<outputCount {
                var base = 0
                for d in 0..<rank { base += position[d] * windowStrides[d] * strides[d] }
                var accumulator = start
                for w in offsets { accumulator = combine(accumulator, input[base + w]) }
                output[o] = accumulator
                var d = rank - 1
                while d >= 0 {
                    position[d] += 1
                    if position[d] < outputShape[d] { break }
                    position[d] = 0
                    d -= 1
                }
            }
        }
    }
}

/// The operator of a StableHLO region subgraph (a reduction or scatter body): nil when it has
/// none; throws when it has more than one (LiteRT only reads single-operator regions).
func stablehloBodyOperator(_ node: Node, subgraph index: Int, role: String) throws -> BuiltinOperator? {
    guard let context = node.context else { throw node.error("has no interpreter context for its \(role)") }
    let model = context.model
    guard index >= 0, index < model.subgraphs.count else {
        throw node.error("\(role) subgraph \(index) does not exist (the model has \(model.subgraphs.count))")
    }
    let operators = model.subgraphs[index].operators
    guard operators.count <= 1 else {
        throw node.error("\(role) subgraph \(index) has \(operators.count) operators; only one is supported")
    }
    guard let op = operators.first else { return nil }
    guard op.opcodeIndex >= 0, op.opcodeIndex < model.operatorCodes.count else {
        throw node.error("\(role) subgraph \(index) has an invalid opcode")
    }
    return model.operatorCodes[op.opcodeIndex].builtin
}
