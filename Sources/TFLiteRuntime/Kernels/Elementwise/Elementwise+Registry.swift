extension OpRegistry {
    static var elementwiseKernels: [BuiltinOperator: KernelFactory] {
        var table = [BuiltinOperator: KernelFactory]()
        let binary: [BuiltinOperator] = [
            .add, .sub, .mul, .div, .squaredDifference, .maximum, .minimum, .floorDiv, .floorMod,
        ]
        for code in binary {
            guard let op = BinaryOperator(code) else { continue }
            table[code] = { try BinaryElementwiseKernel($0, op) }
        }
        return table
    }
}
