// Apple platforms only: this file compiles to nothing elsewhere. Not yet compiled on an Apple
// system; CI checks its syntax with `swiftc -parse` (scripts/parse-apple-sources.sh).
#if canImport(AVFoundation) && (os(iOS) || os(macOS))
    import AVFoundation

    extension CameraPosition {
        /// The camera position of an `AVCaptureDevice.Position` (`device.position`).
        public init(_ position: AVCaptureDevice.Position) {
            switch position {
            case .back: self = .back
            case .front: self = .front
            case .unspecified: self = .unspecified
            @unknown default: self = .unspecified
            }
        }
    }
#endif
