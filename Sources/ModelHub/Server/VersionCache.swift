import NIOConcurrencyHelpers
import NIOCore

/// Recently served versions with their blobs held open, so that a busy download route neither asks
/// the catalogue (a database round trip and two thread hops) nor opens the file for every request.
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
        let blob: OpenBlob
        let expires: NIODeadline
    }

    private let lifetime: TimeAmount
    private let capacity: Int
    private let entries = NIOLockedValueBox([ModelVersionKey: Entry]())

    /// Each entry holds its blob open (at most `capacity` descriptors).
    init(lifetime: TimeAmount = .seconds(1), capacity: Int = 256) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    func get(_ key: ModelVersionKey) -> (StoredModelVersion, OpenBlob)? {
        let now = NIODeadline.now()
        return entries.withLockedValue { entries in
            guard let entry = entries[key] else { return nil }
            if entry.expires < now {
                entries[key] = nil
                return nil
            }
            return (entry.stored, entry.blob)
        }
    }

    func put(_ key: ModelVersionKey, _ stored: StoredModelVersion, _ blob: OpenBlob) {
        let now = NIODeadline.now()
        let entry = Entry(stored: stored, blob: blob, expires: now + lifetime)
        entries.withLockedValue { entries in
            if entries.count >= capacity {
                entries = entries.filter { $0.value.expires >= now }
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            }
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
