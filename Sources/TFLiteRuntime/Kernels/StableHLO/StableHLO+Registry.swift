extension BuiltinOperator {
    static let stablehloAdd = BuiltinOperator(rawValue: 163)
    static let stablehloMultiply = BuiltinOperator(rawValue: 165)
    static let stablehloMaximum = BuiltinOperator(rawValue: 166)
    static let stablehloAnd = BuiltinOperator(rawValue: 176)
    static let stablehloMinimum = BuiltinOperator(rawValue: 181)
    static let stablehloOr = BuiltinOperator(rawValue: 183)
    static let stablehloScatter = BuiltinOperator(rawValue: 190)
    static let stablehloPad = BuiltinOperator(rawValue: 195)
    static let stablehloReduceWindow = BuiltinOperator(rawValue: 198)
    static let stablehloGather = BuiltinOperator(rawValue: 201)
    static let dilate = BuiltinOperator(rawValue: 203)
    static let stablehloRngBitGenerator = BuiltinOperator(rawValue: 204)
    static let reduceWindow = BuiltinOperator(rawValue: 205)
    static let stablehloComposite = BuiltinOperator(rawValue: 206)
    static let stablehloShiftLeft = BuiltinOperator(rawValue: 207)
    static let stablehloCase = BuiltinOperator(rawValue: 209)
}

extension OpRegistry {
    /// The StableHLO operators LiteRT's built-in kernels run, and DILATE and REDUCE_WINDOW.
    static var stablehloKernels: [BuiltinOperator: KernelFactory] {
        [
            .stablehloAdd: { try StableHLOBinaryKernel($0, .add) },
            .stablehloMultiply: { try StableHLOBinaryKernel($0, .multiply) },
            .stablehloMaximum: { try StableHLOBinaryKernel($0, .maximum) },
            .stablehloMinimum: { try StableHLOBinaryKernel($0, .minimum) },
            .stablehloAnd: { try StableHLOBinaryKernel($0, .and) },
            .stablehloShiftLeft: { try StableHLOBinaryKernel($0, .shiftLeft) },
            .stablehloPad: { try StableHLOPadKernel($0, .pad) },
            .dilate: { try StableHLOPadKernel($0, .dilate) },
            .stablehloGather: { try StableHLOGatherKernel($0) },
            .reduceWindow: { try StableHLOReduceWindowKernel($0, stablehlo: false) },
            .stablehloReduceWindow: { try StableHLOReduceWindowKernel($0, stablehlo: true) },
            .stablehloScatter: { try StableHLOScatterKernel($0) },
            .stablehloCase: { try StableHLOCallKernel($0, caseOperator: true) },
            .stablehloComposite: { try StableHLOCallKernel($0, caseOperator: false) },
            .stablehloRngBitGenerator: { try StableHLORngBitGeneratorKernel($0) },
        ]
    }
}
