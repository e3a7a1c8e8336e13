import Foundation
import OpenMLKit
import OpenMLKitVision

/// Where `mlkit track` takes its frames from, one at a time.
enum FrameSource {
    /// Image files, decoded as they are reached.
    case files([String])
    /// Images decoded beforehand (for `--realtime`, so the decoder does not set the pace).
    case decoded([VisionImage])
    /// A video decoded by ffmpeg, streamed.
    case video(VideoFrameStream)

    /// Yields the frames in order; the errors are the decoders'.
    struct Iterator {
        let source: FrameSource
        var position = 0

        mutating func next() throws -> VideoFrameStream.Frame? {
            defer { position += 1 }
            switch source {
            case .files(let paths):
                guard position < paths.count else { return nil }
                return .init(index: position, time: nil, image: try VisionImage(contentsOfFile: paths[position]))
            case .decoded(let images):
                guard position < images.count else { return nil }
                return .init(index: position, time: nil, image: images[position])
            case .video(let stream):
                return try stream.next()
            }
        }
    }

    func makeIterator() -> Iterator { Iterator(source: self) }
}

/// The frames a ``FrameProcessor`` is working on, kept until their result is drawn or printed.
final class PendingFrames: @unchecked Sendable {
    private let frames = LockedBox([Int: VideoFrameStream.Frame]())

    func put(_ frame: VideoFrameStream.Frame) {
        frames.withLockedValue { $0[frame.index] = frame }
    }

    func take(_ index: Int) -> VideoFrameStream.Frame? {
        frames.withLockedValue { $0.removeValue(forKey: index) }
    }
}

/// When each frame is due under `--realtime`, in `DispatchTime` nanoseconds, counted from the first frame.
struct RealtimeClock {
    let rate: RealtimeRate
    private var start: UInt64?
    private var firstTime: Double?
    private var lastOffset = 0.0

    init(rate: RealtimeRate) { self.rate = rate }

    /// The due time of `frame`; never earlier than the previous frame's.
    mutating func due(_ frame: VideoFrameStream.Frame) -> UInt64 {
        let start = self.start ?? DispatchTime.now().uptimeNanoseconds
        self.start = start
        let offset: Double
        switch rate {
        case .fixed(let fps):
            offset = Double(frame.index) / fps
        case .video:
            if let time = frame.time {
                let first = firstTime ?? time
                firstTime = first
                // Timestamps that go backwards (a damaged file) do not move the clock back.
                offset = max(time - first, lastOffset)
            } else {
                // A frame without a time: one nominal 30 fps step after the previous one.
                offset = frame.index == 0 ? 0 : lastOffset + 1.0 / 30
            }
        }
        lastOffset = offset
        return start + UInt64(offset * 1e9)
    }
}
