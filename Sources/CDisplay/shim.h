// KMS through libdrm (dumb buffers, mode setting, page flips), udev's word of a display
// plugged or unplugged, and the kernel's framebuffer device interface.
#include <stdint.h>
#include <sys/ioctl.h>
#include <xf86drm.h>
#include <xf86drmMode.h>
#include <libudev.h>
#include <linux/fb.h>
#include <sys/signalfd.h>
// The web backend's wake-up of the render loop.
#include <sys/eventfd.h>

// The framebuffer ioctls are function-like macros in <linux/fb.h>; Swift sees these instead.
static inline int sheet_fb_get_var(int fd, struct fb_var_screeninfo *info) { return ioctl(fd, FBIOGET_VSCREENINFO, info); }
static inline int sheet_fb_get_fix(int fd, struct fb_fix_screeninfo *info) { return ioctl(fd, FBIOGET_FSCREENINFO, info); }
static inline int sheet_fb_pan(int fd, struct fb_var_screeninfo *info) { return ioctl(fd, FBIOPAN_DISPLAY, info); }
static inline int sheet_fb_wait_for_vsync(int fd) { uint32_t screen = 0; return ioctl(fd, FBIO_WAITFORVSYNC, &screen); }
