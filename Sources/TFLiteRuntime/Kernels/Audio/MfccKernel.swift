import Foundation

/// TensorFlow Lite's Mfcc custom operator: a float32 squared-magnitude spectrogram
/// `[channels, frames, bins]` and an int32 sample rate (one element) → float32
/// `[channels, frames, dct_coefficient_count]`.
///
/// Options (`MfccOptions`): upper/lower frequency limit (whole hertz, as LiteRT reads them),
/// filterbank_channel_count, dct_coefficient_count. Per frame: square roots of the bins are summed
/// under triangular mel filters (HTK style, DC excluded), floored at 1e-12, logged, and the first
/// coefficients of an orthonormal DCT-II kept, all in double like LiteRT's `Mfcc`. When the upper
/// limit lies above the spectrum's last bin LiteRT's filterbank produces nothing and every
/// coefficient is 0; this kernel does the same.
final class MfccKernel: OpKernel {
    private let options: MfccOptions
    private let cosines: [Double]

    /// The filterbank for one (bins, sample rate) pair, rebuilt when either changes.
    private struct Filterbank {
        let bins: Int
        let rate: Int32
        let start: Int
        let end: Int
        let bandMapper: [Int]
        let weights: [Double]
    }

    private var filterbank: Filterbank?

    init(_ node: Node) throws {
        try node.expect(inputs: 2, outputs: 1)
        options = try MfccOptions(node)
        let n = options.filterbankChannelCount
        let fnorm = (2.0 / Double(n)).squareRoot()
        let arg = atan(1.0) * 4 / Double(n)
        var table = [Double]()
        table.reserveCapacity(options.dctCoefficientCount * n)
        for i in 0..<options.dctCoefficientCount {
            for j in 0..<n { table.append(fnorm * cos(Double(i) * arg * (Double(j) + 0.5))) }
        }
        cosines = table
    }

    func prepare(_ node: Node) throws {
        let spectrogram = try node.input(0)
        let rate = try node.input(1)
        try node.expect(spectrogram, type: .float32, role: "spectrogram")
        try node.expect(rate, type: .int32, role: "sample rate")
        guard spectrogram.rank == 3 else {
            throw node.error("spectrogram must have rank 3 [channels, frames, bins], has \(spectrogram.shape)")
        }
        guard rate.elementCount == 1 else { throw node.error("sample rate must have one element, has \(rate.shape)") }
        guard spectrogram.dim(2) >= 2 else { throw node.error("spectrogram needs at least 2 bins") }
        try node.setOutput(
            0, type: .float32, shape: [spectrogram.dim(0), spectrogram.dim(1), options.dctCoefficientCount])
    }

    private static func melScale(_ hz: Double) -> Double { 1127.0 * log1p(hz / 700.0) }

    private func makeFilterbank(_ node: Node, bins: Int, rate: Int32) throws -> Filterbank {
        guard rate > 0 else { throw node.error("sample rate \(rate) must be positive") }
        let channels = options.filterbankChannelCount
        let melLow = Self.melScale(options.lowerFrequencyLimit)
        let melHigh = Self.melScale(options.upperFrequencyLimit)
        let spacing = (melHigh - melLow) / Double(channels + 1)
        let centers = (0...channels).map { melLow + spacing * Double($0 + 1) }
        let hzPerBin = 0.5 * Double(rate) / Double(bins - 1)
        let first = 1.5 + options.lowerFrequencyLimit / hzPerBin
        let last = options.upperFrequencyLimit / hzPerBin
        // LiteRT truncates these to int; beyond Int32 its cast is undefined, so such options are refused.
        guard first < 2_147_483_648, last < 2_147_483_648 else { throw node.error("frequency limits are out of range") }
        let start = Int(first)
        let end = Int(last)
        var mapper = [Int](repeating: -2, count: bins)
        var weights = [Double](repeating: 0, count: bins)
        var channel = 0
        for i in 0..<bins where i >= start && i <= end {
            let mel = Self.melScale(Double(i) * hzPerBin)
            while channel < channels && centers[channel] < mel { channel += 1 }
            mapper[i] = channel - 1
            weights[i] =
                channel - 1 >= 0
                ? (centers[channel] - mel) / (centers[channel] - centers[channel - 1])
                : (centers[0] - mel) / (centers[0] - melLow)
        }
        return Filterbank(bins: bins, rate: rate, start: start, end: end, bandMapper: mapper, weights: weights)
    }

    func eval(_ node: Node) throws {
        let input = try node.input(0)
        let output = try node.output(0)
        let x = try node.elementwiseBuffer(input, Float.self, role: "spectrogram")
        let rates = try node.elementwiseBuffer(try node.input(1), Int32.self, role: "sample rate")
        let y = try node.elementwiseBuffer(output, Float.self, role: "output")
        let bins = input.dim(2)
        let frames = input.dim(0) * input.dim(1)
        let rate = rates[0]
        if filterbank?.bins != bins || filterbank?.rate != rate {
            filterbank = try makeFilterbank(node, bins: bins, rate: rate)
        }
        guard let bank = filterbank else { return }
        let channels = options.filterbankChannelCount
        let count = options.dctCoefficientCount
        var mel = [Double](repeating: 0, count: channels)
        for frame in 0..<frames {
            let row = frame * bins
            guard bank.end < bins else {
                for i in 0..<count { y[frame * count + i] = 0 }
                continue
            }
            for c in 0..<channels { mel[c] = 0 }
            if bank.start <= bank.end {
                for i in bank.start...bank.end {
                    let magnitude = Double(x[row + i]).squareRoot()
                    let weighted = magnitude * bank.weights[i]
                    let channel = bank.bandMapper[i]
                    if channel >= 0 { mel[channel] += weighted }
                    if channel + 1 < channels { mel[channel + 1] += magnitude - weighted }
                }
            }
            for c in 0..<channels { mel[c] = log(max(mel[c], 1e-12)) }
            for i in 0..<count {
                var sum = 0.0
                for j in 0..<channels { sum += cosines[i * channels + j] * mel[j] }
                y[frame * count + i] = Float(sum)
            }
        }
    }
}
