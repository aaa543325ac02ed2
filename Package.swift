// swift-tools-version: 6.0
import PackageDescription

// The three programs are linked by packaging/ld-as-needed (the toolchain's lld with --as-needed
// and libstdc++'s archive ahead of the libraries): what they call of the libraries in
// CLazyLibraries goes through its stubs, so those libraries are not loaded at start.
let asNeeded: [LinkerSetting] = [.unsafeFlags(["-Xclang-linker", "--ld-path=\(Context.packageDirectory)/packaging/ld-as-needed"])]

let package = Package(
    name: "sheetd",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "sheetd", targets: ["sheetd"]),
        .executable(name: "sheetctl", targets: ["sheetctl"]),
        .executable(name: "sheet-render", targets: ["sheet-render"]),
        .library(name: "SheetCore", targets: ["SheetCore"]),
        .library(name: "SheetRecordings", targets: ["SheetRecordings"]),
        .library(name: "SheetReplay", targets: ["SheetReplay"]),
        .library(name: "SheetProtocol", targets: ["SheetProtocol"]),
        .library(name: "SheetClient", targets: ["SheetClient"]),
        .library(name: "SheetRenderKit", targets: ["SheetRenderKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-numerics", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.4.0"),
    ],
    targets: [
        // The kernel's uapi headers that Glibc does not carry (sock_diag): linux-libc-dev.
        .systemLibrary(name: "CLinux"),
        // System calls wrapped once, and the C structs of system headers made zeroed and filled
        // by name (`zeroed`), so a header whose struct grows a member does not break the build
        // (packaging/check-c-structs).
        .target(name: "SheetSystem", dependencies: ["CLinux"]),
        // The pure core: touch frames in, gestures and sheet states out. No I/O, no clocks.
        .target(name: "SheetCore", dependencies: [.product(name: "RealModule", package: "swift-numerics")]),
        // libyaml from Debian (libyaml-dev), through pkg-config.
        .systemLibrary(name: "CLibYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        // YAML that is plain data, composed from libyaml's events in one pass that refuses
        // anchors, aliases and deep nesting (the configuration, content files, `libinput
        // record` headers): no Foundation, no ICU.
        .target(name: "SheetYAML", dependencies: ["CLibYAML"]),
        // libmtdev from Debian (libmtdev-dev), through pkg-config: protocol A devices, read as
        // libinput reads them.
        .systemLibrary(name: "CMtdev", pkgConfig: "mtdev", providers: [.apt(["libmtdev-dev"])]),
        // Readers of `libinput record` YAML and evemu recordings, and the multitouch decoder
        // (protocol B; protocol A through libmtdev).
        .target(name: "SheetRecordings", dependencies: [
            "SheetCore", "SheetYAML", "CMtdev",
        ]),
        // What travels on the socket: the published State, Gesture and Device, the varlink
        // envelope, a small JSON reader and writer. Imports only the core, for the one type per
        // concept that both speak (the content, its limits and events).
        .target(name: "SheetProtocol", dependencies: ["SheetCore"]),
        // The daemon's rules beside SheetCore's pure SheetStack: whose sheet is which, who may
        // act on it, and where a call about a sheet goes (SheetRegistry), shared by the daemon,
        // the replay and the fuzzing harness; SheetProtocol holds only what travels on the wire.
        .target(name: "SheetRules", dependencies: ["SheetCore", "SheetProtocol"]),
        // Runs a recording through the core and formats what happens (JSON lines or text).
        .target(name: "SheetReplay", dependencies: ["SheetCore", "SheetRecordings", "SheetProtocol", "SheetRules"]),
        // Settings: the configuration file (YAML, FILE:LINE errors) and the flags over it.
        // libevdev from Debian (libevdev-dev): the kernel's key names in the key map.
        .systemLibrary(name: "CEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        .target(name: "SheetConfig", dependencies: [
            "SheetCore", "SheetProtocol", "SheetService", "SheetYAML", "CEvdev",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // libinput and libudev from Debian (libinput-dev, libudev-dev), through pkg-config.
        .systemLibrary(name: "CLibInput", pkgConfig: "libinput",
                       providers: [.apt(["libinput-dev", "libudev-dev"])]),
        // Input backends: libinput's udev seat and path contexts, and a recording on the real
        // clock. The only importer of libinput.
        .target(name: "SheetInput", dependencies: [
            "SheetCore", "SheetProtocol", "SheetRecordings", "SheetSystem", "CLibInput", "CEvdev",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The varlink server on a Unix socket (swift-nio). Knows the protocol, not the core.
        .target(name: "SheetServer", dependencies: [
            "SheetProtocol", "SheetCore", "SheetSystem",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // systemd's service protocol without libsystemd: sd_notify and socket activation.
        .target(name: "SheetService", dependencies: ["SheetSystem", .product(name: "SystemPackage", package: "swift-system")]),
        // A blocking varlink client for sheetctl, tests and renderers, and a subscription that
        // follows the daemon across restarts.
        .target(name: "SheetClient", dependencies: ["SheetProtocol", "SheetCore", "SheetSystem"]),
        // zlib from Debian (zlib1g-dev): PNG deflate and gzipped console fonts.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // The renderer kit: a canvas (XRGB8888, RGB565, any stride), the scene of a published
        // state, a software rasteriser with damage tracking, console fonts, PNG files.
        // Pango over Cairo from Debian (libpango1.0-dev, libcairo2-dev): text in every script
        // (fontconfig, HarfBuzz, FriBidi, FreeType underneath) and anti-aliased shapes.
        .systemLibrary(name: "CPangoCairo", pkgConfig: "pangocairo", providers: [.apt(["libpango1.0-dev", "libcairo2-dev"])]),
        // Libraries opened at the first call of one of their functions, not at start (the
        // renderer's, libinput's with GLib, zlib): a daemon that draws nothing and reads no
        // device never maps them (Sources/CLazyLibraries/functions.def).
        .target(name: "CLazyLibraries", exclude: ["functions.def"]),
        // glibc's gettext: the sheet's own words (spoken, and named to a screen reader) in the
        // content's language, from the catalogs in po/.
        .target(name: "CGettext"),
        .target(name: "SheetRenderKit", dependencies: ["SheetProtocol", "SheetCore", "SheetSystem", "CZlib", "CPangoCairo", "CLazyLibraries", "CGettext"]),
        // Each program's code, a library: `SheetPrograms` runs one of them by the name it is
        // called by, and the three executables are that one program (docs/performance.md,
        // "Footprint").
        .target(name: "ControlProgram", dependencies: [
            "SheetReplay", "SheetClient", "SheetProtocol", "SheetInput", "SheetConfig", "SheetRenderKit", "SheetSystem",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .target(name: "DaemonProgram", dependencies: [
            "SheetCore", "SheetInput", "SheetServer", "SheetProtocol", "SheetRules", "SheetRecordings", "SheetConfig", "SheetService",
            "CConcurrencyHook",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        ]),
        // libdrm from Debian (libdrm-dev) and the kernel's framebuffer header: the display backends.
        .systemLibrary(name: "CDisplay", pkgConfig: "libdrm", providers: [.apt(["libdrm-dev"])]),
        // libwayland-client from Debian (libwayland-dev), through pkg-config, and the protocols
        // beyond the core one as wayland-scanner generates them (checked in; `make wayland-protocols`).
        .systemLibrary(name: "CWaylandClient", pkgConfig: "wayland-client", providers: [.apt(["libwayland-dev"])]),
        .target(name: "CWayland", dependencies: ["CWaylandClient"], exclude: ["generate", "protocols"]),
        // libxkbcommon from Debian (libxkbcommon-dev): the keymap the compositor sends with its keys.
        .systemLibrary(name: "CXKBCommon", pkgConfig: "xkbcommon", providers: [.apt(["libxkbcommon-dev"])]),
        // libspeechd from Debian (libspeechd-dev): the sheet spoken through speech-dispatcher.
        .systemLibrary(name: "CSpeechd", pkgConfig: "speech-dispatcher", providers: [.apt(["libspeechd-dev"])]),
        // GIO from Debian (libglib2.0-dev): GDBus, for the accessibility bus and the settings portal.
        .systemLibrary(name: "CGio", pkgConfig: "gio-2.0", providers: [.apt(["libglib2.0-dev"])]),
        // The renderer: follows the daemon and draws the sheet on a DRM display, a framebuffer,
        // a terminal, a Wayland compositor, a web page or into PNG files. At its top, what the
        // backends share: the command line, the loop, the backend protocol, the input
        // forwarder and the compositor's clock; in Backend/NAME, each backend's own (DRM,
        // Framebuffer, Terminal, Picture, Wayland, Web); in Desktop, the desktop's services
        // (AT-SPI over GDBus, speech, the session's preferences).
        .target(name: "RenderProgram", dependencies: [
            "SheetClient", "SheetConfig", "SheetCore", "SheetProtocol", "SheetRenderKit", "SheetService", "SheetSystem", "CDisplay", "CWayland", "CXKBCommon", "CSpeechd", "CGio", "CLazyLibraries",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            // The web backend's HTTP server and WebSocket (--backend web).
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOWebSocket", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        ],
        // The page's module (<sheet-view>), served by the web backend: in the program's bytes.
        resources: [.embedInCode("Backend/Web/sheetd.js")]),
        // sheetd, sheetctl and sheet-render: one program under three names (`argv[0]`).
        .target(name: "SheetPrograms", dependencies: ["DaemonProgram", "ControlProgram", "RenderProgram", "CConcurrencyHook"]),
        .executableTarget(name: "sheetd", dependencies: ["SheetPrograms"], linkerSettings: asNeeded),
        .executableTarget(name: "sheetctl", dependencies: ["SheetPrograms"], linkerSettings: asNeeded),
        .executableTarget(name: "sheet-render", dependencies: ["SheetPrograms"], linkerSettings: asNeeded),
        // Benchmarks: `make bench`. The C target counts heap allocations by wrapping malloc.
        .target(name: "CAllocationCounter"),
        // Swift concurrency's global jobs handed to NIO's event loops (`GlobalJobs` in sheetd),
        // and the main queue drained by the main thread (`SheetPrograms`).
        .target(name: "CConcurrencyHook"),
        .executableTarget(name: "sheet-bench", dependencies: [
            "SheetReplay", "SheetRenderKit", "SheetInput", "SheetClient", "SheetSystem", "CAllocationCounter",
        ]),
        // Fuzzing (`make fuzz`): every parser that takes outside bytes, driven by libFuzzer when
        // built with -sanitize=fuzzer and -DSHEETD_FUZZING; otherwise it replays kept inputs.
        .target(name: "CLibFuzzer"),
        .executableTarget(name: "sheet-fuzz", dependencies: [
            "SheetConfig", "SheetCore", "SheetInput", "SheetProtocol", "SheetRules", "SheetRecordings", "SheetRenderKit", "SheetReplay", "SheetServer", "CLibFuzzer",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
        ]),
        // A window below the sheet that clicks itself through a virtual pointer: the Wayland
        // test's proof that a hidden sheet lets input through.
        .executableTarget(name: "sheet-wayland-probe", dependencies: ["CWayland", "CXKBCommon", "SheetSystem"], path: "Tests/WaylandProbe"),
        // Fixtures and temporary files for the test targets.
        .target(name: "SheetTestSupport", dependencies: ["SheetCore", "SheetProtocol", "SheetRecordings"], path: "Tests/SheetTestSupport"),
        .testTarget(name: "SheetCoreTests", dependencies: ["SheetCore", "SheetTestSupport"]),
        .testTarget(name: "SheetRecordingsTests", dependencies: ["SheetRecordings", "SheetTestSupport"]),
        .testTarget(name: "SheetReplayTests", dependencies: ["SheetReplay", "SheetRenderKit", "SheetConfig", "sheetctl", "SheetTestSupport"]),
        .testTarget(name: "SheetProtocolTests", dependencies: ["SheetProtocol", "SheetCore", "SheetTestSupport"]),
        .testTarget(name: "SheetRenderKitTests", dependencies: ["SheetRenderKit", "CLazyLibraries", "SheetProtocol", "SheetCore", "SheetTestSupport"]),
        .testTarget(name: "SheetConfigTests", dependencies: ["SheetConfig", "SheetTestSupport"]),
        .testTarget(name: "SheetInputTests", dependencies: ["SheetInput", "SheetRecordings", "SheetTestSupport"]),
        .testTarget(name: "FuzzInputTests", dependencies: ["sheet-fuzz", "SheetTestSupport"]),
        // Starts the real daemon on a socket in a temporary folder and talks varlink to it.
        .testTarget(name: "SheetServerTests", dependencies: [
            "SheetClient", "SheetConfig", "SheetCore", "SheetInput", "SheetProtocol", "SheetRules", "SheetRecordings", "SheetRenderKit", "SheetServer", "SheetSystem", "SheetTestSupport", "RenderProgram", "sheetd", "sheetctl", "sheet-render", "sheet-wayland-probe",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
        ], exclude: ["python_varlink_client.py", "python_content_client.py", "python_peer_client.py", "python_input_client.py", "python_atspi_reader.py", "python_portal_standin.py", "python_programs_client.py"]),
    ],
    swiftLanguageModes: [.v6]
)
