extension OpRegistry {
    /// Comparisons, logical operators, SELECT/SELECT_V2 and WHERE.
    static var logicalKernels: [BuiltinOperator: KernelFactory] {
        var table: [BuiltinOperator: KernelFactory] = [
            .logicalAnd: { try LogicalKernel($0, .and) },
            .logicalOr: { try LogicalKernel($0, .or) },
            .logicalNot: { try LogicalKernel($0, .not) },
            .select: { try SelectKernel($0, broadcasts: false) },
            .selectV2: { try SelectKernel($0, broadcasts: true) },
            .where: { try WhereKernel($0) },
        ]
        for code in [BuiltinOperator.equal, .notEqual, .less, .lessEqual, .greater, .greaterEqual] {
            guard let op = ComparisonKernel.Operator(code) else { continue }
            table[code] = { try ComparisonKernel($0, op) }
        }
        return table
    }
}
