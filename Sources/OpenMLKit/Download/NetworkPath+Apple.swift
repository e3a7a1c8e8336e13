// Apple platforms only: this file compiles to nothing elsewhere. Not yet compiled on an Apple
// system; CI checks its syntax with `swiftc -parse` (scripts/parse-apple-sources.sh). The rule it
// applies (`NetworkKind(pathSatisfied:isExpensive:isConstrained:)`) is portable and tested.
#if canImport(Network)
    import Dispatch
    import Foundation
    import Network

    /// Tells metered from unmetered networks with `NWPathMonitor` (Apple platforms), the default
    /// monitor there in place of Linux's route table.
    ///
    /// One `NWPathMonitor` runs for the process on a private queue from the first question on; the
    /// latest path it reported answers each question. The first question waits up to
    /// ``firstPathTimeout`` for the monitor's first report and answers ``NetworkKind/unknown`` if none
    /// came (a download that does not allow cellular access then waits, as ML Kit's would).
    public final class PathNetworkMonitor: NetworkMonitor, @unchecked Sendable {
        /// The monitor every `SystemNetworkMonitor` uses on Apple platforms.
        public static let shared = PathNetworkMonitor()

        /// How long the first ``currentNetwork()`` waits for the monitor's first path.
        public static let firstPathTimeout: DispatchTimeInterval = .seconds(1)

        private let monitor = NWPathMonitor()
        private let queue = DispatchQueue(label: "OpenMLKit.PathNetworkMonitor")
        // Entered once at creation and left at the first path, so every waiter is released together.
        private let firstPath = DispatchGroup()
        // Guards `latest` and `started`: written on `queue`, read on the caller's thread.
        private let lock = NSLock()
        private var latest: NetworkKind?
        private var started = false

        /// A monitor that starts observing on its first question.
        public init() { firstPath.enter() }

        deinit {
            monitor.cancel()
            // A group freed while entered is a libdispatch crash: balance it if no path ever came.
            if latest == nil { firstPath.leave() }
        }

        /// The kind of the latest path `NWPathMonitor` reported (see ``NetworkKind/init(pathSatisfied:isExpensive:isConstrained:)``).
        public func currentNetwork() -> NetworkKind {
            lock.lock()
            let needsStart = !started
            started = true
            let known = latest
            lock.unlock()
            if needsStart {
                monitor.pathUpdateHandler = { [weak self] path in self?.record(path) }
                monitor.start(queue: queue)
            }
            if let known { return known }
            _ = firstPath.wait(timeout: .now() + Self.firstPathTimeout)
            lock.lock()
            defer { lock.unlock() }
            return latest ?? .unknown
        }

        private func record(_ path: NWPath) {
            let kind = NetworkKind(
                pathSatisfied: path.status == .satisfied, isExpensive: path.isExpensive,
                isConstrained: path.isConstrained)
            lock.lock()
            let first = latest == nil
            latest = kind
            lock.unlock()
            if first { firstPath.leave() }
        }
    }
#endif
