import ArgumentParser

/// The engine's flags, the same for `sheetd` and `sheetctl replay`, so that one recording takes
/// the same path through both; each overrides its configuration-file key.
public struct EngineFlags: ParsableArguments {
    @Option(help: "The screen size in pixels, WIDTHxHEIGHT (default: the configuration's, else 1080x1920).")
    public var screen: String?

    @Option(help: "Pixels per point.")
    public var scale: String?

    @Option(help: "The release rules: tutorial, half-drag or projection (default projection).")
    public var policy: String?

    @Option(help: "The detent the sheet starts at: hidden, half, expanded or a custom one (default half).")
    public var initial: String?

    @Option(name: .customLong("detent"), help: "A custom detent, NAME=N% of the height or NAME=Npt from the top (repeatable).")
    public var detents: [String] = []

    @Option(name: .customLong("long-press"), help: "Seconds a still finger takes to become a long press.")
    public var longPress: String?

    @Option(name: .customLong("max-width"), help: "The widest the card gets, in points (default 640); a wider screen shows the dim beside it.")
    public var maximumWidth: String?

    @Option(help: "Where a card narrower than the screen sits: center, start (left) or end (right).")
    public var align: String?

    @Flag(name: .customLong("reduce-motion"), help: "Reduced motion: the card placed at once, the dim cross-faded.")
    public var reduceMotion = false

    @Option(help: "The configuration file (default \(Settings.defaultPath), if it exists).")
    public var config: String?

    public init() {}

    /// The configuration file, these flags, then `extra` (key, value) pairs over them. A bad
    /// file prints `FILE:LINE: reason` and exits 78 (EX_CONFIG); a bad flag is a usage error.
    /// The configuration file and these flags over it, as a function that reads the file
    /// again each time it is called (a reload).
    public func resolver(extra: [(String, String?)] = []) -> @Sendable () throws(Settings.ResolveError) -> Settings {
        let flags: [(String, String?)] = [("screen", screen), ("scale", scale), ("policy", policy),
                                          ("initial", initial), ("long-press", longPress),
                                          ("max-width", maximumWidth), ("align", align),
                                          ("reduce-motion", reduceMotion ? "true" : nil)]
            + detents.map { ("detents", $0) } + extra
        let config = config
        return { () throws(Settings.ResolveError) in try Settings.resolve(configPath: config, flags: flags) }
    }

    public func settings(extra: [(String, String?)] = []) throws -> Settings {
        do {
            return try resolver(extra: extra)()
        } catch .file(let error) {
            var line = "\(error)\n"
            line.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
            throw ExitCode(78)
        } catch .flag(let reason) {
            throw ValidationError(reason)
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
