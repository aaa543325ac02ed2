import CWayland
import SheetCore
import SheetProtocol

/// The seat's keyboard as the compositor gives it to the surface: keys, while the surface has
/// the keyboard's focus, handed to `InputForwarder` as the kernel's codes of what they type
/// (`WaylandKeymap`), the modifiers from the compositor's modifier state as the left Shift,
/// Ctrl and Alt keys.
///
/// The layer surface asks for the keyboard only while the sheet is open: `exclusive` while a
/// modal sheet is (it covers everything, as a dialog takes the keys); for a non-modal one,
/// nothing until a person touches or clicks it, so that the window beneath keeps the keys, and
/// `on_demand` from then (sway 1.7 gives a layer surface the keys as soon as it asks on demand;
/// other compositors at the next click on it, and take them away at a click elsewhere); none
/// while it is closed, when the keys go back where they were.
extension WaylandBackend {
    func keyboardCapability(_ hasKeyboard: Bool) {
        if hasKeyboard, keyboard == nil {
            keyboard = wl_seat_get_keyboard(seat)
            wl_keyboard_add_listener(keyboard, Listeners.keyboard, Unmanaged.passUnretained(self).toOpaque())
        } else if !hasKeyboard, let keyboard {
            keyboardLeft()
            wl_keyboard_destroy(keyboard)
            self.keyboard = nil
        }
    }

    func keyboardKeymap(format: UInt32, descriptor: Int32, size: UInt32) {
        if !keymap.load(format: format, descriptor: descriptor, size: size) {
            log.say("sheet-render: the compositor's keymap cannot be read; keys are taken by their own codes")
        }
    }

    /// The keys already held when the focus came are not the sheet's: only what is pressed
    /// from now on.
    func keyboardEntered() {}

    func keyboardLeft() {
        forwardedModifiers = []
        forwarder?.releaseKeys(at: monotonicMicroseconds())
    }

    func keyboardKey(_ key: UInt32, pressed: Bool) {
        guard let code = keymap.kernelCode(of: key), KeyModifiers.of(code: code) == nil else { return }
        forwarder?.forwardKey(code, pressed: pressed, at: monotonicMicroseconds())
    }

    func keyboardModifiers(depressed: UInt32, latched: UInt32, locked: UInt32, group: UInt32) {
        let held = keymap.modifiers(depressed: depressed, latched: latched, locked: locked, group: group)
        guard held != forwardedModifiers else { return }
        let time = monotonicMicroseconds()
        for (modifier, code) in [(KeyModifiers.shift, KeyCode.leftShift), (.control, KeyCode.leftControl), (.alt, KeyCode.leftAlt)]
        where held.contains(modifier) != forwardedModifiers.contains(modifier) {
            forwarder?.forwardKey(code, pressed: held.contains(modifier), at: time)
        }
        forwardedModifiers = held
    }

    /// What the layer surface asks of the keyboard for `state` (see above).
    func keyboardInteractivity(for state: SheetState) -> UInt32 {
        guard forwarder != nil, !state.isClosed else { return ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_NONE.rawValue }
        if state.presentation.modal { return ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_EXCLUSIVE.rawValue }
        return touchedWhileOpen && layerShellVersion >= 4 ? ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_ON_DEMAND.rawValue
            : ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_NONE.rawValue
    }
}
