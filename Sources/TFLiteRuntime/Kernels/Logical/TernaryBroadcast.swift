/// How three operands broadcast to one output (NumPy rules): each operand's element stride per
/// output dimension, 0 where it is broadcast. Walked one innermost row at a time with an odometer.
struct TernaryBroadcast {
    let outputShape: [Int]
    let outputCount: Int
    /// The element counts of the three operands.
    let counts: (Int, Int, Int)
    private let strides: [[Int]]

    init?(_ a: [Int], _ b: [Int], _ c: [Int]) {
        guard let ab = broadcastShape(a, b), let out = broadcastShape(ab, c) else { return nil }
        var count = 1
        for d in out {
            let (p, o) = count.multipliedReportingOverflow(by: d)
            guard !o else { return nil }
            count = p
        }
        outputShape = out
        outputCount = count
        counts = (a.reduce(1, *), b.reduce(1, *), c.reduce(1, *))
        strides = [a, b, c].map { shape in
            let aligned = [Int](repeating: 1, count: out.count - shape.count) + shape
            let own = stridesOf(aligned)
            return (0..<out.count).map { aligned[$0] == 1 ? 0 : own[$0] }
        }
    }

    /// The length of a row: the output's last dimension (1 for a scalar).
    var innerCount: Int { outputShape.last ?? 1 }

    /// Each operand's step along a row.
    var innerSteps: (Int, Int, Int) {
        guard !outputShape.isEmpty else { return (0, 0, 0) }
        return (strides[0].last ?? 0, strides[1].last ?? 0, strides[2].last ?? 0)
    }

    /// Calls `body(row, aOffset, bOffset, cOffset)` for every row of the output, in order.
    func forEachRow(_ body: (Int, Int, Int, Int) -> Void) {
        let n = innerCount
        guard n > 0, outputCount > 0 else { return }
        let outer = max(outputShape.count - 1, 0)
        var index = [Int](repeating: 0, count: outer)
        var offsets = (0, 0, 0)
        for row in 0..<(outputCount / n) {
            body(row, offsets.0, offsets.1, offsets.2)
            var d = outer - 1
            while d >= 0 {
                index[d] += 1
                offsets.0 += strides[0][d]
                offsets.1 += strides[1][d]
                offsets.2 += strides[2][d]
                if index[d] < outputShape[d] { break }
                offsets.0 -= outputShape[d] * strides[0][d]
                offsets.1 -= outputShape[d] * strides[1][d]
                offsets.2 -= outputShape[d] * strides[2][d]
                index[d] = 0
                d -= 1
            }
        }
    }
}
