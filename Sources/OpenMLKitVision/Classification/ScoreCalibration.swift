import Foundation

/// Sigmoid score calibration from TFLite metadata (`ScoreCalibrationOptions` plus a
/// `TENSOR_AXIS_SCORE_CALIBRATION` file), as the TFLite Task Library applies it.
///
/// For class *i* with parameters (scale, slope, offset[, minScore]) the calibrated score is
/// `scale / (1 + exp(−(slope · g(x) + offset)))` when there is no minScore or `x > minScore`, and
/// `defaultScore` otherwise; classes with an empty line get `defaultScore`. `g` is the identity,
/// `log`, or the inverse logistic `log(x) − log(1 − x)`.
public struct ScoreCalibration: Equatable, Sendable {
    /// Per-class parameters; nil for an empty line.
    public let parameters: [[Float]?]
    /// `g`: 0 identity, 1 log, 2 inverse logistic (the metadata's `ScoreTransformationType`).
    public let transformation: Int
    /// The score for classes without parameters or below their minimum.
    public let defaultScore: Float

    /// Parses the CSV file's text: one line per class, each empty or 3–4 comma-separated numbers.
    ///
    /// - Throws: ``VisionError/unsupportedModel(detail:)`` for a line that is neither.
    public init(csv: String, transformation: Int, defaultScore: Float) throws {
        var lines = csv.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        if lines.last == "" { lines.removeLast() }
        parameters = try lines.enumerated().map { number, line in
            guard !line.isEmpty else { return nil }
            let values = line.split(separator: ",").map { Float($0.trimmingCharacters(in: .whitespaces)) }
            guard values.count == 3 || values.count == 4, values.allSatisfy({ $0?.isFinite == true }) else {
                throw VisionError.unsupportedModel(
                    detail: "score calibration line \(number + 1) ('\(line)') is not 3 or 4 numbers")
            }
            return values.map { $0! }
        }
        self.transformation = transformation
        self.defaultScore = defaultScore
    }

    /// The calibrated score of class `index` for raw score `x`.
    public func calibrate(_ x: Float, index: Int) -> Float {
        guard index < parameters.count, let p = parameters[index] else { return defaultScore }
        if p.count == 4, !(x > p[3]) { return defaultScore }
        let g: Float
        switch transformation {
        case 1: g = log(x)
        case 2: g = log(x) - log(1 - x)
        default: g = x
        }
        return p[0] / (1 + exp(-(p[1] * g + p[2])))
    }
}
