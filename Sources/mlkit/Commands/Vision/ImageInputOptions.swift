import ArgumentParser
import Foundation
import OpenMLKitVision

/// How `classify` and `detect` read an image: an encoded file, or raw camera bytes (`--raw`), with
/// an optional orientation that overrides the file's EXIF tag.
struct ImageInputOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Read the file as raw pixels: WIDTHxHEIGHT:FORMAT[:STRIDE,...] with FORMAT one of rgba8, bgra8, rgb8, gray8, nv12, nv21, i420.",
            valueName: "spec"))
    var raw: String?

    @Option(
        help: "Orientation of the stored pixels (EXIF 1-8 or up, down, left, right, upMirrored, ...); overrides EXIF.")
    var orientation: String?

    /// Loads `path` as these options say.
    func load(_ path: String) throws -> VisionImage {
        var image: VisionImage
        if let raw {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw VisionError.unreadableFile(path: path, reason: error.localizedDescription)
            }
            image = VisionImage(buffer: try ImageInputOptions.buffer(spec: raw, bytes: [UInt8](data)))
        } else {
            image = try VisionImage(contentsOfFile: path)
        }
        if let orientation { image.orientation = try ImageInputOptions.orientation(orientation) }
        return image
    }

    static func orientation(_ text: String) throws -> ImageOrientation {
        if let value = Int(text), let orientation = ImageOrientation(exifValue: value) { return orientation }
        let names: [String: ImageOrientation] = [
            "up": .up, "upmirrored": .upMirrored, "down": .down, "downmirrored": .downMirrored,
            "leftmirrored": .leftMirrored, "right": .right, "rightmirrored": .rightMirrored, "left": .left,
        ]
        guard let orientation = names[text.lowercased()] else {
            throw CLIError(
                "--orientation '\(text)' is not 1-8 or one of up, down, left, right and their Mirrored forms")
        }
        return orientation
    }

    static func buffer(spec: String, bytes: [UInt8]) throws -> PixelBuffer {
        let parts = spec.split(separator: ":").map(String.init)
        let size = parts.first?.lowercased().split(separator: "x").compactMap { Int($0) } ?? []
        guard parts.count >= 2, parts.count <= 3, size.count == 2,
            let format = PixelFormat(rawValue: parts[1].lowercased())
        else {
            throw CLIError("--raw '\(spec)' is not WIDTHxHEIGHT:FORMAT[:STRIDE,...]")
        }
        var strides: [Int]?
        if parts.count == 3 {
            strides = parts[2].split(separator: ",").compactMap { Int($0) }
            guard strides?.count == format.planeCount else {
                throw CLIError("--raw '\(spec)': \(format.rawValue) needs \(format.planeCount) stride(s)")
            }
        }
        return try PixelBuffer(bytes: bytes, width: size[0], height: size[1], format: format, bytesPerRow: strides)
    }
}
