import Foundation
import OpenMLKit

@testable import OpenMLKitVision

/// Measures ``SaliencyLocalizer`` on the shared photos against boxes drawn by eye and against the
/// COCO SSD detector used as pseudo ground truth.
///
/// Set `LOCALIZER_DRAW_DIR` to a folder to get every evaluated photo drawn there (`<name>.png`:
/// SSD boxes thin green, the hand box thin yellow, ours thick, red for the top region) with its
/// saliency map (`<name>.map.png`, three times the working size).
enum LocalizationEvaluation {
    /// The photos of `../shared/images` on which the COCO SSD (score ≥ 0.5) finds exactly one
    /// object, the multi-object photos aside (docs/LOCALIZER.md lists what it finds on the others;
    /// `LocalizationPhotoTests.report` recomputes this list). The tests check that it still finds one.
    static let ssdSingleObjectPhotos = [
        "bird.bmp", "cat.bmp", "cat_720p.jpg", "dandelion.jpg", "flower2.jpg", "owl.jpg", "parrot.jpg",
        "product_Preset3.jpg", "roses.jpeg", "sparrow.png", "squat.bmp", "sunflower.bmp",
    ]

    /// Photos of several objects.
    static let multiObjectPhotos = [
        "multi_objects.jpg", "cats_and_dogs.jpg", "pets.jpg", "img_meal_one.jpg", "img_meal_two.jpg",
        "img_meal_three.jpg", "table.jpg",
    ]

    /// The one prominent object of photos where that is unambiguous: boxes drawn by eye over a
    /// 50-pixel grid (left, top, right, bottom in upright pixels; about ±10 px). Photos that show
    /// several objects, or one that fills the frame (dragonfly.bmp), are not listed.
    static let handBoxes: [String: CGRect] = [
        "cat.bmp": box(50, 38, 365, 341), "cat_720p.jpg": box(120, 75, 910, 720),
        "bird.jpg": box(393, 133, 1549, 1300), "owl.jpg": box(160, 15, 332, 372),
        "parrot.jpg": box(100, 103, 466, 898), "sparrow.png": box(445, 210, 935, 603),
        "hot_dog.jpg": box(93, 82, 482, 230), "burger.jpg": box(0, 35, 410, 320),
        "sunflower.jpg": box(15, 40, 615, 620), "daisy.jpeg": box(78, 95, 365, 265),
        "grace_hopper.jpg": box(15, 22, 517, 606), "squat.bmp": box(105, 137, 365, 600),
        "flower1.jpg": box(265, 55, 568, 350), "flower2.jpg": box(130, 12, 620, 462),
        "product_Preset2.jpg": box(300, 255, 770, 1262), "product_Preset3.jpg": box(218, 95, 502, 272),
    ]

    /// The SSD score from which a detection counts as ground truth.
    static let truthScore: Float = 0.5

    private static func box(_ left: Double, _ top: Double, _ right: Double, _ bottom: Double) -> CGRect {
        CGRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    static func photo(_ name: String) throws -> VisionImage {
        try VisionImage(contentsOfFile: TestImages.images.appendingPathComponent(name).path)
    }

    /// The COCO SSD MobileNet v1 (quantized) detector, keeping detections scoring ≥ ``truthScore``.
    static func detector() throws -> ObjectDetector {
        let options = ObjectDetectorOptions(
            localModel: CustomLocalModel(
                modelPath: TestImages.models.appendingPathComponent(
                    "coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_metadata.tflite"
                ).path))
        options.scoreThreshold = truthScore
        options.detectorMode = .singleImage
        // The pseudo ground truth (and ssdSingleObjectPhotos) was established with bilinear sampling.
        options.resizeMethod = .bilinear
        return try ObjectDetector(options: options)
    }

    /// Intersection over union of two rectangles (0 when they do not overlap).
    static func iou(_ a: CGRect, _ b: CGRect) -> Double {
        let i = a.intersection(b)
        guard !i.isNull, i.width > 0, i.height > 0 else { return 0 }
        let inter = i.width * i.height
        return inter / (a.width * a.height + b.width * b.height - inter)
    }

    /// One photo's outcome.
    struct Outcome: Sendable {
        let name: String
        /// Reference boxes: SSD detections (best first), or the hand box.
        let truth: [CGRect]
        /// Their labels.
        let labels: [String]
        /// Our regions (at most 5).
        let regions: [LocalizedRegion]

        /// IoU of our top region with the first reference box.
        var topIoU: Double { regions.first.map { iou($0.frame, truth[0]) } ?? 0 }
        /// Best IoU of our top 3 regions with the first reference box.
        var bestOfThreeIoU: Double { regions.prefix(3).map { iou($0.frame, truth[0]) }.max() ?? 0 }
        /// Reference boxes matched by one of our regions at IoU ≥ 0.5.
        var recalled: Int { truth.filter { t in regions.contains { iou($0.frame, t) >= 0.5 } }.count }

        /// A printable summary line.
        var summary: String {
            "\(name): reference \(truth.count) [\(labels.joined(separator: ","))], ours \(regions.count)"
                + (truth.isEmpty
                    ? ""
                    : String(
                        format: ", top IoU %.2f, best of 3 %.2f, recalled %d/%d", topIoU, bestOfThreeIoU, recalled,
                        truth.count))
        }
    }

    /// Our regions on `names` against the hand boxes.
    static func againstHandBoxes(_ names: [String], localizer: SaliencyLocalizer) throws -> [Outcome] {
        try names.map { name in
            let image = try photo(name)
            let outcome = Outcome(
                name: name, truth: handBoxes[name].map { [$0] } ?? [], labels: ["hand"],
                regions: try localizer.regions(in: image, maxCount: 5))
            try drawIfAsked(outcome, image: image, localizer: localizer)
            return outcome
        }
    }

    /// SSD's and our regions on `names`, the photos shared between two threads (the quantized SSD
    /// takes about 2 s per photo in a debug build), each with its own detector.
    static func againstDetector(_ names: [String], localizer: SaliencyLocalizer) throws -> [Outcome] {
        let workers = 2
        let detectors = try (0..<workers).map { _ in try detector() }
        let results = Results(count: names.count)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for index in stride(from: worker, to: names.count, by: workers) {
                results.set(index) {
                    let image = try photo(names[index])
                    let objects = try detectors[worker].results(in: image)
                    let outcome = Outcome(
                        name: names[index], truth: objects.map(\.frame),
                        labels: objects.map { $0.labels.first?.text ?? "?" },
                        regions: try localizer.regions(in: image, maxCount: 5))
                    try drawIfAsked(outcome, image: image, localizer: localizer)
                    return outcome
                }
            }
        }
        return try results.all()
    }

    /// Outcomes written by several threads, each to its own slot.
    private final class Results: @unchecked Sendable {
        private var slots: [Result<Outcome, Error>?]
        private let lock = NSLock()

        init(count: Int) { slots = Array(repeating: nil, count: count) }

        func set(_ index: Int, _ body: () throws -> Outcome) {
            let result = Result(catching: body)
            lock.lock()
            slots[index] = result
            lock.unlock()
        }

        func all() throws -> [Outcome] { try slots.map { try $0!.get() } }
    }

    private static func drawIfAsked(_ outcome: Outcome, image: VisionImage, localizer: SaliencyLocalizer) throws {
        guard let folder = ProcessInfo.processInfo.environment["LOCALIZER_DRAW_DIR"] else { return }
        var picture = try AnnotatedImage(image)
        let thickness = max(2, min(picture.width, picture.height) / 150)
        let thin = max(1, thickness / 2)
        for box in outcome.truth { picture.drawRect(box, color: (40, 220, 40), thickness: thin) }
        if let hand = handBoxes[outcome.name] { picture.drawRect(hand, color: (255, 230, 0), thickness: thin) }
        for (rank, region) in outcome.regions.enumerated().reversed() {
            let color: (UInt8, UInt8, UInt8) = rank == 0 ? (255, 0, 0) : AnnotatedImage.color(for: rank + 2)
            picture.drawRect(region.frame, color: color, thickness: thickness)
            picture.drawText(
                "\(rank + 1) \(String(format: "%.2f", region.score))", x: Int(region.frame.minX),
                y: Int(region.frame.minY), scale: 1, background: color)
        }
        let base = URL(fileURLWithPath: folder).appendingPathComponent(outcome.name)
        try picture.pngData().write(to: base.appendingPathExtension("png"))

        let map = try localizer.saliency(of: image).map
        let zoom = 3
        var gray = [UInt8]()
        gray.reserveCapacity(map.width * map.height * zoom * zoom * 3)
        for y in 0..<(map.height * zoom) {
            for x in 0..<(map.width * zoom) {
                let byte = UInt8(min(max(map.values[(y / zoom) * map.width + x / zoom] * 255, 0), 255))
                gray += [byte, byte, byte]
            }
        }
        try PNGEncoder.encode(rgb: gray, width: map.width * zoom, height: map.height * zoom)
            .write(to: base.appendingPathExtension("map.png"))
    }
}
