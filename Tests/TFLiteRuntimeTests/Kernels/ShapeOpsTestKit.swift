import Testing

@testable import TFLiteRuntime

/// Runs one kernel on hand-built tensors, the way `SubgraphExecutor` would: prepare while
/// allocating, prepare again at run time when outputs are dynamic, then eval.
///
/// Used by the Shape, DataMovement and Conversion kernel tests.
final class ShapeOpsTestKit {
    private var blocks: [UnsafeMutableRawPointer] = []
    private var optionBytes: [UnsafeMutableRawBufferPointer] = []
    private var nextIndex = 0
    /// Kernels stay alive with the kit, as with an executor: folded outputs live in their memory.
    private var kernels: [OpKernel] = []

    deinit {
        for b in blocks { b.deallocate() }
        for b in optionBytes { b.deallocate() }
    }

    /// A tensor holding `bytes`; constants are bound in place like model weights.
    func tensor(
        _ type: TensorType, _ shape: [Int], bytes: [UInt8], constant: Bool = false,
        quantization: QuantizationInfo? = nil, sparsity: SparsityInfo? = nil
    ) throws -> RuntimeTensor {
        let t = RuntimeTensor(
            index: nextIndex, name: "t\(nextIndex)", type: type, shape: shape, quantization: quantization, isVariable: false)
        nextIndex += 1
        t.sparsity = sparsity
        if constant {
            let block = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 64)
            bytes.withUnsafeBytes { if let base = $0.baseAddress { block.copyMemory(from: base, byteCount: bytes.count) } }
            blocks.append(block)
            t.bindConstant(block, byteCount: bytes.count)
        } else {
            try t.allocateOwned()
            bytes.withUnsafeBytes { src in
                if let base = src.baseAddress { t.raw.baseAddress!.copyMemory(from: base, byteCount: min(bytes.count, t.byteCount)) }
            }
        }
        return t
    }

    func floats(_ values: [Float], _ shape: [Int], constant: Bool = false) throws -> RuntimeTensor {
        try tensor(.float32, shape, bytes: ShapeOpsTestKit.bytes(values), constant: constant)
    }

    func int32s(_ values: [Int32], _ shape: [Int]? = nil, constant: Bool = true) throws -> RuntimeTensor {
        try tensor(.int32, shape ?? [values.count], bytes: ShapeOpsTestKit.bytes(values), constant: constant)
    }

    func int64s(_ values: [Int64], _ shape: [Int]? = nil, constant: Bool = true) throws -> RuntimeTensor {
        try tensor(.int64, shape ?? [values.count], bytes: ShapeOpsTestKit.bytes(values), constant: constant)
    }

    /// An output tensor with the type the model would declare (its shape is set by the kernel).
    func output(_ type: TensorType, quantization: QuantizationInfo? = nil) -> RuntimeTensor {
        defer { nextIndex += 1 }
        return RuntimeTensor(
            index: nextIndex, name: "out\(nextIndex)", type: type, shape: [], quantization: quantization, isVariable: false)
    }

    /// Builds `op`'s node and kernel, runs it once, and returns the node (outputs hold results).
    @discardableResult
    func run(
        _ op: BuiltinOperator, _ inputs: [RuntimeTensor?], _ outputs: [RuntimeTensor], options: [Int: OptionField] = [:],
        threads: Int = 1
    ) throws -> Node {
        let node = Node(
            index: 0, code: OperatorCode(builtin: op, customCode: nil, version: 1), inputs: inputs, outputs: outputs,
            intermediates: [], options: try optionsTable(options), customOptions: UnsafeRawBufferPointer(start: nil, count: 0),
            threadCount: threads)
        guard let factory = OpRegistry.factory(for: node.code) else { throw RuntimeError("no kernel for \(op.name)") }
        let kernel = try factory(node)
        kernels.append(kernel)
        try kernel.prepare(node)
        node.isRunning = true
        defer { node.isRunning = false }
        if node.hasDynamicOutputs {
            try kernel.prepare(node)
            for t in outputs { try t.allocateOwned() }
        } else {
            for t in outputs where !t.isConstant { try t.allocateOwned() }
        }
        try kernel.eval(node)
        return node
    }

    /// One field of a builtin options table.
    enum OptionField {
        case int32(Int32)
        case int8(Int8)
        case bool(Bool)
        case ints([Int32])
    }

    /// A FlatBuffer table with `fields`: vtable, then one 4-byte slot per field, then vectors.
    private func optionsTable(_ fields: [Int: OptionField]) throws -> FlatTable? {
        guard let maxField = fields.keys.max() else { return nil }
        let slots = maxField + 1
        let vtableSize = 4 + 2 * slots
        let table = (vtableSize + 3) & ~3
        let tableSize = 4 + 4 * slots
        var vectorsAt = table + tableSize
        var bytes = [UInt8](repeating: 0, count: vectorsAt)
        func put<T: FixedWidthInteger>(_ v: T, at offset: Int) {
            withUnsafeBytes(of: v.littleEndian) { for (i, b) in $0.enumerated() { bytes[offset + i] = b } }
        }
        put(UInt16(vtableSize), at: 0)
        put(UInt16(tableSize), at: 2)
        put(Int32(table), at: table)
        for (field, value) in fields.sorted(by: { $0.key < $1.key }) {
            let slot = table + 4 + 4 * field
            put(UInt16(4 + 4 * field), at: 4 + 2 * field)
            switch value {
            case .int32(let v): put(v, at: slot)
            case .int8(let v): put(v, at: slot)
            case .bool(let v): put(UInt8(v ? 1 : 0), at: slot)
            case .ints(let values):
                put(UInt32(vectorsAt - slot), at: slot)
                bytes += [UInt8](repeating: 0, count: 4 + 4 * values.count)
                put(UInt32(values.count), at: vectorsAt)
                for (i, v) in values.enumerated() { put(v, at: vectorsAt + 4 + 4 * i) }
                vectorsAt += 4 + 4 * values.count
            }
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 8)
        buffer.copyBytes(from: bytes)
        optionBytes.append(buffer)
        return try FlatTable(bytes: UnsafeRawBufferPointer(buffer), position: table, what: "test options")
    }

    // MARK: - Values

    static func bytes<T>(_ values: [T]) -> [UInt8] { values.withUnsafeBytes { Array($0) } }

    static func values<T>(_ tensor: RuntimeTensor, as: T.Type) -> [T] {
        let n = tensor.elementCount
        guard n > 0, let data = tensor.data else { return [] }
        return (0..<n).map { data.loadUnaligned(fromByteOffset: $0 * MemoryLayout<T>.stride, as: T.self) }
    }

    static func bytes(of tensor: RuntimeTensor) -> [UInt8] {
        guard let data = tensor.data else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: tensor.requiredBytes))
    }
}

/// A small deterministic generator for test data (xorshift64*).
struct ShapeOpsRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed | 1 }

    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 2_685_821_657_736_338_717
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }

    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) } }

    mutating func floats(_ count: Int) -> [Float] {
        (0..<count).map { _ in Float(Int(next() % 20001) - 10000) / 1000 }
    }

    mutating func shape(rank: Int, maxDim: Int = 5) -> [Int] { (0..<rank).map { _ in int(1...maxDim) } }

    mutating func elementSize() -> (TensorType, Int) {
        let types: [TensorType] = [.uint8, .int16, .float32, .int64]
        let t = types[int(0...3)]
        return (t, t.byteSize)
    }
}

/// Expects `body` to throw a kernel error whose message contains `fragment`.
func expectShapeOpsError(_ fragment: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    do {
        try body()
        Issue.record("expected an error containing '\(fragment)'", sourceLocation: sourceLocation)
    } catch {
        #expect("\(error)".contains(fragment), "error was: \(error)", sourceLocation: sourceLocation)
    }
}
