#if canImport(Glibc)
import Glibc
#endif
import CGio

/// GLib's GVariant and GDBus, wrapped once for the accessibility bus and the settings portal:
/// values built from Swift's (each new value floating, taken by the call it is passed to),
/// read back, and the calls and signals of a connection. The few calls GLib offers only in
/// variadic form have a non-variadic twin used here.
enum GV {
    typealias Value = OpaquePointer

    static func string(_ text: String) -> Value { g_variant_new_string(text)! }
    static func path(_ path: String) -> Value { g_variant_new_object_path(path)! }
    static func int32(_ value: Int32) -> Value { g_variant_new_int32(value)! }
    static func uint32(_ value: UInt32) -> Value { g_variant_new_uint32(value)! }
    static func int16(_ value: Int16) -> Value { g_variant_new_int16(value)! }
    static func bool(_ value: Bool) -> Value { g_variant_new_boolean(value ? 1 : 0)! }
    static func double(_ value: Double) -> Value { g_variant_new_double(value)! }
    static func variant(_ value: Value) -> Value { g_variant_new_variant(value)! }

    static func tuple(_ values: [Value]) -> Value {
        var children: [Value?] = values
        return children.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count))! }
    }

    /// An array of `values`, each of the type `element` (`(so)`, `{ss}`): an empty one needs it.
    static func array(_ element: String, _ values: [Value]) -> Value {
        let type = g_variant_type_new(element)
        defer { g_variant_type_free(type) }
        var children: [Value?] = values
        return children.withUnsafeMutableBufferPointer { g_variant_new_array(type, $0.baseAddress, gsize($0.count))! }
    }

    static func entry(_ key: Value, _ value: Value) -> Value { g_variant_new_dict_entry(key, value)! }

    /// A D-Bus object reference: a bus name and a path, `(so)`.
    static func reference(_ bus: String, _ path: String) -> Value { tuple([string(bus), GV.path(path)]) }

    // MARK: Reading

    static func child(_ value: Value, _ index: Int) -> Value { g_variant_get_child_value(value, gsize(index))! }

    /// The `index`th child of a tuple as a number, or nil when it is not one.
    static func int32(in value: Value, at index: Int) -> Int32? {
        let child = child(value, index)
        defer { g_variant_unref(child) }
        guard let type = g_variant_get_type_string(child), String(cString: type) == "i" else { return nil }
        return g_variant_get_int32(child)
    }

    static func string(in value: Value, at index: Int) -> String? {
        let child = child(value, index)
        defer { g_variant_unref(child) }
        return text(of: child)
    }

    static func text(of value: Value) -> String? {
        guard let type = g_variant_get_type_string(value), ["s", "o"].contains(String(cString: type)) else { return nil }
        return String(cString: g_variant_get_string(value, nil))
    }

    static func typeString(_ value: Value) -> String { String(cString: g_variant_get_type_string(value)) }
}

/// A GError taken as a message, and freed.
func takeMessage(_ error: UnsafeMutablePointer<GError>?) -> String {
    guard let error else { return "no reason given" }
    defer { g_error_free(error) }
    return String(cString: error.pointee.message)
}

/// A connection of GDBus (`GDBusConnection`), for the calls the renderer makes.
struct BusConnection: @unchecked Sendable {
    let raw: OpaquePointer

    /// The session bus, or nil with why.
    static func session() -> Result<BusConnection, BusFailure> {
        var error: UnsafeMutablePointer<GError>?
        guard let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            return .failure(BusFailure(takeMessage(error)))
        }
        return .success(BusConnection(raw: connection))
    }

    /// A private connection to a message bus at `address`.
    static func open(address: String) -> Result<BusConnection, BusFailure> {
        var error: UnsafeMutablePointer<GError>?
        guard let connection = g_dbus_connection_new_for_address_sync(address, sheetd_bus_connection_flags, nil, nil, &error) else {
            return .failure(BusFailure(takeMessage(error)))
        }
        return .success(BusConnection(raw: connection))
    }

    var uniqueName: String { g_dbus_connection_get_unique_name(raw).map { String(cString: $0) } ?? "" }

    /// A method call, waited for at most `timeoutMilliseconds`; the reply (the caller unrefs
    /// it) or the error's message.
    func call(_ destination: String, _ path: String, _ interface: String, _ method: String, _ parameters: GV.Value?,
              reply: String?, timeoutMilliseconds: Int32 = 2000) -> Result<GV.Value, BusFailure> {
        var error: UnsafeMutablePointer<GError>?
        let type: OpaquePointer? = reply.flatMap { g_variant_type_new($0) }
        defer { if let type { g_variant_type_free(type) } }
        guard let result = g_dbus_connection_call_sync(raw, destination, path, interface, method, parameters, type,
                                                       sheetd_call_flags_none, timeoutMilliseconds, nil, &error) else {
            return .failure(BusFailure(takeMessage(error)))
        }
        return .success(result)
    }

    /// A signal from `path`, to whoever listens.
    func emit(_ path: String, _ interface: String, _ member: String, _ parameters: GV.Value) {
        _ = g_dbus_connection_emit_signal(raw, nil, path, interface, member, parameters, nil)
    }
}

struct BusFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}

/// A thread that only waits and dispatches: GLib's main loop on a context of its own, where
/// GDBus delivers the calls and signals of what `setup` registered on it. `setup` runs there
/// first; its outcome is handed back before `start` returns, and the loop runs only after a
/// success.
final class GLibThread: @unchecked Sendable {
    private let context: OpaquePointer
    private let loop: OpaquePointer
    private var thread = pthread_t()
    private var running = false

    init() {
        context = g_main_context_new()!
        loop = g_main_loop_new(context, 0)!
    }

    deinit {
        if running {
            g_main_loop_quit(loop)
            pthread_join(thread, nil)
        }
        g_main_loop_unref(loop)
        g_main_context_unref(context)
    }

    func start<Success>(_ setup: @escaping () -> Result<Success, BusFailure>) -> Result<Success, BusFailure> {
        // Written there before the semaphore is posted, read here after it.
        var outcome: Result<Success, BusFailure>?
        let start = Start(thread: self) {
            let result = setup()
            outcome = result
            if case .success = result { return true }
            return false
        }
        let box = Unmanaged.passRetained(start)
        guard pthread_create(&thread, nil, { argument in
            let start = Unmanaged<Start>.fromOpaque(argument!).takeRetainedValue()
            start.run()
            return nil
        }, box.toOpaque()) == 0 else {
            box.release()
            return .failure(BusFailure("cannot start a thread"))
        }
        running = true
        while sem_wait(start.done) != 0 {}
        return outcome ?? .failure(BusFailure("the thread ended without a word"))
    }

    /// What the starting thread and the new one share: the setup, and the semaphore it is told by.
    private final class Start: @unchecked Sendable {
        let thread: GLibThread
        let setup: () -> Bool
        let done = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

        init(thread: GLibThread, setup: @escaping () -> Bool) {
            self.thread = thread
            self.setup = setup
            sem_init(done, 0, 0)
        }

        deinit {
            sem_destroy(done)
            done.deallocate()
        }

        func run() {
            g_main_context_push_thread_default(thread.context)
            let succeeded = setup()
            sem_post(done)
            if succeeded { g_main_loop_run(thread.loop) }
            g_main_context_pop_thread_default(thread.context)
        }
    }
}
