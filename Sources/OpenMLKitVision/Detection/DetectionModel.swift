import Foundation
import OpenMLKit
import TFLiteRuntime

/// Finds objects with a detection model whose outputs are those of `TFLite_Detection_PostProcess`:
/// boxes `[1, N, 4]`, classes `[1, N]`, scores `[1, N]` and a count `[1]`.
///
/// The input size comes from the model's input tensor, the number of detections from its outputs,
/// the box layout from the metadata (`BoundingBoxProperties`; default `ymin, xmin, ymax, xmax` in
/// 0...1), and labels from `labelsPath`, the metadata's `TENSOR_VALUE_LABELS` file, or an AutoML
/// manifest, or a `dict.txt` beside the model; an AutoML export's `tflite_metadata.json` beside the
/// model (or ``ObjectDetectorOptions/autoMLMetadataPath``) names the output tensors, checks the
/// input shape and caps the detections. Label files that start with a `background` or `???` line are shifted so that class
/// *c* is named by line *c + 1*, as the exporters intend. The whole image is fitted to the input per
/// ``ObjectDetectorOptions/scaleMode`` (stretched by default), and boxes are returned in the upright
/// image's pixels.
///
/// ``ObjectDetector`` runs it for ``ObjectDetectorOptions`` with a model (adding tracking IDs in
/// stream mode), and for ``CustomObjectDetectorOptions/detectorModel`` as the localizer in front of
/// a custom classifier.
///
/// Thread-safe: calls are serialised on an internal lock.
public final class DetectionModel: @unchecked Sendable {
    /// The options the detector was created with.
    public let options: ObjectDetectorOptions
    /// The input format the model wants.
    public let inputFormat: InputImageFormat
    /// Class names by class index.
    public let labels: LabelMap
    /// The threshold in effect.
    public let scoreThreshold: Float

    private let interpreter: Interpreter
    private let outputs: (boxes: Int, classes: Int, scores: Int, count: Int)
    /// Position of left, top, right, bottom within each box.
    private let boxIndex: [Int]
    private let lock = NSLock()
    /// The most objects the model may report (AutoML's `maxDetections`), if known.
    public let maxDetections: Int?
    /// State inputs (after the image) and the outputs fed back into them in stream mode.
    let statePairs: [(input: Int, output: Int)]

    /// Loads the model and works out its outputs, box layout, labels and threshold.
    ///
    /// - Throws: model and metadata errors, and ``VisionError/unsupportedModel(detail:)`` when the
    ///   outputs are not those of a detection post-process, ``VisionError/invalidOptions(detail:)``
    ///   when the options name no model.
    public init(options: ObjectDetectorOptions) throws {
        guard let localModel = options.localModel else {
            throw VisionError.invalidOptions(detail: "a detection model needs ObjectDetectorOptions(localModel:)")
        }
        self.options = options
        let model = try Model(path: localModel.modelPath)
        interpreter = try Interpreter(
            model: model, options: options.threadCount.map { Interpreter.Options(threadCount: $0) })
        try interpreter.allocateTensors()
        let metadata = try model.readMetadata()?.subgraphs.first
        let normalization = metadata?.inputTensors.first?.normalization.map {
            NormalizationOptions(mean: $0.mean, std: $0.std)
        }
        inputFormat = try InputImageFormat(tensor: try interpreter.input(at: 0), normalization: normalization)

        let modelFolder = URL(fileURLWithPath: localModel.modelPath).deletingLastPathComponent()
        let automlPath =
            options.autoMLMetadataPath
            ?? [modelFolder.appendingPathComponent("tflite_metadata.json").path].first {
                FileManager.default.fileExists(atPath: $0)
            }
        let automl = try automlPath.map { try AutoMLDetectorMetadata(contentsOfFile: $0) }
        if let shape = automl?.inputShape {
            let actual = try interpreter.input(at: 0).shape.dimensions
            guard shape == actual else {
                throw VisionError.unsupportedModel(
                    detail: "AutoML metadata gives input shape \(shape), the model has \(actual)")
            }
        }
        maxDetections = automl?.maxDetections

        var boxes: Int?
        var count: Int?
        var lists = [Int]()
        for i in 0..<interpreter.outputTensorCount {
            let dims = try interpreter.output(at: i).shape.dimensions
            if dims.count == 3, dims.last == 4 {
                boxes = i
            } else if dims.count == 2 {
                lists.append(i)
            } else if dims.reduce(1, *) == 1 {
                count = i
            }
        }
        guard var boxes, var count, lists.count == 2 else {
            throw VisionError.unsupportedModel(
                detail:
                    "outputs are not boxes [1, N, 4], classes [1, N], scores [1, N] and count [1] (TFLite_Detection_PostProcess)"
            )
        }
        // Classes before scores (the post-process order) unless the metadata names them.
        var classes = lists[0]
        var scores = lists[1]
        if let tensors = metadata?.outputTensors, tensors.count == interpreter.outputTensorCount,
            tensors[lists[1]].labelFile(.tensorValueLabels) != nil
                || tensors[lists[0]].name?.lowercased().contains("score") == true
        {
            (classes, scores) = (lists[1], lists[0])
        }
        // AutoML's JSON names the tensor of each role; it wins over the guesses above.
        if let automl {
            var names = [String]()
            for i in 0..<interpreter.outputTensorCount { names.append(try interpreter.output(at: i).name) }
            func index(_ role: String) -> Int? { automl.tensorName(for: role).flatMap { names.firstIndex(of: $0) } }
            if let b = index("bounding_boxes"), let c = index("class_labels"), let s = index("class_confidences"),
                let n = index("num_of_boxes"), Set([b, c, s, n]) == Set([boxes, count] + lists)
            {
                (boxes, count, classes, scores) = (b, n, c, s)
            }
        }
        outputs = (boxes, classes, scores, count)
        // Extra inputs (LSTM state) are fed from the extra outputs of the same shape, in order.
        let extraOutputs = (0..<interpreter.outputTensorCount).filter { ![boxes, classes, scores, count].contains($0) }
        var pairs = [(input: Int, output: Int)]()
        var unused = extraOutputs
        for i in 1..<max(1, interpreter.inputTensorCount) {
            let tensor = try interpreter.input(at: i)
            var match: Int?
            for o in unused {
                let candidate = try interpreter.output(at: o)
                if candidate.shape == tensor.shape && candidate.dataType == tensor.dataType {
                    match = o
                    break
                }
            }
            if let match {
                pairs.append((i, match))
                unused.removeAll { $0 == match }
            }
        }
        statePairs = pairs
        var index = [1, 0, 3, 2]
        if let tensors = metadata?.outputTensors, boxes < tensors.count,
            case .boundingBox(let order, let type, let coordinates)? = tensors[boxes].content
        {
            guard type == .boundaries || type == .unknown, coordinates == .ratio else {
                throw VisionError.unsupportedModel(detail: "only BOUNDARIES boxes in RATIO coordinates are supported")
            }
            if order.count == 4, Set(order) == [0, 1, 2, 3] { index = order }
        }
        boxIndex = index
        let valueLabels =
            metadata?.outputTensors.count == interpreter.outputTensorCount
            ? metadata?.outputTensors[classes] : nil
        scoreThreshold =
            options.scoreThreshold ?? metadata?.outputTensors.compactMap(\.scoreThreshold).first
            ?? ObjectDetectorOptions.defaultScoreThreshold
        labels = try DetectionModel.loadLabels(
            options: options, model: model, classesMetadata: valueLabels,
            sibling: modelFolder.appendingPathComponent("dict.txt").path)
        try resetStateLocked()
    }

    static func loadLabels(
        options: ObjectDetectorOptions, model: Model, classesMetadata: TensorMetadata?, sibling: String
    ) throws -> LabelMap {
        var map: LabelMap
        if let path = options.labelsPath {
            map = try LabelMap(contentsOfFile: path)
        } else if let file = classesMetadata?.labelFile(.tensorValueLabels, locale: "en") {
            map = try LabelMap(data: try model.associatedFile(named: file.name), source: file.name)
        } else if let manifest = options.localModel?.manifestPath,
            let object = try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifest))),
            let file = (object as? [String: Any])?["labelsFile"] as? String, !file.contains("..")
        {
            map = try LabelMap(
                contentsOfFile: URL(fileURLWithPath: manifest).deletingLastPathComponent().appendingPathComponent(file)
                    .path)
        } else if FileManager.default.fileExists(atPath: sibling) {
            map = try LabelMap(contentsOfFile: sibling)
        } else {
            return LabelMap(labels: [:])
        }
        // A leading background line, or ids starting at 1 (a label_map.pbtxt), reserve class 0 for the
        // background that the post-process drops: class c is then label c + 1.
        if ["background", "???"].contains(map[0].lowercased()) || (map.labels[0] == nil && map.labels[1] != nil) {
            map = map.shifted(by: 1)
        }
        return map
    }

    /// The objects in `image`, best first, with frames in the upright image's pixels.
    ///
    /// - Throws: ``VisionError`` for unusable images, `InterpreterError` when inference fails.
    public func results(in image: VisionImage) throws -> [DetectedObject] {
        lock.lock()
        defer { lock.unlock() }
        // Pre-processing writes straight into the input tensor.
        let mapping = try interpreter.withUnsafeMutableBytes(ofInputAt: 0) {
            try ImagePreprocessor.write(
                image, format: inputFormat, scaleMode: options.scaleMode, resizeMethod: options.resizeMethod, into: $0)
        }
        if options.detectorMode == .singleImage { try resetStateLocked() }
        try interpreter.invoke()
        for pair in statePairs where options.detectorMode == .stream {
            try interpreter.copy(try interpreter.output(at: pair.output).data, toInputAt: pair.input)
        }
        let boxes = try ImageLabeler.dequantize(try interpreter.output(at: outputs.boxes))
        let classes = try ImageLabeler.dequantize(try interpreter.output(at: outputs.classes))
        let scores = try ImageLabeler.dequantize(try interpreter.output(at: outputs.scores))
        let reported = try ImageLabeler.dequantize(try interpreter.output(at: outputs.count)).first ?? 0
        let available = min(scores.count, classes.count, boxes.count / 4)
        let count = reported.isFinite ? min(max(Int(reported), 0), available, maxDetections ?? available) : 0
        var objects = [DetectedObject]()
        for i in 0..<count where scores[i] >= scoreThreshold && scores[i].isFinite {
            let b = boxes[(4 * i)..<(4 * i + 4)].map(Double.init)
            let (left, top, right, bottom) = (b[boxIndex[0]], b[boxIndex[1]], b[boxIndex[2]], b[boxIndex[3]])
            guard [left, top, right, bottom].allSatisfy(\.isFinite) else { continue }
            let frame = mapping.imageRect(normalizedLeft: left, top: top, right: right, bottom: bottom)
            let index = classes[i].isFinite ? Int(classes[i].rounded()) : -1
            objects.append(
                DetectedObject(
                    frame: frame, labels: [ObjectLabel(text: labels[index], index: index, confidence: scores[i])]))
        }
        objects.sort { $0.labels[0].confidence > $1.labels[0].confidence }
        if let limit = options.maxResultCount { objects = Array(objects.prefix(max(0, limit))) }
        return objects
    }

    /// Sets a stateful model's state inputs back to zeros (the start of a new stream).
    public func resetState() throws {
        lock.lock()
        defer { lock.unlock() }
        try resetStateLocked()
    }

    private func resetStateLocked() throws {
        for pair in statePairs {
            let tensor = try interpreter.input(at: pair.input)
            try interpreter.copy(Data(count: tensor.data.count), toInputAt: pair.input)
        }
    }
}
