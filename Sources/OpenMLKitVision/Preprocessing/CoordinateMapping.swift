import Foundation

/// Maps positions in a model's input back to the upright image a ``VisionImage`` shows.
///
/// Input coordinates are continuous pixel-edge coordinates (0...inputWidth), or normalised 0...1
/// as detectors report them; results are in the caller's upright image pixels (0...image width).
public struct CoordinateMapping: Equatable, Sendable {
    /// The part of the upright image that was scaled to the input, in upright pixels (with
    /// ``ScaleMode/letterbox`` it extends past the image by the bars).
    public let region: CGRect
    /// The input width in pixels.
    public let inputWidth: Int
    /// The input height in pixels.
    public let inputHeight: Int
    /// The upright image size.
    public let imageWidth: Int, imageHeight: Int
    /// The stored (unrotated) image size.
    let storedWidth: Int, storedHeight: Int

    init(image: VisionImage, format: InputImageFormat, region requested: CGRect?, scaleMode: ScaleMode) throws {
        let full = CGRect(x: 0, y: 0, width: image.width, height: image.height)
        var region = requested ?? full
        guard region.width > 0, region.height > 0, region.minX >= 0, region.minY >= 0,
            region.maxX <= full.maxX, region.maxY <= full.maxY, region.minX.isFinite, region.minY.isFinite
        else {
            throw VisionError.invalidRegion(
                detail: "region \(region) is empty or not inside the \(image.width)x\(image.height) image")
        }
        if scaleMode == .letterbox {
            // Grow the region (beyond the image) to the input's aspect ratio; samples outside are bars.
            let target = Double(format.width) / Double(format.height)
            if region.width / region.height > target {
                let height = region.width / target
                region = CGRect(
                    x: region.minX, y: region.minY - (height - region.height) / 2, width: region.width, height: height)
            } else {
                let width = region.height * target
                region = CGRect(
                    x: region.minX - (width - region.width) / 2, y: region.minY, width: width, height: region.height)
            }
        } else if scaleMode == .centerCrop {
            let target = Double(format.width) / Double(format.height)
            if region.width / region.height > target {
                let width = region.height * target
                region = CGRect(
                    x: region.minX + (region.width - width) / 2, y: region.minY, width: width, height: region.height)
            } else {
                let height = region.width / target
                region = CGRect(
                    x: region.minX, y: region.minY + (region.height - height) / 2, width: region.width, height: height)
            }
        }
        self.region = region
        inputWidth = format.width
        inputHeight = format.height
        imageWidth = image.width
        imageHeight = image.height
        storedWidth = image.buffer.width
        storedHeight = image.buffer.height
    }

    /// The upright image point for input point (`x`, `y`) in input pixels (edges at 0 and input size).
    public func imagePoint(inputX x: Double, inputY y: Double) -> CGPoint {
        CGPoint(
            x: region.minX + x * region.width / Double(inputWidth),
            y: region.minY + y * region.height / Double(inputHeight))
    }

    /// The upright image rectangle for a box given in normalised input coordinates (0...1),
    /// clipped to the image.
    public func imageRect(normalizedLeft left: Double, top: Double, right: Double, bottom: Double) -> CGRect {
        let a = imagePoint(
            inputX: min(left, right) * Double(inputWidth), inputY: min(top, bottom) * Double(inputHeight))
        let b = imagePoint(
            inputX: max(left, right) * Double(inputWidth), inputY: max(top, bottom) * Double(inputHeight))
        let x0 = min(max(a.x, 0), Double(imageWidth))
        let y0 = min(max(a.y, 0), Double(imageHeight))
        let x1 = min(max(b.x, 0), Double(imageWidth))
        let y1 = min(max(b.y, 0), Double(imageHeight))
        return CGRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
