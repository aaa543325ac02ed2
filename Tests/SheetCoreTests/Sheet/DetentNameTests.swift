import SheetCore
import Testing

/// `DetentName`: the rule every name from outside passes, and the bytes it keeps.
struct DetentNameTests {
    @Test(arguments: ["half", "a", "three-quarter", "peek_2", "ÉTÉ", "fünfzehn-bytes", String(repeating: "x", count: 15)])
    func namesWithinTheRulesKeepTheirBytes(_ text: String) throws {
        let name = try #require(DetentName(text))
        #expect(name.description == text)
        #expect(name.count == text.utf8.count)
        #expect(name.withUTF8 { Array($0) } == Array(text.utf8))
        #expect(name == DetentName(text) && name.hashValue == DetentName(text)!.hashValue)
    }

    /// Empty, past 15 bytes (also when the characters are fewer: `é` is two bytes), or a
    /// character JSON would escape or a shell would split.
    @Test(arguments: ["", String(repeating: "x", count: 16), String(repeating: "é", count: 8), "a b", "a\"b", "a\\b",
                      "tab\there", "new\nline", "half.", "peek=85%"])
    func namesOutsideTheRulesAreRefused(_ text: String) {
        #expect(DetentName(text) == nil)
    }

    @Test func namesThatDifferInLengthOrBytesDiffer() {
        #expect(DetentName("half") != DetentName("halfx"))
        #expect(DetentName("half") != DetentName("hal"))
        #expect(DetentName("Half") != DetentName("half"))
        #expect(DetentName.half == DetentName("half") && DetentName.hidden.description == "hidden")
    }
}
