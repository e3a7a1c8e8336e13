import Foundation
import OpenMLKit

/// Finds objects in images and video frames (ML Kit's `ObjectDetector`).
///
/// Three set-ups, chosen by the options:
/// - ``CustomObjectDetectorOptions``: the built-in localizer (or a detection model) finds up to five
///   objects, and a custom classifier labels each one (ML Kit's object detection with a custom model);
/// - `ObjectDetectorOptions()`: the built-in localizer alone (objects without labels);
/// - `ObjectDetectorOptions(localModel:)`: a detection model and its own classes (``DetectionModel``).
///
/// In ``DetectorMode/stream`` mode every object gets a tracking ID that stays with it from frame to
/// frame (``ObjectTracker``), and labels are smoothed over the object's track; call ``reset()``
/// between unrelated streams. In ``DetectorMode/singleImage`` mode objects have no tracking ID.
/// Frames are reported in the upright image's pixels.
///
/// Thread-safe: calls are serialised on an internal lock. For live video, feed frames through a
/// ``FrameProcessor``, which drops frames that arrive while the detector is busy.
public final class ObjectDetector: @unchecked Sendable {
    private let pipeline: Result<DetectionPipeline, Error>
    private let lock = NSLock()

    /// ``DetectorMode/stream`` or ``DetectorMode/singleImage``.
    public let mode: DetectorMode

    /// ML Kit's factory for a detector with a custom classifier. As in ML Kit, it does not throw:
    /// a problem with the options or models is reported by every `results(in:)` and
    /// ``process(_:completion:)`` call. Use ``init(options:)-(CustomObjectDetectorOptions)`` to be
    /// told at once.
    public static func objectDetector(options: CustomObjectDetectorOptions) -> ObjectDetector {
        ObjectDetector(pipeline: Result { try DetectionPipeline(options: options) }, mode: options.detectorMode)
    }

    /// The factory spelling of ``init(options:)-(ObjectDetectorOptions)``.
    public static func objectDetector(options: ObjectDetectorOptions) throws -> ObjectDetector {
        try ObjectDetector(options: options)
    }

    /// A detector with a custom classifier, its models loaded and checked now.
    ///
    /// - Throws: ``VisionError/invalidOptions(detail:)`` for out-of-range options,
    ///   ``VisionError/unsupportedModel(detail:)`` when the classifier's input or output does not
    ///   fit (not `[1, height, width, 3]`, float input without normalisation metadata, not a score
    ///   per class), model errors, and `ModelDownloadError.notDownloaded` for a remote
    ///   classifier that is not downloaded.
    public convenience init(options: CustomObjectDetectorOptions) throws {
        self.init(pipeline: .success(try DetectionPipeline(options: options)), mode: options.detectorMode)
    }

    /// A detector running a detection model, or the built-in localizer when the options have none.
    ///
    /// - Throws: model and metadata errors, ``VisionError/unsupportedModel(detail:)`` when the
    ///   model's outputs are not those of a detection post-process.
    public convenience init(options: ObjectDetectorOptions) throws {
        self.init(pipeline: .success(try DetectionPipeline(options: options)), mode: options.detectorMode)
    }

    private init(pipeline: Result<DetectionPipeline, Error>, mode: DetectorMode) {
        self.pipeline = pipeline
        self.mode = mode
    }

    /// The detection model, for `ObjectDetectorOptions(localModel:)` detectors (its input format,
    /// labels and threshold); nil otherwise.
    public var detectionModel: DetectionModel? {
        guard case .success(let pipeline) = pipeline else { return nil }
        if case .labelledModel(let model) = pipeline.source { return model }
        return pipeline.source.localizer as? DetectionModel
    }

    /// The custom classifier when classification is enabled; nil otherwise.
    public var classifier: ImageLabeler? { try? pipeline.get().classifier }

    /// The objects in `image` (ML Kit's synchronous `results(in:)`), most prominent first; in stream
    /// mode, with tracking IDs, treating `image` as the next frame.
    ///
    /// - Throws: the error that made the detector unusable (see ``objectDetector(options:)-(CustomObjectDetectorOptions)``),
    ///   ``VisionError`` for unusable images, `InterpreterError` when inference fails.
    public func results(in image: VisionImage) throws -> [DetectedObject] {
        let pipeline = try self.pipeline.get()
        lock.lock()
        defer { lock.unlock() }
        return try pipeline.results(in: image)
    }

    /// Starts a new stream: tracks are forgotten (their IDs are never reused) and a stateful
    /// model's state is zeroed.
    public func reset() throws {
        let pipeline = try self.pipeline.get()
        lock.lock()
        defer { lock.unlock() }
        try pipeline.reset()
    }

    /// Runs `results(in:)` off the caller's thread and hands the result to `completion` (ML
    /// Kit's asynchronous `process(_:completion:)`): on the main actor on Apple platforms, as ML
    /// Kit does, and on `CompletionQueue/queue` on Linux.
    public func process(_ image: VisionImage, completion: @escaping CompletionHandler<[DetectedObject]>) {
        DispatchQueue.global().async {
            let result = Result { try self.results(in: image) }
            deliverCompletion {
                switch result {
                case .success(let objects): completion(objects, nil)
                case .failure(let error): completion(nil, error)
                }
            }
        }
    }

    /// The objects in `image`, computed off the caller's task (ML Kit's `async` `process`).
    public func process(_ image: VisionImage) async throws -> [DetectedObject] {
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try self.results(in: image) })
            }
        }
    }
}

extension DetectionPipeline.Source {
    /// The localizer, for class-agnostic sources.
    var localizer: ObjectLocalizer? {
        if case .localizer(let localizer) = self { return localizer }
        return nil
    }
}
