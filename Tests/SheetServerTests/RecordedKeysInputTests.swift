import Foundation
import SheetCore
import SheetProtocol
import SheetRecordings
import SheetTestSupport
import Testing

/// `sheetd --input replay:` plays keys, and a touchscreen and a keyboard recorded together,
/// through the decoding `sheetctl replay` uses: the daemon ends where the replay does.
@Suite struct RecordedKeysInputTests {
    @Test func theDaemonPlaysATouchscreenAndAKeyboardRecordedTogetherAsTheReplayDoes() throws {
        let (touch, keys) = touchscreenAndKeyboard(enter: true)
        let file = try temporaryFile("together.yml", SyntheticRecording.libinputRecord(together: [touch, keys]))
        let content = PythonClientTests.root.appendingPathComponent("examples/settings.yaml").path
        let config = try temporaryFile("sheetd.yaml", "content: \(content)\n")

        let replayed = try replayEnd(file, ["--content", content])
        let expected = try #require(replayed["focus"] as? String)
        #expect(replayed["focusVisible"] as? Bool == true)

        let daemon = try RunningDaemon(["--config", config, "--input", "replay:\(file)@max"])
        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        let state = try daemon.client().state()
        #expect(state.focus == .item(expected), "\(daemon.log)")
        #expect(state.focusVisible)
        let devices = try daemon.client().devices()
        #expect(devices.filter(\.used).map(\.kind) == [.touchscreen, .keyboard], "\(devices)")
        #expect(daemon.stop() == 0)
    }
}
