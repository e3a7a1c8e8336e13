import Foundation

/// A place in an image where a localizer believes an object is, without saying what it is.
public struct LocalizedRegion: Equatable, Sendable {
    /// The region, in pixels of the upright image (origin top left).
    public var frame: CGRect
    /// How sure the localizer is, 0...1; regions are compared by it (higher is more prominent).
    public var score: Float

    /// A region with the given frame and score.
    public init(frame: CGRect, score: Float) {
        self.frame = frame
        self.score = score
    }
}

/// Finds class-agnostic object regions in an image: the first stage of ``ObjectDetector``.
///
/// OpenMLKit has two: ``SaliencyLocalizer`` (built in, needs no model) and a detection model
/// (``DetectionModel``), whose class labels are then ignored in favour of the classifier's.
public protocol ObjectLocalizer: AnyObject {
    /// At most `maxCount` regions in `image`, most prominent first, frames in upright image pixels.
    ///
    /// - Throws: ``VisionError`` for unusable images; a model-based localizer also throws the
    ///   runtime's errors.
    func regions(in image: VisionImage, maxCount: Int) throws -> [LocalizedRegion]
}
