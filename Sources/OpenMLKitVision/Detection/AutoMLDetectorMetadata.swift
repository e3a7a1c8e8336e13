import Foundation

/// The `tflite_metadata.json` an AutoML Vision Edge object-detection export puts beside `model.tflite`
/// and `dict.txt`: input shape, the most detections, and which output tensor holds what.
///
/// ```json
/// {"inferenceType": "QUANTIZED_UINT8", "inputShape": [1, 320, 320, 3],
///  "inputTensor": "normalized_input_image_tensor", "maxDetections": 40,
///  "outputTensorRepresentation": ["bounding_boxes", "class_labels", "class_confidences", "num_of_boxes"],
///  "outputTensors": ["TFLite_Detection_PostProcess", "TFLite_Detection_PostProcess:1", ...]}
/// ```
public struct AutoMLDetectorMetadata: Equatable, Sendable, Decodable {
    /// `QUANTIZED_UINT8` or `FLOAT32`, as exported.
    public let inferenceType: String?
    /// The input shape `[1, height, width, channels]`.
    public let inputShape: [Int]?
    /// The input tensor's name.
    public let inputTensor: String?
    /// The most boxes the model reports.
    public let maxDetections: Int?
    /// The role of each entry of ``outputTensors``: `bounding_boxes`, `class_labels`,
    /// `class_confidences`, `num_of_boxes`.
    public let outputTensorRepresentation: [String]?
    /// Output tensor names, in the same order as ``outputTensorRepresentation``.
    public let outputTensors: [String]?

    /// Reads the JSON file at `path`.
    ///
    /// - Throws: ``VisionError/unsupportedModel(detail:)`` when it cannot be read or parsed.
    public init(contentsOfFile path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw VisionError.unsupportedModel(detail: "cannot read AutoML metadata '\(path)'")
        }
        do {
            self = try JSONDecoder().decode(AutoMLDetectorMetadata.self, from: data)
        } catch {
            throw VisionError.unsupportedModel(detail: "AutoML metadata '\(path)' is not valid: \(error)")
        }
    }

    /// The output tensor name for `role`, if the file names one.
    func tensorName(for role: String) -> String? {
        guard let roles = outputTensorRepresentation, let names = outputTensors, roles.count == names.count,
            let i = roles.firstIndex(of: role)
        else { return nil }
        return names[i]
    }
}
