import Foundation
import Testing

@Suite("mlkit --version")
struct VersionCLITests {
    @Test("prints the version of CHANGELOG.md's latest entry")
    func printsChangelogVersion() throws {
        let changelog = try String(
            contentsOf: CLITests.packageRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let latest = changelog.split(separator: "\n").first {
            $0.hasPrefix("## [") && $0.dropFirst(4).first?.isNumber == true
        }
        let version = try #require(latest.flatMap { $0.dropFirst(4).split(separator: "]").first }.map(String.init))
        let result = try CLITests.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == version)
    }
}
