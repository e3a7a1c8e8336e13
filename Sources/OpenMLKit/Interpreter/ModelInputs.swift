import Foundation

/// The inputs of one inference, in input order (ML Kit's `ModelInputs`).
///
/// Each input is either `Data` holding the tensor's bytes (as in ML Kit's guides), or a nested
/// array of numbers (`[[[[Float]]]]`, `[[NSNumber]]`, ...) that is flattened in row-major order
/// and converted to the declared element type.
public final class ModelInputs: @unchecked Sendable {
    enum Value {
        case bytes(Data)
        case numbers([Double])
    }

    private let values = LockedBox([Value]())

    public init() {}

    /// Appends the next input.
    ///
    /// - Throws: ``ModelInterpreterError/invalidInput(_:)`` for anything but `Data` or nested
    ///   arrays of numbers.
    public func addInput(_ input: Any) throws {
        let value: Value
        if let data = input as? Data {
            value = .bytes(data)
        } else if let array = input as? [Any] {
            var flat = [Double]()
            try ModelInputs.flatten(array, into: &flat, depth: 0)
            value = .numbers(flat)
        } else {
            throw ModelInterpreterError.invalidInput("input \(count) is \(type(of: input)); give Data or nested arrays of numbers")
        }
        values.withLockedValue { $0.append(value) }
    }

    /// The number of inputs added.
    public var count: Int { values.withLockedValue { $0.count } }

    var all: [Value] { values.current }

    private static func flatten(_ array: [Any], into flat: inout [Double], depth: Int) throws {
        guard depth < 16 else { throw ModelInterpreterError.invalidInput("arrays are nested more than 16 deep") }
        for element in array {
            if let nested = element as? [Any] {
                try flatten(nested, into: &flat, depth: depth + 1)
            } else if let number = ModelInputs.number(element) {
                flat.append(number)
            } else {
                throw ModelInterpreterError.invalidInput("\(type(of: element)) is not a number")
            }
        }
    }

    private static func number(_ value: Any) -> Double? {
        switch value {
        case let v as Double: return v
        case let v as Float: return Double(v)
        case let v as Int: return Double(v)
        case let v as Int32: return Double(v)
        case let v as Int64: return Double(v)
        case let v as UInt8: return Double(v)
        case let v as Int8: return Double(v)
        case let v as NSNumber: return v.doubleValue
        default: return nil
        }
    }
}

/// The outputs of one inference (ML Kit's `ModelOutputs`).
public final class ModelOutputs: @unchecked Sendable {
    struct Output {
        let type: ModelElementType
        let dimensions: [Int]
        let data: Data
    }

    private let outputs: [Output]

    init(_ outputs: [Output]) { self.outputs = outputs }

    /// The number of outputs.
    public var count: Int { outputs.count }

    /// Output `index` as nested arrays of `NSNumber` shaped by its dimensions (e.g. `[[NSNumber]]`
    /// for a `[1, 1000]` output), as in ML Kit.
    public func output(index: UInt) throws -> Any {
        let o = try entry(index)
        let values = ModelOutputs.numbers(o)
        return ModelOutputs.nest(values, o.dimensions[...], offset: 0).value
    }

    /// Output `index` as its raw little-endian bytes.
    public func outputData(index: UInt) throws -> Data { try entry(index).data }

    /// The element type and dimensions of output `index`.
    public func format(index: UInt) throws -> ModelInputOutputOptions.Format {
        let o = try entry(index)
        return .init(type: o.type, dimensions: o.dimensions)
    }

    private func entry(_ index: UInt) throws -> Output {
        guard Int(index) < outputs.count else {
            throw ModelInterpreterError.invalidOutputIndex(index: Int(index), count: outputs.count)
        }
        return outputs[Int(index)]
    }

    private static func numbers(_ o: Output) -> [NSNumber] {
        o.data.withUnsafeBytes { raw -> [NSNumber] in
            let n = raw.count / o.type.byteSize
            switch o.type {
            case .float32: return (0..<n).map { NSNumber(value: raw.loadUnaligned(fromByteOffset: $0 * 4, as: Float.self)) }
            case .int32: return (0..<n).map { NSNumber(value: raw.loadUnaligned(fromByteOffset: $0 * 4, as: Int32.self)) }
            case .int64: return (0..<n).map { NSNumber(value: raw.loadUnaligned(fromByteOffset: $0 * 8, as: Int64.self)) }
            case .uInt8: return (0..<n).map { NSNumber(value: raw[$0]) }
            case .int8: return (0..<n).map { NSNumber(value: Int8(bitPattern: raw[$0])) }
            }
        }
    }

    /// Builds nested arrays for `dims` from `values` starting at `offset`.
    private static func nest(_ values: [NSNumber], _ dims: ArraySlice<Int>, offset: Int) -> (value: Any, used: Int) {
        guard let first = dims.first else { return (values.indices.contains(offset) ? values[offset] : NSNumber(value: 0), 1) }
        if dims.count == 1 {
            let end = min(offset + first, values.count)
            return (Array(values[min(offset, end)..<end]), first)
        }
        var items = [Any]()
        var used = 0
        for _ in 0..<first {
            let (item, n) = nest(values, dims.dropFirst(), offset: offset + used)
            items.append(item)
            used += n
        }
        return (items, used)
    }
}
