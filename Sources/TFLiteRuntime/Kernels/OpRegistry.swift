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
            logicalKernels, mathKernels, indexingKernels, normalizationKernels, controlFlowKernels,
            stablehloKernels, miscKernels,
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

    /// The versions of a built-in custom operator that its kernel accepts: version 1, unless listed
    /// in `customVersionOverrides`. Custom operators are versioned by their authors.
    static func customVersions(_ name: String) -> ClosedRange<Int> { customVersionOverrides[name] ?? 1...1 }

    /// MediaPipe's landmark operators have a version 2 (other inputs or options) that its models use.
    static let customVersionOverrides: [String: ClosedRange<Int>] = [
        "TransformLandmarks": 1...2, "TransformTensorBilinear": 1...2, "Landmarks2TransformMatrix": 1...2,
    ]

    static func factory(for code: OperatorCode) -> KernelFactory? {
        if code.builtin == .custom {
            return code.customCode.flatMap { customs[$0] }
        }
        return builtins[code.builtin]
    }

    /// The versions of `code`'s operator this runtime accepts (LiteRT's registered range for a
    /// builtin), or nil when it has no kernel for the operator.
    static func versions(for code: OperatorCode) -> ClosedRange<Int>? {
        guard factory(for: code) != nil else { return nil }
        if code.builtin == .custom { return customVersions(code.customCode ?? "") }
        return litertVersions[code.builtin.rawValue] ?? 1...1
    }

    /// Why this runtime cannot run `code` ("is not supported", "version 9 is not supported (1–8
    /// are)"), or nil when it can.
    static func unsupportedReason(_ code: OperatorCode) -> String? {
        let kind = code.builtin == .custom ? "custom operator" : "operator"
        guard let range = versions(for: code) else {
            return "\(kind) \(code.displayName) (version \(code.version)) is not supported"
        }
        guard range.contains(code.version) else {
            let supported = range.count == 1 ? "only version \(range.lowerBound) is" : "versions \(range.lowerBound)–\(range.upperBound) are"
            return "\(kind) \(code.displayName) version \(code.version) is not supported (\(supported))"
        }
        return nil
    }

    /// Every builtin operator this runtime can execute.
    static var supportedBuiltins: [BuiltinOperator] { builtins.keys.sorted { $0.rawValue < $1.rawValue } }
}
