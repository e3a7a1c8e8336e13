import ArgumentParser

/// The vision subcommands (`classify`, `detect`), registered by `MLKitCommand`.
let visionSubcommands: [any ParsableCommand.Type] = [ClassifyCommand.self, DetectCommand.self]
