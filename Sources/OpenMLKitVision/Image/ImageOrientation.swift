/// How the stored pixels of an image must be turned to show it upright, as `UIImage.Orientation`.
///
/// `.right` means the stored image must be rotated 90° clockwise to look upright (a portrait photo
/// from a back camera held upright); the `…Mirrored` cases are additionally flipped horizontally
/// (front cameras). The raw values are the EXIF orientation tag values (1...8).
public enum ImageOrientation: Int, CaseIterable, Sendable {
    /// Stored upright (EXIF 1).
    case up = 1
    /// Mirrored horizontally (EXIF 2).
    case upMirrored = 2
    /// Rotated 180° (EXIF 3).
    case down = 3
    /// Mirrored vertically (EXIF 4).
    case downMirrored = 4
    /// Transposed: mirrored, then rotated 90° counter-clockwise to show (EXIF 5).
    case leftMirrored = 5
    /// Rotate 90° clockwise to show upright (EXIF 6).
    case right = 6
    /// Transversed: mirrored, then rotated 90° clockwise to show (EXIF 7).
    case rightMirrored = 7
    /// Rotate 90° counter-clockwise to show upright (EXIF 8).
    case left = 8

    /// The orientation for an EXIF orientation tag value; nil outside 1...8.
    public init?(exifValue: Int) { self.init(rawValue: exifValue) }

    /// The EXIF orientation tag value (1...8).
    public var exifValue: Int { rawValue }

    /// Whether width and height swap between the stored and the upright image.
    public var swapsDimensions: Bool {
        switch self {
        case .left, .right, .leftMirrored, .rightMirrored: return true
        default: return false
        }
    }

    /// The upright size of an image stored as `width` × `height`.
    public func uprightSize(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsDimensions ? (height, width) : (width, height)
    }

    /// The affine map from upright pixel coordinates to stored pixel coordinates.
    ///
    /// Coordinates are pixel indices (centre of the top-left pixel at 0,0) and may be fractional;
    /// `width` and `height` are the *stored* size.
    public func uprightToStored(width: Int, height: Int) -> OrientationTransform {
        let w = Float(width - 1)
        let h = Float(height - 1)
        switch self {
        case .up: return OrientationTransform(xx: 1, xy: 0, x0: 0, yx: 0, yy: 1, y0: 0)
        case .upMirrored: return OrientationTransform(xx: -1, xy: 0, x0: w, yx: 0, yy: 1, y0: 0)
        case .down: return OrientationTransform(xx: -1, xy: 0, x0: w, yx: 0, yy: -1, y0: h)
        case .downMirrored: return OrientationTransform(xx: 1, xy: 0, x0: 0, yx: 0, yy: -1, y0: h)
        case .leftMirrored: return OrientationTransform(xx: 0, xy: 1, x0: 0, yx: 1, yy: 0, y0: 0)
        case .right: return OrientationTransform(xx: 0, xy: 1, x0: 0, yx: -1, yy: 0, y0: h)
        case .rightMirrored: return OrientationTransform(xx: 0, xy: -1, x0: w, yx: -1, yy: 0, y0: h)
        case .left: return OrientationTransform(xx: 0, xy: -1, x0: w, yx: 1, yy: 0, y0: 0)
        }
    }
}

/// An axis-aligned affine map between pixel coordinate systems: `x' = xx·x + xy·y + x0`, `y' = yx·x + yy·y + y0`.
public struct OrientationTransform: Equatable, Sendable {
    /// Coefficients of the first output coordinate.
    public let xx: Float, xy: Float, x0: Float
    /// Coefficients of the second output coordinate.
    public let yx: Float, yy: Float, y0: Float

    /// Applies the map to a point.
    @inlinable
    public func apply(x: Float, y: Float) -> (x: Float, y: Float) {
        (xx * x + xy * y + x0, yx * x + yy * y + y0)
    }
}
