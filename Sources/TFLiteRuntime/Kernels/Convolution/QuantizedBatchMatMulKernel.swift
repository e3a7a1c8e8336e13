/// BATCH_MATMUL on quantized operands, as LiteRT: int8 × int8 → int8 (or raw int32: `Σ l · r`, zero
/// points ignored), int16 × int16 /
/// int16 × int8 → int16 (64-bit accumulators), and hybrid float × constant int8 → float.
///
/// Integer: `acc = Σ (l − zl)(r − zr)`, then `clamp(MultiplyByQuantizedMultiplier(acc, m) + zy)` with
/// `m = double(float(sl · sr)) / double(sy)` (`GetQuantizedConvolutionMultipler`) and the type's full range (no fused activation). LiteRT
/// runs its reference kernel here (`reference_ops::BatchMatMul`), so the reference rounding applies.
///
/// Hybrid: each row of the float lhs (length K) is quantized to int8, symmetrically or, with
/// `asymmetric_quantize_inputs`, asymmetrically; `out = (row_scale · weight_scale[n]) · total` with
/// `total = Σ q · w − row_sum(w) · offset` (per-tensor weights fold their scale into the row scale).
final class QuantizedBatchMatMulKernel: OpKernel {
    private let adjointLeft: Bool
    private let adjointRight: Bool
    private let asymmetricInputs: Bool
    private var rows = 0, depth = 0, columns = 0
    private var lhsBatch: [Int] = []
    private var rhsBatch: [Int] = []
    private var hybrid = false
    private var multiplier = FixedPoint.Multiplier(multiplier: 0, shift: 0)
    private var zl: Int32 = 0, zr: Int32 = 0, zy: Int32 = 0
    private var lo: Int32 = 0, hi: Int32 = 0
    private var weightScales: [Float] = []
    private let lhs16 = ScratchBuffer<Int16>(0)
    private let rhs16 = ScratchBuffer<Int16>(0)
    private let quantizedRow = ScratchBuffer<Int8>(0)

    init(_ node: Node) throws {
        try node.expect(inputs: 2, outputs: 1)
        let parameters = try BatchMatMulParameters(node)
        adjointLeft = parameters.adjointLeft
        adjointRight = parameters.adjointRight
        asymmetricInputs = parameters.asymmetricQuantizeInputs
    }

    func prepare(_ node: Node) throws {
        let lhs = try node.input(0), rhs = try node.input(1), output = try node.output(0)
        hybrid = lhs.type == .float32
        if hybrid {
            try node.expect(rhs, type: .int8, role: "rhs")
        } else {
            try node.expect(lhs, type: .int8, .int16, role: "lhs")
            try node.expect(rhs, type: lhs.type == .int8 ? .int8 : .int16, .int8, role: "rhs")
        }
        guard (2...5).contains(lhs.rank), (2...5).contains(rhs.rank) else {
            throw node.error("operands must have rank 2 to 5, have shapes \(lhs.shape) and \(rhs.shape)")
        }
        try FloatOperand.checkExtent(lhs.shape, node: node, role: "lhs")
        try FloatOperand.checkExtent(rhs.shape, node: node, role: "rhs")
        let l = lhs.shape, r = rhs.shape
        let m = adjointLeft ? l[l.count - 1] : l[l.count - 2]
        let k = adjointLeft ? l[l.count - 2] : l[l.count - 1]
        let rk = adjointRight ? r[r.count - 1] : r[r.count - 2]
        let n = adjointRight ? r[r.count - 2] : r[r.count - 1]
        guard k == rk else { throw node.error("lhs \(l) and rhs \(r) disagree on the inner dimension (\(k) vs \(rk))") }
        let lb = Array(l.dropLast(2)), rb = Array(r.dropLast(2))
        guard let batchShape = broadcastShape(lb, rb) else {
            throw node.error("batch dimensions of \(l) and \(r) do not broadcast")
        }
        let outputType: TensorType
        if hybrid {
            outputType = .float32
        } else if lhs.type == .int8 && output.type == .int32 {
            outputType = .int32
        } else {
            outputType = lhs.type
        }
        try node.setOutput(0, type: outputType, shape: batchShape + [m, n])
        rows = m
        depth = k
        columns = n
        let outputBatches = batchShape.reduce(1, *)
        lhsBatch = []
        rhsBatch = []
        if m * n > 0, outputBatches > 0 {
            let ls = stridesOf(lb), rs = stridesOf(rb)
            let offset = batchShape.count
            for b in 0..<outputBatches {
                var rest = b, li = 0, ri = 0
                for d in stride(from: batchShape.count - 1, through: 0, by: -1) {
                    let i = rest % batchShape[d]
                    rest /= batchShape[d]
                    let ld = d - (offset - lb.count), rd = d - (offset - rb.count)
                    if ld >= 0, lb[ld] != 1 { li += i * ls[ld] }
                    if rd >= 0, rb[rd] != 1 { ri += i * rs[rd] }
                }
                lhsBatch.append(li)
                rhsBatch.append(ri)
            }
        }
        if hybrid {
            weightScales = try QuantizedOperand.scales(rhs, node: node, role: "rhs", allowZero: true)
            guard weightScales.count == 1 || weightScales.count == n else {
                throw node.error("rhs has \(weightScales.count) scales for \(n) columns")
            }
        } else {
            let sl = try QuantizedOperand.scales(lhs, node: node, role: "lhs")[0]
            let sr = try QuantizedOperand.scales(rhs, node: node, role: "rhs", allowZero: true)[0]
            zl = Int32(clamping: lhs.zeroPoint)
            zr = Int32(clamping: rhs.zeroPoint)
            if outputType != .int32 {
                let sy = try QuantizedOperand.scales(output, node: node, role: "output")[0]
                guard sy > 0 else { throw node.error("output scale must be positive") }
                multiplier = FixedPoint.legacyMultiplier(inputScale: sl, filterScale: sr, outputScale: sy)
                zy = Int32(clamping: output.zeroPoint)
                guard let range = outputType.quantizedRange else { throw node.error("unsupported output type") }
                lo = range.min
                hi = range.max
            } else {
                // LiteRT's int8 → int32 path sums the raw products: the zero points are not subtracted.
                zl = 0
                zr = 0
            }
        }
        lhs16.reserve(max(1, lhs.elementCount), filling: 0)
        rhs16.reserve(max(1, rhs.elementCount), filling: 0)
        quantizedRow.reserve(max(1, k), filling: 0)
    }

    func eval(_ node: Node) throws {
        let lhs = try node.input(0), rhs = try node.input(1), output = try node.output(0)
        try QuantizedOperand.checkBytes(lhs, node: node, role: "lhs")
        try QuantizedOperand.checkBytes(rhs, node: node, role: "rhs")
        try QuantizedOperand.checkBytes(output, node: node, role: "output")
        guard output.elementCount > 0, let out = output.data else { return }
        let m = rows, k = depth, n = columns
        let lMatrix = m * k, rMatrix = k * n
        let a = lhs16.pointer, b = rhs16.pointer
        // Widen the rhs into [batch][n][k] (each output column contiguous).
        QuantizedOperand.widen(rhs, zeroPoint: hybrid ? 0 : zr, into: b)
        let rb = rhs.elementCount / max(1, rMatrix)
        withUnsafeTemporaryAllocation(of: Int16.self, capacity: max(1, rMatrix)) { tmp in
            guard let t = tmp.baseAddress else { return }
            if !adjointRight {
                for batch in 0..<rb {
                    let src = b + batch * rMatrix
                    for kk in 0..<k { for j in 0..<n { t[j * k + kk] = src[kk * n + j] } }
                    src.update(from: t, count: rMatrix)
                }
            }
        }
        if hybrid {
            let x = UnsafePointer(try FloatOperand.base(lhs, node: node, role: "lhs"))
            let y = out.assumingMemoryBound(to: Float.self)
            let q = quantizedRow.pointer
            for (ob, (li, ri)) in zip(lhsBatch, rhsBatch).enumerated() {
                for i in 0..<m {
                    // The row i of lhs (length k), gathered when lhs is adjoint.
                    withUnsafeTemporaryAllocation(of: Float.self, capacity: max(1, k)) { rowBuffer in
                        guard let row = rowBuffer.baseAddress else { return }
                        let base = x + li * lMatrix
                        for kk in 0..<k { row[kk] = adjointLeft ? base[kk * m + i] : base[i * k + kk] }
                        var scale: Float, offset: Int32 = 0
                        if asymmetricInputs {
                            let r = FixedPoint.asymmetricQuantize(row, count: k, into: q)
                            scale = r.scale
                            offset = r.offset
                        } else {
                            scale = FixedPoint.symmetricQuantize(row, count: k, into: q)
                        }
                        if weightScales.count == 1 { scale *= weightScales[0] }
                        for j in 0..<n {
                            let w = b + ri * rMatrix + j * k
                            var total: Int32 = 0, rowSum: Int32 = 0
                            for kk in 0..<k {
                                total &+= Int32(q[kk]) &* Int32(w[kk])
                                rowSum &+= Int32(w[kk])
                            }
                            if offset != 0 { total = Int32(Float(total) - Float(rowSum) * Float(offset)) }
                            let s = weightScales.count == 1 ? scale : scale * weightScales[j]
                            y[(ob * m + i) * n + j] = s * Float(total)
                        }
                    }
                }
            }
            return
        }
        // Integer: widen the lhs into [batch][m][k].
        QuantizedOperand.widen(lhs, zeroPoint: zl, into: a)
        let lbCount = lhs.elementCount / max(1, lMatrix)
        if adjointLeft {
            withUnsafeTemporaryAllocation(of: Int16.self, capacity: max(1, lMatrix)) { tmp in
                guard let t = tmp.baseAddress else { return }
                for batch in 0..<lbCount {
                    let src = a + batch * lMatrix
                    for kk in 0..<k { for i in 0..<m { t[i * k + kk] = src[kk * m + i] } }
                    src.update(from: t, count: lMatrix)
                }
            }
        }
        let wide = lhs.type == .int16
        let type = output.type
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: max(1, n)) { rowBuffer in
            guard let row = rowBuffer.baseAddress else { return }
            for (ob, (li, ri)) in zip(lhsBatch, rhsBatch).enumerated() {
                for i in 0..<m {
                    let xr = UnsafePointer(a + li * lMatrix + i * k)
                    for j in 0..<n {
                        let w = UnsafePointer(b + ri * rMatrix + j * k)
                        if type == .int32 {
                            row[j] = QuantizedDot.dot(xr, w, k)
                        } else if wide {
                            let v = FixedPoint.multiply(QuantizedDot.dot64(xr, w, k), by: multiplier) &+ zy
                            row[j] = min(max(v, lo), hi)
                        } else {
                            row[j] = FixedPoint.requantize(QuantizedDot.dot(xr, w, k), multiplier, zeroPoint: zy, lo: lo, hi: hi)
                        }
                    }
                    let offset = (ob * m + i) * n
                    if type == .int32 {
                        (out.assumingMemoryBound(to: Int32.self) + offset).update(from: row, count: n)
                    } else {
                        QuantizedOperand.store(row, count: n, to: out, type: type, offset: offset)
                    }
                }
            }
        }
    }
}
