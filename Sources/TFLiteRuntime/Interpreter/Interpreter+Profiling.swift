import Dispatch

/// How long one operator took in a profiled run.
public struct OperatorTiming: Sendable, Equatable {
    /// The node's index in the subgraph's operator list.
    public let nodeIndex: Int
    /// The operator's name (`CONV_2D`, or the custom code).
    public let operatorName: String
    /// Wall time of the node's evaluation, in nanoseconds.
    public let nanoseconds: UInt64
}

extension Interpreter {
    /// Runs the model like ``invoke()`` and returns each operator's time, in execution order.
    ///
    /// The timing adds two clock reads per node; use plain `invoke()` to measure whole runs.
    /// A RELU-like node that runs inside the ADD before it (see `ClampFusion`) is not listed: its
    /// time is part of that ADD's.
    public func invokeProfiled() throws -> [OperatorTiming] {
        let names = executor.nodeNames
        var timings = [OperatorTiming]()
        timings.reserveCapacity(names.count)
        try Interpreter.mapErrors {
            try executor.invoke { node, nanoseconds in
                timings.append(OperatorTiming(nodeIndex: node, operatorName: names[node], nanoseconds: nanoseconds))
            }
        }
        hasInvoked = true
        return timings
    }
}
