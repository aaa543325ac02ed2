import Glibc

/// A C struct from a system header with every byte zero, then its members set by name: the one
/// way the project makes one (`packaging/check-c-structs`, run by `make test`, refuses the other).
///
/// Swift imports a C struct with an initializer that takes every member in order, so a call of
/// it stops compiling the day a newer release of the library adds a member: libwayland 1.23
/// (Debian 13) added `axis_relative_direction` to `wl_pointer_listener`, and the renderer no
/// longer built there. Zero is what C leaves in a member its designated initializer does not
/// name, as `struct wl_pointer_listener l = { .enter = f }` does. A listener's member left zero
/// is an event of a newer version than the one the proxy was bound at, which the compositor
/// never sends to it; a kernel or library struct's is "none" or the default.
///
///     let listener = zeroed(wl_buffer_listener.self) { $0.release = { data, buffer in … } }
///
/// `T` is a C struct (plain bytes); anything else is a programming error, trapped.
@inlinable
public func zeroed<T>(_ type: T.Type, _ fill: (inout T) -> Void = { _ in }) -> T {
    precondition(_isPOD(T.self), "zeroed: \(T.self) is not a C struct")
    return withUnsafeTemporaryAllocation(of: T.self, capacity: 1) { buffer in
        UnsafeMutableRawBufferPointer(buffer).initializeMemory(as: UInt8.self, repeating: 0)
        fill(&buffer[0])
        return buffer[0]
    }
}

/// A zeroed C struct filled by name that lives as long as the process, for a library that
/// keeps its address (a Wayland listener, a GDBus vtable): never freed.
@inlinable
public func zeroedForever<T>(_ type: T.Type, _ fill: (inout T) -> Void) -> UnsafeMutablePointer<T> {
    let pointer = UnsafeMutablePointer<T>.allocate(capacity: 1)
    pointer.initialize(to: zeroed(type, fill))
    return pointer
}

extension pollfd {
    /// Waits for `descriptor` to be readable: `poll(&[pollfd.readable(fd)], 1, timeout)`.
    @inlinable
    public static func readable(_ descriptor: Int32) -> pollfd {
        zeroed(pollfd.self) {
            $0.fd = descriptor
            $0.events = Int16(POLLIN)
        }
    }
}

extension timespec {
    /// `seconds` and `nanoseconds` as a `timespec` (nanoseconds below 1,000,000,000).
    @inlinable
    public static func of(seconds: Int, nanoseconds: Int = 0) -> timespec {
        zeroed(timespec.self) {
            $0.tv_sec = seconds
            $0.tv_nsec = nanoseconds
        }
    }

    /// A count of microseconds (a monotonic instant or a span) as a `timespec`.
    @inlinable
    public static func of(microseconds: Int64) -> timespec {
        of(seconds: Int(microseconds / 1_000_000), nanoseconds: Int(microseconds % 1_000_000) * 1000)
    }
}

extension timeval {
    /// `seconds` and `microseconds` as a `timeval`, as SO_RCVTIMEO and SO_SNDTIMEO take it.
    @inlinable
    public static func of(seconds: Int, microseconds: Int = 0) -> timeval {
        zeroed(timeval.self) {
            $0.tv_sec = seconds
            $0.tv_usec = microseconds
        }
    }
}
