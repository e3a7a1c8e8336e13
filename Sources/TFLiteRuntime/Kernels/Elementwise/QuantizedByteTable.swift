/// Every result of an 8-bit quantized binary operator, as a table of 256 × 256 bytes.
///
/// ADD, SUB, MUL and SQUARED_DIFFERENCE on uint8/int8 outside LiteRT's vector walks (SUB always;
/// ADD and MUL with a broadcast LiteRT calls generic) use the scalar formulas element by element:
/// three fixed-point multiplications each, about 10 ns. Their result depends only on the two
/// input bytes, so when the node's output is large the table is filled once from the same
/// functor in `prepare` and the run is a lookup per element: the same bytes, since every entry
/// is the functor's own result. (movenet's `SUB [48,48,1] − [1,17]` and the input normalization
/// `SUB [1,192,192,3] − [1,1,1,3]` took 45% of its time.)
struct QuantizedByteTable {
    /// `results[b << 8 | a]`: the result's bits for input bytes `a` (input 0) and `b` (input 1).
    let results: [UInt8]

    /// Outputs smaller than this keep the functor: filling the table costs 65,536 evaluations.
    static let minimumOutputCount = 4096

    /// The bytes an operand can hold: all 256, or, for a constant operand, only those it holds
    /// (the table's other rows or columns are never read, so they are not filled: a broadcast
    /// against a constant vector of a few values costs a few hundred evaluations, not 65,536,
    /// when the model is loaded).
    struct Values {
        let present: [Bool]

        static let all = Values(present: [Bool](repeating: true, count: 256))

        /// The bytes `tensor` holds when it is a constant with its bytes; all otherwise.
        init(_ tensor: RuntimeTensor) {
            let count = tensor.requiredBytes
            guard tensor.isConstant, tensor.type.byteSize == 1, let data = tensor.data, tensor.byteCount >= count else {
                self = .all
                return
            }
            var present = [Bool](repeating: false, count: 256)
            let bytes = data.assumingMemoryBound(to: UInt8.self)
            for i in 0..<count { present[Int(bytes[i])] = true }
            self.present = present
        }

        init(present: [Bool]) { self.present = present }
    }

    /// The table of `f` over every pair of `T` values (`T` is `UInt8` or `Int8`) that the operands
    /// can hold (`rows`: input 1's bytes, `columns`: input 0's).
    init<F: BinaryFunctor>(_ f: F, rows: Values = .all, columns: Values = .all) where F.Element: QuantizedElement {
        precondition(F.Element.bitWidth == 8, "byte tables are for 8-bit operands")
        var results = [UInt8](repeating: 0, count: 1 << 16)
        results.withUnsafeMutableBufferPointer { table in
            for b in 0..<256 where rows.present[b] {
                let y = F.Element(truncatingIfNeeded: b)
                for a in 0..<256 where columns.present[a] {
                    table[b << 8 | a] = UInt8(truncatingIfNeeded: f(F.Element(truncatingIfNeeded: a), y))
                }
            }
        }
        self.results = results
    }

    /// ADD or SUB's table, `QuantizedBinaryParams.add` split where it can be: each input's rescaled
    /// value is computed once per byte (256 each), leaving one fixed-point multiplication per entry,
    /// a third of the functor's work when the node is prepared (the same integers, step by step).
    init<T: QuantizedElement>(
        addSub p: QuantizedBinaryParams, subtract: Bool, _: T.Type, rows: Values = .all, columns: Values = .all
    ) {
        precondition(T.bitWidth == 8, "byte tables are for 8-bit operands")
        func rescaled(_ offset: Int32, _ m: FixedPoint.Multiplier) -> [Int32] {
            (0..<256).map { FixedPoint.multiply((Int32(T(truncatingIfNeeded: $0)) + offset) &<< p.leftShift, by: m) }
        }
        let s1 = rescaled(p.input1Offset, p.input1), s2 = rescaled(p.input2Offset, p.input2)
        var results = [UInt8](repeating: 0, count: 1 << 16)
        results.withUnsafeMutableBufferPointer { table in
            for b in 0..<256 where rows.present[b] {
                let y = s2[b]
                for a in 0..<256 where columns.present[a] {
                    let raw = FixedPoint.multiply(subtract ? s1[a] &- y : s1[a] &+ y, by: p.output) &+ p.outputOffset
                    table[b << 8 | a] = UInt8(truncatingIfNeeded: min(p.activationMax, max(p.activationMin, raw)))
                }
            }
        }
        self.results = results
    }
}

/// A lookup in a `QuantizedByteTable` as a broadcast functor.
struct QuantizedByteTableFunctor<T: QuantizedElement>: BinaryFunctor {
    let table: UnsafePointer<UInt8>
    @inline(__always) func callAsFunction(_ a: T, _ b: T) -> T {
        T(truncatingIfNeeded: table[Int(UInt8(truncatingIfNeeded: b)) << 8 | Int(UInt8(truncatingIfNeeded: a))])
    }
}
