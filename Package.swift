// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "sheetd",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "sheetd", targets: ["sheetd"]),
        .executable(name: "sheetctl", targets: ["sheetctl"]),
        .library(name: "SheetCore", targets: ["SheetCore"]),
        .library(name: "SheetRecordings", targets: ["SheetRecordings"]),
        .library(name: "SheetReplay", targets: ["SheetReplay"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/apple/swift-numerics", from: "1.0.0"),
    ],
    targets: [
        // The pure core: touch frames in, gestures and sheet states out. No I/O, no clocks.
        .target(name: "SheetCore", dependencies: [.product(name: "RealModule", package: "swift-numerics")]),
        // Readers of `libinput record` YAML and evemu recordings, and the protocol-B decoder.
        .target(name: "SheetRecordings", dependencies: [
            "SheetCore",
            .product(name: "Yams", package: "Yams"),
        ]),
        // Runs a recording through the core and formats what happens (JSON lines or text).
        .target(name: "SheetReplay", dependencies: ["SheetCore", "SheetRecordings"]),
        .executableTarget(name: "sheetctl", dependencies: [
            "SheetReplay",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "sheetd", dependencies: [
            "SheetCore",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Benchmarks: `make bench`. The C target counts heap allocations by wrapping malloc.
        .target(name: "CAllocationCounter"),
        .executableTarget(name: "sheet-bench", dependencies: [
            "SheetReplay", "CAllocationCounter",
        ]),
        .testTarget(name: "SheetCoreTests", dependencies: ["SheetCore"]),
        .testTarget(name: "SheetRecordingsTests", dependencies: ["SheetRecordings"]),
        .testTarget(name: "SheetReplayTests", dependencies: ["SheetReplay", "sheetctl"]),
    ],
    swiftLanguageModes: [.v6]
)
