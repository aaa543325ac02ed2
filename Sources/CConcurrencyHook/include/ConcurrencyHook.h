#ifndef SHEETD_CONCURRENCY_HOOK_H
#define SHEETD_CONCURRENCY_HOOK_H

#include <stdbool.h>

/// Where Swift concurrency's global jobs go instead of its own pool: `handler` is given each
/// job (the runtime's `Job *`, an `UnownedJob` to Swift). False when a hook was already set
/// (by NIO or anyone else): nothing is changed then. Call once, before any task runs.
bool sheetd_install_global_enqueue(void (*handler)(void *job));

/// Drains libdispatch's main queue (the main actor's jobs) on the calling thread, the main
/// thread, whenever it has work, as a run loop does; never returns (a job ends the process
/// with exit). In place of dispatch_main(), which ends the main thread with pthread_exit:
/// glibc then unwinds the thread's stack, which reads the program's unwind tables (about
/// 0.5 MiB of them and libgcc's unwinder stay resident in an idle daemon for that alone), and
/// the main queue is left to another thread.
_Noreturn void sheetd_run_main_queue(void);

#endif
