extension NetworkKind {
    /// The kind of a network path as Apple's Network framework describes it (`NWPath`).
    ///
    /// An expensive path (cellular, a personal hotspot) or a constrained one (Low Data Mode) is
    /// metered; a satisfied path that is neither is unmetered; a path that is not satisfied (no
    /// network, or one that needs a connection first) is unknown. Portable so the rule is tested
    /// everywhere; `PathNetworkMonitor` (Apple platforms) feeds it from `NWPathMonitor`.
    public init(pathSatisfied: Bool, isExpensive: Bool, isConstrained: Bool) {
        if !pathSatisfied {
            self = .unknown
        } else if isExpensive || isConstrained {
            self = .metered
        } else {
            self = .unmetered
        }
    }
}
