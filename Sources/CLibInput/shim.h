#include <libinput.h>
#include <libudev.h>
#include <linux/input.h>
#include <sys/timerfd.h>
#include <sys/eventfd.h>
#include <sys/epoll.h>
#include <sys/prctl.h>

/* prctl is variadic, which Swift cannot call. */
static inline int sheetd_set_timer_slack(unsigned long nanoseconds) {
    return prctl(PR_SET_TIMERSLACK, nanoseconds, 0, 0, 0);
}

/* EVIOCGBIT and EVIOCGABS are function-like macros: a device node's absolute axes and ranges. */
#include <sys/ioctl.h>
static inline int sheetd_evdev_abs_bits(int fd, unsigned long *bits, unsigned int bytes) {
    return ioctl(fd, EVIOCGBIT(EV_ABS, bytes), bits);
}
static inline int sheetd_evdev_abs_info(int fd, unsigned int code, struct input_absinfo *info) {
    return ioctl(fd, EVIOCGABS(code), info);
}

/* libinput's log handler takes a va_list: a pointer on x86-64, a struct of five members on
 * aarch64, which Swift imports differently (and Swift 6.2 fails to compile a closure taking it
 * for aarch64). The line is formatted here and handed to sheetd_libinput_log_line, a Swift
 * function of SheetInput's (@_cdecl), so Swift never sees the va_list. */
#include <stdarg.h>
#include <stdio.h>
void sheetd_libinput_log_line(struct libinput *libinput, enum libinput_log_priority priority, const char *line);
static void sheetd_libinput_log(struct libinput *libinput, enum libinput_log_priority priority,
                                const char *format, va_list arguments) {
    char line[1024];
    vsnprintf(line, sizeof line, format, arguments);
    sheetd_libinput_log_line(libinput, priority, line);
}
static inline void sheetd_libinput_log_set_handler(struct libinput *libinput) {
    libinput_log_set_handler(libinput, sheetd_libinput_log);
}
