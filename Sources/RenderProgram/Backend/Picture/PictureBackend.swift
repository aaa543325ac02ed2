import SheetCore
import SheetProtocol
import SheetRenderKit

/// `--backend png`: a picture per frame (or every Nth) in a folder, `frame-000001.png`
/// onwards, at the size the daemon maps touches to.
final class PictureBackend: Backend {
    let name = "png"
    let displaySize: (width: Int, height: Int)? = nil
    /// Pictures are taken of every state.
    var refreshRate: Int? { nil }
    private let writer: PNGFrameWriter
    private let looks: Looks

    init(folder: String, every: Int, looks: Looks, painter: Painter) throws(RenderError) {
        do {
            writer = try PNGFrameWriter(folder: folder, every: every, painter: painter)
        } catch {
            throw RenderError("\(error)", status: 73)
        }
        self.looks = looks
    }

    func show(_ state: SheetState, content: SheetContent?) throws(RenderError) -> Presentation {
        let scene = SheetScene(state, content: content, look: try looks.look(width: state.screen.widthInPixels, height: state.screen.heightInPixels))
        do {
            return try writer.frame(scene) ? .shown(rows: nil) : .skipped
        } catch {
            throw RenderError("\(error)")
        }
    }

    func finish() throws(RenderError) -> Bool {
        do { return try writer.finish() } catch { throw RenderError("\(error)") }
    }
}
