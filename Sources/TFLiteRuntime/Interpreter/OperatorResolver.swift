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
    /// The custom operators added with ``addCustom(_:)``, by name.
    public private(set) var customOperators: [String: CustomOperator] = [:]

    /// The built-in kernels and no extra custom operators.
    public init() {}

    /// Registers (or replaces) a custom operator.
    public mutating func addCustom(_ op: CustomOperator) {
        customOperators[op.name] = op
    }

    /// The kernel factory for `code`: a registered custom operator first, then the built-in kernels.
    func factory(for code: OperatorCode) -> KernelFactory? {
        if code.builtin == .custom, let name = code.customCode, let op = customOperators[name] {
            return { node in try CustomOperatorAdapter(node, op) }
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
