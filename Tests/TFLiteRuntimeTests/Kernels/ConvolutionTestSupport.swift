import Foundation
import Testing

@testable import TFLiteRuntime

/// One operand of a single-node kernel test.
struct ConvolutionTestOperand {
    var shape: [Int]
    var type: TensorType = .float32
    var floats: [Float] = []
    var ints: [Int32] = []
    /// Constant operands are bound like model weights (packable in `prepare`); others are activations.
    var constant = false

    static func float(_ shape: [Int], _ values: [Float], constant: Bool = false) -> ConvolutionTestOperand {
        ConvolutionTestOperand(shape: shape, floats: values, constant: constant)
    }

    static func int32(_ shape: [Int], _ values: [Int32], constant: Bool = true) -> ConvolutionTestOperand {
        ConvolutionTestOperand(shape: shape, type: .int32, ints: values, constant: constant)
    }
}

/// Builds one `Node` with its kernel from the registry, runs it as the executor would, and owns all the
/// memory involved (tensors, constant buffers, the options FlatBuffer).
final class ConvolutionTestNode {
    let node: Node
    let kernel: OpKernel
    private var blocks: [UnsafeMutableRawPointer] = []

    /// `options` maps option field numbers to values; every field is stored in a 4-byte slot, which
    /// reads correctly as int8/bool/int32 on little-endian machines.
    init(
        _ op: BuiltinOperator, customCode: String? = nil, options: [Int: Int32] = [:], customOptions: [UInt8] = [],
        inputs: [ConvolutionTestOperand?], threads: Int = 1
    ) throws {
        var tensors = [RuntimeTensor?]()
        var blocks = [UnsafeMutableRawPointer]()
        for (i, operand) in inputs.enumerated() {
            guard let operand else {
                tensors.append(nil)
                continue
            }
            let t = RuntimeTensor(
                index: i, name: "input\(i)", type: operand.type, shape: operand.shape, quantization: nil, isVariable: false)
            let bytes = operand.type == .float32 ? operand.floats.count * 4 : operand.ints.count * 4
            let block = UnsafeMutableRawPointer.allocate(byteCount: max(bytes, 4), alignment: 64)
            blocks.append(block)
            if operand.type == .float32 {
                operand.floats.withUnsafeBytes { if let p = $0.baseAddress { block.copyMemory(from: p, byteCount: bytes) } }
            } else {
                operand.ints.withUnsafeBytes { if let p = $0.baseAddress { block.copyMemory(from: p, byteCount: bytes) } }
            }
            if operand.constant {
                t.bindConstant(block, byteCount: bytes)
            } else {
                try t.allocateOwned()
                t.raw.baseAddress?.copyMemory(from: block, byteCount: min(bytes, t.byteCount))
            }
            tensors.append(t)
        }
        let output = RuntimeTensor(index: inputs.count, name: "output", type: .float32, shape: [], quantization: nil, isVariable: false)
        var table: FlatTable?
        if !options.isEmpty {
            let (block, count, position) = ConvolutionTestNode.optionsTable(options)
            blocks.append(block)
            table = try FlatTable(bytes: UnsafeRawBufferPointer(start: block, count: count), position: position, what: "options")
        }
        var custom = UnsafeRawBufferPointer(start: nil, count: 0)
        if !customOptions.isEmpty {
            let block = UnsafeMutableRawPointer.allocate(byteCount: customOptions.count, alignment: 16)
            customOptions.withUnsafeBytes { block.copyMemory(from: $0.baseAddress!, byteCount: customOptions.count) }
            blocks.append(block)
            custom = UnsafeRawBufferPointer(start: block, count: customOptions.count)
        }
        self.blocks = blocks
        let code = OperatorCode(builtin: op, customCode: customCode, version: 1)
        node = Node(
            index: 0, code: code, inputs: tensors, outputs: [output], intermediates: [], options: table,
            customOptions: custom, threadCount: threads)
        guard let factory = OpRegistry.factory(for: code) else { throw RuntimeError("no kernel for \(code.displayName)") }
        kernel = try factory(node)
    }

    deinit { for b in blocks { b.deallocate() } }

    /// Prepares (twice when outputs are dynamic, as the executor does) and evaluates.
    func run() throws -> (shape: [Int], values: [Float]) {
        node.isRunning = false
        node.hasDynamicOutputs = false
        try kernel.prepare(node)
        if node.hasDynamicOutputs {
            node.isRunning = true
            try kernel.prepare(node)
        }
        let output = node.outputs[0]
        try output.allocateOwned()
        // Poison the output so a kernel that skips elements is caught.
        let y = output.floats
        for i in y.indices { y[i] = .nan }
        node.isRunning = true
        defer { node.isRunning = false }
        try kernel.eval(node)
        return (output.shape, Array(output.floats))
    }

    /// Only `prepare`, for tests of validation errors.
    func prepare() throws {
        try kernel.prepare(node)
    }

    /// A FlatBuffer holding one table whose field `i` is `options[i]`.
    private static func optionsTable(_ options: [Int: Int32]) -> (UnsafeMutableRawPointer, Int, Int) {
        let fields = (options.keys.max() ?? 0) + 1
        let vtableSize = 4 + 2 * fields
        let position = (vtableSize + 3) / 4 * 4
        let tableSize = 4 + 4 * fields
        let count = position + tableSize
        let block = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 16)
        block.initializeMemory(as: UInt8.self, repeating: 0, count: count)
        block.storeBytes(of: UInt16(vtableSize).littleEndian, toByteOffset: 0, as: UInt16.self)
        block.storeBytes(of: UInt16(tableSize).littleEndian, toByteOffset: 2, as: UInt16.self)
        block.storeBytes(of: Int32(position).littleEndian, toByteOffset: position, as: Int32.self)
        for (field, value) in options {
            block.storeBytes(of: UInt16(4 + 4 * field).littleEndian, toByteOffset: 4 + 2 * field, as: UInt16.self)
            block.storeBytes(of: value.littleEndian, toByteOffset: position + 4 + 4 * field, as: Int32.self)
        }
        return (block, count, position)
    }
}

/// Helpers shared by the convolution and pooling tests.
enum ConvolutionTestValues {
    /// Uniform values in `-1...1`.
    static func random(_ count: Int, _ rng: inout SplitMix64) -> [Float] {
        (0..<count).map { _ in Float.random(in: -1...1, using: &rng) }
    }

    /// Largest `|a - b| / max(1, |b|)`; NaN when the lengths differ or a value is NaN.
    static func maxRelativeError(_ a: [Float], _ b: [Float]) -> Float {
        guard a.count == b.count else { return .nan }
        var worst: Float = 0
        for (x, y) in zip(a, b) {
            if x.isNaN != y.isNaN { return .nan }
            if x.isNaN { continue }
            worst = max(worst, abs(x - y) / max(1, abs(y)))
        }
        return worst
    }
}
