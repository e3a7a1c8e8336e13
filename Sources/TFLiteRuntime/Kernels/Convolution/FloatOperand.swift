/// Access to the float32 data of a kernel's operands, checked against the tensor's shape.
///
/// The planner binds every tensor to at least its shape's bytes and the model reader checks constant
/// buffers against their shapes, but a sparse constant (meant for DENSIFY) or a tensor left without
/// memory is smaller; the kernels index by shape, so they read through this check instead of
/// `RuntimeTensor.floats` directly.
enum FloatOperand {
    /// The elements of `tensor`, or an error naming `role` when its memory is shorter than its shape.
    static func read(_ tensor: RuntimeTensor, node: Node, role: String) throws -> UnsafeMutableBufferPointer<Float> {
        let values = tensor.floats
        let needed = tensor.elementCount
        guard values.count >= needed, needed == 0 || values.baseAddress != nil else {
            throw node.error("\(role) holds \(values.count) floats but shape \(tensor.shape) needs \(needed)")
        }
        return values
    }

    /// Base address of `tensor`'s elements (a dangling-but-valid address for empty tensors).
    static func base(_ tensor: RuntimeTensor, node: Node, role: String) throws -> UnsafeMutablePointer<Float> {
        let values = try read(tensor, node: node, role: role)
        if let base = values.baseAddress { return base }
        return emptyStorage
    }

    /// Whether `tensor` is a constant whose bytes cover its shape (so it can be packed in `prepare`).
    static func isReadableConstant(_ tensor: RuntimeTensor) -> Bool {
        tensor.isConstant && tensor.floats.count >= tensor.elementCount
    }

    /// Throws unless the product of the non-zero dimensions of `shape` is at most 2^40.
    ///
    /// The model reader bounds a shape's element count, but a zero dimension makes that count 0 however
    /// large the others are; kernels multiply subsets of the dimensions (row strides, image sizes), so
    /// they check this first and their index arithmetic can never overflow.
    static func checkExtent(_ shape: [Int], node: Node, role: String) throws {
        var product = 1
        for d in shape where d != 0 {
            let (p, overflow) = product.multipliedReportingOverflow(by: d)
            guard d > 0, !overflow, p <= 1 << 40 else { throw node.error("\(role) shape \(shape) is too large") }
            product = p
        }
    }

    /// A single float that empty operands point at, so callers never deal with nil base addresses.
    private static let emptyStorage: UnsafeMutablePointer<Float> = {
        let p = UnsafeMutablePointer<Float>.allocate(capacity: 1)
        p.initialize(to: 0)
        return p
    }()
}
