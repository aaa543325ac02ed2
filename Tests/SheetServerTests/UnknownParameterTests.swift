import Foundation
import SheetClient
import SheetProtocol
import SheetTestSupport
import Testing

/// A parameter a method does not take is refused by name (InvalidParameter), as systemd's
/// varlink services do, on both sockets: a client's author learns why nothing happened.
@Suite struct UnknownParameterTests {
    static let invalid = "org.varlink.service.InvalidParameter"

    /// The methods and their parameters, read from the descriptions the daemon serves.
    @Test func theParametersAreReadFromTheDescriptions() {
        let sheet = VarlinkMethods.parameters(in: SheetInterface.description)
        #expect(sheet["SetContent"] == ["title", "items", "guarded", "lang", "sheet"])
        #expect(sheet["OpenSheet"] == ["title", "items", "guarded", "lang", "layer", "detent"] && sheet["CloseSheet"] == ["sheet"])
        #expect(sheet["GetState"] == [])
        #expect(sheet["Monitor"] == ["maxRate"])
        let input = VarlinkMethods.parameters(in: InputInterface.description)
        #expect(input["OpenDevice"] == ["name", "kind", "x", "y", "widthMm", "heightMm", "slots", "clock", "forwards"])
        #expect(input["SendFrame"] == ["device", "sequence", "time", "contacts"])
        let service = VarlinkMethods.parameters(in: SheetInterface.serviceDescription)
        #expect(service == ["GetInfo": [], "GetInterfaceDescription": ["interface"]])
    }

    /// One call of each family: the service's, a query, a control call (wrapped fields, a
    /// misspelt name), and the input socket's; the connection stays usable after each.
    @Test func anUnknownParameterIsRefusedByNameOnBothSockets() throws {
        let daemon = try RunningDaemon(["--input", "none"])
        defer { _ = daemon.stop() }
        let cases: [(String, String, String)] = [
            ("org.varlink.service.GetInfo", #"{"verbose":true}"#, "verbose"),
            ("io.sheetd.Sheet.GetState", #"{"state":{}}"#, "state"),
            ("io.sheetd.Sheet.SetContent", #"{"content":{"title":"Wrapped"}}"#, "content"),
            ("io.sheetd.Sheet.SetAppearance", #"{"textscale":2}"#, "textscale"),
            ("io.sheetd.Sheet.Present", #"{"detent":"half","animate":false}"#, "animate"),
        ]
        let client = try daemon.client()
        for (method, parameters, unknown) in cases {
            try client.connection.send(VarlinkCall(method: method, parameters: try JSONReader.parse(parameters)))
            let reply = try client.connection.readReply()
            #expect(reply.error == Self.invalid, "\(method) \(parameters)")
            #expect(reply.parameters["parameter"]?.stringValue == unknown, "\(method) \(parameters)")
        }
        #expect(try client.content().title == "", "the wrapped content changed nothing")
        #expect(try client.state().state == .resting)

        let inputPath = daemon.socketPath.replacingOccurrences(of: "io.sheetd.Sheet", with: "io.sheetd.Input")
        let input = try VarlinkClientConnection(path: inputPath)
        let open = #"{"name":"pen","kind":"touchscreen","x":{"min":0,"max":1},"y":{"min":0,"max":1},"slots":1,"pressure":true}"#
        try input.send(VarlinkCall(method: "io.sheetd.Input.OpenDevice", parameters: try JSONReader.parse(open)))
        let reply = try input.readReply()
        #expect(reply.error == Self.invalid)
        #expect(reply.parameters["parameter"]?.stringValue == "pressure")
        #expect(daemon.stop() == 0)
    }
}
