import ArgumentParser
import CWayland
import SheetCore
import SheetProtocol

/// Which layer of the layer shell the sheet's surface is on: overlay while a modal sheet is
/// open, else `--wayland-layer`, moved with set_layer as the states come (docs/renderers.md,
/// "Over a fullscreen window").
extension WaylandBackend {
    /// The layer shell's layer for a non-modal sheet and the closed bar (`--wayland-layer`). A
    /// modal sheet is on the overlay layer whatever this says: it takes the screen and waits
    /// for an answer, so it must be seen over a fullscreen window, as a lock screen is. sway and
    /// labwc draw the top layer beneath a fullscreen window and the overlay layer over it (phoc
    /// 0.24 draws the top layer over it too); a kiosk's window is fullscreen, so overlay is the default. `top` leaves a fullscreen
    /// window (a desktop's video) uncovered until a modal sheet opens, as panels are.
    enum Layer: String, CaseIterable, ExpressibleByArgument, CustomStringConvertible {
        case overlay, top

        var value: UInt32 { self == .overlay ? ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY.rawValue : ZWLR_LAYER_SHELL_V1_LAYER_TOP.rawValue }
        var description: String { rawValue }
    }

    /// Every update as it arrives: a modal sheet that opens while the surface is beneath a
    /// fullscreen window (the top layer) moves it up at once. There the compositor neither
    /// sends frame callbacks nor gives buffers back, since nothing of the surface is seen, so
    /// the renderer would otherwise never be ready for the next state; a commit that only
    /// moves the surface needs neither.
    /// The keyboard likewise: a modal sheet closed beneath a fullscreen window gives it back.
    func hear(_ update: MonitorUpdate) {
        heardLayer = layer(for: update.state)
        guard !isReady else { return }
        let moved = moveLayer()
        let keyed = askForKeyboard(as: update.state)
        guard moved || keyed else { return }
        wl_surface_commit(surface)
        wl_display_flush(display)
    }

    /// The layer `state` is drawn on: overlay while a modal sheet is open, else `--wayland-layer`.
    func layer(for state: SheetState) -> Layer {
        !state.isClosed && state.presentation.modal ? .overlay : layer
    }

    /// Moves the layer surface to the layer the newest state heard wants (set_layer, version 2
    /// of the layer shell), not the one being drawn: a frame drawn again for a configure (which
    /// a move itself brings) shows an older state. True when it moved, for the next commit to
    /// carry.
    func moveLayer() -> Bool {
        guard let layerSurface, layerShellVersion >= 2, let wanted = heardLayer, wanted != shownLayer else { return false }
        zwlr_layer_surface_v1_set_layer(layerSurface, wanted.value)
        shownLayer = wanted
        return true
    }
}
