/// Hands Swift concurrency's global jobs to NIO's event loops (`GlobalJobs`): called before
/// any task exists, so that none runs on libdispatch's pool.
public func prepareDaemon() { GlobalJobs.runOnEventLoops() }

/// `sheetd`, run by `SheetPrograms` when the program is called by that name.
public func runDaemon() async { await SheetDaemon.main() }
