import Foundation
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle

/// Completed downloads, counted in memory and added to the catalogue in batches, so a download
/// costs no database write. Thread-safe.
final class DownloadCounter: Sendable {
    private let pending = NIOLockedValueBox([ModelVersionKey: Int]())

    func add(name: String, version: Int) {
        pending.withLockedValue { $0[ModelVersionKey(name: name, version: version), default: 0] += 1 }
    }

    /// Writes the pending counts; on failure they are kept for the next try.
    func flush(to catalog: any ModelCatalog) async throws {
        let batch = pending.withLockedValue { counts -> [ModelVersionKey: Int] in
            defer { counts = [:] }
            return counts
        }
        guard !batch.isEmpty else { return }
        do { try await catalog.addDownloads(batch) } catch {
            pending.withLockedValue { counts in counts.merge(batch, uniquingKeysWith: +) }
            throw error
        }
    }
}

/// The hub's periodic work beside serving requests: writing download counts, and removing blobs
/// that no catalogue row references (left by a crash between storing a file and cataloguing it,
/// or between un-cataloguing and deleting it). Stops on graceful shutdown after a last flush.
struct HubBackgroundWork: Service {
    let catalog: any ModelCatalog
    let blobs: any BlobStore
    let counter: DownloadCounter
    let configuration: HubConfiguration

    func run() async throws {
        let logger = configuration.logger
        await reconcile(logger)
        _ = try? await cancelWhenGracefulShutdown {
            var sinceReconcile = Duration.zero
            while !Task.isCancelled {
                do { try await Task.sleep(for: configuration.downloadCountInterval) } catch { break }
                do { try await counter.flush(to: catalog) } catch {
                    logger.warning("cannot write download counts", metadata: ["error": "\(error.localizedDescription)"])
                }
                sinceReconcile += configuration.downloadCountInterval
                if sinceReconcile >= configuration.reconcileInterval {
                    sinceReconcile = .zero
                    await reconcile(logger)
                }
            }
        }
        // The answers are all sent (the server stopped first): write what they counted.
        try? await counter.flush(to: catalog)
    }

    /// Removes unreferenced blobs older than the grace period; returns how many.
    @discardableResult
    func reconcile(_ logger: Logger) async -> Int {
        do {
            let grace = Double(configuration.orphanGracePeriod.components.seconds)
            // Listed before the catalogue is read: a blob committed and catalogued in between is
            // younger than the grace period, so it is not in this list.
            let candidates = try blobs.keys(modifiedBefore: Date().addingTimeInterval(-grace))
            guard !candidates.isEmpty else { return 0 }
            let referenced = try await catalog.referencedBlobKeys()
            let orphans = candidates.filter { !referenced.contains($0) }
            for key in orphans { blobs.delete(key: key) }
            if !orphans.isEmpty { logger.notice("removed orphaned blobs", metadata: ["count": "\(orphans.count)"]) }
            return orphans.count
        } catch {
            logger.warning("cannot look for orphaned blobs", metadata: ["error": "\(error.localizedDescription)"])
            return 0
        }
    }
}
