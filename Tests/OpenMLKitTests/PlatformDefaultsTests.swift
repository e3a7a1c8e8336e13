import Foundation
import Testing

@testable import OpenMLKit

/// The portable rules behind the Apple-platform defaults, and the version constant.
@Suite("Platform defaults")
struct PlatformDefaultsTests {
    @Test("An NWPath's flags classify as ML Kit's cellular rule needs")
    func pathClassification() {
        #expect(NetworkKind(pathSatisfied: true, isExpensive: false, isConstrained: false) == .unmetered)
        #expect(NetworkKind(pathSatisfied: true, isExpensive: true, isConstrained: false) == .metered)
        #expect(NetworkKind(pathSatisfied: true, isExpensive: false, isConstrained: true) == .metered)
        #expect(NetworkKind(pathSatisfied: false, isExpensive: false, isConstrained: false) == .unknown)
        #expect(NetworkKind(pathSatisfied: false, isExpensive: true, isConstrained: true) == .unknown)
    }

    @Test("Off Apple platforms the default cache is the user's cache directory")
    func linuxCacheDirectory() {
        #if !canImport(Darwin)
            let expected = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first!
                .appendingPathComponent("openmlkit/models", isDirectory: true)
            #expect(ModelManager.Configuration.platformCacheDirectory == expected)
        #endif
    }

    @Test("OpenMLKitVersion.string is CHANGELOG.md's latest released version")
    func versionMatchesChangelog() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let changelog = try String(contentsOf: root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        // The first "## [x.y.z]" heading; "## [Unreleased]" above it is allowed.
        let versions = changelog.split(separator: "\n").compactMap { line -> Substring? in
            guard line.hasPrefix("## ["), let end = line.firstIndex(of: "]") else { return nil }
            let name = line[line.index(line.startIndex, offsetBy: 4)..<end]
            return name.first?.isNumber == true ? name : nil
        }
        #expect(versions.first.map(String.init) == OpenMLKitVersion.string)
    }
}
