import Foundation
import OpenMLKit
import TFLiteRuntime

/// Classifies whole images with a custom TensorFlow Lite model (ML Kit's `ImageLabeler`).
///
/// The model's first input must be an NHWC image (uint8, int8 or float32) and its first output a
/// score per class (`[1, classes]`). Inputs are prepared by ``ImagePreprocessor`` with the model
/// metadata's normalisation; quantized scores are dequantized. Labels come from
/// ``CustomImageLabelerOptions/labelsPath``, the metadata's `TENSOR_AXIS_LABELS` file (English
/// when several locales exist), or an AutoML manifest's `labelsFile`.
///
/// Thread-safe: calls are serialised on an internal lock.
///
/// As in ML Kit, ``imageLabeler(options:)`` does not throw: a model that cannot be loaded is
/// reported by every ``process(_:completion:)`` and ``results(in:region:)`` call, and the
/// properties describe an empty model meanwhile (``loadError`` says why). ``init(options:)`` throws
/// at once instead.
public final class ImageLabeler: @unchecked Sendable {
    /// The options the labeler was created with.
    public let options: CustomImageLabelerOptions
    /// The class names (empty when the model has none, or failed to load).
    public var labels: LabelMap { (try? state.get())?.labels ?? LabelMap(labels: [:]) }
    /// The input format the model wants; nil when the model failed to load.
    public var inputFormat: InputImageFormat! { try? state.get().inputFormat }
    /// The threshold in effect: the options', the metadata's, or 0.
    public var confidenceThreshold: Float {
        (try? state.get())?.confidenceThreshold ?? options.confidenceThresholdValue ?? 0
    }
    /// The model's metadata, if it has any.
    public var metadata: ModelMetadata? { (try? state.get())?.metadata }
    /// Score calibration from the metadata, applied before the threshold; nil when the model has none.
    public var calibration: ScoreCalibration? { (try? state.get())?.calibration }
    /// Why the model could not be loaded, for a labeler made by ``imageLabeler(options:)``; nil
    /// when it is usable.
    public var loadError: Error? {
        if case .failure(let error) = state { return error }
        return nil
    }

    /// What a loaded model gives.
    private struct Loaded {
        let interpreter: Interpreter
        let labels: LabelMap
        let inputFormat: InputImageFormat
        let confidenceThreshold: Float
        let metadata: ModelMetadata?
        let calibration: ScoreCalibration?
    }

    private let state: Result<Loaded, Error>
    private let lock = NSLock()

    /// ML Kit's factory: never throws; a model that cannot be loaded makes every
    /// ``process(_:completion:)`` and ``results(in:region:)`` call fail with the reason
    /// (see ``loadError``).
    public static func imageLabeler(options: CustomImageLabelerOptions) -> ImageLabeler {
        ImageLabeler(options: options, state: Result { try ImageLabeler.load(options) })
    }

    /// Loads the model, reads its metadata and labels, and allocates tensors.
    ///
    /// - Throws: `ModelError` or `InterpreterError` for unusable model files, `MetadataError`
    ///   for malformed metadata, ``VisionError/unsupportedModel(detail:)`` when the inputs or outputs
    ///   do not fit a classifier, ``VisionError/invalidLabels(detail:)`` for unreadable labels,
    ///   `ModelDownloadError.notDownloaded` for a remote model that is not downloaded.
    public convenience init(options: CustomImageLabelerOptions) throws {
        self.init(options: options, state: .success(try ImageLabeler.load(options)))
    }

    private init(options: CustomImageLabelerOptions, state: Result<Loaded, Error>) {
        self.options = options
        self.state = state
    }

    private static func load(_ options: CustomImageLabelerOptions) throws -> Loaded {
        let localModel = try options.resolvedLocalModel()
        let model = try Model(path: localModel.modelPath)
        let interpreter = try Interpreter(
            model: model, options: options.threadCount.map { Interpreter.Options(threadCount: $0) })
        try interpreter.allocateTensors()
        let metadata = try model.readMetadata()
        let subgraph = metadata?.subgraphs.first
        let normalization = subgraph?.inputTensors.first?.normalization.map {
            NormalizationOptions(mean: $0.mean, std: $0.std)
        }
        let inputFormat = try InputImageFormat(tensor: try interpreter.input(at: 0), normalization: normalization)
        let output = try interpreter.output(at: 0)
        let dims = output.shape.dimensions
        guard [.uInt8, .int8, .float32].contains(output.dataType), dims == [1, dims.last ?? 0] || dims.count == 1,
            (dims.last ?? 0) > 0
        else {
            throw VisionError.unsupportedModel(
                detail:
                    "output '\(output.name)' (\(output.dataType), \(output.shape.dimensions)) is not a score per class")
        }
        let outputMetadata = subgraph?.outputTensors.first
        return Loaded(
            interpreter: interpreter,
            labels: try ImageLabeler.loadLabels(
                options: options, localModel: localModel, model: model, outputMetadata: outputMetadata),
            inputFormat: inputFormat,
            confidenceThreshold: options.confidenceThresholdValue ?? outputMetadata?.scoreThreshold ?? 0,
            metadata: metadata,
            calibration: try ImageLabeler.loadCalibration(model: model, outputMetadata: outputMetadata))
    }

    static func loadLabels(
        options: CustomImageLabelerOptions, localModel: CustomLocalModel, model: Model, outputMetadata: TensorMetadata?
    ) throws -> LabelMap {
        if let path = options.labelsPath { return try LabelMap(contentsOfFile: path) }
        if let file = outputMetadata?.labelFile(.tensorAxisLabels, locale: "en") {
            return try LabelMap(data: try model.associatedFile(named: file.name), source: file.name)
        }
        if let manifest = localModel.manifestPath,
            let object = try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifest))),
            let file = (object as? [String: Any])?["labelsFile"] as? String, !file.contains("..")
        {
            let path = URL(fileURLWithPath: manifest).deletingLastPathComponent().appendingPathComponent(file).path
            return try LabelMap(contentsOfFile: path)
        }
        return LabelMap(labels: [:])
    }

    static func loadCalibration(model: Model, outputMetadata: TensorMetadata?) throws -> ScoreCalibration? {
        guard let tensor = outputMetadata, let file = tensor.labelFile(.tensorAxisScoreCalibration) else { return nil }
        var transformation = 0
        var defaultScore: Float = 0
        for unit in tensor.processUnits {
            if case .scoreCalibration(let t, let d) = unit { (transformation, defaultScore) = (t, d) }
        }
        let text = String(decoding: try model.associatedFile(named: file.name), as: UTF8.self)
        return try ScoreCalibration(csv: text, transformation: transformation, defaultScore: defaultScore)
    }

    /// The labels for `image` (or its `region`, in upright pixels), best first: at most
    /// ``CustomImageLabelerOptions/maxResultCount``, each with confidence ≥ ``confidenceThreshold``
    /// (ties keep the lower class index first).
    ///
    /// - Throws: ``VisionError`` for unusable images or regions, `InterpreterError` when inference fails.
    public func results(in image: VisionImage, region: CGRect? = nil) throws -> [ImageLabel] {
        ranked(try scores(in: image, region: region), threshold: confidenceThreshold, limit: options.maxResultCount)
    }

    /// Labels for `scores` (one per class), best first: at most `limit`, each ≥ `threshold`; ties
    /// keep the lower class index first.
    func ranked(_ scores: [Float], threshold: Float, limit: Int) -> [ImageLabel] {
        let kept = scores.indices.filter { scores[$0] >= threshold }
        let ranked = kept.sorted { scores[$0] != scores[$1] ? scores[$0] > scores[$1] : $0 < $1 }
        return ranked.prefix(max(0, limit)).map { ImageLabel(text: labels[$0], index: $0, confidence: scores[$0]) }
    }

    /// Runs the model on `image` (or its `region`, in upright pixels) and returns the dequantized
    /// (and, with metadata calibration, calibrated) score of every class.
    public func scores(in image: VisionImage, region: CGRect? = nil) throws -> [Float] {
        let loaded = try state.get()
        let (interpreter, inputFormat, calibration) = (loaded.interpreter, loaded.inputFormat, loaded.calibration)
        lock.lock()
        defer { lock.unlock() }
        // Pre-processing writes straight into the input tensor.
        try interpreter.withUnsafeMutableBytes(ofInputAt: 0) {
            _ = try ImagePreprocessor.write(
                image, format: inputFormat, region: region, scaleMode: options.scaleMode,
                resizeMethod: options.resizeMethod, into: $0)
        }
        try interpreter.invoke()
        let raw = try ImageLabeler.dequantize(try interpreter.output(at: 0))
        guard let calibration else { return raw }
        return raw.enumerated().map { calibration.calibrate($0.element, index: $0.offset) }
    }

    /// The float values of a uint8, int8 or float32 tensor (quantized values scaled).
    static func dequantize(_ tensor: Tensor) throws -> [Float] {
        let scale = tensor.quantizationParameters?.scale ?? 1
        let zero = Float(tensor.quantizationParameters?.zeroPoint ?? 0)
        switch tensor.dataType {
        case .float32:
            return tensor.data.withUnsafeBytes { raw in
                (0..<(raw.count / 4)).map { raw.loadUnaligned(fromByteOffset: $0 * 4, as: Float.self) }
            }
        case .uInt8:
            return tensor.data.map { (Float($0) - zero) * scale }
        case .int8:
            return tensor.data.map { (Float(Int8(bitPattern: $0)) - zero) * scale }
        default:
            throw VisionError.unsupportedModel(detail: "output '\(tensor.name)' has type \(tensor.dataType)")
        }
    }

    /// Labels `image` off the caller's thread and hands the result to `completion` (ML Kit's
    /// `process(_:completion:)`): on the main actor on Apple platforms, on
    /// `CompletionQueue/queue` on Linux.
    public func process(_ image: VisionImage, completion: @escaping CompletionHandler<[ImageLabel]>) {
        DispatchQueue.global().async {
            let result = Result { try self.results(in: image) }
            deliverCompletion {
                switch result {
                case .success(let labels): completion(labels, nil)
                case .failure(let error): completion(nil, error)
                }
            }
        }
    }

    /// The labels of `image`, computed off the caller's task (ML Kit's `async` `process`).
    public func process(_ image: VisionImage) async throws -> [ImageLabel] {
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try self.results(in: image) })
            }
        }
    }
}
