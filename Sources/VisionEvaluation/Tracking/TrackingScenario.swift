/// The kinds of generated tracking sequences (see ``SequenceGenerator``).
public enum TrackingScenario: String, CaseIterable, Sendable {
    /// The camera pans and shakes over a real photo; the ground truth is the photo's objects, which
    /// leave the picture and come back as the camera turns around.
    case pan
    /// Patches of real photos move at constant velocity over a dim, blurred photo, bouncing off
    /// walls beyond the picture's edges (so they leave and re-enter) and crossing (one hides another).
    case crossing
    /// Patches moving over a real photo while the camera pans over it: both motions at once.
    case mixed

    /// One line saying what the scenario tests.
    public var summary: String {
        switch self {
        case .pan: return "camera pan and shake over a real photo; objects leave and re-enter"
        case .crossing: return "photo patches moving, crossing (occlusion), leaving and re-entering"
        case .mixed: return "moving photo patches under a panning camera"
        }
    }
}
