import ArgumentParser
import Foundation
import OpenMLKit

/// `mlkit`: OpenMLKit's command-line tool.
@main
struct MLKitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mlkit",
        abstract: "Run and inspect TensorFlow Lite models with OpenMLKit's pure-Swift runtime.",
        version: OpenMLKitVersion.string,
        subcommands: [DemoCommand.self, InspectCommand.self, RunCommand.self, BenchCommand.self, OpsCommand.self] + visionSubcommands + hubSubcommands
    )
}

/// A failure the CLI reports as one line on standard error before exiting with status 1.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}

/// Runs `body`, turning any error into one `error: ...` line on stderr and exit status 1.
func reportingErrors(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let exit as ExitCode {
        throw exit
    } catch {
        let message = (error as? LocalizedError)?.errorDescription ?? String(describing: error)
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        throw ExitCode(1)
    }
}

/// Runs `body`, turning any error into one `error: ...` line on stderr and exit status 1.
func reportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let exit as ExitCode {
        throw exit
    } catch {
        let message = (error as? LocalizedError)?.errorDescription ?? String(describing: error)
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        throw ExitCode(1)
    }
}
