// Apple platforms only: this file compiles to nothing elsewhere. Not yet compiled on an Apple
// system; CI checks its syntax with `swiftc -parse` (scripts/parse-apple-sources.sh). The
// orientation model these map onto (`ImageOrientation(deviceOrientation:cameraPosition:)`) is
// portable and tested.
#if canImport(UIKit)
    import UIKit

    extension ImageOrientation {
        /// The orientation of a `UIImage.Orientation` (same meaning, case for case; the raw values
        /// differ: UIKit counts from 0, EXIF from 1).
        public init(_ orientation: UIImage.Orientation) {
            switch orientation {
            case .up: self = .up
            case .down: self = .down
            case .left: self = .left
            case .right: self = .right
            case .upMirrored: self = .upMirrored
            case .downMirrored: self = .downMirrored
            case .leftMirrored: self = .leftMirrored
            case .rightMirrored: self = .rightMirrored
            @unknown default: self = .up
            }
        }
    }
#endif

#if canImport(UIKit) && os(iOS)
    extension DeviceOrientation {
        /// The device orientation of a `UIDeviceOrientation` (`UIDevice.current.orientation`).
        public init(_ orientation: UIDeviceOrientation) {
            switch orientation {
            case .portrait: self = .portrait
            case .portraitUpsideDown: self = .portraitUpsideDown
            case .landscapeLeft: self = .landscapeLeft
            case .landscapeRight: self = .landscapeRight
            case .faceUp: self = .faceUp
            case .faceDown: self = .faceDown
            case .unknown: self = .unknown
            @unknown default: self = .unknown
            }
        }
    }
#endif

#if canImport(UIKit) && canImport(AVFoundation) && os(iOS)
    import AVFoundation

    extension ImageOrientation {
        /// The orientation of a frame from `cameraPosition`'s camera with the device held as
        /// `deviceOrientation`: the helper ML Kit's guides ask apps to write, over UIKit's and
        /// AVFoundation's types (see ``init(deviceOrientation:cameraPosition:)``).
        public init(deviceOrientation: UIDeviceOrientation, cameraPosition: AVCaptureDevice.Position) {
            self.init(
                deviceOrientation: DeviceOrientation(deviceOrientation), cameraPosition: CameraPosition(cameraPosition))
        }
    }
#endif
