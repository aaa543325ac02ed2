import CEvdev
import SheetCore

/// The key map as sheetd.yaml writes it: `[shift+][ctrl+][alt+]NAME: command`, NAME an evdev
/// key name (`KEY_TAB`, `BTN_0`, as linux/input-event-codes.h and libevdev name them) or a
/// knob's step (`REL_DIAL+`, `REL_DIAL-`), command a `FocusCommand`'s name or `none`. Each
/// line replaces the default's binding of the same key and modifiers; `none` removes it.
public enum KeyMapFile {
    /// The key and modifiers `text` names, or why not.
    public static func input(_ text: String) throws(SettingError) -> (KeyInput, KeyModifiers) {
        var modifiers: KeyModifiers = []
        var rest = Substring(text)
        while let plus = rest.firstIndex(of: "+"), plus != rest.index(before: rest.endIndex) {
            switch rest[..<plus].lowercased() {
            case "shift": modifiers.insert(.shift)
            case "ctrl", "control": modifiers.insert(.control)
            case "alt": modifiers.insert(.alt)
            default: throw SettingError("`key-map`: `\(rest[..<plus])` in `\(text)` is not shift, ctrl or alt")
            }
            rest = rest[rest.index(after: plus)...]
        }
        switch rest {
        case "REL_DIAL+": return (.dialUp, modifiers)
        case "REL_DIAL-": return (.dialDown, modifiers)
        default: break
        }
        guard rest.hasPrefix("KEY_") || rest.hasPrefix("BTN_"), rest.utf8.count <= 64 else {
            throw SettingError("`key-map`: `\(text)` is not a key: KEY_* or BTN_* (linux/input-event-codes.h), or REL_DIAL+ or REL_DIAL-")
        }
        let code = String(rest).withCString { libevdev_event_code_from_name(UInt32(EV_KEY), $0) }
        guard code >= 0, code <= Int32(UInt16.max) else {
            throw SettingError("`key-map`: the kernel has no key called `\(rest)`")
        }
        if KeyModifiers.of(code: UInt16(code)) != nil {
            throw SettingError("`key-map`: `\(rest)` is a modifier; it is held with a key (shift+KEY_TAB), not bound")
        }
        return (.key(UInt16(code)), modifiers)
    }

    /// `map` applied over `base`: each line replaces the binding of its key and modifiers.
    public static func applying(_ lines: [(key: String, command: String)], to base: KeyMap) throws(SettingError) -> KeyMap {
        var bindings = base.bindings
        for (key, command) in lines {
            let (input, modifiers) = try input(key)
            bindings.removeAll { $0.input == input && $0.modifiers == modifiers }
            guard command != "none" else { continue }
            guard let focusCommand = FocusCommand(name: command) else {
                throw SettingError("`key-map`: `\(command)` for \(key) is not one of \(FocusCommand.names.joined(separator: ", ")) or none")
            }
            bindings.append(KeyBinding(input, modifiers, focusCommand))
        }
        guard bindings.count <= KeyMap.maximumBindings else {
            throw SettingError("`key-map`: more than \(KeyMap.maximumBindings) bindings")
        }
        return KeyMap(bindings)
    }
}
