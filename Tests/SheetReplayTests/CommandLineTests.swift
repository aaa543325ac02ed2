import Foundation
import SheetCore
import SheetRecordings
import SheetRenderKit
import SheetTestSupport
import Testing

/// `sheetctl replay` as a user runs it: exit codes and messages.
@Suite struct CommandLineTests {
    static let sheetctl: URL = {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("sheetctl")
    }()

    struct Outcome { var status: Int32; var stdout: String; var stderr: String }

    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Outcome {
        let process = Process()
        process.executableURL = Self.sheetctl
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                       stderr: String(decoding: stderr, as: UTF8.self))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: CommandLineTests.sheetctl.path)))
    func replayPrintsTheContractAndTheSameBytesTwice() throws {
        let file = trace("ts-atmel-maxtouch.1-finger-fast-taps.evemu")
        let first = try run(["replay", file, "--touches"])
        let second = try run(["replay", file, "--touches"])
        #expect(first.status == 0)
        #expect(first.stdout == second.stdout)
        #expect(first.stdout.hasPrefix("{\"kind\":\"device\",\"name\":\"Atmel maXTouch Touchscreen\",\"type\":\"touchscreen\",\"slots\":10"))
        #expect(first.stderr.isEmpty)
    }

    /// With no font that fontconfig can load, pictures still come, in the console font, and
    /// the program says why once.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: CommandLineTests.sheetctl.path)))
    func withNoFontconfigFontTheTextFallsBackToTheConsoleFontAndSaysSo() throws {
        let folder = try temporaryFolder()
        let config = folder.appendingPathComponent("empty-fonts.conf")
        try Data("<?xml version=\"1.0\"?>\n<fontconfig></fontconfig>\n".utf8).write(to: config)
        let pictures = folder.appendingPathComponent("pictures").path
        let outcome = try run(["replay", trace("ts-atmel-maxtouch.1-finger-fast-taps.evemu"), "--screen", "360x640", "--png", pictures,
                               "--png-every", "1000"],
                              environment: ["FONTCONFIG_FILE": config.path, "XDG_CACHE_HOME": folder.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("text falls back to the console font") && outcome.stderr.contains("no installed font matches"),
                "\(outcome.stderr)")
        #expect(outcome.stderr.components(separatedBy: "falls back").count == 2, "said once")
        #expect(try !FileManager.default.contentsOfDirectory(atPath: pictures).isEmpty)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: CommandLineTests.sheetctl.path)))
    func badRecordingsExitSixtyFiveWithFileAndLine() throws {
        let missing = try run(["replay", "/nonexistent/recording.yml"])
        #expect(missing.status == 65)
        #expect(missing.stderr == "/nonexistent/recording.yml: cannot open: No such file or directory\n")

        let garbage = try temporaryFile("garbage.evemu", "# EVEMU 1.3\nN: x\nI: 0018 0000 0000 0000\nA: 35 0 10 0 0 0\nA: 36 0 10 0 0 0\nE: what\n")
        let result = try run(["replay", garbage])
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("\(garbage):6: expected an event"))

        let binary = try temporaryFile("binary.yml", [0, 1, 2, 3, 0xff])
        let binaryResult = try run(["replay", binary])
        #expect(binaryResult.status == 65)
        #expect(binaryResult.stderr.hasPrefix("\(binary):1: binary data"))

        // A device that cannot place a touch is refused, naming what it lacks.
        let flat = try temporaryFile("flat.evemu", "N: flat\nI: 0003 0000 0000 0000\nP: 02 00 00 00 00 00 00 00\nA: 00 0 100 0 0\nA: 01 7 7 0 0\nE: 0.000 0000 0000 0\n")
        let flatResult = try run(["replay", flat])
        #expect(flatResult.status == 65)
        #expect(flatResult.stderr == "\(flat): \"flat\" is not a touchscreen, touchpad, keyboard or knob: ABS_Y's range 7…7 has no width\n")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: CommandLineTests.sheetctl.path)))
    func badFlagsExitSixtyFour() throws {
        let file = trace("ts-atmel-maxtouch.1-finger-fast-taps.evemu")
        #expect(try run(["replay", file, "--policy", "magic"]).status == 64)
        #expect(try run(["replay", file, "--screen", "big"]).status == 64)
        #expect(try run(["replay", file, "--initial", "nowhere"]).status == 64)
    }

    /// The presentation's flags, as sheetd takes them: a recording that swipes up from the
    /// bottom edge opens a hidden sheet by default and not with `--present-gesture none`; in a
    /// configuration file too, where a bad value names its line.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: CommandLineTests.sheetctl.path)))
    func replayTakesThePresentationFlagsAndKeys() throws {
        var recording = SyntheticRecording()
        recording.stroke(from: (540, 1910), to: (540, 900), seconds: 1, holdSeconds: 0.3)
        let file = try temporaryFile("edge-swipe.evemu", recording.evemu())
        let opened = try run(["replay", file, "--initial", "hidden", "--format", "text"])
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(opened.stdout.contains("event: presented edge-swipe") && opened.stdout.contains("end: resting(half)"), "\(opened.stdout)")
        let none = try run(["replay", file, "--initial", "hidden", "--present-gesture", "none", "--format", "text"])
        #expect(none.stdout.contains("end: resting(hidden)"), "\(none.stdout)")
        let bar = try temporaryFile("bar.yaml", "present-gesture: [bottom-bar]\nmodal: false\ninitial: hidden\n")
        let barRun = try run(["replay", file, "--config", bar, "--format", "text"])
        #expect(barRun.stdout.contains("sheet: resting(collapsed) → pan-began → dragging") && barRun.stdout.contains("event: presented bar-swipe")
                    && barRun.stdout.contains("end: resting(half), top 960 px, dim 0\n"), "the swipe starts on the bar; no dim: \(barRun.stdout)")
        let bad = try temporaryFile("bad.yaml", "screen: 1080x1920\nedge-band: 500\n")
        let badRun = try run(["replay", file, "--config", bad])
        #expect(badRun.status == 78 && badRun.stderr.hasPrefix("\(bad):2: `edge-band` wants points"), "\(badRun.stderr)")
        #expect(try run(["replay", file, "--present-gesture", "corner"]).status == 64)
        #expect(try run(["replay", file, "--modal", "maybe"]).status == 64)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: CommandLineTests.sheetctl.path)))
    func summaryIsOneLineAfterTheDevice() throws {
        let result = try run(["replay", trace("ts-atmel-maxtouch.1-finger-fast-taps.evemu"), "--summary"])
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[1].hasPrefix("{\"kind\":\"summary\",\"frames\":18,\"touches\":9,\"gestures\":{\"tap\":9,"))
    }
}

/// `sheetctl replay --png`: a picture per sheet state, in order, the last where the sheet rests.
@Suite struct ReplayPictureTests {
    /// The pictures take the configuration's appearance: a file with `theme: dark` draws the
    /// dark card, and `--accent` and the rest override it as flags do every key.
    @Test func picturesTakeTheConfigurationsAppearance() throws {
        let file = trace("ts-atmel-maxtouch.1-finger-drag-up-down.evemu")
        let folder = try temporaryFolder()
        let config = folder.appendingPathComponent("sheetd.yaml")
        try "theme: dark\ncorner-radius: 12\n".write(to: config, atomically: true, encoding: .utf8)
        let pictures = folder.appendingPathComponent("dark").path
        let outcome = try CommandLineTests().run(["replay", file, "--screen", "360x640", "--config", config.path,
                                                  "--png", pictures, "--png-every", "1000"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let last = try #require(try FileManager.default.contentsOfDirectory(atPath: pictures).sorted().last)
        let image = try PNG.decode(Array(try Data(contentsOf: URL(fileURLWithPath: "\(pictures)/\(last)"))))
        let bottom = ((image.height - 2) * image.width + 60) * 3
        #expect(RGB(image.rgb[bottom], image.rgb[bottom + 1], image.rgb[bottom + 2]) == Look.Palette.dark.card,
                "the card at the picture's foot is the dark theme's")
    }

    /// A recording of keys: Tab, Tab puts the focus on the first row, and the pictures draw its
    /// ring as every renderer does (the accent round the row), in light, dark and high contrast.
    @Test(arguments: ["", "theme: dark\n", "theme: high-contrast\n"])
    func aKeyRecordingsPicturesShowTheFocusRing(_ configuration: String) throws {
        var keys = SyntheticRecording(keys: SyntheticRecording.keyboard)
        for _ in 0..<2 {
            keys.wait(0.2)
            keys.key(KeyCode.tab)
        }
        let folder = try temporaryFolder()
        let recording = folder.appendingPathComponent("keys.evemu")
        try keys.evemu().write(to: recording, atomically: true, encoding: .utf8)
        let content = folder.appendingPathComponent("content.yaml")
        try "title: Settings\nitems:\n  - {id: wifi, label: Wi-Fi}\n  - {id: vpn, label: VPN}\n"
            .write(to: content, atomically: true, encoding: .utf8)
        let config = folder.appendingPathComponent("sheetd.yaml")
        try configuration.write(to: config, atomically: true, encoding: .utf8)
        let pictures = folder.appendingPathComponent("pictures").path
        let outcome = try CommandLineTests().run(["replay", recording.path, "--screen", "360x640", "--content", content.path,
                                                  "--config", config.path, "--png", pictures])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: pictures).sorted()
        let first = try PNG.decode(Array(try Data(contentsOf: URL(fileURLWithPath: "\(pictures)/\(names.first!)"))))
        let last = try PNG.decode(Array(try Data(contentsOf: URL(fileURLWithPath: "\(pictures)/\(names.last!)"))))
        // The ring: pixels of the last picture that the first (no focus yet) does not have, on
        // the row's edges below the title bar.
        var changed = 0
        for pixel in 0..<(last.width * last.height) where first.rgb[pixel * 3..<pixel * 3 + 3] != last.rgb[pixel * 3..<pixel * 3 + 3] {
            changed += 1
        }
        #expect(changed > 200, "\(configuration): \(changed) pixels differ once the focus is on a row")
        if ProcessInfo.processInfo.environment["SHEETD_KEEP_TEST_FILES"] == "1" { print("replay pictures: \(pictures)") }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: CommandLineTests.sheetctl.path)))
    func picturesFollowTheSheetLines() throws {
        let file = trace("ts-atmel-maxtouch.1-finger-drag-up-down.evemu")
        let folder = try temporaryFolder()
        let all = folder.appendingPathComponent("all").path, sparse = folder.appendingPathComponent("sparse").path
        let outcome = try CommandLineTests().run(["replay", file, "--screen", "360x640", "--png", all])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let sheets = outcome.stdout.split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["kind"] as? String == "sheet" }
        let pictures = try FileManager.default.contentsOfDirectory(atPath: all).sorted()
        #expect(pictures.count == sheets.count, "one picture per sheet line")
        #expect(pictures.first == "frame-000001.png" && pictures.last == String(format: "frame-%06d.png", sheets.count))

        // The last picture shows the last state: the dim black at its alpha over #808080 above
        // the card, the card white from its top row down.
        let last = try #require(sheets.last)
        let top = try #require(last["top"] as? Double), dim = try #require(last["dim"] as? Double)
        let image = try PNG.decode(Array(try Data(contentsOf: URL(fileURLWithPath: "\(all)/\(pictures.last!)"))))
        func pixel(_ x: Int, _ y: Int) -> RGB {
            let i = (y * image.width + x) * 3
            return RGB(image.rgb[i], image.rgb[i + 1], image.rgb[i + 2])
        }
        let dimmed = UInt8((128 * (1 - dim)).rounded())
        // Clear of the 28 pt corner, where the card's top edge is straight.
        #expect(pixel(60, 5) == RGB(dimmed, dimmed, dimmed))
        #expect(pixel(60, Int(top)) == .white)
        #expect(pixel(60, Int(top) - 1) == RGB(dimmed, dimmed, dimmed))

        // Every 10th state, and always the last one.
        #expect(try CommandLineTests().run(["replay", file, "--screen", "360x640", "--png", sparse, "--png-every", "10"]).status == 0)
        let few = try FileManager.default.contentsOfDirectory(atPath: sparse).sorted()
        #expect(few.count == (sheets.count + 9) / 10 + ((sheets.count - 1) % 10 == 0 ? 0 : 1))
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(sparse)/\(few.last!)")) ==
                (try Data(contentsOf: URL(fileURLWithPath: "\(all)/\(pictures.last!)"))))

        // One animated PNG: its first frame (what a viewer without APNG shows) is the first
        // picture, and it carries an animation control chunk.
        let animation = folder.appendingPathComponent("drag.png").path
        #expect(try CommandLineTests().run(["replay", file, "--screen", "360x640", "--apng", animation]).status == 0)
        let animated = Array(try Data(contentsOf: URL(fileURLWithPath: animation)))
        #expect(String(decoding: animated[37..<41], as: UTF8.self) == "acTL", "acTL right after IHDR")
        let first = try PNG.decode(Array(try Data(contentsOf: URL(fileURLWithPath: "\(all)/\(pictures.first!)"))))
        #expect(try PNG.decode(animated).rgb == first.rgb)
        #expect(try CommandLineTests().run(["replay", file, "--apng", animation, "--apng-fps", "0"]).status == 64)
    }
}
