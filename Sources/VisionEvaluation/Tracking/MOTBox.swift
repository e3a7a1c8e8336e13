import Foundation
import OpenMLKitVision

/// One box of one frame in a tracking evaluation: a ground-truth object or a tracker's hypothesis.
public struct MOTBox: Equatable, Sendable {
    /// The object's (ground truth) or track's (hypothesis) identifier within its sequence.
    public var id: Int
    /// The box, in upright image pixels.
    public var frame: CGRect
    /// Ground truth only: a "don't care" object (mostly hidden or outside the picture). Missing it
    /// is no error, and a hypothesis on it that matches no other object is no false positive.
    public var isIgnored: Bool

    /// A box with the given identifier and frame.
    public init(id: Int, frame: CGRect, isIgnored: Bool = false) {
        self.id = id
        self.frame = frame
        self.isIgnored = isIgnored
    }
}
