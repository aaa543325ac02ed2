import CConcurrencyHook
import NIOCore
import NIOPosix

/// Swift concurrency's global jobs (those of tasks bound to no actor: the service group, a
/// reload, the signal stream) run on NIO's singleton event loops, which sleep until they have
/// work, rather than on libdispatch's worker pool, whose monitor wakes the process every
/// second once it has started: at rest the daemon wakes for nothing but the watchdog.
///
/// NIO's own take-over (`NIOSingletons.unsafeTryInstall…AsConcurrencyGlobalExecutor`) finds
/// the runtime's hook with `dlsym`, which comes back empty in a build that links the Swift
/// runtime statically (`make release`, the package); the C shim names the hook instead, so
/// the linker finds it in either build. There are a few such jobs a second at most, each run
/// by a closure on an event loop.
enum GlobalJobs {
    /// Installs the hook; false when another was there already. Call before any task runs.
    static func runOnEventLoops() -> Bool {
        sheetd_install_global_enqueue { pointer in
            guard let pointer else { return }
            let job = unsafeBitCast(pointer, to: UnownedJob.self)
            let loop = MultiThreadedEventLoopGroup.singleton.any()
            loop.execute { job.runSynchronously(on: loop.executor.asUnownedSerialExecutor()) }
        }
    }
}
