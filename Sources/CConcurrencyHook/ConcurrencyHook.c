// Swift concurrency's runtime lets a program take over where global jobs (those of tasks with
// no actor) are enqueued, through a hook variable it reads on each enqueue. NIO sets it by
// looking the variable up with dlsym, which finds nothing when the runtime is linked
// statically (as `make release` links it: the symbol is then not in the dynamic table), so
// its jobs go to libdispatch's pool, whose monitor wakes the process every second. Referenced
// here by name, the linker resolves the variable in either build.
#include "ConcurrencyHook.h"
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

// The runtime's declaration: a Swift-calling-convention function taking the job and the
// original enqueue, which the hook below does not call.
typedef void (*sheetd_original_enqueue)(void *job) __attribute__((swiftcall));
typedef void (*sheetd_enqueue_hook)(void *job, sheetd_original_enqueue original) __attribute__((swiftcall));
// Declared as the runtime declares it, a plain pointer; set with an atomic compare-and-exchange.
// (The runtime's delay hooks are left alone: nothing in the daemon sleeps in a task.)
extern sheetd_enqueue_hook swift_task_enqueueGlobal_hook;

static void (*job_handler)(void *job);

__attribute__((swiftcall)) static void enqueue_global(void *job, sheetd_original_enqueue original) {
    (void)original;
    job_handler(job);
}

bool sheetd_install_global_enqueue(void (*handler)(void *job)) {
    job_handler = handler;
    sheetd_enqueue_hook expected = NULL;
    return __atomic_compare_exchange_n(&swift_task_enqueueGlobal_hook, &expected, enqueue_global, false,
                                       __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

// libdispatch's interface for a run loop that serves the main queue (CoreFoundation's on
// Linux uses the same two): the handle, an eventfd written when the queue gets work, and the
// callback that drains it on the main thread.
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *message);

_Noreturn void sheetd_run_main_queue(void) {
    int handle = _dispatch_get_main_queue_handle_4CF();
    struct pollfd wait = {.fd = handle, .events = POLLIN};
    for (;;) {
        // Jobs enqueued before the handle existed are drained by the first turn.
        _dispatch_main_queue_callback_4CF(NULL);
        while (poll(&wait, 1, -1) < 0) {
            if (errno != EINTR) abort();  // the handle is gone: nothing would run again
        }
        uint64_t count;
        (void)!read(handle, &count, sizeof count);
    }
}
