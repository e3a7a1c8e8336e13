import Foundation
import TFLiteRuntime

/// The TensorFlow Lite metadata part of `mlkit inspect`, as JSON-encodable values and text lines.
struct MetadataReport: Encodable {
    struct File: Encodable {
        let name: String
        let type: String
        let locale: String?
        let description: String?
    }

    struct TensorReport: Encodable {
        let name: String?
        let description: String?
        let content: String?
        let color_space: String?
        let default_size: [Int]?
        let bounding_box: String?
        let content_range: [Int]?
        let normalization: [String: [Float]]?
        let score_threshold: Float?
        let other_process_units: [String]
        let associated_files: [File]
    }

    struct SubgraphReport: Encodable {
        let name: String?
        let description: String?
        let inputs: [TensorReport]
        let outputs: [TensorReport]
        let associated_files: [File]
    }

    struct PackedFile: Encodable {
        let name: String
        let bytes: Int
    }

    let name: String?
    let description: String?
    let version: String?
    let author: String?
    let license: String?
    let min_parser_version: String?
    let associated_files: [File]
    let subgraphs: [SubgraphReport]
    /// The files in the zip archive after the model.
    let packed_files: [PackedFile]

    /// The report for `model`; nil when it has neither metadata nor packed files.
    init?(model: Model) throws {
        let metadata = try model.readMetadata()
        let packed = try model.associatedFiles()
        guard metadata != nil || !packed.isEmpty else { return nil }
        let m = metadata ?? ModelMetadata()
        name = m.name
        description = m.description
        version = m.version
        author = m.author
        license = m.license
        min_parser_version = m.minParserVersion
        associated_files = m.associatedFiles.map(MetadataReport.file)
        subgraphs = m.subgraphs.map { s in
            SubgraphReport(
                name: s.name, description: s.description, inputs: s.inputTensors.map(MetadataReport.tensor),
                outputs: s.outputTensors.map(MetadataReport.tensor),
                associated_files: s.associatedFiles.map(MetadataReport.file))
        }
        packed_files = packed.map { PackedFile(name: $0.name, bytes: $0.data.count) }
    }

    static func file(_ f: AssociatedFile) -> File {
        File(name: f.name, type: typeName(f.type), locale: f.locale, description: f.description)
    }

    static func typeName(_ type: AssociatedFile.FileType) -> String {
        switch type {
        case .unknown: return "UNKNOWN"
        case .descriptions: return "DESCRIPTIONS"
        case .tensorAxisLabels: return "TENSOR_AXIS_LABELS"
        case .tensorValueLabels: return "TENSOR_VALUE_LABELS"
        case .tensorAxisScoreCalibration: return "TENSOR_AXIS_SCORE_CALIBRATION"
        case .vocabulary: return "VOCABULARY"
        case .scannIndexFile: return "SCANN_INDEX_FILE"
        }
    }

    static func tensor(_ t: TensorMetadata) -> TensorReport {
        var content: String?
        var colorSpace: String?
        var size: [Int]?
        var box: String?
        switch t.content {
        case .feature: content = "feature"
        case .image(let space, let w, let h):
            content = "image"
            colorSpace = ["UNKNOWN", "RGB", "GRAYSCALE"][space.rawValue]
            if let w, let h { size = [w, h] }
        case .boundingBox(let index, let type, let coordinates):
            content = "bounding_box"
            box =
                "\(["UNKNOWN", "BOUNDARIES", "UPPER_LEFT", "CENTER"][type.rawValue]) index \(index) "
                + (coordinates == .ratio ? "RATIO" : "PIXEL")
        case .audio(let rate, let channels): content = "audio \(rate) Hz × \(channels)"
        case .unknown(let n): content = "unknown (\(n))"
        case nil: content = nil
        }
        var others = [String]()
        for unit in t.processUnits {
            switch unit {
            case .normalization, .scoreThresholding: continue
            case .scoreCalibration(let transformation, let defaultScore):
                others.append("score calibration (transformation \(transformation), default \(defaultScore))")
            case .other(let n): others.append("process unit type \(n)")
            }
        }
        return TensorReport(
            name: t.name, description: t.description, content: content, color_space: colorSpace, default_size: size,
            bounding_box: box, content_range: t.contentRange.map { [$0.lowerBound, $0.upperBound] },
            normalization: t.normalization.map { ["mean": $0.mean, "std": $0.std] }, score_threshold: t.scoreThreshold,
            other_process_units: others, associated_files: t.associatedFiles.map(file))
    }

    /// Indented text lines for `mlkit inspect`.
    func lines() -> [String] {
        var out = ["TFLite metadata:"]
        for (key, value) in [
            ("name", name), ("description", description), ("version", version), ("author", author),
            ("license", license), ("min parser version", min_parser_version),
        ] {
            if let value, !value.isEmpty { out.append("  \(key): \(value.replacingOccurrences(of: "\n", with: " "))") }
        }
        func files(_ list: [File], _ indent: String) {
            for f in list {
                out.append("\(indent)file \(f.name) (\(f.type)\(f.locale.map { ", locale \($0)" } ?? ""))")
            }
        }
        files(associated_files, "  ")
        for (i, s) in subgraphs.enumerated() {
            out.append("  subgraph \(i)\(s.name.map { " '\($0)'" } ?? "")")
            files(s.associated_files, "    ")
            for (kind, tensors) in [("input", s.inputs), ("output", s.outputs)] {
                for (j, t) in tensors.enumerated() {
                    var line = "    \(kind) \(j): \(t.name ?? "(unnamed)")"
                    if let c = t.content { line += " [\(c)\(t.color_space.map { " \($0)" } ?? "")]" }
                    if let size = t.default_size { line += " default size \(size[0])x\(size[1])" }
                    if let box = t.bounding_box { line += " box \(box)" }
                    if let range = t.content_range { line += " range \(range[0])...\(range[1])" }
                    if let n = t.normalization { line += " mean \(n["mean"] ?? []) std \(n["std"] ?? [])" }
                    if let s = t.score_threshold { line += " score threshold \(s)" }
                    out.append(line)
                    for other in t.other_process_units { out.append("      \(other)") }
                    files(t.associated_files, "      ")
                }
            }
        }
        if !packed_files.isEmpty {
            out.append(
                "  packed files: " + packed_files.map { "\($0.name) (\($0.bytes) bytes)" }.joined(separator: ", "))
        }
        return out
    }
}
