import Foundation
import OpenMLKitVision

/// The motions of generated sequences: a panning, shaking camera and bouncing objects.
extension SequenceGenerator {
    /// Top-left corners of the camera window over a world of `world` size, one per frame.
    ///
    /// The camera moves in segments of 12–30 frames, each with its own velocity (1.5–6 px/frame
    /// sideways, up to 2.5 px/frame up or down), reached over 4 frames; it turns back at the world's
    /// edges; and in about 4 % of frames it jumps 6–14 px and stays there (a hand shaking).
    static func cameraPath(
        frames: Int, world: (width: Int, height: Int), window: (width: Int, height: Int),
        random: inout SeededGenerator
    ) -> [(x: Double, y: Double)] {
        let maxX = Double(max(world.width - window.width, 0))
        let maxY = Double(max(world.height - window.height, 0))
        var x = random.uniform(0...maxX)
        var y = random.uniform(0...maxY)
        var velocity = (x: 0.0, y: 0.0)
        var target = velocity
        var segmentLeft = 0
        var path = [(x: Double, y: Double)]()
        for _ in 0..<frames {
            if segmentLeft == 0 {
                segmentLeft = Int(random.uniform(12...30))
                let sign: Double = random.chance(0.5) ? 1 : -1
                target = (sign * random.uniform(1.5...6), random.uniform(-2.5...2.5))
            }
            segmentLeft -= 1
            velocity.x += (target.x - velocity.x) / 4
            velocity.y += (target.y - velocity.y) / 4
            x += velocity.x
            y += velocity.y
            if random.chance(0.04) {
                x += (random.chance(0.5) ? 1 : -1) * random.uniform(6...14)
                y += random.uniform(-8...8)
            }
            // Turn back at the edges of the world.
            if x < 0 || x > maxX {
                x = min(max(x, 0), maxX)
                velocity.x = -velocity.x
                target.x = -target.x
            }
            if y < 0 || y > maxY {
                y = min(max(y, 0), maxY)
                velocity.y = -velocity.y
                target.y = -target.y
            }
            path.append((x, y))
        }
        return path
    }

    /// Top-left corners of a `size` box moving from `start` at constant `velocity`, bouncing off the
    /// walls of `bounds` (which may reach past the picture, so that the box leaves and comes back).
    static func bouncingPath(
        frames: Int, start: (x: Double, y: Double), velocity: (x: Double, y: Double),
        size: (width: Int, height: Int), bounds: CGRect
    ) -> [(x: Double, y: Double)] {
        var (x, y) = start
        var (vx, vy) = velocity
        let maxX = Double(bounds.maxX) - Double(size.width)
        let maxY = Double(bounds.maxY) - Double(size.height)
        var path = [(x: Double, y: Double)]()
        for _ in 0..<frames {
            path.append((x, y))
            x += vx
            y += vy
            if x < Double(bounds.minX) || x > maxX {
                vx = -vx
                x = min(max(x, Double(bounds.minX)), maxX)
            }
            if y < Double(bounds.minY) || y > maxY {
                vy = -vy
                y = min(max(y, Double(bounds.minY)), maxY)
            }
        }
        return path
    }

    /// A velocity of `speed` px/frame in a random direction, kept away from the vertical (the
    /// pictures are wider than tall, so mostly-horizontal motion makes for more crossings).
    static func randomVelocity(speed: Double, random: inout SeededGenerator) -> (x: Double, y: Double) {
        let angle = random.uniform(-0.9...0.9) + (random.chance(0.5) ? 0 : Double.pi)
        return (speed * cos(angle), speed * sin(angle))
    }
}
