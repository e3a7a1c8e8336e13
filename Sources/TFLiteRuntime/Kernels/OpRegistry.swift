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
            logicalKernels, mathKernels, indexingKernels, normalizationKernels,
        ] {
            table.merge(family) { first, _ in first }
        }
        return table
    }()

    static let customs: [String: KernelFactory] = {
        var table = [String: KernelFactory]()
        for family in [customKernels, detectionCustomKernels, mediaPipeCustomKernels, audioCustomKernels] {
            table.merge(family) { first, _ in first }
        }
        return table
    }()

    static func factory(for code: OperatorCode) -> KernelFactory? {
        if code.builtin == .custom {
            return code.customCode.flatMap { customs[$0] }
        }
        return builtins[code.builtin]
    }

    /// Every builtin operator this runtime can execute.
    static var supportedBuiltins: [BuiltinOperator] { builtins.keys.sorted { $0.rawValue < $1.rawValue } }
}
