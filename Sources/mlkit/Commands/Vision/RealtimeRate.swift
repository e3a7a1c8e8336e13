import ArgumentParser

/// `--realtime RATE`: frames offered at a fixed rate, or at the video's own timestamps.
enum RealtimeRate: Equatable, ExpressibleByArgument {
    /// One frame every 1/fps seconds, whatever the frames' own times.
    case fixed(Double)
    /// Each video frame at its presentation time (variable frame rates kept).
    case video

    init?(argument: String) {
        if argument == "video" {
            self = .video
        } else if let fps = Double(argument), fps > 0, fps.isFinite {
            self = .fixed(fps)
        } else {
            return nil
        }
    }

    static var defaultCompletionKind: CompletionKind { .list(["video"]) }
}
