// The Wayland protocols sheet-render speaks beyond the core one, as wayland-scanner generates
// them (`Sources/CWayland/generate`): xdg-shell, xdg-output (the outputs' names), the wlr layer
// shell and, for the tests, the wlr virtual pointer. The request wrappers are static inline functions over libwayland's variadic
// marshalling, which Swift calls as ordinary functions.
#ifndef SHEETD_CWAYLAND_H
#define SHEETD_CWAYLAND_H

#include <wayland-client.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "xdg-shell-client-protocol.h"
#include "xdg-output-unstable-v1-client-protocol.h"
#include "wlr-layer-shell-unstable-v1-client-protocol.h"
#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"

// An anonymous file for wl_shm pools, closed on exec: memfd_create(2), which Glibc's Swift
// module does not show.
static inline int sheet_memfd(const char *name) {
    return (int)syscall(SYS_memfd_create, name, 1u /* MFD_CLOEXEC */);
}

// The interfaces' own addresses, for wl_registry_bind: libwayland keeps the pointer in the
// proxy, so a copy Swift makes of the global will not do.
static inline const struct wl_interface *sheet_wl_compositor_interface(void) { return &wl_compositor_interface; }
static inline const struct wl_interface *sheet_wl_shm_interface(void) { return &wl_shm_interface; }
static inline const struct wl_interface *sheet_wl_output_interface(void) { return &wl_output_interface; }
static inline const struct wl_interface *sheet_wl_seat_interface(void) { return &wl_seat_interface; }
static inline const struct wl_interface *sheet_xdg_wm_base_interface(void) { return &xdg_wm_base_interface; }
static inline const struct wl_interface *sheet_zwlr_layer_shell_v1_interface(void) { return &zwlr_layer_shell_v1_interface; }
static inline const struct wl_interface *sheet_zxdg_output_manager_v1_interface(void) { return &zxdg_output_manager_v1_interface; }
static inline const struct wl_interface *sheet_zwlr_virtual_pointer_manager_v1_interface(void) {
    return &zwlr_virtual_pointer_manager_v1_interface;
}

#endif
