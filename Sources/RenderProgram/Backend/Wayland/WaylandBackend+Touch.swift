import CWayland
import SheetCore
import SheetProtocol

/// The seat's touch and pointer as the compositor gives them to the surface: each `wl_touch`
/// finger, and the pointer as one finger while the left button is held, in the output's pixels,
/// handed to `InputForwarder`.
extension WaylandBackend {
    func seatCapabilities(_ capabilities: UInt32) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        let hasTouch = capabilities & WL_SEAT_CAPABILITY_TOUCH.rawValue != 0
        let hasPointer = capabilities & WL_SEAT_CAPABILITY_POINTER.rawValue != 0
        if hasTouch, touch == nil {
            touch = wl_seat_get_touch(seat)
            wl_touch_add_listener(touch, Listeners.touch, context)
        } else if !hasTouch, let touch {
            wl_touch_destroy(touch)
            self.touch = nil
            touchCancelled()
        }
        if hasPointer, pointer == nil {
            pointer = wl_seat_get_pointer(seat)
            wl_pointer_add_listener(pointer, Listeners.pointer, context)
        } else if !hasPointer, let pointer {
            pointerLifted(as: .cancel)
            wl_pointer_destroy(pointer)
            self.pointer = nil
        }
        keyboardCapability(capabilities & WL_SEAT_CAPABILITY_KEYBOARD.rawValue != 0)
    }

    /// Surface coordinates (wl_fixed_t, 1/256) to the surface's pixels.
    func pixels(_ value: wl_fixed_t) -> Double { Double(value) / 256 * Double(outputScale) }

    func touchDown(id: Int32, x: wl_fixed_t, y: wl_fixed_t, time: UInt32) {
        inputTime = time
        // A free slot that no contact of this frame holds (a finger lifted in the same frame
        // keeps its slot until the frame is sent); more fingers than slots are left out. A
        // frame holds each slot once, so never more contacts than it has room for.
        guard let slot = touchIDs.indices.first(where: { slot in
            touchIDs[slot] == nil && !touchFrame.contains { $0.slot == slot }
        }) else { return }
        touchIDs[slot] = id
        _ = touchFrame.append(PluginContact(slot: slot, phase: .down, x: pixels(x), y: pixels(y)))
        touchedSheet()
    }

    func touchMotion(id: Int32, x: wl_fixed_t, y: wl_fixed_t, time: UInt32) {
        inputTime = time
        guard let slot = touchIDs.firstIndex(where: { $0 == id }) else { return }
        // The newest position of a finger in this frame stands for it.
        if let index = touchFrame.firstIndex(where: { $0.slot == slot }) {
            touchFrame[index].x = pixels(x)
            touchFrame[index].y = pixels(y)
        } else {
            _ = touchFrame.append(PluginContact(slot: slot, phase: .move, x: pixels(x), y: pixels(y)))
        }
    }

    func touchUp(id: Int32, time: UInt32) {
        inputTime = time
        guard let slot = touchIDs.firstIndex(where: { $0 == id }) else { return }
        touchIDs[slot] = nil
        if let index = touchFrame.firstIndex(where: { $0.slot == slot }) {
            // Down and up in one frame: the daemon takes both in turn, in separate frames.
            if touchFrame[index].phase == .down {
                let down = touchFrame[index]
                touchFrame.remove(at: index)
                forward(PluginContacts(one: down))
                _ = touchFrame.append(PluginContact(slot: slot, phase: .up, x: down.x, y: down.y))
                return
            }
            touchFrame[index].phase = .up
        } else {
            _ = touchFrame.append(PluginContact(slot: slot, phase: .up, x: 0, y: 0))
        }
    }

    func touchFrameEnded() {
        guard !touchFrame.isEmpty else { return }
        forward(touchFrame)
        touchFrame.removeAll()
    }

    /// The compositor took the touches back (a gesture of its own): every finger is cancelled.
    func touchCancelled() {
        touchFrame.removeAll()
        for slot in touchIDs.indices where touchIDs[slot] != nil && touchIDs[slot] != Self.pointerID {
            touchIDs[slot] = nil
            _ = touchFrame.append(PluginContact(slot: slot, phase: .cancel, x: 0, y: 0))
        }
        touchFrameEnded()
    }

    func pointerMotion(x: wl_fixed_t, y: wl_fixed_t, time: UInt32? = nil) {
        if let time { inputTime = time }
        pointerPosition = (pixels(x), pixels(y))
        guard pointerDown, let slot = touchIDs.firstIndex(where: { $0 == Self.pointerID }) else { return }
        forward(PluginContacts(one: PluginContact(slot: slot, phase: .move, x: pointerPosition.x, y: pointerPosition.y)))
    }

    /// BTN_LEFT (0x110) pressed puts a finger down where the pointer is; released lifts it.
    func pointerButton(_ button: UInt32, pressed: Bool, time: UInt32) {
        inputTime = time
        guard button == 0x110, pressed != pointerDown else { return }
        if pressed {
            guard let slot = touchIDs.firstIndex(where: { $0 == nil }) else { return }
            touchIDs[slot] = Self.pointerID
            pointerDown = true
            forward(PluginContacts(one: PluginContact(slot: slot, phase: .down, x: pointerPosition.x, y: pointerPosition.y)))
            touchedSheet()
        } else {
            pointerLifted(as: .up)
        }
    }

    /// The pointer left the surface with the button held: the finger is cancelled.
    func pointerLifted(as phase: ContactPhase) {
        guard pointerDown, let slot = touchIDs.firstIndex(where: { $0 == Self.pointerID }) else { return }
        pointerDown = false
        touchIDs[slot] = nil
        forward(PluginContacts(one: PluginContact(slot: slot, phase: phase, x: pointerPosition.x, y: pointerPosition.y)))
    }

    func forward(_ contacts: PluginContacts) {
        guard let forwarder else { return }
        forwarder.size = size
        forwarder.forward(contacts, at: inputTime)
    }

    func configure(serial: UInt32, width: UInt32, height: UInt32) {
        configuredSize = (Int32(clamping: width), Int32(clamping: height))
        pendingSerial = serial
    }

    func toplevelSize(width: Int32, height: Int32) { configuredSize = (width, height) }

    func xdgConfigure(serial: UInt32) { pendingSerial = serial }

    func release(_ buffer: OpaquePointer?) {
        buffers.first { $0.buffer == buffer }?.busy = false
    }

    func frame(_ callback: OpaquePointer?) {
        wl_callback_destroy(callback)
        frameCallback = nil
        frameDone = true
    }

    func closedByCompositor() { closed = true }

    func ping(_ serial: UInt32) { xdg_wm_base_pong(wmBase, serial) }
}
