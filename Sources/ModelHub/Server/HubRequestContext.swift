import Hummingbird
import NIOCore

/// The hub's per-request context: Hummingbird's core context, the peer's address (for the
/// access log; `X-Forwarded-For` replaces it only when the peer is a trusted proxy) and the caller.
public struct HubRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The address of the TCP peer.
    public let remoteAddress: SocketAddress?
    /// Succeeds when the request's connection has closed.
    public let channelClosed: EventLoopFuture<Void>
    /// Who is calling: set by the access middleware of the route's group (`anonymous` on routes
    /// open to anyone).
    public internal(set) var caller = HubCaller.anonymous

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        channelClosed = source.channel.closeFuture
    }
}
