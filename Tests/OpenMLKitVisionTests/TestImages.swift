import Foundation

@testable import OpenMLKitVision

/// Helpers shared by the vision tests: synthetic images and paths to the shared photos.
enum TestImages {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let shared = packageRoot.deletingLastPathComponent().appendingPathComponent("shared")
    static let images = shared.appendingPathComponent("images")
    static let models = shared.appendingPathComponent("models")
    static var hasShared: Bool { FileManager.default.fileExists(atPath: images.path) }

    /// An RGB8 image whose every 2×2 block has its own colour (so 4:2:0 chroma survives exactly).
    static func blockImage(width: Int, height: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let bx = x / 2
                let by = y / 2
                let o = (y * width + x) * 3
                pixels[o] = UInt8((bx * 53 + by * 17 + 20) % 236 + 10)
                pixels[o + 1] = UInt8((bx * 29 + by * 71 + 90) % 236 + 10)
                pixels[o + 2] = UInt8((bx * 11 + by * 43 + 160) % 236 + 10)
            }
        }
        return pixels
    }

    /// The stored pixels that `orientation` shows as `upright` (`width` × `height` upright RGB8).
    static func stored(_ upright: [UInt8], width: Int, height: Int, orientation: ImageOrientation) -> (
        pixels: [UInt8], width: Int, height: Int
    ) {
        let sw = orientation.swapsDimensions ? height : width
        let sh = orientation.swapsDimensions ? width : height
        let t = orientation.uprightToStored(width: sw, height: sh)
        var out = [UInt8](repeating: 0, count: upright.count)
        for y in 0..<height {
            for x in 0..<width {
                let s = t.apply(x: Float(x), y: Float(y))
                let (ix, iy) = (Int(s.x), Int(s.y))
                for c in 0..<3 { out[(iy * sw + ix) * 3 + c] = upright[(y * width + x) * 3 + c] }
            }
        }
        return (out, sw, sh)
    }

    /// RGB8 pixels converted to `format` with a stride padding of `padding` bytes per row.
    static func buffer(rgb: [UInt8], width: Int, height: Int, format: PixelFormat, padding: Int = 0) throws
        -> PixelBuffer
    {
        func yuv(_ o: Int) -> (Float, Float, Float) {
            let r = Float(rgb[o])
            let g = Float(rgb[o + 1])
            let b = Float(rgb[o + 2])
            let y = 0.299 * r + 0.587 * g + 0.114 * b
            return (y, (b - y) / 1.772 + 128, (r - y) / 1.402 + 128)
        }
        func byte(_ v: Float) -> UInt8 { UInt8(min(max(v.rounded(), 0), 255)) }
        switch format {
        case .rgb8, .rgba8, .bgra8, .gray8:
            let bpp = format.bytesPerPixel!
            let stride = width * bpp + padding
            var bytes = [UInt8](repeating: 0xAB, count: stride * height)
            for y in 0..<height {
                for x in 0..<width {
                    let o = (y * width + x) * 3
                    let d = y * stride + x * bpp
                    switch format {
                    case .rgb8: (bytes[d], bytes[d + 1], bytes[d + 2]) = (rgb[o], rgb[o + 1], rgb[o + 2])
                    case .rgba8:
                        (bytes[d], bytes[d + 1], bytes[d + 2], bytes[d + 3]) = (rgb[o], rgb[o + 1], rgb[o + 2], 7)
                    case .bgra8:
                        (bytes[d], bytes[d + 1], bytes[d + 2], bytes[d + 3]) = (rgb[o + 2], rgb[o + 1], rgb[o], 7)
                    default: bytes[d] = byte(yuv(o).0)
                    }
                }
            }
            return try PixelBuffer(bytes: bytes, width: width, height: height, format: format, bytesPerRow: [stride])
        case .nv12, .nv21, .i420:
            let cw = (width + 1) / 2
            let ch = (height + 1) / 2
            let ys = width + padding
            let cs = (format == .i420 ? cw : cw * 2) + padding
            let chromaPlanes = format == .i420 ? 2 : 1
            var bytes = [UInt8](repeating: 0xAB, count: ys * height + cs * ch * chromaPlanes)
            for y in 0..<height { for x in 0..<width { bytes[y * ys + x] = byte(yuv((y * width + x) * 3).0) } }
            let c0 = ys * height
            for y in 0..<ch {
                for x in 0..<cw {
                    let (_, u, v) = yuv(((2 * y) * width + 2 * x) * 3)
                    switch format {
                    case .nv12: (bytes[c0 + y * cs + 2 * x], bytes[c0 + y * cs + 2 * x + 1]) = (byte(u), byte(v))
                    case .nv21: (bytes[c0 + y * cs + 2 * x], bytes[c0 + y * cs + 2 * x + 1]) = (byte(v), byte(u))
                    default:
                        bytes[c0 + y * cs + x] = byte(u)
                        bytes[c0 + cs * ch + y * cs + x] = byte(v)
                    }
                }
            }
            return try PixelBuffer(
                bytes: bytes, width: width, height: height, format: format,
                bytesPerRow: format == .i420 ? [ys, cs, cs] : [ys, cs])
        }
    }

    /// A minimal 24-bit bottom-up BMP of RGB8 pixels.
    static func bmp(rgb: [UInt8], width: Int, height: Int) -> [UInt8] {
        let rowBytes = (width * 3 + 3) / 4 * 4
        var out = [UInt8]()
        func u16(_ v: Int) { out += [UInt8(v & 0xff), UInt8(v >> 8 & 0xff)] }
        func u32(_ v: Int) {
            u16(v & 0xffff)
            u16(v >> 16 & 0xffff)
        }
        out += [0x42, 0x4D]
        u32(54 + rowBytes * height)
        u32(0)
        u32(54)
        u32(40)
        u32(width)
        u32(height)
        u16(1)
        u16(24)
        u32(0)
        u32(rowBytes * height)
        u32(2835)
        u32(2835)
        u32(0)
        u32(0)
        for y in (0..<height).reversed() {
            for x in 0..<width {
                let o = (y * width + x) * 3
                out += [rgb[o + 2], rgb[o + 1], rgb[o]]
            }
            out += [UInt8](repeating: 0, count: rowBytes - width * 3)
        }
        return out
    }

    /// `jpeg` with an APP1 Exif block holding `orientation` inserted after SOI.
    static func jpeg(_ jpeg: [UInt8], withEXIFOrientation orientation: Int, bigEndian: Bool) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] {
            bigEndian ? [UInt8(v >> 8), UInt8(v & 0xff)] : [UInt8(v & 0xff), UInt8(v >> 8)]
        }
        func u32(_ v: Int) -> [UInt8] { bigEndian ? u16(v >> 16) + u16(v & 0xffff) : u16(v & 0xffff) + u16(v >> 16) }
        var tiff: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        tiff += u16(42) + u32(8) + u16(2)
        tiff += u16(0x010F) + u16(2) + u32(4) + [0x41, 0x42, 0x43, 0]  // Make "ABC"
        tiff += u16(0x0112) + u16(3) + u32(1) + u16(orientation) + u16(0)
        tiff += u32(0)
        let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xff)] + payload + jpeg[2...]
    }
}
