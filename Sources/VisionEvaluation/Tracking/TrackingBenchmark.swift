import Foundation
import OpenMLKitVision

/// Runs a tracking detector over generated sequences and scores it with ``MOTAccumulator``.
///
/// The system under test is a closure from a frame's picture to ``DetectedObject``s carrying
/// tracking identifiers (an ``ObjectDetector`` in stream mode, say), with a reset hook called
/// before each sequence. ``runOracle(noise:configuration:seed:)`` runs ``OracleDetector`` instead,
/// which scores the tracker alone. Objects without a tracking identifier are scored as if each had
/// a fresh one (they can only be ID switches).
public struct TrackingBenchmark {
    /// The figures of one sequence.
    public struct SequenceResult: Encodable, Sendable {
        /// The sequence's name (scenario, variant, photos).
        public let name: String
        /// Its figures.
        public let metrics: MOTMetrics
        /// Mean time of the system under test per frame, in milliseconds.
        public let millisecondsPerFrame: Double
    }

    /// The figures of one scenario's sequences.
    public struct ScenarioResult: Encodable, Sendable {
        /// The scenario's name.
        public let scenario: String
        /// All its sequences together.
        public let metrics: MOTMetrics
        /// Mean time per frame over all its sequences, in milliseconds.
        public let millisecondsPerFrame: Double
        /// Each sequence.
        public let sequences: [SequenceResult]
    }

    /// The figures of a whole run.
    public struct Report: Encodable, Sendable {
        /// Each scenario, in the order run.
        public let scenarios: [ScenarioResult]
        /// All scenarios together.
        public let total: MOTMetrics
        /// Mean time per frame over the whole run, in milliseconds.
        public let millisecondsPerFrame: Double
    }

    /// Makes the sequences.
    public let generator: SequenceGenerator
    /// The scenarios run, in order.
    public let scenarios: [TrackingScenario]
    /// Sequences (variants 0, 1, ...) per scenario.
    public let sequencesPerScenario: Int

    /// A benchmark of `sequencesPerScenario` sequences of each of `scenarios`.
    public init(
        generator: SequenceGenerator, scenarios: [TrackingScenario] = TrackingScenario.allCases,
        sequencesPerScenario: Int = 4
    ) {
        self.generator = generator
        self.scenarios = scenarios
        self.sequencesPerScenario = max(sequencesPerScenario, 1)
    }

    /// Runs `detector` on every frame's picture, calling `reset` before each sequence and
    /// `onFrame` (if given) with each frame's output.
    ///
    /// - Throws: what the generator, `detector`, `reset` or `onFrame` throw.
    public func run(
        detector: (VisionImage) throws -> [DetectedObject], reset: () throws -> Void,
        onFrame: ((SyntheticSequence, SyntheticFrame, [DetectedObject]) throws -> Void)? = nil
    ) throws -> Report {
        try run(frames: { try detector($0.image) }, reset: { _ in try reset() }, onFrame: onFrame)
    }

    /// Runs ``OracleDetector`` (ground truth with `noise`, through an ``ObjectTracker`` with
    /// `configuration`): the tracker's own figures.
    ///
    /// - Throws: the generator's errors (photos that cannot be read).
    public func runOracle(
        noise: OracleDetector.Noise = .init(), configuration: ObjectTracker.Configuration = .init(), seed: UInt64 = 1,
        onFrame: ((SyntheticSequence, SyntheticFrame, [DetectedObject]) throws -> Void)? = nil
    ) throws -> Report {
        let oracle = OracleDetector(noise: noise, seed: seed, configuration: configuration)
        return try run(frames: { oracle.detect($0) }, reset: { oracle.reset(stream: $0) }, onFrame: onFrame)
    }

    /// Runs a system that sees the whole generated frame (an oracle may read the ground truth);
    /// `reset` gets the sequence's number in the run.
    ///
    /// - Throws: what the generator, `frames`, `reset` or `onFrame` throw.
    public func run(
        frames detect: (SyntheticFrame) throws -> [DetectedObject], reset: (Int) throws -> Void,
        onFrame: ((SyntheticSequence, SyntheticFrame, [DetectedObject]) throws -> Void)? = nil
    ) throws -> Report {
        let clock = ContinuousClock()
        var results = [ScenarioResult]()
        var totalTime = Duration.zero
        var totalFrames = 0
        var streamNumber = 0
        for scenario in scenarios {
            var sequences = [SequenceResult]()
            var scenarioTime = Duration.zero
            var scenarioFrames = 0
            for variant in 0..<sequencesPerScenario {
                let sequence = try generator.sequence(scenario, variant: variant)
                try reset(streamNumber)
                streamNumber += 1
                var accumulator = MOTAccumulator()
                var sequenceTime = Duration.zero
                var anonymous = -1
                for frame in sequence.frames {
                    var objects = [DetectedObject]()
                    sequenceTime += try clock.measure { objects = try detect(frame) }
                    try onFrame?(sequence, frame, objects)
                    let hypotheses = objects.map { object -> MOTBox in
                        if let id = object.trackingIDValue { return MOTBox(id: id, frame: object.frame) }
                        anonymous -= 1
                        return MOTBox(id: Int.min / 2 + anonymous, frame: object.frame)
                    }
                    accumulator.addFrame(groundTruth: frame.objects.map(\.motBox), hypotheses: hypotheses)
                }
                let count = sequence.frames.count
                sequences.append(
                    SequenceResult(
                        name: sequence.name, metrics: accumulator.metrics(),
                        millisecondsPerFrame: Self.milliseconds(sequenceTime) / Double(max(count, 1))))
                scenarioTime += sequenceTime
                scenarioFrames += count
            }
            results.append(
                ScenarioResult(
                    scenario: scenario.rawValue, metrics: .combined(sequences.map(\.metrics)),
                    millisecondsPerFrame: Self.milliseconds(scenarioTime) / Double(max(scenarioFrames, 1)),
                    sequences: sequences))
            totalTime += scenarioTime
            totalFrames += scenarioFrames
        }
        return Report(
            scenarios: results, total: .combined(results.map(\.metrics)),
            millisecondsPerFrame: Self.milliseconds(totalTime) / Double(max(totalFrames, 1)))
    }

    private static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }
}
