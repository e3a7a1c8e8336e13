import Foundation

/// An image to run a vision model on: stored pixels plus the orientation that shows them upright.
///
/// Mirrors ML Kit's `VisionImage`: create it from an image file, encoded bytes or a camera buffer,
/// and set ``orientation`` when the pixels are not stored upright (a camera frame; see
/// ``ImageOrientation/init(deviceOrientation:cameraPosition:)``). Files carry their own EXIF
/// orientation, which is applied when they are decoded. Results (boxes, coordinates) are always
/// reported in the *upright* image's pixels, of size ``width`` × ``height``.
///
/// A `Sendable` value: copies share the immutable pixel bytes (an array, copied only if written),
/// so an image can be handed to another task or thread as is. Unlike ML Kit's class, changing
/// ``orientation`` needs a `var`: `var image = VisionImage(...); image.orientation = .right`.
public struct VisionImage: Sendable {
    /// The stored pixels.
    public let buffer: PixelBuffer
    /// How the stored pixels must be turned to show the image upright.
    public var orientation: ImageOrientation

    /// An image over raw pixels (a camera frame or pixels decoded elsewhere).
    public init(buffer: PixelBuffer, orientation: ImageOrientation = .up) {
        self.buffer = buffer
        self.orientation = orientation
    }

    /// Decodes a JPEG, PNG or BMP held in memory; a JPEG's EXIF orientation sets ``orientation``.
    ///
    /// - Throws: ``VisionError/unsupportedFormat(detail:)`` or ``VisionError/corruptImage(format:detail:)``.
    public init(data: Data) throws {
        let (buffer, orientation) = try data.withUnsafeBytes { try ImageDecoder.decode($0) }
        self.init(buffer: buffer, orientation: orientation)
    }

    /// Reads and decodes the image file at `path` (JPEG, PNG or BMP).
    ///
    /// - Throws: ``VisionError/unreadableFile(path:reason:)`` when the file cannot be read, and the
    ///   errors of ``init(data:)``.
    public init(contentsOfFile path: String) throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
        } catch {
            throw VisionError.unreadableFile(path: path, reason: (error as NSError).localizedDescription)
        }
        try self.init(data: data)
    }

    /// Width of the upright image in pixels.
    public var width: Int { orientation.uprightSize(width: buffer.width, height: buffer.height).width }

    /// Height of the upright image in pixels.
    public var height: Int { orientation.uprightSize(width: buffer.width, height: buffer.height).height }
}
