import Foundation
import OpenMLKitVision

/// Photos with hand-drawn object boxes, read from `tools/localization-set/annotations.json`.
///
/// Multi-object photos list their objects most prominent first; single-object photos have one box.
/// An image path starting with `shared/` is read from the shared photo folder (`../shared/images`,
/// not part of the repository), any other path relative to the annotation file's folder.
public struct LocalizationSet: Sendable {
    /// One annotated object.
    public struct Object: Decodable, Sendable {
        /// What it is (for the reader; localizers are class-agnostic).
        public let label: String
        /// Left, top, right, bottom in upright pixels.
        public let box: [Double]
        /// The box as a rectangle.
        public var frame: CGRect { CGRect(x: box[0], y: box[1], width: box[2] - box[0], height: box[3] - box[1]) }
    }

    /// A photo of several objects.
    public struct Photo: Decodable, Sendable {
        /// Path as written in the file.
        public let image: String
        /// The scene type (collage, animals, cluttered, people, product, street).
        public let kind: String
        /// Where the photo comes from and under which license.
        public let license: String
        /// Its objects, most prominent first.
        public let objects: [Object]
    }

    /// A photo of one prominent object.
    public struct Single: Decodable, Sendable {
        /// Path as written in the file.
        public let image: String
        /// Left, top, right, bottom in upright pixels.
        public let box: [Double]
        /// The box as a rectangle.
        public var frame: CGRect { CGRect(x: box[0], y: box[1], width: box[2] - box[0], height: box[3] - box[1]) }
    }

    private struct File: Decodable {
        let photos: [Photo]
        let single: [Single]
    }

    /// The multi-object photos.
    public let photos: [Photo]
    /// The single-object photos.
    public let single: [Single]
    /// The folder of the annotation file.
    public let folder: URL
    /// The folder `shared/` paths refer to.
    public let sharedImages: URL

    /// Reads the annotation file at `path`; `sharedImages` is the folder of the shared photos.
    ///
    /// - Throws: ``EvaluationError`` when the file is missing or malformed, or a box does not
    ///   have four coordinates with positive width and height.
    public init(path: String, sharedImages: String) throws {
        let url = URL(fileURLWithPath: path)
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw EvaluationError("cannot read annotations '\(path)': \(error.localizedDescription)")
        }
        let file: File
        do { file = try JSONDecoder().decode(File.self, from: data) } catch {
            throw EvaluationError("annotations '\(path)' are not valid: \(error)")
        }
        for photo in file.photos {
            for object in photo.objects where !Self.isValid(object.box) {
                throw EvaluationError("annotations '\(path)': \(photo.image) has a bad box \(object.box)")
            }
        }
        for single in file.single where !Self.isValid(single.box) {
            throw EvaluationError("annotations '\(path)': \(single.image) has a bad box \(single.box)")
        }
        photos = file.photos
        single = file.single
        folder = url.deletingLastPathComponent()
        self.sharedImages = URL(fileURLWithPath: sharedImages)
    }

    private static func isValid(_ box: [Double]) -> Bool {
        box.count == 4 && box.allSatisfy(\.isFinite) && box[2] > box[0] && box[3] > box[1]
    }

    /// The file an annotated image path refers to.
    public func url(of image: String) -> URL {
        image.hasPrefix("shared/")
            ? sharedImages.appendingPathComponent(String(image.dropFirst("shared/".count)))
            : folder.appendingPathComponent(image)
    }

    /// The upright image at an annotated path.
    ///
    /// - Throws: ``VisionError`` when the file cannot be read or decoded.
    public func load(_ image: String) throws -> VisionImage {
        try VisionImage(contentsOfFile: url(of: image).path)
    }
}

/// An evaluation input that cannot be used (missing or malformed annotations).
public struct EvaluationError: Error, CustomStringConvertible, Sendable {
    /// What is wrong, and where.
    public let description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
