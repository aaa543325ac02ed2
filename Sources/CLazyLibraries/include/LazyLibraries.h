#ifndef SHEET_LAZY_LIBRARIES_H
#define SHEET_LAZY_LIBRARIES_H

#include <stddef.h>

// The renderer's libraries (Cairo, Pango, FriBidi, GIO, libxkbcommon, libspeechd, libdrm) are
// not linked to the program: each of their functions that it calls is a stub here, and the
// first call opens the stub's library (dlopen) and looks up all of its functions. A process
// that draws nothing (the daemon) never maps them or the two dozen libraries under them.

// Opens the library `soname` (one of functions.def) and resolves its functions now, so that a
// program can say clearly that a library is missing before its first call. 0 when done (or
// done before); -1 with the reason in `message` otherwise. Safe from any thread.
int sheet_lazy_library_open(const char *soname, char *message, size_t size);

// Whether the library `soname` is open in this process (a test's question).
int sheet_lazy_library_is_open(const char *soname);

#endif
