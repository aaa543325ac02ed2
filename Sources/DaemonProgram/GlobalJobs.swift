import CConcurrencyHook
import NIOCore
import NIOPosix

/// Swift concurrency's global jobs (those of tasks bound to no actor: the daemon's run, a
/// reload, the signal stream) run on NIO's singleton event loops, which sleep until they have
/// work, rather than on libdispatch's worker pool, whose monitor wakes the process every
/// second once it has started: at rest the daemon wakes for nothing but the watchdog.
///
/// NIO's own take-over (`NIOSingletons.unsafeTryInstall…AsConcurrencyGlobalExecutor`) finds
/// the runtime's hook with `dlsym`, which comes back empty in a build that links the Swift
/// runtime statically (`make release`, the package); the C shim names the hook instead, so
/// the linker finds it in either build. Each job goes to an event loop as its executor's job,
/// which NIO runs without a closure of its own.
enum GlobalJobs {
    /// Whether the hook is sheetd's (`runOnEventLoops`); false: another was set first.
    nonisolated(unsafe) private(set) static var installed = false

    /// Installs the hook; false when another was there already. Call before any task runs.
    /// The jobs are few (a run, a reload, signals), so the singleton group has one loop, not
    /// one per core: a thread, its stack and its heap arena fewer for each core past the first.
    @discardableResult
    static func runOnEventLoops() -> Bool {
        NIOSingletons.groupLoopCountSuggestion = 1
        installed = sheetd_install_global_enqueue { pointer in
            guard let pointer else { return }
            let job = unsafeBitCast(pointer, to: UnownedJob.self)
            MultiThreadedEventLoopGroup.singleton.any().executor.enqueue(ExecutorJob(job))
        }
        return installed
    }
}
