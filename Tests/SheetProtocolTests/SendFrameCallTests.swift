import SheetCore
import SheetProtocol
import Testing

/// `SendFrameCall` reads a frame from the bytes with no tree; what it takes must be what the
/// general readers take, and what it declines is theirs to read or refuse.
struct SendFrameCallTests {
    static let contact = #"{"slot":0,"phase":"move","x":540,"y":1000}"#

    func fast(_ text: String) -> SendFrameCall? {
        Array(text.utf8).withUnsafeBytes { SendFrameCall(message: $0) }
    }

    /// What the general readers make of it: the call's flags, the device and the frame.
    func general(_ text: String) throws -> SendFrameCall {
        let call = try VarlinkCall(message: Array(text.utf8))
        #expect(call.method == SendFrameCall.method)
        let device = try #require(call.parameters["device"]?.intValue)
        return SendFrameCall(device: device, frame: try PluginFrame(json: call.parameters), more: call.more, oneway: call.oneway)
    }

    static let taken = [
        #"{"method":"io.sheetd.Input.SendFrame","parameters":{"device":1,"sequence":1,"time":1000,"contacts":[\#(contact)]}}"#,
        // Spaced and reordered, with flags.
        " \t{ \"parameters\" : { \"contacts\" : [ { \"y\" : 2.5 , \"x\" : -0 , \"phase\" : \"down\" , \"slot\" : 1 } ] , \"time\" : 0 ,\n"
            + " \"sequence\" : 0 , \"device\" : 3 } , \"oneway\" : true , \"more\" : true , \"method\" : \"io.sheetd.Input.SendFrame\" }\r\n",
        // Numbers in every form JSON has, within 15 bytes.
        #"{"method":"io.sheetd.Input.SendFrame","parameters":{"device":2,"sequence":4,"time":1.5E2,"contacts":[{"slot":0,"phase":"up","x":0.125,"y":1e-3}]}}"#,
        #"{"method":"io.sheetd.Input.SendFrame","parameters":{"device":2,"sequence":999999999999999,"time":-7,"contacts":[]},"upgrade":false}"#,
        // A full frame.
        #"{"method":"io.sheetd.Input.SendFrame","parameters":{"device":1,"sequence":3,"time":3,"contacts":[\#(Array(repeating: contact, count: 16).joined(separator: ","))]}}"#,
    ]

    @Test(arguments: taken)
    func whatItTakesIsWhatTheGeneralReadersRead(_ text: String) throws {
        let read = try #require(fast(text), "declined: \(text)")
        let expected = try general(text)
        #expect(read == expected)
        for (a, b) in zip(read.frame.contacts, expected.frame.contacts) {
            #expect(a.x.bitPattern == b.x.bitPattern && a.y.bitPattern == b.y.bitPattern)
        }
    }

    /// A client writes a frame with no tree: the bytes the general writer writes, which read
    /// back to the same call.
    @Test(arguments: taken)
    func whatItWritesIsWhatTheGeneralWriterWrites(_ text: String) throws {
        let read = try #require(fast(text))
        var writer = JSONWriter(capacity: 16)
        read.write(into: &writer)
        let general = VarlinkCall(method: SendFrameCall.method, parameters: read.frame.parameters(device: read.device),
                                  more: read.more, oneway: read.oneway).encoded()
        #expect(writer.bytes == general, "\(String(decoding: writer.bytes, as: UTF8.self))")
        let again = try #require(writer.bytes.dropLast().withUnsafeBytes { SendFrameCall(message: $0) })
        #expect(again == read)
    }

    @Test func theFlagsAndTheMinusZeroAreKept() throws {
        let read = try #require(fast(Self.taken[1]))
        #expect(read.oneway && read.more && read.device == 3)
        #expect(read.frame.contacts.first?.x.sign == .minus)
        #expect(read.frame.contacts.first?.phase == .down)
    }

    /// Declined: what the general readers take but this one does not know, and what they refuse.
    static let declined: [(String, String)] = [
        ("an escape", #"{"method":"io.sheetd.Input.SendFrame","parameters":{"device":1,"sequence":4,"time":4,"contacts":[{"slot":0,"phase":"\u006dove","x":1,"y":1}]}}"#),
        ("a member it does not know", #"{"method":"io.sheetd.Input.SendFrame","parameters":{"device":1,"sequence":5,"time":5,"extra":null,"contacts":[]}}"#),
        ("a number of 16 bytes", #"{"method":"io.sheetd.Input.SendFrame","parameters":{"device":1,"sequence":5,"time":1234567890123456,"contacts":[]}}"#),
        ("a null flag", #"{"method":"io.sheetd.Input.SendFrame","more":null,"parameters":{"device":1,"sequence":5,"time":5,"contacts":[]}}"#),
        ("another method", #"{"method":"io.sheetd.Input.CloseDevice","parameters":{"device":1}}"#),
        ("17 contacts", #"{"method":"io.sheetd.Input.SendFrame","parameters":{"device":1,"sequence":3,"time":3,"contacts":[\#(Array(repeating: contact, count: 17).joined(separator: ","))]}}"#),
        ("a member twice", #"{"method":"io.sheetd.Input.SendFrame","method":"io.sheetd.Input.SendFrame","parameters":{"device":1,"sequence":7,"time":7,"contacts":[]}}"#),
        ("NaN", #"{"method":"io.sheetd.Input.SendFrame","parameters":{"device":1,"sequence":6,"time":6,"contacts":[{"slot":0,"phase":"cancel","x":NaN,"y":1}]}}"#),
        ("a sequence below zero", #"{"method":"io.sheetd.Input.SendFrame","parameters":{"device":1,"sequence":-1,"time":6,"contacts":[]}}"#),
        ("a fractional device", #"{"method":"io.sheetd.Input.SendFrame","parameters":{"device":1.5,"sequence":1,"time":6,"contacts":[]}}"#),
        ("no time", #"{"method":"io.sheetd.Input.SendFrame","parameters":{"device":1,"sequence":1,"contacts":[]}}"#),
        ("a phase it does not know", #"{"method":"io.sheetd.Input.SendFrame","parameters":{"device":1,"sequence":1,"time":1,"contacts":[{"slot":0,"phase":"hover","x":1,"y":1}]}}"#),
        ("a leading zero", #"{"method":"io.sheetd.Input.SendFrame","parameters":{"device":01,"sequence":1,"time":1,"contacts":[]}}"#),
        ("bytes after the call", #"{"method":"io.sheetd.Input.SendFrame","parameters":{"device":1,"sequence":1,"time":1,"contacts":[]}}x"#),
        ("a trailing comma", #"{"method":"io.sheetd.Input.SendFrame","parameters":{"device":1,"sequence":1,"time":1,"contacts":[\#(contact),]}}"#),
        ("cut short", #"{"method":"io.sheetd.Input.SendFrame","parameters":{"device":1,"sequence":1,"time":1,"contacts":["#),
        ("nothing", ""),
    ]

    @Test(arguments: declined)
    func whatItDoesNotKnowGoesToTheGeneralReaders(_ reason: String, _ text: String) {
        #expect(fast(text) == nil, "\(reason): taken")
    }

    @Test func anEscapedCallIsStillReadByTheGeneralReaders() throws {
        let read = try general(Self.declined[0].1)
        #expect(read.frame.contacts.first?.phase == .move)
        let error = #expect(throws: ParameterProblem.self) { try general(Self.declined[5].1) }
        #expect(error?.parameter == "contacts")
    }
}
