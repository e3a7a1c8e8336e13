import Foundation

/// The built-in, model-free localizer: finds the regions of an image that stand out from its
/// background by colour and contrast (salient-region detection).
///
/// ML Kit's object detector finds up to five prominent objects without a model from the user;
/// OpenMLKit cannot ship learned weights, so this localizer uses a documented unsupervised method
/// instead (see `docs/LOCALIZER.md`):
/// 1. the upright image is area-averaged down to a small working image in CIE L\*a\*b\*;
/// 2. a saliency map combines the minimum barrier distance from the border, the contrast to the
///    border's colours and a mild centre prior;
/// 3. the map is cut at a few levels from half its Otsu threshold up, each mask cleaned by a
///    morphological opening and split into connected components, each of which proposes a scored
///    box; the best boxes are kept, skipping overlapping and nested ones.
///
/// It finds objects that differ in colour or brightness from their surroundings; it does not know
/// what an object is, so cluttered scenes, camouflaged objects and objects that fill the frame
/// are beyond it. A uniform image gives no regions. Results are deterministic.
///
/// Thread-safe: it holds no mutable state.
public final class SaliencyLocalizer: Sendable {
    /// The tunables, as given.
    public let configuration: Configuration
    /// The tunables in effect (``Configuration/sanitized``).
    private let effective: Configuration

    /// A localizer with `configuration` (the defaults unless given).
    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
        effective = configuration.sanitized
    }

    /// The saliency map of `image` at the working size, with what is needed to map it back.
    ///
    /// Exposed to the module for visual inspection and tests.
    func saliency(of image: VisionImage) throws -> Analysis {
        var working = try LabImage(image, workingSize: effective.workingSize)
        working.smooth(radius: effective.smoothingRadius)
        return Analysis(
            map: SaliencyMap(working, configuration: effective), working: working,
            imageWidth: image.width, imageHeight: image.height, configuration: effective)
    }

    /// One image's saliency map, ready to be turned into regions.
    struct Analysis {
        /// Saliency per working-image cell.
        let map: SaliencyMap
        /// The working image the map was computed on.
        let working: LabImage
        /// The upright image size.
        let imageWidth: Int, imageHeight: Int
        /// The configuration used.
        let configuration: Configuration

        /// The regions of the map, in upright image pixels.
        func regions(maxCount: Int) -> [LocalizedRegion] {
            SalientRegions.boxes(in: map, working: working, maxCount: maxCount, configuration: configuration)
                .map(region(of:))
        }

        /// `box` (working-image cells) as a region in upright image pixels.
        func region(of box: CellBox) -> LocalizedRegion {
            let x0 = min(Double(box.minX) * working.pixelsPerCellX, Double(imageWidth))
            let y0 = min(Double(box.minY) * working.pixelsPerCellY, Double(imageHeight))
            let x1 = min(Double(box.maxX) * working.pixelsPerCellX, Double(imageWidth))
            let y1 = min(Double(box.maxY) * working.pixelsPerCellY, Double(imageHeight))
            return LocalizedRegion(frame: CGRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0), score: box.score)
        }
    }
}

extension SaliencyLocalizer: ObjectLocalizer {
    /// At most `maxCount` salient regions of `image`, most prominent first, frames in upright pixels.
    ///
    /// `maxCount` ≤ 0 gives no regions (ML Kit's detector reports at most 5). Scores are in 0...1.
    ///
    /// - Throws: ``VisionError/invalidBuffer(detail:)`` when an I420 buffer's chroma planes have
    ///   different strides (the only buffer a ``VisionImage`` can hold that cannot be read).
    public func regions(in image: VisionImage, maxCount: Int) throws -> [LocalizedRegion] {
        try saliency(of: image).regions(maxCount: maxCount)
    }
}
