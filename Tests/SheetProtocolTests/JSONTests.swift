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
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "0 0 12.5 960 -3 90000000000000 null ")
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

    /// What a broken or hostile daemon could send is a protocol error, never a trap: a
    /// sequence number past Int64, screens the daemon refuses, a negative scale, a dim past 1.
    @Test(arguments: [("\"seq\":7", "\"seq\":1e300"), ("\"timestampUSec\":123456789", "\"timestampUSec\":-1e19"),
                      ("\"width\":1080", "\"width\":14"), ("\"width\":1080", "\"width\":100000"),
                      ("\"height\":1920", "\"height\":0"), ("\"scale\":2", "\"scale\":-1"),
                      ("\"top\":812.5", "\"top\":1e19"), ("\"dim\":0.31", "\"dim\":2"), ("\"seq\":7", "\"seq\":7.5"),
                      // Detent names a configuration could not hold: too long, a quote, empty.
                      ("\"target\":\"expanded\"", "\"target\":\"\(String(repeating: "x", count: 16))\""),
                      ("\"target\":\"expanded\"", "\"target\":\"a\\\"b\""), ("\"target\":\"expanded\"", "\"target\":\"\"")])
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
            (#""cause":"animation""#, #""cause":"magic""#, #"field "cause" is not one of initial, user, animation, command"#),
            (#""kind":"long-press""#, #""kind":"pinch""#, #"field "kind" is not one of tap, long-press, pan, swipe"#),
            (#""phase":"changed""#, #""phase":"done""#, #"field "phase" is not one of began, changed, ended, cancelled, recognized"#),
            (#""y":2"#, #""y":2,"direction":"north""#, #"field "direction" is not one of up, down, left, right"#),
            (#""event":"dismiss-attempted""#, #""event":"item-swiped""#,
             #"field "event" is not one of item-tapped, reorder-began, reorder-moved, reorder-ended, dismiss-attempted"#),
            (#""cause":"dim-tap""#, #""cause":"shake""#, #"field "cause" is not one of swipe-down, drag, dim-tap, close-button"#),
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
