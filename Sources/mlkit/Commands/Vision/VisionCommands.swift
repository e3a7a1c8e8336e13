import ArgumentParser

/// The vision subcommands (`classify`, `detect`, `track`), registered by `MLKitCommand`.
let visionSubcommands: [any ParsableCommand.Type] = [
    ClassifyCommand.self, DetectCommand.self, TrackCommand.self, TrackBenchCommand.self, LocalizeBenchCommand.self,
]
