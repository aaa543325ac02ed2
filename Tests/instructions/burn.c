// Preloaded by `Tests/instructions/run --self-test`: a stand-in for a change that adds work to
// every turn of sheetd's loop. Each epoll_wait first spends about 220 instructions, then waits
// as libc's would.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/epoll.h>

int epoll_wait(int descriptor, struct epoll_event *events, int count, int timeout) {
    static int (*real)(int, struct epoll_event *, int, int);
    if (!real) real = (int (*)(int, struct epoll_event *, int, int))dlsym(RTLD_NEXT, "epoll_wait");
    for (volatile int spent = 0; spent < 35; spent++) {
    }
    return real(descriptor, events, count, timeout);
}
