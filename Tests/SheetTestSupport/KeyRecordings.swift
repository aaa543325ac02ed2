import SheetCore
import SheetRecordings

/// A touchscreen and a keyboard to be recorded together (`SyntheticRecording.libinputRecord(together:)`,
/// as `libinput record --multiple` writes them), as the key replay and the daemon's replay
/// both play them: Tab at 0.2 s and 0.4 s (the ring on the second
/// item), a tap low on the card at 1.0 s (the ring hides), Down at 1.5 s (it shows again on
/// the next item), and Enter at 1.8 s when `enter`.
public func touchscreenAndKeyboard(enter: Bool) -> (touch: SyntheticRecording, keys: SyntheticRecording) {
    var keys = SyntheticRecording(keys: SyntheticRecording.keyboard)
    keys.at(0.2)
    keys.key(KeyCode.tab)
    keys.at(0.4)
    keys.key(KeyCode.tab)
    keys.at(1.5)
    keys.key(KeyCode.down)
    if enter {
        keys.at(1.8)
        keys.key(KeyCode.enter)
    }
    var touch = SyntheticRecording()
    touch.at(1.0)
    touch.tap(x: 540, y: 1880)
    return (touch, keys)
}
