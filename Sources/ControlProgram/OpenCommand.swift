import ArgumentParser
import SheetClient
import SheetConfig
import SheetCore
import SheetProtocol
import SheetSystem
#if canImport(Glibc)
import Glibc
#endif

struct OpenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Open a sheet of this command's own and print what a person does on it, until it ends (needs root or the socket's group).",
        discussion: """
            A shell script's sheet: shown over the sheets opened before it (a system sheet over every app sheet), \
            its events printed one JSON object per line as they come, heard by this command alone. It closes when \
            the command ends (Ctrl-C, a signal) and the sheet beneath comes back; --until-dismissed ends it when \
            a person dismisses the sheet, --until-tapped at the first tap on an item.

            --on-tap 'COMMAND' answers each tap (and flipped toggle): COMMAND runs in /bin/sh with the item's id \
            as $1 (and in SHEETD_ITEM, the sheet in SHEETD_SHEET, a toggle's new value in SHEETD_ON); what it \
            prints, a content file (JSON or YAML, as FILE), becomes the sheet's content; printing nothing leaves \
            it as it is. A command that fails is said on standard error and changes nothing. Taps that come \
            while it runs wait for it, in order.

            When the daemon restarts, the sheet goes with it: sheetctl open waits up to 30 s for the next \
            one and opens the sheet there again, with the content it last showed; what happened in between is \
            lost, and standard error says so. The new sheet's {"opened":…} line is printed.
            """)

    @OptionGroup var connection: SocketOption
    @OptionGroup var content: ContentOptions

    @Option(help: "app (the default) or system: a system sheet is shown over every app sheet.")
    var layer: String = "app"

    @Option(help: "The detent to open at (the configured initial one when left out).")
    var detent: String?

    @Flag(name: .customLong("until-dismissed"), help: "End once the sheet has been dismissed.")
    var untilDismissed = false

    @Flag(name: .customLong("until-tapped"), help: "End at the first tap on an item (its event printed).")
    var untilTapped = false

    @Option(name: .customLong("on-tap"), help: ArgumentHelp("Run COMMAND at each tap with the item's id as $1; a content file it prints becomes the sheet's.",
                                                           valueName: "command"))
    var onTap: String?

    func validate() throws {
        guard SheetStack.Layer(name: layer) != nil else { throw ValidationError("--layer wants app or system; got `\(layer)`") }
    }

    /// How long a sheet whose daemon went waits for the next one (a restart, an upgrade).
    static let reconnectSeconds = 30.0

    func run() throws {
        var change = try content.change()
        let layer = SheetStack.Layer(name: self.layer) ?? .app
        try talking {
            var client = try connection.connect()
            var sheet = try client.openSheet(change, layer: layer, detent: detent)
            while true {
                // Its events on a connection of their own (this program's too): the calls that
                // answer them go on the first.
                let follower = try connection.connect()
                var shown = false
                var subscribed = false
                do {
                    try follower.monitor(maxRate: nil) { update, _ in
                        // Said once the Monitor's first state is in: from then on no event is missed.
                        if !subscribed {
                            subscribed = true
                            try writeLine(Array("{\"opened\":\"\(sheet)\"}".utf8))
                        }
                        for event in update.events where event.sheet == sheet {
                            var writer = JSONWriter(capacity: 128)
                            event.write(to: &writer)
                            try writeLine(writer.bytes)
                            if let onTap, event.kind == .itemTapped || event.kind == .itemToggled, let item = event.item,
                               let answered = answer(onTap, item: item, on: event.on, sheet: sheet, client: client) {
                                change = answered  // every field: the content to open it with again
                            }
                            if untilTapped, event.kind == .itemTapped { return false }
                        }
                        if update.state.sheet == sheet { shown = true }
                        // Dismissed: another sheet shown, or this one at rest at its floor.
                        if untilDismissed, shown, update.state.sheet != sheet || update.state.isClosed && update.state.isIdle { return false }
                        return true
                    }
                    return
                } catch let error as ClientError {
                    // The daemon went (a restart, the watchdog, an upgrade), and the sheet with
                    // it: opened again on the next one with what it last showed.
                    guard case .closed = error else { throw error }
                    warn("the daemon went; opening the sheet again on the next one (waiting up to \(Int(Self.reconnectSeconds)) s); what happened meanwhile is lost")
                    client = try SheetClient(path: connection.path, waitingUpTo: Self.reconnectSeconds)
                    sheet = try client.openSheet(change, layer: layer, detent: detent)
                }
            }
        }
    }
}

extension OpenCommand {
    /// Runs `command` for a tap on `item` and makes what it prints the sheet's content; that
    /// content, when it became the sheet's.
    func answer(_ command: String, item: String, on: Bool?, sheet: String, client: SheetClient) -> ContentChange? {
        var environment = ["SHEETD_ITEM": item, "SHEETD_SHEET": sheet]
        if let on { environment["SHEETD_ON"] = on ? "true" : "false" }
        let result = Result { () throws(SystemError) in
            try CommandRun.shell(command, name: "sheetctl", arguments: [item], environment: environment)
        }
        guard case .success(let run) = result else {
            if case .failure(let error) = result { warn("--on-tap: \(error)") }
            return nil
        }
        guard run.status == 0 else { warn("--on-tap: the command ended with status \(run.status) on \(item); the sheet is as it was"); return nil }
        guard !run.outputCut else { warn("--on-tap: the command printed more than 4 MiB on \(item); the sheet is as it was"); return nil }
        let text = String(decoding: run.output, as: UTF8.self)
        guard text.contains(where: { !$0.isWhitespace }) else { return nil }
        let content = Result { () throws(ConfigurationError) in try ContentFile.parse(text: text, path: "--on-tap output") }
        switch content {
        case .failure(let error):
            warn("\(error); the sheet is as it was")
            return nil
        case .success(let content):
            let change = ContentChange(content)
            let answered = Result { () throws(ClientError) in try client.setContent(change, sheet: sheet) }
            if case .failure(let error) = answered { warn("--on-tap: SetContent: \(error); the sheet is as it was"); return nil }
            return change
        }
    }

    private func warn(_ text: String) {
        let line = Array("sheetctl open: \(text)\n".utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}
