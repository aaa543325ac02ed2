import Foundation
import SheetCore
import SheetProtocol
import Testing

@Suite struct JSONTests {
    /// docs/protocol.md shows the interface the daemon serves, word for word.
    @Test func theProtocolDocumentShowsTheServedInterface() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/protocol.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let block = try #require(text.components(separatedBy: "```\n").dropFirst().first)
        #expect(block == SheetInterface.description + "\n", "docs/protocol.md's first block differs from SheetInterface.description")
        let input = text.components(separatedBy: "```\n").first { $0.hasPrefix("# Touch devices that programs feed") }
        #expect(input == InputInterface.description + "\n", "docs/protocol.md's io.sheetd.Input block differs from InputInterface.description")
    }

    /// What Python and JavaScript write for non-finite floats reads as a number no field takes.
    @Test func nonFiniteNumbersAreReadButNoFieldTakesThem() throws {
        let value = try JSONReader.parse(#"{"a":NaN,"b":Infinity,"c":-Infinity,"d":-1}"#)
        for key in ["a", "b", "c"] {
            #expect(value[key]?.doubleValue == nil && value[key]?.intValue == nil, "\(key)")
        }
        #expect(value["d"]?.intValue == -1)
        #expect(throws: JSONError.self) { _ = try JSONReader.parse("Nan") }
        #expect(throws: JSONError.self) { _ = try JSONReader.parse("-Inf") }
    }

    @Test func readsWhatItWritesWithKeysSorted() throws {
        let text = #"{"b":[1,2.5,-3e2,true,false,null],"a":"x\"y\\z\n\u00e9\ud83d\ude00"}"#
        let value = try JSONReader.parse(text)
        var writer = JSONWriter()
        writer.append(value)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"a":"x\"y\\z\né😀","b":[1,2.5,-300,true,false,null]}"#)
        #expect(try JSONReader.parse(writer.bytes) == value)
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\"}", "01", "1.", "-", "\"\\x\"", "\"\\ud800\"", "nul", "1 2", "{\"a\":1,}",
                      "\"a\u{01}\"", String(repeating: "[", count: 100) + String(repeating: "]", count: 100)])
    func refusesWhatIsNotJSON(_ text: String) {
        #expect(throws: JSONError.self) { _ = try JSONReader.parse(text) }
    }

    @Test func refusesBytesThatAreNotUTF8() {
        #expect(throws: JSONError.self) { _ = try JSONReader.parse([0x22, 0xff, 0x22]) }
    }

    @Test func numbersAreRoundedTheSameWayEveryTime() {
        var writer = JSONWriter()
        for value in [0.0, -0.0001, 12.5, 959.999, -3, 1e20, .nan] {
            writer.append(value, decimals: 2)
            writer.append(UInt8(ascii: " "))
        }
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "0 0 12.5 960 -3 9000000000000000 null ")
    }

    /// The writer formats numbers in a buffer on the stack; a reference that builds them as
    /// Strings gives the same bytes: every number of decimals, rounding, padding and trailing
    /// zeros, integers to their extremes, seconds either side of zero.
    @Test func numbersMatchAFormatterThatBuildsStrings() {
        func reference(_ value: Double, _ decimals: Int) -> String {
            guard value.isFinite else { return "null" }
            // Places are given up until the units fit in 15 digits.
            var decimals = decimals
            while decimals > 0, (abs(value) * pow(10, Double(decimals))).rounded() >= 1e15 { decimals -= 1 }
            var power = 1.0, divisor: Int64 = 1
            for _ in 0..<decimals { power *= 10; divisor *= 10 }
            let units = Int64(min((abs(value) * power).rounded(), 9.0e15))
            if units == 0 { return "0" }
            var text = (value < 0 ? "-" : "") + String(units / divisor)
            if units % divisor != 0 {
                var fraction = String(units % divisor)
                fraction = String(repeating: "0", count: decimals - fraction.count) + fraction
                while fraction.hasSuffix("0") { fraction.removeLast() }
                text += "." + fraction
            }
            return text
        }
        func written(_ body: (inout JSONWriter) -> Void) -> String {
            var writer = JSONWriter()
            body(&writer)
            return String(decoding: writer.bytes, as: UTF8.self)
        }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15  // a fixed stream: the same values every run
        func next() -> UInt64 { state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407; return state >> 11 }
        var values: [Double] = [0, -0.0, 0.005, 0.0049999, 1.05, 2.675, 959.999, -3, 1e-9, 1e15, 9.2e15, -1e20, .infinity, .nan]
        for _ in 0..<2_000 {
            let magnitude = Double(next() % 1_000_000_000) / Double(1 << (next() % 40))
            values.append(next() % 2 == 0 ? magnitude : -magnitude)
        }
        for value in values {
            for decimals in 0...6 {
                #expect(written { $0.append(value, decimals: decimals) } == reference(value, decimals), "\(value), \(decimals) decimals")
            }
        }
        for value: Int64 in [0, 7, -7, 10, -10, 1_000_000, .max, .min, .max - 1, .min + 1] + (0..<200).map { _ in Int64(bitPattern: next() << 11) } {
            #expect(written { $0.appendInteger(value) } == String(value))
            let seconds = (value < 0 ? "-" : "") + String(value.magnitude / 1_000_000) + "."
                + String(String(value.magnitude % 1_000_000 + 1_000_000).dropFirst())
            #expect(written { $0.appendSeconds(value) } == seconds)
        }
    }

    /// What the writer writes reads back to a value it writes the same way: a number with
    /// more places than a double holds (found by fuzzing: `4444444444.43` became
    /// `4444444444.430001`, then `4444444444.430002`) is written with fewer.
    @Test func numbersReadBackToTheSameBytes() throws {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D  // a fixed stream: the same values every run
        func next() -> UInt64 { state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407; return state >> 11 }
        var values: [Double] = [4444444444.43, -4444444444.43, 999999999.9999996, 1e15 - 0.5, 0.1, 123456789012.345678]
        for _ in 0..<20_000 {
            let magnitude = Double(next()) / Double(UInt64(1) << (next() % 53))
            values.append(next() % 2 == 0 ? magnitude : -magnitude)
        }
        for value in values {
            var first = JSONWriter()
            first.append(JSONValue.number(value))
            var second = JSONWriter()
            second.append(try JSONReader.parse(first.bytes))
            #expect(second.bytes == first.bytes, "\(value): \(String(decoding: first.bytes, as: UTF8.self)) then \(String(decoding: second.bytes, as: UTF8.self))")
        }
    }

    /// A state's colours are written byte by byte; they spell each colour as `RGB.description`
    /// does, and read back as the same colours.
    @Test func coloursAreWrittenAsTheirDescription() throws {
        for step in stride(from: 0, through: 0xFFFFFF, by: 0x010203) {
            let colour = RGB(hex: UInt32(step))
            let appearance = Appearance(theme: .dark, accent: colour, card: RGB(hex: UInt32(0xFFFFFF - step)), dim: .black)
            var writer = JSONWriter()
            appearance.write(to: &writer)
            let text = String(decoding: writer.bytes, as: UTF8.self)
            #expect(text.contains("\"accent\":\"\(colour.description)\""), "\(text)")
            #expect(text.contains("\"dim\":\"#000000\""), "\(text)")
            #expect(try Appearance(json: JSONReader.parse(writer.bytes)) == appearance)
        }
    }

    /// Strings with nothing to escape go in whole; the rest are escaped; both read back as
    /// they were.
    @Test(arguments: ["wifi", "", "Wi-Fi 5 GHz", "é ü ✓ 🎉", "a\"b", "back\\slash", "tab\there", "line\nbreak", "\u{1}\u{1f}"])
    func stringsSurviveTheWriter(_ text: String) throws {
        var writer = JSONWriter()
        writer.appendString(text)
        #expect(try JSONReader.parse(writer.bytes) == .string(text))
    }
}

@Suite struct VarlinkMessageTests {
    @Test func aCallReadsItsFlagsAndSplitsItsMethod() throws {
        let call = try VarlinkCall(message: Array(#"{"method":"io.sheetd.Sheet.Monitor","more":true}"#.utf8))
        #expect(call.interface == "io.sheetd.Sheet")
        #expect(call.name == "Monitor")
        #expect(call.more && !call.oneway)
        #expect(call.parameters == .object([:]))
        #expect(try VarlinkCall(message: call.encoded().dropLast()) == call)
    }

    @Test(arguments: [#"[]"#, #"{}"#, #"{"method":""}"#, #"{"method":"a.B","parameters":[]}"#, #"{"method":"a.B","more":1}"#,
                      #"{"method":"io.sheetd.Sheet.GetState","method":"io.sheetd.Sheet.Dismiss"}"#,
                      #"{"method":"a.B","parameters":{"force":false,"force":true}}"#])
    func refusesMalformedCalls(_ text: String) {
        #expect(throws: ProtocolError.self) { _ = try VarlinkCall(message: Array(text.utf8)) }
    }

    @Test func aMonitorUpdateSurvivesTheWire() throws {
        let state = SheetState(state: .settling, detent: nil, target: .expanded, topInPixels: 812.5, progress: 0.62,
                               dim: 0.31, velocityInPixelsPerSecond: -1200, screen: ScreenSize(widthInPixels: 1080, heightInPixels: 1920, scale: 2),
                               cause: .animation, detents: [DetentPosition(name: .half, topInPixels: 960)])
        let update = MonitorUpdate(sequence: 7, timestampInMicroseconds: 123_456_789, state: state,
                                   gesture: GestureReport(kind: .swipe, phase: .recognized, xInPixels: 10, yInPixels: 20,
                                                          velocityInPixelsPerSecond: (0, 900), direction: .down))
        var writer = JSONWriter()
        update.writeParameters(to: &writer)
        #expect(try MonitorUpdate(json: try JSONReader.parse(writer.bytes)) == update)
    }

    /// An item with every field travels whole, in `SetContent` and in `GetContent`'s answer;
    /// each field past its limit, of the wrong type, or an icon that could be a path, is
    /// refused with the item's index and field.
    @Test func richItemsSurviveTheWireAndBadOnesAreNamed() throws {
        let items = [
            SheetItem(id: "wifi", label: "Wi-Fi", subtitle: "Home", icon: "network-wireless-symbolic",
                      accessory: .toggle(isOn: true), section: "Net"),
            SheetItem(id: "dark", label: "Dark", accessory: .check(isChecked: false), disabled: true, section: "Net"),
            SheetItem(id: "size", label: "Text size", accessory: .value("120 %")),
            SheetItem(id: "about", label: "About", accessory: .chevron),
        ]
        let change = ContentChange(title: "Settings", items: items)
        #expect(try ContentChange(json: .object(change.parameters)) == change)
        var writer = JSONWriter()
        SheetContent(title: "Settings", items: items).write(to: &writer)
        #expect(try SheetContent(json: try JSONReader.parse(writer.bytes)).items == items)
        let text = String(decoding: writer.bytes, as: UTF8.self)
        #expect(text.contains(#"{"id":"wifi","label":"Wi-Fi","subtitle":"Home","icon":"network-wireless-symbolic","accessory":"toggle","on":true,"section":"Net"}"#), "\(text)")

        let long = String(repeating: "x", count: 300)
        for (item, field) in [(#"{"id":"a","icon":"../../etc/passwd"}"#, "items[0].icon"), (#"{"id":"a","icon":"a/b"}"#, "items[0].icon"),
                              (#"{"id":"a","icon":".hidden"}"#, "items[0].icon"), (#"{"id":"a","icon":7}"#, "items[0].icon"),
                              (#"{"id":"a","accessory":"slider"}"#, "items[0].accessory"), (#"{"id":"a","accessory":"toggle","on":"yes"}"#, "items[0].on"),
                              (#"{"id":"a","disabled":1}"#, "items[0].disabled"), ("{\"id\":\"a\",\"subtitle\":\"\(long)\"}", "items[0].subtitle"),
                              ("{\"id\":\"a\",\"accessory\":\"value\",\"value\":\"\(long)\"}", "items[0].value"),
                              ("{\"id\":\"a\",\"section\":\"\(long)\"}", "items[0].section")] {
            do {
                _ = try ContentChange(json: try JSONReader.parse("{\"items\":[\(item)]}"))
                Issue.record("accepted \(item)")
            } catch let problem as ContentProblem {
                #expect(problem.path == field, "\(item): \(problem)")
            }
        }
    }

    /// The card's extent travels in pixels; a state from a daemon that sends none spans the
    /// screen, as every card did before it had a width of its own.
    @Test func theCardsExtentSurvivesTheWireAndDefaultsToTheScreen() throws {
        let state = SheetState(state: .resting, detent: .half, target: nil, topInPixels: 360, progress: 0.5, dim: 0.7,
                               velocityInPixelsPerSecond: 0, screen: ScreenSize(widthInPixels: 1920, heightInPixels: 720),
                               cause: .initial, detents: [], cardInPixels: CardSpan(left: 640, width: 640))
        var writer = JSONWriter()
        state.write(to: &writer)
        let text = String(decoding: writer.bytes, as: UTF8.self)
        #expect(text.contains(#""card":{"x":640,"width":640}"#), "\(text)")
        #expect(try SheetState(json: try JSONReader.parse(text)) == state)
        let old = text.replacingOccurrences(of: #""card":{"x":640,"width":640},"#, with: "")
        #expect(try SheetState(json: try JSONReader.parse(old)).cardInPixels == CardSpan(left: 0, width: 1920))
    }

    /// The presentation and the region travel in every state; a region whose sides, each
    /// rounded on its own, end a hair past the screen's edge is cut there (a renderer once
    /// exited on a card settling off a 960 px screen: y 714.69 and height 245.31 on the wire).
    /// `SetPresentation`'s parameters are held to their limits, each refusal naming its field.
    @Test func thePresentationAndTheRegionSurviveTheWire() throws {
        var presentation = SheetPresentation()
        presentation.gestures = [.edgeSwipe, .bottomBar]
        presentation.modal = false
        presentation.canClose = false
        let state = SheetState(state: .settling, detent: nil, target: .hidden, topInPixels: 749.694, progress: 0.2, dim: 0,
                               velocityInPixelsPerSecond: 3000, screen: ScreenSize(widthInPixels: 540, heightInPixels: 960),
                               cause: .animation, detents: [], presentation: presentation,
                               regionInPixels: ScreenRegion(x: 0, y: 714.694, width: 540, height: 245.306))
        var writer = JSONWriter()
        state.write(to: &writer)
        let text = String(decoding: writer.bytes, as: UTF8.self)
        #expect(text.contains(#""presentation":{"gestures":["edge-swipe","bottom-bar"],"edgeBand":24,"barHeight":64,"modal":false,"canOpen":true,"canClose":false,"touchExploration":false,"speech":"off","speaking":false,"speechRate":0,"speechVolume":100}"#), "\(text)")
        #expect(text.contains(#""region":{"x":0,"y":714.69,"width":540,"height":245.31}"#), "\(text)")
        let read = try SheetState(json: try JSONReader.parse(text))
        #expect(read.presentation == presentation)
        #expect(read.regionInPixels.y + read.regionInPixels.height <= 960)
        // Speech while headphones are plugged, with exploration following it: all of it survives.
        var spoken = presentation
        spoken.speech = .headset
        spoken.headphonesPlugged = true
        spoken.speechRate = -40
        spoken.speechVolume = 60
        var spokenWriter = JSONWriter()
        spoken.write(to: &spokenWriter)
        let spokenText = String(decoding: spokenWriter.bytes, as: UTF8.self)
        #expect(spokenText.contains(#""touchExploration":true,"speech":"headset","speaking":true,"speechRate":-40,"speechVolume":60"#), "\(spokenText)")
        #expect(try SheetPresentation(json: try JSONReader.parse(spokenText)) == spoken)
        var setting = JSONWriter()
        spoken.writeSetting(to: &setting)
        let kept = try SheetPresentation(json: try JSONReader.parse(String(decoding: setting.bytes, as: UTF8.self)))
        #expect(kept.touchExploration == nil && !kept.headphonesPlugged, "a saved presentation keeps the setting, not the device's word")
        let tooTall = text.replacingOccurrences(of: #""height":245.31"#, with: #""height":961"#)
        #expect(throws: ProtocolError.self) { _ = try SheetState(json: try JSONReader.parse(tooTall)) }

        let change = PresentationChange(gestures: PresentGestures.none, modal: true, canOpen: false)
        #expect(try PresentationChange(json: .object(change.parameters)) == change)
        for (parameters, field) in [(#"{"gestures":["swipe"]}"#, "gestures"), (#"{"gestures":"edge-swipe"}"#, "gestures"),
                                    (#"{"edgeBand":1}"#, "edgeBand"), (#"{"barHeight":1000}"#, "barHeight"),
                                    (#"{"modal":"yes"}"#, "modal"), (#"{"canClose":1}"#, "canClose"), ("[]", "parameters")] {
            #expect(throws: ContentProblem.self, "\(parameters)") { _ = try PresentationChange(json: try JSONReader.parse(parameters)) }
            do { _ = try PresentationChange(json: try JSONReader.parse(parameters)) } catch let problem as ContentProblem { #expect(problem.field == field, "\(parameters)") }
        }
    }

    /// The appearance travels in every state, and `SetAppearance`'s parameters are held to the
    /// same limits, each refusal naming its field.
    @Test func theAppearanceSurvivesTheWire() throws {
        let appearance = Appearance(theme: .dark, accent: RGB(hex: 0xE66100), font: "Noto Sans \"Bold\"", textScale: 1.5,
                                    card: RGB(hex: 0x1A1A2E), dim: nil, cornerRadiusInPoints: 12)
        let state = SheetState(state: .resting, detent: .half, target: nil, topInPixels: 960, progress: 0.5, dim: 0.7,
                               velocityInPixelsPerSecond: 0, screen: ScreenSize(widthInPixels: 1080, heightInPixels: 1920),
                               cause: .initial, detents: [], appearance: appearance)
        var writer = JSONWriter()
        state.write(to: &writer)
        let text = String(decoding: writer.bytes, as: UTF8.self)
        #expect(text.contains(##""appearance":{"theme":"dark","accent":"#e66100","font":"Noto Sans \"Bold\"","textScale":1.5,"card":"#1a1a2e","dim":null,"cornerRadius":12}"##), "\(text)")
        #expect(try SheetState(json: try JSONReader.parse(text)).appearance == appearance)
        // A daemon from before appearances: the standard one.
        let old = try JSONReader.parse(text.replacingOccurrences(of: #"(,"appearance":\{[^}]*\})"#, with: "", options: .regularExpression))
        #expect(try SheetState(json: old).appearance == .standard)

        let change = AppearanceChange(theme: .light, card: .some(nil), cornerRadiusInPoints: 0)
        #expect(try AppearanceChange(json: .object(change.parameters)) == change)
        // textScale null: auto, each renderer's; it survives the wire both ways.
        let auto = AppearanceChange(textScale: .some(nil))
        #expect(try AppearanceChange(json: .object(auto.parameters)) == auto)
        #expect(try AppearanceChange(json: try JSONReader.parse(#"{"textScale":null}"#)).applied(to: appearance).textScale == nil)
        var automatic = appearance
        automatic.textScale = nil
        var autoWriter = JSONWriter()
        automatic.write(to: &autoWriter)
        #expect(String(decoding: autoWriter.bytes, as: UTF8.self).contains(#""textScale":null"#))
        #expect(try Appearance(json: try JSONReader.parse(String(decoding: autoWriter.bytes, as: UTF8.self))) == automatic)
        #expect(change.applied(to: appearance).card == nil && change.applied(to: appearance).font == appearance.font)
        for (parameters, field) in [(#"{"theme":"sepia"}"#, "theme"), (#"{"accent":"blue"}"#, "accent"), (#"{"accent":3}"#, "accent"),
                                    (#"{"textScale":0.1}"#, "textScale"), (#"{"textScale":"big"}"#, "textScale"),
                                    (#"{"cornerRadius":65}"#, "cornerRadius"), (##"{"card":"#12345"}"##, "card"),
                                    (#"{"dim":true}"#, "dim"), (#"{"font":"a\u0000b"}"#, "font"),
                                    ("{\"font\":\"\(String(repeating: "x", count: 257))\"}", "font"), ("[]", "parameters")] {
            #expect(throws: ContentProblem.self, "\(parameters)") { _ = try AppearanceChange(json: try JSONReader.parse(parameters)) }
            do { _ = try AppearanceChange(json: try JSONReader.parse(parameters)) } catch let problem as ContentProblem {
                #expect(problem.field == field, "\(parameters): \(problem)")
            }
        }
    }

    /// What a broken or hostile daemon could send is a protocol error, never a trap: a
    /// sequence number past Int64, screens the daemon refuses, a negative scale, a dim past 1.
    @Test(arguments: [("\"seq\":7", "\"seq\":1e300"), ("\"timestampUSec\":123456789", "\"timestampUSec\":-1e19"),
                      ("\"width\":1080", "\"width\":14"), ("\"width\":1080", "\"width\":100000"),
                      ("\"height\":1920", "\"height\":0"), ("\"scale\":2", "\"scale\":-1"),
                      ("\"top\":812.5", "\"top\":1e19"), ("\"dim\":0.31", "\"dim\":2"), ("\"seq\":7", "\"seq\":7.5"),
                      // Detent names a configuration could not hold: too long, a quote, empty.
                      ("\"target\":\"expanded\"", "\"target\":\"\(String(repeating: "x", count: 16))\""),
                      ("\"target\":\"expanded\"", "\"target\":\"a\\\"b\""), ("\"target\":\"expanded\"", "\"target\":\"\""),
                      // A card off the screen, wider than it, or of no width.
                      ("\"x\":0", "\"x\":-1"), ("\"x\":0", "\"x\":1080"),
                      ("\"card\":{\"x\":0,\"width\":1080}", "\"card\":{\"x\":100,\"width\":1000}"),
                      ("\"card\":{\"x\":0,\"width\":1080}", "\"card\":{\"x\":0,\"width\":0}")])
    func impossibleStatesAreProtocolErrors(_ field: String, _ replacement: String) throws {
        let state = SheetState(state: .settling, detent: nil, target: .expanded, topInPixels: 812.5, progress: 0.62,
                               dim: 0.31, velocityInPixelsPerSecond: -1200, screen: ScreenSize(widthInPixels: 1080, heightInPixels: 1920, scale: 2),
                               cause: .animation, detents: [])
        var writer = JSONWriter()
        MonitorUpdate(sequence: 7, timestampInMicroseconds: 123_456_789, state: state, gesture: nil).writeParameters(to: &writer)
        let text = String(decoding: writer.bytes, as: UTF8.self)
        #expect(text.contains(field))
        let bad = try JSONReader.parse(text.replacingOccurrences(of: field, with: replacement))
        #expect(throws: ProtocolError.self) { _ = try MonitorUpdate(json: bad) }
    }

    /// The wire's names are the core's own (`Named`): every case of every enum the wire carries
    /// reads back as itself, and a name the core does not have is an error that says which
    /// field and what it takes, not a string passed on to the client.
    @Test func theWireNamesAreTheCoresAndNothingElse() throws {
        func roundTrips<Value: Named & Equatable>(_: Value.Type) -> Bool {
            Value.allCases.allSatisfy { Value(name: $0.name.description) == $0 } && Value(name: "nothing") == nil
        }
        #expect(roundTrips(SheetMachine.StateKind.self) && roundTrips(SheetCause.self) && roundTrips(GestureKind.self)
                && roundTrips(GesturePhase.self) && roundTrips(SwipeDirection.self) && roundTrips(ContentEvent.Kind.self)
                && roundTrips(DismissCause.self))
        #expect(GestureKind(name: "long-press") == .longPress && GestureKind(name: "longPress") == nil)

        let state = SheetState(state: .settling, detent: nil, target: .expanded, topInPixels: 812.5, progress: 0.62,
                               dim: 0.31, velocityInPixelsPerSecond: -1200, screen: ScreenSize(widthInPixels: 1080, heightInPixels: 1920, scale: 2),
                               cause: .animation, detents: [])
        var writer = JSONWriter()
        MonitorUpdate(sequence: 7, timestampInMicroseconds: 1, state: state,
                      gesture: GestureReport(kind: .longPress, phase: .changed, xInPixels: 1, yInPixels: 2),
                      events: [SheetEvent(kind: .dismissAttempted, cause: .dimTap)]).writeParameters(to: &writer)
        let text = String(decoding: writer.bytes, as: UTF8.self)
        #expect(text.contains(#""state":"settling""#) && text.contains(#""cause":"animation""#)
                && text.contains(#""kind":"long-press","phase":"changed""#)
                && text.contains(#"{"event":"dismiss-attempted","cause":"dim-tap"}"#))
        for (field, replacement, message) in [
            (#""state":"settling""#, #""state":"floating""#, #"field "state" is not one of resting, dragging, settling"#),
            (#""cause":"animation""#, #""cause":"magic""#, #"field "cause" is not one of initial, user, animation, command, keys"#),
            (#""kind":"long-press""#, #""kind":"pinch""#, #"field "kind" is not one of tap, long-press, pan, swipe"#),
            (#""phase":"changed""#, #""phase":"done""#, #"field "phase" is not one of began, changed, ended, cancelled, recognized"#),
            (#""y":2"#, #""y":2,"direction":"north""#, #"field "direction" is not one of up, down, left, right"#),
            (#""event":"dismiss-attempted""#, #""event":"item-swiped""#,
             #"field "event" is not one of item-tapped, item-toggled, reorder-began, reorder-moved, reorder-ended, dismiss-attempted, presented"#),
            (#""cause":"dim-tap""#, #""cause":"shake""#, #"field "cause" is not one of swipe-down, drag, dim-tap, close-button, back"#),
        ] {
            #expect(text.contains(field))
            let bad = try JSONReader.parse(text.replacingOccurrences(of: field, with: replacement))
            #expect(throws: ProtocolError(message)) { _ = try MonitorUpdate(json: bad) }
        }
    }

    @Test func theInterfaceDescriptionsNameTheirInterfaces() {
        #expect(SheetInterface.description.contains("interface io.sheetd.Sheet\n"))
        #expect(SheetInterface.serviceDescription.contains("interface org.varlink.service\n"))
        for method in ["GetState", "Monitor", "Present", "Dismiss", "SetDetent", "SetScreen", "ListDevices"] {
            #expect(SheetInterface.description.contains("method \(method)("))
        }
    }
}
