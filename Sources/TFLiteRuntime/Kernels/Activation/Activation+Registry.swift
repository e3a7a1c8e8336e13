extension OpRegistry {
    static var activationKernels: [BuiltinOperator: KernelFactory] {
        var table: [BuiltinOperator: KernelFactory] = [
            .softmax: { try SoftmaxKernel($0) },
            .logSoftmax: { try LogSoftmaxKernel($0) },
            .prelu: { try PReluKernel($0) },
        ]
        let unary: [BuiltinOperator] = [
            .logistic, .tanh, .relu, .relu6, .reluN1To1, .relu0To1, .leakyRelu, .elu, .hardSwish, .gelu,
            .exp, .log, .sqrt, .rsqrt, .neg, .abs,
        ]
        for code in unary {
            guard let op = UnaryOperator(code) else { continue }
            table[code] = { try UnaryKernel($0, op) }
        }
        return table
    }
}
