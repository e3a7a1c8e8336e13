import ArgumentParser
import Foundation
import OpenMLKit
import OpenMLKitVision
import VisionEvaluation

/// `mlkit localize-bench`: recall, precision and IoU of the object localizer on photos with
/// hand-drawn boxes, with optional quality thresholds (the CI's evaluation step).
struct LocalizeBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "localize-bench",
        abstract: "Score the object localizer (built-in or a detection model) on photos with annotated boxes.",
        discussion: """
            Runs the detector in single-image mode on tools/localization-set/annotations.json: up to 5 objects \
            on the multi-object photos (recall at IoU 0.5 of the min(5, n) most prominent objects, precision of \
            the boxes, mean best IoU, boxes holding two separate objects), the most prominent object on the \
            single-object photos (IoU of the top box). With --classifier the classifier labels the found \
            regions and, with the built-in localizer, scores the best candidates to rank them \
            (--ranking-candidates); --model uses a detection model as the class-agnostic localizer. See \
            docs/LOCALIZER.md.
            """
    )

    @Option(help: "The annotation file.")
    var annotations = "tools/localization-set/annotations.json"

    @Option(help: "The folder that 'shared/' image paths refer to.")
    var images = "../shared/images"

    @Option(help: "A custom image classifier (.tflite) that labels the regions found.")
    var classifier: String?

    @Option(
        help: """
            With --classifier and the built-in localizer: how many candidate regions the classifier scores to \
            rank the objects after the first (0: it only labels the regions found; default: the detector's).
            """)
    var rankingCandidates: Int?

    @Option(help: "A detection model (.tflite) used as the class-agnostic localizer.")
    var model: String?

    @Option(help: "Fail (exit 1) when the recall of prominent objects is below this.")
    var minRecall: Double?

    @Option(help: "Fail when the precision of the boxes is below this.")
    var minPrecision: Double?

    @Option(help: "Fail when more boxes than this hold the centres of two separate annotated objects.")
    var maxMerged: Int?

    @Option(
        name: .customLong("min-single-iou"),
        help: "Fail when the mean top-box IoU on the single-object photos is below this.")
    var minSingleIoU: Double?

    @Option(help: "Write every photo with annotated boxes (thin green) and found objects as PNG here.")
    var outputDir: String?

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @Flag(
        help: """
            Instead of scoring, print the upper bound of recall over the built-in localizer's candidate \
            regions: the prominent objects that some candidate holds at IoU ≥ 0.5 (every candidate, and \
            the first 5, 10, 20, 40 of the ranked ones).
            """)
    var candidateBound = false

    @Option(
        help: """
            Instead of scoring, write the built-in localizer's candidates for several objects as JSON \
            here (per multi-object photo: its size, the regions reported, every candidate and the \
            ranked ones with their saliency scores), for ranking cues prototyped offline.
            """)
    var dumpCandidates: String?

    func run() throws {
        try reportingErrors {
            let set = try LocalizationSet(path: annotations, sharedImages: images)
            if candidateBound {
                try printCandidateBound(set)
                return
            }
            if let dumpCandidates {
                try writeCandidates(set, to: dumpCandidates)
                return
            }
            let under = try LocalizerUnderTest(
                classifier: classifier, localizerModel: model, rankingCandidates: rankingCandidates)
            if let outputDir {
                try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true)
            }
            let report = try under.run(LocalizationBenchmark(set: set)) { name, image, objects in
                guard let outputDir else { return }
                var picture = try AnnotatedImage(image)
                let truth =
                    set.photos.first { $0.image == name }?.objects.map(\.frame)
                    ?? set.single.filter { $0.image == name }.map(\.frame)
                for box in truth { picture.drawRect(box, color: (40, 220, 40), thickness: 1) }
                picture.draw(objects)
                let file = URL(fileURLWithPath: outputDir).appendingPathComponent(
                    name.replacingOccurrences(of: "/", with: "_") + ".png")
                try picture.pngData().write(to: file)
            }
            if json {
                print(try VisionJSON.string(report))
            } else {
                print(LocalizationBenchmark.table(report, name: under.name))
            }
            var failures = [String]()
            if let minRecall, report.recall < minRecall {
                failures.append(String(format: "recall %.3f < %.3f", report.recall, minRecall))
            }
            if let minPrecision, report.precision < minPrecision {
                failures.append(String(format: "precision %.3f < %.3f", report.precision, minPrecision))
            }
            if let maxMerged, report.merged > maxMerged {
                failures.append("\(report.merged) boxes holding two objects > \(maxMerged)")
            }
            if let minSingleIoU, report.singleMeanIoU < minSingleIoU {
                failures.append(String(format: "single-object IoU %.3f < %.3f", report.singleMeanIoU, minSingleIoU))
            }
            if !failures.isEmpty { throw CLIError("below threshold: " + failures.joined(separator: ", ")) }
        }
    }

    /// Prints how many prominent objects the built-in localizer's candidates hold (all, and the
    /// first N it ranks for several objects).
    private func printCandidateBound(_ set: LocalizationSet) throws {
        guard model == nil else { throw CLIError("--candidate-bound measures the built-in localizer; drop --model") }
        let localizer = SaliencyLocalizer()
        let benchmark = LocalizationBenchmark(set: set)
        let count = CustomObjectDetectorOptions.maximumObjectCount
        let all = try benchmark.coverage(limits: [nil]) { image in
            try localizer.candidateRegions(in: image, maxCount: count).all.map(\.frame)
        }
        let ranked = try benchmark.coverage(limits: [5, 10, 20, 40, nil]) { image in
            try localizer.candidateRegions(in: image, maxCount: count).ranked.map(\.frame)
        }
        if json {
            print(try VisionJSON.string(["all": all, "ranked": ranked]))
            return
        }
        print("candidate bound: prominent objects with a candidate at IoU ≥ 0.5 (\(set.photos.count) photos)")
        for (name, rows) in [("every candidate", all), ("ranked", ranked)] {
            for row in rows {
                let which = row.limit.map { "first \($0)" } ?? "all"
                print(
                    String(
                        format: "  %-16@ %-9@ %d/%d = %.3f  (%.1f candidates/photo)", name as NSString,
                        which as NSString, row.covered, row.prominent, row.fraction, row.meanCandidates))
            }
        }
    }

    /// Writes the built-in localizer's candidates for several objects on every multi-object photo
    /// as JSON to `path` (frames as left, top, right, bottom in upright pixels, with their score).
    private func writeCandidates(_ set: LocalizationSet, to path: String) throws {
        guard model == nil, classifier == nil else {
            throw CLIError("--dump-candidates dumps the built-in localizer; drop --model and --classifier")
        }
        let localizer = SaliencyLocalizer()
        let count = CustomObjectDetectorOptions.maximumObjectCount
        func rows(_ regions: [LocalizedRegion]) -> [[Double]] {
            regions.map { [$0.frame.minX, $0.frame.minY, $0.frame.maxX, $0.frame.maxY, Double($0.score)] }
        }
        var photos = [DumpedCandidates]()
        for photo in set.photos {
            let image = try set.load(photo.image)
            let candidates = try localizer.candidateRegions(in: image, maxCount: count)
            photos.append(
                DumpedCandidates(
                    image: photo.image, width: image.width, height: image.height,
                    regions: rows(try localizer.regions(in: image, maxCount: count)), all: rows(candidates.all),
                    ranked: rows(candidates.ranked)))
        }
        try Data(try VisionJSON.string(photos).utf8).write(to: URL(fileURLWithPath: path))
        print("wrote the candidates of \(photos.count) photos to \(path)")
    }
}

/// One photo's candidates as `--dump-candidates` writes them (boxes: left, top, right, bottom, score).
private struct DumpedCandidates: Encodable {
    let image: String
    let width: Int, height: Int
    let regions: [[Double]], all: [[Double]], ranked: [[Double]]
}
