import Foundation

/// TensorFlow Lite's AudioSpectrogram custom operator: float32 audio `[samples, channels]` → float32
/// `[channels, frames, fft_length / 2 + 1]`, `frames = 1 + (samples - window_size) / stride` (0 when
/// the audio is shorter than a window).
///
/// Options (`AudioSpectrogramOptions`): window_size, stride, magnitude_squared. Each frame is
/// multiplied by a periodic Hann window, zero-padded to the next power of two and transformed; the
/// output is |X|² (or its float square root). As in LiteRT's `Spectrogram`, the window and the
/// transform are computed in double and each squared magnitude is rounded to float once.
final class AudioSpectrogramKernel: OpKernel {
    private let options: AudioSpectrogramOptions
    private let fftLength: Int
    private let window: [Double]
    private let fft: SpectrogramFFT
    /// Scratch for one frame's transform, kept between invocations.
    private var re: [Double]
    private var im: [Double]

    init(_ node: Node) throws {
        try node.expect(inputs: 1, outputs: 1)
        options = try AudioSpectrogramOptions(node)
        var n = 1
        while n < options.windowSize { n <<= 1 }
        fftLength = n
        let pi = atan(1.0) * 4
        let length = Double(options.windowSize)
        window = (0..<options.windowSize).map { 0.5 - 0.5 * cos((2.0 * pi * Double($0)) / length) }
        fft = SpectrogramFFT(length: n)
        re = [Double](repeating: 0, count: n)
        im = [Double](repeating: 0, count: n)
    }

    func prepare(_ node: Node) throws {
        let input = try node.input(0)
        try node.expect(input, type: .float32, role: "input")
        guard input.rank == 2 else {
            throw node.error("input must have rank 2 [samples, channels], has \(input.shape)")
        }
        let remaining = input.dim(0) - options.windowSize
        let frames = remaining < 0 ? 0 : 1 + remaining / options.stride
        try node.setOutput(0, type: .float32, shape: [input.dim(1), frames, fftLength / 2 + 1])
    }

    func eval(_ node: Node) throws {
        let input = try node.input(0)
        let output = try node.output(0)
        let x = try node.elementwiseBuffer(input, Float.self, role: "input")
        let y = try node.elementwiseBuffer(output, Float.self, role: "output")
        let channels = input.dim(1)
        let frames = output.dim(1)
        let bins = output.dim(2)
        var dst = 0
        for channel in 0..<channels {
            for frame in 0..<frames {
                let start = frame * options.stride
                for j in 0..<fftLength {
                    re[j] = j < options.windowSize ? Double(x[(start + j) * channels + channel]) * window[j] : 0
                    im[j] = 0
                }
                fft.transform(&re, &im)
                for i in 0..<bins {
                    let power = Float(re[i] * re[i] + im[i] * im[i])
                    y[dst] = options.magnitudeSquared ? power : power.squareRoot()
                    dst += 1
                }
            }
        }
    }
}

/// An in-place radix-2 complex FFT in double of a power-of-two length (forward, unnormalised).
private struct SpectrogramFFT {
    let length: Int
    private let cosines: [Double]
    private let sines: [Double]
    private let reversed: [Int]

    init(length: Int) {
        self.length = length
        let pi = atan(1.0) * 4
        cosines = (0..<max(1, length / 2)).map { cos(2 * pi * Double($0) / Double(length)) }
        sines = (0..<max(1, length / 2)).map { -sin(2 * pi * Double($0) / Double(length)) }
        var bits = 0
        while 1 << bits < length { bits += 1 }
        reversed = (0..<length).map { i in
            var r = 0
            for b in 0..<bits where i & (1 << b) != 0 { r |= 1 << (bits - 1 - b) }
            return r
        }
    }

    func transform(_ re: inout [Double], _ im: inout [Double]) {
        let n = length
        for i in 0..<n where i < reversed[i] {
            re.swapAt(i, reversed[i])
            im.swapAt(i, reversed[i])
        }
        var size = 2
        while size <= n {
            let half = size / 2
            let step = n / size
            var start = 0
            while start < n {
                for k in 0..<half {
                    let c = cosines[k * step]
                    let s = sines[k * step]
                    let a = start + k
                    let b = a + half
                    let tr = re[b] * c - im[b] * s
                    let ti = re[b] * s + im[b] * c
                    re[b] = re[a] - tr
                    im[b] = im[a] - ti
                    re[a] += tr
                    im[a] += ti
                }
                start += size
            }
            size <<= 1
        }
    }
}
