import NIOConcurrencyHelpers
import NIOCore

/// Recently served versions and their blobs, so that a busy download route does not ask the
/// catalogue (a database round trip and two thread hops) for every request.
///
/// A published version never changes: its size, digest and blob are fixed. What can change is
/// whether it exists, so entries live for at most `lifetime`, a delete through this process
/// forgets the model's entries at once, and a download whose blob has gone (deleted through
/// another replica) forgets the entry and asks the catalogue again. The worst a stale entry can do
/// is serve the complete, consistent bytes of a version deleted elsewhere less than `lifetime`
/// ago — as if the download had started a moment earlier. Thread-safe.
final class VersionCache: Sendable {
    private struct Entry {
        let stored: StoredModelVersion
        let expires: NIODeadline
    }

    private let lifetime: TimeAmount
    private let capacity: Int
    private let entries = NIOLockedValueBox([ModelVersionKey: Entry]())

    init(lifetime: TimeAmount = .seconds(1), capacity: Int = 10_000) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    func get(_ key: ModelVersionKey) -> StoredModelVersion? {
        let now = NIODeadline.now()
        return entries.withLockedValue { entries in
            guard let entry = entries[key] else { return nil }
            if entry.expires < now {
                entries[key] = nil
                return nil
            }
            return entry.stored
        }
    }

    func put(_ key: ModelVersionKey, _ stored: StoredModelVersion) {
        let entry = Entry(stored: stored, expires: .now() + lifetime)
        entries.withLockedValue { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = entry
        }
    }

    func forget(_ key: ModelVersionKey) {
        _ = entries.withLockedValue { $0.removeValue(forKey: key) }
    }

    func forget(model name: String) {
        entries.withLockedValue { entries in entries = entries.filter { $0.key.name != name } }
    }
}
