import Foundation
import Glibc
import SheetClient
import SheetCore
import SheetInput
import SheetProtocol
import SheetTestSupport
import Testing

/// `sheet-render --speech on` against a real speech-dispatcher (Debian's), run privately with a
/// null audio output and an output module that records instead of speaking: a script that
/// writes `begin LANGUAGE WORDS`, takes five seconds to "speak", and writes `end …`. A message
/// cut by a newer one is killed while it speaks, so it has a begin and no end.
@Suite(.serialized) struct SpeechTests {
    /// A settings sheet opened, walked with Tab, its toggle flipped with Enter, closed with
    /// Escape (keys fed over io.sheetd.Input): each announcement is said in order, each cut
    /// by the next, and the last said to its end.
    @Test func theSheetIsSpokenAsItOpensAsTheFocusMovesAndAsItCloses() throws {
        let server = try SpeechServer()
        let folder = try temporaryFolder()
        let socket = folder.appendingPathComponent("io.sheetd.Sheet").path
        let daemon = try RunningDaemon(["--input", "none", "--screen", "540x960", "--initial", "hidden"], socketPath: socket)
        try daemon.client().setContent(ContentChange(SheetContent(title: "Settings", items: [
            SheetItem(id: "wifi", label: "Wi-Fi", accessory: .toggle(isOn: false), section: "Network"),
            SheetItem(id: "vpn", label: "VPN"),
        ])))
        let renderer = try Renderer(["--backend", "png", "--output", folder.path, "--socket", socket, "--speech", "on"],
                                    folder: folder, environment: server.environment)
        let keys = try PanelKeys(besideSocket: socket)
        let press = keys.press
        try daemon.client().present()
        #expect(try server.next() == "begin en Settings, sheet, half open")
        try press(KeyCode.tab)
        #expect(try server.next() == "begin en Close, button")
        try press(KeyCode.tab)
        #expect(try server.next() == "begin en Wi-Fi, switch, off, 1 of 2")
        try press(KeyCode.enter)
        #expect(try server.next() == "begin en on")
        try press(KeyCode.escape)
        #expect(try server.next() == "begin en Settings, sheet, closed")
        #expect(try server.next() == "end en Settings, sheet, closed", "the last is said to its end; the others were cut")
        renderer.process.terminate()
        #expect(renderer.wait() == 0, "sheet-render: \(renderer.log)")
        #expect(daemon.stop() == 0)
    }
}

extension SpeechTests {
    /// Korean content (`lang: ko`) is spoken in Korean: the server is asked for a Korean voice.
    /// `--speech follow`: the renderer speaks while the daemon says the sheet is spoken
    /// (`speech: on`, or headset with headphones plugged) and stops, cutting what it says, when
    /// it is not; speech turned on again announces the sheet where it is.
    @Test func theRendererSpeaksWhileTheDaemonSaysTheSheetIsSpoken() throws {
        let server = try SpeechServer()
        let folder = try temporaryFolder()
        let socket = folder.appendingPathComponent("io.sheetd.Sheet").path
        let daemon = try RunningDaemon(["--input", "none", "--screen", "540x960", "--initial", "hidden", "--speech", "on"], socketPath: socket)
        try daemon.client().setContent(ContentChange(SheetContent(title: "Tickets", items: [SheetItem(id: "single", label: "Single")])))
        #expect(try daemon.client().state().presentation.speaking && daemon.client().state().presentation.exploresByTouch,
                "speech on: spoken, and touches explore")
        let frameLog = folder.appendingPathComponent("frames").path
        guard mkfifo(frameLog, 0o600) == 0 else { throw DaemonTestError("mkfifo \(frameLog)") }
        let renderer = try Renderer(["--backend", "png", "--output", folder.path, "--socket", socket, "--speech", "follow",
                                     "--frame-log", frameLog], folder: folder, environment: server.environment)
        let frames = try FrameLogReader(frameLog)
        try daemon.client().present()
        #expect(try server.next() == "begin en Tickets, sheet, half open")
        try daemon.client().setPresentation(PresentationChange(speech: .off))
        // The renderer drew a state that is not spoken (states close together are drawn as one).
        _ = try frames.next { ($0["presentation"] as? [String: Any])?["speaking"] as? Bool == false }
        try daemon.client().setDetent("expanded")
        try daemon.client().setPresentation(PresentationChange(speech: .on, speechRate: -50))
        // Nothing was said while speech was off; on again, the sheet is announced where it is.
        #expect(try server.next() == "begin en Tickets, sheet, fully open")
        renderer.process.terminate()
        #expect(renderer.wait() == 0, "sheet-render: \(renderer.log)")
        #expect(renderer.log.contains("the sheet is no longer spoken") && renderer.log.contains("the sheet is spoken (speech-dispatcher)"), "\(renderer.log)")
        #expect(daemon.stop() == 0)
    }

    @Test func koreanContentIsSpokenWithAKoreanVoice() throws {
        let server = try SpeechServer()
        let folder = try temporaryFolder()
        let socket = folder.appendingPathComponent("io.sheetd.Sheet").path
        let daemon = try RunningDaemon(["--input", "none", "--screen", "540x960", "--initial", "hidden"], socketPath: socket)
        try daemon.client().setContent(ContentChange(SheetContent(title: "설정", items: [
            SheetItem(id: "wifi", label: "와이파이", accessory: .toggle(isOn: true)),
        ], language: "ko")))
        let renderer = try Renderer(["--backend", "png", "--output", folder.path, "--socket", socket, "--speech", "on"],
                                    folder: folder, environment: server.environment)
        try daemon.client().present()
        let said = try server.next()
        #expect(said == "begin ko 설정, 시트, 절반 열림", "\(said)")
        renderer.process.terminate()
        #expect(renderer.wait() == 0, "sheet-render: \(renderer.log)")
        #expect(daemon.stop() == 0)
    }
}

extension SpeechTests {
    /// The sheet's own words in the content's language (its catalog in po/), else the
    /// system's: opened, walked with Tab, a switch flipped, closed, and no English word said.
    @Test(arguments: [
        ("de", "", "Einstellungen", "WLAN", ["begin de Einstellungen, Blatt, halb geöffnet", "begin de Schließen, Schaltfläche",
                                            "begin de WLAN, Schalter, aus, 1 von 2", "begin de an", "begin de Einstellungen, Blatt, geschlossen"]),
        ("ko", "", "설정", "와이파이", ["begin ko 설정, 시트, 절반 열림", "begin ko 닫기, 버튼", "begin ko 와이파이, 스위치, 끔, 2개 중 1번째",
                                  "begin ko 켬", "begin ko 설정, 시트, 닫힘"]),
        ("", "fr_FR.UTF-8", "Paramètres", "Wi-Fi", ["begin fr Paramètres, feuille, à moitié ouverte", "begin fr Fermer, bouton",
                                                    "begin fr Wi-Fi, interrupteur, désactivé, 1 sur 2", "begin fr activé",
                                                    "begin fr Paramètres, feuille, fermée"]),
    ])
    func theSheetsOwnWordsAreInTheContentsLanguage(_ tag: String, _ locale: String, _ title: String, _ label: String,
                                                    _ expected: [String]) throws {
        let server = try SpeechServer()
        let folder = try temporaryFolder()
        let socket = folder.appendingPathComponent("io.sheetd.Sheet").path
        let daemon = try RunningDaemon(["--input", "none", "--screen", "540x960", "--initial", "hidden"], socketPath: socket)
        try daemon.client().setContent(ContentChange(SheetContent(title: title, items: [
            SheetItem(id: "wifi", label: label, accessory: .toggle(isOn: false), section: "1"),
            SheetItem(id: "vpn", label: "VPN", section: "1"),
        ], language: tag)))
        var environment: [String: String?] = server.environment
        environment["LANG"] = locale.isEmpty ? "C.UTF-8" : locale
        if !locale.isEmpty {
            // The system's locale, made as locale-gen makes it (speech-dispatcher will not start
            // in a locale that is not there), in a folder of the test's own (LOCPATH).
            let locales = folder.appendingPathComponent("locales")
            try FileManager.default.createDirectory(at: locales, withIntermediateDirectories: true)
            let parts = locale.split(separator: ".")
            let made = try runProgram("/usr/bin/localedef", ["-i", String(parts[0]), "-f", "UTF-8",
                                                               locales.appendingPathComponent(locale).path])
            try #require(made.status == 0, "localedef: \(made.output)")
            environment["LOCPATH"] = locales.path
        }
        environment.updateValue(nil, forKey: "LC_ALL")
        environment.updateValue(nil, forKey: "LC_MESSAGES")
        environment.updateValue(nil, forKey: "LANGUAGE")
        let renderer = try Renderer(["--backend", "png", "--output", folder.path, "--socket", socket, "--speech", "on"],
                                    folder: folder, environment: environment)
        let keys = try PanelKeys(besideSocket: socket)
        let press = keys.press
        var said: [String] = []
        do {
            try daemon.client().present()
            said.append(try server.next())
            for key in [KeyCode.tab, KeyCode.tab, KeyCode.enter, KeyCode.escape] {
                try press(key)
                said.append(try server.next())
            }
        } catch {
            Issue.record("\(error) after \(said); sheet-render: \(renderer.log)")
        }
        #expect(said == expected, "sheet-render: \(renderer.log)")
        let english: Set<String> = ["sheet", "half", "open", "closed", "Close", "button", "switch", "on", "off", "of"]
        for line in said {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "," }).dropFirst(2)
            #expect(english.isDisjoint(with: words.map(String.init)), "an English word in `\(line)`")
        }
        renderer.process.terminate()
        #expect(renderer.wait() == 0, "sheet-render: \(renderer.log)")
        #expect(daemon.stop() == 0)
    }
}

/// A panel's keys fed to the daemon over io.sheetd.Input, each pressed and let go.
final class PanelKeys {
    private let client: InputClient
    private let device: Int
    private var sequence: Int64 = 0

    init(besideSocket socket: String) throws {
        client = try InputClient(path: InputInterface.socketPath(besideSocket: socket))
        device = try client.openKeys(name: "panel keys")
    }

    func press(_ code: UInt16) throws {
        for value: Int32 in [1, 0] {
            sequence += 1
            try client.send(PluginKeyReport(sequence: sequence, timeInMicroseconds: LibinputInput.monotonicNow().microseconds,
                                            keys: [.key(code: code, value: value)]), device: device)
        }
    }
}

/// A speech-dispatcher session in a folder of its own, as libspeechd starts one for a user who
/// has none running (autospawn): the user's configuration (`$XDG_CONFIG_HOME`) with one output
/// module, sd_generic running a recording script; its socket in `$XDG_RUNTIME_DIR`; libao's null
/// driver for the audio it never plays. `environment` is for the client that starts it.
final class SpeechServer {
    let folder: URL
    let environment: [String: String]
    private let runtime: URL
    private let descriptor: Int32
    /// A writer of our own, so that the FIFO never reads as ended between the module's lines.
    private let keeper: Int32
    private let lines: DescriptorLines

    init() throws {
        let binary = "/usr/bin/speech-dispatcher"
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw DaemonTestError("\(binary) is missing: `make deps` installs speech-dispatcher for the speech test")
        }
        folder = try temporaryFolder()
        let said = folder.appendingPathComponent("said").path
        guard mkfifo(said, 0o600) == 0 else { throw DaemonTestError("mkfifo \(said)") }
        descriptor = open(said, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw DaemonTestError("cannot open \(said)") }
        keeper = open(said, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard keeper >= 0 else { throw DaemonTestError("cannot open \(said) to write") }
        lines = DescriptorLines(descriptor, what: "utterance")
        let home = folder.appendingPathComponent("home")
        let configuration = home.appendingPathComponent(".config/speech-dispatcher")
        try FileManager.default.createDirectory(at: configuration.appendingPathComponent("modules"), withIntermediateDirectories: true)
        runtime = folder.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        chmod(runtime.path, 0o700)
        try "default_driver=null\n".write(to: home.appendingPathComponent(".libao"), atomically: true, encoding: .utf8)
        let script = folder.appendingPathComponent("record").path
        try """
            #!/bin/sh
            printf 'begin %s %s\\n' "$1" "$2" > \(said)
            sleep 5
            printf 'end %s %s\\n' "$1" "$2" > \(said)
            """.write(toFile: script + ".text", atomically: true, encoding: .utf8)
        try installExecutable(URL(fileURLWithPath: script + ".text"), at: URL(fileURLWithPath: script))
        try """
            AddModule "recorder" "sd_generic" "recorder.conf"
            DefaultModule recorder
            AudioOutputMethod "libao"
            """.write(to: configuration.appendingPathComponent("speechd.conf"), atomically: true, encoding: .utf8)
        try """
            GenericExecuteSynth "\(script) \\'$LANGUAGE\\' \\'$DATA\\'"
            AddVoice "en" "MALE1" "en"
            AddVoice "ko" "MALE1" "ko"
            AddVoice "de" "MALE1" "de"
            AddVoice "fr" "MALE1" "fr"
            DefaultVoice "en"
            GenericLanguage "en" "en" "utf-8"
            GenericLanguage "ko" "ko" "utf-8"
            GenericLanguage "de" "de" "utf-8"
            GenericLanguage "fr" "fr" "utf-8"
            """.write(to: configuration.appendingPathComponent("modules/recorder.conf"), atomically: true, encoding: .utf8)
        environment = ["HOME": home.path, "XDG_CONFIG_HOME": home.appendingPathComponent(".config").path,
                       "XDG_RUNTIME_DIR": runtime.path]
    }

    deinit {
        // The server the client started, by its pid file.
        let pidFile = runtime.appendingPathComponent("speech-dispatcher/pid/speech-dispatcher.pid").path
        if let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
           let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            kill(pid, SIGKILL)
        }
        close(keeper)
        close(descriptor)
        // Its output modules outlive it: each was started with this folder's configuration.
        killProcesses(mentioning: folder.path)
    }

    /// The next line the recording module wrote: `begin LANGUAGE WORDS` or `end …`.
    func next() throws -> String {
        guard let line = try lines.next() else { throw DaemonTestError("the recording module's FIFO closed") }
        return String(decoding: line, as: UTF8.self)
    }
}
