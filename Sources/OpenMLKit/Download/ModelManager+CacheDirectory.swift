import Foundation

extension ModelManager.Configuration {
    /// Where downloaded models live when neither the configuration nor `OPENMLKIT_CACHE_DIR` says.
    ///
    /// - Apple platforms: Application Support + `openmlkit/models`, not Caches: iOS deletes the
    ///   contents of Caches when the device runs low on storage, and an app whose hosted model
    ///   vanished would fall back to its bundled model (or have none) until it downloads again.
    ///   The directory is created here and excluded from iCloud and iTunes backups, since the
    ///   models can always be downloaded again (Apple's rule for re-creatable data outside Caches).
    /// - Elsewhere: the user's cache directory + `openmlkit/models` (`$XDG_CACHE_HOME` or
    ///   `~/.cache` on Linux), which nothing empties behind the application's back.
    public static var platformCacheDirectory: URL {
        #if canImport(Darwin)
            let support =
                FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
                ?? URL(fileURLWithPath: NSTemporaryDirectory())
            var directory = support.appendingPathComponent("openmlkit/models", isDirectory: true)
            // Best effort: a directory that cannot be made or marked now fails later, where the store
            // reports it with its path.
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            var values = URLResourceValues()
            values.isExcludedFromBackup = true
            try? directory.setResourceValues(values)
            return directory
        #else
            let caches =
                FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
                ?? URL(fileURLWithPath: NSTemporaryDirectory())
            return caches.appendingPathComponent("openmlkit/models", isDirectory: true)
        #endif
    }
}
