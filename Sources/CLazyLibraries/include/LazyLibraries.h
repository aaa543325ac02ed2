#ifndef SHEET_LAZY_LIBRARIES_H
#define SHEET_LAZY_LIBRARIES_H

#include <stddef.h>

// Libraries most processes of the program never call (the renderer's: Cairo, Pango, FriBidi,
// GIO, libxkbcommon, libspeechd, libdrm; libinput's stack with GLib; zlib) are not linked
// to it: each of their functions that it calls is a stub here, and the first call opens the
// stub's library (dlopen) and looks up all of its functions. A process that draws nothing and
// reads no device (a daemon fed by a compositor or plugins) maps none of them, nor the two
// dozen libraries under them. The list is functions.def.

// Opens the library `soname` (one of functions.def) and resolves its functions now, so that a
// program can say clearly that a library is missing before its first call. 0 when done (or
// done before); -1 with the reason in `message` otherwise. Safe from any thread.
int sheet_lazy_library_open(const char *soname, char *message, size_t size);

// Whether the library `soname` is open in this process (a test's question).
int sheet_lazy_library_is_open(const char *soname);

#endif
