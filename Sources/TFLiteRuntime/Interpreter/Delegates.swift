/// TensorFlowLiteSwift's GPU delegate, accepted so that code written for it compiles unchanged.
///
/// OpenMLKit has no GPU path: an interpreter given this delegate runs every operator on the CPU,
/// with the same results as without it. The options are kept for callers that read them back.
public final class MetalDelegate: Delegate {
    /// The options the delegate was created with (they change nothing here).
    public let options: Options

    /// A delegate with `options`.
    public init(options: Options = Options()) {
        self.options = options
    }
}

extension MetalDelegate {
    /// TensorFlowLiteSwift's Metal delegate options; recorded, not acted on (see ``MetalDelegate``).
    public struct Options: Equatable, Hashable, Sendable {
        /// Whether float16 arithmetic may stand in for float32 (default false).
        public var isPrecisionLossAllowed = false
        /// How a thread waits for GPU work (default ``ThreadWaitType/passive``).
        public var waitType: ThreadWaitType = .passive
        /// Whether quantized models may run on the GPU (default true).
        public var isQuantizationEnabled = true

        /// The default options.
        public init() {}
    }
}

/// How a thread waits for GPU work to finish (TensorFlowLiteSwift's `ThreadWaitType`).
public enum ThreadWaitType: Equatable, Hashable, Sendable {
    /// Does not wait.
    case none
    /// Waits passively.
    case passive
    /// Spins for the lowest latency.
    case active
    /// Keeps the GPU from sleeping.
    case aggressive
}

/// TensorFlowLiteSwift's Core ML delegate, accepted so that code written for it compiles unchanged.
///
/// OpenMLKit does not hand graphs to Core ML: an interpreter given this delegate runs every
/// operator on the CPU. Unlike the real delegate, creation never fails (there is no Neural Engine
/// check to fail), so the failable initializer always returns an instance.
public final class CoreMLDelegate: Delegate {
    /// The options the delegate was created with (they change nothing here).
    public let options: Options

    /// A delegate with `options`; never nil here (see the type's documentation).
    public init?(options: Options = Options()) {
        self.options = options
    }
}

extension CoreMLDelegate {
    /// Which devices the real Core ML delegate would run on.
    public enum EnabledDevices: Equatable, Hashable, Sendable {
        /// Devices with a Neural Engine only (the default).
        case neuralEngine
        /// Every device.
        case all
    }

    /// TensorFlowLiteSwift's Core ML delegate options; recorded, not acted on.
    public struct Options: Equatable, Hashable, Sendable {
        /// Devices the delegate is enabled for (default ``EnabledDevices/neuralEngine``).
        public var enabledDevices: EnabledDevices = .neuralEngine
        /// Target Core ML version; 0 means the newest the platform has.
        public var coreMLVersion = 0
        /// The most partitions delegated; 0 means all.
        public var maxDelegatedPartitions = 0
        /// The fewest nodes a delegated partition has (default 2).
        public var minNodesPerPartition = 2

        /// The default options.
        public init() {}
    }
}
