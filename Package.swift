// swift-tools-version:6.1
import PackageDescription

// Modules split only where dependencies differ: the runtime needs nothing but the toolchain, the
// ML Kit layer adds hashing for verified downloads, vision links the system image codecs, and the
// hub pulls the HTTP server, SQLite and the PostgreSQL client.
//
// The hub and the CLI sit behind the default trait `Tools`, so an app can leave their dependencies
// out: `.package(url: ..., from: "0.1.0", traits: [])` resolves only swift-crypto (since Swift 6.2,
// SwiftPM leaves trait-guarded dependencies out of resolution; docs/PACKAGING.md has the
// measurements). `swift build` and `swift test` here enable the default trait, so they build and
// test everything.
let toolsOnly = TargetDependencyCondition.when(traits: ["Tools"])

// libjpeg and libpng link only off Apple platforms; there, ImageIO decodes and encodes.
let nonApple: [Platform] = [.linux, .android, .windows, .openbsd, .wasi]

let package = Package(
    name: "OpenMLKit",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "TFLiteRuntime", targets: ["TFLiteRuntime"]),
        .library(name: "TensorFlowLite", targets: ["TensorFlowLite"]),
        .library(name: "OpenMLKit", targets: ["OpenMLKit"]),
        .library(name: "OpenMLKitVision", targets: ["OpenMLKitVision"]),
        .library(name: "ModelHub", targets: ["ModelHub"]),
        .executable(name: "mlkit", targets: ["mlkit"]),
    ],
    traits: [
        .trait(
            name: "Tools",
            description:
                "The ModelHub server library and the mlkit CLI, with Hummingbird, GRDB, PostgresNIO, Prometheus and ArgumentParser"
        ),
        .default(enabledTraits: ["Tools"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        // `swift package generate-documentation --target OpenMLKit` (DocC catalogs under each library).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The runtime depends on nothing but the toolchain. Its kernels hand raw buffer pointers to
        // parallel workers, which Swift 6's strict Sendable checking rejects wholesale, so the
        // runtime stays in the Swift 5 language mode; the executor never shares mutable state
        // between workers except through disjoint output ranges.
        .target(
            name: "TFLiteRuntime",
            dependencies: ["CKernels"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // `import TensorFlowLite` for TensorFlowLiteSwift code: re-exports the runtime.
        .target(name: "TensorFlowLite", dependencies: ["TFLiteRuntime"]),
        // NumPy .npy reading and writing: the CLI's and the tests' interchange format, kept out of the
        // runtime's public API (which stays TensorFlowLiteSwift's).
        .target(name: "NumPyFiles", dependencies: ["TFLiteRuntime"]),
        // C microkernels with per-function target attributes (AVX2+FMA, AVX-512), chosen at run time
        // from the CPU's features; the Swift kernels remain the portable path.
        .target(name: "CKernels"),
        .target(
            name: "OpenMLKit",
            dependencies: [
                "TFLiteRuntime",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Thin C wrappers around the system image codecs (Debian: libjpeg62-turbo-dev, libpng-dev):
        // libjpeg and libpng report errors by longjmp, which only C can catch.
        .target(
            name: "CImageCodecs",
            linkerSettings: [
                .linkedLibrary("jpeg", .when(platforms: nonApple)), .linkedLibrary("png16", .when(platforms: nonApple)),
            ]
        ),
        .target(
            name: "OpenMLKitVision",
            dependencies: [
                "OpenMLKit", "TFLiteRuntime", .target(name: "CImageCodecs", condition: .when(platforms: nonApple)),
            ]
        ),
        // Evaluation tooling (tracking and localization benchmarks with their ground truth), kept out
        // of the vision library; `mlkit track-bench` and `mlkit localize-bench` link it.
        .target(name: "VisionEvaluation", dependencies: ["OpenMLKitVision", "OpenMLKit"]),
        .target(
            name: "ModelHub",
            dependencies: [
                "OpenMLKit",
                "TFLiteRuntime",
                .product(name: "Hummingbird", package: "hummingbird", condition: toolsOnly),
                .product(name: "GRDB", package: "GRDB.swift", condition: toolsOnly),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: toolsOnly),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Prometheus", package: "swift-prometheus", condition: toolsOnly),
            ]
        ),
        .executableTarget(
            name: "mlkit",
            dependencies: [
                "TFLiteRuntime",
                "NumPyFiles",
                "OpenMLKit",
                "OpenMLKitVision",
                "VisionEvaluation",
                "ModelHub",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: toolsOnly),
            ],
            resources: [.copy("Resources/demo")]
        ),
        .testTarget(
            name: "TFLiteRuntimeTests",
            dependencies: ["TFLiteRuntime", "NumPyFiles"],
            resources: [.copy("Fixtures")],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "OpenMLKitTests",
            dependencies: ["OpenMLKit", "OpenMLKitVision", "TFLiteRuntime", "TensorFlowLite", "ModelHub", "NumPyFiles"],
            exclude: ["Goldens"]
        ),
        .testTarget(
            name: "OpenMLKitVisionTests",
            dependencies: ["OpenMLKitVision", "OpenMLKit", "TFLiteRuntime", "VisionEvaluation"]
        ),
        // The tests reach PostgreSQL directly to create a fresh database for each test.
        .testTarget(
            name: "ModelHubTests",
            dependencies: [
                "ModelHub", "OpenMLKit", .product(name: "PostgresNIO", package: "postgres-nio", condition: toolsOnly),
            ]
        ),
        // The Swift blocks of the README and the DocC articles, written out by tools/doc_snippets.py
        // (CI checks they are current): compiled with the tests, never run.
        .testTarget(
            name: "DocSnippetsTests",
            dependencies: ["TFLiteRuntime", "OpenMLKit", "OpenMLKitVision", "ModelHub"]
        ),
        .testTarget(
            name: "mlkitTests",
            dependencies: ["mlkit"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ]
)
