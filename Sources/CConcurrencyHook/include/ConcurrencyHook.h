#ifndef SHEETD_CONCURRENCY_HOOK_H
#define SHEETD_CONCURRENCY_HOOK_H

#include <stdbool.h>

/// Where Swift concurrency's global jobs go instead of its own pool: `handler` is given each
/// job (the runtime's `Job *`, an `UnownedJob` to Swift). False when a hook was already set
/// (by NIO or anyone else): nothing is changed then. Call once, before any task runs.
bool sheetd_install_global_enqueue(void (*handler)(void *job));

#endif
