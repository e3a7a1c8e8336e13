import Foundation

/// Rectangle arithmetic shared by the tracker and the tracking metrics.
package enum BoxGeometry {
    /// Intersection over union of two rectangles; 0 when either is empty or not finite.
    package static func iou(_ a: CGRect, _ b: CGRect) -> Double {
        let ix = min(a.maxX, b.maxX) - max(a.minX, b.minX)
        let iy = min(a.maxY, b.maxY) - max(a.minY, b.minY)
        guard ix > 0, iy > 0 else { return 0 }
        let intersection = Double(ix * iy)
        let union = Double(a.width * a.height + b.width * b.height) - intersection
        guard union > 0, union.isFinite else { return 0 }
        return intersection / union
    }

    /// The fraction of `a`'s area that `b` covers (0 when `a` is empty).
    package static func coverage(of a: CGRect, by b: CGRect) -> Double {
        let ix = min(a.maxX, b.maxX) - max(a.minX, b.minX)
        let iy = min(a.maxY, b.maxY) - max(a.minY, b.minY)
        let area = Double(a.width * a.height)
        guard ix > 0, iy > 0, area > 0 else { return 0 }
        return Double(ix * iy) / area
    }

    /// The geometric mean of width and height: the length used to make distances scale-free.
    package static func scale(_ r: CGRect) -> Double { (Double(r.width) * Double(r.height)).squareRoot() }

    /// `rect` standardised (positive size) and clipped to `bounds`, or nil when a coordinate is not
    /// finite or less than `minimumSide` pixels of it remain in either direction.
    ///
    /// A detector's box reaching past the image edge is kept (its visible part); NaN or infinite
    /// boxes cannot be placed anywhere and are refused rather than guessed.
    package static func sanitized(_ rect: CGRect, in bounds: CGRect?, minimumSide: Double) -> CGRect? {
        let values = [rect.origin.x, rect.origin.y, rect.size.width, rect.size.height]
        guard values.allSatisfy({ $0.isFinite && abs($0) < 1e9 }) else { return nil }
        var r = rect.standardized
        if let bounds { r = r.intersection(bounds) }
        guard !r.isNull, Double(r.width) >= minimumSide, Double(r.height) >= minimumSide else { return nil }
        return r
    }

    /// A rectangle from its centre and size.
    package static func rect(centerX: Double, centerY: Double, width: Double, height: Double) -> CGRect {
        CGRect(x: centerX - width / 2, y: centerY - height / 2, width: width, height: height)
    }
}
