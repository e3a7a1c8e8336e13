/// TRANSPOSE: `output.shape[i] = input.shape[perm[i]]`, with the permutation in input 1 (int32 or
/// int64; negative entries count from the end).
final class TransposeKernel: OpKernel {
    private var permutation: [Int] = []
    private let folded = FoldedOutputs()

    init(_ node: Node) throws { try node.expect(inputs: 2, outputs: 1) }

    func prepare(_ node: Node) throws {
        try folded.reset(node)
        let x = try node.input(0), perm = try node.input(1)
        try MoveSupport.expectMovable(x, node, role: "input")
        guard perm.rank == 1, perm.elementCount == x.rank else {
            throw node.error("perm must be a vector of \(x.rank) values, has shape \(perm.shape)")
        }
        guard node.knowsValues(of: perm) else {
            node.markOutputsDynamic()
            return
        }
        permutation = try TransposeKernel.permutation(MoveSupport.integers(perm, node, role: "perm"), node)
        try node.setOutput(0, type: x.type, shape: permutation.map { x.shape[$0] })
        if MoveSupport.allInputsConstant(node) { try folded.fold(node) { try run(node) } }
    }

    /// `values` resolved to a permutation of `0..<count` (LiteRT accepts `-rank..<rank`).
    static func permutation(_ values: [Int], _ node: Node) throws -> [Int] {
        let rank = values.count
        var seen = [Bool](repeating: false, count: rank)
        return try values.map { v in
            let p = v < 0 ? v + rank : v
            guard p >= 0, p < rank, !seen[p] else { throw node.error("perm \(values) is not a permutation") }
            seen[p] = true
            return p
        }
    }

    func eval(_ node: Node) throws {
        if folded.isActive { return }
        try run(node)
    }

    private func run(_ node: Node) throws {
        let x = try node.input(0), y = try node.output(0)
        let inputStrides = stridesOf(x.shape)
        let copy = StridedCopy(
            extents: y.shape, sourceStrides: permutation.map { inputStrides[$0] },
            destinationStrides: stridesOf(y.shape), elementSize: x.type.byteSize)
        copy.run(
            from: try MoveSupport.source(x, node, role: "input"), to: try MoveSupport.destination(y, node, role: "output"),
            threads: node.threadCount)
    }
}
