/// FULLY_CONNECTED weights stored sparse, expanded once into a dense block the kernel then reads as
/// ordinary constant weights.
///
/// The converter's EXPERIMENTAL_SPARSITY writes pruned Dense layers' weights in TACO format straight
/// into FULLY_CONNECTED, with no DENSIFY in front: float ones as dense rows with CSR columns
/// (unblocked, or in 1x4 blocks), int8 ones (fully integer or dynamic range) in 1x16 blocks. LiteRT's
/// kernel runs exactly those encodings and refuses the rest, so `densify` does too. A zero weight adds
/// nothing to an integer accumulator, so the integer results equal LiteRT's sparse loops bit for bit;
/// float ones differ only in summation order.
final class SparseWeights {
    private var block: UnsafeMutableRawPointer?

    deinit { block?.deallocate() }

    /// When `weights` is sparse, checks its encoding against `blockWidths` (the widths of the 1xN
    /// blocks LiteRT's kernel takes for this type; `nil` = unblocked CSR), expands it and rebinds the
    /// tensor to the dense copy, which this object keeps alive. Does nothing for dense weights.
    func densify(_ weights: RuntimeTensor, blockWidths: Set<Int?>, node: Node) throws {
        guard let sparsity = weights.sparsity else { return }
        let levels = sparsity.dimensions
        let width: Int? = levels.count == 3 ? levels[2].denseSize : nil
        guard weights.isConstant, weights.rank == 2, levels.count == 2 || levels.count == 3,
            levels[0].format == .dense, levels[1].format == .sparseCSR, blockWidths.contains(width)
        else {
            let accepted = blockWidths.map { $0.map { "1x\($0) blocks" } ?? "unblocked" }.sorted().joined(separator: " or ")
            throw node.error(
                "unsupported sparse \(weights.type.name) fully-connected weight format (LiteRT takes dense rows with CSR columns, \(accepted))")
        }
        let layout = try SparseLayout(sparsity, denseShape: weights.shape, node)
        let bytes = weights.elementCount * weights.type.byteSize
        let dense = UnsafeMutableRawPointer.allocate(byteCount: max(bytes, 1), alignment: 64)
        do {
            let stored = UnsafeRawBufferPointer(start: weights.data, count: weights.byteCount)
            try layout.expand(values: stored, elementSize: weights.type.byteSize, into: dense, node)
        } catch {
            dense.deallocate()
            throw error
        }
        block?.deallocate()
        block = dense
        weights.bindConstant(UnsafeRawPointer(dense), byteCount: bytes)
        weights.sparsity = nil
    }
}
