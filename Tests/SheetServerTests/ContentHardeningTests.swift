import Foundation
import SheetClient
import SheetCore
import SheetProtocol
import SheetTestSupport
import Testing

/// Content and appearance attacked on the real daemon: every field at its limit (taken) and one
/// past (refused, naming the field), icon names that are paths, invalid UTF-8 in each field,
/// a font that matches nothing. After each refusal the sheet holds what it held, and the daemon
/// answers the next client.
@Suite(.serialized) struct ContentHardeningTests {
    /// The varlink error a call got, with its parameter, or nil when it was taken.
    private func refusal(_ body: () throws(ClientError) -> Void) -> (name: String, parameter: String?)? {
        do {
            try body()
            return nil
        } catch {
            guard case .remote(let name, let parameters) = error else { return ("\(error)", nil) }
            return (name, parameters["parameter"]?.stringValue)
        }
    }

    private let invalid = "org.varlink.service.InvalidParameter"

    @Test func everyContentFieldAtItsLimitIsTakenAndOnePastIsRefusedByName() throws {
        let daemon = try RunningDaemon(["--input", "none"])
        let client = try daemon.client()
        let kept = SheetContent(title: "kept", items: [SheetItem(id: "a", label: "A")])
        try client.setContent(ContentChange(kept))
        /// A label of `bytes` bytes of Korean (3 bytes a syllable), topped up with ASCII: the
        /// limits count bytes, not characters.
        func text(_ bytes: Int) -> String { String(repeating: "한", count: bytes / 3) + String(repeating: "a", count: bytes % 3) }
        typealias Case = (field: String, limit: Int, make: (String) -> ContentChange)
        let cases: [Case] = [
            ("title", SheetContent.Limits.titleBytes, { ContentChange(title: $0) }),
            ("items[0].id", SheetContent.Limits.idBytes, { ContentChange(items: [SheetItem(id: $0, label: "x")]) }),
            ("items[0].label", SheetContent.Limits.labelBytes, { ContentChange(items: [SheetItem(id: "x", label: $0)]) }),
            ("items[0].subtitle", SheetContent.Limits.subtitleBytes, { ContentChange(items: [SheetItem(id: "x", label: "x", subtitle: $0)]) }),
            ("items[0].value", SheetContent.Limits.valueBytes, { ContentChange(items: [SheetItem(id: "x", label: "x", accessory: .value($0))]) }),
            ("items[0].section", SheetContent.Limits.sectionBytes, { ContentChange(items: [SheetItem(id: "x", label: "x", section: $0)]) }),
        ]
        for (field, limit, make) in cases {
            #expect(refusal { () throws(ClientError) in try client.setContent(make(text(limit))) } == nil, "\(field) at \(limit) bytes")
            try client.setContent(ContentChange(kept))
            let past = refusal { () throws(ClientError) in try client.setContent(make(text(limit + 1))) }
            #expect(past?.name == invalid && past?.parameter == field, "\(field) at \(limit + 1) bytes: \(String(describing: past))")
            #expect(try client.content() == kept, "\(field): a refused change leaves the content as it was")
        }
        // An icon's name: ASCII, at most 64 bytes; never a path.
        let icon = String(repeating: "i", count: SheetContent.Limits.iconBytes)
        #expect(refusal { () throws(ClientError) in try client.setContent(ContentChange(items: [SheetItem(id: "x", label: "x", icon: icon)])) } == nil)
        for name in [icon + "i", "../../etc/passwd", "a/b", "/usr/share/icons/hicolor/48x48/apps/x.png", ".hidden", "..", "한"] {
            let refused = refusal { () throws(ClientError) in try client.setContent(ContentChange(items: [SheetItem(id: "x", label: "x", icon: name)])) }
            #expect(refused?.name == invalid && refused?.parameter == "items[0].icon", "icon \(name)")
        }
        // 1,024 items and one more.
        let items = (0..<SheetContent.Limits.items).map { SheetItem(id: "i\($0)", label: "\($0)") }
        #expect(refusal { () throws(ClientError) in try client.setContent(ContentChange(items: items)) } == nil)
        let tooMany = refusal { () throws(ClientError) in try client.setContent(ContentChange(items: items + [SheetItem(id: "last", label: "last")])) }
        #expect(tooMany?.name == invalid && tooMany?.parameter == "items")
        #expect(try client.content().items.count == SheetContent.Limits.items)
        #expect(daemon.log.contains("SetContent refused: items[0].icon: not an icon name"))
        #expect(daemon.stop() == 0)
    }

    /// A byte that is not UTF-8 inside each string field: the message is not JSON, the call is
    /// refused (the connection closed), nothing changes, the next client is answered.
    @Test func invalidUTF8InEveryFieldIsRefusedAndChangesNothing() throws {
        let daemon = try RunningDaemon(["--input", "none"])
        let client = try daemon.client()
        let kept = SheetContent(title: "kept", items: [SheetItem(id: "a", label: "A")])
        try client.setContent(ContentChange(kept))
        let before = try client.state().appearance
        let bad = "\u{1}BAD\u{1}"  // replaced by the bytes C3 28 (a lead byte with no continuation)
        let calls = [
            ("SetContent", #"{"title":"\#(bad)"}"#),
            ("SetContent", #"{"items":[{"id":"\#(bad)","label":"x"}]}"#),
            ("SetContent", #"{"items":[{"id":"x","label":"\#(bad)"}]}"#),
            ("SetContent", #"{"items":[{"id":"x","label":"x","subtitle":"\#(bad)"}]}"#),
            ("SetContent", #"{"items":[{"id":"x","label":"x","icon":"\#(bad)"}]}"#),
            ("SetContent", #"{"items":[{"id":"x","label":"x","section":"\#(bad)"}]}"#),
            ("SetContent", #"{"items":[{"id":"x","label":"x","accessory":"value","value":"\#(bad)"}]}"#),
            ("SetAppearance", #"{"font":"\#(bad)"}"#),
        ]
        for (method, parameters) in calls {
            var bytes = Array(#"{"method":"io.sheetd.Sheet.\#(method)","parameters":\#(parameters)}"#.utf8)
            while let start = bytes.firstIndex(of: 1) {
                let end = bytes[(start + 1)...].firstIndex(of: 1)!
                bytes.replaceSubrange(start...end, with: [0xC3, 0x28])
            }
            let connection = try daemon.client().connection
            try connection.sendRaw(bytes + [0])
            let answer = Result { () throws(ClientError) -> VarlinkReply in try connection.readReply() }
            switch answer {
            case .success(let reply): #expect(reply.error != nil, "\(method) \(parameters): taken")
            case .failure: break  // closed without a reply: refused too
            }
            #expect(try daemon.client().content() == kept, "\(method) \(parameters)")
        }
        #expect(try daemon.client().state().appearance == before)
        #expect(daemon.process.isRunning)
        #expect(daemon.stop() == 0)
    }

    /// The appearance's limits, and a font name that matches no font: the name is the
    /// renderer's to resolve (fontconfig falls back, and the renderer says so), so the daemon
    /// takes it as it takes any name within the limits.
    @Test func appearanceLimitsAndAFontThatMatchesNothing() throws {
        let daemon = try RunningDaemon(["--input", "none"])
        let client = try daemon.client()
        #expect(refusal { () throws(ClientError) in try client.setAppearance(AppearanceChange(font: "No Such Font Anywhere 12")) } == nil)
        #expect(try client.state().appearance.font == "No Such Font Anywhere 12")
        let font = String(repeating: "f", count: Appearance.Limits.fontBytes)
        #expect(refusal { () throws(ClientError) in try client.setAppearance(AppearanceChange(font: font)) } == nil)
        for change in [AppearanceChange(font: font + "f"), AppearanceChange(font: "Sans\n12"),
                       AppearanceChange(textScale: Appearance.Limits.textScale.upperBound + 0.01),
                       AppearanceChange(textScale: Appearance.Limits.textScale.lowerBound - 0.01),
                       AppearanceChange(cornerRadiusInPoints: Appearance.Limits.cornerRadiusInPoints.upperBound + 0.5),
                       AppearanceChange(cornerRadiusInPoints: -1)] {
            let refused = refusal { () throws(ClientError) in try client.setAppearance(change) }
            #expect(refused?.name == invalid, "\(change)")
        }
        #expect(refusal { () throws(ClientError) in
            try client.setAppearance(AppearanceChange(textScale: Appearance.Limits.textScale.upperBound, cornerRadiusInPoints: Appearance.Limits.cornerRadiusInPoints.upperBound))
        } == nil)
        #expect(try client.state().appearance.font == font, "refused changes left the font")
        #expect(daemon.stop() == 0)
    }
}
