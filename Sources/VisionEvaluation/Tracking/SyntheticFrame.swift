import Foundation
import OpenMLKitVision

/// One generated frame: the picture and where every object truly is.
public struct SyntheticFrame {
    /// One ground-truth object in the frame.
    public struct Object: Equatable, Sendable {
        /// The object's identifier, the same whenever it is in the picture during its sequence.
        public let id: Int
        /// Its box clipped to the picture, in pixels (the full box when it is hidden behind another).
        public let frame: CGRect
        /// The fraction of the object that can be seen: inside the picture and not hidden, 0...1.
        public let visibility: Double
        /// Whether the object is too little visible (below ``SequenceGenerator/minimumVisibility``)
        /// to be expected of a tracker: scored as "don't care".
        public let isIgnored: Bool

        /// The object as a ground-truth box for ``MOTAccumulator``.
        public var motBox: MOTBox { MOTBox(id: id, frame: frame, isIgnored: isIgnored) }
    }

    /// The frame's position in its sequence, from 0.
    public let index: Int
    /// The picture (RGB8, upright).
    public let image: VisionImage
    /// The objects at least partly in the picture.
    public let objects: [Object]
}
