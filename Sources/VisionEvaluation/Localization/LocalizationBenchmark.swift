import Foundation
import OpenMLKitVision

/// Scores a class-agnostic localizer on a ``LocalizationSet``.
///
/// Multi-object photos: the localizer's boxes (at most five) are matched one-to-one to the
/// annotated objects, best intersection over union (IoU) first, a match needing IoU ≥ 0.5. Recall
/// counts the matched objects among the min(5, n) most prominent ones; precision the boxes matched
/// to any annotated object (a box on a sixth object is not false); a *merged* box is one that holds
/// the centres of two annotated objects neither of which holds the other's centre (two separate
/// objects in one box). Single-object photos: IoU of the top box with the annotated box.
public struct LocalizationBenchmark {
    /// Figures of one multi-object photo.
    public struct PhotoResult: Encodable, Sendable {
        /// The annotated image path.
        public let image: String
        /// Its scene type.
        public let kind: String
        /// Prominent objects (min(5, n)) and how many of them were found.
        public let prominent: Int, recalled: Int
        /// Boxes reported and how many matched an annotated object.
        public let boxes: Int, matched: Int
        /// Boxes holding the centres of two separate objects.
        public let merged: Int
        /// Mean over the prominent objects of their best IoU with a reported box.
        public let meanBestIoU: Double
        /// Time of the localizer on this photo.
        public let milliseconds: Double
        /// The reported boxes (left, top, right, bottom).
        public let frames: [[Double]]
    }

    /// Figures of one single-object photo.
    public struct SingleResult: Encodable, Sendable {
        /// The annotated image path.
        public let image: String
        /// IoU of the top box with the annotated one (0 without a box).
        public let iou: Double
        /// Time of the localizer on this photo.
        public let milliseconds: Double
    }

    /// The figures of a run.
    public struct Report: Encodable, Sendable {
        /// Each multi-object photo.
        public let photos: [PhotoResult]
        /// Each single-object photo.
        public let single: [SingleResult]
        /// Recalled over prominent objects, all photos together.
        public var recall: Double {
            ratio(photos.reduce(0) { $0 + $1.recalled }, photos.reduce(0) { $0 + $1.prominent })
        }
        /// Matched over reported boxes, all photos together.
        public var precision: Double { ratio(photos.reduce(0) { $0 + $1.matched }, photos.reduce(0) { $0 + $1.boxes }) }
        /// Mean of ``PhotoResult/meanBestIoU`` weighted by prominent objects.
        public var meanBestIoU: Double {
            ratioD(
                photos.reduce(0) { $0 + $1.meanBestIoU * Double($1.prominent) },
                Double(photos.reduce(0) { $0 + $1.prominent }))
        }
        /// Boxes holding two separate objects, all photos together.
        public var merged: Int { photos.reduce(0) { $0 + $1.merged } }
        /// Mean IoU of the single-object photos' top boxes.
        public var singleMeanIoU: Double { ratioD(single.reduce(0) { $0 + $1.iou }, Double(single.count)) }
        /// Single-object photos whose top box has IoU ≥ 0.5.
        public var singleHits: Int { single.filter { $0.iou >= 0.5 }.count }
        /// Mean time per multi-object photo.
        public var millisecondsPerImage: Double {
            ratioD(photos.reduce(0) { $0 + $1.milliseconds }, Double(photos.count))
        }

        private func ratio(_ a: Int, _ b: Int) -> Double { b == 0 ? 0 : Double(a) / Double(b) }
        private func ratioD(_ a: Double, _ b: Double) -> Double { b == 0 ? 0 : a / b }

        private enum CodingKeys: String, CodingKey {
            case photos, single, recall, precision, meanBestIoU, merged, singleMeanIoU, singleHits, millisecondsPerImage
        }

        /// Encodes the per-photo figures and the totals.
        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(photos, forKey: .photos)
            try c.encode(single, forKey: .single)
            try c.encode(recall, forKey: .recall)
            try c.encode(precision, forKey: .precision)
            try c.encode(meanBestIoU, forKey: .meanBestIoU)
            try c.encode(merged, forKey: .merged)
            try c.encode(singleMeanIoU, forKey: .singleMeanIoU)
            try c.encode(singleHits, forKey: .singleHits)
            try c.encode(millisecondsPerImage, forKey: .millisecondsPerImage)
        }
    }

    /// The annotated photos.
    public let set: LocalizationSet

    /// A benchmark over `set`.
    public init(set: LocalizationSet) { self.set = set }

    /// Runs `multiple` (at most five boxes, most prominent first) on the multi-object photos and
    /// `single` (its first box counts) on the single-object photos; `onPhoto` sees every result.
    ///
    /// - Throws: what loading a photo or the localizers throw.
    public func run(
        multiple: (VisionImage) throws -> [CGRect], single: (VisionImage) throws -> [CGRect],
        onPhoto: ((String, VisionImage, [CGRect]) throws -> Void)? = nil
    ) throws -> Report {
        let clock = ContinuousClock()
        var photos = [PhotoResult]()
        for photo in set.photos {
            let image = try set.load(photo.image)
            var boxes = [CGRect]()
            let time = try clock.measure { boxes = try multiple(image) }
            boxes = Array(boxes.prefix(5))
            try onPhoto?(photo.image, image, boxes)
            photos.append(Self.score(photo, boxes: boxes, milliseconds: Self.milliseconds(time)))
        }
        var singles = [SingleResult]()
        for entry in set.single {
            let image = try set.load(entry.image)
            var boxes = [CGRect]()
            let time = try clock.measure { boxes = try single(image) }
            try onPhoto?(entry.image, image, Array(boxes.prefix(1)))
            singles.append(
                SingleResult(
                    image: entry.image, iou: boxes.first.map { Self.iou($0, entry.frame) } ?? 0,
                    milliseconds: Self.milliseconds(time)))
        }
        return Report(photos: photos, single: singles)
    }

    /// How many prominent objects a localizer's candidate boxes hold (see ``coverage(limits:candidates:)``).
    public struct Coverage: Encodable, Sendable {
        /// The number of candidates looked at per photo (nil: all of them).
        public let limit: Int?
        /// Prominent objects (min(5, n) per photo) with a candidate at IoU ≥ 0.5, all photos together.
        public let covered: Int
        /// Prominent objects, all photos together.
        public let prominent: Int
        /// Mean number of candidates looked at per photo.
        public let meanCandidates: Double

        /// ``covered`` over ``prominent``: the recall a perfect choice among these candidates would reach.
        public var fraction: Double { prominent == 0 ? 0 : Double(covered) / Double(prominent) }
    }

    /// The upper bound of recall over candidate boxes: for each of `limits` (nil: every
    /// candidate), how many of the prominent objects of the multi-object photos have at least one of
    /// the first `limit` boxes of `candidates(image)` at IoU ≥ 0.5.
    ///
    /// - Throws: what loading a photo or `candidates` throws.
    public func coverage(limits: [Int?], candidates: (VisionImage) throws -> [CGRect]) throws -> [Coverage] {
        var photos = [(boxes: [CGRect], prominent: [CGRect])]()
        for photo in set.photos {
            let boxes = try candidates(try set.load(photo.image))
            photos.append((boxes, Array(photo.objects.map(\.frame).prefix(5))))
        }
        return limits.map { Self.coverage(of: photos, limit: $0) }
    }

    /// The ``Coverage`` of the first `limit` (nil: all) candidate `boxes` of each photo over its
    /// `prominent` objects.
    static func coverage(of photos: [(boxes: [CGRect], prominent: [CGRect])], limit: Int?) -> Coverage {
        var (covered, prominent, looked) = (0, 0, 0)
        for (boxes, objects) in photos {
            let used = limit.map { Array(boxes.prefix(max(0, $0))) } ?? boxes
            looked += used.count
            prominent += objects.count
            covered += objects.filter { object in used.contains { iou($0, object) >= 0.5 } }.count
        }
        return Coverage(
            limit: limit, covered: covered, prominent: prominent,
            meanCandidates: photos.isEmpty ? 0 : Double(looked) / Double(photos.count))
    }

    /// The figures of `boxes` on `photo`.
    static func score(
        _ photo: LocalizationSet.Photo, boxes: [CGRect], milliseconds: Double, prominentLimit: Int = 5
    ) -> PhotoResult {
        let truth = photo.objects.map(\.frame)
        let prominent = min(prominentLimit, truth.count)
        var pairs = [(iou: Double, box: Int, object: Int)]()
        for (b, box) in boxes.enumerated() {
            for (o, object) in truth.enumerated() {
                let value = iou(box, object)
                if value >= 0.5 { pairs.append((value, b, o)) }
            }
        }
        pairs.sort { $0.iou > $1.iou }
        var usedBoxes = Set<Int>()
        var usedObjects = Set<Int>()
        for pair in pairs where !usedBoxes.contains(pair.box) && !usedObjects.contains(pair.object) {
            usedBoxes.insert(pair.box)
            usedObjects.insert(pair.object)
        }
        let merged = boxes.filter { box in
            let inside = truth.indices.filter { box.contains(center(truth[$0])) }
            for i in inside {
                for j in inside
                where j > i && !truth[i].contains(center(truth[j])) && !truth[j].contains(center(truth[i])) {
                    return true
                }
            }
            return false
        }.count
        let best = truth.prefix(prominent).map { object in boxes.map { iou($0, object) }.max() ?? 0 }
        return PhotoResult(
            image: photo.image, kind: photo.kind, prominent: prominent,
            recalled: usedObjects.filter { $0 < prominent }.count, boxes: boxes.count, matched: usedBoxes.count,
            merged: merged, meanBestIoU: best.reduce(0, +) / Double(max(prominent, 1)), milliseconds: milliseconds,
            frames: boxes.map { [$0.minX, $0.minY, $0.maxX, $0.maxY].map { ($0 * 10).rounded() / 10 } })
    }

    /// Intersection over union (0 when disjoint).
    public static func iou(_ a: CGRect, _ b: CGRect) -> Double {
        let i = a.intersection(b)
        guard !i.isNull, i.width > 0, i.height > 0 else { return 0 }
        let inter = i.width * i.height
        return inter / (a.width * a.height + b.width * b.height - inter)
    }

    private static func center(_ r: CGRect) -> CGPoint { CGPoint(x: r.midX, y: r.midY) }

    private static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }

    /// The report as text: one line per photo, then the totals.
    public static func table(_ report: Report, name: String) -> String {
        var lines = ["localizer: \(name)"]
        for p in report.photos {
            lines.append(
                String(
                    format: "  %-28@ %-9@ recalled %d/%d  boxes %d matched %d merged %d  best IoU %.2f  %7.1f ms",
                    p.image as NSString, p.kind as NSString, p.recalled, p.prominent, p.boxes, p.matched, p.merged,
                    p.meanBestIoU, p.milliseconds))
        }
        lines.append(
            String(
                format:
                    "several objects (%d photos): recall %.3f  precision %.3f  mean best IoU %.3f  merged %d  %.1f ms/image",
                report.photos.count, report.recall, report.precision, report.meanBestIoU, report.merged,
                report.millisecondsPerImage))
        lines.append(
            String(
                format: "one object (%d photos): mean top IoU %.3f, %d with IoU ≥ 0.5", report.single.count,
                report.singleMeanIoU, report.singleHits))
        return lines.joined(separator: "\n")
    }
}
