/// Maps operator codes to the kernels that implement them.
///
/// Each op family registers its kernels in its own `Family+Registry.swift` file; this type only
/// merges the tables, so families can be added without touching each other.
enum OpRegistry {
    static let builtins: [BuiltinOperator: KernelFactory] = {
        var table = [BuiltinOperator: KernelFactory]()
        for family in [
            convolutionKernels, elementwiseKernels, activationKernels, poolingKernels, reductionKernels,
            shapeKernels, dataMovementKernels, conversionKernels, recurrentKernels,
        ] {
            table.merge(family) { first, _ in first }
        }
        return table
    }()

    static let customs: [String: KernelFactory] = customKernels.merging(detectionCustomKernels) { first, _ in first }

    static func factory(for code: OperatorCode) -> KernelFactory? {
        if code.builtin == .custom {
            return code.customCode.flatMap { customs[$0] }
        }
        return builtins[code.builtin]
    }

    /// Every builtin operator this runtime can execute.
    static var supportedBuiltins: [BuiltinOperator] { builtins.keys.sorted { $0.rawValue < $1.rawValue } }
}
