import Foundation
import OpenMLKit

/// Feeds live video frames to an ``ObjectDetector`` and drops the frames that arrive while it is
/// still busy with an earlier one — what ML Kit tells its users to do with camera frames, so that
/// results stay current instead of falling further behind.
///
/// ```swift
/// let processor = FrameProcessor(detector: detector) { result in
///     guard let objects = result.objects else { return }   // result.error says why
///     draw(objects, frame: result.frameIndex)
/// }
/// // in the camera callback:
/// processor.submit(VisionImage(buffer: pixels, orientation: orientation))
/// ```
///
/// Frames are processed one at a time on the processor's own queue; `handler` is called there, in
/// frame order. ``statistics`` reports how many frames were processed and dropped and the frame
/// rate achieved. Thread-safe: ``submit(_:)`` may be called from any thread.
public final class FrameProcessor: @unchecked Sendable {
    /// What happened to one processed frame.
    public struct FrameResult: @unchecked Sendable {
        /// The frame's position among all submitted frames (dropped ones included), from 0.
        public let frameIndex: Int
        /// The objects found; nil when detection failed.
        public let objects: [DetectedObject]?
        /// Why detection failed, if it did.
        public let error: Error?
        /// Seconds from submission to the end of detection.
        public let latency: Double
    }

    /// Counters since the processor was created.
    public struct Statistics: Equatable, Sendable {
        /// Frames offered with ``FrameProcessor/submit(_:)``.
        public var submitted = 0
        /// Frames the detector ran on (successfully or not).
        public var processed = 0
        /// Frames dropped because the detector was busy.
        public var dropped = 0
        /// Processed frames whose detection threw.
        public var failed = 0
        /// Seconds from the first submission to the last completed frame.
        public var elapsed: Double = 0
        /// Sum of the processed frames' latencies, in seconds.
        public var totalLatency: Double = 0

        /// All counters zero.
        public init() {}

        /// Processed frames per second of wall-clock time (0 before any frame completed).
        public var framesPerSecond: Double { elapsed > 0 ? Double(processed) / elapsed : 0 }
        /// Mean seconds from submission to result.
        public var meanLatency: Double { processed > 0 ? totalLatency / Double(processed) : 0 }
    }

    /// The detector frames are given to.
    public let detector: ObjectDetector
    private let handler: @Sendable (FrameResult) -> Void
    private let queue = DispatchQueue(label: "OpenMLKitVision.FrameProcessor")
    private let idle = DispatchGroup()
    /// Whether a frame is in progress, the counters, and when the first frame came.
    private let state = LockedBox((busy: false, counters: Statistics(), start: DispatchTime?.none))

    /// A processor that runs `detector` on submitted frames and passes each result to `handler`.
    public init(detector: ObjectDetector, handler: @escaping @Sendable (FrameResult) -> Void) {
        self.detector = detector
        self.handler = handler
    }

    /// Offers the next frame. Returns true when it will be processed, false when it was dropped
    /// because the previous frame is still being processed.
    @discardableResult
    public func submit(_ image: VisionImage) -> Bool {
        let submitted = DispatchTime.now()
        let index = state.withLockedValue { state -> Int? in
            let index = state.counters.submitted
            state.counters.submitted += 1
            if state.start == nil { state.start = submitted }
            guard !state.busy else {
                state.counters.dropped += 1
                return nil
            }
            state.busy = true
            idle.enter()
            return index
        }
        guard let index else { return false }
        queue.async { [self] in
            let result: FrameResult
            do {
                let objects = try detector.results(in: image)
                result = FrameResult(frameIndex: index, objects: objects, error: nil, latency: seconds(since: submitted))
            } catch {
                result = FrameResult(frameIndex: index, objects: nil, error: error, latency: seconds(since: submitted))
            }
            state.withLockedValue { state in
                state.counters.processed += 1
                if result.error != nil { state.counters.failed += 1 }
                state.counters.totalLatency += result.latency
                state.counters.elapsed = state.start.map { seconds(since: $0) } ?? 0
                state.busy = false
            }
            handler(result)
            idle.leave()
        }
        return true
    }

    /// Blocks until the frame in progress, if any, has been handled.
    public func waitUntilIdle() {
        idle.wait()
    }

    /// Waits at most `seconds` for the frame in progress, if any, to be handled; true when it was
    /// (or none was in progress), false when the time ran out (a handler that blocks, say).
    @discardableResult
    public func waitUntilIdle(timeout seconds: Double) -> Bool {
        let nanoseconds = seconds.isFinite ? UInt64(max(0, min(seconds, 1e9)) * 1e9) : UInt64(1e18)
        return idle.wait(timeout: .now() + .nanoseconds(Int(min(nanoseconds, UInt64(Int.max))))) == .success
    }

    /// The counters so far.
    public var statistics: Statistics { state.withLockedValue { $0.counters } }

    private func seconds(since time: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - time.uptimeNanoseconds) / 1e9
    }
}
