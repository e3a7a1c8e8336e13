import ArgumentParser
import Foundation
import TFLiteRuntime
import NumPyFiles

/// `mlkit bench MODEL`: load time, invoke latency, peak memory, and where the time goes.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure a model: load time, median and p90 invoke latency, peak resident memory.",
        discussion: """
            Inputs are seeded pseudo-random values of each input tensor's type (or --input .npy files). \
            load_ms is the time from opening the file to the end of allocateTensors(): open_ms to read \
            and verify the model, allocate_ms to plan memory and prepare the kernels (weight packing). peak_rss_mb is the process's peak resident set (getrusage), \
            which includes the Swift runtime. --profile adds each operator type's share of the time.
            """
    )

    @Argument(help: "Path to a .tflite model.") var model: String
    @Option(help: "Threads the kernels may use.") var threads = 1
    @Option(help: "Timed runs.") var runs = 50
    @Option(help: "Untimed runs first.") var warmup = 5
    @Option(name: .customLong("input"), help: "A .npy file for the next input tensor (default: random).") var inputs: [String] = []
    @Flag(help: "Print JSON.") var json = false
    @Flag(help: "Also time each operator (adds a little overhead per node).") var profile = false

    func validate() throws {
        guard (1...64).contains(threads) else { throw ValidationError("--threads must be between 1 and 64") }
        guard runs >= 1, warmup >= 0 else { throw ValidationError("--runs must be at least 1 and --warmup not negative") }
    }

    func run() throws {
        try reportingErrors {
            let clock = ContinuousClock()
            let loadStart = clock.now
            let interpreter = try Interpreter(modelPath: model, options: .init(threadCount: threads))
            let opened = clock.now
            try interpreter.allocateTensors()
            let loadMs = milliseconds(clock.now - loadStart)
            let openMs = milliseconds(opened - loadStart)
            try fillInputs(interpreter)
            for _ in 0..<warmup { try interpreter.invoke() }
            var times = [Double]()
            for _ in 0..<runs {
                let start = clock.now
                try interpreter.invoke()
                times.append(milliseconds(clock.now - start))
            }
            var byOperator = [String: UInt64]()
            if profile {
                let rounds = max(1, min(runs, 20))
                for _ in 0..<rounds {
                    for timing in try interpreter.invokeProfiled() { byOperator[timing.operatorName, default: 0] += timing.nanoseconds }
                }
                for key in byOperator.keys { byOperator[key]! /= UInt64(rounds) }
            }
            times.sort()
            let median = percentile(times, 0.5)
            let p90 = percentile(times, 0.9)
            let rss = peakResidentMB()
            if json {
                var object: [String: Any] = [
                    "model": model, "threads": threads, "runs": runs, "warmup": warmup, "load_ms": round3(loadMs),
                    "median_ms": round4(median), "p90_ms": round4(p90), "min_ms": round4(times[0]), "peak_rss_mb": round3(rss),
                    "open_ms": round3(openMs), "allocate_ms": round3(loadMs - openMs),
                ]
                if profile { object["profile_ms"] = byOperator.mapValues { round3(Double($0) / 1e6) } }
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                print(String(decoding: data, as: UTF8.self))
                return
            }
            print("model: \(model)  threads: \(threads)  runs: \(runs) (+\(warmup) warm-up)")
            print(String(format: "load %.2f ms (open %.2f, allocate %.2f)  median %.3f ms  p90 %.3f ms  min %.3f ms  peak RSS %.1f MB", loadMs, openMs, loadMs - openMs, median, p90, times[0], rss))
            if profile {
                let total = Double(byOperator.values.reduce(0, +))
                for (name, ns) in byOperator.sorted(by: { $0.value > $1.value }) {
                    print(String(format: "  %-28@ %8.3f ms  %5.1f%%", name as NSString, Double(ns) / 1e6, 100 * Double(ns) / max(total, 1)))
                }
            }
        }
    }

    private func fillInputs(_ interpreter: Interpreter) throws {
        if !inputs.isEmpty {
            guard inputs.count == interpreter.inputTensorCount else {
                throw CLIError("the model has \(interpreter.inputTensorCount) input(s) but \(inputs.count) --input file(s) were given")
            }
            for (i, path) in inputs.enumerated() {
                try interpreter.copy(try NumPyArray(contentsOf: URL(fileURLWithPath: path)).data, toInputAt: i)
            }
            return
        }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        for i in 0..<interpreter.inputTensorCount {
            let tensor = try interpreter.input(at: i)
            var bytes = [UInt8](repeating: 0, count: tensor.data.count)
            switch tensor.dataType {
            case .float32:
                bytes.withUnsafeMutableBytes { raw in
                    for (k, _) in raw.bindMemory(to: Float.self).enumerated() {
                        raw.storeBytes(of: Float(next() % 2001) / 1000 - 1, toByteOffset: k * 4, as: Float.self)
                    }
                }
            default:
                for k in bytes.indices { bytes[k] = UInt8(truncatingIfNeeded: next()) }
            }
            try interpreter.copy(Data(bytes), toInputAt: i)
        }
    }
}

private func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

private func percentile(_ sorted: [Double], _ q: Double) -> Double {
    let position = q * Double(sorted.count - 1)
    let lower = Int(position.rounded(.down))
    let upper = min(lower + 1, sorted.count - 1)
    return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
}

private func round3(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
/// Latencies keep a tenth of a microsecond: a model of a few microseconds needs it for a ratio.
private func round4(_ value: Double) -> Double { (value * 10000).rounded() / 10000 }

/// The process's peak resident set size in MB (getrusage: KB on Linux, bytes on Apple systems).
func peakResidentMB() -> Double {
    var usage = rusage()
    #if canImport(Darwin)
    getrusage(RUSAGE_SELF, &usage)
    return Double(usage.ru_maxrss) / 1_048_576
    #else
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
    #endif
}
