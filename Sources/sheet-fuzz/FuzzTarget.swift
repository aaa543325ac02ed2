import Foundation
import Logging
import NIOCore
import NIOEmbedded
import SheetConfig
import SheetCore
import SheetProtocol
import SheetRecordings
import SheetRenderKit
import SheetReplay
import SheetServer

/// The parsers that take bytes from outside, each driven the way the daemon and its tools use
/// it, so that what one accepts also goes through what comes after it (a recording's device
/// into the decoder and the engine, a call's parameters into the core).
///
/// An input may be refused with an error; nothing may trap, hang or take memory out of
/// proportion to it. A target that finds a broken promise (not a refusal) stops the process.
enum FuzzTarget: String, CaseIterable {
    case evemu
    case libinputRecord = "libinput-record"
    case decoder
    case json
    case varlink
    case sendFrame = "sendframe"
    case configuration
    case png

    /// What the target is seeded with: files of the fixtures by extension.
    var seedExtensions: [String] {
        switch self {
        case .evemu: ["evemu", "events", "desc"]
        case .libinputRecord: ["yml"]
        case .decoder: []
        case .json: ["json"]
        case .varlink: ["varlink"]
        case .sendFrame: ["sendframe"]
        case .configuration: ["yaml"]
        case .png: ["png"]
        }
    }

    /// Makes what the target keeps across inputs.
    func prepare() {
        switch self {
        case .varlink: _ = VarlinkHarness.shared
        case .decoder: _ = Self.devices
        default: break
        }
    }

    func run(_ bytes: UnsafeRawBufferPointer) {
        switch self {
        case .evemu, .libinputRecord: Self.replay(Array(bytes))
        case .decoder: Self.decode(bytes)
        case .json: Self.json(Array(bytes))
        case .varlink: VarlinkHarness.shared.serve(bytes)
        case .sendFrame: Self.sendFrame(bytes)
        case .configuration: Self.configuration(bytes)
        case .png: Self.png(Array(bytes))
        }
    }

    // MARK: Recordings

    /// A recording read, decoded and replayed through the engine, as `sheetctl replay` does.
    static func replay(_ bytes: [UInt8]) {
        do {
            let source = try Recording.open(bytes: bytes, name: "input")
            var options = ReplayOptions()
            options.touches = true
            _ = try Replay.run(source: source, options: options, output: OutputBuffer())
        } catch {
            // Refused, with its reason: what the boundary is for.
        }
    }

    /// The devices of the fixtures' recordings, for the decoder.
    static let devices: [DeviceDescription] = {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Tests/Fixtures/traces").standardizedFileURL.path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let found = names.sorted().compactMap { name -> DeviceDescription? in
            guard !name.hasSuffix(".events"), !name.hasSuffix(".md") else { return nil }
            return try? Recording.open("\(folder)/\(name)").device
        }
        precondition(!found.isEmpty, "no recordings in \(folder)")
        return found
    }()

    /// Events straight into the decoder of one of the fixtures' devices, replayed through the
    /// engine as `sheetctl replay` does, each published state checked. The first byte picks
    /// the device and the screen; then 9 bytes an event: a time step (µs/16), a type, a code
    /// within the type's useful range, a value.
    static func decode(_ bytes: UnsafeRawBufferPointer) {
        guard let first = bytes.first else { return }
        var options = ReplayOptions()
        if first & 0x10 != 0 { options.engine.screen = ScreenSize(widthInPixels: 64, heightInPixels: 16384, scale: 16) }
        let source = EncodedEvents(bytes, device: devices[Int(first & 0x0f) % devices.count])
        do {
            _ = try Replay.run(source: source, options: options, output: OutputBuffer()) { frame in check(frame.sheet) }
        } catch {
            // The replay ended early: only what the observer throws, and it traps instead.
        }
    }

    /// What the engine publishes must be drawable: finite numbers, dim within 0…1.
    static func check(_ snapshot: SheetSnapshot) {
        guard snapshot.topInPixels.isFinite, snapshot.progress.isFinite, snapshot.velocityInPixelsPerSecond.isFinite,
              (0...1).contains(snapshot.dim) else {
            fatalError("the engine published a state no renderer can draw: \(snapshot)")
        }
    }

    /// The states among `outputs` must be drawable.
    static func check(_ outputs: [EngineOutput]) {
        for case .sheet(let snapshot) in outputs { check(snapshot) }
    }

    // MARK: The wire

    /// A message as a client or a daemon might send it: JSON, then each type read from it.
    /// What the writer writes must read back and write the same bytes again.
    static func json(_ bytes: [UInt8]) {
        guard let value = try? JSONReader.parse(bytes) else { return }
        var writer = JSONWriter()
        writer.append(value)
        guard let again = try? JSONReader.parse(writer.bytes) else {
            fatalError("the writer wrote what the reader refuses: \(String(decoding: writer.bytes, as: UTF8.self))")
        }
        var second = JSONWriter()
        second.append(again)
        guard second.bytes == writer.bytes else {
            fatalError("written twice, different bytes: \(String(decoding: writer.bytes, as: UTF8.self)) then \(String(decoding: second.bytes, as: UTF8.self))")
        }
        _ = try? VarlinkCall(message: bytes)
        _ = try? VarlinkReply(message: bytes)
        _ = try? MonitorUpdate(json: value)
        _ = try? SheetState(json: value)
        _ = try? ContentChange(json: value)
        // An appearance the daemon accepts is one a client reads back, and then writes the
        // same bytes (numbers are rounded on the wire, so the second writing is the test).
        if let change = try? AppearanceChange(json: value) {
            var written = JSONWriter()
            change.applied(to: .standard).write(to: &written)
            guard let read = try? Appearance(json: JSONReader.parse(written.bytes)) else {
                fatalError("an appearance the daemon accepts, refused by a client: \(String(decoding: written.bytes, as: UTF8.self))")
            }
            var again = JSONWriter()
            read.write(to: &again)
            guard again.bytes == written.bytes else {
                fatalError("an appearance written twice, different bytes: \(String(decoding: written.bytes, as: UTF8.self))")
            }
        }
        _ = try? InputDevice(json: value)
    }

    /// One message, read by `SendFrameCall` (no tree) and by the general readers, as the
    /// input socket reads every call: what the first takes, the second must take the same,
    /// to the bit. (What the first declines, the second reads as it always has.)
    static func sendFrame(_ bytes: UnsafeRawBufferPointer, writtenAgain: Bool = true) {
        guard let fast = SendFrameCall(message: bytes) else { return }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let call = try? VarlinkCall(message: Array(bytes)), call.method == SendFrameCall.method else {
            fatalError("SendFrameCall took a message the general reader does not take as SendFrame: \(text)")
        }
        guard call.more == fast.more, call.oneway == fast.oneway, call.parameters["device"]?.intValue == fast.device,
              let frame = try? PluginFrame(json: call.parameters) else {
            fatalError("SendFrameCall took a call the general reader refuses or reads otherwise: \(text)")
        }
        func same(_ a: PluginFrame, _ b: PluginFrame) -> Bool {
            a.sequence == b.sequence && a.timeInMicroseconds == b.timeInMicroseconds && a.contacts.count == b.contacts.count
                && zip(a.contacts, b.contacts).allSatisfy {
                    $0.slot == $1.slot && $0.phase == $1.phase && $0.x.bitPattern == $1.x.bitPattern && $0.y.bitPattern == $1.y.bitPattern
                }
        }
        guard same(frame, fast.frame) else {
            fatalError("SendFrameCall read \(fast.frame), the general reader \(frame): \(text)")
        }
        // Written again by a client, with no tree: the general writer's bytes, read back alike.
        var writer = JSONWriter(capacity: 256)
        fast.write(into: &writer)
        guard writer.bytes == VarlinkCall(method: call.method, parameters: frame.parameters(device: fast.device),
                                          more: fast.more, oneway: fast.oneway).encoded() else {
            fatalError("SendFrameCall wrote other bytes than the general writer: \(String(decoding: writer.bytes, as: UTF8.self))")
        }
        let written = Array(writer.bytes.dropLast())
        guard let writtenCall = try? VarlinkCall(message: written), (try? PluginFrame(json: writtenCall.parameters)) != nil else {
            fatalError("SendFrameCall wrote what the general reader refuses: \(String(decoding: written, as: UTF8.self))")
        }
        // What it wrote, read again by both (once: the bytes are written the same way again).
        if writtenAgain { written.withUnsafeBytes { sendFrame($0, writtenAgain: false) } }
    }

    // MARK: Files

    static func configuration(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        var settings = Settings()
        try? settings.load(text: text, path: "sheetd.yaml")
        _ = try? ContentFile.parse(text: text, path: "content.yaml")
    }

    static func png(_ bytes: [UInt8]) {
        // A display of 1920×1080 allows a picture of 4× its pixels, as sheet-render does.
        guard let picture = try? PNG.decode(bytes, maximumPixels: 4 * 1920 * 1080) else { return }
        guard picture.rgb.count == picture.width * picture.height * 3 else {
            fatalError("decoded \(picture.width)×\(picture.height) into \(picture.rgb.count) bytes")
        }
    }
}

/// The decoder target's events as a recording: 9 bytes an event after the first.
final class EncodedEvents: KernelEventSource {
    let path = "input"
    let device: DeviceDescription
    let ignoredDevices: [DeviceDescription] = []
    let warnings: [RecordingWarning] = []
    private let bytes: [UInt8]
    private var offset = 1
    private var time: Int64 = 0

    init(_ bytes: UnsafeRawBufferPointer, device: DeviceDescription) {
        self.bytes = Array(bytes)
        self.device = device
    }

    var bytesRead: Int { offset }
    var lineNumber: Int { (offset - 1) / 9 }

    func next() -> KernelEvent? {
        guard offset + 9 <= bytes.count else { return nil }
        defer { offset += 9 }
        time += Int64(UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8) * 16
        let rawCode = UInt16(bytes[offset + 3]) | UInt16(bytes[offset + 4]) << 8
        var value: Int32 = 0
        for index in 0..<4 { value |= Int32(bitPattern: UInt32(bytes[offset + 5 + index]) << (8 * UInt32(index))) }
        let (type, code): (UInt16, UInt16) = switch bytes[offset + 2] % 4 {
        case 0: (EventCode.EV_SYN, rawCode % 4)
        case 1: (EventCode.EV_KEY, 0x140 + rawCode % 0x10)  // BTN_TOOL_* and BTN_TOUCH
        default: (EventCode.EV_ABS, rawCode % 0x40)
        }
        return KernelEvent(time: Timestamp(microseconds: time), type: type, code: code, value: value)
    }
}
