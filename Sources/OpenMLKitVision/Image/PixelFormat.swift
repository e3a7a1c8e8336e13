/// The layout of the pixels in a raw image buffer (camera frame or decoded image).
public enum PixelFormat: String, CaseIterable, Sendable {
    /// 4 bytes per pixel: red, green, blue, alpha (alpha is ignored).
    case rgba8
    /// 4 bytes per pixel: blue, green, red, alpha (`kCVPixelFormatType_32BGRA`).
    case bgra8
    /// 3 bytes per pixel: red, green, blue.
    case rgb8
    /// 1 byte per pixel: luminance.
    case gray8
    /// Two planes: Y, then interleaved Cb/Cr at half resolution (`420YpCbCr8BiPlanar`).
    case nv12
    /// Two planes: Y, then interleaved Cr/Cb at half resolution (Android's camera default).
    case nv21
    /// Three planes: Y, Cb, Cr, chroma at half resolution (YUV 4:2:0 planar).
    case i420

    /// Bytes per pixel of a packed format; nil for the planar YUV formats.
    public var bytesPerPixel: Int? {
        switch self {
        case .rgba8, .bgra8: return 4
        case .rgb8: return 3
        case .gray8: return 1
        case .nv12, .nv21, .i420: return nil
        }
    }

    /// The number of planes the format's buffer holds.
    public var planeCount: Int {
        switch self {
        case .rgba8, .bgra8, .rgb8, .gray8: return 1
        case .nv12, .nv21: return 2
        case .i420: return 3
        }
    }

    /// Minimum bytes per row and row count of plane `plane` for an image of `width` × `height`.
    func planeExtent(_ plane: Int, width: Int, height: Int) -> (rowBytes: Int, rows: Int) {
        let chromaWidth = (width + 1) / 2
        let chromaHeight = (height + 1) / 2
        switch self {
        case .rgba8, .bgra8, .rgb8, .gray8: return (width * (bytesPerPixel ?? 1), height)
        case .nv12, .nv21: return plane == 0 ? (width, height) : (chromaWidth * 2, chromaHeight)
        case .i420: return plane == 0 ? (width, height) : (chromaWidth, chromaHeight)
        }
    }
}

/// How luma/chroma samples of the YUV formats convert to RGB (ITU-R BT.601 coefficients).
public enum YUVRange: Sendable {
    /// Y, Cb, Cr use 0...255 (JPEG/JFIF, `…FullRange` camera formats, Android camera NV21).
    case full
    /// Y uses 16...235 and Cb, Cr 16...240 (`…VideoRange` camera formats).
    case video
}
