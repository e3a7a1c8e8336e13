/// Plain scalar FULLY_CONNECTED: the oracle for `FullyConnectedKernel`.
enum ReferenceFullyConnected {
    /// `output[b, o] = clamp(sum_i input[b, i] * weights[o, i] + bias[o])` for `b < batch`, `o < outputs`.
    static func fullyConnected(
        input: UnsafePointer<Float>, batch: Int, inputSize: Int, weights: UnsafePointer<Float>, outputs: Int,
        bias: UnsafePointer<Float>?, activation: FusedActivation, output: UnsafeMutablePointer<Float>
    ) {
        let (lower, upper) = activation.floatRange
        for b in 0..<batch {
            for o in 0..<outputs {
                var sum: Float = 0
                for i in 0..<inputSize { sum += input[b * inputSize + i] * weights[o * inputSize + i] }
                if let bias { sum += bias[o] }
                output[b * outputs + o] = ReferenceConvolution.clamp(sum, lower, upper)
            }
        }
    }
}
