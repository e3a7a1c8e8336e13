import Foundation
import Testing

@testable import OpenMLKitVision
@testable import VisionEvaluation

/// The tracker on small scenes built here: textured squares on a grey, lightly patterned picture.
@Suite("Object tracker")
struct TrackingTrackerTests {
    static let size = CGSize(width: 320, height: 240)

    /// A 320×240 picture with the given coloured, patterned squares drawn in order (later in front).
    static func picture(_ squares: [(box: CGRect, color: (UInt8, UInt8, UInt8))]) throws -> VisionImage {
        var canvas = RGBCanvas(width: 320, height: 240)
        for y in 0..<240 {
            for x in 0..<320 {
                let v = UInt8(90 + (x / 16 + y / 16) % 2 * 12)
                canvas.pixels[(y * 320 + x) * 3] = v
                canvas.pixels[(y * 320 + x) * 3 + 1] = v
                canvas.pixels[(y * 320 + x) * 3 + 2] = v
            }
        }
        for (box, color) in squares {
            let x0 = max(Int(box.minX), 0)
            let x1 = min(Int(box.maxX), 320)
            let y0 = max(Int(box.minY), 0)
            let y1 = min(Int(box.maxY), 240)
            guard x0 < x1, y0 < y1 else { continue }
            for y in y0..<y1 {
                for x in x0..<x1 {
                    // Stripes give each square a layout as well as a colour.
                    let stripe = ((x - Int(box.minX)) / 6) % 2 == 0
                    let o = (y * 320 + x) * 3
                    canvas.pixels[o] = stripe ? color.0 : color.0 / 2
                    canvas.pixels[o + 1] = stripe ? color.1 : color.1 / 2
                    canvas.pixels[o + 2] = stripe ? color.2 : color.2 / 2
                }
            }
        }
        return try canvas.visionImage()
    }

    static func observation(_ box: CGRect, in image: VisionImage?) throws -> TrackerObservation {
        TrackerObservation(
            frame: box, score: 0.8, appearance: try image.map { try AppearanceDescriptor(image: $0, region: box) })
    }

    /// Deterministic jitter of a few pixels.
    static func jittered(_ box: CGRect, _ random: inout SeededGenerator, amount: Double = 2) -> CGRect {
        box.insetBy(dx: random.uniform(-amount...amount), dy: random.uniform(-amount...amount))
            .offsetBy(dx: random.uniform(-amount...amount), dy: random.uniform(-amount...amount))
    }

    @Test("One object moving smoothly keeps one identifier; ages count frames from 0")
    func singleObject() {
        let tracker = ObjectTracker()
        var random = SeededGenerator(seed: 1)
        var ids = Set<Int>()
        for f in 0..<50 {
            let box = Self.jittered(CGRect(x: 20 + 5 * f, y: 80 + 1 * f, width: 50, height: 40), &random)
            let result = tracker.update([TrackerObservation(frame: box, score: 0.9)], imageSize: Self.size)
            #expect(result.count == 1 && result[0].observationIndex == 0)
            #expect(result[0].age == f)
            ids.insert(result[0].trackingID)
        }
        #expect(ids == [1])
    }

    @Test("An object missed for 3 frames keeps its identifier")
    func shortMiss() {
        let tracker = ObjectTracker()
        var seen = [Int]()
        for f in 0..<30 where !(10...12).contains(f) {
            let box = CGRect(x: 10 + 7 * f, y: 100, width: 40, height: 40)
            seen.append(
                contentsOf: tracker.update([TrackerObservation(frame: box, score: 0.9)], imageSize: Self.size).map(
                    \.trackingID))
        }
        #expect(Set(seen).count == 1)
    }

    @Test("Two objects crossing, the front one hiding the other, keep their identifiers")
    func crossing() throws {
        let tracker = ObjectTracker()
        var idOfRed = Set<Int>()
        var idOfBlue = Set<Int>()
        for f in 0..<40 {
            let red = CGRect(x: 20 + 7 * f, y: 90, width: 50, height: 50)
            let blue = CGRect(x: 250 - 7 * f, y: 96, width: 50, height: 50)
            let image = try Self.picture([(red, (220, 40, 40)), (blue, (40, 80, 230))])
            // The localizer does not see the red square while the blue one covers most of it.
            var observations = [try Self.observation(blue, in: image)]
            let redVisible = BoxGeometry.coverage(of: red, by: blue) < 0.5
            if redVisible { observations.append(try Self.observation(red, in: image)) }
            let result = tracker.update(observations, imageSize: Self.size)
            idOfBlue.insert(result[0].trackingID)
            if redVisible { idOfRed.insert(result[1].trackingID) }
        }
        #expect(idOfRed.count == 1 && idOfBlue.count == 1 && idOfRed != idOfBlue)
    }

    @Test("Two objects that turn back while hidden are told apart by appearance")
    func turnBackBehindOccluder() throws {
        // Both squares go behind a grey pillar (x 135...185) and come out the way they came, so the
        // motion prediction alone would give each the other's identifier.
        func positions(_ f: Int) -> (red: CGRect, blue: CGRect) {
            let step = f <= 14 ? f : 28 - f
            return (
                CGRect(x: 30 + 7 * step, y: 95, width: 40, height: 40),
                CGRect(x: 250 - 7 * step, y: 95, width: 40, height: 40)
            )
        }
        let pillar = CGRect(x: 135, y: 60, width: 50, height: 120)
        func run(appearance: Bool) throws -> (red: Set<Int>, blue: Set<Int>) {
            let tracker = ObjectTracker()
            var red = Set<Int>()
            var blue = Set<Int>()
            for f in 0...28 {
                let p = positions(f)
                let image = try Self.picture([
                    (p.red, (220, 40, 40)), (p.blue, (40, 80, 230)), (pillar, (128, 128, 128)),
                ])
                var observations = [TrackerObservation]()
                var who = [Bool]()  // true: red
                for (box, isRed) in [(p.red, true), (p.blue, false)]
                where BoxGeometry.coverage(of: box, by: pillar) < 0.5 {
                    observations.append(try Self.observation(box, in: appearance ? image : nil))
                    who.append(isRed)
                }
                for (assignment, isRed) in zip(tracker.update(observations, imageSize: Self.size), who) {
                    if isRed { red.insert(assignment.trackingID) } else { blue.insert(assignment.trackingID) }
                }
            }
            return (red, blue)
        }
        let withAppearance = try run(appearance: true)
        #expect(withAppearance.red.count == 1 && withAppearance.blue.count == 1)
        #expect(withAppearance.red != withAppearance.blue)
        // Without appearance the turn-back is not followed: the test exercises appearance.
        let motionOnly = try run(appearance: false)
        #expect(motionOnly.red.count > 1 || motionOnly.blue.count > 1)
    }

    @Test("A retired track's identifier is never reused, also after reset")
    func identifiersNeverReused() {
        var configuration = ObjectTracker.Configuration()
        configuration.maxMissedFrames = 5
        let tracker = ObjectTracker(configuration: configuration)
        var all = [Int]()
        let box = CGRect(x: 100, y: 100, width: 40, height: 40)
        for _ in 0..<5 {
            all += tracker.update([TrackerObservation(frame: box, score: 0.9)], imageSize: Self.size).map(\.trackingID)
        }
        for _ in 0..<7 { _ = tracker.update([], imageSize: Self.size) }
        #expect(tracker.trackCount == 0)
        // The same place again, after the track was retired: a new identifier.
        let again = tracker.update([TrackerObservation(frame: box, score: 0.9)], imageSize: Self.size)[0].trackingID
        #expect(again > all.max()!)
        tracker.reset()
        let afterReset = tracker.update([TrackerObservation(frame: box, score: 0.9)], imageSize: Self.size)
        #expect(afterReset[0].trackingID > again && afterReset[0].age == 0)
        #expect(Set(all).count == 1)
    }

    @Test("A sudden camera pan moving all objects together keeps their identifiers")
    func cameraPan() {
        // Four objects fixed in the world; the camera jumps 45 px (more than an object's width) at
        // frame 10 and pans on. No appearance: only the common-shift estimate can follow this.
        func run(estimate: Bool) -> [Set<Int>] {
            var configuration = ObjectTracker.Configuration()
            configuration.estimatesCameraMotion = estimate
            let tracker = ObjectTracker(configuration: configuration)
            let world = [(60, 50), (200, 60), (110, 150), (240, 160)].map {
                CGRect(x: $0.0, y: $0.1, width: 36, height: 36)
            }
            var ids = [Set<Int>](repeating: [], count: world.count)
            var random = SeededGenerator(seed: 3)
            for f in 0..<20 {
                let camera = (f < 10 ? 2.0 * Double(f) : 45 + 2.0 * Double(f), f < 10 ? 0 : 12.0)
                let observations = world.map {
                    TrackerObservation(
                        frame: Self.jittered($0.offsetBy(dx: -camera.0, dy: -camera.1), &random, amount: 1), score: 0.9)
                }
                for (k, a) in tracker.update(observations, imageSize: Self.size).enumerated() {
                    ids[k].insert(a.trackingID)
                }
            }
            return ids
        }
        #expect(run(estimate: true).allSatisfy { $0.count == 1 })
        #expect(run(estimate: false).contains { $0.count > 1 })
    }

    @Test("Label smoothing ranks consistently; one outlier frame does not flip the top label")
    func labelSmoothing() {
        let tracker = ObjectTracker()
        let id = tracker.update(
            [TrackerObservation(frame: CGRect(x: 10, y: 10, width: 50, height: 50), score: 1)], imageSize: Self.size)[0]
            .trackingID
        let cat = ObjectLabel(text: "cat", index: 3, confidence: 0.8)
        let dog = ObjectLabel(text: "dog", index: 5, confidence: 0.3)
        var top = [String]()
        for f in 1...16 {
            _ = tracker.update(
                [TrackerObservation(frame: CGRect(x: 10 + f, y: 10, width: 50, height: 50), score: 1)],
                imageSize: Self.size)
            let labels: [ObjectLabel]
            switch f {
            case 10:
                labels = [
                    ObjectLabel(text: "dog", index: 5, confidence: 0.95),
                    ObjectLabel(text: "cat", index: 3, confidence: 0.1),
                ]
            case 13...: labels = [ObjectLabel(text: "dog", index: 5, confidence: 0.9)]
            default: labels = [dog, cat]  // not sorted: the tracker ranks
            }
            let smoothed = tracker.smoothedLabels(labels, forTrack: id)
            #expect(zip(smoothed, smoothed.dropFirst()).allSatisfy { $0.confidence >= $1.confidence })
            #expect(smoothed.allSatisfy { (0...1).contains($0.confidence) })
            top.append(smoothed.first?.text ?? "")
        }
        #expect(top[0] == "cat")
        #expect(top[9] == "cat")  // frame 10, the outlier
        // From frame 13 on dog alone: decay 0.8 needs a few frames to overturn cat's history.
        #expect(top[12] == "cat" && top.last == "dog")
        // A second call in the same frame replaces the first.
        let once = tracker.smoothedLabels([dog], forTrack: id)
        let twice = tracker.smoothedLabels([dog], forTrack: id)
        #expect(once == twice)
        // An identifier that is no live track: labels come back ranked, nothing is remembered.
        let unknown = tracker.smoothedLabels([dog, cat], forTrack: 9999)
        #expect(unknown.map(\.text) == ["cat", "dog"])
    }

    @Test("A track is confirmed after confirmationHits pairings within confirmationWindow frames; flickers are not")
    func confirmation() {
        var configuration = ObjectTracker.Configuration()
        configuration.confirmationHits = 3
        configuration.confirmationWindow = 5
        configuration.maxMissedFramesTentative = 2
        let tracker = ObjectTracker(configuration: configuration)
        let steady = CGRect(x: 40, y: 60, width: 50, height: 50)
        let flicker = CGRect(x: 200, y: 100, width: 50, height: 50)
        // The steady object is reported from the start: in the stream's first two frames (the
        // warm-up) nothing can be confirmed yet, so every track counts; on the third it is confirmed.
        var confirmedSteady = [Bool]()
        var flickerIDs = Set<Int>()
        for f in 0..<16 {
            // The flicker is seen every third frame: twice within any 5 frames, never 3 times.
            var observations = [TrackerObservation(frame: steady, score: 0.9)]
            if f % 3 == 2 { observations.append(TrackerObservation(frame: flicker, score: 0.9)) }
            let result = tracker.update(observations, imageSize: Self.size)
            #expect(result.count == observations.count)
            confirmedSteady.append(result[0].isConfirmed)
            if result.count == 2 {
                #expect(!result[1].isConfirmed, "frame \(f)")
                flickerIDs.insert(result[1].trackingID)
            }
        }
        #expect(confirmedSteady.allSatisfy { $0 })
        // The flicker's gaps (2 frames) are within maxMissedFramesTentative: one tentative track throughout.
        #expect(flickerIDs.count == 1)

        // After the warm-up a new object is confirmed on its third consecutive sighting.
        let late = CGRect(x: 150, y: 20, width: 40, height: 40)
        let flags = (0..<4).map { _ in
            tracker.update(
                [TrackerObservation(frame: steady, score: 0.9), TrackerObservation(frame: late, score: 0.9)],
                imageSize: Self.size)[1].isConfirmed
        }
        #expect(flags == [false, false, true, true])
        // reset() starts a new stream, with a new warm-up.
        tracker.reset()
        #expect(tracker.update([TrackerObservation(frame: late, score: 0.9)], imageSize: Self.size)[0].isConfirmed)
    }

    @Test("A motion cue's observations are confirmed after movingConfirmationHits; others after confirmationHits")
    func movingConfirmation() {
        var configuration = ObjectTracker.Configuration()
        configuration.confirmationHits = 4
        configuration.confirmationWindow = 6
        configuration.movingConfirmationHits = 2
        configuration.movingConfirmationWindow = 3
        configuration.maxMissedFramesTentative = 5
        let tracker = ObjectTracker(configuration: configuration)
        for _ in 0..<4 { _ = tracker.update([], imageSize: Self.size) }  // past the warm-up
        let moving = CGRect(x: 40, y: 60, width: 50, height: 50)
        let still = CGRect(x: 200, y: 100, width: 50, height: 50)
        var flags = [(moving: Bool, still: Bool)]()
        for _ in 0..<4 {
            let result = tracker.update(
                [
                    TrackerObservation(frame: moving, score: 0.9, isMoving: true),
                    TrackerObservation(frame: still, score: 0.9),
                ], imageSize: Self.size)
            flags.append((result[0].isConfirmed, result[1].isConfirmed))
        }
        #expect(flags.map(\.moving) == [false, true, true, true])
        #expect(flags.map(\.still) == [false, false, false, true])
        // Two sightings must fall within the moving window (3 frames): seen, unseen twice, seen is
        // not enough (the tentative track is kept through the gap: maxMissedFramesTentative 5).
        let late = CGRect(x: 120, y: 160, width: 40, height: 40)
        var lateFlags = [Bool]()
        for seen in [true, false, false, true, false, true] {
            let result = tracker.update(
                seen ? [TrackerObservation(frame: late, score: 0.9, isMoving: true)] : [], imageSize: Self.size)
            if seen { lateFlags.append(result[0].isConfirmed) }
        }
        #expect(lateFlags == [false, false, true])
    }

    @Test("confirmationHits 1 confirms every track at once; 3 in a window of 3 needs consecutive sightings")
    func confirmationSettings() {
        var immediate = ObjectTracker.Configuration()
        immediate.confirmationHits = 1
        let a = ObjectTracker(configuration: immediate)
        for f in 0..<6 {
            let boxes = (0...f).map { CGRect(x: 10 + 50 * $0, y: 100, width: 30, height: 30) }
            let result = a.update(boxes.map { TrackerObservation(frame: $0, score: 0.9) }, imageSize: Self.size)
            #expect(result.allSatisfy { $0.isConfirmed }, "frame \(f)")
        }
        var strict = ObjectTracker.Configuration()
        strict.confirmationHits = 3
        strict.confirmationWindow = 3
        let b = ObjectTracker(configuration: strict)
        let box = CGRect(x: 100, y: 100, width: 40, height: 40)
        for _ in 0..<3 { _ = b.update([], imageSize: Self.size) }  // past the warm-up
        let pattern = [true, true, false, true, true, true]
        var flags = [Bool]()
        for seen in pattern {
            let result = b.update(seen ? [TrackerObservation(frame: box, score: 0.9)] : [], imageSize: Self.size)
            if seen { flags.append(result[0].isConfirmed) }
        }
        // Seen in frames 0, 1, 3, 4, 5: three in a row first at frame 5.
        #expect(flags == [false, false, false, false, true])
    }

    @Test("Weak observations continue tracks but start none (newTrackMinimumScore)")
    func weakObservations() {
        var configuration = ObjectTracker.Configuration()
        configuration.newTrackMinimumScore = 0.5
        configuration.confirmationHits = 1
        let tracker = ObjectTracker(configuration: configuration)
        let strong = CGRect(x: 40, y: 60, width: 50, height: 50)
        let weak = CGRect(x: 200, y: 100, width: 50, height: 50)
        let first = tracker.update(
            [TrackerObservation(frame: strong, score: 0.9), TrackerObservation(frame: weak, score: 0.2)],
            imageSize: Self.size)
        #expect(first[0].isConfirmed && !first[1].isConfirmed)
        #expect(tracker.trackCount == 1)
        // The strong object seen weakly afterwards keeps its track and identifier.
        for _ in 0..<5 {
            let next = tracker.update(
                [TrackerObservation(frame: strong, score: 0.2), TrackerObservation(frame: weak, score: 0.2)],
                imageSize: Self.size)
            #expect(next[0].trackingID == first[0].trackingID && next[0].isConfirmed)
            #expect(!next[1].isConfirmed && next[1].trackingID != first[1].trackingID)
        }
        #expect(tracker.trackCount == 1)
    }

    @Test("A track whose smoothed score is below minimumReportedScore is tracked but not reported")
    func reportedScore() {
        var configuration = ObjectTracker.Configuration()
        configuration.newTrackMinimumScore = 0
        configuration.minimumReportedScore = 0.2
        let tracker = ObjectTracker(configuration: configuration)
        let strong = CGRect(x: 40, y: 60, width: 50, height: 50)
        let weak = CGRect(x: 200, y: 100, width: 50, height: 50)
        var flags = [(strong: Bool, weak: Bool)]()
        var ids = Set<Int>()
        for f in 0..<20 {
            // The strong object fades after frame 9: 0.9 → 0.05; its average falls below 0.2 in 5 frames.
            let result = tracker.update(
                [
                    TrackerObservation(frame: strong, score: f < 10 ? 0.9 : 0.05),
                    TrackerObservation(frame: weak, score: 0.1),
                ], imageSize: Self.size)
            flags.append((result[0].isConfirmed, result[1].isConfirmed))
            ids.insert(result[0].trackingID)
        }
        #expect(flags.allSatisfy { !$0.weak })
        #expect(flags[0..<12].allSatisfy { $0.strong })
        #expect(flags[16...].allSatisfy { !$0.strong })
        #expect(ids.count == 1, "the faded object keeps its track")
        #expect(tracker.trackCount == 2)
    }

    @Test("A box around two confirmed tracks is ignored (ignoresGroups); the tracks keep their identifiers")
    func groupBoxes() {
        let left = CGRect(x: 40, y: 80, width: 60, height: 60)
        let right = CGRect(x: 130, y: 80, width: 60, height: 60)
        let group = left.union(right).insetBy(dx: -5, dy: -5)
        for ignoring in [true, false] {
            var configuration = ObjectTracker.Configuration()
            configuration.ignoresGroups = ignoring
            configuration.estimatesCameraMotion = false
            let tracker = ObjectTracker(configuration: configuration)
            var ids = [Int]()
            for _ in 0..<6 {
                ids = tracker.update(
                    [TrackerObservation(frame: left, score: 0.9), TrackerObservation(frame: right, score: 0.9)],
                    imageSize: Self.size
                ).map(\.trackingID)
            }
            let merged = tracker.update([TrackerObservation(frame: group, score: 0.9)], imageSize: Self.size)[0]
            if ignoring {
                #expect(!merged.isConfirmed && !ids.contains(merged.trackingID))
                #expect(tracker.trackCount == 2)
            } else {
                // Without the rule the group box is paired with one of the tracks (or starts one).
                #expect(ids.contains(merged.trackingID) || tracker.trackCount == 3)
            }
            let after = tracker.update(
                [TrackerObservation(frame: left, score: 0.9), TrackerObservation(frame: right, score: 0.9)],
                imageSize: Self.size)
            if ignoring { #expect(after.map(\.trackingID) == ids && after.allSatisfy { $0.isConfirmed }) }
        }
    }

    @Test("Odd input does not crash: empty frames, NaN, infinite, zero-size, huge counts")
    func oddInput() {
        let tracker = ObjectTracker()
        #expect(tracker.update([], imageSize: Self.size).isEmpty)
        let odd: [CGRect] = [
            CGRect(x: CGFloat.nan, y: 10, width: 10, height: 10),
            CGRect(x: 10, y: 10, width: CGFloat.infinity, height: 10),
            CGRect(x: 10, y: 10, width: 0, height: 0),
            CGRect(x: 50, y: 50, width: -20, height: -20),  // standardised to (30, 30, 20, 20)
            CGRect(x: -1e300, y: 1e300, width: 5, height: 5),
            CGRect(x: 400, y: 300, width: 50, height: 50),  // outside the picture
            CGRect(x: 300, y: 200, width: 100, height: 100),  // partly outside: clipped
        ]
        for imageSize in [Self.size, .zero, CGSize(width: CGFloat.nan, height: 5)] {
            let result = tracker.update(odd.map { TrackerObservation(frame: $0, score: .nan) }, imageSize: imageSize)
            #expect(result.map(\.observationIndex) == Array(odd.indices))
            #expect(Set(result.map(\.trackingID)).count == odd.count)
            #expect(result.allSatisfy { $0.frame.minX.isFinite && $0.frame.width.isFinite })
        }
        let clipped = tracker.update([TrackerObservation(frame: odd[6], score: 1)], imageSize: Self.size)[0].frame
        #expect(clipped.maxX <= 320 && clipped.maxY <= 240)
        // Thousands of observations: the best-scoring 100 are tracked, every one gets an identifier.
        let many = (0..<3000).map { i in
            TrackerObservation(
                frame: CGRect(x: i % 300, y: (i / 300) * 20, width: 8, height: 8), score: Float(i % 7) / 7)
        }
        let result = tracker.update(many, imageSize: Self.size)
        #expect(result.count == many.count && Set(result.map(\.trackingID)).count == many.count)
        #expect(tracker.trackCount <= tracker.configuration.maxTracks)
        _ = tracker.smoothedLabels([ObjectLabel(text: "x", index: 0, confidence: .nan)], forTrack: result[0].trackingID)
    }

    @Test("Appearance: identical regions score 1, different colours low, bad regions throw")
    func appearance() throws {
        let red = CGRect(x: 20, y: 20, width: 60, height: 60)
        let blue = CGRect(x: 200, y: 100, width: 60, height: 60)
        let image = try Self.picture([(red, (220, 40, 40)), (blue, (40, 80, 230))])
        let a = try AppearanceDescriptor(image: image, region: red)
        let b = try AppearanceDescriptor(image: image, region: blue)
        let shifted = try AppearanceDescriptor(image: image, region: red.offsetBy(dx: 2, dy: 1))
        #expect(abs(a.similarity(to: a) - 1) < 1e-5)
        // Fine 6-px stripes are the worst case for the 4×4 layout term (a 2-px shift moves a stripe
        // across cell borders): measured 0.60, still clearly above the other square's score.
        #expect(a.similarity(to: shifted) > 0.5)
        #expect(a.similarity(to: b) < 0.4)
        #expect(abs(a.similarity(to: b) - b.similarity(to: a)) < 1e-6)
        #expect(throws: VisionError.self) {
            try AppearanceDescriptor(image: image, region: CGRect(x: 400, y: 0, width: 10, height: 10))
        }
        #expect(throws: VisionError.self) {
            try AppearanceDescriptor(image: image, region: CGRect(x: CGFloat.nan, y: 0, width: 10, height: 10))
        }
        _ = try AppearanceDescriptor(image: image, region: CGRect(x: 300, y: 220, width: 100, height: 100))
    }
}
