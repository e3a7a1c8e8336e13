import Foundation
import Testing

@testable import OpenMLKitVision
@testable import VisionEvaluation

/// The generated benchmark sequences and the tracker's figures on them with the oracle detector.
@Suite("Tracking benchmark", .enabled(if: TestImages.hasShared, "../shared is not beside the checkout"))
struct TrackingBenchmarkTests {
    let generator = SequenceGenerator(imagesFolder: TestImages.images.path, frameCount: 40)

    @Test("Generation is deterministic and the ground truth is consistent", arguments: TrackingScenario.allCases)
    func generator(_ scenario: TrackingScenario) throws {
        let a = try generator.sequence(scenario, variant: 1)
        let b = try SequenceGenerator(imagesFolder: TestImages.images.path, frameCount: 40).sequence(
            scenario, variant: 1)
        #expect(a.name == b.name && a.frames.count == 40 && a.width == 320 && a.height == 240)
        for (x, y) in zip(a.frames, b.frames) {
            #expect(x.objects == y.objects)
            #expect(x.image.buffer.bytes == y.image.buffer.bytes)
        }
        let picture = CGRect(x: 0, y: 0, width: 320, height: 240)
        var ids = Set<Int>()
        for frame in a.frames {
            #expect(frame.image.width == 320 && frame.image.height == 240)
            #expect(Set(frame.objects.map(\.id)).count == frame.objects.count)
            for object in frame.objects {
                #expect(picture.contains(object.frame) && object.frame.width >= 1)
                #expect((0...1).contains(object.visibility))
                #expect(object.isIgnored == (object.visibility < SequenceGenerator.minimumVisibility))
                ids.insert(object.id)
            }
        }
        #expect(!ids.isEmpty)
        // Another variant is another sequence.
        let other = try generator.sequence(scenario, variant: 2)
        #expect(other.frames[5].image.buffer.bytes != a.frames[5].image.buffer.bytes)
    }

    @Test("Appearance on real photos: a jittered box still matches its object, not the others")
    func appearanceOnPhotos() throws {
        var descriptors = [(AppearanceDescriptor, AppearanceDescriptor)]()
        for photo in BenchmarkPhotos.patches {
            let image = try generator.load(photo.name)
            let s = Double(image.width) / Double(photo.width)
            let o = photo.objects[0]
            let box = CGRect(x: o.minX * s, y: o.minY * s, width: o.width * s, height: o.height * s)
            let jittered = box.insetBy(dx: 0.03 * box.width, dy: -0.02 * box.height).offsetBy(
                dx: 0.03 * box.width, dy: 0)
            descriptors.append(
                (
                    try AppearanceDescriptor(image: image, region: box),
                    try AppearanceDescriptor(image: image, region: jittered)
                ))
        }
        var worstSame: Float = 1
        var bestOther: Float = 0
        for (i, (a, a2)) in descriptors.enumerated() {
            worstSame = min(worstSame, a.similarity(to: a2))
            for (j, (b, _)) in descriptors.enumerated() where j != i { bestOther = max(bestOther, a.similarity(to: b)) }
        }
        // Measured: worst same-object score 0.88 (box moved by 3 % and resized), best score between
        // two different objects 0.81.
        #expect(worstSame > 0.85)
        #expect(bestOther < worstSame)
    }

    @Test("Objects leave the picture and come back under the same identifier")
    func leavingAndReentering() throws {
        // Over the 80-frame crossing sequences some object is absent for a while and then back.
        let long = SequenceGenerator(imagesFolder: TestImages.images.path, frameCount: 80)
        var reentries = 0
        for variant in 0..<3 {
            let sequence = try long.sequence(.crossing, variant: variant)
            var lastSeen = [Int: Int]()
            for frame in sequence.frames {
                for object in frame.objects {
                    if let last = lastSeen[object.id], frame.index - last > 1 { reentries += 1 }
                    lastSeen[object.id] = frame.index
                }
            }
        }
        #expect(reentries > 0)
    }

    // The oracle benchmark (2 sequences of 60 frames per scenario: MOTA ≥ 0.65, IDF1 ≥ 0.8, at most
    // 8 identity switches) runs in the release-build evaluation of `.ci/run`: `mlkit track-bench
    // --detector oracle --sequences 2 --min-mota 0.65 --min-idf1 0.8 --max-id-switches 8`.

    @Test("The benchmark scores a detector closure and calls reset once per sequence")
    func closureRun() throws {
        let benchmark = TrackingBenchmark(
            generator: SequenceGenerator(imagesFolder: TestImages.images.path, frameCount: 10), scenarios: [.pan],
            sequencesPerScenario: 2)
        var resets = 0
        var frames = 0
        let report = try benchmark.run(
            detector: { _ in
                frames += 1
                return [DetectedObject(frame: CGRect(x: 0, y: 0, width: 10, height: 10), trackingID: nil, labels: [])]
            }, reset: { resets += 1 })
        #expect(resets == 2 && frames == 20)
        #expect(report.total.falsePositives == 20 && report.total.frames == 20)
        // The run's time per frame is its sequences' times put together (frame-weighted), so the
        // figures the table prints agree with each other.
        let sequences = report.scenarios.flatMap(\.sequences)
        #expect(sequences.count == 2 && sequences.allSatisfy { $0.millisecondsPerFrame.isFinite && $0.millisecondsPerFrame > 0 })
        let summed = sequences.reduce(0) { $0 + $1.millisecondsPerFrame * Double($1.metrics.frames) }
        #expect(abs(summed - report.millisecondsPerFrame * Double(report.total.frames)) <= 1e-9 * max(summed, 1))
        let json = try JSONEncoder().encode(report)
        #expect(String(decoding: json, as: UTF8.self).contains("\"idf1\""))
    }
}
