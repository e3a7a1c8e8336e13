import ArgumentParser

/// The model-hosting subcommands (`hub`, `model`), registered by `MLKitCommand`.
let hubSubcommands: [any ParsableCommand.Type] = []
