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
public final class ImageLabeler: @unchecked Sendable {
    /// The options the labeler was created with.
    public let options: CustomImageLabelerOptions
    /// The class names (empty when the model has none).
    public let labels: LabelMap
    /// The input format the model wants.
    public let inputFormat: InputImageFormat
    /// The threshold in effect: the options', the metadata's, or 0.
    public let confidenceThreshold: Float
    /// The model's metadata, if it has any.
    public let metadata: ModelMetadata?
    /// Score calibration from the metadata, applied before the threshold; nil when the model has none.
    public let calibration: ScoreCalibration?

    private let interpreter: Interpreter
    private let lock = NSLock()

    /// ML Kit's factory spelling of ``init(options:)``.
    public static func imageLabeler(options: CustomImageLabelerOptions) throws -> ImageLabeler {
        try ImageLabeler(options: options)
    }

    /// Loads the model, reads its metadata and labels, and allocates tensors.
    ///
    /// - Throws: ``ModelError`` or ``InterpreterError`` for unusable model files, ``MetadataError``
    ///   for malformed metadata, ``VisionError/unsupportedModel(detail:)`` when the inputs or outputs
    ///   do not fit a classifier, ``VisionError/invalidLabels(detail:)`` for unreadable labels.
    public init(options: CustomImageLabelerOptions) throws {
        self.options = options
        let model = try Model(path: options.localModel.modelPath)
        interpreter = try Interpreter(
            model: model, options: options.threadCount.map { Interpreter.Options(threadCount: $0) })
        try interpreter.allocateTensors()
        metadata = try model.readMetadata()
        let subgraph = metadata?.subgraphs.first
        let normalization = subgraph?.inputTensors.first?.normalization.map {
            NormalizationOptions(mean: $0.mean, std: $0.std)
        }
        inputFormat = try InputImageFormat(tensor: try interpreter.input(at: 0), normalization: normalization)
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
        confidenceThreshold = options.confidenceThreshold ?? outputMetadata?.scoreThreshold ?? 0
        labels = try ImageLabeler.loadLabels(options: options, model: model, outputMetadata: outputMetadata)
        calibration = try ImageLabeler.loadCalibration(model: model, outputMetadata: outputMetadata)
    }

    static func loadLabels(options: CustomImageLabelerOptions, model: Model, outputMetadata: TensorMetadata?) throws
        -> LabelMap
    {
        if let path = options.labelsPath { return try LabelMap(contentsOfFile: path) }
        if let file = outputMetadata?.labelFile(.tensorAxisLabels, locale: "en") {
            return try LabelMap(data: try model.associatedFile(named: file.name), source: file.name)
        }
        if let manifest = options.localModel.manifestPath,
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
    /// - Throws: ``VisionError`` for unusable images or regions, ``InterpreterError`` when inference fails.
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

    /// Runs ``results(in:)`` and hands the result to `completion` (ML Kit's asynchronous spelling;
    /// here it runs on a global queue).
    public func process(_ image: VisionImage, completion: @escaping @Sendable ([ImageLabel]?, Error?) -> Void) {
        DispatchQueue.global().async {
            do { completion(try self.results(in: image), nil) } catch { completion(nil, error) }
        }
    }
}
