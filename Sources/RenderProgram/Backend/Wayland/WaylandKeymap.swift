#if canImport(Glibc)
import Glibc
#endif
import CXKBCommon
import SheetCore
import SheetProtocol
import SheetSystem

/// The keymap the compositor sends with its keys, read with libxkbcommon, so that a key reaches
/// sheetd as the kernel's code of what it types: a physical keyboard's keymap gives its own
/// codes back, and a virtual or on-screen keyboard's (which numbers its keys as it likes) gives
/// Tab for its Tab. What a key types is looked up at its first level in the active layout and
/// found in the kernel's US keyboard (the `evdev` rules, `pc105`, `us`); a key that types
/// nothing found there keeps its own code. Modifiers are read from the compositor's modifier
/// state (held or latched: sticky keys latch them), not from the modifier keys.
final class WaylandKeymap {
    private let context: OpaquePointer?
    private var keymap: OpaquePointer?
    private var state: OpaquePointer?
    /// What a key of the kernel's US keyboard types, to its code.
    private var reference: [xkb_keysym_t: UInt16] = [:]

    init() {
        context = xkb_context_new(XKB_CONTEXT_NO_FLAGS)
        guard let context else { return }
        let reference = "evdev".withCString { rules in
            "pc105".withCString { model in
                "us".withCString { layout in
                    var names = zeroed(xkb_rule_names.self) {
                        $0.rules = rules
                        $0.model = model
                        $0.layout = layout
                    }
                    return xkb_keymap_new_from_names(context, &names, XKB_KEYMAP_COMPILE_NO_FLAGS)
                }
            }
        }
        guard let reference else { return }
        defer { xkb_keymap_unref(reference) }
        for code in 0...UInt32(PluginKeyReport.maximumCode) {
            var symbols: UnsafePointer<xkb_keysym_t>?
            guard xkb_keymap_key_get_syms_by_level(reference, code + 8, 0, 0, &symbols) > 0, let symbol = symbols?[0],
                  self.reference[symbol] == nil else { continue }
            self.reference[symbol] = UInt16(code)
        }
    }

    deinit {
        if let state { xkb_state_unref(state) }
        if let keymap { xkb_keymap_unref(keymap) }
        if let context { xkb_context_unref(context) }
    }

    /// Reads the keymap the compositor sent (`wl_keyboard.keymap`: a file of `size` bytes, the
    /// text format ending in a NUL), and closes its descriptor. False when it cannot be read:
    /// keys then keep their own codes.
    func load(format: UInt32, descriptor: Int32, size: UInt32) -> Bool {
        defer { close(descriptor) }
        if let state { xkb_state_unref(state) }
        if let keymap { xkb_keymap_unref(keymap) }
        state = nil
        keymap = nil
        guard format == 1 /* WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1 */, size > 0, size <= 1 << 24, let context,
              let map = mmap(nil, Int(size), PROT_READ, MAP_PRIVATE, descriptor, 0), map != MAP_FAILED else { return false }
        defer { munmap(map, Int(size)) }
        let text = map.assumingMemoryBound(to: CChar.self)
        // The text's length: up to its NUL, never past the file.
        let length = strnlen(text, Int(size))
        keymap = xkb_keymap_new_from_buffer(context, text, length, XKB_KEYMAP_FORMAT_TEXT_V1, XKB_KEYMAP_COMPILE_NO_FLAGS)
        state = keymap.flatMap { xkb_state_new($0) }
        return state != nil
    }

    /// The kernel's code for the compositor's key `key` (a kernel code on the compositor's
    /// keyboard), or nil past the codes a device of keys takes.
    func kernelCode(of key: UInt32) -> UInt16? {
        guard key <= UInt32(PluginKeyReport.maximumCode) else { return nil }
        guard let keymap, let state else { return UInt16(key) }
        let layout = xkb_state_key_get_layout(state, key + 8)
        var symbols: UnsafePointer<xkb_keysym_t>?
        let count = xkb_keymap_key_get_syms_by_level(keymap, key + 8, layout == XKB_LAYOUT_INVALID ? 0 : layout, 0, &symbols)
        if count > 0, let symbol = symbols?[0], let code = reference[symbol] { return code }
        return UInt16(key)
    }

    /// The modifiers held or latched once the compositor's state is `depressed`, `latched`,
    /// `locked` in `group` (`wl_keyboard.modifiers`).
    func modifiers(depressed: UInt32, latched: UInt32, locked: UInt32, group: UInt32) -> KeyModifiers {
        guard let state else { return [] }
        xkb_state_update_mask(state, depressed, latched, locked, 0, 0, group)
        let kinds = xkb_state_component(XKB_STATE_MODS_DEPRESSED.rawValue | XKB_STATE_MODS_LATCHED.rawValue)
        var held: KeyModifiers = []
        for (name, modifier) in [("Shift", KeyModifiers.shift), ("Control", .control), ("Mod1", .alt)]
        where xkb_state_mod_name_is_active(state, name, kinds) > 0 {
            held.insert(modifier)
        }
        return held
    }
}
