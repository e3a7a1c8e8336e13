/// The operators an interpreter can run: this runtime's built-in kernels, plus the custom operators
/// you register (TensorFlow Lite's `MutableOpResolver` with `AddCustom`).
///
/// ```swift
/// var resolver = OperatorResolver()
/// resolver.addCustom(CustomOperator(name: "MyNormalize") { _ in MyNormalizeKernel() })
/// let interpreter = try Interpreter(modelPath: path, resolver: resolver)
/// ```
///
/// A registered custom operator takes precedence over a built-in custom operator of the same name.
public struct OperatorResolver: Sendable {
    /// Which implementation of the builtin operators runs (LiteRT's `OpResolverType`).
    public enum Kernels: Sendable, Hashable {
        /// The optimized kernels (packed weights, SIMD microkernels, threads): LiteRT's `BUILTIN`.
        case optimized
        /// The plain scalar kernels for float CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED,
        /// AVERAGE_POOL_2D and MAX_POOL_2D (one thread, no packing, index-order sums), the
        /// optimized ones for everything else: LiteRT's `BUILTIN_REF`, to compare the fast path with
        /// the plain one on your own model. Results agree within float rounding, not bit for bit.
        case reference
    }

    /// The custom operators added with ``addCustom(_:)``, by name.
    public private(set) var customOperators: [String: CustomOperator] = [:]
    /// The builtin kernels this resolver chooses.
    public var kernels: Kernels

    /// The built-in kernels (optimized unless `kernels` says otherwise) and no extra custom operators.
    public init(kernels: Kernels = .optimized) {
        self.kernels = kernels
    }

    /// Registers (or replaces) a custom operator.
    public mutating func addCustom(_ op: CustomOperator) {
        customOperators[op.name] = op
    }

    /// The kernel factory for `code`: a registered custom operator first, then the built-in kernels.
    func factory(for code: OperatorCode) -> KernelFactory? {
        if code.builtin == .custom, let name = code.customCode, let op = customOperators[name] {
            return { node in try CustomOperatorAdapter(node, op) }
        }
        if kernels == .reference, let kind = OpRegistry.referenceKernels[code.builtin],
            let builtin = OpRegistry.factory(for: code)
        {
            return { node in
                ReferenceWindowKernel.handles(node, kind) ? try ReferenceWindowKernel(node, kind) : try builtin(node)
            }
        }
        return OpRegistry.factory(for: code)
    }

    /// Why `code` cannot run with this resolver, or nil when it can.
    func unsupportedReason(_ code: OperatorCode) -> String? {
        if code.builtin == .custom, let name = code.customCode, let op = customOperators[name] {
            guard op.versions.contains(code.version) else {
                return "custom operator \(name) version \(code.version) is not supported "
                    + "(the registered kernel takes versions \(op.versions.lowerBound)–\(op.versions.upperBound))"
            }
            return nil
        }
        return OpRegistry.unsupportedReason(code)
    }
}
