@testable import TFLiteRuntime

/// Shared helpers of the elementwise, activation and reduction kernel tests, in one namespace so
/// they cannot clash with other test files' helpers.
enum ElementwiseTestKit {
    /// A scalar option of an operator's options table, by 0-based field number.
    enum Option {
        case byte(Int, Int8)
        case bool(Int, Bool)
        case float(Int, Float)
        case int32(Int, Int32)

        var field: Int {
            switch self {
            case .byte(let f, _), .bool(let f, _), .float(let f, _), .int32(let f, _): return f
            }
        }

        var bytes: [UInt8] {
            switch self {
            case .byte(_, let v): return [UInt8(bitPattern: v)]
            case .bool(_, let v): return [v ? 1 : 0]
            case .float(_, let v): return withUnsafeBytes(of: v.bitPattern.littleEndian, Array.init)
            case .int32(_, let v): return withUnsafeBytes(of: v.littleEndian, Array.init)
            }
        }
    }

    /// Builds one node with its tensors and runs its kernel the way `SubgraphExecutor` does, for tests of
    /// the elementwise, activation and reduction kernels. Owns every block of memory it hands out.
    final class Harness {
        private var blocks: [UnsafeMutableRawPointer] = []
        private var nextIndex = 0

        deinit { for block in blocks { block.deallocate() } }

        /// A tensor holding `values`; constant tensors are bound like model weights.
        func tensor<T>(_ values: [T], shape: [Int], type: TensorType, constant: Bool = false) throws -> RuntimeTensor {
            let t = RuntimeTensor(
                index: nextIndex, name: "t\(nextIndex)", type: type, shape: shape, quantization: nil, isVariable: false)
            nextIndex += 1
            let bytes = values.count * MemoryLayout<T>.stride
            if constant {
                let block = UnsafeMutableRawPointer.allocate(byteCount: max(bytes, 1), alignment: 64)
                blocks.append(block)
                values.withUnsafeBytes {
                    if let base = $0.baseAddress { block.copyMemory(from: base, byteCount: bytes) }
                }
                t.bindConstant(block, byteCount: bytes)
            } else {
                try t.allocateOwned()
                values.withUnsafeBytes { src in
                    if let base = src.baseAddress, bytes > 0 {
                        t.raw.baseAddress?.copyMemory(from: base, byteCount: bytes)
                    }
                }
            }
            return t
        }

        func floats(_ values: [Float], _ shape: [Int], constant: Bool = false) throws -> RuntimeTensor {
            try tensor(values, shape: shape, type: .float32, constant: constant)
        }

        /// An output tensor; its type and shape are set by the kernel's `prepare`.
        func output() -> RuntimeTensor {
            defer { nextIndex += 1 }
            return RuntimeTensor(
                index: nextIndex, name: "out\(nextIndex)", type: .float32, shape: [], quantization: nil,
                isVariable: false)
        }

        /// An options table holding `options`, laid out as the FlatBuffers writer would.
        func optionsTable(_ options: [Option]) throws -> FlatTable? {
            guard !options.isEmpty else { return nil }
            let fieldCount = (options.map(\.field).max() ?? 0) + 1
            let vtableSize = 4 + 2 * fieldCount
            let tableStart = (vtableSize + 7) / 8 * 8
            var table: [UInt8] = [0, 0, 0, 0]  // soffset to the vtable, filled below
            var offsets = [UInt16](repeating: 0, count: fieldCount)
            for option in options {
                let value = option.bytes
                while table.count % value.count != 0 { table.append(0) }
                offsets[option.field] = UInt16(table.count)
                table += value
            }
            var bytes = [UInt8]()
            bytes += withUnsafeBytes(of: UInt16(vtableSize).littleEndian, Array.init)
            bytes += withUnsafeBytes(of: UInt16(table.count).littleEndian, Array.init)
            for o in offsets { bytes += withUnsafeBytes(of: o.littleEndian, Array.init) }
            while bytes.count < tableStart { bytes.append(0) }
            let soffset = withUnsafeBytes(of: Int32(tableStart).littleEndian, Array.init)
            table.replaceSubrange(0..<4, with: soffset)
            bytes += table
            let block = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 8)
            blocks.append(block)
            bytes.withUnsafeBytes { block.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
            return try FlatTable(
                bytes: UnsafeRawBufferPointer(start: block, count: bytes.count), position: tableStart,
                what: "test options")
        }

        /// Creates the node and its kernel, prepares it (again at "run time" when its outputs are
        /// dynamic, as the executor does), allocates the outputs and evaluates it.
        @discardableResult
        func run(
            _ op: BuiltinOperator, _ inputs: [RuntimeTensor], outputs: [RuntimeTensor]? = nil, options: [Option] = [],
            threads: Int = 1
        ) throws -> [RuntimeTensor] {
            let outs = outputs ?? [output()]
            let node = Node(
                index: 0, code: OperatorCode(builtin: op, customCode: nil, version: 1), inputs: inputs, outputs: outs,
                intermediates: [], options: try optionsTable(options),
                customOptions: UnsafeRawBufferPointer(start: nil, count: 0),
                threadCount: threads)
            guard let factory = OpRegistry.factory(for: node.code) else {
                throw RuntimeError("\(op.name) is not registered")
            }
            let kernel = try factory(node)
            try kernel.prepare(node)
            node.isRunning = true
            defer { node.isRunning = false }
            if node.hasDynamicOutputs { try kernel.prepare(node) }
            for t in outs { try t.allocateOwned() }
            try kernel.eval(node)
            return outs
        }

        /// Runs a one-output operator and returns the output.
        func run1(
            _ op: BuiltinOperator, _ inputs: [RuntimeTensor], options: [Option] = [], threads: Int = 1
        ) throws -> RuntimeTensor {
            try run(op, inputs, options: options, threads: threads)[0]
        }
    }

    /// A small deterministic generator (SplitMix64), so failures reproduce.
    struct Random {
        var state: UInt64
        init(seed: UInt64) { state = seed }

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        /// Uniform in `range`.
        mutating func float(_ range: ClosedRange<Float>) -> Float {
            let unit = Float(next() >> 40) / Float(1 << 24)
            return range.lowerBound + unit * (range.upperBound - range.lowerBound)
        }

        mutating func floats(_ count: Int, _ range: ClosedRange<Float> = -4...4) -> [Float] {
            (0..<count).map { _ in float(range) }
        }

        /// Uniform in `range`, which may span all of `Int`.
        mutating func int(_ range: ClosedRange<Int>) -> Int {
            let width = UInt64(bitPattern: Int64(range.upperBound &- range.lowerBound)) &+ 1
            let offset = width == 0 ? next() : next() % width
            return range.lowerBound &+ Int(bitPattern: UInt(offset))
        }

        mutating func ints<T: FixedWidthInteger>(_ count: Int, _ range: ClosedRange<Int>, _: T.Type) -> [T] {
            (0..<count).map { _ in T(truncatingIfNeeded: int(range)) }
        }
    }

    /// Whether `a` and `b` agree within `relative` (scaled by the larger magnitude) or `absolute`;
    /// NaNs agree with NaNs, infinities with equal infinities.
    static func closeEnough(_ a: Float, _ b: Float, relative: Float = 1e-5, absolute: Float = 1e-6) -> Bool {
        if a.isNaN || b.isNaN { return a.isNaN && b.isNaN }
        if a == b { return true }
        return Swift.abs(a - b) <= Swift.max(absolute, relative * Swift.max(Swift.abs(a), Swift.abs(b)))
    }

    /// The index of the first pair that is not `closeEnough`, or nil.
    static func firstMismatch(_ a: [Float], _ b: [Float], relative: Float = 1e-5, absolute: Float = 1e-6) -> Int? {
        guard a.count == b.count else { return -1 }
        return a.indices.first { !closeEnough(a[$0], b[$0], relative: relative, absolute: absolute) }
    }
}

extension RuntimeTensor {
    /// The elements as an array (the caller knows the type).
    func elementwiseTestValues<T>(_: T.Type) -> [T] { Array(buffer(T.self)) }
}
