#if canImport(Glibc)
import Glibc
#endif
/// Checks and operand readers shared by the kernels that reshape, move and convert tensor bytes.
///
/// These kernels treat elements as opaque runs of `byteSize` bytes, so one code path serves every
/// fixed-size type. Every value read from the model (shape operands, axes, indices) is validated
/// here or by the caller and a violation throws `node.error`.
enum MoveSupport {
    /// Backing for pointers to empty tensors, which may have no memory at all.
    private static let emptyStorage = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 64)

    /// Throws unless `tensor` has a fixed-size element type (not string, resource, variant or int4).
    static func expectMovable(_ tensor: RuntimeTensor, _ node: Node, role: String) throws {
        guard tensor.type.byteSize > 0 else {
            throw node.error("\(role) has type \(tensor.type.name), which has no fixed element size")
        }
    }

    /// The start of `tensor`'s elements, after checking it holds every byte of its current shape.
    static func source(_ tensor: RuntimeTensor, _ node: Node, role: @autoclosure () -> String) throws -> UnsafeRawPointer {
        UnsafeRawPointer(try destination(tensor, node, role: role()))
    }

    /// Like `source`, for a tensor the kernel writes.
    static func destination(
        _ tensor: RuntimeTensor, _ node: Node, role: @autoclosure () -> String
    ) throws -> UnsafeMutableRawPointer {
        let needed = tensor.requiredBytes
        if needed == 0 { return tensor.data ?? emptyStorage }
        guard let data = tensor.data, tensor.byteCount >= needed else {
            throw node.error("\(role()) holds \(tensor.byteCount) bytes but its shape \(tensor.shape) needs \(needed)")
        }
        return data
    }

    /// The values of an integer operand (int32 or int64, optionally int16), checked against its data.
    static func integers(
        _ tensor: RuntimeTensor, _ node: Node, role: String, allowInt16: Bool = false
    ) throws -> [Int] {
        let count = tensor.elementCount
        if count == 0 { return [] }
        let base = try source(tensor, node, role: role)
        switch tensor.type {
        case .int32:
            return (0..<count).map { Int(base.loadUnaligned(fromByteOffset: $0 * 4, as: Int32.self)) }
        case .int64:
            return (0..<count).map { Int(base.loadUnaligned(fromByteOffset: $0 * 8, as: Int64.self)) }
        case .int16 where allowInt16:
            return (0..<count).map { Int(base.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) }
        default:
            let allowed = allowInt16 ? "INT16, INT32 or INT64" : "INT32 or INT64"
            throw node.error("\(role) has type \(tensor.type.name); it must be \(allowed)")
        }
    }

    /// The single value of a one-element integer operand (an axis).
    static func scalarInteger(_ tensor: RuntimeTensor, _ node: Node, role: String) throws -> Int {
        let values = try integers(tensor, node, role: role)
        guard values.count == 1 else {
            throw node.error("\(role) must hold one value, has shape \(tensor.shape)")
        }
        return values[0]
    }

    /// `axis` resolved against `rank` (negative axes count from the end), or a thrown error.
    static func axis(_ axis: Int, rank: Int, _ node: Node, role: String) throws -> Int {
        let resolved = axis < 0 ? axis + rank : axis
        guard resolved >= 0, resolved < rank else {
            throw node.error("\(role) \(axis) is out of range for rank \(rank)")
        }
        return resolved
    }

    /// The product of `shape`, or nil when it overflows or exceeds what the runtime allows.
    static func elementCount(_ shape: [Int]) -> Int? {
        var n = 1
        for d in shape {
            guard d >= 0 else { return nil }
            let (p, o) = n.multipliedReportingOverflow(by: d)
            guard !o, p <= Model.maxTensorBytes else { return nil }
            n = p
        }
        return n
    }

    /// Product of `shape[range]`; shapes reaching here were validated, so this cannot overflow.
    static func product(_ shape: [Int], _ range: Range<Int>) -> Int {
        var n = 1
        for i in range { n *= shape[i] }
        return n
    }

    /// True when every present input's values are constants (so the outputs can be folded once).
    static func allInputsConstant(_ node: Node) -> Bool {
        !node.isRunning && node.inputs.allSatisfy { $0?.isConstant ?? true }
    }

    /// Fills `count` elements at `destination` with the `elementSize`-byte `pattern`.
    static func fill(
        _ destination: UnsafeMutableRawPointer, count: Int, pattern: UnsafeRawPointer, elementSize: Int
    ) {
        guard count > 0 else { return }
        var allSame = true
        let first = pattern.load(as: UInt8.self)
        for i in 1..<max(elementSize, 1) where pattern.load(fromByteOffset: i, as: UInt8.self) != first {
            allSame = false
        }
        if allSame {
            destination.initializeMemory(as: UInt8.self, repeating: first, count: count * elementSize)
            return
        }
        // Doubling copies keep this a handful of memcpy calls for any pattern width.
        destination.copyMemory(from: pattern, byteCount: elementSize)
        var done = 1
        while done < count {
            let chunk = min(done, count - done)
            (destination + done * elementSize).copyMemory(from: destination, byteCount: chunk * elementSize)
            done += chunk
        }
    }
}

/// Output memory owned by a kernel that computed its outputs once, while preparing, from constant
/// inputs.
///
/// The outputs are then bound as constants, as LiteRT does with its persistent read-only tensors:
/// later kernels can read their values while preparing (a reshape's shape operand, say) and pack
/// them as weights (a densified or dequantized filter). `eval` then has nothing left to do.
final class FoldedOutputs {
    private var blocks: [UnsafeMutableRawPointer] = []
    private var capacities: [Int] = []
    /// True when the outputs currently hold values computed by the last `prepare`.
    private(set) var isActive = false

    deinit { for block in blocks { block.deallocate() } }

    /// True when the outputs still hold this object's folded values: a kernel whose inputs are all
    /// constants (weights) can then skip recomputing them when tensors are allocated again.
    func isCurrent(_ node: Node) -> Bool {
        isActive && node.outputs.count <= blocks.count
            && node.outputs.indices.allSatisfy { node.outputs[$0].isConstant && node.outputs[$0].data == blocks[$0] }
    }

    /// Forgets a previous fold; an output still bound to this object's memory gets its own block, so
    /// the executor never plans around a stale constant.
    func reset(_ node: Node) throws {
        isActive = false
        for (i, tensor) in node.outputs.enumerated() where i < blocks.count {
            if tensor.isConstant, tensor.data == blocks[i] { try tensor.allocateOwned() }
        }
    }

    /// Frees the folded values once every reader has made its own copy (packed weights). The outputs
    /// stay constants without bytes (a read of them fails with an error, never touches freed memory),
    /// `eval` still has nothing to do, and the next `prepare` folds them again, as `isCurrent` is
    /// false from now on.
    func release(_ node: Node) {
        guard isActive else { return }
        for (i, tensor) in node.outputs.enumerated() where i < blocks.count && tensor.isConstant && tensor.data == blocks[i] {
            tensor.bindConstant(UnsafeRawPointer(FoldedOutputs.noBytes), byteCount: 0)
        }
        for (block, capacity) in zip(blocks, capacities) {
            FoldedOutputs.returnPages(block, capacity)
            block.deallocate()
        }
        blocks = []
        capacities = []
    }

    /// Hands a large block's whole pages back to the system before the block is freed: the allocator
    /// would otherwise keep them (a freed block of a few hundred KB usually stays in its heap), and
    /// the memory saved by releasing would not show in the process's resident set.
    private static func returnPages(_ block: UnsafeMutableRawPointer, _ capacity: Int) {
        #if os(Linux)
        let page = 4096
        let start = (Int(bitPattern: block) + page - 1) / page * page
        let end = (Int(bitPattern: block) + capacity) / page * page
        guard end - start >= 16 * page, let from = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(from, end - start, 4 /* MADV_DONTNEED */)
        #endif
    }

    /// Where released outputs point: never read, as they have no bytes.
    private static let noBytes = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 64)

    /// Binds every output (already shaped) to memory owned here and runs `compute` to fill it.
    func fold(_ node: Node, _ compute: () throws -> Void) throws {
        for (i, tensor) in node.outputs.enumerated() {
            let needed = tensor.requiredBytes
            guard needed <= Model.maxTensorBytes else {
                throw node.error("output \(i) shape \(tensor.shape) is too large")
            }
            if i >= blocks.count {
                blocks.append(UnsafeMutableRawPointer.allocate(byteCount: max(needed, 1), alignment: 64))
                capacities.append(max(needed, 1))
            } else if capacities[i] < needed {
                let block = UnsafeMutableRawPointer.allocate(byteCount: needed, alignment: 64)
                tensor.bindConstant(block, byteCount: needed)
                blocks[i].deallocate()
                blocks[i] = block
                capacities[i] = needed
            }
            tensor.bindConstant(blocks[i], byteCount: needed)
        }
        try compute()
        isActive = true
    }
}
