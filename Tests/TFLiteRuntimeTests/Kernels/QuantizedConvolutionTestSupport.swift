import Foundation
import Testing

@testable import TFLiteRuntime

/// One operand of a quantized single-node test: stored integer values (or floats) with quantization.
struct QuantizedTestOperand {
    var shape: [Int]
    var type: TensorType
    var ints: [Int64] = []
    var floats: [Float] = []
    var scales: [Float] = []
    var zeroPoints: [Int64] = []
    var axis = 0
    var constant = false

    var quantization: QuantizationInfo? {
        scales.isEmpty
            ? nil
            : QuantizationInfo(
                scales: scales, zeroPoints: zeroPoints.isEmpty ? scales.map { _ in 0 } : zeroPoints,
                quantizedDimension: axis, min: [], max: [])
    }

    /// Little-endian bytes of the values in `type`.
    var bytes: [UInt8] {
        var out = [UInt8]()
        switch type {
        case .float32: for f in floats { withUnsafeBytes(of: f.bitPattern.littleEndian) { out += $0 } }
        case .uint8: out = ints.map { UInt8(truncatingIfNeeded: $0) }
        case .int8: out = ints.map { UInt8(bitPattern: Int8(truncatingIfNeeded: $0)) }
        case .int16: for v in ints { withUnsafeBytes(of: Int16(truncatingIfNeeded: v).littleEndian) { out += $0 } }
        case .int32: for v in ints { withUnsafeBytes(of: Int32(truncatingIfNeeded: v).littleEndian) { out += $0 } }
        case .int64: for v in ints { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
        default: break
        }
        return out
    }
}

/// Builds one node with quantized operands, runs its registered kernel and reads the output back.
final class QuantizedTestNode {
    let node: Node
    let kernel: OpKernel
    private var blocks: [UnsafeMutableRawPointer] = []

    init(
        _ op: BuiltinOperator, options: [Int: Int32], inputs: [QuantizedTestOperand?], output: QuantizedTestOperand,
        threads: Int = 1
    ) throws {
        var tensors = [RuntimeTensor?]()
        for (i, operand) in inputs.enumerated() {
            guard let operand else {
                tensors.append(nil)
                continue
            }
            let t = RuntimeTensor(
                index: i, name: "input\(i)", type: operand.type, shape: operand.shape,
                quantization: operand.quantization, isVariable: false)
            let bytes = operand.bytes
            let block = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 4), alignment: 64)
            blocks.append(block)
            bytes.withUnsafeBytes { if let p = $0.baseAddress { block.copyMemory(from: p, byteCount: bytes.count) } }
            if operand.constant {
                t.bindConstant(block, byteCount: bytes.count)
            } else {
                try t.allocateOwned()
                t.raw.baseAddress?.copyMemory(from: block, byteCount: min(bytes.count, t.byteCount))
            }
            tensors.append(t)
        }
        let out = RuntimeTensor(
            index: inputs.count, name: "output", type: output.type, shape: [], quantization: output.quantization,
            isVariable: false)
        let (block, count, position) = QuantizedTestNode.optionsTable(options)
        blocks.append(block)
        let table = try FlatTable(bytes: UnsafeRawBufferPointer(start: block, count: count), position: position, what: "options")
        let code = OperatorCode(builtin: op, customCode: nil, version: 1)
        node = Node(
            index: 0, code: code, inputs: tensors, outputs: [out], intermediates: [], options: table,
            customOptions: UnsafeRawBufferPointer(start: nil, count: 0), threadCount: threads)
        guard let factory = OpRegistry.factory(for: code) else { throw RuntimeError("no kernel for \(code.displayName)") }
        kernel = try factory(node)
    }

    deinit { for b in blocks { b.deallocate() } }

    private func execute() throws -> RuntimeTensor {
        node.isRunning = false
        node.hasDynamicOutputs = false
        try kernel.prepare(node)
        if node.hasDynamicOutputs {
            node.isRunning = true
            try kernel.prepare(node)
        }
        let output = node.outputs[0]
        try output.allocateOwned()
        output.raw.baseAddress?.initializeMemory(as: UInt8.self, repeating: 0x5A, count: output.byteCount)
        node.isRunning = true
        defer { node.isRunning = false }
        try kernel.eval(node)
        return output
    }

    /// Runs and returns the output's shape and stored integer values.
    func run() throws -> (shape: [Int], values: [Int32]) {
        let output = try execute()
        let n = output.elementCount
        guard let d = output.data else { return (output.shape, []) }
        switch output.type {
        case .uint8: return (output.shape, (0..<n).map { Int32(d.load(fromByteOffset: $0, as: UInt8.self)) })
        case .int8: return (output.shape, (0..<n).map { Int32(d.load(fromByteOffset: $0, as: Int8.self)) })
        case .int16: return (output.shape, (0..<n).map { Int32(d.load(fromByteOffset: 2 * $0, as: Int16.self)) })
        default: return (output.shape, [])
        }
    }

    /// Runs and returns float outputs (hybrid kernels).
    func runFloat() throws -> [Float] {
        Array(try execute().floats)
    }

    /// A FlatBuffer holding one table whose field `i` is `options[i]` (4-byte slots).
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

/// Random quantized data.
enum QuantizedTestValues {
    static func ints(_ count: Int, _ type: TensorType, _ rng: inout SplitMix64) -> [Int64] {
        let (lo, hi): (Int64, Int64) = switch type {
        case .uint8: (0, 255)
        case .int8: (-128, 127)
        default: (-32768, 32767)
        }
        return (0..<count).map { _ in Int64.random(in: lo...hi, using: &rng) }
    }

    static func scales(_ count: Int, _ range: ClosedRange<Float>, _ rng: inout SplitMix64) -> [Float] {
        (0..<count).map { _ in Float.random(in: range, using: &rng) }
    }
}
