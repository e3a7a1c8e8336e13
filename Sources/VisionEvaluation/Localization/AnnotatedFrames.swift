import Foundation
import OpenMLKitVision

/// Consecutive video frames with annotated boxes (`image,xmin,ymin,xmax,ymax,label` CSV rows, as
/// `../shared/images/fish_frames/annotations_all50frames.csv`), and how well a detector in stream
/// mode finds them: per-frame recall and precision at IoU ≥ 0.5, one-to-one.
///
/// The annotations carry no track identities, so identity figures (MOTA's switches, IDF1) cannot
/// be computed; `mlkit track-bench` scores those on generated sequences.
public struct AnnotatedFrames {
    /// Frame files in order (those present in the folder and annotated).
    public let frames: [String]
    /// Boxes per frame file.
    public let boxes: [String: [CGRect]]
    /// The folder.
    public let folder: URL

    /// The figures of a run.
    public struct Report: Encodable, Sendable {
        /// Frames run.
        public let frames: Int
        /// Annotated boxes, found ones, reported boxes and matched ones, over all frames.
        public let annotated: Int, found: Int, reported: Int, matched: Int
        /// Mean time per frame.
        public let millisecondsPerFrame: Double
        /// Found over annotated.
        public var recall: Double { annotated == 0 ? 0 : Double(found) / Double(annotated) }
        /// Matched over reported.
        public var precision: Double { reported == 0 ? 0 : Double(matched) / Double(reported) }
        /// Unmatched boxes per frame.
        public var falseBoxesPerFrame: Double { frames == 0 ? 0 : Double(reported - matched) / Double(frames) }
    }

    /// Reads `csv` (default: the only `.csv` file in `folder`) and keeps the annotated frames that exist.
    ///
    /// - Throws: ``EvaluationError`` when there is no annotation file, a row is malformed, or no
    ///   annotated frame exists.
    public init(folder path: String, csv: String? = nil) throws {
        folder = URL(fileURLWithPath: path)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        guard let csvName = csv ?? files.first(where: { $0.hasSuffix(".csv") }) else {
            throw EvaluationError("no annotation .csv in '\(path)'")
        }
        let csvURL = csv.map { URL(fileURLWithPath: $0) } ?? folder.appendingPathComponent(csvName)
        guard let text = try? String(contentsOf: csvURL, encoding: .utf8) else {
            throw EvaluationError("cannot read '\(csvURL.path)'")
        }
        var boxes = [String: [CGRect]]()
        for (number, line) in text.split(whereSeparator: \.isNewline).enumerated().dropFirst() {
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")) }
            guard fields.count >= 5, let x0 = Double(fields[1]), let y0 = Double(fields[2]),
                let x1 = Double(fields[3]), let y1 = Double(fields[4]), x1 > x0, y1 > y0
            else { throw EvaluationError("'\(csvURL.path)' line \(number + 1) is not image,xmin,ymin,xmax,ymax,label") }
            boxes[fields[0], default: []].append(CGRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0))
        }
        frames = boxes.keys.filter { files.contains($0) }.sorted()
        guard !frames.isEmpty else { throw EvaluationError("none of the annotated frames is in '\(path)'") }
        self.boxes = boxes
    }

    /// Runs `detector` on every frame in order (after `reset`); `onFrame` sees each frame's output.
    ///
    /// - Throws: what decoding a frame, `detector` or `onFrame` throw.
    public func run(
        detector: (VisionImage) throws -> [DetectedObject], reset: () throws -> Void,
        onFrame: ((String, VisionImage, [DetectedObject]) throws -> Void)? = nil
    ) throws -> Report {
        try reset()
        let clock = ContinuousClock()
        var annotated = 0
        var found = 0
        var reported = 0
        var matched = 0
        var total = Duration.zero
        for name in frames {
            let image = try VisionImage(contentsOfFile: folder.appendingPathComponent(name).path)
            var objects = [DetectedObject]()
            total += try clock.measure { objects = try detector(image) }
            try onFrame?(name, image, objects)
            let truth = boxes[name] ?? []
            let photo = LocalizationSet.Photo(
                image: name, kind: "video", license: "",
                objects: truth.map { .init(label: "", box: [$0.minX, $0.minY, $0.maxX, $0.maxY]) })
            let score = LocalizationBenchmark.score(
                photo, boxes: objects.map(\.frame), milliseconds: 0, prominentLimit: Int.max)
            annotated += truth.count
            found += score.recalled
            reported += objects.count
            matched += score.matched
        }
        let ms = Double(total.components.seconds) * 1000 + Double(total.components.attoseconds) / 1e15
        return Report(
            frames: frames.count, annotated: annotated, found: found, reported: reported, matched: matched,
            millisecondsPerFrame: ms / Double(frames.count))
    }
}
