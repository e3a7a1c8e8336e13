import Foundation

/// A constant-velocity Kalman filter over a box's centre x, centre y, width and height.
///
/// The state is (value, velocity) for each of the four coordinates. Process and measurement noise
/// are diagonal and proportional to the box's size (a box twice as large moves and jitters twice
/// as many pixels), so the 8-dimensional filter separates exactly into four independent 2-state
/// filters, which is what is stored: no matrix library, a handful of multiplications per frame.
struct BoxKalmanFilter: Sendable {
    /// One coordinate: its value, its velocity per frame and their 2 × 2 covariance.
    struct Axis: Sendable {
        var value: Double
        var velocity: Double
        var varValue: Double
        var covariance: Double
        var varVelocity: Double

        mutating func predict(processValue: Double, processVelocity: Double) {
            value += velocity
            // P ← F P Fᵀ + Q with F = [[1, 1], [0, 1]].
            varValue += 2 * covariance + varVelocity + processValue
            covariance += varVelocity
            varVelocity += processVelocity
        }

        mutating func update(measurement: Double, noise: Double) {
            let innovation = measurement - value
            let s = varValue + noise
            guard s > 0, s.isFinite else { return }
            let gainValue = varValue / s
            let gainVelocity = covariance / s
            value += gainValue * innovation
            velocity += gainVelocity * innovation
            // P ← (I − K H) P, written out for H = [1, 0].
            let (pv, pc, pw) = (varValue, covariance, varVelocity)
            varValue = (1 - gainValue) * pv
            covariance = (1 - gainValue) * pc
            varVelocity = pw - gainVelocity * pc
        }

        /// Squared innovation over its variance: this coordinate's term of the Mahalanobis distance.
        func normalizedInnovation(_ measurement: Double, noise: Double) -> Double {
            let d = measurement - value
            return d * d / max(varValue + noise, 1e-9)
        }
    }

    /// Noise levels, as fractions of the box's size (see ``ObjectTracker/Configuration``).
    struct Noise: Sendable {
        var position: Double
        var velocity: Double
        var measurement: Double
        var initialVelocity: Double
    }

    var x: Axis
    var y: Axis
    var width: Axis
    var height: Axis
    let noise: Noise

    /// A filter at `box` with unknown velocity.
    init(box: CGRect, noise: Noise) {
        self.noise = noise
        let s = max(BoxGeometry.scale(box), 1)
        let pos = pow(2 * noise.measurement * s, 2)
        let vel = pow(noise.initialVelocity * s, 2)
        // Size changes much more slowly than position; its velocity starts far more certain.
        x = Axis(value: Double(box.midX), velocity: 0, varValue: pos, covariance: 0, varVelocity: vel)
        y = Axis(value: Double(box.midY), velocity: 0, varValue: pos, covariance: 0, varVelocity: vel)
        width = Axis(value: Double(box.width), velocity: 0, varValue: pos, covariance: 0, varVelocity: vel / 16)
        height = Axis(value: Double(box.height), velocity: 0, varValue: pos, covariance: 0, varVelocity: vel / 16)
    }

    /// The box the state describes (sizes kept at least one pixel).
    var box: CGRect {
        BoxGeometry.rect(centerX: x.value, centerY: y.value, width: max(width.value, 1), height: max(height.value, 1))
    }

    /// The current size scale (geometric mean of width and height), at least one pixel.
    var scale: Double { max((max(width.value, 1) * max(height.value, 1)).squareRoot(), 1) }

    /// Advances one frame.
    mutating func predict() {
        let s = scale
        let q = pow(noise.position * s, 2)
        let qv = pow(noise.velocity * s, 2)
        x.predict(processValue: q, processVelocity: qv)
        y.predict(processValue: q, processVelocity: qv)
        width.predict(processValue: q / 4, processVelocity: qv / 16)
        height.predict(processValue: q / 4, processVelocity: qv / 16)
        // A shrinking prediction must not pass through zero and come back inverted.
        width.value = max(width.value, 1)
        height.value = max(height.value, 1)
    }

    /// Corrects the state with an observed box.
    mutating func update(_ box: CGRect) {
        let r = pow(noise.measurement * scale, 2)
        x.update(measurement: Double(box.midX), noise: r)
        y.update(measurement: Double(box.midY), noise: r)
        width.update(measurement: Double(box.width), noise: r)
        height.update(measurement: Double(box.height), noise: r)
    }

    /// The squared Mahalanobis distance of `box` from the predicted box (4 degrees of freedom).
    func mahalanobis(_ box: CGRect) -> Double {
        let r = pow(noise.measurement * scale, 2)
        return x.normalizedInnovation(Double(box.midX), noise: r) + y.normalizedInnovation(Double(box.midY), noise: r)
            + width.normalizedInnovation(Double(box.width), noise: r)
            + height.normalizedInnovation(Double(box.height), noise: r)
    }

    /// Moves the position by (`dx`, `dy`) without touching the uncertainty (a camera shift).
    mutating func shift(dx: Double, dy: Double) {
        x.value += dx
        y.value += dy
    }

    /// Multiplies the velocities by `factor` (a lost object's motion becomes less certain to continue).
    mutating func dampVelocity(_ factor: Double) {
        x.velocity *= factor
        y.velocity *= factor
        width.velocity *= factor
        height.velocity *= factor
    }
}
