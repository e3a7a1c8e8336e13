import Testing

@testable import TFLiteRuntime

/// `QuantizedByteTable`: the table ADD and SUB build from their split formula holds, for every pair
/// of bytes, exactly what the scalar functor computes (which the generic table copies entry by
/// entry), over parameters with offsets at both ends, multipliers above and below one and narrow
/// activation ranges.
@Suite struct QuantizedByteTableTests {
    static func parameters() -> [QuantizedBinaryParams] {
        var rng = SplitMix64(seed: 41)
        return (0..<12).map { i in
            var p = QuantizedBinaryParams()
            p.input1Offset = Int32.random(in: -255...255, using: &rng)
            p.input2Offset = i % 3 == 0 ? 128 : Int32.random(in: -255...255, using: &rng)
            p.outputOffset = Int32.random(in: -128...255, using: &rng)
            p.leftShift = 20
            p.input1 = FixedPoint.quantizeMultiplier(Double.random(in: 0.1...0.5, using: &rng))
            p.input2 = FixedPoint.quantizeMultiplier(i % 4 == 0 ? 0.5 : Double.random(in: 0.01...0.5, using: &rng))
            p.output = FixedPoint.quantizeMultiplier(Double.random(in: 1e-7...3e-5, using: &rng))
            p.activationMin = i % 2 == 0 ? -128 : Int32.random(in: -128...0, using: &rng)
            p.activationMax = i % 2 == 0 ? 127 : Int32.random(in: 0...127, using: &rng)
            return p
        }
    }

    @Test(arguments: [false, true])
    func addSubTableMatchesFunctor(subtract: Bool) {
        for p in Self.parameters() {
            var q = p
            q.activationMin = max(0, p.activationMin + 128)
            q.activationMax = max(q.activationMin, p.activationMax + 128)
            let signedSplit = QuantizedByteTable(addSub: p, subtract: subtract, Int8.self).results
            let signedFunctor = QuantizedByteTable(QuantizedAddFunctor<Int8>(p: p, subtract: subtract)).results
            #expect(signedSplit == signedFunctor, "int8 \(p)")
            let unsignedSplit = QuantizedByteTable(addSub: q, subtract: subtract, UInt8.self).results
            let unsignedFunctor = QuantizedByteTable(QuantizedAddFunctor<UInt8>(p: q, subtract: subtract)).results
            #expect(unsignedSplit == unsignedFunctor, "uint8 \(q)")
        }
    }

    /// A lookup returns the functor's result for the bytes given, in input order.
    @Test func lookupOrder() {
        let p = Self.parameters()[1]
        let table = QuantizedByteTable(QuantizedAddFunctor<Int8>(p: p, subtract: true))
        let f = QuantizedAddFunctor<Int8>(p: p, subtract: true)
        table.results.withUnsafeBufferPointer { t in
            let lookup = QuantizedByteTableFunctor<Int8>(table: t.baseAddress!)
            for a in [Int8.min, -1, 0, 1, 100, .max] {
                for b in [Int8.min, -7, 0, 3, .max] { #expect(lookup(a, b) == f(a, b)) }
            }
        }
    }

    /// With a constant operand, only the rows (input 1) or columns (input 0) of the bytes it holds
    /// are filled, and those hold exactly the full table's entries; the others are left at zero.
    @Test func constantOperandFillsOnlyItsBytes() {
        let p = Self.parameters()[2]
        var rows = [Bool](repeating: false, count: 256), columns = [Bool](repeating: false, count: 256)
        for b in [0, 7, 128, 255] { rows[b] = true }
        for a in [1, 64, 200] { columns[a] = true }
        let full = QuantizedByteTable(addSub: p, subtract: false, Int8.self).results
        let partial = QuantizedByteTable(
            addSub: p, subtract: false, Int8.self, rows: .init(present: rows), columns: .init(present: columns)
        ).results
        let functor = QuantizedByteTable(
            QuantizedAddFunctor<Int8>(p: p, subtract: false), rows: .init(present: rows), columns: .all
        ).results
        var filled = 0, wrong = 0
        for b in 0..<256 {
            for a in 0..<256 {
                let i = b << 8 | a
                if rows[b] && columns[a] {
                    if partial[i] != full[i] { wrong += 1 }
                    filled += 1
                } else if partial[i] != 0 {
                    wrong += 1
                }
                if functor[i] != (rows[b] ? full[i] : 0) { wrong += 1 }
            }
        }
        #expect(filled == 12)
        #expect(wrong == 0)
        #expect(full.filter { $0 != 0 }.count > 1000, "the parameters give a table worth comparing")
    }
}
