import Foundation
import SheetCore
import SheetProtocol
import SheetRecordings
import SheetReplay

/// The corpus each target starts from, written into a folder per target: the fixtures'
/// recordings, pictures and configurations, made-up recordings in both formats, the JSON lines
/// a replay prints, and sessions of varlink calls.
enum Seeds {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardizedFileURL.path

    static func write(into folder: String) throws {
        let manager = FileManager.default
        for target in FuzzTarget.allCases {
            try manager.createDirectory(atPath: "\(folder)/\(target.rawValue)", withIntermediateDirectories: true)
        }
        func put(_ target: FuzzTarget, _ name: String, _ bytes: [UInt8]) throws {
            try Data(bytes).write(to: URL(fileURLWithPath: "\(folder)/\(target.rawValue)/\(name)"))
        }
        // Files of the project, by extension.
        for source in ["Tests/Fixtures", "examples", "packaging"] {
            guard let walker = manager.enumerator(atPath: "\(root)/\(source)") else { continue }
            for case let relative as String in walker {
                let path = "\(root)/\(source)/\(relative)"
                let name = (relative as NSString).lastPathComponent
                let ext = (name as NSString).pathExtension
                guard let data = manager.contents(atPath: path) else { continue }
                for target in FuzzTarget.allCases where target.seedExtensions.contains(ext) {
                    // Pictures larger than a seed should be are left out; small ones are plenty.
                    if target == .png, data.count > 64 * 1024 { continue }
                    try put(target, name, Array(data))
                }
            }
        }
        // Made-up recordings: a drag and a flick, with a palm and a SYN_DROPPED.
        var recording = SyntheticRecording()
        recording.tap(x: 540, y: 1500)
        recording.wait(0.3)
        recording.stroke(slot: 0, from: (540, 1200), to: (540, 400), seconds: 0.25)
        recording.wait(0.5)
        recording.down(slot: 1, x: 300, y: 900)
        recording.report()
        recording.palm(slot: 1)
        recording.report()
        recording.dropped()
        recording.up(slot: 1)
        recording.report()
        try put(.evemu, "synthetic.evemu", Array(recording.evemu().utf8))
        try put(.libinputRecord, "synthetic.yml", Array(recording.libinputRecord().utf8))
        // What a replay prints: states, gestures, touches, one JSON object a line.
        let output = OutputBuffer()
        var options = ReplayOptions()
        options.touches = true
        _ = try Replay.run(source: Recording.open(bytes: Array(recording.evemu().utf8), name: "synthetic"),
                           options: options, output: output)
        for (index, line) in output.text.split(separator: "\n").prefix(64).enumerated() {
            try put(.json, "replay-\(index).json", Array(line.utf8))
        }
        try put(.json, "appearance.json", Array(##"{"theme":"auto","accent":"#3ae","font":"DejaVu Sans:bold","textScale":3,"card":"#1a1a2e","dim":null,"cornerRadius":0}"##.utf8))
        try put(.json, "rich-content.json", Array(##"{"title":"Settings","items":[{"id":"wifi","label":"Wi-Fi","subtitle":"Home","icon":"network-wireless-symbolic","accessory":"toggle","on":true,"section":"Net"},{"id":"v","label":"V","accessory":"value","value":"80 %","disabled":true}],"guarded":false,"lang":"en-GB"}"##.utf8))
        try put(.json, "content.json", Array(#"{"title":"Menu","items":[{"id":"a","label":"A"},{"id":"b"}],"guarded":false}"#.utf8))
        // Sessions of calls as clients make them.
        let sessions: [[VarlinkCall]] = [
            [VarlinkCall(method: "io.sheetd.Sheet.GetState"), VarlinkCall(method: "io.sheetd.Sheet.ListDevices"),
             VarlinkCall(method: "org.varlink.service.GetInfo")],
            [VarlinkCall(method: "org.varlink.service.GetInterfaceDescription", parameters: .object(["interface": .string("io.sheetd.Sheet")]))],
            [VarlinkCall(method: "io.sheetd.Sheet.SetReduceMotion", parameters: .object(["enabled": .bool(true)])),
             VarlinkCall(method: "io.sheetd.Sheet.Present", parameters: .object(["detent": .string("expanded")])),
             VarlinkCall(method: "io.sheetd.Sheet.SetDetent", parameters: .object(["detent": .string("half")])),
             VarlinkCall(method: "io.sheetd.Sheet.Dismiss", parameters: .object(["force": .bool(true)]), oneway: true)],
            [VarlinkCall(method: "io.sheetd.Sheet.SetScreen", parameters: .object(["width": .number(64), "height": .number(16384), "scale": .number(16)])),
             VarlinkCall(method: "io.sheetd.Sheet.Present")],
            [VarlinkCall(method: "io.sheetd.Sheet.SetContent", parameters: .object([
                "title": .string("Menu"), "guarded": .bool(true),
                "items": .array([.object(["id": .string("a"), "label": .string("A")]), .object(["id": .string("b")])])])),
             VarlinkCall(method: "io.sheetd.Sheet.GetContent"), VarlinkCall(method: "io.sheetd.Sheet.Dismiss")],
            [VarlinkCall(method: "io.sheetd.Sheet.Focus", parameters: .object(["element": .string("a"), "command": .string("activate")])),
             VarlinkCall(method: "io.sheetd.Sheet.Focus", parameters: .object(["command": .string("move-down")])),
             VarlinkCall(method: "io.sheetd.Sheet.Focus", parameters: .object(["element": .string("close")]))],
            [VarlinkCall(method: "io.sheetd.Sheet.GetState"), VarlinkCall(method: "io.sheetd.Sheet.Monitor", more: true)],
            [VarlinkCall(method: "io.sheetd.Sheet.SetContent", parameters: .object(["items": .array([
                SheetItem(id: "wifi", label: "Wi-Fi", subtitle: "Home", icon: "network-wireless-symbolic",
                          accessory: .toggle(isOn: true), section: "Net").json,
                SheetItem(id: "dark", label: "Dark", accessory: .check(isChecked: false), disabled: true).json,
                SheetItem(id: "size", label: "Size", accessory: .value("120 %"), section: "Display").json,
                SheetItem(id: "about", label: "About", accessory: .chevron).json])])),
             VarlinkCall(method: "io.sheetd.Sheet.GetContent")],
            [VarlinkCall(method: "io.sheetd.Sheet.SetAppearance", parameters: .object([
                "theme": .string("dark"), "accent": .string("#e66100"), "font": .string("Noto Sans"), "textScale": .number(1.5),
                "card": .null, "dim": .string("#102030"), "cornerRadius": .number(12)])),
             VarlinkCall(method: "io.sheetd.Sheet.GetState")],
            [VarlinkCall(method: "io.sheetd.Sheet.SetPresentation", parameters: .object([
                "gestures": .array([.string("edge-swipe"), .string("bottom-bar")]), "edgeBand": .number(32),
                "barHeight": .number(72), "modal": .bool(false), "canOpen": .bool(true), "canClose": .bool(false),
                "touchExploration": .bool(true)])),
             VarlinkCall(method: "io.sheetd.Sheet.Dismiss", parameters: .object(["force": .bool(true)])),
             VarlinkCall(method: "io.sheetd.Sheet.GetState")],
            // Parameters no method takes: wrapped fields, a misspelt name (InvalidParameter).
            [VarlinkCall(method: "io.sheetd.Sheet.SetContent", parameters: .object(["content": .object(["title": .string("Menu")])])),
             VarlinkCall(method: "io.sheetd.Sheet.SetAppearance", parameters: .object(["textscale": .number(2)])),
             VarlinkCall(method: "org.varlink.service.GetInfo", parameters: .object(["verbose": .bool(true)])),
             VarlinkCall(method: "io.sheetd.Sheet.GetState")],
        ]
        for (index, calls) in sessions.enumerated() {
            // The first byte sets how the bytes are cut into reads; its high bit clear: the
            // sheet's socket.
            try put(.varlink, "session-\(index).varlink", [UInt8(truncatingIfNeeded: index * 40) & 0x7f] + calls.flatMap { $0.encoded() })
        }
        // A paced subscriber, and one asking for a rate it cannot have.
        try put(.varlink, "session-paced.varlink", [0x11] + [
            VarlinkCall(method: "io.sheetd.Sheet.Monitor", parameters: .object(["maxRate": .number(60)]), more: true),
        ].flatMap { $0.encoded() })
        try put(.varlink, "session-paced-refused.varlink", [0x12] + [
            VarlinkCall(method: "io.sheetd.Sheet.Monitor", parameters: .object(["maxRate": .number(1001)]), more: true),
            VarlinkCall(method: "io.sheetd.Sheet.GetState"),
        ].flatMap { $0.encoded() })
        // The input socket (the first byte's high bit set): a program's touchscreen and touchpad
        // as `sheetctl feed` and sheet-render drive them: open, frames, close.
        let input = InputInterface.name
        let devices = [
            PluginDevice(name: "feeder", kind: .touchscreen, x: 0...1080, y: 0...1920, slots: 2),
            PluginDevice(name: "pad", kind: .touchpad, x: 0...100, y: 0...60, sizeInMillimetres: (100, 60), slots: 3),
        ]
        for (index, device) in devices.enumerated() {
            var calls = [VarlinkCall(method: "\(input).OpenDevice", parameters: device.parameters)]
            let fingers = device.kind == .touchpad ? 2 : 1
            for step in 0..<6 {
                let phase: ContactPhase = step == 0 ? .down : step == 5 ? .up : .move
                let contacts = PluginContacts((0..<fingers).map { PluginContact(slot: $0, phase: phase, x: 20 + Double($0) * 20, y: 50 - Double(step) * 5) })!
                let frame = PluginFrame(sequence: Int64(step + 1), timeInMicroseconds: Int64(step) * 8_000, contacts: contacts)
                calls.append(VarlinkCall(method: "\(input).SendFrame", parameters: frame.parameters(device: 1)))
            }
            calls.append(VarlinkCall(method: "\(input).CloseDevice", parameters: .object(["device": .number(1)])))
            try put(.varlink, "input-session-\(index).varlink", [0x80 | UInt8(index * 40)] + calls.flatMap { $0.encoded() })
        }
        // SendFrame calls, one a file without its NUL: as clients write them, and as they
        // might (spaced, reordered, flagged, numbers of every form, full, one past full,
        // escaped, with a member the reader does not know), for the reader with no tree.
        let contact = #"{"slot":0,"phase":"move","x":540,"y":1000}"#
        let frames = [
            #"{"method":"io.sheetd.Input.SendFrame","parameters":{"device":1,"sequence":1,"time":1000,"contacts":[\#(contact)]}}"#,
            #" { "parameters" : { "contacts" : [ { "y" : 2.5 , "x" : -0 , "phase" : "down" , "slot" : 1 } ] , "time" : 0 , "sequence" : 0 , "device" : 3 } , "oneway" : true , "method" : "io.sheetd.Input.SendFrame" } "#,
            #"{"method":"io.sheetd.Input.SendFrame","more":false,"upgrade":false,"parameters":{"device":1,"sequence":9007199254740992,"time":1e3,"contacts":[]}}"#,
            #"{"method":"io.sheetd.Input.SendFrame","parameters":{"device":1,"sequence":2,"time":1.5E2,"contacts":[{"slot":0,"phase":"up","x":0.125,"y":1E-3}]}}"#,
            #"{"method":"io.sheetd.Input.SendFrame","parameters":{"device":1,"sequence":3,"time":3,"contacts":[\#(Array(repeating: contact, count: 16).joined(separator: ","))]}}"#,
            #"{"method":"io.sheetd.Input.SendFrame","parameters":{"device":1,"sequence":3,"time":3,"contacts":[\#(Array(repeating: contact, count: 17).joined(separator: ","))]}}"#,
            #"{"method":"io.sheetd.Input.SendFrame","parameters":{"device":1,"sequence":4,"time":4,"contacts":[{"slot":0,"phase":"\u006dove","x":1,"y":1}]}}"#,
            #"{"method":"io.sheetd.Input.SendFrame","parameters":{"device":1,"sequence":5,"time":5,"extra":null,"contacts":[]}}"#,
            #"{"method":"io.sheetd.Input.SendFrame","parameters":{"device":1,"sequence":6,"time":6,"contacts":[{"slot":0,"phase":"cancel","x":NaN,"y":1}]}}"#,
            #"{"method":"io.sheetd.Input.SendFrame","method":"io.sheetd.Input.SendFrame","parameters":{"device":1,"sequence":7,"time":7,"contacts":[]}}"#,
        ]
        for (index, frame) in frames.enumerated() { try put(.sendFrame, "frame-\(index).sendframe", Array(frame.utf8)) }

        // A few frames of events in the decoder's own encoding, for each device.
        for device in 0..<FuzzTarget.devices.count {
            var bytes: [UInt8] = [UInt8(device)]
            func event(_ step: UInt16, _ kind: UInt8, _ code: UInt16, _ value: Int32) {
                bytes += [UInt8(step & 0xff), UInt8(step >> 8), kind, UInt8(code & 0xff), UInt8(code >> 8)]
                bytes += withUnsafeBytes(of: value.littleEndian, Array.init)
            }
            event(0, 2, 0x2f, 0); event(0, 2, 0x39, 1); event(0, 2, 0x35, 500); event(0, 2, 0x36, 900)
            event(0, 1, 0x0a, 1); event(0, 0, 0, 0)
            for step in 1...20 {
                event(500, 2, 0x36, Int32(900 - step * 30)); event(0, 0, 0, 0)
            }
            event(500, 2, 0x39, -1); event(0, 1, 0x0a, 0); event(0, 0, 0, 0)
            try put(.decoder, "drag-\(device).events", bytes)
            // The same drag in multitouch protocol A (every contact each frame, closed by
            // SYN_MT_REPORT), with a second finger: libmtdev's input on a protocol-A device.
            bytes = [UInt8(device)]
            for step in 0...20 {
                event(step == 0 ? 0 : 500, 2, 0x35, 500); event(0, 2, 0x36, Int32(900 - step * 30)); event(0, 0, 2, 0)
                event(0, 2, 0x35, 100); event(0, 2, 0x36, 100); event(0, 0, 2, 0)
                if step == 0 { event(0, 1, 0x0a, 1) }
                event(0, 0, 0, 0)
            }
            event(500, 0, 2, 0); event(0, 1, 0x0a, 0); event(0, 0, 0, 0)
            try put(.decoder, "type-a-drag-\(device).events", bytes)
        }
    }
}
