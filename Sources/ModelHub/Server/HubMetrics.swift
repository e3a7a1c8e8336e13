import NIOConcurrencyHelpers
import Prometheus

/// The hub's Prometheus metrics, served at `GET /metrics` (admin token required: the labels
/// name models).
///
/// - `modelhub_http_requests_total{route,method,status}`
/// - `modelhub_http_request_duration_seconds{route}` (until the last byte of the answer)
/// - `modelhub_downloads_total{model,version}`: completed whole-file downloads
/// - `modelhub_download_bytes_total{model,version}`: model bytes sent, ranges included
/// - `modelhub_uploads_rejected_total{reason}`
///
/// Labels come from the route table and validated names only, never from raw request paths, so
/// a scanner cannot grow the label set without bound. Thread-safe.
public final class HubMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    /// The metric objects by their labels, so a request costs one dictionary look-up per metric
    /// (the registry validates names and labels on every `make...` call).
    private let counters = NIOLockedValueBox([[String]: Counter]())
    private let histograms = NIOLockedValueBox([String: DurationHistogram]())
    private static let buckets: [Duration] = [
        .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5),
        .seconds(10), .seconds(30), .seconds(60),
    ]

    /// An empty set of metrics.
    public init() {}

    func request(route: String, method: String, status: Int, duration: Duration) {
        counter(["requests", route, method, String(status)]) {
            $0.makeCounter(
                descriptor: .init(metricName: "modelhub_http_requests", unitName: "total", helpText: "HTTP requests answered"),
                labels: [("route", route), ("method", method), ("status", String(status))])
        }.increment()
        let histogram = histograms.withLockedValue { histograms in
            if let known = histograms[route] { return known }
            let made = registry.makeDurationHistogram(
                descriptor: .init(
                    metricName: "modelhub_http_request_duration", unitName: "seconds",
                    helpText: "Time from a request's head to the last byte of its answer"),
                labels: [("route", route)], buckets: Self.buckets)
            histograms[route] = made
            return made
        }
        histogram.record(duration)
    }

    func downloadBytes(model: String, version: Int, bytes: Int64) {
        counter(["bytes", model, String(version)]) {
            $0.makeCounter(
                descriptor: .init(metricName: "modelhub_download_bytes", unitName: "total", helpText: "Model bytes sent"),
                labels: [("model", model), ("version", String(version))])
        }.increment(by: bytes)
    }

    func downloadCompleted(model: String, version: Int) {
        counter(["downloads", model, String(version)]) {
            $0.makeCounter(
                descriptor: .init(metricName: "modelhub_downloads", unitName: "total", helpText: "Complete whole-file downloads"),
                labels: [("model", model), ("version", String(version))])
        }.increment()
    }

    func uploadRejected(reason: String) {
        counter(["rejected", reason]) {
            $0.makeCounter(
                descriptor: .init(metricName: "modelhub_uploads_rejected", unitName: "total", helpText: "Publishes refused"),
                labels: [("reason", reason)])
        }.increment()
    }

    private func counter(_ key: [String], make: (PrometheusCollectorRegistry) -> Counter) -> Counter {
        counters.withLockedValue { counters in
            if let known = counters[key] { return known }
            let made = make(registry)
            counters[key] = made
            return made
        }
    }

    /// The Prometheus text exposition of every metric.
    public func exposition() -> [UInt8] { registry.emitToBuffer() }
}
