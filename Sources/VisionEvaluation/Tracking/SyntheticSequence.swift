/// A generated video: frames with ground truth, made by ``SequenceGenerator``.
public struct SyntheticSequence {
    /// A name that says which scenario, which variant and which photos, e.g. `pan-1 (bird.jpg)`.
    public let name: String
    /// The scenario it was made for.
    public let scenario: TrackingScenario
    /// Frame width in pixels.
    public let width: Int
    /// Frame height in pixels.
    public let height: Int
    /// The frames, in order.
    public let frames: [SyntheticFrame]

    /// A sequence from its parts.
    public init(name: String, scenario: TrackingScenario, width: Int, height: Int, frames: [SyntheticFrame]) {
        self.name = name
        self.scenario = scenario
        self.width = width
        self.height = height
        self.frames = frames
    }
}
