import Foundation

/// When a model may be downloaded (ML Kit's `ModelDownloadConditions`).
///
/// What the conditions mean off iOS:
/// - **Cellular access.** A network is "cellular" when it is metered, or when it cannot be told
///   apart from a metered one. With `allowsCellularAccess == false` a download starts only when
///   the ``ModelManager/Configuration/networkMonitor`` reports ``NetworkKind/unmetered``. The
///   default monitor (``SystemNetworkMonitor``) reads `OPENMLKIT_NETWORK` (`metered`,
///   `unmetered`) when it is set, and otherwise, on Linux, the interface of the default route:
///   modems (`wwan*`, `wwp*`, `ppp*`, `rmnet*`, `usb*`) are metered, anything else is unmetered,
///   no default route is unknown; on Apple platforms, `NWPathMonitor`'s path
///   (`PathNetworkMonitor`): expensive or constrained (Low Data Mode) paths are metered.
/// - **Background downloading.** A process is in the background when its host says so
///   (``ModelManager/applicationState`` = `.background`, e.g. a daemon that is idling or a
///   desktop app minimised). With `allowsBackgroundDownloading == false` a download does not
///   start in the background, and one that is running is cancelled when the process goes to the
///   background (its partial file is kept; the next `download` resumes it). Downloads that allow
///   the background run at background priority.
public struct ModelDownloadConditions: Sendable, Equatable {
    /// Whether a metered ("cellular") or unknown network may be used. Default true.
    public let allowsCellularAccess: Bool
    /// Whether the download may run while the process is in the background. Default false.
    public let allowsBackgroundDownloading: Bool

    /// Conditions for downloading.
    public init(allowsCellularAccess: Bool = true, allowsBackgroundDownloading: Bool = false) {
        self.allowsCellularAccess = allowsCellularAccess
        self.allowsBackgroundDownloading = allowsBackgroundDownloading
    }
}

/// Whether the process runs in the foreground or the background (see ``ModelDownloadConditions``).
public enum ApplicationState: Sendable, Equatable {
    /// The process is in use; every download may run.
    case foreground
    /// The process is in the background; only downloads that allow it run.
    case background
}

/// The kind of network the device is on.
public enum NetworkKind: String, Sendable, Equatable {
    /// Wired or Wi-Fi without a data cap.
    case unmetered
    /// Cellular or otherwise metered.
    case metered
    /// Not known; treated like a metered network when cellular access is not allowed.
    case unknown
}

/// Tells which kind of network the device is on (injectable; see ``SystemNetworkMonitor``).
public protocol NetworkMonitor: Sendable {
    /// The current network.
    func currentNetwork() -> NetworkKind
}

/// The default network monitor: `OPENMLKIT_NETWORK`, else (Linux) the default route's interface,
/// (Apple platforms) `NWPathMonitor` through `PathNetworkMonitor.shared`.
public struct SystemNetworkMonitor: NetworkMonitor {
    /// Interface name prefixes of cellular modems and tethered phones.
    public static let meteredInterfacePrefixes = ["wwan", "wwp", "ppp", "rmnet", "usb"]

    private let environment: [String: String]
    private let routeTablePath: String

    /// A monitor reading the process environment and `/proc/net/route`.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment, routeTablePath: String = "/proc/net/route") {
        self.environment = environment
        self.routeTablePath = routeTablePath
    }

    public func currentNetwork() -> NetworkKind {
        if let forced = environment["OPENMLKIT_NETWORK"]?.lowercased(), let kind = NetworkKind(rawValue: forced) {
            return kind
        }
        #if canImport(Network)
        return PathNetworkMonitor.shared.currentNetwork()
        #else
        guard let table = try? String(contentsOfFile: routeTablePath, encoding: .utf8) else { return .unknown }
        return Self.classify(routeTable: table)
        #endif
    }

    /// Classifies a `/proc/net/route` table by the interface of its default route (destination 0).
    public static func classify(routeTable: String) -> NetworkKind {
        for line in routeTable.split(separator: "\n").dropFirst() {
            let fields = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
            guard fields.count > 2, fields[1] == "00000000" else { continue }
            let interface = fields[0]
            return meteredInterfacePrefixes.contains { interface.hasPrefix($0) } ? .metered : .unmetered
        }
        return .unknown
    }
}
