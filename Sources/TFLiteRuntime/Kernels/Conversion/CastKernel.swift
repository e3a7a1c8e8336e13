/// CAST between bool, the integer types, float16, bfloat16, float32 and float64, as LiteRT converts:
/// integers wrap (C++ `static_cast`), floats become integers by truncation toward zero with
/// saturation (NaN becomes the type's maximum), anything becomes bool as `!= 0`, and values reach
/// float16/bfloat16 through float32 with round-to-nearest-even. complex64 converts through its
/// real part (as C++ `static_cast<T>(std::real(z))`), and a value becomes complex64 as `(float(x), 0)`.
final class CastKernel: OpKernel {
    private let folded = FoldedOutputs()

    init(_ node: Node) throws { try node.expect(inputs: 1, outputs: 1) }

    func prepare(_ node: Node) throws {
        // Folded from constant inputs (weights) earlier: the values cannot have changed.
        if folded.isCurrent(node), MoveSupport.allInputsConstant(node) { return }
        try folded.reset(node)
        let x = try node.input(0), y = try node.output(0)
        guard CastKernel.supports(x.type) else { throw node.error("cannot cast from \(x.type.name)") }
        guard CastKernel.supports(y.type) else { throw node.error("cannot cast to \(y.type.name)") }
        try node.setOutput(0, type: y.type, shape: x.shape)
        if MoveSupport.allInputsConstant(node) { try folded.fold(node) { try run(node) } }
    }

    func eval(_ node: Node) throws {
        if folded.isActive { return }
        try run(node)
    }

    static func supports(_ type: TensorType) -> Bool {
        switch type {
        case .float32, .float16, .bfloat16, .float64, .int8, .uint8, .int16, .uint16, .int32, .uint32, .int64, .uint64,
            .bool, .complex64:
            return true
        default:
            return false
        }
    }

    private func run(_ node: Node) throws {
        let x = try node.input(0), y = try node.output(0)
        let source = try MoveSupport.source(x, node, role: "input")
        let destination = try MoveSupport.destination(y, node, role: "output")
        let count = x.elementCount
        switch (x.type, y.type) {
        case (.complex64, .complex64):
            destination.copyMemory(from: source, byteCount: count * 8)
        case (.complex64, _):
            // The real parts, then the ordinary float32 conversion.
            let reals = UnsafeMutablePointer<Float>.allocate(capacity: max(count, 1))
            defer { reals.deallocate() }
            let pairs = source.assumingMemoryBound(to: Float.self)
            for i in 0..<count { reals[i] = pairs[2 * i] }
            CastKernel.convert(UnsafeRawPointer(reals), .float32, destination, y.type, count: count, threads: node.threadCount)
        case (_, .complex64):
            let pairs = destination.assumingMemoryBound(to: Float.self)
            let reals = UnsafeMutablePointer<Float>.allocate(capacity: max(count, 1))
            defer { reals.deallocate() }
            CastKernel.convert(source, x.type, UnsafeMutableRawPointer(reals), .float32, count: count, threads: node.threadCount)
            for i in 0..<count {
                pairs[2 * i] = reals[i]
                pairs[2 * i + 1] = 0
            }
        default:
            CastKernel.convert(source, x.type, destination, y.type, count: count, threads: node.threadCount)
        }
    }

    /// Converts `count` elements. Values pass through 64-bit integers (for integer and bool
    /// sources) or doubles (for float sources), which hold every source value exactly.
    static func convert(
        _ source: UnsafeRawPointer, _ from: TensorType, _ destination: UnsafeMutableRawPointer, _ to: TensorType,
        count: Int, threads: Int
    ) {
        // LiteRT copies a type onto itself, except float16, which goes through float32 (so NaNs
        // become canonical); the general path below does the same.
        if from == to && from != .float16 {
            destination.copyMemory(from: source, byteCount: count * from.byteSize)
            return
        }
        let chunk = 1024
        let floating = [TensorType.float16, .bfloat16, .float32, .float64].contains(from)
        parallelFor((count + chunk - 1) / chunk, threads: threads, minimumPerThread: 32) { chunks in
            withUnsafeTemporaryAllocation(byteCount: chunk * 8, alignment: 8) { scratch in
                let buffer = scratch.baseAddress!
                for c in chunks {
                    let start = c * chunk, n = min(chunk, count - start)
                    let place: Place = (source, from, start), target: Target = (destination, to, start)
                    if floating {
                        let values = buffer.bindMemory(to: Double.self, capacity: chunk)
                        readFloats(place, n, values)
                        writeFloats(values, n, target)
                    } else {
                        let values = buffer.bindMemory(to: Int64.self, capacity: chunk)
                        readIntegers(place, n, values)
                        writeIntegers(values, n, unsigned: from == .uint64, target)
                    }
                }
            }
        }
    }

    private typealias Place = (base: UnsafeRawPointer, type: TensorType, start: Int)
    private typealias Target = (base: UnsafeMutableRawPointer, type: TensorType, start: Int)

    private static func readIntegers(_ s: Place, _ n: Int, _ v: UnsafeMutablePointer<Int64>) {
        func load<T: FixedWidthInteger>(_: T.Type) {
            let p = s.base + s.start * MemoryLayout<T>.size
            for i in 0..<n { v[i] = Int64(truncatingIfNeeded: p.loadUnaligned(fromByteOffset: i * MemoryLayout<T>.size, as: T.self)) }
        }
        switch s.type {
        case .int8: load(Int8.self)
        case .uint8: load(UInt8.self)
        case .int16: load(Int16.self)
        case .uint16: load(UInt16.self)
        case .int32: load(Int32.self)
        case .uint32: load(UInt32.self)
        case .int64: load(Int64.self)
        case .uint64: load(UInt64.self)
        default:  // bool: any non-zero byte is true
            let p = s.base + s.start
            for i in 0..<n { v[i] = p.load(fromByteOffset: i, as: UInt8.self) != 0 ? 1 : 0 }
        }
    }

    private static func readFloats(_ s: Place, _ n: Int, _ v: UnsafeMutablePointer<Double>) {
        let p = s.base + s.start * s.type.byteSize
        switch s.type {
        case .float16:
            for i in 0..<n { v[i] = Double(HalfPrecision.float(fromHalf: p.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self))) }
        case .bfloat16:
            for i in 0..<n { v[i] = Double(HalfPrecision.float(fromBFloat16: p.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self))) }
        case .float32:
            for i in 0..<n { v[i] = Double(p.loadUnaligned(fromByteOffset: 4 * i, as: Float.self)) }
        default:
            for i in 0..<n { v[i] = p.loadUnaligned(fromByteOffset: 8 * i, as: Double.self) }
        }
    }

    private static func writeIntegers(_ v: UnsafeMutablePointer<Int64>, _ n: Int, unsigned: Bool, _ t: Target) {
        let p = t.base + t.start * t.type.byteSize
        func store<T: FixedWidthInteger>(_: T.Type) {
            for i in 0..<n { p.storeBytes(of: T(truncatingIfNeeded: v[i]), toByteOffset: i * MemoryLayout<T>.size, as: T.self) }
        }
        // A uint64 above Int64.max is held as its bit pattern; floats must see the unsigned value.
        func real(_ i: Int) -> Float { unsigned ? Float(UInt64(bitPattern: v[i])) : Float(v[i]) }
        switch t.type {
        case .int8: store(Int8.self)
        case .uint8: store(UInt8.self)
        case .int16: store(Int16.self)
        case .uint16: store(UInt16.self)
        case .int32: store(Int32.self)
        case .uint32: store(UInt32.self)
        case .int64: store(Int64.self)
        case .uint64: store(UInt64.self)
        case .bool: for i in 0..<n { p.storeBytes(of: UInt8(v[i] != 0 ? 1 : 0), toByteOffset: i, as: UInt8.self) }
        case .float32: for i in 0..<n { p.storeBytes(of: real(i), toByteOffset: 4 * i, as: Float.self) }
        case .float64:
            for i in 0..<n {
                let d = unsigned ? Double(UInt64(bitPattern: v[i])) : Double(v[i])
                p.storeBytes(of: d, toByteOffset: 8 * i, as: Double.self)
            }
        case .float16: for i in 0..<n { p.storeBytes(of: HalfPrecision.half(from: real(i)), toByteOffset: 2 * i, as: UInt16.self) }
        default:  // bfloat16
            for i in 0..<n { p.storeBytes(of: HalfPrecision.bfloat16(from: real(i)), toByteOffset: 2 * i, as: UInt16.self) }
        }
    }

    private static func writeFloats(_ v: UnsafeMutablePointer<Double>, _ n: Int, _ t: Target) {
        let p = t.base + t.start * t.type.byteSize
        func store<T: FixedWidthInteger>(_: T.Type) {
            for i in 0..<n {
                p.storeBytes(of: saturatingInteger(v[i], as: T.self), toByteOffset: i * MemoryLayout<T>.size, as: T.self)
            }
        }
        switch t.type {
        case .int8: store(Int8.self)
        case .uint8: store(UInt8.self)
        case .int16: store(Int16.self)
        case .uint16: store(UInt16.self)
        case .int32: store(Int32.self)
        case .uint32: store(UInt32.self)
        case .int64: store(Int64.self)
        case .uint64: store(UInt64.self)
        case .bool: for i in 0..<n { p.storeBytes(of: UInt8(v[i] != 0 ? 1 : 0), toByteOffset: i, as: UInt8.self) }
        case .float32: for i in 0..<n { p.storeBytes(of: Float(v[i]), toByteOffset: 4 * i, as: Float.self) }
        case .float64: for i in 0..<n { p.storeBytes(of: v[i], toByteOffset: 8 * i, as: Double.self) }
        case .float16:
            for i in 0..<n { p.storeBytes(of: HalfPrecision.half(from: Float(v[i])), toByteOffset: 2 * i, as: UInt16.self) }
        default:  // bfloat16
            for i in 0..<n { p.storeBytes(of: HalfPrecision.bfloat16(from: Float(v[i])), toByteOffset: 2 * i, as: UInt16.self) }
        }
    }

    /// LiteRT's `SafeCast`: truncation toward zero, clamped to `T`'s range, NaN to `T.max`.
    @inline(__always)
    static func saturatingInteger<T: FixedWidthInteger>(_ x: Double, as: T.Type) -> T {
        if x.isNaN { return T.max }
        if x < Double(T.min) { return T.min }
        // 2^(bits-1) for signed types, 2^bits for unsigned: the exclusive upper bound, exactly.
        let upper = Double(sign: .plus, exponent: T.isSigned ? T.bitWidth - 1 : T.bitWidth, significand: 1)
        if x >= upper { return T.max }
        return T(x.rounded(.towardZero))
    }
}
