#ifndef SHEETD_ALLOCATION_COUNTER_H
#define SHEETD_ALLOCATION_COUNTER_H
#include <stdint.h>

/// Heap allocations (malloc, calloc, realloc, aligned variants) made by this process so far.
/// Counts only in the program that links this library: it wraps the allocator's entry points.
uint64_t sheetd_allocation_count(void);

#endif
