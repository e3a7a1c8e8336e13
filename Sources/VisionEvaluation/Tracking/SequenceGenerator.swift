import Foundation
import OpenMLKitVision

/// Generates the tracking benchmark's frame sequences, with ground truth, from real photos.
///
/// Deterministic: a scenario and variant number always give the same frames (the random choices
/// come from a ``SeededGenerator`` seeded by both). Photos are read from `imagesFolder` (normally
/// `../shared/images`), decoded once and cached. See ``TrackingScenario`` for what each scenario
/// shows. An object counts as ground truth in every frame it is at least partly in the picture; it
/// is "don't care" (``SyntheticFrame/Object/isIgnored``) while less than ``minimumVisibility`` of it
/// can be seen, and keeps its identifier when it comes back.
///
/// Not thread-safe (the photo cache); use one generator per thread.
public final class SequenceGenerator {
    /// Objects less visible than this (hidden or outside the picture) are "don't care".
    public static let minimumVisibility = 0.4

    /// The folder the photos are read from.
    public let imagesFolder: String
    /// Frame width in pixels.
    public let width: Int
    /// Frame height in pixels.
    public let height: Int
    /// Frames per sequence.
    public let frameCount: Int
    /// Standard deviation of the sensor noise added to every pixel of every frame, in 8-bit levels
    /// (0: none). Without it a still background is identical from frame to frame, which real video
    /// never is; a motion cue must be checked with it.
    public let noise: Double

    private var photos: [String: VisionImage] = [:]

    /// A generator of `width` × `height` sequences of `frameCount` frames from the photos in `imagesFolder`.
    ///
    /// Sizes are clamped to 64...1920 × 48...1080, the frame count to 2...10 000 and `noise` to 0...64
    /// (NaN: 0).
    public init(
        imagesFolder: String, width: Int = 320, height: Int = 240, frameCount: Int = 60, noise: Double = 0
    ) {
        self.imagesFolder = imagesFolder
        self.noise = noise.isNaN ? 0 : min(max(noise, 0), 64)
        self.width = min(max(width, 64), 1920)
        self.height = min(max(height, 48), 1080)
        self.frameCount = min(max(frameCount, 2), 10_000)
    }

    /// Sequence `variant` (0, 1, 2, ...) of `scenario`.
    ///
    /// - Throws: ``VisionError`` when a photo cannot be read or decoded.
    public func sequence(_ scenario: TrackingScenario, variant: Int) throws -> SyntheticSequence {
        let scenarioNumber = TrackingScenario.allCases.firstIndex(of: scenario) ?? 0
        var random = SeededGenerator(
            seed: 0x7AC4_0000 &+ UInt64(scenarioNumber) &* 1_000 &+ UInt64(truncatingIfNeeded: variant))
        let scene: Scene
        switch scenario {
        case .pan: scene = try panScene(variant: variant, random: &random)
        case .crossing: scene = try crossingScene(variant: variant, random: &random)
        case .mixed: scene = try mixedScene(variant: variant, random: &random)
        }
        return SyntheticSequence(
            name: "\(scenario.rawValue)-\(variant) (\(scene.description))", scenario: scenario, width: width,
            height: height, frames: try render(scene))
    }

    /// What is in a sequence before it is drawn: a world picture, a camera path over it, and objects.
    struct Scene {
        struct Sprite {
            let patch: RGBCanvas
            let area: Int
            /// Top-left corner in world pixels, per frame.
            let path: [(x: Double, y: Double)]
        }

        var description: String
        var world: RGBCanvas
        /// Top-left corner of the picture in world pixels, per frame.
        var camera: [(x: Double, y: Double)]
        /// Objects fixed in the world (the panned photo's), in world pixels.
        var fixed: [CGRect] = []
        /// Moving objects, drawn in order (later ones in front).
        var sprites: [Sprite] = []
    }

    // MARK: - Scenarios

    private func panScene(variant: Int, random: inout SeededGenerator) throws -> Scene {
        let photo = BenchmarkPhotos.panned[abs(variant) % BenchmarkPhotos.panned.count]
        let image = try load(photo.name)
        let (pw, ph) = (Double(image.width), Double(image.height))
        // Objects about half the picture's height, but the world always a good deal larger than the picture.
        let tallest = photo.objects.map { Double($0.height) * ph / Double(photo.height) }.max() ?? ph
        let cover = max(1.35 * Double(width) / pw, 1.35 * Double(height) / ph)
        let scale = min(max(0.55 * Double(height) / tallest, cover), 4 * Double(width) / pw)
        let (ww, wh) = (Int((pw * scale).rounded()), Int((ph * scale).rounded()))
        let world = try RGBCanvas(image: image, width: ww, height: wh)
        // The measured boxes are in the photo's pixels at the size it had when measured.
        let (sx, sy) = (Double(ww) / Double(photo.width), Double(wh) / Double(photo.height))
        let objects = photo.objects.map {
            CGRect(x: $0.minX * sx, y: $0.minY * sy, width: $0.width * sx, height: $0.height * sy)
        }
        let camera = Self.cameraPath(
            frames: frameCount, world: (ww, wh), window: (width, height), random: &random)
        return Scene(description: photo.name, world: world, camera: camera, fixed: objects)
    }

    private func crossingScene(variant: Int, random: inout SeededGenerator) throws -> Scene {
        let name = BenchmarkPhotos.quietBackgrounds[abs(variant) % BenchmarkPhotos.quietBackgrounds.count]
        let world = try RGBCanvas(image: try load(name), width: width, height: height)
            .blurred(radius: max(2, width / 80)).dimmed(gain: 0.35, offset: 25)
        let count = 3 + abs(variant) % 3
        let frame = CGRect(x: 0, y: 0, width: width, height: height)
        let sprites = try makeSprites(count: count, variant: variant, area: frame, random: &random)
        return Scene(
            description: ([name] + sprites.names).joined(separator: ", "), world: world,
            camera: Array(repeating: (0, 0), count: frameCount), sprites: sprites.sprites)
    }

    private func mixedScene(variant: Int, random: inout SeededGenerator) throws -> Scene {
        let name = BenchmarkPhotos.busyBackgrounds[abs(variant) % BenchmarkPhotos.busyBackgrounds.count]
        let (ww, wh) = (width * 8 / 5, height * 7 / 5)
        let world = try RGBCanvas(image: try load(name), width: ww, height: wh).dimmed(gain: 0.6, offset: 20)
        let camera = Self.cameraPath(frames: frameCount, world: (ww, wh), window: (width, height), random: &random)
        // The objects start around where the camera starts, and roam the whole world.
        let start = CGRect(x: camera[0].x, y: camera[0].y, width: Double(width), height: Double(height))
        let sprites = try makeSprites(
            count: 3 + abs(variant) % 2, variant: variant, area: start,
            bounds: CGRect(x: 0, y: 0, width: ww, height: wh), random: &random)
        return Scene(
            description: ([name] + sprites.names).joined(separator: ", "), world: world, camera: camera,
            sprites: sprites.sprites)
    }

    /// `count` patches of different photos moving in `area` (the picture in world pixels) and bouncing
    /// off `bounds` (default: `area` grown by a patch's size, so that patches leave and come back).
    /// The first two start on a collision course, so that every sequence has a crossing.
    private func makeSprites(
        count: Int, variant: Int, area: CGRect, bounds: CGRect? = nil, random: inout SeededGenerator
    ) throws -> (sprites: [Scene.Sprite], names: [String]) {
        let unit = Double(width) / 320
        var sprites = [Scene.Sprite]()
        var names = [String]()
        for k in 0..<count {
            let photo = BenchmarkPhotos.patches[(abs(variant) * 3 + k) % BenchmarkPhotos.patches.count]
            let image = try load(photo.name)
            let (sx, sy) = (Double(image.width) / Double(photo.width), Double(image.height) / Double(photo.height))
            let box = photo.objects[0]
            let region = CGRect(
                x: (box.minX + 0.1 * box.width) * sx, y: (box.minY + 0.1 * box.height) * sy,
                width: 0.8 * box.width * sx, height: 0.8 * box.height * sy)
            let aspect = min(max(Double(region.width / region.height), 0.7), 1.4)
            let w = Int((random.uniform(46...78) * unit).rounded())
            let h = Int((Double(w) / aspect).rounded())
            let patch = try RGBCanvas(image: image, region: region, width: w, height: h)
            let speed = random.uniform(1.5...4.0) * unit
            var start: (x: Double, y: Double)
            var velocity: (x: Double, y: Double)
            if k < 2 {
                // Towards each other along the middle of the picture.
                let y = Double(area.midY) - Double(h) / 2 + random.uniform(-8...8) * unit
                start =
                    k == 0
                    ? (Double(area.minX) + 0.05 * Double(area.width), y)
                    : (Double(area.maxX) - 0.05 * Double(area.width) - Double(w), y)
                velocity = (k == 0 ? speed : -speed, random.uniform(-0.3...0.3) * unit)
            } else {
                start = (
                    random.uniform(Double(area.minX)...(Double(area.maxX) - Double(w))),
                    random.uniform(Double(area.minY)...(Double(area.maxY) - Double(h)))
                )
                velocity = Self.randomVelocity(speed: speed, random: &random)
            }
            let walls = bounds ?? area.insetBy(dx: -CGFloat(w) * 1.1, dy: -CGFloat(h) * 1.1)
            let path = Self.bouncingPath(
                frames: frameCount, start: start, velocity: velocity, size: (w, h), bounds: walls)
            sprites.append(Scene.Sprite(patch: patch, area: RGBCanvas.ellipseArea(width: w, height: h), path: path))
            names.append(photo.name)
        }
        return (sprites, names)
    }

    // MARK: - Drawing

    private func render(_ scene: Scene) throws -> [SyntheticFrame] {
        let picture = CGRect(x: 0, y: 0, width: width, height: height)
        var frames = [SyntheticFrame]()
        frames.reserveCapacity(frameCount)
        for f in 0..<frameCount {
            let cx = Int(scene.camera[f].x.rounded())
            let cy = Int(scene.camera[f].y.rounded())
            var canvas = scene.world.window(x: cx, y: cy, width: width, height: height)
            var owner = [Int](repeating: -1, count: width * height)
            var origins = [(x: Int, y: Int)]()
            for (k, sprite) in scene.sprites.enumerated() {
                let origin = (Int(sprite.path[f].x.rounded()) - cx, Int(sprite.path[f].y.rounded()) - cy)
                origins.append(origin)
                canvas.pasteEllipse(sprite.patch, x: origin.0, y: origin.1, owner: k, ownerMap: &owner)
            }
            var visible = [Int](repeating: 0, count: scene.sprites.count)
            for o in owner where o >= 0 { visible[o] += 1 }

            var objects = [SyntheticFrame.Object]()
            func add(id: Int, full: CGRect, visibility: Double) {
                let clipped = full.intersection(picture)
                guard !clipped.isNull, clipped.width >= 1, clipped.height >= 1 else { return }
                objects.append(
                    SyntheticFrame.Object(
                        id: id, frame: clipped, visibility: visibility,
                        isIgnored: visibility < SequenceGenerator.minimumVisibility))
            }
            for (k, box) in scene.fixed.enumerated() {
                let full = box.offsetBy(dx: -CGFloat(cx), dy: -CGFloat(cy))
                add(id: k + 1, full: full, visibility: BoxGeometry.coverage(of: full, by: picture))
            }
            for (k, sprite) in scene.sprites.enumerated() {
                let full = CGRect(
                    x: origins[k].x, y: origins[k].y, width: sprite.patch.width, height: sprite.patch.height)
                add(
                    id: scene.fixed.count + k + 1, full: full,
                    visibility: Double(visible[k]) / Double(max(sprite.area, 1)))
            }
            if noise > 0 {
                // Fresh noise in every frame, seeded by the frame, so sequences stay deterministic.
                var random = SeededGenerator(seed: 0x5E45_0000 &+ UInt64(f))
                for i in canvas.pixels.indices {
                    let value = Double(canvas.pixels[i]) + noise * random.gaussian()
                    canvas.pixels[i] = UInt8(min(max(value.rounded(), 0), 255))
                }
            }
            frames.append(SyntheticFrame(index: f, image: try canvas.visionImage(), objects: objects))
        }
        return frames
    }

    /// The photo `name` from the images folder, decoded once.
    func load(_ name: String) throws -> VisionImage {
        if let image = photos[name] { return image }
        let image = try VisionImage(
            contentsOfFile: URL(fileURLWithPath: imagesFolder).appendingPathComponent(name).path)
        photos[name] = image
        return image
    }
}
