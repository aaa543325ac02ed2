import CWayland
import SheetSystem

/// Which of the compositor's outputs the sheet is on: the one `--wayland-output` names (by the
/// name the compositor gives it, xdg-output's: `swaymsg -t get_outputs` lists them), else the
/// first. The layer surface (or the fullscreen window) is made on it, and its mode, scale and
/// transform are the sheet's.
extension WaylandBackend {
    /// What an output said of itself.
    struct Output {
        let proxy: OpaquePointer
        var xdg: OpaquePointer?
        var name: String?
        var mode: (width: Int32, height: Int32) = (0, 0)
        var refresh = 60
        var scale: Int32 = 1
        var transform: Int32 = 0

        init(proxy: OpaquePointer) { self.proxy = proxy }
    }

    /// Reads every output (and, where the compositor has xdg-output, its name) and takes the
    /// one named, else the first announced; a name no output has is refused with the names there
    /// are (sorted: compositors announce them in orders of their own).
    func chooseOutput() throws(RenderError) {
        if let xdgOutputManager {
            for index in outputs.indices {
                let xdg = zxdg_output_manager_v1_get_xdg_output(xdgOutputManager, outputs[index].proxy)
                outputs[index].xdg = xdg
                zxdg_output_v1_add_listener(xdg, OutputListeners.xdgOutput, Unmanaged.passUnretained(self).toOpaque())
            }
        }
        try roundtrip("reading the outputs")
        guard let outputName else {
            chosenOutput = outputs.indices.first
            return
        }
        guard xdgOutputManager != nil else {
            throw .unavailable("--wayland-output \(outputName): the compositor does not name its outputs (no xdg-output)")
        }
        guard let named = outputs.firstIndex(where: { $0.name == outputName }) else {
            let names = outputs.compactMap(\.name).sorted()
            throw .unavailable("--wayland-output \(outputName): no such output (the compositor has \(names.isEmpty ? "none" : names.joined(separator: ", ")))")
        }
        chosenOutput = named
    }

    fileprivate func xdgOutputNamed(_ xdg: OpaquePointer?, _ name: String) {
        guard let index = outputs.firstIndex(where: { $0.xdg == xdg }) else { return }
        outputs[index].name = name
    }
}

private enum OutputListeners {
    nonisolated(unsafe) static let xdgOutput = zeroedForever(zxdg_output_v1_listener.self) {
        $0.logical_position = { _, _, _, _ in }
        $0.logical_size = { _, _, _, _ in }
        $0.done = { _, _ in }
        $0.name = { data, xdg, name in
            guard let name else { return }
            Listeners.backend(data).xdgOutputNamed(xdg, String(cString: name))
        }
        $0.description = { _, _, _ in }
    }
}
