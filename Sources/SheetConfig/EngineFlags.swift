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

    @Option(help: "light, dark, auto (each renderer's preference), high-contrast or high-contrast-dark.")
    public var theme: String?

    @Option(help: "The accent colour, #rrggbb (default #3584e4).")
    public var accent: String?

    @Option(help: ArgumentHelp("The text's font, a fontconfig pattern such as `Noto Sans` (default: the system's sans-serif).", valueName: "pattern"))
    public var font: String?

    @Option(name: .customLong("text-scale"), help: "Text size, 0.5 to 3 times the usual, on top of --scale.")
    public var textScale: String?

    @Option(name: .customLong("card-color"), help: "The card's colour, #rrggbb (default: the theme's).")
    public var cardColor: String?

    @Option(name: .customLong("dim-color"), help: "The dim's colour, #rrggbb (default: the theme's, black).")
    public var dimColor: String?

    @Option(name: .customLong("corner-radius"), help: "The card's top corners in points, 0 to 64 (default 28).")
    public var cornerRadius: String?

    @Flag(name: .customLong("reduce-motion"), help: "Reduced motion: the card placed at once, the dim cross-faded.")
    public var reduceMotion = false

    @Option(name: .customLong("present-gesture"), help: ArgumentHelp("How a person opens the sheet by touch: edge-swipe, bottom-bar, both (edge-swipe,bottom-bar) or none (default edge-swipe).", valueName: "gestures"))
    public var presentGesture: String?

    @Option(name: .customLong("edge-band"), help: "The band at the bottom edge an edge swipe starts in, in points (default 24).")
    public var edgeBand: String?

    @Option(name: .customLong("bar-height"), help: "The bottom bar's height in points (default 64).")
    public var barHeight: String?

    @Option(help: ArgumentHelp("true (default): the dim covers the rest; false: no dim, touches outside the sheet are not its.", valueName: "true|false"))
    public var modal: String?

    @Option(name: .customLong("can-open"), help: ArgumentHelp("Whether a person may open the sheet (default true).", valueName: "true|false"))
    public var canOpen: String?

    @Option(name: .customLong("can-close"), help: ArgumentHelp("Whether a person may close the sheet (default true).", valueName: "true|false"))
    public var canClose: String?

    @Option(name: .customLong("switch-scan"), help: ArgumentHelp("One-switch scanning: the focus steps by itself every so many seconds (0.5 to 60) while the sheet is shown, and an activate key uses what it is on; off by default.", valueName: "seconds|off"))
    public var switchScan: String?

    @Flag(name: .customLong("touch-exploration"), help: "Explore by touch, for a person who cannot see the screen: one finger moves the focus to what is under it and never taps or drags, a double tap anywhere activates it, a flick right or left moves to the next or previous element, two fingers act as one. Without it, touches explore while the sheet is spoken.")
    public var touchExploration = false

    @Option(help: ArgumentHelp("Speak the sheet (renderers on a kiosk's display, through speech-dispatcher): off, on, or headset (while headphones are plugged).", valueName: "off|on|headset"))
    public var speech: String?

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
                                          ("theme", theme), ("accent", accent), ("font", font), ("text-scale", textScale),
                                          ("card-color", cardColor), ("dim-color", dimColor), ("corner-radius", cornerRadius),
                                          ("reduce-motion", reduceMotion ? "true" : nil),
                                          ("present-gesture", presentGesture), ("edge-band", edgeBand), ("bar-height", barHeight),
                                          ("modal", modal), ("can-open", canOpen), ("can-close", canClose),
                                          ("switch-scan", switchScan),
                                          ("touch-exploration", touchExploration ? "true" : nil), ("speech", speech)]
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
