// Counts heap allocations for the benchmarks by defining the allocator's entry points in the
// benchmark executable; they forward to glibc's own implementations (__libc_*). Only the
// benchmark links this target.
#define _GNU_SOURCE
#include "AllocationCounter.h"
#include <stddef.h>
#include <errno.h>

#if defined(__linux__) && defined(__GLIBC__)
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static _Atomic uint64_t allocations = 0;

uint64_t sheetd_allocation_count(void) { return allocations; }

void *malloc(size_t size) { allocations++; return __libc_malloc(size); }
void *calloc(size_t count, size_t size) { allocations++; return __libc_calloc(count, size); }
void *realloc(void *pointer, size_t size) { allocations++; return __libc_realloc(pointer, size); }
void free(void *pointer) { __libc_free(pointer); }
void *memalign(size_t alignment, size_t size) { allocations++; return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { allocations++; return __libc_memalign(alignment, size); }
int posix_memalign(void **result, size_t alignment, size_t size) {
    allocations++;
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}
#else
uint64_t sheetd_allocation_count(void) { return 0; }
#endif
