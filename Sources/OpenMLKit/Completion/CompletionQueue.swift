import Dispatch
import Foundation

/// Where OpenMLKit calls completion handlers.
///
/// On Apple platforms completion handlers are `@MainActor` and run on the main queue, as ML Kit
/// and Firebase document, so a view controller can set its own properties inside them in the Swift
/// 5 and Swift 6 language modes. On Linux, where usually no main run loop turns, they are
/// `@Sendable` and run on ``queue``: a private serial queue unless another is chosen. Every API
/// with a completion handler also has an `async` variant.
///
/// Building with `-DOPENMLKIT_MAIN_ACTOR_COMPLETIONS` gives Linux the Apple signatures (used to
/// type-check Apple-style code on Linux; the main queue must then be serviced).
public enum CompletionQueue {
    private static let chosen = LockedBox<DispatchQueue?>(nil)

    /// The private serial queue completions use on Linux unless ``queue`` is set.
    public static let defaultQueue = DispatchQueue(label: "org.openmlkit.completions")

    /// The queue completion handlers run on where they are not main-actor isolated (Linux);
    /// setting it affects calls made afterwards. Ignored on Apple platforms (always main).
    public static var queue: DispatchQueue {
        get { chosen.current ?? defaultQueue }
        set { chosen.withLockedValue { $0 = newValue } }
    }
}

#if canImport(Darwin) || OPENMLKIT_MAIN_ACTOR_COMPLETIONS
/// Runs `body` on the main actor, after the current work (never inline).
package func deliverCompletion(_ body: @escaping @MainActor @Sendable () -> Void) {
    DispatchQueue.main.async { MainActor.assumeIsolated { body() } }
}
#else
/// Runs `body` on ``CompletionQueue/queue``.
package func deliverCompletion(_ body: @escaping @Sendable () -> Void) {
    CompletionQueue.queue.async(execute: body)
}
#endif

#if canImport(Darwin) || OPENMLKIT_MAIN_ACTOR_COMPLETIONS
/// A completion handler with a value or an error: main-actor isolated on Apple platforms,
/// `@Sendable` on Linux (see ``CompletionQueue``).
public typealias CompletionHandler<Value> = @MainActor @Sendable (Value?, Error?) -> Void
/// A completion handler with a `Result` (Firebase's shape); isolated as ``CompletionHandler``.
public typealias ResultCompletionHandler<Success, Failure: Error> = @MainActor @Sendable (Result<Success, Failure>) -> Void
/// A completion handler with only an error; isolated as ``CompletionHandler``.
public typealias ErrorCompletionHandler = @MainActor @Sendable (Error?) -> Void
/// A download progress handler, called with the fraction done in 0...1; isolated as ``CompletionHandler``.
public typealias ProgressHandler = @MainActor @Sendable (Float) -> Void
#else
/// A completion handler with a value or an error: main-actor isolated on Apple platforms,
/// `@Sendable` on Linux (see ``CompletionQueue``).
public typealias CompletionHandler<Value> = @Sendable (Value?, Error?) -> Void
/// A completion handler with a `Result` (Firebase's shape); isolated as ``CompletionHandler``.
public typealias ResultCompletionHandler<Success, Failure: Error> = @Sendable (Result<Success, Failure>) -> Void
/// A completion handler with only an error; isolated as ``CompletionHandler``.
public typealias ErrorCompletionHandler = @Sendable (Error?) -> Void
/// A download progress handler, called with the fraction done in 0...1; isolated as ``CompletionHandler``.
public typealias ProgressHandler = @Sendable (Float) -> Void
#endif
