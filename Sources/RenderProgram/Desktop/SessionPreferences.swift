#if canImport(Glibc)
import Glibc
#endif
import CGio
import SheetCore
import Synchronization

/// The desktop session's appearance preferences, through the freedesktop settings portal
/// (`org.freedesktop.portal.Settings`, namespace `org.freedesktop.appearance`): its colour
/// scheme (`color-scheme`: 1 prefers dark) and contrast (`contrast`: 1 asks for more), for
/// `theme: auto`, and GNOME's text scaling (`org.gnome.desktop.interface`
/// `text-scaling-factor`, which GNOME's and GTK's portal backends pass on), for `text-scale:
/// auto`; read at start and followed as they change (`SettingChanged`). Each change makes
/// `descriptor` readable, so that the render loop wakes and draws again.
final class SessionPreferences: @unchecked Sendable {
    struct Preference: Equatable, Sendable {
        var dark = false
        var highContrast = false
        /// 0.5 to 3; 1 where the session says nothing.
        var textScale = 1.0

        var description: String {
            (dark ? "dark" : "light") + (highContrast ? ", high contrast" : "") + (textScale != 1 ? ", text \(textScale)×" : "")
        }
    }

    private let current = Mutex(Preference())
    private let thread = GLibThread()
    private let connection: BusConnection
    /// A pipe's end: readable while a change is unread (`take`); the GLib thread writes the other.
    let descriptor: Int32
    private let writer: Int32

    /// The session's preferences, followed; nil (said in the log) without a session bus or a
    /// settings portal on it, where `theme: auto` draws light.
    static func start(log: Log) -> SessionPreferences? {
        let session: BusConnection
        switch BusConnection.session() {
        case .success(let bus): session = bus
        case .failure(let failure):
            log.say("sheet-render: no session bus (\(failure)); theme auto draws light")
            return nil
        }
        let preferences = SessionPreferences(connection: session)
        switch preferences.thread.start({ [preferences] in preferences.follow() }) {
        case .success(let preference):
            log.say("sheet-render: the session prefers \(preference.description) (settings portal)")
            return preferences
        case .failure(let failure):
            log.say("sheet-render: no settings portal on the session bus (\(failure)); theme auto draws light")
            return nil
        }
    }

    private init(connection: BusConnection) {
        self.connection = connection
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, O_NONBLOCK)
            }
        }
        (descriptor, writer) = (ends[0], ends[1])
    }

    deinit {
        close(descriptor)
        close(writer)
        g_object_unref(UnsafeMutableRawPointer(connection.raw))
    }

    /// The preference now.
    var preference: Preference { current.withLock { $0 } }

    /// Empties `descriptor` after it woke the caller.
    func take() {
        var bytes = (UInt64(0), UInt64(0))
        while read(descriptor, &bytes, 16) == 16 {}
    }

    /// On the GLib thread: subscribes to changes, then reads what is set now.
    private func follow() -> Result<Preference, BusFailure> {
        _ = g_dbus_connection_signal_subscribe(
            connection.raw, "org.freedesktop.portal.Desktop", "org.freedesktop.portal.Settings", "SettingChanged",
            "/org/freedesktop/portal/desktop", nil, sheetd_signal_flags_none,
            { _, _, _, _, _, parameters, me in
                guard let parameters, let me else { return }
                let preferences = Unmanaged<SessionPreferences>.fromOpaque(me).takeUnretainedValue()
                guard GV.typeString(parameters) == "(ssv)", let namespace = GV.string(in: parameters, at: 0),
                      let key = GV.string(in: parameters, at: 1) else { return }
                let boxed = GV.child(parameters, 2)
                defer { g_variant_unref(boxed) }
                preferences.set(namespace, key, SessionPreferences.value(boxed))
            }, Unmanaged.passUnretained(self).toOpaque(), nil)
        let namespaces = GV.tuple([GV.array("s", [GV.string("org.freedesktop.appearance"), GV.string("org.gnome.desktop.interface")])])
        switch connection.call("org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop",
                               "org.freedesktop.portal.Settings", "ReadAll", namespaces, reply: "(a{sa{sv}})") {
        case .success(let reply):
            defer { g_variant_unref(reply) }
            let all = GV.child(reply, 0)
            defer { g_variant_unref(all) }
            for index in 0..<Int(g_variant_n_children(all)) {
                let namespace = GV.child(all, index)
                defer { g_variant_unref(namespace) }
                let values = GV.child(namespace, 1)
                defer { g_variant_unref(values) }
                guard let name = GV.string(in: namespace, at: 0) else { continue }
                for entry in 0..<Int(g_variant_n_children(values)) {
                    let pair = GV.child(values, entry)
                    defer { g_variant_unref(pair) }
                    let boxed = GV.child(pair, 1)
                    defer { g_variant_unref(boxed) }
                    if let key = GV.string(in: pair, at: 0) { set(name, key, Self.value(boxed), wake: false) }
                }
            }
            return .success(preference)
        case .failure(let failure):
            return .failure(failure)
        }
    }

    /// A value as the portal sends it, in one or more variants: a `u` or a `d` as a number;
    /// nil for anything else.
    private static func value(_ value: GV.Value) -> Double? {
        var value = value
        g_variant_ref(value)
        defer { g_variant_unref(value) }
        while GV.typeString(value) == "v" {
            let inner = g_variant_get_variant(value)!
            g_variant_unref(value)
            value = inner
        }
        switch GV.typeString(value) {
        case "u": return Double(g_variant_get_uint32(value))
        case "d": return g_variant_get_double(value)
        default: return nil
        }
    }

    /// `color-scheme` (0 none, 1 dark, 2 light) or `contrast` (0 normal, 1 higher) of
    /// `org.freedesktop.appearance`, `text-scaling-factor` of `org.gnome.desktop.interface`;
    /// values the portal does not define count as no preference, a text scaling outside 0.5 to
    /// 3 is held to it.
    private func set(_ namespace: String, _ key: String, _ value: Double?, wake: Bool = true) {
        let changed = current.withLock { preference -> Bool in
            let before = preference
            switch (namespace, key) {
            case ("org.freedesktop.appearance", "color-scheme"): preference.dark = value == 1
            case ("org.freedesktop.appearance", "contrast"): preference.highContrast = value == 1
            case ("org.gnome.desktop.interface", "text-scaling-factor"):
                let range = Appearance.Limits.textScale
                preference.textScale = value.map { $0.isFinite ? min(max($0, range.lowerBound), range.upperBound) : 1 } ?? 1
            default: break
            }
            return preference != before
        }
        if changed, wake {
            var one: UInt8 = 1
            _ = write(writer, &one, 1)
        }
    }
}
