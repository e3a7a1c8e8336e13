/// String tensors through the element-moving operators (GATHER, GATHER_ND, SLICE, STRIDED_SLICE,
/// TILE): the operator's own fixed-size move runs on the int32 positions of the input's strings,
/// and the output takes the strings those positions name. So every index rule (clamping, strides,
/// masks, bounds checks) is the operator's one, not a second copy for strings.
enum StringMove {
    /// Runs `move(source, destination, elementSize)` over the positions of `x`'s strings (an int32
    /// per element) into `y`'s element count of positions, then stores the picked strings in `y`.
    static func run(
        _ node: Node, input x: RuntimeTensor, output y: RuntimeTensor,
        _ move: (UnsafeRawPointer, UnsafeMutableRawPointer, Int) throws -> Void
    ) throws {
        let strings = try x.strings("input")
        let positions = (0..<strings.count).map { Int32($0) }
        var picked = [Int32](repeating: -1, count: y.elementCount)
        try positions.withUnsafeBytes { source in
            try picked.withUnsafeMutableBytes { destination in
                guard let d = destination.baseAddress else { return }
                let s = source.baseAddress ?? UnsafeRawPointer(d)
                try move(s, d, 4)
            }
        }
        var out = [[UInt8]]()
        out.reserveCapacity(picked.count)
        for p in picked {
            guard p >= 0, Int(p) < strings.count else { throw node.error("string position \(p) is out of range") }
            out.append(strings[Int(p)])
        }
        try y.setStrings(out)
    }
}
