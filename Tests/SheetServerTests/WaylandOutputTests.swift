import Foundation
import Glibc
import SheetCore
import SheetTestSupport
import Testing

/// `sheet-render --wayland-output`: on a compositor with two outputs, the sheet on the one
/// named (by xdg-output's name, as `swaymsg -t get_outputs` lists them), the other untouched.
@Suite(.serialized) struct WaylandOutputTests {
    @Test func theSheetIsOnTheOutputNamedAndNoOther() throws {
        let sway = try HeadlessCompositor(width: 540, height: 960, outputs: 2)
        let (daemon, renderer, frames) = try sway.session(daemon: ["--input", "none", "--screen", "540x960"],
                                                          renderer: ["--wayland-output", "HEADLESS-2"])
        _ = try frames.next { $0["state"] as? String == "resting" && $0["detent"] as? String == "half" }
        let shown = try sway.screenshot(output: "HEADLESS-2"), other = try sway.screenshot(output: "HEADLESS-1")
        // The card at half: white from the middle down on the named output; the other is its
        // background (but for the virtual pointer's cursor, a few pixels).
        #expect(shown.pixels[700 * shown.width + 270] == RGB(hex: 0xFFFFFF), "\(renderer.log)")
        #expect(other.pixels[700 * other.width + 270] == sway.background && other.pixels[100 * other.width + 270] == sway.background)
        let background = other.pixels.count { $0 == sway.background }
        #expect(background * 100 > other.pixels.count * 99, "HEADLESS-1 holds nothing of the sheet (\(background) of \(other.pixels.count) background)")
        renderer.process.terminate()
        #expect(renderer.wait() == 0, "sheet-render: \(renderer.log)")
        #expect(daemon.stop() == 0)
    }

    @Test func anOutputThatIsNotThereIsSaidWithTheNamesThereAre() throws {
        let sway = try HeadlessCompositor(width: 540, height: 960, outputs: 2)
        let (daemon, renderer, frames) = try sway.session(daemon: ["--input", "none", "--screen", "540x960"],
                                                          renderer: ["--wayland-output", "HDMI-A-9"])
        // The frame log's reader stays open: the renderer opens the log before its display.
        #expect(withExtendedLifetime(frames) { renderer.wait() } != 0)
        #expect(renderer.log.contains("--wayland-output HDMI-A-9: no such output (the compositor has HEADLESS-1, HEADLESS-2)"), "\(renderer.log)")
        #expect(daemon.stop() == 0)
    }
}
