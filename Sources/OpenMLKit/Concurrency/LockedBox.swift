import Foundation

/// Mutable state shared between threads, reachable only under its lock: one box per object, as
/// swift-nio's `NIOLockedValueBox` (which the libraries here cannot depend on) and the standard
/// library's `Mutex` (iOS 18 and macOS 15 onward only). Keeping the state inside the box, rather than
/// beside a lock, means no code path can read or write it unlocked.
package final class LockedBox<Value> {
    private let lock = NSLock()
    private var value: Value

    /// A box holding `value`.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the state, under the lock, and returns what it returns. `body` must not
    /// call back into the same box (the lock is not recursive).
    package func withLockedValue<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the state.
    package var current: Value { withLockedValue { $0 } }
}

// The lock makes the box safe to share whenever what it holds may cross threads.
extension LockedBox: @unchecked Sendable where Value: Sendable {}
